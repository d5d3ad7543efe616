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

/// Spans far below the internal step are extrapolated (`Simulation::extrapolate`), but not
/// over an impact: two spheres of models/hertz_impact.toml 1e4 times stiffer (E = 2.1e20 Pa) at
/// 1e5 m/s, 2e-5 m apart, have an impact of 1.5 ns, within one 0.5 us output interval, with the
/// contact open at both of its ends. It is stepped and resolved: the velocities are exchanged
/// to 1e-3 of v and the energy kept to 1e-3 (before, the spheres passed through each other,
/// a at 1e5 m/s at the end).
#[test]
fn short_spans_are_not_extrapolated_over_an_impact() {
    let model = example("hertz_impact");
    let v = 1e5;
    let mut sim = simulation_with(&model, &[("v", v), ("E", 2.1e20)], |_| {});
    let e0 = output(&mut sim, "energy_total");
    for k in 1..=6 {
        sim.step_to(k as f64 * 5e-7).unwrap();
    }
    let (va, vb, e) = (output(&mut sim, "va"), output(&mut sim, "vb"), output(&mut sim, "energy_total"));
    println!("va {va:.3e} m/s, vb - v {:.3e} m/s, energy change {:.3e} of E0", vb - v, (e - e0) / e0);
    assert!(va.abs() < 1e-3 * v && (vb - v).abs() < 1e-3 * v, "va {va}, vb {vb}");
    assert!(((e - e0) / e0).abs() < 1e-3);
    assert!(sim.contact_overrun().is_none(), "{:?}", sim.contact_overrun());
}

/// A span far below the internal step inside an impact is extrapolated like any other (an
/// implicit step of 1e-12 s is ill-conditioned, `Simulation::extrapolate`): one call of
/// 1e-12 s in the crank-slider's impact (models/crank_slider_contact.toml at 71.2 ms) changes
/// the crank angle at 1 s by 4e-11 rad, and its energy balance by as little (an implicit
/// step there had put 0.38 J into the mechanism and turned the crank 0.5 rad off: a probe).
#[test]
fn a_short_span_inside_an_impact_changes_nothing() {
    let model = example("crank_slider_contact");
    let run = |tiny: bool| {
        let mut sim = simulation_with(&model, &[], |_| {});
        let mut t = 0.0f64;
        while t < 0.0712 - 1e-12 {
            t = (t + 0.01).min(0.0712);
            sim.step_to(t).unwrap();
        }
        assert!(output(&mut sim, "contact_state") > 0.5, "inside the impact at 71.2 ms");
        if tiny {
            sim.step_to(t + 1e-12).unwrap();
        }
        sim.step_to(1.0).unwrap();
        (output(&mut sim, "crank_angle"), output(&mut sim, "energy_total") + output(&mut sim, "energy_dissipated"))
    };
    let ((angle, balance), (tiny_angle, tiny_balance)) = (run(false), run(true));
    println!("crank angle change {:.2e} rad, balance change {:.2e} J", tiny_angle - angle, tiny_balance - balance);
    assert!((tiny_angle - angle).abs() < 1e-8 && (tiny_balance - balance).abs() < 1e-8);
}

/// Two spheres (radius 0.05 m, 1 kg each, 1 mm apart) approaching fast enough to pass through
/// each other within one 1 ms step (250 m/s: 0.25 m a step against the 0.2 m of their
/// overlap), with either method and e = 1: the step that reaches the contact ends just after
/// the onset (`System::contact_step_limit`), so the impact at 4 us is located and the
/// velocities exchanged exactly (constraint; force: to 1e-6, the Hertz impact being resolved).
/// Before, both methods let sphere a through b, the constraint without an impact and silently.
#[test]
fn spheres_fast_enough_to_cross_in_one_step_collide() {
    let text = r#"
[model]
name = "crossing"
dimension = 3
gravity = [0.0, 0.0, 0.0]
[solver]
step = 1e-3
[[point_masses]]
name = "a"
mass = 1.0
position = [0.0, 0.0, 0.0]
velocity = [250.0, 0.0, 0.0]
[[point_masses]]
name = "b"
mass = 1.0
position = [0.101, 0.0, 0.0]
[[contacts]]
name = "hit"
method = "METHOD"
type = "sphere_sphere"
body1 = "a"
radius1 = 0.05
body2 = "b"
radius2 = 0.05
STIFFNESS
restitution = 1.0
[[outputs]]
name = "va"
quantity = "vx"
body = "a"
[[outputs]]
name = "vb"
quantity = "vx"
body = "b"
[[outputs]]
name = "impact"
quantity = "impact_time"
contact = "hit"
"#;
    for (method, stiffness, tolerance) in [("constraint", "", 1e-9), ("force", "stiffness = 1e12", 1e-6)] {
        let text = text.replace("METHOD", method).replace("STIFFNESS", stiffness);
        let model = flexfmu::model::Model::parse(&text, "crossing.toml").unwrap();
        let mut sim = simulation_with(&model, &[], |_| {});
        sim.step_to(0.01).unwrap();
        let (va, vb, impact) = (output(&mut sim, "va"), output(&mut sim, "vb"), output(&mut sim, "impact"));
        println!("{method}: va {va:.3e} m/s, vb {vb:.6} m/s, impact at {impact:.6e} s");
        assert!(va.abs() < tolerance * 250.0 && (vb - 250.0).abs() < tolerance * 250.0, "{method}: {va} {vb}");
        assert!((impact - 4e-6).abs() < 1e-9, "{method}: impact at {impact}");
    }
}

/// An impact the internal step cannot resolve is told (`Simulation::unresolved_contact`, which
/// `simulate` prints and the FMU logs): models/ball_drop.toml with a floor of stiffness 1e19
/// N/m^1.5 (impact duration ~4e-8 s) on its internal step of 5e-5 s, which can be split into
/// sub-steps of 5e-5/4096 = 1.2e-8 s at the least, against the 1/50 of the impact asked for.
/// At the model's 1e8 nothing is told.
#[test]
fn an_impact_the_step_cannot_resolve_is_told() {
    let model = example("ball_drop");
    let told = |k: f64| {
        let mut sim = simulation_with(&model, &[("K", k)], |_| {});
        sim.step_to(0.5).unwrap();
        sim.unresolved_contact()
    };
    assert!(told(1e8).is_none());
    let message = told(1e19).expect("told");
    println!("{message}");
    assert!(
        message.contains("shorter than the internal step of 5.000e-5 s can be split into (1.221e-8 s)")
            && message.contains(" 2.0 times shorter"),
        "{message}"
    );
}

/// An impact whose normal energy the Hertz law stores only beyond the radii is told
/// (`Simulation::contact_overrun`, which `simulate` prints and the FMU logs): the spheres
/// of models/hertz_impact.toml at 1e5 m/s need delta* = 20.44 um (1e5)^(4/5) = 0.2044 m
/// (Johnson's delta* at 1 m/s in the model file) against radii of 0.02 m; at the model's 1 m/s
/// nothing is told.
#[test]
fn an_impact_beyond_the_radii_is_told() {
    let model = example("hertz_impact");
    let told = |v: f64| {
        let mut sim = simulation_with(&model, &[("v", v)], |_| {});
        sim.step_to(4e-6).unwrap();
        sim.contact_overrun()
    };
    assert!(told(1.0).is_none());
    let message = told(1e5).expect("told");
    println!("{message}");
    let depth: f64 = message.split("a penetration of ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!((depth - 0.2044).abs() < 2e-4, "{message}");
    assert!(
        message.starts_with("contact 'hit': the impact at t = ")
            && message.contains("more than the radii (0.02 m): the bodies pass through each other"),
        "{message}"
    );
}

/// Against a plane the same overrun does not pass the ball through: the plane pushes along its
/// normal at any depth, and the ball comes back (a probe's ball at 200 m/s rebounded and was
/// told it had passed through). models/ball_drop.toml with K = 1e3 stores the 3.13 m/s impact
/// at delta* = (2.5 m v^2 / 2K)^0.4 = 0.172 m against r = 0.05 m; with e = 1 it leaves upwards
/// (the impact lasts about 0.16 s from 0.32 s).
#[test]
fn an_impact_beyond_the_radius_against_a_plane_is_told_without_passing_through() {
    let model = example("ball_drop");
    let mut sim = simulation_with(&model, &[("K", 1e3), ("e", 1.0)], |_| {});
    sim.step_to(0.6).unwrap();
    let message = sim.contact_overrun().expect("told");
    println!("{message}");
    assert!(
        message.contains("the centre passes the plane's surface") && !message.contains("pass through"),
        "{message}"
    );
    let vy = crate::common::sim::output(&mut sim, "vy");
    assert!(vy > 0.0, "the ball left the floor upwards, vy = {vy}");
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

/// models/ball_drop.toml without its `step = 5e-5`: on the default step.
fn ball_drop_on_the_default_step() -> flexfmu::model::Model {
    let text = std::fs::read_to_string(common::sim::model_path("ball_drop")).unwrap();
    flexfmu::model::Model::parse(&text.replace("step = 5e-5\n", ""), "ball_drop.toml").unwrap()
}

/// A ball dropped from 1 mm onto the floor of models/ball_drop.toml (on the default step), 10 s
/// in 100 calls, with or without the contact step limit: its steps, its factorizations in the
/// first second (its impacts) and in all, and its final height.
struct RestingBall {
    steps: u64,
    impact_factorizations: u64,
    factorizations: u64,
    y: f64,
}

fn resting_ball(limit: bool) -> RestingBall {
    let model = ball_drop_on_the_default_step();
    let mut sim = simulation_with(&model, &[("h0", 1e-3)], |_| {});
    sim.set_contact_step_limit(limit);
    let mut impact_factorizations = 0;
    for k in 1..=100 {
        sim.step_to(k as f64 * 0.1).unwrap();
        if k == 10 {
            impact_factorizations = sim.statistics().factorizations;
        }
    }
    let st = sim.statistics();
    RestingBall { steps: st.steps, impact_factorizations, factorizations: st.factorizations, y: output(&mut sim, "y") }
}

/// The resting ball's static height: the penetration (m g / K)^(2/3) below its radius.
fn static_height() -> f64 {
    let (m, g, r, k): (f64, f64, f64, f64) = (1.0, 9.81, 0.05, 1e8);
    r - (m * g / k).powf(2.0 / 3.0)
}

/// The ball of `resting_ball` comes to rest after its impacts; resting, its contact is
/// sustained and sets no limit. Over 10 s it takes at most 5 % more steps than the run without
/// the limit (a limit at the resting contact's own time scale took 11 times as many), and it
/// rests at the same height, the static one, to 1e-9 m.
#[test]
fn a_resting_contact_sets_no_limit() {
    let (limited, free, rest) = (resting_ball(true), resting_ball(false), static_height());
    let (steps, free_steps, y, free_y) = (limited.steps, free.steps, limited.y, free.y);
    println!(
        "resting ball, 10 s: {steps} steps with the limit, {free_steps} without; y {y:.12} m, {free_y:.12} m, static {rest:.12} m"
    );
    assert!(steps as f64 <= 1.05 * free_steps as f64, "{steps} vs {free_steps}");
    assert!((y - rest).abs() < 1e-9 && (free_y - rest).abs() < 1e-9, "{y} {free_y} {rest}");
}

/// The ball of `resting_ball`: its impacts are over within 1 s; from then on its contact is
/// sustained, no step asks for the effective mass, and the run factorizes exactly as often as
/// the same run without the limit (before: once more per step, 11,222 factorizations against
/// 1,034 over the 10 s). It rests at the static penetration as before.
#[test]
fn a_resting_contact_costs_what_a_free_body_costs() {
    let (limited, free, rest) = (resting_ball(true), resting_ball(false), static_height());
    let (impacts, free_impacts) = (limited.impact_factorizations, free.impact_factorizations);
    let (resting, free_resting) = (limited.factorizations - impacts, free.factorizations - free_impacts);
    let (y, free_y) = (limited.y, free.y);
    println!(
        "resting ball: factorizations {impacts} in the first second with the limit, {free_impacts} without; \
         {resting} and {free_resting} over the 9 s at rest; y {y:.12} m, {free_y:.12} m, static {rest:.12} m"
    );
    assert!(resting <= free_resting, "{resting} vs {free_resting}");
    assert!((y - rest).abs() < 1e-9 && (free_y - rest).abs() < 1e-9, "{y} {free_y} {rest}");
}

/// A ball (1 kg, r = 0.05 m, K = 1e8 N/m^1.5 as in models/ball_drop.toml, but elastic: e = 1)
/// rests on the floor at its static penetration, so its contact is sustained from the start;
/// at t = 0.05 s it is given 0.5 m/s into the floor (a restored snapshot with that velocity:
/// an impulse while the contact never opened). Its normal kinetic energy then exceeds its
/// elastic energy many times, so the contact is struck (`STRUCK` in
/// src/mechanics/forces/contact.rs): a new impact of 2.3 ms, limited to 1/50 of it. Without
/// the limit (what this run was before the rule: the sustained contact set no limit) the
/// impact is taken in 1 ms steps. The reference is exact: without damping the total energy
/// is conserved, E = E(0.05 s) + m v^2/2, through the impact and the flight after it (t = 0.08
/// s); the speed in flight is compared with the run at 1/20 of the step. Measured: energy
/// change 2.0e-6 J with the rule (8.3e-7 J at 1/20 step), -2.2e-3 J without; speed 3e-6 m/s
/// from the fine run's, 3.9e-3 m/s without.
const KICKED_BALL: &str = r#"
[model]
name = "kicked_ball"
gravity = [0.0, -9.81]

[parameters]
m = 1.0
r = 0.05
K = 1e8

[solver]
integrator = "ttbif"
rho_inf = 0.5
stop_time = 0.1

[[point_masses]]
name = "ball"
mass = "m"
position = [0.0, "r - (m*9.81/K)^(2/3)"]

[[contacts]]
name = "floor"
type = "circle_plane"
body1 = "ground"
point1 = [0.0, 0.0]
normal = [0.0, 1.0]
body2 = "ball"
radius2 = "r"
stiffness = "K"
restitution = 1.0

[[outputs]]
name = "vy"
quantity = "vy"
body = "ball"

[[outputs]]
name = "energy_total"
quantity = "energy_total"
"#;

#[test]
fn a_struck_resting_contact_is_an_impact_again() {
    let model = flexfmu::model::Model::parse(KICKED_BALL, "kicked_ball.toml").unwrap();
    let run = |fraction: f64, limit: bool| {
        let mut sim = simulation_with(&model, &[], |s| s.step *= fraction);
        sim.set_contact_step_limit(limit);
        sim.step_to(0.05).unwrap();
        let mut kicked = sim.snapshot();
        kicked.state_mut().v[1] -= 0.5;
        sim.restore(&kicked).unwrap();
        let e_kicked = output(&mut sim, "energy_total");
        let steps = sim.statistics().steps;
        sim.step_to(0.08).unwrap();
        let (vy, e) = (output(&mut sim, "vy"), output(&mut sim, "energy_total"));
        (e - e_kicked, vy, sim.statistics().steps - steps)
    };
    let (error, vy, steps) = run(1.0, true);
    let (error_fine, vy_fine, steps_fine) = run(1.0 / 20.0, true);
    let (error_free, vy_free, steps_free) = run(1.0, false);
    println!(
        "kicked resting ball, energy change 0.05 -> 0.08 s of the 0.125 J kick: {error:.2e} J, vy {vy:.6e} m/s \
         ({steps} steps); without the limit {error_free:.2e} J, vy {vy_free:.6e} ({steps_free}); at 1/20 step \
         {error_fine:.2e} J, vy {vy_fine:.6e} ({steps_fine})"
    );
    assert!(error.abs() < 1e-4 * 0.125 && error_fine.abs() < 1e-4 * 0.125, "{error} {error_fine}");
    assert!(error_free.abs() > 1e-2 * 0.125, "{error_free}");
    assert!((vy - vy_fine).abs() < 1e-4 * 0.5 && (vy_free - vy_fine).abs() > 1e-3 * 0.5, "{vy} {vy_free} {vy_fine}");
}
