//! The Bathe, generalized-alpha and Newmark methods against their linear theory on the
//! oscillator x'' + w^2 x = 0 (models/mass_spring.toml, w = 2 pi), their observed orders there,
//! and second-order convergence with closed constraints on the rigid pendulum and the
//! crank-slider for every method.
//!
//! As in tests/suite/integrator_theory.rs, the theory is built here independently of
//! src/integrators from each method's defining formulas, and the measured amplification
//! matrix comes from stepping the full solver (model file -> assembly -> Newton -> facade) from
//! unit states patched into a snapshot.

use flexfmu::integrators::bathe::BatheParameters;
use flexfmu::integrators::{Dynamics, Method};
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, Snapshot, SolverSettings};
use nalgebra::{Complex, DMatrix};
use std::f64::consts::PI;

use crate::common;

const W: f64 = 2.0 * PI;
const W2: f64 = 4.0 * PI * PI;

fn load(name: &str) -> Model {
    common::sim::example(name)
}

fn sci(x: &[f64]) -> String {
    x.iter().map(|v| format!("{v:.3e}")).collect::<Vec<_>>().join(", ")
}

fn settings(method: Method, rho_inf: f64, step: f64, tolerance: f64) -> SolverSettings {
    SolverSettings { method, rho_inf, step, tolerance, ..SolverSettings::default() }
}

/// The methods and rho_inf values of this file.
const FAMILY: [(Method, f64); 7] = [
    (Method::Bathe, 0.0),
    (Method::Bathe, 0.5),
    (Method::Bathe, 1.0),
    (Method::GeneralizedAlpha, 0.0),
    (Method::GeneralizedAlpha, 0.5),
    (Method::GeneralizedAlpha, 1.0),
    (Method::Newmark, 1.0),
];

// ---------------------------------------------------------------------------------------------
// Linear theory, one step of each method on x'' = -w^2 x from (x, v, a, aux).

/// rho_inf-Bathe (Noh & Bathe 2019): trapezoidal over gamma h, then
///   v_1 = v_0 + h (q0 a_0 + q1 a_g + q2 a_1),  x_1 = x_0 + h (q0 v_0 + q1 v_g + q2 v_1),
/// q1 = (rho+1)/(2 gamma (rho-1) + 4), q0 = (gamma-1) q1 + 1/2, q2 = -gamma q1 + 1/2, gamma = 1/2.
fn bathe_theory_step(rho: f64, h: f64, z: [f64; 4]) -> [f64; 4] {
    let gamma = 0.5;
    let q1 = (rho + 1.0) / (2.0 * gamma * (rho - 1.0) + 4.0);
    let (q0, q2) = ((gamma - 1.0) * q1 + 0.5, -gamma * q1 + 0.5);
    let gh = gamma * h;
    let (x0, v0, a0) = (z[0], z[1], z[2]);
    let xg = (x0 + gh * v0 + gh * gh / 4.0 * a0) / (1.0 + gh * gh / 4.0 * W2);
    let ag = -W2 * xg;
    let vg = v0 + gh / 2.0 * (a0 + ag);
    let vb = v0 + h * (q0 * a0 + q1 * ag);
    let xb = x0 + h * (q0 * v0 + q1 * vg);
    // x1 = xb + h q2 (vb - h q2 w^2 x1)
    let x1 = (xb + h * q2 * vb) / (1.0 + h * h * q2 * q2 * W2);
    let a1 = -W2 * x1;
    [x1, vb + h * q2 * a1, a1, a1]
}

/// The standard Bathe method with gamma = 1/2 in its original form (paper 002 eqs. 25-26,
/// Bathe & Baig 2005): three-point Euler backward on (x, v):
///   v_1 = (x_0 - 4 x_g + 3 x_1)/h,  a_1 = (v_0 - 4 v_g + 3 v_1)/h.
fn standard_bathe_step(h: f64, z: [f64; 4]) -> [f64; 4] {
    let gh = 0.5 * h;
    let (x0, v0, a0) = (z[0], z[1], z[2]);
    let xg = (x0 + gh * v0 + gh * gh / 4.0 * a0) / (1.0 + gh * gh / 4.0 * W2);
    let vg = v0 + gh / 2.0 * (a0 - W2 * xg);
    // a1 = -w^2 x1 = (v0 - 4 vg + 3 (x0 - 4 xg + 3 x1)/h)/h
    let x1 = (v0 - 4.0 * vg + 3.0 * (x0 - 4.0 * xg) / h) / h / (-W2 - 9.0 / (h * h));
    let v1 = (x0 - 4.0 * xg + 3.0 * x1) / h;
    [x1, v1, -W2 * x1, -W2 * x1]
}

/// Generalized-alpha (Chung & Hulbert 1993, optimal parameters) in the Arnold & Brüls form:
///   (1 - am) p_1 + am p_0 = (1 - af) a_1 + af a_0,   a_1 = -w^2 x_1,
///   x_1 = x_0 + h v_0 + h^2 ((1/2 - beta) p_0 + beta p_1),  v_1 = v_0 + h ((1 - gamma) p_0 + gamma p_1),
/// am = (2 rho - 1)/(rho + 1), af = rho/(rho + 1), gamma = 1/2 + af - am, beta = (gamma + 1/2)^2/4.
fn generalized_alpha_theory_step(rho: f64, h: f64, z: [f64; 4]) -> [f64; 4] {
    let am = (2.0 * rho - 1.0) / (rho + 1.0);
    let af = rho / (rho + 1.0);
    let gamma = 0.5 + af - am;
    let beta = (gamma + 0.5).powi(2) / 4.0;
    let (x0, v0, a0, p0) = (z[0], z[1], z[2], z[3]);
    // p1 = c a1 + d
    let c = (1.0 - af) / (1.0 - am);
    let d = (af * a0 - am * p0) / (1.0 - am);
    let xb = x0 + h * v0 + h * h * ((0.5 - beta) * p0 + beta * d);
    let x1 = xb / (1.0 + W2 * h * h * beta * c);
    let a1 = -W2 * x1;
    let p1 = c * a1 + d;
    [x1, v0 + h * ((1.0 - gamma) * p0 + gamma * p1), a1, p1]
}

/// Newmark's average-acceleration method: beta = 1/4, gamma = 1/2, a_1 = -w^2 x_1.
fn newmark_theory_step(h: f64, z: [f64; 4]) -> [f64; 4] {
    let (x0, v0, a0) = (z[0], z[1], z[2]);
    let x1 = (x0 + h * v0 + h * h / 4.0 * a0) / (1.0 + h * h / 4.0 * W2);
    let a1 = -W2 * x1;
    [x1, v0 + h / 2.0 * (a0 + a1), a1, a1]
}

fn theory_step(method: Method, rho: f64, h: f64, z: [f64; 4]) -> [f64; 4] {
    match method {
        Method::Bathe => bathe_theory_step(rho, h, z),
        Method::GeneralizedAlpha => generalized_alpha_theory_step(rho, h, z),
        Method::Newmark => newmark_theory_step(h, z),
        m => panic!("no theory here for {m}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Measured amplification matrices.

/// A copy of `snap` with x, v, a, aux of the mass set (y, its rates, the multiplier zero).
fn with_state(snap: &Snapshot, z: [f64; 4]) -> Snapshot {
    let mut snap = snap.clone();
    let s = snap.state_mut();
    assert_eq!((s.q.len(), s.lambda.len()), (2, 1), "mass_spring: x, y and one prismatic row");
    (s.q, s.v, s.a, s.aux, s.lambda) = (vec![z[0], 0.0], vec![z[1], 0.0], vec![z[2], 0.0], vec![z[3], 0.0], vec![0.0]);
    snap
}

/// The state space of a method, scaled to unit size (x, h v, h^2 a) as in
/// tests/suite/integrator_theory.rs (so that at large Omega no sub-step predictor is orders of
/// magnitude larger than the result), plus h^2 p for generalized-alpha's pseudo-acceleration.
/// Every method solves a = -w^2 x at the step's end, so the matrix maps into the consistent
/// states: its eigenvalues are those of the method's 2x2 (Bathe, Newmark) or 3x3
/// (generalized-alpha, Chung-Hulbert) amplification matrix and an extra 0.
fn dimension(method: Method) -> usize {
    if method == Method::GeneralizedAlpha { 4 } else { 3 }
}

fn to_state(method: Method, h: f64, y: &[f64]) -> [f64; 4] {
    let (x, v, a) = (y[0], y[1] / h, y[2] / (h * h));
    let p = if method == Method::GeneralizedAlpha { y[3] / (h * h) } else { a };
    [x, v, a, p]
}

fn from_state(method: Method, h: f64, z: [f64; 4]) -> Vec<f64> {
    let mut y = vec![z[0], h * z[1], h * h * z[2]];
    if method == Method::GeneralizedAlpha {
        y.push(h * h * z[3]);
    }
    y
}

fn matrix_of(method: Method, h: f64, mut step: impl FnMut([f64; 4]) -> [f64; 4]) -> DMatrix<f64> {
    let k = dimension(method);
    let mut a = DMatrix::zeros(k, k);
    for j in 0..k {
        let mut y = vec![0.0; k];
        y[j] = 1.0;
        let out = from_state(method, h, step(to_state(method, h, &y)));
        for i in 0..k {
            a[(i, j)] = out[i];
        }
    }
    a
}

fn measured_matrix(method: Method, rho: f64, h: f64) -> DMatrix<f64> {
    let model = load("mass_spring.toml");
    let mut sim = Simulation::new(&model, &model.default_parameters(), settings(method, rho, h, 1e-12), 0.0).unwrap();
    // Unit states are not motions: a unit acceleration at rest gains energy from nothing.
    sim.set_energy_check(false);
    let start = sim.snapshot();
    matrix_of(method, h, |z| {
        sim.restore(&with_state(&start, z)).unwrap();
        let t0 = sim.time();
        sim.step_to(t0 + h).unwrap();
        let s = sim.state();
        assert_eq!(s.q[1], 0.0);
        [s.q[0], s.v[0], s.a[0], s.aux[0]]
    })
}

fn theory_matrix(method: Method, rho: f64, h: f64) -> DMatrix<f64> {
    matrix_of(method, h, |z| theory_step(method, rho, h, z))
}

/// Spectral radius, and the phase (argument in [0, pi]) of the principal root: the eigenvalue
/// with the largest imaginary part (the oscillatory pair; generalized-alpha at rho_inf = 1 has
/// a spurious root -1 of the same modulus as the principal pair, so "largest modulus" would be
/// ambiguous), or the eigenvalue of largest modulus when all are real.
fn radius_phase(a: &DMatrix<f64>) -> (f64, f64) {
    let eig: Vec<Complex<f64>> = a.clone().complex_eigenvalues().iter().cloned().collect();
    let radius = eig.iter().map(|e| e.norm()).fold(0.0, f64::max);
    let top = eig.iter().cloned().max_by(|p, q| p.norm().total_cmp(&q.norm())).unwrap();
    let principal = eig.iter().cloned().filter(|e| e.im > 0.0).max_by(|p, q| p.im.total_cmp(&q.im)).unwrap_or(top);
    (radius, principal.im.abs().atan2(principal.re))
}

#[test]
fn bathe_parameters() {
    for k in 0..=20 {
        let rho = k as f64 / 20.0;
        for gamma in [0.5, 0.3, BatheParameters::equal_matrix_gamma(rho)] {
            let p = BatheParameters::with_gamma(rho, gamma);
            let [q0, q1, q2] = p.q;
            // Quadrature on the nodes (0, gamma, 1): exact for constants and linears.
            assert!((q0 + q1 + q2 - 1.0).abs() < 1e-15, "weights sum {}", q0 + q1 + q2);
            assert!((gamma * q1 + q2 - 0.5).abs() < 1e-15);
            // Stiff limit of the second sub-step after a trapezoidal one (factor -1): rho_inf.
            assert!(((q1 - q0) / q2 - rho).abs() < 1e-14, "rho_inf {rho} gamma {gamma}: limit {}", (q1 - q0) / q2);
        }
        let g = BatheParameters::equal_matrix_gamma(rho);
        assert!(
            (g / 2.0 - BatheParameters::with_gamma(rho, g).q[2]).abs() < 1e-14,
            "equal sub-step matrices at gamma = {g}"
        );
    }
    assert!((BatheParameters::equal_matrix_gamma(0.0) - (2.0 - 2f64.sqrt())).abs() < 1e-15);
    // rho_inf = 0 is the standard Bathe method (three-point Euler backward): same step.
    let p = BatheParameters::new(0.0);
    assert!(p.q.iter().all(|q| (q - 1.0 / 3.0).abs() < 1e-15), "standard Bathe, gamma = 1/2: q = 1/3: {:?}", p.q);
    for omega in [0.1, 1.0, 10.0, 100.0] {
        let h = omega / W;
        for z in [[1.0, 0.0, -W2, -W2], [0.0, 1.0, 0.0, 0.0], [0.3, -2.0, 5.0, 5.0]] {
            let (a, b) = (bathe_theory_step(0.0, h, z), standard_bathe_step(h, z));
            for i in 0..3 {
                assert!(
                    (a[i] - b[i]).abs() <= 1e-12 * (1.0 + b[i].abs()),
                    "Omega {omega}: rho_inf-Bathe(0) {a:?} vs standard {b:?}"
                );
            }
        }
    }
    // rho_inf = 1, gamma = 1/2: two trapezoidal steps of h/2 (q = 1/4, 1/2, 1/4).
    let p = BatheParameters::new(1.0);
    assert!((p.q[0] - 0.25).abs() < 1e-15 && (p.q[1] - 0.5).abs() < 1e-15 && (p.q[2] - 0.25).abs() < 1e-15);
}

#[test]
fn amplification_matches_theory() {
    for (method, rho) in FAMILY {
        for omega in [0.1, 1.0, 10.0, 100.0] {
            let h = omega / W;
            let num = measured_matrix(method, rho, h);
            let th = theory_matrix(method, rho, h);
            let diff = (&num - &th).amax() / th.amax().max(1.0);
            let (rn, pn) = radius_phase(&num);
            let (rt, pt) = radius_phase(&th);
            eprintln!(
                "{method} rho_inf={rho} Omega={omega}: rho theory {rt:.12} measured {rn:.12}; phase theory {pt:.12} measured {pn:.12}; matrix diff {diff:.1e}"
            );
            assert!(diff < 1e-10, "{method} rho_inf={rho} Omega={omega}: amplification matrices differ by {diff:e}");
            assert!(
                (rn - rt).abs() < 1e-8,
                "{method} rho_inf={rho} Omega={omega}: spectral radius {rn} vs theory {rt}"
            );
            assert!((pn - pt).abs() < 1e-8, "{method} rho_inf={rho} Omega={omega}: phase {pn} vs theory {pt}");
            assert!(rt <= 1.0 + 1e-12, "{method} rho_inf={rho} Omega={omega}: unstable, rho {rt}");
        }
        // Spectral radius -> rho_inf as Omega -> infinity: measured at 1e4, theory at 1e4 and
        // 1e6 (the approach is O(1/Omega) for the composite methods).
        let h = 1e4 / W;
        let (mn, mt) = (measured_matrix(method, rho, h), theory_matrix(method, rho, h));
        let (rn, _) = radius_phase(&mn);
        let (rt, _) = radius_phase(&mt);
        let h6 = 1e6 / W;
        let (r6, _) = radius_phase(&theory_matrix(method, rho, h6));
        eprintln!(
            "{method} rho_inf={rho}: spectral radius at Omega=1e4 theory {rt:.10} measured {rn:.10}; at 1e6 theory {r6:.10}"
        );
        assert!((rn - rt).abs() < 1e-8, "{method} rho_inf={rho} Omega=1e4: measured {rn} vs theory {rt}");
        // Generalized-alpha at rho_inf = 0 has a triple eigenvalue 0 at infinity (a Jordan
        // block), so its approach is O(Omega^(-2/3)): measured 2.16e-3 at 1e4, 1.37e-4 at 1e6.
        let (tol4, tol6) = if method == Method::GeneralizedAlpha { (3e-3, 2e-4) } else { (1e-3, 1e-5) };
        assert!((rt - rho).abs() < tol4, "{method} rho_inf={rho}: spectral radius {rt} at Omega=1e4");
        assert!((r6 - rho).abs() < tol6, "{method} rho_inf={rho}: spectral radius {r6} at Omega=1e6");
    }
}

// ---------------------------------------------------------------------------------------------
// Observed orders on the oscillator.

/// Errors at t = 15/16 s of x, v, the output `a` (recomputed from equilibrium) and the
/// method's own acceleration variable (State::aux) against x = x0 cos(w t).
fn oscillator_errors(method: Method, rho: f64, h: f64) -> [f64; 4] {
    let model = load("mass_spring.toml");
    let params = model.default_parameters();
    let x0 = params[model.parameter_index("x0").unwrap()];
    let mut sim = Simulation::new(&model, &params, settings(method, rho, h, 1e-12), 0.0).unwrap();
    let t = 1.0 - 0.0625;
    sim.step_to(t).unwrap();
    let out = sim.output_values().unwrap().to_vec(); // x, v, a, energy_total
    let aux = sim.state().aux[0];
    let exact = [x0 * (W * t).cos(), -x0 * W * (W * t).sin(), -x0 * W2 * (W * t).cos()];
    [(out[0] - exact[0]).abs(), (out[1] - exact[1]).abs(), (out[2] - exact[2]).abs(), (aux - exact[2]).abs()]
}

#[test]
fn oscillator_orders() {
    let hs = [2.5e-3, 1.25e-3, 6.25e-4];
    for (method, rho) in FAMILY {
        let e: Vec<[f64; 4]> = hs.iter().map(|&h| oscillator_errors(method, rho, h)).collect();
        for p in 0..2 {
            let o = [0, 1, 2, 3].map(|i| (e[p][i] / e[p + 1][i]).log2());
            eprintln!(
                "mass_spring {method} rho_inf={rho} h={} -> {}: errors x, v, a, aux {}; orders {o:.3?}",
                hs[p],
                hs[p + 1],
                sci(&e[p + 1])
            );
            for (i, name) in ["x", "v", "a"].iter().enumerate() {
                assert!((1.8..=2.2).contains(&o[i]), "{method} rho_inf={rho}: {name} order {}", o[i]);
            }
            // The method's own acceleration variable: generalized-alpha's p is first order for
            // rho_inf < 1 (DESIGN.md); everywhere else it is the solved a, second order.
            let expected = if method == Method::GeneralizedAlpha && rho < 1.0 { 1.0 } else { 2.0 };
            assert!(
                (o[3] - expected).abs() <= 0.2,
                "{method} rho_inf={rho}: own acceleration order {}, expected {expected}",
                o[3]
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Constrained systems: every method.

const ALL_METHODS: [(Method, f64); 11] = [
    (Method::Ttbif, 0.0),
    (Method::Ttbif, 0.5),
    (Method::Hht, 0.5),
    (Method::Hht, 0.8),
    (Method::Newmark, 1.0),
    (Method::GeneralizedAlpha, 0.0),
    (Method::GeneralizedAlpha, 0.5),
    (Method::GeneralizedAlpha, 1.0),
    (Method::Bathe, 0.0),
    (Method::Bathe, 0.5),
    (Method::Bathe, 1.0),
];

/// Rigid pendulum (rod pinned at its end, released horizontal): theta'' = -(3 g / 2 L) cos theta,
/// RK4 at 1e-5 (global error ~1e-17, tests/suite/rigid_pendulum.rs).
fn pendulum_reference(t: f64) -> f64 {
    common::reference::rigid_pendulum(t, 9.81).0
}

/// Run `model` to t_end stepping by h; returns the chosen outputs at t_end and max |Phi| over
/// all steps.
fn run(model: &Model, method: Method, rho: f64, h: f64, tolerance: f64, t_end: f64, names: &[&str]) -> (Vec<f64>, f64) {
    let mut sim =
        Simulation::new(model, &model.default_parameters(), settings(method, rho, h, tolerance), 0.0).unwrap();
    let mut phi = vec![0.0; sim.system().constraints()];
    let mut worst = 0.0f64;
    let steps = (t_end / h).round() as usize;
    for k in 1..=steps {
        sim.step_to(k as f64 * h).unwrap();
        let s = sim.state();
        sim.system().constraint_residual(&s.q, s.t, &mut phi);
        worst = phi.iter().fold(worst, |m, p| m.max(p.abs()));
    }
    let all: Vec<String> = sim.outputs().iter().map(|o| o.name.clone()).collect();
    let out = sim.output_values().unwrap().to_vec();
    (names.iter().map(|n| out[all.iter().position(|m| m == n).unwrap()]).collect(), worst)
}

#[test]
fn rigid_pendulum_second_order_every_method() {
    let model = load("rigid_pendulum.toml");
    let th = pendulum_reference(1.0);
    // Generalized-alpha with rho_inf = 0 is pre-asymptotic above 1e-3 here (its error changes
    // sign between h = 4e-3 and 2e-3: orders 1.09 there, 1.87 and 1.94 below).
    let hs = [1e-3, 5e-4, 2.5e-4];
    for (method, rho) in ALL_METHODS {
        let runs: Vec<(Vec<f64>, f64)> =
            hs.iter().map(|&h| run(&model, method, rho, h, 1e-12, 1.0, &["angle", "tip_x", "tip_y"])).collect();
        let errors: Vec<[f64; 2]> = runs
            .iter()
            .map(|(v, _)| [(v[0] - th).abs(), (v[1] - th.cos()).abs().max((v[2] - th.sin()).abs())])
            .collect();
        for p in 0..2 {
            let o = [0, 1].map(|i| (errors[p][i] / errors[p + 1][i]).log2());
            eprintln!(
                "rigid_pendulum {method} rho_inf={rho} h={} -> {}: errors angle, tip {}; orders {o:.3?}",
                hs[p],
                hs[p + 1],
                sci(&errors[p + 1])
            );
            for (i, name) in ["angle", "tip"].iter().enumerate() {
                assert!(
                    (1.8..=2.2).contains(&o[i]),
                    "{method} rho_inf={rho}: {name} order {} between h={} and {}",
                    o[i],
                    hs[p],
                    hs[p + 1]
                );
            }
        }
        // Position-level constraint at the facade's default tolerance.
        let (_, drift) = run(&model, method, rho, 1e-3, SolverSettings::default().tolerance, 1.0, &[]);
        eprintln!("rigid_pendulum {method} rho_inf={rho} h=1e-3: max |Phi| = {drift:.3e}");
        assert!(drift < 1e-10, "{method} rho_inf={rho}: constraint violation {drift:e}");
    }
}

#[test]
fn crank_slider_second_order_every_method() {
    // Self-convergence (no reference): the differences between successive halvings of the
    // step shrink by 4 for a second-order method.
    let model = load("crank_slider.toml");
    let names = ["crank_angle", "rod_angle", "slider_x"];
    let hs = [2e-3, 1e-3, 5e-4, 2.5e-4];
    for (method, rho) in ALL_METHODS {
        let runs: Vec<Vec<f64>> = hs.iter().map(|&h| run(&model, method, rho, h, 1e-12, 0.5, &names).0).collect();
        let d: Vec<Vec<f64>> = (0..3).map(|k| (0..3).map(|i| (runs[k][i] - runs[k + 1][i]).abs()).collect()).collect();
        for p in 0..2 {
            let o: Vec<f64> = (0..3).map(|i| (d[p][i] / d[p + 1][i]).log2()).collect();
            eprintln!(
                "crank_slider {method} rho_inf={rho} h={}: differences {}; orders {o:.3?}",
                hs[p + 1],
                sci(&d[p + 1])
            );
            for (i, name) in names.iter().enumerate() {
                assert!((1.8..=2.2).contains(&o[i]), "{method} rho_inf={rho}: {name} order {}", o[i]);
            }
        }
        let (_, drift) = run(&model, method, rho, 1e-3, SolverSettings::default().tolerance, 2.0, &[]);
        eprintln!("crank_slider {method} rho_inf={rho} h=1e-3: max |Phi| over 2 s = {drift:.3e}");
        assert!(drift < 1e-10, "{method} rho_inf={rho}: constraint violation {drift:e}");
    }
}

#[test]
fn bathe_energy_balance() {
    // Dissipated energy integrated with Bathe's own quadrature (weights q0, q1, q2 on the
    // nodes 0, gamma h, h): E_total + E_dissipated stays at E0 up to a second-order error.
    let model = load("crank_slider.toml");
    for rho in [0.0, 0.5, 1.0] {
        let balance = |h: f64| {
            let mut sim =
                Simulation::new(&model, &model.default_parameters(), settings(Method::Bathe, rho, h, 1e-12), 0.0)
                    .unwrap();
            let all: Vec<String> = sim.outputs().iter().map(|o| o.name.clone()).collect();
            let (et, ed) = (
                all.iter().position(|n| n == "energy_total").unwrap(),
                all.iter().position(|n| n == "energy_dissipated").unwrap(),
            );
            let out = sim.output_values().unwrap().to_vec();
            let e0 = out[et] + out[ed];
            let mut worst = 0.0f64;
            for k in 1..=100 {
                sim.step_to(0.01 * k as f64).unwrap();
                let out = sim.output_values().unwrap();
                worst = worst.max((out[et] + out[ed] - e0).abs());
            }
            (worst, sim.output_values().unwrap()[ed])
        };
        let ((e1, dissipated), (e2, _)) = (balance(2e-4), balance(4e-4));
        let order = (e2 / e1).log2();
        eprintln!(
            "crank_slider bathe rho_inf={rho}, 1 s: dissipated {dissipated:.6} J, max |E_total + E_diss - E0| = {e1:.3e} J at h=2e-4, {e2:.3e} J at 4e-4: order {order:.3}"
        );
        assert!(dissipated > 0.3, "the damper dissipates ({dissipated} J)");
        assert!(e1 < 1e-6, "bathe rho_inf={rho}: energy balance off by {e1:e} J");
        assert!((1.8..=2.2).contains(&order), "bathe rho_inf={rho}: energy-balance error order {order}");
    }
}
