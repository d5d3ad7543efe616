//! `flexfmu modes` / `Simulation::natural_frequencies` against closed-form frequencies.

use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};
use std::f64::consts::PI;

fn frequencies(text: &str) -> Vec<f64> {
    let model = Model::parse(text, "test.toml").unwrap();
    let params = model.default_parameters();
    let sim = Simulation::new(&model, &params, SolverSettings::default(), 0.0).unwrap();
    sim.natural_frequencies().unwrap()
}

#[test]
fn mass_spring_has_period_one_second() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/models/mass_spring.toml")).unwrap();
    let f = frequencies(&text);
    assert_eq!(f.len(), 1);
    assert!((f[0] - 1.0).abs() < 1e-12, "{f:?}");
}

#[test]
fn hanging_rod_pendulum_small_oscillations() {
    // Uniform rod pinned at its end, hanging down: omega^2 = 3 g / (2 L). The restoring
    // stiffness comes entirely from the constraint term (Phi_q^T lambda)_q with the
    // multiplier of the static state, so this checks its sign and size.
    let (g, l): (f64, f64) = (9.81, 0.8);
    let text = format!(
        r#"
[model]
name = "hanging"
gravity = [0.0, -{g}]
[[rigid_bodies]]
name = "rod"
mass = 2.0
inertia = "2.0*{l}^2/12"
position = [0.0, "-{l}/2"]
angle = "-pi/2"
[[joints]]
name = "pin"
type = "revolute"
body2 = "rod"
point = [0.0, 0.0]
"#
    );
    let f = frequencies(&text);
    let exact = (1.5 * g / l).sqrt() / (2.0 * PI);
    assert_eq!(f.len(), 1);
    assert!((f[0] / exact - 1.0).abs() < 1e-10, "{} vs {exact}", f[0]);
}

#[test]
fn two_mass_chain() {
    // ground -k- m -k- m along x: omega^2 = (k/m) (3 -+ sqrt 5) / 2.
    let (k, m): (f64, f64) = (50.0, 2.0);
    let text = format!(
        r#"
[model]
name = "chain"
[[point_masses]]
name = "m1"
mass = {m}
position = [1.0, 0.0]
[[point_masses]]
name = "m2"
mass = {m}
position = [2.0, 0.0]
[[joints]]
name = "s1"
type = "prismatic"
body2 = "m1"
point = [0.0, 0.0]
axis = [1.0, 0.0]
[[joints]]
name = "s2"
type = "prismatic"
body2 = "m2"
point = [0.0, 0.0]
axis = [1.0, 0.0]
[[springs]]
name = "k1"
body1 = "ground"
point1 = [0.0, 0.0]
body2 = "m1"
stiffness = {k}
[[springs]]
name = "k2"
body1 = "m1"
body2 = "m2"
stiffness = {k}
"#
    );
    let f = frequencies(&text);
    let w = |s: f64| ((k / m) * (3.0 + s * 5f64.sqrt()) / 2.0).sqrt() / (2.0 * PI);
    assert_eq!(f.len(), 2);
    assert!((f[0] / w(-1.0) - 1.0).abs() < 1e-10, "{f:?}");
    assert!((f[1] / w(1.0) - 1.0).abs() < 1e-10, "{f:?}");
}
