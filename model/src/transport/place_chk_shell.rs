//! The DMA placement unit's checks (issue 12): the cycle shell of `mrnic_place_chk`, the
//! RTL block that holds the memory-region table, the posted receive buffers and the
//! receive-queue state of every connection in block RAM, written through a configuration
//! port, and decides for each DATA packet [`super::placement::check`]: the host address
//! and the window `[base, base + wlen)` the write path (`mrnic_placement`) must stay
//! inside, or the NAK code.
//!
//! **Tables** (each a block RAM, contents are data: reset does not clear them; the RTL's
//! power up contents are undefined, so software writes every row first).
//! - `MR` (table 0), `mr_entries` rows, row = `key & (mr_entries - 1)`: `valid`, `write`
//!   (remote write right), `pd` (32), `key` (the whole rkey, 32), `base` (64), `len` (64).
//!   A lookup of `rkey` hits iff the row is valid and its key is `rkey` ([`MrTable`]).
//! - `RB` (table 1), `connections x rq_depth` rows, row = `conn << log2(rq_depth) | slot`:
//!   a posted receive buffer `addr` (64), `len` (64). The SSN-th SEND of a connection uses
//!   slot `ssn mod rq_depth` ([`RecvQueue`]'s ring).
//! - `RQ` (table 2), `connections` rows, row = `conn`: `head` (the SSN of the oldest posted
//!   buffer, 24 bits) and `count` (buffers posted, `<= rq_depth`; a write with a larger
//!   count is refused: not written, counted in `cfg_refused`).
//!
//! **Config port** `s_cfg_*` (`cfg_ready` = !rst: a write is taken every cycle, it uses the
//! RAMs' write ports and never a request slot). **Visibility**: a write transferred in
//! cycle t is seen by a request transferred in cycle t or later (the RAM forwards a write
//! to a read of the same cycle); a request transferred before t never sees it, however
//! long its result waits on `m_ready` (the rows it read are latched with it).
//!
//! **Request** `s_*`: `conn`, `pd` (the connection's protection domain), `kind` (0 WRITE,
//! 1 SEND), `va`, `rkey`, `len` (16 bits), `ssn` (24 bits), `tag` (8, echoed). The
//! decision is [`check`] with the configured `mtu`, `pd`, the `MR` row of `rkey`, and the
//! receive queue of `conn` as its `RQ` row and `RB` ring describe it: posted buffers
//! `ring[(head + j) mod rq_depth]`, `j < count`.
//!
//! **Result** `m_*`: `ok`, `nak` (the [`NakCode`] number, 0 when ok), `addr` (host
//! address: `va` for WRITE, `rb.addr + va` mod 2^64 for SEND), the window `base`/`wlen`
//! (the region for WRITE, the receive buffer for SEND), `len` and `tag` echoed. On a NAK,
//! `addr`, `base` and `wlen` are 0.
//!
//! **Timing.** [`CHK_LATENCY`] 4: a request transferred at the edge ending cycle t is
//! offered on `m_` in t + 4 (the rows are read at the transfer, registered in t + 1,
//! compared in t + 2 and decided on in t + 3). **II** 1: `s_ready` =
//! `!rst && (!m_valid || m_ready)` (a combinational path `m_ready -> s_ready`): the whole
//! pipeline advances together, and holds while `m_valid && !m_ready`.
//!
//! **Counters** (`stat_*`, 32-bit wrapping): results transferred on `m_` by outcome (`ok`,
//! one per NAK code), config writes transferred and refused.
//!
//! **Reset** (`rst`, synchronous): the pipeline empties, counters 0, every valid and ready
//! low during `rst`; the tables keep their contents.

use super::placement::{check, Access, MemoryRegion, MrTable, PlacementRequest, RecvBuffer, RecvQueue};
use super::{TransportConfig, SEQ_MASK};
use crate::config::ConfigError;
use crate::wire::{DataKind, NakCode};

/// Cycles from a request's transfer to its result's offer.
pub const CHK_LATENCY: usize = 4;
/// Width of `s_len` (an MTU is at most 4096 bytes).
pub const CHK_LEN_BITS: u32 = 16;

/// Sizes of the check unit (from the configuration).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChkConfig {
    pub mr_entries: u32,
    pub connections: u32,
    pub rq_depth: u32,
    pub mtu: u32,
}

impl ChkConfig {
    /// The unit of `t` for `connections` connections; refused when a size is not one the
    /// RTL is built for (a table depth must be a power of two, the ring at least 2 rows).
    pub fn new(t: &TransportConfig, connections: u32) -> Result<Self, ConfigError> {
        t.validate()?;
        if !connections.is_power_of_two() || connections < 2 {
            return Err(ConfigError::out_of_range("connections", connections, "a power of two >= 2 (the depth of the RQ table)"));
        }
        if t.rq_depth < 2 {
            return Err(ConfigError::out_of_range("transport.rq_depth", t.rq_depth, "at least 2 for the placement check unit (its slot field is log2(rq_depth) bits)"));
        }
        Ok(Self { mr_entries: t.mr_entries, connections, rq_depth: t.rq_depth, mtu: t.mtu })
    }
    pub fn idx_bits(&self) -> u32 {
        self.mr_entries.trailing_zeros()
    }
    pub fn conn_bits(&self) -> u32 {
        self.connections.trailing_zeros()
    }
    pub fn slot_bits(&self) -> u32 {
        self.rq_depth.trailing_zeros()
    }
}

/// A row of the `MR` table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MrRow {
    pub valid: bool,
    pub write: bool,
    pub pd: u32,
    pub key: u32,
    pub base: u64,
    pub len: u64,
}

/// One config write (`s_cfg_*`). `table` 0 MR (row from `key`), 1 RB (row `row`), 2 RQ
/// (row `row`); other values write nothing (and are counted as refused).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CfgWrite {
    pub table: u8,
    pub row: u32,
    pub key: u32,
    pub valid: bool,
    pub write: bool,
    pub pd: u32,
    pub base: u64,
    pub len: u64,
    pub head: u32,
    pub count: u32,
}

/// One request (`s_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChkReq {
    pub conn: u32,
    pub pd: u32,
    /// false WRITE, true SEND.
    pub send: bool,
    pub va: u64,
    pub rkey: u32,
    pub len: u32,
    pub ssn: u32,
    pub tag: u8,
}

impl ChkReq {
    pub fn placement(&self) -> PlacementRequest {
        PlacementRequest { kind: if self.send { DataKind::Send } else { DataKind::Write }, va: self.va, rkey: self.rkey, len: self.len, ssn: self.ssn }
    }
}

/// One result (`m_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChkResult {
    pub tag: u8,
    pub ok: bool,
    pub nak: u8,
    pub addr: u64,
    pub base: u64,
    pub wlen: u64,
    pub len: u32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChkInputs {
    pub rst: bool,
    pub cfg_valid: bool,
    pub cfg: CfgWrite,
    pub s_valid: bool,
    pub s: ChkReq,
    pub m_ready: bool,
}

/// `stat_*`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChkStats {
    pub ok: u32,
    pub bad_rkey: u32,
    pub out_of_bounds: u32,
    pub access_denied: u32,
    pub no_rbuf: u32,
    pub invalid: u32,
    pub cfg_writes: u32,
    pub cfg_refused: u32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChkOutputs {
    pub cfg_ready: bool,
    pub s_ready: bool,
    pub m: Option<ChkResult>,
    pub stats: ChkStats,
}

/// What a request read when it was transferred: its MR row, its connection's RQ row and
/// ring.
#[derive(Clone, Debug)]
struct Snapshot {
    req: ChkReq,
    mr: MrRow,
    head: u32,
    count: u32,
    ring: Vec<(u64, u64)>,
}

/// The cycle shell (module documentation).
#[derive(Clone, Debug)]
pub struct ChkShell {
    pub cfg: ChkConfig,
    pub mr: Vec<MrRow>,
    pub rb: Vec<(u64, u64)>,
    pub rq: Vec<(u32, u32)>,
    a: Option<Snapshot>,
    b: Option<Snapshot>,
    c: Option<Snapshot>,
    out: Option<ChkResult>,
    pub stats: ChkStats,
}

impl ChkShell {
    /// Tables all zero (the RTL simulated with zeroed RAM; on an FPGA, write every row).
    pub fn new(cfg: ChkConfig) -> Self {
        Self {
            cfg,
            mr: vec![MrRow::default(); cfg.mr_entries as usize],
            rb: vec![(0, 0); (cfg.connections * cfg.rq_depth) as usize],
            rq: vec![(0, 0); cfg.connections as usize],
            a: None,
            b: None,
            c: None,
            out: None,
            stats: ChkStats::default(),
        }
    }

    /// A request's fields as the ports carry them (masked to their widths).
    pub fn masked(&self, r: &ChkReq) -> ChkReq {
        ChkReq { conn: r.conn & (self.cfg.connections - 1), len: r.len & ((1 << CHK_LEN_BITS) - 1), ssn: r.ssn & SEQ_MASK, ..*r }
    }

    /// The `MrTable` holding `row` (if valid) at its index.
    pub fn mr_table(&self, row: &MrRow) -> MrTable {
        let mut t = MrTable::new(self.cfg.mr_entries);
        if row.valid {
            let mr = MemoryRegion { base: row.base, len: row.len, access: Access { remote_write: row.write }, pd: row.pd };
            t.insert(row.key, mr).expect("an empty table takes any key");
        }
        t
    }

    /// The receive queue that an RQ row and a ring describe.
    pub fn recv_queue(&self, head: u32, count: u32, ring: &[(u64, u64)]) -> RecvQueue {
        let mut q = RecvQueue::new(self.cfg.rq_depth);
        q.head_ssn = head & SEQ_MASK;
        for j in 0..count {
            let (addr, len) = ring[((head + j) & (self.cfg.rq_depth - 1)) as usize];
            q.post(RecvBuffer { wr_id: u64::from(j), addr, len }).expect("count <= rq_depth");
        }
        q
    }

    fn decide(&self, s: &Snapshot) -> ChkResult {
        let r = &s.req;
        let base = ChkResult { tag: r.tag, len: r.len, ..Default::default() };
        let q = self.recv_queue(s.head, s.count, &s.ring);
        match check(&r.placement(), self.cfg.mtu, r.pd, &self.mr_table(&s.mr), &q) {
            Ok(addr) => {
                let (b, w) = if r.send {
                    let rb = q.get(r.ssn).expect("check found it");
                    (rb.addr, rb.len)
                } else {
                    (s.mr.base, s.mr.len)
                };
                ChkResult { ok: true, addr, base: b, wlen: w, ..base }
            }
            Err(c) => ChkResult { nak: c as u8, ..base },
        }
    }

    /// Applies one config write; false if refused.
    fn write(&mut self, w: &CfgWrite) -> bool {
        let c = self.cfg;
        match w.table {
            0 => {
                let row = (w.key & (c.mr_entries - 1)) as usize;
                self.mr[row] = MrRow { valid: w.valid, write: w.write, pd: w.pd, key: w.key, base: w.base, len: w.len };
                true
            }
            1 => {
                let row = (w.row & (c.connections * c.rq_depth - 1)) as usize;
                self.rb[row] = (w.base, w.len);
                true
            }
            2 if w.count & 0xFFFF <= c.rq_depth => {
                self.rq[(w.row & (c.connections - 1)) as usize] = (w.head & SEQ_MASK, w.count & 0xFFFF);
                true
            }
            _ => false,
        }
    }

    pub fn outputs(&self, i: &ChkInputs) -> ChkOutputs {
        let on = !i.rst;
        let en = on && (self.out.is_none() || i.m_ready);
        ChkOutputs { cfg_ready: on, s_ready: en, m: if on { self.out } else { None }, stats: self.stats }
    }

    /// One cycle: the outputs during it, then its rising edge.
    pub fn step(&mut self, i: &ChkInputs) -> ChkOutputs {
        let o = self.outputs(i);
        if i.rst {
            self.a = None;
            self.b = None;
            self.c = None;
            self.out = None;
            self.stats = ChkStats::default();
            return o;
        }
        let st = &mut self.stats;
        if let (Some(m), true) = (o.m, i.m_ready) {
            let c = match m.nak {
                0 => &mut st.ok,
                1 => &mut st.bad_rkey,
                2 => &mut st.out_of_bounds,
                3 => &mut st.access_denied,
                4 => &mut st.no_rbuf,
                _ => &mut st.invalid,
            };
            *c = c.wrapping_add(1);
        }
        if i.cfg_valid {
            let ok = self.write(&i.cfg);
            let st = &mut self.stats;
            st.cfg_writes = st.cfg_writes.wrapping_add(1);
            st.cfg_refused = st.cfg_refused.wrapping_add(u32::from(!ok));
        }
        if o.s_ready {
            self.out = self.c.as_ref().map(|s| self.decide(s));
            self.c = self.b.take();
            self.b = self.a.take();
            self.a = i.s_valid.then(|| {
                let req = self.masked(&i.s);
                let d = self.cfg.rq_depth;
                let (head, count) = self.rq[req.conn as usize];
                let ring = self.rb[(req.conn * d) as usize..((req.conn + 1) * d) as usize].to_vec();
                Snapshot { req, mr: self.mr[(req.rkey & (self.cfg.mr_entries - 1)) as usize], head, count, ring }
            });
        }
        o
    }
}

/// The code of a NAK as the result carries it.
pub fn nak_code(c: NakCode) -> u8 {
    c as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    fn cfg() -> ChkConfig {
        let t = TransportConfig { mr_entries: 16, rq_depth: 4, ..Default::default() };
        ChkConfig::new(&t, 4).unwrap()
    }

    /// The model's own tables, kept beside the shell's RAMs by the same writes.
    struct Mirror {
        mrs: MrTable,
        ring: Vec<Vec<(u64, u64)>>,
        rq: Vec<(u32, u32)>,
    }
    impl Mirror {
        fn new(c: &ChkConfig) -> Self {
            Self { mrs: MrTable::new(c.mr_entries), ring: vec![vec![(0, 0); c.rq_depth as usize]; c.connections as usize], rq: vec![(0, 0); c.connections as usize] }
        }
        fn apply(&mut self, c: &ChkConfig, w: &CfgWrite) {
            match w.table {
                0 => {
                    let idx = self.mrs.index(w.key);
                    let old = self.mrs.iter().find(|(k, _)| self.mrs.index(*k) == idx).map(|(k, _)| k);
                    if let Some(k) = old {
                        self.mrs.remove(k);
                    }
                    if w.valid {
                        self.mrs.insert(w.key, MemoryRegion { base: w.base, len: w.len, access: Access { remote_write: w.write }, pd: w.pd }).unwrap();
                    }
                }
                1 => {
                    let r = w.row & (c.connections * c.rq_depth - 1);
                    self.ring[(r / c.rq_depth) as usize][(r % c.rq_depth) as usize] = (w.base, w.len);
                }
                2 if w.count <= c.rq_depth => self.rq[(w.row & (c.connections - 1)) as usize] = (w.head & SEQ_MASK, w.count),
                _ => {}
            }
        }
        fn queue(&self, c: &ChkConfig, conn: u32) -> RecvQueue {
            let (head, count) = self.rq[conn as usize];
            let mut q = RecvQueue::new(c.rq_depth);
            q.head_ssn = head;
            for j in 0..count {
                let (addr, len) = self.ring[conn as usize][((head + j) % c.rq_depth) as usize];
                q.post(RecvBuffer { wr_id: 0, addr, len }).unwrap();
            }
            q
        }
    }

    fn rand_write(r: &mut SmallRng, c: &ChkConfig) -> CfgWrite {
        let near = |r: &mut SmallRng| match r.gen_range(0..4) {
            0 => u64::MAX - r.gen_range(0..5000),
            1 => r.gen_range(0..0x10000),
            _ => r.gen(),
        };
        CfgWrite {
            table: r.gen_range(0..4),
            row: r.gen(),
            key: r.gen_range(0..64),
            valid: r.gen_bool(0.8),
            write: r.gen_bool(0.8),
            pd: r.gen_range(0..3),
            base: near(r),
            len: [0, 1, 4096, 5000, r.gen_range(0..1 << 20), u64::MAX][r.gen_range(0..6)],
            head: r.gen_range(0..8) | if r.gen_bool(0.2) { SEQ_MASK - 3 } else { 0 },
            count: r.gen_range(0..=c.rq_depth + 1),
        }
    }

    /// A request aimed at a row's edges.
    fn rand_req(r: &mut SmallRng, c: &ChkConfig, sh: &ChkShell) -> ChkReq {
        let rkey = r.gen_range(0..64);
        let conn = r.gen_range(0..c.connections);
        let row = sh.mr[(rkey & (c.mr_entries - 1)) as usize];
        let (head, _) = sh.rq[conn as usize];
        let send = r.gen_bool(0.4);
        let ssn = head.wrapping_add(r.gen_range(0..6)).wrapping_sub(1) & SEQ_MASK;
        let (lo, wl) = if send { (0, sh.rb[(conn * c.rq_depth + (ssn & (c.rq_depth - 1))) as usize].1) } else { (row.base, row.len) };
        let len = [0, 1, c.mtu, c.mtu + 1, r.gen_range(0..c.mtu), 65535][r.gen_range(0..6)];
        let end = lo.wrapping_add(wl);
        let va = match r.gen_range(0..6) {
            0 => lo,
            1 => lo.wrapping_sub(1),
            2 => end.wrapping_sub(u64::from(len)),
            3 => end.wrapping_sub(u64::from(len)).wrapping_add(1),
            4 => u64::MAX - r.gen_range(0..5000),
            _ => lo.wrapping_add(r.gen_range(0..1 << 16)),
        };
        ChkReq { conn, pd: if r.gen_bool(0.9) { row.pd } else { r.gen_range(0..3) }, send, va, rkey, len, ssn, tag: r.gen() }
    }

    #[test]
    fn place_chk_decides_exactly_placement_check_on_the_tables_as_the_request_read_them() {
        let c = cfg();
        let mut sh = ChkShell::new(c);
        let mut mir = Mirror::new(&c);
        let mut r = SmallRng::seed_from_u64(12);
        let mut expect: std::collections::VecDeque<ChkResult> = Default::default();
        let mut seen = [0u32; 6];
        let mut cmp = 0;
        for _ in 0..300_000 {
            let i = ChkInputs {
                rst: false,
                cfg_valid: r.gen_bool(0.3),
                cfg: rand_write(&mut r, &c),
                s_valid: r.gen_bool(0.8),
                s: rand_req(&mut r, &c, &sh),
                m_ready: r.gen_bool(0.7),
            };
            let o = sh.step(&i);
            if let (Some(m), true) = (o.m, i.m_ready) {
                assert_eq!(m, expect.pop_front().unwrap());
                seen[m.nak as usize] += 1;
                cmp += 1;
            }
            if i.cfg_valid {
                mir.apply(&c, &i.cfg);
            }
            if i.s_valid && o.s_ready {
                let q = mir.queue(&c, i.s.conn);
                let want = check(&i.s.placement(), c.mtu, i.s.pd, &mir.mrs, &q);
                let e = match want {
                    Ok(addr) => {
                        let (b, w) = if i.s.send {
                            let rb = q.get(i.s.ssn).unwrap();
                            (rb.addr, rb.len)
                        } else {
                            let mr = mir.mrs.lookup(i.s.rkey).unwrap();
                            (mr.base, mr.len)
                        };
                        ChkResult { tag: i.s.tag, ok: true, nak: 0, addr, base: b, wlen: w, len: i.s.len }
                    }
                    Err(k) => ChkResult { tag: i.s.tag, nak: k as u8, len: i.s.len, ..Default::default() },
                };
                expect.push_back(e);
            }
        }
        assert!(cmp > 100_000, "{cmp}");
        for (k, n) in seen.iter().enumerate() {
            assert!(*n > 500, "outcome {k}: {n} ({seen:?})");
        }
    }

    #[test]
    fn place_chk_a_write_in_the_requests_cycle_is_seen_and_a_later_one_cannot_move_its_window() {
        let c = cfg();
        let mut sh = ChkShell::new(c);
        let mr = |base| CfgWrite { table: 0, key: 0x35, valid: true, write: true, pd: 1, base, len: 0x100, ..Default::default() };
        let req = ChkReq { pd: 1, va: 0x1000, rkey: 0x35, len: 16, tag: 7, ..Default::default() };
        // the request and the row's write in the same cycle: the request sees it
        let o = sh.step(&ChkInputs { cfg_valid: true, cfg: mr(0x1000), s_valid: true, s: req, m_ready: false, ..Default::default() });
        assert!(o.s_ready && o.cfg_ready);
        // the row moves in the next cycle, while the result waits on m_ready
        sh.step(&ChkInputs { cfg_valid: true, cfg: mr(0x9000), m_ready: false, ..Default::default() });
        for _ in 0..2 {
            assert!(sh.step(&ChkInputs { m_ready: false, ..Default::default() }).m.is_none(), "latency {CHK_LATENCY}");
        }
        for _ in 0..5 {
            let o = sh.step(&ChkInputs { m_ready: false, ..Default::default() });
            assert_eq!(o.m.map(|m| (m.ok, m.base)), Some((true, 0x1000)), "latched window");
            assert!(!o.s_ready, "stalled");
        }
        let o = sh.step(&ChkInputs { m_ready: true, s_valid: true, s: req, ..Default::default() });
        assert_eq!(o.m.map(|m| (m.ok, m.addr, m.base, m.wlen)), Some((true, 0x1000, 0x1000, 0x100)));
        for _ in 0..3 {
            sh.step(&ChkInputs { m_ready: true, ..Default::default() });
        }
        let o = sh.step(&ChkInputs { m_ready: true, ..Default::default() });
        assert_eq!(o.m.map(|m| (m.ok, m.nak)), Some((false, NakCode::OutOfBounds as u8)), "the new row");
        assert_eq!((sh.stats.ok, sh.stats.out_of_bounds, sh.stats.cfg_writes), (1, 1, 2));
    }

    #[test]
    fn place_chk_takes_one_request_per_cycle_with_its_result_four_cycles_later() {
        let c = cfg();
        let mut sh = ChkShell::new(c);
        let mut tags = vec![];
        for t in 0..10u8 {
            let o = sh.step(&ChkInputs { s_valid: true, s: ChkReq { tag: t, len: 1, ..Default::default() }, m_ready: true, ..Default::default() });
            assert!(o.s_ready);
            tags.extend(o.m.map(|m| (m.tag, m.nak)));
        }
        assert_eq!(tags, (0..6).map(|t| (t, NakCode::BadRkey as u8)).collect::<Vec<_>>(), "latency {CHK_LATENCY}, II 1");
    }

    #[test]
    fn place_chk_refuses_a_receive_queue_count_above_rq_depth_and_a_bad_table() {
        let c = cfg();
        let mut sh = ChkShell::new(c);
        sh.step(&ChkInputs { cfg_valid: true, cfg: CfgWrite { table: 2, row: 1, head: 3, count: 5, ..Default::default() }, ..Default::default() });
        sh.step(&ChkInputs { cfg_valid: true, cfg: CfgWrite { table: 3, ..Default::default() }, ..Default::default() });
        sh.step(&ChkInputs { cfg_valid: true, cfg: CfgWrite { table: 2, row: 1, head: 3, count: 4, ..Default::default() }, ..Default::default() });
        assert_eq!(sh.rq[1], (3, 4));
        assert_eq!((sh.stats.cfg_writes, sh.stats.cfg_refused), (3, 2));
        assert!(ChkConfig::new(&TransportConfig { rq_depth: 1, ..Default::default() }, 4).unwrap_err().to_string().contains("at least 2"));
    }

    #[test]
    fn place_chk_reset_empties_the_pipeline_and_keeps_the_tables() {
        let c = cfg();
        let mut sh = ChkShell::new(c);
        sh.step(&ChkInputs { cfg_valid: true, cfg: CfgWrite { table: 1, row: 5, base: 9, len: 9, ..Default::default() }, s_valid: true, ..Default::default() });
        let o = sh.step(&ChkInputs { rst: true, m_ready: true, ..Default::default() });
        assert!(!o.s_ready && !o.cfg_ready && o.m.is_none());
        assert!(sh.step(&ChkInputs { m_ready: true, ..Default::default() }).m.is_none());
        for _ in 0..3 {
            assert!(sh.step(&ChkInputs { m_ready: true, ..Default::default() }).m.is_none(), "the request before rst is gone");
        }
        assert_eq!(sh.rb[5], (9, 9));
    }
}
