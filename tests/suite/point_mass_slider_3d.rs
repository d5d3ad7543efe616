//! A spatial point mass as body2 of a prismatic joint (a bead on body1's axis): two projection
//! rows normal to the axis, no rotation rows (src/mechanics/joints/prismatic.rs), and the
//! joint coordinate `slide` as on every prismatic joint (outputs, `drive`, `prismatic` springs).
//!
//! References:
//! - a bead on a frictionless straight wire under gravity slides with the constant
//!   acceleration g . a (a the unit axis), and the wire pushes it with -m (g - (g . a) a);
//! - a bead driven along s(t) on a wire turning at the constant rate w about z through the
//!   origin, r = R(w t) (P0 + s a): its acceleration along the wire is
//!   s'' - w^2 (a_x q_x + a_y q_y), q = P0 + s a (the centripetal term; the Coriolis term is
//!   normal to the wire), so the drive pushes with m (s'' - w^2 (a_x q_x + a_y q_y) - g . a);
//! - a bead on a spring k along the wire: the period 2 pi sqrt(m/k);
//! - a planar motion of a spatial model equals the planar model's.

use flexfmu::model::Model;

use crate::common;
use common::sim::{output, simulation_with};

const G: f64 = 9.81;

fn unit(a: [f64; 3]) -> [f64; 3] {
    let n = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    a.map(|c| c / n)
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Outputs `x`, `y`, `z` of `body` and `joint_position` (`s`), `joint_velocity` (`v`),
/// `reaction_x`..`z` (`rx`..`rz`) of `joint`.
fn outputs(body: &str, joint: &str) -> String {
    let mut text = String::new();
    for q in ["x", "y", "z"] {
        text += &format!("[[outputs]]\nname = \"{q}\"\nquantity = \"{q}\"\nbody = \"{body}\"\n");
    }
    for (name, q) in [
        ("s", "joint_position"),
        ("v", "joint_velocity"),
        ("rx", "reaction_x"),
        ("ry", "reaction_y"),
        ("rz", "reaction_z"),
    ] {
        text += &format!("[[outputs]]\nname = \"{name}\"\nquantity = \"{q}\"\njoint = \"{joint}\"\n");
    }
    text
}

/// A bead of mass 2 on a wire from ground along the skew axis (2, 3, 6)/7 under gravity -z,
/// started at 0.5 m/s along the wire: s(t) = v0 t + (g . a) t^2 / 2 to 1e-9 m over 1 s, on the
/// line to 1e-12 m, joint_velocity v0 + (g . a) t, and the wire's force on it -m (g - (g . a) a),
/// normal to the axis.
#[test]
fn bead_on_a_skew_wire_slides_with_g_along_it() {
    let (m, v0) = (2.0, 0.5);
    let a = unit([2.0, 3.0, 6.0]);
    let p0 = [0.3, -0.2, 1.0];
    let text = format!(
        "[model]\nname = \"bead\"\ndimension = 3\ngravity = [0.0, 0.0, -{G}]\n[solver]\nstep = 1e-3\n\
         [[point_masses]]\nname = \"bead\"\nmass = {m}\nposition = [{}, {}, {}]\nvelocity = [{}, {}, {}]\n\
         [[joints]]\nname = \"wire\"\ntype = \"prismatic\"\nbody1 = \"ground\"\nbody2 = \"bead\"\naxis = [2.0, 3.0, 6.0]\n{}",
        p0[0],
        p0[1],
        p0[2],
        v0 * a[0],
        v0 * a[1],
        v0 * a[2],
        outputs("bead", "wire")
    );
    let model = Model::parse(&text, "bead.toml").unwrap();
    let mut sim = simulation_with(&model, &[], |_| {});
    let g = [0.0, 0.0, -G];
    let ga = dot(g, a);
    let normal = std::array::from_fn::<f64, 3, _>(|i| -m * (g[i] - ga * a[i]));
    let (mut position, mut off_line, mut speed, mut reaction, mut axial) = (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for k in 1..=1000 {
        let t = 1e-3 * k as f64;
        sim.step_to(t).unwrap();
        let s = v0 * t + ga * t * t / 2.0;
        let r = ["x", "y", "z"].map(|q| output(&mut sim, q));
        let d: [f64; 3] = std::array::from_fn(|i| r[i] - p0[i]);
        let along = dot(d, a);
        position = position.max((along - s).abs()).max((output(&mut sim, "s") - s).abs());
        off_line = off_line.max((0..3).map(|i| (d[i] - along * a[i]).abs()).fold(0.0, f64::max));
        speed = speed.max((output(&mut sim, "v") - v0 - ga * t).abs());
        let f = ["rx", "ry", "rz"].map(|q| output(&mut sim, q));
        reaction = reaction.max((0..3).map(|i| (f[i] - normal[i]).abs()).fold(0.0, f64::max));
        axial = axial.max(dot(f, a).abs());
    }
    println!(
        "bead on a skew wire over 1 s: s off {position:.1e} m, off the line {off_line:.1e} m, v off {speed:.1e} m/s, \
         reaction off {reaction:.1e} N (of {:.2} N), along the axis {axial:.1e} N",
        m * (G * G - ga * ga).sqrt()
    );
    assert!(position < 1e-9, "{position}");
    assert!(off_line < 1e-12, "{off_line}");
    assert!(speed < 1e-9, "{speed}");
    assert!(reaction < 1e-9 * m * G, "{reaction}");
    assert!(axial < 1e-9 * m * G, "{axial}");
}

/// A bead driven along s(t) = 0.2 sin(3 t) on a wire along (1, 2, 2)/3 fixed in an arm that a
/// driven revolute turns at w = 2 rad/s about z, under gravity -z: the bead is at
/// R(w t) (P0 + s a) (its omitted velocity solved from the two drives), and the drive's force is
/// m (s'' - w^2 (a_x q_x + a_y q_y) - g . a), q = P0 + s a. Positions and the slide are held
/// to round-off (measured 6e-15 m); the rate and the drive force are the integrator's, second
/// order in the step (2.0e-7 m/s and 6.9e-7 N of 8 N at h = 1e-3 s, the same to two digits
/// with a rigid body as the bead).
#[test]
fn driven_bead_on_a_turning_arm_follows_the_drive() {
    let (m, w) = (1.5, 2.0);
    let a = unit([1.0, 2.0, 2.0]);
    let p0 = [0.5, 0.2, 0.1];
    let text = format!(
        "[model]\nname = \"arm\"\ndimension = 3\ngravity = [0.0, 0.0, -{G}]\n[solver]\nstep = 1e-3\n\
         [[rigid_bodies]]\nname = \"arm\"\nmass = 1.0\ninertia = [0.1, 0.1, 0.2]\nposition = [0.0, 0.0, 0.0]\n\
         [[point_masses]]\nname = \"bead\"\nmass = {m}\nposition = [{}, {}, {}]\n\
         [[joints]]\nname = \"hub\"\ntype = \"revolute\"\nbody1 = \"ground\"\nbody2 = \"arm\"\npoint = [0.0, 0.0, 0.0]\n\
         axis = [0.0, 0.0, 1.0]\ndrive = \"{w}*t\"\n\
         [[joints]]\nname = \"wire\"\ntype = \"prismatic\"\nbody1 = \"arm\"\nbody2 = \"bead\"\naxis = [1.0, 2.0, 2.0]\n\
         drive = \"0.2*sin(3*t)\"\n\
         [[outputs]]\nname = \"force\"\nquantity = \"drive_force\"\njoint = \"wire\"\n{}",
        p0[0],
        p0[1],
        p0[2],
        outputs("bead", "wire")
    );
    let model = Model::parse(&text, "arm.toml").unwrap();
    let mut sim = simulation_with(&model, &[], |_| {});
    let (mut position, mut slide, mut rate, mut force, mut scale) = (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for k in 0..=1000 {
        let t = 1e-3 * k as f64;
        if k > 0 {
            sim.step_to(t).unwrap();
        }
        let (s, v, acc) = (0.2 * (3.0 * t).sin(), 0.6 * (3.0 * t).cos(), -1.8 * (3.0 * t).sin());
        let q: [f64; 3] = std::array::from_fn(|i| p0[i] + s * a[i]);
        let (sn, cs) = (w * t).sin_cos();
        let exact = [cs * q[0] - sn * q[1], sn * q[0] + cs * q[1], q[2]];
        let r = ["x", "y", "z"].map(|n| output(&mut sim, n));
        position = position.max((0..3).map(|i| (r[i] - exact[i]).abs()).fold(0.0, f64::max));
        slide = slide.max((output(&mut sim, "s") - s).abs());
        rate = rate.max((output(&mut sim, "v") - v).abs());
        let f = m * (acc - w * w * (a[0] * q[0] + a[1] * q[1]) + G * a[2]);
        force = force.max((output(&mut sim, "force") - f).abs());
        scale = scale.max(f.abs());
    }
    println!(
        "driven bead on a turning arm over 1 s: position off {position:.1e} m, s off {slide:.1e} m, v off {rate:.1e} m/s, drive force \
         off {force:.1e} N (of {scale:.2} N)"
    );
    assert!(position < 1e-9, "{position}");
    assert!(slide < 1e-12, "{slide}");
    assert!(rate < 1e-6, "{rate}");
    assert!(force < 1e-6 * scale, "{force} of {scale}");
}

/// A bead on a prismatic spring k along a skew wire from ground, no gravity, started at
/// 0.3 m/s through the spring's free length: the period 2 pi sqrt(m/k) from the zero crossings
/// of the slide over 20 periods, to 1e-4, on the line to 1e-12 m.
#[test]
fn bead_on_a_prismatic_spring_oscillates_at_sqrt_k_over_m() {
    let (m, k, v0): (f64, f64, f64) = (2.0, 50.0, 0.3);
    let a = unit([2.0, -3.0, 6.0]);
    let text = format!(
        "[model]\nname = \"bead_spring\"\ndimension = 3\n[solver]\nstep = 1e-3\n\
         [[point_masses]]\nname = \"bead\"\nmass = {m}\nposition = [0.0, 0.0, 0.0]\nvelocity = [{}, {}, {}]\n\
         [[joints]]\nname = \"wire\"\ntype = \"prismatic\"\nbody1 = \"ground\"\nbody2 = \"bead\"\naxis = [2.0, -3.0, 6.0]\n\
         [[springs]]\nname = \"spring\"\ntype = \"prismatic\"\njoint = \"wire\"\nstiffness = {k}\n{}",
        v0 * a[0],
        v0 * a[1],
        v0 * a[2],
        outputs("bead", "wire")
    );
    let model = Model::parse(&text, "bead_spring.toml").unwrap();
    let mut sim = simulation_with(&model, &[], |_| {});
    let period = 2.0 * std::f64::consts::PI * (m / k).sqrt();
    let (mut crossings, mut last, mut off_line) = (Vec::new(), (0.0, 0.0), 0.0f64);
    let (dt, mut t) = (1e-3, 0.0);
    while crossings.len() < 41 {
        t += dt;
        sim.step_to(t).unwrap();
        let s = output(&mut sim, "s");
        let r = ["x", "y", "z"].map(|n| output(&mut sim, n));
        let along = dot(r, a);
        off_line = off_line.max((0..3).map(|i| (r[i] - along * a[i]).abs()).fold(0.0, f64::max));
        if last.0 > 0.0 && (s > 0.0) != (last.1 > 0.0) {
            crossings.push(last.0 + dt * last.1 / (last.1 - s));
        }
        last = (t, s);
    }
    let measured = (crossings[40] - crossings[0]) / 20.0;
    println!(
        "bead on a prismatic spring: period {measured:.9} s vs 2 pi sqrt(m/k) = {period:.9} s (error {:.1e}); off \
         the line {off_line:.1e} m",
        measured / period - 1.0
    );
    assert!((measured / period - 1.0).abs() < 1e-4);
    assert!(off_line < 1e-12, "{off_line}");
}

/// A bead on a damped prismatic spring along a wire from ground, with a bob hanging from it
/// on a rod (a pendulum on a slider), under gravity in the plane, as a planar model
/// (`dimension` 2) or the same in 3D with z = 0.
fn pendulum_on_a_bead(dimension: usize) -> Model {
    let text = r#"[model]
name = "bead_pendulum"
DIMENSION
gravity = [0.0, -9.81]

[solver]
step = 1e-3
tolerance = 1e-16

[[point_masses]]
name = "bead"
mass = 0.7
position = [0.2, 0.1]
velocity = [0.4, -0.2]

[[point_masses]]
name = "bob"
mass = 1.3
position = [0.5, -0.6]

[[joints]]
name = "wire"
type = "prismatic"
body1 = "ground"
body2 = "bead"
point = [0.2, 0.1]
axis = [2.0, -1.0]

[[joints]]
name = "rod"
type = "distance"
body1 = "bead"
body2 = "bob"

[[springs]]
name = "spring"
type = "prismatic"
joint = "wire"
stiffness = 30.0
damping = 0.2

[[outputs]]
name = "x"
quantity = "x"
body = "bead"

[[outputs]]
name = "y"
quantity = "y"
body = "bead"

[[outputs]]
name = "bob_x"
quantity = "x"
body = "bob"

[[outputs]]
name = "bob_y"
quantity = "y"
body = "bob"

[[outputs]]
name = "s"
quantity = "joint_position"
joint = "wire"

[[outputs]]
name = "v"
quantity = "joint_velocity"
joint = "wire"

[[outputs]]
name = "rx"
quantity = "reaction_x"
joint = "wire"

[[outputs]]
name = "ry"
quantity = "reaction_y"
joint = "wire"

[[outputs]]
name = "tension"
quantity = "link_force"
joint = "rod"

[[outputs]]
name = "energy_total"
quantity = "energy_total"
"#;
    let text = if dimension == 3 {
        let mut out = text.replace("DIMENSION", "dimension = 3");
        for (from, to) in [
            ("[0.0, -9.81]", "[0.0, -9.81, 0.0]"),
            ("[0.2, 0.1]", "[0.2, 0.1, 0.0]"),
            ("[0.4, -0.2]", "[0.4, -0.2, 0.0]"),
            ("[0.5, -0.6]", "[0.5, -0.6, 0.0]"),
            ("[2.0, -1.0]", "[2.0, -1.0, 0.0]"),
        ] {
            out = out.replace(from, to);
        }
        out + "[[outputs]]\nname = \"z\"\nquantity = \"z\"\nbody = \"bead\"\n\
               [[outputs]]\nname = \"bob_z\"\nquantity = \"z\"\nbody = \"bob\"\n"
    } else {
        text.replace("DIMENSION\n", "")
    };
    Model::parse(&text, &format!("bead_pendulum{dimension}d.toml")).unwrap()
}

/// The pendulum on a bead moves the same in 2D and in 3D: every output (positions, the slide
/// and its rate, the wire's reaction, the rod's tension, the energy) to 1e-12 of its largest
/// value over 2 s at the Newton tolerance's floor (as tests/suite/point_mass_3d.rs's planar
/// pair; measured: equal to the last bit), and the 3D masses stay at z = 0 exactly. (With a rigid body 1, a swinging arm, the
/// two differ by the time discretisation, the spatial body's Euler parameters against the
/// planar angle: 1.5e-8 m.)
#[test]
fn pendulum_on_a_bead_moves_the_same_in_2d_and_3d() {
    let (model2, model3) = (pendulum_on_a_bead(2), pendulum_on_a_bead(3));
    let mut sim2 = simulation_with(&model2, &[], |_| {});
    let mut sim3 = simulation_with(&model3, &[], |_| {});
    let names: Vec<String> = sim2.outputs().iter().map(|o| o.name.clone()).collect();
    let (mut worst, mut size) = (vec![0.0f64; names.len()], vec![0.0f64; names.len()]);
    for k in 1..=2000 {
        let t = 1e-3 * k as f64;
        sim2.step_to(t).unwrap();
        sim3.step_to(t).unwrap();
        for ((w, s), name) in worst.iter_mut().zip(&mut size).zip(&names) {
            let (a, b) = (output(&mut sim2, name), output(&mut sim3, name));
            *w = w.max((a - b).abs());
            *s = s.max(a.abs());
        }
        assert_eq!([output(&mut sim3, "z"), output(&mut sim3, "bob_z")], [0.0; 2]);
    }
    let report: Vec<String> =
        names.iter().zip(&worst).zip(&size).map(|((n, w), s)| format!("{n} {w:.1e} ({:.1e})", w / s)).collect();
    println!("pendulum on a bead, 3D vs 2D over 2 s: largest differences (relative): {}", report.join(", "));
    for ((name, w), s) in names.iter().zip(&worst).zip(&size) {
        assert!(*w <= 1e-12 * s, "{name}: {w} of {s}");
    }
    assert!(size[names.iter().position(|n| n == "s").unwrap()] > 0.05, "the bead hardly slides");
}
