//! docs/tutorial.md stays true: its model (the first `toml` block) checked and run as the
//! tutorial runs it, free and driven by its torque table, ends on the rows the tutorial prints
//! (a probe found the driven row stale: 17.7908 printed, 17.7935 computed).

use std::path::Path;
use std::process::Command;

use crate::common::cli::EXE;

/// The tutorial's text, its model, and the numbers of the row printed after `marker`.
fn tutorial() -> (String, String) {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/tutorial.md")).unwrap();
    let start = text.find("```toml\n").unwrap() + "```toml\n".len();
    let model = text[start..][..text[start..].find("```").unwrap()].to_string();
    (text, model)
}

fn printed_row(text: &str, marker: &str) -> Vec<f64> {
    let after = &text[text.find(marker).unwrap_or_else(|| panic!("no '{marker}' in the tutorial")) + marker.len()..];
    after.lines().nth(1).unwrap().split(',').map(|x| x.trim().parse().unwrap()).collect()
}

#[test]
fn the_tutorials_runs_end_on_the_rows_it_prints() {
    let (text, model) = tutorial();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pendulum_torque.toml");
    std::fs::write(&path, &model).unwrap();
    let table = dir.path().join("torque.csv");
    std::fs::write(&table, "time,torque\n0,0\n0.5,0\n0.51,8\n2,8\n").unwrap();
    let check = Command::new(EXE).arg("check").arg(&path).output().unwrap();
    let said = String::from_utf8_lossy(&check.stdout);
    let guid = said.split("guid ").nth(1).unwrap().trim();
    assert!(text.contains(&format!("pendulum_torque: ok, 18 variables, guid {guid}")), "{said}");
    // The free run's last row is FMPy's printed one ("to the last digit"), the driven run's
    // the one printed after it.
    for (csv, extra, marker) in [
        ("free.csv", None, "$ tail -1 fmpy.csv"),
        ("driven.csv", Some(format!("torque={}", table.display())), "$ tail -1 driven.csv"),
    ] {
        let out = dir.path().join(csv);
        let mut command = Command::new(EXE);
        command.arg("simulate").arg(&path).arg("-o").arg(&out);
        if let Some(input) = &extra {
            command.args(["--input", input]);
        }
        assert!(command.output().unwrap().status.success());
        let rows = std::fs::read_to_string(&out).unwrap();
        let got: Vec<f64> = rows.lines().last().unwrap().split(',').map(|x| x.parse().unwrap()).collect();
        let want = printed_row(&text, marker);
        println!("{csv}: {got:?}\nprinted: {want:?}");
        assert_eq!(got.len(), want.len());
        assert!(
            got.iter().zip(&want).all(|(g, w)| (g - w).abs() <= 1e-12 * (1.0 + w.abs())),
            "{got:?} against {want:?}"
        );
    }
}
