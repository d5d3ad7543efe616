//! The Bathe composite method (paper 002; Bathe & Baig 2005, Bathe & Noh 2012) in its
//! rho_inf-Bathe generalisation: G. Noh, K.J. Bathe, "The Bathe time integration method with
//! controllable spectral radius: the rho_inf-Bathe method", Computers & Structures 212 (2019)
//! 299-310.
//!
//! Sub-step 1 is the trapezoidal rule over gamma*dt:
//!   v_g = v_0 + gamma dt/2 (a_0 + a_g),   q_g = q_0 + gamma dt/2 (v_0 + v_g).
//! Sub-step 2 (Noh & Bathe 2019, eqs. 6-7) is a three-point formula over the whole step:
//!   v_1 = v_0 + dt (q0 a_0 + q1 a_g + q2 a_1),   q_1 = q_0 + dt (q0 v_0 + q1 v_g + q2 v_1),
//! with (Noh & Bathe 2019, eq. 9)
//!   q1 = (rho_inf + 1) / (2 gamma (rho_inf - 1) + 4),  q0 = (gamma - 1) q1 + 1/2,  q2 = -gamma q1 + 1/2.
//! q0 + q1 + q2 = 1 and gamma q1 + q2 = 1/2 (second order for any gamma); in the stiff limit
//! the step multiplies the state by (q1 - q0)/q2 = rho_inf. At rho_inf = 0, q0 = q1 and the
//! second sub-step is the three-point Euler backward formula of the standard Bathe method,
//!   v_1 = c1 q_0 + c2 q_g + c3 q_1,  c1 = (1-gamma)/(gamma dt), c2 = -1/((1-gamma) gamma dt),
//!   c3 = (2-gamma)/((1-gamma) dt)   (paper 002 eqs. 25-26; tests/suite/integrator_family.rs checks it).
//! Both sub-steps solve equilibrium at their end point, so a is consistent after each.

use super::integrator::TimeIntegrator;
use super::newton::{Iterate, NewtonError, StepContext};
use super::stages::{BackwardFormula, StepBuffers, extrapolate, trapezoidal_substep, work_along};
use super::{Method, State};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BatheParameters {
    pub rho_inf: f64,
    /// Fraction of the step covered by the trapezoidal sub-step.
    pub gamma: f64,
    /// q0, q1, q2 of the second sub-step (Noh & Bathe 2019 eq. 9).
    pub q: [f64; 3],
}

impl BatheParameters {
    /// The standard splitting gamma = 1/2 (paper 002's default).
    pub fn new(rho_inf: f64) -> Self {
        Self::with_gamma(rho_inf, 0.5)
    }

    pub fn with_gamma(rho_inf: f64, gamma: f64) -> Self {
        let q1 = (rho_inf + 1.0) / (2.0 * gamma * (rho_inf - 1.0) + 4.0);
        let q0 = (gamma - 1.0) * q1 + 0.5;
        let q2 = -gamma * q1 + 0.5;
        BatheParameters { rho_inf, gamma, q: [q0, q1, q2] }
    }

    /// The gamma with which both sub-steps have the same Newton matrix, gamma/2 = q2
    /// (Noh & Bathe 2019: gamma = (2 - sqrt(2 + 2 rho_inf)) / (1 - rho_inf); 2 - sqrt(2) for the
    /// standard method, 1/2 at rho_inf = 1).
    pub fn equal_matrix_gamma(rho_inf: f64) -> f64 {
        if rho_inf >= 1.0 { 0.5 } else { (2.0 - (2.0 + 2.0 * rho_inf).sqrt()) / (1.0 - rho_inf) }
    }
}

impl TimeIntegrator for BatheParameters {
    fn name() -> &'static str {
        "bathe"
    }

    fn rho_inf_range() -> (f64, f64) {
        (0.0, 1.0)
    }

    fn from_rho_inf(rho_inf: f64) -> Self {
        Self::new(rho_inf)
    }

    fn method(&self) -> Method {
        Method::Bathe
    }

    fn evaluation_times(&self, t: f64, h: f64) -> [f64; 4] {
        [t, t + self.gamma * h, t + h, t + h]
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
        let [q0, q1, q2] = self.q;

        // Sub-step 1: trapezoidal rule over gamma*h.
        cx.predict((&s.a, &s.lambda), gh, (&mut b.s1.a, &mut b.s1.lambda));
        let bases = (&mut b.q_base[..], &mut b.v_base[..]);
        trapezoidal_substep(cx, (&s.q, &s.v, &s.a), (s.t + gh, gh), bases, b.s1.iterate())?;

        // Sub-step 2: the rho_inf-Bathe three-point formula over h. With v_1 = v_base + q2 h a_1,
        // q_1 = q_0 + h (q0 v_0 + q1 v_g) + q2 h v_1: dv/da = q2 h, dq/da = (q2 h)^2.
        // Newton starts from the linear extrapolation through the values at 0 and gamma h.
        let c = (1.0 - self.gamma) / self.gamma;
        extrapolate(c, &s.a, &b.s1.a, &mut out.a);
        extrapolate(c, &s.lambda, &b.s1.lambda, &mut out.lambda);
        let formula = BackwardFormula { weights: [q0, q1], last: q2 };
        let points = [(&s.v[..], &s.a[..]), (&b.s1.v[..], &b.s1.a[..])];
        let bases = (&mut b.q_base[..], &mut b.v_base[..]);
        formula.substep(cx, (s.t + h, h), (&s.q, points), bases, Iterate::of_state(out))?;
        // Dissipated and supplied energy: the work along the step of the forces averaged with
        // the weights q0, q1, q2 of sub-step 2 on the nodes (0, gamma, 1) (`work_along`).
        let points = [
            (&s.q[..], &s.v[..], &s.lambda[..], s.t),
            (&b.s1.q[..], &b.s1.v[..], &b.s1.lambda[..], s.t + gh),
            (&out.q[..], &out.v[..], &out.lambda[..], s.t + h),
        ];
        out.exchanged = s.exchanged + work_along(cx, h, points, [q0, q1, q2]);
        out.t = s.t + h;
        out.aux.copy_from_slice(&out.a);
        Ok(())
    }
}
