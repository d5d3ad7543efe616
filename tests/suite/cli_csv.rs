//! The numbers of the CSV files the commands write: a zero is written as zero, never as
//! negative zero.

use std::path::Path;
use std::process::Command;

use crate::common::cli::EXE;

/// The cells of `csv` after its header that hold a zero written with a minus sign.
fn negative_zeros(csv: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(csv).unwrap();
    text.lines()
        .skip(1)
        .flat_map(|l| l.split(',').map(String::from).collect::<Vec<_>>())
        .filter(|c| c.starts_with('-') && c.parse::<f64>().is_ok_and(|v| v == 0.0))
        .collect()
}

/// The pendulum released at rest has the angular velocity -0.0 at t = 0 (the solver's
/// consistent initial velocity), which `simulate` wrote as `-0.00000000000000000e0` and
/// `sweep` (its `end(omega)` at a stop time of 0; a run now needs a span, and the largest omega
/// of a pendulum falling from rest is the one at t = 0) too; both now write
/// `0.00000000000000000e0`, and every other cell as before.
#[test]
fn a_zero_is_written_without_a_sign() {
    let dir = tempfile::tempdir().unwrap();
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/pendulum.toml");
    let csv = dir.path().join("p.csv");
    let o =
        Command::new(EXE).arg("simulate").arg(&model).args(["--stop-time", "0.02", "-o"]).arg(&csv).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(negative_zeros(&csv), Vec::<String>::new());
    let text = std::fs::read_to_string(&csv).unwrap();
    let first = text.lines().nth(1).unwrap();
    assert_eq!(first.split(',').nth(2), Some("0.00000000000000000e0"), "omega at t = 0: {first}");
    assert!(text.contains(",-1.27419996813190883e-1,"), "the rows' other cells as before: {text}");

    let out = dir.path().join("sweep");
    let o = Command::new(EXE)
        .arg("sweep")
        .arg(&model)
        .args(["--set", "m=1,2", "--stop-time", "0.02", "--metric", "omega=max", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = out.join("sweep.csv");
    assert_eq!(negative_zeros(&table), Vec::<String>::new());
    let text = std::fs::read_to_string(&table).unwrap();
    assert!(text.lines().nth(1).unwrap().ends_with(",0.00000000000000000e0"), "{text}");
}
