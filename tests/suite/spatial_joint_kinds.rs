//! Spatial universal (Hooke, cardan) and cylindrical joints.
//! - Hooke joint between an input shaft along x and an output shaft along d = (cos b, sin b, 0),
//!   the input pin starting along y (in the plane of the shafts): the pins stay perpendicular,
//!   (0, cos t, sin t) . (z cos p + (d x z) sin p) = 0, so tan p = tan t / cos b and
//!   p' / t' = cos b / (1 - sin^2 b cos^2 t) (the classical velocity ratio; e.g. Wagner &
//!   Cooney, Universal Joint and Driveshaft Design Manual, SAE AE-7, 1979). Both shafts held at
//!   the centre would make the joint's three point rows redundant, so the input shaft's bearing
//!   rides on an x-y-z cross-slide (three prismatic joints) that the joint holds still.
//! - A body on a cylindrical joint about the axis a through its centre, gravity -g z, started
//!   sliding at v0 and spinning at w0 about a: the joint's reactions are normal to a and their
//!   torques are normal to a, so s(t) = v0 t - g a_z t^2 / 2 and the angle about a is w0 t.

use flexfmu::integrators::Method;
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};

use crate::common;
use common::hooke::{self, BETA, OMEGA};
use common::sim::output;

fn settings(h: f64) -> SolverSettings {
    SolverSettings { method: Method::Ttbif, rho_inf: 0.8, step: h, tolerance: 1e-12, ..Default::default() }
}

fn hooke_model() -> String {
    let mut text = hooke::mechanism("hooke");
    for (name, q, j) in [
        ("theta", "joint_position", "input"),
        ("phi", "joint_position", "output"),
        ("phi_dot", "joint_velocity", "output"),
        ("slide", "joint_position", "rail1"),
    ] {
        text += &format!("[[outputs]]\nname = \"{name}\"\nquantity = \"{q}\"\njoint = \"{j}\"\n");
    }
    text
}

#[test]
fn hooke_joint_transmits_the_cardan_velocity_ratio() {
    let model = Model::parse(&hooke_model(), "hooke.toml").unwrap();
    let h = 1e-3;
    let mut sim = Simulation::new(&model, &[], settings(h), 0.0).unwrap();
    let (mut angle, mut ratio, mut slide, mut ratio_range) = (0.0f64, 0.0f64, 0.0f64, [f64::MAX, 0.0f64]);
    for k in 0..=2500 {
        let t = k as f64 * h;
        if k > 0 {
            sim.step_to(t).unwrap();
        }
        let theta = OMEGA * t;
        assert!((output(&mut sim, "theta") - theta).abs() < 1e-10, "input angle");
        // tan phi = tan theta / cos beta, same quadrant as theta; phi is reported in (-pi, pi].
        let phi = theta.sin().atan2(BETA.cos() * theta.cos());
        let d = output(&mut sim, "phi") - phi;
        angle = angle.max((d - std::f64::consts::TAU * (d / std::f64::consts::TAU).round()).abs());
        let exact = BETA.cos() / (1.0 - (BETA.sin() * theta.cos()).powi(2));
        let r = output(&mut sim, "phi_dot") / OMEGA;
        ratio = ratio.max((r - exact).abs());
        ratio_range = [ratio_range[0].min(r), ratio_range[1].max(r)];
        slide = slide.max(output(&mut sim, "slide").abs());
    }
    eprintln!(
        "Hooke joint, beta = {BETA}: output angle error {angle:.3e}, velocity ratio error {ratio:.3e} \
         (ratio {:.5}..{:.5}, exact cos b = {:.5} .. 1/cos b = {:.5}), cross-slide moved {slide:.3e}",
        ratio_range[0],
        ratio_range[1],
        BETA.cos(),
        1.0 / BETA.cos()
    );
    assert!(angle < 1e-9, "output angle off tan phi = tan theta / cos beta by {angle:.3e}");
    // The output shaft's rate reads the velocities, satisfied by the GGL step to O(h^2).
    assert!(ratio < 1e-6, "velocity ratio off by {ratio:.3e}");
    assert!(slide < 1e-10, "the cross-slide moved by {slide:.3e}");
    assert!(ratio_range[0] < BETA.cos() + 1e-6 && ratio_range[1] > 1.0 / BETA.cos() - 1e-6, "{ratio_range:?}");
}

fn cylinder_run(h: f64) -> f64 {
    let a = [0.0, 0.6, 0.8];
    let (v0, w0, g) = (0.5, 4.0, 9.81);
    let mut text = format!(
        "[model]\nname = \"cyl\"\ndimension = 3\ngravity = [0.0, 0.0, -{g}]\n[solver]\nconstraints = \"ggl\"\n\
         [[rigid_bodies]]\nname = \"sleeve\"\nmass = 2.0\ninertia = [0.1, 0.2, 0.3]\nposition = [0.0, 0.0, 0.0]\n\
         velocity = [{}, {}, {}]\nangular_velocity = [{}, {}, {}]\n\
         [[joints]]\nname = \"rod\"\ntype = \"cylindrical\"\nbody2 = \"sleeve\"\npoint = [0.0, 0.0, 0.0]\n\
         axis = [{}, {}, {}]\n",
        v0 * a[0],
        v0 * a[1],
        v0 * a[2],
        w0 * a[0],
        w0 * a[1],
        w0 * a[2],
        a[0],
        a[1],
        a[2]
    );
    for c in ["x", "y", "z"] {
        text +=
            &format!("[[outputs]]\nname = \"{c}\"\nquantity = \"{c}\"\nbody = \"sleeve\"\npoint = [1.0, 0.0, 0.0]\n");
    }
    let model = Model::parse(&text, "cyl.toml").unwrap();
    let mut sim = Simulation::new(&model, &[], settings(h), 0.0).unwrap();
    let mut worst = 0.0f64;
    // The point starts at e1 (normal to a); it turns about a to e1 cos + (a x e1) sin.
    let (e1, axe1) = ([1.0, 0.0, 0.0], [0.0, 0.8, -0.6]);
    for k in 0..=(2.0 / h).round() as usize {
        let t = k as f64 * h;
        if k > 0 {
            sim.step_to(t).unwrap();
        }
        let s = v0 * t - 0.5 * g * a[2] * t * t;
        let (c, sn) = ((w0 * t).cos(), (w0 * t).sin());
        for (i, name) in ["x", "y", "z"].iter().enumerate() {
            let exact = s * a[i] + c * e1[i] + sn * axe1[i];
            worst = worst.max((output(&mut sim, name) - exact).abs());
        }
    }
    worst
}

#[test]
fn body_on_a_cylindrical_joint_slides_under_gravity_and_spins_freely() {
    let (coarse, fine) = (cylinder_run(2e-3), cylinder_run(1e-3));
    eprintln!("cylindrical joint: point error {coarse:.3e} (h = 2e-3), {fine:.3e} (h = 1e-3)");
    assert!(fine < 1e-5, "point off the analytic motion by {fine:.3e}");
    assert!(fine < coarse / 3.0, "not second order: {coarse:.3e} -> {fine:.3e}");
}

#[test]
fn bad_universal_joints_are_located_errors() {
    let base = "[model]\nname = \"u\"\ndimension = 3\n[[rigid_bodies]]\nname = \"b\"\nmass = 1.0\n\
                inertia = [0.1, 0.1, 0.1]\nposition = [0.0, 0.0, 0.0]\n[[joints]]\nname = \"j\"\n";
    for (joint, message) in [
        ("type = \"universal\"\nbody2 = \"b\"\naxis = [1.0, 0.0, 0.0]\n", "needs `axis2"),
        ("type = \"universal\"\nbody2 = \"b\"\naxis = [1.0, 0.0, 0.0]\naxis2 = [1.0, 1.0, 0.0]\n", "perpendicular"),
        ("type = \"revolute\"\nbody2 = \"b\"\naxis = [1.0, 0.0, 0.0]\naxis2 = [0.0, 1.0, 0.0]\n", "only applies"),
        (
            "type = \"cylindrical\"\nbody2 = \"b\"\naxis = [1.0, 0.0, 0.0]\ndrive = \"t\"\n",
            "a cylindrical joint has two coordinates: drive them by name",
        ),
        ("type = \"cylindrical\"\nbody2 = \"b\"\n", "needs `axis"),
    ] {
        let model = Model::parse(&format!("{base}{joint}"), "u.toml").unwrap();
        let err = flexfmu::mechanics::assemble::assemble(&model, &[]).map(|_| ()).unwrap_err().to_string();
        assert!(err.contains(message) && err.contains("u.toml:"), "{joint}: {err}");
    }
}
