//! Baseline transports, run side by side with mrnic in the same simulator.
//!
//! * [`roce`]: RoCEv2-style reliable connection: one path per QP, go-back-N.
//! * [`irn`]: IRN-style (Mittal et al., SIGCOMM 2018): one path, selective repeat, BDP-FC.
//!
//! Both use [`dcqcn`] rate control, 4096-byte MTU payloads, and RoCEv2 frame
//! sizes: data = payload + 62 (Eth 14, IPv4 20, UDP 8, BTH 12, ICRC 4, FCS 4),
//! ACK/NAK 66 (+ AETH 4), IRN NACK 70 (+ the SACKed PSN), CNP 78 (+ 16 reserved).
//! PSNs are kept as `u64` (no 24-bit wrap). A QP's UDP source port and plane
//! are fixed for its life, derived from the connection seed.

pub mod dcqcn;
pub mod irn;
pub mod roce;

use std::collections::VecDeque;

use crate::rng::splitmix64;
use crate::transport::{Completion, CompletionKind, ConnSpec};

/// Data frame bytes on top of the payload.
pub const DATA_HDR: u32 = 62;
/// ACK / NAK frame bytes.
pub const ACK_FRAME: u32 = 66;
/// IRN NACK frame bytes.
pub const NACK_FRAME: u32 = 70;
/// CNP frame bytes.
pub const CNP_FRAME: u32 = 78;

/// Fixed (UDP source port, plane) of the QP at side `side` of connection `spec`.
pub fn qp_path(spec: &ConnSpec, side: u8) -> (u16, u8) {
    let h = splitmix64(spec.seed ^ side as u64);
    let sport = 49152 + (h % 16384) as u16;
    let plane = (splitmix64(spec.seed ^ 0x9A) % spec.planes.max(1) as u64) as u8;
    (sport, plane)
}

#[derive(Clone, Debug)]
struct Msg {
    id: u64,
    first: u64,
    end: u64,
    bytes: u64,
}

/// A sender's posted messages, segmented into MTU packets with consecutive PSNs.
#[derive(Clone, Debug)]
pub struct TxMsgs {
    msgs: VecDeque<Msg>,
    next_psn: u64,
    next_id: u64,
    mtu: u32,
}

impl TxMsgs {
    /// Empty queue.
    pub fn new(mtu: u32) -> TxMsgs {
        TxMsgs { msgs: VecDeque::new(), next_psn: 0, next_id: 0, mtu }
    }

    /// Queue a message; returns its id.
    pub fn post(&mut self, bytes: u64) -> u64 {
        let n = bytes.div_ceil(self.mtu as u64).max(1);
        let id = self.next_id;
        self.next_id += 1;
        self.msgs.push_back(Msg { id, first: self.next_psn, end: self.next_psn + n, bytes });
        self.next_psn += n;
        id
    }

    /// One past the last PSN allocated.
    pub fn end_psn(&self) -> u64 {
        self.next_psn
    }

    /// Payload length of `psn` and whether it is the last packet of its message.
    pub fn seg(&self, psn: u64) -> (u32, bool) {
        let i = self.msgs.partition_point(|m| m.end <= psn);
        let m = &self.msgs[i];
        debug_assert!(m.first <= psn && psn < m.end);
        let off = (psn - m.first) * self.mtu as u64;
        let len = (m.bytes - off).min(self.mtu as u64) as u32;
        (len, psn + 1 == m.end)
    }

    /// Every PSN below `una` is acknowledged: report messages that completed.
    pub fn ack_upto(&mut self, una: u64, now_ns: u64, out: &mut Vec<Completion>) {
        while let Some(m) = self.msgs.front() {
            if m.end > una {
                break;
            }
            out.push(Completion { id: m.id, at_ns: now_ns, kind: CompletionKind::Sent });
            self.msgs.pop_front();
        }
    }
}

/// Factory for [`roce::RoceEndpoint`] pairs.
#[derive(Clone, Debug, Default)]
pub struct RoceFactory {
    /// Parameters of every QP.
    pub cfg: roce::RoceConfig,
}

impl crate::transport::EndpointFactory for RoceFactory {
    type Frame = roce::RoceFrame;
    fn name(&self) -> String {
        "roce".into()
    }
    fn pair(&self, spec: &ConnSpec) -> (crate::transport::BoxEndpoint<Self::Frame>, crate::transport::BoxEndpoint<Self::Frame>) {
        (
            Box::new(roce::RoceEndpoint::new(self.cfg.clone(), spec, 0)),
            Box::new(roce::RoceEndpoint::new(self.cfg.clone(), spec, 1)),
        )
    }
}

/// Factory for [`irn::IrnEndpoint`] pairs.
#[derive(Clone, Debug, Default)]
pub struct IrnFactory {
    /// Parameters of every QP.
    pub cfg: irn::IrnConfig,
}

impl crate::transport::EndpointFactory for IrnFactory {
    type Frame = irn::IrnFrame;
    fn name(&self) -> String {
        "irn".into()
    }
    fn pair(&self, spec: &ConnSpec) -> (crate::transport::BoxEndpoint<Self::Frame>, crate::transport::BoxEndpoint<Self::Frame>) {
        (
            Box::new(irn::IrnEndpoint::new(self.cfg.clone(), spec, 0)),
            Box::new(irn::IrnEndpoint::new(self.cfg.clone(), spec, 1)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segmentation_and_completion() {
        let mut t = TxMsgs::new(4096);
        assert_eq!(t.post(10_000), 0); // psn 0,1,2 (4096, 4096, 1808)
        assert_eq!(t.post(1), 1); // psn 3
        assert_eq!(t.end_psn(), 4);
        assert_eq!(t.seg(0), (4096, false));
        assert_eq!(t.seg(2), (1808, true));
        assert_eq!(t.seg(3), (1, true));
        let mut out = Vec::new();
        t.ack_upto(2, 5, &mut out);
        assert!(out.is_empty());
        t.ack_upto(4, 6, &mut out);
        assert_eq!(out.iter().map(|c| c.id).collect::<Vec<_>>(), vec![0, 1]);
    }
}

/// A two-endpoint loop for unit tests of the baselines: a fixed one-way delay, one
/// frame per direction per 84 ns slot (a 4 KiB frame at 400 Gb/s), and a predicate that
/// drops chosen frames, so a test can lose exactly the frames it names (a NAK, a
/// retransmission) and watch the recovery.
#[cfg(test)]
pub(crate) mod harness {
    use std::collections::VecDeque;

    use crate::transport::{Completion, CompletionKind, ConnSpec, Endpoint, TxMeta};

    /// Connection spec of the harness: 400 Gb/s, base RTT `rtt_ns`.
    pub fn spec(rtt_ns: u64) -> ConnSpec {
        ConnSpec { conn: 0, a: 0, b: 1, seed: 7, planes: 1, link_bps: 400_000_000_000, base_rtt_ns: rtt_ns, mtu: 4096 }
    }

    /// What a harness run saw.
    pub struct Outcome<F> {
        /// When the sender's last message was acknowledged, ns.
        pub done_ns: Option<u64>,
        /// Every frame the sender put on the wire, with its metadata and send time.
        pub sent: Vec<(u64, F, TxMeta)>,
    }

    /// Send `bytes` from `a` to `b`; `drop(dir, n, frame)` (dir 0 = a -> b, n = index
    /// of the frame in that direction) drops a frame; `jitter(n)` adds delay to the
    /// n-th a -> b frame (reordering).
    pub fn run<E: Endpoint>(
        a: &mut E,
        b: &mut E,
        bytes: u64,
        delay_ns: u64,
        limit_ns: u64,
        mut drop: impl FnMut(u8, usize, &E::Frame) -> bool,
        mut jitter: impl FnMut(usize) -> u64,
    ) -> Outcome<E::Frame>
    where
        E::Frame: Clone,
    {
        const SLOT: u64 = 84;
        a.post_message(0, bytes);
        let mut pipes: [VecDeque<(u64, E::Frame)>; 2] = [VecDeque::new(), VecDeque::new()];
        let mut n = [0usize; 2];
        let mut sent = Vec::new();
        let mut comps: Vec<Completion> = Vec::new();
        let mut t = 0;
        while t < limit_ns {
            for d in 0..2 {
                let mut i = 0;
                while i < pipes[d].len() {
                    if pipes[d][i].0 <= t {
                        let (_, f) = pipes[d].remove(i).expect("index checked");
                        if d == 0 { b.on_frame(t, f, false) } else { a.on_frame(t, f, false) }
                    } else {
                        i += 1;
                    }
                }
            }
            for ep in [&mut *a, &mut *b] {
                if ep.next_wakeup().is_some_and(|w| w <= t) {
                    ep.on_timer(t);
                }
            }
            for d in 0..2u8 {
                let ep: &mut E = if d == 0 { &mut *a } else { &mut *b };
                if let Some((f, meta)) = ep.poll_tx(t, 0) {
                    let k = n[d as usize];
                    n[d as usize] += 1;
                    if d == 0 {
                        sent.push((t, f.clone(), meta));
                    }
                    if !drop(d, k, &f) {
                        let extra = if d == 0 { jitter(k) } else { 0 };
                        pipes[d as usize].push_back((t + SLOT + delay_ns + extra, f));
                    }
                }
            }
            a.take_completions(&mut comps);
            if comps.iter().any(|c| c.kind == CompletionKind::Sent) {
                return Outcome { done_ns: Some(t), sent };
            }
            t += SLOT;
        }
        Outcome { done_ns: None, sent }
    }
}
