//! Events: a binary heap ordered by (time, insertion sequence number), so ties are broken
//! in a fixed order and a run is a pure function of its configuration and seed. Event
//! kinds: a link finished serializing (`TxDone`), the frame at the head of a link's pipe
//! reached the far end (`Arrive`; frames on a link arrive in the order they were sent, so
//! the pipe is a FIFO and the event needs no payload), an endpoint timer (with a generation
//! number, so a rescheduled timer's stale event is ignored), a timed link action, and the
//! workload start. Engine time is picoseconds; endpoints see nanoseconds.

use std::cmp::Ordering;

use super::Sim;

#[derive(Clone, Copy, Debug)]
pub(super) enum Ev {
    TxDone(u32),
    Arrive(u32),
    Timer(u32, u32),
    Link(u32),
    /// PFC: PAUSE (true) or RESUME (false) reaches the sender of a link.
    Pause(u32, bool),
    Start,
    /// A connection with a later start (`traffic.flow_start_us`) posts its messages.
    StartConn(u32),
}

pub(super) struct Qe {
    pub(super) t: u64,
    pub(super) seq: u64,
    pub(super) ev: Ev,
}
impl PartialEq for Qe {
    fn eq(&self, o: &Self) -> bool {
        self.t == o.t && self.seq == o.seq
    }
}
impl Eq for Qe {}
impl PartialOrd for Qe {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Qe {
    fn cmp(&self, o: &Self) -> Ordering {
        // reversed: BinaryHeap is a max-heap, we want the earliest first
        (o.t, o.seq).cmp(&(self.t, self.seq))
    }
}

impl<F: 'static> Sim<F> {
    #[inline]
    pub(super) fn push(&mut self, t: u64, ev: Ev) {
        self.seq += 1;
        self.heap.push(Qe { t, seq: self.seq, ev });
    }

    #[inline]
    pub(super) fn now_ns(&self) -> u64 {
        self.now / 1000
    }
}
