//! Time derivatives of the outputs along the current motion, for what the solver state has
//! no exact form of (`derivatives.rs` gives the exact ones): forces, reactions and
//! multipliers, energies, contact quantities, orientations and frame coordinates, the rate of
//! an acceleration, and the second derivative of a velocity, a joint rate or an angular
//! velocity (the rate of its exact acceleration).
//!
//! The motion. The state's own time derivative is known: q' = v, v' = a, with (a, lambda) the
//! accelerations and multipliers of the index-1 system at (q, v, t) (as `output_values` uses
//! them; the inputs held, as a step without input derivatives holds them, and the contact
//! constraints' active set kept). An output y(q, v, a(q, v, t), lambda(q, v, t), t) is
//! evaluated along the Taylor path of that motion
//!   P(o) = (q + o v + o^2/2 a + o^3/6 j,  v + o a + o^2/2 j,  t + o),
//! (a, lambda) solved again at each point, and differenced in o. The offsets are the ones
//! rounded times give (t + o rounded, minus t), so that positions, velocities and time move
//! together; the three-point formulas are those of these nodes.
//!
//! Error orders. With the jerk j = a', P(o) differs from the motion (q, v)(t + o) by O(o^4)
//! in q and O(o^3) in v, so y(P(o)) has the derivatives of y along the motion at o = 0 up to
//! the second: the central differences over -+e are y' + c1 e^2 + O(e^4) and y'' + c2 e^2 +
//! O(e^4). (Without j, the path's error -o^2/2 j in v would leave -y_v j in the second
//! difference, an O(1) error, though not in the first.) j is the first difference of a over
//! -+e1 on the path without it, O(e1^2), with e1 = JERK_OFFSET T ((3 delta)^(1/3) T for a
//! relative rounding error delta = 1e-16 and time scale T: the least truncation plus
//! rounding, ~delta^(2/3)); it enters y'' only through y_v times its error.
//!
//! Offsets. Rounding errs by ~delta |y| / e in a first difference and ~4 delta |y| / e^2 in a
//! second, truncation by ~(e/T)^2 of y' and y''; and a vibration faster than 1/e (a beam's
//! stiff modes: the consistent accelerations carry them) follows no polynomial path over e.
//! So the differences are taken at LEVELS offsets e_k = LARGEST_OFFSET T RATIO^-k (3e-2 T to
//! 1.2e-4 T), Richardson's extrapolation of each pair of neighbouring levels removes the
//! e^2 terms (error O(e^4)), and one of the neighbouring pair of these estimates that agrees
//! best is taken (per output and order, as Ridders' method chooses: C. J. F. Ridders,
//! "Accurate computation of F'(x) and F'(x) F''(x)", Adv. Eng. Software 4 (1982) 75-76;
//! `derivatives_at`): large offsets lose to truncation and vibrations, small ones to
//! rounding. T is the motion's own
//! time scale sqrt(|v| / |j|) in the mass metric (`time_scale`; 1/omega of a harmonic
//! motion), within 1e-3 to 1e3 internal steps; j is taken a second time at e1 of that T if
//! the first estimate |v| / |a| was more than 3 times it (e1 too large) or less than a
//! tenth. Measured errors: docs/fmu.md, Derivatives.
//!
//! Integrals. energy_dissipated and energy_supplied are integrals of powers (`exchanged` in
//! the state): their rate is the power `Dynamics::power`, each non-conservative force times
//! the rate of what it works on over a stride, here the symmetric strides q -+ e v and
//! q -+ 2 e v about the point extrapolated to the instant (O(e^4), e = the offset of level
//! STRIDE_LEVEL); their second derivative is the rate of that power along the motion, by the
//! differences above. energy_total, energy_kinetic and energy_potential are functions of
//! (q, v, t) and differenced like any output (tests check energy_total' against the powers).
//!
//! Piecewise constant outputs (a contact's state and onset time) have derivatives 0.
//! Tait-Bryan yaw and roll (atan2, in (-pi, pi]) are differenced modulo 2 pi. Elements whose
//! forces read their history at the evaluation time (fractional dampers) follow the motion
//! smoothly there (`System::follow_motion`). Events are not located along the path: a
//! compliant contact's onset or release within the offsets is a kink the differences
//! straddle; the levels that do not straddle it, where there are any, agree best.
//!
//! Work: the index-1 matrix factorized at the state, twice or four times for the jerk and,
//! where an output reads accelerations or multipliers there, at the 2 LEVELS points; every
//! output evaluated at 1 + 2 LEVELS points and the powers twice at each; once per state: the
//! results are kept until the state, the inputs or the step change
//! (`Simulation::invalidate_outputs`).

use super::Simulation;
use super::derivatives::derived;
use crate::compact_number::Compact;
use crate::integrators::{Dynamics, EnergyFlow, Statistics, Stride};
use crate::mechanics::outputs::{OutputKind, OutputState};

/// The jerk's first difference takes the offset JERK_OFFSET T, T the motion's time scale
/// (module documentation): (3 delta)^(1/3), delta = 1e-16.
const JERK_OFFSET: f64 = 7e-6;
/// The largest offset of the differences of the outputs is LARGEST_OFFSET T.
const LARGEST_OFFSET: f64 = 3e-2;
/// The time scale T is kept within [h / SCALE_RANGE, SCALE_RANGE h], h the step.
const SCALE_RANGE: f64 = 1e3;
/// The offsets of the differences: LEVELS of them, each RATIO times the next.
const LEVELS: usize = 5;
const RATIO: f64 = 4.0;
/// The level whose offset is the stride of the powers.
const STRIDE_LEVEL: usize = 2;

/// The points along the motion, by slot: 0 the state; 1, 2 at -e1, +e1 (the path without the
/// jerk, for the jerk); 3 + 2k, 4 + 2k at -e_k, +e_k (the path with it), e_k = RATIO^-k e_0.
const POINTS: usize = 3 + 2 * LEVELS;

/// How an output's derivatives are found along the motion.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Rule {
    /// The solver state has both orders (`derived`): not computed here.
    Exact,
    /// Piecewise constant (a contact's state, its onset time): 0.
    Constant,
    /// The integral of a power: the power, and its first difference.
    Integral { supplied: bool },
    /// Order 1 exact (`derived`): order 2 is its first difference.
    Rate,
    /// First and second differences of the value; `wrapped`: an angle in (-pi, pi].
    Differences { wrapped: bool },
}

fn rule(kind: &OutputKind) -> Rule {
    match (derived(kind, 1), derived(kind, 2)) {
        (Some(_), Some(_)) => return Rule::Exact,
        (Some(_), None) => return Rule::Rate,
        _ => {}
    }
    match kind {
        OutputKind::Contact { quantity: 2 | 3, .. } | OutputKind::ContactConstraint { quantity: 2 | 3, .. } => {
            Rule::Constant
        }
        OutputKind::EnergyDissipated => Rule::Integral { supplied: false },
        OutputKind::EnergySupplied => Rule::Integral { supplied: true },
        OutputKind::TaitBryan { component, .. } => Rule::Differences { wrapped: *component != 1 },
        _ => Rule::Differences { wrapped: false },
    }
}

/// The derivatives of every output along the motion at one state, with the storage they are
/// computed in (allocated at the first call, reused after).
#[derive(Debug, Default)]
pub(super) struct MotionDerivatives {
    /// Whether `derivatives` belong to the current state (`Simulation::invalidate_outputs`).
    pub(super) current: bool,
    /// Whether `a0` and `lambda0` are the accelerations and multipliers of the index-1
    /// system at the current state (cleared with `current`).
    pub(super) accelerations_current: bool,
    /// The step h they were computed with.
    step: f64,
    /// Per output, its first and second time derivative (NaN for `Rule::Exact`).
    derivatives: Vec<[f64; 2]>,
    q: Vec<f64>,
    v: Vec<f64>,
    a: Vec<f64>,
    lambda: Vec<f64>,
    /// The state's velocities projected onto the joints' velocity constraints, and the
    /// accelerations and multipliers of the index-1 system there: the motion the derivatives
    /// follow (as `Simulation::output_values` solves the accelerations).
    v0: Vec<f64>,
    pub(super) a0: Vec<f64>,
    pub(super) lambda0: Vec<f64>,
    jerk: Vec<f64>,
    start: Vec<f64>,
    end: Vec<f64>,
    /// Per point (slot of `POINTS`; 1 and 2 unused), every output's value there.
    values: [Vec<f64>; POINTS],
    /// Per point likewise, the exact first derivative of the outputs that have one.
    rates: [Vec<f64>; POINTS],
}

/// Weights of the three-point formulas at 0 on the nodes (o_minus < 0, 0, o_plus > 0), for
/// the differences from the middle value: f' ~ w1[0] (f- - f0) + w1[1] (f+ - f0), f'' likewise
/// with w2 (exact for quadratics; (-1/2e, 1/2e) and (1/e^2, 1/e^2) for o = -+e).
fn weights(o_minus: f64, o_plus: f64) -> ([f64; 2], [f64; 2]) {
    let span = o_plus - o_minus;
    ([o_plus / (o_minus * span), -o_minus / (o_plus * span)], [-2.0 / (o_minus * span), 2.0 / (o_plus * span)])
}

/// The first and second derivative at 0 of f, given at the slots of `POINTS` with offsets
/// `o`: per level the central differences D(e_k) = f^(i) + c e_k^2 + O(e_k^4), Richardson's
/// extrapolation R_k = (e_k^2 D(e_{k+1}) - e_{k+1}^2 D(e_k)) / (e_k^2 - e_{k+1}^2) of each
/// pair of levels, O(e^4), and one of the neighbouring pair of these that agrees best: the
/// larger offsets lose to truncation (and to vibrations faster than they resolve), by ~256x
/// per level, the smaller ones to rounding, ~16x per level; where both estimates of a pair
/// are near the truth, they agree. Of the pair, the one at the larger offsets where later
/// pairs agree less (rounding has set in), else (the last pair) the one at the smaller.
fn derivatives_at(f: &dyn Fn(usize) -> f64, o: &[f64; POINTS]) -> [f64; 2] {
    let mut differences = [[0.0; 2]; LEVELS];
    let mut half = [0.0; LEVELS];
    for (k, (d, e)) in differences.iter_mut().zip(&mut half).enumerate() {
        let (minus, plus) = (3 + 2 * k, 4 + 2 * k);
        let (w1, w2) = weights(o[minus], o[plus]);
        let (fm, fp) = (f(minus) - f(0), f(plus) - f(0));
        *d = [w1[0] * fm + w1[1] * fp, w2[0] * fm + w2[1] * fp];
        *e = 0.5 * (o[plus] - o[minus]);
    }
    std::array::from_fn(|i| {
        let r: [f64; LEVELS - 1] = std::array::from_fn(|k| {
            let (ea, eb) = (half[k + 1], half[k]);
            (eb * eb * differences[k + 1][i] - ea * ea * differences[k][i]) / (eb * eb - ea * ea)
        });
        // The pair of neighbouring estimates that agree best (NaN agrees with nothing). Where
        // a pair after it agrees less, rounding has set in there: the pair's estimate at the
        // larger offsets; where it is the last pair, truncation still falls: the smaller.
        let disagreement = |k: usize| {
            let d = (r[k] - r[k + 1]).abs();
            if d.is_nan() { f64::INFINITY } else { d }
        };
        let pair = (0..r.len() - 1).fold(0, |b, k| if disagreement(k) < disagreement(b) { k } else { b });
        let best = if pair + 2 == r.len() { pair + 1 } else { pair };
        r[best]
    })
}

/// The point at offset o of the Taylor path: q + o v + o^2/2 a + o^3/6 j, v + o a + o^2/2 j.
fn taylor_point((q, v, a, j): (&[f64], &[f64], &[f64], &[f64]), o: f64, (pq, pv): (&mut [f64], &mut [f64])) {
    for i in 0..q.len() {
        pq[i] = q[i] + o * (v[i] + o * (0.5 * a[i] + o / 6.0 * j[i]));
        pv[i] = v[i] + o * (a[i] + 0.5 * o * j[i]);
    }
}

/// The change from `from` to `to`, modulo 2 pi for a wrapped angle.
fn change(from: f64, to: f64, wrapped: bool) -> f64 {
    let d = to - from;
    if wrapped {
        let turn = std::f64::consts::TAU;
        d - turn * (d / turn).round()
    } else {
        d
    }
}

/// The motion's time scale from the mass-metric norms |v|, |a|, |j| of its velocities,
/// accelerations and jerk (|x|^2 = x^T M x; j = 0: not known yet): sqrt(|v| / |j|), 1/omega of
/// a harmonic motion at omega in any phase; where v or j vanishes |v| / |a| or |a| / |j|; the
/// step h at rest. Kept within [h / SCALE_RANGE, SCALE_RANGE h].
fn time_scale([v, a, j]: [f64; 3], h: f64) -> f64 {
    let t = if v > 0.0 && j > 0.0 {
        (v / j).sqrt()
    } else if v > 0.0 && a > 0.0 {
        v / a
    } else if a > 0.0 && j > 0.0 {
        a / j
    } else {
        h
    };
    if t.is_nan() { h } else { t.clamp(h / SCALE_RANGE, SCALE_RANGE * h) }
}

impl Simulation {
    /// The internal step (with error control, the step the controller proposes next).
    fn derivative_step(&self) -> f64 {
        if self.settings.error_control.enabled { self.next_step } else { self.settings.step }
    }

    /// The `order`-th (1 or 2) time derivative of output `index` along the motion (module
    /// documentation); computed for every output at the first call at a state.
    pub(super) fn motion_derivative(&mut self, index: usize, order: usize) -> Result<f64, String> {
        let h = self.derivative_step();
        if !self.motion.current || self.motion.step.to_bits() != h.to_bits() {
            let result = self.compute_along_motion(h);
            self.system.follow_motion(self.state.t, &[]);
            result?;
            self.motion.current = true;
            self.motion.step = h;
        }
        let x = self.motion.derivatives[index][order - 1];
        if !x.is_finite() {
            return Err(format!(
                "derivative of order {order} of output '{}' is {x} at t = {} (along the motion)",
                self.outputs[index].name,
                Compact(self.state.t)
            ));
        }
        Ok(x)
    }

    /// The state's accelerations, its jerk and time scale, then every output's derivatives
    /// (`motion_differences`). The jerk's offset follows the time scale |v| / |a|, then, if
    /// the time scale with the jerk is less than a third of it (the offset was too large) or
    /// more than 10 times it, that one.
    fn compute_along_motion(&mut self, h: f64) -> Result<(), String> {
        let (n, m, t) = (self.state.q.len(), self.state.lambda.len(), self.state.t);
        let d = &mut self.motion;
        for x in [&mut d.q, &mut d.v, &mut d.a, &mut d.jerk, &mut d.start, &mut d.end] {
            x.resize(n, 0.0);
        }
        d.lambda.resize(m, 0.0);
        d.jerk.fill(0.0);
        self.state_accelerations()?;
        let mut scale = time_scale(self.jet_norms(), h);
        let mut times = [t; POINTS];
        for pass in 0..2 {
            let e1 = JERK_OFFSET * scale;
            (times[1], times[2]) = (t - e1, t + e1);
            self.system.follow_motion(t, &times[1..3]);
            self.jerk(&times)?;
            let jerk_scale = time_scale(self.jet_norms(), h);
            let close = (0.1..=3.0).contains(&(scale / jerk_scale));
            scale = jerk_scale;
            if close || pass == 1 {
                break;
            }
        }
        for k in 0..LEVELS {
            let e = LARGEST_OFFSET * scale * RATIO.powi(-(k as i32));
            (times[3 + 2 * k], times[4 + 2 * k]) = (t - e, t + e);
        }
        self.system.follow_motion(t, &times[1..]);
        self.motion_differences(&times)
    }

    /// The accelerations and multipliers of the index-1 system at the state into `a0`,
    /// `lambda0` (kept until the state changes: `Simulation::invalidate_outputs`).
    pub(super) fn state_accelerations(&mut self) -> Result<(), String> {
        let d = &mut self.motion;
        if d.accelerations_current {
            return Ok(());
        }
        let s = &self.state;
        d.v0.resize(s.q.len(), 0.0);
        d.a0.resize(s.q.len(), 0.0);
        d.lambda0.resize(s.lambda.len(), 0.0);
        let mut stats = Statistics::default();
        // As `output_values` solves them (at the velocities projected onto the joints'
        // velocity constraints), so that a velocity's derivative is its acceleration output (a
        // probe found them 2e-6 apart after an input changed).
        self.stepper
            .workspace
            .projected_accelerations(
                &self.system,
                (&s.q, &s.v, s.t),
                &mut d.v0,
                (&mut d.a0, &mut d.lambda0),
                &mut stats,
            )
            .map_err(|e| e.to_string())?;
        d.accelerations_current = true;
        Ok(())
    }

    /// The failure of the index-1 solve at the point `time`.
    fn along_motion_failed(&self, time: f64, e: crate::integrators::NewtonError) -> String {
        format!(
            "the accelerations along the motion at t = {} {:+e} s could not be computed: {e}",
            Compact(self.state.t),
            time - self.state.t
        )
    }

    /// The mass-metric norms |x|^2 = x^T M(q) x of the state's velocities, accelerations and
    /// jerk (M x from the inertial forces).
    fn jet_norms(&mut self) -> [f64; 3] {
        let (sys, s, d) = (&self.system, &self.state, &mut self.motion);
        let (mx, forces) = (&mut d.start, &mut d.end);
        [&d.v0, &d.a0, &d.jerk].map(|x| {
            sys.forces(&s.q, &d.v0, x, s.t, mx, forces);
            x.iter().zip(mx.iter()).map(|(x, mx)| x * mx).sum::<f64>().max(0.0).sqrt()
        })
    }

    /// The jerk: the first difference of the accelerations at the points 1, 2 of `times`,
    /// on the path without it.
    fn jerk(&mut self, times: &[f64; POINTS]) -> Result<(), String> {
        let (sys, s, ws, d) = (&self.system, &self.state, &mut self.stepper.workspace, &mut self.motion);
        let t = s.t;
        let (w, _) = weights(times[1] - t, times[2] - t);
        let mut stats = Statistics::default();
        d.jerk.fill(0.0);
        d.end.fill(0.0);
        for slot in [1, 2] {
            taylor_point((&s.q, &d.v0, &d.a0, &d.jerk), times[slot] - t, (&mut d.q, &mut d.v));
            if let Err(e) =
                ws.consistent_accelerations(sys, (&d.q, &d.v, times[slot]), &mut d.a, &mut d.lambda, &mut stats)
            {
                return Err(self.along_motion_failed(times[slot], e));
            }
            for ((j, a), a0) in d.end.iter_mut().zip(&d.a).zip(&d.a0) {
                *j += w[slot - 1] * (a - a0);
            }
        }
        d.jerk.copy_from_slice(&d.end);
        if !d.jerk.iter().all(|j| j.is_finite()) {
            return Err(format!(
                "the jerk along the motion at t = {} is not finite (overflow: are the model's values in SI units?)",
                Compact(t)
            ));
        }
        Ok(())
    }

    /// Every output at the state and at the levels' points of `times` (the path with the
    /// jerk), and the derivatives from their differences (`derivatives_at`).
    fn motion_differences(&mut self, times: &[f64; POINTS]) -> Result<(), String> {
        let count = self.outputs.len();
        let MotionDerivatives {
            derivatives, q, v, a, lambda, v0, a0, lambda0, jerk, start, end, values, rates, ..
        } = &mut self.motion;
        for x in values.iter_mut().chain(rates.iter_mut()) {
            x.resize(count, f64::NAN);
        }
        derivatives.resize(count, [f64::NAN; 2]);
        let rules: Vec<(Rule, Option<OutputKind>)> = self
            .outputs
            .iter()
            .map(|o| {
                let r = rule(&o.kind);
                (r, if r == Rule::Rate { derived(&o.kind, 1) } else { None })
            })
            .collect();
        let (sys, s, ws) = (&self.system, &self.state, &mut self.stepper.workspace);
        let t = s.t;
        // The offsets as rounded: positions, velocities and time move together.
        let o: [f64; POINTS] = times.map(|tau| tau - t);
        // Every output (and the exact rate of those with one) at a point into `values[slot]`
        // (`rates[slot]`).
        let eval = |(q, v, a, lambda): (&[f64], &[f64], &[f64], &[f64]),
                    slot: usize,
                    values: &mut [Vec<f64>; POINTS],
                    rates: &mut [Vec<f64>; POINTS]| {
            let os =
                OutputState { q, v, a, lambda, t: times[slot], exchanged: s.exchanged, drive_inputs: &self.drive_ends };
            for (k, (output, (_, rate))) in self.outputs.iter().zip(&rules).enumerate() {
                values[slot][k] = output.kind.eval(sys, &os);
                if let Some(kind) = rate {
                    rates[slot][k] = kind.eval(sys, &os);
                }
            }
        };
        // The power at a point: over the strides -+`half` v and -+2 `half` v about it,
        // extrapolated (Richardson) to the instant, O(half^4).
        let half = o[4 + 2 * STRIDE_LEVEL];
        let power = |(q, v, lambda): (&[f64], &[f64], &[f64]), time: f64, start: &mut [f64], end: &mut [f64]| {
            let mut over = |half: f64| {
                for i in 0..q.len() {
                    start[i] = q[i] - half * v[i];
                    end[i] = q[i] + half * v[i];
                }
                sys.power(q, v, lambda, time, &Stride { start, end, h: 2.0 * half })
            };
            let (near, far) = (over(half), over(2.0 * half));
            (4.0 / 3.0) * near + (-1.0 / 3.0) * far
        };
        let mut powers = [EnergyFlow::default(); POINTS];
        eval((&s.q, v0, a0, lambda0), 0, values, rates);
        powers[0] = power((&s.q, v0, lambda0), t, start, end);
        let mut stats = Statistics::default();
        // The accelerations and multipliers at the points, where an output reads them (a
        // drive's power reads its multiplier).
        let drives = sys.constraints.iter().any(|c| c.drive.is_some());
        let solve = rules.iter().zip(&self.outputs).any(|((r, rate), o)| match r {
            Rule::Differences { .. } => o.kind.needs_accelerations(),
            Rule::Rate => rate.as_ref().is_some_and(OutputKind::needs_accelerations),
            Rule::Integral { .. } => drives,
            Rule::Exact | Rule::Constant => false,
        });
        a.copy_from_slice(a0);
        lambda.copy_from_slice(lambda0);
        for slot in 3..POINTS {
            taylor_point((&s.q, v0, a0, jerk), o[slot], (q, v));
            if solve {
                if let Err(e) = ws.consistent_accelerations(sys, (q, v, times[slot]), a, lambda, &mut stats) {
                    return Err(self.along_motion_failed(times[slot], e));
                }
            }
            eval((q, v, a, lambda), slot, values, rates);
            powers[slot] = power((q, v, lambda), times[slot], start, end);
        }
        for (k, (r, _)) in rules.iter().enumerate() {
            derivatives[k] = match *r {
                Rule::Exact => [f64::NAN; 2],
                Rule::Constant => [0.0; 2],
                Rule::Integral { supplied } => {
                    let p = |slot: usize| if supplied { powers[slot].supplied } else { powers[slot].dissipated };
                    [p(0), derivatives_at(&p, &o)[0]]
                }
                Rule::Rate => [f64::NAN, derivatives_at(&|slot| rates[slot][k], &o)[0]],
                Rule::Differences { wrapped } => {
                    derivatives_at(&|slot| change(values[0][k], values[slot][k], wrapped), &o)
                }
            };
        }
        Ok(())
    }
}
