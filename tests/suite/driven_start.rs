//! Driven joints in a simulation that starts at t0 != 0, and drives that start later (held by
//! `max` before their start time). References (Newton-Euler about the fixed pivot):
//! - a pendulum (mass m, centroidal inertia Ic, centre at l from the pivot) driven along
//!   theta(t) needs the torque T = J theta'' + m g l sin(theta), J = Ic + m l^2; the initial
//!   state at t0 is projected onto theta(t0) with the rate theta'(t0);
//! - held at theta0 before t1 the drive torque is the holding torque m g l sin(theta0) and the
//!   joint velocity is 0;
//! - a spatial rotor (inertia J_aa about its fixed axis a through the centre) driven from
//!   t0 > 0 needs T = J_aa theta'', and `joint_position` reports the continuous angle (several
//!   turns, not wrapped);
//! - through the FMU (the `fmi` crate, FMI 2.0) with the experiment's start time 1.3 s the
//!   pendulum follows the same profile from there.

use flexfmu::integrators::Method;
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};
use fmi::fmi2::instance::CoSimulation;
use fmi::traits::FmiInstance;

use crate::common;
use common::fmu::{Fmu, read};
use common::sim::output;

fn settings(h: f64) -> SolverSettings {
    SolverSettings { method: Method::Ttbif, rho_inf: 0.8, step: h, tolerance: 1e-12, ..Default::default() }
}

const M: f64 = 1.5;
const IC: f64 = 0.02;
const L: f64 = 0.4;
const G: f64 = 9.81;

fn pendulum(drive: &str) -> Model {
    let text = format!(
        "[model]\nname = \"p\"\ngravity = [0.0, -{G}]\n[[rigid_bodies]]\nname = \"arm\"\nmass = {M}\n\
         inertia = {IC}\nposition = [0.0, -{L}]\n[[joints]]\nname = \"pivot\"\ntype = \"revolute\"\nbody2 = \"arm\"\n\
         point = [0.0, 0.0]\ndrive = \"{drive}\"\n[[outputs]]\nname = \"torque\"\nquantity = \"drive_force\"\n\
         joint = \"pivot\"\n[[outputs]]\nname = \"theta\"\nquantity = \"joint_position\"\njoint = \"pivot\"\n\
         [[outputs]]\nname = \"omega\"\nquantity = \"joint_velocity\"\njoint = \"pivot\"\n"
    );
    Model::parse(&text, "pendulum.toml").unwrap()
}

/// Max torque error against the inverse dynamics, max angle and rate errors over [t0, t_end].
fn run(model: &Model, t0: f64, t_end: f64, h: f64, profile: impl Fn(f64) -> [f64; 3]) -> [f64; 3] {
    let mut sim = Simulation::new(model, &[], settings(h), t0).unwrap();
    let j = IC + M * L * L;
    let mut worst = [0.0f64; 3];
    for k in 0..=((t_end - t0) / h).round() as usize {
        let t = t0 + k as f64 * h;
        if k > 0 {
            sim.step_to(t).unwrap();
        }
        let [th, w, al] = profile(t);
        let exact = j * al + M * G * L * th.sin();
        worst[0] = worst[0].max((output(&mut sim, "torque") - exact).abs());
        worst[1] = worst[1].max((output(&mut sim, "theta") - th).abs());
        worst[2] = worst[2].max((output(&mut sim, "omega") - w).abs());
    }
    worst
}

#[test]
fn pendulum_driven_from_a_start_time_after_zero_follows_its_profile() {
    // theta = 0.8 sin(3 t) from t0 = 1.3: theta(t0) = -0.553, theta'(t0) = -1.73, neither 0.
    let model = pendulum("0.8*sin(3*t)");
    let profile = |t: f64| [0.8 * (3.0 * t).sin(), 2.4 * (3.0 * t).cos(), -7.2 * (3.0 * t).sin()];
    let worst = run(&model, 1.3, 3.3, 1e-3, profile);
    let scale = IC * 7.2 + M * G * L;
    eprintln!(
        "start at 1.3 s: torque error {:.3e} (scale {scale:.3}), angle {:.3e}, rate {:.3e}",
        worst[0], worst[1], worst[2]
    );
    assert!(worst[1] < 1e-10, "angle off the profile by {:.3e}", worst[1]);
    assert!(worst[2] < 1e-6, "rate off the profile by {:.3e}", worst[2]);
    assert!(worst[0] < 1e-4 * scale, "torque off the inverse dynamics by {:.3e}", worst[0]);
}

#[test]
fn drive_held_before_its_start_time_holds_then_follows() {
    // Held at 0.5 rad until t1 = 1, then theta = 0.5 + 2 (t - 1)^3 (C2 at t1: no impulse).
    let model = pendulum("0.5 + 2*max(t - 1, 0)^3");
    let profile = |t: f64| {
        let s = (t - 1.0).max(0.0);
        [0.5 + 2.0 * s.powi(3), 6.0 * s * s, 12.0 * s]
    };
    let mut sim = Simulation::new(&model, &[], settings(1e-3), 0.0).unwrap();
    let hold = M * G * L * 0.5f64.sin();
    for k in 0..=900 {
        if k > 0 {
            sim.step_to(k as f64 * 1e-3).unwrap();
        }
        let (torque, w) = (output(&mut sim, "torque"), output(&mut sim, "omega"));
        assert!((torque - hold).abs() < 1e-9 * hold, "t = {}: holding torque {torque} vs {hold}", k as f64 * 1e-3);
        assert!(w.abs() < 1e-12, "held joint moves at {w}");
    }
    let worst = run(&model, 0.0, 2.0, 1e-3, profile);
    let scale = (IC + M * L * L) * 12.0 + M * G * L;
    eprintln!(
        "held until 1 s: torque error {:.3e} (scale {scale:.3}), angle {:.3e}, rate {:.3e}",
        worst[0], worst[1], worst[2]
    );
    assert!(worst[1] < 1e-10 && worst[2] < 1e-6, "{worst:?}");
    assert!(worst[0] < 1e-4 * scale, "torque off the inverse dynamics by {:.3e}", worst[0]);
}

#[test]
fn spatial_rotor_driven_from_a_later_start_reports_its_continuous_angle() {
    let j = [0.3, 0.4, 0.5];
    let a = [1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0];
    let jaa: f64 = (0..3).map(|k| j[k] * a[k] * a[k]).sum();
    let text = format!(
        "[model]\nname = \"rotor\"\ndimension = 3\ngravity = [0.0, 0.0, -9.81]\n[[rigid_bodies]]\nname = \"hub\"\n\
         mass = 2.0\ninertia = [{}, {}, {}]\nposition = [0.0, 0.0, 0.0]\n[[joints]]\nname = \"shaft\"\n\
         type = \"revolute\"\nbody2 = \"hub\"\npoint = [0.0, 0.0, 0.0]\naxis = [1.0, 2.0, 2.0]\n\
         drive = \"2*t^2 + sin(3*t)\"\n[[outputs]]\nname = \"torque\"\nquantity = \"drive_force\"\njoint = \"shaft\"\n\
         [[outputs]]\nname = \"theta\"\nquantity = \"joint_position\"\njoint = \"shaft\"\n\
         [[outputs]]\nname = \"omega\"\nquantity = \"joint_velocity\"\njoint = \"shaft\"\n",
        j[0], j[1], j[2]
    );
    let model = Model::parse(&text, "rotor.toml").unwrap();
    let (t0, h) = (0.7, 1e-3);
    let mut sim = Simulation::new(&model, &[], settings(h), t0).unwrap();
    let mut worst = [0.0f64; 3];
    let mut last = 0.0;
    for k in 0..=3000 {
        let t = t0 + k as f64 * h;
        if k > 0 {
            sim.step_to(t).unwrap();
        }
        let (theta, w, al) =
            (2.0 * t * t + (3.0 * t).sin(), 4.0 * t + 3.0 * (3.0 * t).cos(), 4.0 - 9.0 * (3.0 * t).sin());
        worst[0] = worst[0].max((output(&mut sim, "torque") - jaa * al).abs());
        worst[1] = worst[1].max((output(&mut sim, "theta") - theta).abs());
        worst[2] = worst[2].max((output(&mut sim, "omega") - w).abs());
        last = output(&mut sim, "theta");
    }
    eprintln!(
        "rotor from 0.7 s: torque error {:.3e} (J_aa theta'' up to {:.2}), angle {:.3e}, rate {:.3e}; final angle {last:.4} rad",
        worst[0],
        jaa * 13.0,
        worst[1],
        worst[2]
    );
    assert!(last > 6.0 * std::f64::consts::PI, "several turns, unwrapped: {last}");
    assert!(worst[1] < 1e-9, "angle off the profile by {:.3e}", worst[1]);
    assert!(worst[2] < 1e-5 * 16.0, "rate off the profile by {:.3e}", worst[2]);
    assert!(worst[0] < 1e-5 * jaa * 13.0, "torque off J_aa theta'' by {:.3e}", worst[0]);
}

#[test]
fn fmu_started_after_zero_projects_the_drive_at_its_start_time() {
    let model = pendulum("0.8*sin(3*t)");
    let fmu = Fmu::build(&model);
    let out = fmu.outputs();
    let mut inst = fmu.import.instantiate_cs("late", false, false).unwrap();
    FmiInstance::enter_initialization_mode(&mut inst, None, 1.3, None).unwrap();
    FmiInstance::exit_initialization_mode(&mut inst).unwrap();
    let j = IC + M * L * L;
    let (mut t, h) = (1.3, 0.01);
    let mut worst = [0.0f64; 2];
    for k in 0..=100 {
        if k > 0 {
            inst.do_step(t, h, true).unwrap();
            t = 1.3 + k as f64 * h;
        }
        // Outputs in model order: torque, theta, omega.
        let o = read(&mut inst, &out);
        let theta = 0.8 * (3.0 * t).sin();
        worst[0] = worst[0].max((o[1] - theta).abs());
        worst[1] = worst[1].max((o[0] - (j * -9.0 * theta + M * G * L * theta.sin())).abs());
    }
    eprintln!("FMU from 1.3 s: angle error {:.3e}, torque error {:.3e}", worst[0], worst[1]);
    assert!(worst[0] < 1e-10 && worst[1] < 1e-4 * M * G * L, "{worst:?}");
}
