//! The `flexfmu` command line as the test files run it.

use std::path::Path;
use std::process::Command;

/// The `flexfmu` binary of this test run.
pub const EXE: &str = env!("CARGO_BIN_EXE_flexfmu");

/// `flexfmu simulate model --stop-time stop --states json -o csv` (must succeed): the CSV's
/// header and rows, and the states document.
pub fn simulate_with_states(
    model: &Path,
    csv: &Path,
    json: &Path,
    stop: &str,
) -> (Vec<String>, Vec<Vec<f64>>, serde_json::Value) {
    let o = Command::new(EXE)
        .args(["simulate".as_ref(), model.as_os_str(), "--stop-time".as_ref(), stop.as_ref()])
        .args(["--states".as_ref(), json.as_os_str(), "-o".as_ref(), csv.as_os_str()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(csv).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines.map(|l| l.split(',').map(|c| c.parse().unwrap()).collect()).collect();
    (header, rows, serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap())
}
