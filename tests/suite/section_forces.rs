//! Beam section forces (`axial_force`, `shear_force`, `bending_moment`; spatial
//! `shear_force_y`, `shear_force_z`, `torsional_moment`, `bending_moment_y`,
//! `bending_moment_z`; src/mechanics/section_forces.rs): what the beam beyond a node exerts on
//! the beam before it, in the element axes. References:
//! - statics of a cantilever under a tip force F at large deflection: the moment at a node is
//!   (r_tip - r_node) x F exactly (the balance of the beam beyond it), at the tip 0; the force
//!   at the tip's section is F, |(N, V)| = |F|;
//! - a tip torque about the axis of a straight beam: the torsional moment is that torque at
//!   every node, and nothing else;
//! - a planar problem in a spatial model gives the planar element's values (the planar
//!   components are the spatial x-y plane's: shear_force_y, bending_moment_z);
//! - in motion, a Kelvin-Voigt damped beam's resultants include the damping stresses; a
//!   pendulum beam swinging under gravity has N = 0 at its free end and M -> 0 there as the
//!   mesh is refined, and the moment at the pin, which holds no moment, likewise.

use crate::common;
use common::sim::output;
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};

/// A clamped cantilever (length 2 m, 8 Timoshenko elements) under the tip force P (0.3, -1)/|.|
/// in the model's plane (planar, or the x-y or x-z plane of a spatial model), with the tip
/// position and section forces at nodes 0, 4 and 8 as outputs.
fn cantilever(spatial: Option<usize>) -> String {
    let (dimension, point, section, direction, bending, shear) = match spatial {
        None => ("", "[0.0, 0.0]", "EI = 1e3", "[0.3, -1.0]", "bending_moment", "shear_force"),
        Some(plane) => (
            "dimension = 3\n",
            "[0.0, 0.0, 0.0]",
            "EIy = 1e3, EIz = 1e3, GJ = 1e3",
            if plane == 1 { "[0.3, -1.0, 0.0]" } else { "[0.3, 0.0, -1.0]" },
            if plane == 1 { "bending_moment_z" } else { "bending_moment_y" },
            if plane == 1 { "shear_force_y" } else { "shear_force_z" },
        ),
    };
    let end = if spatial.is_some() { "[2.0, 0.0, 0.0]" } else { "[2.0, 0.0]" };
    let transverse = if spatial == Some(2) { "z" } else { "y" };
    let mut text = format!(
        "[model]\nname = \"cantilever\"\n{dimension}\n[[beams]]\nname = \"arm\"\nstart = {point}\nend = {end}\n\
         elements = 8\nsection = {{ EA = 1e7, GA = 1e7, {section}, mass_per_length = 1.0 }}\n\
         formulation = \"timoshenko\"\n\n[[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"arm.start\"\n\
         point = {point}\n\n[[loads]]\ntype = \"force\"\nbody = \"arm.end\"\ndirection = {direction}\n\
         value = \"1000*t\"\n"
    );
    for node in [0, 4, 8] {
        for (name, quantity) in [("x", "x"), ("t", transverse), ("N", "axial_force"), ("V", shear), ("M", bending)] {
            text += &format!(
                "\n[[outputs]]\nname = \"{name}{node}\"\nquantity = \"{quantity}\"\nbody = \"arm.node[{node}]\"\n"
            );
        }
    }
    text
}

fn simulation(text: &str) -> Simulation {
    let model = Model::parse(text, "model.toml").unwrap_or_else(|e| panic!("{e}"));
    let params = model.default_parameters();
    let settings = SolverSettings::from_model(&model, &params).unwrap();
    Simulation::new(&model, &params, settings, 0.0).unwrap()
}

/// The static equilibrium under the full load: per node 0, 4, 8 (x, transverse, N, V, M).
fn loaded_cantilever(spatial: Option<usize>) -> [[f64; 5]; 3] {
    loaded(&cantilever(spatial))
}

/// `loaded_cantilever` of the model `text`.
fn loaded(text: &str) -> [[f64; 5]; 3] {
    let mut sim = simulation(text);
    sim.settle_static(1.0).unwrap();
    [0, 4, 8].map(|node| ["x", "t", "N", "V", "M"].map(|q| output(&mut sim, &format!("{q}{node}"))))
}

/// At a tip deflection of 0.6 L, the bending moment at each node balances the tip force about
/// it, the tip's is zero, and the tip section carries the whole force, with the corotational
/// and the ANCF element (its moment the work of the slope's generalized force on a turn of the
/// slope); the spatial element in
/// the x-y plane gives the planar element's values, in the x-z plane the same with the moment
/// about y the negative of the planar one (turning x towards z is a negative turn about y).
#[test]
fn section_moments_balance_the_tip_force_at_large_deflection() {
    let norm = (0.3f64 * 0.3 + 1.0).sqrt();
    let planar = loaded_cantilever(None);
    let ancf = loaded(&cantilever(None).replace("\"timoshenko\"", "\"ancf\""));
    let runs =
        [(None, planar), (Some(1), loaded_cantilever(Some(1))), (Some(2), loaded_cantilever(Some(2))), (Some(0), ancf)];
    for (spatial, f) in runs {
        let force = [1000.0 * 0.3 / norm, -1000.0 / norm];
        let tip = f[2];
        // The moment of the tip force about the node, about the out-of-plane axis: z for the
        // x-y plane, y for the x-z plane (whose in-plane coordinates are (x, z): (r x F)_y =
        // dz Fx - dx Fz, the negative of the x-y formula).
        let sign = if spatial == Some(2) { -1.0 } else { 1.0 };
        for (k, node) in f.iter().enumerate() {
            let (dx, dt) = (tip[0] - node[0], tip[1] - node[1]);
            let moment = sign * (dx * force[1] - dt * force[0]);
            println!(
                "{spatial:?} node {}: M {:.9e} against {moment:.9e}, N {:.6e}, V {:.6e}",
                4 * k,
                node[4],
                node[2],
                node[3]
            );
            assert!(
                (node[4] - moment).abs() < 1e-8 * 1000.0 * 2.0,
                "{spatial:?} node {}: {} vs {moment}",
                4 * k,
                node[4]
            );
        }
        assert!(tip[1].abs() > 1.0, "the tip deflected only {} m", tip[1]);
        let tip_force = tip[2].hypot(tip[3]);
        assert!((tip_force - 1000.0).abs() < 1e-6 * 1000.0, "{spatial:?}: |(N, V)| = {tip_force}");
        // Towards the tip the beam is stretched by the force's component along it.
        assert!(tip[2] > 0.0, "{spatial:?}: N {}", tip[2]);
        // The ANCF element (`Some(0)`) is another discretization: its own deflection, its own
        // resultants.
        for (a, b) in f.iter().zip(&planar).filter(|_| spatial != Some(0)) {
            for (c, s) in [(2, 1.0), (3, 1.0), (4, sign)] {
                assert!((a[c] - s * b[c]).abs() < 1e-8 * 1000.0 * 2.0, "{spatial:?}: {a:?} against planar {b:?}");
            }
        }
    }
}

/// A tip torque about the axis of a straight spatial beam (a 3 m shaft, 6 elements, twisted by
/// 1.3 rad): the torsional moment is the torque at every node, the other resultants vanish.
#[test]
fn a_twisted_shaft_carries_its_torque_at_every_section() {
    let mut text = String::from(
        "[model]\nname = \"shaft\"\ndimension = 3\ngravity = [0.0, 0.0, 0.0]\n\n[[beams]]\nname = \"shaft\"\n\
         start = [0.0, 0.0, 0.0]\nend = [3.0, 0.0, 0.0]\nelements = 6\n\
         section = { EA = 1e8, GA = 1e7, EIy = 2e4, EIz = 3e4, GJ = 1e4, mass_per_length = 2.0 }\n\n\
         [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"shaft.start\"\npoint = [0.0, 0.0, 0.0]\n\n\
         [[loads]]\ntype = \"torque\"\nbody = \"shaft.end\"\ndirection = [1.0, 0.0, 0.0]\nvalue = \"4333.0*t\"\n",
    );
    let quantities =
        ["axial_force", "shear_force_y", "shear_force_z", "torsional_moment", "bending_moment_y", "bending_moment_z"];
    for node in 0..=6 {
        for q in quantities {
            text +=
                &format!("\n[[outputs]]\nname = \"{q}{node}\"\nquantity = \"{q}\"\nbody = \"shaft.node[{node}]\"\n");
        }
    }
    let mut sim = simulation(&text);
    sim.settle_static(1.0).unwrap();
    for node in 0..=6 {
        let values = quantities.map(|q| output(&mut sim, &format!("{q}{node}")));
        println!("node {node}: {values:?}");
        assert!((values[3] - 4333.0).abs() < 1e-8 * 4333.0, "node {node}: T {}", values[3]);
        for (q, v) in quantities.iter().zip(values).filter(|(q, _)| **q != "torsional_moment") {
            assert!(v.abs() < 1e-6, "node {node}: {q} {v}");
        }
    }
}

/// Unknown bodies, bodies that are no corotational beam node and a `point` are located
/// errors.
#[test]
fn a_section_force_needs_a_corotational_beam_node() {
    let text = cantilever(None).replacen(
        "[[joints]]",
        "[[rigid_bodies]]\nname = \"box\"\nmass = 1.0\ninertia = 1.0\nposition = [3.0, 0.0]\n\n[[joints]]",
        1,
    ) + "\n[[outputs]]\nname = \"probe\"\nquantity = \"bending_moment\"\nBODY\n";
    let error = |body: &str| {
        let text = text.replacen("BODY", body, 1);
        let model = Model::parse(&text, "model.toml").unwrap();
        let e =
            flexfmu::mechanics::assemble::assemble(&model, &model.default_parameters()).map(|_| ()).expect_err(body);
        let line = text[..text.find(body).unwrap()].lines().count() + 1;
        println!("{e}");
        assert!((line - 1..=line + 1).contains(&e.line), "{e}");
        e.to_string()
    };
    assert!(error("body = \"arm.nod[4]\"").contains("unknown body 'arm.nod[4]'"));
    assert!(error("body = \"box\"").contains("'box' is none"));
    assert!(error("body = \"arm.node[4]\"\npoint = [1.0, 0.0]").contains("no `point`"));
    assert!(error("joint = \"clamp\"").contains("needs `body`"));
}

/// In motion: the flexible pendulum of models/pendulum_corotational.toml swinging under
/// gravity. Its pin holds no moment and its tip is free, so there the bending moment and the
/// axial force are zero in the continuum; the elements' end values carry the end node's share
/// of the inertia forces and converge to zero as the mesh is refined (at 0.6 s, against the
/// centrifugal tension at the middle, up to 28 N): each fourfold refinement cuts the pin's
/// moment at least threefold (it fell 26 and 18 times) and the tip's tension, the tip node's
/// share of the centripetal force (~1/n), at least twofold (2.3 and 4.1 times).
#[test]
fn a_swinging_beam_has_no_moment_at_its_pin_and_no_tension_at_its_tip() {
    let text = std::fs::read_to_string(common::sim::model_path("pendulum_corotational")).unwrap()
        + "\n[[outputs]]\nname = \"M_pin\"\nquantity = \"bending_moment\"\nbody = \"arm.start\"\n\
           \n[[outputs]]\nname = \"N_mid\"\nquantity = \"axial_force\"\nbody = \"arm.node[elements/2]\"\n\
           \n[[outputs]]\nname = \"N_tip\"\nquantity = \"axial_force\"\nbody = \"arm.end\"\n";
    let model = Model::parse(&text, "pendulum.toml").unwrap();
    let at = |elements: f64| {
        let mut sim = common::sim::simulation_with(&model, &[("elements", elements)], |_| {});
        let mut worst = [0.0f64; 2];
        let mut tension = 0.0f64;
        for k in 1..=6 {
            sim.step_to(0.1 * k as f64).unwrap();
            worst[0] = worst[0].max(output(&mut sim, "M_pin").abs());
            worst[1] = worst[1].max(output(&mut sim, "N_tip").abs());
            tension = tension.max(output(&mut sim, "N_mid"));
        }
        println!(
            "{elements} elements: |M_pin| {:.3e} N m, |N_tip| {:.3e} N, N_mid up to {tension:.2} N",
            worst[0], worst[1]
        );
        (worst, tension)
    };
    let runs = [4.0, 16.0, 64.0].map(at);
    for pair in runs.windows(2) {
        let ((coarse, _), (fine, tension)) = (pair[0], pair[1]);
        assert!(tension > 10.0, "the middle is not in tension: {tension} N");
        assert!(fine[0] < coarse[0] / 3.0 && fine[1] < coarse[1] / 2.0, "{fine:?} after {coarse:?}");
    }
    assert!(runs[2].0[0] < 1e-3 && runs[2].0[1] < 0.1 * runs[2].1, "{:?}", runs[2]);
}
