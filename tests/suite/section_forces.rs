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
//! - under self-weight, the resultants of beam theory: a cantilever's M(x) = -w (L - x)^2 / 2
//!   and V(x) = -w (L - x) at every node, zero at the tip (the elements' end forces include
//!   their fixed-end loads);
//! - in motion, a pendulum beam swinging under gravity has no moment at its pin and nothing at
//!   its free tip, and its pin section carries the pin's reaction.

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
    assert!(error("body = \"box\"").contains("'box' is not where a beam's section forces are"));
    assert!(error("body = \"arm.node[4]\"\npoint = [1.0, 0.0]").contains("no `point`"));
    assert!(error("joint = \"clamp\"").contains("needs `body`"));
}

/// In motion: the flexible pendulum of models/pendulum_corotational.toml swinging under
/// gravity, with 4 and 16 elements. Its pin holds no moment and its tip is free, so the moment
/// at the pin and all three resultants at the tip are zero (to round-off, against the ~30 N of
/// tension in the arm): the element's end forces include its inertia and weight. The force at
/// the pin's section is the pin's reaction on the beam, turned into the first element's chord
/// axes and reversed (the beam beyond the pin pulls on the pin).
#[test]
fn a_swinging_beam_has_no_moment_at_its_pin_and_nothing_at_its_tip() {
    let mut text = std::fs::read_to_string(common::sim::model_path("pendulum_corotational")).unwrap();
    for (name, quantity, body) in [
        ("M_pin", "bending_moment", "arm.start"),
        ("N_pin", "axial_force", "arm.start"),
        ("V_pin", "shear_force", "arm.start"),
        ("N_tip", "axial_force", "arm.end"),
        ("V_tip", "shear_force", "arm.end"),
        ("M_tip", "bending_moment", "arm.end"),
        ("x1", "x", "arm.node[1]"),
        ("y1", "y", "arm.node[1]"),
    ] {
        text += &format!("\n[[outputs]]\nname = \"{name}\"\nquantity = \"{quantity}\"\nbody = \"{body}\"\n");
    }
    text += "\n[[outputs]]\nname = \"Rx\"\nquantity = \"reaction_x\"\njoint = \"pin\"\n\
             \n[[outputs]]\nname = \"Ry\"\nquantity = \"reaction_y\"\njoint = \"pin\"\n";
    let model = Model::parse(&text, "pendulum.toml").unwrap();
    for elements in [4.0, 16.0] {
        let mut sim = common::sim::simulation_with(&model, &[("elements", elements)], |_| {});
        let mut tension = 0.0f64;
        for k in 1..=6 {
            sim.step_to(0.1 * k as f64).unwrap();
            let value = |sim: &mut Simulation, name: &str| output(sim, name);
            let (n, v, m) = (value(&mut sim, "N_pin"), value(&mut sim, "V_pin"), value(&mut sim, "M_pin"));
            let tip = ["N_tip", "V_tip", "M_tip"].map(|q| value(&mut sim, q));
            let (x1, y1) = (value(&mut sim, "x1"), value(&mut sim, "y1"));
            let (rx, ry) = (value(&mut sim, "Rx"), value(&mut sim, "Ry"));
            // The pin is at the origin: the first chord runs to node 1.
            let l = x1.hypot(y1);
            let (e1, e2) = ([x1 / l, y1 / l], [-y1 / l, x1 / l]);
            let reaction = [-(rx * e1[0] + ry * e1[1]), -(rx * e2[0] + ry * e2[1])];
            tension = tension.max(n);
            println!(
                "{elements} el., t = {:.1}: pin (N, V, M) = ({n:.6}, {v:.6}, {m:.2e}), reaction ({:.6}, {:.6}), tip {tip:?}",
                sim.time(),
                reaction[0],
                reaction[1]
            );
            let scale = 1e-9 * n.abs().max(1.0);
            assert!(m.abs() < scale && tip.iter().all(|f| f.abs() < scale), "{m} {tip:?}");
            assert!((n - reaction[0]).abs() < scale && (v - reaction[1]).abs() < scale, "{n} {v} against {reaction:?}");
        }
        assert!(tension > 10.0, "the arm is not in tension: {tension} N");
    }
}

/// Under self-weight (and under the same `distributed_force` instead): a steel
/// cantilever 1 m long, 20 x 20 mm, w = rho A g = 30.8034 N/m, has M(x) = -w (L - x)^2 / 2 and
/// V(x) = -w (L - x) at every node (beam theory; y up, the weight along -y), zero at the tip,
/// to the sag's second-order effect on the arms (1e-6); the spatial beam with the weight
/// along -z and only 2 elements, M_y = +w (L - x)^2 / 2 and V_z = -w (L - x) (the element end
/// forces carry the fixed-end loads, so two elements are as exact as ten).
#[test]
fn a_cantilever_under_its_weight_has_the_moments_of_beam_theory() {
    let (l, w) = (1.0, 7850.0 * 0.02 * 0.02 * 9.81);
    let beam = |spatial: bool, elements: usize, load: &str| {
        let (dimension, point, end, mut gravity, section) = if spatial {
            (
                "dimension = 3\n",
                "[0.0, 0.0, 0.0]",
                "[1.0, 0.0, 0.0]",
                "[0.0, 0.0, -9.81]",
                "iy = 1.3333333333333333e-8, iz = 1.3333333333333333e-8, j = 2.25e-8",
            )
        } else {
            ("", "[0.0, 0.0]", "[1.0, 0.0]", "[0.0, -9.81]", "inertia = 1.3333333333333333e-8")
        };
        if !load.is_empty() {
            gravity = if spatial { "[0.0, 0.0, 0.0]" } else { "[0.0, 0.0]" };
        }
        let mut text = format!(
            "[model]\nname = \"weight\"\n{dimension}gravity = {gravity}\n\n[[beams]]\nname = \"arm\"\nstart = {point}\n\
             end = {end}\nelements = {elements}\nformulation = \"euler_bernoulli\"\nsection = {{ area = 4e-4, {section} }}\n\
             material = {{ E = 2.1e11, nu = 0.3, rho = 7850.0 }}\n\n[[joints]]\nname = \"clamp\"\ntype = \"fixed\"\n\
             body1 = \"ground\"\nbody2 = \"arm.start\"\npoint = {point}\n{load}"
        );
        let (m, v) = if spatial { ("bending_moment_y", "shear_force_z") } else { ("bending_moment", "shear_force") };
        for k in 0..=elements {
            text += &format!(
                "\n[[outputs]]\nname = \"M{k}\"\nquantity = \"{m}\"\nbody = \"arm.node[{k}]\"\n\
                 \n[[outputs]]\nname = \"V{k}\"\nquantity = \"{v}\"\nbody = \"arm.node[{k}]\"\n"
            );
        }
        let mut sim = simulation(&text);
        sim.settle_static(0.0).unwrap();
        (0..=elements)
            .map(|k| (output(&mut sim, &format!("M{k}")), output(&mut sim, &format!("V{k}"))))
            .collect::<Vec<_>>()
    };
    let line_load =
        format!("\n[[loads]]\ntype = \"distributed_force\"\nbody = \"arm\"\ndirection = [0.0, -1.0]\nvalue = {w}\n");
    let runs = [
        ("planar, weight", 1.0, beam(false, 10, "")),
        ("planar, distributed force", 1.0, beam(false, 10, &line_load)),
        ("spatial, weight, 2 elements", -1.0, beam(true, 2, "")),
        (
            "spatial, distributed force, 2 elements",
            -1.0,
            beam(true, 2, &line_load.replace("[0.0, -1.0]", "[0.0, 0.0, -1.0]")),
        ),
    ];
    for (what, sign, values) in runs {
        let n = values.len() - 1;
        for (k, (m, v)) in values.iter().enumerate() {
            let rest = l * (n - k) as f64 / n as f64;
            let (m_exact, v_exact) = (-sign * w * rest * rest / 2.0, -w * rest);
            println!("{what}, x = {:.2}: M {m:.6} against {m_exact:.6}, V {v:.6} against {v_exact:.6}", l - rest);
            assert!((m - m_exact).abs() < 2e-6 * w * l * l / 2.0, "{what}: M {m} against {m_exact}");
            assert!((v - v_exact).abs() < 2e-6 * w * l, "{what}: V {v} against {v_exact}");
        }
    }
}
