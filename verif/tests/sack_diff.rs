//! Differential test of the SACK engine: the generated Verilog, Verilated, against the golden
//! model's cycle shell, with the same seeded stimulus, every output compared every cycle.
//!
//! `MRNIC_SEED=n` runs one extra seed; `MRNIC_DIFF_SCALE=k` multiplies the run lengths.
//! A mismatch prints the seed, the cycle, the inputs and both outputs, and writes an FST
//! waveform under target/waves/.

use mrnic_model::Config;
use mrnic_verif::sack::verilated::{build, check};
use mrnic_verif::sack::RunReport;

fn scale() -> u64 {
    std::env::var("MRNIC_DIFF_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(1)
}

fn run(preset: &str, seeds: &[u64], cycles: u64) -> Vec<RunReport> {
    let cfg = Config::preset(preset).unwrap();
    let t = mrnic_hdl::tops::sack_engine(&cfg).unwrap();
    let model = build(&format!("sack_{preset}"), &cfg, &t.verilog);
    let mut seeds = seeds.to_vec();
    if let Some(s) = std::env::var("MRNIC_SEED").ok().and_then(|s| s.parse().ok()) {
        seeds.push(s);
    }
    seeds.iter().map(|&s| check(&model, &format!("sack_{preset}"), s, cycles * scale(), &cfg)).collect()
}

#[test]
fn default_preset_matches_the_model_for_a_million_packets_with_backpressure_and_resets() {
    let reps = run("default", &[1, 2], 1_000_000);
    let packets: u64 = reps.iter().map(|r| r.packets_in).sum();
    println!("default: {reps:#?}");
    assert!(packets >= 1_000_000, "only {packets} packets");
    for r in &reps {
        assert!(r.by_class.iter().all(|&n| n > 1000), "every class exercised: {:?}", r.by_class);
        assert!(r.stalled_cycles > 1000 && r.mix.resets > 0 && r.mix.sweeps > 0 && r.mix.clears > 0, "{r:?}");
    }
}

#[test]
fn small_preset_with_16_connections_matches_under_constant_same_connection_hazards() {
    let reps = run("small", &[3], 400_000);
    assert!(reps[0].packets_in > 200_000, "{:?}", reps[0]);
}

#[test]
fn ice40_preset_with_a_64_bit_window_matches_the_model() {
    let reps = run("ice40", &[4], 300_000);
    assert!(reps[0].by_class.iter().all(|&n| n > 100), "{:?}", reps[0].by_class);
}

/// Each mutant is the generated Verilog with one deliberate bug; the differential test must
/// catch every one (and the mutation must apply to exactly one place).
#[test]
fn deliberately_broken_rtl_variants_are_caught() {
    let cfg = Config::preset("small").unwrap();
    let good = mrnic_hdl::tops::sack_engine(&cfg).unwrap().verilog;
    let mutants = [
        ("base_advance_off_by_one_on_wrap", "adv_base = base_hi_next | p_index;", "adv_base = (base_hi_next | p_index) + 24'h1;"),
        ("no_forwarding_of_the_write_in_flight", "b_fwd$d = b_valid$q & (b_conn$q == r_conn$q);", "b_fwd$d = 1'b0;"),
        ("no_merge_of_the_last_write_into_the_read", "r_fw_hit = fw_valid$q & (fw_conn$q == r_conn$q);", "r_fw_hit = 1'b0;"),
        ("no_merge_of_the_write_before_the_last", "r_fw2_hit = fw2_valid$q & (fw2_conn$q == r_conn$q);", "r_fw2_hit = 1'b0;"),
        ("window_class_off_by_one", "cls_in_win = diff < k_window;", "cls_in_win = diff <= k_window;"),
        ("loop_window_check_off_by_one", "low_le = (cur_base & k_slot_mask) <= b_slot;", "low_le = (cur_base & k_slot_mask) < b_slot;"),
        ("stalled_stage_does_not_reread", "ram_base$read_address = r_conn$q;", "ram_base$read_address = s_conn;"),
    ];
    for (name, from, to) in mutants {
        assert_eq!(good.matches(from).count(), 1, "mutant {name}: pattern must occur once");
        let bad = good.replace(from, to);
        let model = build(&format!("sack_mutant_{name}"), &cfg, &bad);
        let mut dut = mrnic_verif::sack::verilated::VlSack::new(model.sim().unwrap());
        let r = mrnic_verif::sack::run_differential(&mut dut, 5, 300_000, cfg.sack.connections, cfg.sack.window);
        match r {
            Ok(rep) => panic!("mutant {name} survived {} cycles", rep.cycles),
            Err(m) => println!("mutant {name}: caught at cycle {}: {}", m.cycle, m.what.join(" | ")),
        }
    }
}

/// The FPGA flow tells yosys (`-no-rw-check`) that a read and a write of the same RAM address
/// in one cycle may return anything. That is safe only if the engine never uses such a read:
/// here both RAMs return garbage (the inverted word) on a same-address collision, and the
/// engine must still match the model exactly. (Collisions are constant in the stimulus: in a
/// full-rate run on one connection, packet n's write lands as packet n+3's read is issued.)
#[test]
fn read_during_write_collisions_never_reach_the_outputs() {
    let cfg = Config::preset("small").unwrap();
    let good = mrnic_hdl::tops::sack_engine(&cfg).unwrap().verilog;
    let from = "read_data <= mem[read_address];";
    assert_eq!(good.matches(from).count(), 2, "both RAMs");
    let bad = good.replace(
        from,
        "read_data <= (write_enable && write_address == read_address) ? ~mem[read_address] : mem[read_address];",
    );
    let model = build("sack_small_rw_garbage", &cfg, &bad);
    for seed in [21, 22] {
        let r = check(&model, "sack_small_rw_garbage", seed, 300_000, &cfg);
        assert!(r.packets_in > 150_000, "{r:?}");
    }
}
