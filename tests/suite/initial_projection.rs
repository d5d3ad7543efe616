//! The initial configuration projected onto the joints (src/mechanics/initial_state.rs): a
//! configuration the joints do not hold is moved onto them with a located warning, through
//! the library, the command line and the FMU's logger. References:
//! - a pendulum (centre at distance L below its pivot, angle 0) driven along theta(t) =
//!   theta0 + t starts at theta0: its centre is moved to (L sin theta0, -L cos theta0) and the
//!   warning names the joint's line with the violation theta0;
//! - a distance joint whose `length` differs from its points' distance by d is violated by d;
//! - a drive that starts at the given angle, and a length off by 1e-7 m (below the warning's
//!   1e-6 of the model's size), give no warning.

use std::ffi::c_int;
use std::process::Command;

use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};

use crate::common;
use common::c_logger::{Messages, TextInstance, callbacks};

const L: f64 = 0.4;

fn pendulum(drive: &str) -> String {
    format!(
        "[model]\nname = \"p\"\ngravity = [0.0, -9.81]\n[[rigid_bodies]]\nname = \"arm\"\nmass = 1.5\n\
         inertia = 0.02\nposition = [0.0, -{L}]\n[[joints]]\nname = \"pivot\"\ntype = \"revolute\"\n\
         body2 = \"arm\"\npoint = [0.0, 0.0]\ndrive = \"{drive}\"\n[[outputs]]\nname = \"x\"\nquantity = \"x\"\n\
         body = \"arm\"\n"
    )
}

/// Two point masses on a link of `length` between points 0.4 m apart.
fn link(length: f64) -> String {
    format!(
        "[model]\nname = \"l\"\ngravity = [0.0, 0.0]\n[[point_masses]]\nname = \"a\"\nmass = 1.0\n\
         position = [0.0, 0.0]\n[[point_masses]]\nname = \"b\"\nmass = 1.0\nposition = [0.4, 0.0]\n\
         [[joints]]\nname = \"rod\"\ntype = \"distance\"\nbody1 = \"a\"\nbody2 = \"b\"\nlength = {length}\n\
         [[outputs]]\nname = \"xb\"\nquantity = \"x\"\nbody = \"b\"\n"
    )
}

fn simulation(text: &str) -> Simulation {
    let model = Model::parse(text, "m.toml").unwrap();
    Simulation::new(&model, &model.default_parameters(), SolverSettings::default(), 0.0).unwrap()
}

/// The line (1-based) of the first line of `text` that contains `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

/// Each joint's warning names the move of its own group's coordinates: an arm whose drive
/// starts 0.1 rad from its drawn angle (its angle moves 0.1 rad, its centre 0.05 m) and,
/// apart, a pendulum 1.0 m long drawn for a link of 1.2 m (its bob moves 0.2 m). Both
/// warnings named the 0.2 m of the link (a probe written from the docs).
#[test]
fn each_violated_joint_names_the_move_of_its_own_group() {
    let text = "[model]\nname = \"two\"\ngravity = [0.0, -9.81]\n\
        [[rigid_bodies]]\nname = \"arm\"\nmass = 1.0\ninertia = 0.1\nposition = [0.5, 0.0]\n\
        [[joints]]\nname = \"motor\"\ntype = \"revolute\"\nbody2 = \"arm\"\npoint = [0.0, 0.0]\ndrive = \"0.1 + t\"\n\
        [[point_masses]]\nname = \"bob\"\nmass = 1.0\nposition = [3.0, -1.0]\n\
        [[joints]]\nname = \"link\"\ntype = \"distance\"\npoint1 = [3.0, 0.0]\nbody2 = \"bob\"\nlength = 1.2\n";
    let sim = simulation(text);
    let warning = |name: &str| {
        let line = line_of(text, &format!("name = \"{name}\""));
        sim.warnings().iter().find(|w| w.line == line).map(|w| w.message.clone()).unwrap_or_default()
    };
    let (motor, link) = (warning("motor"), warning("link"));
    assert!(
        motor.contains("by 1.000e-1 (m or rad)") && motor.contains("the largest coordinate by 1.000e-1"),
        "{motor}"
    );
    assert!(link.contains("by 2.000e-1 (m or rad)") && link.contains("the largest coordinate by 2.000e-1"), "{link}");
}

#[test]
fn a_drive_that_starts_elsewhere_moves_the_body_with_a_located_warning() {
    let theta0: f64 = 0.3;
    let text = pendulum(&format!("{theta0} + t"));
    let sim = simulation(&text);
    let w = sim.warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!((w[0].file.as_str(), w[0].line), ("m.toml", line_of(&text, "name = \"pivot\"")), "{}", w[0]);
    assert!(w[0].message.contains(&format!("{theta0:.3e}")), "{}", w[0]);
    assert!(w[0].warning().starts_with(&format!("m.toml:{}:", w[0].line)) && w[0].warning().contains(": warning: "));
    // The body was moved onto the drive: centre at (L sin theta0, -L cos theta0), angle theta0.
    let q = &sim.state().q;
    let expected = [L * theta0.sin(), -L * theta0.cos(), theta0];
    for k in 0..3 {
        assert!((q[k] - expected[k]).abs() < 1e-12, "q[{k}] = {} against {}", q[k], expected[k]);
    }
    assert!(simulation(&pendulum("t")).warnings().is_empty(), "a drive from the given angle");
}

#[test]
fn a_distance_joint_longer_than_its_points_warns_and_a_rounding_does_not() {
    let sim = simulation(&link(0.5));
    let w = sim.warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].message.contains("1.000e-1"), "violation |P2 - P1| - L = -0.1: {}", w[0]);
    let q = &sim.state().q;
    assert!(((q[2] - q[0]).hypot(q[3] - q[1]) - 0.5).abs() < 1e-13, "moved onto the length");
    assert!(simulation(&link(0.4 + 1e-7)).warnings().is_empty(), "1e-7 m is below the warning");
}

#[test]
fn simulate_prints_the_warning_and_runs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.toml");
    let text = pendulum("0.3 + t");
    std::fs::write(&path, &text).unwrap();
    let o = Command::new(common::cli::EXE)
        .args(["simulate".as_ref(), path.as_os_str(), "--stop-time".as_ref(), "0.01".as_ref(), "-o".as_ref()])
        .arg(dir.path().join("p.csv"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let located = format!("{}:{}:", path.display(), line_of(&text, "name = \"pivot\""));
    assert!(stderr.lines().any(|l| l.starts_with(&located) && l.contains(": warning: ")), "{stderr}");
    let o = Command::new(common::cli::EXE).arg("check").arg(&path).output().unwrap();
    assert!(o.status.success() && String::from_utf8_lossy(&o.stderr).contains(": warning: "));
}

#[test]
fn the_fmu_logs_the_warning_at_instantiation() {
    let messages = Messages::default();
    let cb = callbacks(&messages);
    let _instance = TextInstance::new(&pendulum("0.3 + t"), &cb);
    const WARNING: c_int = 1;
    let logged = messages.lock().unwrap().clone();
    assert!(
        logged.iter().any(|(st, cat, m)| *st == WARNING
            && cat == "logStatusWarning"
            && m.contains("model.toml:")
            && m.contains("violates this joint")),
        "{logged:?}"
    );
}

/// A step that does not resolve the most flexible beam's first bending vibration is warned of
/// at the beam, with the period (as a pinned-pinned beam: T1 = 2 L^2 / (pi sqrt(EI / rho A)))
/// and the step that would: a steel rod of 0.3 m and 6 mm diameter (T1 = 7.39 ms) at the default
/// step of 1 ms takes 7.4 steps per period; at 0.3 ms (25 steps) nothing is said, nor with
/// communication points (CSV rows) 0.3 ms apart, which end the steps there, nor for a model
/// whose stiffer beam alone is unresolved.
#[test]
fn a_step_that_does_not_resolve_the_most_flexible_beam_is_warned_of() {
    let rod = |name: &str, length: f64, radius: f64, step: &str| {
        format!(
            "[[beams]]\nname = \"{name}\"\nstart = [0.0, 0.0]\nend = [{length:?}, 0.0]\nelements = 4\n\
             section = {{ area = {:?}, inertia = {:?} }}\nmaterial = {{ E = 2.1e11, nu = 0.3, rho = 7850.0 }}\n{step}",
            std::f64::consts::PI * radius * radius,
            std::f64::consts::PI * radius.powi(4) / 4.0
        )
    };
    let model = |solver: &str, beams: &str| format!("[model]\nname = \"m\"\ngravity = [0.0, 0.0]\n{solver}{beams}");
    let t1 = 2.0 * 0.09 / (std::f64::consts::PI * (2.1e11 * 0.003f64.powi(2) / 4.0 / 7850.0).sqrt());
    let sim = simulation(&model("", &rod("rod", 0.3, 0.003, "")));
    let w = sim.warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].line, 5, "{}", w[0]);
    assert!(w[0].message.contains("beam 'rod'") && w[0].message.contains(&format!("{t1:.2e}")), "{} (T1 {t1})", w[0]);
    assert!(w[0].message.contains("takes 7.4 steps per period") && w[0].message.contains("3.7e-4 s"), "{}", w[0]);
    // Internal steps that end on communication points 3e-4 s apart are that short.
    let mut limited = simulation(&model("", &rod("rod", 0.3, 0.003, "")));
    limited.limit_steps_to(&Model::parse(&model("", &rod("rod", 0.3, 0.003, "")), "m.toml").unwrap(), 3e-4);
    assert!(limited.warnings().is_empty(), "{:?}", limited.warnings());
    limited.limit_steps_to(&Model::parse(&model("", &rod("rod", 0.3, 0.003, "")), "m.toml").unwrap(), 0.01);
    assert!(limited.warnings()[0].message.contains("takes 7.4 steps per period"), "{:?}", limited.warnings());
    let fine = Model::parse(&model("[solver]\nstep = 3e-4\n", &rod("rod", 0.3, 0.003, "")), "m.toml").unwrap();
    let settings = SolverSettings::from_model(&fine, &[]).unwrap();
    assert!(Simulation::new(&fine, &[], settings, 0.0).unwrap().warnings().is_empty());
    // A stiff crank (0.1 m, 2 cm) unresolved beside a resolved flexible rod (1 m, 3 mm: 84 ms).
    let two = format!(
        "{}{}",
        rod("rod", 1.0, 0.003, ""),
        rod("crank", 0.1, 0.01, "")
            .replace("[0.0, 0.0]\nend", "[0.0, 1.0]\nend")
            .replace("end = [0.1, 0.0]", "end = [0.1, 1.0]")
    );
    assert!(simulation(&model("", &two)).warnings().is_empty(), "{:?}", simulation(&model("", &two)).warnings());
    // A model that gives no `step` takes 20 steps per period of its most flexible beam (the
    // rod: T1 / 20 = 3.7e-4 s), and there is nothing to warn of; one whose beams are slower
    // keeps 1 ms (the 1 m rod beside the crank: 84 ms), and a `step` given is kept and warned
    // of (probe 40c's flexible slider-crank ran its rod at 7.6 steps per period by default).
    let settled = |text: &str| {
        let m = Model::parse(text, "m.toml").unwrap();
        let settings = SolverSettings::from_model(&m, &[]).unwrap();
        (settings.step, Simulation::new(&m, &[], settings, 0.0).unwrap().warnings().len())
    };
    let (step, warned) = settled(&model("", &rod("rod", 0.3, 0.003, "")));
    assert!((step - t1 / 20.0).abs() < 1e-12 * t1 && warned == 0, "{step} {warned}");
    assert_eq!(settled(&model("", &two)), (1e-3, 0));
    assert_eq!(settled(&model("[solver]\nstep = 1e-3\n", &rod("rod", 0.3, 0.003, ""))), (1e-3, 1));
    // A spatial beam's first torsional vibration, estimated as a beam held against twist at
    // both ends, T = 2 L / sqrt(GJ / Jx) = 2 ms here, sets the default step when it is the faster
    // (bending: 2 L^2 / (pi sqrt(EI / m)) = 20 ms); a step given is warned of for bending only
    // (probe 40d: a strip's torsion at 2.2 steps per period, 7.6 % low and damped away).
    let spatial = |solver: &str| {
        format!(
            "[model]\nname = \"s\"\ndimension = 3\n{solver}[[beams]]\nname = \"b\"\nstart = [0.0, 0.0, 0.0]\n\
             end = [1.0, 0.0, 0.0]\nelements = 4\nformulation = \"euler_bernoulli\"\nsection = {{ EA = 1e6, EIy = 1e3, \
             EIz = 1e3, GJ = 1e3, mass_per_length = 1.0, rotary_inertia = [1e-3, 5e-4, 5e-4] }}\n"
        )
    };
    let (step, warned) = settled(&spatial(""));
    assert!((step - 2e-3 / 20.0).abs() < 1e-12 && warned == 0, "{step} {warned}");
    assert_eq!(settled(&spatial("[solver]\nstep = 1e-3\n")), (1e-3, 0));
}

/// Velocities given for the configuration as drawn, with a drive that starts elsewhere: the
/// velocity error also tells that the positions were moved onto the drive first (a probe's
/// four-bar read only the velocity error, at the drive's joint, with no hint that the drive
/// started 90 degrees from the drawing).
#[test]
fn a_velocity_error_after_a_moved_drive_says_the_positions_were_moved() {
    let text = pendulum("0.3 + t")
        .replace("position = [0.0, -0.4]\n", "position = [0.0, -0.4]\nvelocity = [0.4, 0.0]\nangular_velocity = 1.0\n");
    assert!(text.contains("velocity = [0.4, 0.0]"));
    let model = Model::parse(&text, "m.toml").unwrap();
    let err = Simulation::new(&model, &model.default_parameters(), SolverSettings::default(), 0.0)
        .map(|_| ())
        .expect_err("velocities of the drawn configuration")
        .to_string();
    assert!(err.contains("the given initial velocities violate this joint"), "{err}");
    let line = line_of(&text, "name = \"pivot\"");
    assert!(
        err.contains(&format!("the positions were moved first: m.toml:{line}:")) && err.contains("3.000e-1"),
        "{err}"
    );
    // Drawn where the drive starts, the same velocities fit.
    let drawn = pendulum("t")
        .replace("position = [0.0, -0.4]\n", "position = [0.0, -0.4]\nvelocity = [0.4, 0.0]\nangular_velocity = 1.0\n");
    let model = Model::parse(&drawn, "m.toml").unwrap();
    assert!(Simulation::new(&model, &model.default_parameters(), SolverSettings::default(), 0.0).is_ok());
}

/// A planar chain of 600 links (1200 joint rows in one group, beyond the dense limit of 1000:
/// solved sparse; it was refused) hanging from a pivot whose drive w t + 0.01 starts 0.01 rad
/// from the drawn angle, every link given the angular velocity w: the positions are moved onto
/// the joints (the pivot's warning names the 1e-2 rad; the last link's centre stays within
/// the chain's length of the pivot), and the omitted velocities are those of the whole chain
/// turning rigidly about the pivot, v = w z x r for every link (exact: the joints leave no
/// other choice), to round-off. A step then keeps the energy.
#[test]
fn a_chain_beyond_the_dense_group_limit_is_assembled_sparse() {
    let (links, w) = (600, 2.0);
    let l = 1.0 / links as f64;
    let mut text = String::from("[model]\nname = \"chain\"\ngravity = [0.0, -9.81]\n");
    for k in 0..links {
        let drive = if k == 0 { format!("drive = \"-1.5707963267948966 + 0.01 + {w}*t\"\n") } else { String::new() };
        text += &format!(
            "[[rigid_bodies]]\nname = \"b{k}\"\nmass = {m}\ninertia = {i}\nposition = [0.0, {y}]\n\
             angle = -1.5707963267948966\nangular_velocity = {w}\n\
             [[joints]]\nname = \"j{k}\"\ntype = \"revolute\"\nbody1 = \"{body1}\"\nbody2 = \"b{k}\"\n\
             point = [0.0, {p}]\n{drive}",
            m = l,
            i = l * l * l / 12.0,
            y = -(k as f64 + 0.5) * l,
            body1 = if k == 0 { "ground".to_string() } else { format!("b{}", k - 1) },
            p = -(k as f64) * l,
        );
    }
    for (name, quantity) in [("x", "x"), ("y", "y"), ("vx", "vx"), ("vy", "vy"), ("E", "energy_total")] {
        text += &format!("[[outputs]]\nname = \"{name}\"\nquantity = \"{quantity}\"\nbody = \"b{}\"\n", links - 1);
    }
    let text = text.replace("quantity = \"energy_total\"\nbody = \"b599\"\n", "quantity = \"energy_total\"\n");
    let mut sim = simulation(&text);
    let w_line = line_of(&text, "name = \"j0\"");
    assert!(
        sim.warnings().iter().any(|x| x.line == w_line && x.message.contains("violates this joint by 1.000e-2")),
        "{:?}",
        sim.warnings()
    );
    let k = |sim: &mut Simulation, name: &str| sim.outputs().iter().position(|o| o.name == name).unwrap();
    let names = ["x", "y", "vx", "vy", "E"].map(|n| k(&mut sim, n));
    let values = sim.output_values().unwrap().to_vec();
    let [x, y, vx, vy, e0] = names.map(|i| values[i]);
    eprintln!("tip link at ({x}, {y}), velocity ({vx}, {vy}); rigid ({}, {})", -w * y, w * x);
    assert!((vx + w * y).abs() < 1e-12 && (vy - w * x).abs() < 1e-12, "({vx}, {vy}) at ({x}, {y})");
    assert!(x.hypot(y) <= 1.0 - 0.5 * l + 1e-12 && x.hypot(y) > 0.99, "the last link's centre at ({x}, {y})");
    sim.step_to(0.01).unwrap();
    let e = sim.output_values().unwrap()[names[4]];
    assert!((e - e0).abs() < 1e-6 * e0.abs(), "energy {e0} -> {e}");
}

/// A spatial crank-slider drawn in mm, tonnes and seconds (redundant rows: four revolute and
/// prismatic axes about z), its crank driven at 2 pi rad/s: the solved velocities (up to 470
/// mm/s) hold its joints to round-off relative to their size, 1e3 times the round-off in metres
/// (7.4e-9 against 7.4e-12), which an absolute 1e-9 refused as "given velocities violate this
/// joint" although none was given (a probe comparing unit systems). The slider's start speed is
/// the metre model's times 1000.
#[test]
fn velocities_solved_in_millimetres_are_not_refused_as_given() {
    let mm = r#"[model]
name = "crank3"
dimension = 3
gravity = [0.0, -9810.0, 0.0]
[solver]
stop_time = 2.0
output_interval = 0.001
[[rigid_bodies]]
name = "crank"
mass = 0.001
inertia = [0.1, 1.875, 1.875]
position = [40.522672940110475, 63.11032386059223, 0.0]
axis=[0.0,0.0,1.0]
angle = 1.0
[[rigid_bodies]]
name = "rod"
mass = 0.002
inertia = [0.1, 41.666666666666664, 41.666666666666664]
position = [322.9483988212931, 63.11032386059223, 0.0]
axis=[0.0,0.0,1.0]
angle = -0.25520243816094146
[[rigid_bodies]]
name = "slider"
mass = 0.0005
inertia = [10.0, 10.0, 10.0]
position = [564.8514517623653, 0.0, 0.0]
[[joints]]
name = "pivot"
type = "revolute"
body2 = "crank"
point = [0.0, 0.0, 0.0]
axis = [0.0, 0.0, 1.0]
drive = "6.283185307179586*t"
[[joints]]
name = "j2"
type = "revolute"
body1 = "crank"
body2 = "rod"
point = [81.04534588022095, 126.22064772118446, 0.0]
axis = [0.0, 0.0, 1.0]
[[joints]]
name = "j3"
type = "revolute"
body1 = "rod"
body2 = "slider"
point = [564.8514517623653, 0.0, 0.0]
axis = [0.0, 0.0, 1.0]
[[joints]]
name = "slide"
type = "prismatic"
body2 = "slider"
point = [564.8514517623653, 0.0, 0.0]
axis = [1.0, 0.0, 0.0]
[[springs]]
name = "sp"
type = "prismatic"
joint = "slide"
stiffness = 0.2
damping = 0.002
[[outputs]]
name = "x"
quantity = "x"
body = "slider"
[[outputs]]
name = "vx"
quantity = "vx"
body = "slider"
"#;
    let metres = mm
        .replace("gravity = [0.0, -9810.0, 0.0]", "gravity = [0.0, -9.81, 0.0]")
        .replace("mass = 0.001", "mass = 1.0")
        .replace("mass = 0.002", "mass = 2.0")
        .replace("mass = 0.0005", "mass = 0.5");
    let vx = |text: &str, scale: f64| {
        let text = scale_lengths(text, scale);
        let mut sim = simulation(&text);
        let i = sim.outputs().iter().position(|o| o.name == "vx").unwrap();
        sim.output_values().unwrap()[i]
    };
    let (in_mm, in_m) = (vx(mm, 1.0), vx(&metres, 1e-3));
    println!("slider start speed {in_mm} mm/s, {in_m} m/s");
    assert!((in_mm / (1000.0 * in_m) - 1.0).abs() < 1e-9 && in_m.abs() > 0.1, "{in_mm} mm/s against {in_m} m/s");
}

/// The model's lengths (positions, points, inertias in t mm^2 as kg m^2 needs) times `scale`.
fn scale_lengths(text: &str, scale: f64) -> String {
    if scale == 1.0 {
        return text.to_string();
    }
    text.lines()
        .map(|l| {
            let key = l.split('=').next().unwrap_or("").trim();
            let factor = match key {
                "position" | "point" => scale,
                "inertia" => scale * scale * 1e3,
                "stiffness" => 1e3,
                "damping" => 1e3,
                _ => return l.to_string(),
            };
            let (k, rest) = l.split_once('=').unwrap();
            let rest = rest.trim();
            if let Some(inner) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
                let xs: Vec<String> =
                    inner.split(',').map(|x| format!("{:?}", x.trim().parse::<f64>().unwrap() * factor)).collect();
                format!("{k}= [{}]", xs.join(", "))
            } else {
                format!("{k}= {:?}", rest.parse::<f64>().unwrap() * factor)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// A pendulum (rod of length l, mass m) pinned to a cart that a drive moves at speed V from the
/// start, its own velocity omitted: of the motions the pin allows, the one of least kinetic
/// energy, omega = -3 V / (2 l) (d/domega of m (V + omega l/2)^2 / 2 + m l^2 omega^2 / 24 = 0),
/// the same in metres and kilograms as in millimetres and tonnes, so the runs agree. The
/// minimum norm of (vx, vy, omega), which mixes m/s and rad/s, started it at -0.165 rad/s in
/// metres and -2.0 rad/s in millimetres (a probe).
#[test]
fn omitted_velocities_are_those_of_least_kinetic_energy_in_any_units() {
    let model = |length: f64, mass: f64| {
        let (l, g, x) = (0.6 * length, 9.81 * length, 0.3 * length);
        format!(
            r#"[model]
name = "cart_pendulum"
gravity = [0.0, {}]

[[rigid_bodies]]
name = "cart"
mass = {}
inertia = {}
position = [0.0, 0.0]

[[rigid_bodies]]
name = "pend"
mass = {}
inertia = {}
position = [0.0, {}]
angle = "-pi/2"

[[joints]]
name = "rail"
type = "prismatic"
body2 = "cart"
axis = [1.0, 0.0]
drive = "{x:e} * sin(2 * t)"

[[joints]]
name = "pin"
type = "revolute"
body1 = "cart"
body2 = "pend"
point = [0.0, 0.0]

[[outputs]]
name = "phi"
quantity = "angle"
body = "pend"

[[outputs]]
name = "omega"
quantity = "angular_velocity"
body = "pend"
"#,
            -g,
            3.0 * mass,
            0.1 * mass * length * length,
            mass,
            mass * l * l / 12.0,
            -l / 2.0
        )
    };
    let run = |length: f64, mass: f64| {
        let m = Model::parse(&model(length, mass), "cart.toml").unwrap();
        let mut sim = Simulation::new(&m, &[], SolverSettings::from_model(&m, &[]).unwrap(), 0.0).unwrap();
        let omega0 = sim.output_values().unwrap()[1];
        sim.step_to(1.0).unwrap();
        (omega0, sim.output_values().unwrap()[0])
    };
    let (si, mm) = (run(1.0, 1.0), run(1000.0, 1e-3));
    let expected = -1.5 * 0.6 / 0.6;
    println!("omega0 {} rad/s (SI), {} rad/s (mm, t); angle at 1 s {} / {}", si.0, mm.0, si.1, mm.1);
    assert!((si.0 - expected).abs() < 1e-12 && (mm.0 - expected).abs() < 1e-12, "{si:?} {mm:?}");
    assert!((si.1 - mm.1).abs() < 1e-8, "the runs differ: {} against {} rad", si.1, mm.1);
}
