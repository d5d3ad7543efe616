//! `flexfmu simulate --states`: the states file (docs/cli.md, "States file") holds, at every CSV
//! row's time, the coordinates the model's own outputs report (same numbers), the analytic
//! motion where there is one, and the contact status the contact's output reports.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const EXE: &str = env!("CARGO_BIN_EXE_flexfmu");

fn model(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models").join(format!("{name}.toml"))
}

/// Simulate `name` to `stop` with `--states`: (CSV header, CSV rows, states document).
fn simulate(dir: &Path, name: &str, stop: &str) -> (Vec<String>, Vec<Vec<f64>>, Value) {
    let (csv, json) = (dir.join(format!("{name}.csv")), dir.join(format!("{name}.json")));
    let (header, rows, states) = crate::common::cli::simulate_with_states(&model(name), &csv, &json, stop);
    assert_eq!(states["format"], "flexfmu-states");
    assert_eq!(states["version"], 1);
    assert_eq!(states["model"], name);
    (header, rows, states)
}

/// Equal to the last bits: the file holds the shortest representation of each number, and
/// serde_json's default reader (without `float_roundtrip`) may round it one ulp off.
fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 2.0 * f64::EPSILON * b.abs().max(f64::MIN_POSITIVE)
}

fn column(header: &[String], name: &str) -> usize {
    header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}"))
}

fn frames(states: &Value, rows: &[Vec<f64>]) -> Vec<Value> {
    let frames = states["frames"].as_array().unwrap().clone();
    assert_eq!(frames.len(), rows.len(), "one frame per CSV row");
    for (f, r) in frames.iter().zip(rows) {
        assert!(same(f["t"].as_f64().unwrap(), r[0]), "frame time {} is the CSV's {}", f["t"], r[0]);
    }
    frames
}

/// The corotational pendulum: its beam's last node is the `arm.end` of the tip outputs, and the
/// first node stays on the pin at the origin.
#[test]
fn beam_nodes_are_the_outputs_coordinates() {
    let dir = tempfile::tempdir().unwrap();
    let (header, rows, states) = simulate(dir.path(), "pendulum_corotational", "0.5");
    let scene = &states["scene"];
    assert_eq!(scene["dimension"], 2);
    let beam = &scene["beams"][0];
    assert_eq!(beam["name"], "arm");
    assert_eq!(beam["formulation"], "corotational");
    assert_eq!(beam["nodes"].as_array().unwrap().len(), 5, "4 elements, 5 nodes");
    assert_eq!(beam["elements"][3], serde_json::json!([3, 4]));
    let (x, y) = (column(&header, "tip_x"), column(&header, "tip_y"));
    for (f, r) in frames(&states, &rows).iter().zip(&rows) {
        let nodes = f["beams"][0]["nodes"].as_array().unwrap();
        let tip = nodes[4].as_array().unwrap();
        let (tx, ty) = (tip[0].as_f64().unwrap(), tip[1].as_f64().unwrap());
        assert!(same(tx, r[x]) && same(ty, r[y]), "t = {}: ({tx}, {ty}) vs ({}, {})", r[0], r[x], r[y]);
        assert_eq!(tip.len(), 3, "x, y, theta");
        let pin = nodes[0].as_array().unwrap();
        assert!(pin[0].as_f64().unwrap().abs() < 1e-9 && pin[1].as_f64().unwrap().abs() < 1e-9, "{pin:?}");
        assert_eq!(f["beams"][0]["curve"].as_array().unwrap().len(), 5);
    }
    // The tip has fallen: the mechanism moved.
    assert!(rows.last().unwrap()[y] < -0.5, "{}", rows.last().unwrap()[y]);
}

/// The heavy top (models/heavy_top.toml): the body's state is (x, y, z, e0..e3), the outputs'
/// values; unit Euler parameters; the centre of mass turns about z at Omega = 1 rad/s at the
/// fixed nutation theta0 = 30 deg, l = 0.1 m (steady precession, Goldstein sec. 5.7).
#[test]
fn spatial_body_follows_steady_precession() {
    let dir = tempfile::tempdir().unwrap();
    let (header, rows, states) = simulate(dir.path(), "heavy_top", "0.5");
    assert_eq!(states["scene"]["dimension"], 3);
    assert_eq!(states["scene"]["bodies"][0]["kind"], "spatial_body");
    let cols: Vec<usize> = ["x", "y", "z", "e0", "e1", "e2", "e3"].iter().map(|c| column(&header, c)).collect();
    let (l, theta0, omega) = (0.1_f64, std::f64::consts::FRAC_PI_6, 1.0_f64);
    let mut worst = 0.0_f64;
    for (f, r) in frames(&states, &rows).iter().zip(&rows) {
        let s: Vec<f64> = f["bodies"][0].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        assert!(s.iter().zip(&cols).all(|(v, &c)| same(*v, r[c])), "t = {}: {s:?}", r[0]);
        let norm: f64 = s[3..].iter().map(|e| e * e).sum();
        assert!((norm - 1.0).abs() < 1e-9, "|p|^2 = {norm}");
        let t = r[0];
        let expected = [l * theta0.sin() * (omega * t).cos(), l * theta0.sin() * (omega * t).sin(), l * theta0.cos()];
        for k in 0..3 {
            worst = worst.max((s[k] - expected[k]).abs());
        }
    }
    // The step 1e-3 s of the model keeps the precession to about 1e-6 m over 0.5 s.
    assert!(worst < 1e-5, "largest deviation from steady precession {worst} m");
}

/// The dropped ball (radius 0.05 m from 0.55 m): the contact flag is the `contact_state`
/// output, the ball gets the contact's radius as its shape, the floor is a ground plane, and
/// contact starts at the free-fall time sqrt(2 * 0.5 / 9.81) = 0.3193 s, to one output interval.
#[test]
fn contact_status_is_the_contact_output() {
    let dir = tempfile::tempdir().unwrap();
    let (header, rows, states) = simulate(dir.path(), "ball_drop", "0.5");
    let scene = &states["scene"];
    assert_eq!(scene["bodies"][0]["radius"], 0.05);
    assert_eq!(scene["contacts"][0]["body2"], "ball");
    assert_eq!(scene["ground_planes"][0]["normal"], serde_json::json!([0.0, 1.0]));
    let c = column(&header, "contact_state");
    let mut first = None;
    for (f, r) in frames(&states, &rows).iter().zip(&rows) {
        let closed = f["contacts"][0].as_bool().unwrap();
        assert_eq!(closed, r[c] == 1.0, "t = {}", r[0]);
        if closed && first.is_none() {
            first = Some(r[0]);
        }
    }
    let onset = (2.0 * 0.5 / 9.81_f64).sqrt();
    let first = first.expect("the ball reaches the floor");
    assert!(first >= onset && first <= onset + 1.001e-3, "first frame in contact at {first}, onset {onset}");
}

/// A states file the command line cannot write is refused before the run.
#[test]
fn unwritable_states_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(EXE)
        .args(["simulate".as_ref(), model("pendulum").as_os_str(), "--states".as_ref()])
        .arg(dir.path().join("missing/dir/states.json"))
        .arg("-o")
        .arg(dir.path().join("out.csv"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot write"), "{}", String::from_utf8_lossy(&o.stderr));
}

/// In a spatial model the states file lists a beam's nodes among the bodies, as
/// `spatial_body` entries named `<beam>.node[i]`, and `scene.beams` is empty (docs/cli.md,
/// "States file": it said every beam was listed there).
#[test]
fn spatial_beam_nodes_are_bodies_of_the_scene() {
    let dir = tempfile::tempdir().unwrap();
    let model = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/crane_3d.toml");
    let (csv, json) = (dir.path().join("c.csv"), dir.path().join("c.json"));
    let (_, _, states) = crate::common::cli::simulate_with_states(&model, &csv, &json, "0.01");
    let scene = &states["scene"];
    assert_eq!(scene["dimension"], 3);
    assert_eq!(scene["beams"].as_array().unwrap().len(), 0, "{scene}");
    let node = scene["bodies"].as_array().unwrap().iter().find(|b| b["name"] == "boom.node[0]").expect("boom.node[0]");
    assert_eq!(node["kind"], "spatial_body");
    assert_eq!(states["frames"][0]["bodies"][0].as_array().unwrap().len(), 7);
}
