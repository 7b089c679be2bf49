//! DCQCN reaction point (sender rate control) and notification point (CNP
//! generation), after Zhu et al., "Congestion Control for Large-Scale RDMA
//! Deployments", SIGCOMM 2015.
//!
//! Reaction point, per connection:
//! * on a CNP: `Rt = Rc; Rc = Rc (1 - alpha/2); alpha = (1 - g) alpha + g`, and
//!   the increase timer, byte counter and their iteration counts restart;
//! * every `alpha_timer_us` without a CNP: `alpha = (1 - g) alpha`;
//! * a rate-increase event happens every `increase_timer_us` and every
//!   `byte_counter` bytes sent; with `T`, `BC` the timer / byte-counter
//!   iterations since the last cut: fast recovery `Rc = (Rt + Rc)/2` while
//!   `max(T, BC) < F`; hyper increase `Rt += i R_HAI` (`i = min(T, BC) - F + 1`) when
//!   both exceed `F`; additive increase `Rt += R_AI` otherwise, followed by
//!   `Rc = (Rt + Rc)/2`.
//! * At line rate the timers stop (no events for idle or unconstrained flows);
//!   alpha's decay over the stopped period is applied in closed form at the
//!   next CNP.
//!
//! The sending rate is enforced by pacing: after a frame of `b` bytes the next
//! may start `b * 8 / Rc` later. Notification point: a CNP for a CE-marked
//! data frame, at most one per `cnp_interval_us` per connection.
//!
//! Defaults follow the paper (g = 1/256, timers 55 µs, F = 5, byte counter
//! 10 MB) with `R_AI` = 0.1% of line rate (the paper's 40 Mb/s at 40 Gb/s)
//! and `R_HAI` = 1%.
//!
//! **Rescaling for the link rate** (`reference_gbps` > 0, [`DcqcnConfig::rescaled`]):
//! the paper's parameters were tuned at 40 Gb/s. With `reference_gbps = 40` the
//! rate-increase timer is multiplied by `reference_gbps / link rate` (55 µs -> 5.5 µs
//! at 400 Gb/s), so that increase events come per byte of line rate as in the paper
//! (the byte counter, 10 MB, and the steps, fractions of the line rate, already scale).
//! The alpha timer and the CNP spacing are kept: they are tied to the feedback delay
//! (the round trip), which does not shrink with the link rate. Scaling those too
//! (alpha timer 5.5 µs, a CNP every 5 µs) was measured and rejected: it halves the
//! rate about once per round trip while the queue is marked, and cut RoCEv2's and
//! IRN's goodput on the CI-size path-failure run from 57 % / 66 % to 29 % of line rate
//! (docs/results.md, issue 13).

use serde::{Deserialize, Serialize};

use crate::SimError;

/// DCQCN parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DcqcnConfig {
    /// Rate control on at all (off: always line rate, no CNPs).
    pub enabled: bool,
    /// alpha gain g.
    pub g: f64,
    /// alpha decay period, µs.
    pub alpha_timer_us: f64,
    /// Rate-increase timer period, µs.
    pub increase_timer_us: f64,
    /// Rate-increase byte counter, bytes.
    pub byte_counter: u64,
    /// Fast-recovery iterations F.
    pub fast_recovery_steps: u32,
    /// Additive increase, fraction of line rate.
    pub rai_frac: f64,
    /// Hyper increase, fraction of line rate.
    pub rhai_frac: f64,
    /// Floor of the rate, fraction of line rate.
    pub min_rate_frac: f64,
    /// Minimum spacing of CNPs per connection at the receiver, µs.
    pub cnp_interval_us: f64,
    /// Link rate (Gb/s) the increase timer is given for; 0 = use it as it is at any
    /// link rate (see the module docs).
    pub reference_gbps: f64,
}

impl Default for DcqcnConfig {
    fn default() -> Self {
        DcqcnConfig {
            enabled: true,
            g: 1.0 / 256.0,
            alpha_timer_us: 55.0,
            increase_timer_us: 55.0,
            byte_counter: 10_000_000,
            fast_recovery_steps: 5,
            rai_frac: 0.001,
            rhai_frac: 0.01,
            min_rate_frac: 0.0001,
            cnp_interval_us: 50.0,
            reference_gbps: 0.0,
        }
    }
}

impl DcqcnConfig {
    /// The paper's parameters, given for its 40 Gb/s links and rescaled to the link rate.
    pub fn rescaled() -> DcqcnConfig {
        DcqcnConfig { reference_gbps: 40.0, ..DcqcnConfig::default() }
    }

    /// The parameters in force on a link of `link_bps`: the increase timer scaled by
    /// `reference_gbps / link rate` when `reference_gbps` > 0 (then set to 0).
    pub fn for_link(&self, link_bps: u64) -> DcqcnConfig {
        if self.reference_gbps <= 0.0 {
            return self.clone();
        }
        let k = self.reference_gbps * 1e9 / link_bps as f64;
        DcqcnConfig {
            increase_timer_us: self.increase_timer_us * k,
            reference_gbps: 0.0,
            ..self.clone()
        }
    }
}

impl DcqcnConfig {
    /// Refuse bad values, with the reason.
    pub fn validate(&self, what: &str) -> Result<(), SimError> {
        let pos = |n: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(SimError::invalid(&format!("{what}.dcqcn.{n}"), format!("{v} must be > 0")))
            }
        };
        pos("alpha_timer_us", self.alpha_timer_us)?;
        pos("increase_timer_us", self.increase_timer_us)?;
        pos("rai_frac", self.rai_frac)?;
        pos("rhai_frac", self.rhai_frac)?;
        pos("min_rate_frac", self.min_rate_frac)?;
        if !(self.g > 0.0 && self.g <= 1.0) {
            return Err(SimError::invalid(&format!("{what}.dcqcn.g"), format!("{} is not in (0, 1]", self.g)));
        }
        if self.min_rate_frac > 1.0 {
            return Err(SimError::invalid(&format!("{what}.dcqcn.min_rate_frac"), "must be <= 1"));
        }
        if !(self.reference_gbps.is_finite() && self.reference_gbps >= 0.0) {
            return Err(SimError::invalid(&format!("{what}.dcqcn.reference_gbps"), "must be >= 0"));
        }
        if self.byte_counter == 0 {
            return Err(SimError::invalid(&format!("{what}.dcqcn.byte_counter"), "must be > 0"));
        }
        if !(self.cnp_interval_us.is_finite() && self.cnp_interval_us >= 0.0) {
            return Err(SimError::invalid(&format!("{what}.dcqcn.cnp_interval_us"), "must be >= 0"));
        }
        Ok(())
    }
}

/// Reaction point state of one sender.
#[derive(Clone, Debug)]
pub struct Dcqcn {
    cfg: DcqcnConfig,
    line: f64,
    rc: f64,
    rt: f64,
    alpha: f64,
    t_iter: u32,
    b_iter: u32,
    bytes: u64,
    next_alpha_ns: Option<u64>,
    next_inc_ns: Option<u64>,
    alpha_idle_since: u64,
    allow_ps: u64,
}

impl Dcqcn {
    /// A sender at line rate `line_bps`.
    pub fn new(cfg: DcqcnConfig, line_bps: u64) -> Dcqcn {
        let line = line_bps as f64;
        Dcqcn {
            cfg,
            line,
            rc: line,
            rt: line,
            alpha: 1.0,
            t_iter: 0,
            b_iter: 0,
            bytes: 0,
            next_alpha_ns: None,
            next_inc_ns: None,
            alpha_idle_since: 0,
            allow_ps: 0,
        }
    }

    /// Current rate, bits per second.
    pub fn rate_bps(&self) -> f64 {
        self.rc
    }

    /// Current alpha.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    fn limited(&self) -> bool {
        self.rc < self.line
    }

    /// May a frame start now (pacing)?
    pub fn can_send(&self, now_ns: u64) -> bool {
        !self.limited() || now_ns * 1000 + 999 >= self.allow_ps
    }

    /// When the pacer next allows a frame, ns (None: not limited).
    pub fn pacing_wakeup(&self) -> Option<u64> {
        self.limited().then(|| self.allow_ps.div_ceil(1000))
    }

    /// Earliest DCQCN timer, ns.
    pub fn timer_wakeup(&self) -> Option<u64> {
        match (self.next_alpha_ns, self.next_inc_ns) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// A frame of `bytes` bytes started now.
    pub fn on_send(&mut self, now_ns: u64, bytes: u32) {
        if !self.limited() {
            return;
        }
        let gap = (bytes as f64 * 8e12 / self.rc).round() as u64;
        self.allow_ps = self.allow_ps.max(now_ns * 1000) + gap;
        self.bytes += bytes as u64;
        if self.bytes >= self.cfg.byte_counter {
            self.bytes = 0;
            self.b_iter += 1;
            self.increase(now_ns);
        }
    }

    /// A CNP arrived.
    pub fn on_cnp(&mut self, now_ns: u64) {
        if !self.cfg.enabled {
            return;
        }
        let p = (self.cfg.alpha_timer_us * 1000.0) as u64;
        if self.next_alpha_ns.is_none() && now_ns > self.alpha_idle_since {
            let periods = (now_ns - self.alpha_idle_since) / p.max(1);
            self.alpha *= (1.0 - self.cfg.g).powi(periods.min(1 << 20) as i32);
        }
        let min = self.line * self.cfg.min_rate_frac;
        if !self.limited() {
            self.allow_ps = now_ns * 1000;
        }
        self.rt = self.rc;
        self.rc = (self.rc * (1.0 - self.alpha / 2.0)).max(min);
        self.alpha = (1.0 - self.cfg.g) * self.alpha + self.cfg.g;
        self.t_iter = 0;
        self.b_iter = 0;
        self.bytes = 0;
        self.next_alpha_ns = Some(now_ns + p);
        self.next_inc_ns = Some(now_ns + (self.cfg.increase_timer_us * 1000.0) as u64);
    }

    /// Run due timers.
    pub fn on_timer(&mut self, now_ns: u64) {
        while let Some(t) = self.next_alpha_ns.filter(|&t| t <= now_ns) {
            self.alpha *= 1.0 - self.cfg.g;
            self.next_alpha_ns = Some(t + (self.cfg.alpha_timer_us * 1000.0) as u64);
            if !self.limited() {
                self.next_alpha_ns = None;
                self.alpha_idle_since = t;
            }
        }
        while let Some(t) = self.next_inc_ns.filter(|&t| t <= now_ns) {
            self.next_inc_ns = Some(t + (self.cfg.increase_timer_us * 1000.0) as u64);
            self.t_iter += 1;
            self.increase(t);
        }
    }

    fn increase(&mut self, now_ns: u64) {
        let f = self.cfg.fast_recovery_steps;
        if self.t_iter.max(self.b_iter) < f {
            // fast recovery
        } else if self.t_iter.min(self.b_iter) > f {
            let i = (self.t_iter.min(self.b_iter) - f) as f64;
            self.rt += i * self.cfg.rhai_frac * self.line;
        } else {
            self.rt += self.cfg.rai_frac * self.line;
        }
        self.rt = self.rt.min(self.line);
        self.rc = ((self.rt + self.rc) / 2.0).min(self.line);
        if self.rc >= self.line * (1.0 - 1e-6) {
            self.rc = self.line;
            self.rt = self.line;
            self.next_inc_ns = None;
            self.next_alpha_ns = None;
            self.alpha_idle_since = now_ns;
        }
    }
}

/// Notification point: rate-limits CNPs per connection.
#[derive(Clone, Debug, Default)]
pub struct CnpGen {
    last_ns: Option<u64>,
}

impl CnpGen {
    /// A CE-marked data frame arrived: should a CNP be sent?
    pub fn on_ce(&mut self, now_ns: u64, cfg: &DcqcnConfig) -> bool {
        if !cfg.enabled {
            return false;
        }
        let gap = (cfg.cnp_interval_us * 1000.0) as u64;
        match self.last_ns {
            Some(t) if now_ns < t + gap => false,
            _ => {
                self.last_ns = Some(now_ns);
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_then_recover_to_line_rate() {
        let line = 400_000_000_000u64;
        let mut d = Dcqcn::new(DcqcnConfig::default(), line);
        d.on_cnp(1000);
        // alpha = 1: rate halves, alpha stays ~1
        assert!((d.rate_bps() - line as f64 / 2.0).abs() < 1.0);
        assert!(d.alpha() > 0.99);
        let r1 = d.rate_bps();
        d.on_cnp(2000);
        assert!(d.rate_bps() < r1);
        // without CNPs, timers recover the rate fully
        let mut t = 2000;
        while let Some(w) = d.timer_wakeup() {
            t = w;
            d.on_timer(t);
            assert!(t < 100_000_000, "no recovery after 100 ms");
        }
        assert_eq!(d.rate_bps(), line as f64);
        assert!(d.can_send(t));
        // fast recovery halves the gap to the target: after 1 increase from (rt, rc) the rate is between
        let mut e = Dcqcn::new(DcqcnConfig::default(), line);
        e.on_cnp(0);
        e.on_timer(55_000);
        assert!(e.rate_bps() > line as f64 / 2.0 && e.rate_bps() < line as f64);
    }

    #[test]
    fn rescaled_times_follow_the_link_rate() {
        let r = DcqcnConfig::rescaled().for_link(400_000_000_000);
        assert!((r.increase_timer_us - 5.5).abs() < 1e-9);
        assert_eq!(r.alpha_timer_us, 55.0, "tied to the round trip: kept");
        assert_eq!(r.cnp_interval_us, 50.0);
        assert_eq!(r.byte_counter, 10_000_000);
        assert_eq!(DcqcnConfig::rescaled().for_link(40_000_000_000).increase_timer_us, 55.0);
        assert_eq!(DcqcnConfig::default().for_link(400_000_000_000), DcqcnConfig::default());
        // after one cut, the rescaled controller is back at line rate ~10x sooner
        let line = 400_000_000_000u64;
        let back = |cfg: DcqcnConfig| {
            let mut d = Dcqcn::new(cfg.for_link(line), line);
            d.on_cnp(0);
            let mut t = 0;
            while let Some(w) = d.timer_wakeup() {
                t = w;
                d.on_timer(t);
            }
            t
        };
        let (slow, fast) = (back(DcqcnConfig::default()), back(DcqcnConfig::rescaled()));
        assert!(fast * 9 < slow && fast * 11 > slow, "paper {slow} ns, rescaled {fast} ns");
    }

    #[test]
    fn cnps_are_spaced() {
        let cfg = DcqcnConfig::default();
        let mut g = CnpGen::default();
        assert!(g.on_ce(0, &cfg));
        assert!(!g.on_ce(49_999, &cfg));
        assert!(g.on_ce(50_000, &cfg));
        let off = DcqcnConfig { enabled: false, ..DcqcnConfig::default() };
        assert!(!CnpGen::default().on_ce(0, &off));
    }

    #[test]
    fn pacing_spaces_frames_at_the_rate() {
        let line = 100_000_000_000u64;
        let mut d = Dcqcn::new(DcqcnConfig::default(), line);
        d.on_cnp(0); // 50 Gb/s
        assert!(d.can_send(0));
        d.on_send(0, 1000); // 160 ns at 50G
        assert!(!d.can_send(100));
        assert_eq!(d.pacing_wakeup(), Some(160));
        assert!(d.can_send(160));
    }
}
