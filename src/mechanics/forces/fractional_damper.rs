//! Fractional-derivative spring-damper along a kinematic measure (paper 003 eqs. 7-10):
//!   F = k (s - s0(t, u)) + c D^alpha q,   q = s - s0(t0, u0),   alpha in [0, 1],
//! with the Grünwald-Letnikov series (paper 003 eq. 9)
//!   D^alpha q(t) = h^-alpha sum_{j>=0} A_{j+1} q(t - j h),  A_1 = 1,  A_{j+1} = (j - alpha - 1)/j A_j.
//! The free length s0 is an expression of time, parameters and inputs (docs/model-file.md
//! `[[springs]]`), evaluated at the stage's time and the current inputs as a load's magnitude
//! is; it moves the spring's rest point only. The damper acts on s: q is s measured from the
//! constant `reference` s0(t0, u0), the free length at the start time with the inputs' start
//! values, so that the element was at rest before the start (the zero history below); with a
//! constant free length q = s - s0, paper 003's form. dF/du_i = -k ds0/du_i.
//!
//! The history is part of the simulation state: q is sampled at every accepted internal
//! step (`record`, through `&mut` only). At an evaluation time tau (a step point or an inner
//! stage of TTBIF, Bathe, ...) the series uses the spacing d = tau - t_last from the last
//! sample, with the past values q(tau - j d), j >= 1, interpolated linearly between samples,
//! so every stage sees a consistent Grünwald approximation whatever the step pattern. The
//! history part of the series is computed once per evaluation time of a step
//! (`Dynamics::prepare`, through `&mut` before the step; Newton iterations at one stage
//! reuse it) and directly at any other time.
//! At a sample time itself (outputs, initial accelerations) the spacing of the last step is
//! used. Before the start time q is zero (Riemann-Liouville convention of the definition).
//!
//! Cost: the series has one term per sample, so a run of n steps costs O(n^2). The
//! coefficients A_{j+1} are kept in a list grown by the same recurrence in the same order
//! (the same numbers, bit for bit) alongside the samples' storage, so a term is one
//! interpolation and one product; past the list (spacings d shorter than the sampling step
//! need more terms than there are samples) the recurrence continues from its last entry.
//! The series at a new sample's own time is carried over from the step that computed it
//! there when it cannot change (`carried_series`). docs/solver.md has the measured cost.
//!
//! At rest for all time (static analysis, `Element::at_rest`) D^alpha q of the constant q is 0
//! for alpha > 0 (its Riemann-Liouville value q (t - t0)^-alpha / Gamma(1 - alpha) as t - t0
//! grows) and q for alpha = 0: the spring term alone, or with c q.
//!
//! Energy: the spring term stores k (s - s0)²/2 with the current s0 (it changes by the work
//! the input does); with alpha = 0 the damper term is a second spring, c q²/2 (with a
//! constant free length the element is a spring of stiffness k + c); with alpha > 0 the work
//! of the c D^alpha q term is booked as dissipated (the energy a viscoelastic element stores is
//! not uniquely defined), so energy_total + energy_dissipated is conserved by construction
//! while s0 is constant.

use super::spring_damper::{add_free_length_derivative, free_length_power};
use crate::integrators::{EnergyFlow, Stride, TangentCoefficients};
use crate::mechanics::elements::{Element, Energy, Kin};
use crate::mechanics::history::{HistoryWriter, Memory, MemoryKind};
use crate::mechanics::kinematics::{Derivatives, MAX_DOFS, Measure};
use crate::model::expr::Expr;

pub use crate::mechanics::history::FractionalHistory;

/// One accepted sample of q (the times and values of a [`FractionalHistory`], side by side).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Sample {
    t: f64,
    q: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FractionalSpringDamper {
    pub measure: Measure,
    pub stiffness: f64,
    pub damping: f64,
    /// The fractional order alpha in [0, 1].
    pub order: f64,
    /// s0(t, u): the measure at which the spring term vanishes.
    pub free_length: Expr,
    /// s0(t0, u0): the value of s the damper's q is measured from.
    pub reference: f64,
    /// History older than this (s) is dropped from the series; None: the whole run.
    pub memory: Option<f64>,
    /// The accepted samples, oldest first: the element's [`FractionalHistory`].
    samples: Vec<Sample>,
    /// The Grünwald coefficients A_{j+1}, j = 0, 1, ..., of order `coefficients_order` (paper
    /// 003 eq. 10, by its recurrence), as many as the samples' storage holds: grown when that
    /// storage grows, so a step allocates no more often than the samples do.
    coefficients: Vec<f64>,
    coefficients_order: f64,
    /// (tau, (d, history part)) at the evaluation times of the step being taken: derived
    /// from the history by `prepare`, emptied whenever the history changes.
    series_at: Vec<(f64, (f64, f64))>,
    /// (tau, (d, history part)) at the times near the last sample where output derivatives
    /// evaluate the forces along the motion (`follow_motion`); empty otherwise.
    along: Vec<(f64, (f64, f64))>,
    /// Forces as at rest for all time (`Element::at_rest`): D^alpha of a constant, 0 for
    /// alpha > 0.
    at_rest: bool,
}

impl FractionalSpringDamper {
    pub fn new(
        measure: Measure,
        stiffness: f64,
        damping: f64,
        order: f64,
        free_length: Expr,
        reference: f64,
        memory: Option<f64>,
    ) -> Self {
        FractionalSpringDamper {
            measure,
            stiffness,
            damping,
            order,
            free_length,
            reference,
            memory,
            samples: Vec::new(),
            coefficients: Vec::new(),
            coefficients_order: order,
            series_at: Vec::new(),
            along: Vec::new(),
            at_rest: false,
        }
    }

    /// The measure s at q, continuous through whole turns of a periodic one (a joint angle
    /// wrapped to (-pi, pi]): taken within half a turn of the last sample. The history holds
    /// s as it went on, so a disc braked by a torsional damper on a spatial revolute joint
    /// does not see a jump of 2 pi in its history where the angle wraps (a probe's stopped
    /// with "gained 4.6e4 J" there).
    fn measure_value(&self, q: &[f64]) -> f64 {
        match self.samples.last() {
            Some(last) => self.measure.value_near(q, last.q + self.reference),
            None => self.measure.value(q),
        }
    }

    /// The damper's q = s - s0(t0, u0).
    fn displacement(&self, q: &[f64]) -> f64 {
        self.measure_value(q) - self.reference
    }

    /// Precompute the series at the evaluation times of the next step.
    /// The entries kept are the series at their times for the current history (computed by an
    /// earlier `prepare` or carried over by `record`), so they stay.
    pub fn prepare(&mut self, times: &[f64]) {
        self.series_at.retain(|(t, _)| times.iter().any(|tau| tau.to_bits() == t.to_bits()));
        if self.order == 0.0 {
            return;
        }
        for &tau in times {
            if !self.series_at.iter().any(|(t, _)| t.to_bits() == tau.to_bits()) {
                let value = self.compute_series(tau);
                self.series_at.push((tau, value));
            }
        }
    }

    /// Spacing d and history part of the series at time `tau`.
    fn series(&self, tau: f64) -> (f64, f64) {
        let at = |list: &[(f64, (f64, f64))]| list.iter().find(|(t, _)| t.to_bits() == tau.to_bits()).map(|e| e.1);
        at(&self.along).or_else(|| at(&self.series_at)).unwrap_or_else(|| self.compute_series(tau))
    }

    /// Spacing d and history part sum_{j>=1} A_{j+1} q(tau - j d) of the series at time `tau`.
    fn compute_series(&self, tau: f64) -> (f64, f64) {
        let h = &self.samples[..];
        let n = h.len();
        if n == 0 {
            return (0.0, 0.0);
        }
        let last = h[n - 1].t;
        let previous_spacing = if n > 1 { last - h[n - 2].t } else { 0.0 };
        let mut d = tau - last;
        if d <= 1e-6 * previous_spacing {
            // At (or numerically at) the last sample: the series of the last step.
            d = previous_spacing;
        }
        (d, self.history_sum(tau, d))
    }

    /// The history part sum_{j>=1} A_{j+1} q(tau - j d) of the series at time `tau` with the
    /// spacing d (0 unless d > 0).
    fn history_sum(&self, tau: f64, d: f64) -> f64 {
        let h = &self.samples[..];
        let n = h.len();
        let mut sum = 0.0;
        if n > 0 && d > 0.0 {
            let oldest = self.memory.map_or(h[0].t, |m| (tau - m).max(h[0].t));
            let end = oldest - 1e-9 * d;
            let cached: &[f64] =
                if self.coefficients_order.to_bits() == self.order.to_bits() { &self.coefficients } else { &[] };
            let mut k = n - 1;
            // j and the same integer as a float (exact below 2^53, so j as f64 bit for bit).
            let (mut j, mut jf) = (1usize, 1.0f64);
            // The terms with a kept coefficient A_{j+1} = cached[j].
            while j < cached.len() {
                let s = tau - jf * d;
                if s < end {
                    return sum;
                }
                sum += cached[j] * interpolate(h, s, &mut k);
                j += 1;
                jf += 1.0;
            }
            // Beyond: A_{j+1} by its recurrence from the last kept one (A_1 = 1).
            let mut w = cached.last().copied().unwrap_or(1.0);
            loop {
                let s = tau - jf * d;
                if s < end {
                    break;
                }
                w = next_coefficient(w, jf, self.order);
                sum += w * interpolate(h, s, &mut k);
                jf += 1.0;
            }
        }
        sum
    }

    /// Output derivatives are about to evaluate the force at `times` near the last sample's
    /// time t, along the motion from the state there (src/simulation/motion_derivatives.rs);
    /// `times` empty: every time is evaluated as in a step again. At a time tau = t + o
    /// evaluated directly the series would take the spacing o (or none before t): another
    /// Grünwald approximation, O(d) from the one at t, whose difference over a small o is no
    /// derivative, and with o tiny a series of (tau - t0)/o terms. Along the motion the
    /// spacing stays the last step's d, as at t, and the history part H(tau) = sum_{j>=1}
    /// A_{j+1} q(tau - j d) is its Taylor polynomial H(t) + o H' + o^2/2 H'' with H', H'' the
    /// central differences of H(t - d), H(t), H(t + d) (terms on the samples when they are
    /// evenly spaced, H(t + d) taking q(t) for j = 1): a smooth function of time, so that
    /// differences along the motion of any size see D^alpha q(t) change by d^-alpha q'(t) o plus
    /// the history's own change, second order in d. With fewer than two samples (the start)
    /// there is no spacing and the series is 0, as at t.
    pub fn follow_motion(&mut self, t: f64, times: &[f64]) {
        self.along.clear();
        let n = self.samples.len();
        if self.order == 0.0 || times.is_empty() || n == 0 || self.samples[n - 1].t.to_bits() != t.to_bits() {
            return;
        }
        if n == 1 {
            self.along.extend(times.iter().map(|&tau| (tau, (0.0, 0.0))));
            return;
        }
        let d = t - self.samples[n - 2].t;
        let [before, at, after] = [t - d, t, t + d].map(|tau| self.history_sum(tau, d));
        let (rate, curvature) = ((after - before) / (2.0 * d), (after - 2.0 * at + before) / (d * d));
        for &tau in times {
            let o = tau - t;
            self.along.push((tau, (d, at + o * rate + 0.5 * o * o * curvature)));
        }
    }

    /// Extend the coefficients A_{j+1} by their recurrence to the samples' capacity (or
    /// restart them if the order changed).
    fn grow_coefficients(&mut self) {
        if self.order == 0.0 {
            return;
        }
        if self.coefficients_order.to_bits() != self.order.to_bits() {
            self.coefficients.clear();
            self.coefficients_order = self.order;
        }
        let target = self.samples.capacity();
        let c = &mut self.coefficients;
        if c.len() >= target {
            return;
        }
        c.reserve_exact(target - c.len());
        if c.is_empty() {
            c.push(1.0);
        }
        let mut w = c[c.len() - 1];
        for j in c.len()..target {
            w = next_coefficient(w, j as f64, self.order);
            c.push(w);
        }
    }

    /// D^alpha q at time `tau` with current value q, and its slope dD/dq.
    fn derivative(&self, q: f64, tau: f64) -> (f64, f64) {
        if self.order == 0.0 {
            return (q, 1.0);
        }
        if self.at_rest {
            return (0.0, 0.0);
        }
        let (d, sum) = self.series(tau);
        if d <= 0.0 {
            return (0.0, 0.0);
        }
        let scale = d.powf(-self.order);
        (scale * (q + sum), scale)
    }

    /// Record q at an accepted time.
    pub fn record(&mut self, q: &[f64], t: f64) {
        let value = self.displacement(q);
        let carried = self.carried_series(t);
        let h = &mut self.samples;
        // A repeated or earlier time (restart at the same point) replaces samples.
        while h.last().is_some_and(|last| t <= last.t) {
            h.pop();
        }
        h.push(Sample { t, q: value });
        self.series_at.clear();
        if let Some(span) = self.memory {
            // Keep one sample older than the span, for interpolation.
            let cut = h.partition_point(|s| s.t < t - span);
            if cut > 1 {
                h.drain(..cut - 1);
            }
        }
        self.grow_coefficients();
        if let Some(value) = carried {
            self.series_at.push((t, value));
        }
    }

    /// The series at the time t of a sample about to be recorded, if the step that reached t
    /// computed it there (`prepare`) and it stays the same with the sample: the spacing is the
    /// one back to the previous sample, which is the new sample's spacing at its own time,
    /// and every term lies at or before the previous sample, so the new one enters no term
    /// (nor any interpolation) and the sum is the same, bit for bit. Not with a memory span
    /// (recording drops old samples).
    fn carried_series(&self, t: f64) -> Option<(f64, f64)> {
        if self.memory.is_some() {
            return None;
        }
        let previous = self.samples.last()?.t;
        if t <= previous {
            return None;
        }
        let &(_, (d, sum)) = self.series_at.iter().find(|(tau, _)| tau.to_bits() == t.to_bits())?;
        (d.to_bits() == (t - previous).to_bits() && t - d <= previous).then_some((d, sum))
    }

    pub fn history(&self) -> FractionalHistory {
        let mut h = FractionalHistory::default();
        self.history_into(&mut h);
        h
    }

    /// The samples into `h`'s lists (reusing their storage).
    fn history_into(&self, h: &mut FractionalHistory) {
        h.t.clear();
        h.t.extend(self.samples.iter().map(|s| s.t));
        h.q.clear();
        h.q.extend(self.samples.iter().map(|s| s.q));
    }

    pub fn set_history(&mut self, history: FractionalHistory) {
        self.samples.clear();
        self.samples.extend(history.t.iter().zip(&history.q).map(|(&t, &q)| Sample { t, q }));
        self.series_at.clear();
        self.grow_coefficients();
    }

    /// Force along the measure at `x`: (F, fractional term c D^alpha q, dF/ds).
    pub fn force(&self, x: &Kin) -> (f64, f64, f64) {
        let s = self.measure_value(x.q);
        let q = s - self.reference;
        let (derivative, slope) = self.derivative(q, x.t);
        let fractional = self.damping * derivative;
        let spring = self.stiffness * (s - self.free_length.eval_interpolated(x.t, x.inputs, x.rates));
        (spring + fractional, fractional, self.stiffness + self.damping * slope)
    }
}

impl Element for FractionalSpringDamper {
    fn dofs(&self) -> &[usize] {
        self.measure.dofs()
    }

    fn add_forces(&self, x: &Kin, _inertial: &mut [f64], forces: &mut [f64]) {
        let d = self.measure.gradient(x.q);
        let (f, _, _) = self.force(x);
        for (k, &i) in self.measure.dofs().iter().enumerate() {
            forces[i] += f * d.gradient[k];
        }
    }

    fn add_tangent(&self, x: &Kin, c: &TangentCoefficients, block: &mut [f64]) {
        let d: Derivatives = self.measure.derivatives(x.q);
        let (f, _, slope) = self.force(x);
        let n = self.measure.dofs().len();
        debug_assert!(n <= MAX_DOFS);
        for a in 0..n {
            for b in 0..n {
                block[a * n + b] += c.stiffness * (slope * d.gradient[a] * d.gradient[b] + f * d.hessian[a * n + b]);
            }
        }
    }

    fn energy(&self, x: &Kin) -> Energy {
        let s = self.measure_value(x.q);
        let stretch = s - self.free_length.eval_interpolated(x.t, x.inputs, x.rates);
        let mut potential = 0.5 * self.stiffness * stretch * stretch;
        if self.order == 0.0 {
            let q = s - self.reference;
            potential += 0.5 * self.damping * q * q;
        }
        Energy { kinetic: 0.0, potential }
    }

    const NON_CONSERVATIVE: bool = true;
    const MEMORY: Option<MemoryKind> = Some(MemoryKind::Fractional);

    fn prepare(&mut self, times: &[f64]) {
        FractionalSpringDamper::prepare(self, times);
    }

    fn follow_motion(&mut self, t: f64, times: &[f64]) {
        FractionalSpringDamper::follow_motion(self, t, times);
    }

    fn at_rest(&mut self, on: bool) {
        self.at_rest = on;
    }

    fn record(&mut self, q: &[f64], _v: &[f64], t: f64) {
        FractionalSpringDamper::record(self, q, t);
    }

    fn memory(&self) -> Option<Memory> {
        Some(Memory::Fractional(self.history()))
    }

    fn save_memory(&self, w: &mut HistoryWriter) {
        self.history_into(w.fractional_entry());
    }

    fn set_memory(&mut self, m: Memory) {
        if let Memory::Fractional(h) = m {
            self.set_history(h);
        }
    }

    fn power(&self, x: &Kin, stride: &Stride) -> EnergyFlow {
        let supplied = free_length_power(&self.measure, self.stiffness, &self.free_length, x);
        if self.order == 0.0 {
            return EnergyFlow { dissipated: 0.0, supplied };
        }
        let (_, fractional, _) = self.force(x);
        EnergyFlow { dissipated: fractional * self.measure.stride_rate(stride), supplied }
    }

    fn inputs_read(&self, out: &mut Vec<usize>) {
        self.free_length.inputs_read(out);
    }

    fn add_input_derivative(&self, x: &Kin, i: usize, forces: &mut [f64]) {
        // The damper acts on q = s - s0(t0, u0), which does not read the inputs.
        add_free_length_derivative(&self.measure, self.stiffness, &self.free_length, x, i, forces);
    }
}

/// The Grünwald coefficient A_{j+1} from A_j (paper 003 eq. 10): A_{j+1} = (j - alpha - 1)/j A_j.
fn next_coefficient(a_j: f64, j: f64, order: f64) -> f64 {
    a_j * (j - order - 1.0) / j
}

/// q at time s by linear interpolation between the samples, searching backwards from sample
/// index `k`.
fn interpolate(h: &[Sample], s: f64, k: &mut usize) -> f64 {
    while *k > 0 && h[*k].t > s {
        *k -= 1;
    }
    if *k + 1 < h.len() && h[*k].t < s {
        let (a, b) = (h[*k], h[*k + 1]);
        a.q + (b.q - a.q) * (s - a.t) / (b.t - a.t)
    } else {
        h[*k].q
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::kinematics::{Anchor, MeasureKind};

    fn element(order: f64) -> FractionalSpringDamper {
        let m = Measure::new(
            Anchor::Ground { p: [0.0, 0.0] },
            Anchor::Point { x: 0 },
            MeasureKind::Projection { u: [1.0, 0.0], rotating: false },
        );
        FractionalSpringDamper::new(m, 0.0, 1.0, order, Expr::Num(0.0), 0.0, None)
    }

    #[test]
    fn grunwald_series_of_a_ramp_matches_the_closed_form() {
        // D^alpha t = t^(1-alpha) / Gamma(2 - alpha); for alpha = 1/2, Gamma(3/2) = sqrt(pi)/2.
        let mut e = element(0.5);
        let h = 1e-4;
        for k in 0..=10000 {
            let t = k as f64 * h;
            e.record(&[t, 0.0], t);
        }
        let t = 1.0 + h;
        let (d, _) = e.derivative(t, t);
        let exact = t.sqrt() / (std::f64::consts::PI.sqrt() / 2.0);
        assert!((d / exact - 1.0).abs() < 1e-3, "{d} vs {exact}");
        // An inner stage at a third of a step sees the same function.
        let tau = 1.0 + h / 3.0;
        let (d, _) = e.derivative(tau, tau);
        let exact = tau.sqrt() / (std::f64::consts::PI.sqrt() / 2.0);
        assert!((d / exact - 1.0).abs() < 1e-3, "{d} vs {exact}");
    }

    #[test]
    fn order_one_is_the_backward_difference_and_zero_the_identity() {
        let mut e = element(1.0);
        e.record(&[0.3, 0.0], 0.0);
        assert!((e.derivative(0.5, 0.1).0 - (0.5 - 0.3) / 0.1).abs() < 1e-12);
        assert!((e.derivative(0.5, 0.05).0 - (0.5 - 0.3) / 0.05).abs() < 1e-12);
        let mut e = element(0.0);
        e.record(&[0.3, 0.0], 0.0);
        assert_eq!(e.derivative(0.5, 0.1).0, 0.5);
    }

    /// The element after samples of q = sin(7 t) at t = k h, k = 0..n (times as the stepper
    /// makes them, accumulated sums, so not exactly on a grid).
    fn sampled(order: f64, n: usize, h: f64) -> (FractionalSpringDamper, f64) {
        let mut e = element(order);
        let mut t = 0.0f64;
        for _ in 0..n {
            e.record(&[(7.0 * t).sin(), 0.0], t);
            t += h;
        }
        (e, t - h)
    }

    #[test]
    fn kept_coefficients_give_the_recurrences_bits() {
        // The same series with the coefficients by the recurrence alone (no kept list): the
        // same numbers bit for bit, at a sample, a step ahead and at inner stages whose spacing
        // needs up to three times as many terms as there are samples (past the list).
        let (e, last) = sampled(0.37, 1000, 1e-3);
        assert!(e.coefficients.len() >= 1000);
        let mut bare = e.clone();
        bare.coefficients.clear();
        for tau in [last, last + 1e-3, last + 1e-3 / 3.0, last + 0.5e-3] {
            let (d, sum) = e.compute_series(tau);
            let (d0, sum0) = bare.compute_series(tau);
            assert_eq!((d.to_bits(), sum.to_bits()), (d0.to_bits(), sum0.to_bits()), "at {tau}");
            assert!(sum != 0.0);
        }
    }

    #[test]
    fn the_series_carried_to_a_new_sample_is_the_one_summed_there() {
        let h = 1e-3;
        let (mut e, last) = sampled(0.5, 500, h);
        let next = last + h;
        e.prepare(&[last, next]);
        e.record(&[(7.0 * next).sin(), 0.0], next);
        let carried = e.series_at.iter().find(|(t, _)| t.to_bits() == next.to_bits()).map(|&(_, v)| v);
        let (d, sum) = carried.expect("carried over");
        let (d0, sum0) = e.compute_series(next);
        assert_eq!((d.to_bits(), sum.to_bits()), (d0.to_bits(), sum0.to_bits()));
        // Not with a memory span: recording drops old samples.
        let mut f = FractionalSpringDamper::new(e.measure.clone(), 0.0, 1.0, 0.5, Expr::Num(0.0), 0.0, Some(0.1));
        f.set_history(e.history());
        f.prepare(&[next, next + h]);
        f.record(&[0.0, 0.0], next + h);
        assert!(f.series_at.is_empty());
    }

    #[test]
    fn history_round_trips_through_save_and_load() {
        let mut e = element(0.7);
        for k in 0..5 {
            e.record(&[k as f64 * 0.1, 0.0], k as f64 * 0.01);
        }
        let saved = e.history().clone();
        let mut f = element(0.7);
        f.set_history(saved);
        assert_eq!(e.history().t, f.history().t);
        assert_eq!(e.derivative(0.5, 0.05).0.to_bits(), f.derivative(0.5, 0.05).0.to_bits());
    }
}
