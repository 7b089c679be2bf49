//! Writes the generated Verilog of the receive-path checksum primitives, one file each, for
//! synthesis figures (`docs/synthesis.md`, "Primitives"):
//! `cargo run --release -p mrnic-hdl --example prim_verilog -- OUT_DIR`
use mrnic_hdl::prim::{Crc32Stream, OnesSum};
use rust_hdl::prelude::*;

fn write<U: Block>(mut uut: U, name: &str, dir: &std::path::Path) {
    uut.connect_all();
    let module = format!("mrnic_prim_{name}");
    let v = mrnic_hdl::verilog::generate(&uut, &module).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.join(format!("{module}.v")), v).unwrap();
    println!("{module}");
}

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).expect("usage: prim_verilog OUT_DIR"));
    std::fs::create_dir_all(&dir).unwrap();
    write(Crc32Stream::<64>::new(0xDEBB_20E3), "crcstream64", &dir);
    write(Crc32Stream::<512>::new(0xDEBB_20E3), "crcstream512", &dir);
    write(OnesSum::<64, 8>::new(), "onessum64", &dir);
    write(OnesSum::<512, 64>::new(), "onessum512", &dir);
}
