//! The simulated exchange (`transport::exchange`: the transport model over a lossy
//! network with a dying route) as a pcap, dissected by tshark: every frame must be
//! Ethernet / IPv4 / UDP / InfiniBand with good IPv4 and UDP checksums and no
//! malformed-packet or error-level expert info. tshark does not check the ICRC,
//! so the pcap is also read back and every frame decoded by `wire::decode`.

use mrnic_model::transport::exchange;
use mrnic_model::wire::{self, pcap};
use std::path::PathBuf;
use std::process::Command;

fn tshark() -> PathBuf {
    for p in ["/usr/bin/tshark", "/usr/local/bin/tshark"] {
        if std::path::Path::new(p).exists() {
            return p.into();
        }
    }
    match Command::new("tshark").arg("--version").output() {
        Ok(o) if o.status.success() => "tshark".into(),
        _ => panic!("tshark is not installed: run bash scripts/setup.sh"),
    }
}

fn run(args: &[&str]) -> String {
    let out = Command::new(tshark())
        .args(args)
        .output()
        .expect("tshark runs (else: run bash scripts/setup.sh)");
    assert!(
        out.status.success(),
        "tshark {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

const CHECKS: [&str; 4] = [
    "-o",
    "ip.check_checksum:TRUE",
    "-o",
    "udp.check_checksum:TRUE",
];

/// Frame numbers tshark flags as malformed, error-level expert info or bad checksum.
fn flagged(file: &str) -> String {
    let mut args = vec!["-r", file];
    args.extend_from_slice(&CHECKS);
    args.extend_from_slice(&[
        "-Y",
        "_ws.malformed || _ws.expert.severity >= error || ip.checksum.status == 0 || udp.checksum.status == 0",
        "-T",
        "fields",
        "-e",
        "frame.number",
    ]);
    run(&args).trim().to_string()
}

#[test]
fn the_simulated_exchange_pcap_dissects_cleanly() {
    let dir = std::env::temp_dir().join(format!("mrnic-wire-tshark-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("exchange.pcap");
    let (script, report) = exchange::exchange(1);
    assert!(report.finished, "the exchange completes: {report:?}");
    let n = exchange::write_pcap(std::fs::File::create(&file).unwrap(), &script).unwrap();
    let f = file.to_str().unwrap();
    if let Ok(keep) = std::env::var("MRNIC_PCAP_OUT") {
        std::fs::copy(&file, keep).unwrap(); // to look at it in Wireshark
    }
    assert!(n >= 100, "{n} frames");

    // Our own decoder: every frame valid, ICRC included, and equal to the capture.
    let bytes = std::fs::read(&file).unwrap();
    let (linktype, recs) = pcap::read(&bytes).unwrap();
    assert_eq!(linktype, pcap::LINKTYPE_ETHERNET);
    assert_eq!(recs.len(), script.len());
    for (r, c) in recs.iter().zip(&script) {
        assert_eq!(r.t_ns, c.t_ns);
        assert_eq!(wire::decode(&r.data).as_ref(), Ok(&c.frame));
    }
    let kinds: Vec<u8> = script.iter().map(|c| c.frame.opcode()).collect();
    for op in [
        wire::opcode::WRITE,
        wire::opcode::SEND,
        wire::opcode::ACK,
        wire::opcode::NAK,
        wire::opcode::PROBE,
        wire::opcode::PROBE_REPLY,
    ] {
        assert!(
            kinds.contains(&op),
            "opcode {op:#x} missing from the exchange"
        );
    }
    assert!(script
        .iter()
        .any(|c| matches!(&c.frame.body, wire::Body::Nak(n) if n.code == wire::NakCode::BadRkey)));
    assert!(script
        .iter()
        .any(|c| matches!(&c.frame.body, wire::Body::Ack(a) if a.ecn_ce > 0)));
    assert!(script.iter().any(|c| c.dropped));
    assert!(script
        .iter()
        .any(|c| matches!(&c.frame.body, wire::Body::Data { ext, .. } if ext.retx())));
    assert!(script
        .iter()
        .any(|c| matches!(&c.frame.body, wire::Body::Ack(a) if a.sack.count_ones() > 0)));

    let mut args = vec!["-r", f];
    args.extend_from_slice(&CHECKS);
    args.extend_from_slice(&[
        "-T",
        "fields",
        "-e",
        "frame.protocols",
        "-e",
        "ip.checksum.status",
        "-e",
        "udp.checksum.status",
        "-e",
        "infiniband.bth.opcode",
        "-e",
        "infiniband.bth.psn",
        "-e",
        "infiniband.bth.destqp",
    ]);
    let out = run(&args);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), n, "tshark saw {} frames:\n{out}", lines.len());
    for (i, (l, c)) in lines.iter().zip(&script).enumerate() {
        let cols: Vec<&str> = l.split('\t').collect();
        assert_eq!(cols.len(), 6, "frame {}: {l:?}", i + 1);
        assert!(
            cols[0].starts_with("eth:ethertype:ip:udp:infiniband"),
            "frame {}: protocols {:?}",
            i + 1,
            cols[0]
        );
        // Wireshark's checksum status: 1 = good.
        assert_eq!(
            cols[1],
            "1",
            "frame {}: IPv4 checksum status in {l:?}",
            i + 1
        );
        assert_eq!(
            cols[2],
            "1",
            "frame {}: UDP checksum status in {l:?}",
            i + 1
        );
        assert_eq!(
            cols[3],
            c.frame.opcode().to_string(),
            "frame {}: opcode",
            i + 1
        );
        assert_eq!(cols[4], c.frame.bth.psn.to_string(), "frame {}: PSN", i + 1);
        let qp = u32::from_str_radix(cols[5].trim_start_matches("0x"), 16).unwrap();
        assert_eq!(qp, c.frame.bth.dest_qp, "frame {}: dest QP", i + 1);
    }

    // No malformed frame, no error-level expert info, no bad checksum.
    assert_eq!(flagged(f), "", "tshark flags frames");

    // The filter itself works: corrupt one byte of the last frame's UDP payload.
    let mut broken = bytes.clone();
    let at = broken.len() - 10;
    broken[at] ^= 0x40;
    let bfile = dir.join("broken.pcap");
    std::fs::write(&bfile, &broken).unwrap();
    assert_eq!(
        flagged(bfile.to_str().unwrap()),
        n.to_string(),
        "tshark must flag the corrupted last frame"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
