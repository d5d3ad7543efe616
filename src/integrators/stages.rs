//! Stage code shared by the methods: the step's scratch vectors, the trapezoidal sub-step of
//! the composite methods (TTBIF, Bathe), their multi-point backward sub-step, the linear
//! extrapolation that starts Newton, and the dissipated energy by a method's own quadrature.
//!
//! Every implicit stage has the shape the Newton solver expects (src/integrators/newton.rs):
//! v = v_base + gamma' a, q = q_base + beta' a.

use super::State;
use super::dynamics::{EnergyFlow, StepPoint, Stride};
use super::newton::{Iterate, NewtonError, Stage, StepContext};
use super::predictor::StageMemory;

/// Position, velocity, acceleration and multipliers at the end of an intermediate sub-step.
pub struct StagePoint {
    pub q: Vec<f64>,
    pub v: Vec<f64>,
    pub a: Vec<f64>,
    pub lambda: Vec<f64>,
}

impl StagePoint {
    fn zeros(n: usize, m: usize) -> Self {
        StagePoint { q: vec![0.0; n], v: vec![0.0; n], a: vec![0.0; n], lambda: vec![0.0; m] }
    }

    /// The point as the unknowns of a stage solve.
    pub fn iterate(&mut self) -> Iterate<'_> {
        Iterate { a: &mut self.a, lambda: &mut self.lambda, q: &mut self.q, v: &mut self.v }
    }

    /// (q, v, a), the start of a following sub-step.
    pub fn kinematics(&self) -> (&[f64], &[f64], &[f64]) {
        (&self.q, &self.v, &self.a)
    }
}

impl<'a> Iterate<'a> {
    /// The state's (a, lambda, q, v) as the unknowns of a stage solve.
    pub fn of_state(s: &'a mut State) -> Self {
        Iterate { a: &mut s.a, lambda: &mut s.lambda, q: &mut s.q, v: &mut s.v }
    }
}

/// Scratch vectors of one step (allocated once): the bases of the current stage and the
/// points of up to two intermediate sub-steps.
pub struct StepBuffers {
    pub q_base: Vec<f64>,
    pub v_base: Vec<f64>,
    pub s1: StagePoint,
    pub s2: StagePoint,
    /// What the method keeps of this step for the next step's predictor.
    pub memory: StageMemory,
}

impl StepBuffers {
    pub fn new(n: usize, m: usize) -> Self {
        StepBuffers {
            q_base: vec![0.0; n],
            v_base: vec![0.0; n],
            s1: StagePoint::zeros(n, m),
            s2: StagePoint::zeros(n, m),
            memory: StageMemory::new(n, m),
        }
    }
}

/// The trapezoidal rule over dt from (q, v, a) to the stage end at time t (the first sub-step
/// of the composite methods: Ji et al. 2025 eqs. 21-22; Bathe & Baig 2005):
///   v_1 = v + dt/2 (a + a_1),   q_1 = q + dt v + dt^2/4 (a + a_1),
/// i.e. v_base = v + dt/2 a, q_base = q + dt v + dt^2/4 a, gamma' = dt/2, beta' = dt^2/4.
/// `x` holds Newton's starting values on entry and the sub-step's end on success.
pub fn trapezoidal_substep(
    cx: &mut StepContext,
    (q, v, a): (&[f64], &[f64], &[f64]),
    (t, dt): (f64, f64),
    (q_base, v_base): (&mut [f64], &mut [f64]),
    x: Iterate,
) -> Result<(), NewtonError> {
    for i in 0..q.len() {
        v_base[i] = v[i] + 0.5 * dt * a[i];
        q_base[i] = q[i] + dt * v[i] + 0.25 * dt * dt * a[i];
    }
    cx.solve(&Stage::new(t, q_base, v_base, 0.25 * dt * dt, 0.5 * dt), x)
}

/// A point's (v, a).
pub type VelocityAcceleration<'a> = (&'a [f64], &'a [f64]);

/// A multi-point backward formula over the whole step h (TTBIF's sub-step 3, Ji et al. 2025
/// eq. 23; the rho_inf-Bathe sub-step 2, Noh & Bathe 2019 eqs. 6-7):
///   v_end = v_0 + h (w_0 a_0 + ... + w_{K-1} a_{K-1} + last a_end),
///   q_end = q_0 + h (w_0 v_0 + ... + w_{K-1} v_{K-1} + last v_end),
/// with the start (k = 0) and the earlier sub-steps' ends as the points k.
/// So v_base = v_0 + h sum w_k a_k, q_base = q_0 + h sum w_k v_k + last h v_base and
/// gamma' = last h, beta' = (last h)^2.
pub struct BackwardFormula<const K: usize> {
    pub weights: [f64; K],
    pub last: f64,
}

impl<const K: usize> BackwardFormula<K> {
    /// Solve the backward sub-step to time t from `start` = q_0 and the points (v_k, a_k);
    /// `x` holds Newton's starting values on entry and the step's end on success.
    pub fn substep(
        &self,
        cx: &mut StepContext,
        (t, h): (f64, f64),
        (q0, points): (&[f64], [VelocityAcceleration; K]),
        (q_base, v_base): (&mut [f64], &mut [f64]),
        x: Iterate,
    ) -> Result<(), NewtonError> {
        let w = &self.weights;
        let v0 = points[0].0;
        for i in 0..q0.len() {
            let (mut sv, mut sa) = (w[0] * points[0].0[i], w[0] * points[0].1[i]);
            for k in 1..K {
                sv += w[k] * points[k].0[i];
                sa += w[k] * points[k].1[i];
            }
            v_base[i] = v0[i] + h * sa;
            q_base[i] = q0[i] + h * sv + self.last * h * v_base[i];
        }
        let th = self.last * h;
        cx.solve(&Stage::new(t, q_base, v_base, th * th, th), x)
    }
}

/// Newton's starting values by linear extrapolation through two earlier values x_0, x_1:
/// out = x_1 + c (x_1 - x_0) (c = the ratio of the time spans).
pub fn extrapolate(c: f64, x0: &[f64], x1: &[f64], out: &mut [f64]) {
    for ((o, p), x) in out.iter_mut().zip(x0).zip(x1) {
        *o = c * (x - p) + *x;
    }
}

/// The energy dissipated and supplied over a step of size h through the `points` (its start,
/// the sub-step ends, its end): the work of the non-conservative forces along the step's own
/// motion, the forces averaged with the method's quadrature weights on the points (they sum
/// to 1), h sum_k w_k P_k, with P_k the power at point k over the step (`Dynamics::power`:
/// the force at the point times the mean rate over the step of the deformation it works on).
/// For a viscous damper on a linear system this is (d_end - d_0) . c sum_k w_k d'_k; for the
/// trapezoidal rule it is exactly what the step removes, E_1 - E_0 = -(q_1 - q_0) . C (v_0 +
/// v_1)/2. Second order like a quadrature of the powers at the points, which would also
/// count the damping of motions the step does not resolve, whose stage velocities alternate
/// while the deformation barely moves: a damped 3D cantilever under step loads, at the
/// default step, counted 1.35 times the energy its motion lost (now 0.98; tests/suite/
/// beam_damping.rs). The time-rate parts (drives, moving free lengths) are that quadrature.
pub fn work_along<const K: usize>(cx: &StepContext, h: f64, points: [StepPoint; K], weights: [f64; K]) -> EnergyFlow {
    let stride = Stride { start: points[0].0, end: points[K - 1].0, h };
    h * points.into_iter().zip(weights).fold(EnergyFlow::default(), |s, (p, w)| s + w * cx.power(p, &stride))
}
