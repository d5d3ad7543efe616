//! HHT-alpha in the index-3 form of Negrut, Rampalli, Ottarsson, Sajdak (2007); Newmark's
//! average-acceleration method is the special case alpha = 0.
//!
//!   M a_{n+1} + (1 + alpha) (g + Phi_q^T lambda)_{n+1} - alpha (g + Phi_q^T lambda)_n = 0,
//!   Phi(q_{n+1}) = 0,
//! with Newmark's formulas, beta = (1 - alpha)^2 / 4, gamma = 1/2 - alpha, alpha in [-1/3, 0]
//! and rho_inf = (1 + alpha) / (1 - alpha).

use super::constraints::ConstraintTreatment;
use super::integrator::TimeIntegrator;
use super::newton::{Iterate, NewtonError, Stage, StepContext};
use super::stages::{StepBuffers, trapezoidal_dissipation};
use super::{Method, State};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HhtParameters {
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
}

impl HhtParameters {
    /// rho_inf in [0.5, 1] (alpha in [-1/3, 0]).
    pub fn new(rho_inf: f64) -> Self {
        let alpha = (rho_inf - 1.0) / (rho_inf + 1.0);
        HhtParameters { alpha, beta: 0.25 * (1.0 - alpha).powi(2), gamma: 0.5 - alpha }
    }
}

impl TimeIntegrator for HhtParameters {
    fn name() -> &'static str {
        "hht"
    }

    /// alpha in [-1/3, 0].
    fn rho_inf_range() -> (f64, f64) {
        (0.5, 1.0)
    }

    fn from_rho_inf(rho_inf: f64) -> Self {
        Self::new(rho_inf)
    }

    fn method(&self) -> Method {
        Method::Hht
    }

    fn evaluation_times(&self, t: f64, h: f64) -> [f64; 4] {
        [t, t + h, t + h, t + h]
    }

    fn step(
        &self,
        cx: &mut StepContext,
        b: &mut StepBuffers,
        s: &State,
        h: f64,
        out: &mut State,
    ) -> Result<(), NewtonError> {
        let n = s.q.len();
        let HhtParameters { alpha, beta, gamma } = *self;
        // -alpha (g + Phi_q^T lambda)_n, evaluated from the stored state (into the scratch
        // vectors of the first sub-step point: M a_n, unused, and g_n).
        let (inertial, extra) = (&mut b.s1.q, &mut b.s1.v);
        if alpha != 0.0 {
            cx.sys.forces(&s.q, &s.v, &s.a, s.t, inertial, extra);
            cx.sys.add_constraint_forces(&s.q, &s.lambda, extra);
            for x in extra.iter_mut() {
                *x *= -alpha;
            }
        }
        for i in 0..n {
            b.q_base[i] = s.q[i] + h * s.v[i] + h * h * (0.5 - beta) * s.a[i];
            b.v_base[i] = s.v[i] + h * (1.0 - gamma) * s.a[i];
        }
        cx.predict((&s.a, &s.lambda), h, (&mut out.a, &mut out.lambda));
        // Baumgarte's acceleration-level row holds for a~_{n+1} = (a_{n+1} + alpha a~_n) / (1 + alpha)
        // (kept in `aux`): HHT applied to the index-1 ODE a~ = f(q, v) (M constant; with the row on
        // a_{n+1} itself the rigid pendulum converged at first order, tests/suite/constraint_treatments.rs).
        let tilde = cx.settings.constraints == ConstraintTreatment::Baumgarte && alpha != 0.0;
        let shifted = &mut b.s2.a;
        if tilde {
            for (x, aux) in shifted.iter_mut().zip(&s.aux) {
                *x = alpha / (1.0 + alpha) * aux;
            }
        }
        let stage = Stage {
            force_weight: 1.0 + alpha,
            extra: (alpha != 0.0).then_some(&extra[..]),
            constraint_acceleration: tilde.then_some((1.0 / (1.0 + alpha), &shifted[..])),
            ..Stage::new(s.t + h, &b.q_base, &b.v_base, beta * h * h, gamma * h)
        };
        let power0 = cx.dissipation_power(&s.q, &s.v, s.t);
        cx.solve(&stage, Iterate::of_state(out))?;
        let power1 = cx.dissipation_power(&out.q, &out.v, s.t + h);
        // Dissipated energy by the trapezoidal rule (second order). Newmark's velocity weights
        // (1 - gamma, gamma) are only first order as a quadrature for gamma != 1/2 (HHT reaches
        // second order through the alpha-shifted equilibrium, not through them): their global
        // error telescopes to h (gamma - 1/2) (P(t) - P(0)), 2.4e-5 J on the crank-slider at
        // h = 1e-4 (tests/suite/crank_slider.rs).
        out.dissipated = s.dissipated + trapezoidal_dissipation(h, power0, power1);
        out.t = s.t + h;
        if tilde {
            for ((aux, a), x) in out.aux.iter_mut().zip(&out.a).zip(shifted.iter()) {
                *aux = a / (1.0 + alpha) + x;
            }
        } else {
            out.aux.copy_from_slice(&out.a);
        }
        Ok(())
    }
}
