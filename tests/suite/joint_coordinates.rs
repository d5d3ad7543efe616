//! The two coordinates of spatial cylindrical and universal joints (`coordinate = "..."` on
//! outputs and springs, `drive = { name = ..., ... }`; src/mechanics/joints/cylindrical.rs,
//! universal.rs). References:
//! - a body on a cylindrical joint about a = (0, 0.6, 0.8) through its centre, slide and turn
//!   both driven: its centre is at s(t) a, the outputs are the drives, and the drives' force and
//!   torque are the inverse dynamics F = m s'' + m g a_z (gravity -g z) and T = (a . J a) theta''
//!   (the turn about a fixed axis: a . (w x J w) = 0 for w along a);
//! - a Cardan shaft (Hooke joint; input shaft along x turning at theta = W t, output shaft bent
//!   by beta in the x-y plane, body 1's pin starting along y in the plane of the shafts and body
//!   2's along z): the output shaft's angle is tan phi = tan theta / cos beta, and the cross's
//!   angles are angle1 = atan(tan beta sin theta) (its rocking in the input yoke) and
//!   angle2 = atan(tan beta cos phi) - beta (the output shaft about its pin relative to the
//!   cross: from A2 = A1 R(y, angle1) R(z, angle2), the same rocking seen from the output side,
//!   whose pin starts normal to the plane of the shafts, so zero there), with their time
//!   derivatives;
//! - both angles of a universal joint driven: body 2's orientation is R(a1, angle1)
//!   R(a2, angle2) A2(0), the definition;
//! - springs on a cylindrical joint's slide (k1) and turn (k2): free oscillations at
//!   sqrt(k1/m) and sqrt(k2/(a . J a)).

use flexfmu::integrators::Method;
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};

use crate::common;
use common::hooke::{self, BETA, OMEGA};
use common::sim::{output, parse_and_assemble};

fn settings(h: f64) -> SolverSettings {
    SolverSettings { method: Method::Ttbif, rho_inf: 0.8, step: h, tolerance: 1e-12, ..Default::default() }
}

fn simulation(text: &str, h: f64) -> Simulation {
    let model = Model::parse(text, "coordinates.toml").unwrap();
    Simulation::new(&model, &[], settings(h), 0.0).unwrap()
}

fn outputs(list: &[(&str, &str, &str, Option<&str>)]) -> String {
    let mut text = String::new();
    for (name, quantity, joint, coordinate) in list {
        text += &format!("[[outputs]]\nname = \"{name}\"\nquantity = \"{quantity}\"\njoint = \"{joint}\"\n");
        if let Some(c) = coordinate {
            text += &format!("coordinate = \"{c}\"\n");
        }
    }
    text
}

const AXIS: [f64; 3] = [0.0, 0.6, 0.8];
const MASS: f64 = 2.0;
const INERTIA: [f64; 3] = [0.1, 0.2, 0.3];

/// a . J a: the body's moment of inertia about the joint axis through its centre.
fn axial_inertia() -> f64 {
    (0..3).map(|k| INERTIA[k] * AXIS[k] * AXIS[k]).sum()
}

/// A body on a cylindrical joint about `AXIS` through its centre, with the joint's `extra`
/// lines (a drive) and the model's `rest` (springs, outputs).
fn sleeve(gravity: f64, body: &str, extra: &str, rest: &str) -> String {
    let [x, y, z] = AXIS;
    format!(
        "[model]\nname = \"cyl\"\ndimension = 3\ngravity = [0.0, 0.0, -{gravity}]\n[solver]\nconstraints = \"ggl\"\n\
         [[rigid_bodies]]\nname = \"sleeve\"\nmass = {MASS}\ninertia = {INERTIA:?}\nposition = [0.0, 0.0, 0.0]\n{body}\
         [[joints]]\nname = \"rod\"\ntype = \"cylindrical\"\nbody2 = \"sleeve\"\npoint = [0.0, 0.0, 0.0]\n\
         axis = [{x}, {y}, {z}]\n{extra}{rest}"
    )
}

#[test]
fn driven_cylindrical_joint_moves_its_body_along_both_drives_with_the_inverse_dynamics_force_and_torque() {
    let g = 9.81;
    // s = 0.3 sin 2t, theta = 4t + 0.5 sin 3t (over 2 s it turns 8 rad: past pi, continuous).
    let s = |t: f64| [0.3 * (2.0 * t).sin(), 0.6 * (2.0 * t).cos(), -1.2 * (2.0 * t).sin()];
    let theta = |t: f64| [4.0 * t + 0.5 * (3.0 * t).sin(), 4.0 + 1.5 * (3.0 * t).cos(), -4.5 * (3.0 * t).sin()];
    let mut rest = outputs(&[
        ("s", "joint_position", "rod", Some("slide")),
        ("theta", "joint_position", "rod", Some("angle")),
        ("s_dot", "joint_velocity", "rod", Some("slide")),
        ("theta_dot", "joint_velocity", "rod", Some("angle")),
        ("force", "drive_force", "rod", Some("slide")),
        ("torque", "drive_force", "rod", Some("angle")),
    ]);
    for c in ["x", "y", "z"] {
        rest += &format!("[[outputs]]\nname = \"{c}\"\nquantity = \"{c}\"\nbody = \"sleeve\"\n");
    }
    for e in ["energy_total", "energy_supplied"] {
        rest += &format!("[[outputs]]\nname = \"{e}\"\nquantity = \"{e}\"\n");
    }
    let drive = "drive = { slide = \"0.3*sin(2*t)\", angle = \"4*t + 0.5*sin(3*t)\" }\n";
    let text = sleeve(g, "", drive, &rest);
    let ia = axial_inertia();
    let (mut worst, mut balance, mut supplied) = ([[0.0f64; 4]; 2], [0.0f64; 2], 0.0f64);
    for (i, h) in [2e-3, 1e-3].into_iter().enumerate() {
        let mut sim = simulation(&text, h);
        let e0 = output(&mut sim, "energy_total");
        if i == 0 {
            let units: Vec<_> = sim.outputs().iter().take(6).map(|o| o.unit.clone()).collect();
            assert_eq!(units, ["m", "rad", "m/s", "rad/s", "N", "N.m"]);
        }
        for k in 0..=(2.0 / h).round() as usize {
            let t = k as f64 * h;
            if k > 0 {
                sim.step_to(t).unwrap();
            }
            let (s, theta) = (s(t), theta(t));
            let mut position = (output(&mut sim, "s") - s[0]).abs().max((output(&mut sim, "theta") - theta[0]).abs());
            for (c, a) in ["x", "y", "z"].iter().zip(AXIS) {
                position = position.max((output(&mut sim, c) - s[0] * a).abs());
            }
            let rate = (output(&mut sim, "s_dot") - s[1]).abs().max((output(&mut sim, "theta_dot") - theta[1]).abs());
            let force = (output(&mut sim, "force") - (MASS * s[2] + MASS * g * AXIS[2])).abs();
            let torque = (output(&mut sim, "torque") - ia * theta[2]).abs();
            for (w, e) in worst[i].iter_mut().zip([position, rate, force, torque]) {
                *w = w.max(e);
            }
            // Both drives' work (each row's) is the change of the energy.
            let work = output(&mut sim, "energy_supplied");
            balance[i] = balance[i].max((output(&mut sim, "energy_total") - e0 - work).abs());
            supplied = supplied.max(work.abs());
        }
    }
    let [coarse, fine] = worst;
    eprintln!(
        "driven cylindrical joint (h = 2e-3, 1e-3): positions {:.3e}, {:.3e}; rates {:.3e}, {:.3e}; force {:.3e}, \
         {:.3e} (scale {:.3}); torque {:.3e}, {:.3e} (scale {:.3})",
        coarse[0],
        fine[0],
        coarse[1],
        fine[1],
        coarse[2],
        fine[2],
        MASS * (1.2 + g * AXIS[2]),
        coarse[3],
        fine[3],
        ia * 4.5
    );
    eprintln!(
        "energy_total - e0 - energy_supplied: {:.3e}, {:.3e} (largest work {supplied:.3})",
        balance[0], balance[1]
    );
    assert!(balance[1] < 1e-4 * supplied && balance[1] < balance[0] / 3.0, "{balance:?}");
    assert!(fine[0] < 1e-9, "slide, angle or centre off the drives by {:.3e}", fine[0]);
    // The rates read the velocities, which the GGL step satisfies to O(h^2).
    assert!(fine[1] < 2e-6 && fine[1] < coarse[1] / 3.0, "rates off the drives': {:.3e}, {:.3e}", coarse[1], fine[1]);
    assert!(fine[2] < 1e-4 * MASS * (1.2 + g * AXIS[2]), "drive force off m s'' + m g a_z by {:.3e}", fine[2]);
    assert!(fine[3] < 1e-4 * ia * 4.5, "drive torque off (a.J a) theta'' by {:.3e}", fine[3]);
}

/// The Hooke joint of tests/suite/spatial_joint_kinds.rs (`common::hooke`), with the cross's
/// angles as outputs.
fn cardan_model() -> String {
    hooke::mechanism("cardan")
        + &outputs(&[
            ("phi", "joint_position", "output", None),
            ("angle1", "joint_position", "cross", Some("angle1")),
            ("angle2", "joint_position", "cross", Some("angle2")),
            ("rate1", "joint_velocity", "cross", Some("angle1")),
            ("rate2", "joint_velocity", "cross", Some("angle2")),
        ])
}

/// The cross's angles of a Hooke joint bent by `beta` at the input angle `theta` turning at
/// `w`, and their rates (see the module's comment).
fn hooke_cross(beta: f64, theta: f64, w: f64) -> [f64; 4] {
    let tb = beta.tan();
    let phi = theta.sin().atan2(beta.cos() * theta.cos());
    let phi_rate = w * beta.cos() / (1.0 - (beta.sin() * theta.cos()).powi(2));
    let (angle1, angle2) = ((tb * theta.sin()).atan(), (tb * phi.cos()).atan() - beta);
    let rate1 = tb * theta.cos() * w / (1.0 + (tb * theta.sin()).powi(2));
    let rate2 = -tb * phi.sin() * phi_rate / (1.0 + (tb * phi.cos()).powi(2));
    [angle1, angle2, rate1, rate2]
}

#[test]
fn cardan_shaft_cross_angles_follow_hookes_kinematics_over_a_full_turn() {
    let h = 1e-3;
    let mut sim = simulation(&cardan_model(), h);
    let units: Vec<_> = sim.outputs()[1..].iter().map(|o| o.unit.clone()).collect();
    assert_eq!(units, ["rad", "rad", "rad/s", "rad/s"]);
    let turn = std::f64::consts::TAU / OMEGA;
    let (mut angles, mut rates, mut range) = (0.0f64, 0.0f64, [[0.0f64; 2]; 2]);
    let steps = (turn / h).ceil() as usize;
    for k in 0..=steps {
        let t = k as f64 * h;
        if k > 0 {
            sim.step_to(t).unwrap();
        }
        let exact = hooke_cross(BETA, OMEGA * t, OMEGA);
        for (j, name) in ["angle1", "angle2"].iter().enumerate() {
            let a = output(&mut sim, name);
            angles = angles.max((a - exact[j]).abs());
            range[j] = [range[j][0].min(a), range[j][1].max(a)];
        }
        for (j, name) in ["rate1", "rate2"].iter().enumerate() {
            rates = rates.max((output(&mut sim, name) - exact[2 + j]).abs());
        }
    }
    eprintln!(
        "Cardan shaft, beta = {BETA}, one turn of the input: cross angles off the closed form by {angles:.3e}, their \
         rates by {rates:.3e} (angle1 {:.5} .. {:.5}, angle2 {:.5} .. {:.5})",
        range[0][0], range[0][1], range[1][0], range[1][1]
    );
    assert!(angles < 1e-9, "cross angles off Hooke's kinematics by {angles:.3e}");
    assert!(rates < 1e-6 * OMEGA, "their rates off the derivatives by {rates:.3e}");
    // angle1 swings over +-beta, angle2 over [-2 beta, 0] (the output shaft's rocking).
    assert!((range[0][0] + BETA).abs() < 1e-5 && (range[0][1] - BETA).abs() < 1e-5, "{range:?}");
    assert!((range[1][0] + 2.0 * BETA).abs() < 1e-5 && range[1][1].abs() < 1e-9, "{range:?}");
}

/// Quaternion product p q (Euler parameters e0, e1, e2, e3).
fn compose(p: [f64; 4], q: [f64; 4]) -> [f64; 4] {
    [
        p[0] * q[0] - p[1] * q[1] - p[2] * q[2] - p[3] * q[3],
        p[0] * q[1] + p[1] * q[0] + p[2] * q[3] - p[3] * q[2],
        p[0] * q[2] - p[1] * q[3] + p[2] * q[0] + p[3] * q[1],
        p[0] * q[3] + p[1] * q[2] - p[2] * q[1] + p[3] * q[0],
    ]
}

fn turn(axis: [f64; 3], angle: f64) -> [f64; 4] {
    let (s, c) = (0.5 * angle).sin_cos();
    [c, s * axis[0], s * axis[1], s * axis[2]]
}

#[test]
fn driven_universal_joint_turns_body2_by_its_cardan_angles() {
    // Pins a1 (ground) and a2 (body) perpendicular and skew to the axes; the body starts
    // turned by 0.4 about (1, 1, 1)/sqrt 3.
    let n = |v: [f64; 3]| {
        let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        v.map(|x| x / l)
    };
    let (a1, a2) = (n([1.0, 2.0, 2.0]), n([2.0, 1.0, -2.0]));
    let start = turn(n([1.0, 1.0, 1.0]), 0.4);
    let mut text = format!(
        "[model]\nname = \"u\"\ndimension = 3\n[[rigid_bodies]]\nname = \"b\"\nmass = 1.0\ninertia = [0.1, 0.2, 0.3]\n\
         position = [0.0, 0.0, 0.0]\naxis = [1.0, 1.0, 1.0]\nangle = 0.4\n\
         [[joints]]\nname = \"cross\"\ntype = \"universal\"\nbody2 = \"b\"\npoint = [0.3, -0.2, 0.1]\n\
         axis = {a1:?}\naxis2 = {a2:?}\ndrive = {{ angle1 = \"0.7*sin(2*t)\", angle2 = \"1.5*t\" }}\n"
    );
    text += &outputs(&[
        ("angle1", "joint_position", "cross", Some("angle1")),
        ("angle2", "joint_position", "cross", Some("angle2")),
    ]);
    for e in ["e0", "e1", "e2", "e3"] {
        text += &format!("[[outputs]]\nname = \"{e}\"\nquantity = \"{e}\"\nbody = \"b\"\n");
    }
    let mut sim = simulation(&text, 1e-3);
    let (mut coordinates, mut orientation) = (0.0f64, 0.0f64);
    for k in 0..=3000 {
        let t = k as f64 * 1e-3;
        if k > 0 {
            sim.step_to(t).unwrap();
        }
        let (psi1, psi2) = (0.7 * (2.0 * t).sin(), 1.5 * t);
        coordinates =
            coordinates.max((output(&mut sim, "angle1") - psi1).abs()).max((output(&mut sim, "angle2") - psi2).abs());
        let expected = compose(turn(a1, psi1), compose(turn(a2, psi2), start));
        let e = ["e0", "e1", "e2", "e3"].map(|e| output(&mut sim, e));
        let dot: f64 = e.iter().zip(expected).map(|(a, b)| a * b).sum();
        orientation = orientation.max(1.0 - dot.abs());
    }
    eprintln!(
        "driven universal joint over 3 s (angle2 to 4.5 rad): coordinates off the drives by {coordinates:.3e}, \
         orientation off R(a1, angle1) R(a2, angle2) A(0) by 1 - |p.p*| = {orientation:.3e}"
    );
    assert!(coordinates < 1e-9, "{coordinates:.3e}");
    assert!(orientation < 1e-12, "{orientation:.3e}");
}

/// The times of the upward zero crossings of a sampled signal (linear interpolation), after
/// its start.
fn upward_crossings(samples: &[(f64, f64)]) -> Vec<f64> {
    samples
        .windows(2)
        .filter(|w| w[0].1 < 0.0 && w[1].1 >= 0.0)
        .map(|w| w[0].0 + (w[1].0 - w[0].0) * (-w[0].1) / (w[1].1 - w[0].1))
        .collect()
}

#[test]
fn springs_on_a_cylindrical_joints_slide_and_turn_oscillate_at_their_natural_frequencies() {
    let (k1, k2, v0, w0) = (50.0, 2.64, 0.5, 3.0);
    let [x, y, z] = AXIS;
    let body = format!(
        "velocity = [{}, {}, {}]\nangular_velocity = [{}, {}, {}]\n",
        v0 * x,
        v0 * y,
        v0 * z,
        w0 * x,
        w0 * y,
        w0 * z
    );
    let rest = format!(
        "[[springs]]\nname = \"axial\"\ntype = \"prismatic\"\njoint = \"rod\"\ncoordinate = \"slide\"\nstiffness = {k1}\n\
         [[springs]]\nname = \"twist\"\ntype = \"torsional\"\njoint = \"rod\"\ncoordinate = \"angle\"\nstiffness = {k2}\n{}",
        outputs(&[("s", "joint_position", "rod", Some("slide")), ("theta", "joint_position", "rod", Some("angle"))])
    );
    let h = 1e-3;
    let mut sim = simulation(&sleeve(0.0, &body, "", &rest), h);
    let (mut s, mut theta) = (Vec::new(), Vec::new());
    for k in 0..=12_000 {
        let t = k as f64 * h;
        if k > 0 {
            sim.step_to(t).unwrap();
        }
        s.push((t, output(&mut sim, "s")));
        theta.push((t, output(&mut sim, "theta")));
    }
    let frequency = |samples: &[(f64, f64)]| {
        let c = upward_crossings(samples);
        std::f64::consts::TAU * (c.len() - 1) as f64 / (c[c.len() - 1] - c[0])
    };
    let (w1, w2) = ((k1 / MASS).sqrt(), (k2 / axial_inertia()).sqrt());
    let (f1, f2) = (frequency(&s), frequency(&theta));
    let amplitude = |samples: &[(f64, f64)]| samples.iter().fold(0.0f64, |a, p| a.max(p.1.abs()));
    let (e1, e2) = ((f1 / w1 - 1.0).abs(), (f2 / w2 - 1.0).abs());
    eprintln!(
        "cylindrical joint springs: slide {f1:.7} rad/s vs sqrt(k/m) = {w1:.7} (rel. {e1:.2e}), amplitude {:.6} vs \
         v0/w = {:.6}; turn {f2:.7} vs sqrt(k/I) = {w2:.7} (rel. {e2:.2e}), amplitude {:.6} vs w0/w = {:.6}",
        amplitude(&s),
        v0 / w1,
        amplitude(&theta),
        w0 / w2
    );
    assert!(e1 < 1e-4 && e2 < 1e-4, "frequencies off: {e1:.2e}, {e2:.2e}");
    assert!((amplitude(&s) / (v0 / w1) - 1.0).abs() < 1e-4 && (amplitude(&theta) / (w0 / w2) - 1.0).abs() < 1e-4);
}

/// A model with a cylindrical (driven slide), a universal and a revolute joint, springs on
/// and outputs of their coordinates; each line that a case changes ends in a unique comment.
const BASE: &str = r#"[model]
name = "e"
dimension = 3
[[rigid_bodies]]
name = "a"
mass = 1.0
inertia = [0.1, 0.1, 0.1]
position = [0.0, 0.0, 0.0]
[[rigid_bodies]]
name = "b"
mass = 1.0
inertia = [0.1, 0.1, 0.1]
position = [1.0, 0.0, 0.0]
[[rigid_bodies]]
name = "c"
mass = 1.0
inertia = [0.1, 0.1, 0.1]
position = [2.0, 0.0, 0.0]
[[joints]]
name = "rod"
type = "cylindrical"
body2 = "a"
point = [0.0, 0.0, 0.0]
axis = [1.0, 0.0, 0.0]
drive = { slide = "0.1*t" } # rod drive
[[joints]]
name = "cross"
type = "universal"
body1 = "a"
body2 = "b"
point = [0.5, 0.0, 0.0]
axis = [0.0, 1.0, 0.0]
axis2 = [0.0, 0.0, 1.0]
[[joints]]
name = "hinge"
type = "revolute"
body1 = "b"
body2 = "c"
point = [1.5, 0.0, 0.0]
axis = [0.0, 0.0, 1.0] # hinge
[[springs]]
name = "twist"
type = "torsional" # twist type
joint = "cross" # twist
coordinate = "angle2" # twist coordinate
stiffness = 1.0
[[springs]]
name = "link"
body1 = "a"
body2 = "c" # link
stiffness = 1.0
[[outputs]]
name = "s"
quantity = "joint_position"
joint = "rod" # s
coordinate = "slide" # s coordinate
[[outputs]]
name = "f"
quantity = "drive_force"
joint = "rod"
coordinate = "slide" # f coordinate
[[outputs]]
name = "h"
quantity = "joint_position"
joint = "hinge" # h
[[outputs]]
name = "x"
quantity = "x"
body = "c" # x
"#;

#[test]
fn a_missing_or_wrong_coordinate_is_a_located_error_listing_the_choices() {
    parse_and_assemble(BASE, "e.toml").unwrap();
    // (text replaced, its replacement, the line the error points at, the message)
    let cases = [
        (
            "coordinate = \"slide\" # s coordinate\n",
            "",
            "joint = \"rod\" # s",
            "cylindrical joint 'rod' has two coordinates: give `coordinate = \"slide\"` or `coordinate = \"angle\"`",
        ),
        (
            "coordinate = \"slide\" # s coordinate",
            "coordinate = \"twist\"",
            "coordinate = \"twist\"",
            "cylindrical joint 'rod' has no coordinate 'twist': its coordinates are \"slide\" and \"angle\"",
        ),
        (
            "joint = \"hinge\" # h",
            "joint = \"hinge\"\ncoordinate = \"angle\" # h",
            "coordinate = \"angle\" # h",
            "`coordinate` picks one of the coordinates of cylindrical and universal joints; revolute joint 'hinge' \
             has one (leave `coordinate` out)",
        ),
        (
            "coordinate = \"angle2\" # twist coordinate\n",
            "",
            "joint = \"cross\" # twist",
            "universal joint 'cross' has two coordinates: give `coordinate = \"angle1\"` or `coordinate = \"angle2\"`",
        ),
        (
            "type = \"torsional\" # twist type",
            "type = \"prismatic\" # twist type",
            "joint = \"cross\" # twist",
            "a prismatic spring needs a prismatic joint, or a cylindrical joint's slide",
        ),
        (
            "joint = \"cross\" # twist\ncoordinate = \"angle2\" # twist coordinate",
            "joint = \"rod\"\ncoordinate = \"slide\" # twist coordinate",
            "coordinate = \"slide\" # twist coordinate",
            "a torsional spring cannot act on 'slide' of joint 'rod': use a prismatic spring",
        ),
        (
            "body2 = \"c\" # link",
            "body2 = \"c\"\ncoordinate = \"angle1\" # link",
            "coordinate = \"angle1\" # link",
            "`coordinate` names the coordinate of a prismatic or torsional spring's joint",
        ),
        (
            "drive = { slide = \"0.1*t\" } # rod drive",
            "drive = \"0.1*t\" # rod drive",
            "drive = \"0.1*t\" # rod drive",
            "a cylindrical joint has two coordinates: drive them by name, `drive = { slide = ..., angle = ... }`",
        ),
        (
            "drive = { slide = \"0.1*t\" } # rod drive",
            "drive = { twist = \"0.1*t\" } # rod drive",
            "drive = { twist",
            "a cylindrical joint has no coordinate 'twist': its coordinates are \"slide\" and \"angle\"",
        ),
        (
            "axis = [0.0, 0.0, 1.0] # hinge",
            "axis = [0.0, 0.0, 1.0]\ndrive = { angle = \"t\" } # hinge",
            "drive = { angle",
            "`drive = { ... }` drives the coordinates of cylindrical and universal joints by name; a revolute joint \
             has one: `drive = expression`",
        ),
        (
            "coordinate = \"slide\" # f coordinate",
            "coordinate = \"angle\" # f coordinate",
            "coordinate = \"angle\" # f coordinate",
            "coordinate 'angle' of joint 'rod' is not driven",
        ),
        (
            "body = \"c\" # x",
            "body = \"c\"\ncoordinate = \"slide\" # x",
            "coordinate = \"slide\" # x",
            "`coordinate` applies to joint_position, joint_velocity and drive_force, not 'x'",
        ),
    ];
    for (from, to, at, message) in cases {
        let bad = BASE.replacen(from, to, 1);
        assert_ne!(bad, BASE, "'{from}' is not in the model");
        let err = parse_and_assemble(&bad, "e.toml").expect_err(to);
        let line = bad[..bad.find(at).unwrap_or_else(|| panic!("'{at}' not in the model"))].lines().count() + 1;
        println!("{err}");
        assert!(err.message.contains(message), "{to}: {err}\nexpected: {message}");
        assert_eq!((err.file.as_str(), err.line), ("e.toml", line), "{to}: {err}");
    }
}

/// Through the FMU (the `fmi` crate, FMI 2.0): the driven cylindrical joint's outputs declare
/// their units by coordinate (m, rad, their rates, N and N m) and follow the drives at every
/// communication point.
#[test]
fn driven_cylindrical_joint_through_the_fmu() {
    use fmi::fmi2::instance::CoSimulation;
    let rest = outputs(&[
        ("s", "joint_position", "rod", Some("slide")),
        ("theta", "joint_position", "rod", Some("angle")),
        ("s_dot", "joint_velocity", "rod", Some("slide")),
        ("theta_dot", "joint_velocity", "rod", Some("angle")),
        ("force", "drive_force", "rod", Some("slide")),
        ("torque", "drive_force", "rod", Some("angle")),
    ]);
    let drive = "drive = { slide = \"0.3*sin(2*t)\", angle = \"4*t\" }\n";
    let model = Model::parse(&sleeve(9.81, "", drive, &rest), "cyl.toml").unwrap();
    let fmu = common::fmu::Fmu::build(&model);
    let names = ["s", "theta", "s_dot", "theta_dot", "force", "torque"];
    let units: Vec<_> =
        names.iter().map(|n| fmu.vars.list.iter().find(|v| v.name == *n).unwrap().unit.clone()).collect();
    assert_eq!(units, ["m", "rad", "m/s", "rad/s", "N", "N.m"]);
    let vrs: Vec<_> = names.iter().map(|n| fmu.vr(n)).collect();
    let mut inst = fmu.start("cyl", None, |_| {});
    let (h, mut worst) = (0.01, 0.0f64);
    for k in 1..=100 {
        let t0 = (k - 1) as f64 * h;
        inst.do_step(t0, h, true).unwrap();
        let t = k as f64 * h;
        let v = common::fmu::read(&mut inst, &vrs);
        worst = worst.max((v[0] - 0.3 * (2.0 * t).sin()).abs()).max((v[1] - 4.0 * t).abs());
        assert!((v[4] - (MASS * (-1.2 * (2.0 * t).sin()) + MASS * 9.81 * AXIS[2])).abs() < 1e-9, "t = {t}: {v:?}");
        assert!(v[5].abs() < 1e-9, "t = {t}: a turn at constant speed needs no torque: {v:?}");
    }
    eprintln!("driven cylindrical joint through the FMU: slide and angle off the drives by {worst:.3e}");
    assert!(worst < 1e-9, "{worst:.3e}");
}
