//! Newmark's average-acceleration method (trapezoidal rule, beta = 1/4, gamma = 1/2): HHT-alpha
//! with alpha = 0 (src/integrators/hht.rs), i.e. rho_inf = 1 and no numerical dissipation.

use super::hht::HhtParameters;
use super::integrator::TimeIntegrator;
use super::newton::{NewtonError, StepContext};
use super::stages::StepBuffers;
use super::{Method, State};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Newmark(pub HhtParameters);

impl TimeIntegrator for Newmark {
    fn name() -> &'static str {
        "newmark"
    }

    /// The method has no free parameter: rho_inf = 1 only.
    fn rho_inf_range() -> (f64, f64) {
        (1.0, 1.0)
    }

    fn from_rho_inf(rho_inf: f64) -> Self {
        Newmark(HhtParameters::new(rho_inf))
    }

    fn method(&self) -> Method {
        Method::Newmark
    }

    fn evaluation_times(&self, t: f64, h: f64) -> [f64; 4] {
        self.0.evaluation_times(t, h)
    }

    fn step(
        &self,
        cx: &mut StepContext,
        b: &mut StepBuffers,
        s: &State,
        h: f64,
        out: &mut State,
    ) -> Result<(), NewtonError> {
        self.0.step(cx, b, s, h, out)
    }
}
