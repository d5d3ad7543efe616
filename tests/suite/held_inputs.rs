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
