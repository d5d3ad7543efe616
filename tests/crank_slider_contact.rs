//! models/crank_slider_contact.toml (paper 002 section 3.2, our parameters): the rigid
//! crank-slider whose connecting rod strikes a cylinder fixed to ground (purely elastic Hertz
//! contact, circle_circle). Checks: the energy balance (the slider's damper is the only
//! loss: energy_total + energy_dissipated constant), and contact onsets located inside the
//! internal steps, independent of the communication step.

use std::path::Path;

use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};

const STOP: f64 = 2.0;

/// (time, energy_total, energy_dissipated, impact_time, contact_force) at every
/// communication point of interval `h`.
fn run(h: f64) -> Vec<[f64; 5]> {
    let model = Model::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("models/crank_slider_contact.toml")).unwrap();
    let params = model.default_parameters();
    let mut sim = Simulation::new(&model, &params, SolverSettings::from_model(&model, &params).unwrap(), 0.0).unwrap();
    let index = |n: &str| sim.outputs().iter().position(|o| o.name == n).unwrap();
    let idx = [index("energy_total"), index("energy_dissipated"), index("impact_time"), index("contact_force")];
    let n = (STOP / h).round() as usize;
    let mut out = Vec::new();
    for k in 0..=n {
        let t = k as f64 * h;
        if k > 0 {
            sim.step_to(t).unwrap();
        }
        let o = sim.output_values().unwrap();
        out.push([t, o[idx[0]], o[idx[1]], o[idx[2]], o[idx[3]]]);
    }
    out
}

fn onsets(r: &[[f64; 5]]) -> Vec<f64> {
    let mut s: Vec<f64> = r.iter().map(|x| x[3]).filter(|&x| x >= 0.0).collect();
    s.dedup();
    s
}

#[test]
fn energy_is_balanced_through_the_impacts() {
    let r = run(1e-3);
    let e0 = r[0][1];
    let drift = r.iter().map(|x| ((x[1] + x[2] - e0) / e0).abs()).fold(0.0, f64::max);
    let peak = r.iter().map(|x| x[4]).fold(0.0, f64::max);
    println!("E0 = {e0:.6} J, damper dissipated {:.4} J by 2 s, {} impacts at {:?}, peak contact force {peak:.1} N, max |E + D - E0|/E0 = {drift:.2e}", r.last().unwrap()[2], onsets(&r).len(), onsets(&r));
    assert!(onsets(&r).len() >= 3, "the rod strikes the cylinder repeatedly");
    assert!(peak > 100.0);
    assert!(drift < 1e-4, "{drift}");
}

#[test]
fn impacts_are_located_independently_of_the_communication_step() {
    let fine = run(1e-3);
    let reference = onsets(&fine);
    for h in [1e-2, 0.1, 0.5] {
        let r = run(h);
        let seen = onsets(&r);
        // Every onset a coarse run shows must be one of the fine run's.
        let worst = seen.iter().map(|x| reference.iter().map(|y| (x - y).abs()).fold(f64::MAX, f64::min)).fold(0.0, f64::max);
        // And at common communication points the states agree.
        let common = r.iter().map(|x| {
            let k = fine.iter().position(|y| (y[0] - x[0]).abs() < 1e-12).unwrap();
            ((x[1] - fine[k][1]).abs()).max((x[2] - fine[k][2]).abs())
        });
        let energy_gap = common.fold(0.0, f64::max);
        println!("communication step {h}: onsets seen {seen:?}, farthest from the 1e-3 run's {worst:.2e} s; max energy difference at common points {energy_gap:.2e} J");
        assert!(!seen.is_empty());
        assert!(worst < 1e-6, "h = {h}: {worst}");
        assert!(energy_gap < 1e-6, "h = {h}: {energy_gap}");
    }
}
