//! HHT-alpha (Hilber, Hughes & Taylor 1977) for the index-3 equations of motion: Newmark's
//! formulas with beta = (1 - alpha)^2 / 4, gamma = 1/2 - alpha, alpha in [-1/3, 0],
//! rho_inf = (1 + alpha) / (1 - alpha); Newmark's average-acceleration method is alpha = 0.
//!
//! Guo, Zhang & Chen (2017, eqs. 15-16) and Negrut et al. (2007) write it as
//!   M a_{n+1} + (1 + alpha) (g + Phi_q^T lambda)_{n+1} - alpha (g + Phi_q^T lambda)_n = 0,
//! which for a constant M is generalized-alpha with alpha_m = 0, alpha_f = -alpha (Chung &
//! Hulbert 1993). With a configuration-dependent M(q) that form is only first-order accurate:
//! a_{n+1} stands for the acceleration at t_{n+1+alpha}, where the forces are shifted, but
//! M(q_{n+1}) multiplies it. A free body spinning at 150 rad/s about its symmetry axis (Euler
//! parameters, h = 1e-3) lost 69 % of its energy in 2 s, and spinning about a transverse axis
//! its energy grew without bound. HHT is therefore stepped as that generalized-alpha member in
//! the form of Arnold & Brüls (2007) (src/integrators/generalized_alpha.rs): equilibrium holds
//! exactly at t_{n+1} and the pseudo-acceleration p_{n+1} = (1 + alpha) a_{n+1} - alpha a_n
//! carries the shift. On a linear system with constant M, p is the a of the form above and
//! the steps are the same (tests/suite/integrator_theory.rs).

use super::generalized_alpha::GeneralizedAlphaParameters;
use super::integrator::TimeIntegrator;
use super::newton::{NewtonError, StepContext};
use super::stages::StepBuffers;
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
        let HhtParameters { alpha, beta, gamma } = *self;
        GeneralizedAlphaParameters { alpha_m: 0.0, alpha_f: -alpha, beta, gamma }.step(cx, b, s, h, out)
    }
}
