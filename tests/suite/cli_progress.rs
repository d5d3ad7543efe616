//! The progress bar (src/cli/progress.rs): on a terminal (a pseudo-terminal from util-linux's
//! `script`) a run over a second shows it even when a single output interval takes the whole
//! run, and clears it at the end; into a pipe nothing but the summary is written, whatever the
//! run's length, for simulate, sweep and compare.

use std::path::{Path, PathBuf};
use std::process::Command;

const EXE: &str = env!("CARGO_BIN_EXE_flexfmu");

fn model(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models").join(format!("{name}.toml"))
}

/// The corotational pendulum with 32 elements at a tiny step: 300 000 steps in one output
/// interval, about 5 s of wall time on a quiet machine (with its 4 elements it took 0.9 s
/// there, too close to the bar's one second: the terminal test failed when the machine was
/// quiet).
fn long_run(csv: &Path) -> Vec<String> {
    let m = model("pendulum_corotational");
    [
        "simulate",
        m.to_str().unwrap(),
        "--set",
        "elements=32",
        "--step",
        "1e-6",
        "--stop-time",
        "0.3",
        "--output-interval",
        "0.3",
        "-o",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([csv.display().to_string()])
    .collect()
}

#[test]
fn a_long_interval_shows_the_bar_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let command = std::iter::once(EXE.to_string()).chain(long_run(&dir.path().join("o.csv"))).collect::<Vec<_>>();
    let o = Command::new("script")
        .args(["-qec", &command.join(" "), "/dev/null"])
        .output()
        .expect("util-linux `script` runs the command on a pseudo-terminal");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("% t = 0.0000 s, eta"), "no progress bar on the terminal: {text:?}");
    // Cleared before the summary: the last bar is followed by an erase-line sequence.
    let (bar, summary) = text.rsplit_once("eta").unwrap();
    assert!(!bar.is_empty() && summary.contains("\x1b[2K"), "bar not cleared: {summary:?}");
    assert!(summary.contains("pendulum_corotational: "), "{summary:?}");
}

#[test]
fn nothing_but_the_summary_goes_into_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(EXE).args(long_run(&dir.path().join("o.csv"))).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stderr.is_empty(), "stderr: {:?}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 1);

    let m = model("mass_spring");
    let out = dir.path().join("sweep");
    let o = Command::new(EXE)
        .args(["sweep", m.to_str().unwrap(), "--set", "k=20,40", "--step", "1e-5", "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stderr.is_empty(), "sweep stderr: {:?}", String::from_utf8_lossy(&o.stderr));

    let o = Command::new(EXE)
        .args(["compare", m.to_str().unwrap(), "--stop-time", "0.2", "--integrators", "ttbif", "--halvings", "1"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stderr.is_empty(), "compare stderr: {:?}", String::from_utf8_lossy(&o.stderr));
}
