//! Springs whose free length is an expression of time, parameters and inputs (`[[springs]]
//! free_length`, docs/model-file.md): F = k (s - s0(t, u)) + c s', the damper acting on the
//! rate of s itself (src/mechanics/forces/spring_damper.rs; the fractional damper acts on s
//! too, src/mechanics/forces/fractional_damper.rs).
//!
//! References, a mass m = 1 kg on a prismatic joint with k = 100 N/m (omega = 10 rad/s),
//! starting at rest at x = 0:
//! - s0 = u = 0.1 (the input's start): x = 0.1 (1 - cos omega t);
//! - s0 = A sin(2 t), A = 0.1: x'' + c x' + omega^2 x = omega^2 A sin(2 t); the particular
//!   solution Im(X e^{2it}), X = k A / (k - 4 + 2ic), plus the damped free motion that starts
//!   the sum at rest;
//! - c = 4 and s0 = u: the damped step response u (1 - e^{-c t/2} (cos wd t + c/(2 wd) sin wd t)),
//!   wd = sqrt(k - c^2/4); energy_total + energy_dissipated = k u^2 / 2 (s0 is constant, the
//!   input does no work).
//!
//! A moving s0 changes the spring's potential k (s - s0)^2 / 2 by the work the input does:
//! d energy_total/dt = -k (s - s0) s0' - c s'^2 (checked on the undamped forced case).
//! A torsional spring (planar rod pivoted at its end, J_O phi'' = -k (phi - u)) and a spatial
//! one (a body hinged at its centre of mass) give phi = u (1 - cos(sqrt(k/J) t)).

use flexfmu::model::Model;
use fmi::fmi2::instance::{CoSimulation, Common};
use fmi::traits::FmiInstance;

use crate::common;
use common::fmu::{Fmu, read};
use common::sim::{output, refused, simulation_with};

const K: f64 = 100.0;
const OMEGA: f64 = 10.0;
const U: f64 = 0.1;

/// The mass on a prismatic joint with a prismatic spring (stiffness 100 N/m, damping `c`)
/// whose free length is `free_length`; `fractional` adds keys to the spring. Input `u`
/// (start 0.1 m); outputs x, ax, energy_total, energy_dissipated, energy_supplied and the
/// slide's reaction_y.
pub fn servo(free_length: &str, c: f64, fractional: &str) -> String {
    format!(
        r#"[model]
name = "servo"

[parameters]
m = 1.0
k = {K}
c = {c}

[solver]
integrator = "ttbif"
step = 1e-3
stop_time = 1.0
output_interval = 0.01

[[inputs]]
name = "u"
unit = "m"
start = {U}

[[point_masses]]
name = "mass"
mass = "m"
position = [0.0, 0.0]

[[joints]]
name = "slide"
type = "prismatic"
body2 = "mass"
point = [0.0, 0.0]
axis = [1.0, 0.0]

[[springs]]
name = "actuator"
type = "prismatic"
joint = "slide"
stiffness = "k"
damping = "c"
free_length = "{free_length}"
{fractional}
[[outputs]]
name = "x"
quantity = "x"
body = "mass"

[[outputs]]
name = "ax"
quantity = "ax"
body = "mass"

[[outputs]]
name = "energy_total"
quantity = "energy_total"

[[outputs]]
name = "energy_dissipated"
quantity = "energy_dissipated"

[[outputs]]
name = "energy_supplied"
quantity = "energy_supplied"

[[outputs]]
name = "reaction_y"
quantity = "reaction_y"
joint = "slide"
"#
    )
}

/// x(t) of m x'' + c x' + k x = k A sin(2 t) from rest at 0 (m = 1).
fn forced(c: f64, t: f64) -> f64 {
    let (a, b) = (K - 4.0, 2.0 * c);
    let scale = K * U / (a * a + b * b);
    let (re, im) = (scale * a, -scale * b);
    let (sigma, wd) = (0.5 * c, (K - 0.25 * c * c).sqrt());
    let (c1, xp1) = (-im, 2.0 * re);
    let c2 = (sigma * c1 - xp1) / wd;
    re * (2.0 * t).sin() + im * (2.0 * t).cos() + (-sigma * t).exp() * (c1 * (wd * t).cos() + c2 * (wd * t).sin())
}

/// The outputs `names` of `model` at t = 0.01 k, k = 0..=100, with internal step `h`.
fn run(model: &Model, h: f64, names: &[&str]) -> Vec<(f64, Vec<f64>)> {
    let mut sim = simulation_with(model, &[], |s| {
        s.step = h;
        s.tolerance = 1e-12;
    });
    let mut rows = Vec::new();
    for k in 0..=100 {
        let t = 0.01 * k as f64;
        sim.step_to(t).unwrap();
        rows.push((t, names.iter().map(|n| output(&mut sim, n)).collect()));
    }
    rows
}

/// The largest |x - exact(t)| over the rows (x the first column).
fn worst(rows: &[(f64, Vec<f64>)], exact: impl Fn(f64) -> f64) -> f64 {
    rows.iter().map(|(t, o)| (o[0] - exact(*t)).abs()).fold(0.0, f64::max)
}

#[test]
fn input_free_length_gives_the_step_response_through_the_facade_the_cli_and_the_fmu() {
    let text = servo("u", 0.0, "");
    let model = Model::parse(&text, "servo.toml").unwrap();
    let exact = |t: f64| U * (1.0 - (OMEGA * t).cos());
    let coarse = run(&model, 1e-3, &["x"]);
    let fine = run(&model, 5e-4, &["x"]);
    let (e1, e2) = (worst(&coarse, exact), worst(&fine, exact));
    println!("max |x - 0.1 (1 - cos 10 t)| over 1 s: {e1:.3e} (h = 1e-3), {e2:.3e} (h = 5e-4), ratio {:.3}", e1 / e2);
    // TTBIF is second order: the ratio is 4. Its phase error over 1.6 periods at
    // omega h = 0.01 is ~ (omega h)^2 / 12 * omega t = 8e-5 rad, times the amplitude 0.1:
    // 8e-6 m for the trapezoidal rule (TTBIF measured: 8.3e-7 m at h = 1e-3).
    assert!(e1 < 8e-6, "{e1}");
    assert!((3.8..4.2).contains(&(e1 / e2)), "second order: ratio {}", e1 / e2);

    // `flexfmu simulate --input u=0.1`: the same numbers as the facade at the model's step.
    let dir = tempfile::tempdir().unwrap();
    let (path, csv) = (dir.path().join("servo.toml"), dir.path().join("servo.csv"));
    std::fs::write(&path, &text).unwrap();
    let o = std::process::Command::new(common::cli::EXE)
        .args(["simulate".as_ref(), path.as_os_str(), "--input".as_ref(), "u=0.1".as_ref()])
        .args(["-o".as_ref(), csv.as_os_str()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let csv_text = std::fs::read_to_string(&csv).unwrap();
    let cli: Vec<f64> = csv_text.lines().skip(1).map(|l| l.split(',').nth(1).unwrap().parse().unwrap()).collect();
    let mut facade = simulation_with(&model, &[], |_| {});
    let mut reference = vec![output(&mut facade, "x")];
    for k in 1..=100 {
        facade.step_to(0.01 * k as f64).unwrap();
        reference.push(output(&mut facade, "x"));
    }
    assert_eq!(cli.len(), reference.len());
    let cli_gap = cli.iter().zip(&reference).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);

    // The FMU (the `fmi` crate): u set to 0.1, communication steps of 0.01 s.
    let fmu = Fmu::build(&model);
    let (u, x) = (fmu.vr("u"), fmu.vr("x"));
    let mut inst = fmu.start("servo", None, |i| {
        i.set_real(&[u], &[U]).unwrap();
    });
    let mut fmu_gap = (read(&mut inst, &[x])[0] - reference[0]).abs();
    for (k, expected) in reference.iter().enumerate().skip(1) {
        inst.do_step(0.01 * (k - 1) as f64, 0.01, true).unwrap();
        fmu_gap = fmu_gap.max((read(&mut inst, &[x])[0] - expected).abs());
    }
    FmiInstance::terminate(&mut inst).unwrap();
    println!("simulate vs facade: {cli_gap:.1e} m, FMU vs facade: {fmu_gap:.1e} m");
    assert!(cli_gap <= 1e-15 && fmu_gap <= 1e-15, "{cli_gap} {fmu_gap}");
}

#[test]
fn time_function_free_length_gives_the_forced_response_and_the_inputs_work() {
    let model = Model::parse(&servo("0.1*sin(2*t)", 0.0, ""), "servo.toml").unwrap();
    let names = ["x", "energy_total", "energy_supplied"];
    let coarse = run(&model, 1e-3, &names);
    let fine = run(&model, 5e-4, &names);
    let (e1, e2) = (worst(&coarse, |t| forced(0.0, t)), worst(&fine, |t| forced(0.0, t)));
    println!("max |x - forced| over 1 s: {e1:.3e} (h = 1e-3), {e2:.3e} (h = 5e-4), ratio {:.3}", e1 / e2);
    // Amplitudes 0.104 (2 rad/s) and 0.021 (10 rad/s): the phase error of the free part is the
    // step response's, ~ 2e-6 m.
    assert!(e1 < 4e-6, "{e1}");
    assert!((3.6..4.4).contains(&(e1 / e2)), "second order: ratio {}", e1 / e2);
    // The input's work: E(t) - E(0) = int -k (x - s0) s0' dt (trapezoid on the exact x, s0).
    let power = |t: f64| -K * (forced(0.0, t) - U * (2.0 * t).sin()) * 2.0 * U * (2.0 * t).cos();
    let n = 100_000;
    let work: f64 = (0..n)
        .map(|j| {
            let (a, b) = (j as f64 / n as f64, (j + 1) as f64 / n as f64);
            0.5 * (power(a) + power(b)) * (b - a)
        })
        .sum();
    let gained = fine.last().unwrap().1[1] - fine[0].1[1];
    let supplied = fine.last().unwrap().1[2];
    println!(
        "energy_total change {gained:.8} J, energy_supplied {supplied:.8} J, work of the moving free length \
         {work:.8} J"
    );
    assert!(work.abs() > 1e-3);
    assert!((gained - work).abs() < 1e-4 * work.abs(), "{gained} vs {work}");
    assert!((supplied - work).abs() < 1e-4 * work.abs(), "{supplied} vs {work}");
}

/// An input changed between steps moves the free length at once: energy_total jumps by
/// k ((x - u1)^2 - (x - u0)^2) / 2 at the same x, and energy_supplied by as much, so
/// energy_total + energy_dissipated - energy_supplied keeps its initial value through the
/// jumps (damped servo, c = 4, u set to 0.3, then -0.2).
#[test]
fn an_input_step_supplies_the_energy_it_adds_to_the_spring() {
    let model = Model::parse(&servo("u", 4.0, ""), "servo.toml").unwrap();
    let mut sim = simulation_with(&model, &[], |s| s.tolerance = 1e-12);
    let balance = |sim: &mut flexfmu::simulation::Simulation| {
        output(sim, "energy_total") + output(sim, "energy_dissipated") - output(sim, "energy_supplied")
    };
    let e0 = balance(&mut sim);
    let mut worst = 0.0f64;
    for (t, u) in [(0.3, 0.3), (0.6, -0.2), (1.0, -0.2)] {
        sim.step_to(t).unwrap();
        worst = worst.max((balance(&mut sim) - e0).abs());
        let (x, before) = (output(&mut sim, "x"), output(&mut sim, "energy_supplied"));
        let u0 = sim.inputs()[0];
        sim.set_input(0, u).unwrap();
        let jump = 0.5 * K * ((x - u).powi(2) - (x - u0).powi(2));
        let got = output(&mut sim, "energy_supplied") - before;
        assert!((got - jump).abs() <= 1e-12 * jump.abs().max(1.0), "jump {got} against {jump}");
        worst = worst.max((balance(&mut sim) - e0).abs());
    }
    println!("max |E + D - S - E0| {worst:.2e} J (k u^2/2 = {:.2e} J)", 0.5 * K * 0.3 * 0.3);
    assert!(worst < 1e-4 * 0.5 * K * 0.3 * 0.3, "{worst}");
}

#[test]
fn damped_input_spring_gives_the_damped_step_response_and_balances_energy() {
    let c = 4.0;
    let model = Model::parse(&servo("u", c, ""), "servo.toml").unwrap();
    let (sigma, wd) = (0.5 * c, (K - 0.25 * c * c).sqrt());
    let exact = |t: f64| U * (1.0 - (-sigma * t).exp() * ((wd * t).cos() + sigma / wd * (wd * t).sin()));
    let rows = run(&model, 1e-3, &["x", "energy_total", "energy_dissipated"]);
    let error = worst(&rows, exact);
    let balance =
        rows.iter().map(|(_, o)| (o[1] + o[2] - 0.5 * K * U * U).abs()).fold(0.0, f64::max) / (0.5 * K * U * U);
    println!("damped step: max |x - exact| {error:.3e} m, max |E + D - k u^2/2| / (k u^2/2) {balance:.2e}");
    assert!(error < 4e-6, "{error}");
    assert!(balance < 1e-4, "{balance}");

    // A moving free length with the viscous damper on s' (not on (s - s0)'), and the
    // fractional element of order 1 (its Grünwald series is the backward difference of q,
    // first order in h) acting on s likewise.
    let viscous = Model::parse(&servo("0.1*sin(2*t)", c, ""), "servo.toml").unwrap();
    let e = worst(&run(&viscous, 1e-3, &["x"]), |t| forced(c, t));
    let fractional = Model::parse(&servo("0.1*sin(2*t)", c, "fractional_order = 1.0\n"), "servo.toml").unwrap();
    let f1 = worst(&run(&fractional, 1e-3, &["x"]), |t| forced(c, t));
    let f2 = worst(&run(&fractional, 5e-4, &["x"]), |t| forced(c, t));
    println!(
        "forced, c = 4: viscous {e:.3e} m; fractional order 1: {f1:.3e} (h = 1e-3), {f2:.3e} (5e-4), ratio {:.3}",
        f1 / f2
    );
    assert!(e < 4e-6, "{e}");
    // The backward difference lags s' by h s''/2: a force error c h |s''|/2 ~ 4 * 5e-4 * 1 N
    // on the 100 N/m spring, ~2e-5 m (measured 3.1e-5 m at h = 1e-3, halving with h).
    assert!(f1 < 4e-5, "{f1}");
    assert!((1.8..2.2).contains(&(f1 / f2)), "first order: ratio {}", f1 / f2);
}

/// A planar rod (1 kg, 0.5 m) pivoted at its end with a torsional spring k = 2 N m/rad whose
/// free angle is input `w`, and the servo mass on its own slide with input `u`; outputs of
/// both and energy_total.
pub fn two_actuators() -> String {
    let servo = servo("u", 0.0, "");
    let body = servo.split("[[outputs]]").next().unwrap().replace("name = \"servo\"", "name = \"two\"");
    format!(
        r#"{body}
[[inputs]]
name = "w"
unit = "rad"
start = 0.2

[[rigid_bodies]]
name = "rod"
mass = 1.0
inertia = "1.0*0.5^2/12"
position = [0.25, 1.0]

[[joints]]
name = "pivot"
type = "revolute"
body2 = "rod"
point = [0.0, 1.0]

[[springs]]
name = "wrist"
type = "torsional"
joint = "pivot"
stiffness = 2.0
free_length = "w"

[[outputs]]
name = "x"
quantity = "x"
body = "mass"

[[outputs]]
name = "ax"
quantity = "ax"
body = "mass"

[[outputs]]
name = "slide_reaction"
quantity = "reaction_y"
joint = "slide"

[[outputs]]
name = "angle"
quantity = "angle"
body = "rod"

[[outputs]]
name = "alpha"
quantity = "angular_acceleration"
body = "rod"

[[outputs]]
name = "pivot_reaction"
quantity = "reaction_y"
joint = "pivot"

[[outputs]]
name = "energy"
quantity = "energy_total"
"#
    )
}

#[test]
fn torsional_input_spring_turns_the_rod_and_declares_exact_input_dependencies() {
    let model = Model::parse(&two_actuators(), "two.toml").unwrap();
    let j_o: f64 = 0.25 / 12.0 + 0.25 * 0.25;
    let omega = (2.0 / j_o).sqrt();
    let mut sim = simulation_with(&model, &[], |s| s.tolerance = 1e-12);
    let mut worst_angle = 0.0f64;
    for k in 1..=100 {
        let t = 0.01 * k as f64;
        sim.step_to(t).unwrap();
        worst_angle = worst_angle.max((output(&mut sim, "angle") - 0.2 * (1.0 - (omega * t).cos())).abs());
    }
    println!("rod: omega {omega:.4} rad/s, max |phi - 0.2 (1 - cos omega t)| {worst_angle:.3e} rad");
    // omega h = 0.0098: the step response's phase error, as the servo's, times 0.2 rad / 0.1 m.
    assert!(worst_angle < 2e-5, "{worst_angle}");

    // Dependencies: x, the slide's reaction and the angle read no input; ax reads u; the rod's
    // angular acceleration and its pivot reaction (one block with the rod) read w; the energy
    // reads both (each spring stores k (s - s0)^2 / 2 with its current free length).
    let names: Vec<String> = sim.outputs().iter().map(|o| o.name.clone()).collect();
    let expected: Vec<Vec<usize>> = names
        .iter()
        .map(|n| match n.as_str() {
            "ax" => vec![0],
            "alpha" | "pivot_reaction" => vec![1],
            "energy" => vec![0, 1],
            _ => vec![],
        })
        .collect();
    assert_eq!(sim.direct_dependencies(), expected, "{names:?}");

    // d outputs/d inputs against central differences of the outputs (set the input, read).
    let jacobian = sim.input_jacobian().unwrap();
    let ax = names.iter().position(|n| *n == "ax").unwrap();
    let alpha = names.iter().position(|n| *n == "alpha").unwrap();
    assert!((jacobian[ax][0] - K).abs() < 1e-9 * K, "d ax/du = {} vs k/m = {K}", jacobian[ax][0]);
    assert!((jacobian[alpha][1] - 2.0 / j_o).abs() < 1e-9 * 2.0 / j_o, "d alpha/dw = {}", jacobian[alpha][1]);
    for i in 0..2 {
        let u0 = sim.inputs()[i];
        let h = 1e-6;
        sim.set_input(i, u0 + h).unwrap();
        let plus = sim.output_values().unwrap().to_vec();
        sim.set_input(i, u0 - h).unwrap();
        let minus = sim.output_values().unwrap().to_vec();
        sim.set_input(i, u0).unwrap();
        for (o, row) in jacobian.iter().enumerate() {
            let fd = (plus[o] - minus[o]) / (2.0 * h);
            println!("d {} / d input {i}: {:.9} (central difference {fd:.9})", names[o], row[i]);
            assert!((row[i] - fd).abs() < 1e-6 * (1.0 + fd.abs()), "{}: {} vs {fd}", names[o], row[i]);
        }
    }
}

#[test]
fn spatial_torsional_input_spring_is_the_step_response() {
    // A body hinged at its centre of mass about z (J_zz = 0.02 kg m^2), k = 2 N m/rad: omega = 10.
    let text = r#"
[model]
name = "turntable"
dimension = 3

[[inputs]]
name = "u"
unit = "rad"
start = 0.1

[[rigid_bodies]]
name = "disk"
mass = 1.0
inertia = [[0.03, 0.0, 0.0], [0.0, 0.04, 0.0], [0.0, 0.0, 0.02]]
position = [0.0, 0.0, 0.0]

[[joints]]
name = "hinge"
type = "revolute"
body2 = "disk"
point = [0.0, 0.0, 0.0]
axis = [0.0, 0.0, 1.0]

[[springs]]
name = "twist"
type = "torsional"
joint = "hinge"
stiffness = 2.0
free_length = "u"

[[outputs]]
name = "phi"
quantity = "joint_position"
joint = "hinge"
"#;
    let model = Model::parse(text, "turntable.toml").unwrap();
    let exact = |t: f64| U * (1.0 - (OMEGA * t).cos());
    let e1 = worst(&run(&model, 1e-3, &["phi"]), exact);
    let e2 = worst(&run(&model, 5e-4, &["phi"]), exact);
    println!(
        "3D torsional: max |phi - 0.1 (1 - cos 10 t)| {e1:.3e} rad (h = 1e-3), {e2:.3e} (5e-4), ratio {:.3}",
        e1 / e2
    );
    assert!(e1 < 8e-6, "{e1}");
    assert!((3.6..4.4).contains(&(e1 / e2)), "second order: ratio {}", e1 / e2);
}

#[test]
fn unknown_names_in_a_free_length_are_located_errors_naming_what_may_appear() {
    let text = servo("u", 0.0, "");
    let (e, line) = refused(&text, "servo.toml", "free_length = \"u\"", "free_length = \"2*foo\"");
    assert_eq!((e.file.as_str(), e.line), ("servo.toml", line), "{e}");
    assert!(e.message.contains("unknown name 'foo' (parameters, inputs and t may appear here)"), "{e}");
    let (e, line) = refused(&text, "servo.toml", "free_length = \"u\"", "free_length = \"1/t\"");
    assert_eq!(e.line, line, "{e}");
    assert!(e.message.contains("free_length is inf at t = 0, the start time"), "{e}");
    // An input is still refused where only parameters may appear.
    let (e, line) = refused(&text, "servo.toml", "stiffness = \"k\"", "stiffness = \"u\"");
    assert_eq!(e.line, line, "{e}");
    assert!(
        e.message.contains(
            "(only parameters may appear here; the time t and inputs only in load values, drives and free lengths)"
        ),
        "{e}"
    );
}
