//! rust-hdl's `yosys_validate` on the generated Verilog: no latches, no undriven wires,
//! no implicit declarations (rust-hdl's own `check_all` does not catch latches).
//! Needs `yosys` on PATH (`bash scripts/setup.sh` installs a wrapper for YoWASP's).

use mrnic_model::Config;
use rust_hdl::prelude::yosys_validate;

fn validate(preset: &str) {
    let t = mrnic_hdl::tops::sack_engine(&Config::preset(preset).unwrap()).unwrap();
    if let Err(e) = yosys_validate(&format!("mrnic_sack_{preset}"), &t.verilog) {
        panic!("yosys_validate failed for preset {preset}: {e:?}");
    }
}

#[test]
fn sack_engine_default_passes_yosys_validate() {
    validate("default");
}

#[test]
fn sack_engine_ice40_passes_yosys_validate() {
    validate("ice40");
}
