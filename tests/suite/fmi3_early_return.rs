//! FMI 3.0 early return at contact events, through the C API in-process (as
//! tests/suite/fmi3_c_api.rs): with `earlyReturnAllowed = fmi3True`, fmi3DoStep over a long interval
//! stops at the first located contact event with `earlyReturn = fmi3True` and
//! `lastSuccessfulTime` the event time, the outputs readable there; the importer continues
//! from it. References: the free-fall time sqrt(2 h0/g) of a ball released at rest, the
//! restitution law v+ = -e v- and the free flight after it (analytic), the impact that
//! `flexfmu simulate` locates (the parabola through a free-flight row of its output), and the
//! same FMU stepped without early return.

use std::ffi::{CString, c_char, c_int, c_void};
use std::path::Path;
use std::ptr::null;

use flexfmu::export::variables::{Variables, guid};
use flexfmu::fmi3::api::*;
use flexfmu::fmi3::time_value_reference;
use flexfmu::fmi3::values::*;
use flexfmu::model::Model;

use crate::common;
use common::ball_drop::{G, R, flight_times};

const OK: c_int = 0;
/// The ball's initial gap to the floor (h0 of both ball models).
const H0: f64 = 0.5;

unsafe extern "C" fn quiet(_env: *mut c_void, _status: c_int, _category: *const c_char, _message: *const c_char) {}

struct Fmu {
    _dir: tempfile::TempDir,
    resources: CString,
    token: CString,
    vars: Variables,
    model_file: std::path::PathBuf,
}

impl Fmu {
    fn new(name: &str) -> Fmu {
        let dir = tempfile::tempdir().unwrap();
        let resources = dir.path().join("resources");
        let model_file = crate::common::sim::model_path(name);
        let model = common::fmu::example_resources(&resources, name);
        let vars = Variables::new(&model).unwrap();
        Fmu {
            _dir: dir,
            resources: CString::new(format!("{}/", resources.display())).unwrap(),
            token: CString::new(guid(&model.source)).unwrap(),
            vars,
            model_file,
        }
    }

    /// An instance in Step Mode at t = 0; `setup` runs in Instantiated (settings, parameters).
    fn start(&self, early_return_allowed: bool, setup: impl FnOnce(*mut c_void)) -> *mut c_void {
        let name = CString::new("inst").unwrap();
        let i = unsafe {
            fmi3InstantiateCoSimulation(
                name.as_ptr(),
                self.token.as_ptr(),
                self.resources.as_ptr(),
                0,
                0,
                0,
                u8::from(early_return_allowed),
                null(),
                0,
                std::ptr::null_mut(),
                Some(quiet),
                None,
            )
        };
        assert!(!i.is_null());
        setup(i);
        unsafe {
            assert_eq!(fmi3EnterInitializationMode(i, 0, 0.0, 0.0, 0, 0.0), OK);
            assert_eq!(fmi3ExitInitializationMode(i), OK);
        }
        i
    }

    fn vr(&self, name: &str) -> u32 {
        self.vars.list.iter().find(|v| v.name == name).unwrap().vr
    }

    fn outputs(&self) -> Vec<u32> {
        self.vars.outputs().map(|v| v.vr).collect()
    }
}

/// One fmi3DoStep: (status, earlyReturn, lastSuccessfulTime); eventHandlingNeeded must be
/// false (no Event Mode) and terminateSimulation false (the step succeeded).
fn do_step(i: *mut c_void, tc: f64, h: f64) -> (c_int, bool, f64) {
    let (mut event, mut terminate, mut early, mut last) = (9u8, 9u8, 9u8, f64::NAN);
    let s = unsafe { fmi3DoStep(i, tc, h, 1, &mut event, &mut terminate, &mut early, &mut last) };
    assert_eq!((event, terminate), (0, 0), "eventHandlingNeeded and terminateSimulation");
    assert!(early <= 1);
    (s, early == 1, last)
}

fn get(i: *mut c_void, vrs: &[u32]) -> Vec<f64> {
    let mut v = vec![f64::NAN; vrs.len()];
    assert_eq!(unsafe { fmi3GetFloat64(i, vrs.as_ptr(), vrs.len(), v.as_mut_ptr(), v.len()) }, OK);
    v
}

/// An importer that honours early return (as FMPy's simulate_fmu does): communication points
/// k H up to `stop`; after an early return the next step starts at lastSuccessfulTime and
/// goes to the next grid point. Returns the outputs at every grid point and the early-return
/// times.
fn run(fmu: &Fmu, i: *mut c_void, h: f64, stop: f64) -> (Vec<(f64, Vec<f64>)>, Vec<f64>) {
    let outputs = fmu.outputs();
    let (mut rows, mut early_times) = (Vec::new(), Vec::new());
    let mut t = 0.0;
    let n = (stop / h).round() as usize;
    for k in 1..=n {
        let next = k as f64 * h;
        loop {
            let (status, early, last) = do_step(i, t, next - t);
            assert_eq!(status, OK);
            t = last;
            if !early {
                assert_eq!(last, next);
                break;
            }
            assert!(last < next, "an early return ends before the communication point");
            early_times.push(last);
        }
        rows.push((t, get(i, &outputs)));
    }
    (rows, early_times)
}

/// The impact time `flexfmu simulate` locates: the free-flight parabola through its output row
/// at `sample` (before the first impact) gives the next time the ball touches the floor.
fn simulate_impact_time(fmu: &Fmu, sample: f64) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("out.csv");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_flexfmu"))
        .arg("simulate")
        .arg(&fmu.model_file)
        .arg("-o")
        .arg(&csv)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (t, y, vy) = (col("time"), col("y"), col("vy"));
    let row: Vec<f64> = lines
        .map(|l| l.split(',').map(|x| x.parse::<f64>().unwrap()).collect::<Vec<f64>>())
        .find(|r| (r[t] - sample).abs() < 1e-12)
        .unwrap();
    flight_times(row[t], row[y], row[vy]).1
}

#[test]
fn contact_models_claim_early_return_and_others_do_not() {
    for (name, claims) in
        [("ball_drop", true), ("ball_drop_constraint", true), ("mass_spring", false), ("crank_slider", false)]
    {
        let model = Model::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("models/{name}.toml"))).unwrap();
        let xml = flexfmu::export::model_description3::model_description3(&model).unwrap();
        let flag = format!(r#"mightReturnEarlyFromDoStep="{claims}""#);
        assert!(xml.contains(&flag), "{name}: {flag}");
    }
}

#[test]
fn ball_drop_returns_early_at_the_free_fall_time() {
    let fmu = Fmu::new("ball_drop");
    let free_fall = (2.0 * H0 / G).sqrt();
    let simulate = simulate_impact_time(&fmu, 0.3);
    let i = fmu.start(true, |_| {});
    let (status, early, last) = do_step(i, 0.0, 1.0);
    let vrs = [fmu.vr("y"), fmu.vr("vy"), fmu.vr("penetration"), time_value_reference(&fmu.vars)];
    let v = get(i, &vrs);
    println!(
        "early return at {last:.15} s; sqrt(2 h0/g) = {free_fall:.15} s (difference {:.2e} s); flexfmu simulate's \
         impact {simulate:.15} s (difference {:.2e} s); y - r = {:.2e} m, vy = {} m/s, time = {}",
        last - free_fall,
        last - simulate,
        v[0] - R,
        v[1],
        v[3]
    );
    assert_eq!((status, early), (OK, true));
    // The event is located to 1e-7 of the internal step (5e-5 s) after the crossing; the
    // free fall itself is a parabola, which the integrator follows to rounding.
    assert!((last - free_fall).abs() < 1e-10, "{last} vs {free_fall}");
    assert!((last - simulate).abs() < 1e-10, "{last} vs {simulate}");
    // The outputs are those at the event: the ball touches the floor at the impact speed
    // sqrt(2 g h0), and `time` reads lastSuccessfulTime.
    assert_eq!(v[3], last);
    assert!((v[0] - R).abs() < 1e-9 && v[2].abs() < 1e-9, "{v:?}");
    assert!((v[1] + (2.0 * G * H0).sqrt()).abs() < 1e-9, "{v:?}");
    // The next step starts at the event time; a step from the original communication point
    // is refused (it does not match the FMU's time).
    assert_ne!(do_step(i, 0.0, 1.0).0, OK);
    let (status, early, next) = do_step(i, last, 1.0 - last);
    assert_eq!((status, early), (OK, true), "the separation is the next event");
    let v = get(i, &vrs);
    println!("separation after {:.3e} s: penetration {:.2e} m, vy = {} m/s", next - last, v[2], v[1]);
    // The separation: the penetration (the event function) back at zero, the ball rising.
    assert!(next > last && v[2].abs() < 1e-9 && v[1] > 0.0, "{v:?}");
    assert_eq!(v[3], next);
    unsafe { fmi3FreeInstance(i) };
}

#[test]
fn ball_drop_constraint_returns_early_after_the_velocity_jump() {
    let fmu = Fmu::new("ball_drop_constraint");
    let (free_fall, v0, e) = ((2.0 * H0 / G).sqrt(), (2.0 * G * H0).sqrt(), 0.6);
    let i = fmu.start(true, |_| {});
    let vrs = [fmu.vr("y"), fmu.vr("vy")];
    let (status, early, t1) = do_step(i, 0.0, 1.0);
    let v = get(i, &vrs);
    assert_eq!((status, early), (OK, true));
    // The state there is the one after the impact: Newton's law v+ = -e v-.
    println!("impact at {t1:.15} s (sqrt(2 h0/g) = {free_fall:.15}), vy after it {} (e v0 = {})", v[1], e * v0);
    assert!((t1 - free_fall).abs() < 1e-9, "{t1} vs {free_fall}");
    assert!((v[1] - e * v0).abs() < 1e-9 * v0, "{v:?}");
    // Free flight to the next impact: 2 e v0 / g later (the release of the constraint may be
    // an event of its own, right after the impact).
    let mut t = t1;
    let t2 = loop {
        let (status, early, last) = do_step(i, t, 1.0 - t);
        assert_eq!((status, early), (OK, true));
        t = last;
        if last - t1 > 0.1 {
            break last;
        }
    };
    let flight = 2.0 * e * v0 / G;
    println!("next impact at {t2:.15} s: flight {:.15} s, 2 e v0/g = {flight:.15} s", t2 - t1);
    assert!((t2 - t1 - flight).abs() < 1e-6, "{} vs {flight}", t2 - t1);
    unsafe { fmi3FreeInstance(i) };
}

/// Continuing after early returns gives the trajectory without them at the later communication
/// points, to the discretization error: with fixed internal steps the interval after an event
/// is divided into equal steps from the event time, not on the original grid, so the states
/// differ by the integrator's local errors there; the reference for "small" is the difference
/// between the run at the model's internal step and at half of it.
#[test]
fn continuing_after_early_returns_follows_the_trajectory_without_them() {
    let fmu = Fmu::new("ball_drop");
    let (h, stop) = (0.01, 1.2);
    let plain = fmu.start(false, |_| {});
    let (reference, none) = run(&fmu, plain, h, stop);
    assert!(none.is_empty(), "no early return unless allowed");
    let early = fmu.start(true, |_| {});
    let (rows, events) = run(&fmu, early, h, stop);
    let step = fmu.vr("solver_step");
    let half = fmu.start(false, |i| assert_eq!(unsafe { fmi3SetFloat64(i, &step, 1, &2.5e-5, 1) }, OK));
    let (halved, _) = run(&fmu, half, h, stop);
    println!("early returns at {events:?}");
    // Impacts at 0.319, 0.702 (2 e v0/g later), ...: onset and separation of each.
    assert!(events.len() >= 4 && events.len() % 2 == 0, "{events:?}");
    let (y, vy) = (0, 1);
    let worst = |a: &[(f64, Vec<f64>)], b: &[(f64, Vec<f64>)], k: usize| {
        a.iter().zip(b).map(|(a, b)| (a.1[k] - b.1[k]).abs()).fold(0.0, f64::max)
    };
    let (dy, dvy) = (worst(&rows, &reference, y), worst(&rows, &reference, vy));
    let (ey, evy) = (worst(&halved, &reference, y), worst(&halved, &reference, vy));
    println!("early return vs none: |dy| {dy:.2e} m, |dvy| {dvy:.2e} m/s; step h/2 vs h: {ey:.2e} m, {evy:.2e} m/s");
    assert!(rows.iter().zip(&reference).all(|(a, b)| a.0 == b.0));
    assert!(dy < ey && dvy < evy, "the early-return run must differ less than the discretization error");
    for i in [plain, early, half] {
        unsafe { fmi3FreeInstance(i) };
    }
}

/// With error-controlled internal steps the step after an event is the one the run without
/// early return takes (the proposed step is part of the state and the step is aimed at the
/// same communication point), so continuing is bit for bit the same.
#[test]
fn with_error_control_continuing_is_bit_for_bit() {
    let fmu = Fmu::new("ball_drop");
    let control = fmu.vr("solver_error_control");
    let on = |i: *mut c_void| assert_eq!(unsafe { fmi3SetInt32(i, &control, 1, &1, 1) }, OK);
    let (h, stop) = (0.01, 1.2);
    let plain = fmu.start(false, on);
    let early = fmu.start(true, on);
    let (reference, _) = run(&fmu, plain, h, stop);
    let (rows, events) = run(&fmu, early, h, stop);
    println!("early returns at {events:?}");
    assert!(events.len() >= 4, "{events:?}");
    let bits = |rows: &[(f64, Vec<f64>)]| -> Vec<u64> {
        rows.iter().flat_map(|(t, v)| std::iter::once(t.to_bits()).chain(v.iter().map(|x| x.to_bits()))).collect()
    };
    assert_eq!(bits(&rows), bits(&reference));
    for i in [plain, early] {
        unsafe { fmi3FreeInstance(i) };
    }
}

/// A model without contacts has no events: with early return allowed it steps exactly as
/// without, never returning early.
#[test]
fn a_model_without_contacts_never_returns_early() {
    for name in ["mass_spring", "crank_slider"] {
        let fmu = Fmu::new(name);
        let (a, b) = (fmu.start(true, |_| {}), fmu.start(false, |_| {}));
        let (with, events) = run(&fmu, a, 0.05, 1.0);
        let (without, _) = run(&fmu, b, 0.05, 1.0);
        assert!(events.is_empty(), "{name}: {events:?}");
        assert_eq!(with, without, "{name}");
        for i in [a, b] {
            unsafe { fmi3FreeInstance(i) };
        }
    }
}
