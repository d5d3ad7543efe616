//! A fixed step too coarse for how fast a body turns is told (src/simulation/turn_watch.rs):
//! the error it leaves fails no Newton iteration, and the energy balance need not show it.

use crate::common;
use common::sim::{example, output, simulation_with};
use flexfmu::model::Model;

/// A cart on a rail pushed by the force F, a pendulum hinged on it, starting horizontal: the
/// push whips the pendulum (the cart's acceleration F / 1.1 kg acts on it as gravity would).
const CART_POLE: &str = r#"
[model]
name = "cart_pole"
gravity = [0.0, -9.81]

[parameters]
F = { value = 0.0, unit = "N" }

[solver]
step = 1e-3

[[rigid_bodies]]
name = "cart"
mass = 1.0
inertia = 0.01
position = [0.0, 0.0]

[[rigid_bodies]]
name = "pole"
mass = 0.1
inertia = 0.0033
position = [0.0, 0.5]
angle = 1.5707963

[[joints]]
name = "rail"
type = "prismatic"
body1 = "ground"
body2 = "cart"
axis = [1.0, 0.0]

[[joints]]
name = "hinge"
type = "revolute"
body1 = "cart"
body2 = "pole"
point = [0.0, 0.0]

[[loads]]
type = "force"
body = "cart"
direction = [1.0, 0.0]
value = "F"

[[outputs]]
name = "phi"
quantity = "angle"
body = "pole"
"#;

/// The pendulum's largest angle error over 0.3 s on the model's step against steps of 1e-5 s,
/// and the warning of the run on the model's step.
fn cart_pole(force: f64) -> (f64, Option<String>) {
    let model = Model::parse(CART_POLE, "cart_pole.toml").unwrap();
    let mut coarse = simulation_with(&model, &[("F", force)], |_| {});
    let mut fine = simulation_with(&model, &[("F", force)], |s| s.step = 1e-5);
    let mut error = 0.0f64;
    for k in 1..=300 {
        let t = k as f64 * 1e-3;
        coarse.step_to(t).unwrap();
        fine.step_to(t).unwrap();
        error = error.max((output(&mut coarse, "phi") - output(&mut fine, "phi")).abs());
    }
    assert!(fine.fast_turning().is_none(), "the fine run is told: {:?}", fine.fast_turning());
    (error, coarse.fast_turning())
}

/// Pushed by 1e5 N the pendulum whips at 560 rad/s, 0.56 rad per step of 1e-3 s: its angle
/// ends up far from the converged one, with no failure and no energy warning; the run is told,
/// with the body, its speed and a step that resolves it. Pushed by 1e3 N (0.06 rad per step),
/// it is within a few mrad and nothing is told.
#[test]
fn a_step_too_coarse_for_a_whipping_pendulum_is_told() {
    let (error, told) = cart_pole(1e5);
    let message = told.expect("told");
    println!("angle error {error:.3} rad: {message}");
    assert!(error > 0.25, "the coarse run is not far off ({error} rad): nothing to tell");
    assert!(message.contains("pole turned at 5.") && message.contains("e2 rad/s"), "{message}");
    let (error, told) = cart_pole(1e3);
    println!("angle error {error:.2e} rad");
    assert!(error < 0.01 && told.is_none(), "{error} rad, {told:?}");
}

/// The angular speed of a spatial body from its Euler parameters (`System::fastest_turning`)
/// is |omega| of its body-frame angular velocity outputs, through the tennis racket's flips;
/// spun at 10 rad/s about its stable axis, a step of 0.05 s (0.5 rad) is told, 0.01 s is not.
#[test]
fn a_spatial_body_turns_at_its_angular_speed() {
    let model = example("torque_free_body");
    let mut sim = simulation_with(&model, &[], |_| {});
    for k in 1..=30 {
        sim.step_to(0.5 * k as f64).unwrap();
        let w = ["w1", "w2", "w3"].map(|name| output(&mut sim, name));
        let speed = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
        let (q, v) = (&sim.state().q, &sim.state().v);
        let (body, turning) = sim.system().fastest_turning(q, v).unwrap();
        assert_eq!(sim.system().bodies[body].name, "body");
        assert!((turning - speed).abs() <= 1e-12 * speed, "t = {}: {turning} against {speed}", sim.time());
    }
    let spun = std::fs::read_to_string(common::sim::model_path("torque_free_body"))
        .unwrap()
        .replace("angular_velocity = [0.3, 1.0, 0.3]", "angular_velocity = [0.0, 0.0, 10.0]");
    let spun = Model::parse(&spun, "spun.toml").unwrap();
    let told = |step: f64| {
        let mut sim = simulation_with(&spun, &[], |s| s.step = step);
        sim.step_to(1.0).unwrap();
        sim.fast_turning()
    };
    let message = told(0.05).expect("told");
    println!("{message}");
    assert!(message.contains("body turned at 1.000e1 rad/s, 0.50 rad per internal step"), "{message}");
    assert!(told(0.01).is_none());
}
