//! Workloads: which connections exist and when messages are posted.
//!
//! Every workload is a list of one-directional connections (endpoint `a`
//! sends, endpoint `b` receives) plus a posting rule:
//!
//! * [`Plan::Flows`] (long flows, incast, all-to-all): each connection posts
//!   its `messages` messages at the start; `messages = 0` means an unlimited
//!   stream, kept two messages deep (a new one is posted on every `Sent`
//!   completion). The workload completes when every finite flow has received
//!   all its messages.
//! * [`Plan::Ring`] (ring all-reduce): connection `h` goes from host `h` to
//!   host `h+1 mod n`; every host posts its step-0 chunk at the start and its
//!   step-(s+1) chunk when it has received its step-s chunk; a host is done
//!   after receiving 2(n-1) chunks and the collective completes when the last
//!   host is done.

use crate::config::{FlowPattern, TrafficKind, TrafficSpec};
use crate::transport::HostId;

/// One connection of a [`Plan::Flows`] workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowDef {
    /// Sending host.
    pub src: HostId,
    /// Receiving host.
    pub dst: HostId,
    /// Bytes per message.
    pub message_bytes: u64,
    /// Messages (0 = unlimited).
    pub messages: u32,
}

/// The connections and posting rule of a workload.
#[derive(Clone, Debug, PartialEq)]
pub enum Plan {
    /// Independent flows (one connection each).
    Flows(Vec<FlowDef>),
    /// Ring all-reduce over hosts `0..hosts` with `chunk`-byte steps.
    Ring {
        /// Ring size n.
        hosts: u32,
        /// Bytes per step.
        chunk: u64,
    },
}

impl Plan {
    /// Expand a (validated) traffic spec for a topology with `hosts` hosts.
    pub fn new(spec: &TrafficSpec, hosts: u32) -> Plan {
        let n = spec.n_hosts(hosts);
        let mut flows = Vec::new();
        let mut add = |src, dst, message_bytes, messages| {
            for _ in 0..spec.conns_per_pair {
                flows.push(FlowDef { src, dst, message_bytes, messages });
            }
        };
        match spec.kind {
            TrafficKind::Flows => match spec.pattern {
                FlowPattern::Explicit => {
                    for p in &spec.pairs {
                        add(p[0], p[1], spec.message_bytes, spec.messages);
                    }
                }
                FlowPattern::Shift => {
                    let s = spec.shift_of(n);
                    for i in 0..n {
                        add(i, (i + s) % n, spec.message_bytes, spec.messages);
                    }
                }
            },
            TrafficKind::Incast => {
                let senders = (0..hosts).filter(|&h| h != spec.receiver).take(spec.senders as usize);
                for h in senders {
                    add(h, spec.receiver, spec.message_bytes, spec.messages);
                }
            }
            TrafficKind::AllToAll => {
                let per = spec.message_bytes.div_ceil(n as u64);
                for s in 0..n {
                    for k in 1..n {
                        add(s, (s + k) % n, per, 1);
                    }
                }
            }
            TrafficKind::AllReduce => {
                return Plan::Ring { hosts: n, chunk: spec.message_bytes.div_ceil(n as u64) };
            }
        }
        Plan::Flows(flows)
    }

    /// (sender, receiver) of every connection, in connection order.
    pub fn conns(&self) -> Vec<(HostId, HostId)> {
        match self {
            Plan::Flows(f) => f.iter().map(|f| (f.src, f.dst)).collect(),
            Plan::Ring { hosts, .. } => (0..*hosts).map(|h| (h, (h + 1) % hosts)).collect(),
        }
    }

    /// Payload bytes connection `c` must deliver, if finite.
    pub fn expected_bytes(&self, c: usize) -> Option<u64> {
        match self {
            Plan::Flows(f) => (f[c].messages > 0).then(|| f[c].message_bytes * f[c].messages as u64),
            Plan::Ring { hosts, chunk } => Some(2 * (*hosts as u64 - 1) * chunk),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_to_all_and_ring_shapes() {
        let spec = TrafficSpec { kind: TrafficKind::AllToAll, hosts: 4, message_bytes: 4000, ..Default::default() };
        let p = Plan::new(&spec, 16);
        assert_eq!(p.conns().len(), 12);
        assert_eq!(p.expected_bytes(0), Some(1000));
        let spec = TrafficSpec { kind: TrafficKind::AllReduce, hosts: 4, message_bytes: 4000, ..Default::default() };
        let p = Plan::new(&spec, 16);
        assert_eq!(p.conns(), vec![(0, 1), (1, 2), (2, 3), (3, 0)]);
        assert_eq!(p.expected_bytes(2), Some(6000));
        let spec = TrafficSpec { kind: TrafficKind::Incast, senders: 3, receiver: 1, conns_per_pair: 2, ..Default::default() };
        let p = Plan::new(&spec, 8);
        assert_eq!(p.conns(), vec![(0, 1), (0, 1), (2, 1), (2, 1), (3, 1), (3, 1)]);
    }
}
