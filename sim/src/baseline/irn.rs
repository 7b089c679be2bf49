//! IRN-style reliable connection (Mittal et al., "Revisiting Network Support
//! for RDMA", SIGCOMM 2018): selective repeat without PFC.
//!
//! * One path per QP, as RoCE ([`super::qp_path`]).
//! * Receiver: accepts and places out-of-order packets (a bitmap above the
//!   cumulative PSN); every out-of-order arrival is answered with a NACK
//!   carrying the cumulative PSN and the PSN that arrived (a one-packet SACK);
//!   in-order arrivals with a cumulative ACK (every `ack_every` packets and at
//!   message ends while there is no gap, immediately otherwise).
//! * Sender: on the first NACK it enters loss recovery until the cumulative
//!   ACK passes the highest PSN sent at entry. In recovery, every PSN below the
//!   highest SACKed PSN that was neither SACKed nor already retransmitted is
//!   inferred lost and retransmitted once, ahead of new data.
//! * Timeouts: `rto_low_us` when at most `rto_low_threshold` packets are
//!   outstanding, `rto_high_us` otherwise; on a timeout every un-SACKed
//!   outstanding packet is retransmitted.
//! * BDP-FC: new packets only while fewer than one BDP of packets
//!   (`ceil(bdp / mtu)`) is outstanding.
//! * Rate control: [`super::dcqcn`].

use std::collections::{BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};

use super::dcqcn::{CnpGen, Dcqcn, DcqcnConfig};
use super::{qp_path, TxMsgs, ACK_FRAME, CNP_FRAME, DATA_HDR, NACK_FRAME};
use crate::transport::{Completion, CompletionKind, ConnSpec, Endpoint, EndpointStats, TxMeta};
use crate::SimError;

/// IRN baseline parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct IrnConfig {
    /// Timeout with few packets outstanding, µs.
    pub rto_low_us: f64,
    /// Timeout otherwise, µs.
    pub rto_high_us: f64,
    /// "Few": at most this many outstanding packets.
    pub rto_low_threshold: u32,
    /// Cap outstanding packets at one BDP.
    pub bdp_fc: bool,
    /// Cumulative ACK every this many in-order packets.
    pub ack_every: u32,
    /// Rate control.
    pub dcqcn: DcqcnConfig,
}

impl Default for IrnConfig {
    fn default() -> Self {
        IrnConfig {
            rto_low_us: 100.0,
            rto_high_us: 320.0,
            rto_low_threshold: 3,
            bdp_fc: true,
            ack_every: 1,
            dcqcn: DcqcnConfig::default(),
        }
    }
}

impl IrnConfig {
    /// Refuse bad values, with the reason.
    pub fn validate(&self) -> Result<(), SimError> {
        if !(self.rto_low_us.is_finite() && self.rto_low_us >= 1.0) {
            return Err(SimError::invalid("irn.rto_low_us", format!("{} must be >= 1", self.rto_low_us)));
        }
        if !(self.rto_high_us.is_finite() && self.rto_high_us >= self.rto_low_us) {
            return Err(SimError::invalid(
                "irn.rto_high_us",
                format!("{} must be >= rto_low_us {}", self.rto_high_us, self.rto_low_us),
            ));
        }
        if self.ack_every == 0 {
            return Err(SimError::invalid("irn.ack_every", "must be >= 1"));
        }
        self.dcqcn.validate("irn")
    }
}

/// IRN frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IrnFrame {
    /// Payload packet.
    Data {
        /// Packet sequence number.
        psn: u64,
        /// Payload bytes.
        len: u32,
        /// Last packet of a message.
        last: bool,
    },
    /// Cumulative ACK.
    Ack {
        /// Every PSN below was received.
        cum: u64,
    },
    /// Out-of-order arrival.
    Nack {
        /// Every PSN below was received.
        cum: u64,
        /// The PSN that arrived out of order.
        sack: u64,
    },
    /// Congestion notification.
    Cnp,
}

const SACKED: u8 = 1;
const LOST: u8 = 2;
const RETX: u8 = 4;
/// Receiver refuses packets further than this above its cumulative PSN.
const RX_WINDOW: u64 = 1 << 20;

/// One IRN QP (both roles).
pub struct IrnEndpoint {
    cfg: IrnConfig,
    sport: u16,
    plane: u8,
    bdp_pkts: u64,
    tx: TxMsgs,
    una: u64,
    nxt: u64,
    flags: VecDeque<u8>,
    retxq: VecDeque<u64>,
    in_recovery: bool,
    recovery_point: u64,
    scan_hi: u64,
    rto_at: Option<u64>,
    cc: Dcqcn,
    epsn: u64,
    rxmap: VecDeque<bool>,
    lasts: BTreeSet<u64>,
    unacked: u32,
    rx_msgs: u64,
    cnp: CnpGen,
    delivered: u64,
    ctrl: VecDeque<IrnFrame>,
    comps: Vec<Completion>,
    stats: EndpointStats,
    last_now: u64,
}

impl IrnEndpoint {
    /// The QP at side `side` (0 = host a, 1 = host b) of `spec`.
    pub fn new(cfg: IrnConfig, spec: &ConnSpec, side: u8) -> IrnEndpoint {
        let (sport, plane) = qp_path(spec, side);
        IrnEndpoint {
            cc: Dcqcn::new(cfg.dcqcn.clone(), spec.link_bps),
            bdp_pkts: spec.bdp_bytes().div_ceil(spec.mtu as u64).max(1),
            cfg,
            sport,
            plane,
            tx: TxMsgs::new(spec.mtu),
            una: 0,
            nxt: 0,
            flags: VecDeque::new(),
            retxq: VecDeque::new(),
            in_recovery: false,
            recovery_point: 0,
            scan_hi: 0,
            rto_at: None,
            epsn: 0,
            rxmap: VecDeque::new(),
            lasts: BTreeSet::new(),
            unacked: 0,
            rx_msgs: 0,
            cnp: CnpGen::default(),
            delivered: 0,
            ctrl: VecDeque::new(),
            comps: Vec::new(),
            stats: EndpointStats::default(),
            last_now: 0,
        }
    }

    /// Outstanding-packet cap from BDP-FC.
    pub fn bdp_pkts(&self) -> u64 {
        self.bdp_pkts
    }

    fn rto_ns(&self) -> u64 {
        let us = if self.nxt - self.una <= self.cfg.rto_low_threshold as u64 {
            self.cfg.rto_low_us
        } else {
            self.cfg.rto_high_us
        };
        (us * 1000.0) as u64
    }

    fn new_allowed(&self) -> bool {
        self.nxt < self.tx.end_psn() && (!self.cfg.bdp_fc || self.nxt - self.una < self.bdp_pkts)
    }

    fn clean_retxq(&mut self) {
        while let Some(&p) = self.retxq.front() {
            if p < self.una || self.flags[(p - self.una) as usize] & SACKED != 0 {
                self.retxq.pop_front();
                if p >= self.una {
                    self.flags[(p - self.una) as usize] &= !LOST;
                }
            } else {
                break;
            }
        }
    }

    fn has_work(&mut self) -> bool {
        self.clean_retxq();
        !self.retxq.is_empty() || self.new_allowed()
    }

    fn on_cum(&mut self, now: u64, cum: u64) {
        if cum > self.una && cum <= self.nxt {
            let n = (cum - self.una) as usize;
            self.flags.drain(..n);
            self.una = cum;
            self.tx.ack_upto(cum, now, &mut self.comps);
            self.rto_at = (self.una < self.nxt).then(|| now + self.rto_ns());
        }
        if self.in_recovery && self.una >= self.recovery_point {
            self.in_recovery = false;
        }
    }

    fn send_data(&mut self, now: u64, psn: u64, retx: bool) -> (IrnFrame, TxMeta) {
        let (len, last) = self.tx.seg(psn);
        let bytes = len + DATA_HDR;
        self.stats.data_sent += 1;
        if retx {
            self.stats.data_retx += 1;
        }
        self.cc.on_send(now, bytes);
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rto_ns());
        }
        (IrnFrame::Data { psn, len, last }, TxMeta { bytes, sport: self.sport, ect: true })
    }

    fn ack_now(&mut self) {
        self.unacked = 0;
        self.ctrl.push_back(IrnFrame::Ack { cum: self.epsn });
    }

    fn rx_data(&mut self, now: u64, psn: u64, len: u32, last: bool) {
        if psn < self.epsn {
            self.ack_now();
            return;
        }
        let off = psn - self.epsn;
        if off >= RX_WINDOW {
            return;
        }
        let off = off as usize;
        if self.rxmap.len() <= off {
            self.rxmap.resize(off + 1, false);
        }
        if self.rxmap[off] {
            self.ctrl.push_back(IrnFrame::Nack { cum: self.epsn, sack: psn });
            return;
        }
        self.rxmap[off] = true;
        self.delivered += len as u64;
        if last {
            self.lasts.insert(psn);
        }
        if off > 0 {
            self.ctrl.push_back(IrnFrame::Nack { cum: self.epsn, sack: psn });
            return;
        }
        let had_gap = self.rxmap.len() > 1;
        while self.rxmap.front() == Some(&true) {
            self.rxmap.pop_front();
            self.epsn += 1;
        }
        while let Some(&l) = self.lasts.first() {
            if l >= self.epsn {
                break;
            }
            self.lasts.pop_first();
            self.comps.push(Completion { id: self.rx_msgs, at_ns: now, kind: CompletionKind::Received });
            self.rx_msgs += 1;
        }
        self.unacked += 1;
        if had_gap || !self.rxmap.is_empty() || last || self.unacked >= self.cfg.ack_every {
            self.ack_now();
        }
    }
}

impl Endpoint for IrnEndpoint {
    type Frame = IrnFrame;

    fn poll_tx(&mut self, now: u64, plane: u8) -> Option<(IrnFrame, TxMeta)> {
        self.last_now = now;
        if plane != self.plane {
            return None;
        }
        if let Some(f) = self.ctrl.pop_front() {
            let bytes = match f {
                IrnFrame::Cnp => CNP_FRAME,
                IrnFrame::Nack { .. } => NACK_FRAME,
                _ => ACK_FRAME,
            };
            return Some((f, TxMeta { bytes, sport: self.sport, ect: false }));
        }
        if !self.cc.can_send(now) {
            return None;
        }
        self.clean_retxq();
        if let Some(p) = self.retxq.pop_front() {
            let f = &mut self.flags[(p - self.una) as usize];
            *f = (*f & !LOST) | RETX;
            return Some(self.send_data(now, p, true));
        }
        if self.new_allowed() {
            let p = self.nxt;
            self.nxt += 1;
            self.flags.push_back(0);
            return Some(self.send_data(now, p, false));
        }
        None
    }

    fn on_frame(&mut self, now: u64, frame: IrnFrame, ce: bool) {
        self.last_now = now;
        match frame {
            IrnFrame::Data { psn, len, last } => {
                if ce && self.cnp.on_ce(now, &self.cfg.dcqcn) {
                    self.ctrl.push_back(IrnFrame::Cnp);
                    self.stats.cnps_sent += 1;
                }
                self.rx_data(now, psn, len, last);
            }
            IrnFrame::Ack { cum } => self.on_cum(now, cum),
            IrnFrame::Nack { cum, sack } => {
                self.on_cum(now, cum);
                if sack < self.una || sack >= self.nxt {
                    return;
                }
                self.flags[(sack - self.una) as usize] |= SACKED;
                if !self.in_recovery {
                    self.in_recovery = true;
                    self.recovery_point = self.nxt;
                    self.scan_hi = self.una;
                }
                let from = self.scan_hi.max(self.una);
                for p in from..sack {
                    let f = &mut self.flags[(p - self.una) as usize];
                    if *f & (SACKED | LOST | RETX) == 0 {
                        *f |= LOST;
                        self.retxq.push_back(p);
                    }
                }
                self.scan_hi = self.scan_hi.max(sack + 1);
            }
            IrnFrame::Cnp => self.cc.on_cnp(now),
        }
    }

    fn next_wakeup(&self) -> Option<u64> {
        let mut w = self.rto_at;
        let mut add = |t: Option<u64>| {
            if let Some(t) = t {
                w = Some(w.map_or(t, |x| x.min(t)));
            }
        };
        add(self.cc.timer_wakeup());
        let work = !self.retxq.is_empty() || self.new_allowed();
        if work && !self.cc.can_send(self.last_now) {
            add(self.cc.pacing_wakeup());
        }
        w
    }

    fn on_timer(&mut self, now: u64) {
        self.last_now = now;
        self.cc.on_timer(now);
        if let Some(t) = self.rto_at {
            if t <= now {
                self.stats.timeouts += 1;
                self.rto_at = None;
                self.retxq.clear();
                for (i, f) in self.flags.iter_mut().enumerate() {
                    if *f & SACKED == 0 {
                        *f = LOST;
                        self.retxq.push_back(self.una + i as u64);
                    }
                }
                self.in_recovery = true;
                self.recovery_point = self.nxt;
                self.scan_hi = self.nxt;
                let _ = self.has_work();
            }
        }
    }

    fn post_message(&mut self, now: u64, bytes: u64) -> u64 {
        self.last_now = now;
        self.tx.post(bytes)
    }

    fn take_completions(&mut self, out: &mut Vec<Completion>) {
        out.append(&mut self.comps);
    }

    fn delivered_bytes(&self) -> u64 {
        self.delivered
    }

    fn stats(&self) -> EndpointStats {
        self.stats
    }
}
