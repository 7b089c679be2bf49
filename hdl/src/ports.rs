//! Top-level port list of a rust-hdl block, as the generated Verilog declares it.
//!
//! This is the one source of truth the Verilator bridge (`mrnic_verif::vl`) builds its C++ shim
//! from: names are spelled exactly as in `generate_verilog` (interface fields flattened to
//! `iface$signal`), widths in bits (`Clock` and `bool` are 1 bit).

use rust_hdl::core::atom::{Atom, AtomKind};
use rust_hdl::core::prelude::Block;
use rust_hdl::core::probe::Probe;

/// Direction of a top-level port, seen from the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PortDir {
    In,
    Out,
    InOut,
}

/// One top-level port of a block.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PortInfo {
    /// Verilog name (`a`, or `iface$signal` for a field of an interface).
    pub name: String,
    /// Width in bits (>= 1).
    pub width: usize,
    pub dir: PortDir,
}

#[derive(Default)]
struct TopPorts {
    depth: usize,
    namespace: Vec<String>,
    ports: Vec<PortInfo>,
}

impl Probe for TopPorts {
    fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth += 1;
    }
    fn visit_start_namespace(&mut self, name: &str, _node: &dyn Block) {
        if self.depth == 1 {
            self.namespace.push(name.to_owned());
        }
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        if self.depth != 1 {
            return;
        }
        let dir = match signal.kind() {
            AtomKind::InputParameter => PortDir::In,
            AtomKind::OutputParameter | AtomKind::OutputPassthrough => PortDir::Out,
            AtomKind::InOutParameter => PortDir::InOut,
            _ => return,
        };
        let name = if self.namespace.is_empty() {
            name.to_owned()
        } else {
            format!("{}${}", self.namespace.join("$"), name)
        };
        self.ports.push(PortInfo {
            name,
            width: signal.bits(),
            dir,
        });
    }
    fn visit_end_namespace(&mut self, _name: &str, _node: &dyn Block) {
        if self.depth == 1 {
            self.namespace.pop();
        }
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth -= 1;
    }
}

/// The top-level ports of `uut` in declaration order, with their widths in bits.
pub fn top_ports<U: Block>(uut: &U) -> Vec<PortInfo> {
    let mut probe = TopPorts::default();
    uut.accept("top", &mut probe);
    probe.ports
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_hdl::prelude::*;

    #[derive(LogicInterface, Default)]
    struct Bus {
        data: Signal<In, Bits<12>>,
        ready: Signal<Out, Bit>,
    }

    #[derive(LogicBlock, Default)]
    struct Small {
        clock: Signal<In, Clock>,
        wide: Signal<In, Bits<256>>,
        en: Signal<In, Bit>,
        bus: Bus,
        out: Signal<Out, Bits<33>>,
        held: DFF<Bits<33>>,
        tmp: Signal<Local, Bits<33>>,
    }

    impl Logic for Small {
        #[hdl_gen]
        fn update(&mut self) {
            dff_setup!(self, clock, held);
            self.tmp.next = self.wide.val().get_bits::<33>(0);
            if self.en.val() {
                self.held.d.next = self.tmp.val();
            }
            self.out.next = self.held.q.val();
            self.bus.ready.next = self.bus.data.val().any();
        }
    }

    #[test]
    fn ports_of_small_block() {
        let mut uut = Small::default();
        uut.connect_all();
        let p = top_ports(&uut);
        let want = [
            ("clock", 1, PortDir::In),
            ("wide", 256, PortDir::In),
            ("en", 1, PortDir::In),
            ("bus$data", 12, PortDir::In),
            ("bus$ready", 1, PortDir::Out),
            ("out", 33, PortDir::Out),
        ];
        let got: Vec<_> = p
            .iter()
            .map(|x| (x.name.as_str(), x.width, x.dir))
            .collect();
        assert_eq!(got, want);
        // Every port appears in the generated Verilog's `module top(` header.
        let v = generate_verilog(&uut);
        let header = &v[v.find("module top(").unwrap()..];
        let header = &header[..header.find(");").unwrap()];
        for x in &p {
            assert!(header.contains(&x.name), "{} not in {}", x.name, header);
        }
    }
}
