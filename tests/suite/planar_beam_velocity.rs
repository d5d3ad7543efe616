//! Initial rigid motion of planar `[[beams]]` (`velocity` of `start`, `angular_velocity`), for
//! every formulation. References:
//! - a free beam translating at v: every node moves by v T, kinetic energy 1/2 m |v|^2;
//! - a free stiff beam also spinning at w about its start: kinetic energy of the rigid beam,
//!   1/2 (m |v_c|^2 + J_c w^2) with v_c = v + w z x (r_c - r_start), J_c = m L^2/12 + rho I L
//!   (the section's rotary inertia; the floating-frame beam neglects it: m L^2/12), and after T
//!   the rigid motion: start at r_c + v_c T - R(a + w T) (L/2, 0), axis angle a + w T;
//! - a beam pinned at its start, given only w: the first CSV row has the tip velocity w L
//!   normal to the axis; a given velocity the pin forbids is the pin's located error.

use crate::common::cli::EXE;
use crate::common::sim::{parse_and_assemble, refused};
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};
use std::process::Command;

const L: f64 = 1.0;
/// Angle of the beam's axis, start and stiff section: aluminium, 20 x 30 mm.
const A: f64 = 0.5;
const START: [f64; 2] = [0.3, -0.2];
const AREA: f64 = 6e-4;
const INERTIA: f64 = 4.5e-8;
const RHO: f64 = 2700.0;
const YOUNG: f64 = 7e10;

/// The formulations: the lines that select each, and a body inside the beam (besides its ends).
const FORMULATIONS: [(&str, &str, Option<&str>); 4] = [
    ("timoshenko", "elements = 4", Some("arm.node[1]")),
    ("euler_bernoulli", "elements = 4", Some("arm.node[2]")),
    ("ancf", "elements = 3", Some("arm.mid[1]")),
    ("floating_frame", "modes = 3", None),
];

fn end() -> [f64; 2] {
    [START[0] + L * A.cos(), START[1] + L * A.sin()]
}

/// A beam of `formulation` from START along the angle A with the initial-motion lines `motion`
/// and the extra tables `rest`; outputs `energy_kinetic`, then x and y of each of `bodies`.
fn model(formulation: &str, discretisation: &str, motion: &str, rest: &str, bodies: &[&str]) -> String {
    let [x1, y1] = end();
    let mut text = format!(
        "[model]\nname = \"arm\"\n\n[[beams]]\nname = \"arm\"\nstart = [{:e}, {:e}]\nend = [{x1:e}, {y1:e}]\n\
         formulation = \"{formulation}\"\n{discretisation}\nsection = {{ area = {AREA:e}, inertia = {INERTIA:e} }}\n\
         material = {{ E = {YOUNG:e}, nu = 0.3, rho = {RHO:e} }}\n{motion}\n{rest}\
         [[outputs]]\nname = \"energy_kinetic\"\nquantity = \"energy_kinetic\"\n",
        START[0], START[1]
    );
    for (i, body) in bodies.iter().enumerate() {
        for q in ["x", "y"] {
            text += &format!("[[outputs]]\nname = \"{q}{i}\"\nquantity = \"{q}\"\nbody = \"{body}\"\n");
        }
    }
    text
}

/// The bodies of a formulation whose positions the tests follow: start, an inner one, end.
fn bodies(inner: Option<&str>) -> Vec<&str> {
    ["arm.start"].into_iter().chain(inner).chain(["arm.end"]).collect()
}

fn simulation(text: &str) -> Simulation {
    let model = Model::parse(text, "arm.toml").unwrap_or_else(|e| panic!("{e}"));
    let settings = SolverSettings { tolerance: 1e-12, ..SolverSettings::default() };
    Simulation::new(&model, &model.default_parameters(), settings, 0.0).unwrap_or_else(|e| panic!("{e}"))
}

/// Positions (x, y) of the followed bodies: outputs 1.. in pairs.
fn positions(sim: &mut Simulation) -> Vec<[f64; 2]> {
    sim.output_values().unwrap()[1..].chunks(2).map(|p| [p[0], p[1]]).collect()
}

#[test]
fn translating_beam_moves_every_node_by_v_t() {
    let (v, t_end) = ([0.7, -0.4], 0.5);
    let mass = RHO * AREA * L;
    let reference = 0.5 * mass * (v[0] * v[0] + v[1] * v[1]);
    for (formulation, discretisation, inner) in FORMULATIONS {
        let followed = bodies(inner);
        let motion = format!("velocity = [{}, {}]", v[0], v[1]);
        let mut sim = simulation(&model(formulation, discretisation, &motion, "", &followed));
        let (p0, e0) = (positions(&mut sim), sim.output_values().unwrap()[0]);
        sim.step_to(t_end).unwrap();
        let (p1, e1) = (positions(&mut sim), sim.output_values().unwrap()[0]);
        let moved = p0
            .iter()
            .zip(&p1)
            .map(|(a, b)| (0..2).map(|k| (b[k] - a[k] - v[k] * t_end).abs()).fold(0.0, f64::max))
            .fold(0.0, f64::max);
        let (err0, err1) = ((e0 / reference - 1.0).abs(), (e1 / reference - 1.0).abs());
        println!(
            "{formulation}: after {t_end} s, max |displacement - v T| over {followed:?} = {moved:.2e} m; \
             kinetic energy {e0:.12} J vs 1/2 m v^2 = {reference:.12} J: relative error {err0:.1e} at 0, {err1:.1e} at T"
        );
        assert!(moved < 1e-9, "{formulation}: {moved}");
        assert!(err0 < 1e-12 && err1 < 1e-9, "{formulation}: {err0} {err1}");
    }
}

#[test]
fn spinning_beam_starts_with_the_rigid_kinetic_energy_and_turns_rigidly() {
    let (v, w, t_end) = ([0.7, -0.4], 3.0, 0.5);
    let mass = RHO * AREA * L;
    let axis = [A.cos(), A.sin()];
    let centre = [START[0] + 0.5 * L * axis[0], START[1] + 0.5 * L * axis[1]];
    let vc = [v[0] - w * 0.5 * L * axis[1], v[1] + w * 0.5 * L * axis[0]];
    for (formulation, discretisation, inner) in FORMULATIONS {
        let rotary = if formulation == "floating_frame" { 0.0 } else { RHO * INERTIA * L };
        let jc = mass * L * L / 12.0 + rotary;
        let reference = 0.5 * (mass * (vc[0] * vc[0] + vc[1] * vc[1]) + jc * w * w);
        let motion = format!("velocity = [{}, {}]\nangular_velocity = {w}", v[0], v[1]);
        let mut sim = simulation(&model(formulation, discretisation, &motion, "", &bodies(inner)));
        let e0 = sim.output_values().unwrap()[0];
        let err = (e0 / reference - 1.0).abs();
        sim.step_to(t_end).unwrap();
        // The rigid motion at T: the start and end on the axis through r_c(T) at a + w T.
        let p = positions(&mut sim);
        let (s, c) = (A + w * t_end).sin_cos();
        let rc = [centre[0] + vc[0] * t_end, centre[1] + vc[1] * t_end];
        let rigid = [[rc[0] - 0.5 * L * c, rc[1] - 0.5 * L * s], [rc[0] + 0.5 * L * c, rc[1] + 0.5 * L * s]];
        let [first, last] = [p[0], p[p.len() - 1]];
        let off = [first, last]
            .iter()
            .zip(&rigid)
            .map(|(a, b)| ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt())
            .fold(0.0, f64::max);
        println!(
            "{formulation}: kinetic energy {e0:.12} J vs rigid 1/2 (m v_c^2 + J_c w^2) = {reference:.12} J \
             (relative error {err:.1e}); at T = {t_end} s ends {off:.2e} m from the rigid motion"
        );
        assert!(err < 1e-12, "{formulation}: {e0} vs {reference}");
        assert!(off < 1e-6, "{formulation}: {off}");
    }
}

const PIN: &str = "[[joints]]\nname = \"pin\"\ntype = \"revolute\"\nbody1 = \"ground\"\nbody2 = \"arm.start\"\n";

#[test]
fn pinned_beam_given_angular_velocity_starts_turning_at_that_rate() {
    let w = 2.0;
    let [x1, y1] = end();
    let dir = tempfile::tempdir().unwrap();
    for (formulation, discretisation, _) in FORMULATIONS {
        // The tip's velocity: a floating-frame tip gives no velocity outputs; the frame's at
        // the tip point is the tip's while the modal rates are 0 (at t = 0).
        let tip = if formulation == "floating_frame" {
            format!("body = \"arm.start\"\npoint = [{x1:e}, {y1:e}]")
        } else {
            "body = \"arm.end\"".to_string()
        };
        let outputs: String =
            ["vx", "vy"].map(|q| format!("[[outputs]]\nname = \"tip_{q}\"\nquantity = \"{q}\"\n{tip}\n")).concat()
                + "[[outputs]]\nname = \"w\"\nquantity = \"angular_velocity\"\nbody = \"arm.start\"\n";
        let text =
            model(formulation, discretisation, &format!("angular_velocity = {w}"), &(PIN.to_string() + &outputs), &[]);
        let path = dir.path().join(format!("{formulation}.toml"));
        std::fs::write(&path, &text).unwrap();
        let csv = dir.path().join(format!("{formulation}.csv"));
        let out = Command::new(EXE)
            .args(["simulate".as_ref(), path.as_os_str(), "--stop-time".as_ref(), "0.01".as_ref(), "-o".as_ref()])
            .arg(&csv)
            .output()
            .unwrap();
        assert!(out.status.success(), "{formulation}: {}", String::from_utf8_lossy(&out.stderr));
        let csv = std::fs::read_to_string(&csv).unwrap();
        let mut lines = csv.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let row: Vec<f64> = lines.next().unwrap().split(',').map(|c| c.parse().unwrap()).collect();
        let first = |name: &str| row[header.iter().position(|h| *h == name).unwrap()];
        let (vx, vy) = (first("tip_vx"), first("tip_vy"));
        let reference = [-w * L * A.sin(), w * L * A.cos()];
        let err = (vx - reference[0]).abs().max((vy - reference[1]).abs());
        println!(
            "{formulation}: first row, t = {}: tip velocity ({vx:.12}, {vy:.12}) m/s vs w L (-sin a, cos a) = \
             ({:.12}, {:.12}): max error {err:.1e}; angular velocity {}",
            first("time"),
            reference[0],
            reference[1],
            first("w")
        );
        assert_eq!(first("time"), 0.0);
        assert!(err < 1e-12, "{formulation}: {row:?}");
        assert!((first("w") - w).abs() < 1e-12, "{formulation}: {row:?}");
    }
}

#[test]
fn wrong_angular_velocity_and_velocities_the_joints_forbid_are_located_errors() {
    for (formulation, discretisation, _) in FORMULATIONS {
        let text = model(formulation, discretisation, "angular_velocity = 2.0", PIN, &[]);
        parse_and_assemble(&text, "arm.toml").unwrap_or_else(|e| panic!("{formulation}: {e}"));
        // A vector in a planar model: located at the key's value, naming it.
        let (err, line) = refused(&text, "arm.toml", "angular_velocity = 2.0", "angular_velocity = [1.0, 2.0]");
        assert_eq!((err.file.as_str(), err.line), ("arm.toml", line), "{formulation}: {err}");
        assert!(err.message.contains("angular_velocity: expected a number in a planar model"), "{err}");
        // A velocity of the start the pin forbids: the pin's error, at the joint.
        let bad = text.replacen("angular_velocity = 2.0", "velocity = [1.0, 0.0]\nangular_velocity = 2.0", 1);
        let err = parse_and_assemble(&bad, "arm.toml").expect_err(formulation);
        let pin = bad.lines().position(|l| l == "name = \"pin\"").unwrap() + 1;
        println!("{formulation}: {err}");
        assert_eq!(err.line, pin, "{formulation}: {err}");
        assert!(err.message.contains("the given initial velocities violate this joint"), "{err}");
    }
    // In a spatial model the angular velocity is a vector.
    let spatial = "[model]\nname = \"arm\"\ndimension = 3\n[[beams]]\nname = \"arm\"\nstart = [0.0, 0.0, 0.0]\n\
                   end = [1.0, 0.0, 0.0]\nelements = 2\nsection = { width = 0.02, height = 0.03 }\n\
                   material = { E = 7e10, nu = 0.3, rho = 2700.0 }\nangular_velocity = [0.0, 0.0, 2.0]\n";
    parse_and_assemble(spatial, "arm.toml").unwrap();
    let (err, line) = refused(spatial, "arm.toml", "angular_velocity = [0.0, 0.0, 2.0]", "angular_velocity = 2.0");
    assert_eq!(err.line, line, "{err}");
    assert!(err.message.contains("angular_velocity is a vector [x, y, z]"), "{err}");
}
