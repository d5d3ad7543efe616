//! Joints and force elements not covered by the benchmark models: fixed joints and
//! torsional spring-dampers, checked against equivalent models and closed forms.

use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};
use std::f64::consts::PI;

fn simulation(text: &str, step: f64) -> Simulation {
    let model = Model::parse(text, "test.toml").unwrap();
    let params = model.default_parameters();
    let settings = SolverSettings { step, ..SolverSettings::from_model(&model, &params).unwrap() };
    Simulation::new(&model, &params, settings, 0.0).unwrap()
}

const ROD: &str = r#"
[model]
name = "rod"
gravity = [0.0, -9.81]
[[rigid_bodies]]
name = "rod"
mass = 1.0
inertia = "1/12"
position = [0.5, 0.0]
[[joints]]
name = "pin"
type = "revolute"
body2 = "rod"
point = [0.0, 0.0]
[[outputs]]
name = "tip_y"
quantity = "y"
body = "rod"
point = [1.0, 0.0]
"#;

const WELDED: &str = r#"
[model]
name = "welded"
gravity = [0.0, -9.81]
[[rigid_bodies]]
name = "inner"
mass = 0.5
inertia = "0.5*0.5^2/12"
position = [0.25, 0.0]
[[rigid_bodies]]
name = "outer"
mass = 0.5
inertia = "0.5*0.5^2/12"
position = [0.75, 0.0]
[[joints]]
name = "pin"
type = "revolute"
body2 = "inner"
point = [0.0, 0.0]
[[joints]]
name = "weld"
type = "fixed"
body1 = "inner"
body2 = "outer"
point = [0.5, 0.0]
[[outputs]]
name = "tip_y"
quantity = "y"
body = "outer"
point = [1.0, 0.0]
"#;

#[test]
fn two_welded_half_rods_swing_like_one_rod() {
    // Same mass distribution, so the same motion: the fixed joint must transmit force and
    // moment exactly. The two DAEs are discretized in different coordinates, so they agree
    // up to the integration error: the difference must be small and shrink at second order.
    let max_difference = |h: f64| {
        let mut a = simulation(ROD, h);
        let mut b = simulation(WELDED, h);
        let mut worst = 0.0f64;
        for k in 1..=8 {
            let t = 0.1 * k as f64;
            a.step_to(t).unwrap();
            b.step_to(t).unwrap();
            worst = worst.max((a.output_values().unwrap()[0] - b.output_values().unwrap()[0]).abs());
        }
        worst
    };
    let (coarse, fine) = (max_difference(2e-3), max_difference(1e-3));
    assert!(coarse < 1e-6, "difference {coarse} at h = 2e-3");
    let order = (coarse / fine).log2();
    assert!(order > 1.8, "difference {coarse} -> {fine}: order {order}");
}

#[test]
fn torsional_spring_across_a_revolute_joint() {
    // Rod pinned at its end with a torsional spring k, no gravity: omega^2 = k / (m L^2 / 3).
    let text = r#"
[model]
name = "torsion"
[[rigid_bodies]]
name = "rod"
mass = 2.0
inertia = "2/12"
position = [0.5, 0.0]
angle = 0.0
angular_velocity = 0.1
[[joints]]
name = "pin"
type = "revolute"
body2 = "rod"
point = [0.0, 0.0]
[[springs]]
name = "coil"
type = "torsional"
joint = "pin"
stiffness = 3.0
free_length = 0.0
"#;
    let sim = simulation(text, 1e-3);
    let f = sim.natural_frequencies().unwrap();
    let exact = (3.0f64 / (2.0 / 3.0)).sqrt() / (2.0 * PI);
    assert_eq!(f.len(), 1);
    assert!((f[0] / exact - 1.0).abs() < 1e-10, "{f:?} vs {exact}");
    // And in time: theta(t) = (w0/omega) sin(omega t), checked after a quarter period.
    let mut sim = sim;
    let omega = 2.0 * PI * exact;
    let quarter = PI / (2.0 * omega);
    sim.step_to(quarter).unwrap();
    let theta = sim.state().q[2];
    assert!((theta - 0.1 / omega).abs() < 1e-6 * (0.1 / omega), "theta {theta} vs {}", 0.1 / omega);
}
