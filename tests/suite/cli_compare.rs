//! `flexfmu compare` on models/mass_spring.toml: the accuracy-vs-cost table must show what the
//! methods' theory says (second order: error / 4 per halving of the step), its errors must
//! agree with the analytic solution x = x0 cos(2 pi t), and its costs with the step counts.

use std::path::Path;
use std::process::Command;

const EXE: &str = env!("CARGO_BIN_EXE_flexfmu");
const T_END: f64 = 0.5;
const X0: f64 = 0.1;

fn model() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml")
}

fn compare(extra: &[&str], out: &Path) -> (serde_json::Value, String) {
    let o = Command::new(EXE)
        .arg("compare")
        .arg(model())
        .args(["--stop-time", &T_END.to_string()])
        .args(extra)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    println!("{stdout}");
    let text = std::fs::read_to_string(out).unwrap();
    (
        if out.extension().is_some_and(|e| e == "json") {
            serde_json::from_str(&text).unwrap()
        } else {
            serde_json::Value::String(text)
        },
        stdout,
    )
}

/// (x(T), v(T)) from `flexfmu simulate` with one method and step.
fn simulated_end(dir: &tempfile::TempDir, method: &str, h: f64) -> (f64, f64) {
    let csv = dir.path().join(format!("{method}_{h}.csv"));
    let o = Command::new(EXE)
        .arg("simulate")
        .arg(model())
        .args(["--stop-time", &T_END.to_string(), "--integrator", method, "--step", &h.to_string()])
        .arg("-o")
        .arg(&csv)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&csv).unwrap();
    let last = text.lines().last().unwrap();
    let cells: Vec<f64> = last.split(',').map(|c| c.parse().unwrap()).collect();
    (cells[1], cells[2])
}

#[test]
fn compare_table_shows_second_order_and_true_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, stdout) = compare(&["--outputs", "x,v"], &dir.path().join("table.json"));
    let runs = doc["runs"].as_array().unwrap();
    // Every method at the model's step (1e-3) and three halvings.
    assert_eq!(runs.len(), 5 * 4, "{stdout}");
    let reference_error = doc["reference"]["estimated_error"].as_f64().unwrap();
    println!("reference estimated error {reference_error:.2e}");
    for r in runs {
        let name = r["integrator"].as_str().unwrap();
        let h = r["step"].as_f64().unwrap();
        let e = r["end_error"].as_f64().unwrap();
        // Cost columns: the number of steps is T / h; every step costs at least one Newton
        // iteration per implicit stage (TTBIF 3, Bathe 2, the others 1).
        let steps = r["steps"].as_u64().unwrap();
        assert_eq!(steps, (T_END / h).round() as u64, "{name} h = {h}");
        let stages = match name {
            "ttbif" => 3,
            "bathe" => 2,
            _ => 1,
        };
        assert!(r["newton_iterations"].as_u64().unwrap() >= stages * steps, "{name} h = {h}");
        assert!(r["wall_time_s"].as_f64().unwrap() > 0.0);
        // The tabulated error of x agrees with the analytic solution: |x(T) - x_exact(T)| / x0
        // (x0 is the range of x) differs from it by at most the reference's own error.
        let x_err = r["end_errors"]["x"].as_f64().unwrap();
        assert!(x_err <= e);
        let v_err = r["end_errors"]["v"].as_f64().unwrap();
        if h == 1e-3 || h == 1.25e-4 {
            // Analytic x = x0 cos(w t), v = -x0 w sin(w t); their ranges are x0 and x0 w (the
            // samples include t = 0 and t = 0.25).
            let w = 2.0 * std::f64::consts::PI;
            let (x, v) = simulated_end(&dir, name, h);
            let exact_x = (x - X0 * (w * T_END).cos()).abs() / X0;
            let exact_v = (v + X0 * w * (w * T_END).sin()).abs() / (X0 * w);
            println!(
                "{name:<18} h = {h:.3e}: table errors x {x_err:.6e} v {v_err:.6e}, against the analytic solution x {exact_x:.6e} v {exact_v:.6e}"
            );
            assert!((x_err - exact_x).abs() <= 2.0 * reference_error + 1e-13, "{name} h = {h}");
            assert!((v_err - exact_v).abs() <= 2.0 * reference_error + 1e-13, "{name} h = {h}");
        }
        assert!(reference_error < 0.05 * e, "{name} h = {h}: reference error {reference_error:e} vs {e:e}");
    }
    // Orders: error ratio 4 per halving for these second-order methods.
    for m in ["ttbif", "hht", "generalized-alpha", "newmark", "bathe"] {
        let errs: Vec<f64> =
            runs.iter().filter(|r| r["integrator"] == m).map(|r| r["end_error"].as_f64().unwrap()).collect();
        let ratios: Vec<f64> = errs.windows(2).map(|w| w[0] / w[1]).collect();
        println!("{m:<18} errors {errs:?} ratios {ratios:.3?}");
        for r in &ratios {
            assert!((r - 4.0).abs() < 0.2, "{m}: ratio {r} per halving");
        }
        for r in runs.iter().filter(|r| r["integrator"] == m).skip(1) {
            let p = r["order"].as_f64().unwrap();
            assert!((p - 2.0).abs() < 0.05, "{m}: order {p}");
        }
    }
    // TTBIF has the smallest error at every step (DESIGN.md: period error constant).
    for k in 0..4 {
        let at = |m: &str| runs.iter().filter(|r| r["integrator"] == m).nth(k).unwrap()["end_error"].as_f64().unwrap();
        for m in ["hht", "generalized-alpha", "newmark", "bathe"] {
            assert!(at("ttbif") < at(m), "step index {k}: ttbif {} vs {m} {}", at("ttbif"), at(m));
        }
    }
}

#[test]
fn compare_writes_csv_and_rejects_bad_options() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("table.csv");
    let (text, _) = compare(&["--integrators", "hht,bathe", "--steps", "2e-3,1e-3", "--reference-step", "1e-5"], &out);
    let text = text.as_str().unwrap().to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("integrator,rho_inf,step,end_error,max_error,order,steps"), "{}", lines[0]);
    assert_eq!(lines.len(), 1 + 4, "{text}");
    assert!(lines[1].starts_with("hht,0.5,2e-3,") && lines[4].starts_with("bathe,0.5,1e-3,"), "{text}");
    // Usage errors (exit code 2) before any run and before any note: an unknown output, a table
    // file that is neither .csv nor .json (it had been written as JSON), and a reference step
    // above half the output interval (both reference runs ran at the interval, and the header
    // said "estimated error 0"; a probe).
    for (args, message) in [
        (&["--outputs", "nope"][..], "unknown output 'nope' (the model declares: x, v, a, energy_total)"),
        (&["-o", "table.txt"][..], "-o table.txt: the table is written as .csv or .json"),
        (&["--reference-step", "10"][..], "--reference-step 10 is more than half the output interval 0.01 s"),
    ] {
        let bad = Command::new(EXE).arg("compare").arg(model()).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&bad.stderr);
        assert_eq!(bad.status.code(), Some(2), "{err}");
        assert!(err.starts_with(&format!("error: {message}")), "{err}");
    }
    // Halvings are bounded (a probe's 1e6 ran without end): 16 at most, refused as usage.
    let bad = Command::new(EXE).arg("compare").arg(model()).args(["--halvings", "1000000"]).output().unwrap();
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{err}");
    assert!(err.contains("0..=16"), "{err}");
}

/// What the table alone would not say is noted on stderr: a method run at another rho_inf than
/// asked (HHT takes [0.5, 1]; a probe read its row as run at 0), and steps above the output
/// interval, which run at the interval and so repeat one run (a probe read three identical rows
/// as three runs, order 0).
#[test]
fn compare_notes_a_clamped_rho_inf_and_steps_above_the_output_interval() {
    let run = |extra: &[&str]| {
        let o = Command::new(EXE)
            .arg("compare")
            .arg(model())
            .args(["--stop-time", "0.1", "--halvings", "1"])
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).to_string()
    };
    let stderr = run(&["--integrators", "hht", "--rho-inf", "0"]);
    assert!(stderr.contains("note: hht takes rho_inf in [0.5, 1]; it runs at 0.5"), "{stderr}");
    let stderr = run(&["--integrators", "ttbif", "--output-interval", "5e-4", "--steps", "1e-3,5e-4"]);
    assert!(stderr.contains("note: steps above the output interval 0.0005 s run at that interval"), "{stderr}");
    assert!(stderr.contains("(0.001 s and longer)"), "{stderr}");
    assert!(!run(&["--integrators", "ttbif"]).contains("note:"));
}

/// The rigid pendulum's energy_total is zero (its datum at the pin, released at rest level)
/// and stays so within round-off: relative to its own size its errors were round-off over
/// round-off, the table's end_error read 1e3 and its orders 1.32 and 0.09 (a probe). It is left
/// out with a note, and the table shows the methods' second order on the other outputs.
#[test]
fn compare_leaves_out_an_output_that_is_zero_within_the_reference_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("table.json");
    let o = Command::new(EXE)
        .arg("compare")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("models/rigid_pendulum.toml"))
        .args(["--halvings", "2", "--integrators", "ttbif,hht", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("note: energy_total is left out"), "{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let runs = doc["runs"].as_array().unwrap();
    assert!(
        runs.iter().all(|r| r["end_errors"].get("energy_total").is_none() && r["end_errors"].get("angle").is_some())
    );
    for r in runs {
        assert!(r["end_error"].as_f64().unwrap() < 1e-3, "{r}");
        if let Some(p) = r["order"].as_f64() {
            assert!((1.9..2.1).contains(&p), "{r}");
        }
    }
}
