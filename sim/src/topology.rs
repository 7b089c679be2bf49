//! Static network structure: hosts, switches, unidirectional links, and
//! structural up/down routing with ECMP.
//!
//! Node ids: hosts are nodes `0..hosts` (node id == host id); switches follow,
//! plane by plane. Every cable is two unidirectional links. Each node keeps
//! ordered `up` and `down` link lists so that routing is arithmetic on the
//! destination host and needs no per-destination tables (memory is linear in
//! the number of hosts for a fixed radix):
//!
//! * a host's `up[p]` is its NIC egress link on plane `p`;
//! * a switch forwards *down* on the unique link towards the destination if the
//!   destination is below it ([`Topology::below`]), otherwise *up* on one of its
//!   uplinks chosen by an ECMP hash of the 5-tuple salted with a per-switch seed.
//!
//! When links are routed down ([`crate::config::FailureKind::Down`] after its
//! detection delay), the uplink candidates are filtered to those from which the
//! destination is still reachable, and the hash picks among the survivors.

use crate::config::{FabricSpec, LossScope, TopoKind, TopologySpec};
use crate::rng::{derive_seed, splitmix64};
use crate::transport::{host_ipv4, HostId, ROCE_UDP_DPORT};
use crate::SimError;

/// Role of a node in the topology.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// An end host (all planes).
    Host,
    /// Leaf-spine leaf `leaf`.
    Leaf { leaf: u32 },
    /// Leaf-spine spine `idx`.
    Spine { idx: u32 },
    /// Fat-tree edge switch `idx` of pod `pod`.
    Edge { pod: u32, idx: u32 },
    /// Fat-tree aggregation switch `idx` of pod `pod`.
    Agg { pod: u32, idx: u32 },
    /// Fat-tree core switch `idx`.
    Core { idx: u32 },
}

/// A node and its ordered links.
#[derive(Clone, Debug)]
pub struct Node {
    /// Role.
    pub role: Role,
    /// Plane (hosts: 0, they span all planes).
    pub plane: u8,
    /// Uplinks (hosts: one egress link per plane).
    pub up: Vec<u32>,
    /// Downlinks, indexed by [`Topology::below`].
    pub down: Vec<u32>,
    /// ECMP hash salt.
    pub seed: u64,
}

/// A unidirectional link; its output queue lives at `src`.
#[derive(Clone, Debug)]
pub struct LinkInfo {
    /// Transmitting node.
    pub src: u32,
    /// Receiving node.
    pub dst: u32,
    /// Plane.
    pub plane: u8,
    /// One-way latency, ps.
    pub delay_ps: u64,
    /// One end is a host.
    pub host_link: bool,
    /// Random loss probability per frame.
    pub loss: f64,
}

/// The ECMP 5-tuple.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowKey {
    /// Source IPv4.
    pub src_ip: u32,
    /// Destination IPv4.
    pub dst_ip: u32,
    /// UDP source port.
    pub sport: u16,
    /// UDP destination port.
    pub dport: u16,
    /// IP protocol.
    pub proto: u8,
}

impl FlowKey {
    /// The RoCEv2/UDP 5-tuple of a frame from host `src` to host `dst`.
    pub fn udp(src: HostId, dst: HostId, sport: u16) -> FlowKey {
        FlowKey { src_ip: host_ipv4(src), dst_ip: host_ipv4(dst), sport, dport: ROCE_UDP_DPORT, proto: 17 }
    }
}

/// ECMP hash of a 5-tuple at a switch with salt `seed`.
#[inline]
pub fn ecmp_hash(seed: u64, k: &FlowKey) -> u64 {
    let a = ((k.src_ip as u64) << 32) | k.dst_ip as u64;
    let b = ((k.sport as u64) << 24) | ((k.dport as u64) << 8) | k.proto as u64;
    splitmix64(seed ^ splitmix64(a ^ splitmix64(b)))
}

/// Map a hash onto `0..n` without a division.
#[inline]
pub fn pick(h: u64, n: usize) -> usize {
    (((h >> 32) * n as u64) >> 32) as usize
}

/// The whole static network.
#[derive(Clone, Debug)]
pub struct Topology {
    /// Family.
    pub kind: TopoKind,
    /// Hosts.
    pub hosts: u32,
    /// Planes.
    pub planes: u8,
    /// Nodes (hosts first).
    pub nodes: Vec<Node>,
    /// Unidirectional links.
    pub links: Vec<LinkInfo>,
    /// Hosts under one leaf / edge switch.
    pub hosts_per_leaf: u32,
    /// Fat-tree: hosts per pod.
    pub hosts_per_pod: u32,
    /// Links on the longest host-to-host path.
    pub max_hops: u32,
    plane_base: Vec<u32>,
    leaves: u32,
    spines: u32,
    half: u32,
}

impl Topology {
    /// Build the network. Per-link loss comes from `fab` (scenario-wide value and overrides).
    pub fn build(spec: &TopologySpec, fab: &FabricSpec, seed: u64) -> Result<Topology, SimError> {
        spec.validate()?;
        let hosts = spec.hosts();
        let mut t = Topology {
            kind: spec.kind,
            hosts,
            planes: spec.planes,
            nodes: Vec::new(),
            links: Vec::new(),
            hosts_per_leaf: 0,
            hosts_per_pod: 0,
            max_hops: 0,
            plane_base: Vec::new(),
            leaves: spec.leaves,
            spines: spec.spines,
            half: spec.k / 2,
        };
        for _ in 0..hosts {
            t.add_node(Role::Host, 0, seed);
        }
        let hd = fab.host_link_delay_ns * 1000;
        let fd = fab.fabric_link_delay_ns * 1000;
        match spec.kind {
            TopoKind::LeafSpine => {
                let (hpl, l_n, s_n) = (spec.hosts_per_leaf, spec.leaves, spec.spines);
                t.hosts_per_leaf = hpl;
                t.hosts_per_pod = hosts;
                t.max_hops = if l_n > 1 { 4 } else { 2 };
                for p in 0..spec.planes {
                    let base = t.nodes.len() as u32;
                    t.plane_base.push(base);
                    for l in 0..l_n {
                        t.add_node(Role::Leaf { leaf: l }, p, seed);
                    }
                    for s in 0..s_n {
                        t.add_node(Role::Spine { idx: s }, p, seed);
                    }
                    for h in 0..hosts {
                        t.cable(h, base + h / hpl, p, hd, true);
                    }
                    for l in 0..l_n {
                        for s in 0..s_n {
                            t.cable(base + l, base + l_n + s, p, fd, false);
                        }
                    }
                }
            }
            TopoKind::FatTree => {
                let half = spec.k / 2;
                let pods = spec.k;
                t.hosts_per_leaf = half;
                t.hosts_per_pod = half * half;
                t.max_hops = if pods > 1 { 6 } else if half > 1 { 4 } else { 2 };
                for p in 0..spec.planes {
                    let base = t.nodes.len() as u32;
                    t.plane_base.push(base);
                    for pod in 0..pods {
                        for i in 0..half {
                            t.add_node(Role::Edge { pod, idx: i }, p, seed);
                        }
                    }
                    let agg0 = base + pods * half;
                    for pod in 0..pods {
                        for i in 0..half {
                            t.add_node(Role::Agg { pod, idx: i }, p, seed);
                        }
                    }
                    let core0 = agg0 + pods * half;
                    for c in 0..half * half {
                        t.add_node(Role::Core { idx: c }, p, seed);
                    }
                    for h in 0..hosts {
                        t.cable(h, base + h / half, p, hd, true);
                    }
                    for pod in 0..pods {
                        for i in 0..half {
                            for j in 0..half {
                                t.cable(base + pod * half + i, agg0 + pod * half + j, p, fd, false);
                            }
                        }
                    }
                    for pod in 0..pods {
                        for j in 0..half {
                            for c in 0..half {
                                t.cable(agg0 + pod * half + j, core0 + j * half + c, p, fd, false);
                            }
                        }
                    }
                }
            }
        }
        for l in t.links.iter_mut() {
            l.loss = match fab.loss_scope {
                LossScope::All => fab.loss,
                LossScope::Fabric if !l.host_link => fab.loss,
                LossScope::Fabric => 0.0,
                LossScope::HostEgress if l.host_link && l.src < hosts => fab.loss,
                LossScope::HostEgress => 0.0,
                LossScope::Links => 0.0,
            };
        }
        if fab.loss_scope == LossScope::Links {
            for lr in &fab.loss_links {
                for id in t.resolve(lr)? {
                    t.links[id as usize].loss = fab.loss;
                }
            }
        }
        for ll in &fab.link_loss {
            for id in t.resolve(&ll.link)? {
                t.links[id as usize].loss = ll.loss;
            }
        }
        Ok(t)
    }

    fn add_node(&mut self, role: Role, plane: u8, seed: u64) {
        let id = self.nodes.len() as u64;
        self.nodes.push(Node { role, plane, up: Vec::new(), down: Vec::new(), seed: derive_seed(seed, 0x5157, id) });
    }

    /// Cable between `lower` and `upper`: uplink lower->upper, downlink upper->lower.
    fn cable(&mut self, lower: u32, upper: u32, plane: u8, delay_ps: u64, host_link: bool) {
        let up = self.links.len() as u32;
        self.links.push(LinkInfo { src: lower, dst: upper, plane, delay_ps, host_link, loss: 0.0 });
        self.links.push(LinkInfo { src: upper, dst: lower, plane, delay_ps, host_link, loss: 0.0 });
        self.nodes[lower as usize].up.push(up);
        self.nodes[upper as usize].down.push(up + 1);
    }

    /// Egress link of host `h` on `plane`.
    #[inline]
    pub fn host_link(&self, h: HostId, plane: u8) -> u32 {
        self.nodes[h as usize].up[plane as usize]
    }

    /// If host `d` is below switch `node`, the index in `node.down` towards it.
    #[inline]
    pub fn below(&self, node: u32, d: HostId) -> Option<usize> {
        match self.nodes[node as usize].role {
            Role::Host => None,
            Role::Leaf { leaf } => (d / self.hosts_per_leaf == leaf).then_some((d % self.hosts_per_leaf) as usize),
            Role::Spine { .. } => Some((d / self.hosts_per_leaf) as usize),
            Role::Edge { pod, idx } => {
                (d / self.half == pod * self.half + idx).then_some((d % self.half) as usize)
            }
            Role::Agg { pod, .. } => {
                (d / self.hosts_per_pod == pod).then_some(((d % self.hosts_per_pod) / self.half) as usize)
            }
            Role::Core { .. } => Some((d / self.hosts_per_pod) as usize),
        }
    }

    /// Whether host `d` can still be reached through link `l` given routed-down links.
    pub fn deliverable(&self, l: u32, d: HostId, routed_down: &[bool]) -> bool {
        if routed_down[l as usize] {
            return false;
        }
        let m = self.links[l as usize].dst;
        if m < self.hosts {
            return m == d;
        }
        match self.below(m, d) {
            Some(i) => self.deliverable(self.nodes[m as usize].down[i], d, routed_down),
            None => self.nodes[m as usize].up.iter().any(|&u| self.deliverable(u, d, routed_down)),
        }
    }

    /// Output link at switch `node` for a frame to host `d` with 5-tuple `key`.
    /// `any_down` false skips all reachability filtering (the fast path).
    /// `None`: no route (every candidate is routed down).
    #[inline]
    pub fn route(
        &self,
        node: u32,
        d: HostId,
        key: &FlowKey,
        routed_down: &[bool],
        any_down: bool,
        scratch: &mut Vec<u32>,
    ) -> Option<u32> {
        let n = &self.nodes[node as usize];
        if let Some(i) = self.below(node, d) {
            let l = n.down[i];
            if any_down && !self.deliverable(l, d, routed_down) {
                return None;
            }
            return Some(l);
        }
        let h = ecmp_hash(n.seed, key);
        if !any_down {
            return Some(n.up[pick(h, n.up.len())]);
        }
        scratch.clear();
        scratch.extend(n.up.iter().copied().filter(|&l| self.deliverable(l, d, routed_down)));
        if scratch.is_empty() {
            None
        } else {
            Some(scratch[pick(h, scratch.len())])
        }
    }

    /// The links a frame from `src` to `dst` with source port `sport` on `plane`
    /// traverses (with no routed-down links).
    pub fn trace(&self, src: HostId, dst: HostId, sport: u16, plane: u8) -> Vec<u32> {
        let none = vec![false; self.links.len()];
        let key = FlowKey::udp(src, dst, sport);
        let mut scratch = Vec::new();
        let mut path = vec![self.host_link(src, plane)];
        let mut node = self.links[path[0] as usize].dst;
        while node >= self.hosts {
            let l = self.route(node, dst, &key, &none, false, &mut scratch).expect("route exists");
            path.push(l);
            node = self.links[l as usize].dst;
        }
        path
    }

    /// Human-readable node name (see [`crate::config::LinkRef`]).
    pub fn node_name(&self, n: u32) -> String {
        let node = &self.nodes[n as usize];
        let name = match node.role {
            Role::Host => return format!("host{n}"),
            Role::Leaf { leaf } => format!("leaf{leaf}"),
            Role::Spine { idx } => format!("spine{idx}"),
            Role::Edge { pod, idx } => format!("edge{pod}.{idx}"),
            Role::Agg { pod, idx } => format!("agg{pod}.{idx}"),
            Role::Core { idx } => format!("core{idx}"),
        };
        if self.planes > 1 {
            format!("p{}.{name}", node.plane)
        } else {
            name
        }
    }

    /// Human-readable link name `a->b`.
    pub fn link_name(&self, l: u32) -> String {
        let li = &self.links[l as usize];
        format!("{}->{}", self.node_name(li.src), self.node_name(li.dst))
    }

    /// Look a node up by name in `plane`.
    pub fn find_node(&self, name: &str, plane: u8) -> Result<u32, SimError> {
        let bad = || SimError::invalid("link", format!("no node named {name:?} in plane {plane}"));
        if plane >= self.planes {
            return Err(SimError::invalid("link.plane", format!("{plane} >= {} planes", self.planes)));
        }
        let num = |s: &str| s.parse::<u32>().map_err(|_| bad());
        let pair = |s: &str| -> Result<(u32, u32), SimError> {
            let (a, b) = s.split_once('.').ok_or_else(bad)?;
            Ok((num(a)?, num(b)?))
        };
        let base = self.plane_base[plane as usize];
        let (kind, rest) = name.split_at(name.find(|c: char| c.is_ascii_digit()).ok_or_else(bad)?);
        let id = match (self.kind, kind) {
            (_, "host") => {
                let h = num(rest)?;
                (h < self.hosts).then_some(h)
            }
            (TopoKind::LeafSpine, "leaf") => {
                let l = num(rest)?;
                (l < self.leaves).then_some(base + l)
            }
            (TopoKind::LeafSpine, "spine") => {
                let s = num(rest)?;
                (s < self.spines).then_some(base + self.leaves + s)
            }
            (TopoKind::FatTree, "edge") | (TopoKind::FatTree, "agg") => {
                let (pod, i) = pair(rest)?;
                let pods = 2 * self.half;
                let off = if kind == "agg" { pods * self.half } else { 0 };
                (pod < pods && i < self.half).then_some(base + off + pod * self.half + i)
            }
            (TopoKind::FatTree, "core") => {
                let c = num(rest)?;
                (c < self.half * self.half).then_some(base + 4 * self.half * self.half + c)
            }
            _ => None,
        };
        id.ok_or_else(bad)
    }

    /// The unidirectional link from node `a` to node `b`, if adjacent.
    pub fn find_link(&self, a: u32, b: u32) -> Option<u32> {
        let n = &self.nodes[a as usize];
        n.up.iter().chain(n.down.iter()).copied().find(|&l| self.links[l as usize].dst == b)
    }

    /// The link ids a [`crate::config::LinkRef`] names (one or two directions).
    pub fn resolve(&self, r: &crate::config::LinkRef) -> Result<Vec<u32>, SimError> {
        let a = self.find_node(&r.a, r.plane)?;
        let b = self.find_node(&r.b, r.plane)?;
        let fwd = self.find_link(a, b).ok_or_else(|| {
            SimError::invalid("link", format!("{} and {} are not adjacent in plane {}", r.a, r.b, r.plane))
        })?;
        let mut v = vec![fwd];
        if r.direction == crate::config::Direction::Both {
            v.push(self.find_link(b, a).expect("cables are bidirectional"));
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaf_spine_counts_and_names() {
        let spec = TopologySpec { hosts_per_leaf: 4, leaves: 3, spines: 2, planes: 2, ..Default::default() };
        let t = Topology::build(&spec, &FabricSpec::default(), 1).unwrap();
        assert_eq!(t.hosts, 12);
        // per plane: 12 host cables + 6 leaf-spine cables, 2 links each
        assert_eq!(t.links.len(), 2 * 2 * (12 + 6));
        let s1 = t.find_node("spine1", 1).unwrap();
        assert_eq!(t.node_name(s1), "p1.spine1");
        assert!(t.find_node("spine2", 0).is_err());
        assert_eq!(t.trace(0, 11, 1234, 1).len(), 4);
        assert_eq!(t.trace(0, 1, 1234, 0).len(), 2);
        for l in t.trace(0, 11, 99, 1) {
            assert_eq!(t.links[l as usize].plane, 1);
        }
    }

    #[test]
    fn fat_tree_paths_reach_their_destination() {
        let spec = TopologySpec { kind: TopoKind::FatTree, k: 4, ..Default::default() };
        let t = Topology::build(&spec, &FabricSpec::default(), 3).unwrap();
        assert_eq!(t.hosts, 16);
        for s in 0..16 {
            for d in 0..16 {
                if s == d {
                    continue;
                }
                let p = t.trace(s, d, 5000 + s as u16, 0);
                assert_eq!(t.links[*p.last().unwrap() as usize].dst, d);
                let expect = if s / 2 == d / 2 { 2 } else if s / 4 == d / 4 { 4 } else { 6 };
                assert_eq!(p.len(), expect, "{s}->{d}");
            }
        }
        assert!(t.find_node("core3", 0).is_ok() && t.find_node("core4", 0).is_err());
        let a = t.find_node("agg1.0", 0).unwrap();
        let c = t.find_node("core1", 0).unwrap();
        assert!(t.find_link(a, c).is_some(), "agg j connects to cores j*half..");
    }
}
