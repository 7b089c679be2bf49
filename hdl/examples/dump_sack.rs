fn main() {
    let cfg = mrnic_hdl::mrnic_model::Config::preset(&std::env::args().nth(1).unwrap_or("small".into())).unwrap();
    print!("{}", mrnic_hdl::sack::sack_verilog(&cfg.sack).unwrap());
}
