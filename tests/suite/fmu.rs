//! The FMU through a real importer (the `fmi` crate, FMI 2.0): results equal the
//! `Simulation` facade run directly, FMU state round trips, call-sequence and argument errors.

use std::path::{Path, PathBuf};

use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};
use fmi::fmi2::instance::{CoSimulation, Common, InstanceCS};
use fmi::traits::{FmiImport, FmiInstance, FmiStatus};

use crate::common;
use common::fmu::{Fmu, read};

const H: f64 = 0.01;

fn model_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml")
}

struct Fixture {
    fmu: Fmu,
    model: Model,
}

fn fixture() -> Fixture {
    let model = Model::load(&model_path()).unwrap();
    let fmu = Fmu::build(&model);
    assert_eq!(fmu.import.model_description().fmi_version, "2.0");
    Fixture { fmu, model }
}

/// Instantiate, set k and force, initialize at t = 0.
fn start(f: &Fixture, name: &str, k: f64, force: f64) -> InstanceCS {
    f.fmu.start(name, None, |inst| {
        assert_eq!(Common::get_types_platform(inst), "default");
        inst.set_real(&[f.fmu.vr("k")], &[k]).unwrap();
        inst.set_real(&[f.fmu.vr("force")], &[force]).unwrap();
    })
}

/// The same run with the facade: outputs after each of `n` steps of H.
fn direct(model: &Model, k: f64, force: f64, n: usize) -> Vec<Vec<f64>> {
    let mut params = model.default_parameters();
    params[model.parameter_index("k").unwrap()] = k;
    let settings = SolverSettings::from_model(model, &params).unwrap();
    let mut sim = Simulation::new(model, &params, settings, 0.0).unwrap();
    sim.set_input(0, force).unwrap();
    let mut rows = vec![sim.output_values().unwrap().to_vec()];
    let mut t = 0.0;
    for _ in 0..n {
        sim.step_to(t + H).unwrap();
        t += H;
        rows.push(sim.output_values().unwrap().to_vec());
    }
    rows
}

fn run(inst: &mut InstanceCS, out: &[u32], n: usize, t: &mut f64) -> Vec<Vec<f64>> {
    let mut rows = Vec::new();
    for _ in 0..n {
        inst.do_step(*t, H, true).unwrap();
        *t += H;
        rows.push(read(inst, out));
    }
    rows
}

#[test]
fn fmu_outputs_equal_the_simulation_bit_for_bit() {
    let f = fixture();
    let out = f.fmu.outputs();
    let mut inst = start(&f, "a", 50.0, 0.3);
    let mut rows = vec![read(&mut inst, &out)];
    let mut t = 0.0;
    rows.extend(run(&mut inst, &out, 100, &mut t));
    assert_eq!(rows, direct(&f.model, 50.0, 0.3, 100));
    assert_eq!(inst.last_successful_time().unwrap(), t);
    FmiInstance::terminate(&mut inst).unwrap();
}

#[test]
fn fmu_state_serialize_round_trip_is_bit_identical() {
    let f = fixture();
    let out = f.fmu.outputs();
    let mut inst = start(&f, "a", 39.0, 0.1);
    let mut t = 0.0;
    run(&mut inst, &out, 20, &mut t);
    let t1 = t;
    let state = inst.get_fmu_state().unwrap();
    let bytes = inst.serialize_fmu_state(&state).unwrap();
    let first = run(&mut inst, &out, 30, &mut t);
    // Change the input after the snapshot: the restore must bring back the old one.
    inst.set_real(&[f.fmu.vr("force")], &[5.0]).unwrap();
    let restored = inst.deserialize_fmu_state(&bytes).unwrap();
    inst.set_fmu_state(&restored).ok().unwrap();
    let mut t = t1;
    let again = run(&mut inst, &out, 30, &mut t);
    assert_eq!(first, again);
    // Non-serialized handle too.
    inst.set_fmu_state(&state).ok().unwrap();
    let mut t = t1;
    assert_eq!(run(&mut inst, &out, 30, &mut t), first);
    // A foreign blob is refused.
    let mut foreign = bytes.clone();
    foreign[1] ^= 0x55;
    assert!(inst.deserialize_fmu_state(&foreign).is_err());
    assert!(inst.deserialize_fmu_state(&bytes[..bytes.len() - 3]).is_err());
}

#[test]
fn nan_input_and_wrong_communication_point_are_errors() {
    let f = fixture();
    let out = f.fmu.outputs();
    let force = f.fmu.vr("force");
    let mut inst = start(&f, "a", 39.0, 0.0);
    assert!(inst.set_real(&[force], &[f64::NAN]).is_err());
    assert!(inst.do_step(0.5, H, true).is_err(), "tc != FMU time");
    assert!(inst.do_step(0.0, -H, true).is_err(), "negative step");
    assert!(inst.do_step(f64::NAN, H, true).is_err());
    assert!(inst.set_real(&[out[0]], &[1.0]).is_err(), "outputs are not settable");
    // k became tunable (fmidepth branch, tests/suite/fmu_tunable.rs); x0 is an initial value, still fixed.
    assert!(inst.set_real(&[f.fmu.vr("x0")], &[1.0]).is_err(), "fixed parameter after initialization");
    assert!(inst.set_real(&[9999], &[1.0]).is_err(), "unknown value reference");
    // The instance is still usable and the NaN was not taken.
    inst.do_step(0.0, H, true).unwrap();
    assert_eq!(read(&mut inst, &out), direct(&f.model, 39.0, 0.0, 1)[1]);
    // A drift of 1e-12 in tc is accepted.
    inst.do_step(H + 1e-12, H, true).unwrap();
}

#[test]
fn illegal_call_sequences_are_errors() {
    let f = fixture();
    let mut inst = f.fmu.import.instantiate_cs("a", false, false).unwrap();
    assert!(inst.do_step(0.0, H, true).is_err(), "DoStep before initialization");
    let mut v = [0.0];
    assert!(inst.get_real(&[0], &mut v).is_err(), "GetReal in Instantiated");
    assert!(FmiInstance::exit_initialization_mode(&mut inst).is_err());
    assert!(inst.cancel_step().is_err());
    assert!(FmiInstance::set_debug_logging(&mut inst, true, &["noSuchCategory"]).is_err());
    FmiInstance::set_debug_logging(&mut inst, true, &["logEvents", "logSolver"]).unwrap();
    FmiInstance::enter_initialization_mode(&mut inst, None, 0.0, Some(0.05)).unwrap();
    // Outputs are readable in initialization mode.
    inst.get_real(&[f.fmu.outputs()[0]], &mut v).unwrap();
    assert_eq!(v[0], 0.1);
    FmiInstance::exit_initialization_mode(&mut inst).unwrap();
    inst.do_step(0.0, 0.04, true).unwrap();
    assert!(inst.do_step(0.04, 0.04, true).is_err(), "past stopTime");
    FmiInstance::terminate(&mut inst).unwrap();
    assert!(inst.do_step(0.04, 0.01, true).is_err(), "DoStep after Terminate");
    FmiInstance::reset(&mut inst).unwrap();
    FmiInstance::enter_initialization_mode(&mut inst, None, 0.0, None).unwrap();
    FmiInstance::exit_initialization_mode(&mut inst).unwrap();
    inst.do_step(0.0, H, true).unwrap();
}

#[test]
fn two_instances_are_independent() {
    let f = fixture();
    let out = f.fmu.outputs();
    let mut a = start(&f, "a", 30.0, 0.0);
    let mut b = start(&f, "b", 60.0, 1.0);
    let (mut ra, mut rb) = (vec![read(&mut a, &out)], vec![read(&mut b, &out)]);
    let mut t = 0.0;
    for _ in 0..50 {
        a.do_step(t, H, true).unwrap();
        b.do_step(t, H, true).unwrap();
        t += H;
        ra.push(read(&mut a, &out));
        rb.push(read(&mut b, &out));
    }
    assert_eq!(ra, direct(&f.model, 30.0, 0.0, 50));
    assert_eq!(rb, direct(&f.model, 60.0, 1.0, 50));
}

#[test]
fn solver_settings_are_tunable_at_communication_points() {
    let f = fixture();
    let out = f.fmu.outputs();
    let mut inst = start(&f, "a", 39.0, 0.0);
    let mut t = 0.0;
    run(&mut inst, &out, 10, &mut t);
    // Switch to generalized-alpha with a smaller step.
    inst.set_integer(&[f.fmu.vr("solver_integrator")], &[2]).unwrap();
    inst.set_real(&[f.fmu.vr("solver_step")], &[5e-4]).unwrap();
    assert!(inst.set_integer(&[f.fmu.vr("solver_integrator")], &[7]).is_err());
    let fmu = run(&mut inst, &out, 10, &mut t);

    let params = f.model.default_parameters();
    let mut params = params;
    params[f.model.parameter_index("k").unwrap()] = 39.0;
    let settings = SolverSettings::from_model(&f.model, &params).unwrap();
    let mut sim = Simulation::new(&f.model, &params, settings, 0.0).unwrap();
    let mut tt = 0.0;
    for _ in 0..10 {
        sim.step_to(tt + H).unwrap();
        tt += H;
    }
    let mut s2 = *sim.settings();
    s2.method = flexfmu::integrators::Method::GeneralizedAlpha;
    s2.step = 5e-4;
    sim.set_settings(s2).unwrap();
    let mut rows = Vec::new();
    for _ in 0..10 {
        sim.step_to(tt + H).unwrap();
        tt += H;
        rows.push(sim.output_values().unwrap().to_vec());
    }
    assert_eq!(fmu, rows);
    let mut m = [0];
    inst.get_integer(&[f.fmu.vr("solver_integrator")], &mut m).unwrap();
    assert_eq!(m[0], 2);
}

#[test]
fn constraint_treatment_is_an_fmu_parameter() {
    let f = fixture();
    let out = f.fmu.outputs();
    let mut inst = start(&f, "c", 39.0, 0.0);
    let mut t = 0.0;
    run(&mut inst, &out, 5, &mut t);
    // Baumgarte (code 2) with alpha = beta = 20 from here on; code 3 does not exist.
    inst.set_integer(&[f.fmu.vr("solver_constraints")], &[2]).unwrap();
    inst.set_real(&[f.fmu.vr("solver_baumgarte_alpha"), f.fmu.vr("solver_baumgarte_beta")], &[20.0, 20.0]).unwrap();
    assert!(inst.set_integer(&[f.fmu.vr("solver_constraints")], &[3]).is_err());
    let fmu = run(&mut inst, &out, 5, &mut t);

    let mut params = f.model.default_parameters();
    params[f.model.parameter_index("k").unwrap()] = 39.0;
    let settings = SolverSettings::from_model(&f.model, &params).unwrap();
    let mut sim = Simulation::new(&f.model, &params, settings, 0.0).unwrap();
    let mut tt = 0.0;
    for _ in 0..5 {
        sim.step_to(tt + H).unwrap();
        tt += H;
    }
    let mut s2 = *sim.settings();
    s2.constraints = flexfmu::integrators::ConstraintTreatment::Baumgarte;
    s2.baumgarte = flexfmu::integrators::BaumgarteConstants { alpha: 20.0, beta: 20.0 };
    sim.set_settings(s2).unwrap();
    let mut rows = Vec::new();
    for _ in 0..5 {
        sim.step_to(tt + H).unwrap();
        tt += H;
        rows.push(sim.output_values().unwrap().to_vec());
    }
    assert_eq!(fmu, rows);
    let mut c = [0];
    inst.get_integer(&[f.fmu.vr("solver_constraints")], &mut c).unwrap();
    assert_eq!(c[0], 2);
}

/// `n` communication steps of H of `model` run directly at its default parameters, with its
/// solver settings changed by `edit`: the output rows.
fn direct_with(model: &Model, n: usize, edit: impl FnOnce(&mut SolverSettings)) -> Vec<Vec<f64>> {
    let params = model.default_parameters();
    let mut settings = SolverSettings::from_model(model, &params).unwrap();
    edit(&mut settings);
    let mut sim = Simulation::new(model, &params, settings, 0.0).unwrap();
    // The times summed as the importer's are (`run`).
    let mut t = 0.0;
    (0..n)
        .map(|_| {
            t += H;
            sim.step_to(t).unwrap();
            sim.output_values().unwrap().to_vec()
        })
        .collect()
}

/// Setting solver_rho_inf alone chooses the constraint treatment as `flexfmu simulate
/// --rho-inf` does (GGL at rho_inf = 1: index-3 rows are undamped there and the energy of a
/// spinning gyroscope grew a hundredfold, found by a probe), unless the importer chose
/// solver_constraints itself; fmi2Reset forgets that choice.
#[test]
fn the_constraint_treatment_follows_rho_inf_unless_the_importer_chose_one() {
    let model = Model::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("models/rigid_pendulum.toml")).unwrap();
    let fmu = Fmu::build(&model);
    let out = fmu.outputs();
    let constraints = |inst: &mut InstanceCS| {
        let mut c = [0];
        inst.get_integer(&[fmu.vr("solver_constraints")], &mut c).unwrap();
        c[0]
    };
    let mut inst = fmu.start("r", None, |inst| {
        inst.set_real(&[fmu.vr("solver_rho_inf")], &[1.0]).unwrap();
    });
    assert_eq!(constraints(&mut inst), 1, "GGL at rho_inf = 1");
    let mut t = 0.0;
    let rows = run(&mut inst, &out, 20, &mut t);
    let direct = direct_with(&model, 20, |s| {
        s.rho_inf = 1.0;
        s.constraints = s.constraints_at(&model, 1.0);
    });
    assert_eq!(rows, direct);
    // Back below 1: index-3 again.
    inst.set_real(&[fmu.vr("solver_rho_inf")], &[0.5]).unwrap();
    assert_eq!(constraints(&mut inst), 0);
    // Chosen by the importer: kept whatever rho_inf becomes, until a reset.
    inst.set_integer(&[fmu.vr("solver_constraints")], &[0]).unwrap();
    inst.set_real(&[fmu.vr("solver_rho_inf")], &[1.0]).unwrap();
    assert_eq!(constraints(&mut inst), 0);
    Common::reset(&mut inst).unwrap();
    inst.set_real(&[fmu.vr("solver_rho_inf")], &[1.0]).unwrap();
    FmiInstance::enter_initialization_mode(&mut inst, None, 0.0, None).unwrap();
    assert_eq!(constraints(&mut inst), 1);
}

/// Choosing solver_integrator moves the model's rho_inf into the chosen method's range as
/// `flexfmu simulate --integrator` does (a probe's TTBIF model at rho_inf 0.2 was refused at
/// fmi2ExitInitializationMode with HHT, whose range starts at 0.5; the command line ran it at
/// 0.5), with the constraint treatment for it; a rho_inf the importer chose is kept and
/// checked against the method.
#[test]
fn choosing_the_integrator_moves_the_models_rho_inf_into_its_range() {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("models/rigid_pendulum.toml")).unwrap();
    assert!(text.contains("rho_inf = 0.5\n"));
    let model = Model::parse(&text.replacen("rho_inf = 0.5\n", "rho_inf = 0.2\n", 1), "rho_02.toml").unwrap();
    let fmu = Fmu::build(&model);
    let out = fmu.outputs();
    let hht =
        flexfmu::integrators::Method::ALL.iter().position(|&m| m == flexfmu::integrators::Method::Hht).unwrap() as i32;
    let rho_inf = |inst: &mut InstanceCS| read(inst, &[fmu.vr("solver_rho_inf")])[0];
    let mut inst = fmu.start("h", None, |inst| {
        inst.set_integer(&[fmu.vr("solver_integrator")], &[hht]).unwrap();
    });
    assert_eq!(rho_inf(&mut inst), 0.5);
    let mut t = 0.0;
    let rows = run(&mut inst, &out, 20, &mut t);
    let direct = direct_with(&model, 20, |s| {
        s.method = flexfmu::integrators::Method::Hht;
        s.rho_inf = 0.5;
        s.constraints = s.constraints_at(&model, 0.5);
    });
    assert_eq!(rows, direct);
    // The importer's own rho_inf, before or after the method, is kept.
    for order in [[0, 1], [1, 0]] {
        let mut inst = fmu.start("k", None, |inst| {
            for k in order {
                match k {
                    0 => inst.set_real(&[fmu.vr("solver_rho_inf")], &[0.7]),
                    _ => inst.set_integer(&[fmu.vr("solver_integrator")], &[hht]),
                }
                .unwrap();
            }
        });
        assert_eq!(rho_inf(&mut inst), 0.7, "order {order:?}");
    }
    // Newmark realises rho_inf = 1 only: chosen alone it takes it; after an importer's 0.8 the
    // pair is refused when used, in either order (as --rho-inf 0.8 --integrator newmark), and
    // going back to TTBIF keeps the 0.8 (a probe's 0.8 then Newmark ran silently at 1, and
    // then TTBIF at 1 too).
    let newmark =
        flexfmu::integrators::Method::ALL.iter().position(|&m| m == flexfmu::integrators::Method::Newmark).unwrap()
            as i32;
    let mut inst = fmu.start("n", None, |inst| {
        inst.set_integer(&[fmu.vr("solver_integrator")], &[newmark]).unwrap();
    });
    assert_eq!(rho_inf(&mut inst), 1.0);
    for order in [[0, 1], [1, 0]] {
        let mut inst = fmu.import.instantiate_cs("m", false, false).unwrap();
        for k in order {
            match k {
                0 => inst.set_real(&[fmu.vr("solver_rho_inf")], &[0.8]),
                _ => inst.set_integer(&[fmu.vr("solver_integrator")], &[newmark]),
            }
            .unwrap();
        }
        FmiInstance::enter_initialization_mode(&mut inst, None, 0.0, None).unwrap();
        assert!(FmiInstance::exit_initialization_mode(&mut inst).is_err(), "order {order:?}");
    }
    let mut inst = fmu.start("b", None, |inst| {
        inst.set_real(&[fmu.vr("solver_rho_inf")], &[0.8]).unwrap();
        inst.set_integer(&[fmu.vr("solver_integrator")], &[newmark]).unwrap();
        inst.set_integer(&[fmu.vr("solver_integrator")], &[0]).unwrap();
    });
    assert_eq!(rho_inf(&mut inst), 0.8);
}

/// A `[solver]` value may be an expression of parameters: a parameter set before
/// initialization changes it in the FMU as `flexfmu simulate --set` does (a probe's rho_inf =
/// "r", step = "hs" were ignored by the FMU, whose results stayed the defaults' bit for bit),
/// and a solver_* value the importer chose stays whatever the parameters become.
#[test]
fn parameters_in_solver_expressions_set_the_fmu_solver() {
    let text = std::fs::read_to_string(model_path()).unwrap();
    let solver = "rho_inf = 0.5\nstep = 1e-3\n";
    assert!(text.contains(solver));
    let text = text.replacen(solver, "rho_inf = \"r\"\nstep = \"hs\"\n", 1).replacen(
        "[parameters]\n",
        "[parameters]\nr = { value = 0.5, min = 0.0, max = 1.0 }\nhs = { value = 1e-3, min = 1e-6 }\n",
        1,
    );
    let model = Model::parse(&text, "mass_spring_expr.toml").unwrap();
    let fmu = Fmu::build(&model);
    let out = fmu.outputs();
    let solver = |inst: &mut InstanceCS| read(inst, &[fmu.vr("solver_rho_inf"), fmu.vr("solver_step")]);
    let direct = |r: f64, hs: f64, step: Option<f64>| {
        let mut params = model.default_parameters();
        params[model.parameter_index("r").unwrap()] = r;
        params[model.parameter_index("hs").unwrap()] = hs;
        let mut settings = SolverSettings::from_model(&model, &params).unwrap();
        assert_eq!((settings.rho_inf, settings.step), (r, hs));
        if let Some(step) = step {
            settings.step = step;
        }
        let mut sim = Simulation::new(&model, &params, settings, 0.0).unwrap();
        let mut t = 0.0;
        (0..30)
            .map(|_| {
                t += H;
                sim.step_to(t).unwrap();
                sim.output_values().unwrap().to_vec()
            })
            .collect::<Vec<_>>()
    };
    let mut inst = fmu.start("p", None, |inst| {
        inst.set_real(&[fmu.vr("r"), fmu.vr("hs")], &[0.0, 2e-3]).unwrap();
    });
    assert_eq!(solver(&mut inst), [0.0, 2e-3]);
    let mut t = 0.0;
    let rows = run(&mut inst, &out, 30, &mut t);
    assert_eq!(rows, direct(0.0, 2e-3, None));
    assert_ne!(rows, direct(0.5, 1e-3, None), "the parameters change the run");
    // solver_step chosen first: the parameter set afterwards leaves it.
    let mut inst = fmu.start("q", None, |inst| {
        inst.set_real(&[fmu.vr("solver_step")], &[5e-4]).unwrap();
        inst.set_real(&[fmu.vr("r"), fmu.vr("hs")], &[0.0, 2e-3]).unwrap();
    });
    assert_eq!(solver(&mut inst), [0.0, 5e-4]);
    let mut t = 0.0;
    assert_eq!(run(&mut inst, &out, 30, &mut t), direct(0.0, 2e-3, Some(5e-4)));
}
