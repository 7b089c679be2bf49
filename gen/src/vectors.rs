//! Test vectors from the golden model: the seeded stimulus and the expected outputs of every
//! cycle, as JSON, for the cocotb test (which drives the same generated Verilog).

use anyhow::Result;
use mrnic_model::sack::SackShell;
use mrnic_model::stimulus::SackStimulus;
use mrnic_model::Config;
use std::path::Path;

pub fn write(cfg: &Config, seed: u64, cycles: u64, out: &Path) -> Result<()> {
    let (conns, window) = (cfg.sack.connections, cfg.sack.window);
    let mut stim = SackStimulus::new(seed, conns, window);
    let mut model = SackShell::new(conns, window);
    let mut taken = false;
    let mut rows = Vec::with_capacity(cycles as usize);
    for _ in 0..cycles {
        let i = stim.next_inputs(taken);
        let o = model.step(&i);
        taken = i.s_valid && o.s_ready;
        let m = o.m.map(|m| {
            serde_json::json!({
                "conn": m.conn, "psn": m.psn, "class": m.result.class.code(),
                "base": m.result.base, "bitmap": m.result.bitmap.to_hex(window),
            })
        });
        rows.push(serde_json::json!({
            "in": {"rst": i.rst as u8, "s_valid": i.s_valid as u8, "s_conn": i.s_conn, "s_psn": i.s_psn,
                   "s_clear": i.s_clear as u8, "m_ready": i.m_ready as u8},
            "out": {"s_ready": o.s_ready as u8, "m": m,
                    "stats": [o.stats.new, o.stats.duplicate, o.stats.out_of_window, o.stats.cleared]},
        }));
    }
    let doc = serde_json::json!({
        "config": cfg, "seed": seed, "latency": mrnic_model::sack::SACK_LATENCY,
        "convention": "inputs are applied before a rising edge; outputs are read in the same cycle, before that edge",
        "cycles": rows,
    });
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(out, serde_json::to_string(&doc)?)?;
    println!("wrote {} cycles to {}", cycles, out.display());
    Ok(())
}
