//! rust-hdl's own simulator of the SACK engine as a kit [`Device`] (slow, ~10k cycles/s: for
//! short runs that check rust-hdl's simulation semantics agree with the generated Verilog's).

use super::SackPorts;
use crate::kit::{Device, DeviceFactory, Io, KitError, Values};
use mrnic_hdl::sack::SackEngine;
use rust_hdl::prelude::*;

/// The engine with `2^C` connections and a `W`-bit window, simulated by rust-hdl.
pub struct RustHdlSack<const C: usize, const W: usize> {
    pub uut: SackEngine<C, W>,
    p: SackPorts,
}

fn settle<const C: usize, const W: usize>(u: &mut SackEngine<C, W>) {
    assert!(simulate(u, 1000), "rust-hdl simulation did not settle");
}

impl<const C: usize, const W: usize> RustHdlSack<C, W> {
    pub fn new(io: &Io) -> Result<Self, KitError> {
        let p = SackPorts::resolve(io)?;
        let mut uut = SackEngine::<C, W>::try_new().map_err(|e| KitError::Config(e.to_string()))?;
        uut.connect_all();
        uut.clock.next = Clock::from(false);
        settle(&mut uut);
        Ok(Self { uut, p })
    }
}

impl<const C: usize, const W: usize> Device for RustHdlSack<C, W> {
    fn cycle(&mut self, v: &Values, o: &mut Values) {
        let i = self.p.read_inputs(v);
        let u = &mut self.uut;
        u.rst.next = i.rst;
        u.s_valid.next = i.s_valid;
        u.s_conn.next = (i.s_conn as u64).into();
        u.s_psn.next = (i.s_psn as u64).into();
        u.s_clear.next = i.s_clear;
        u.s_commit.next = i.s_commit;
        u.m_ready.next = i.m_ready;
        settle(u);
        let p = &self.p.o;
        o.set(p[0], u.s_ready.val() as u64);
        o.set(p[1], u.m_valid.val() as u64);
        o.set(p[2], u.m_conn.val().to_u64());
        o.set(p[3], u.m_psn.val().to_u64());
        o.set(p[4], u.m_class.val().to_u64());
        o.set(p[5], u.m_base.val().to_u64());
        let b = u.m_bitmap.val();
        let mut words = [0u64; 4];
        for k in 0..W {
            if b.get_bit(k) {
                words[k / 64] |= 1 << (k % 64);
            }
        }
        o.set_wide(p[6], &words);
        o.set(p[7], u.stat_new.val().to_u64());
        o.set(p[8], u.stat_duplicate.val().to_u64());
        o.set(p[9], u.stat_out_of_window.val().to_u64());
        o.set(p[10], u.stat_cleared.val().to_u64());
        u.clock.next = Clock::from(true);
        settle(u);
        u.clock.next = Clock::from(false);
        settle(u);
    }
}

/// Opens [`RustHdlSack`] devices.
pub struct RustHdlFactory<const C: usize, const W: usize>;

impl<const C: usize, const W: usize> DeviceFactory for RustHdlFactory<C, W> {
    fn open(&self, io: &Io) -> Result<Box<dyn Device>, KitError> {
        Ok(Box::new(RustHdlSack::<C, W>::new(io)?))
    }
    fn describe(&self) -> String {
        format!("rust-hdl simulator of SackEngine<{C}, {W}>")
    }
}
