//! Kelvin-Voigt material damping of beams (`material.damping = beta`, docs/model-file.md,
//! "Material damping of beams"), every formulation. References:
//! - element level: the damping part of the forces has the tangents C = dF/dv and K = dF/dq of
//!   central differences, and a rigid motion (translation and rotation) of a *deformed*
//!   element gives no damping force and no dissipated power (objectivity);
//! - energy: on a damped flexible pendulum energy_total + energy_dissipated stays constant and
//!   energy_dissipated grows;
//! - physics: a cantilever released from its static deflection decays with the logarithmic
//!   decrement of zeta_1 = beta omega_1 / 2 (C = beta K: each mode n of the linearised
//!   discrete beam has zeta_n = beta omega_n / 2; Clough & Penzien, Dynamics of Structures,
//!   ch. 12), at a step where the run without damping shows no numerical damping (TTBIF at
//!   rho_inf = 1 keeps its energy), and Newton takes the iterations it takes without damping;
//! - a damped free beam spinning rigidly dissipates nothing and keeps its angular momentum;
//! - a negative beta, and `material.damping` on a plate, are located errors.

use crate::beam3d::{compose, element, unit};
use flexfmu::integrators::{Stride, TangentCoefficients};
use flexfmu::mechanics::elements::{AncfBeam2d, BeamProperties, CorotationalBeam2d, Element, FloatingFrameBeam2d, Kin};
use flexfmu::mechanics::euler_parameters::from_axis_angle;
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};
use std::f64::consts::PI;

// ---------------------------------------------------------------------------------------------
// Element level

/// M a + g of `e` over its first `n` global coordinates.
fn residual<E: Element>(e: &E, n: usize, q: &[f64], v: &[f64], a: &[f64]) -> Vec<f64> {
    let (mut i, mut f) = (vec![0.0; n], vec![0.0; n]);
    e.add_forces(&Kin::without_inputs(q, v, a, 0.0), &mut i, &mut f);
    i.iter().zip(&f).map(|(x, y)| x + y).collect()
}

fn tangent<E: Element>(e: &E, n: usize, x: [&[f64]; 3], c: TangentCoefficients) -> Vec<f64> {
    let mut block = vec![0.0; n * n];
    e.add_tangent(&Kin::without_inputs(x[0], x[1], x[2], 0.0), &c, &mut block);
    block
}

/// Central differences of the residual with respect to q (which = 0) or v (1).
fn differences<E: Element>(e: &E, n: usize, x: [&[f64]; 3], which: usize, h: f64) -> Vec<f64> {
    let mut out = vec![0.0; n * n];
    for j in 0..n {
        let mut y = x.map(<[f64]>::to_vec);
        y[which][j] += h;
        let rp = residual(e, n, &y[0], &y[1], &y[2]);
        y[which][j] -= 2.0 * h;
        let rm = residual(e, n, &y[0], &y[1], &y[2]);
        for i in 0..n {
            out[n * i + j] = (rp[i] - rm[i]) / (2.0 * h);
        }
    }
    out
}

fn largest(x: impl Iterator<Item = f64>) -> f64 {
    x.fold(0.0, |m, y| m.max(y.abs()))
}

/// The damping part (damped minus undamped element) of C and K against central differences of
/// the damping part of the forces, relative to its largest entry (or, where the damping part
/// of K vanishes, as the floating frame's does, to 1e-6 of the damped element's whole K:
/// the differences' rounding); the damping part of the
/// forces and its dissipated power at a rigid motion `rigid` of the same configuration,
/// relative to those at the velocities of `x`.
fn check_element<E: Element>(what: &str, plain: &E, damped: &E, n: usize, x: [&[f64]; 3], rigid: &[f64]) {
    let c = TangentCoefficients { mass: 0.0, damping: 1.0, stiffness: 0.0, lambda: 0.0 };
    let k = TangentCoefficients { mass: 0.0, damping: 0.0, stiffness: 1.0, lambda: 0.0 };
    for (name, coefficients, which, h) in [("C", c, 1, 1e-6), ("K", k, 0, 1e-7)] {
        let exact: Vec<f64> = tangent(damped, n, x, coefficients)
            .iter()
            .zip(tangent(plain, n, x, coefficients))
            .map(|(a, b)| a - b)
            .collect();
        let fd: Vec<f64> = differences(damped, n, x, which, h)
            .iter()
            .zip(differences(plain, n, x, which, h))
            .map(|(a, b)| a - b)
            .collect();
        let floor = 1e-6 * largest(tangent(damped, n, x, coefficients).into_iter());
        let scale = largest(fd.iter().copied()).max(floor);
        let error = largest(exact.iter().zip(&fd).map(|(a, b)| a - b)) / scale;
        println!("{what}: damping part of {name} vs central differences: {error:.1e} of its largest entry {scale:.3e}");
        assert!(scale > 0.0 && error < 1e-6, "{what}: {name} error {error:.2e}");
    }
    let damping_force = |v: &[f64]| -> Vec<f64> {
        let (d, p) = (residual(damped, n, x[0], v, x[2]), residual(plain, n, x[0], v, x[2]));
        d.iter().zip(&p).map(|(a, b)| a - b).collect()
    };
    // The power at velocities v over a short step through q along `along` (the integrators
    // pass their steps): the damping force at v times the deformations' rates over the step.
    let power_along = |v: &[f64], along: &[f64]| {
        let eps = 1e-6;
        let start: Vec<f64> = x[0].iter().zip(along).map(|(q, w)| q - 0.5 * eps * w).collect();
        let end: Vec<f64> = x[0].iter().zip(along).map(|(q, w)| q + 0.5 * eps * w).collect();
        let stride = Stride { start: &start, end: &end, h: eps };
        damped.power(&Kin::without_inputs(x[0], v, x[2], 0.0), &stride).dissipated
    };
    let power = |v: &[f64]| power_along(v, v);
    let (moving, turning) = (largest(damping_force(x[1]).into_iter()), largest(damping_force(rigid).into_iter()));
    let (p_moving, p_turning) = (power(x[1]), power(rigid));
    // As the step shrinks, the power tends to the damping force at v times the velocity the
    // step moves at (v itself, or another).
    for (name, along) in [("the velocities", x[1]), ("another velocity", x[2])] {
        let work_rate: f64 = damping_force(x[1]).iter().zip(along).map(|(f, w)| f * w).sum();
        let p = power_along(x[1], along);
        println!("{what}: damping power over a short step along {name} {p:.6e} W, force . velocity {work_rate:.6e} W");
        assert!((p - work_rate).abs() < 1e-6 * work_rate.abs(), "{what}: power along {name} {p:e} vs {work_rate:e}");
    }
    println!(
        "{what}: damping force {moving:.3e}, at a rigid motion {turning:.1e}; dissipated power {p_moving:.3e} W, \
         at a rigid motion {p_turning:.1e} W"
    );
    assert!(p_moving > 0.0 && moving > 0.0, "{what}: no damping at the deformation rates");
    assert!(turning < 1e-10 * moving && p_turning.abs() < 1e-10 * p_moving, "{what}: rigid motion damped");
}

fn planar_properties(shear: bool) -> BeamProperties {
    let (b, h, e, nu) = (0.015, 0.01, 1.0e7, 0.3);
    BeamProperties {
        young: e,
        shear: e / (2.0 * (1.0 + nu)),
        area: b * h,
        inertia: b * h * h * h / 12.0,
        shear_factor: shear.then(|| BeamProperties::rectangle_shear_factor(nu)),
        density: 5540.0,
        rotary_inertia: None,
    }
}

/// The rate of a planar point `r` in the rigid motion (translation `v` of the origin,
/// angular velocity `w`).
fn planar_rigid(v: [f64; 2], w: f64, r: [f64; 2]) -> [f64; 2] {
    [v[0] - w * r[1], v[1] + w * r[0]]
}

#[test]
fn corotational_2d_element_damping_tangents_and_objectivity() {
    let beta: f64 = 0.7;
    let q = [0.1, -0.2, beta + 0.05, 0.1 + 0.31 * beta.cos(), -0.2 + 0.31 * beta.sin(), beta - 0.08];
    let v = [0.3, -1.1, 2.0, -0.4, 0.9, -1.5];
    let a = [1.3, 0.4, -3.0, 2.2, -0.7, 5.0];
    let (w, vt) = (1.7, [0.4, -0.3]);
    let (r1, r2) = (planar_rigid(vt, w, [q[0], q[1]]), planar_rigid(vt, w, [q[3], q[4]]));
    let rigid = [r1[0], r1[1], w, r2[0], r2[1], w];
    for shear in [false, true] {
        let plain = CorotationalBeam2d::new(0, 3, 0.3, &planar_properties(shear), [0.0, -9.81]);
        let damped = plain.clone().with_damping(0.01);
        check_element(
            if shear { "corotational 2D Timoshenko" } else { "corotational 2D Euler-Bernoulli" },
            &plain,
            &damped,
            6,
            [&q, &v, &a],
            &rigid,
        );
    }
}

#[test]
fn ancf_element_damping_tangents_and_objectivity() {
    let p = planar_properties(true);
    let plain = AncfBeam2d::new([0, 4, 8], 0.3, &p, [0.0, -9.81]);
    let damped = plain.clone().with_damping(0.01);
    // A deformed element: nodes along an angle of 0.6 rad, moved off the line, slopes turned
    // and stretched.
    let (s, c) = 0.6f64.sin_cos();
    let mut q = [0.0; 12];
    let bumps = [[0.002, -0.003, 0.02, -0.03], [0.001, 0.004, -0.05, 0.01], [-0.002, 0.001, 0.04, 0.02]];
    for m in 0..3 {
        let x = 0.15 * m as f64;
        q[4 * m..4 * m + 4].copy_from_slice(&[
            0.2 + c * x + bumps[m][0],
            -0.1 + s * x + bumps[m][1],
            -s + bumps[m][2],
            c + bumps[m][3],
        ]);
    }
    let v: Vec<f64> = (0..12).map(|k| ((k * 7 % 5) as f64 - 2.0) * 0.3 + 0.1 * k as f64).collect();
    let a = vec![0.5; 12];
    let (w, vt) = (-2.3, [0.7, 0.2]);
    let mut rigid = [0.0; 12];
    for m in 0..3 {
        let r = planar_rigid(vt, w, [q[4 * m], q[4 * m + 1]]);
        let d = planar_rigid([0.0; 2], w, [q[4 * m + 2], q[4 * m + 3]]);
        rigid[4 * m..4 * m + 4].copy_from_slice(&[r[0], r[1], d[0], d[1]]);
    }
    check_element("ANCF", &plain, &damped, 12, [&q, &v, &a], &rigid);
}

#[test]
fn floating_frame_damping_tangents() {
    let p = planar_properties(false);
    let plain = FloatingFrameBeam2d::new(0, 0.8, 3, &p, [0.0, -9.81]);
    let damped = plain.clone().with_damping(0.01);
    let q = [0.1, -0.2, 0.4, 0.001, -0.0005, 0.0002, 0.02, -0.004, 0.001];
    let v = [0.3, -0.2, 1.1, 0.01, -0.02, 0.005, 0.3, -0.1, 0.05];
    let a = [0.2; 9];
    // The frame's rigid motion with the modal rates at rest.
    let rigid = [0.3, -0.2, 1.1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    check_element("floating frame", &plain, &damped, 9, [&q, &v, &a], &rigid);
}

#[test]
fn spatial_element_damping_tangents_and_objectivity() {
    // The element of the 3D beam tests: a curved rest shape, Timoshenko (k = 0.85), gravity.
    let (plain, rest) = element(Some(0.85));
    let (x1, x2) = ([rest[0], rest[1], rest[2]], [rest[7], rest[8], rest[9]]);
    let (p1, p2) = ([rest[3], rest[4], rest[5], rest[6]], [rest[10], rest[11], rest[12], rest[13]]);
    let damped = plain.clone().with_damping(1e-4);
    // Deformed: the end moved, both nodes turned (Euler parameters off p.p = 1 on node 2).
    let mut q = [0.0; 14];
    q[..3].copy_from_slice(&x1);
    q[3..7].copy_from_slice(&compose(from_axis_angle(unit([0.2, 1.0, -0.4]), 0.1), p1));
    q[7..10].copy_from_slice(&[x2[0] + 0.01, x2[1] - 0.02, x2[2] + 0.015]);
    q[10..].copy_from_slice(&compose(from_axis_angle(unit([-0.7, 0.1, 0.5]), 0.15), p2).map(|x| 1.1 * x));
    let v: Vec<f64> = (0..14).map(|k| ((k * 5 % 7) as f64 - 3.0) * 0.2 + 0.05 * k as f64).collect();
    let a = vec![0.3; 14];
    // Rigid motion: x' = vt + w x x, p' = 1/2 (0, w) p (w global).
    let (w, vt) = ([0.4, -1.2, 2.1], [0.3, 0.5, -0.2]);
    let mut rigid = [0.0; 14];
    for node in 0..2 {
        let o = 7 * node;
        let x = [q[o], q[o + 1], q[o + 2]];
        let wx = [w[1] * x[2] - w[2] * x[1], w[2] * x[0] - w[0] * x[2], w[0] * x[1] - w[1] * x[0]];
        let p: [f64; 4] = std::array::from_fn(|k| q[o + 3 + k]);
        let pd = compose([0.0, w[0], w[1], w[2]], p).map(|x| 0.5 * x);
        for k in 0..3 {
            rigid[o + k] = vt[k] + wx[k];
        }
        rigid[o + 3..o + 7].copy_from_slice(&pd);
    }
    check_element("corotational 3D", &plain, &damped, 14, [&q, &v, &a], &rigid);
}

// ---------------------------------------------------------------------------------------------
// Simulations

/// The cantilever of the decay tests: steel, 1 m, 20 mm (out of plane) x 10 mm.
const L: f64 = 1.0;
const WIDTH: f64 = 0.02;
const HEIGHT: f64 = 0.01;
const YOUNG: f64 = 2.1e11;
const RHO: f64 = 7850.0;
/// The target damping ratio of the first mode.
const ZETA: f64 = 0.02;

/// omega_1 of the Euler-Bernoulli cantilever, 1.8751^2 sqrt(EI / (rho A L^4)).
fn omega1_theory() -> f64 {
    let (a, i) = (WIDTH * HEIGHT, WIDTH * HEIGHT.powi(3) / 12.0);
    1.875_104_07f64.powi(2) * (YOUNG * i / (RHO * a * L.powi(4))).sqrt()
}

/// A cantilever clamped at `start`, loaded at its tip along y by P u (u an input, 1 at the
/// start), with material damping `beta`, on TTBIF at rho_inf = 1 with step `h`.
fn cantilever(dimension: usize, formulation: &str, discretisation: &str, beta: f64, h: f64) -> String {
    let (model, end, section, direction, point) = if dimension == 3 {
        ("dimension = 3\n", "[1.0, 0.0, 0.0]", "[0.0, 0.0, 0.0]", "[0.0, 1.0, 0.0]", "point = [0.0, 0.0, 0.0]\n")
    } else {
        ("", "[1.0, 0.0]", "[0.0, 0.0]", "[0.0, 1.0]", "")
    };
    format!(
        "[model]\nname = \"decay\"\n{model}\n[parameters]\nP = 5.0\n\n[solver]\nintegrator = \"ttbif\"\nrho_inf = 1.0\nstep = {h:e}\n\n\
         [[inputs]]\nname = \"u\"\nstart = 1.0\n\n\
         [[beams]]\nname = \"beam\"\nstart = {section}\nend = {end}\nformulation = \"{formulation}\"\n{discretisation}\n\
         section = {{ width = {WIDTH:e}, height = {HEIGHT:e} }}\n\
         material = {{ E = {YOUNG:e}, nu = 0.3, rho = {RHO:e}, damping = {beta:e} }}\n\n\
         [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"beam.start\"\n{point}\n\
         [[loads]]\ntype = \"force\"\nbody = \"beam.end\"\ndirection = {direction}\nvalue = \"P*u\"\n\n\
         [[outputs]]\nname = \"tip_y\"\nquantity = \"y\"\nbody = \"beam.end\"\n\n\
         [[outputs]]\nname = \"energy_total\"\nquantity = \"energy_total\"\n\n\
         [[outputs]]\nname = \"energy_dissipated\"\nquantity = \"energy_dissipated\"\n"
    )
}

fn output(sim: &mut Simulation, name: &str) -> f64 {
    let i = sim.outputs().iter().position(|o| o.name == name).unwrap();
    sim.output_values().unwrap()[i]
}

/// What a decay run measured.
struct Decay {
    /// The first natural frequency of the discrete beam (rad/s).
    omega1: f64,
    /// Damping ratio from the logarithmic decrement of the tip's peaks after the first period.
    zeta: f64,
    /// Mean time between those peaks (s).
    period: f64,
    /// The relative change of energy_total + energy_dissipated over the run.
    balance: f64,
    /// The relative change of energy_total over the run.
    energy_change: f64,
    /// Newton iterations per step.
    iterations: f64,
}

/// Release the cantilever `text` from its static deflection under the tip load (u = 1 -> 0)
/// and follow `periods` periods of its first mode at `per_period` steps each.
fn decay(text: &str, periods: usize, per_period: usize) -> Decay {
    let model = Model::parse(text, "decay.toml").unwrap_or_else(|e| panic!("{e}"));
    let params = model.default_parameters();
    let settings = SolverSettings::from_model(&model, &params).unwrap();
    let mut sim = Simulation::new(&model, &params, settings, 0.0).unwrap();
    let f = sim.natural_frequencies().unwrap();
    let omega1 = 2.0 * PI * f.iter().copied().fold(f64::INFINITY, f64::min);
    sim.settle_static(0.0).unwrap();
    sim.set_input(0, 0.0).unwrap();
    let h = 2.0 * PI / omega1 / per_period as f64;
    let (mut t, mut y) = (vec![0.0], vec![output(&mut sim, "tip_y")]);
    let e0 = output(&mut sim, "energy_total");
    for k in 1..=periods * per_period {
        sim.step_to(k as f64 * h).unwrap();
        t.push(sim.time());
        y.push(output(&mut sim, "tip_y"));
    }
    let (e1, d1) = (output(&mut sim, "energy_total"), output(&mut sim, "energy_dissipated"));
    // Peaks: local maxima, refined by the parabola through the three samples.
    let mut peaks = Vec::new();
    for k in 1..y.len() - 1 {
        if y[k] > y[k - 1] && y[k] >= y[k + 1] && y[k] > 0.0 {
            let (a, b, c) = (y[k - 1], y[k], y[k + 1]);
            let s = 0.5 * (a - c) / (a - 2.0 * b + c);
            peaks.push((t[k] + s * (t[k + 1] - t[k]), b - 0.25 * (a - c) * s));
        }
    }
    // Skip the release's first period, where the higher modes are still ringing down.
    let peaks = &peaks[1..];
    let n = peaks.len() - 1;
    let delta = (peaks[0].1 / peaks[n].1).ln() / n as f64;
    let stats = sim.statistics();
    Decay {
        omega1,
        zeta: delta / (4.0 * PI * PI + delta * delta).sqrt(),
        period: (peaks[n].0 - peaks[0].0) / n as f64,
        balance: (e1 + d1 - e0) / e0,
        energy_change: (e1 - e0) / e0,
        iterations: stats.newton_iterations as f64 / stats.steps as f64,
    }
}

#[test]
fn cantilever_decay_matches_the_kelvin_voigt_damping_ratio() {
    let theory = omega1_theory();
    let beta = 2.0 * ZETA / theory;
    let (periods, per_period) = (8, 200);
    for (dimension, formulation, discretisation) in [
        (2, "timoshenko", "elements = 8"),
        (2, "euler_bernoulli", "elements = 8"),
        (2, "ancf", "elements = 4"),
        (2, "floating_frame", "modes = 4"),
        (3, "timoshenko", "elements = 8"),
    ] {
        let what = format!("{dimension}D {formulation}");
        let h = 2.0 * PI / theory / per_period as f64;
        let plain = decay(&cantilever(dimension, formulation, discretisation, 0.0, h), periods, per_period);
        let damped = decay(&cantilever(dimension, formulation, discretisation, beta, h), periods, per_period);
        let expected = beta * damped.omega1 / 2.0;
        let error = damped.zeta / expected - 1.0;
        // The run without damping: energy_total kept, i.e. no numerical damping of the mode
        // (its decrement would show the higher modes' beating instead).
        let numerical = -plain.energy_change / (2.0 * plain.omega1 * periods as f64 * 2.0 * PI / plain.omega1);
        let damped_period = 2.0 * PI / (damped.omega1 * (1.0 - expected * expected).sqrt());
        println!(
            "{what}: omega_1 {:.4} rad/s (Euler-Bernoulli theory {theory:.4}); zeta measured {:.5}, \
             beta omega_1 / 2 = {expected:.5} ({:+.3} %); period {:.6} s vs {damped_period:.6} s; \
             undamped run: energy change {:.1e} (numerical zeta {numerical:.1e}); damped run: balance \
             E + D {:.1e}; Newton iterations per step {:.2} damped, {:.2} undamped",
            damped.omega1,
            damped.zeta,
            100.0 * error,
            damped.period,
            plain.energy_change,
            damped.balance,
            damped.iterations,
            plain.iterations
        );
        assert!((damped.omega1 / theory - 1.0).abs() < 0.01, "{what}: omega_1 {}", damped.omega1);
        assert!(numerical.abs() < 1e-3 * expected, "{what}: numerical damping {numerical:.2e}");
        assert!(error.abs() < 0.01, "{what}: zeta {} vs {expected}", damped.zeta);
        assert!((damped.period / damped_period - 1.0).abs() < 2e-3, "{what}: period {}", damped.period);
        // The balance's error is the dissipation quadrature's on the higher modes the release
        // excites (omega h up to 1 for the fourth bending mode): 1.8e-4 at 200 steps per
        // period, 1.1e-5 at 800 (second order); the pendulum test checks it at resolved motion.
        assert!(damped.balance.abs() < 5e-4, "{what}: energy balance {:.2e}", damped.balance);
        assert!(damped.iterations < 1.25 * plain.iterations + 0.25, "{what}: Newton iterations");
    }
}

/// A damped flexible pendulum (E = 1e7 Pa, 1.2 m, released horizontal under gravity, pinned at
/// its start; `dimension` 2 or 3) with the energy outputs, on TTBIF at rho_inf = 1, step `h`.
fn pendulum(dimension: usize, formulation: &str, discretisation: &str, beta: f64, h: f64) -> String {
    let (model, end, joint) = if dimension == 3 {
        (
            "dimension = 3\ngravity = [0.0, 0.0, -9.81]\n",
            "[1.2, 0.0, 0.0]",
            "type = \"spherical\"\npoint = [0.0, 0.0, 0.0]\n",
        )
    } else {
        ("gravity = [0.0, -9.81]\n", "[1.2, 0.0]", "type = \"revolute\"\n")
    };
    let start = if dimension == 3 { "[0.0, 0.0, 0.0]" } else { "[0.0, 0.0]" };
    format!(
        "[model]\nname = \"pendulum\"\n{model}\n[solver]\nintegrator = \"ttbif\"\nrho_inf = 1.0\nstep = {h:e}\n\n\
         [[beams]]\nname = \"arm\"\nstart = {start}\nend = {end}\nformulation = \"{formulation}\"\n{discretisation}\n\
         section = {{ width = 0.015, height = 0.01 }}\n\
         material = {{ E = 1e7, nu = 0.3, rho = 5540.0, damping = {beta:e} }}\n\n\
         [[joints]]\nname = \"pin\"\n{joint}body2 = \"arm.start\"\n\n\
         [[outputs]]\nname = \"energy_total\"\nquantity = \"energy_total\"\n\n\
         [[outputs]]\nname = \"energy_dissipated\"\nquantity = \"energy_dissipated\"\n\n\
         [[outputs]]\nname = \"energy_potential\"\nquantity = \"energy_potential\"\n"
    )
}

#[test]
fn damped_pendulum_keeps_its_energy_balance() {
    // m g L / 2: the potential energy the pendulum can release; the balance is relative to it.
    let scale = 5540.0 * 0.015 * 0.01 * 1.2 * 9.81 * 0.6;
    for (dimension, formulation, discretisation, beta) in [
        (2, "timoshenko", "elements = 4", 0.05),
        (2, "ancf", "elements = 3", 0.05),
        (2, "floating_frame", "modes = 3", 0.05),
        (3, "timoshenko", "elements = 4", 0.05),
    ] {
        let what = format!("{dimension}D {formulation}");
        let text = pendulum(dimension, formulation, discretisation, beta, 3e-4);
        let model = Model::parse(&text, "pendulum.toml").unwrap_or_else(|e| panic!("{e}"));
        let params = model.default_parameters();
        let settings = SolverSettings::from_model(&model, &params).unwrap();
        let mut sim = Simulation::new(&model, &params, settings, 0.0).unwrap();
        let e0 = output(&mut sim, "energy_total");
        let (mut worst, mut dissipated) = (0.0f64, Vec::new());
        for k in 1..=100 {
            sim.step_to(0.01 * k as f64).unwrap();
            let (e, d) = (output(&mut sim, "energy_total"), output(&mut sim, "energy_dissipated"));
            worst = worst.max((e + d - e0).abs() / scale);
            dissipated.push(d);
        }
        let stats = sim.statistics();
        println!(
            "{what}, beta {beta} s: energy_dissipated {:.4e} J after 0.5 s, {:.4e} J after 1 s (m g L/2 = {scale:.3} J); \
             largest |E + D - E0| {worst:.1e} of m g L/2; {:.2} Newton iterations per step",
            dissipated[49],
            dissipated[99],
            stats.newton_iterations as f64 / stats.steps as f64
        );
        assert!(dissipated[99] > 1e-3 * scale, "{what}: nothing dissipated");
        assert!(dissipated.windows(2).all(|w| w[1] >= w[0]), "{what}: energy_dissipated decreased");
        assert!(worst < 1e-4, "{what}: energy balance {worst:.2e}");
    }
}

/// A free beam (no gravity, no joints) spinning at `w` rad/s about its start, with outputs of
/// the energies and, in 3D, the angular momentum; the positions of its ends.
fn spinning(dimension: usize, formulation: &str, discretisation: &str, w: f64) -> String {
    let (model, end, omega, extra) = if dimension == 3 {
        (
            "dimension = 3\n",
            "[1.0, 0.0, 0.0]",
            format!("[0.0, 0.0, {w:e}]"),
            "[[outputs]]\nname = \"lz\"\nquantity = \"angular_momentum_z\"\n",
        )
    } else {
        ("", "[1.0, 0.0]", format!("{w:e}"), "")
    };
    let start = if dimension == 3 { "[0.0, 0.0, 0.0]" } else { "[0.0, 0.0]" };
    let mut text = format!(
        "[model]\nname = \"spin\"\n{model}\n[solver]\nintegrator = \"ttbif\"\nrho_inf = 1.0\nstep = 2.5e-4\n\n\
         [[beams]]\nname = \"arm\"\nstart = {start}\nend = {end}\nformulation = \"{formulation}\"\n{discretisation}\n\
         section = {{ width = {WIDTH:e}, height = {HEIGHT:e} }}\n\
         material = {{ E = {YOUNG:e}, nu = 0.3, rho = {RHO:e}, damping = 1e-3 }}\nangular_velocity = {omega}\n\n\
         [[outputs]]\nname = \"energy_total\"\nquantity = \"energy_total\"\n\n\
         [[outputs]]\nname = \"energy_dissipated\"\nquantity = \"energy_dissipated\"\n\n\
         [[outputs]]\nname = \"energy_potential\"\nquantity = \"energy_potential\"\n{extra}"
    );
    for (body, tag) in [("arm.start", "0"), ("arm.end", "1")] {
        for q in ["x", "y"] {
            text += &format!("[[outputs]]\nname = \"{q}{tag}\"\nquantity = \"{q}\"\nbody = \"{body}\"\n");
        }
    }
    text
}

#[test]
fn a_damped_beam_spinning_freely_dissipates_nothing() {
    // beta = 1 ms damps the first bending mode of this steel beam by 2.6 % and its axial
    // modes many times over; the spin (2 rad/s) strains the beam by rho w^2 L^2 / E ~ 1e-7
    // only, so what is dissipated is about the strain energy of that stretch. (A damping
    // C = beta K0 fixed in the global frame would damp the rigid turn itself.)
    let w = 2.0;
    for (dimension, formulation, discretisation) in [
        (2, "timoshenko", "elements = 6"),
        (2, "euler_bernoulli", "elements = 6"),
        (2, "ancf", "elements = 3"),
        (2, "floating_frame", "modes = 3"),
        (3, "timoshenko", "elements = 6"),
    ] {
        let what = format!("{dimension}D {formulation}");
        let model = Model::parse(&spinning(dimension, formulation, discretisation, w), "spin.toml")
            .unwrap_or_else(|e| panic!("{e}"));
        let params = model.default_parameters();
        let settings = SolverSettings::from_model(&model, &params).unwrap();
        let mut sim = Simulation::new(&model, &params, settings, 0.0).unwrap();
        let e0 = output(&mut sim, "energy_total");
        let l0 = if dimension == 3 { output(&mut sim, "lz") } else { 0.0 };
        let t_end = 2.0;
        sim.step_to(t_end).unwrap();
        let (e1, d1) = (output(&mut sim, "energy_total"), output(&mut sim, "energy_dissipated"));
        let strain = output(&mut sim, "energy_potential");
        let chord = [output(&mut sim, "x1") - output(&mut sim, "x0"), output(&mut sim, "y1") - output(&mut sim, "y0")];
        let angle = chord[1].atan2(chord[0]);
        let turned = (angle - w * t_end + PI).rem_euclid(2.0 * PI) - PI;
        let dl = if dimension == 3 { (output(&mut sim, "lz") - l0) / l0 } else { 0.0 };
        println!(
            "{what}: kinetic energy {e0:.6} J; after {t_end} s (a turn of {:.2} rad) energy_dissipated {d1:.2e} J \
             ({:.1e} of it; strain energy of the spin's stretch {strain:.2e} J), energy_total change {:.1e}, \
             chord angle - w t = {turned:.1e} rad, angular momentum change {dl:.1e}",
            w * t_end,
            d1 / e0,
            (e1 - e0) / e0
        );
        // Starting unstretched, the beam creeps (overdamped axially) into the stretch the spin
        // asks for, dissipating that stretch's strain energy, as a damper loading a spring
        // does (0.99 of it at this step, 0.93 at h = 1 ms where the 1 ms creep is not
        // resolved; counted as a quadrature of the stage powers it was 1.5 and 8.5 times it);
        // the rigid turn itself dissipates nothing.
        assert!(
            (0.8 * strain..1.2 * strain).contains(&d1) && d1 < 1e-8 * e0,
            "{what}: the rigid spin dissipated {d1:.3e} J"
        );
        assert!(((e1 + d1 - e0) / e0).abs() < 1e-6, "{what}: energy balance");
        assert!(turned.abs() < 1e-5, "{what}: the beam did not keep turning at w: {turned:.2e} rad");
        assert!(dl.abs() < 1e-7, "{what}: angular momentum change {dl:.2e}");
    }
}

#[test]
fn negative_damping_and_damping_on_a_plate_are_located_errors() {
    for dimension in [2, 3] {
        let text = cantilever(dimension, "timoshenko", "elements = 2", 1e-3, 1e-3);
        let bad = text.replace("damping = 1e-3", "damping = \"-2*P\"");
        let line = bad.lines().position(|l| l.contains("damping = \"-2*P\"")).unwrap() + 1;
        let m = Model::parse(&bad, "bad.toml").unwrap();
        let err = Simulation::new(&m, &m.default_parameters(), SolverSettings::default(), 0.0).map(|_| ()).unwrap_err();
        let err = err.to_string();
        println!("{err}");
        assert!(
            err.starts_with(&format!("bad.toml:{line}:")) && err.contains("damping must not be negative, got -10"),
            "{err}"
        );
    }
    let plate = "[model]\nname = \"p\"\ndimension = 3\n[[plates]]\nname = \"plate\"\nsize = [0.4, 0.2]\nthickness = 0.002\n\
                 material = { E = 7e10, nu = 0.3, rho = 2700.0, damping = 1e-4 }\nmesh = [8, 4]\nbodies = [2, 1]\n\
                 clamped = [\"x_min\"]\n";
    let m = Model::parse(plate, "plate.toml").unwrap();
    let err = Simulation::new(&m, &m.default_parameters(), SolverSettings::default(), 0.0).map(|_| ()).unwrap_err();
    let err = err.to_string();
    println!("{err}");
    assert!(err.starts_with("plate.toml:8:") && err.contains("damping_ratio"), "{err}");
}

/// A cantilever (steel, 20 x 40 mm, 1 m) under tip loads applied at t = 0, damped by
/// `beta`: in 2D a transverse force, in 3D forces in both planes and a twisting torque.
fn loaded_cantilever(dimension: usize, integrator: &str) -> String {
    let (model, end, point, loads, elements) = if dimension == 3 {
        let load = |kind: &str, d: &str| {
            format!("[[loads]]\ntype = \"{kind}\"\nbody = \"b.end\"\ndirection = {d}\nvalue = 10.0\n")
        };
        (
            "dimension = 3\n",
            "[1.0, 0.0, 0.0]",
            "[0.0, 0.0, 0.0]",
            load("force", "[0.0, 1.0, 0.0]") + &load("force", "[0.0, 0.0, 1.0]") + &load("torque", "[1.0, 0.0, 0.0]"),
            8,
        )
    } else {
        let load = "[[loads]]\ntype = \"force\"\nbody = \"b.end\"\ndirection = [0.0, -1.0]\nvalue = 10.0\n";
        ("", "[1.0, 0.0]", "[0.0, 0.0]", load.to_string(), 10)
    };
    let start = if dimension == 3 { "[0.0, 0.0, 0.0]" } else { "[0.0, 0.0]" };
    format!(
        r#"[model]
name = "loaded_cantilever"
{model}
[solver]
stop_time = 1.0
integrator = "{integrator}"

[[beams]]
name = "b"
start = {start}
end = {end}
elements = {elements}
section = {{ width = 0.02, height = 0.04 }}
material = {{ E = 2.1e11, nu = 0.3, rho = 7850.0, damping = 0.002 }}

[[joints]]
name = "clamp"
type = "fixed"
body2 = "b.start"
point = {point}

{loads}
[[outputs]]
name = "total"
quantity = "energy_total"

[[outputs]]
name = "kinetic"
quantity = "energy_kinetic"

[[outputs]]
name = "dissipated"
quantity = "energy_dissipated"

[[outputs]]
name = "supplied"
quantity = "energy_supplied"
"#
    )
}

#[test]
fn a_damped_cantilever_under_a_step_load_counts_the_dissipation_its_energy_lost() {
    // Loads applied at once do twice the work the static deflection stores; once the beam has
    // settled, the other half has left the motion: by the material damping, or by the method's
    // numerical damping of motions the step does not resolve (at the default 1 ms, the axial
    // and torsional modes, overdamped with zeta = beta omega / 2 > 1). So what
    // energy_dissipated counts may not exceed supplied - total at rest (the balance would
    // gain), and on a beam whose first modes hold most of that energy it is most of it.
    // The count is each damping force times its deformation's change over the step, weighted
    // like the method's velocities (src/integrators/stages.rs, `work_along`); for the
    // trapezoidal rule (Newmark) on the planar beam it is exactly what the step removes.
    // Counted as a quadrature of the stage powers instead, the 3D beam's count was 1.35 (TTBIF)
    // and 1.40 (Bathe) times what its energy lost, and the 2D beam's 1.0050, 1.0099 and 1.119
    // (Newmark).
    for (dimension, integrator, low, high) in [
        (2, "ttbif", 0.99, 1.0),
        (2, "bathe", 0.99, 1.0),
        (2, "newmark", 1.0 - 1e-6, 1.0 + 1e-6),
        (3, "ttbif", 0.95, 1.0),
        (3, "bathe", 0.95, 1.0),
    ] {
        let what = format!("{dimension}D {integrator}");
        let model = Model::parse(&loaded_cantilever(dimension, integrator), "cantilever.toml")
            .unwrap_or_else(|e| panic!("{e}"));
        let params = model.default_parameters();
        let settings = SolverSettings::from_model(&model, &params).unwrap();
        let mut sim = Simulation::new(&model, &params, settings, 0.0).unwrap();
        sim.step_to(1.0).unwrap();
        let (total, kinetic) = (output(&mut sim, "total"), output(&mut sim, "kinetic"));
        let (dissipated, supplied) = (output(&mut sim, "dissipated"), output(&mut sim, "supplied"));
        let lost = supplied - total;
        let ratio = dissipated / lost;
        println!(
            "{what}: supplied {supplied:.6e} J, total at rest {total:.6e} J (kinetic {kinetic:.1e} J), dissipated \
             {dissipated:.6e} J = {ratio:.6} of what the motion lost; balance warning: {:?}",
            sim.energy_balance_warning()
        );
        assert!(kinetic < 1e-6 * supplied, "{what}: the beam has not settled (kinetic {kinetic:e} J)");
        assert!((0.45..0.55).contains(&(lost / supplied)), "{what}: lost {lost:e} of {supplied:e} J");
        assert!(low <= ratio && ratio <= high, "{what}: dissipated {ratio} of what the motion lost");
        assert!(sim.energy_balance_warning().is_none(), "{what}: {:?}", sim.energy_balance_warning());
    }
}
