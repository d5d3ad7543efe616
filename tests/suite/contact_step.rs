//! The step limit of closed compliant contacts (src/integrators/contact_step.rs): on the default
//! 1 ms step, impacts are resolved at 1/50 of their Hertz duration, in 2D and 3D; the limit is a
//! function of the state, so a snapshot taken inside an impact re-steps bit for bit.

use crate::common;
use common::sim::{example, output, simulation_with};

/// Largest |E(t) - E(0)| over the 1 ms output times of Newton's cradle (0.1 s, default step).
fn cradle_energy_drift(limit: bool) -> f64 {
    let model = example("newtons_cradle");
    let mut sim = simulation_with(&model, &[], |_| {});
    sim.set_contact_step_limit(limit);
    let e0 = output(&mut sim, "energy_total");
    let mut drift = 0.0f64;
    for k in 1..=100 {
        sim.step_to(k as f64 * 1e-3).unwrap();
        drift = drift.max((output(&mut sim, "energy_total") - e0).abs());
    }
    drift
}

/// Newton's cradle on the default step (docs/solver.md, "Compliant contacts"): 3.9e-3 J of the
/// 0.5 J lost without the limit, 2.8e-5 J with it (the corpus bound is 5e-5 J).
#[test]
fn the_limit_resolves_the_cradle_on_the_default_step() {
    let (with, without) = (cradle_energy_drift(true), cradle_energy_drift(false));
    println!(
        "Newton's cradle, default step: energy drift {with:.3e} J with the contact limit, {without:.3e} J without"
    );
    assert!(with < 5e-5, "{with}");
    assert!(without > 1e-3, "{without}");
}

/// The 3D Hertz impact of models/hertz_impact.toml in one call of 0.12 ms (shorter than the
/// default step: without the limit it would be one step across the whole impact): the
/// velocities are exchanged to 1e-4 of v, and energy is conserved to 1e-4 of its value.
#[test]
fn a_spatial_impact_inside_one_call_is_resolved() {
    let model = example("hertz_impact");
    let run = |limit: bool| {
        let mut sim = simulation_with(&model, &[], |_| {});
        sim.set_contact_step_limit(limit);
        let e0 = output(&mut sim, "energy_total");
        sim.step_to(1.2e-4).unwrap();
        let (va, vb, e) = (output(&mut sim, "va"), output(&mut sim, "vb"), output(&mut sim, "energy_total"));
        println!(
            "limit {limit}: va {va:.3e} m/s, vb - 1 {:.3e} m/s, energy change {:.3e} of E0",
            vb - 1.0,
            (e - e0) / e0
        );
        (va, vb, (e - e0) / e0)
    };
    let (va, vb, de) = run(true);
    assert!(va.abs() < 1e-4 && (vb - 1.0).abs() < 1e-4 && de.abs() < 1e-4);
    let (va, vb, _) = run(false);
    assert!(va.abs() > 1e-2 || (vb - 1.0).abs() > 1e-2, "without the limit the impact is not resolved");
}

/// A snapshot inside an impact (the cradle at 12.5 ms, between two 1 ms outputs of the first
/// impact) restored into the same simulation re-steps the rest of the run bit for bit.
#[test]
fn a_snapshot_inside_an_impact_resteps_bit_for_bit() {
    let model = example("newtons_cradle");
    let mut sim = simulation_with(&model, &[], |_| {});
    sim.step_to(0.0125).unwrap();
    assert!(output(&mut sim, "v2") > 0.05 && output(&mut sim, "v1") > 0.05, "inside the first impact");
    let snapshot = sim.snapshot();
    let mut first = Vec::new();
    for k in 13..=40 {
        sim.step_to(k as f64 * 1e-3).unwrap();
        first.push(sim.output_values().unwrap().to_vec());
    }
    sim.restore(&snapshot).unwrap();
    for (i, k) in (13..=40).enumerate() {
        sim.step_to(k as f64 * 1e-3).unwrap();
        assert_eq!(sim.output_values().unwrap(), &first[i][..], "t = {} ms", k);
    }
}

/// A ball dropped from 1 mm onto the floor of models/ball_drop.toml (on the default step) comes
/// to rest after its impacts; resting, its contact is sustained and sets no limit. Over 10 s it
/// takes at most 5 % more steps than the run without the limit (a limit at the resting
/// contact's own time scale took 11 times as many), and it rests at the same height: the
/// static penetration (m g / K)^(2/3) below the radius, to 1e-9 m.
#[test]
fn a_resting_contact_sets_no_limit() {
    let text = std::fs::read_to_string(common::sim::model_path("ball_drop")).unwrap();
    let text = text.replace("step = 5e-5\n", "");
    let model = flexfmu::model::Model::parse(&text, "ball_drop.toml").unwrap();
    let run = |limit: bool| {
        let mut sim = simulation_with(&model, &[("h0", 1e-3)], |_| {});
        sim.set_contact_step_limit(limit);
        for k in 1..=100 {
            sim.step_to(k as f64 * 0.1).unwrap();
        }
        (sim.statistics().steps, output(&mut sim, "y"))
    };
    let ((steps, y), (free_steps, free_y)) = (run(true), run(false));
    let (m, g, r, k): (f64, f64, f64, f64) = (1.0, 9.81, 0.05, 1e8);
    let rest = r - (m * g / k).powf(2.0 / 3.0);
    println!(
        "resting ball, 10 s: {steps} steps with the limit, {free_steps} without; y {y:.12} m, {free_y:.12} m, static {rest:.12} m"
    );
    assert!(steps as f64 <= 1.05 * free_steps as f64, "{steps} vs {free_steps}");
    assert!((y - rest).abs() < 1e-9 && (free_y - rest).abs() < 1e-9, "{y} {free_y} {rest}");
}
