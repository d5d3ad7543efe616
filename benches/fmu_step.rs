//! doStep against the standalone step (issue: "doStep with one internal step <= 1.1x the
//! standalone step"). For each model, the FMU built from it (loaded through the `fmi` crate,
//! a real importer, FMI 2.0 Co-Simulation) takes communication steps equal to the model's
//! solver step, so every doStep is one internal step, and `Simulation::step_to` takes the
//! same steps standalone. The two alternate in rounds of `STEPS` steps from a fresh start,
//! and the ratio of their medians is printed (shared machines are noisy: rounds alternate so
//! both see the same load).
//!
//! Two pairs: the bare step (the FMU computes outputs only when they are read), and the step
//! followed by reading every output (fmi2GetReal of all outputs against
//! `Simulation::output_values`, which includes the index-1 solve for accelerations and
//! reactions when the model has such outputs).
//!
//!     cargo build --release && cargo bench --bench fmu_step
//!
//! Inputs hold their start values in both.
//! The FMU binary is `target/release/libflexfmu.so` (or set FLEXFMU_BINARY).

use flexfmu::export::package::{build_fmu, find_binary};
use flexfmu::fmu::variables::Variables;
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};
use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::instance::{CoSimulation, Common, InstanceCS};
use fmi::traits::FmiInstance;
use std::path::Path;
use std::time::Instant;

const STEPS: usize = 500;
const ROUNDS: usize = 15;

fn median(mut x: Vec<f64>) -> f64 {
    x.sort_by(f64::total_cmp);
    x[x.len() / 2]
}

/// Seconds per step of `STEPS` doSteps of one solver step each, from a fresh instance,
/// reading the outputs `read` after each.
fn fmu_round(import: &Fmi2Import, h: f64, read: &[u32]) -> f64 {
    let mut inst: InstanceCS = import.instantiate_cs("bench", false, false).expect("instantiate");
    FmiInstance::enter_initialization_mode(&mut inst, None, 0.0, None).expect("enter initialization");
    FmiInstance::exit_initialization_mode(&mut inst).expect("exit initialization");
    let mut values = vec![0.0; read.len()];
    let start = Instant::now();
    for k in 0..STEPS {
        inst.do_step(k as f64 * h, h, true).expect("doStep");
        if !read.is_empty() {
            Common::get_real(&mut inst, read, &mut values).expect("get outputs");
        }
    }
    start.elapsed().as_secs_f64() / STEPS as f64
}

/// Seconds per step of `STEPS` standalone steps of the same size: in one call (as
/// `flexfmu simulate` takes them between two output points), or one at a time with the
/// outputs evaluated after each (as `flexfmu simulate` at an output point per step).
fn standalone_round(model: &Model, settings: SolverSettings, h: f64, read: bool) -> f64 {
    let params = model.default_parameters();
    let mut sim = Simulation::new(model, &params, settings, 0.0).expect("simulation");
    let start = Instant::now();
    if read {
        for k in 1..=STEPS {
            sim.step_to(k as f64 * h).expect("step");
            sim.output_values().expect("outputs");
        }
    } else {
        sim.step_to(STEPS as f64 * h).expect("steps");
    }
    let elapsed = start.elapsed().as_secs_f64();
    let steps = sim.statistics().steps;
    assert_eq!(steps, STEPS as u64, "the standalone run took other steps than doStep");
    elapsed / STEPS as f64
}

fn main() {
    // `cargo bench` passes --bench; a filter argument selects models by name.
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let binary = std::fs::read(find_binary().expect("the FMU binary (cargo build --release)")).expect("read binary");
    let dir = tempfile::tempdir().expect("temporary directory");
    println!(
        "| model | solver step | standalone µs/step | doStep µs/step | ratio | \
         with outputs read: standalone µs/step | doStep µs/step | ratio |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for name in ["rigid_pendulum", "crank_slider", "pendulum_corotational", "heavy_top", "cantilever_corotational"] {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("models/{name}.toml"));
        let model = Model::load(&path).expect("example model");
        let settings = SolverSettings::from_model(&model, &model.default_parameters()).expect("settings");
        let h = settings.step;
        let outputs: Vec<u32> = Variables::new(&model).expect("variables").outputs().map(|v| v.vr).collect();
        let fmu = dir.path().join(format!("{name}.fmu"));
        build_fmu(&model, &binary, &fmu).expect("build FMU");
        let import: Fmi2Import = fmi::import::from_path(&fmu).expect("import FMU");
        let mut times = [(); 4].map(|()| Vec::new());
        for _ in 0..ROUNDS {
            times[0].push(standalone_round(&model, settings, h, false));
            times[1].push(fmu_round(&import, h, &[]));
            times[2].push(standalone_round(&model, settings, h, true));
            times[3].push(fmu_round(&import, h, &outputs));
        }
        let [a, f, ar, fr] = times.map(median);
        println!(
            "| {name} | {h} s | {:.2} | {:.2} | {:.3} | {:.2} | {:.2} | {:.3} |",
            a * 1e6,
            f * 1e6,
            f / a,
            ar * 1e6,
            fr * 1e6,
            fr / ar
        );
    }
}
