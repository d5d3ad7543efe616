//! Inputs held over communication intervals (zero-order hold, what an FMI master does with a
//! controller's output): the forces jump at every communication point, and each interval's
//! first step must start from accelerations consistent with the new input
//! (`Simulation::set_input`, `restart_if_inputs_changed`). Reference: a mass-spring (m = 1 kg,
//! k = 100 N/m) under a force u_n = sin(3 t_n) held over [t_n, t_n + H], solved exactly
//! interval by interval: x = p + (x_n - p) cos(w tau) + v_n/w sin(w tau), p = u_n/k.
//! Every method must stay second order in the internal step h, whether an interval holds ten
//! steps or one. Starting each interval from the old input's accelerations made all of them
//! first order (TTBIF at H = 0.01, h = 1e-3: 1.0e-5 m, halving h halved it).

use flexfmu::integrators::Method;
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};

const MODEL: &str = r#"
[model]
name = "held"
[[inputs]]
name = "u"
[[point_masses]]
name = "mass"
mass = 1.0
position = [0.0, 0.0]
[[joints]]
name = "slide"
type = "prismatic"
body2 = "mass"
point = [0.0, 0.0]
axis = [1.0, 0.0]
[[springs]]
name = "spring"
type = "prismatic"
joint = "slide"
stiffness = 100.0
[[loads]]
name = "push"
type = "force"
body = "mass"
direction = [1.0, 0.0]
value = "u"
"#;

/// Largest |x - exact| over 2 s with communication interval `big` and internal step `h`.
fn held_error(method: Method, big: f64, h: f64) -> f64 {
    let model = Model::parse(MODEL, "held.toml").unwrap();
    let params = model.default_parameters();
    let mut settings = SolverSettings::from_model(&model, &params).unwrap();
    settings.step = h;
    settings.method = method;
    settings.rho_inf = method.default_rho_inf(0.5);
    let mut sim = Simulation::new(&model, &params, settings, 0.0).unwrap();
    let w = 10.0f64;
    let (mut x, mut v, mut worst) = (0.0f64, 0.0f64, 0.0f64);
    for k in 0..(2.0 / big).round() as usize {
        let t = k as f64 * big;
        let u = (3.0 * t).sin();
        sim.set_input(0, u).unwrap();
        sim.step_to(t + big).unwrap();
        let p = u / (w * w);
        let (c, s) = ((w * big).cos(), (w * big).sin());
        (x, v) = (p + (x - p) * c + v / w * s, -(x - p) * w * s + v * c);
        worst = worst.max((sim.state().q[0] - x).abs());
    }
    worst
}

#[test]
fn every_method_is_second_order_under_held_inputs() {
    for method in [Method::Ttbif, Method::GeneralizedAlpha, Method::Hht, Method::Newmark, Method::Bathe] {
        for big in [0.01, 0.0] {
            // big = 0: one internal step per interval (H = h).
            let at = |h: f64| held_error(method, if big == 0.0 { h } else { big }, h);
            let (coarse, fine) = (at(1e-3), at(5e-4));
            println!(
                "{method:?}, H = {}: error {coarse:.3e} m at h = 1e-3, {fine:.3e} m at 5e-4, ratio {:.2}",
                if big == 0.0 { "h".to_string() } else { big.to_string() },
                coarse / fine
            );
            assert!(coarse / fine > 3.5, "{method:?}: not second order ({coarse:.3e} -> {fine:.3e})");
            // x is about 0.01 m: within 1e-4 of it at h = 1e-3 (omega h = 0.01).
            assert!(coarse < 1e-6, "{method:?}: error {coarse:.3e} m");
        }
    }
}

/// An FMU whose input moves a driven joint, changed between steps without its derivatives
/// (as FMPy's `simulate_fmu` does by default): the drive jumps at every communication point
/// (a probe's crane: the load 0.24 m off), so the FMU says so, once, as an fmi2Warning; with
/// the derivatives (fmi2SetRealInputDerivatives) it says nothing.
#[test]
fn a_held_input_of_a_drive_is_warned_of_once() {
    use crate::common::c_logger::{Messages, TextInstance, callbacks};
    use flexfmu::export::variables::Variables;
    use flexfmu::fmi2::api::*;
    use std::ffi::c_int;
    let model = "[model]\nname = \"servo\"\ngravity = [0.0, -9.81]\n[[inputs]]\nname = \"u\"\n\
                 [[rigid_bodies]]\nname = \"arm\"\nmass = 1.0\ninertia = 0.01\nposition = [0.0, -0.3]\n\
                 [[joints]]\nname = \"pivot\"\ntype = \"revolute\"\nbody2 = \"arm\"\npoint = [0.0, 0.0]\n\
                 drive = \"u\"\n[[outputs]]\nname = \"torque\"\nquantity = \"drive_force\"\njoint = \"pivot\"\n";
    let vars = Variables::new(&Model::parse(model, "servo.toml").unwrap()).unwrap();
    let u = vars.list.iter().find(|v| v.name == "u").unwrap().vr;
    const OK: c_int = 0;
    const WARNING: c_int = 1;
    // Three steps, the input ramped at 1e-3 rad/s (1e-5 rad per 10 ms step), with or without
    // its rate (larger jumps of a held drive make the step fail, as a probe saw).
    // A master probing by finite differences sets the input to another value and back before
    // the step: the drive does not move, so there is nothing to tell (a probe saw the warning).
    let warnings = |with_derivatives: bool, probed: bool| {
        let messages = Messages::default();
        let cb = callbacks(&messages);
        let instance = TextInstance::new(model, &cb);
        instance.initialize();
        let c = instance.c;
        unsafe {
            for k in 0..3 {
                let t = k as f64 * 0.01;
                let value = if probed { 0.0 } else { 1e-3 * t };
                if probed {
                    assert_eq!(fmi2SetReal(c, [u].as_ptr(), 1, [1e-6].as_ptr()), OK);
                }
                assert_eq!(fmi2SetReal(c, [u].as_ptr(), 1, [value].as_ptr()), OK);
                if with_derivatives {
                    assert_eq!(fmi2SetRealInputDerivatives(c, [u].as_ptr(), 1, [1].as_ptr(), [1e-3].as_ptr()), OK);
                }
                assert_eq!(fmi2DoStep(c, t, 0.01, 1), OK);
            }
        }
        drop(instance);
        let logged = messages.lock().unwrap().clone();
        logged.into_iter().filter(|(st, _, m)| *st == WARNING && m.contains("moves a driven joint")).count()
    };
    assert_eq!(warnings(false, false), 1, "held: told once");
    assert_eq!(warnings(true, false), 0, "with its derivatives: nothing to tell");
    assert_eq!(warnings(false, true), 0, "set and set back: the drive did not move");
}

/// An input set to another value and back before a step changes nothing: the method does not
/// restart (it restarts from consistent accelerations when an input really changed), so the
/// run equals the one without the sets bit for bit (a finite-difference probe of a master
/// changed a crane's trajectory by 1e-11 and was told its drive jumped).
#[test]
fn an_input_set_and_set_back_changes_nothing() {
    let model = crate::common::sim::example("crane_3d");
    let index = 0;
    let run = |probe: bool| {
        let mut sim = crate::common::sim::simulation_with(&model, &[], |_| {});
        for k in 1..=20 {
            if probe {
                sim.set_input(index, 1e-6).unwrap();
                sim.set_input(index, 0.0).unwrap();
            }
            sim.step_to(0.05 * k as f64).unwrap();
        }
        (sim.state().q.clone(), sim.state().v.clone(), sim.statistics().factorizations)
    };
    let (plain, probed) = (run(false), run(true));
    println!("crane_3d, 1 s: factorizations {} plain, {} probed", plain.2, probed.2);
    assert_eq!(plain.0, probed.0);
    assert_eq!(plain.1, probed.1);
}
