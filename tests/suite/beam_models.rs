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
        ("elements = \"elements\"", "elements = 0", "elements must be an integer >= 1", "elements = 0"),
        ("elements = \"elements\"", "elements = 2.5", "elements must be an integer >= 1", "elements = 2.5"),
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
