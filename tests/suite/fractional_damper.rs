//! Fractional-derivative spring-dampers (paper 003 eqs. 7-10) against independent solutions.

use flexfmu::integrators::Method;
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};

use crate::common;
use common::fractional::laplace_reference;

fn model() -> Model {
    Model::load(&common::sim::model_path("oscillator_fractional")).unwrap()
}

fn simulation(model: &Model, alpha: f64, method: Method, rho_inf: f64, step: f64) -> Simulation {
    let mut params = model.default_parameters();
    params[model.parameter_index("alpha").unwrap()] = alpha;
    let settings = SolverSettings {
        method,
        rho_inf,
        step,
        tolerance: 1e-12,
        ..SolverSettings::from_model(model, &params).unwrap()
    };
    Simulation::new(model, &params, settings, 0.0).unwrap()
}

#[test]
fn single_dof_response_agrees_with_the_laplace_domain_solution() {
    let model = model();
    let (m, k, c, f0) = (1.0, 10.0, 2.0, 1.0);
    let max_error = |alpha: f64, step: f64| {
        let mut sim = simulation(&model, alpha, Method::Ttbif, 0.5, step);
        let mut worst = 0.0f64;
        let mut scale = 0.0f64;
        for n in 1..=12 {
            let t = 0.1 * n as f64;
            sim.step_to(t).unwrap();
            let x = sim.output_values().unwrap()[0];
            let exact = laplace_reference(t, m, k, c, alpha, f0);
            worst = worst.max((x - exact).abs());
            scale = scale.max(exact.abs());
        }
        worst / scale
    };
    for alpha in [0.25, 0.5, 0.75] {
        let (coarse, fine) = (max_error(alpha, 2e-4), max_error(alpha, 1e-4));
        eprintln!("alpha {alpha}: relative error {coarse:.3e} at h = 2e-4, {fine:.3e} at h = 1e-4");
        // The Grünwald series is first-order accurate: the error halves with the step.
        let order = (coarse / fine).log2();
        assert!((0.85..1.3).contains(&order), "alpha {alpha}: observed order {order}");
        // Measured: 4.2e-6 (alpha 0.25), 9.3e-6 (0.5), 1.5e-5 (0.75) at h = 1e-4 over 1.2 s.
        assert!(fine < 1e-4, "alpha {alpha}: relative error {fine}");
    }
}

#[test]
fn order_zero_is_a_conservative_spring_of_stiffness_k_plus_c() {
    // x(t) = F0/(k+c) (1 - cos(w t)), w^2 = (k + c)/m; TTBIF with rho_inf = 1 is three
    // trapezoidal steps, which conserve the energy of a linear system exactly.
    let model = model();
    let mut sim = simulation(&model, 0.0, Method::Ttbif, 1.0, 1e-3);
    let w = 12.0f64.sqrt();
    for n in 1..=10 {
        let t = 0.2 * n as f64;
        sim.step_to(t).unwrap();
        let out = sim.output_values().unwrap().to_vec();
        let exact = (1.0 - (w * t).cos()) / 12.0;
        assert!((out[0] - exact).abs() < 1e-6 * (1.0 / 12.0), "t {t}: x {} vs {exact}", out[0]);
        // Work of the constant force F0 x = kinetic + spring energy; nothing dissipated.
        assert!((out[2] - out[0]).abs() < 1e-12, "energy {} vs work {}", out[2], out[0]);
        assert_eq!(out[3], 0.0);
    }
}

#[test]
fn order_one_equals_a_viscous_damper_to_first_order() {
    // alpha = 1: the series is the backward difference of x, so the element approaches
    // the Kelvin-Voigt spring-damper k x + c x' as the step shrinks (first order).
    let model = model();
    let viscous_text = model.source.replace("fractional_order = \"alpha\"\n", "");
    let viscous = Model::parse(&viscous_text, "viscous.toml").unwrap();
    let difference = |step: f64| {
        let mut a = simulation(&model, 1.0, Method::Ttbif, 0.5, step);
        let mut b = simulation(&viscous, 1.0, Method::Ttbif, 0.5, step);
        let mut worst = 0.0f64;
        for n in 1..=20 {
            let t = 0.1 * n as f64;
            a.step_to(t).unwrap();
            b.step_to(t).unwrap();
            worst = worst.max((a.output_values().unwrap()[0] - b.output_values().unwrap()[0]).abs());
        }
        worst
    };
    let (coarse, fine) = (difference(1e-3), difference(5e-4));
    eprintln!("alpha = 1 vs viscous: max |dx| {coarse:.3e} (h = 1e-3), {fine:.3e} (h = 5e-4)");
    assert!(fine < 1e-3 * 0.1, "difference {fine}");
    let order = (coarse / fine).log2();
    assert!((0.85..1.3).contains(&order), "order {order}");
}

#[test]
fn energy_balance_holds_with_the_fractional_work_booked_as_dissipated() {
    // energy_total + energy_dissipated equals the work of the constant force, F0 x.
    let model = model();
    let mut sim = simulation(&model, 0.5, Method::Ttbif, 0.5, 1e-4);
    for n in 1..=20 {
        sim.step_to(0.1 * n as f64).unwrap();
        let out = sim.output_values().unwrap().to_vec();
        let balance = out[2] + out[3] - out[0];
        assert!(balance.abs() < 1e-5 * out[0].abs().max(1e-3), "t {}: balance {balance}", 0.1 * n as f64);
    }
}

#[test]
fn snapshot_after_1000_steps_restores_the_history_bit_for_bit() {
    let model = model();
    let mut sim = simulation(&model, 0.5, Method::Ttbif, 0.5, 1e-3);
    sim.step_to(1.0).unwrap();
    let bytes = sim.snapshot().to_bytes();
    let mut first = Vec::new();
    for n in 1..=50 {
        sim.step_to(1.0 + 0.01 * n as f64).unwrap();
        first.push(sim.output_values().unwrap().to_vec());
    }
    // A fresh simulation restored from the bytes continues identically.
    let mut other = simulation(&model, 0.5, Method::Ttbif, 0.5, 1e-3);
    other.restore(&flexfmu::simulation::Snapshot::from_bytes(&bytes).unwrap()).unwrap();
    for (n, row) in first.iter().enumerate() {
        other.step_to(1.0 + 0.01 * (n + 1) as f64).unwrap();
        let again = other.output_values().unwrap();
        assert_eq!(
            row.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            again.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
    }
}

/// Static equilibrium after a second of motion, with the damper's memory full: at rest for
/// all time c D^alpha x of the constant x vanishes (alpha > 0), so x = F/k whatever the
/// history, and stepping on afterwards reads the history again.
#[test]
fn static_equilibrium_after_motion_ignores_the_decaying_memory() {
    let model = model();
    for alpha in [0.25, 0.5, 1.0] {
        let mut sim = simulation(&model, alpha, Method::Ttbif, 0.5, 1e-3);
        sim.step_to(1.0).unwrap();
        sim.settle_static(1.0).unwrap();
        let x = sim.output_values().unwrap()[0];
        println!("alpha {alpha}: x {x} ({:+.1e})", x - 0.1);
        assert!((x - 0.1).abs() < 1e-12, "alpha {alpha}: x {x}");
        // Stepping reads the history again: its series is not zero at x = F/k (the
        // history rose from 0 to there), so the mass moves off the static equilibrium; with
        // the damper left at rest it would stay there exactly.
        sim.step_to(1.1).unwrap();
        let moved = sim.output_values().unwrap()[0] - 0.1;
        println!("  0.1 s later: x - F/k = {moved:.2e}");
        assert!(moved.abs() > 1e-4, "alpha {alpha}: x - F/k = {moved}");
    }
}

/// A disc on a revolute joint spun at 10 rad/s and braked by a torsional damper, in a spatial
/// and a planar model: the same motion (the planar joint angle is continuous, the spatial one
/// wrapped to (-pi, pi]). The spatial fractional damper's history once took the wrapped angle,
/// jumped by 2 pi where it wraps and the run stopped at t = 0.32 s with "gained 4.6e4 J"
/// (a probe); the viscous one's dissipated energy jumped by -2 pi T there. Now both turn on
/// through more than two turns with the planar model's angular velocity and with
/// energy_total + energy_dissipated at the initial 50 J.
#[test]
fn a_spatial_torsional_damper_brakes_through_whole_turns() {
    let text = |dimension: u32, order: f64| {
        let (inertia, position, spin, point, axis) = if dimension == 3 {
            ("[1.0, 1.0, 1.0]", "[0.0, 0.0, 0.0]", "[0.0, 0.0, 10.0]", "[0.0, 0.0, 0.0]", "axis = [0.0, 0.0, 1.0]")
        } else {
            ("1.0", "[0.0, 0.0]", "10.0", "[0.0, 0.0]", "")
        };
        let rate = if dimension == 3 { "wz" } else { "angular_velocity" };
        let fractional = if order < 1.0 { format!("fractional_order = {order}") } else { String::new() };
        format!(
            r#"
[model]
name = "brake"
dimension = {dimension}
[solver]
stop_time = 3.0
[[rigid_bodies]]
name = "disc"
mass = 3.0
inertia = {inertia}
position = {position}
angular_velocity = {spin}
[[joints]]
name = "pin"
type = "revolute"
body2 = "disc"
point = {point}
{axis}
[[springs]]
name = "brake"
type = "torsional"
joint = "pin"
stiffness = 0.0
damping = 0.5
{fractional}
[[outputs]]
name = "w"
quantity = "{rate}"
body = "disc"
[[outputs]]
name = "balance"
quantity = "energy_total"
[[outputs]]
name = "dissipated"
quantity = "energy_dissipated"
"#
        )
    };
    for order in [0.5, 1.0] {
        let run = |dimension: u32| {
            let model = Model::parse(&text(dimension, order), "brake.toml").unwrap();
            let mut sim = common::sim::simulation_with(&model, &[], |_| {});
            (1..=30)
                .map(|n| {
                    sim.step_to(0.1 * n as f64).unwrap_or_else(|e| panic!("{dimension}D, order {order}: {e}"));
                    let o = sim.output_values().unwrap();
                    [o[0], o[1] + o[2], o[2]]
                })
                .collect::<Vec<_>>()
        };
        let (spatial, planar) = (run(3), run(2));
        let turned: f64 = 0.1 * spatial.iter().map(|r| r[0]).sum::<f64>();
        assert!(turned > 4.0 * std::f64::consts::PI, "order {order}: the disc turned {turned} rad only");
        let mut dissipated = 0.0;
        for (s, p) in spatial.iter().zip(&planar) {
            assert!((s[0] - p[0]).abs() < 1e-4, "order {order}: w {} against the planar {}", s[0], p[0]);
            assert!((s[1] - 50.0).abs() < 1e-3, "order {order}: energy_total + energy_dissipated = {}", s[1]);
            // A viscous damper only dissipates (the fractional one returns some of its work
            // once the disc turns back).
            assert!(order < 1.0 || s[2] >= dissipated - 1e-9, "order {order}: the dissipated energy fell to {}", s[2]);
            dissipated = s[2];
        }
    }
}
