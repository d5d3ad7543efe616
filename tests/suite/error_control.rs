//! Error-controlled internal steps (issue 5; src/integrators/error_control.rs): every method
//! meets its tolerance against an independent reference, steps follow the solution (long in
//! free flight, short in contact), and the FMU honours the setting inside fmi2DoStep with
//! results equal to `Simulation` and a bit-identical state round trip.

use std::path::PathBuf;

use flexfmu::integrators::Method;
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};
use fmi::fmi2::instance::Common;
use fmi::traits::FmiStatus;

use crate::common;
use common::fmu::{Fmu, step_bits};

const G: f64 = 9.81;

fn model(name: &str) -> Model {
    let path: PathBuf = common::sim::model_path(name);
    Model::load(&path).unwrap()
}

use common::sim::output;

fn with_error_control(mut s: SolverSettings, tol: f64) -> SolverSettings {
    s.error_control.enabled = true;
    s.error_control.rtol = tol;
    s.error_control.atol = tol;
    s
}

/// The rigid rod pendulum (rod pinned at its end, released horizontal) as an independent ODE:
/// theta'' = -(3 g / 2 L) cos(theta), by classical Runge-Kutta with a step far below the
/// tolerances tested (its error ~1e-15). Returns theta at the `times`.
fn pendulum_reference(times: &[f64], l: f64) -> Vec<f64> {
    let f = |th: f64| -1.5 * G / l * th.cos();
    let h: f64 = 1e-5;
    let (mut th, mut w, mut t) = (0.0f64, 0.0f64, 0.0f64);
    let mut out = Vec::new();
    for &target in times {
        while t < target - 1e-12 {
            let dt = h.min(target - t);
            let (k1x, k1v) = (w, f(th));
            let (k2x, k2v) = (w + 0.5 * dt * k1v, f(th + 0.5 * dt * k1x));
            let (k3x, k3v) = (w + 0.5 * dt * k2v, f(th + 0.5 * dt * k2x));
            let (k4x, k4v) = (w + dt * k3v, f(th + dt * k3x));
            th += dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
            w += dt / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
            t += dt;
        }
        out.push(th);
    }
    out
}

/// Max tip-position error over 0.1 s communication points to 2 s, steps, rejected steps.
fn pendulum_error(method: Method, tol: f64) -> (f64, u64, u64) {
    let m = model("rigid_pendulum.toml");
    let params = m.default_parameters();
    let mut s = SolverSettings::from_model(&m, &params).unwrap();
    s.method = method;
    s.rho_inf = if method == Method::Newmark { 1.0 } else { 0.5 };
    // The treatment `flexfmu simulate --integrator` gives (GGL for Newmark at rho_inf = 1).
    s.constraints = s.constraints_at(&m, s.rho_inf);
    let mut sim = Simulation::new(&m, &params, with_error_control(s, tol), 0.0).unwrap();
    let times: Vec<f64> = (1..=20).map(|k| 0.1 * k as f64).collect();
    let reference = pendulum_reference(&times, 1.0);
    let mut err = 0.0f64;
    for (t, th) in times.iter().zip(&reference) {
        sim.step_to(*t).unwrap_or_else(|e| panic!("{method:?}, tol {tol}: {e}"));
        let (x, y) = (output(&mut sim, "tip_x"), output(&mut sim, "tip_y"));
        err = err.max((x - th.cos()).hypot(y - th.sin()));
    }
    let st = sim.statistics();
    (err, st.steps, st.rejected_steps)
}

#[test]
fn every_method_meets_its_tolerance_on_the_rigid_pendulum() {
    for method in Method::ALL {
        let (coarse, steps_c, rej_c) = pendulum_error(method, 1e-5);
        let (fine, steps_f, rej_f) = pendulum_error(method, 1e-7);
        println!(
            "{:>18}: tol 1e-5: error {coarse:.3e} m, {steps_c} steps ({rej_c} rejected); tol 1e-7: error {fine:.3e} m, {steps_f} steps ({rej_f} rejected)",
            method.name()
        );
        // Controlling the local error per step to tol makes h ~ tol^(1/3) and the global error
        // of these second-order methods ~ h^2 ~ tol^(2/3) (src/integrators/error_control.rs):
        // 100x tighter gives 21.5x smaller errors in theory.
        for (tol, err) in [(1e-5, coarse), (1e-7, fine)] {
            let bound = 20.0 * f64::powf(tol, 2.0 / 3.0);
            assert!(err < bound, "{method:?}: error {err:e} at tol {tol:e} above 20 tol^(2/3) = {bound:e}");
        }
        assert!(
            coarse / fine > 12.0,
            "{method:?}: error ratio {} for a 100x tighter tolerance (theory 21.5)",
            coarse / fine
        );
        // The controller settles: a minority of steps is rejected.
        assert!((rej_f as f64) < 0.35 * steps_f as f64, "{method:?}: {rej_f} rejected of {steps_f}");
    }
}

/// Flight energies between impacts (as tests/suite/contact.rs): E_k above the contact height.
fn flight_energies(sim: &mut Simulation, dt: f64, t_end: f64) -> Vec<f64> {
    let (m, r) = (1.0, 0.05);
    let mut energies = vec![output(sim, "energy_total") - m * G * r];
    let mut in_contact = false;
    let mut t = 0.0;
    while t < t_end - 1e-12 {
        t += dt;
        sim.step_to(t).unwrap();
        let state = output(sim, "contact_state") > 0.5;
        if in_contact && !state {
            energies.push(output(sim, "energy_total") - m * G * r);
        }
        in_contact = state;
    }
    energies
}

#[test]
fn steps_grow_in_flight_and_shrink_in_contact() {
    let m = model("ball_drop.toml");
    let params = m.default_parameters();
    let base = SolverSettings::from_model(&m, &params).unwrap();
    let run = |s: SolverSettings| {
        let mut sim = Simulation::new(&m, &params, s, 0.0).unwrap();
        let e = flight_energies(&mut sim, 1e-3, 1.2);
        (e, sim.statistics())
    };
    // Reference: fixed steps 10x below the model's.
    let (reference, _) = run(SolverSettings { step: 0.1 * base.step, ..base });
    let (fixed, fixed_stats) = run(base);
    let (controlled, stats) = run(with_error_control(base, 1e-6));
    assert!(
        reference.len() >= 3 && controlled.len() == reference.len() && fixed.len() == reference.len(),
        "impacts: {} / {} / {}",
        reference.len(),
        fixed.len(),
        controlled.len()
    );
    let rel = |e: &[f64]| e.iter().zip(&reference).map(|(a, b)| ((a - b) / b).abs()).fold(0.0, f64::max);
    let (err_fixed, err_controlled) = (rel(&fixed), rel(&controlled));
    println!(
        "ball_drop flight energies vs fixed h/10: fixed h = {:e}: rel. error {err_fixed:.3e} with {} steps, {} Newton iterations",
        base.step, fixed_stats.steps, fixed_stats.newton_iterations
    );
    println!(
        "  error control rtol = atol = 1e-6: rel. error {err_controlled:.3e} with {} steps ({} rejected), {} Newton iterations",
        stats.steps, stats.rejected_steps, stats.newton_iterations
    );
    assert!(err_controlled < 1e-3, "error-controlled flight energies off by {err_controlled}");
    // Free flight under constant gravity is integrated exactly, so the steps grow there:
    // far fewer steps than the fixed-step run.
    assert!(stats.steps * 5 < fixed_stats.steps, "{} steps vs {} fixed", stats.steps, fixed_stats.steps);
}

#[test]
fn snapshot_restores_the_step_size_bit_for_bit() {
    let m = model("ball_drop.toml");
    let params = m.default_parameters();
    let s = with_error_control(SolverSettings::from_model(&m, &params).unwrap(), 1e-6);
    let mut sim = Simulation::new(&m, &params, s, 0.0).unwrap();
    sim.step_to(0.3).unwrap();
    let snap = sim.snapshot();
    let bytes = snap.to_bytes();
    let run = |sim: &mut Simulation| {
        (1..=40)
            .map(|k| {
                sim.step_to(0.3 + 0.01 * k as f64).unwrap();
                output(sim, "y").to_bits()
            })
            .collect::<Vec<u64>>()
    };
    let first = run(&mut sim);
    sim.restore(&flexfmu::simulation::Snapshot::from_bytes(&bytes).unwrap()).unwrap();
    assert_eq!(run(&mut sim), first);
}

#[test]
fn the_fmu_honours_error_control_in_do_step() {
    let m = model("ball_drop.toml");
    let fmu = Fmu::build(&m);
    let out = fmu.outputs();
    let (dt, tol) = (0.01, 1e-6);
    let start = |name: &str| {
        fmu.start(name, Some(tol), |inst| {
            inst.set_integer(&[fmu.vr("solver_error_control")], &[1]).ok().unwrap();
            inst.set_real(&[fmu.vr("solver_atol")], &[tol]).ok().unwrap();
            // fmi2SetupExperiment's tolerance (the `Some(tol)`) is the relative tolerance.
        })
    };
    let mut inst = start("ball");
    let mut rtol = [0.0];
    inst.get_real(&[fmu.vr("solver_rtol")], &mut rtol).unwrap();
    assert_eq!(rtol[0], tol);
    let mut t = 0.0;
    let fmu_rows = step_bits(&mut inst, &out, &mut t, dt, 60);

    // The facade with the same settings and communication points gives the same bits.
    let params = m.default_parameters();
    let s = with_error_control(SolverSettings::from_model(&m, &params).unwrap(), tol);
    let mut sim = Simulation::new(&m, &params, s, 0.0).unwrap();
    let mut t = 0.0;
    let direct: Vec<u64> = (1..=60)
        .flat_map(|_| {
            // The FMU's communication points: tc + h, accumulated.
            t += dt;
            sim.step_to(t).unwrap();
            sim.output_values().unwrap().iter().map(|x| x.to_bits()).collect::<Vec<u64>>()
        })
        .collect();
    assert_eq!(fmu_rows, direct);
    let st = sim.statistics();
    println!(
        "ball_drop FMU with error control over 0.6 s: {} steps ({} rejected) vs {} fixed steps of {:e} s",
        st.steps,
        st.rejected_steps,
        (0.6 / s.step).round(),
        s.step
    );
    assert!((st.steps as f64) < 0.6 / s.step / 5.0);

    // FMU state round trip, into this instance and a new one, is bit-identical.
    let t1 = t;
    let state = inst.get_fmu_state().unwrap();
    let bytes = inst.serialize_fmu_state(&state).unwrap();
    let first = step_bits(&mut inst, &out, &mut t, dt, 30);
    inst.set_fmu_state(&state).ok().unwrap();
    let mut t = t1;
    assert_eq!(step_bits(&mut inst, &out, &mut t, dt, 30), first);
    let mut other = start("other");
    let restored = other.deserialize_fmu_state(&bytes).unwrap();
    other.set_fmu_state(&restored).ok().unwrap();
    let mut t = t1;
    assert_eq!(step_bits(&mut other, &out, &mut t, dt, 30), first);

    // Values other than 0 and 1 are refused.
    let mut bad = fmu.import.instantiate_cs("bad", false, false).unwrap();
    assert!(bad.set_integer(&[fmu.vr("solver_error_control")], &[2]).is_err());
}
