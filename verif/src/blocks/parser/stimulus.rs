//! Seeded stimulus for the frame parser: frames from the encoder, hostile frames
//! (`wire::gen::mutate`, then resealed or not), truncations, single fields made illegal and
//! resealed (so the check behind the checksums is reached), `tkeep` faults, `tuser`, maximum
//! and over-long frames; idle gaps inside and between frames; `m_hdr_ready` backpressure.
//! Garbage in the bytes a last beat's `tkeep` excludes.

use mrnic_model::wire::axis::{keep_mask, to_beats, Beat, DEFAULT_MAX_FRAME};
use mrnic_model::wire::gen::{mutate, random_frame};
use mrnic_model::wire::parser_shell::ParserInputs;
use mrnic_model::wire::{encode, reseal, Frame};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// Directed profiles (empty = the default mix).
pub const PROFILES: &[&str] = &["good_back_to_back", "hostile", "backpressure"];

/// What was offered, by kind.
#[derive(Clone, Debug, Default)]
pub struct Mix {
    pub frames: u64,
    pub good: u64,
    pub mutated: u64,
    pub resealed: u64,
    pub truncated: u64,
    pub field: u64,
    pub bad_keep: u64,
    pub tuser: u64,
    pub max_len: u64,
    pub too_long: u64,
    pub truncated_consistent: u64,
    pub icrc: u64,
    pub idle_cycles: u64,
    pub stall_cycles: u64,
    /// Cycles with `m_vrd_ready` low.
    pub vrd_stall_cycles: u64,
}

/// A consumer's ready in runs: each run ready or not (not with probability `p_stall`), 1 to
/// `max` cycles long.
#[derive(Default)]
struct ReadyRuns {
    left: u32,
    ready: bool,
}

impl ReadyRuns {
    fn next(&mut self, rng: &mut SmallRng, p_stall: f64, max: u32) -> bool {
        if self.left == 0 {
            self.ready = !rng.gen_bool(p_stall);
            self.left = rng.gen_range(1..=max);
        }
        self.left -= 1;
        self.ready
    }
}

pub struct ParserStimulus {
    rng: SmallRng,
    profile: String,
    beats: VecDeque<Beat>,
    offer: Option<Beat>,
    reset_left: u32,
    hdr_ready: ReadyRuns,
    vrd_ready: ReadyRuns,
    pub mix: Mix,
    /// Changes each random frame before it is encoded (and before any hostile change):
    /// a composition test sets the fields its later blocks care about (destination QP,
    /// PSN). `None` (the default) leaves the random stream as it always was.
    shape: Option<Shape>,
}

/// A frame shaper: gets the stimulus's own random stream, so a seed stays reproducible.
pub type Shape = Box<dyn FnMut(&mut Frame, &mut SmallRng)>;

/// (byte offset from l3, untagged) of fields whose illegal value a check catches after the
/// checksums, and a value-changing xor.
const FIELDS: &[usize] = &[
    0,  // IPv4 version / IHL
    2, 3, // total length
    6, 7, // flags / fragment offset
    9,  // protocol
    22, 23, // UDP destination port
    24, 25, // UDP length
    28, // BTH opcode
    29, // BTH solicited/mig/pad/tver
    40, // body byte 0 (path id, NAK code)
    41, // body byte 1 (NAK path id)
    60, 61, 62, 63, // data: PLETH length (body 32..35) at l3 + 28 + 12 + 32 = 72.. (see below)
    91, // ACK: SACK bit 0's byte (body 51)
];

/// Sets the IPv4 total length (and header checksum) and the UDP length (checksum 0) to
/// what the bytes present say, as far as those fields are present (also `mrnic frames`).
pub fn fix_lengths(b: &mut [u8]) {
    let l3 = if b.len() > 13 && b[12] == 0x81 && b[13] == 0 { 18 } else { 14 };
    if b.len() < l3 + 20 {
        return;
    }
    let total = (b.len() - l3) as u16;
    b[l3 + 2..l3 + 4].copy_from_slice(&total.to_be_bytes());
    b[l3 + 10] = 0;
    b[l3 + 11] = 0;
    let c = mrnic_model::wire::ipv4::internet_checksum(&b[l3..l3 + 20]);
    b[l3 + 10..l3 + 12].copy_from_slice(&c.to_be_bytes());
    if b.len() >= l3 + 28 {
        let ulen = (b.len() - l3 - 20) as u16;
        b[l3 + 24..l3 + 26].copy_from_slice(&ulen.to_be_bytes());
        b[l3 + 26] = 0;
        b[l3 + 27] = 0;
    }
}

impl ParserStimulus {
    pub fn new(seed: u64, profile: &str, power_up: bool) -> ParserStimulus {
        ParserStimulus {
            rng: SmallRng::seed_from_u64(seed ^ 0x9a75_e400),
            profile: profile.to_string(),
            beats: VecDeque::new(),
            offer: None,
            reset_left: if power_up { 4 } else { 2 },
            hdr_ready: ReadyRuns::default(),
            vrd_ready: ReadyRuns::default(),
            mix: Mix::default(),
            shape: None,
        }
    }

    /// The same stimulus with every random frame passed through `shape` before it is
    /// encoded; the hostile changes (mutations, truncations, ...) come after it.
    pub fn with_shape(mut self, shape: Shape) -> ParserStimulus {
        self.shape = Some(shape);
        self
    }

    fn frame_bytes(&mut self) -> Vec<u8> {
        let r = &mut self.rng;
        let max_payload = if r.gen_bool(0.1) { 1500 } else { 200 };
        let mut fr = random_frame(r, max_payload);
        if let Some(shape) = self.shape.as_mut() {
            shape(&mut fr, r);
        }
        let mut b = encode(&fr);
        let hostile = match self.profile.as_str() {
            "good_back_to_back" => 0.0,
            "hostile" => 0.9,
            _ => 0.6,
        };
        if !r.gen_bool(hostile) {
            self.mix.good += 1;
            return b;
        }
        match r.gen_range(0..13) {
            0..=3 => {
                self.mix.mutated += 1;
                for _ in 0..r.gen_range(1..=2) {
                    if !b.is_empty() {
                        mutate(r, &mut b);
                    }
                }
                if !b.is_empty() && r.gen_bool(0.5) && reseal(&mut b) {
                    self.mix.resealed += 1;
                }
            }
            6 => {
                // cut, then the IPv4 and UDP lengths made to agree (UDP checksum 0): the
                // first failing check is past IPv4 (Truncated Udp / Bth / Extension, ...)
                self.mix.truncated_consistent += 1;
                let n = r.gen_range(30..b.len().min(110));
                b.truncate(n);
                fix_lengths(&mut b);
            }
            7 => {
                // UDP checksum 0 (not checked), one bit flipped after the UDP header: the
                // ICRC (or, in a masked field, a later check) catches it
                self.mix.icrc += 1;
                let l3 = if b[12] == 0x81 && b[13] == 0 { 18 } else { 14 };
                b[l3 + 26] = 0;
                b[l3 + 27] = 0;
                let i = r.gen_range(l3 + 28..b.len());
                b[i] ^= 1 << r.gen_range(0..8);
            }
            4..=5 => {
                self.mix.truncated += 1;
                let n = r.gen_range(0..b.len().min(120));
                b.truncate(n);
                if r.gen_bool(0.5) {
                    reseal(&mut b);
                }
            }
            _ => {
                self.mix.field += 1;
                let l3 = if b.len() > 13 && b[12] == 0x81 && b[13] == 0 { 18 } else { 14 };
                let mut f = FIELDS[r.gen_range(0..FIELDS.len())] + l3;
                if (60..64).contains(&(f - l3)) {
                    f += 12; // PLETH length: body 32..35
                }
                if f < b.len() {
                    let x: u8 = if r.gen_bool(0.5) { 1 << r.gen_range(0..8) } else { r.gen() };
                    b[f] ^= x.max(1);
                }
                reseal(&mut b);
            }
        }
        b
    }

    fn next_frame(&mut self) {
        self.mix.frames += 1;
        let special = self.rng.gen_range(0..2000);
        let bytes = if special == 0 {
            self.mix.too_long += 1;
            let mut b = encode(&random_frame(&mut self.rng, 200));
            b.resize(DEFAULT_MAX_FRAME + self.rng.gen_range(1..=9), 0x5a);
            b
        } else if special == 1 {
            self.mix.max_len += 1;
            let mut b = encode(&random_frame(&mut self.rng, 200));
            b.resize(DEFAULT_MAX_FRAME, 0);
            b
        } else {
            self.frame_bytes()
        };
        let mut beats = to_beats(&bytes, 8);
        let r = &mut self.rng;
        // garbage beyond tkeep on the last beat
        if let Some(last) = beats.last_mut() {
            let n = last.tkeep.trailing_ones() as usize;
            for x in last.tdata.iter_mut().skip(n) {
                *x = r.gen();
            }
        }
        if r.gen_bool(0.02) {
            self.mix.bad_keep += 1;
            let k = r.gen_range(0..beats.len());
            let last = k + 1 == beats.len();
            beats[k].tkeep = match r.gen_range(0..3) {
                0 if last => 0,
                0 => keep_mask(r.gen_range(1..8)),
                1 => 0b1011_0111,
                _ => keep_mask(8) ^ (1 << r.gen_range(0..7)),
            };
        }
        if r.gen_bool(0.02) {
            self.mix.tuser += 1;
            let k = r.gen_range(0..beats.len());
            beats[k].tuser = true;
        }
        self.beats.extend(beats);
    }

    /// The inputs of the next cycle; `taken`: the previous cycle's offer was transferred.
    pub fn next_inputs(&mut self, taken: bool) -> ParserInputs {
        if taken {
            self.offer = None;
        }
        let mut i = ParserInputs::default();
        if self.reset_left > 0 {
            self.reset_left -= 1;
            i.rst = true;
            i.m_hdr_ready = true;
            i.m_vrd_ready = true;
            return i;
        }
        // m_hdr_ready and m_vrd_ready: independent runs of ready / not ready
        let (p_stall, max) = match self.profile.as_str() {
            "backpressure" => (0.5, 40),
            "good_back_to_back" => (0.05, 4),
            _ => (0.2, 12),
        };
        i.m_hdr_ready = self.hdr_ready.next(&mut self.rng, p_stall, max);
        self.mix.stall_cycles += !i.m_hdr_ready as u64;
        i.m_vrd_ready = self.vrd_ready.next(&mut self.rng, p_stall, max);
        self.mix.vrd_stall_cycles += !i.m_vrd_ready as u64;
        if self.offer.is_none() {
            let idle = match self.profile.as_str() {
                "good_back_to_back" => 0.0,
                _ => 0.1,
            };
            if self.rng.gen_bool(idle) {
                self.mix.idle_cycles += 1;
                return i;
            }
            if self.beats.is_empty() {
                self.next_frame();
            }
            self.offer = self.beats.pop_front();
        }
        let b = self.offer.as_ref().expect("an offer");
        i.tvalid = true;
        let mut d = [0u8; 8];
        d.copy_from_slice(&b.tdata);
        i.tdata = u64::from_le_bytes(d);
        i.tkeep = b.tkeep as u8;
        i.tlast = b.tlast;
        i.tuser = b.tuser;
        i
    }
}
