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
/// (as FMPy's `simulate_fmu` does by default): the drive moves at constant speed over each
/// interval to the held value (`a_held_drive_input_is_followed_at_constant_speed`), its speed
/// changes in steps, so the FMU says so, once, as an fmi2Warning; with the derivatives
/// (fmi2SetRealInputDerivatives) it says nothing.
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
    // its rate.
    // A master probing by finite differences sets the input to another value and back before
    // the step: the drive does not move, so there is nothing to tell (a probe saw the warning).
    // A master that gives the derivatives gives them for every step, zeros too: a rate set to
    // 0 is no input "changed without its derivatives" (probe 40b was told it was).
    let warnings = |rate: Option<f64>, probed: bool| {
        let messages = Messages::default();
        let cb = callbacks(&messages);
        let instance = TextInstance::new(model, &cb);
        instance.initialize();
        let c = instance.c;
        // The step that tells returns fmi2Warning, the others fmi2OK.
        let mut returned_warning = 0;
        unsafe {
            for k in 0..3 {
                let t = k as f64 * 0.01;
                let value = if probed { 0.0 } else { 1e-3 * t };
                if probed {
                    assert_eq!(fmi2SetReal(c, [u].as_ptr(), 1, [1e-6].as_ptr()), OK);
                }
                assert_eq!(fmi2SetReal(c, [u].as_ptr(), 1, [value].as_ptr()), OK);
                if let Some(rate) = rate {
                    assert_eq!(fmi2SetRealInputDerivatives(c, [u].as_ptr(), 1, [1].as_ptr(), [rate].as_ptr()), OK);
                }
                let status = fmi2DoStep(c, t, 0.01, 1);
                assert!(status == OK || status == WARNING, "{status}");
                returned_warning += usize::from(status == WARNING);
            }
        }
        drop(instance);
        let logged = messages.lock().unwrap().clone();
        let told = logged.into_iter().filter(|(st, _, m)| *st == WARNING && m.contains("moves a driven joint")).count();
        assert_eq!(returned_warning, told, "fmi2Warning returned by the steps that warned");
        told
    };
    assert_eq!(warnings(None, false), 1, "held: told once");
    assert_eq!(warnings(Some(1e-3), false), 0, "with its derivatives: nothing to tell");
    assert_eq!(warnings(Some(0.0), false), 0, "with derivatives that are 0: nothing to tell");
    assert_eq!(warnings(None, true), 0, "set and set back: the drive did not move");
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

/// A block on a 3D prismatic joint along 45 degrees (gravity -z) whose stroke is the input u,
/// with outputs s, sd (stroke and its rate), F (drive force), E and Es (energy total and
/// supplied), on an internal step of 1 ms.
fn slider() -> Simulation {
    let model = Model::parse(
        "[model]\nname = \"slider\"\ndimension = 3\ngravity = [0.0, 0.0, -9.81]\n[[inputs]]\nname = \"u\"\n\
         [solver]\nstep = 1e-3\n\
         [[rigid_bodies]]\nname = \"block\"\nmass = 2.0\ninertia = [0.01, 0.02, 0.03]\nposition = [0.0, 0.0, 0.0]\n\
         [[joints]]\nname = \"rod\"\ntype = \"prismatic\"\nbody2 = \"block\"\npoint = [0.0, 0.0, 0.0]\n\
         axis = [1.0, 0.0, 1.0]\ndrive = \"u\"\n\
         [[outputs]]\nname = \"s\"\nquantity = \"joint_position\"\njoint = \"rod\"\n\
         [[outputs]]\nname = \"sd\"\nquantity = \"joint_velocity\"\njoint = \"rod\"\n\
         [[outputs]]\nname = \"F\"\nquantity = \"drive_force\"\njoint = \"rod\"\n\
         [[outputs]]\nname = \"E\"\nquantity = \"energy_total\"\n\
         [[outputs]]\nname = \"Es\"\nquantity = \"energy_supplied\"\n",
        "slider.toml",
    )
    .unwrap();
    let settings = SolverSettings::from_model(&model, &[]).unwrap();
    Simulation::new(&model, &[], settings, 0.0).unwrap()
}

/// A driven slider (3D prismatic joint along 45 degrees, gravity -z) whose input, the stroke,
/// is held between communication points 10 ms apart and ramped at 5 mm/s by the master (a
/// probe's case: the jump of the drive at each point "gained 3.9e5 J" in the first stage and
/// the FMU discarded the step at t = 0.01 s). The drive follows each held value at constant
/// speed over the next interval: at every communication point the stroke is the value held
/// over the last interval, its rate is the ramp's (5 mm/s from the second interval on), the
/// drive force is the weight's component m g / sqrt 2 (no acceleration inside an interval),
/// and the energy change equals the energy supplied.
#[test]
fn a_held_drive_input_is_followed_at_constant_speed() {
    let mut sim = slider();
    let (comm, rate) = (0.01, 5e-3);
    let weight = 2.0 * 9.81 / 2f64.sqrt();
    let (mut off_s, mut off_rate, mut off_force, mut off_balance) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for k in 0..100 {
        let t = k as f64 * comm;
        sim.set_input(0, rate * t).unwrap();
        sim.step_to(t + comm).unwrap_or_else(|e| panic!("interval from {t}: {e}"));
        let [s, sd, force, e, es] = [0, 1, 2, 3, 4].map(|i| sim.output_values().unwrap()[i]);
        off_s = off_s.max((s - rate * t).abs());
        if k > 0 {
            off_rate = off_rate.max((sd - rate).abs());
            off_force = off_force.max((force - weight).abs());
        }
        off_balance = off_balance.max((e - es).abs());
    }
    eprintln!(
        "held stroke: off the held values {off_s:.1e} m, rate off 5 mm/s {off_rate:.1e} m/s, force off m g/sqrt 2 \
         {off_force:.1e} N, energy change - supplied {off_balance:.1e} J"
    );
    assert!(off_s < 1e-12 && off_rate < 1e-12, "stroke {off_s:e} m, rate {off_rate:e} m/s");
    assert!(off_force < 1e-9 * weight, "drive force off by {off_force:e} N");
    assert!(off_balance < 1e-12, "energy balance {off_balance:e} J");
}

/// The slider's held stroke (u = 0.05 (1 - cos 20 t)) set at communication points one
/// internal step apart, at the times a master computes as k h (FMPy: the step (k + 1) h - k h is an ulp shorter than h on
/// about one step in five): the stroke reaches each held value at the next point, as on exact
/// steps. A step an ulp short ramped over a full step from there, and the drive lagged its
/// input by up to three steps' increments, its force jumping (a probe's servo: 1.5e-5 rad,
/// 2.6 N m of 11).
#[test]
fn a_held_drive_input_on_steps_an_ulp_short_reaches_each_value() {
    let mut sim = slider();
    let h = 1e-3;
    let command = |t: f64| 0.05 * (1.0 - (20.0 * t).cos());
    let (mut short, mut off_s) = (0, 0.0f64);
    for k in 0..300 {
        let (t, next) = (k as f64 * h, (k + 1) as f64 * h);
        short += usize::from(next - t < h);
        sim.set_input(0, command(next)).unwrap();
        sim.step_to(next).unwrap();
        off_s = off_s.max((sim.output_values().unwrap()[0] - command(next)).abs());
    }
    eprintln!("{short} of 300 steps an ulp short: stroke off the held values {off_s:.1e} m");
    assert!(short > 10, "{short} short steps");
    assert!(off_s < 1e-12, "stroke off by {off_s:e} m");
}

/// The slider of `a_held_drive_input_is_followed_at_constant_speed` commanded 0.1 m away and
/// then stepped 1e-9 s (masters take such steps at other FMUs' events): the ramp to a held
/// value takes at least one internal step (1 ms), so the slider moves at 0.1 m / 1 ms, not
/// 0.1 m / 1e-9 s, and reaches the value in the next interval at the speed left to get there.
/// Before, it moved at 1e8 m/s and the next step was discarded (a probe's crane).
#[test]
fn a_held_drive_input_over_a_very_short_step_ramps_over_one_internal_step() {
    let mut sim = slider();
    sim.step_to(0.05).unwrap();
    let (target, short) = (0.1, 1e-9);
    sim.set_input(0, target).unwrap();
    sim.step_to(0.05 + short).unwrap();
    let [s, sd] = [0, 1].map(|i| sim.output_values().unwrap()[i]);
    println!("after {short} s: stroke {s:e} m at {sd} m/s");
    assert!((sd - target / 1e-3).abs() < 1e-9 * sd, "speed {sd} m/s");
    assert!((s - target / 1e-3 * short).abs() < 1e-12, "stroke {s} m");
    sim.step_to(0.06 + short).unwrap();
    let [s, sd] = [0, 1].map(|i| sim.output_values().unwrap()[i]);
    println!("after 10 ms more: stroke {s} m at {sd} m/s");
    assert!((s - target).abs() < 1e-12, "stroke {s} m");
    assert!((sd - (target - target / 1e-3 * short) / 0.01).abs() < 1e-9, "speed {sd} m/s");
    sim.step_to(0.07 + short).unwrap();
    let [s, sd] = [0, 1].map(|i| sim.output_values().unwrap()[i]);
    assert!((s - target).abs() < 1e-12 && sd.abs() < 1e-12, "held: stroke {s} m at {sd} m/s");
}

/// The same slider ramped by a master at 0.5 m/s in steps of 10 ms, with one 1e-9 s step (at
/// another FMU's event) right after a new value: the short step goes on at the ramp's speed,
/// not at that of a ramp over one internal step (ten times faster: it launched a ball off a
/// lift in a probe), and the grid points keep the held values.
#[test]
fn a_very_short_step_in_the_middle_of_a_ramp_keeps_its_speed() {
    let mut sim = slider();
    let (speed, short) = (0.5, 1e-9);
    for k in 1..=10 {
        let (t, next) = (0.01 * (k - 1) as f64, 0.01 * k as f64);
        sim.set_input(0, speed * next).unwrap();
        if k == 6 {
            sim.step_to(t + short).unwrap();
            let [s, sd] = [0, 1].map(|i| sim.output_values().unwrap()[i]);
            println!("after {short} s: stroke {s} m at {sd} m/s");
            assert!((sd - speed).abs() < 1e-6 * speed, "speed {sd} m/s");
        }
        sim.step_to(next).unwrap();
        let [s, sd] = [0, 1].map(|i| sim.output_values().unwrap()[i]);
        assert!((s - speed * next).abs() < 1e-12, "t = {next}: stroke {s} m");
        if k > 1 {
            assert!((sd - speed).abs() < 1e-6 * speed, "t = {next}: speed {sd} m/s");
        }
    }
}

/// A driving input set before the first step (an FMU's value set in initialization mode)
/// is the initial state's: the servo starts at the commanded angle, at rest, holding it
/// with the static torque m g d sin(angle), and nothing counts as supplied. Through
/// `set_input` it was a jump of the drive in the first step (a probe: a servo commanded
/// 0.3 rad away swung at 30 rad/s and "supplied" 150 J).
#[test]
fn a_driving_input_set_in_initialization_mode_is_the_initial_state() {
    use crate::common::c_logger::{Messages, TextInstance, callbacks};
    use flexfmu::export::variables::Variables;
    use flexfmu::fmi2::api::*;
    let model = "[model]\nname = \"servo\"\ngravity = [0.0, -9.81]\n[[inputs]]\nname = \"u\"\n\
                 [[rigid_bodies]]\nname = \"arm\"\nmass = 1.0\ninertia = 0.01\nposition = [0.0, -0.3]\n\
                 [[joints]]\nname = \"pivot\"\ntype = \"revolute\"\nbody2 = \"arm\"\npoint = [0.0, 0.0]\n\
                 drive = \"u\"\n[[outputs]]\nname = \"torque\"\nquantity = \"drive_force\"\njoint = \"pivot\"\n\
                 [[outputs]]\nname = \"angle\"\nquantity = \"joint_position\"\njoint = \"pivot\"\n\
                 [[outputs]]\nname = \"rate\"\nquantity = \"joint_velocity\"\njoint = \"pivot\"\n\
                 [[outputs]]\nname = \"supplied\"\nquantity = \"energy_supplied\"\n";
    let vars = Variables::new(&Model::parse(model, "servo.toml").unwrap()).unwrap();
    let vr = |name: &str| vars.list.iter().find(|v| v.name == name).unwrap().vr;
    let messages = Messages::default();
    let cb = callbacks(&messages);
    let instance = TextInstance::new(model, &cb);
    let c = instance.c;
    let outputs = [vr("angle"), vr("rate"), vr("torque"), vr("supplied")];
    let mut values = [0.0; 4];
    unsafe {
        assert_eq!(fmi2SetupExperiment(c, 0, 0.0, 0.0, 0, 0.0), 0);
        assert_eq!(fmi2EnterInitializationMode(c), 0);
        assert_eq!(fmi2SetReal(c, [vr("u")].as_ptr(), 1, [0.3].as_ptr()), 0);
        // Derivatives in Initialization Mode are the initial state's: the commanded angle moves
        // the arm (d angle/du = 1, d torque/du = m g l cos u), and nothing is supplied yet.
        // A probe got the step mode's here (0 for the angle).
        let mut d = [f64::NAN; 4];
        assert_eq!(
            fmi2GetDirectionalDerivative(c, outputs.as_ptr(), 4, [vr("u")].as_ptr(), 1, [1.0].as_ptr(), d.as_mut_ptr()),
            0
        );
        let d_hold = 1.0 * 9.81 * 0.3 * 0.3f64.cos();
        assert!((d[0] - 1.0).abs() < 1e-8 && d[1].abs() < 1e-8, "d angle, d rate: {d:?}");
        assert!(
            (d[2] - d_hold).abs() < 1e-6 * d_hold && d[3] == 0.0,
            "d torque {} vs {d_hold}, d supplied {}",
            d[2],
            d[3]
        );
        assert_eq!(fmi2GetReal(c, outputs.as_ptr(), 4, values.as_mut_ptr()), 0);
        assert!((values[0] - 0.3).abs() < 1e-12, "the state after the derivatives: angle {}", values[0]);
        assert_eq!(fmi2ExitInitializationMode(c), 0);
        for k in 0..10 {
            if k > 0 {
                assert_eq!(fmi2DoStep(c, (k - 1) as f64 * 0.01, 0.01, 1), 0);
            }
            assert_eq!(fmi2GetReal(c, outputs.as_ptr(), 4, values.as_mut_ptr()), 0);
            let [angle, rate, torque, supplied] = values;
            let hold = 1.0 * 9.81 * 0.3 * 0.3f64.sin();
            assert!(
                (angle - 0.3).abs() < 1e-12 && rate.abs() < 1e-12,
                "t = {}: angle {angle}, rate {rate}",
                k as f64 * 0.01
            );
            assert!(
                (torque - hold).abs() < 1e-9 && supplied.abs() < 1e-12,
                "torque {torque} vs {hold}, supplied {supplied}"
            );
        }
    }
}

/// A driving input's derivatives set in initialization mode (fmi2SetRealInputDerivatives) are
/// the initial state's too: the servo starts at the commanded angle moving at the commanded
/// rate, as the model-file drive 0.3 + 2 t does, and follows u = 0.3 + 2 t with the same
/// torque, the energy supplied equal to the energy gained. A probe's input-driven crank started
/// at rest and took the rate as an impulse in the first step (1.17 J "supplied" for 0.004 J).
#[test]
fn driving_input_derivatives_set_in_initialization_mode_start_the_motion() {
    use crate::common::c_logger::{Messages, TextInstance, callbacks};
    use flexfmu::export::variables::Variables;
    use flexfmu::fmi2::api::*;
    let servo = |drive: &str| {
        format!(
            "[model]\nname = \"servo\"\ngravity = [0.0, -9.81]\n[[inputs]]\nname = \"u\"\n\
             [[rigid_bodies]]\nname = \"arm\"\nmass = 1.0\ninertia = 0.01\nposition = [0.0, -0.3]\n\
             [[joints]]\nname = \"pivot\"\ntype = \"revolute\"\nbody2 = \"arm\"\npoint = [0.0, 0.0]\n\
             drive = \"{drive}\"\n[[outputs]]\nname = \"angle\"\nquantity = \"joint_position\"\njoint = \"pivot\"\n\
             [[outputs]]\nname = \"rate\"\nquantity = \"joint_velocity\"\njoint = \"pivot\"\n\
             [[outputs]]\nname = \"torque\"\nquantity = \"drive_force\"\njoint = \"pivot\"\n\
             [[outputs]]\nname = \"energy\"\nquantity = \"energy_total\"\n\
             [[outputs]]\nname = \"supplied\"\nquantity = \"energy_supplied\"\n"
        )
    };
    // The reference: the same drive written in the model file.
    let reference = Model::parse(&servo("0.3 + 2 * t"), "reference.toml").unwrap();
    let mut sim = Simulation::new(&reference, &[], SolverSettings::from_model(&reference, &[]).unwrap(), 0.0).unwrap();
    let model = servo("u");
    let vars = Variables::new(&Model::parse(&model, "servo.toml").unwrap()).unwrap();
    let vr = |name: &str| vars.list.iter().find(|v| v.name == name).unwrap().vr;
    let messages = Messages::default();
    let cb = callbacks(&messages);
    let instance = TextInstance::new(&model, &cb);
    let c = instance.c;
    let outputs = [vr("angle"), vr("rate"), vr("torque"), vr("energy"), vr("supplied")];
    let (u, h) = (vr("u"), 0.01);
    let mut values = [0.0; 5];
    let mut e0 = f64::NAN;
    unsafe {
        assert_eq!(fmi2SetupExperiment(c, 0, 0.0, 0.0, 0, 0.0), 0);
        assert_eq!(fmi2EnterInitializationMode(c), 0);
        assert_eq!(fmi2SetReal(c, [u].as_ptr(), 1, [0.3].as_ptr()), 0);
        assert_eq!(fmi2SetRealInputDerivatives(c, [u].as_ptr(), 1, [1].as_ptr(), [2.0].as_ptr()), 0);
        assert_eq!(fmi2ExitInitializationMode(c), 0);
        for k in 0..=10 {
            let t = k as f64 * h;
            if k > 0 {
                assert_eq!(fmi2SetReal(c, [u].as_ptr(), 1, [0.3 + 2.0 * (t - h)].as_ptr()), 0);
                assert_eq!(fmi2SetRealInputDerivatives(c, [u].as_ptr(), 1, [1].as_ptr(), [2.0].as_ptr()), 0);
                assert_eq!(fmi2DoStep(c, t - h, h, 1), 0);
                sim.step_to(t).unwrap();
            }
            assert_eq!(fmi2GetReal(c, outputs.as_ptr(), 5, values.as_mut_ptr()), 0);
            let [angle, rate, torque, energy, supplied] = values;
            let expected = sim.output_values().unwrap().to_vec();
            e0 = if k == 0 { energy } else { e0 };
            println!(
                "t = {t:.2}: angle {angle:.12}, rate {rate:.12}, torque {torque:.9} ({:.9}), supplied {supplied:.3e}",
                expected[2]
            );
            assert!((angle - (0.3 + 2.0 * t)).abs() < 1e-12 && (rate - 2.0).abs() < 1e-9, "t = {t}: {angle}, {rate}");
            assert!(
                (torque - expected[2]).abs() < 1e-6 * (1.0 + expected[2].abs()),
                "t = {t}: torque {torque} vs {}",
                expected[2]
            );
            // The drive's work is summed per step to the method's accuracy (1.6e-9 J of 0.04 J).
            assert!((energy - e0 - supplied).abs() < 1e-7, "t = {t}: gained {} vs supplied {supplied}", energy - e0);
        }
    }
}

/// The servo of `driving_input_derivatives_set_in_initialization_mode_start_the_motion` with a
/// blade welded to its arm (4 Euler-Bernoulli elements, gravity): the blade turns rigidly with
/// the arm from the start, as under the model-file drive 0.3 + 2 t (tip angular velocity 2,
/// the same kinetic energy and torque), also as read in initialization mode, and the runs
/// agree over 0.2 s. A probe's blade tip started at 1.11 rad/s (the mass-orthogonal projection
/// onto the drive's rate), with 0.50 J of kinetic energy for 1.39 J, and the outputs read in
/// initialization mode ignored the derivatives.
#[test]
fn a_flexible_body_behind_a_drive_started_by_input_derivatives_turns_rigidly() {
    use crate::common::c_logger::{Messages, TextInstance, callbacks};
    use flexfmu::export::variables::Variables;
    use flexfmu::fmi2::api::*;
    let servo = |drive: &str| {
        format!(
            "[model]\nname = \"servo\"\ngravity = [0.0, -9.81]\n[[inputs]]\nname = \"u\"\nstart = 0.3\n\
             [[rigid_bodies]]\nname = \"arm\"\nmass = 2.0\ninertia = 0.06\n\
             position = [0.28660094673768177, 0.08865606199840186]\nangle = 0.3\n\
             [[joints]]\nname = \"motor\"\ntype = \"revolute\"\nbody2 = \"arm\"\npoint = [0.0, 0.0]\ndrive = \"{drive}\"\n\
             [[beams]]\nname = \"blade\"\nstart = [0.5732018934753635, 0.1773121239968037]\n\
             end = [1.3374710847758482, 0.41372828932587535]\nelements = 4\nformulation = \"euler_bernoulli\"\n\
             section = {{ width = 0.02, height = 0.01 }}\nmaterial = {{ E = 7e10, nu = 0.3, rho = 2700.0 }}\n\
             [[joints]]\nname = \"weld\"\ntype = \"fixed\"\nbody1 = \"arm\"\nbody2 = \"blade.start\"\n\
             [[outputs]]\nname = \"tipw\"\nquantity = \"angular_velocity\"\nbody = \"blade.end\"\n\
             [[outputs]]\nname = \"tipy\"\nquantity = \"y\"\nbody = \"blade.end\"\n\
             [[outputs]]\nname = \"Ek\"\nquantity = \"energy_kinetic\"\n\
             [[outputs]]\nname = \"torque\"\nquantity = \"drive_force\"\njoint = \"motor\"\n"
        )
    };
    let reference = Model::parse(&servo("0.3 + 2 * t"), "reference.toml").unwrap();
    let mut sim = Simulation::new(&reference, &[], SolverSettings::from_model(&reference, &[]).unwrap(), 0.0).unwrap();
    let model = servo("u");
    let vars = Variables::new(&Model::parse(&model, "servo.toml").unwrap()).unwrap();
    let vr = |name: &str| vars.list.iter().find(|v| v.name == name).unwrap().vr;
    let messages = Messages::default();
    let cb = callbacks(&messages);
    let instance = TextInstance::new(&model, &cb);
    let c = instance.c;
    let outputs = [vr("tipw"), vr("tipy"), vr("Ek"), vr("torque")];
    let (u, h) = (vr("u"), 0.01);
    let mut values = [0.0; 4];
    let mut worst = [0.0f64; 4];
    unsafe {
        assert_eq!(fmi2SetupExperiment(c, 0, 0.0, 0.0, 0, 0.0), 0);
        assert_eq!(fmi2EnterInitializationMode(c), 0);
        assert_eq!(fmi2SetReal(c, [u].as_ptr(), 1, [0.3].as_ptr()), 0);
        assert_eq!(fmi2SetRealInputDerivatives(c, [u].as_ptr(), 1, [1].as_ptr(), [2.0].as_ptr()), 0);
        assert_eq!(fmi2GetReal(c, outputs.as_ptr(), 4, values.as_mut_ptr()), 0);
        let expected = sim.output_values().unwrap().to_vec();
        println!("initialization mode: {values:?}, reference {expected:?}");
        assert!((values[0] - 2.0).abs() < 1e-9 && (values[2] - expected[2]).abs() < 1e-9 * expected[2], "{values:?}");
        assert_eq!(fmi2ExitInitializationMode(c), 0);
        for k in 0..=20 {
            let t = k as f64 * h;
            if k > 0 {
                assert_eq!(fmi2SetReal(c, [u].as_ptr(), 1, [0.3 + 2.0 * (t - h)].as_ptr()), 0);
                assert_eq!(fmi2SetRealInputDerivatives(c, [u].as_ptr(), 1, [1].as_ptr(), [2.0].as_ptr()), 0);
                assert_eq!(fmi2DoStep(c, t - h, h, 1), 0);
                sim.step_to(t).unwrap();
            }
            assert_eq!(fmi2GetReal(c, outputs.as_ptr(), 4, values.as_mut_ptr()), 0);
            let expected = sim.output_values().unwrap().to_vec();
            for (w, (a, b)) in worst.iter_mut().zip(values.iter().zip(&expected)) {
                *w = w.max((a - b).abs() / (1.0 + b.abs()));
            }
        }
    }
    println!("largest relative differences over 0.2 s (tip rate, tip y, kinetic energy, torque): {worst:?}");
    assert!(worst.iter().all(|&w| w < 1e-6), "{worst:?}");
}
