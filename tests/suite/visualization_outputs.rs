//! `[visualization] outputs = true` (docs/model-file.md): every body's and beam node's position
//! and orientation become outputs. They are the solver's coordinates (equal to the states file
//! of `flexfmu simulate --states` and to the model's own outputs of the same quantities), and
//! the FMU reports them as `flexfmu simulate` does. Without the section nothing changes (the
//! modelDescription snapshots of models/ are checked by src/export/model_description.rs).

use std::path::{Path, PathBuf};
use std::process::Command;

use flexfmu::model::Model;

use crate::common;
use common::fmu::{Fmu, read};

const EXE: &str = env!("CARGO_BIN_EXE_flexfmu");

/// models/NAME.toml with the visualization outputs switched on, written into `dir`.
fn with_visualization(dir: &Path, name: &str) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("models").join(format!("{name}.toml"));
    let text = std::fs::read_to_string(source).unwrap() + "\n[visualization]\noutputs = true\n";
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

/// `flexfmu simulate` to `stop`: header and rows of the CSV, and the states document.
fn simulate(model: &Path, stop: &str) -> (Vec<String>, Vec<Vec<f64>>, serde_json::Value) {
    let dir = model.parent().unwrap();
    let (csv, json) = (dir.join("out.csv"), dir.join("states.json"));
    common::cli::simulate_with_states(model, &csv, &json, stop)
}

fn col(header: &[String], name: &str) -> usize {
    header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 2.0 * f64::EPSILON * b.abs().max(f64::MIN_POSITIVE)
}

#[test]
fn corotational_nodes_are_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let (header, rows, states) = simulate(&with_visualization(dir.path(), "pendulum_corotational"), "0.3");
    // The declared outputs first, unchanged; then 5 nodes x (x, y, angle).
    assert_eq!(header[..4], ["time", "tip_x", "tip_y", "energy_total"]);
    assert_eq!(header.len(), 4 + 15);
    assert_eq!(header[4..7], ["arm.node[0].x", "arm.node[0].y", "arm.node[0].angle"]);
    for (r, f) in rows.iter().zip(states["frames"].as_array().unwrap()) {
        assert_eq!(r[col(&header, "arm.node[4].x")], r[col(&header, "tip_x")]);
        assert_eq!(r[col(&header, "arm.node[4].y")], r[col(&header, "tip_y")]);
        for k in 0..5 {
            let node = &f["beams"][0]["nodes"][k];
            for (i, q) in ["x", "y", "angle"].iter().enumerate() {
                let v = r[col(&header, &format!("arm.node[{k}].{q}"))];
                assert!(close(node[i].as_f64().unwrap(), v), "t = {}: node {k} {q}", r[0]);
            }
        }
    }
}

#[test]
fn spatial_body_pose_is_output() {
    let dir = tempfile::tempdir().unwrap();
    let (header, rows, _) = simulate(&with_visualization(dir.path(), "heavy_top"), "0.3");
    for r in &rows {
        for q in ["x", "y", "z", "e0", "e1", "e2", "e3"] {
            assert_eq!(r[col(&header, &format!("top.{q}"))], r[col(&header, q)], "t = {}: {q}", r[0]);
        }
    }
}

/// ANCF nodes: positions, and the section angle 0 at the start (the reference is the initial
/// section), as the crank's rotation makes it grow.
#[test]
fn ancf_nodes_are_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let (header, rows, states) = simulate(&with_visualization(dir.path(), "flexible_crank_slider"), "0.05");
    assert_eq!(rows[0][col(&header, "crank.node[1].angle")], 0.0);
    assert!(rows.last().unwrap()[col(&header, "crank.node[1].angle")].abs() > 1e-3);
    for (r, f) in rows.iter().zip(states["frames"].as_array().unwrap()) {
        let node = &f["beams"][0]["nodes"][2]; // crank.node[1] after node[0], mid[0]
        assert!(close(node[0].as_f64().unwrap(), r[col(&header, "crank.node[1].x")]));
        assert!(close(node[1].as_f64().unwrap(), r[col(&header, "crank.node[1].y")]));
        assert!(close(f["bodies"][0][0].as_f64().unwrap(), r[col(&header, "slider.x")]));
    }
}

/// The FMU (through the `fmi` crate) has the outputs and reports, at each communication point
/// of the model's output interval, the values of `flexfmu simulate`'s rows.
#[test]
fn fmu_reports_the_visualization_outputs_as_simulate() {
    let dir = tempfile::tempdir().unwrap();
    let path = with_visualization(dir.path(), "pendulum_corotational");
    let (header, rows, _) = simulate(&path, "0.2");
    let model = Model::load(&path).unwrap();
    let fmu = Fmu::build(&model);
    let names: Vec<&str> = fmu.vars.outputs().map(|v| v.name.as_str()).collect();
    assert_eq!(names, header[1..].iter().map(String::as_str).collect::<Vec<_>>());
    let out = fmu.outputs();
    let mut inst = fmu.start("viz", None, |_| {});
    let (h, mut t) = (0.01, 0.0);
    let mut worst = 0.0_f64;
    for (k, row) in rows.iter().enumerate() {
        if k > 0 {
            // Step to exactly k h, the time `simulate` writes (t_k - t_(k-1) is exact).
            let next = k as f64 * h;
            fmi::fmi2::instance::CoSimulation::do_step(&inst, t, next - t, true).unwrap();
            t = next;
        }
        let values = read(&mut inst, &out);
        for (v, expected) in values.iter().zip(&row[1..]) {
            worst = worst.max((v - expected).abs() / expected.abs().max(1.0));
        }
    }
    println!("largest relative difference FMU vs simulate: {worst:e}");
    // The same solver at the same communication points: bit for bit.
    assert!(worst == 0.0, "largest difference FMU vs simulate {worst:e}");
}

/// `outputs = false` (and a misspelt key) behave as documented.
#[test]
fn off_adds_nothing_and_unknown_keys_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/pendulum_corotational.toml");
    let base = std::fs::read_to_string(source).unwrap();
    let off = dir.path().join("off.toml");
    std::fs::write(&off, base.clone() + "\n[visualization]\noutputs = false\n").unwrap();
    let (header, _, _) = simulate(&off, "0.01");
    assert_eq!(header, ["time", "tip_x", "tip_y", "energy_total"]);
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, base + "\n[visualization]\noutput = true\n").unwrap();
    let o = Command::new(EXE).args(["check".as_ref(), bad.as_os_str()]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
}
