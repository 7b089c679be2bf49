//! The connection checks of the receive path (issue 12; `docs/protocol.md` §4 step 8): the
//! cycle shell of `mrnic_conn_chk`, the RTL block that holds the destination-QP table of
//! every connection in block RAM, written through a configuration port, and decides for
//! each frame the parser accepted (DATA, ACK, NAK, PROBE, PROBE_REPLY) which connection it
//! belongs to, or why it is dropped.
//!
//! **Table** (block RAM, `connections` rows, row = the QPN's low `C = log2(connections)`
//! bits, as [`super::conn_table::ConnTable`] lays the QPN out: `tag << C | conn`): `live`
//! 1, `tag` (24 - C), `peer` (the peer's IPv4 address, 32), `pkey` (16). 1 + (24 - C) + 48
//! bits per connection, 65 at `core` (C = 8). Reset does not clear it (data); the RTL's
//! power-up contents are undefined, the shell's are zero (every row closed).
//!
//! **The decision** ([`check_conn`]), first failure wins, in the order of protocol §4
//! step 8 and of the model's `Qp::on_frame` (`rx_wrong_qp`, `rx_wrong_peer`,
//! `rx_wrong_pkey`), then the path id:
//! 1. `WrongQp`: the row is closed, or its tag is not the QPN's (a stale or forged QPN);
//! 2. `WrongPeer`: the source IPv4 address is not the row's peer;
//! 3. `WrongPkey`: the BTH P_Key is not the row's;
//! 4. `BadPath`: the path id is not below the configured path count `P` (a DATA, ACK,
//!    PROBE or PROBE_REPLY path id; a frame kind without one passes 0).
//!
//! **Config port** `s_cfg_*` (`cfg_ready` = !rst): a write of one whole row (`conn`,
//! `live`, `tag`, `peer`, `pkey`) every cycle. **Visibility**: a write transferred in cycle
//! t is seen by a request transferred in cycle t or later (the RAM forwards a write to a
//! read of the same cycle); a request transferred before t never sees it, however long its
//! result waits on `m_ready` (the row it read is latched with it).
//!
//! **Request** `s_*`: `qpn` (24), `src` (32), `pkey` (16), `path` (4), `tag` (8, echoed).
//! **Result** `m_*`: `ok`, `reason` (3: [`ConnDrop`] code, 0 when ok), `conn` (the row the
//! QPN names, also on a drop), `tag`.
//!
//! **Timing.** [`CONN_CHK_LATENCY`] 3: a request transferred at the edge ending cycle t is
//! offered on `m_` in t + 3 (the row is read at the transfer, registered in t + 1, compared
//! and decided in t + 2). **II** 1: `s_ready` = `!rst && (!m_valid || m_ready)`: the whole
//! pipeline advances together and holds while `m_valid && !m_ready`.
//!
//! **Counters** (`stat_*`, 32-bit wrapping): results transferred on `m_` by outcome (`ok`,
//! `wrong_qp`, `wrong_peer`, `wrong_pkey`, `bad_path`), config writes transferred.
//!
//! **Reset** (`rst`, synchronous): the pipeline empties, counters 0, every valid and ready
//! low during `rst`; the table keeps its contents.

use super::conn_table::QPN_BITS;
use super::TransportConfig;
use crate::config::ConfigError;

/// Cycles from a request's transfer to its result's offer.
pub const CONN_CHK_LATENCY: usize = 3;

/// Sizes of the check unit (from the configuration).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnChkConfig {
    /// Table rows (a power of two, 2..=2^16: at least 8 bits of the QPN stay tag).
    pub connections: u32,
    /// Paths per connection `P` (1..=16): a path id must be below it.
    pub paths: u32,
}

impl ConnChkConfig {
    /// The unit for `connections` connections of transport `t`; refused when a size is
    /// not one the RTL is built for.
    pub fn new(t: &TransportConfig, connections: u32) -> Result<Self, ConfigError> {
        t.validate()?;
        if !connections.is_power_of_two() || !(2..=1 << 16).contains(&connections) {
            return Err(ConfigError::out_of_range("connections", connections, "a power of two in 2..=65536 for the connection checks (the QPN's low bits are the row, at least 8 bits stay tag)"));
        }
        if !(1..=16).contains(&t.paths) {
            return Err(ConfigError::out_of_range("transport.paths", t.paths, "1..=16 (a 4-bit path id)"));
        }
        Ok(Self { connections, paths: u32::from(t.paths) })
    }
    /// Bits of the row index (`C`).
    pub fn conn_bits(&self) -> u32 {
        self.connections.trailing_zeros()
    }
    /// Bits of a row's tag (`24 - C`).
    pub fn tag_bits(&self) -> u32 {
        QPN_BITS - self.conn_bits()
    }
    /// Table bits per connection: live, tag, peer, P_Key.
    pub fn row_bits(&self) -> u32 {
        1 + self.tag_bits() + 32 + 16
    }
}

/// One row of the table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnRow {
    pub live: bool,
    pub tag: u32,
    pub peer: u32,
    pub pkey: u16,
}

/// A config write: row `conn` becomes `row` (tag masked to its width).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnCfg {
    pub conn: u32,
    pub row: ConnRow,
}

/// A frame's fields the checks read, and a tag echoed with the result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnReq {
    pub qpn: u32,
    pub src: u32,
    pub pkey: u16,
    pub path: u8,
    pub tag: u8,
}

/// Why a frame is dropped (`m_reason`; the counter names are `stat_<snake case>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnDrop {
    WrongQp = 1,
    WrongPeer = 2,
    WrongPkey = 3,
    BadPath = 4,
}

/// The decision on the row the QPN names (`row`), first failure wins (module docs).
pub fn check_conn(row: &ConnRow, req: &ConnReq, cfg: &ConnChkConfig) -> Result<(), ConnDrop> {
    let qtag = (req.qpn & ((1 << QPN_BITS) - 1)) >> cfg.conn_bits();
    if !row.live || row.tag != qtag {
        Err(ConnDrop::WrongQp)
    } else if row.peer != req.src {
        Err(ConnDrop::WrongPeer)
    } else if row.pkey != req.pkey {
        Err(ConnDrop::WrongPkey)
    } else if u32::from(req.path & 0xF) >= cfg.paths {
        Err(ConnDrop::BadPath)
    } else {
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnResult {
    pub ok: bool,
    pub reason: u8,
    pub conn: u32,
    pub tag: u8,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnChkInputs {
    pub rst: bool,
    pub cfg_valid: bool,
    pub cfg: ConnCfg,
    pub s_valid: bool,
    pub s: ConnReq,
    pub m_ready: bool,
}

/// `stat_*`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnChkStats {
    pub ok: u32,
    pub wrong_qp: u32,
    pub wrong_peer: u32,
    pub wrong_pkey: u32,
    pub bad_path: u32,
    pub cfg_writes: u32,
}

impl ConnChkStats {
    /// (name, value) in `stat_<name>` port order.
    pub fn list(&self) -> [(&'static str, u32); 6] {
        [
            ("ok", self.ok),
            ("wrong_qp", self.wrong_qp),
            ("wrong_peer", self.wrong_peer),
            ("wrong_pkey", self.wrong_pkey),
            ("bad_path", self.bad_path),
            ("cfg_writes", self.cfg_writes),
        ]
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnChkOutputs {
    pub cfg_ready: bool,
    pub s_ready: bool,
    pub m: Option<ConnResult>,
    pub stats: ConnChkStats,
}

/// The cycle shell (module documentation).
#[derive(Clone, Debug)]
pub struct ConnChkShell {
    pub cfg: ConnChkConfig,
    pub rows: Vec<ConnRow>,
    /// Stage A: the request and the row it read at its transfer.
    a: Option<(ConnReq, ConnRow)>,
    /// Stage B: the same, registered.
    b: Option<(ConnReq, ConnRow)>,
    out: Option<ConnResult>,
    pub stats: ConnChkStats,
}

impl ConnChkShell {
    /// Every row closed (the RTL simulated with zeroed RAM; on an FPGA, write every row).
    pub fn new(cfg: ConnChkConfig) -> Self {
        Self { cfg, rows: vec![ConnRow::default(); cfg.connections as usize], a: None, b: None, out: None, stats: ConnChkStats::default() }
    }

    /// A request's fields as the ports carry them (masked to their widths).
    pub fn masked(r: &ConnReq) -> ConnReq {
        ConnReq { qpn: r.qpn & ((1 << QPN_BITS) - 1), path: r.path & 0xF, ..*r }
    }

    fn row_of(&self, qpn: u32) -> u32 {
        qpn & (self.cfg.connections - 1)
    }

    fn decide(&self, req: &ConnReq, row: &ConnRow) -> ConnResult {
        let conn = self.row_of(req.qpn);
        match check_conn(row, req, &self.cfg) {
            Ok(()) => ConnResult { ok: true, reason: 0, conn, tag: req.tag },
            Err(d) => ConnResult { ok: false, reason: d as u8, conn, tag: req.tag },
        }
    }

    pub fn outputs(&self, i: &ConnChkInputs) -> ConnChkOutputs {
        let on = !i.rst;
        let en = on && (self.out.is_none() || i.m_ready);
        ConnChkOutputs { cfg_ready: on, s_ready: en, m: if on { self.out } else { None }, stats: self.stats }
    }

    /// One cycle: the outputs during it, then its rising edge.
    pub fn step(&mut self, i: &ConnChkInputs) -> ConnChkOutputs {
        let o = self.outputs(i);
        if i.rst {
            self.a = None;
            self.b = None;
            self.out = None;
            self.stats = ConnChkStats::default();
            return o;
        }
        let st = &mut self.stats;
        if let (Some(m), true) = (o.m, i.m_ready) {
            let c = match m.reason {
                0 => &mut st.ok,
                1 => &mut st.wrong_qp,
                2 => &mut st.wrong_peer,
                3 => &mut st.wrong_pkey,
                _ => &mut st.bad_path,
            };
            *c = c.wrapping_add(1);
        }
        if i.cfg_valid {
            // the write lands first: a request of the same cycle reads it
            let w = &i.cfg;
            let tmask = (1u32 << self.cfg.tag_bits()) - 1;
            let k = (w.conn & (self.cfg.connections - 1)) as usize;
            self.rows[k] = ConnRow { tag: w.row.tag & tmask, ..w.row };
            self.stats.cfg_writes = self.stats.cfg_writes.wrapping_add(1);
        }
        if o.s_ready {
            self.out = self.b.as_ref().map(|(q, r)| self.decide(q, r));
            self.b = self.a.take();
            self.a = i.s_valid.then(|| {
                let q = Self::masked(&i.s);
                (q, self.rows[self.row_of(q.qpn) as usize])
            });
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::conn_table::ConnTable;

    fn cfg() -> ConnChkConfig {
        ConnChkConfig::new(&TransportConfig::default(), 256).unwrap()
    }

    #[test]
    fn sizes_follow_the_connection_count_and_illegal_ones_are_refused() {
        let c = cfg();
        assert_eq!((c.conn_bits(), c.tag_bits(), c.row_bits(), c.paths), (8, 16, 65, 8));
        assert!(ConnChkConfig::new(&TransportConfig::default(), 24).unwrap_err().to_string().contains("power of two"));
        assert!(ConnChkConfig::new(&TransportConfig::default(), 1 << 17).is_err());
        assert!(ConnChkConfig::new(&TransportConfig::default(), 1).is_err());
    }

    #[test]
    fn the_first_failing_check_wins_in_the_protocols_order() {
        let c = cfg();
        let t = ConnTable::new(256).unwrap();
        let qpn = t.qpn(0x77, 5);
        let row = ConnRow { live: true, tag: 0x77, peer: 0x0a00_0001, pkey: 0xffff };
        let ok = ConnReq { qpn, src: 0x0a00_0001, pkey: 0xffff, path: 7, tag: 1 };
        assert_eq!(check_conn(&row, &ok, &c), Ok(()));
        // each fault alone, then every fault at once: the QP wins, then the peer, the P_Key
        assert_eq!(check_conn(&ConnRow { live: false, ..row }, &ok, &c), Err(ConnDrop::WrongQp));
        assert_eq!(check_conn(&row, &ConnReq { qpn: t.qpn(0x78, 5), ..ok }, &c), Err(ConnDrop::WrongQp));
        assert_eq!(check_conn(&row, &ConnReq { src: 0x0a00_0002, ..ok }, &c), Err(ConnDrop::WrongPeer));
        assert_eq!(check_conn(&row, &ConnReq { pkey: 0x7fff, ..ok }, &c), Err(ConnDrop::WrongPkey));
        assert_eq!(check_conn(&row, &ConnReq { path: 8, ..ok }, &c), Err(ConnDrop::BadPath));
        let all = ConnReq { qpn: t.qpn(0x78, 5), src: 2, pkey: 1, path: 9, tag: 0 };
        assert_eq!(check_conn(&row, &all, &c), Err(ConnDrop::WrongQp));
        assert_eq!(check_conn(&row, &ConnReq { qpn, ..all }, &c), Err(ConnDrop::WrongPeer));
        assert_eq!(check_conn(&row, &ConnReq { qpn, src: 0x0a00_0001, ..all }, &c), Err(ConnDrop::WrongPkey));
        // the same QP verdict as the connection table's lookup
        let mut t = t;
        t.insert(qpn).unwrap();
        for q in [qpn, t.qpn(0x78, 5), t.qpn(0x77, 6)] {
            let r = if q & 0xff == 5 { row } else { ConnRow::default() };
            assert_eq!(check_conn(&r, &ConnReq { qpn: q, ..ok }, &c).is_ok(), t.lookup(q).is_ok(), "{q:#x}");
        }
    }

    #[test]
    fn a_write_is_seen_by_a_request_of_its_own_cycle_and_not_by_an_earlier_one() {
        let mut s = ConnChkShell::new(cfg());
        let req = ConnReq { qpn: 0x0001_05, src: 9, pkey: 3, path: 0, tag: 4 };
        let w = ConnCfg { conn: 5, row: ConnRow { live: true, tag: 1, peer: 9, pkey: 3 } };
        // request alone (row closed), then request and write in one cycle
        s.step(&ConnChkInputs { s_valid: true, s: req, m_ready: true, ..Default::default() });
        s.step(&ConnChkInputs { s_valid: true, s: ConnReq { tag: 5, ..req }, cfg_valid: true, cfg: w, m_ready: true, ..Default::default() });
        s.step(&ConnChkInputs { m_ready: true, ..Default::default() });
        let o = s.step(&ConnChkInputs { m_ready: false, ..Default::default() });
        assert_eq!(o.m, Some(ConnResult { ok: false, reason: 1, conn: 5, tag: 4 }), "latency 3, the row as it was");
        // held: the next result waits
        let o = s.step(&ConnChkInputs { m_ready: true, ..Default::default() });
        assert_eq!((o.m.map(|m| m.tag), o.s_ready), (Some(4), true));
        let o = s.step(&ConnChkInputs { m_ready: true, ..Default::default() });
        assert_eq!(o.m, Some(ConnResult { ok: true, reason: 0, conn: 5, tag: 5 }));
        let o = s.step(&ConnChkInputs { m_ready: true, ..Default::default() });
        assert_eq!((o.m, o.stats.ok, o.stats.wrong_qp, o.stats.cfg_writes), (None, 1, 1, 1));
        // reset: empties the pipe and the counters, keeps the row
        s.step(&ConnChkInputs { s_valid: true, s: req, m_ready: true, ..Default::default() });
        let o = s.step(&ConnChkInputs { rst: true, ..Default::default() });
        assert!(!o.s_ready && !o.cfg_ready);
        for _ in 0..4 {
            assert_eq!(s.step(&ConnChkInputs { m_ready: true, ..Default::default() }).m, None);
        }
        assert_eq!((s.stats, s.rows[5].live), (ConnChkStats::default(), true));
    }
}
