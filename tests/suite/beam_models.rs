//! Beam models: static cantilever deflection, first bending frequency, the flexible pendulum
//! benchmark (energy, step convergence), and located errors in `[[beams]]`.

use crate::common;
use common::cantilever;
use flexfmu::analysis::statics::static_equilibrium;
use flexfmu::integrators::{Dynamics, Method, TangentCoefficients};
use flexfmu::mechanics::System;
use flexfmu::mechanics::assemble::assemble;
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};
use nalgebra::DMatrix;
use std::time::Instant;

/// Dense Newton matrix c.mass*M + c.damping*C + c.stiffness*K (+ constraint rows/columns).
fn dense(sys: &System, q: &[f64], c: TangentCoefficients) -> DMatrix<f64> {
    let mut m = sys.newton_pattern();
    let n = sys.coordinates();
    let zeros = vec![0.0; n];
    let lambda = vec![0.0; sys.constraints()];
    sys.newton_matrix(q, &zeros, &zeros, &lambda, 0.0, c, &mut m);
    let d = m.dim();
    DMatrix::from_row_slice(d, d, &m.to_dense())
}

#[test]
fn static_tip_deflection_matches_timoshenko_theory() {
    let (l, b, h, e, nu, rho): (f64, f64, f64, f64, f64, f64) = (1.0, 0.05, 0.1, 2.0e11, 0.3, 7850.0);
    let (area, inertia) = (b * h, b * h * h * h / 12.0);
    let k = 10.0 * (1.0 + nu) / (12.0 + 11.0 * nu);
    let g = e / (2.0 * (1.0 + nu));
    // Small deflection: tip displacement ~ L / 10^5.
    let p = 1e-5 * 3.0 * e * inertia / (l * l * l);
    for (formulation, theory) in [
        ("timoshenko", p * l.powi(3) / (3.0 * e * inertia) + p * l / (k * g * area)),
        ("euler_bernoulli", p * l.powi(3) / (3.0 * e * inertia)),
    ] {
        let model = Model::parse(&cantilever(8, formulation, (l, b, h, e, nu, rho), p), "cantilever.toml").unwrap();
        let asm = assemble(&model, &model.default_parameters()).unwrap();
        let mut q = asm.initial.q.clone();
        static_equilibrium(&asm.system, &mut q, &mut vec![0.0; asm.system.constraints()], 0.0, 1e-13).unwrap();
        let tip = q[q.len() - 2];
        let err = (tip - theory).abs() / theory;
        println!(
            "{formulation}: tip deflection {tip:.6e} m, theory PL^3/3EI{} = {theory:.6e} m, error {:.3e}",
            if formulation == "timoshenko" { " + PL/kGA" } else { "" },
            err
        );
        assert!(err < 5e-3, "{formulation}: relative error {err:.3e}");
    }
}

#[test]
fn first_bending_frequency_of_clamped_beam() {
    // Slender beam (L/h = 120): Euler-Bernoulli theory applies to both formulations.
    let (l, b, h, e, nu, rho): (f64, f64, f64, f64, f64, f64) = (1.2, 0.015, 0.01, 1.0e7, 0.3, 5540.0);
    let (area, inertia) = (b * h, b * h * h * h / 12.0);
    let theory = 1.875104f64.powi(2) * (e * inertia / (rho * area * l.powi(4))).sqrt() / (2.0 * std::f64::consts::PI);
    for formulation in ["euler_bernoulli", "timoshenko"] {
        let model = Model::parse(&cantilever(16, formulation, (l, b, h, e, nu, rho), 0.0), "cantilever.toml").unwrap();
        let asm = assemble(&model, &model.default_parameters()).unwrap();
        let sys = &asm.system;
        let q = &asm.initial.q;
        let n = sys.coordinates();
        let mass = dense(sys, q, TangentCoefficients { mass: 1.0, damping: 0.0, stiffness: 0.0, lambda: 0.0 });
        let stiff = dense(sys, q, TangentCoefficients { mass: 0.0, damping: 0.0, stiffness: 1.0, lambda: 0.0 });
        // The clamp fixes node 0 (coordinates 0..3); keep the others.
        let free = n - 3;
        let mf = mass.view((3, 3), (free, free)).into_owned();
        let kf = stiff.view((3, 3), (free, free)).into_owned();
        let chol = mf.cholesky().expect("mass matrix is positive definite");
        let linv = chol.l().try_inverse().unwrap();
        let a = &linv * kf * linv.transpose();
        let a = (&a + a.transpose()) * 0.5;
        let omega2 = a.symmetric_eigen().eigenvalues.iter().cloned().fold(f64::INFINITY, f64::min);
        let f1 = omega2.sqrt() / (2.0 * std::f64::consts::PI);
        let err = (f1 - theory).abs() / theory;
        println!("{formulation}: f1 = {f1:.6} Hz, Euler-Bernoulli theory {theory:.6} Hz, error {err:.3e}");
        assert!(err < 1e-2, "{formulation}: relative error {err:.3e}");
    }
}

fn pendulum() -> Model {
    common::sim::example("pendulum_corotational")
}

/// Run to `t_end`: (tip_x, tip_y) and the largest |energy_total - initial|.
fn run(model: &Model, settings: SolverSettings, t_end: f64, interval: f64) -> ([f64; 2], f64) {
    let sim = Simulation::new(model, &model.default_parameters(), settings, 0.0).unwrap();
    common::sim::tip_and_energy_drift(sim, t_end, interval)
}

fn ttbif(step: f64) -> SolverSettings {
    SolverSettings { method: Method::Ttbif, rho_inf: 0.0, step, ..SolverSettings::default() }
}

#[test]
fn pendulum_energy_is_conserved() {
    let model = pendulum();
    let start = Instant::now();
    let (tip, drift) = run(&model, ttbif(3e-4), 1.0, 0.01);
    println!(
        "pendulum_corotational, TTBIF rho_inf = 0, dt = 3e-4, 1 s: tip = {tip:?}, max |E - E0| = {drift:.3e} J, {:.2} s",
        start.elapsed().as_secs_f64()
    );
    // m g L / 2 = 0.997 kg * 9.81 * 0.6 m ~ 6 J.
    assert!(drift < 6e-5, "energy drift {drift:.3e} J");
    // The pendulum has swung down past the vertical.
    assert!(tip[1] < -0.2);
}

#[test]
fn pendulum_converges_under_step_refinement() {
    let model = pendulum();
    let t_end = 0.5;
    let (reference, _) = run(&model, ttbif(3e-4 / 8.0), t_end, 0.05);
    let mut errors = Vec::new();
    for step in [1.2e-3, 6e-4, 3e-4] {
        let (tip, _) = run(&model, ttbif(step), t_end, 0.05);
        let err = ((tip[0] - reference[0]).powi(2) + (tip[1] - reference[1]).powi(2)).sqrt();
        println!("dt = {step:.1e}: tip error at t = {t_end} s vs dt = 3.75e-5: {err:.3e} m");
        errors.push(err);
    }
    for w in errors.windows(2) {
        // Second order: the ratio is ideally 4 (3 allows for the reference's own error).
        assert!(w[1] < w[0] / 3.0, "no convergence: {errors:?}");
    }
    assert!(errors[2] < 1e-3, "{errors:?}");
}

#[test]
fn cantilever_model_runs() {
    let model = common::sim::example("cantilever_corotational");
    let mut sim = Simulation::new(
        &model,
        &model.default_parameters(),
        SolverSettings::from_model(&model, &model.default_parameters()).unwrap(),
        0.0,
    )
    .unwrap();
    let names: Vec<_> = sim.outputs().iter().map(|o| o.name.clone()).collect();
    assert_eq!(names, ["tip_x", "tip_y", "tip_vy", "tip_rotation", "energy_total"]);
    let o = sim.output_values().unwrap().to_vec();
    assert_eq!(o[..4], [10.0, 0.0, 0.0, 0.0]);
    sim.step_to(0.03).unwrap();
    let o = sim.output_values().unwrap();
    // Pushed up by the tip force.
    assert!(o[1] > 0.0 && o[2] > 0.0 && o[3] > 0.0, "{o:?}");
}

/// Beam declarations with mistakes: each error is located at the offending value.
#[test]
fn beam_errors_are_located() {
    let base = cantilever(4, "timoshenko", (1.0, 0.05, 0.1, 2.0e11, 0.3, 7850.0), 1.0);
    let cases = [
        (
            "body2 = \"beam.start\"",
            "body2 = \"beam.node[9]\"",
            "unknown body 'beam.node[9]'",
            "body2 = \"beam.node[9]\"",
        ),
        // Two names of one node (was "these joints constrain nothing here", a probe).
        (
            "body2 = \"beam.start\"",
            "body1 = \"beam.node[0]\"\nbody2 = \"beam.start\"",
            "a joint needs two different bodies ('beam.node[0]' and 'beam.start' name the same one)",
            "body2 = \"beam.start\"",
        ),
        ("elements = \"elements\"", "elements = 0", "elements must be an integer >= 1", "elements = 0"),
        ("elements = \"elements\"", "elements = 2.5", "elements must be an integer >= 1", "elements = 2.5"),
        (
            "elements = \"elements\"",
            "elements = 1000000000",
            "elements must be an integer >= 1 and at most 1e6, got 1e9",
            "elements = 1000000000",
        ),
        ("E = 2e11", "E = -1.0", "E must be positive", "E = -1.0"),
        ("rho = 7.85e3", "rho = 0.0", "rho must be positive", "rho = 0.0"),
        ("nu = 0.3", "nu = 0.5", "nu must be in (-1, 0.5)", "nu = 0.5"),
        (
            "formulation = \"timoshenko\"",
            "formulation = \"bernoulli\"",
            "unknown beam formulation",
            "formulation = \"bernoulli\"",
        ),
        (
            "section = { width = 5e-2, height = 1e-1 }",
            "section = { width = 5e-2 }",
            "section needs either",
            "section = { width = 5e-2 }",
        ),
    ];
    for (from, to, message, at) in cases {
        assert!(base.contains(from), "{from}");
        let text = base.replacen(from, to, 1);
        let err = Model::parse(&text, "bad.toml")
            .and_then(|m| assemble(&m, &m.default_parameters()).map(|_| ()))
            .unwrap_err();
        assert!(err.message.contains(message), "{to}: {}", err.message);
        // Located on the line of the change, at or after the key.
        let offset = text.find(at).unwrap();
        let line = text[..offset].matches('\n').count() + 1;
        assert_eq!(err.line, line, "{to}: {err:?}");
        println!("{to}: {}:{}:{}: {}", err.file, err.line, err.column, err.message);
    }
}

/// `section.mass_per_length` gives a planar beam's mass apart from its stiffness (benchmark
/// data given as EA, EI and rho A): the clamped-free bending and axial frequencies follow the
/// given mass, (1.8751^2 / 2 pi) sqrt(EI / (m L^4)) and sqrt(EA / m) / (4 L), in every
/// formulation (the section's 1e-4 m^2 at 7850 kg/m^3 would give 0.785 kg/m, not 1.7).
#[test]
fn mass_per_length_sets_the_frequencies_in_every_formulation() {
    let (e, l, a, i, m) = (2.1e11f64, 1.0f64, 1e-4f64, 1e-9f64, 1.7f64);
    let bending = 1.875_104_07f64.powi(2) / (2.0 * std::f64::consts::PI) * (e * i / (m * l.powi(4))).sqrt();
    let axial = (e * a / m).sqrt() / (4.0 * l);
    for (formulation, discretization, check_axial) in [
        ("timoshenko", "elements = 40", true),
        ("euler_bernoulli", "elements = 40", true),
        ("ancf", "elements = 20", true),
        ("floating_frame", "modes = 2", false),
    ] {
        let text = format!(
            "[model]\nname = \"c\"\n[[beams]]\nname = \"b\"\nstart = [0.0, 0.0]\nend = [{l}, 0.0]\n{discretization}\n\
             formulation = \"{formulation}\"\nsection = {{ area = {a}, inertia = {i}, mass_per_length = {m} }}\n\
             material = {{ E = {e}, nu = 0.3, rho = 7850.0 }}\n[[joints]]\nname = \"clamp\"\ntype = \"fixed\"\n\
             body2 = \"b.start\"\npoint = [0.0, 0.0]\n"
        );
        let model = Model::parse(&text, "c.toml").unwrap();
        let sim = Simulation::new(&model, &model.default_parameters(), SolverSettings::default(), 0.0)
            .unwrap_or_else(|err| panic!("{formulation}: {err}"));
        let f = sim.natural_frequencies().unwrap();
        let nearest = |r: f64| f.iter().copied().min_by(|x, y| (x - r).abs().total_cmp(&(y - r).abs())).unwrap();
        let references: &[(&str, f64)] =
            if check_axial { &[("bending", bending), ("axial", axial)] } else { &[("bending", bending)] };
        for &(what, reference) in references {
            let err = nearest(reference) / reference - 1.0;
            println!("{formulation} {what}: {:.4} Hz vs {reference:.4} Hz ({:+.3} %)", nearest(reference), 100.0 * err);
            assert!(err.abs() < 0.01, "{formulation} {what}: {} vs {reference}", nearest(reference));
        }
    }
}

/// A clamped-free planar beam along x of length 1 m, E = 2.1e11 Pa, nu = 0.3, rho = 7850 kg/m^3,
/// with `section` (a TOML inline table's keys), `formulation` and `elements`.
fn clamped_free(section: &str, formulation: &str, elements: usize) -> String {
    format!(
        "[model]\nname = \"c\"\n[[beams]]\nname = \"b\"\nstart = [0.0, 0.0]\nend = [1.0, 0.0]\nelements = {elements}\n\
         formulation = \"{formulation}\"\nsection = {{ {section} }}\nmaterial = {{ E = 2.1e11, nu = 0.3, rho = 7850.0 }}\n\
         [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"b.start\"\npoint = [0.0, 0.0]\n"
    )
}

/// The model's natural frequencies (Hz), constraints respected.
fn frequencies(text: &str) -> Vec<f64> {
    let model = Model::parse(text, "c.toml").unwrap();
    let sim = Simulation::new(&model, &model.default_parameters(), SolverSettings::default(), 0.0)
        .unwrap_or_else(|err| panic!("{err}\n{text}"));
    sim.natural_frequencies().unwrap()
}

/// `section.rotary_inertia` gives a planar beam's rotary inertia per length J (kg m, about the
/// out-of-plane axis) apart from its stiffness: a section whose mass sits away from its neutral
/// axis. Written as rho I (or m I / A with `mass_per_length`), it changes nothing, bit for bit.
/// J = 0.02 kg m, 25.5 times rho I (radius of gyration of the mass 5 cm, of the stiffness
/// 1 cm), lowers the first four clamped-free bending frequencies by 0.6, 3.7, 8.0 and 13 %, to
/// those of Timoshenko's beam with that J (timoshenko, ancf) and of Rayleigh's beam
/// (euler_bernoulli), from the continuum equations (common::beam_theory). Checked: each
/// frequency against the theory's, and the model's shift from J = rho I to J = 0.02 against
/// the theory's shift. Measured at the fourth mode: euler_bernoulli 852.538 Hz vs Rayleigh
/// 852.535 Hz (shift -13.729 % vs -13.729 %), ancf 841.603 Hz vs Timoshenko 841.482 Hz
/// (-13.052 % vs -13.049 %), timoshenko 841.664 Hz (+0.022 %; -13.040 % vs -13.049 %). Until
/// 2026-11-29 the corotational timoshenko element kept paper 000's Euler-Bernoulli mass, whose
/// rotary inertia acts on the Hermite slope w', not on the section rotation: 835.683 Hz there
/// (-0.69 %, a mass-model limit that refinement did not remove); its mass is now that of its own
/// Timoshenko fields. Every formulation is held to 0.05 % in frequency and 0.5 % of the shift.
#[test]
fn rotary_inertia_sets_the_bending_frequencies() {
    let (e, nu, l, a, i, rho, k, j): (f64, f64, f64, f64, f64, f64, f64, f64) =
        (2.1e11, 0.3, 1.0, 1e-3, 1e-7, 7850.0, 0.85, 0.02);
    let (m, rho_i) = (rho * a, rho * i);
    let kga = k * e / (2.0 * (1.0 + nu)) * a;
    let section = format!("area = {a}, inertia = {i}, shear_factor = {k}");
    // Euler-Bernoulli's fourth root (beta L = 10.9955), with a margin.
    let omega_max = 1.3 * 10.9955f64.powi(2) * (e * i / (m * l.powi(4))).sqrt();
    let hz = |omega: Vec<f64>| omega.into_iter().map(|w| w / (2.0 * std::f64::consts::PI)).collect::<Vec<_>>();
    let nearest = |f: &[f64], r: f64| f.iter().copied().min_by(|x, y| (x - r).abs().total_cmp(&(y - r).abs())).unwrap();
    // (formulation, elements, tolerance of the frequency, of the shift (relative)).
    for (formulation, elements, frequency_tolerance, shift_tolerance) in
        [("timoshenko", 40, 5e-4, 5e-3), ("euler_bernoulli", 40, 5e-4, 5e-3), ("ancf", 20, 5e-4, 5e-3)]
    {
        // The default, written out: rho I, and m I / A with a mass per length.
        let default = frequencies(&clamped_free(&section, formulation, elements));
        let written =
            frequencies(&clamped_free(&format!("{section}, rotary_inertia = {rho_i}"), formulation, elements));
        assert_eq!(written, default, "{formulation}: rotary_inertia = rho I");
        let with_m = format!("{section}, mass_per_length = 1.7");
        let default_m = frequencies(&clamped_free(&with_m, formulation, elements));
        let written_m =
            frequencies(&clamped_free(&format!("{with_m}, rotary_inertia = {}", 1.7 / a * i), formulation, elements));
        assert_eq!(written_m, default_m, "{formulation}: rotary_inertia = m I / A");

        let given = frequencies(&clamped_free(&format!("{section}, rotary_inertia = {j}"), formulation, elements));
        let theory = |rho_i: f64| {
            hz(if formulation == "euler_bernoulli" {
                common::beam_theory::rayleigh_frequencies(l, e * i, m, rho_i, omega_max, 4)
            } else {
                common::beam_theory::timoshenko_frequencies(l, e * i, kga, m, rho_i, omega_max, 4)
            })
        };
        let (theory_default, theory_given) = (theory(rho_i), theory(j));
        assert_eq!((theory_default.len(), theory_given.len()), (4, 4), "{formulation}");
        for mode in 0..4 {
            let (t0, t1) = (theory_default[mode], theory_given[mode]);
            let (f0, f1) = (nearest(&default, t0), nearest(&given, t1));
            let (shift, theory_shift) = (f1 / f0 - 1.0, t1 / t0 - 1.0);
            println!(
                "{formulation} mode {}: J = rho I {f0:.3} Hz (theory {t0:.3}), J = {j} {f1:.3} Hz (theory {t1:.3}, \
                 {:+.3} %); shift {:+.3} % vs theory {:+.3} %",
                mode + 1,
                100.0 * (f1 / t1 - 1.0),
                100.0 * shift,
                100.0 * theory_shift
            );
            assert!((f1 / t1 - 1.0).abs() < frequency_tolerance, "{formulation} mode {}: {f1} vs {t1}", mode + 1);
            assert!(
                (shift / theory_shift - 1.0).abs() < shift_tolerance,
                "{formulation} mode {}: shift {shift} vs {theory_shift}",
                mode + 1
            );
        }
    }
}

/// `section.rotary_inertia` mistakes in a planar model, each located at the value
/// (file:line:column): not positive, not one number, or on a floating-frame beam (whose
/// Euler-Bernoulli modes have no rotary inertia).
#[test]
fn rotary_inertia_errors_are_located() {
    let section = "area = 1e-3, inertia = 1e-7";
    let cases = [
        ("rotary_inertia = 0.0", "timoshenko", "rotary_inertia must be positive, got 0"),
        ("rotary_inertia = -2e-2", "euler_bernoulli", "rotary_inertia must be positive, got -0.02"),
        ("rotary_inertia = \"-0.02 * 2\"", "ancf", "rotary_inertia must be positive, got -0.04"),
        ("rotary_inertia = [2e-2, 2e-2, 2e-2]", "timoshenko", "in a planar model, rotary_inertia is one number"),
        ("rotary_inertia = [2e-2]", "ancf", "in a planar model, rotary_inertia is one number"),
        ("rotary_inertia = 2e-2", "floating_frame", "a floating_frame beam has no rotary inertia"),
    ];
    for (key, formulation, message) in cases {
        let mut text = clamped_free(&format!("{section}, {key}"), formulation, 4);
        if formulation == "floating_frame" {
            text = text.replacen("elements = 4", "modes = 2", 1);
        }
        let err = Model::parse(&text, "bad.toml")
            .and_then(|m| assemble(&m, &m.default_parameters()).map(|_| ()))
            .unwrap_err();
        let value = text.find(key).unwrap() + "rotary_inertia = ".len();
        let line = text[..value].matches('\n').count() + 1;
        let column = value - text[..value].rfind('\n').map_or(0, |n| n + 1) + 1;
        println!("{formulation}, {key}: {}:{}:{}: {}", err.file, err.line, err.column, err.message);
        assert!(err.message.contains(message), "{key}: {}", err.message);
        assert_eq!((err.line, err.column), (line, column), "{key}: {err:?}");
    }
}

/// Gravity on the planar beams is the load of the field their consistent mass integrates (the
/// nodes' share plus the end moments of the cubic transverse field): a free beam falls with
/// a = g everywhere and does not bend, and a cantilever under its own weight sags q L^4 / (8 EI)
/// at any mesh (linear range), as the ANCF beam's distributed gravity did. With the nodal
/// forces alone (a probe written from the docs) the falling beam's end accelerated at 79.6
/// m/s^2 with 8 elements and bent, and the cantilever sagged 1/(3 n^2) too far (+2.1 % at 4).
#[test]
fn gravity_loads_the_consistent_mass_field() {
    for formulation in ["euler_bernoulli", "timoshenko", "ancf"] {
        let beam = |joint: &str| {
            format!(
                "[model]\nname = \"g\"\ngravity = [0.0, -9.81]\n[[beams]]\nname = \"b\"\nstart = [0.0, 0.0]\n\
                 end = [1.0, 0.0]\nelements = 4\nformulation = \"{formulation}\"\n\
                 section = {{ width = 0.05, height = 0.01 }}\nmaterial = {{ E = 210e9, nu = 0.3, rho = 7850.0 }}\n{joint}\
                 [[outputs]]\nname = \"ay\"\nquantity = \"ay\"\nbody = \"b.end\"\n\
                 [[outputs]]\nname = \"tip_y\"\nquantity = \"y\"\nbody = \"b.end\"\n\
                 [[outputs]]\nname = \"mid_y\"\nquantity = \"y\"\nbody = \"b.node[2]\"\n"
            )
        };
        // Free fall: at t = 0 and after 0.2 s.
        let model = Model::parse(&beam(""), "fall.toml").unwrap();
        let settings = SolverSettings::from_model(&model, &[]).unwrap();
        let mut sim = Simulation::new(&model, &[], settings, 0.0).unwrap();
        let a0 = sim.output_values().unwrap()[0];
        sim.step_to(0.2).unwrap();
        let o = sim.output_values().unwrap();
        let fall = 0.5 * 9.81 * 0.2 * 0.2;
        let bend = (o[1] - o[2]).abs();
        println!(
            "{formulation}: free fall a = {a0:.6} m/s^2, tip {:.9} m (exact {:.9}), tip - middle {bend:.1e} m",
            o[1], -fall
        );
        assert!((a0 + 9.81).abs() < 1e-9 * 9.81, "{formulation}: end acceleration {a0}");
        assert!((o[1] + fall).abs() < 1e-9 && bend < 1e-12, "{formulation}: tip {} middle {}", o[1], o[2]);
        // The cantilever's static sag.
        let clamp = "[[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"b.start\"\npoint = [0.0, 0.0]\n";
        let model = Model::parse(&beam(clamp), "cantilever.toml").unwrap();
        let settings = SolverSettings::from_model(&model, &[]).unwrap();
        let mut sim = Simulation::new(&model, &[], settings, 0.0).unwrap();
        sim.settle_static(0.0).unwrap();
        let sag = -sim.output_values().unwrap()[1];
        let (q, ei) = (7850.0 * 0.05 * 0.01 * 9.81, 210e9 * 0.05 * 0.01f64.powi(3) / 12.0);
        let theory = q / (8.0 * ei);
        println!("{formulation}: cantilever sag {sag:.6e} m, q L^4/(8 EI) {theory:.6e} m");
        assert!((sag - theory).abs() < 2e-4 * theory, "{formulation}: sag {sag} vs {theory}");
    }
}

/// A beam node addressed by an index expression (`b.node[n/2]`) stays at the same point when a
/// parameter refines the mesh: a cantilever with a transverse force at its middle deflects
/// 5 P L^3 / (48 EI) at the tip (Euler-Bernoulli, exact at the nodes of any mesh) for n = 2, 4
/// and 16, planar and spatial; an index that is not an integer (n = 5: 2.5) is a located error
/// with its value. Before, a node index was a literal: refining the probe's Lee's frame from 10
/// to 20 elements silently moved its load from x = 24 to x = 12.
#[test]
fn a_node_index_expression_follows_the_mesh() {
    let (l, e, i, p): (f64, f64, f64, f64) = (2.0, 2.0e11, 1e-8, 1.0);
    let theory = 5.0 * p * l.powi(3) / (48.0 * e * i);
    let model_text = |spatial: bool| {
        let (dim, zero, dir, section) = if spatial {
            ("dimension = 3\n", ", 0.0", "[0.0, 1.0, 0.0]", format!("area = 1e-4, iy = {i}, iz = {i}, j = {}", 2.0 * i))
        } else {
            ("", "", "[0.0, 1.0]", format!("area = 1e-4, inertia = {i}"))
        };
        format!(
            "[model]\nname = \"mid\"\n{dim}gravity = [0.0, 0.0{zero}]\n[parameters]\nn = {{ value = 4, type = \"integer\" }}\n\
             [[beams]]\nname = \"b\"\nstart = [0.0, 0.0{zero}]\nend = [{l}, 0.0{zero}]\nelements = \"n\"\n\
             formulation = \"euler_bernoulli\"\nsection = {{ {section} }}\nmaterial = {{ E = {e}, nu = 0.3, rho = 7850.0 }}\n\
             [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"b.start\"\npoint = [0.0, 0.0{zero}]\n\
             [[loads]]\nname = \"f\"\ntype = \"force\"\nbody = \"b.node[n/2]\"\ndirection = {dir}\nvalue = {p}\n"
        )
    };
    for spatial in [false, true] {
        let model = Model::parse(&model_text(spatial), "mid.toml").unwrap();
        let n_index = model.parameter_index("n").unwrap();
        for n in [2.0, 4.0, 16.0] {
            let mut params = model.default_parameters();
            params[n_index] = n;
            let asm = assemble(&model, &params).unwrap();
            let mut q = asm.initial.q.clone();
            static_equilibrium(&asm.system, &mut q, &mut vec![0.0; asm.system.constraints()], 0.0, 1e-13).unwrap();
            // The tip node's y: the last node's coordinates are (x, y, theta) or (x, y, z, p0..p3).
            let tip = if spatial { q[q.len() - 6] } else { q[q.len() - 2] };
            println!("spatial {spatial}, n = {n}: tip deflection {tip:.9e} m, theory 5PL^3/48EI = {theory:.9e} m");
            assert!((tip / theory - 1.0).abs() < 1e-4, "spatial {spatial}, n = {n}: {tip} vs {theory}");
        }
        let mut params = model.default_parameters();
        params[n_index] = 5.0;
        let Err(err) = assemble(&model, &params).map(|_| ()) else { panic!("n = 5 puts the load between nodes") };
        let err = err.to_string();
        assert!(err.contains("mid.toml:") && err.contains("evaluates to 2.5, expected an integer"), "{err}");
    }
}
