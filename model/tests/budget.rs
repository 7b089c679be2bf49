//! The block-RAM budget (`model/src/budget.rs`, `docs/budget.md`): which presets fit which
//! device, with what the numbers say, and the page's tables are the code's.

use mrnic_model::budget::{fit, memories_of, summary_markdown, Budget, Sizes, ECP5_85F, UP5K};
use mrnic_model::config::{Config, PRESETS};

fn budget(p: &str) -> Budget {
    Budget::of(&Config::preset(p).unwrap())
}

fn sizes(connections: u64, paths: u64, window: u64, msg_window: u64, rq_depth: u64, mr_entries: u64, tx_records: u64) -> Sizes {
    Sizes { connections, paths, window, msg_window, rq_depth, mr_entries, tx_records }
}

#[test]
fn tiny_fits_the_ice40_up5k_frame_buffer_included() {
    let b = budget("tiny");
    let f = b.on(UP5K.key);
    assert!(f.fits, "{}", f.reason);
    assert!(f.brams_used <= 30 && f.sprams_used <= 4, "{f:?}");
    // The frame buffer is counted: it is one of the placements.
    assert!(f.placements.iter().any(|p| p.block == "parser" && (p.brams > 0 || p.spram_words > 0)));
    assert!(b.on(ECP5_85F.key).fits);
}

/// `core` (256 connections x 8 paths, W = 256, 16 transmission records, 4 messages in
/// flight, 4 receive buffers, 256 MRs) fits the ECP5-85F with the parser's frame buffer.
#[test]
fn core_fits_the_ecp5_85f_with_the_frame_buffer() {
    let b = budget("core");
    let f = b.on(ECP5_85F.key);
    assert!(f.fits, "{}", f.reason);
    assert!(f.brams_used <= ECP5_85F.brams);
    let frames = f.placements.iter().find(|p| p.block == "parser").unwrap();
    assert_eq!(frames.brams, 10, "2 x 9216-byte frames as 2304 x 64 bits: {frames:?}");
}

/// Why `core` needs `tx_pool`: with one transmission record per PSN of the window (tx_pool =
/// W = 256: 65536 records of 84 bits) it does not fit, whatever the message window, receive
/// queue and MR table, and the report names the device and the shortfall.
#[test]
fn core_with_a_record_per_psn_does_not_fit_and_the_report_names_the_device_and_the_shortfall() {
    let f = fit(&memories_of(&sizes(256, 8, 256, 1, 1, 16, 256)), ECP5_85F);
    assert!(!f.fits);
    assert!(f.reason.contains("does not fit ECP5-85F") && f.reason.contains("of 208") && f.reason.contains("short"), "{}", f.reason);
    let rtx: u64 = f.placements.iter().filter(|p| p.block == "rtx").map(|p| p.brams).sum();
    assert!(rtx > ECP5_85F.brams, "the retransmit queue alone: {rtx} DP16KD");
    // ... and at msg_window 8, rq_depth 8 even 16 records do not fit.
    assert!(!fit(&memories_of(&sizes(256, 8, 256, 8, 8, 256, 16)), ECP5_85F).fits);
}

#[test]
fn default_does_not_fit_the_ecp5_85f() {
    let f = budget("default").on(ECP5_85F.key).clone();
    assert!(!f.fits);
    assert!(f.brams_used > 4 * ECP5_85F.brams, "{}", f.reason);
}

/// With one transmission record per PSN (tx_pool = W), what fits the ECP5-85F with the frame
/// buffer (`docs/budget.md`).
#[test]
fn with_a_record_per_psn_what_fits_the_ecp5_85f() {
    for s in [sizes(256, 8, 32, 4, 4, 256, 32), sizes(128, 8, 128, 8, 4, 256, 128), sizes(64, 8, 256, 8, 8, 256, 256)] {
        let f = fit(&memories_of(&s), ECP5_85F);
        assert!(f.fits, "{s:?}: {}", f.reason);
    }
    // ... and 256 connections at W = 64 does not.
    assert!(!fit(&memories_of(&sizes(256, 8, 64, 4, 2, 256, 64)), ECP5_85F).fits);
}

#[test]
fn every_memory_has_its_fields_and_the_per_connection_sums_add_up() {
    for p in PRESETS {
        let b = budget(p);
        for m in &b.memories {
            assert_eq!(m.width, m.fields.iter().map(|f| u64::from(f.bits)).sum::<u64>(), "{p} {}.{}", m.block, m.name);
            assert_eq!(m.bits, m.depth * m.width);
        }
        assert_eq!(b.total_bits, b.memories.iter().map(|m| m.bits).sum::<u64>());
        assert_eq!(b.bits_per_connection, b.blocks().iter().map(|x| x.1).sum::<u64>());
        // Every preset has an SPRAM-free ECP5 placement and a fit per device.
        assert_eq!(b.fits.len(), 2);
        assert_eq!(b.on(ECP5_85F.key).sprams_used, 0);
    }
}

#[test]
fn ice40_does_not_fit_the_up5k_as_a_whole_nic() {
    // The `ice40` preset sizes the SACK engine alone for the UP5K (6 EBR, measured); the whole
    // NIC at 256 connections does not fit.
    let f = budget("ice40").on(UP5K.key).clone();
    assert!(!f.fits && f.reason.contains("does not fit iCE40 UP5K"), "{}", f.reason);
}

/// `docs/budget.md` holds `mrnic budget --summary` and every preset's `mrnic budget --preset P`
/// verbatim: regenerate the page when a width or a preset changes.
#[test]
fn the_budget_page_tables_are_the_code_output() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/budget.md")).unwrap();
    assert!(page.contains(&summary_markdown()), "docs/budget.md: the totals are not `mrnic budget --summary`; regenerate them:\n{}", summary_markdown());
    // The summary's prose quotes these numbers.
    let (core, tiny) = (budget("core"), budget("tiny"));
    let quoted = [
        format!("{} of 208 DP16KD, the frame buffer included", core.on(ECP5_85F.key).brams_used),
        format!("{} of 30 EBR and {} of the 4 SPRAMs", tiny.on(UP5K.key).brams_used, tiny.on(UP5K.key).sprams_used),
        format!("ECP5-85F ({} of 208 DP16KD)", tiny.on(ECP5_85F.key).brams_used),
        format!("{} DP16KD, 16 times", budget("default").on(ECP5_85F.key).brams_used),
    ];
    for q in quoted {
        assert!(page.contains(&q), "docs/budget.md's summary should say {q:?}");
    }
    for p in PRESETS {
        let md = budget(p).to_markdown();
        assert!(page.contains(&md), "docs/budget.md: the `{p}` section is not `mrnic budget --preset {p}`; regenerate it:\n{md}");
    }
}

