//! Every numeric field of a configuration (`connections`, `[sack]`, `[transport]`) and its `name`,
//! walked at the bounds of its documented range through the TOML path a user takes:
//! each bound is accepted, each value just outside is refused with an error that
//! names the field. (A bound equal to the type's own limit has no "just outside":
//! the TOML value one past it is refused by the parser instead, also checked.)

use mrnic_model::config::{Config, MAX_NAME_LEN};
use mrnic_model::transport::{MAX_CWND, MAX_HEAD_RTO_PCT, MAX_REORDER_THRESHOLD, MAX_TIME_NS};

/// A configuration file: the default preset's sizes plus `sack` and `transport` lines.
fn toml(name: &str, sack: &str, transport: &str) -> String {
    format!("name = {name:?}\nconnections = 1024\n[sack]\nwindow = 256\n{sack}\n[transport]\n{transport}\n")
}

/// `[transport] key = v` alone.
fn tr(key: &str, v: impl std::fmt::Display) -> String {
    toml("t", "", &format!("{key} = {v}"))
}

fn accepted(text: &str) {
    if let Err(e) = Config::from_toml(text) {
        panic!("refused: {e}\n{text}");
    }
}

fn refused(text: &str, field: &str) {
    match Config::from_toml(text) {
        Ok(_) => panic!("accepted, should be refused naming {field}:\n{text}"),
        Err(e) => {
            assert_eq!(e.field(), field, "{e}\n{text}");
            let msg = e.to_string();
            assert!(msg.starts_with("invalid configuration: ") && msg.contains(field), "{msg}");
        }
    }
}

#[test]
fn every_transport_field_is_accepted_at_its_bounds_and_refused_just_outside() {
    let t = MAX_TIME_NS;
    // (key, lowest, highest, just below, just above); None: that side is the type's limit.
    let u = |x: u64| Some(x);
    type Case = (&'static str, u64, u64, Option<u64>, Option<u64>);
    let cases: &[Case] = &[
        ("paths", 1, 16, u(0), u(17)),
        ("reorder_threshold", 1, u64::from(MAX_REORDER_THRESHOLD), u(0), u(1 << 23)),
        ("ack_every", 1, 255, u(0), u(256)),
        ("ack_timeout_ns", 1, t, u(0), u(t + 1)),
        ("head_rto_pct", 0, u64::from(MAX_HEAD_RTO_PCT), None, u(u64::from(MAX_HEAD_RTO_PCT) + 1)),
        ("dctcp_g_shift", 1, 10, u(0), u(11)),
        ("loss_beta_pct", 1, 100, u(0), u(101)),
        ("fail_threshold", 1, 255, u(0), u(256)),
        ("max_probes", 1, 255, u(0), u(256)),
        ("rnr_retry", 0, 7, None, u(8)),
        ("rnr_delay_us", 0, 65535, None, None),
        ("dscp", 0, 63, None, u(64)),
        ("cycle_ns", 1, 255, u(0), None),
    ];
    for &(key, lo, hi, below, above) in cases {
        accepted(&tr(key, lo));
        accepted(&tr(key, hi));
        let field = format!("transport.{key}");
        if let Some(v) = below {
            refused(&tr(key, v), &field);
        }
        if let Some(v) = above {
            refused(&tr(key, v), &field);
        }
    }
    // Bounded by their type: the value one past is a TOML error naming nothing worse.
    assert!(Config::from_toml(&tr("rnr_delay_us", 65536)).is_err());
    assert!(Config::from_toml(&tr("paths", 256)).is_err());
    assert!(Config::from_toml(&tr("cycle_ns", 256)).is_err());
    // Table sizes: powers of two within their ranges.
    for (key, lo, hi) in [("msg_window", 1u64, 256u64), ("rq_depth", 1, 1024), ("mr_entries", 16, 65536), ("tx_pool", 1, 256)] {
        accepted(&tr(key, lo));
        accepted(&tr(key, hi));
        for bad in [lo / 2, hi * 2, lo + 2] {
            if bad != 0 || lo > 1 {
                refused(&tr(key, bad), &format!("transport.{key}"));
            }
        }
        refused(&tr(key, 0), &format!("transport.{key}"));
    }
    // msg_window at most the PSN window.
    refused(&toml("t", "", "msg_window = 64\nwindow = 32\ncwnd_max = 32").replace("window = 256", "window = 32"), "transport.msg_window");

    // MTU: 64..=9000, a multiple of 4.
    for v in [64, 68, 9000] {
        accepted(&tr("mtu", v));
    }
    for v in [60, 66, 9004, 0] {
        refused(&tr("mtu", v), "transport.mtu");
    }
    // P_Key: any 16-bit value but the invalid keys 0x0000 and 0x8000.
    for v in [1, 0x7FFF, 0x8001, 0xFFFF] {
        accepted(&tr("pkey", v));
    }
    for v in [0, 0x8000] {
        refused(&tr("pkey", v), "transport.pkey");
    }
    // RTO bounds: each 1..=2^31-1 and min <= init <= max.
    let rto = |min: u64, init: u64, max: u64| toml("t", "", &format!("rto_min_ns = {min}\nrto_init_ns = {init}\nrto_max_ns = {max}"));
    accepted(&rto(1, 1, 1));
    accepted(&rto(t, t, t));
    accepted(&rto(1, 5, t));
    refused(&rto(0, 5, t), "transport.rto_min_ns");
    refused(&rto(1, 5, t + 1), "transport.rto_max_ns");
    refused(&rto(1, t + 1, t), "transport.rto_init_ns");
    refused(&rto(6, 5, t), "transport.rto_init_ns");
    refused(&rto(1, 6, 5), "transport.rto_init_ns");
    // Congestion windows: each 1..=256 (MAX_CWND), at most the window, min <= init <= max.
    let cw = |min: u64, init: u64, max: u64| toml("t", "", &format!("cwnd_min = {min}\ncwnd_init = {init}\ncwnd_max = {max}"));
    let m = u64::from(MAX_CWND);
    accepted(&cw(1, 1, 1));
    accepted(&cw(m, m, m));
    refused(&cw(0, 1, 1), "transport.cwnd_min");
    refused(&cw(1, 1, m + 1), "transport.cwnd_max");
    refused(&cw(2, 1, 4), "transport.cwnd_init");
    refused(&cw(1, 5, 4), "transport.cwnd_init");
    let narrow = |max: u64| toml("t", "", &format!("window = 64\ncwnd_max = {max}")).replace("window = 256", "window = 64");
    accepted(&narrow(64));
    refused(&narrow(65), "transport.cwnd_max");
}

#[test]
fn connections_sack_sizes_and_the_shared_window_are_accepted_at_their_bounds_and_refused_outside() {
    let sized = |conns: u64, w: u64| {
        format!("name = \"t\"\nconnections = {conns}\n[sack]\nwindow = {w}\n[transport]\nwindow = {w}\ncwnd_max = {w}\n")
    };
    for (c, w) in [(16, 32), (4096, 256), (1024, 64), (256, 128), (64, 64)] {
        accepted(&sized(c, w));
    }
    // The one connection count is the top-level `connections`, refused naming it.
    refused(&sized(8, 32), "connections");
    refused(&sized(8192, 32), "connections");
    refused(&sized(1000, 32), "connections");
    refused(&sized(0, 32), "connections");
    // The old place of the key is refused with a pointer to the new one.
    let e = Config::from_toml("name = \"t\"\n[sack]\nconnections = 256\nwindow = 256\n").unwrap_err();
    assert_eq!(e.field(), "connections", "{e}");
    assert!(e.to_string().contains("top-level key `connections"), "{e}");
    refused(&sized(16, 16), "sack.window");
    refused(&sized(16, 512), "sack.window");
    // transport.window alone, out of the set or different from sack.window.
    refused(&tr("window", 512), "transport.window");
    refused(&toml("t", "", "window = 64\ncwnd_max = 64"), "transport.window");
}

#[test]
fn the_name_is_1_to_64_safe_characters_and_anything_else_is_refused_with_the_reason() {
    accepted(&toml("a", "", ""));
    accepted(&toml(&"x".repeat(MAX_NAME_LEN), "", ""));
    accepted(&toml("ice40-small_2", "", ""));
    for bad in ["", "a b", "a/b", "../x", "x\nmodule evil; endmodule", "é", "a*/", &"x".repeat(MAX_NAME_LEN + 1)] {
        let e = Config::from_toml(&toml(bad, "", "")).unwrap_err();
        assert_eq!(e.field(), "name", "{bad:?}: {e}");
        assert!(e.to_string().contains("[A-Za-z0-9_-]") || e.to_string().contains("characters long"), "{e}");
    }
    // Built in code, not parsed: validate() refuses it all the same.
    let mut c = Config::preset("small").unwrap();
    c.name = "x\nmodule injected;".into();
    assert_eq!(c.validate().unwrap_err().field(), "name");
}
