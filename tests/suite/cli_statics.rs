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
    let dir = tempfile::tempdir().unwrap();
    let (model, csv) = (dir.path().join("cantilever.toml"), dir.path().join("cantilever.csv"));
    std::fs::write(&model, CANTILEVER).unwrap();
    let (ok, err, _, rows) = statics(&[model.to_str().unwrap()], &csv);
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
/// equilibrium: exit 1 with the diagnosis and the time, the CSV holding its header. The advice
/// fits the cause: what holds a free motion, not smaller increments (which were advised, and
/// cannot help a mechanism at t = 0).
#[test]
fn a_model_without_equilibrium_fails_with_the_diagnosis() {
    let dir = tempfile::tempdir().unwrap();
    let (model, csv) = (dir.path().join("free.toml"), dir.path().join("free.csv"));
    let text = CANTILEVER
        .replace("[[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody1 = \"ground\"\nbody2 = \"beam.start\"\n", "")
        .replace("[[outputs]]\nname = \"clamp_y\"\nquantity = \"reaction_y\"\njoint = \"clamp\"\n", "");
    assert!(!text.contains("[[joints]]") && !text.contains("clamp"));
    std::fs::write(&model, text).unwrap();
    let (ok, err, header, rows) = statics(&[model.to_str().unwrap()], &csv);
    println!("{err}");
    assert!(!ok);
    assert!(err.contains("static equilibrium at t = 0") && err.contains("singular"), "{err}");
    assert!(err.contains("hold it with a joint, a spring or a support"), "{err}");
    assert!(err.contains("smaller increments cannot help") && !err.contains("may reach it"), "{err}");
    assert_eq!(header, ["time", "tip_y"]);
    assert!(rows.is_empty(), "{rows:?}");
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
    let dir = tempfile::tempdir().unwrap();
    let (model, csv) = (dir.path().join("rollup.toml"), dir.path().join("rollup.csv"));
    std::fs::write(
        &model,
        "[model]\nname = \"rollup\"\n[[beams]]\nname = \"arm\"\nstart = [0.0, 0.0]\nend = [1.0, 0.0]\nelements = 20\n\
         formulation = \"euler_bernoulli\"\nsection = { area = 1e-2, inertia = 1e-6 }\n\
         material = { E = 1e6, nu = 0.3, rho = 1000.0 }\n[[joints]]\nname = \"clamp\"\ntype = \"fixed\"\n\
         body2 = \"arm.start\"\npoint = [0.0, 0.0]\n[[loads]]\ntype = \"torque\"\nbody = \"arm.end\"\n\
         value = \"2*pi*1e6*1e-6*t\"\n[[outputs]]\nname = \"x\"\nquantity = \"x\"\nbody = \"arm.end\"\n\
         [[outputs]]\nname = \"y\"\nquantity = \"y\"\nbody = \"arm.end\"\n[[outputs]]\nname = \"angle\"\n\
         quantity = \"angle\"\nbody = \"arm.end\"\n[[outputs]]\nname = \"mid_y\"\nquantity = \"y\"\n\
         body = \"arm.node[10]\"\n",
    )
    .unwrap();
    let args = [model.to_str().unwrap(), "--stop-time", "1", "--output-interval", "1"];
    let (ok, err, _, rows) = statics(&args, &csv);
    assert!(ok, "{err}");
    let r = &rows[1];
    println!("tip ({:e}, {:e}), angle {}, middle y {}", r[1], r[2], r[3], r[4]);
    assert!(r[1].abs() < 1e-9 && r[2].abs() < 1e-9, "the tip back at the root: ({}, {})", r[1], r[2]);
    assert!((r[3] - 2.0 * std::f64::consts::PI).abs() < 1e-9, "tip rotation {}", r[3]);
    assert!((r[4] - 1.0 / std::f64::consts::PI).abs() < 2e-3, "middle node y {}", r[4]);
}
