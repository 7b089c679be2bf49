//! Destination QP -> connection: the receive path's first table (`docs/protocol.md`
//! §4 step 8, §6.10).
//!
//! A NIC serves `connections` connection ends (the top-level config key); every
//! per-connection table of the other blocks (SACK state, path table, retransmit queue,
//! responder state) has that many rows and is indexed by the connection number
//! `conn` in `0..connections`. The BTH's 24-bit destination QP carries it directly:
//!
//! ```text
//! QPN = tag << conn_bits | conn        conn_bits = ceil(log2(connections)), tag: 24 - conn_bits bits
//! ```
//!
//! The table has `connections` rows of `valid` (1 bit) and `tag` (24 − conn_bits
//! bits). A lookup reads row `conn` — one block RAM read, no search, no hash — and
//! accepts the frame only when the row is valid and its tag equals the QPN's tag, so
//! a frame for a connection that was closed and whose row was reused (the new
//! connection got the next tag) or a forged QPN never reaches another connection's
//! state. A row keeps its last tag when freed: [`ConnTable::open`] gives the next
//! connection of that row the tag after it (mod 2^(24 − conn_bits)).

use serde::{Deserialize, Serialize};

/// QPNs are 24 bits (BTH destination QP).
pub const QPN_BITS: u32 = 24;

/// Why the table refused a call or a lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConnTableError {
    #[error("QPN {qpn:#x} is wider than 24 bits")]
    QpnTooWide { qpn: u32 },
    #[error("QPN {qpn:#x}: connection {conn} is not below connections = {connections}")]
    NoSuchRow { qpn: u32, conn: u32, connections: u32 },
    #[error("QPN {qpn:#x}: connection {conn} is not open")]
    NotOpen { qpn: u32, conn: u32 },
    #[error("QPN {qpn:#x}: connection {conn} is open with tag {stored:#x}, the QPN has tag {tag:#x} (stale or forged)")]
    TagMismatch { qpn: u32, conn: u32, tag: u32, stored: u32 },
    #[error("QPN {qpn:#x}: connection {conn} is already open as QPN {holder:#x}")]
    RowTaken { qpn: u32, conn: u32, holder: u32 },
    #[error("connections = {connections} must be 1..=2^24")]
    BadSize { connections: u32 },
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Row {
    valid: bool,
    tag: u32,
}

/// The destination-QP table of one NIC: `connections` rows of (valid, tag).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnTable {
    connections: u32,
    conn_bits: u32,
    rows: Vec<Row>,
}

impl ConnTable {
    /// An empty table of `connections` rows (1..=2^24).
    pub fn new(connections: u32) -> Result<Self, ConnTableError> {
        if connections == 0 || connections > 1 << QPN_BITS {
            return Err(ConnTableError::BadSize { connections });
        }
        let conn_bits = connections.next_power_of_two().trailing_zeros();
        Ok(Self { connections, conn_bits, rows: vec![Row::default(); connections as usize] })
    }
    /// Rows.
    pub fn connections(&self) -> u32 {
        self.connections
    }
    /// Bits of the connection number in a QPN (`ceil(log2(connections))`).
    pub fn conn_bits(&self) -> u32 {
        self.conn_bits
    }
    /// Bits of the tag (`24 - conn_bits`).
    pub fn tag_bits(&self) -> u32 {
        QPN_BITS - self.conn_bits
    }
    /// State bits per row: valid + tag.
    pub fn row_bits(&self) -> u32 {
        1 + self.tag_bits()
    }
    /// The QPN of connection `conn` with tag `tag` (masked to its width).
    pub fn qpn(&self, tag: u32, conn: u32) -> u32 {
        let tag = tag & ((1u32 << self.tag_bits()) - 1);
        (tag.checked_shl(self.conn_bits).unwrap_or(0) | (conn & self.conn_mask())) & ((1 << QPN_BITS) - 1)
    }
    /// `(tag, conn)` of a QPN, with the width and row checks.
    pub fn split(&self, qpn: u32) -> Result<(u32, u32), ConnTableError> {
        if qpn >> QPN_BITS != 0 {
            return Err(ConnTableError::QpnTooWide { qpn });
        }
        let conn = qpn & self.conn_mask();
        if conn >= self.connections {
            return Err(ConnTableError::NoSuchRow { qpn, conn, connections: self.connections });
        }
        Ok((qpn >> self.conn_bits, conn))
    }
    fn conn_mask(&self) -> u32 {
        (1u32 << self.conn_bits) - 1
    }

    /// The connection a frame for destination QP `qpn` belongs to: reads row `conn`,
    /// checks valid and the tag.
    pub fn lookup(&self, qpn: u32) -> Result<u32, ConnTableError> {
        let (tag, conn) = self.split(qpn)?;
        let r = self.rows[conn as usize];
        if !r.valid {
            return Err(ConnTableError::NotOpen { qpn, conn });
        }
        if r.tag != tag {
            return Err(ConnTableError::TagMismatch { qpn, conn, tag, stored: r.tag });
        }
        Ok(conn)
    }

    /// Opens connection `conn` under the QPN `qpn` (software chose the tag).
    pub fn insert(&mut self, qpn: u32) -> Result<u32, ConnTableError> {
        let (tag, conn) = self.split(qpn)?;
        let r = self.rows[conn as usize];
        if r.valid {
            return Err(ConnTableError::RowTaken { qpn, conn, holder: self.qpn(r.tag, conn) });
        }
        self.rows[conn as usize] = Row { valid: true, tag };
        Ok(conn)
    }

    /// Opens connection `conn` with the tag after the row's last one; returns its QPN.
    pub fn open(&mut self, conn: u32) -> Result<u32, ConnTableError> {
        if conn >= self.connections {
            return Err(ConnTableError::NoSuchRow { qpn: conn, conn, connections: self.connections });
        }
        let r = self.rows[conn as usize];
        let qpn = self.qpn(r.tag.wrapping_add(1), conn);
        if r.valid {
            return Err(ConnTableError::RowTaken { qpn, conn, holder: self.qpn(r.tag, conn) });
        }
        self.insert(qpn)?;
        Ok(qpn)
    }

    /// Closes the connection of `qpn` (only the exact QPN: a stale one is refused).
    /// The row keeps its tag, so [`ConnTable::open`] moves on to the next.
    pub fn remove(&mut self, qpn: u32) -> Result<u32, ConnTableError> {
        let conn = self.lookup(qpn)?;
        self.rows[conn as usize].valid = false;
        Ok(conn)
    }

    /// Open rows.
    pub fn open_count(&self) -> usize {
        self.rows.iter().filter(|r| r.valid).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ConnTableError::*;

    #[test]
    fn qpn_is_tag_then_connection_and_the_widths_follow_the_row_count() {
        let t = ConnTable::new(256).unwrap();
        assert_eq!((t.conn_bits(), t.tag_bits(), t.row_bits()), (8, 16, 17));
        assert_eq!(t.qpn(0xABCD, 0x12), 0xABCD12);
        assert_eq!(t.split(0xABCD12), Ok((0xABCD, 0x12)));
        assert_eq!(t.qpn(0x1_ABCD, 0x112), 0xABCD12, "masked to 16 + 8 bits");
        let t = ConnTable::new(16).unwrap();
        assert_eq!((t.conn_bits(), t.tag_bits(), t.row_bits()), (4, 20, 21));
        // Not a power of two: the index takes ceil(log2) bits; indices past the last row are refused.
        let t = ConnTable::new(24).unwrap();
        assert_eq!(t.conn_bits(), 5);
        assert_eq!(t.split(t.qpn(3, 23)), Ok((3, 23)));
        assert_eq!(t.split(t.qpn(3, 24)), Err(NoSuchRow { qpn: 3 << 5 | 24, conn: 24, connections: 24 }));
        assert_eq!(t.split(1 << 24), Err(QpnTooWide { qpn: 1 << 24 }));
        let one = ConnTable::new(1).unwrap();
        assert_eq!((one.conn_bits(), one.tag_bits()), (0, 24));
        assert_eq!(one.split(0xFF_FFFF), Ok((0xFF_FFFF, 0)));
        assert_eq!(ConnTable::new(0), Err(BadSize { connections: 0 }));
        assert_eq!(ConnTable::new((1 << 24) + 1), Err(BadSize { connections: (1 << 24) + 1 }));
    }

    #[test]
    fn lookup_reads_one_row_and_refuses_closed_rows_and_other_tags() {
        let mut t = ConnTable::new(256).unwrap();
        let q = t.qpn(0x77, 5);
        assert_eq!(t.lookup(q), Err(NotOpen { qpn: q, conn: 5 }));
        assert_eq!(t.insert(q), Ok(5));
        assert_eq!(t.lookup(q), Ok(5));
        let forged = t.qpn(0x78, 5);
        assert_eq!(t.lookup(forged), Err(TagMismatch { qpn: forged, conn: 5, tag: 0x78, stored: 0x77 }));
        assert_eq!(t.lookup(t.qpn(0x77, 6)), Err(NotOpen { qpn: t.qpn(0x77, 6), conn: 6 }));
        // A taken row refuses another QPN, naming the holder.
        assert_eq!(t.insert(forged), Err(RowTaken { qpn: forged, conn: 5, holder: q }));
        assert_eq!(t.insert(q), Err(RowTaken { qpn: q, conn: 5, holder: q }));
        // Only the exact QPN closes it.
        assert!(matches!(t.remove(forged), Err(TagMismatch { .. })));
        assert_eq!(t.remove(q), Ok(5));
        assert_eq!(t.lookup(q), Err(NotOpen { qpn: q, conn: 5 }));
        assert_eq!(t.open_count(), 0);
        assert!(t.split(1 << 24).is_err() && t.lookup(1 << 24) == Err(QpnTooWide { qpn: 1 << 24 }));
    }

    #[test]
    fn a_reused_row_gets_the_next_tag_so_the_old_qpn_is_stale() {
        let mut t = ConnTable::new(16).unwrap();
        let q1 = t.open(3).unwrap();
        assert_eq!(q1, t.qpn(1, 3));
        assert_eq!(t.open(3), Err(RowTaken { qpn: t.qpn(2, 3), conn: 3, holder: q1 }));
        t.remove(q1).unwrap();
        let q2 = t.open(3).unwrap();
        assert_eq!(q2, t.qpn(2, 3));
        assert!(matches!(t.lookup(q1), Err(TagMismatch { tag: 1, stored: 2, .. })), "the old connection's frames are refused");
        assert_eq!(t.lookup(q2), Ok(3));
        // The tag wraps at its width.
        let mut t = ConnTable::new(256).unwrap();
        let a = t.qpn(0xFFFF, 9);
        t.insert(a).unwrap();
        t.remove(a).unwrap();
        assert_eq!(t.open(9), Ok(t.qpn(0, 9)));
        assert_eq!(t.open(256), Err(NoSuchRow { qpn: 256, conn: 256, connections: 256 }));
    }

    #[test]
    fn every_row_of_a_full_table_is_usable() {
        let mut t = ConnTable::new(256).unwrap();
        let qpns: Vec<u32> = (0..256).map(|c| t.open(c).unwrap()).collect();
        assert_eq!(t.open_count(), 256);
        for (c, &q) in qpns.iter().enumerate() {
            assert_eq!(t.lookup(q), Ok(c as u32));
        }
    }
}
