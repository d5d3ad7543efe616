//! Real-time readiness (issue 21): after warm-up, advancing a simulation by one output
//! interval (`Simulation::step_to`) and reading its outputs performs no heap allocation.
//!
//! A counting global allocator (this test binary only) counts the allocations and
//! reallocations of each thread in a thread-local counter while that thread has switched
//! counting on, so that tests running in parallel threads do not disturb each other.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use flexfmu::integrators::NewtonStrategy;
use flexfmu::model::Model;
use flexfmu::simulation::{Experiment, Method, Simulation, SolverSettings};

#[path = "suite/common/mod.rs"]
mod common;

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    if COUNTING.with(|c| c.get()) {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made by `f` on this thread.
fn allocations_in(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(|n| n.get());
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.with(|n| n.get()) - before
}

/// The model's simulation with its own settings changed by `adjust`, after `warm_up` output
/// intervals; then the allocations of each of the next `intervals` intervals (`step_to` and
/// the output row).
fn allocations_per_interval(
    name: &str,
    adjust: impl FnOnce(&mut SolverSettings),
    warm_up: usize,
    intervals: usize,
) -> Vec<usize> {
    allocations_of_model(&common::sim::example(name), &[], adjust, warm_up, intervals)
}

/// `allocations_per_interval` for a parsed model with parameters `set`.
fn allocations_of_model(
    model: &Model,
    set: &[(&str, f64)],
    adjust: impl FnOnce(&mut SolverSettings),
    warm_up: usize,
    intervals: usize,
) -> Vec<usize> {
    let params = common::sim::parameters(model, set);
    let experiment = Experiment::from_model(model, &params).unwrap();
    let mut sim = common::sim::simulation_with(model, set, adjust);
    let interval = experiment.output_interval.unwrap_or(sim.settings().step);
    let mut k = 0usize;
    let mut advance = |sim: &mut Simulation| {
        k += 1;
        sim.step_to(experiment.start_time + k as f64 * interval).unwrap();
        sim.output_values().unwrap();
    };
    for _ in 0..warm_up {
        advance(&mut sim);
    }
    (0..intervals).map(|_| allocations_in(|| advance(&mut sim))).collect()
}

/// Planar beams and rigid bodies with index-3 rows (pendulum_corotational, crank_slider,
/// cantilever_corotational) and a spatial rigid body with GGL rows (heavy_top).
const MODELS: [&str; 4] = ["pendulum_corotational", "crank_slider", "cantilever_corotational", "heavy_top"];

#[test]
fn the_counting_allocator_sees_this_threads_allocations() {
    let n = allocations_in(|| {
        let v: Vec<f64> = std::hint::black_box(vec![1.0; 10]);
        drop(v);
    });
    assert_eq!(n, 1);
}

/// Each model with its own settings (TTBIF): zero allocations in each of 20 output intervals
/// after 5 intervals of warm-up.
#[test]
fn ttbif_steps_without_allocating() {
    for name in MODELS {
        let counts = allocations_per_interval(name, |_| {}, 5, 20);
        assert!(counts.iter().all(|&c| c == 0), "{name}: allocations per output interval {counts:?}");
    }
}

/// Every other method, and each Newton strategy, on the same models.
#[test]
fn every_method_and_strategy_steps_without_allocating() {
    for name in MODELS {
        for method in Method::ALL {
            let counts = allocations_per_interval(
                name,
                |s| {
                    s.method = method;
                    s.rho_inf = method.default_rho_inf(s.rho_inf);
                },
                5,
                10,
            );
            assert!(counts.iter().all(|&c| c == 0), "{name}, {method}: allocations per output interval {counts:?}");
        }
        for strategy in NewtonStrategy::ALL {
            let counts = allocations_per_interval(name, |s| s.strategy = strategy, 5, 10);
            assert!(counts.iter().all(|&c| c == 0), "{name}, {strategy}: allocations per output interval {counts:?}");
        }
    }
}

/// Error-controlled steps (single step and two halves, the local error test).
#[test]
fn error_controlled_steps_without_allocating() {
    for name in MODELS {
        let counts = allocations_per_interval(name, |s| s.error_control.enabled = true, 5, 10);
        assert!(counts.iter().all(|&c| c == 0), "{name}: allocations per output interval {counts:?}");
    }
}

/// Contact-heavy models (issue 21): the floating-frame impact beam (its element, material
/// point and tip gap work on the stack) and its corotational variant, with the Hertz contact
/// force: none in flight, a bounded few through the first impact (near t = 0.37 s).
#[test]
fn impact_beams_step_without_allocating() {
    for name in ["impact_beam", "impact_beam_corotational"] {
        let counts = allocations_per_interval(name, |_| {}, 5, 20);
        assert!(counts.iter().all(|&c| c == 0), "{name}: allocations per output interval {counts:?}");
        let model = common::sim::example(name);
        let mut sim = common::sim::simulation_with(&model, &[], |_| {});
        sim.step_to(0.36).unwrap();
        let mut t = 0.36;
        let counts: Vec<usize> = (0..20)
            .map(|_| {
                t += 1e-3;
                allocations_in(|| {
                    sim.step_to(t).unwrap();
                    sim.output_values().unwrap();
                })
            })
            .collect();
        let force = common::sim::output(&mut sim, "contact_force");
        println!("{name} through the impact: {counts:?} (contact force at {t} s: {force} N)");
        // Through the impact a few allocations remain, none per evaluation: the event
        // lists' first growth (`Stepper::accept_trial`) and faer's LU storage growing when the
        // pivots of a refactorization change the fill (`lu::resize_vec`). Before: 126,901
        // per interval on impact_beam.
        assert!(counts.iter().all(|&c| c <= 64), "{name} through the impact: allocations {counts:?}");
    }
}

/// Constraint contacts (issue 21): the event update's impulse system (its buffers are the
/// stepper's) and the contact rows' derivatives (on the stack) allocate nothing at an impact.
/// A probe counted 3,626 allocations in 2,700 doSteps of `ball_drop_constraint` after warm-up
/// (`Stepper::settle_events`, `ContactGap::derivatives`). Warm-up: through the first impact
/// (the lists' first growth); then the next 400 output intervals hold further impacts.
#[test]
fn constraint_contacts_settle_impacts_without_allocating() {
    for (name, warm_up, intervals) in [("ball_drop_constraint", 400, 400), ("crank_slider_contact", 40, 60)] {
        let counts = allocations_per_interval(name, |_| {}, warm_up, intervals);
        let total: usize = counts.iter().sum();
        println!("{name}: {total} allocations in {intervals} output intervals after {warm_up}");
        assert_eq!(total, 0, "{name}: allocations per output interval {counts:?}");
    }
}

/// A master that sets the crane's driving inputs at every communication point, held (the
/// drives are ramped to them) or with derivatives (interpolated): after warm-up no interval
/// allocates (the ramped drives' list and the interval's start inputs were new vectors every
/// interval).
#[test]
fn driving_inputs_set_every_interval_allocate_nothing() {
    for derivatives in [false, true] {
        let model = common::sim::example("crane_3d");
        let mut sim = common::sim::simulation_with(&model, &[], |_| {});
        let h = 2e-3;
        let mut t = 0.0;
        let mut advance = |sim: &mut Simulation| {
            t += h;
            let (slew, luff) = (0.5 * t * t, 0.1 * t);
            sim.set_input(0, slew).unwrap();
            sim.set_input(1, luff).unwrap();
            if derivatives {
                sim.set_input_derivative(0, 1, t).unwrap();
                sim.set_input_derivative(1, 1, 0.1).unwrap();
            }
            sim.step_to(t).unwrap();
            sim.output_values().unwrap();
        };
        for _ in 0..10 {
            advance(&mut sim);
        }
        let counts: Vec<usize> = (0..20).map(|_| allocations_in(|| advance(&mut sim))).collect();
        println!("crane_3d, inputs set every interval (derivatives {derivatives}): {counts:?}");
        assert!(counts.iter().all(|&c| c == 0), "derivatives {derivatives}: {counts:?}");
    }
}

/// The discrete plate's multi-point force keeps its lists between evaluations; what remains
/// per output interval are faer's supernodal LU factorizations (temporary index buffers inside
/// `factorize_numeric_lu`), so the count is bounded by the factorizations, not the evaluations.
#[test]
fn plate_discrete_allocates_only_in_factorizations() {
    let counts = allocations_per_interval("plate_discrete", |_| {}, 5, 10);
    println!("plate_discrete: allocations per output interval {counts:?}");
    // Before: 12438 per interval (12 lists per member and evaluation).
    assert!(counts.iter().all(|&c| c <= 200), "plate_discrete: {counts:?}");
}

/// Fractional dampers: the snapshot of the history taken before every step copies the samples
/// into the previous copy's lists. With a bounded memory (`memory`, the samples older than it
/// are dropped) the lists keep their length and a step allocates nothing; with the whole run
/// as memory the sample lists only grow by doubling (the element's and the snapshot's: 4
/// allocations when they do, in few intervals).
#[test]
fn fractional_dampers_copy_their_history_without_allocating() {
    let text = std::fs::read_to_string(common::sim::model_path("oscillator_fractional")).unwrap();
    let bounded = text.replacen("fractional_order = \"alpha\"", "fractional_order = \"alpha\"\nmemory = 0.05", 1);
    assert_ne!(bounded, text);
    let model = Model::parse(&bounded, "oscillator_fractional.toml").unwrap();
    // warm-up beyond the 0.05 s memory, so that the lists have their final length
    let counts = allocations_of_model(&model, &[], |_| {}, 20, 20);
    assert!(counts.iter().all(|&c| c == 0), "bounded memory: allocations per output interval {counts:?}");
    for name in ["oscillator_fractional", "pendulum_fractional"] {
        let counts = allocations_per_interval(name, |_| {}, 5, 20);
        let growing = counts.iter().filter(|&&c| c > 0).count();
        println!("{name}: {counts:?}");
        assert!(counts.iter().all(|&c| c == 0 || c == 4) && growing <= 3, "{name}: {counts:?}");
    }
}

/// Joints at floating-frame beam points (`ContactGap::FloatingJoint`: a pin to ground at the
/// beam's start, a point mass pinned at its end), with a reaction output: their rows' gradient
/// and Hessian are built on the stack. No example model has such a joint.
#[test]
fn joints_at_floating_frame_beam_points_step_without_allocating() {
    let text = r#"[model]
name = "floating_pendulum"
gravity = [0.0, -9.81]

[solver]
step = 1e-4
output_interval = 1e-3

[[beams]]
name = "rod"
formulation = "floating_frame"
modes = 3
start = [0.0, 0.0]
end = [0.5, 0.0]
section = { area = 2e-4, inertia = 2e-9 }
material = { E = 7e10, nu = 0.3, rho = 2700.0 }

[[point_masses]]
name = "bob"
mass = 0.5
position = [0.5, 0.0]

[[joints]]
name = "pivot"
type = "revolute"
body1 = "ground"
body2 = "rod.start"

[[joints]]
name = "hook"
type = "revolute"
body1 = "bob"
body2 = "rod.end"

[[outputs]]
name = "pivot_force"
quantity = "reaction_y"
joint = "pivot"
"#;
    let model = Model::parse(text, "floating_pendulum.toml").unwrap();
    let counts = allocations_of_model(&model, &[], |_| {}, 5, 20);
    assert!(counts.iter().all(|&c| c == 0), "allocations per output interval {counts:?}");
    let mut sim = common::sim::simulation_with(&model, &[], |_| {});
    sim.step_to(0.05).unwrap();
    // It swings: the reaction is not the static weight.
    let force = common::sim::output(&mut sim, "pivot_force");
    assert!(force.is_finite() && force > 0.0, "pivot force {force} N");
}

/// Every example model, after 25 output intervals of warm-up, over the next 20: none
/// allocates but those whose fractional dampers' histories grow with the run (by doubling:
/// `fractional_dampers_copy_their_history_without_allocating`). A probe found the constraint
/// contacts' impulse system allocating at every impact, and the redundant-row check of
/// Bricard's mechanism copied the state into a new snapshot every interval.
#[test]
fn every_example_model_steps_without_allocating() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".toml").map(str::to_string))
        .collect();
    names.sort();
    for name in names {
        let counts = allocations_per_interval(&name, |_| {}, 25, 20);
        let fractional = std::fs::read_to_string(dir.join(format!("{name}.toml"))).unwrap().contains("fractional");
        println!("{name}: {counts:?}{}", if fractional { " (fractional damper)" } else { "" });
        assert!(fractional || counts.iter().all(|&c| c == 0), "{name}: allocations per output interval {counts:?}");
    }
}

/// The FMU's doStep (the version-neutral core behind fmi2DoStep and fmi3DoStep, with its
/// rollback copy of the state and its inputs), followed by reading every output (computed
/// when read), allocates nothing after warm-up
/// either. (A fractional damper's history grows with the run, with amortized allocations:
/// `fractional_dampers_copy_their_history_without_allocating`.)
#[test]
fn fmu_do_step_allocates_nothing_after_warm_up() {
    use flexfmu::fmu::instance::Instance;
    use flexfmu::fmu::status::Status;
    use flexfmu::fmu::variables::{VarType, Variables};
    for name in ["pendulum_corotational", "crank_slider", "ball_drop", "heavy_top", "impact_beam"] {
        let dir = tempfile::tempdir().unwrap();
        let resources = dir.path().join("resources");
        let model = common::fmu::example_resources(&resources, name);
        let guid = flexfmu::fmu::variables::guid(&model.source);
        let mut inst = Instance::instantiate(&resources, &guid, Box::new(|_, _, _| {}), false).unwrap();
        assert_eq!(inst.enter_initialization_mode(), Status::Ok);
        assert_eq!(inst.exit_initialization_mode("test"), Status::Ok);
        let h = 1e-3;
        let mut t = 0.0;
        let outputs: Vec<u32> = Variables::new(&model).unwrap().outputs().map(|v| v.vr).collect();
        let mut step = |n: usize| {
            for _ in 0..n {
                assert_eq!(inst.do_step("test", t, h), Status::Ok);
                t += h;
                assert_eq!(inst.get("test", VarType::Real, &outputs, &mut |_, x| assert!(x.is_finite())), Status::Ok);
            }
        };
        step(20);
        let n = allocations_in(|| step(20));
        println!("{name}: {n} allocations in 20 doSteps after 20 of warm-up");
        assert_eq!(n, 0, "{name}: doStep allocated");
    }
}

/// Output derivatives read between doSteps (every output, orders 1 and 2: differences along
/// the motion, src/simulation/motion_derivatives.rs) may allocate, but leave the steps
/// allocation-free: they use storage of their own, and a doStep after them allocates nothing.
#[test]
fn output_derivatives_between_steps_leave_them_allocation_free() {
    use flexfmu::fmu::instance::Instance;
    use flexfmu::fmu::status::Status;
    use flexfmu::fmu::variables::Variables;
    for name in ["crank_slider", "heavy_top", "pendulum_corotational", "crank_slider_driven"] {
        let dir = tempfile::tempdir().unwrap();
        let resources = dir.path().join("resources");
        let model = common::fmu::example_resources(&resources, name);
        let guid = flexfmu::fmu::variables::guid(&model.source);
        let mut inst = Instance::instantiate(&resources, &guid, Box::new(|_, _, _| {}), false).unwrap();
        assert_eq!(inst.enter_initialization_mode(), Status::Ok);
        assert_eq!(inst.exit_initialization_mode("test"), Status::Ok);
        let outputs: Vec<u32> = Variables::new(&model).unwrap().outputs().map(|v| v.vr).collect();
        let (vrs, orders): (Vec<u32>, Vec<i32>) = outputs.iter().flat_map(|&vr| [(vr, 1), (vr, 2)]).unzip();
        let (h, mut t, mut steps) = (1e-3, 0.0, 0);
        for k in 0..40 {
            let n = allocations_in(|| assert_eq!(inst.do_step("test", t, h), Status::Ok));
            t += h;
            let status = inst.output_derivatives("test", &vrs, &orders, &mut |_, x| assert!(x.is_finite()));
            assert_eq!(status, Status::Ok);
            if k >= 20 {
                steps += n;
            }
        }
        println!("{name}: {steps} allocations in 20 doSteps, each after reading every output derivative");
        assert_eq!(steps, 0, "{name}: doStep allocated after output derivatives");
    }
}
