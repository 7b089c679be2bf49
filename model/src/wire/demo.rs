//! A small scripted exchange between two endpoints, for pcaps and dissector tests:
//! data on four paths, a lost packet, its retransmission on another path, ACKs
//! with SACK bitmaps (computed by [`crate::sack::SackState`]), an ECN mark and its
//! echo, a path probe on a re-rolled entropy, and a NAK for a bad rkey.
//!
//! It is a script, not the transport model: every decision is written out.

use super::*;
use crate::sack::SackState;

/// Requester endpoint addresses.
pub const A_MAC: [u8; 6] = [0x02, 0x6d, 0x72, 0x6e, 0x00, 0x01];
pub const B_MAC: [u8; 6] = [0x02, 0x6d, 0x72, 0x6e, 0x00, 0x02];
pub const A_IP: [u8; 4] = [10, 0, 0, 1];
pub const B_IP: [u8; 4] = [10, 0, 0, 2];
pub const A_QP: u32 = 0x000012;
pub const B_QP: u32 = 0x000034;
pub const RKEY: u32 = 0x0000_ab01;
pub const VA: u64 = 0x7f00_0000_1000;
pub const SEG: usize = 256;

/// One captured frame: time (ns), whether the network dropped it (it still
/// appears in the capture, taken at the sender), and the frame.
#[derive(Clone, Debug)]
pub struct Captured {
    pub t_ns: u64,
    pub dropped: bool,
    pub frame: Frame,
}

fn a_to_b(entropy: u16, ecn: Ecn, bth: Bth, body: Body) -> Frame {
    Frame {
        eth: EthHeader {
            dst: B_MAC,
            src: A_MAC,
            vlan: None,
        },
        ip: Ipv4Header {
            ecn,
            src: A_IP,
            dst: B_IP,
            ..Ipv4Header::default()
        },
        udp: UdpHeader::from_entropy(entropy),
        bth: Bth {
            dest_qp: B_QP,
            ..bth
        },
        body,
    }
}

fn b_to_a(entropy: u16, bth: Bth, body: Body) -> Frame {
    Frame {
        eth: EthHeader {
            dst: A_MAC,
            src: B_MAC,
            vlan: None,
        },
        ip: Ipv4Header {
            src: B_IP,
            dst: A_IP,
            ..Ipv4Header::default()
        },
        udp: UdpHeader::from_entropy(entropy),
        bth: Bth {
            dest_qp: A_QP,
            ..bth
        },
        body,
    }
}

/// An ACK from B to A, captured at `t_ns`: the BTH PSN carries the cumulative PSN.
fn ack_from_b(t_ns: u64, entropy: u16, cumulative: u32, ack: Ack) -> Captured {
    Captured {
        t_ns,
        dropped: false,
        frame: b_to_a(
            entropy,
            Bth {
                psn: cumulative,
                ..Bth::default()
            },
            Body::Ack(ack),
        ),
    }
}

/// The payload of WRITE packet `i` of the demo message.
pub fn payload(i: usize) -> Vec<u8> {
    (0..SEG).map(|k| (i * 31 + k) as u8).collect()
}

/// The scripted exchange, in capture order.
pub fn exchange() -> Vec<Captured> {
    let entropy = [0x0101u16, 0x0202, 0x0303, 0x0404];
    let mut out = Vec::new();
    let mut t = 1_000u64;
    let mut path_psn = [0u32; 4];
    let mut sack = SackState::default();
    let first_psn = 100u32;
    sack.clear(first_psn);
    // receiver per-path counters since the last ACK naming the path
    let mut ce = [0u8; 4];
    let mut pkts = [0u8; 4];
    let mut highest = [0u32; 4];

    let mut data = |out: &mut Vec<Captured>,
                    t: u64,
                    i: usize,
                    path: usize,
                    psn: u32,
                    retx: bool,
                    last: bool,
                    ecn: Ecn| {
        let ext = DataExt {
            path_id: path as u8,
            path_psn: path_psn[path],
            msn: 0,
            pkt_offset: i as u32,
            flags: if last { data_flags::LAST } else { 0 }
                | if retx { data_flags::RETX } else { 0 },
            ssn: 0,
            timestamp: t as u32,
        };
        path_psn[path] += 1;
        let body = Body::Data {
            kind: DataKind::Write,
            ext,
            placement: Placement {
                va: VA + (i * SEG) as u64,
                rkey: RKEY,
            },
            payload: payload(i),
        };
        let bth = Bth {
            psn,
            ack_req: last,
            ..Bth::default()
        };
        let f = a_to_b(entropy[path], ecn, bth, body);
        out.push(Captured {
            t_ns: t,
            dropped: false,
            frame: f,
        });
    };
    // Message 0: six packets round robin over paths 0..3; PSN 102 (path 2) is lost,
    // PSN 104 is CE-marked by a switch.
    let plan = [(0usize, 0usize), (1, 1), (2, 2), (3, 3), (4, 0), (5, 1)];
    for &(i, path) in &plan {
        let ecn = if i == 4 { Ecn::Ce } else { Ecn::Ect0 };
        data(
            &mut out,
            t,
            i,
            path,
            first_psn + i as u32,
            false,
            false,
            ecn,
        );
        t += 300;
    }
    out[2].dropped = true;
    // The receiver sees 100, 101, 103, 104, 105 (each 2 us later than sent).
    let mut acks = Vec::new();
    for (n, idx) in [0usize, 1, 3, 4, 5].into_iter().enumerate() {
        let Body::Data { ext, .. } = &out[idx].frame.body else {
            continue;
        };
        let p = ext.path_id as usize;
        let r = sack.receive(out[idx].frame.bth.psn, 256);
        pkts[p] += 1;
        highest[p] = ext.path_psn;
        if out[idx].frame.ip.ecn == Ecn::Ce {
            ce[p] += 1;
        }
        // a coalesced ACK after every second packet (the coalescing timer T)
        if n % 2 == 1 {
            let ack = Ack {
                path_id: p as u8,
                path_psn: highest[p],
                flags: 0,
                ecn_ce: ce[p],
                ecn_pkts: pkts[p],
                rate_hint: 25_000,
                ts_echo: ext.timestamp,
                ack_delay: 150,
                sack: r.bitmap,
            };
            ce[p] = 0;
            pkts[p] = 0;
            let at = out[idx].t_ns + 2_000 + 150;
            acks.push(ack_from_b(at, 0x1111, r.base, ack));
        }
    }
    out.extend(acks);
    t = out.iter().map(|c| c.t_ns).max().unwrap_or(t) + 500;
    // The sender's next packet on path 2 (the last one of the message, PSN 106)
    // makes the receiver see a path PSN gap on path 2: immediate ACK with PATH_GAP.
    data(&mut out, t, 6, 2, first_psn + 6, false, true, Ecn::Ect0);
    let r = sack.receive(first_psn + 6, 256);
    let ack = Ack {
        path_id: 2,
        path_psn: 1,
        flags: ack_flags::PATH_GAP | ack_flags::ACK_REQ,
        ecn_ce: 0,
        ecn_pkts: 1,
        rate_hint: 25_000,
        ts_echo: t as u32,
        ack_delay: 0,
        sack: r.bitmap,
    };
    t += 2_000;
    out.push(ack_from_b(t, 0x1112, r.base, ack));
    // The sender declares PSN 102 lost (path PSN gap on path 2 above the reorder
    // threshold) and retransmits it on healthy path 3.
    t += 2_000;
    data(&mut out, t, 2, 3, first_psn + 2, true, false, Ecn::Ect0);
    let r = sack.receive(first_psn + 2, 256);
    let ack = Ack {
        path_id: 3,
        path_psn: 1,
        flags: 0,
        ecn_ce: 0,
        ecn_pkts: 2,
        rate_hint: 25_000,
        ts_echo: t as u32,
        ack_delay: 0,
        sack: r.bitmap,
    };
    t += 2_000;
    out.push(ack_from_b(t, 0x1113, r.base, ack));
    // Path 2 is suspect: the sender re-rolls its entropy and probes it.
    t += 1_000;
    let new_port = UdpHeader::from_entropy(0x2a2a).src_port;
    let probe = Probe {
        path_id: 2,
        port: new_port,
        seq: 1,
        timestamp: t as u32,
    };
    out.push(Captured {
        t_ns: t,
        dropped: false,
        frame: a_to_b(
            0x2a2a,
            Ecn::Ect0,
            Bth {
                psn: first_psn + 7,
                ..Bth::default()
            },
            Body::Probe(probe),
        ),
    });
    t += 2_000;
    out.push(Captured {
        t_ns: t,
        dropped: false,
        frame: b_to_a(
            0x2a2a,
            Bth {
                psn: r.base,
                ..Bth::default()
            },
            Body::ProbeReply(probe),
        ),
    });
    // Message 1: a WRITE with a wrong rkey, refused with a NAK.
    t += 1_000;
    let body = Body::Data {
        kind: DataKind::Write,
        ext: DataExt {
            path_id: 0,
            path_psn: path_psn[0],
            msn: 1,
            pkt_offset: 0,
            flags: data_flags::LAST,
            ssn: 0,
            timestamp: t as u32,
        },
        placement: Placement {
            va: VA,
            rkey: RKEY + 1,
        },
        payload: b"mrnic".to_vec(),
    };
    out.push(Captured {
        t_ns: t,
        dropped: false,
        frame: a_to_b(
            entropy[0],
            Ecn::Ect0,
            Bth {
                psn: first_psn + 7,
                ack_req: true,
                ..Bth::default()
            },
            body,
        ),
    });
    // A refused packet is not recorded in the SACK state: the cumulative PSN stays.
    t += 2_000;
    let nak = Nak {
        code: NakCode::BadRkey,
        path_id: 0,
        rnr_delay_us: 0,
        msn: 1,
        cumulative: sack.base,
    };
    out.push(Captured {
        t_ns: t,
        dropped: false,
        frame: b_to_a(
            0x1114,
            Bth {
                psn: first_psn + 7,
                ..Bth::default()
            },
            Body::Nak(nak),
        ),
    });
    out.sort_by_key(|c| c.t_ns);
    out
}

/// Writes the exchange as a pcap (dropped frames included: the capture point is
/// at the sender).
pub fn write_pcap<W: std::io::Write>(w: W) -> std::io::Result<usize> {
    let mut p = pcap::PcapWriter::new(w)?;
    for c in exchange() {
        p.write(c.t_ns, &encode(&c.frame))?;
    }
    let n = p.frames();
    p.into_inner()?;
    Ok(n)
}
