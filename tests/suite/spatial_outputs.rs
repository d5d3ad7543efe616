//! Spatial kinematic outputs against an analytic motion: a body with the initial orientation
//! Ry(b) Rx(c) turned about the global z axis through its centre by a driven revolute joint,
//! psi(t) = 2 t^2 + sin(3 t) (several turns). Then
//! - A = Rz(psi) Ry(b) Rx(c): the intrinsic z-y'-x'' Tait-Bryan angles are yaw = psi (wrapped
//!   to (-pi, pi]), pitch = b, roll = c;
//! - the angular velocity is psi' z (global), in the body frame (Ry Rx)^T z psi' =
//!   psi' (-sin b, sin c cos b, cos c cos b) (the Euler-rate relation with pitch and roll
//!   constant);
//! - the angular acceleration is psi'' z (global) and psi'' (-sin b, sin c cos b, cos c cos b)
//!   in the body frame (`alpha_x` .., `alpha_x_body` ..);
//! - a body point at r (from the axis) has the acceleration psi'' z x r - psi'^2 r_perp.

use flexfmu::integrators::Method;
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};

use crate::common;
use common::sim::output;

fn settings(h: f64) -> SolverSettings {
    SolverSettings { method: Method::Ttbif, rho_inf: 0.8, step: h, tolerance: 1e-12, ..Default::default() }
}

const PITCH: f64 = 0.3;
const ROLL: f64 = 0.4;
const P0: [f64; 3] = [0.3, 0.1, 0.2];

/// Euler parameters of Ry(b) Rx(c): the quaternion product q_y(b) q_x(c).
fn initial_orientation() -> [f64; 4] {
    let (cb, sb, cc, sc) = ((PITCH / 2.0).cos(), (PITCH / 2.0).sin(), (ROLL / 2.0).cos(), (ROLL / 2.0).sin());
    // (cb, 0, sb, 0) (cc, sc, 0, 0) = (cb cc, cb sc, sb cc, -sb sc).
    [cb * cc, cb * sc, sb * cc, -sb * sc]
}

#[test]
fn tait_bryan_angles_body_rates_and_point_accelerations_of_a_turning_body() {
    let e = initial_orientation();
    let mut text = format!(
        "[model]\nname = \"turn\"\ndimension = 3\ngravity = [0.0, 0.0, -9.81]\n[[rigid_bodies]]\nname = \"b\"\n\
         mass = 2.0\ninertia = [0.3, 0.4, 0.5]\nposition = [0.0, 0.0, 0.0]\neuler_parameters = [{}, {}, {}, {}]\n\
         [[joints]]\nname = \"spin\"\ntype = \"revolute\"\nbody2 = \"b\"\npoint = [0.0, 0.0, 0.0]\naxis = [0.0, 0.0, 1.0]\n\
         drive = \"2*t^2 + sin(3*t)\"\n",
        e[0], e[1], e[2], e[3]
    );
    for q in [
        "yaw",
        "pitch",
        "roll",
        "wx",
        "wy",
        "wz",
        "wx_body",
        "wy_body",
        "wz_body",
        "alpha_x",
        "alpha_y",
        "alpha_z",
        "alpha_x_body",
        "alpha_y_body",
        "alpha_z_body",
    ] {
        text += &format!("[[outputs]]\nname = \"{q}\"\nquantity = \"{q}\"\nbody = \"b\"\n");
    }
    for q in ["ax", "ay", "az"] {
        text += &format!(
            "[[outputs]]\nname = \"{q}\"\nquantity = \"{q}\"\nbody = \"b\"\npoint = [{}, {}, {}]\n",
            P0[0], P0[1], P0[2]
        );
    }
    let model = Model::parse(&text, "turn.toml").unwrap();
    let units: Vec<String> =
        ["yaw", "wx_body", "ax", "alpha_z", "alpha_x_body"].iter().map(|n| model_unit(&model, n)).collect();
    assert_eq!(units, ["rad", "rad/s", "m/s2", "rad/s2", "rad/s2"]);
    let h = 1e-3;
    let mut sim = Simulation::new(&model, &[], settings(h), 0.0).unwrap();
    let mut worst = [0.0f64; 5];
    let body = [-PITCH.sin(), ROLL.sin() * PITCH.cos(), ROLL.cos() * PITCH.cos()];
    for k in 0..=3000 {
        let t = k as f64 * h;
        if k > 0 {
            sim.step_to(t).unwrap();
        }
        let (psi, w, al) =
            (2.0 * t * t + (3.0 * t).sin(), 4.0 * t + 3.0 * (3.0 * t).cos(), 4.0 - 9.0 * (3.0 * t).sin());
        let d = output(&mut sim, "yaw") - psi;
        let yaw = (d - std::f64::consts::TAU * (d / std::f64::consts::TAU).round()).abs();
        worst[0] = worst[0]
            .max(yaw)
            .max((output(&mut sim, "pitch") - PITCH).abs())
            .max((output(&mut sim, "roll") - ROLL).abs());
        let global = [output(&mut sim, "wx"), output(&mut sim, "wy"), output(&mut sim, "wz") - w];
        let local = [output(&mut sim, "wx_body"), output(&mut sim, "wy_body"), output(&mut sim, "wz_body")];
        for i in 0..3 {
            worst[1] = worst[1].max(global[i].abs());
            worst[2] = worst[2].max((local[i] - w * body[i]).abs());
        }
        let alpha = ["alpha_x", "alpha_y", "alpha_z"].map(|n| output(&mut sim, n));
        let alpha_body = ["alpha_x_body", "alpha_y_body", "alpha_z_body"].map(|n| output(&mut sim, n));
        for i in 0..3 {
            let exact = if i == 2 { al } else { 0.0 };
            worst[4] = worst[4].max((alpha[i] - exact).abs()).max((alpha_body[i] - al * body[i]).abs());
        }
        // The point at P0 turned by psi about z.
        let (c, s) = (psi.cos(), psi.sin());
        let r = [c * P0[0] - s * P0[1], s * P0[0] + c * P0[1]];
        let exact = [-al * r[1] - w * w * r[0], al * r[0] - w * w * r[1], 0.0];
        for (i, name) in ["ax", "ay", "az"].iter().enumerate() {
            worst[3] = worst[3].max((output(&mut sim, name) - exact[i]).abs());
        }
    }
    eprintln!(
        "turning body (psi up to {:.1} rad): angle error {:.3e}, global rate {:.3e}, body rate {:.3e}, point acceleration {:.3e}, angular acceleration {:.3e}",
        2.0 * 9.0 + 3f64.sin(),
        worst[0],
        worst[1],
        worst[2],
        worst[3],
        worst[4]
    );
    assert!(worst[0] < 1e-9, "Tait-Bryan angles off by {:.3e}", worst[0]);
    // Rates read the velocities (index-3 integrator: O(h^2)); the scale is psi' up to 15 rad/s.
    assert!(worst[1] < 1e-4 && worst[2] < 1e-4, "angular velocity off by {:.3e}, {:.3e}", worst[1], worst[2]);
    // The acceleration scale: psi'^2 |r| up to 15^2 * 0.32 = 71 m/s^2.
    assert!(worst[3] < 1e-3, "point acceleration off by {:.3e}", worst[3]);
    // Angular accelerations (psi'' up to 13 rad/s^2) read the method's accelerations p'', as the
    // point accelerations do (O(h^2); measured 1.4e-5 at h = 1e-3).
    assert!(worst[4] < 1e-4, "angular acceleration off by {:.3e}", worst[4]);
}

fn model_unit(model: &Model, name: &str) -> String {
    let sim = Simulation::new(model, &[], settings(1e-3), 0.0).unwrap();
    sim.outputs().iter().find(|o| o.name == name).unwrap().unit.clone()
}

/// At gimbal lock (pitch = +-pi/2) yaw and roll are not unique, but the three outputs must
/// still be the body's rotation: Rz(yaw) Ry(pitch) Rx(roll) rebuilt from them equals the
/// given orientation (a probe read angles 0.06-0.44 rad off it, the ratios of round-off);
/// near the lock and away from it, the angles themselves.
#[test]
fn tait_bryan_angles_at_gimbal_lock_still_give_the_body_rotation() {
    use nalgebra::UnitQuaternion;
    let half_pi = std::f64::consts::FRAC_PI_2;
    for (yaw, pitch, roll) in
        [(0.4, half_pi, 0.0), (1.0, -half_pi, 0.2), (-2.0, half_pi, 0.7), (0.3, half_pi - 1e-7, 0.5), (0.3, 0.2, -1.0)]
    {
        let given = UnitQuaternion::from_euler_angles(roll, pitch, yaw);
        let (w, v) = (given.w, given.imag());
        let mut text = format!(
            "[model]\nname = \"lock\"\ndimension = 3\ngravity = [0.0, 0.0, 0.0]\n[[rigid_bodies]]\nname = \"b\"\n\
             mass = 1.0\ninertia = [0.1, 0.2, 0.3]\nposition = [0.0, 0.0, 0.0]\neuler_parameters = [{w:e}, {:e}, {:e}, {:e}]\n",
            v[0], v[1], v[2]
        );
        for q in ["yaw", "pitch", "roll"] {
            text += &format!("[[outputs]]\nname = \"{q}\"\nquantity = \"{q}\"\nbody = \"b\"\n");
        }
        let model = Model::parse(&text, "lock.toml").unwrap();
        let mut sim = Simulation::new(&model, &[], settings(1e-3), 0.0).unwrap();
        let [y, p, r] = ["yaw", "pitch", "roll"].map(|n| output(&mut sim, n));
        let rebuilt = UnitQuaternion::from_euler_angles(r, p, y).to_rotation_matrix();
        let off = (rebuilt.matrix() - given.to_rotation_matrix().matrix()).amax();
        eprintln!("given ({yaw}, {pitch}, {roll}): output ({y}, {p}, {r}), rotation off by {off:.1e}");
        assert!(off < 1e-7, "given ({yaw}, {pitch}, {roll}): output ({y}, {p}, {r}), rotation off by {off:e}");
        if (pitch.abs() - half_pi).abs() > 1e-9 {
            assert!((y - yaw).abs() < 1e-7 && (p - pitch).abs() < 1e-9 && (r - roll).abs() < 1e-7, "({y}, {p}, {r})");
        }
    }
}
