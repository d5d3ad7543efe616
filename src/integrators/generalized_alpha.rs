//! Generalized-alpha (Chung & Hulbert 1993) in the form of Arnold & Brüls (2007) for
//! constrained systems: equilibrium holds exactly at t_{n+1}; the pseudo-acceleration p
//! (the method's own "acceleration" variable, kept in `State::aux`) carries the alpha weights:
//!   (1 - alpha_m) p_{n+1} + alpha_m p_n = (1 - alpha_f) a_{n+1} + alpha_f a_n,
//!   q_{n+1} = q_n + h v_n + h^2 (1/2 - beta) p_n + h^2 beta p_{n+1},
//!   v_{n+1} = v_n + h (1 - gamma) p_n + h gamma p_{n+1}.

use super::integrator::TimeIntegrator;
use super::newton::{Iterate, NewtonError, Stage, StepContext};
use super::stages::{StepBuffers, work_along};
use super::{Method, State};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeneralizedAlphaParameters {
    pub alpha_m: f64,
    pub alpha_f: f64,
    pub beta: f64,
    pub gamma: f64,
}

impl GeneralizedAlphaParameters {
    /// Chung-Hulbert optimal parameters for rho_inf in [0, 1].
    pub fn new(rho_inf: f64) -> Self {
        let alpha_m = (2.0 * rho_inf - 1.0) / (rho_inf + 1.0);
        let alpha_f = rho_inf / (rho_inf + 1.0);
        let gamma = 0.5 + alpha_f - alpha_m;
        GeneralizedAlphaParameters { alpha_m, alpha_f, beta: 0.25 * (gamma + 0.5).powi(2), gamma }
    }
}

impl TimeIntegrator for GeneralizedAlphaParameters {
    fn name() -> &'static str {
        "generalized-alpha"
    }

    fn rho_inf_range() -> (f64, f64) {
        (0.0, 1.0)
    }

    fn from_rho_inf(rho_inf: f64) -> Self {
        Self::new(rho_inf)
    }

    fn method(&self) -> Method {
        Method::GeneralizedAlpha
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
        let GeneralizedAlphaParameters { alpha_m, alpha_f, beta, gamma } = *self;
        // p_{n+1} = c a_{n+1} + d with c = (1-alpha_f)/(1-alpha_m).
        let c = (1.0 - alpha_f) / (1.0 - alpha_m);
        for i in 0..n {
            let d = (alpha_f * s.a[i] - alpha_m * s.aux[i]) / (1.0 - alpha_m);
            b.q_base[i] = s.q[i] + h * s.v[i] + h * h * ((0.5 - beta) * s.aux[i] + beta * d);
            b.v_base[i] = s.v[i] + h * ((1.0 - gamma) * s.aux[i] + gamma * d);
        }
        cx.predict((&s.a, &s.lambda), h, (&mut out.a, &mut out.lambda));
        let stage = Stage::new(s.t + h, &b.q_base, &b.v_base, beta * h * h * c, gamma * h * c);
        cx.solve(&stage, Iterate::of_state(out))?;
        for i in 0..n {
            out.aux[i] = c * out.a[i] + (alpha_f * s.a[i] - alpha_m * s.aux[i]) / (1.0 - alpha_m);
        }
        // The work of the mean of the end forces along the step (`work_along`).
        let points = [(&s.q[..], &s.v[..], &s.lambda[..], s.t), (&out.q[..], &out.v[..], &out.lambda[..], s.t + h)];
        out.exchanged = s.exchanged + work_along(cx, h, points, [0.5, 0.5]);
        out.t = s.t + h;
        Ok(())
    }
}
