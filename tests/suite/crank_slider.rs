//! models/crank_slider.toml: energy balance, convergence to a fine-step reference, Newton
//! iterations per step.

use flexfmu::integrators::Method;
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};

use crate::common;

fn model() -> Model {
    common::sim::example("crank_slider")
}

fn simulation(method: Method, rho_inf: f64, h: f64, tolerance: f64) -> (Simulation, Vec<String>) {
    let model = model();
    let settings = SolverSettings { method, rho_inf, step: h, tolerance, ..SolverSettings::default() };
    let sim = Simulation::new(&model, &model.default_parameters(), settings, 0.0).unwrap();
    let names = sim.outputs().iter().map(|o| o.name.clone()).collect();
    (sim, names)
}

fn index(names: &[String], n: &str) -> usize {
    names.iter().position(|m| m == n).unwrap_or_else(|| panic!("output {n}"))
}

#[test]
fn initial_state_is_consistent() {
    let (mut sim, names) = simulation(Method::Ttbif, 0.5, 1e-3, 1e-12);
    let out = sim.output_values().unwrap().to_vec();
    let (r, l) = (0.15f64, 0.30f64);
    let th = std::f64::consts::PI / 3.0;
    let d = (l * l - (r * th.sin()).powi(2)).sqrt();
    assert!((out[index(&names, "crank_angle")] - th).abs() < 1e-14);
    assert!((out[index(&names, "slider_x")] - (r * th.cos() + d)).abs() < 1e-14);
    assert!((out[index(&names, "rod_angle")] - (-r * th.sin()).atan2(d)).abs() < 1e-14);
    // Slider velocity from the loop closure x = r cos th + sqrt(l^2 - r^2 sin^2 th):
    // x' = -r sin th w - r^2 sin th cos th w / d.
    let w = 2.0 * std::f64::consts::PI;
    let xdot = -r * th.sin() * w - r * r * th.sin() * th.cos() * w / d;
    assert!(
        (out[index(&names, "slider_v")] - xdot).abs() < 1e-12,
        "slider_v {} vs {xdot}",
        out[index(&names, "slider_v")]
    );
    assert_eq!(out[index(&names, "energy_dissipated")], 0.0);
}

/// max over 2 s (sampled every 0.01 s) of |energy_total + energy_dissipated - E0|, and
/// Newton iterations per step.
fn energy_balance_error(method: Method, rho_inf: f64, h: f64) -> (f64, f64, f64) {
    let (mut sim, names) = simulation(method, rho_inf, h, 1e-12);
    let (et, ed) = (index(&names, "energy_total"), index(&names, "energy_dissipated"));
    let out = sim.output_values().unwrap().to_vec();
    let e0 = out[et] + out[ed];
    let mut worst = 0.0f64;
    for k in 1..=200 {
        sim.step_to(k as f64 * 0.01).unwrap();
        let out = sim.output_values().unwrap();
        worst = worst.max((out[et] + out[ed] - e0).abs());
    }
    let dissipated = sim.output_values().unwrap()[ed];
    let st = sim.statistics();
    eprintln!(
        "crank_slider {method} rho_inf={rho_inf} h={h:e}, 2 s: E0 = {e0:.9} J, dissipated {dissipated:.6} J, max |E_total + E_diss - E0| = {worst:.3e} J; Newton iterations/step {:.2}",
        st.newton_iterations as f64 / st.steps as f64
    );
    (worst, dissipated, st.newton_iterations as f64 / st.steps as f64)
}

#[test]
fn energy_balance() {
    // Measured at h = 1e-4: TTBIF (rho_inf 0.5) 2.5e-8 J, HHT (rho_inf 0.8) 1.9e-7 J. Before
    // the HHT quadrature fix (Newmark weights 1 - gamma, gamma instead of the trapezoidal
    // rule) HHT was off by 2.4e-5 J.
    for (method, rho_inf) in [(Method::Ttbif, 0.0), (Method::Ttbif, 0.5), (Method::Hht, 0.5), (Method::Hht, 0.8)] {
        let (e1, dissipated, _) = energy_balance_error(method, rho_inf, 1e-4);
        assert!(dissipated > 0.5, "the damper dissipates ({dissipated} J)");
        assert!(e1 < 1e-6, "{method} rho_inf={rho_inf}: energy balance off by {e1:e} J");
        // The balance error is a discretisation error: second order.
        let (e2, _, _) = energy_balance_error(method, rho_inf, 2e-4);
        let order = (e2 / e1).log2();
        eprintln!("crank_slider {method} rho_inf={rho_inf}: energy-balance error order {order:.3}");
        assert!((1.8..=2.2).contains(&order), "{method} rho_inf={rho_inf}: energy-balance error order {order}");
    }
}

/// (crank_angle, rod_angle, slider_x, slider_v) at t_end.
fn final_values(method: Method, rho_inf: f64, h: f64, t_end: f64) -> ([f64; 4], f64) {
    let (mut sim, names) = simulation(method, rho_inf, h, 1e-12);
    sim.step_to(t_end).unwrap();
    let out = sim.output_values().unwrap().to_vec();
    let st = sim.statistics();
    let v = ["crank_angle", "rod_angle", "slider_x", "slider_v"].map(|n| out[index(&names, n)]);
    (v, st.newton_iterations as f64 / st.steps as f64)
}

#[test]
fn converges_to_reference_at_second_order() {
    let t_end = 0.5;
    // Reference: TTBIF and HHT at h = 1e-6 (errors ~(1e-6/5e-4)^2 = 4e-6 times those at
    // 5e-4), which must agree with each other.
    let (r1, _) = final_values(Method::Ttbif, 0.5, 1e-6, t_end);
    let (r2, _) = final_values(Method::Hht, 0.8, 1e-6, t_end);
    let gap = (0..4).map(|i| (r1[i] - r2[i]).abs()).fold(0.0, f64::max);
    eprintln!("crank_slider reference at t = {t_end}: {r1:?}; TTBIF-HHT gap {gap:.3e}");
    assert!(gap < 1e-9, "references disagree by {gap:e}");
    let reference = r1;
    for (method, rho_inf) in [(Method::Ttbif, 0.0), (Method::Ttbif, 0.5), (Method::Hht, 0.5), (Method::Hht, 0.8)] {
        let hs = [2e-3, 1e-3, 5e-4];
        let runs: Vec<([f64; 4], f64)> = hs.iter().map(|&h| final_values(method, rho_inf, h, t_end)).collect();
        let errors: Vec<[f64; 4]> =
            runs.iter().map(|(v, _)| [0, 1, 2, 3].map(|i| (v[i] - reference[i]).abs())).collect();
        for (h, (e, (_, iters))) in hs.iter().zip(errors.iter().zip(&runs)) {
            eprintln!(
                "crank_slider {method} rho_inf={rho_inf} h={h}: errors crank, rod, x, v {e:?}; Newton iterations/step {iters:.2}"
            );
        }
        for p in 0..2 {
            for (i, name) in ["crank_angle", "rod_angle", "slider_x", "slider_v"].iter().enumerate() {
                let order = (errors[p][i] / errors[p + 1][i]).log2();
                eprintln!(
                    "crank_slider {method} rho_inf={rho_inf} {name}: order {order:.3} between h={} and {}",
                    hs[p],
                    hs[p + 1]
                );
                assert!(
                    (1.8..=2.2).contains(&order),
                    "{method} rho_inf={rho_inf} {name}: order {order} between h={} and {}",
                    hs[p],
                    hs[p + 1]
                );
            }
        }
    }
}

#[test]
fn position_constraints_hold() {
    use flexfmu::integrators::Dynamics;
    // All 7 joint rows (3 revolute x 2, 1 prismatic) at every step, default Newton tolerance.
    for (method, rho_inf) in [(Method::Ttbif, 0.5), (Method::Hht, 0.8)] {
        let (mut sim, _) = simulation(method, rho_inf, 1e-3, SolverSettings::default().tolerance);
        let mut phi = vec![0.0; sim.system().constraints()];
        let mut worst = 0.0f64;
        for k in 1..=2000 {
            sim.step_to(k as f64 * 1e-3).unwrap();
            let s = sim.state();
            sim.system().constraint_residual(&s.q, s.t, &mut phi);
            worst = phi.iter().fold(worst, |m, p| m.max(p.abs()));
        }
        eprintln!("crank_slider {method} rho_inf={rho_inf} h=1e-3: max |Phi| over 2 s = {worst:.3e} m");
        assert!(worst < 1e-10, "{method}: constraint violation {worst:e} m");
    }
}
