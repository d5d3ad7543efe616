//! The FMU under a hostile host, through a real importer (the `fmi` crate): small thread
//! stacks, solver settings that would make one fmi2DoStep run without bound, communication
//! steps far beyond the model's time scale. Each is either done within bounded stack and
//! work, or refused: an invalid setting with fmi2Error when it is set, an interval beyond the
//! step budget with fmi2Discard, the last good state left readable.

use std::path::Path;

use flexfmu::limits::{MAX_EXPRESSION_DEPTH, MAX_STEPS_PER_INTERVAL};
use flexfmu::model::Model;
use flexfmu::simulation::SolverSettings;
use fmi::fmi2::Fmi2Error;
use fmi::fmi2::instance::{CoSimulation, Common};
use fmi::traits::FmiStatus;

use crate::common;
use common::fmu::{Fmu, read};

/// The stack of the importer's thread in these tests.
const SMALL_STACK: usize = 256 * 1024;

fn models() -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
}

/// Instantiate `fmu`, initialize it and take `steps` communication steps of `h`, all on a
/// thread with a 256 KB stack; the outputs after the last step.
fn run_on_small_stack(fmu: &Fmu, h: f64, steps: usize) -> Vec<f64> {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(SMALL_STACK)
            .spawn_scoped(s, || {
                let mut inst = fmu.start("small_stack", None, |_| {});
                let mut t = 0.0;
                for _ in 0..steps {
                    inst.do_step(t, h, true).unwrap();
                    t += h;
                }
                read(&mut inst, &fmu.outputs())
            })
            .unwrap()
            .join()
            .expect("the importer's thread with a 256 KB stack survives")
    })
}

#[test]
fn every_example_fmu_instantiates_and_steps_on_a_256k_stack() {
    let files = models();
    assert!(files.len() > 10);
    for path in files {
        let model = Model::load(&path).unwrap();
        let settings = SolverSettings::from_model(&model, &model.default_parameters()).unwrap();
        let fmu = Fmu::build(&model);
        let outputs = run_on_small_stack(&fmu, 5.0 * settings.step, 2);
        assert!(outputs.iter().all(|v| v.is_finite()), "{}: {outputs:?}", path.display());
    }
}

/// A load whose expression is as deep as the limit allows: parsed at fmi2Instantiate and
/// evaluated at every step, within the small stack.
#[test]
fn an_expression_at_the_depth_limit_runs_on_a_256k_stack() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml");
    let n = MAX_EXPRESSION_DEPTH - 1;
    let deep = format!("{}t{}", "sin(".repeat(n), ")".repeat(n));
    let text = std::fs::read_to_string(path).unwrap()
        + &format!(
            "\n[[loads]]\nname = \"deep\"\ntype = \"force\"\nbody = \"mass\"\ndirection = [1.0, 0.0]\nvalue = \"{deep}\"\n"
        );
    let model = Model::parse(&text, "deep.toml").unwrap();
    let fmu = Fmu::build(&model);
    let outputs = run_on_small_stack(&fmu, 0.01, 3);
    assert!(outputs.iter().all(|v| v.is_finite()), "{outputs:?}");
    // One level deeper is refused when the model is read.
    let deeper = text.replace(&deep, &format!("sin({deep})"));
    let err = Model::parse(&deeper, "deep.toml")
        .and_then(|m| flexfmu::mechanics::assemble::assemble(&m, &m.default_parameters()).map(|_| ()));
    let err = err.unwrap_err();
    assert!(err.message.contains("nested deeper than"), "{err}");
}

/// A load that is a flat sum of 100,000 terms is one level deep (a `Chain` walked in a loop):
/// parsed at fmi2Instantiate and evaluated at every step within the small stack.
#[test]
fn a_flat_sum_of_100000_terms_runs_on_a_256k_stack() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml");
    let sum = vec!["1e-6*sin(t)"; 100_000].join(" + ");
    let text = std::fs::read_to_string(path).unwrap()
        + &format!(
            "\n[[loads]]\nname = \"long\"\ntype = \"force\"\nbody = \"mass\"\ndirection = [1.0, 0.0]\nvalue = \"{sum}\"\n"
        );
    let model = Model::parse(&text, "long.toml").unwrap();
    let fmu = Fmu::build(&model);
    let outputs = run_on_small_stack(&fmu, 0.01, 3);
    assert!(outputs.iter().all(|v| v.is_finite()), "{outputs:?}");
}

fn mass_spring() -> Fmu {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml");
    Fmu::build(&Model::load(&path).unwrap())
}

/// Invalid values are refused when they are set, with fmi2Error, and the previous value stays.
#[test]
fn invalid_solver_settings_are_refused_when_set() {
    let fmu = mass_spring();
    let mut inst = fmu.start("settings", None, |_| {});
    let step = fmu.vr("solver_step");
    let before = read(&mut inst, &[step])[0];
    for bad in [0.0, -1e-3, f64::INFINITY, f64::NAN] {
        assert!(inst.set_real(&[step], &[bad]).is_err(), "solver_step = {bad} accepted");
        assert_eq!(read(&mut inst, &[step])[0], before);
    }
    for (name, bad) in
        [("solver_tolerance", 0.0), ("solver_tolerance", 2.0), ("solver_rho_inf", 1.5), ("solver_rtol", -0.1)]
    {
        assert!(inst.set_real(&[fmu.vr(name)], &[bad]).is_err(), "{name} = {bad} accepted");
    }
    inst.do_step(0.0, 0.01, true).unwrap();
}

/// An internal step far below the interval (1e-300 s: 1e298 steps for 0.01 s) makes
/// fmi2DoStep return fmi2Discard at once; the FMU stays at the last good time with its
/// outputs readable, and after restoring a saved state with a sane step it runs on.
#[test]
fn a_tiny_internal_step_is_discarded_not_run() {
    let fmu = mass_spring();
    let mut inst = fmu.start("tiny", None, |_| {});
    let out = fmu.outputs();
    inst.do_step(0.0, 0.01, true).unwrap();
    let good = read(&mut inst, &out);
    let saved = inst.get_fmu_state().unwrap();
    inst.set_real(&[fmu.vr("solver_step")], &[1e-300]).unwrap();
    assert!(matches!(inst.do_step(0.01, 0.01, true), Err(Fmi2Error::Discard)));
    assert_eq!(inst.last_successful_time().unwrap(), 0.01);
    assert_eq!(read(&mut inst, &out), good, "the last good state is intact");
    inst.set_fmu_state(&saved).ok().unwrap();
    inst.do_step(0.01, 0.01, true).unwrap();
}

/// Huge communication steps: one beyond the step budget is discarded before any work (no
/// overflowing step count, no garbage accepted); the stiff impact model does not block.
#[test]
fn communication_steps_beyond_the_budget_are_discarded() {
    let fmu = mass_spring();
    let mut inst = fmu.start("huge", None, |_| {});
    let out = fmu.outputs();
    let start = read(&mut inst, &out);
    assert!(matches!(inst.do_step(0.0, 1e20, true), Err(Fmi2Error::Discard)));
    assert_eq!(inst.last_successful_time().unwrap(), 0.0);
    assert_eq!(read(&mut inst, &out), start);
    // With error control the largest step bounds the work the same way.
    let inst = fmu.start("huge_ec", None, |inst| {
        inst.set_integer(&[fmu.vr("solver_error_control")], &[1]).ok().unwrap();
    });
    assert!(matches!(inst.do_step(0.0, 1e20, true), Err(Fmi2Error::Discard)));

    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/impact_beam.toml");
    let impact = Fmu::build(&Model::load(&path).unwrap());
    let mut inst = impact.start("impact", None, |_| {});
    // 10 s at the model's 1e-5 s step: 1e6 internal steps, over the budget.
    assert!(10.0 / 1e-5 > MAX_STEPS_PER_INTERVAL as f64);
    assert!(matches!(inst.do_step(0.0, 10.0, true), Err(Fmi2Error::Discard)));
    assert_eq!(inst.last_successful_time().unwrap(), 0.0);
}

/// A string parameter set to a huge text that is not one of its choices is refused, and the
/// log shows the text's start and its size, not the whole of it (a probe's 10 MB string was
/// logged in full).
#[test]
fn a_huge_wrong_string_is_not_copied_into_the_log() {
    use flexfmu::fmu::status::Status;
    let (mut inst, log, _dir) = logged_instance("impact_beam");
    let vr = inst.variables().list.iter().find(|v| v.name == "contact").unwrap().vr;
    let huge = "x".repeat(10_000_000);
    assert_eq!(inst.set_strings("fmi2SetString", &[vr], &[Some(huge)]), Status::Error);
    let log = log.lock().unwrap();
    let message = log.iter().find(|m| m.contains("is not one of")).expect("the refusal is logged");
    println!("{message}");
    assert!(message.len() < 300 && message.contains("(10000000 bytes)"), "{} bytes logged", message.len());
}

/// Times where a step is lost in round-off (a probe started at 1e16 s, where one ulp is 2 s):
/// a communication step with t + h == t, or not positive, is refused with fmi2Error (it returned fmi2OK without
/// moving), and an interval the internal steps cannot cross is discarded with the state left
/// as it was (it blamed Newton); `simulate`'s output rows likewise (101 rows at one time).
#[test]
fn steps_below_the_time_resolution_are_refused() {
    use fmi::traits::FmiInstance;
    let fmu = mass_spring();
    let out = fmu.outputs();
    let mut inst = fmu.import.instantiate_cs("late", false, false).unwrap();
    let t0 = 1e16;
    FmiInstance::enter_initialization_mode(&mut inst, None, t0, None).unwrap();
    FmiInstance::exit_initialization_mode(&mut inst).unwrap();
    let start = read(&mut inst, &out);
    assert!(matches!(inst.do_step(t0, 1.0, true), Err(Fmi2Error::Error)));
    // A step that is not positive, as the Modelica Reference-FMUs refuse it (a probe's zero
    // step returned fmi2OK).
    assert!(matches!(inst.do_step(t0, 0.0, true), Err(Fmi2Error::Error)));
    assert!(matches!(inst.do_step(t0, -1.0, true), Err(Fmi2Error::Error)));
    assert!(matches!(inst.do_step(t0, 4.0, true), Err(Fmi2Error::Discard)));
    assert_eq!(inst.last_successful_time().unwrap(), t0);
    assert_eq!(read(&mut inst, &out), start, "the last good state is intact");
    let refused = flexfmu::limits::output_intervals(t0, t0 + 100.0, 0.01).unwrap_err();
    assert!(refused.contains("below the time resolution"), "{refused}");
    assert_eq!(flexfmu::limits::output_intervals(0.0, 100.0, 0.01), Ok(10000));
}

/// A parameter set before initialization that makes the model invalid (a mass of 0) is named
/// with the model's own message when the initialization is refused (a probe's M = 0 read only
/// "mass must be positive, got 0" at the body's line), and a valid value afterwards initializes.
#[test]
fn an_invalid_parameter_set_before_initialization_is_named() {
    use flexfmu::fmu::status::Status;
    use flexfmu::fmu::variables::VarType;
    let (mut inst, log, _dir) = logged_instance("mass_spring");
    let m = inst.variables().list.iter().find(|v| v.name == "m").unwrap().vr;
    assert_eq!(inst.setup_experiment("fmi2SetupExperiment", None, 0.0, None), Status::Ok);
    assert_eq!(inst.set("fmi2SetReal", VarType::Real, &[m], &[0.0]), Status::Ok);
    assert_eq!(inst.enter_initialization_mode(), Status::Ok);
    assert_eq!(inst.exit_initialization_mode("fmi2ExitInitializationMode"), Status::Error);
    let said = log.lock().unwrap().iter().find(|l| l.contains("ExitInitializationMode")).cloned().unwrap();
    assert!(said.starts_with("fmi2ExitInitializationMode: with m = 0: "), "{said}");
    assert!(said.contains("must be positive"), "{said}");
    assert_eq!(inst.set("fmi2SetReal", VarType::Real, &[m], &[2.0]), Status::Ok);
    assert_eq!(inst.exit_initialization_mode("fmi2ExitInitializationMode"), Status::Ok);
}

/// The FMU instance of example `name` (its resources in the returned directory), its log
/// messages collected.
fn logged_instance(
    name: &str,
) -> (flexfmu::fmu::instance::Instance, std::sync::Arc<std::sync::Mutex<Vec<String>>>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let resources = dir.path().join("resources");
    let model = common::fmu::example_resources(&resources, name);
    let guid = flexfmu::fmu::variables::guid(&model.source);
    let log: std::sync::Arc<std::sync::Mutex<Vec<String>>> = Default::default();
    let sink = std::sync::Arc::clone(&log);
    let logger: flexfmu::fmu::log::Logger = Box::new(move |_, _, m| sink.lock().unwrap().push(m.to_string()));
    let inst = flexfmu::fmu::instance::Instance::instantiate(&resources, &guid, logger, true).unwrap();
    (inst, log, dir)
}
