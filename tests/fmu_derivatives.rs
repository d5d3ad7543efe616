//! Output derivatives, input interpolation and directional derivatives through the C entry
//! points (in-process, as tests/c_api.rs): fmi2GetRealOutputDerivatives against finite
//! differences of the output history, fmi2SetRealInputDerivatives against the same input
//! given at every internal step, fmi2GetDirectionalDerivative against central differences
//! through the FMU, and the errors for what is not available.

use std::ffi::{CString, c_int, c_void};
use std::path::{Path, PathBuf};

use flexfmu::export::variables::{Variables, guid};
use flexfmu::fmi2::api::*;
use flexfmu::model::Model;

mod common;
use common::c_logger::{Messages, callbacks};

const OK: c_int = 0;
const ERROR: c_int = 3;

struct Inst {
    c: *mut c_void,
    vars: Variables,
    messages: Box<Messages>,
    _dir: tempfile::TempDir,
    _resources: PathBuf,
}

impl Inst {
    /// Instantiate models/`name`.toml and initialize at t = 0.
    fn new(name: &str) -> Inst {
        let dir = tempfile::tempdir().unwrap();
        let resources = dir.path().join("resources");
        std::fs::create_dir_all(&resources).unwrap();
        let text =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("models/{name}.toml"))).unwrap();
        std::fs::write(resources.join("model.toml"), &text).unwrap();
        let model = Model::parse(&text, "model.toml").unwrap();
        let messages = Box::new(Messages::default());
        let cb = Box::leak(Box::new(callbacks(&messages)));
        let (n, g, uri) = (
            CString::new(name).unwrap(),
            CString::new(guid(&model.source)).unwrap(),
            CString::new(format!("file://{}", resources.display())).unwrap(),
        );
        let c = unsafe { fmi2Instantiate(n.as_ptr(), 1, g.as_ptr(), uri.as_ptr(), cb, 0, 0) };
        assert!(!c.is_null());
        unsafe {
            assert_eq!(fmi2SetupExperiment(c, 0, 0.0, 0.0, 0, 0.0), OK);
            assert_eq!(fmi2EnterInitializationMode(c), OK);
            assert_eq!(fmi2ExitInitializationMode(c), OK);
        }
        Inst { c, vars: Variables::new(&model).unwrap(), messages, _dir: dir, _resources: resources }
    }

    fn vr(&self, name: &str) -> u32 {
        self.vars.list.iter().find(|v| v.name == name).unwrap().vr
    }

    fn get(&self, name: &str) -> f64 {
        let mut x = f64::NAN;
        assert_eq!(unsafe { fmi2GetReal(self.c, [self.vr(name)].as_ptr(), 1, &mut x) }, OK);
        x
    }

    fn set(&self, name: &str, x: f64) {
        assert_eq!(unsafe { fmi2SetReal(self.c, [self.vr(name)].as_ptr(), 1, [x].as_ptr()) }, OK);
    }

    fn step(&self, t: f64, h: f64) {
        assert_eq!(unsafe { fmi2DoStep(self.c, t, h, 1) }, OK);
    }

    fn derivative(&self, name: &str, order: c_int) -> Result<f64, String> {
        let mut x = f64::NAN;
        let status =
            unsafe { fmi2GetRealOutputDerivatives(self.c, [self.vr(name)].as_ptr(), 1, [order].as_ptr(), &mut x) };
        if status == OK { Ok(x) } else { Err(self.last_message()) }
    }

    fn set_derivative(&self, name: &str, order: c_int, x: f64) -> c_int {
        unsafe { fmi2SetRealInputDerivatives(self.c, [self.vr(name)].as_ptr(), 1, [order].as_ptr(), [x].as_ptr()) }
    }

    fn directional(&self, unknown: &str, known: &str, seed: f64) -> Result<f64, String> {
        let mut x = f64::NAN;
        let status = unsafe {
            fmi2GetDirectionalDerivative(
                self.c,
                [self.vr(unknown)].as_ptr(),
                1,
                [self.vr(known)].as_ptr(),
                1,
                [seed].as_ptr(),
                &mut x,
            )
        };
        if status == OK { Ok(x) } else { Err(self.last_message()) }
    }

    fn last_message(&self) -> String {
        self.messages.lock().unwrap().last().map(|m| m.2.clone()).unwrap_or_default()
    }
}

impl Drop for Inst {
    fn drop(&mut self) {
        unsafe { fmi2FreeInstance(self.c) };
    }
}

/// crank_slider (crank 60 deg, 2 pi rad/s, spring-damper on the slider, gravity): at
/// t = 0.5 s the returned derivatives are the limits of central differences of the output
/// history: y' ~ (y(t+H) - y(t-H)) / 2H and y'' ~ (y(t+H) - 2 y(t) + y(t-H)) / H^2 both
/// have an O(H^2) truncation error, so the difference must fall about 4x from H = 0.02 s
/// to H = 0.01 s (at least 3x asserted) and be small at H = 0.01 s.
#[test]
fn output_derivatives_are_the_limits_of_finite_differences() {
    let t = 0.5;
    // (output, order, derivative at t)
    let mut checks: Vec<(&str, c_int, f64)> = Vec::new();
    let mut errors: Vec<Vec<f64>> = Vec::new();
    let names = [("slider_x", 1), ("slider_x", 2), ("slider_v", 1), ("crank_angle", 1), ("crank_angle", 2)];
    for (run, h) in [0.02, 0.01].into_iter().enumerate() {
        let inst = Inst::new("crank_slider");
        let mut now = 0.0;
        let mut history = Vec::new();
        for target in [t - h, t, t + h] {
            inst.step(now, target - now);
            now = target;
            history.push(names.iter().map(|(n, _)| inst.get(n)).collect::<Vec<_>>());
            if target == t && run == 0 {
                checks = names.iter().map(|&(n, k)| (n, k, inst.derivative(n, k).unwrap())).collect();
                // The derivatives are the solver's state: slider_x' = slider_v exactly.
                assert_eq!(checks[0].2, inst.get("slider_v"));
                assert_eq!(checks[3].2, inst.get("crank_speed"));
            }
        }
        errors.push(
            checks
                .iter()
                .enumerate()
                .map(|(j, (_, k, d))| {
                    let (m, z, p) = (history[0][j], history[1][j], history[2][j]);
                    let fd = if *k == 1 { (p - m) / (2.0 * h) } else { (p - 2.0 * z + m) / (h * h) };
                    (fd - d).abs() / d.abs().max(1.0)
                })
                .collect(),
        );
    }
    for (j, (name, k, d)) in checks.iter().enumerate() {
        let (coarse, fine) = (errors[0][j], errors[1][j]);
        eprintln!("{name} order {k}: {d:.6e}, FD error {coarse:.2e} (H = 0.02) {fine:.2e} (H = 0.01)");
        assert!(fine < coarse / 3.0, "{name} order {k}: no O(H^2) convergence ({coarse:e} -> {fine:e})");
        assert!(fine < 1e-2, "{name} order {k}: {fine:e}");
    }
}

#[test]
fn missing_derivative_orders_are_errors_with_a_reason() {
    let inst = Inst::new("crank_slider");
    inst.step(0.0, 0.01);
    for (name, order) in [("slider_v", 2), ("energy_total", 1), ("slider_x", 3), ("slider_x", 0), ("slider_x", -1)] {
        let e = inst.derivative(name, order).unwrap_err();
        assert!(e.starts_with("fmi2GetRealOutputDerivatives: "), "{e}");
        assert!(e.contains(name) && e.contains("order"), "{e}");
    }
    assert!(inst.derivative("crank_torque", 1).unwrap_err().contains("not an output"));
    let e = unsafe { fmi2GetRealOutputDerivatives(inst.c, [9999].as_ptr(), 1, [1].as_ptr(), &mut 0.0) };
    assert_eq!(e, ERROR);
    assert!(inst.last_message().contains("unknown value reference 9999"));
    // Still usable.
    assert!(inst.derivative("slider_x", 2).unwrap().is_finite());
}

/// mass_spring with a force ramp over [0, 0.1] s given once with its derivatives
/// (fmi2SetRealInputDerivatives, one communication step of 0.1 s, internal step 1e-3 s)
/// equals the same ramp given at every 1e-3 s communication point: in both runs each
/// internal step holds the input at its start (u + u' dt + u'' dt^2 / 2), so the two runs
/// differ only in the rounding of the internal step times (t0 + 0.1 k / 100 against a sum of
/// 1e-3 steps, ~1e-17 s): agreement to 1e-12 relative.
#[test]
fn interpolated_inputs_equal_the_same_input_at_every_internal_step() {
    let ramp = |t: f64| 0.3 + 2.0 * t - 0.5 * 40.0 * t * t;
    let a = Inst::new("mass_spring");
    a.set("force", ramp(0.0));
    assert_eq!(a.set_derivative("force", 1, 2.0), OK);
    assert_eq!(a.set_derivative("force", 2, -40.0), OK);
    a.step(0.0, 0.1);
    let b = Inst::new("mass_spring");
    let mut t = 0.0;
    for _ in 0..100 {
        b.set("force", ramp(t));
        b.step(t, 1e-3);
        t += 1e-3;
    }
    let c = Inst::new("mass_spring");
    c.set("force", ramp(0.0));
    c.step(0.0, 0.1);
    for name in ["x", "v"] {
        let (xa, xb, xc) = (a.get(name), b.get(name), c.get(name));
        eprintln!("{name}: interpolated {xa:.15e}, stepped {xb:.15e}, held {xc:.15e}");
        assert!((xa - xb).abs() <= 1e-12 * xb.abs(), "{name}: {xa} vs {xb}");
        // The ramp matters: holding u(0) over the step is far off.
        assert!((xc - xb).abs() > 1e-6 * xb.abs(), "{name}: {xc} vs {xb}");
    }
    // The input is u again after the step and the derivatives are spent.
    assert_eq!(a.get("force"), ramp(0.0));
    a.step(0.1, 0.1);
    c.step(0.1, 0.1);
    let (before_a, before_c) = (a.get("x"), c.get("x"));
    assert!(before_a.is_finite() && before_c.is_finite());
}

#[test]
fn bad_input_derivatives_are_errors_with_a_reason() {
    let inst = Inst::new("mass_spring");
    assert_eq!(inst.set_derivative("force", 1, f64::NAN), ERROR);
    assert!(inst.last_message().contains("must be finite"), "{}", inst.last_message());
    assert_eq!(inst.set_derivative("force", 3, 1.0), ERROR);
    assert!(inst.last_message().contains("must be 1 or 2"), "{}", inst.last_message());
    assert_eq!(inst.set_derivative("x", 1, 1.0), ERROR);
    assert!(inst.last_message().contains("is not an input"), "{}", inst.last_message());
    let status = unsafe { fmi2SetRealInputDerivatives(inst.c, [9999].as_ptr(), 1, [1].as_ptr(), [1.0].as_ptr()) };
    assert_eq!(status, ERROR);
    // A refused call changes nothing: the step holds the input.
    let plain = Inst::new("mass_spring");
    inst.step(0.0, 0.1);
    plain.step(0.0, 0.1);
    assert_eq!(inst.get("x"), plain.get("x"));
    unsafe { assert_eq!(fmi2Terminate(inst.c), OK) };
    assert_eq!(inst.set_derivative("force", 1, 1.0), ERROR);
    assert!(inst.last_message().contains("Illegal call sequence"));
}

/// d output / d input against central differences through the FMU (set the input to
/// u +- delta, read without stepping). The accelerations and reactions are affine in the
/// force magnitudes at fixed (q, v), so the central difference is exact up to rounding:
/// agreement to 1e-7 relative with delta = 1e-3 (rounding ~1e-16 / 1e-3 of the output).
#[test]
fn directional_derivatives_equal_central_differences() {
    for (model, input, outputs, steps) in [
        ("mass_spring", "force", vec!["a", "x", "v", "energy_total"], 0),
        ("pendulum", "torque", vec!["Fy", "phi", "omega"], 0),
        ("pendulum", "torque", vec!["Fy", "phi", "omega"], 37),
    ] {
        let inst = Inst::new(model);
        for k in 0..steps {
            inst.step(k as f64 * 0.01, 0.01);
        }
        let u = inst.get(input);
        let delta = 1e-3;
        for output in outputs {
            inst.set(input, u + delta);
            let plus = inst.get(output);
            inst.set(input, u - delta);
            let minus = inst.get(output);
            inst.set(input, u);
            let fd = (plus - minus) / (2.0 * delta);
            let exact = inst.directional(output, input, 1.0).unwrap();
            eprintln!(
                "{model} t = {:.2}: d{output}/d{input} = {exact:.12e}, central difference {fd:.12e}",
                steps as f64 * 0.01
            );
            assert!((exact - fd).abs() <= 1e-7 * exact.abs().max(1.0), "{model}: {output}: {exact} vs {fd}");
            if fd == 0.0 {
                assert_eq!(exact, 0.0, "{output} does not depend directly on {input}");
            }
            assert_eq!(inst.directional(output, input, 2.5).unwrap(), 2.5 * exact);
        }
    }
    // mass_spring: a = (F - k x) / m, so da/dF = 1/m = 1 exactly.
    let inst = Inst::new("mass_spring");
    assert!((inst.directional("a", "force", 1.0).unwrap() - 1.0).abs() < 1e-12);
    // pendulum at rest at 60 deg from the vertical: alpha = T / (m L^2 / 3), the centre's
    // vertical acceleration alpha (L/2) sin(60 deg), so dFy/dT = m (L/2) sin(60 deg) / (m L^2 / 3).
    let p = Inst::new("pendulum");
    let expected = 0.5 * (std::f64::consts::PI / 3.0).sin() / (1.0 / 3.0);
    assert!((p.directional("Fy", "torque", 1.0).unwrap() - expected).abs() < 1e-12);
    assert!(inst.directional("a", "k", 1.0).unwrap_err().contains("is not an input"));
    assert!(inst.directional("force", "force", 1.0).unwrap_err().contains("is not an output"));
    assert!(inst.directional("a", "force", f64::INFINITY).unwrap_err().contains("must be finite"));
}
