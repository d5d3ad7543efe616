//! The distance joint (`type = "distance"`, src/mechanics/joints/distance.rs): a massless rigid
//! link |P2 - P1| = L between a point of body1 and a point of body2, 2D and 3D, optionally
//! driven (L = drive(t)). References:
//! - a point mass on a link to ground is the simple pendulum phi'' = -(g/L) sin(phi) (RK4 at a
//!   tiny step), second order in the step, with the tension m (g cos(phi) + L phi'^2);
//! - a rigid body held at one point by two links from ground (a triangle: the point cannot
//!   move) swings as the same body on a revolute joint there, and the links' forces add up to
//!   the revolute joint's reaction;
//! - a spherical pendulum (3D) with an initial tangential velocity: r'' = g - (v.v + r.g) r / L^2
//!   (RK4), conserved energy and angular momentum about the vertical through the pivot, the
//!   link length held to 1e-9;
//! - models/crank_slider_link.toml (driven crank, massless connecting rod): the slider follows
//!   the closed-form kinematics, and the rod's tension is T = -m x'' l / sqrt(l^2 - (r sin)^2);
//! - a mass at rest on a link (2D, 3D), and statics of links on beam nodes: tension m g; a 3D
//!   propped cantilever: the clamp and the link carry the beam's weight, the link Euler-Bernoulli's
//!   share;
//! - a driven length L0 + a sin(w t): the position follows exactly, `drive_force` is
//!   -m (g - L'') hanging and m (g + L'') standing on the actuator, and `energy_supplied` is the
//!   change of the mechanical energy;
//! - bad input: located errors;
//! - the FMU (the `fmi` crate) gives `flexfmu simulate`'s rows.

use flexfmu::integrators::Method;
use flexfmu::model::Model;
use flexfmu::simulation::{ConstraintTreatment, Simulation, SolverSettings};

use crate::common;
use common::sim::{output, refused};

const G: f64 = 9.81;

fn settings(h: f64, rho_inf: f64) -> SolverSettings {
    SolverSettings { method: Method::Ttbif, rho_inf, step: h, tolerance: 1e-12, ..Default::default() }
}

fn simulation(text: &str, h: f64, rho_inf: f64) -> Simulation {
    let model = Model::parse(text, "distance.toml").unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(&model, &model.default_parameters(), settings(h, rho_inf), 0.0).unwrap_or_else(|e| panic!("{e}"))
}

/// RK4 of the state y' = f(y) over t with about the step 1e-5 (t in whole steps).
fn rk4<const N: usize>(y0: [f64; N], t: f64, f: impl Fn(&[f64; N]) -> [f64; N]) -> [f64; N] {
    let n = (t / 1e-5).round() as usize;
    let h = t / n as f64;
    let add = |y: &[f64; N], k: &[f64; N], s: f64| -> [f64; N] { std::array::from_fn(|i| y[i] + s * k[i]) };
    let mut y = y0;
    for _ in 0..n {
        let k1 = f(&y);
        let k2 = f(&add(&y, &k1, 0.5 * h));
        let k3 = f(&add(&y, &k2, 0.5 * h));
        let k4 = f(&add(&y, &k3, h));
        y = std::array::from_fn(|i| y[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]));
    }
    y
}

/// `[[outputs]]` entries: (name, quantity, extra key line).
fn outputs(list: &[(&str, &str, &str)]) -> String {
    list.iter().map(|(n, q, extra)| format!("[[outputs]]\nname = \"{n}\"\nquantity = \"{q}\"\n{extra}\n")).collect()
}

// ---------------------------------------------------------------- 1. pendulums

const L_PLANAR: f64 = 0.8;
const PHI0: f64 = 1.0;
const M_BOB: f64 = 1.3;

fn planar_link_pendulum() -> String {
    let (x, y) = (L_PLANAR * PHI0.sin(), -L_PLANAR * PHI0.cos());
    format!(
        "[model]\nname = \"link_pendulum\"\ngravity = [0.0, -{G}]\n\
         [[point_masses]]\nname = \"bob\"\nmass = {M_BOB}\nposition = [{x:e}, {y:e}]\n\
         [[joints]]\nname = \"link\"\ntype = \"distance\"\npoint1 = [0.0, 0.0]\nbody2 = \"bob\"\n{}",
        outputs(&[
            ("x", "x", "body = \"bob\""),
            ("y", "y", "body = \"bob\""),
            ("tension", "link_force", "joint = \"link\""),
            ("length", "joint_position", "joint = \"link\""),
        ])
    )
}

/// (angle error at T, tension error at T, worst |length - L| over the steps) of the planar
/// link pendulum with step h, against RK4 of phi'' = -(g/L) sin(phi).
fn planar_pendulum_errors(h: f64, t_end: f64) -> (f64, f64, f64) {
    let mut sim = simulation(&planar_link_pendulum(), h, 0.8);
    let mut length_error = 0.0f64;
    let steps = (t_end / h).round() as usize;
    for k in 1..=steps {
        sim.step_to(k as f64 * h).unwrap();
        let (x, y) = (output(&mut sim, "x"), output(&mut sim, "y"));
        length_error = length_error.max((x.hypot(y) - L_PLANAR).abs());
        length_error = length_error.max((output(&mut sim, "length") - L_PLANAR).abs());
    }
    let [phi, w] = rk4([PHI0, 0.0], t_end, |y| [y[1], -G / L_PLANAR * y[0].sin()]);
    let angle = output(&mut sim, "x").atan2(-output(&mut sim, "y"));
    let tension = M_BOB * (G * phi.cos() + L_PLANAR * w * w);
    ((angle - phi).abs(), (output(&mut sim, "tension") - tension).abs() / tension, length_error)
}

#[test]
fn point_mass_on_a_link_swings_as_the_simple_pendulum() {
    let t_end = 2.0;
    let runs: Vec<_> = [2e-3, 1e-3, 5e-4].iter().map(|&h| (h, planar_pendulum_errors(h, t_end))).collect();
    for (h, (angle, tension, length)) in &runs {
        eprintln!(
            "h = {h:e}: angle error {angle:.3e} rad, tension error {tension:.3e} (relative), |length - L| {length:.2e}"
        );
    }
    for (_, (_, _, length)) in &runs {
        assert!(*length < 1e-9, "link length off by {length:.3e}");
    }
    let (angle, tension): (Vec<f64>, Vec<f64>) = runs.iter().map(|(_, (a, t, _))| (*a, *t)).unzip();
    // Second order: halving the step divides the error by about 4.
    assert!(angle[1] < angle[0] / 3.0 && angle[2] < angle[1] / 3.0, "angle errors {angle:?}");
    assert!(tension[1] < tension[0] / 3.0 && tension[2] < tension[1] / 3.0, "tension errors {tension:?}");
    assert!(angle[2] < 1e-6, "angle error {:.3e} at h = 5e-4", angle[2]);
    assert!(tension[2] < 2e-6, "tension error {:.3e} at h = 5e-4", tension[2]);
}

/// A rigid arm (centre 0.3 m right of the pivot P = (0, 0), released horizontal) held at P by
/// `joints`.
fn physical_pendulum(joints: &str, extra_outputs: &[(&str, &str, &str)]) -> String {
    let mut list = vec![("angle", "angle", "body = \"arm\"")];
    list.extend_from_slice(extra_outputs);
    format!(
        "[model]\nname = \"arm\"\ngravity = [0.0, -{G}]\n\
         [[rigid_bodies]]\nname = \"arm\"\nmass = 2.0\ninertia = 0.05\nposition = [0.3, 0.0]\n{joints}{}",
        outputs(&list)
    )
}

#[test]
fn two_links_from_ground_to_one_point_act_as_a_revolute_joint() {
    let revolute = physical_pendulum(
        "[[joints]]\nname = \"pin\"\ntype = \"revolute\"\nbody2 = \"arm\"\npoint = [0.0, 0.0]\n",
        &[("rx", "reaction_x", "joint = \"pin\""), ("ry", "reaction_y", "joint = \"pin\"")],
    );
    let link = |name: &str, y: f64| {
        format!(
            "[[joints]]\nname = \"{name}\"\ntype = \"distance\"\npoint1 = [-0.4, {y}]\nbody2 = \"arm\"\npoint2 = [0.0, 0.0]\n"
        )
    };
    let links = physical_pendulum(
        &format!("{}{}", link("upper", 0.3), link("lower", -0.3)),
        &[
            ("ux", "reaction_x", "joint = \"upper\""),
            ("uy", "reaction_y", "joint = \"upper\""),
            ("lx", "reaction_x", "joint = \"lower\""),
            ("ly", "reaction_y", "joint = \"lower\""),
            ("tu", "link_force", "joint = \"upper\""),
            ("tl", "link_force", "joint = \"lower\""),
        ],
    );
    let h = 1e-3;
    let (mut a, mut b) = (simulation(&revolute, h, 0.8), simulation(&links, h, 0.8));
    let (mut angle, mut force, mut direction, mut swing) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for k in 1..=1500 {
        let t = k as f64 * h;
        a.step_to(t).unwrap();
        b.step_to(t).unwrap();
        let theta = output(&mut a, "angle");
        swing = swing.max(-theta);
        angle = angle.max((theta - output(&mut b, "angle")).abs());
        let (rx, ry) = (output(&mut a, "rx"), output(&mut a, "ry"));
        let sum = [output(&mut b, "ux") + output(&mut b, "lx"), output(&mut b, "uy") + output(&mut b, "ly")];
        force = force.max((sum[0] - rx).abs().max((sum[1] - ry).abs()) / rx.hypot(ry));
        // Each link's force on the arm is -T u, u the unit vector from its ground point to P.
        for (x, y, tension, y1) in [("ux", "uy", "tu", 0.3), ("lx", "ly", "tl", -0.3)] {
            let u = [0.4 / 0.5, -y1 / 0.5];
            let tn = output(&mut b, tension);
            let err = (output(&mut b, x) + tn * u[0]).abs().max((output(&mut b, y) + tn * u[1]).abs());
            direction = direction.max(err / tn.abs().max(1.0));
        }
    }
    eprintln!(
        "arm on two links vs on a revolute joint over 1.5 s (swing to {swing:.3} rad): angle {angle:.3e} rad, \
         reaction {force:.3e} (relative), link force against -T u {direction:.3e}"
    );
    assert!(swing > 1.5, "the arm swings down (to {swing})");
    assert!(angle < 1e-8, "angle differs by {angle:.3e}");
    assert!(force < 1e-6, "reactions differ by {force:.3e}");
    assert!(direction < 1e-9, "link force not along the link: {direction:.3e}");
}

const L_SPATIAL: f64 = 0.9;

/// A rigid bob (3D) on a link from the origin to its point `offset` from its centre; the centre
/// starts at (L sin 0.6, 0, -L cos 0.6) with the velocity v0 along y (tangential).
fn spherical_pendulum(offset: [f64; 3], v0: f64) -> String {
    let (x, z) = (L_SPATIAL * 0.6f64.sin(), -L_SPATIAL * 0.6f64.cos());
    let p2 = [x + offset[0], offset[1], z + offset[2]];
    format!(
        "[model]\nname = \"spherical_link\"\ndimension = 3\ngravity = [0.0, 0.0, -{G}]\n\
         [[rigid_bodies]]\nname = \"bob\"\nmass = 1.5\ninertia = [0.02, 0.03, 0.04]\nposition = [{x:e}, 0.0, {z:e}]\n\
         velocity = [0.0, {v0}, 0.0]\nangular_velocity = [0.0, 0.0, 0.0]\n\
         [[joints]]\nname = \"link\"\ntype = \"distance\"\npoint1 = [0.0, 0.0, 0.0]\nbody2 = \"bob\"\n\
         point2 = [{:e}, {:e}, {:e}]\n{}",
        p2[0],
        p2[1],
        p2[2],
        outputs(&[
            ("x", "x", "body = \"bob\""),
            ("y", "y", "body = \"bob\""),
            ("z", "z", "body = \"bob\""),
            ("length", "joint_position", "joint = \"link\""),
            ("energy", "energy_total", ""),
            ("lz", "angular_momentum_z", ""),
            ("tension", "link_force", "joint = \"link\""),
            ("mx", "reaction_torque_x", "joint = \"link\""),
        ])
    )
}

/// (worst |length - L|, energy drift / energy scale, Lz drift / Lz0, centre position error at
/// the end against RK4 when `offset` is zero) over t_end with step h.
fn spherical_run(offset: [f64; 3], h: f64, t_end: f64) -> (f64, f64, f64, f64) {
    let v0 = 1.2;
    let mut sim = simulation(&spherical_pendulum(offset, v0), h, 1.0);
    let p2 = [L_SPATIAL * 0.6f64.sin() + offset[0], offset[1], -L_SPATIAL * 0.6f64.cos() + offset[2]];
    let length0 = (p2[0] * p2[0] + p2[1] * p2[1] + p2[2] * p2[2]).sqrt();
    let (e0, lz0) = (output(&mut sim, "energy"), output(&mut sim, "lz"));
    let scale = 0.5 * 1.5 * v0 * v0 + 1.5 * G * L_SPATIAL;
    let (mut length, mut energy, mut lz) = (0.0f64, 0.0f64, 0.0f64);
    let steps = (t_end / h).round() as usize;
    for k in 1..=steps {
        sim.step_to(k as f64 * h).unwrap();
        length = length.max((output(&mut sim, "length") - length0).abs());
        energy = energy.max((output(&mut sim, "energy") - e0).abs() / scale);
        lz = lz.max((output(&mut sim, "lz") - lz0).abs() / lz0.abs());
        assert_eq!(output(&mut sim, "mx"), 0.0, "the link's moment about its point 2");
    }
    let position = if offset == [0.0; 3] {
        let (x0, z0) = (L_SPATIAL * 0.6f64.sin(), -L_SPATIAL * 0.6f64.cos());
        let l2 = L_SPATIAL * L_SPATIAL;
        let r = rk4([x0, 0.0, z0, 0.0, v0, 0.0], t_end, |y| {
            let (r, v) = ([y[0], y[1], y[2]], [y[3], y[4], y[5]]);
            let s = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2] - G * r[2]) / l2;
            [v[0], v[1], v[2], -s * r[0], -s * r[1], -G - s * r[2]]
        });
        let got = [output(&mut sim, "x"), output(&mut sim, "y"), output(&mut sim, "z")];
        (0..3).map(|i| (got[i] - r[i]).abs()).fold(0.0, f64::max)
    } else {
        0.0
    };
    (length, energy, lz, position)
}

#[test]
fn spherical_pendulum_on_a_link_conserves_energy_and_vertical_angular_momentum() {
    let t_end = 2.0;
    let coarse = spherical_run([0.0; 3], 1e-3, t_end);
    let fine = spherical_run([0.0; 3], 5e-4, t_end);
    // Linked above the centre: the bob also rotates (a double pendulum in space).
    let offset = spherical_run([0.05, 0.0, 0.1], 1e-3, t_end);
    for (what, (length, energy, lz, position)) in [("h = 1e-3", coarse), ("h = 5e-4", fine), ("offset", offset)] {
        eprintln!(
            "spherical pendulum {what}: |length - L| {length:.2e}, energy drift {energy:.2e}, Lz drift {lz:.2e}, \
             position error {position:.3e} m"
        );
        assert!(length < 1e-9, "{what}: link length off by {length:.3e}");
        assert!(energy < 2e-6, "{what}: energy drift {energy:.3e}");
        assert!(lz < 2e-6, "{what}: Lz drift {lz:.3e}");
    }
    assert!(coarse.3 < 1e-6 && fine.3 < coarse.3 / 3.0, "position errors {:.3e}, {:.3e}", coarse.3, fine.3);
}

// ---------------------------------------------------------------- 2. slider-crank

/// models/crank_slider_link.toml: driven crank, massless rod (distance joint), slider on a
/// prismatic joint. x(theta) = r cos + D, D = sqrt(l^2 - (r sin)^2); with theta = theta0 + w t,
/// x'' = w^2 (-c - (c^2 - s^2)/D - s^2 c^2 / D^3) (s = r sin, c = r cos), and the rod's tension
/// from the slider's x equation, m x'' = -T D / l. Worst over 1 s of: slider x, |length - l|,
/// tension / max |T|, rod force on the slider - m x'' (N), energy_supplied - energy change (J).
fn crank_slider_errors(constraints: ConstraintTreatment) -> [f64; 5] {
    let model = common::sim::example("crank_slider_link");
    let mut sim = common::sim::simulation_with(&model, &[], |s| {
        s.tolerance = 1e-12;
        s.constraints = constraints;
    });
    let (r, l, m, theta0, omega) = (0.15, 0.30, 1.0, std::f64::consts::PI / 3.0, 2.0 * std::f64::consts::PI);
    let e0 = output(&mut sim, "energy_total");
    let h = 1e-3;
    let (mut position, mut tension, mut reaction, mut length, mut energy, mut t_max) =
        (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for k in 1..=1000 {
        let t = k as f64 * h;
        sim.step_to(t).unwrap();
        let theta = theta0 + omega * t;
        let (s, c) = (r * theta.sin(), r * theta.cos());
        let d = (l * l - s * s).sqrt();
        let xpp = omega * omega * (-c - (c * c - s * s) / d - s * s * c * c / (d * d * d));
        let expected = -m * xpp * l / d;
        t_max = t_max.max(expected.abs());
        position = position.max((output(&mut sim, "slider_x") - (c + d)).abs());
        tension = tension.max((output(&mut sim, "rod_tension") - expected).abs());
        reaction = reaction.max((output(&mut sim, "rod_force_x") - m * xpp).abs());
        length = length.max((output(&mut sim, "rod_length") - l).abs());
        let change = output(&mut sim, "energy_total") - e0;
        energy = energy.max((output(&mut sim, "energy_supplied") - change).abs());
    }
    [position, length, tension / t_max, reaction, energy]
}

/// The slider's position is exact (to round-off) with either constraint treatment; the
/// tension, from the index-1 accelerations at the step's (q, v), is exact where v satisfies
/// the velocity constraints too (GGL), and off by the index-3 velocities' O(h^2) error
/// otherwise.
#[test]
fn massless_rod_of_a_driven_crank_slider_follows_the_closed_form_kinematics() {
    for (what, constraints, tension_tolerance) in
        [("ggl", ConstraintTreatment::Ggl, 1e-9), ("index-3", ConstraintTreatment::Index3, 1e-6)]
    {
        let [position, length, tension, reaction, energy] = crank_slider_errors(constraints);
        eprintln!(
            "crank-slider with a massless rod over 1 s ({what}): slider x {position:.2e} m, |length - l| \
             {length:.2e} m, rod tension {tension:.2e} (of its max), force on the slider {reaction:.2e} N, \
             energy_supplied - energy change {energy:.2e} J"
        );
        assert!(position < 1e-12, "{what}: slider position off by {position:.3e}");
        assert!(length < 1e-12, "{what}: rod length off by {length:.3e}");
        assert!(tension < tension_tolerance, "{what}: rod tension off by {tension:.3e} (relative)");
        assert!(reaction < 10.0 * tension_tolerance, "{what}: rod force on the slider off by {reaction:.3e} N");
        assert!(energy < 1e-5, "{what}: energy balance off by {energy:.3e} J");
    }
}

// ---------------------------------------------------------------- 3. tension at rest

#[test]
fn mass_hanging_at_rest_on_a_link_pulls_with_its_weight() {
    let m = 2.5;
    let planar = format!(
        "[model]\nname = \"hang\"\ngravity = [0.0, -{G}]\n[[point_masses]]\nname = \"bob\"\nmass = {m}\n\
         position = [0.3, -0.7]\n[[joints]]\nname = \"link\"\ntype = \"distance\"\npoint1 = [0.3, 0.0]\n\
         body2 = \"bob\"\n{}",
        outputs(&[
            ("tension", "link_force", "joint = \"link\""),
            ("fx", "reaction_x", "joint = \"link\""),
            ("fy", "reaction_y", "joint = \"link\""),
            ("y", "y", "body = \"bob\""),
        ])
    );
    // 3D: a rigid body linked at a point above its centre, from a ground point above it.
    let spatial = format!(
        "[model]\nname = \"hang3\"\ndimension = 3\ngravity = [0.0, 0.0, -{G}]\n[[rigid_bodies]]\nname = \"bob\"\n\
         mass = {m}\ninertia = [0.1, 0.2, 0.3]\nposition = [0.1, 0.2, 0.4]\n[[joints]]\nname = \"link\"\n\
         type = \"distance\"\npoint1 = [0.1, 0.2, 1.0]\nbody2 = \"bob\"\npoint2 = [0.1, 0.2, 0.5]\n{}",
        outputs(&[
            ("tension", "link_force", "joint = \"link\""),
            ("fx", "reaction_x", "joint = \"link\""),
            ("fy", "reaction_z", "joint = \"link\""),
            ("y", "z", "body = \"bob\""),
            ("mx", "reaction_torque_x", "joint = \"link\""),
            ("my", "reaction_torque_y", "joint = \"link\""),
        ])
    );
    for (what, text, y0) in [("2D", planar, -0.7), ("3D", spatial, 0.4)] {
        let mut sim = simulation(&text, 1e-3, 0.8);
        let mut worst = 0.0f64;
        for k in 0..=100 {
            if k > 0 {
                sim.step_to(k as f64 * 5e-3).unwrap();
            }
            let tension = output(&mut sim, "tension");
            worst = worst.max((tension - m * G).abs() / (m * G));
            worst = worst.max((output(&mut sim, "fy") - m * G).abs() / (m * G));
            assert!(output(&mut sim, "fx").abs() < 1e-9 * m * G, "{what}: lateral force");
            assert!((output(&mut sim, "y") - y0).abs() < 1e-12, "{what}: the mass moved");
        }
        if what == "3D" {
            assert_eq!((output(&mut sim, "mx"), output(&mut sim, "my")), (0.0, 0.0), "moment about point2");
        }
        eprintln!("{what}: link tension against m g over 0.5 s at rest: {worst:.2e} (relative)");
        assert!(worst < 1e-9, "{what}: tension off m g by {worst:.3e}");
    }
}

/// Statics with links on beam nodes: a mass hanging from the tip of a planar cantilever
/// (corotational and ANCF) pulls with its weight, straight down from the deflected tip.
#[test]
fn links_on_planar_beam_nodes_carry_the_hanging_weight_in_statics() {
    let m = 3.0;
    for formulation in ["timoshenko", "ancf"] {
        let beam = common::cantilever(4, formulation, (1.0, 0.02, 0.02, 2.1e11, 0.3, 7850.0), 0.0).replacen(
            "name = \"cantilever\"\n",
            &format!("name = \"cantilever\"\ngravity = [0.0, -{G}]\n"),
            1,
        );
        let text = format!(
            "{beam}\n[[point_masses]]\nname = \"bob\"\nmass = {m}\nposition = [1.0, -0.5]\n\
             [[joints]]\nname = \"link\"\ntype = \"distance\"\nbody1 = \"beam.end\"\nbody2 = \"bob\"\n{}",
            outputs(&[
                ("tension", "link_force", "joint = \"link\""),
                ("bob_x", "x", "body = \"bob\""),
                ("tip_x", "x", "body = \"beam.end\""),
                ("length", "joint_position", "joint = \"link\""),
            ])
        );
        let mut sim = simulation(&text, 1e-3, 0.8);
        let iterations = sim.settle_static(0.0).unwrap();
        let tension = output(&mut sim, "tension");
        let (tip_y, tip_x, bob_x) = (output(&mut sim, "tip_y"), output(&mut sim, "tip_x"), output(&mut sim, "bob_x"));
        eprintln!(
            "{formulation}: static tension {tension:.12} N (m g = {:.12}), tip deflection {tip_y:.4e} m, bob below the \
             tip to {:.1e} m, {iterations} Newton iterations",
            m * G,
            (bob_x - tip_x).abs()
        );
        assert!(tip_y < -1e-3, "{formulation}: the tip deflects ({tip_y:.3e})");
        assert!((tension - m * G).abs() < 1e-9 * m * G, "{formulation}: tension {tension} vs m g {}", m * G);
        assert!((bob_x - tip_x).abs() < 1e-9, "{formulation}: the link hangs straight down");
        assert!((output(&mut sim, "length") - 0.5).abs() < 1e-9, "{formulation}: link length");
    }
}

/// Statics of a spatial cantilever (8 Euler-Bernoulli elements, clamped at x = 0) whose tip is
/// held up by a link from a ground point 0.5 m above it: the clamp and the link carry the
/// beam's weight W (global equilibrium, exact), and the link the share of a propped cantilever
/// under a uniform load, 3 W / 8 (Euler-Bernoulli; the weight is distributed along each
/// element's cubic centre line, the consistent load with which Hermite elements give the exact
/// nodal solution).
#[test]
fn link_on_a_spatial_beam_node_props_the_cantilever() {
    let (l, a, rho, n) = (1.0, 0.02 * 0.02, 7850.0, 8);
    let text = format!(
        "[model]\nname = \"propped\"\ndimension = 3\ngravity = [0.0, 0.0, -{G}]\n\
         [[beams]]\nname = \"beam\"\nstart = [0.0, 0.0, 0.0]\nend = [{l}, 0.0, 0.0]\nelements = {n}\n\
         formulation = \"euler_bernoulli\"\nsection = {{ width = 0.02, height = 0.02 }}\n\
         material = {{ E = 2.1e11, nu = 0.3, rho = {rho} }}\n\
         [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"beam.start\"\n\
         [[joints]]\nname = \"stay\"\ntype = \"distance\"\npoint1 = [{l}, 0.0, 0.5]\nbody2 = \"beam.end\"\n{}",
        outputs(&[
            ("tension", "link_force", "joint = \"stay\""),
            ("stay_z", "reaction_z", "joint = \"stay\""),
            ("clamp_z", "reaction_z", "joint = \"clamp\""),
            ("tip_z", "z", "body = \"beam.end\""),
            ("mid_z", "z", "body = \"beam.node[4]\""),
        ])
    );
    let mut sim = simulation(&text, 1e-3, 0.8);
    sim.settle_static(0.0).unwrap();
    let w = rho * a * l * G;
    let (tension, stay_z, clamp_z) =
        (output(&mut sim, "tension"), output(&mut sim, "stay_z"), output(&mut sim, "clamp_z"));
    let balance = (stay_z + clamp_z - w).abs() / w;
    let propped = 3.0 * w / 8.0;
    let share = (tension - propped).abs() / propped;
    let (tip, mid) = (output(&mut sim, "tip_z"), output(&mut sim, "mid_z"));
    eprintln!(
        "propped cantilever: link tension {tension:.6} N, Euler-Bernoulli 3W/8 = {propped:.6} N, error {share:.2e}; \
         clamp + link - W = {balance:.2e} W; tip z {tip:.3e} m, midspan z {mid:.3e} m"
    );
    assert!(balance < 1e-9, "vertical equilibrium off by {balance:.3e} W");
    assert!(share < 1e-4, "link share off Euler-Bernoulli by {share:.3e}");
    assert!((tension - stay_z).abs() < 1e-6 * tension, "the link pulls straight up");
    assert!(tip.abs() < 1e-6 && mid < -1e-5, "the link holds the tip (z {tip:.3e}), midspan sags ({mid:.3e})");
}

// ---------------------------------------------------------------- 4. driven length

const L0: f64 = 0.6;
const AMP: f64 = 0.1;
const W: f64 = 4.0;

fn driven_length(t: f64) -> [f64; 3] {
    let (s, c) = (W * t).sin_cos();
    [L0 + AMP * s, AMP * W * c, -AMP * W * W * s]
}

/// A mass on a driven link: hanging below the ground point (2D and 3D), or standing on top of
/// it, guided by a vertical prismatic joint (2D).
fn driven_model(case: &str) -> String {
    let drive = format!("drive = \"{L0} + {AMP}*sin({W}*t)\"");
    let outs = |vertical: &str| {
        outputs(&[
            ("h", vertical, "body = \"bob\""),
            ("drive", "drive_force", "joint = \"link\""),
            ("tension", "link_force", "joint = \"link\""),
            ("length", "joint_position", "joint = \"link\""),
            ("energy", "energy_total", ""),
            ("supplied", "energy_supplied", ""),
        ])
    };
    match case {
        "hanging" => format!(
            "[model]\nname = \"winch\"\ngravity = [0.0, -{G}]\n[[point_masses]]\nname = \"bob\"\nmass = 2.0\n\
             position = [0.0, -{L0}]\n[[joints]]\nname = \"link\"\ntype = \"distance\"\npoint1 = [0.0, 0.0]\n\
             body2 = \"bob\"\n{drive}\n{}",
            outs("y")
        ),
        "standing" => format!(
            "[model]\nname = \"jack\"\ngravity = [0.0, -{G}]\n[[point_masses]]\nname = \"bob\"\nmass = 2.0\n\
             position = [0.0, {L0}]\n[[joints]]\nname = \"link\"\ntype = \"distance\"\npoint1 = [0.0, 0.0]\n\
             body2 = \"bob\"\n{drive}\n[[joints]]\nname = \"guide\"\ntype = \"prismatic\"\nbody2 = \"bob\"\n\
             axis = [0.0, 1.0]\n{}",
            outs("y")
        ),
        _ => format!(
            "[model]\nname = \"winch3\"\ndimension = 3\ngravity = [0.0, 0.0, -{G}]\n[[rigid_bodies]]\nname = \"bob\"\n\
             mass = 2.0\ninertia = [0.01, 0.02, 0.03]\nposition = [0.0, 0.0, -{L0}]\n[[joints]]\nname = \"link\"\n\
             type = \"distance\"\npoint1 = [0.0, 0.0, 0.0]\nbody2 = \"bob\"\n{drive}\n{}",
            outs("z")
        ),
    }
}

/// (position error, drive force error / m g, link force + drive force, energy balance error /
/// energy scale) of a driven-link case over 2 s with step h.
fn driven_run(case: &str, h: f64) -> (f64, f64, f64, f64) {
    let m = 2.0;
    let mut sim = simulation(&driven_model(case), h, 0.8);
    let up = if case == "standing" { 1.0 } else { -1.0 };
    let e0 = output(&mut sim, "energy");
    let (mut position, mut force, mut opposite, mut energy) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let scale = m * G * AMP + 0.5 * m * (AMP * W).powi(2);
    for k in 0..=((2.0 / h).round() as usize) {
        let t = k as f64 * h;
        if k > 0 {
            sim.step_to(t).unwrap();
        }
        let [len, _, acc] = driven_length(t);
        position = position.max((output(&mut sim, "h") - up * len).abs());
        position = position.max((output(&mut sim, "length") - len).abs());
        // The force along the increasing length on the mass: hanging, -m (g - L''); standing,
        // m (g + L'').
        let expected = if up > 0.0 { m * (G + acc) } else { -m * (G - acc) };
        let drive = output(&mut sim, "drive");
        force = force.max((drive - expected).abs() / (m * G));
        opposite = opposite.max((drive + output(&mut sim, "tension")).abs());
        let change = output(&mut sim, "energy") - e0;
        energy = energy.max((output(&mut sim, "supplied") - change).abs() / scale);
    }
    (position, force, opposite, energy)
}

#[test]
fn driven_link_length_moves_the_mass_and_its_force_is_inverse_dynamics() {
    for case in ["hanging", "standing", "hanging 3D"] {
        let (position, force, opposite, energy) = driven_run(case, 1e-3);
        let (_, _, _, energy_fine) = driven_run(case, 5e-4);
        eprintln!(
            "{case}: position {position:.2e} m, drive_force {force:.2e} m g, link_force + drive_force {opposite:.1e} N, \
             energy_supplied vs energy change {energy:.2e} (h = 1e-3), {energy_fine:.2e} (h = 5e-4) of the energy scale"
        );
        assert!(position < 1e-9, "{case}: position off the drive by {position:.3e}");
        assert!(force < 1e-8, "{case}: drive_force off the inverse dynamics by {force:.3e} m g");
        assert!(opposite == 0.0, "{case}: link_force is -drive_force ({opposite:.3e})");
        assert!(energy < 1e-6, "{case}: energy balance off by {energy:.3e}");
        assert!(energy_fine < energy / 3.0, "{case}: second order ({energy:.3e} -> {energy_fine:.3e})");
    }
}

// ---------------------------------------------------------------- 5. bad input

const BASE: &str = r#"[model]
name = "links"
gravity = [0.0, -9.81]

[[point_masses]]
name = "bob"
mass = 1.0
position = [0.3, -0.7]

[[rigid_bodies]]
name = "arm"
mass = 1.0
inertia = 0.01
position = [1.0, 0.0]

[[joints]]
name = "link"
type = "distance"
body1 = "ground"
point1 = [0.0, 0.0]
body2 = "bob"
point2 = [0.3, -0.7]

[[joints]]
name = "pin"
type = "revolute"
body2 = "arm"
point = [1.2, 0.0]

[[outputs]]
name = "tension"
quantity = "link_force"
joint = "link"
"#;

const BASE3: &str = r#"[model]
name = "links3"
dimension = 3

[[rigid_bodies]]
name = "bob"
mass = 1.0
inertia = [0.1, 0.1, 0.1]
position = [0.0, 0.0, -1.0]

[[joints]]
name = "link"
type = "distance"
point1 = [0.0, 0.0, 0.0]
body2 = "bob"
point2 = [0.0, 0.0, -0.9]
"#;

#[test]
fn bad_distance_joints_are_located_errors() {
    assert!(common::sim::parse_and_assemble(BASE, "links.toml").is_ok());
    assert!(common::sim::parse_and_assemble(BASE3, "links3.toml").is_ok());
    let planar = [
        ("point1 = [0.0, 0.0]", "point1 = [0.3, -0.7]", "coincide initially"),
        // 0.7 - 0.4 = 0.29999999999999993: apart by round-off only.
        ("point1 = [0.0, 0.0]", "point1 = [\"0.7 - 0.4\", -0.7]", "coincide initially"),
        ("point2 = [0.3, -0.7]", "length = 0.0\npoint2 = [0.3, -0.7]", "length must be positive, got 0"),
        ("point2 = [0.3, -0.7]", "length = \"-1\"\npoint2 = [0.3, -0.7]", "length must be positive, got -1"),
        ("body2 = \"bob\"", "body2 = \"bbo\"", "unknown body 'bbo'"),
        ("body1 = \"ground\"", "body1 = \"gruond\"", "unknown body 'gruond'"),
        ("point1 = [0.0, 0.0]", "point = [0.0, 0.0]", "a distance joint takes `point1` and `point2`, not `point`"),
        ("point1 = [0.0, 0.0]", "point1x = 1.0", "unknown field `point1x`"),
        ("body1 = \"ground\"\npoint1 = [0.0, 0.0]", "body1 = \"ground\"", "a distance joint to ground needs `point1`"),
        ("point = [1.2, 0.0]", "point1 = [1.2, 0.0]", "`point1` and `point2` apply to distance joints"),
        ("point = [1.2, 0.0]", "length = 1.0\npoint = [1.2, 0.0]", "`length` applies to distance joints"),
        ("point2 = [0.3, -0.7]", "drive = \"-0.5 + t\"\npoint2 = [0.3, -0.7]", "must be positive; it is -0.5 at t = 0"),
        (
            "point2 = [0.3, -0.7]",
            "length = 0.5\ndrive = \"0.5 + t\"\npoint2 = [0.3, -0.7]",
            "give either `length` or `drive`",
        ),
        ("joint = \"link\"", "joint = \"pin\"", "link_force needs a distance joint"),
    ];
    for (from, to, message) in planar {
        let (err, line) = refused(BASE, "links.toml", from, to);
        assert!(err.to_string().contains(message), "{to}: {err}");
        assert_eq!(err.line, line, "{to}: {err}");
    }
    let spatial = [
        ("point1 = [0.0, 0.0, 0.0]", "point1 = [0.0, 0.0, -0.9]", "coincide initially"),
        ("point2 = [0.0, 0.0, -0.9]", "length = -2.0\npoint2 = [0.0, 0.0, -0.9]", "length must be positive"),
        ("body2 = \"bob\"", "body2 = \"bb\"", "unknown body 'bb'"),
        ("point1 = [0.0, 0.0, 0.0]", "point1 = [0.0, 0.0]", "[x, y, z]"),
        ("type = \"distance\"", "type = \"spherical\"", "`point1` and `point2` apply to distance joints"),
    ];
    for (from, to, message) in spatial {
        let (err, line) = refused(BASE3, "links3.toml", from, to);
        assert!(err.to_string().contains(message), "{to}: {err}");
        let expected = if to.starts_with("type") { line + 1 } else { line };
        assert_eq!(err.line, expected, "{to}: {err}");
    }
}

/// A `length` other than the initial distance: the initial configuration is projected onto
/// it (minimum-norm correction), as any violated joint at t = 0.
#[test]
fn a_length_other_than_the_initial_distance_is_assembled() {
    let text = BASE.replacen("point2 = [0.3, -0.7]", "point2 = [0.3, -0.7]\nlength = 0.5", 1);
    let model = Model::parse(&text, "links.toml").unwrap();
    let asm = flexfmu::mechanics::assemble::assemble(&model, &model.default_parameters()).unwrap();
    let x = asm.system.body("bob").unwrap().x;
    let (px, py) = (asm.initial.q[x], asm.initial.q[x + 1]);
    let r = px.hypot(py);
    eprintln!("bob moved from (0.3, -0.7) to ({px:.6}, {py:.6}), |P| = {r:.15}");
    assert!((r - 0.5).abs() < 1e-12, "|P| = {r}");
    // Minimum norm: straight towards the ground point, along the link.
    let d = 0.3f64.hypot(0.7);
    assert!((px - 0.3 * 0.5 / d).abs() < 1e-12 && (py + 0.7 * 0.5 / d).abs() < 1e-12, "({px}, {py})");
}

// ---------------------------------------------------------------- 6. FMU

/// models/crank_slider_link.toml through the FMU (FMI 2.0, the `fmi` crate) at the output
/// times of `flexfmu simulate`: the same rows.
#[test]
fn fmu_with_a_distance_joint_equals_flexfmu_simulate() {
    use fmi::fmi2::instance::CoSimulation;
    let dir = tempfile::tempdir().unwrap();
    let path = common::sim::model_path("crank_slider_link");
    let (header, rows, _) =
        common::cli::simulate_with_states(&path, &dir.path().join("out.csv"), &dir.path().join("states.json"), "0.3");
    let model = Model::load(&path).unwrap();
    let fmu = common::fmu::Fmu::build(&model);
    let out: Vec<u32> = header[1..].iter().map(|n| fmu.vr(n)).collect();
    let mut inst = fmu.start("link", None, |_| {});
    let (mut t, mut worst, mut identical) = (0.0, 0.0f64, 0usize);
    for (k, row) in rows.iter().enumerate() {
        if k > 0 {
            inst.do_step(t, row[0] - t, true).unwrap();
            t = row[0];
        }
        let got = common::fmu::read(&mut inst, &out);
        for (g, e) in got.iter().zip(&row[1..]) {
            identical += usize::from(g.to_bits() == e.to_bits());
            worst = worst.max((g - e).abs() / e.abs().max(1.0));
        }
    }
    let total = rows.len() * out.len();
    eprintln!("FMU vs simulate: {identical} of {total} values identical, worst difference {worst:.2e}");
    assert_eq!(rows.len(), 31);
    assert!(worst < 1e-12, "FMU and simulate differ by {worst:.3e}");
}
