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
//!   c3 = (2-gamma)/((1-gamma) dt)   (paper 002 eqs. 25-26; tests/integrator_family.rs checks it).
//! Both sub-steps solve equilibrium at their end point, so a is consistent after each.

use super::newton::{NewtonError, NewtonSettings, Stage, Statistics, Workspace, solve_stage};
use super::{Dynamics, State, StepBuffers};

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

#[allow(clippy::too_many_arguments)]
pub(super) fn step(
    p: &BatheParameters,
    sys: &dyn Dynamics,
    s: &State,
    h: f64,
    out: &mut State,
    b: &mut StepBuffers,
    ws: &mut Workspace,
    newton: &NewtonSettings,
    stats: &mut Statistics,
) -> Result<(), NewtonError> {
    let n = s.q.len();
    let gh = p.gamma * h;
    let [q0, q1, q2] = p.q;
    let power0 = sys.dissipation_power(&s.q, &s.v, s.t);

    // Sub-step 1: trapezoidal rule over gamma*h.
    for i in 0..n {
        b.v_base[i] = s.v[i] + 0.5 * gh * s.a[i];
        b.q_base[i] = s.q[i] + gh * s.v[i] + 0.25 * gh * gh * s.a[i];
    }
    ws.predict(&s.a, &s.lambda, gh, &mut b.a1, &mut b.l1);
    let stage = Stage {
        t: s.t + gh,
        q_base: &b.q_base,
        v_base: &b.v_base,
        beta: 0.25 * gh * gh,
        gamma: 0.5 * gh,
        force_weight: 1.0,
        extra: None,
        constraint_acceleration: None,
    };
    solve_stage(sys, &stage, &mut b.a1, &mut b.l1, &mut b.q1, &mut b.v1, ws, newton, stats)?;
    let power1 = sys.dissipation_power(&b.q1, &b.v1, s.t + gh);

    // Sub-step 2: the rho_inf-Bathe three-point formula over h. With v_1 = v_base + q2 h a_1,
    // q_1 = q_0 + h (q0 v_0 + q1 v_g) + q2 h v_1: dv/da = q2 h, dq/da = (q2 h)^2.
    for i in 0..n {
        b.v_base[i] = s.v[i] + h * (q0 * s.a[i] + q1 * b.a1[i]);
        b.q_base[i] = s.q[i] + h * (q0 * s.v[i] + q1 * b.v1[i]) + q2 * h * b.v_base[i];
    }
    // Newton starts from the linear extrapolation through the values at 0 and gamma h.
    let c = (1.0 - p.gamma) / p.gamma;
    for i in 0..n {
        out.a[i] = c.mul_add(b.a1[i] - s.a[i], b.a1[i]);
    }
    for (l, (l1, l0)) in out.lambda.iter_mut().zip(b.l1.iter().zip(&s.lambda)) {
        *l = c.mul_add(l1 - l0, *l1);
    }
    let th = q2 * h;
    let stage = Stage {
        t: s.t + h,
        q_base: &b.q_base,
        v_base: &b.v_base,
        beta: th * th,
        gamma: th,
        force_weight: 1.0,
        extra: None,
        constraint_acceleration: None,
    };
    solve_stage(sys, &stage, &mut out.a, &mut out.lambda, &mut out.q, &mut out.v, ws, newton, stats)?;
    let power2 = sys.dissipation_power(&out.q, &out.v, s.t + h);
    // Dissipated energy with the method's own quadrature: the weights q0, q1, q2 of sub-step 2
    // on the nodes (0, gamma, 1) (exact for linear power, second order).
    out.dissipated = s.dissipated + h * (q0 * power0 + q1 * power1 + q2 * power2);
    out.t = s.t + h;
    out.aux.copy_from_slice(&out.a);
    Ok(())
}
