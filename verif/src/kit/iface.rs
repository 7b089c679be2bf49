//! A block's interface as its manifest defines it: the port list (name, width, direction) and
//! the valid/ready streams that group ports (`s` = `s_valid`/`s_ready` + payload). Everything
//! the harness needs to drive and compare any implementation comes from here: the input and
//! output [`Layout`]s, which output is payload of which stream (compared only while its valid
//! is high), and which ports are status counters (`stat_*`). It is built from
//! `mrnic_hdl::tops::Generated` or from one `blocks[]` entry of a `manifest.json`.

use super::signals::{Layout, Sig};
use super::KitError;
use crate::vl::{PortDir, PortInfo};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;

/// A valid/ready stream as the manifest spells it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamSpec {
    pub name: String,
    /// "input" (into the block) or "output".
    pub dir: String,
    pub valid: String,
    pub ready: String,
    pub payload: Vec<String>,
    /// A timer stream (output only): compared by payload within a lateness tolerance in
    /// transaction mode (`txn.rs`), exactly in cycle mode like any stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timer: Option<TimerSpec>,
    /// Input stream only: inputs outside every stream that each transfer samples as part of
    /// itself (the op's time `now`); the transaction-level run gives the model their values
    /// at the device's transfer (`mrnic_hdl::tops::StreamInfo::sampled`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sampled: Vec<String>,
}

/// A timer stream's promise (`mrnic_hdl::tops::TimerInfo`): events at most `lateness` cycles
/// after they are due; `counter` counts its transfers since reset.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimerSpec {
    pub lateness: u32,
    #[serde(default)]
    pub counter: Option<String>,
    /// Payload ports that are sets of timers, one bit each: an event is one event per bit
    /// set, matched on its own (`mrnic_hdl::tops::TimerInfo::sets`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sets: Vec<String>,
}

/// A block's interface.
#[derive(Clone, Debug)]
pub struct Interface {
    /// Block name (`sack`).
    pub block: String,
    /// Verilog module (`mrnic_sack`).
    pub module: String,
    /// The reference model's latency in cycles (input transfer to output), from the manifest.
    pub latency: u32,
    pub ports: Vec<PortInfo>,
    pub streams: Vec<StreamSpec>,
    /// The clock port (not part of the input layout: the device clocks it).
    pub clock: String,
    /// The synchronous reset input, if any (transfers while it is high do not count).
    pub reset: Option<String>,
}

#[derive(Deserialize)]
struct ManifestPort {
    name: String,
    width: usize,
    direction: String,
}

#[derive(Deserialize)]
struct ManifestBlock {
    block: String,
    module: String,
    #[serde(default)]
    latency: u32,
    ports: Vec<ManifestPort>,
    #[serde(default)]
    streams: Vec<StreamSpec>,
}

fn dir_of(s: &str) -> Option<PortDir> {
    match s {
        "input" => Some(PortDir::In),
        "output" => Some(PortDir::Out),
        "inout" => Some(PortDir::InOut),
        _ => None,
    }
}

/// The streams implied by port names: every `X_valid` with an `X_ready` of the opposite
/// direction is stream `X`, its payload the other `X_*` ports of the valid's direction.
/// (Used when the port list comes without stream descriptions.)
pub fn infer_streams(ports: &[PortInfo]) -> Vec<StreamSpec> {
    let find = |n: &str| ports.iter().find(|p| p.name == n);
    let mut out = vec![];
    for v in ports {
        let Some(x) = v.name.strip_suffix("_valid") else { continue };
        let ready = format!("{x}_ready");
        let Some(r) = find(&ready) else { continue };
        if r.dir == v.dir {
            continue;
        }
        let prefix = format!("{x}_");
        let payload = ports
            .iter()
            .filter(|p| p.dir == v.dir && p.name.starts_with(&prefix) && p.name != v.name)
            .map(|p| p.name.clone())
            .collect();
        let dir = if v.dir == PortDir::In { "input" } else { "output" };
        out.push(StreamSpec { name: x.to_string(), dir: dir.into(), valid: v.name.clone(), ready, payload, timer: None, sampled: vec![] });
    }
    out
}

impl Interface {
    /// Checks the interface and fills in the clock and reset.
    pub fn new(block: &str, module: &str, latency: u32, ports: Vec<PortInfo>, streams: Vec<StreamSpec>) -> Result<Interface, KitError> {
        let bad = |reason: String| KitError::Interface { block: block.to_string(), reason };
        let port = |n: &str| ports.iter().find(|p| p.name == n);
        if ports.is_empty() {
            return Err(bad("no ports".into()));
        }
        let clock = match port("clock").or_else(|| port("clk")) {
            Some(p) if p.dir == PortDir::In && p.width == 1 => p.name.clone(),
            _ => return Err(bad("no 1-bit input port named clock (or clk)".into())),
        };
        if let Some(p) = ports.iter().find(|p| p.dir == PortDir::InOut) {
            return Err(bad(format!("inout port {} is not supported by the harness", p.name)));
        }
        let reset = ["rst", "reset"].into_iter().find_map(|n| port(n).filter(|p| p.dir == PortDir::In && p.width == 1)).map(|p| p.name.clone());
        let in_a_stream = |n: &String| streams.iter().any(|s| s.valid == *n || s.ready == *n || s.payload.contains(n));
        for s in &streams {
            let Some(dir) = dir_of(&s.dir).filter(|d| *d != PortDir::InOut) else {
                return Err(bad(format!("stream {}: dir {:?} is neither input nor output", s.name, s.dir)));
            };
            let other = if dir == PortDir::In { PortDir::Out } else { PortDir::In };
            let need = |n: &str, d: PortDir, what: &str| -> Result<(), KitError> {
                match port(n) {
                    None => Err(bad(format!("stream {}: {what} port {n} is not in the port list", s.name))),
                    Some(p) if p.dir != d => Err(bad(format!("stream {}: {what} port {n} has the wrong direction", s.name))),
                    Some(p) if what != "payload" && p.width != 1 => Err(bad(format!("stream {}: {what} port {n} is {} bits wide, not 1", s.name, p.width))),
                    Some(_) => Ok(()),
                }
            };
            need(&s.valid, dir, "valid")?;
            need(&s.ready, other, "ready")?;
            for p in &s.payload {
                need(p, dir, "payload")?;
            }
            for g in &s.sampled {
                match port(g) {
                    Some(p) if dir == PortDir::In && p.dir == PortDir::In && !in_a_stream(g) && *g != clock && Some(g) != reset.as_ref() => {}
                    _ => return Err(bad(format!("stream {}: sampled port {g} is not an input outside the stream (nor the clock or reset) of an input stream", s.name))),
                }
            }
            if let Some(t) = &s.timer {
                if dir != PortDir::Out {
                    return Err(bad(format!("stream {}: only an output stream can be a timer stream", s.name)));
                }
                if let Some(c) = &t.counter {
                    match port(c) {
                        Some(p) if p.dir == PortDir::Out && !s.payload.contains(c) => {}
                        _ => return Err(bad(format!("stream {}: timer counter {c} is not an output outside the stream", s.name))),
                    }
                }
                for x in &t.sets {
                    if !s.payload.contains(x) {
                        return Err(bad(format!("stream {}: timer set {x} is not a payload port of the stream", s.name)));
                    }
                }
            }
        }
        Ok(Interface { block: block.into(), module: module.into(), latency, ports, streams, clock, reset })
    }

    /// From the generator's output for one block: its ports and its own stream list
    /// (`mrnic_hdl::tops::Generated::streams`, what the manifest carries).
    pub fn from_generated(block: &str, g: &mrnic_hdl::tops::Generated) -> Result<Interface, KitError> {
        let streams = g
            .streams
            .iter()
            .map(|st| StreamSpec {
                name: st.name.clone(),
                dir: mrnic_hdl::tops::dir_name(st.dir).to_string(),
                valid: st.valid.clone(),
                ready: st.ready.clone(),
                payload: st.payload.clone(),
                timer: st.timer.as_ref().map(|t| TimerSpec { lateness: t.lateness, counter: t.counter.clone(), sets: t.sets.clone() }),
                sampled: st.sampled.clone(),
            })
            .collect();
        Interface::new(block, &g.module, g.latency, g.ports.clone(), streams)
    }

    /// From one entry of a `manifest.json` (`{"blocks": [...]}`; the older `"tops"` key is
    /// accepted too). Without a `streams` list, streams are inferred from the port names.
    pub fn from_manifest(json: &serde_json::Value, block: &str) -> Result<Interface, KitError> {
        let bad = |reason: String| KitError::Interface { block: block.to_string(), reason };
        let list = json.get("blocks").or_else(|| json.get("tops")).and_then(|v| v.as_array()).ok_or_else(|| bad("manifest has no \"blocks\" list".into()))?;
        let names: Vec<String> = list.iter().filter_map(|b| b.get("block").and_then(|n| n.as_str()).map(String::from)).collect();
        let entry = list
            .iter()
            .find(|b| b.get("block").and_then(|n| n.as_str()) == Some(block))
            .ok_or_else(|| bad(format!("not in the manifest (blocks: {})", names.join(", "))))?;
        let m: ManifestBlock = serde_json::from_value(entry.clone()).map_err(|e| bad(format!("manifest entry: {e}")))?;
        let mut ports = vec![];
        for p in m.ports {
            let dir = dir_of(&p.direction).ok_or_else(|| bad(format!("port {}: direction {:?}", p.name, p.direction)))?;
            if p.width == 0 {
                return Err(bad(format!("port {}: width 0", p.name)));
            }
            ports.push(PortInfo { name: p.name, width: p.width, dir });
        }
        let streams = if m.streams.is_empty() { infer_streams(&ports) } else { m.streams };
        Interface::new(&m.block, &m.module, m.latency, ports, streams)
    }

    /// Reads `manifest.json` and takes `block` from it.
    pub fn from_manifest_file(path: &Path, block: &str) -> Result<Interface, KitError> {
        let text = std::fs::read_to_string(path).map_err(|e| KitError::Io { path: path.to_path_buf(), source: e })?;
        let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| KitError::Interface { block: block.into(), reason: format!("{}: {e}", path.display()) })?;
        Interface::from_manifest(&json, block)
    }

    /// The harness's view: layouts and stream indices.
    pub fn io(&self) -> Io {
        Io::new(self)
    }
}

/// A stream resolved to layout indices.
#[derive(Clone, Debug)]
pub struct StreamIdx {
    pub name: String,
    /// Index of valid and payload in the layout of the stream's direction (inputs for an
    /// input stream), and of ready in the other layout.
    pub valid: usize,
    pub ready: usize,
    pub payload: Vec<usize>,
    /// For a timer stream: (lateness in cycles, index of its counter output).
    pub timer: Option<(u64, Option<usize>)>,
    /// For a timer stream: the payload ports that are sets of timers (indices in the outputs).
    pub timer_sets: Vec<usize>,
    /// For an input stream: indices (in the inputs) of the globals each transfer samples.
    pub sampled: Vec<usize>,
}

/// The interface resolved for the harness: input layout (every input but the clock), output
/// layout, the streams as indices, and for every output the valid that qualifies it.
#[derive(Clone, Debug)]
pub struct Io {
    pub iface: Interface,
    pub inputs: Arc<Layout>,
    pub outputs: Arc<Layout>,
    pub in_streams: Vec<StreamIdx>,
    pub out_streams: Vec<StreamIdx>,
    /// `gate[o]` = index of the valid output that qualifies output `o` (payload compared only
    /// while it is high), or None (compared every cycle).
    pub gate: Vec<Option<usize>>,
    /// Outputs in no stream (status counters and other level outputs).
    pub status: Vec<usize>,
    /// Index of the reset in `inputs`.
    pub reset: Option<usize>,
}

impl Io {
    fn new(f: &Interface) -> Io {
        let sigs = |d: PortDir| -> Vec<Sig> {
            f.ports.iter().filter(|p| p.dir == d && p.name != f.clock).map(|p| Sig { name: p.name.clone(), width: p.width }).collect()
        };
        let inputs = Layout::new(sigs(PortDir::In));
        let outputs = Layout::new(sigs(PortDir::Out));
        let (mut in_streams, mut out_streams) = (vec![], vec![]);
        let mut gate = vec![None; outputs.len()];
        let mut in_stream = vec![false; outputs.len()];
        for s in &f.streams {
            let (own, other) = if s.dir == "input" { (&inputs, &outputs) } else { (&outputs, &inputs) };
            // Interface::new checked every name.
            let idx = StreamIdx {
                name: s.name.clone(),
                valid: own.index(&s.valid).unwrap(),
                ready: other.index(&s.ready).unwrap(),
                payload: s.payload.iter().map(|p| own.index(p).unwrap()).collect(),
                timer: s.timer.as_ref().map(|t| (u64::from(t.lateness), t.counter.as_deref().and_then(|c| outputs.index(c)))),
                timer_sets: s.timer.as_ref().map(|t| t.sets.iter().map(|x| outputs.index(x).unwrap()).collect()).unwrap_or_default(),
                sampled: s.sampled.iter().map(|g| inputs.index(g).unwrap()).collect(),
            };
            if s.dir == "input" {
                in_stream[idx.ready] = true;
                in_streams.push(idx);
            } else {
                in_stream[idx.valid] = true;
                for &p in &idx.payload {
                    gate[p] = Some(idx.valid);
                    in_stream[p] = true;
                }
                out_streams.push(idx);
            }
        }
        let status = (0..outputs.len()).filter(|&o| !in_stream[o]).collect();
        let reset = f.reset.as_deref().and_then(|r| inputs.index(r));
        Io { iface: f.clone(), inputs, outputs, in_streams, out_streams, gate, status, reset }
    }

    /// Index of an input by name, or a typed error naming the known inputs.
    pub fn input(&self, name: &str) -> Result<usize, KitError> {
        self.inputs.index(name).ok_or_else(|| self.missing(name, "input"))
    }
    /// Index of an output by name, or a typed error naming the known outputs.
    pub fn output(&self, name: &str) -> Result<usize, KitError> {
        self.outputs.index(name).ok_or_else(|| self.missing(name, "output"))
    }
    fn missing(&self, name: &str, what: &str) -> KitError {
        let l = if what == "input" { &self.inputs } else { &self.outputs };
        KitError::Interface {
            block: self.iface.block.clone(),
            reason: format!("no {what} named {name} (the {what}s are: {})", l.sigs().iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")),
        }
    }
}
