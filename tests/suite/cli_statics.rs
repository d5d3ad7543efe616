//! `flexfmu statics`: quasi-static analysis, the static equilibrium at each output time.
//! References: the elastica of an end-loaded cantilever (Mattiasson 1981, as in the corpus
//! table of docs/benchmarks.md), cantilever theory P L^3 / (3 E I) under a load growing with t,
//! and a located failure that keeps the rows before it.

use std::path::Path;
use std::process::Command;

use crate::common::cli::EXE;

/// `flexfmu statics args... -o csv`: (exit success, stderr, header, rows).
fn statics(args: &[&str], csv: &Path) -> (bool, String, Vec<String>, Vec<Vec<f64>>) {
    let o = Command::new(EXE).arg("statics").args(args).arg("-o").arg(csv).output().unwrap();
    let text = std::fs::read_to_string(csv).unwrap_or_default();
    let mut lines = text.lines();
    let header = lines.next().map(|h| h.split(',').map(String::from).collect()).unwrap_or_default();
    let rows = lines.map(|l| l.split(',').map(|c| c.parse().unwrap()).collect()).collect();
    (o.status.success(), String::from_utf8_lossy(&o.stderr).into_owned(), header, rows)
}

/// `statics` of the model `text` (written to a temporary file) with `args` after it.
fn statics_of(text: &str, args: &[&str]) -> (bool, String, Vec<String>, Vec<Vec<f64>>) {
    let dir = tempfile::tempdir().unwrap();
    let (model, csv) = (dir.path().join("model.toml"), dir.path().join("model.csv"));
    std::fs::write(&model, text).unwrap();
    statics(&[&[model.to_str().unwrap()], args].concat(), &csv)
}

/// The elastica model's load in one increment (k = P L^2 / EI = 1): Mattiasson's tip position
/// and rotation, as close as the 16-element dynamic run settled with dashpots (the corpus row:
/// 3.9e-5 m, 3.2e-5 m, 4.0e-5 rad).
#[test]
fn the_elastica_cantilever_meets_mattiasson() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("elastica.csv");
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/elastica_cantilever.toml");
    let (ok, err, header, rows) = statics(&[model.to_str().unwrap(), "--stop-time", "0"], &csv);
    assert!(ok, "{err}");
    assert_eq!(header, ["time", "tip_x", "tip_y", "tip_angle"]);
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    let (x, y, angle) = (1.0 - 0.0564332, -0.3017208, -0.4613519);
    println!(
        "tip ({}, {}), angle {}: errors {:.1e}, {:.1e}, {:.1e}",
        r[1],
        r[2],
        r[3],
        r[1] - x,
        r[2] - y,
        r[3] - angle
    );
    assert!((r[1] - x).abs() < 1e-4 && (r[2] - y).abs() < 1e-4 && (r[3] - angle).abs() < 1e-4, "{r:?}");
    assert!(!err.contains("note: the model moves"), "{err}");
}

/// `statics` of a model that moves (the spin-up's hub, driven from rest with the rate
/// 4/15 (t - 15/(2 pi) sin(2 pi t / 15)) rad/s) balances it at rest and says so once, where
/// the drive's rate first exceeds round-off, as `modes` does (a probe's spinning beam was
/// balanced without its centrifugal forces and without a word).
#[test]
fn statics_of_a_moving_model_says_it_balances_it_at_rest() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("spin_up.csv");
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/spin_up.toml");
    let (ok, err, _, rows) = statics(&[model.to_str().unwrap(), "--stop-time", "1", "--output-interval", "0.5"], &csv);
    assert!(ok, "{err}");
    assert_eq!(rows.len(), 3);
    let rate =
        |t: f64| 4.0 / 15.0 * (t - 15.0 / (2.0 * std::f64::consts::PI) * (2.0 * std::f64::consts::PI * t / 15.0).sin());
    assert_eq!(err.matches("note: the model moves").count(), 1, "{err}");
    let said = "note: the model moves at t = 0.5 (velocities up to ";
    let speed: f64 = err
        .split(said)
        .nth(1)
        .and_then(|s| s.split(')').next())
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    assert!((speed - rate(0.5)).abs() < 1e-12, "{speed} against the drive's rate {}", rate(0.5));
}

const CANTILEVER: &str = r#"[model]
name = "cantilever"
gravity = [0.0, 0.0]
[parameters]
P = { value = 10.0, unit = "N" }
[solver]
stop_time = 1.0
output_interval = 0.25
[[beams]]
name = "beam"
start = [0.0, 0.0]
end = [1.0, 0.0]
elements = 10
section = { width = 0.02, height = 0.02 }
material = { E = 2.1e11, nu = 0.3, rho = 7850.0 }
formulation = "euler_bernoulli"
[[joints]]
name = "clamp"
type = "fixed"
body1 = "ground"
body2 = "beam.start"
[[loads]]
type = "force"
body = "beam.end"
direction = [0.0, -1.0]
value = "P*t"
[[outputs]]
name = "tip_y"
quantity = "y"
body = "beam.end"
[[outputs]]
name = "clamp_y"
quantity = "reaction_y"
joint = "clamp"
"#;

/// A load growing with t: one row per output time, each the linear cantilever's deflection
/// P t L^3 / (3 E I) (to the beam's geometric nonlinearity, 1e-3 of it here) and the clamp's
/// reaction equal to the load (exactly: statics).
#[test]
fn a_load_growing_with_t_gives_one_equilibrium_per_output_time() {
    let (ok, err, _, rows) = statics_of(CANTILEVER, &[]);
    assert!(ok, "{err}");
    assert_eq!(rows.iter().map(|r| r[0]).collect::<Vec<_>>(), [0.0, 0.25, 0.5, 0.75, 1.0]);
    let ei = 2.1e11 * 0.02f64.powi(4) / 12.0;
    for r in &rows {
        let linear = -10.0 * r[0] / (3.0 * ei);
        assert!((r[1] - linear).abs() <= 1e-3 * linear.abs() + 1e-15, "t = {}: tip {} against {linear}", r[0], r[1]);
        assert!((r[2] - 10.0 * r[0]).abs() <= 1e-9 * 10.0, "t = {}: clamp reaction {}", r[0], r[2]);
    }
}

/// Without stiffness against a load (the clamp removed: a free beam) there is no
/// equilibrium: exit 1 with the diagnosis and the time, the CSV holding the rows before. The
/// advice fits the cause: what holds a free motion, not smaller increments (which were advised,
/// and cannot help a mechanism). At t = 0 the load P t is zero: the free beam at rest is an
/// equilibrium, a neutral one (warned), and its row is written.
#[test]
fn a_model_without_equilibrium_fails_with_the_diagnosis() {
    let text = CANTILEVER
        .replace("[[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody1 = \"ground\"\nbody2 = \"beam.start\"\n", "")
        .replace("[[outputs]]\nname = \"clamp_y\"\nquantity = \"reaction_y\"\njoint = \"clamp\"\n", "");
    assert!(!text.contains("[[joints]]") && !text.contains("clamp"));
    let (ok, err, header, rows) = statics_of(&text, &[]);
    println!("{err}");
    assert!(!ok);
    assert!(err.contains("warning: the static equilibrium at t = 0 is neutral"), "{err}");
    assert!(err.contains("static equilibrium at t = 0.25") && err.contains("singular"), "{err}");
    assert!(err.contains("hold it with a joint, a spring or a support"), "{err}");
    assert!(err.contains("smaller increments cannot help") && !err.contains("may reach it"), "{err}");
    assert_eq!(header, ["time", "tip_y"]);
    assert_eq!(rows, [[0.0, 0.0]]);
}

/// An absurd span of output rows (1e600 of them) is refused at once by `statics` and
/// `simulate` (src/limits.rs, MAX_OUTPUT_ROWS), not attempted.
#[test]
fn an_absurd_number_of_output_rows_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml");
    for command in ["statics", "simulate"] {
        let o = Command::new(EXE)
            .args([command, model.to_str().unwrap(), "--stop-time", "1e300", "--output-interval", "1e-300", "-o"])
            .arg(dir.path().join("out.csv"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{command}: {err}");
        assert!(err.contains("output rows, more than the 100000000 allowed"), "{command}: {err}");
    }
}

/// A cantilever (20 Euler-Bernoulli elements) under an end moment M = 2 pi EI / L asked for in
/// one increment: Newton from the straight beam does not converge, so the increment is halved
/// until it does and the equilibrium is reached through the ones in between. Exact (elastica):
/// the beam rolls into a full circle of radius L / (2 pi), the tip back at the root, its
/// rotation 2 pi, the middle node at (0, L / pi); the corotational elements represent the
/// constant curvature exactly, so only the middle node carries the chord error (2R vs the
/// polygon's), measured 0.31962 against 1/pi = 0.31831.
#[test]
fn an_increment_too_large_is_halved_until_newton_converges() {
    let (ok, err, _, rows) = statics_of(
        "[model]\nname = \"rollup\"\n[[beams]]\nname = \"arm\"\nstart = [0.0, 0.0]\nend = [1.0, 0.0]\nelements = 20\n\
         formulation = \"euler_bernoulli\"\nsection = { area = 1e-2, inertia = 1e-6 }\n\
         material = { E = 1e6, nu = 0.3, rho = 1000.0 }\n[[joints]]\nname = \"clamp\"\ntype = \"fixed\"\n\
         body2 = \"arm.start\"\npoint = [0.0, 0.0]\n[[loads]]\ntype = \"torque\"\nbody = \"arm.end\"\n\
         value = \"2*pi*1e6*1e-6*t\"\n[[outputs]]\nname = \"x\"\nquantity = \"x\"\nbody = \"arm.end\"\n\
         [[outputs]]\nname = \"y\"\nquantity = \"y\"\nbody = \"arm.end\"\n[[outputs]]\nname = \"angle\"\n\
         quantity = \"angle\"\nbody = \"arm.end\"\n[[outputs]]\nname = \"mid_y\"\nquantity = \"y\"\n\
         body = \"arm.node[10]\"\n",
        &["--stop-time", "1", "--output-interval", "1"],
    );
    assert!(ok, "{err}");
    let r = &rows[1];
    println!("tip ({:e}, {:e}), angle {}, middle y {}", r[1], r[2], r[3], r[4]);
    assert!(r[1].abs() < 1e-9 && r[2].abs() < 1e-9, "the tip back at the root: ({}, {})", r[1], r[2]);
    assert!((r[3] - 2.0 * std::f64::consts::PI).abs() < 1e-9, "tip rotation {}", r[3]);
    assert!((r[4] - 1.0 / std::f64::consts::PI).abs() < 2e-3, "middle node y {}", r[4]);
}

/// A probe's flexible link on a pin under gravity (aluminium, 1 m, 40 x 20 mm, 4 corotational
/// elements, planar or spatial), drawn unstressed at angle `a0`.
fn pinned_link(spatial: bool, a0: f64) -> String {
    let (dim, gravity, end, point, axis, angle) = if spatial {
        (
            "dimension = 3\n",
            "[0.0, -9.81, 0.0]",
            format!("[{}, {}, 0.0]", a0.cos(), a0.sin()),
            "[0.0, 0.0, 0.0]",
            "axis = [0.0, 0.0, 1.0]\n",
            "quantity = \"joint_position\"\njoint = \"pivot\"",
        )
    } else {
        (
            "",
            "[0.0, -9.81]",
            format!("[{}, {}]", a0.cos(), a0.sin()),
            "[0.0, 0.0]",
            "",
            "quantity = \"angle\"\nbody = \"link.start\"",
        )
    };
    format!(
        "[model]\nname = \"pinned_link\"\n{dim}gravity = {gravity}\n[[beams]]\nname = \"link\"\nstart = {point}\n\
         end = {end}\nelements = 4\nsection = {{ width = 0.04, height = 0.02 }}\n\
         material = {{ E = 70e9, nu = 0.33, rho = 2700.0 }}\n[[joints]]\nname = \"pivot\"\ntype = \"revolute\"\n\
         body2 = \"link.start\"\npoint = {point}\n{axis}[[outputs]]\nname = \"angle\"\n{angle}\n\
         [[outputs]]\nname = \"tip_x\"\nquantity = \"x\"\nbody = \"link.end\"\n[[outputs]]\nname = \"tip_y\"\n\
         quantity = \"y\"\nbody = \"link.end\"\n"
    )
}

/// `statics` of `pinned_link` over t = 0, 0.1, 0.2 (constant loads: three times the same
/// equilibrium).
fn pinned_link_statics(spatial: bool, a0: f64) -> (bool, String, Vec<Vec<f64>>) {
    let (ok, err, _, rows) = statics_of(&pinned_link(spatial, a0), &["--stop-time", "0.2", "--output-interval", "0.1"]);
    (ok, err, rows)
}

/// The stretch of a bar hanging under its own weight, rho g L^2 / (2 E) (1.892e-7 m here): the
/// tip's distance below L. Linear elements with consistent loads give a bar's nodal
/// displacements exactly; the geometric nonlinearity (strain^2 ~ 1e-14) is below the
/// tolerances used.
const HANGING_STRETCH: f64 = 2700.0 * 9.81 / (2.0 * 70e9);

/// The probe's failure: from 30 degrees below horizontal plain Newton turned the link by
/// 5.7e6 rad and wrote an unconverged row (tip_x 3.8e-3 m, then 1.4e-4 m at the same load);
/// from -1.5 rad (0.07 rad off hanging) it ended upside down; in 3D the tangent was singular.
/// Now every row is the hanging equilibrium: the angle -pi/2 (planar: the section's angle;
/// spatial: the joint's, -pi/2 - a0), the tip straight below the pin (no bending: hanging
/// straight, x to round-off) and lower than L by the stretch under the weight, all to 1e-12.
#[test]
fn a_pinned_flexible_link_drawn_off_hanging_hangs_straight_down() {
    let half_pi = std::f64::consts::FRAC_PI_2;
    for spatial in [false, true] {
        for a0 in [-30f64.to_radians(), -1.5, 0.0] {
            let (ok, err, rows) = pinned_link_statics(spatial, a0);
            assert!(ok, "spatial {spatial}, a0 = {a0}: {err}");
            assert!(!err.contains("unstable"), "{err}");
            assert_eq!(rows.len(), 3);
            for r in &rows {
                let angle = if spatial { -half_pi - a0 } else { -half_pi };
                println!(
                    "spatial {spatial}, a0 = {a0:.4}: angle {:.16} ({:+.1e}), tip ({:.1e}, {:.12}) ({:+.1e})",
                    r[1],
                    r[1] - angle,
                    r[2],
                    r[3],
                    r[3] + 1.0 + HANGING_STRETCH
                );
                assert!((r[1] - angle).abs() < 1e-12, "spatial {spatial}, a0 = {a0}: {r:?}");
                assert!(r[2].abs() < 1e-12 && (r[3] + 1.0 + HANGING_STRETCH).abs() < 1e-12, "{r:?}");
            }
        }
    }
}

/// Drawn exactly upright, the link is on an equilibrium (compressed by its weight, shorter by
/// the same rho g L^2 / (2 E)): an unstable one, which no descent leaves (the residual has no
/// sideways component). The decision: it is reported, not replaced by a hanging one chosen by
/// a guessed disturbance (left or right?); the row is written (it is an equilibrium) and stderr
/// warns that it is unstable, in one direction. Drawn 0.01 rad off upright, the link falls to
/// the stable hanging equilibrium and there is no warning.
#[test]
fn a_link_drawn_upright_is_reported_unstable_and_one_drawn_off_it_falls() {
    let half_pi = std::f64::consts::FRAC_PI_2;
    for spatial in [false, true] {
        let (ok, err, rows) = pinned_link_statics(spatial, half_pi);
        assert!(ok, "{err}");
        println!("{err}");
        assert!(err.contains("warning: the static equilibrium at t = 0 is unstable (1 admissible direction"), "{err}");
        assert_eq!(err.matches("warning:").count(), 1, "warned once: {err}");
        for r in &rows {
            assert!(r[2].abs() < 1e-12 && (r[3] - 1.0 + HANGING_STRETCH).abs() < 1e-12, "{r:?}");
        }
        let (ok, err, rows) = pinned_link_statics(spatial, half_pi - 0.01);
        assert!(ok && !err.contains("unstable"), "{err}");
        for r in &rows {
            assert!(r[2].abs() < 1e-12 && (r[3] + 1.0 + HANGING_STRETCH).abs() < 1e-12, "{r:?}");
        }
    }
}

/// The probe's two-link arm (arm2.toml: aluminium links of 1 m and 0.8 m, hubs of 2 kg and
/// 1 kg, a 1 kg stator welded to link 1's tip, a 0.5 kg payload), drawn straight out
/// horizontally, held by constant joint torques. With E raised 1000-fold (tip deflections of
/// about a micrometre) the links are nearly rigid, and the torques that hold the absolute link
/// angles (a1, a2) are the gravity moments tau2 = g B cos a2, tau1 - tau2 = g C cos a1 (B, C
/// from the masses below). Each joint has two such poses, cos a = const, above and below
/// horizontal; with constant torques the one above is unstable (d2V/da2 = g C sin a), so the
/// globalized solve from the horizontal arm ends in the one below: q1 = a1 = -0.5,
/// q2 = a2 - a1 = -0.6, to the links' flexibility (their deflection moves the masses and so
/// the gravity moments' lever arms: measured +6.9e-6 and +7.3e-6 rad; tolerance 3e-5). The probe's own torques (36.1,
/// 2.86 N m) had given angles of -1.6e11 rad and a tip 6 m from the origin of a 1.8 m arm.
#[test]
fn a_two_link_arm_held_by_torques_ends_at_the_pose_they_hold() {
    let (g, rho, b, h, l1, l2) = (9.81, 2700.0, 0.04, 0.02, 1.0, 0.8);
    let (m1, m2) = (rho * b * h * l1, rho * b * h / 2.0 * l2);
    let (stator, hub2, payload) = (1.0, 1.0, 0.5);
    let c = m1 * l1 / 2.0 + stator * l1 + (hub2 + m2 + payload) * l1;
    let bb = m2 * l2 / 2.0 + payload * l2;
    let (a1, a2) = (-0.5f64, -1.1f64);
    let tau2 = g * bb * a2.cos();
    let tau1 = tau2 + g * c * a1.cos();
    let text = format!(
        r#"[model]
name = "arm2"
gravity = [0.0, -9.81]
[[inputs]]
name = "tau1"
[[inputs]]
name = "tau2"
[[rigid_bodies]]
name = "hub1"
mass = 2.0
inertia = 0.5
position = [0.0, 0.0]
[[rigid_bodies]]
name = "stator2"
mass = {stator}
inertia = 0.05
position = [{l1}, 0.0]
[[rigid_bodies]]
name = "hub2"
mass = {hub2}
inertia = 0.1
position = [{l1}, 0.0]
[[point_masses]]
name = "payload"
mass = {payload}
position = [{l12}, 0.0]
[[beams]]
name = "l1"
start = [0.0, 0.0]
end = [{l1}, 0.0]
elements = 4
section = {{ width = {b}, height = {h} }}
material = {{ E = 70e12, nu = 0.33, rho = {rho} }}
[[beams]]
name = "l2"
start = [{l1}, 0.0]
end = [{l12}, 0.0]
elements = 4
section = {{ width = {b}, height = {h2} }}
material = {{ E = 70e12, nu = 0.33, rho = {rho} }}
[[joints]]
name = "j1"
type = "revolute"
body2 = "hub1"
point = [0.0, 0.0]
[[joints]]
name = "clamp1"
type = "fixed"
body1 = "hub1"
body2 = "l1.start"
[[joints]]
name = "weld2"
type = "fixed"
body1 = "l1.end"
body2 = "stator2"
[[joints]]
name = "j2"
type = "revolute"
body1 = "stator2"
body2 = "hub2"
point = [{l1}, 0.0]
[[joints]]
name = "clamp2"
type = "fixed"
body1 = "hub2"
body2 = "l2.start"
[[joints]]
name = "pay"
type = "revolute"
body1 = "l2.end"
body2 = "payload"
[[loads]]
type = "torque"
body = "hub1"
value = "tau1"
[[loads]]
type = "torque"
body = "hub2"
value = "tau2"
[[loads]]
type = "torque"
body = "stator2"
value = "-tau2"
[[outputs]]
name = "q1"
quantity = "angle"
body = "hub1"
[[outputs]]
name = "q2"
quantity = "joint_position"
joint = "j2"
"#,
        l12 = l1 + l2,
        h2 = h / 2.0
    );
    let (t1, t2) = (format!("tau1={tau1}"), format!("tau2={tau2}"));
    let (ok, err, _, rows) = statics_of(&text, &["--stop-time", "0", "--input", &t1, "--input", &t2]);
    assert!(ok, "{err}");
    assert!(!err.contains("unstable"), "{err}");
    let r = &rows[0];
    println!(
        "tau = ({tau1:.4}, {tau2:.4}) N m: q1 {:.7} ({:+.1e}), q2 {:.7} ({:+.1e})",
        r[1],
        r[1] - a1,
        r[2],
        r[2] - (a2 - a1)
    );
    assert!((r[1] - a1).abs() < 3e-5 && (r[2] - (a2 - a1)).abs() < 3e-5, "{r:?}");
}

/// Paper 003's oscillator (models/oscillator_fractional.toml): a point mass at the origin on
/// a prismatic joint with a fractional spring-damper, pushed by F = 1 N. The model has no
/// length (every coordinate starts at 0), so the equilibrium lies 100 steps of the 1 mm
/// scale floor away; a step the linearization holds along is kept whatever its length. At
/// rest the damper's c D^alpha x vanishes for alpha > 0 (x = F/k) and is a spring c x for
/// alpha = 0 (x = F/(k + c)).
#[test]
fn an_oscillator_at_the_origin_settles_where_its_springs_balance_the_force() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("oscillator.csv");
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/oscillator_fractional.toml");
    let (k, c, force) = (10.0, 2.0, 3.0);
    for (alpha, x) in [(0.0, force / (k + c)), (0.5, force / k), (1.0, force / k)] {
        let a = format!("alpha={alpha}");
        let f = format!("force={force}");
        let args = [model.to_str().unwrap(), "--stop-time", "0.1", "--set", &a, "--input", &f];
        let (ok, err, header, rows) = statics(&args, &csv);
        assert!(ok, "alpha {alpha}: {err}");
        assert_eq!(header[1], "x");
        println!("alpha {alpha}: x {} ({:+.1e})", rows[0][1], rows[0][1] - x);
        assert!(rows.iter().all(|r| (r[1] - x).abs() <= 1e-12 * x), "alpha {alpha}: {rows:?}");
    }
}

/// Statics is at rest whatever velocities the model starts with: a rod on a spherical pivot
/// drawn horizontal and spinning about the vertical (a probe's conical pendulum at 90 degrees)
/// hangs straight down with the pivot carrying its weight, as without the spin. The state's
/// multipliers carried the centripetal reaction, which, counted among the forces in play,
/// let the residual test pass on the horizontal rod (w0 = 1e8: "1 Newton iteration", the
/// pivot at a quarter of the weight); a spinning disk ended on a singular tangent.
#[test]
fn the_initial_velocities_do_not_change_the_static_equilibrium() {
    let model = r#"[model]
name = "spun_rod"
dimension = 3
gravity = [0.0, 0.0, -9.81]
[parameters]
w0 = 0.0
[[rigid_bodies]]
name = "rod"
mass = 2.0
inertia = [0.16672, 0.16672, 0.0001]
position = [0.5, 0.0, 0.0]
axis = [0.0, 1.0, 0.0]
angle = -1.5707963267948966
angular_velocity = [0.0, 0.0, "w0"]
[[joints]]
name = "pivot"
type = "spherical"
body2 = "rod"
point = [0.0, 0.0, 0.0]
[[outputs]]
name = "zc"
quantity = "z"
body = "rod"
[[outputs]]
name = "Rz"
quantity = "reaction_z"
joint = "pivot"
"#;
    let dir = tempfile::tempdir().unwrap();
    let (path, csv) = (dir.path().join("spun_rod.toml"), dir.path().join("spun_rod.csv"));
    std::fs::write(&path, model).unwrap();
    for w0 in ["0", "30", "1e8"] {
        let w = format!("w0={w0}");
        let (ok, err, _, rows) = statics(&[path.to_str().unwrap(), "--stop-time", "0", "--set", &w], &csv);
        assert!(ok, "w0 {w0}: {err}");
        let r = &rows[0];
        println!("w0 {w0}: zc {:.9}, Rz {:.9}", r[1], r[2]);
        assert!((r[1] + 0.5).abs() < 1e-9 && (r[2] - 2.0 * 9.81).abs() < 1e-9, "w0 {w0}: {r:?}");
    }
}

/// A ball resting on a frictionless floor (models/ball_drop.toml, Hertz contact F = K d^1.5)
/// is a neutral equilibrium: the forces balance but nothing holds it sideways. Statics finds
/// it from the drop height, warns that it is neutral, and keeps the horizontal position:
/// the contact carries the weight, d = (m g / K)^(2/3). It stopped with "the static tangent is
/// singular: the model is a mechanism".
#[test]
fn a_ball_on_the_floor_is_a_neutral_equilibrium() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("ball.csv");
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/ball_drop.toml");
    let (ok, err, header, rows) = statics(&[model.to_str().unwrap(), "--stop-time", "0.2"], &csv);
    assert!(ok, "{err}");
    assert_eq!(err.matches("is neutral").count(), 1, "warned once: {err}");
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (m, g, k, r) = (1.0f64, 9.81, 1e8, 0.05);
    let d = (m * g / k).powf(2.0 / 3.0);
    for row in &rows {
        let (y, force, penetration) = (row[column("y")], row[column("contact_force")], row[column("penetration")]);
        assert!((force - m * g).abs() < 1e-9 * m * g, "{row:?}");
        assert!((penetration / d - 1.0).abs() < 1e-9 && (y - (r - d)).abs() < 1e-12, "{row:?}");
    }
}

/// Fine ANCF meshes: a steel cantilever (1 m, 20 x 10 mm, 10 N at the tip; a probe's) of 64
/// and 200 shear-deformable ANCF elements reaches the Timoshenko corotational answer in 5 Newton
/// steps. Its residual wandered at 1.7e-4 N (64 elements) once the increments were at 1e-14,
/// above the round-off floor of the residual test, and the solve failed after 300 iterations
/// ("no equilibrium reached ... a mechanism"): the element's strains lost digits
/// (src/mechanics/elements/ancf_beam_2d.rs, `StrainPoint`).
#[test]
fn a_fine_ancf_cantilever_converges_at_its_round_off() {
    let tip = |formulation: &str, n: usize| {
        let text = format!(
            r#"[model]
name = "cantilever"
gravity = [0.0, 0.0]
[[beams]]
name = "beam"
start = [0.0, 0.0]
end = [1.0, 0.0]
elements = {n}
section = {{ width = 0.02, height = 0.01 }}
material = {{ E = 2.1e11, nu = 0.3, rho = 7850.0 }}
formulation = "{formulation}"
[[joints]]
name = "clamp"
type = "fixed"
body2 = "beam.start"
[[loads]]
type = "force"
body = "beam.end"
direction = [0.0, -1.0]
value = 10.0
[[outputs]]
name = "tip_y"
quantity = "y"
body = "beam.end"
"#
        );
        let (ok, err, _, rows) = statics_of(&text, &["--stop-time", "0"]);
        assert!(ok, "{formulation} {n}: {err}");
        rows[0][1]
    };
    let reference = tip("timoshenko", 64);
    for n in [64, 200] {
        let y = tip("ancf", n);
        println!("ANCF {n} elements: tip {y:.9e} m, Timoshenko (64) {reference:.9e}");
        assert!((y / reference - 1.0).abs() < 1e-6, "{y} against {reference}");
    }
}

/// A clamped-free column with a small lateral imperfection (a tip force 1e-3 EI/L^2) loaded
/// axially in steps of 0.05 up to 3 times its buckling load P_cr = pi^2 EI/(4 L^2): the load
/// follows the stable, bent branch. Reference: the elastica (elliptic integrals,
/// sqrt(P/EI) L = K(k), tip at L (2 E(k)/K(k) - 1) along and 2 k L/K(k) across) at P = 3 P_cr:
/// (-0.204124, 0.707389) L. Before, an increment jumped past the bifurcation onto the
/// unstable near-straight equilibrium and the column stayed straight, bent by 1e-6 against
/// its imperfection, with a warning only (a probe written from the docs).
#[test]
fn an_imperfect_column_loaded_in_steps_follows_its_stable_buckled_branch() {
    let (ok, stderr, _, rows) = statics_of(
        "[model]\nname = \"column\"\n[parameters]\nL = 1.0\nEI = 1.0\n[solver]\nstop_time = 1.0\noutput_interval = 0.05\n\
         [[beams]]\nname = \"b\"\nstart = [0.0, 0.0]\nend = [\"L\", 0.0]\nelements = 20\nformulation = \"euler_bernoulli\"\n\
         section = { EA = 1.0e6, EI = \"EI\", mass_per_length = 1.0, rotary_inertia = 1e-10 }\n\
         [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"b.start\"\n\
         [[loads]]\ntype = \"force\"\nbody = \"b.end\"\ndirection = [-1.0, 0.0]\nvalue = \"3*pi^2*EI/(4*L^2)*t\"\n\
         [[loads]]\ntype = \"force\"\nbody = \"b.end\"\ndirection = [0.0, 1.0]\nvalue = \"1e-3*EI/L^2\"\n\
         [[outputs]]\nname = \"tip_x\"\nquantity = \"x\"\nbody = \"b.end\"\n\
         [[outputs]]\nname = \"tip_y\"\nquantity = \"y\"\nbody = \"b.end\"\n",
        &[],
    );
    assert!(ok, "{stderr}");
    assert!(!stderr.contains("unstable"), "{stderr}");
    let last = rows.last().unwrap();
    let (x, y) = (last[1], last[2]);
    eprintln!("tip at 3 P_cr: ({x:.6}, {y:.6}) against (-0.204124, 0.707389)");
    assert!((x + 0.204124).abs() < 2e-3 && (y - 0.707389).abs() < 2e-3, "({x}, {y})");
    assert!(rows.iter().all(|r| r[2] >= 0.0), "bent towards its imperfection all along");
}

/// Statics with unilateral contacts (models/ball_drop_constraint.toml resting on its floor,
/// lifted by `lift * t` = 5 t N): the floor carries m g - 5 t until that reaches 0 at t =
/// m g / 5 = 1.962 s, the ball's sideways direction free throughout (a neutral equilibrium
/// that load increments step along). Past the lift-off the contact would pull, so it parts and
/// nothing holds the ball: the run ends there, saying so, with the rows before it. Before, the
/// increments stopped at t = 0.25 with "singular where the forces do not balance", and with
/// the ball held sideways the floor pulled it down with -5 N at 3 s (a probe).
#[test]
fn a_lifted_ball_loads_its_floor_less_until_the_contact_would_pull() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("lift.csv");
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/ball_drop_constraint.toml");
    let args = [model.to_str().unwrap(), "--set", "lift=5", "--set", "h0=0", "--set", "e=0"];
    let (ok, err, header, rows) =
        statics(&[&args[..], &["--stop-time", "3", "--output-interval", "0.25"]].concat(), &csv);
    println!("{err}");
    assert!(!ok);
    assert!(err.contains("static equilibrium at t = 2") && err.contains("lifted off"), "{err}");
    let force = header.iter().position(|h| h == "contact_force").unwrap();
    assert_eq!(rows.len(), 8, "the equilibria to 1.75 s");
    for r in &rows {
        assert!((r[force] - (9.81 - 5.0 * r[0])).abs() < 1e-9, "t = {}: {} N", r[0], r[force]);
    }
}

/// Lee's frame (Lee, Manuel & Rossow 1968: two 120-long members, EI = 1440, EA = 4320, pinned
/// at both ends) driven downwards at the load point by a long jack (displacement control): the
/// path passes the limit load, then turns back in the imposed displacement (snap-back), where
/// no nearby equilibrium exists. The run ends there, instead of jumping silently to a distant
/// branch (a probe: the load point moved sideways by 0.27 of the frame's size within 1e-3 of
/// the imposed displacement, and the load changed sign). No row moves the load point by more
/// than 0.1 of the frame from the one before (near the snap-back the path is steep: 7 per
/// row of 1 unit of stroke; the jump was 32).
#[test]
fn a_snap_back_under_displacement_control_ends_the_run() {
    let member = |name: &str, start: &str, end: &str| {
        format!(
            "[[beams]]\nname = \"{name}\"\nstart = {start}\nend = {end}\nelements = 10\nformulation = \"timoshenko\"\n\
             section = {{ EA = 4320.0, EI = 1440.0, GA = 1e9, mass_per_length = 1.0 }}\n"
        )
    };
    let text = format!(
        "[model]\nname = \"lee\"\n[solver]\nstop_time = 1.0\noutput_interval = 0.01\n{}{}\
         [[joints]]\nname = \"base\"\ntype = \"revolute\"\nbody2 = \"col.start\"\n\
         [[joints]]\nname = \"corner\"\ntype = \"fixed\"\nbody1 = \"col.end\"\nbody2 = \"bm.start\"\n\
         [[joints]]\nname = \"right\"\ntype = \"revolute\"\nbody2 = \"bm.end\"\n\
         [[joints]]\nname = \"jack\"\ntype = \"distance\"\nbody1 = \"ground\"\npoint1 = [24.0, -99880.0]\n\
         body2 = \"bm.node[2]\"\ndrive = \"1e5 - 100*t\"\n\
         [[outputs]]\nname = \"u\"\nquantity = \"x\"\nbody = \"bm.node[2]\"\n\
         [[outputs]]\nname = \"v\"\nquantity = \"y\"\nbody = \"bm.node[2]\"\n\
         [[outputs]]\nname = \"P\"\nquantity = \"drive_force\"\njoint = \"jack\"\n",
        member("col", "[0.0, 0.0]", "[0.0, 120.0]"),
        member("bm", "[0.0, 120.0]", "[120.0, 120.0]"),
    );
    let (ok, err, _, rows) = statics_of(&text, &[]);
    println!("{err}");
    assert!(!ok, "the run passed the snap-back");
    let last = rows.last().unwrap();
    let peak = rows.iter().map(|r| -r[3]).fold(0.0f64, f64::max);
    println!(
        "{} rows, the last at t = {}; peak load {peak:.4} = {:.2} EI/L^2",
        rows.len(),
        last[0],
        peak * 14400.0 / 1440.0
    );
    // The limit load (18.5 EI/L^2 in the literature, 18.95 with 10 elements per member here)
    // is on the path, and the path ends at the snap-back, 0.61 of the stroke.
    assert!((1.84..1.92).contains(&peak), "peak load {peak}");
    assert!((0.55..0.65).contains(&last[0]), "ended at t = {}", last[0]);
    for pair in rows.windows(2) {
        let moved = (pair[1][1] - pair[0][1]).hypot(pair[1][2] - pair[0][2]);
        assert!(moved < 0.1 * 120.0, "t = {}: the load point moved by {moved}", pair[1][0]);
    }
}

/// A bar (10 kg, centre at x = 0.2) on three constraint supports at x = -1, 0, 1, turned by a
/// torque 100 t N m (statics): the support at x = 1 unloads and lifts off where its least-norm
/// share reaches 0 (t = 0.85); from there the bar rests on the other two, R0 = 100 t - 0.2 W
/// and R1 = W - R0, with R2 = 0 and not negative (it pulled with -2.5 N at 0.9 s: a probe),
/// and every equilibrium stable.
#[test]
fn a_support_unloaded_by_a_torque_lifts_off_in_statics() {
    let support = |k: usize, x: f64| {
        format!(
            "[[contacts]]\nname = \"s{k}\"\nmethod = \"constraint\"\ntype = \"point_plane\"\npoint1 = [{x}, 0.0]\n\
             normal = [0.0, 1.0]\nbody2 = \"bar\"\npoint2 = [{x}, 0.0]\nrestitution = 0.5\n\
             [[outputs]]\nname = \"R{k}\"\nquantity = \"contact_force\"\ncontact = \"s{k}\"\n"
        )
    };
    let text = format!(
        "[model]\nname = \"bar3\"\ngravity = [0.0, -9.81]\n[solver]\nstop_time = 1.1\noutput_interval = 0.05\n\
         [[rigid_bodies]]\nname = \"bar\"\nmass = 10.0\ninertia = 4.8\nposition = [0.2, 0.0]\n\
         [[loads]]\ntype = \"torque\"\nbody = \"bar\"\nvalue = \"100*t\"\n{}{}{}",
        support(0, -1.0),
        support(1, 0.0),
        support(2, 1.0)
    );
    let (ok, err, _, rows) = statics_of(&text, &[]);
    assert!(ok, "{err}");
    // Resting on two supports, free sideways, the bar is stable: its neutral direction's
    // round-off omega^2 was once counted as unstable at some rows (a probe).
    assert!(!err.contains("unstable"), "{err}");
    assert_eq!(rows.len(), 23);
    let w = 98.1;
    for r in &rows {
        let (t, r0, r1, r2) = (r[0], r[1], r[2], r[3]);
        assert!(r2 >= 0.0 && (r0 + r1 + r2 - w).abs() < 1e-9, "t = {t}: {r0}, {r1}, {r2}");
        if t > 0.851 {
            println!("t = {t:.2}: {r0:.6}, {r1:.6}, {r2}");
            assert_eq!(r2, 0.0);
            assert!((r0 - (100.0 * t - 0.2 * w)).abs() < 1e-9, "t = {t}: R0 = {r0}");
        }
    }
}

/// `energy_supplied` in statics is the work of the loads along the equilibria (trapezoidal
/// rule between the equilibria reached): a spring k = 200 N/m stretched by a force 10 t N
/// stores (10 t)^2 / (2 k), and the work of a force growing linearly along a displacement
/// growing linearly is exact by the rule. Before, `energy_supplied` stayed 0 while
/// `energy_total` grew (a probe's rolled-up cantilever: 1974 J stored, 0 J supplied).
#[test]
fn statics_books_the_work_of_the_loads_as_supplied() {
    let (ok, err, _, rows) = statics_of(
        "[model]\nname = \"spring\"\n[solver]\nstop_time = 1.0\noutput_interval = 0.1\n\
         [[point_masses]]\nname = \"m\"\nmass = 1.0\nposition = [0.0, 0.0]\n\
         [[joints]]\nname = \"slide\"\ntype = \"prismatic\"\nbody2 = \"m\"\npoint = [0.0, 0.0]\naxis = [1.0, 0.0]\n\
         [[springs]]\nname = \"k\"\ntype = \"prismatic\"\njoint = \"slide\"\nstiffness = 200.0\n\
         [[loads]]\ntype = \"force\"\nbody = \"m\"\ndirection = [1.0, 0.0]\nvalue = \"10*t\"\n\
         [[outputs]]\nname = \"E\"\nquantity = \"energy_total\"\n\
         [[outputs]]\nname = \"Es\"\nquantity = \"energy_supplied\"\n",
        &[],
    );
    assert!(ok, "{err}");
    assert_eq!(rows.len(), 11);
    for r in &rows {
        let stored = (10.0 * r[0]).powi(2) / 400.0;
        assert!(
            (r[1] - stored).abs() < 1e-12 && (r[2] - stored).abs() < 1e-12,
            "t = {}: {} and {} J",
            r[0],
            r[1],
            r[2]
        );
    }
}

/// A free flexible beam (no joint) is a neutral equilibrium unloaded: its rigid motions have no
/// stiffness, so the row at t = 0 is written with the warning (the Newton matrix had only
/// round-off pivots there, so the solve did not flag it: no warning). Under an end force that
/// grows from 0 it has no equilibrium, and the failure says why: with 4 elements the tangent
/// is found singular, with 20 the increments fail to converge and the neutral start is named
/// (it advised smaller increments alone: a probe's "flying spaghetti" model).
#[test]
fn a_free_beam_is_neutral_and_has_no_equilibrium_under_a_load() {
    let text = |load: &str, elements: usize| {
        format!(
            "[model]\nname = \"free\"\n[solver]\nstop_time = 1.0\noutput_interval = 0.5\n\
             [[beams]]\nname = \"b\"\nstart = [0.0, 0.0]\nend = [6.0, 8.0]\nelements = {elements}\n\
             formulation = \"timoshenko\"\n\
             section = {{ EA = 1e4, GA = 1e4, EI = 500.0, mass_per_length = 1.0 }}\n{load}\
             [[outputs]]\nname = \"x\"\nquantity = \"x\"\nbody = \"b.end\"\n"
        )
    };
    for (elements, diagnosis) in
        [(4, "singular where the forces do not balance"), (20, "the equilibrium at t = 0 it starts from is neutral")]
    {
        let (ok, err, _, rows) = statics_of(&text("", elements), &[]);
        assert!(ok, "{err}");
        assert_eq!(rows.len(), 3);
        assert!(rows.iter().all(|r| (r[1] - 6.0).abs() < 1e-14), "{rows:?}");
        assert!(err.contains("the static equilibrium at t = 0 is neutral"), "{err}");
        let load = "[[loads]]\ntype = \"force\"\nbody = \"b.start\"\ndirection = [1.0, 0.0]\nvalue = \"8*t\"\n";
        let (ok, err, _, rows) = statics_of(&text(load, elements), &[]);
        assert!(!ok && rows.len() == 1, "{err}");
        assert!(err.contains(diagnosis), "{elements} elements: {err}");
    }
}

/// An equilibrium beyond the elements' range is told as `simulate` tells it: a discrete plate
/// (geometrically linear) clamped at one edge and rolled by end moments turns its patches past
/// 0.3 rad at the row t = 0.4, and its stiffening beyond went silent (a probe's plate then
/// stopped at a "limit point" that does not exist). Once, at that row.
#[test]
fn an_equilibrium_beyond_the_elements_range_is_told() {
    let (ok, err, _, rows) = statics_of(
        "[model]\nname = \"cant_moment\"\ndimension = 3\n\n[parameters]\na = { value = 1.0 }\nh = { value = 0.01 }\nE = { value = 210000000000.0 }\nnu = { value = 0.3 }\nrho = { value = 7850.0 }\nM = { value = 19230.77 }\n\n[[plates]]\nname = \"pl\"\nsize = [\"a\", \"a\"]\nthickness = \"h\"\nmaterial = { E = \"E\", nu = \"nu\", rho = \"rho\" }\norigin = [0, 0, 0]\nmesh = [8, 4]\nbodies = [4, 2]\nclamped = [\"x_min\"]\n\n[[loads]]\ntype = \"torque\"\nbody = \"pl.body[3][0]\"\ndirection = [0.0, -1.0, 0.0]\nvalue = \"M*t/2\"\n[[loads]]\ntype = \"torque\"\nbody = \"pl.body[3][1]\"\ndirection = [0.0, -1.0, 0.0]\nvalue = \"M*t/2\"\n[[outputs]]\nname = \"p\"\nquantity = \"pitch\"\nbody = \"pl.body[3][0]\"\n",
        &["--stop-time", "0.6", "--output-interval", "0.1"],
    );
    assert!(ok, "{err}");
    assert_eq!(rows.len(), 7);
    assert_eq!(err.matches("left its elements' range").count(), 1, "{err}");
    assert!(err.contains("the model left its elements' range at t = 0.4, "), "{err}");
}

/// A driven hub carrying an unstressed beam (models/spin_up.toml, the hub turned 50 rad by
/// t = 20 s) in one output interval of 20 s: the increments turn it 0.05 rad at 1/1024 of the
/// interval, a move that is the path's own (each about the one before), and the row at 20 s is
/// the one 41 rows of 0.5 s reach. It stopped at t = 8.59 as "a snap-through" (a probe).
#[test]
fn a_long_interval_of_a_driven_model_is_no_snap_through() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/spin_up.toml");
    let model = model.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = |interval: &str| {
        statics(
            &[model, "--stop-time", "20", "--output-interval", interval],
            &dir.path().join(format!("{interval}.csv")),
        )
    };
    let ((ok, err, _, long), (ok_fine, err_fine, _, fine)) = (run("20"), run("0.5"));
    assert!(ok && ok_fine, "{err}\n{err_fine}");
    assert_eq!((long.len(), fine.len()), (2, 41));
    let (a, b) = (&long[1], &fine[40]);
    println!("20 s in one interval: {a:?}\nin 40: {b:?}");
    assert!(a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-9 * (1.0 + y.abs())), "{a:?} against {b:?}");
}

/// The crane of models/crane_3d.toml slewed by its input in statics: a constant 0.3 rad from
/// the start (the input's start value puts the turret there, what it carries turned rigidly,
/// as `simulate` does: it found no equilibrium from the unslewed drawing), and a table ramping
/// the command to 6 rad over 2 s in one output interval and in twenty (each increment carries
/// the crane with its drive before the solve: the hook's free spin about its sling was swept
/// along and read as a snap-through at every interval, probes). The rows at 2 s agree, and the
/// slew angle is the command's 6 rad (it read 6 - 2 pi).
#[test]
fn a_crane_slewed_by_its_input_settles_at_any_output_interval() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/crane_3d.toml");
    let model = model.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("slew.csv");
    std::fs::write(&table, "time,value\n0,0\n2,6.0\n").unwrap();
    let input = format!("slew={}", table.display());
    let (ok, err, header, rows) =
        statics(&[model, "--input", "slew=0.3", "--stop-time", "0"], &dir.path().join("constant.csv"));
    assert!(ok, "{err}");
    let slew = header.iter().position(|h| h == "slew_angle").unwrap();
    assert!((rows[0][slew] - 0.3).abs() < 1e-12, "{:?}", rows[0]);
    let run = |interval: &str| {
        statics(&[model, "--input", &input, "--output-interval", interval], &dir.path().join(format!("{interval}.csv")))
    };
    let ((ok, err, _, long), (ok_fine, err_fine, _, fine)) = (run("2"), run("0.1"));
    assert!(ok && ok_fine, "{err}\n{err_fine}");
    assert_eq!((long.len(), fine.len()), (2, 21));
    let (a, b) = (&long[1], &fine[20]);
    println!("slewed 6 rad in one interval: {a:?}\nin twenty: {b:?}");
    assert!((a[slew] - 6.0).abs() < 1e-12, "{a:?}");
    assert!(a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-8 * (1.0 + y.abs())), "{a:?} against {b:?}");
}

/// A spatial cantilever rolled into a circle by an end moment growing to 2 pi EI / L, about z
/// and about y: at each row the supplied work equals the strain energy M^2 L / (2 EI) (the
/// moment is linear in the tip's turn, so the rule is exact if the turn is): the work counted
/// the Euler parameters' first-order increment, 2 sin(phi/2) for a turn phi, and came 4.0e-4
/// short (1973.13 J for 1973.92 J; the planar twin exact, a probe).
#[test]
fn the_work_of_an_end_moment_rolling_up_a_spatial_cantilever_is_its_strain_energy() {
    for axis in ["[0.0, 0.0, 1.0]", "[0.0, 1.0, 0.0]"] {
        let (ok, err, _, rows) = statics_of(
            &format!(
                "[model]\nname = \"rollup\"\ndimension = 3\n[solver]\nstop_time = 1.0\noutput_interval = 0.25\n\
                 [[beams]]\nname = \"b\"\nstart = [0.0, 0.0, 0.0]\nend = [1.0, 0.0, 0.0]\nelements = 16\n\
                 formulation = \"euler_bernoulli\"\n\
                 section = {{ EA = 1e6, EIy = 100.0, EIz = 100.0, GJ = 100.0, mass_per_length = 1.0 }}\n\
                 [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"b.start\"\n\
                 [[loads]]\ntype = \"torque\"\nbody = \"b.end\"\ndirection = {axis}\nvalue = \"200*pi*t\"\n\
                 [[outputs]]\nname = \"x\"\nquantity = \"x\"\nbody = \"b.end\"\n\
                 [[outputs]]\nname = \"E\"\nquantity = \"energy_potential\"\n\
                 [[outputs]]\nname = \"W\"\nquantity = \"energy_supplied\"\n"
            ),
            &[],
        );
        assert!(ok, "{err}");
        assert_eq!(rows.len(), 5);
        let last = &rows[4];
        println!("about {axis}: tip x {:.1e}, {} J stored, {} J supplied", last[1], last[2], last[3]);
        assert!(last[1].abs() < 1e-9, "the tip at x = {} m, not back at the root", last[1]);
        for r in &rows {
            let stored = (200.0 * std::f64::consts::PI * r[0]).powi(2) / 200.0;
            assert!((r[2] - stored).abs() < 1e-6 * stored.max(1.0), "t = {}: {} J stored for {stored}", r[0], r[2]);
            assert!(
                (r[3] - r[2]).abs() < 1e-9 * stored.max(1.0),
                "t = {}: {} J supplied, {} J stored",
                r[0],
                r[3],
                r[2]
            );
        }
    }
}

/// Lateral-torsional buckling of a cantilever strip under a tip load at its centroid
/// (Prandtl 1899, Michell 1899): P_cr = 4.0126 sqrt(EIy GJ) / L^2 (Timoshenko & Gere 1961,
/// sec. 6.4), here EIy = GJ = 1, L = 1, the stiff plane's EIz = 1e4, 20 spatial elements, the
/// load P_cr t. The rows turn unstable at t = 1.01, the first output past the critical load
/// (the discretization's own lies 0.3 % above it). The stability check's bound, the worst
/// case of the whole spectrum's round-off, hid the mode (omega^2 = -0.76 against a largest of
/// about 1e12) until t = 1.04 (a probe); it is now confirmed by its eigenvector.
#[test]
fn a_cantilever_strip_turns_unstable_at_its_lateral_torsional_buckling_load() {
    let (ok, err, _, rows) = statics_of(
        "[model]\nname = \"ltb\"\ndimension = 3\n[solver]\nstop_time = 1.03\noutput_interval = 0.01\n\
         [[beams]]\nname = \"b\"\nstart = [0.0, 0.0, 0.0]\nend = [1.0, 0.0, 0.0]\nelements = 20\n\
         formulation = \"euler_bernoulli\"\n\
         section = { EA = 1e8, GA = 1e8, EIy = 1.0, EIz = 1e4, GJ = 1.0, mass_per_length = 1.0 }\n\
         [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"b.start\"\n\
         [[loads]]\ntype = \"force\"\nbody = \"b.end\"\ndirection = [0.0, -1.0, 0.0]\nvalue = \"4.0126*t\"\n\
         [[outputs]]\nname = \"y\"\nquantity = \"y\"\nbody = \"b.end\"\n",
        &[],
    );
    println!("{err}");
    assert!(ok, "{err}");
    assert_eq!(rows.len(), 104);
    assert!(err.contains("the static equilibrium at t = 1.01 is unstable"), "{err}");
}

/// A clamped 3D steel cantilever with E given in MPa (2.1e5, everything else SI: a million
/// times too soft) under tip forces and a torque has no equilibrium its 8 elements represent
/// (the loads would curl it hundreds of turns). statics said "the model may be a mechanism",
/// wrong for a clamped beam; it now says the loads would deform it far beyond its elements,
/// with their linear response, and asks to check the stiffness and the units. The same beam
/// without its clamp is a mechanism and is still told so.
#[test]
fn a_cantilever_with_e_a_million_times_too_small_is_told_to_check_its_units() {
    let clamped = r#"[model]
name = "cant3d"
dimension = 3
[solver]
stop_time = 1.0
output_interval = 1.0
[[beams]]
name = "b"
start = [0.0, 0.0, 0.0]
end = [1.0, 0.0, 0.0]
elements = 8
formulation = "euler_bernoulli"
section = { width = 0.02, height = 0.01 }
material = { E = 2.1e5, nu = 0.3, rho = 7850.0 }
[[joints]]
name = "clamp"
type = "fixed"
body2 = "b.start"
point = [0.0, 0.0, 0.0]
[[loads]]
type = "force"
body = "b.end"
direction = [0.0, 1.0, 0.0]
value = 1.0
[[loads]]
type = "force"
body = "b.end"
direction = [0.0, 0.0, 1.0]
value = 1.0
[[loads]]
type = "torque"
body = "b.end"
direction = [1.0, 0.0, 0.0]
value = 1.0
[[outputs]]
name = "uy"
quantity = "y"
body = "b.end"
"#;
    let (ok, err, _, rows) = statics_of(clamped, &[]);
    println!("{err}");
    assert!(!ok && rows.is_empty(), "{err}");
    assert!(err.contains("static equilibrium at t = 0: no equilibrium reached"), "{err}");
    assert!(err.contains("the loads would deform it far beyond what its elements represent"), "{err}");
    assert!(err.contains("check the stiffness and the units (E in Pa"), "{err}");
    assert!(!err.contains("mechanism"), "{err}");
    // Its linear response: the tip turned by about P L^2 / (2 E I) = 1.4e3 rad by the force
    // across the thin side (I = b h^3 / 12).
    assert!(err.contains("moves it by 1.4e3 model lengths, or radians"), "{err}");

    let free = clamped
        .replace("[[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"b.start\"\npoint = [0.0, 0.0, 0.0]\n", "");
    assert!(!free.contains("clamp"));
    let (ok, err, _, _) = statics_of(&free, &[]);
    assert!(!ok);
    assert!(err.contains("the model may be a mechanism"), "{err}");
    assert!(!err.contains("far beyond"), "{err}");
}

/// Balls stacked as drawn (centres at y = 0.05 and 0.05 + 0.1 = 0.15000000000000002 m: apart by
/// round-off, 1e-17 m) on constraint contacts rest on each other from the start: the floor
/// carries both weights, the upper contact one (a probe's stack failed with "no equilibrium
/// reached ... a mechanism", both contacts left open).
#[test]
fn balls_drawn_touching_rest_on_each_other() {
    let ball =
        |name: &str, y: &str| format!("[[point_masses]]\nname = \"{name}\"\nmass = 1.0\nposition = [0.0, {y}]\n");
    let model = format!(
        "[model]\nname = \"stack\"\ngravity = [0.0, -9.81]\n{}{}\
         [[contacts]]\nname = \"floor\"\ntype = \"circle_plane\"\nmethod = \"constraint\"\npoint1 = [0.0, 0.0]\n\
         normal = [0.0, 1.0]\nbody2 = \"b0\"\nradius2 = 0.05\nrestitution = 0.5\n\
         [[contacts]]\nname = \"pair\"\ntype = \"circle_circle\"\nmethod = \"constraint\"\nbody1 = \"b0\"\n\
         radius1 = 0.05\nbody2 = \"b1\"\nradius2 = 0.05\nrestitution = 0.5\n\
         [[outputs]]\nname = \"F_floor\"\nquantity = \"contact_force\"\ncontact = \"floor\"\n\
         [[outputs]]\nname = \"F_pair\"\nquantity = \"contact_force\"\ncontact = \"pair\"\n\
         [[outputs]]\nname = \"y1\"\nquantity = \"y\"\nbody = \"b1\"\n",
        ball("b0", "0.05"),
        ball("b1", "0.15000000000000002"),
    );
    let (ok, stderr, header, rows) = statics_of(&model, &[]);
    assert!(ok, "{stderr}");
    let at = |name: &str| rows[0][header.iter().position(|h| h == name).unwrap()];
    assert!((at("F_floor") - 2.0 * 9.81).abs() < 1e-9, "floor carries {}", at("F_floor"));
    assert!((at("F_pair") - 9.81).abs() < 1e-9, "upper contact carries {}", at("F_pair"));
    assert!((at("y1") - 0.15).abs() < 1e-12, "upper ball at {}", at("y1"));
}

/// A space truss of three steel bars on spherical joints at both ends (a tripod carrying a
/// 10 kg point mass): each bar is free to spin about its own axis but for the round-off-sized
/// stiffness its weight's sag gives that spin. Statics finds the equilibrium, warns that it is
/// neutral, and its foot reactions are what vertical equilibrium and symmetry give,
/// M g / 3 + rho A L g each; the apex sits where it sits with the spins locked by universal
/// joints at the feet (a probe's tripod ended in "no equilibrium reached" at a residual of 3e-10
/// of the forces in play, for 4 and more elements per bar).
#[test]
fn a_pin_jointed_space_truss_under_gravity_finds_its_equilibrium() {
    let feet = [[1.0, 0.0], [-0.5, 0.75f64.sqrt()], [-0.5, -(0.75f64.sqrt())]];
    let tripod = |foot_joint: &str| {
        let mut text = "[model]\nname = \"tripod\"\ndimension = 3\ngravity = [0.0, 0.0, -9.81]\n\
            [[point_masses]]\nname = \"apex\"\nmass = 10.0\nposition = [0.0, 0.0, 1.0]\n\
            [[outputs]]\nname = \"apex_z\"\nquantity = \"z\"\nbody = \"apex\"\n"
            .to_string();
        for (k, [x, y]) in feet.iter().enumerate() {
            // A universal joint's pins, both normal to the bar (-x, -y, 1): it locks the spin.
            let pins = match foot_joint {
                "universal" => format!("axis = [{}, {x}, 0.0]\naxis2 = [{}, {}, -1.0]\n", -y, -x, -y),
                _ => String::new(),
            };
            text += &format!(
                "[[beams]]\nname = \"bar{k}\"\nstart = [{x}, {y}, 0.0]\nend = [0.0, 0.0, 1.0]\nelements = 6\n\
                 formulation = \"euler_bernoulli\"\nsection = {{ shape = \"circle\", radius = 0.01 }}\n\
                 material = {{ E = 2.1e11, nu = 0.3, rho = 7850.0 }}\n\
                 [[joints]]\nname = \"foot{k}\"\ntype = \"{foot_joint}\"\nbody2 = \"bar{k}.start\"\n\
                 point = [{x}, {y}, 0.0]\n{pins}\
                 [[joints]]\nname = \"top{k}\"\ntype = \"spherical\"\nbody1 = \"apex\"\nbody2 = \"bar{k}.end\"\n\
                 point = [0.0, 0.0, 1.0]\n\
                 [[outputs]]\nname = \"N{k}\"\nquantity = \"reaction_z\"\njoint = \"foot{k}\"\n"
            );
        }
        text
    };
    let (ok, err, header, rows) = statics_of(&tripod("spherical"), &[]);
    assert!(ok, "{err}");
    assert!(err.contains("warning: the static equilibrium at t = 0 is neutral"), "{err}");
    let at = |name: &str| rows[0][header.iter().position(|h| h == name).unwrap()];
    let bar_weight = 7850.0 * std::f64::consts::PI * 1e-4 * 2f64.sqrt() * 9.81;
    let foot = 10.0 * 9.81 / 3.0 + bar_weight;
    for k in 0..3 {
        let n = at(&format!("N{k}"));
        assert!((n - foot).abs() < 1e-9 * foot, "foot {k} carries {n} N, {foot} N by equilibrium");
    }
    let (ok, err, header, locked) = statics_of(&tripod("universal"), &[]);
    assert!(ok, "{err}");
    let z = locked[0][header.iter().position(|h| h == "apex_z").unwrap()];
    assert!((at("apex_z") - z).abs() < 1e-12, "apex at {} with free spins, {z} with locked ones", at("apex_z"));
    assert!(1.0 - z > 2e-6 && 1.0 - z < 4e-6, "the apex sinks by the bars' shortening: {}", 1.0 - z);
}

/// An input table as the load (`--input force=ramp.csv`, 0 to 4 pi^2 N over 1 s on the
/// mass-spring of k = 4 pi^2 N/m): each row's equilibrium is x = F/k = t. At rows 0.25 s apart
/// the increments move the mass 2.5 model lengths and are halved; the halved increments take
/// the input at their own time, linearly between the rows, as a load written in t is (they had
/// applied the row's full value: "the path of equilibria turns back or ends here", a probe).
/// Same rows as the load written as 4 pi^2 t.
#[test]
fn an_input_table_is_a_load_increment_like_a_load_in_t() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("ramp.csv");
    let k = 4.0 * std::f64::consts::PI * std::f64::consts::PI;
    std::fs::write(&table, format!("time,force\n0,0\n1,{k:.17e}\n")).unwrap();
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml");
    let input = format!("force={}", table.display());
    let csv = dir.path().join("rows.csv");
    let (ok, err, header, rows) =
        statics(&[model.to_str().unwrap(), "--input", &input, "--output-interval", "0.25", "--stop-time", "1"], &csv);
    assert!(ok, "{err}");
    let x = header.iter().position(|h| h == "x").unwrap();
    assert_eq!(rows.len(), 5);
    for row in &rows {
        println!("t = {}: x = {:.15}", row[0], row[x]);
        assert!((row[x] - row[0]).abs() < 1e-12, "{row:?}");
    }
}
