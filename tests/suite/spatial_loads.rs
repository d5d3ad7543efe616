//! Loads and inputs in spatial models (`[[loads]]` with `dimension = 3`,
//! src/mechanics/forces/spatial_load.rs). References:
//! - a free body (no gravity) under a constant force F through its centre and a constant torque
//!   T about its principal axis z, from rest: r = r0 + F t^2 / (2 m) and a rotation about z by
//!   theta = T t^2 / (2 J3) (omega stays along a principal axis: no gyroscopic torque), i.e.
//!   Euler parameters (cos(theta/2), 0, 0, sin(theta/2));
//! - a force F y at the body point c + 0.5 x is the force F y at the centre plus the torque
//!   0.5 F z (statics of rigid bodies): both models give the same motion;
//! - a torque magnitude read from an input gives the same motion as the same expression in t;
//! - the loads' work, energy_supplied, on the free body from rest is its kinetic energy
//!   F^2 t^2 / (2 m) + T^2 t^2 / (2 J3).

use flexfmu::integrators::Method;
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};

fn settings(h: f64) -> SolverSettings {
    SolverSettings { method: Method::Ttbif, rho_inf: 0.8, step: h, tolerance: 1e-12, ..Default::default() }
}

const BODY: &str = "[model]\nname = \"free\"\ndimension = 3\n[[rigid_bodies]]\nname = \"b\"\nmass = 2.0\n\
                    inertia = [0.3, 0.4, 0.5]\nposition = [1.0, 2.0, 3.0]\n";

fn run(text: &str, h: f64, t_end: f64) -> Simulation {
    let model = Model::parse(text, "loads3.toml").unwrap();
    let mut sim = Simulation::new(&model, &model.default_parameters(), settings(h), 0.0).unwrap();
    sim.step_to(t_end).unwrap();
    sim
}

#[test]
fn free_body_under_constant_force_and_torque_follows_the_analytic_motion() {
    let (f, torque, m, j3, t) = (3.0, 0.2, 2.0, 0.5, 2.0);
    let text = format!(
        "{BODY}[[loads]]\ntype = \"force\"\nbody = \"b\"\ndirection = [1.0, 0.0, 0.0]\nvalue = {f}\n\
         [[loads]]\ntype = \"torque\"\nbody = \"b\"\ndirection = [0.0, 0.0, 2.0]\nvalue = {torque}\n"
    );
    let theta = torque * t * t / (2.0 * j3);
    let mut errors = Vec::new();
    for h in [2e-3, 1e-3] {
        let sim = run(&text, h, t);
        let q = &sim.state().q;
        let x_error = (q[0] - (1.0 + f * t * t / (2.0 * m))).abs().max((q[1] - 2.0).abs()).max((q[2] - 3.0).abs());
        let p_error =
            (q[3] - (theta / 2.0).cos()).abs().max(q[4].abs()).max(q[5].abs()).max((q[6] - (theta / 2.0).sin()).abs());
        eprintln!("h = {h:.0e}: centre error {x_error:.3e}, Euler-parameter error {p_error:.3e} (theta = {theta})");
        assert!(x_error < 1e-9, "centre off r0 + F t^2/2m by {x_error:.3e}");
        errors.push(p_error);
    }
    assert!(errors[1] < 1e-5, "rotation off T t^2/2J: {:.3e}", errors[1]);
    assert!(errors[1] < errors[0] / 3.0, "not second order: {errors:?}");
}

#[test]
fn the_loads_work_is_the_energy_supplied() {
    let (f, torque, m, j3, t) = (3.0, 0.2, 2.0, 0.5, 2.0);
    let text = format!(
        "{BODY}[[loads]]\ntype = \"force\"\nbody = \"b\"\npoint = [1.0, 2.0, 3.0]\ndirection = [1.0, 0.0, 0.0]\n\
         value = {f}\n[[loads]]\ntype = \"torque\"\nbody = \"b\"\ndirection = [0.0, 0.0, 1.0]\nvalue = {torque}\n\
         [[outputs]]\nname = \"E\"\nquantity = \"energy_total\"\n[[outputs]]\nname = \"W\"\nquantity = \"energy_supplied\"\n"
    );
    let mut sim = run(&text, 1e-3, t);
    let values = sim.output_values().unwrap();
    let work = (f * f / m + torque * torque / j3) * t * t / 2.0;
    eprintln!("energy_supplied {} J, energy_total {} J, work {work} J", values[1], values[0]);
    // The power F v + T w grows linearly from rest: every method's quadrature is exact for it.
    assert!((values[1] - work).abs() < 1e-9 * work, "energy_supplied {} against {work}", values[1]);
    assert!((values[0] - work).abs() < 1e-9 * work, "energy_total {} against {work}", values[0]);
}

#[test]
fn force_at_a_point_is_force_at_the_centre_plus_its_moment() {
    let at_point = format!(
        "{BODY}[[loads]]\ntype = \"force\"\nbody = \"b\"\npoint = [1.5, 2.0, 3.0]\ndirection = [0.0, 1.0, 0.0]\n\
         value = \"2*sin(t)\"\n"
    );
    let split = format!(
        "{BODY}[[loads]]\ntype = \"force\"\nbody = \"b\"\ndirection = [0.0, 1.0, 0.0]\nvalue = \"2*sin(t)\"\n\
         [[loads]]\ntype = \"torque\"\nbody = \"b\"\ndirection = [0.0, 0.0, 1.0]\nvalue = \"0.5*2*sin(t)\"\n"
    );
    // The lever arm turns with the body, so the two agree only while it stays along x: a short
    // run (rotation ~1e-3 rad), where the difference is second order in the rotation.
    let (a, b) = (run(&at_point, 1e-3, 0.2), run(&split, 1e-3, 0.2));
    let d = a.state().q.iter().zip(&b.state().q).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
    let turn = 2.0 * b.state().q[6];
    eprintln!("point force vs centre force + moment: max coordinate difference {d:.3e}, rotation {turn:.3e}");
    assert!(turn > 1e-4 && d < 1e-3 * turn, "difference {d:.3e} vs rotation {turn:.3e}");
}

#[test]
fn torque_from_an_input_equals_the_same_expression_in_time() {
    let with_input = format!(
        "{BODY}[[inputs]]\nname = \"tau\"\nstart = 0.3\n[[loads]]\ntype = \"torque\"\nbody = \"b\"\n\
         direction = [1.0, 1.0, 0.0]\nvalue = \"tau\"\n"
    );
    let in_time = format!(
        "{BODY}[[loads]]\ntype = \"torque\"\nbody = \"b\"\ndirection = [1.0, 1.0, 0.0]\nvalue = \"0.3 + 0*t\"\n"
    );
    let (a, b) = (run(&with_input, 1e-3, 1.0), run(&in_time, 1e-3, 1.0));
    assert_eq!(a.state().q, b.state().q);
    assert!(a.state().q[4] > 0.01, "the body turned: {:?}", a.state().q);
}
