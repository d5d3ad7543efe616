//! The slewing crane (models/crane_3d.toml): two driven revolute joints follow commanded angles
//! given as inputs, as a co-simulation master gives them (values with their first and second
//! derivatives at communication points 2 ms apart, fmi2SetRealInputDerivatives; a drive
//! follows the interpolated input u + u' dt + u'' dt^2/2). References:
//! - each joint angle is the interpolated command to the Newton tolerance (the rheonomic row),
//!   within |jump of u''| dt^2/2 of the command itself;
//! - the work of the two drives, ∫ (T_slew θ'_slew + T_luff θ'_luff) dt (trapezoidal rule on the
//!   outputs), equals the change of the total energy (kinetic + gravity + strain) within 1e-3 of
//!   the largest work: nothing else does work on the crane;
//! - after a quarter turn with the boom lowered by `luff`, the boom tip lies in the turned plane
//!   at the rigid boom's position within the boom's deflection.

use crate::common;
use common::sim::{example, output, simulation_with};
use flexfmu::simulation::Simulation;
use std::f64::consts::{FRAC_PI_2, PI};

/// A smooth step from 0 to 1 over [0, 1], (1 - cos πs)/2, with its first two derivatives.
fn smooth_step(s: f64) -> [f64; 3] {
    if s <= 0.0 {
        [0.0; 3]
    } else if s >= 1.0 {
        [1.0, 0.0, 0.0]
    } else {
        [0.5 * (1.0 - (PI * s).cos()), 0.5 * PI * (PI * s).sin(), 0.5 * PI * PI * (PI * s).cos()]
    }
}

/// Slew a quarter turn over 0.5..3.5 s; lower the boom by 0.2 rad over 1..3 s.
fn commands(t: f64) -> [[f64; 3]; 2] {
    let [s, ds, dds] = smooth_step((t - 0.5) / 3.0);
    let slew = [FRAC_PI_2 * s, FRAC_PI_2 * ds / 3.0, FRAC_PI_2 * dds / 9.0];
    let [s, ds, dds] = smooth_step((t - 1.0) / 2.0);
    let luff = [0.2 * s, 0.2 * ds / 2.0, 0.2 * dds / 4.0];
    [slew, luff]
}

fn drive_power(sim: &mut Simulation) -> f64 {
    output(sim, "slew_torque") * output(sim, "slew_rate") + output(sim, "luff_torque") * output(sim, "luff_rate")
}

#[test]
fn crane_follows_its_commanded_angles_and_the_drives_work_equals_the_energy_change() {
    let model = example("crane_3d");
    let mut sim = simulation_with(&model, &[], |_| {});
    let (comm, t_end) = (2e-3f64, 5.0f64);
    let e0 = output(&mut sim, "energy");
    let (mut work, mut max_work, mut p0) = (0.0, 0.0f64, drive_power(&mut sim));
    let (mut off_interpolated, mut off_command) = (0.0f64, 0.0f64);
    for k in 0..(t_end / comm).round() as usize {
        let (t0, t1) = (k as f64 * comm, (k + 1) as f64 * comm);
        let c = commands(t0);
        for (i, [u, du, ddu]) in c.iter().enumerate() {
            sim.set_input(i, *u).unwrap();
            sim.set_input_derivative(i, 1, *du).unwrap();
            sim.set_input_derivative(i, 2, *ddu).unwrap();
        }
        sim.step_to(t1).unwrap();
        for (i, name) in ["slew_angle", "luff_angle"].iter().enumerate() {
            let [u, du, ddu] = c[i];
            let angle = output(&mut sim, name);
            off_interpolated = off_interpolated.max((angle - (u + du * comm + 0.5 * ddu * comm * comm)).abs());
            off_command = off_command.max((angle - commands(t1)[i][0]).abs());
        }
        let p1 = drive_power(&mut sim);
        work += 0.5 * comm * (p0 + p1);
        max_work = max_work.max(work.abs());
        p0 = p1;
    }
    let de = output(&mut sim, "energy") - e0;
    let balance = (de - work) / max_work;
    eprintln!(
        "crane: angles vs interpolated commands {off_interpolated:.2e} rad, vs commands {off_command:.2e} rad; \
         drive work {work:.1} J (largest {max_work:.1}), energy change {de:.1} J, difference {balance:.2e} of the largest"
    );
    // The commands' second derivatives jump at the ends of the smooth steps, by at most
    // (π/2)(π²/2)/9 (the slew): the quadratic from the last communication point misses by that
    // jump times dt²/2 there, by max|u'''| dt³/6 elsewhere.
    let bound = FRAC_PI_2 * PI * PI / 18.0 * comm * comm / 2.0;
    assert!(off_interpolated < 1e-9, "joint angles off the interpolated commands by {off_interpolated:.3e}");
    assert!(off_command <= bound, "joint angles off the commands by {off_command:.3e} > {bound:.3e}");
    assert!(balance.abs() < 1e-3, "drive work vs energy change: {balance:.3e} of the largest work");

    // The tip after the quarter turn: in the y-z plane through the slewing axis, at the rigid
    // boom's position lowered by 0.2 rad, within the deflection of a cantilever under its own
    // weight and the hook load (about 20 mm statically) and the swinging load's pull.
    let (a, l, height) = (0.5, 6.0, 2.0);
    let rigid = [0.0, a + l * 0.2f64.cos(), height - l * 0.2f64.sin()];
    let tip = [output(&mut sim, "tip_x"), output(&mut sim, "tip_y"), output(&mut sim, "tip_z")];
    let off = rigid.iter().zip(&tip).map(|(r, p)| (r - p).powi(2)).sum::<f64>().sqrt();
    eprintln!("crane: tip {tip:?}, rigid boom {rigid:?}, distance {off:.3e} m");
    assert!(off < 0.05, "tip {tip:?} is {off:.3} m from the rigid boom's {rigid:?}");
    assert!(off > 1e-3, "the boom does not deflect: {off:.3e} m");
}

/// The same commands held between communication points 10 ms apart, without derivatives (as an
/// FMI 3.0 importer, or FMPy's simulate_fmu, gives them): each drive moves from the value the
/// last interval ended on to the held one at constant speed (`Simulation::ramp_held_drives`).
/// So at every communication point the joint angle is the command set at the one before and
/// its rate is the ramp's; the change of the drives' rates there is an impulse whose energy
/// counts as supplied (the balance closes); and the run is the one a master gets by giving the
/// straight line through the held values, one interval late, as values with first
/// derivatives (a probe's held inputs, taken as jumps of the drives, failed the step or gave
/// 4e4 N m for a 13 N m motion).
#[test]
fn held_commands_are_followed_at_constant_speed_over_each_interval() {
    let model = example("crane_3d");
    let comm = 1e-2f64;
    let steps = (5.0 / comm).round() as usize;
    let held = |k: usize| commands(k as f64 * comm).map(|c| c[0]);
    // Per communication point: angles, rates, torques; and the energy balance.
    let run = |lines: bool| {
        let mut sim = simulation_with(&model, &[], |_| {});
        let (e0, s0) = (output(&mut sim, "energy"), sim.state().exchanged.supplied);
        let mut largest = 0.0f64;
        let mut points = Vec::new();
        for k in 0..steps {
            let (now, before) = (held(k), held(k.saturating_sub(1)));
            for i in 0..2 {
                if lines {
                    sim.set_input(i, before[i]).unwrap();
                    sim.set_input_derivative(i, 1, (now[i] - before[i]) / comm).unwrap();
                } else {
                    sim.set_input(i, now[i]).unwrap();
                }
            }
            sim.step_to((k + 1) as f64 * comm).unwrap();
            let values = ["slew_angle", "luff_angle", "slew_rate", "luff_rate", "slew_torque", "luff_torque"]
                .map(|name| output(&mut sim, name));
            points.push(values);
            largest = largest.max((sim.state().exchanged.supplied - s0).abs());
        }
        let drift = (output(&mut sim, "energy") - e0) - (sim.state().exchanged.supplied - s0);
        (points, drift / largest)
    };
    let ((points, balance), (lines, _)) = (run(false), run(true));
    let (mut off_held, mut off_rate, mut off_lines) = (0.0f64, 0.0f64, 0.0f64);
    let peak = points.iter().fold(0.0f64, |m, p| m.max(p[4].abs()).max(p[5].abs()));
    for (k, (p, l)) in points.iter().zip(&lines).enumerate() {
        let (now, before) = (held(k), held(k.saturating_sub(1)));
        for i in 0..2 {
            off_held = off_held.max((p[i] - now[i]).abs());
            off_rate = off_rate.max((p[2 + i] - (now[i] - before[i]) / comm).abs());
        }
        off_lines = off_lines.max(p.iter().zip(l).map(|(a, b)| (a - b).abs() / peak).fold(0.0, f64::max));
    }
    eprintln!(
        "crane, commands held every 10 ms: angles off the held values {off_held:.2e} rad, rates off the ramps \
         {off_rate:.2e} rad/s; energy change - supplied {balance:.2e} of the largest supplied; largest difference \
         to the lines given with derivatives {off_lines:.2e} of the peak torque {peak:.0} N m"
    );
    assert!(off_held < 1e-9, "joint angles off the held commands by {off_held:.3e} rad");
    assert!(off_rate < 1e-6, "joint rates off the ramps by {off_rate:.3e} rad/s");
    assert!(balance.abs() < 1e-4, "energy change - supplied: {balance:.3e} of the largest supplied");
    assert!(off_lines < 1e-9, "held commands vs lines with derivatives: {off_lines:.3e}");
}

/// A command set at a communication point moves no joint before a step takes it there, so the
/// reported joint angle stays the joint's: the spatial angle (atan2, wrapped) is reported on
/// the branch of the drive the state follows, not of the command just set (a probe read the
/// slew angle 2 pi off after setting 3.5 rad, 1592 turns off after 1e4 rad, with no dependency
/// declared). After the step the joint is at the command.
#[test]
fn a_command_set_between_steps_does_not_turn_the_reported_angle() {
    let model = example("crane_3d");
    let mut sim = simulation_with(&model, &[], |_| {});
    sim.step_to(0.05).unwrap();
    let before = output(&mut sim, "slew_angle");
    for command in [3.5, -3.5, 1e4] {
        sim.set_input(0, command).unwrap();
        let read = output(&mut sim, "slew_angle");
        assert_eq!(
            read, before,
            "command {command}: the slew angle read {read} rad before the step, {before} rad before"
        );
    }
    sim.set_input(0, 3.5).unwrap();
    sim.step_to(0.06).unwrap();
    let after = output(&mut sim, "slew_angle");
    assert!((after - 3.5).abs() < 1e-9, "after the step the slew angle is {after} rad, commanded 3.5 rad");
}

/// An interval that fails before its first internal step leaves the state it started from,
/// also where starting it changed the state: a slew command jumped by 1e4 rad is ramped over
/// the 10 ms interval (1e6 rad/s), the drive's projection gave the crane that speed, and the
/// discarded step kept it (a probe read slew_rate 1e6 rad/s and 7.8e13 J as the last good
/// state). Every output, the state and the time are those before the interval, bit for bit.
#[test]
fn a_failed_interval_leaves_the_state_before_it() {
    let model = example("crane_3d");
    let mut sim = simulation_with(&model, &[], |_| {});
    sim.step_to(0.05).unwrap();
    let good = sim.output_values().unwrap().to_vec();
    let state = sim.state().clone();
    sim.set_input(0, 1e4).unwrap();
    sim.set_input(1, 1e4).unwrap();
    assert!(sim.step_to(0.06).is_err(), "a jump of 1e4 rad in 10 ms fails");
    assert_eq!(sim.time(), 0.05);
    let s = sim.state();
    assert!(s.q == state.q && s.v == state.v && s.exchanged == state.exchanged, "the state moved");
    let after = sim.output_values().unwrap().to_vec();
    for ((o, g), a) in sim.outputs().iter().zip(&good).zip(&after) {
        assert_eq!(g.to_bits(), a.to_bits(), "{}: {g} before the interval, {a} after it failed", o.name);
    }
}

/// The boom's root bending moment (`boom_root_moment`, the section force at `boom.start`: the
/// first element's end force, with its inertia and weight) against two independent
/// references. At rest it is the moment of the weights beyond the root, hook load and sling
/// hanging at the tip, (m_load + 5 kg) g L, and the boom's own, w L^2 / 2 with w = rho A g (the
/// tip's sag shortens the arms only at second order, 1e-5). At rest and in motion (the boom
/// sagging and swinging from its straight start), the boom's root node carries no mass of its
/// own, so the luffing drive's torque on it (from the multipliers) balances the section
/// moment: torque + moment = 0 to round-off.
#[test]
fn the_boom_root_moment_balances_the_weights_and_the_luffing_torque() {
    let model = example("crane_3d");
    let mut sim = simulation_with(&model, &[], |_| {});
    for k in 1..=8 {
        sim.step_to(0.05 * k as f64).unwrap();
        let (moment, torque) = (output(&mut sim, "boom_root_moment"), output(&mut sim, "luff_torque"));
        println!("t = {:.2}: root moment {moment:.6} N m, luffing torque {torque:.6} N m", sim.time());
        assert!((torque + moment).abs() < 1e-9 * moment.abs(), "{torque} + {moment}");
    }
    sim.settle_static(0.4).unwrap();
    let (moment, torque) = (output(&mut sim, "boom_root_moment"), output(&mut sim, "luff_torque"));
    let (side, wall, rho, g, length) = (0.2, 0.008, 7850.0, 9.81, 6.0);
    let w = rho * 4.0 * wall * (side - wall) * g;
    let expected = (100.0 + 5.0) * g * length + w * length * length / 2.0;
    println!("at rest: root moment {moment:.4} N m, weights {expected:.4} N m, luffing torque {torque:.4} N m");
    assert!((moment / expected - 1.0).abs() < 1e-4, "{moment} against {expected}");
    assert!((torque + moment).abs() < 1e-9 * moment, "{torque} + {moment}");
}
