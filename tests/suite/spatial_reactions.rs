//! Joint reaction moments of spatial models (`reaction_torque_x`, `_y`, `_z`): the moment of
//! body1 on body2 about the joint point carried by body2 (src/mechanics/reactions.rs), against
//! statics and Euler's laws:
//! - a rigid body clamped to ground by a fixed joint under gravity, a force and a torque: the
//!   clamp wrench is minus the loads' (the static moment sum of r x F), exactly;
//! - a body on a horizontal revolute joint, turned uniformly by a drive and swinging freely:
//!   about the fixed joint point J, M_J = I_J alpha + omega x I_J omega - d x m g (Euler's
//!   second law about a fixed point, d = c - J), with no moment along the axis but the drive's;
//! - a heavy top on a spherical joint: exactly no moment;
//! - every joint type, a body moving under gravity and loads: the rate of its angular momentum
//!   about the origin (the `angular_momentum_*` output, differentiated in time) equals the
//!   moment of everything on it, the joint's wrench included; the moment is normal to the
//!   axes a joint leaves free;
//! - a spatial beam clamped at its root: the clamp moment of the static equilibrium is the
//!   moment sum of the tip load and the weights at their deflected positions (about P L), and
//!   a planar cantilever's `reaction_torque` equals the spatial one's.

use flexfmu::integrators::{ConstraintTreatment, Method};
use flexfmu::mechanics::euler_parameters::{Mat3, cross, from_axis_angle, rotation};
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};

use crate::common;
use common::sim::output;

const G: f64 = 9.81;
const MASS: f64 = 2.0;
const INERTIA: Mat3 = [[0.05, 0.01, -0.005], [0.01, 0.08, 0.002], [-0.005, 0.002, 0.06]];
/// Centre of mass and joint point of the test body.
const C0: [f64; 3] = [0.5, 0.1, -0.2];
const J: [f64; 3] = [0.1, -0.2, 0.05];

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn add(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn scale(a: [f64; 3], s: f64) -> [f64; 3] {
    a.map(|x| x * s)
}

fn norm(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

fn mat_vec(a: &Mat3, v: [f64; 3]) -> [f64; 3] {
    std::array::from_fn(|i| dot(a[i], v))
}

fn unit(a: [f64; 3]) -> [f64; 3] {
    scale(a, 1.0 / norm(a))
}

/// The test body's inertia about the point at -d from its centre of mass, global axes, with
/// rotation `a`: A J' A^T + m (|d|^2 I - d d^T) (Steiner).
fn inertia_about(a: &Mat3, d: [f64; 3]) -> Mat3 {
    std::array::from_fn(|i| {
        std::array::from_fn(|j| {
            let rotated: f64 = (0..3).map(|k| (0..3).map(|l| a[i][k] * INERTIA[k][l] * a[j][l]).sum::<f64>()).sum();
            rotated + MASS * (f64::from(u8::from(i == j)) * dot(d, d) - d[i] * d[j])
        })
    })
}

fn vec3(v: [f64; 3]) -> String {
    format!("[{:e}, {:e}, {:e}]", v[0], v[1], v[2])
}

/// The test body `b` under gravity -z, `extra` (more keys of the body, loads), on `joint` (a
/// `[[joints]]` table named `j`), with the outputs of its pose, velocity and the joint's
/// reaction.
fn body_on(joint: &str, extra: &str) -> String {
    let mut text = format!(
        "[model]\nname = \"body\"\ndimension = 3\ngravity = [0.0, 0.0, -{G}]\n\
         [[rigid_bodies]]\nname = \"b\"\nmass = {MASS}\ninertia = [{}, {}, {}]\nposition = {}\n\
         axis = [1.0, 0.0, 1.0]\nangle = 0.4\n{extra}{joint}",
        vec3(INERTIA[0]),
        vec3(INERTIA[1]),
        vec3(INERTIA[2]),
        vec3(C0)
    );
    for q in ["x", "y", "z", "vx", "vy", "vz", "e0", "e1", "e2", "e3", "wx", "wy", "wz"] {
        text += &format!("[[outputs]]\nname = \"{q}\"\nquantity = \"{q}\"\nbody = \"b\"\n");
    }
    for q in ["reaction_x", "reaction_y", "reaction_z", "reaction_torque_x", "reaction_torque_y", "reaction_torque_z"] {
        text += &format!("[[outputs]]\nname = \"{q}\"\nquantity = \"{q}\"\njoint = \"j\"\n");
    }
    text
}

fn simulation(text: &str, step: f64) -> Simulation {
    let model = Model::parse(text, "body.toml").unwrap_or_else(|e| panic!("{e}"));
    let settings = SolverSettings {
        method: Method::Ttbif,
        rho_inf: 0.9,
        step,
        tolerance: 1e-12,
        constraints: ConstraintTreatment::Ggl,
        ..SolverSettings::default()
    };
    Simulation::new(&model, &model.default_parameters(), settings, 0.0).unwrap_or_else(|e| panic!("{e}"))
}

fn triple(sim: &mut Simulation, names: [&str; 3]) -> [f64; 3] {
    names.map(|n| output(sim, n))
}

fn force(sim: &mut Simulation) -> [f64; 3] {
    triple(sim, ["reaction_x", "reaction_y", "reaction_z"])
}

fn moment(sim: &mut Simulation) -> [f64; 3] {
    triple(sim, ["reaction_torque_x", "reaction_torque_y", "reaction_torque_z"])
}

/// Centre of mass, rotation and angular velocity of the test body.
fn pose(sim: &mut Simulation) -> ([f64; 3], Mat3, [f64; 3]) {
    let c = triple(sim, ["x", "y", "z"]);
    let p = ["e0", "e1", "e2", "e3"].map(|n| output(sim, n));
    (c, rotation(&p), triple(sim, ["wx", "wy", "wz"]))
}

#[test]
fn fixed_joint_clamp_moment_is_the_static_moment_of_the_loads() {
    // Clamped at J, away from the centre of mass; gravity, a force of 7 N at P along d and a
    // torque of 2.5 N m about e. At rest for good: the clamp's wrench on the body is minus the
    // loads', F = -(m g + f d), M_J = -((c - J) x m g + (P - J) x f d + T e).
    let (p, d, e) = ([1.2, 0.4, 0.3], unit([0.3, -1.0, 0.5]), unit([1.0, 1.0, 0.0]));
    let loads = format!(
        "[[loads]]\ntype = \"force\"\nbody = \"b\"\npoint = {}\ndirection = {}\nvalue = 7.0\n\
         [[loads]]\ntype = \"torque\"\nbody = \"b\"\ndirection = {}\nvalue = 2.5\n",
        vec3(p),
        vec3(d),
        vec3(e)
    );
    let joint = format!("[[joints]]\nname = \"j\"\ntype = \"fixed\"\nbody2 = \"b\"\npoint = {}\n", vec3(J));
    let mut sim = simulation(&body_on(&joint, &loads), 1e-3);
    let weight = [0.0, 0.0, -MASS * G];
    let f_expected = scale(add(weight, scale(d, 7.0)), -1.0);
    let m_loads = add(add(cross(sub(C0, J), weight), cross(sub(p, J), scale(d, 7.0))), scale(e, 2.5));
    let m_expected = scale(m_loads, -1.0);
    let mut worst: f64 = 0.0;
    for t in [0.0, 0.5] {
        sim.step_to(t).unwrap();
        let (f, m) = (force(&mut sim), moment(&mut sim));
        let err = norm(sub(f, f_expected)).max(norm(sub(m, m_expected)));
        println!(
            "fixed clamp, t = {t}: F {f:.12?} (statics {f_expected:.12?}), M_J {m:.12?} (statics {m_expected:.12?})"
        );
        worst = worst.max(err);
    }
    println!("fixed clamp: largest |wrench - statics| {worst:.2e} (|M_J| = {:.3} N m)", norm(m_expected));
    assert!(worst < 1e-10 * norm(m_expected), "{worst:e}");
    let moved = norm(sub(triple(&mut sim, ["x", "y", "z"]), C0));
    assert!(moved < 1e-12, "the clamped body moved by {moved:e} m");
}

/// The revolute joint of the test body about the horizontal axis U at J, driven at W rad/s or
/// free, started turning at W about U.
const U: [f64; 3] = [0.6, 0.8, 0.0];
const W: f64 = 5.0;

fn hinge(driven: bool) -> String {
    let drive = if driven { format!("drive = \"{W}*t\"\n") } else { String::new() };
    let joint = format!(
        "[[joints]]\nname = \"j\"\ntype = \"revolute\"\nbody2 = \"b\"\npoint = {}\naxis = {}\n{drive}",
        vec3(J),
        vec3(U)
    );
    let spin = format!("angular_velocity = {}\n", vec3(scale(U, W)));
    let mut text = body_on(&joint, &spin);
    if driven {
        text += "[[outputs]]\nname = \"drive_force\"\nquantity = \"drive_force\"\njoint = \"j\"\n";
    }
    text
}

#[test]
fn revolute_moments_meet_euler_about_the_fixed_joint_point() {
    // About the fixed point J: L_J = I_J omega, dL_J/dt = I_J alpha + omega x I_J omega =
    // M_J + d x m g (the joint force acts at J). Turned uniformly by the drive, alpha = 0 and
    // the moment along U is the drive's torque, -U.(d x m g); swinging freely, U.M_J = 0 and
    // U.(I_J U) alpha = U.(d x m g). The body's products of inertia about U make the bending
    // moment normal to U dynamic (omega x I_J omega), beside gravity's. Evaluated from the
    // state at each time, so exact but for round-off; the joint force is m a_c - m g.
    let weight = [0.0, 0.0, -MASS * G];
    for driven in [true, false] {
        let mut sim = simulation(&hinge(driven), 1e-3);
        let mut worst: f64 = 0.0;
        let mut largest: f64 = 0.0;
        let mut axial: f64 = 0.0;
        for t in [0.0, 0.13, 0.4, 0.77] {
            sim.step_to(t).unwrap();
            let (c, a, w) = pose(&mut sim);
            let d = sub(c, J);
            let i_j = inertia_about(&a, d);
            let gravity = cross(d, weight);
            let alpha = if driven {
                assert!(norm(sub(w, scale(U, W))) < 1e-9, "driven omega {w:?}");
                [0.0; 3]
            } else {
                scale(U, dot(U, gravity) / dot(U, mat_vec(&i_j, U)))
            };
            let m_expected = sub(add(mat_vec(&i_j, alpha), cross(w, mat_vec(&i_j, w))), gravity);
            let accel = add(cross(alpha, d), cross(w, cross(w, d)));
            let f_expected = sub(scale(accel, MASS), weight);
            let (f, m) = (force(&mut sim), moment(&mut sim));
            let err = norm(sub(m, m_expected)).max(norm(sub(f, f_expected)));
            let along = dot(m, U);
            println!(
                "revolute {}, t = {t}: M_J {m:.10?}, Euler {m_expected:.10?}; along the axis {along:.3e} N m, |F - m a + m g| {:.1e}",
                if driven { "driven" } else { "free" },
                norm(sub(f, f_expected))
            );
            if driven {
                let drive = output(&mut sim, "drive_force");
                assert!((along - drive).abs() < 1e-10 * drive.abs().max(1.0), "along {along} vs drive {drive}");
                assert!((drive + dot(U, gravity)).abs() < 1e-9 * drive.abs().max(1.0), "drive {drive}");
            } else {
                axial = axial.max(along.abs());
            }
            worst = worst.max(err);
            largest = largest.max(norm(m_expected));
        }
        println!(
            "revolute {}: largest |wrench - Euler| {worst:.2e} (|M_J| up to {largest:.3} N m); largest |U.M_J| (free) {axial:.1e}",
            if driven { "driven" } else { "free" }
        );
        assert!(worst < 1e-9 * largest, "{worst:e}");
        assert!(axial < 1e-12 * largest, "free hinge: moment along the axis {axial:e}");
    }
}

#[test]
fn spherical_joint_transmits_no_moment() {
    // The heavy top of models/heavy_top.toml with the moment outputs: exactly zero, while the
    // tip carries the weight and more.
    let text = std::fs::read_to_string(common::sim::model_path("heavy_top")).unwrap()
        + "[[outputs]]\nname = \"mx\"\nquantity = \"reaction_torque_x\"\njoint = \"tip\"\n\
           [[outputs]]\nname = \"my\"\nquantity = \"reaction_torque_y\"\njoint = \"tip\"\n\
           [[outputs]]\nname = \"mz\"\nquantity = \"reaction_torque_z\"\njoint = \"tip\"\n";
    let model = Model::parse(&text, "heavy_top.toml").unwrap();
    let mut sim = common::sim::simulation_with(&model, &[], |_| {});
    for t in [0.0, 0.3, 0.6] {
        sim.step_to(t).unwrap();
        let m = ["mx", "my", "mz"].map(|n| output(&mut sim, n));
        let fz = output(&mut sim, "reaction_z");
        println!("heavy top t = {t}: reaction_z {fz:.6} N, moment {m:?}");
        assert!(m == [0.0; 3] && fz > 4.0, "{m:?}, {fz}");
    }
}

/// d/dt of the samples f(t - 2h), f(t - h), f(t + h), f(t + 2h) (fourth order).
fn rate(samples: [[f64; 3]; 4], h: f64) -> [f64; 3] {
    std::array::from_fn(|k| (samples[0][k] - 8.0 * samples[1][k] + 8.0 * samples[2][k] - samples[3][k]) / (12.0 * h))
}

#[test]
fn every_joint_type_balances_the_angular_momentum_of_its_body() {
    // The test body on each joint type at J (axis u, pins u and v for the universal joint),
    // under gravity, a force f(t) along D at the body point P and a torque tau(t) about E,
    // started turning as the joint allows. Euler's second law about the origin:
    //   dL/dt = c x m g + P(t) x f D + tau E + J(t) x F + M_J
    // with L the `angular_momentum_*` output, J(t) the joint point carried by the body and
    // (F, M_J) the joint's reaction. dL/dt by a fourth-order difference of L over +-2 ms at
    // h = 1e-4 s. Besides, M_J is normal to the axes the joint leaves free (u, and the body's
    // pin of the universal joint, which starts as v) and F to a slide.
    let u = unit([0.3, 1.0, 0.2]);
    let v = unit(cross(u, [0.0, 0.0, 1.0]));
    let (p, d, e) = ([0.6, 0.2, -0.1], unit([0.0, 1.0, 1.0]), [1.0, 0.0, 0.0]);
    let (f_of, tau_of) = (|t: f64| 3.0 * (4.0 * t).sin(), |t: f64| 0.5 * (3.0 * t).cos());
    // Each type with its axis and a start of the motion it allows (angular velocity).
    type Case = (&'static str, Option<[f64; 3]>, Option<[f64; 3]>);
    let cases: [Case; 6] = [
        ("fixed", None, None),
        ("spherical", None, Some([1.0, -2.0, 3.0])),
        ("revolute", Some(u), Some(scale(u, 4.0))),
        ("prismatic", Some(u), None),
        ("cylindrical", Some(u), Some(scale(u, 4.0))),
        ("universal", Some(u), Some(add(scale(u, 3.0), scale(v, 2.0)))),
    ];
    for (kind, axis, omega) in cases {
        let mut joint = format!("[[joints]]\nname = \"j\"\ntype = \"{kind}\"\nbody2 = \"b\"\npoint = {}\n", vec3(J));
        if let Some(a) = axis {
            joint += &format!("axis = {}\n", vec3(a));
        }
        if kind == "universal" {
            joint += &format!("axis2 = {}\n", vec3(v));
        }
        let spin = omega.map_or(String::new(), |w| format!("angular_velocity = {}\n", vec3(w)));
        let loads = format!(
            "{spin}[[loads]]\ntype = \"force\"\nbody = \"b\"\npoint = {}\ndirection = {}\nvalue = \"3*sin(4*t)\"\n\
             [[loads]]\ntype = \"torque\"\nbody = \"b\"\ndirection = {}\nvalue = \"0.5*cos(3*t)\"\n",
            vec3(p),
            vec3(d),
            vec3(e)
        );
        let mut text = body_on(&joint, &loads);
        for (name, q) in [("lx", "angular_momentum_x"), ("ly", "angular_momentum_y"), ("lz", "angular_momentum_z")] {
            text += &format!("[[outputs]]\nname = \"{name}\"\nquantity = \"{q}\"\nbody = \"b\"\n");
        }
        for (name, q, at) in
            [("px", "x", p), ("py", "y", p), ("pz", "z", p), ("jx", "x", J), ("jy", "y", J), ("jz", "z", J)]
        {
            text +=
                &format!("[[outputs]]\nname = \"{name}\"\nquantity = \"{q}\"\nbody = \"b\"\npoint = {}\n", vec3(at));
        }
        let (h, dt) = (1e-4, 2e-3);
        let mut sim = simulation(&text, h);
        let momentum_at = |sim: &mut Simulation, t: f64| {
            sim.step_to(t).unwrap();
            triple(sim, ["lx", "ly", "lz"])
        };
        // The universal joint's body pin: V turned with the body from its start, A(t) A0^T V.
        let a0 = rotation(&from_axis_angle(unit([1.0, 0.0, 1.0]), 0.4));
        let body_v: [f64; 3] = std::array::from_fn(|i| (0..3).map(|k| a0[k][i] * v[k]).sum());
        let (mut worst, mut largest, mut free): (f64, f64, f64) = (0.0, 0.0, 0.0);
        for t in [0.1, 0.35, 0.6] {
            let before = [momentum_at(&mut sim, t - 2.0 * dt), momentum_at(&mut sim, t - dt)];
            sim.step_to(t).unwrap();
            let (c, a, _) = pose(&mut sim);
            let (f, m) = (force(&mut sim), moment(&mut sim));
            let (pt, jt) = (triple(&mut sim, ["px", "py", "pz"]), triple(&mut sim, ["jx", "jy", "jz"]));
            let parts =
                [cross(c, [0.0, 0.0, -MASS * G]), cross(pt, scale(d, f_of(t))), scale(e, tau_of(t)), cross(jt, f), m];
            let total = parts.iter().fold([0.0; 3], |s, x| add(s, *x));
            largest = largest.max(parts.iter().map(|x| norm(*x)).fold(0.0, f64::max));
            let along = match kind {
                "revolute" | "cylindrical" => dot(m, u).abs(),
                "universal" => dot(m, u).abs().max(dot(m, mat_vec(&a, body_v)).abs()),
                _ => 0.0,
            };
            let slide = if matches!(kind, "prismatic" | "cylindrical") { dot(f, u).abs() } else { 0.0 };
            free = free.max(along / norm(m).max(1.0)).max(slide / norm(f).max(1.0));
            let after = [momentum_at(&mut sim, t + dt), momentum_at(&mut sim, t + 2.0 * dt)];
            let r = rate([before[0], before[1], after[0], after[1]], dt);
            let err = norm(sub(r, total));
            println!("{kind} t = {t}: dL/dt {r:.8?}, moments {total:.8?} (M_J {m:.6?}), |difference| {err:.2e}");
            worst = worst.max(err);
        }
        println!(
            "{kind}: largest |dL/dt - moment sum| {worst:.2e} (moments up to {largest:.3} N m); free directions {free:.1e}"
        );
        assert!(worst < 1e-6 * largest, "{kind}: {worst:e}");
        assert!(free < 1e-10, "{kind}: reaction along a free direction, relative {free:e}");
    }
}

/// models/beam3d_cantilever.toml (a steel strip, L = 1 m, 8 elements, clamped at the origin,
/// a 0.5 kg tip body welded at its end, gravity -z, the lateral tip force F sin(2 pi f t)
/// along y) with the clamp's moment as outputs, in static equilibrium at t = 1/(4 f), where
/// the lateral force is F; `g` sets gravity.
fn clamped_strip(g: f64) -> Simulation {
    let text = std::fs::read_to_string(common::sim::model_path("beam3d_cantilever")).unwrap()
        + &["x", "y", "z"]
            .map(|c| format!("[[outputs]]\nname = \"m{c}\"\nquantity = \"reaction_torque_{c}\"\njoint = \"clamp\"\n"))
            .concat()
        + &["x", "y", "z"]
            .map(|c| format!("[[outputs]]\nname = \"f{c}\"\nquantity = \"reaction_{c}\"\njoint = \"clamp\"\n"))
            .concat();
    let model = Model::parse(&text, "beam3d_cantilever.toml").unwrap();
    let mut sim = common::sim::simulation_with(&model, &[("g", g)], |_| {});
    let f = 2.0;
    sim.settle_static(1.0 / (4.0 * f)).unwrap();
    sim
}

#[test]
fn a_beam_clamp_moment_is_the_moment_of_the_loads() {
    // Statics of the whole strip about the clamp point (the origin): the clamp's wrench is
    // minus that of the loads at their deflected positions, the lateral force P = 2 N at the
    // tip body's centre and the weights (each element's at the quadrature points of its
    // centre line, the tip body's at its centre): M = -sum r x W. Without gravity the clamp moment is -P x_tip
    // about z: P L but for the tip's shortening by the deflection.
    use flexfmu::mechanics::elements::CorotationalBeam3d;
    for g in [0.0, 9.81] {
        let mut sim = clamped_strip(g);
        let q = sim.state().q.clone();
        let sys = sim.system();
        let at = |x: usize| [q[x], q[x + 1], q[x + 2]];
        let tip = at(sys.body("tip").unwrap().x);
        let mut loads = vec![(tip, [0.0, 2.0, -0.5 * g])];
        for e in sys.elements::<CorotationalBeam3d>() {
            loads.extend(e.mass_points(&q).map(|(r, m)| (r, [0.0, 0.0, -m * g])));
        }
        let m_expected = scale(loads.iter().fold([0.0; 3], |s, (r, w)| add(s, cross(*r, *w))), -1.0);
        let f_expected = scale(loads.iter().fold([0.0; 3], |s, (_, w)| add(s, *w)), -1.0);
        let m = triple(&mut sim, ["mx", "my", "mz"]);
        let f = triple(&mut sim, ["fx", "fy", "fz"]);
        let err = norm(sub(m, m_expected));
        println!(
            "clamped strip, g = {g}: tip at {tip:.9?}; clamp M {m:.9?}, statics {m_expected:.9?} (|difference| {err:.1e}); F {f:.9?}"
        );
        // The force to the round-off of the axial force: EA / l0 = 5e8 N/m times 1e-16 m.
        assert!(err < 1e-9 * norm(m_expected) && norm(sub(f, f_expected)) < 1e-7, "{err:e}");
        if g == 0.0 {
            // P L: M_z = -P x_tip, x_tip = L - O(deflection^2).
            let pl = 2.0 * 1.0;
            println!("clamp moment about z {:.9} N m against -P L = {:.9} N m (tip y {:.3e} m)", m[2], -pl, tip[1]);
            assert!((m[2] + pl).abs() < 1e-5 * pl && m[0].abs() < 1e-9 && m[1].abs() < 1e-9);
        }
    }
}

#[test]
fn a_planar_cantilever_clamp_moment_equals_the_spatial_one() {
    // The same square-section Euler-Bernoulli cantilever (L = 1 m, 8 elements) under a tip
    // load of 500 N (tip deflection 6 % of L: geometrically nonlinear), planar and in the x-y
    // plane of a spatial model, in static equilibrium: the planar `reaction_torque` (about
    // body2's reference point, the clamped node, which is the joint point) and the spatial
    // `reaction_torque_z` (about the joint point) of the clamp agree, as the tips do.
    let planar = r#"[model]
name = "cantilever"
[[beams]]
name = "beam"
start = [0.0, 0.0]
end = [1.0, 0.0]
elements = 8
section = { width = 0.02, height = 0.02 }
material = { E = 2.1e11, nu = 0.3, rho = 7850.0 }
formulation = "euler_bernoulli"
[[joints]]
name = "clamp"
type = "fixed"
body2 = "beam.start"
[[loads]]
type = "force"
body = "beam.end"
direction = [0.0, -1.0]
value = 500.0
[[outputs]]
name = "tip_y"
quantity = "y"
body = "beam.end"
[[outputs]]
name = "m"
quantity = "reaction_torque"
joint = "clamp"
"#;
    let spatial = planar
        .replace("[model]\n", "[model]\ndimension = 3\n")
        .replace("[0.0, 0.0]", "[0.0, 0.0, 0.0]")
        .replace("[1.0, 0.0]", "[1.0, 0.0, 0.0]")
        .replace("[0.0, -1.0]", "[0.0, -1.0, 0.0]")
        .replace("\"reaction_torque\"", "\"reaction_torque_z\"");
    let mut values = Vec::new();
    for text in [planar, &spatial] {
        let model = Model::parse(text, "cantilever.toml").unwrap();
        let mut sim = common::sim::simulation_with(&model, &[], |_| {});
        sim.settle_static(0.0).unwrap();
        values.push((output(&mut sim, "tip_y"), output(&mut sim, "m")));
    }
    let ((y2, m2), (y3, m3)) = (values[0], values[1]);
    println!(
        "cantilever under 500 N: tip y planar {y2:.12} spatial {y3:.12}; clamp moment planar {m2:.10} spatial {m3:.10} N m (P L = 500)"
    );
    assert!((y2 - y3).abs() < 1e-10 && (m2 - m3).abs() < 1e-8 * m2.abs());
    assert!(m2 > 0.9 * 500.0 && m2 < 500.0, "the deflected tip's arm is shorter than L: {m2}");
}
