//! Writes the parser's generated Verilog (`mrnic_parser.v`) into DIR (default `.`), for
//! Yosys synthesis figures (`docs/blocks/parser.md`).
fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| ".".into());
    let cfg = mrnic_hdl::mrnic_model::Config::preset("default").unwrap();
    let g = mrnic_hdl::tops::block(&cfg, "parser").unwrap();
    let path = std::path::Path::new(&dir).join(&g.file);
    std::fs::write(&path, &g.verilog).unwrap();
    println!("{}", path.display());
}
