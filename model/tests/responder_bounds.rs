//! The responder's bounded tables (issue 9, `docs/protocol.md` §6.10-6.12): the
//! memory-region table's tag check, the posted receive queue's depth, the message
//! window, and a DMA write error. Each test drives two real connection ends over the
//! loopback network (or one responder directly) and checks what was written.

mod common;

use common::*;
use mrnic_model::transport::loopback::{Loopback, NetConfig};
use mrnic_model::transport::placement::{Access, MemoryRegion};
use mrnic_model::transport::{TransportConfig, TransportError, WcStatus, WorkRequest};
use mrnic_model::wire::DataKind::Write;
use mrnic_model::wire::NakCode;

const MS: u64 = 1_000_000;

fn cfg() -> TransportConfig {
    TransportConfig::default()
}

fn write_wr(id: u64, len: u64, va: u64, rkey: u32) -> WorkRequest {
    WorkRequest { wr_id: id, kind: Write, len, remote_va: va, rkey, solicited: false, data: Some(vec![0xA5; len as usize].into()) }
}

fn region(base: u64, len: u64) -> MemoryRegion {
    MemoryRegion { base, len, access: Access { remote_write: true }, pd: 1 }
}

/// A key whose row was re-registered under another tag (stale), and keys nobody
/// registered that select a valid row (forged): NAK BadRkey, nothing written, the
/// message completes with the remote error and the later one is flushed.
#[test]
fn a_stale_or_forged_rkey_fails_the_tag_check_with_bad_rkey_and_writes_nothing() {
    let (_, probe) = pair(&cfg(), 0, 0, 0, 1);
    let t = &probe.rsp.mrs;
    let old = t.rkey(0x1234, 77);
    let new = t.rkey(0x1235, 77);
    for (why, key) in [("stale", old), ("forged: same row, tag 0", t.rkey(0, 77)), ("forged: same row, tag + 2", t.rkey(0x1236, 77))] {
        let (mut a, mut b) = pair(&cfg(), 0, 0, 0, 9);
        b.register(old, REGION, 1 << 20, true, true).unwrap();
        // Re-registration: the old key leaves the row, the new one takes it (same memory).
        assert!(b.rsp.deregister(old).is_some());
        b.rsp.mrs.insert(new, region(REGION, 1 << 20)).unwrap();
        a.post(write_wr(0, 8192, REGION, new)).unwrap();
        a.post(write_wr(1, 4096, REGION + 65536, key)).unwrap();
        a.post(write_wr(2, 4096, REGION + 131072, new)).unwrap();
        let mut l = Loopback::new(a, b, NetConfig::default());
        let r = l.run_to_completion(3, 0, 10 * MS);
        assert!(r.finished, "{why}");
        let st: Vec<WcStatus> = r.completions.iter().map(|c| c.status).collect();
        assert_eq!(st, vec![WcStatus::Success, WcStatus::RemoteError(NakCode::BadRkey), WcStatus::Flushed], "{why}");
        assert_eq!(l.b.rsp.error, Some((NakCode::BadRkey, 1)), "{why}");
        assert_eq!(l.b.rsp.mem.bytes_written, 8192, "{why}: only message 0 was placed");
        assert!(l.b.rsp.mem.read(REGION + 65536, 4096).unwrap().iter().all(|&x| x == 0), "{why}");
        assert_eq!(l.b.rsp.mem.violations, 0);
    }
}

/// `register` refuses a key whose row holds another key, says which, and allocates
/// nothing (the same memory can then be registered under a free row).
#[test]
fn register_refuses_a_taken_row_and_allocates_nothing() {
    let (_, mut b) = pair(&cfg(), 0, 0, 0, 9);
    let (k1, k2) = (b.rsp.mrs.rkey(1, 5), b.rsp.mrs.rkey(2, 5));
    b.register(k1, REGION, 4096, true, true).unwrap();
    let e = b.register(k2, REGION + 4096, 4096, true, true).unwrap_err();
    assert_eq!(e, TransportError::MrRowTaken { rkey: k2, index: 5, holder: k1, entries: b.rsp.mrs.entries() });
    assert!(e.to_string().contains(&format!("{k1:#x}")), "{e}");
    assert_eq!(b.register(k1, REGION + 8192, 4096, true, true), Err(TransportError::RkeyInUse { rkey: k1 }));
    b.register(b.rsp.mrs.rkey(2, 6), REGION + 4096, 4096, true, true).expect("the refused call allocated nothing");
}
