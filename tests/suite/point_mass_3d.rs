//! Point masses in spatial models (`dimension = 3`): three coordinates, the constant mass
//! matrix m I, gravity, and what attaches to a point (src/mechanics/elements/point_mass.rs,
//! src/mechanics/assemble_spatial/point_mass.rs, `Anchor3::Point`).
//!
//! References:
//! - spherical pendulum (a point mass on a massless rod, a distance joint): the steady
//!   conical motion at the cone angle theta turns at omega^2 = g / (L cos theta) with the rod's
//!   tension m g / cos theta (Goldstein, Classical Mechanics, sec. 3.6); any motion conserves
//!   the energy and the angular momentum about the vertical through the pivot;
//! - a point mass on a linear spring: the period 2 pi sqrt(m/k), and under gravity the static
//!   stretch m g / k;
//! - a sphere dropped on a plane: Newton's restitution law, v+ = -e v-, so the flight after a
//!   rebound rises e^2 h (constraint method, exact up to the event location); the Hertz force
//!   with the exact hysteresis factor rebounds within 2 % under gravity, as in 2D
//!   (tests/suite/contact.rs); two spheres in a head-on elastic Hertz impact touch for
//!   t_c = 2.9432 delta*/v (Johnson, Contact Mechanics, 1985, sec. 11.4; the reference of
//!   models/hertz_impact.toml in tests/corpus/references.toml);
//! - a planar motion of a spatial model equals the planar model's.

use flexfmu::model::Model;
use flexfmu::simulation::Simulation;
use fmi::fmi2::instance::{CoSimulation, Common};

use crate::common;
use common::fmu::{Fmu, read};
use common::sim::{example, model_path, output, refused, simulation_with};

const G: f64 = 9.81;

/// A spatial point mass `m` on a rod of length `l` from the pivot at the origin, released at
/// the cone angle `theta` from the downward vertical with the horizontal velocity `v`
/// (normal to the rod); `solver` is the `[solver]` section's body.
fn pendulum(m: f64, l: f64, theta: f64, v: [f64; 2], solver: &str) -> Model {
    let (s, c) = theta.sin_cos();
    let text = format!(
        "[model]\nname = \"spherical_pendulum\"\ndimension = 3\ngravity = [0.0, 0.0, -{G}]\n\
         [solver]\n{solver}\n\
         [[point_masses]]\nname = \"bob\"\nmass = {m}\nposition = [{}, 0.0, {}]\nvelocity = [{}, {}, {}]\n\
         [[joints]]\nname = \"rod\"\ntype = \"distance\"\npoint1 = [0.0, 0.0, 0.0]\nbody2 = \"bob\"\n",
        l * s,
        -l * c,
        v[0] * c,
        v[1],
        v[0] * s,
    );
    let mut text = text;
    for q in ["x", "y", "z", "vx", "vy", "vz"] {
        text += &format!("[[outputs]]\nname = \"{q}\"\nquantity = \"{q}\"\nbody = \"bob\"\n");
    }
    for (name, q) in [
        ("tension", "link_force"),
        ("length", "joint_position"),
        ("rx", "reaction_x"),
        ("ry", "reaction_y"),
        ("rz", "reaction_z"),
        ("mx", "reaction_torque_x"),
    ] {
        text += &format!("[[outputs]]\nname = \"{name}\"\nquantity = \"{q}\"\njoint = \"rod\"\n");
    }
    for q in ["energy_total", "energy_kinetic", "angular_momentum_z"] {
        text += &format!("[[outputs]]\nname = \"{q}\"\nquantity = \"{q}\"\n");
    }
    text += "[[outputs]]\nname = \"bob_lz\"\nquantity = \"angular_momentum_z\"\nbody = \"bob\"\n";
    text += "[[outputs]]\nname = \"az\"\nquantity = \"az\"\nbody = \"bob\"\n";
    Model::parse(&text, "spherical_pendulum.toml").unwrap()
}

/// The conical pendulum (steady motion at omega^2 = g / (L cos theta)) stays on its circle:
/// height -L cos theta and radius L sin theta to 1e-6 m over ten turns, the rod's tension is
/// m g / cos theta, the reaction on the bob is -tension along the rod with no moment, and the
/// bob turns at omega.
#[test]
fn conical_pendulum_stays_on_its_circle() {
    let (m, l) = (2.0, 1.2);
    for theta in [0.5f64, 1.2] {
        let omega = (G / (l * theta.cos())).sqrt();
        let model = pendulum(m, l, theta, [0.0, omega * l * theta.sin()], "step = 1e-3");
        let mut sim = simulation_with(&model, &[], |_| {});
        let period = 2.0 * std::f64::consts::PI / omega;
        let (mut height, mut radius, mut tension, mut phase, mut reaction): (f64, f64, f64, f64, f64) =
            (0.0, 0.0, 0.0, 0.0, 0.0);
        let samples = 1000;
        for k in 1..=samples {
            let t = 10.0 * period * k as f64 / samples as f64;
            sim.step_to(t).unwrap();
            let [x, y, z] = ["x", "y", "z"].map(|q| output(&mut sim, q));
            height = height.max((z + l * theta.cos()).abs());
            radius = radius.max((x.hypot(y) - l * theta.sin()).abs());
            let f = output(&mut sim, "tension");
            tension = tension.max((f * theta.cos() / (m * G) - 1.0).abs());
            // The bob's angle about the vertical against omega t (wrapped).
            let d = y.atan2(x) - omega * t;
            phase = phase.max((d - std::f64::consts::TAU * (d / std::f64::consts::TAU).round()).abs());
            // The force of the rod on the bob is -tension along the unit rod direction.
            let r = ["rx", "ry", "rz"].map(|q| output(&mut sim, q));
            for (rk, pk) in r.iter().zip([x, y, z]) {
                reaction = reaction.max((rk + f * pk / l).abs() / f);
            }
            assert_eq!(output(&mut sim, "mx"), 0.0);
            assert!((output(&mut sim, "length") - l).abs() < 1e-9);
        }
        println!(
            "conical pendulum theta = {theta}: over 10 turns (T = {period:.4} s) max |z + L cos| {height:.1e} m, \
             |rho - L sin| {radius:.1e} m, |T cos/(m g) - 1| {tension:.1e}, phase {phase:.1e} rad, reaction {reaction:.1e}"
        );
        assert!(height < 1e-6 && radius < 1e-6, "{height} {radius}");
        assert!(tension < 1e-6, "{tension}");
        assert!(phase < 1e-4, "{phase}");
        assert!(reaction < 1e-12, "{reaction}");
    }
}

/// A spherical pendulum released off the cone (a bounded motion between two heights): the
/// energy and the angular momentum about the vertical through the pivot are conserved (TTBIF at
/// rho_inf = 1 with GGL rows, which conserve them to second order: docs/model-file.md), the
/// model's `angular_momentum_z` is the bob's m (x vy - y vx), and the bob stays on the sphere.
#[test]
fn spherical_pendulum_conserves_energy_and_vertical_angular_momentum() {
    let (m, l) = (1.5, 0.8);
    let model = pendulum(
        m,
        l,
        0.9,
        [0.7, 1.3],
        "integrator = \"ttbif\"\nrho_inf = 1.0\nconstraints = \"ggl\"\nstep = 1e-3\ntolerance = 1e-12",
    );
    let mut sim = simulation_with(&model, &[], |_| {});
    let (e0, l0) = (output(&mut sim, "energy_total"), output(&mut sim, "angular_momentum_z"));
    let (mut energy, mut momentum, mut own, mut sphere, mut lowest, mut highest): (f64, f64, f64, f64, f64, f64) =
        (0.0, 0.0, 0.0, 0.0, 0.0, -1.0);
    for k in 1..=2000 {
        sim.step_to(0.01 * k as f64).unwrap();
        let [x, y, z, vx, vy] = ["x", "y", "z", "vx", "vy"].map(|q| output(&mut sim, q));
        energy = energy.max((output(&mut sim, "energy_total") - e0).abs() / e0.abs());
        let lz = output(&mut sim, "angular_momentum_z");
        momentum = momentum.max((lz - l0).abs() / l0.abs());
        own = own.max((lz - m * (x * vy - y * vx)).abs().max((lz - output(&mut sim, "bob_lz")).abs()));
        sphere = sphere.max(((x * x + y * y + z * z).sqrt() - l).abs());
        lowest = lowest.min(z);
        highest = highest.max(z);
    }
    println!(
        "spherical pendulum over 20 s: |dE|/E {energy:.1e}, |dLz|/Lz {momentum:.1e}, Lz vs m (x vy - y vx) \
         {own:.1e}, off the sphere {sphere:.1e} m; z between {lowest:.4} and {highest:.4} m"
    );
    assert!(highest - lowest > 0.1, "the motion is off the cone");
    assert!(energy < 1e-6 && momentum < 1e-6, "{energy} {momentum}");
    assert!(own < 1e-12, "{own}");
    assert!(sphere < 1e-9, "{sphere}");
}

/// A point mass hanging straight below the pivot on a driven distance joint (a winch):
/// length l(t) = L0 + A sin(w t), so z = -l(t) and the rope's tension is m (g - l''(t)) =
/// m (g + A w^2 sin(w t)); the drive's force on the mass along the increasing length is
/// minus the tension; the omitted initial velocity is solved from the drive's rate (-A w along
/// z); the drive's work is what the energy gains.
#[test]
fn driven_distance_joint_winds_a_point_mass() {
    let (m, l0, a, w) = (3.0, 1.5, 0.2, 4.0);
    let text = format!(
        "[model]\nname = \"winch\"\ndimension = 3\ngravity = [0.0, 0.0, -{G}]\n[solver]\nstep = 1e-3\n\
         [[point_masses]]\nname = \"load\"\nmass = {m}\nposition = [0.0, 0.0, -{l0}]\n\
         [[joints]]\nname = \"rope\"\ntype = \"distance\"\npoint1 = [0.0, 0.0, 0.0]\nbody2 = \"load\"\n\
         drive = \"{l0} + {a}*sin({w}*t)\"\n\
         [[outputs]]\nname = \"z\"\nquantity = \"z\"\nbody = \"load\"\n\
         [[outputs]]\nname = \"vz\"\nquantity = \"vz\"\nbody = \"load\"\n\
         [[outputs]]\nname = \"tension\"\nquantity = \"link_force\"\njoint = \"rope\"\n\
         [[outputs]]\nname = \"drive\"\nquantity = \"drive_force\"\njoint = \"rope\"\n\
         [[outputs]]\nname = \"length\"\nquantity = \"joint_position\"\njoint = \"rope\"\n\
         [[outputs]]\nname = \"energy_total\"\nquantity = \"energy_total\"\n\
         [[outputs]]\nname = \"energy_supplied\"\nquantity = \"energy_supplied\"\n"
    );
    let model = Model::parse(&text, "winch.toml").unwrap();
    let mut sim = simulation_with(&model, &[], |_| {});
    assert!((output(&mut sim, "vz") + a * w).abs() < 1e-12, "the initial velocity from the drive's rate");
    let e0 = output(&mut sim, "energy_total");
    let (mut height, mut tension, mut balance): (f64, f64, f64) = (0.0, 0.0, 0.0);
    for k in 1..=300 {
        let t = 0.01 * k as f64;
        sim.step_to(t).unwrap();
        let l = l0 + a * (w * t).sin();
        height = height.max((output(&mut sim, "z") + l).abs());
        let f = output(&mut sim, "tension");
        tension = tension.max((f / (m * (G + a * w * w * (w * t).sin())) - 1.0).abs());
        assert_eq!(output(&mut sim, "drive"), -f);
        assert!((output(&mut sim, "length") - l).abs() < 1e-9);
        let gained = output(&mut sim, "energy_total") - e0;
        balance = balance.max((gained - output(&mut sim, "energy_supplied")).abs() / (m * G * a));
    }
    println!(
        "winch over 3 s: |z + l(t)| {height:.1e} m, |T/(m (g - l'')) - 1| {tension:.1e}, energy balance {balance:.1e} of m g A"
    );
    assert!(height < 1e-9, "{height}");
    assert!(tension < 1e-12, "{tension}");
    assert!(balance < 1e-5, "{balance}");
}

/// A spatial mass-spring model: a point mass `m` on a point-to-point spring `k` from the ground
/// point `anchor` along `d`, free length 1, released `x0` past it; `gravity` (or none).
fn spring_model(m: f64, k: f64, d: [f64; 3], x0: f64, gravity: Option<[f64; 3]>) -> Model {
    let p = d.map(|c| (1.0 + x0) * c);
    let gravity = gravity.map_or(String::new(), |g| format!("gravity = [{}, {}, {}]\n", g[0], g[1], g[2]));
    let text = format!(
        "[model]\nname = \"spring3d\"\ndimension = 3\n{gravity}\
         [solver]\nstep = 1e-3\n\
         [[point_masses]]\nname = \"mass\"\nmass = {m}\nposition = [{}, {}, {}]\n\
         [[springs]]\nname = \"spring\"\nbody1 = \"ground\"\npoint1 = [0.0, 0.0, 0.0]\nbody2 = \"mass\"\n\
         stiffness = {k}\nfree_length = 1.0\n\
         [[outputs]]\nname = \"x\"\nquantity = \"x\"\nbody = \"mass\"\n\
         [[outputs]]\nname = \"y\"\nquantity = \"y\"\nbody = \"mass\"\n\
         [[outputs]]\nname = \"z\"\nquantity = \"z\"\nbody = \"mass\"\n",
        p[0], p[1], p[2]
    );
    Model::parse(&text, "spring3d.toml").unwrap()
}

/// A point mass on a linear spring along a skew direction oscillates along it at
/// omega = sqrt(k/m): the period from the zero crossings of the stretch over 20 periods,
/// to 1e-4; the motion stays on the spring's line. Under gravity along the spring the static
/// equilibrium (`Simulation::settle_static`) stretches it by m g / k.
#[test]
fn point_mass_on_a_spring_oscillates_at_sqrt_k_over_m() {
    let (m, k) = (2.0, 50.0);
    let d = [2.0 / 7.0, 3.0 / 7.0, 6.0 / 7.0];
    let mut sim = simulation_with(&spring_model(m, k, d, 0.1, None), &[], |_| {});
    let period = 2.0 * std::f64::consts::PI * (m / k).sqrt();
    let stretch = |sim: &mut Simulation| {
        let p = ["x", "y", "z"].map(|q| output(sim, q));
        let along: f64 = (0..3).map(|i| p[i] * d[i]).sum();
        let off = (0..3).map(|i| (p[i] - along * d[i]).abs()).fold(0.0, f64::max);
        (along - 1.0, off)
    };
    let (mut crossings, mut last, mut off_line) = (Vec::new(), (0.0, 0.1), 0.0f64);
    let dt = 1e-3;
    let mut t = 0.0;
    while crossings.len() < 41 {
        t += dt;
        sim.step_to(t).unwrap();
        let (s, off) = stretch(&mut sim);
        off_line = off_line.max(off);
        if (s > 0.0) != (last.1 > 0.0) {
            crossings.push(last.0 + dt * last.1 / (last.1 - s));
        }
        last = (t, s);
    }
    let measured = (crossings[40] - crossings[0]) / 20.0;
    println!(
        "spring: period {measured:.9} s vs 2 pi sqrt(m/k) = {period:.9} s (error {:.1e}); off the line {off_line:.1e} m",
        measured / period - 1.0
    );
    assert!((measured / period - 1.0).abs() < 1e-4);
    assert!(off_line < 1e-12, "{off_line}");

    // Hanging under gravity along the spring: the static stretch m g / k.
    let down = d.map(|c| -c);
    let g = down.map(|c| -G * c);
    let mut sim = simulation_with(&spring_model(m, k, down, 0.0, Some(g)), &[], |_| {});
    sim.settle_static(0.0).unwrap();
    let p = ["x", "y", "z"].map(|q| output(&mut sim, q));
    let length = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
    println!("spring under gravity: static stretch {:.12} m vs m g / k = {:.12} m", length - 1.0, m * G / k);
    assert!((length - 1.0 - m * G / k).abs() < 1e-9);
}

/// A sphere of radius 0.05 m on a point mass, dropped from h0 = 0.5 m above the plane z = 0
/// with a horizontal velocity, `method` "constraint" or "force" (K = 1e8 N/m^1.5).
fn ball_drop(method: &str, e: f64) -> Model {
    let force = if method == "force" { "stiffness = 1e8\n" } else { "" };
    let text = format!(
        "[model]\nname = \"ball3d\"\ndimension = 3\ngravity = [0.0, 0.0, -{G}]\n\
         [solver]\nstep = 5e-5\n\
         [[point_masses]]\nname = \"ball\"\nmass = 1.0\nposition = [0.0, 0.0, 0.55]\nvelocity = [0.3, -0.4, 0.0]\n\
         [[contacts]]\nname = \"floor\"\nmethod = \"{method}\"\ntype = \"sphere_plane\"\npoint1 = [0.0, 0.0, 0.0]\n\
         normal = [0.0, 0.0, 1.0]\nbody2 = \"ball\"\nradius2 = 0.05\nrestitution = {e}\n{force}\
         [[outputs]]\nname = \"z\"\nquantity = \"z\"\nbody = \"ball\"\n\
         [[outputs]]\nname = \"vx\"\nquantity = \"vx\"\nbody = \"ball\"\n\
         [[outputs]]\nname = \"vy\"\nquantity = \"vy\"\nbody = \"ball\"\n\
         [[outputs]]\nname = \"vz\"\nquantity = \"vz\"\nbody = \"ball\"\n\
         [[outputs]]\nname = \"state\"\nquantity = \"contact_state\"\ncontact = \"floor\"\n"
    );
    Model::parse(&text, "ball3d.toml").unwrap()
}

/// Dropped from h0 = 0.5 m on the plane: after the first rebound the ball's free flight (a
/// parabola, so its apex from one sample: z + vz^2 / (2 g)) rises e^2 h0 above the contact
/// height; the horizontal velocity is unchanged (frictionless). Constraint method: to 1e-6 of
/// e^2 (the event location); force method (the exact hysteresis factor): within 2 % of e, as
/// the weight acts during the impact (tests/suite/contact.rs in 2D).
#[test]
fn dropped_point_mass_rebounds_to_e_squared_h() {
    let (r, h0) = (0.05, 0.5);
    for method in ["constraint", "force"] {
        for e in [0.3, 0.6, 0.9] {
            let mut sim = simulation_with(&ball_drop(method, e), &[], |_| {});
            // The impact at sqrt(2 h0 / g) = 0.319 s; the next after 2 e sqrt(2 h0/g) more.
            sim.step_to(0.36).unwrap();
            assert!(output(&mut sim, "state") < 0.5, "{method}: in flight after the rebound");
            let [z, vx, vy, vz] = ["z", "vx", "vy", "vz"].map(|q| output(&mut sim, q));
            let apex = z + vz * vz / (2.0 * G) - r;
            let ratio = apex / h0;
            println!(
                "{method} e = {e}: rebound height / h0 = {ratio:.10} vs e^2 = {:.4} ({:+.2e})",
                e * e,
                ratio / (e * e) - 1.0
            );
            let bound = if method == "constraint" { 1e-6 } else { 0.04 };
            assert!((ratio / (e * e) - 1.0).abs() < bound, "{method} e = {e}: {ratio}");
            assert!((vx - 0.3).abs() < 1e-12 && (vy + 0.4).abs() < 1e-12, "{vx} {vy}");
        }
    }
}

/// models/hertz_impact.toml (Johnson's head-on Hertz impact of two equal steel spheres) with
/// point masses for the spheres: the contact lasts t_c = 2.9432 delta*/v = 60.164 us (to 1e-4,
/// the corpus bound of the rigid-body model), the force peaks at K delta*^1.5 = 1005.38 N (to
/// 2e-4), and the elastic impact of equal masses exchanges the velocities.
#[test]
fn hertz_impact_of_two_point_masses_lasts_johnsons_contact_time() {
    let text = std::fs::read_to_string(model_path("hertz_impact")).unwrap();
    let text = text.replace("[[rigid_bodies]]", "[[point_masses]]");
    let text: String = text.lines().filter(|l| !l.starts_with("inertia")).map(|l| format!("{l}\n")).collect();
    let model = Model::parse(&text, "hertz_impact_points.toml").unwrap();
    assert!(!model.definition.point_masses.is_empty() && model.definition.rigid_bodies.is_empty());
    let mut sim = simulation_with(&model, &[], |_| {});
    let (dt, mut t) = (5e-7, 0.0);
    let (mut last, mut crossings, mut peak) = ((0.0, output(&mut sim, "penetration")), Vec::new(), 0.0f64);
    while t < 1.2e-4 - 1e-12 {
        t += dt;
        sim.step_to(t).unwrap();
        let p = output(&mut sim, "penetration");
        if (p > 0.0) != (last.1 > 0.0) {
            crossings.push(last.0 + dt * last.1 / (last.1 - p));
        }
        peak = peak.max(output(&mut sim, "contact_force"));
        last = (t, p);
    }
    let (t_c, f_max) = (6.016411378194632e-05, 1005.3832101243513);
    let duration = crossings[1] - crossings[0];
    let (va, vb) = (output(&mut sim, "va"), output(&mut sim, "vb"));
    println!(
        "Hertz impact of point masses: contact {duration:.6e} s vs t_c {t_c:.6e} s ({:+.1e}), peak {peak:.4} N vs \
         {f_max:.4} N ({:+.1e}), velocities after {va:.2e}, {vb:.9} m/s",
        duration / t_c - 1.0,
        peak / f_max - 1.0
    );
    assert_eq!(crossings.len(), 2);
    assert!((duration / t_c - 1.0).abs() < 1e-4);
    assert!((peak / f_max - 1.0).abs() < 2e-4);
    assert!(va.abs() < 1e-4 && (vb - 1.0).abs() < 1e-4);
}

/// One model in both dimensions: two point masses under gravity (-y), the first on a rod to
/// the pivot (a distance joint), the second on a viscous spring-damper and a fractional
/// damper from the first, pushed by a force that varies in time, striking the floor y = 0 (a
/// Hertz contact) at `floor` (or the floor y = -10 m, never reached). `[x, y]` lists become
/// `[x, y, 0.0]` in 3D; `tolerance` is the Newton tolerance.
fn planar_pair(dimension: usize, tolerance: f64, floor: f64) -> Model {
    let text = r#"[model]
name = "pair"
DIMENSION
gravity = [0.0, -9.81]

[solver]
step = 1e-3
stop_time = 2.0
tolerance = TOL

[[point_masses]]
name = "a"
mass = 1.0
position = [0.6, 0.8]
velocity = [0.8, 0.6]

[[point_masses]]
name = "b"
mass = 0.5
position = [0.9, 0.3]

[[joints]]
name = "rod"
type = "distance"
point1 = [0.0, 1.6]
body2 = "a"

[[springs]]
name = "spring"
body1 = "a"
body2 = "b"
stiffness = 200.0
damping = 0.5

[[springs]]
name = "fractional"
body1 = "a"
body2 = "b"
damping = 2.0
fractional_order = 0.5

[[loads]]
type = "force"
body = "b"
direction = [1.0, 0.5]
value = "3*sin(4*t)"

[[contacts]]
name = "floor"
type = "circle_plane"
point1 = [0.0, FLOOR]
normal = [0.0, 1.0]
body2 = "b"
radius2 = 0.1
stiffness = 1e7
restitution = 0.8

[[outputs]]
name = "ax"
quantity = "x"
body = "a"

[[outputs]]
name = "ay"
quantity = "y"
body = "a"

[[outputs]]
name = "bx"
quantity = "x"
body = "b"

[[outputs]]
name = "by"
quantity = "y"
body = "b"

[[outputs]]
name = "bvy"
quantity = "vy"
body = "b"

[[outputs]]
name = "bay"
quantity = "ay"
body = "b"

[[outputs]]
name = "tension"
quantity = "link_force"
joint = "rod"

[[outputs]]
name = "rx"
quantity = "reaction_x"
joint = "rod"

[[outputs]]
name = "floor_force"
quantity = "contact_force"
contact = "floor"

[[outputs]]
name = "energy_total"
quantity = "energy_total"

[[outputs]]
name = "energy_dissipated"
quantity = "energy_dissipated"

[[outputs]]
name = "energy_supplied"
quantity = "energy_supplied"
"#;
    let text = text.replace("TOL", &format!("{tolerance:e}")).replace("FLOOR", &format!("{floor:?}"));
    let text = if dimension == 3 {
        let mut out = text.replace("DIMENSION", "dimension = 3");
        for (from, to) in [
            ("[0.0, -9.81]".to_string(), "[0.0, -9.81, 0.0]".to_string()),
            ("[0.6, 0.8]".to_string(), "[0.6, 0.8, 0.0]".to_string()),
            ("[0.8, 0.6]".to_string(), "[0.8, 0.6, 0.0]".to_string()),
            ("[0.9, 0.3]".to_string(), "[0.9, 0.3, 0.0]".to_string()),
            ("[0.0, 1.6]".to_string(), "[0.0, 1.6, 0.0]".to_string()),
            ("[1.0, 0.5]".to_string(), "[1.0, 0.5, 0.0]".to_string()),
            (format!("[0.0, {floor:?}]"), format!("[0.0, {floor:?}, 0.0]")),
            ("[0.0, 1.0]".to_string(), "[0.0, 1.0, 0.0]".to_string()),
        ] {
            out = out.replace(from.as_str(), to.as_str());
        }
        out.replace(
            "[[outputs]]\nname = \"energy_total\"",
            "[[outputs]]\nname = \"bz\"\nquantity = \"z\"\nbody = \"b\"\n\n[[outputs]]\nname = \"energy_total\"",
        )
    } else {
        text.replace("DIMENSION\n", "")
    };
    Model::parse(&text, &format!("pair{dimension}d.toml")).unwrap()
}

/// The planar model and the same model in 3D (every point with z = 0, gravity in the plane)
/// give the same motion, forces and energies, and the spatial masses never leave the plane:
/// - without the impact, at the Newton tolerance's floor (16 ulps), to round-off: 1e-12 of each
///   output's largest value over 2 s (the two dimensions evaluate the rod's and the springs'
///   distances with different formulas, src/mechanics/kinematics.rs and
///   spatial_kinematics.rs, equal to round-off, and an iteration stops anywhere within its
///   tolerance: at the default tolerance 1e-10 the runs differ by about 1e-10 m);
/// - with the impact, at the default tolerance, to the Newton tolerance and the event
///   location (the impact is located to 1e-7 of the step: the steps after it end apart by
///   that much): 1e-9 m, and 1e-7 of the largest value of every output (measured 9.6e-11 m
///   and 1.2e-8; without the impact 2.1e-14 m and 2.1e-13).
#[test]
fn planar_motion_in_3d_equals_the_planar_model() {
    for (tolerance, floor, bound, metres) in [(1e-16, -10.0, 1e-12, 1e-12), (1e-10, 0.0, 1e-7, 1e-9)] {
        let (model2, model3) = (planar_pair(2, tolerance, floor), planar_pair(3, tolerance, floor));
        let mut sim2 = simulation_with(&model2, &[], |_| {});
        let mut sim3 = simulation_with(&model3, &[], |_| {});
        let names: Vec<String> = sim2.outputs().iter().map(|o| o.name.clone()).collect();
        let (mut worst, mut size) = (vec![0.0f64; names.len()], vec![0.0f64; names.len()]);
        let mut struck = false;
        for k in 1..=2000 {
            let t = 1e-3 * k as f64;
            sim2.step_to(t).unwrap();
            sim3.step_to(t).unwrap();
            for ((w, s), name) in worst.iter_mut().zip(&mut size).zip(&names) {
                let (a, b) = (output(&mut sim2, name), output(&mut sim3, name));
                *w = w.max((a - b).abs());
                *s = s.max(a.abs());
            }
            struck |= output(&mut sim2, "floor_force") > 0.0;
            assert_eq!(output(&mut sim3, "bz"), 0.0);
        }
        let report: Vec<String> = names
            .iter()
            .zip(&worst)
            .zip(&size)
            .map(|((n, w), s)| format!("{n} {w:.1e} ({:.1e})", w / s.max(1e-300)))
            .collect();
        println!(
            "3D vs 2D, tolerance {tolerance:e}, {} impact, over 2 s: largest differences (relative): {}",
            if struck { "with an" } else { "no" },
            report.join(", ")
        );
        assert_eq!(struck, floor == 0.0);
        for ((name, w), s) in names.iter().zip(&worst).zip(&size) {
            assert!(*w <= bound * s, "{name}: {w} of {s}");
        }
        let position = ["ax", "ay", "bx", "by"].iter().map(|n| worst[names.iter().position(|m| m == n).unwrap()]);
        assert!(position.fold(0.0, f64::max) < metres);
    }
}

/// Rotational joints, torques, follower forces, rotational springs and orientation outputs on
/// a spatial point mass are located errors (file:line) saying why: it has no orientation.
#[test]
fn what_needs_an_orientation_is_a_located_error_on_a_spatial_point_mass() {
    let text = std::fs::read_to_string(model_path("spherical_pendulum")).unwrap();
    let file = "spherical_pendulum.toml";
    let rod = "type = \"distance\"\nbody1 = \"ground\"\npoint1 = [0.0, 0.0, 0.0]\nbody2 = \"bob\"";
    let cases = [
        (
            rod,
            "type = \"revolute\"\naxis = [0.0, 0.0, 1.0]\nbody1 = \"ground\"\nbody2 = \"bob\"",
            "body2 = \"bob\"",
            "no orientation for a revolute joint to hold; point masses take spherical and distance joints, and \
             prismatic joints as body2",
        ),
        (
            rod,
            "type = \"fixed\"\nbody1 = \"bob\"\nbody2 = \"weight\"",
            "body1 = \"bob\"",
            "'bob' is a point mass, which has no orientation for a fixed joint",
        ),
        (
            rod,
            "type = \"prismatic\"\naxis = [0.0, 0.0, 1.0]\nbody1 = \"bob\"\nbody2 = \"weight\"",
            "body1 = \"bob\"",
            "'bob' is a point mass, which has no orientation for a prismatic joint to hold; point masses take \
             spherical and distance joints, and prismatic joints as body2",
        ),
        (
            rod,
            "type = \"universal\"\naxis = [0.0, 0.0, 1.0]\naxis2 = [1.0, 0.0, 0.0]\nbody1 = \"ground\"\nbody2 = \"bob\"",
            "body2 = \"bob\"",
            "universal joint",
        ),
        (
            rod,
            "type = \"cylindrical\"\naxis = [0.0, 0.0, 1.0]\nbody1 = \"ground\"\nbody2 = \"bob\"",
            "body2 = \"bob\"",
            "cylindrical joint",
        ),
        (
            "type = \"force\"\nbody = \"weight\"",
            "type = \"torque\"\nbody = \"weight\"",
            "body = \"weight\"",
            "a point mass has no orientation and cannot take one",
        ),
        (
            "body = \"weight\"\ndirection",
            "body = \"weight\"\nfollower = true\ndirection",
            "body = \"weight\"\nfollower",
            "a follower force needs a body that turns",
        ),
        (
            "type = \"point_to_point\"",
            "type = \"rotational\"\naxis = [0.0, 0.0, 1.0]",
            "body1 = \"bob\"",
            "a rotational spring needs rigid bodies, beam nodes or ground; 'bob' is a point mass",
        ),
        (
            "quantity = \"vz\"\nbody = \"weight\"",
            "quantity = \"wz\"\nbody = \"weight\"",
            "body = \"weight\"\n\n[[outputs]]\nname = \"weight_az\"",
            "'wz' needs a body that turns",
        ),
        (
            "quantity = \"x\"\nbody = \"bob\"",
            "quantity = \"x\"\nbody = \"weight\"\nframe = \"bob\"",
            "frame = \"bob\"",
            "a frame needs a rigid body or a beam node; 'bob' is a point mass",
        ),
        (
            "radius2 = \"r\"",
            "radius2 = \"r\"\npoint2 = [0.0, 0.0, 0.0]",
            "point2 = [0.0, 0.0, 0.0]",
            "point mass 'weight' is at",
        ),
    ];
    for (from, to, at, message) in cases {
        let (err, _) = refused(&text, file, from, to);
        let bad = text.replacen(from, to, 1);
        let line = bad[..bad.find(at).unwrap_or_else(|| panic!("{at}"))].lines().count() + 1;
        assert!(err.to_string().contains(message), "{err}");
        assert_eq!((err.file.as_str(), err.line), (file, line), "{err}");
    }
}

/// models/spherical_pendulum.toml through its FMU (the `fmi` crate, FMI 2.0) with the input
/// `push` held over each communication interval equals `flexfmu simulate --input` with that
/// staircase, bit for bit (scripts/validate_fmu.py checks the FMU with FMPy: `fmpy validate`
/// finds no problems and FMPy's run equals `simulate`).
#[test]
fn spherical_pendulum_fmu_equals_simulate() {
    const EXE: &str = env!("CARGO_BIN_EXE_flexfmu");
    const H: f64 = 0.01;
    let push = |t: f64| 0.8 * (5.0 * t).sin();
    let dir = tempfile::tempdir().unwrap();
    let (input_file, out_file) = (dir.path().join("push.csv"), dir.path().join("out.csv"));
    let steps = 150;
    let samples: Vec<String> = (0..=steps)
        .map(|k| {
            let t = k as f64 * H;
            let before = if k == 0 { String::new() } else { format!("{t},{}\n", push((k - 1) as f64 * H)) };
            format!("{before}{t},{}", push(t))
        })
        .collect();
    std::fs::write(&input_file, format!("time,value\n{}\n", samples.join("\n"))).unwrap();
    let status = std::process::Command::new(EXE)
        .args(["simulate", model_path("spherical_pendulum").to_str().unwrap(), "-o", out_file.to_str().unwrap()])
        .args(["--stop-time", "1.5", "--input"])
        .arg(format!("push={}", input_file.display()))
        .output()
        .unwrap();
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    let csv = std::fs::read_to_string(&out_file).unwrap();
    let header: Vec<String> = csv.lines().next().unwrap().split(',').skip(1).map(String::from).collect();
    let cli: Vec<Vec<f64>> =
        csv.lines().skip(1).map(|l| l.split(',').skip(1).map(|x| x.parse().unwrap()).collect()).collect();

    let model = example("spherical_pendulum");
    let fmu = Fmu::build(&model);
    let out = fmu.outputs();
    let names: Vec<String> = fmu.vars.outputs().map(|v| v.name.clone()).collect();
    assert_eq!(names, header);
    let push_vr = fmu.vr("push");
    let mut inst = fmu.start("pendulum", None, |inst| {
        inst.set_real(&[push_vr], &[push(0.0)]).unwrap();
    });
    let mut rows = vec![read(&mut inst, &out)];
    let mut t = 0.0;
    for k in 1..=steps {
        let next = k as f64 * H;
        inst.do_step(t, next - t, true).unwrap();
        t = next;
        inst.set_real(&[push_vr], &[push(t)]).unwrap();
        rows.push(read(&mut inst, &out));
    }
    assert_eq!(rows.len(), cli.len());
    let worst =
        rows.iter().zip(&cli).flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs())).fold(0.0, f64::max);
    let column = |name: &str| names.iter().position(|n| n == name).unwrap();
    let struck = rows.iter().any(|r| r[column("floor_force")] > 0.0);
    println!(
        "spherical_pendulum FMU vs simulate --input over 1.5 s: max difference {worst:.1e}; the floor struck: {struck}"
    );
    assert!(struck);
    assert!(rows[steps][column("energy_supplied")].abs() > 1e-3, "the input did work");
    assert_eq!(worst, 0.0);
}
