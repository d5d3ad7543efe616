//! TTBIF: the optimized three-sub-step composite method of paper 000 (section 2).
//!
//! Sub-steps 1 and 2 are trapezoidal over gamma*dt (eqs. 21-22); sub-step 3 is the
//! four-point backward formula over the whole step (eq. 23). Parameters follow eqs. 24-30;
//! gamma is the exact optimum gamma* (the root of theta3(gamma) = gamma/2 in [0.30, 0.40]),
//! of which the printed polynomial eq. 31 is a fit. With gamma* all three sub-steps have
//! the same Newton-matrix coefficients, so one factorization serves the whole step.

use super::newton::{NewtonError, NewtonSettings, Stage, Statistics, Workspace, solve_stage};
use super::{Dynamics, State, StepBuffers};

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

#[allow(clippy::too_many_arguments)]
pub(super) fn step(
    p: &TtbifParameters,
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
    let [t0, t1, t2, t3] = p.theta;
    let power0 = sys.dissipation_power(&s.q, &s.v, s.t);

    // Sub-steps 1 and 2: trapezoidal rule over gamma*h (eqs. 21, 22).
    let trapezoidal = |from: (&[f64], &[f64], &[f64]), qb: &mut Vec<f64>, vb: &mut Vec<f64>| {
        let (q, v, a) = from;
        for i in 0..n {
            vb[i] = v[i] + 0.5 * gh * a[i];
            qb[i] = q[i] + gh * v[i] + 0.25 * gh * gh * a[i];
        }
    };
    trapezoidal((&s.q, &s.v, &s.a), &mut b.q_base, &mut b.v_base);
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

    trapezoidal((&b.q1, &b.v1, &b.a1), &mut b.q_base, &mut b.v_base);
    // Newton starts from the linear extrapolation through the two previous stage values
    // (stage times 0, gamma h, 2 gamma h, h): an O(h^2) guess instead of O(h) (crank-slider,
    // h = 1e-3: 9.29 -> 7.99 iterations per step; extrapolating a only: 9.39).
    for i in 0..n {
        b.a2[i] = 2.0 * b.a1[i] - s.a[i];
    }
    for (l2, (l1, l0)) in b.l2.iter_mut().zip(b.l1.iter().zip(&s.lambda)) {
        *l2 = 2.0 * l1 - l0;
    }
    let stage = Stage {
        t: s.t + 2.0 * gh,
        q_base: &b.q_base,
        v_base: &b.v_base,
        beta: 0.25 * gh * gh,
        gamma: 0.5 * gh,
        force_weight: 1.0,
        extra: None,
        constraint_acceleration: None,
    };
    solve_stage(sys, &stage, &mut b.a2, &mut b.l2, &mut b.q2, &mut b.v2, ws, newton, stats)?;
    let power2 = sys.dissipation_power(&b.q2, &b.v2, s.t + 2.0 * gh);

    // Sub-step 3: four-point backward formula over h (eq. 23).
    for i in 0..n {
        b.v_base[i] = s.v[i] + h * (t0 * s.a[i] + t1 * b.a1[i] + t2 * b.a2[i]);
        b.q_base[i] = s.q[i] + h * (t0 * s.v[i] + t1 * b.v1[i] + t2 * b.v2[i]) + t3 * h * b.v_base[i];
    }
    let c = (1.0 - 2.0 * p.gamma) / p.gamma;
    for i in 0..n {
        out.a[i] = c.mul_add(b.a2[i] - b.a1[i], b.a2[i]);
    }
    for (l3, (l2, l1)) in out.lambda.iter_mut().zip(b.l2.iter().zip(&b.l1)) {
        *l3 = c.mul_add(l2 - l1, *l2);
    }
    let th = t3 * h;
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
    let power3 = sys.dissipation_power(&out.q, &out.v, s.t + h);
    // Dissipated energy integrated with the method's own quadrature (the weights of eq. 23).
    out.dissipated = s.dissipated + h * (t0 * power0 + t1 * power1 + t2 * power2 + t3 * power3);
    out.t = s.t + h;
    out.aux.copy_from_slice(&out.a);
    Ok(())
}
