//! TTBIF: the optimized three-sub-step composite method of paper 000 (section 2).
//!
//! Sub-steps 1 and 2 are trapezoidal over gamma*dt (eqs. 21-22); sub-step 3 is the
//! four-point backward formula over the whole step (eq. 23). Parameters follow eqs. 24-30;
//! gamma is the exact optimum gamma* (the root of theta3(gamma) = gamma/2 in [0.30, 0.40]),
//! of which the printed polynomial eq. 31 is a fit. With gamma* all three sub-steps have
//! the same Newton-matrix coefficients, so one factorization serves the whole step.

use super::integrator::TimeIntegrator;
use super::newton::{Iterate, NewtonError, StepContext};
use super::predictor::Known;
use super::stages::{BackwardFormula, StepBuffers, trapezoidal_substep, work_along};
use super::{Method, State};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TtbifParameters {
    pub gamma: f64,
    /// theta0..theta3 of eq. 23.
    pub theta: [f64; 4],
}

impl TtbifParameters {
    /// Parameters for spectral radius at infinity `rho_inf` in [0, 1], with the optimal gamma*.
    pub fn new(rho_inf: f64) -> Self {
        Self::with_gamma(rho_inf, optimal_gamma(rho_inf))
    }

    /// Eqs. 24-30 for a given gamma ("+" branch of the square root in theta0).
    pub fn with_gamma(rho_inf: f64, gamma: f64) -> Self {
        let (r, g) = (rho_inf, gamma);
        let c1 = -2.0 + 5.0 * g - 3.0 * g * g - r * g + r * g * g; // eq. 28
        let c2 = (2.0 + 2.0 * g - 11.0 * g * g + 3.0 * g.powi(3)) // eq. 29
            + 2.0 * r * (1.0 - 3.0 * g + 3.0 * g * g + g.powi(3))
            + g * g * r * r * (1.0 - g);
        let c3 = 8.0 * (2.0 - 4.0 * g + g * g + r * g * g); // eq. 30
        let theta0 = (4.0 * c2 + c1 * (2.0 * (r + 1.0) * c3).sqrt()) / (4.0 * c3); // eq. 27
        let theta3 = (4.0 * g * theta0 - 3.0 * g + 1.0) / (r * g - 3.0 * g + 2.0); // eq. 24
        let theta2 = (2.0 * g * (theta0 + theta3 - 1.0) - 2.0 * theta3 + 1.0) / (2.0 * g); // eq. 25
        let theta1 = (4.0 * g * (1.0 - theta0 - theta3) + 2.0 * theta3 - 1.0) / (2.0 * g); // eq. 26
        TtbifParameters { gamma, theta: [theta0, theta1, theta2, theta3] }
    }

    /// The printed fit of paper 000 eq. 31 (kept for comparison in tests).
    pub fn printed_gamma(rho_inf: f64) -> f64 {
        let r = rho_inf;
        -32.0 / 41297.0 * r.powi(5) + 19.0 / 5493.0 * r.powi(4) - 155.0 / 19434.0 * r.powi(3) + 502.0 / 32711.0 * r * r
            - 1022.0 / 27201.0 * r
            + 577.0 / 1599.0
    }
}

/// gamma* with theta3(gamma*) = gamma*/2, by bisection on [0.30, 0.40] to machine precision.
pub fn optimal_gamma(rho_inf: f64) -> f64 {
    let f = |g: f64| TtbifParameters::with_gamma(rho_inf, g).theta[3] - g / 2.0;
    let (mut lo, mut hi) = (0.30, 0.40);
    let mut flo = f(lo);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        let fm = f(mid);
        if (fm < 0.0) == (flo < 0.0) {
            lo = mid;
            flo = fm;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

impl TimeIntegrator for TtbifParameters {
    fn name() -> &'static str {
        "ttbif"
    }

    fn rho_inf_range() -> (f64, f64) {
        (0.0, 1.0)
    }

    fn from_rho_inf(rho_inf: f64) -> Self {
        Self::new(rho_inf)
    }

    fn method(&self) -> Method {
        Method::Ttbif
    }

    fn evaluation_times(&self, t: f64, h: f64) -> [f64; 4] {
        let gh = self.gamma * h;
        [t, t + gh, t + 2.0 * gh, t + h]
    }

    fn step(
        &self,
        cx: &mut StepContext,
        b: &mut StepBuffers,
        s: &State,
        h: f64,
        out: &mut State,
    ) -> Result<(), NewtonError> {
        let gh = self.gamma * h;
        let [t0, t1, t2, t3] = self.theta;

        // Sub-steps 1 and 2: trapezoidal rule over gamma*h (eqs. 21, 22). Newton starts each
        // sub-step from the extrapolation of the latest stage values corrected by the last
        // step's error at the same sub-step (`StepContext::predict_stage`).
        let start: Known = (0.0, &s.a, &s.lambda);
        cx.predict_stage(0, gh, &[start], (&mut b.s1.a, &mut b.s1.lambda), &mut b.memory);
        if let Some((a, lambda)) = b.memory.line(0) {
            cx.set_fallback(a, lambda);
        }
        let bases = (&mut b.q_base[..], &mut b.v_base[..]);
        trapezoidal_substep(cx, (&s.q, &s.v, &s.a), (s.t + gh, gh), bases, b.s1.iterate())?;
        b.memory.finish_error(0, &b.s1.a, &b.s1.lambda);

        let known = [start, (gh, &b.s1.a[..], &b.s1.lambda[..])];
        cx.predict_stage(1, 2.0 * gh, &known, (&mut b.s2.a, &mut b.s2.lambda), &mut b.memory);
        if let Some((a, lambda)) = b.memory.line(1) {
            cx.set_fallback(a, lambda);
        }
        let bases = (&mut b.q_base[..], &mut b.v_base[..]);
        trapezoidal_substep(cx, b.s1.kinematics(), (s.t + 2.0 * gh, gh), bases, b.s2.iterate())?;
        b.memory.finish_error(1, &b.s2.a, &b.s2.lambda);

        // Sub-step 3: four-point backward formula over h (eq. 23).
        let known = [start, (gh, &b.s1.a[..], &b.s1.lambda[..]), (2.0 * gh, &b.s2.a[..], &b.s2.lambda[..])];
        cx.predict_stage(2, h, &known, (&mut out.a, &mut out.lambda), &mut b.memory);
        if let Some((a, lambda)) = b.memory.line(2) {
            cx.set_fallback(a, lambda);
        }
        let formula = BackwardFormula { weights: [t0, t1, t2], last: t3 };
        let points = [(&s.v[..], &s.a[..]), (&b.s1.v[..], &b.s1.a[..]), (&b.s2.v[..], &b.s2.a[..])];
        let bases = (&mut b.q_base[..], &mut b.v_base[..]);
        formula.substep(cx, (s.t + h, h), (&s.q, points), bases, Iterate::of_state(out))?;
        b.memory.finish_error(2, &out.a, &out.lambda);
        // Dissipated and supplied energy: the work along the step of the forces averaged with
        // the weights of eq. 23 (`work_along`).
        let points = [
            (&s.q[..], &s.v[..], &s.lambda[..], s.t),
            (&b.s1.q[..], &b.s1.v[..], &b.s1.lambda[..], s.t + gh),
            (&b.s2.q[..], &b.s2.v[..], &b.s2.lambda[..], s.t + 2.0 * gh),
            (&out.q[..], &out.v[..], &out.lambda[..], s.t + h),
        ];
        out.exchanged = s.exchanged + work_along(cx, h, points, [t0, t1, t2, t3]);
        out.t = s.t + h;
        out.aux.copy_from_slice(&out.a);
        b.memory.push_value(0.0, &s.a, &s.lambda);
        b.memory.push_value(gh, &b.s1.a, &b.s1.lambda);
        b.memory.push_value(2.0 * gh, &b.s2.a, &b.s2.lambda);
        Ok(())
    }
}
