//! Hostile model files through the command line: `check`, `simulate` and `build` refuse what
//! would overflow the stack, exhaust the memory or give an FMU importers cannot read, each
//! with an error located at file:line:column and exit code 2 — never a crash (exit 134).

use std::path::Path;
use std::process::Command;


const EXE: &str = env!("CARGO_BIN_EXE_flexfmu");

fn mass_spring() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml")).unwrap()
}

/// `text` with `line` appended; the 1-based number of that line.
fn with_line(text: &str, line: &str) -> (String, usize) {
    let text = format!("{}\n{line}\n", text.trim_end());
    let n = text.lines().count();
    (text, n)
}

/// Run `flexfmu <command>` on `text` written to a file: (exit code, stderr, file path).
fn run(command: &str, text: &str) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.toml");
    std::fs::write(&path, text).unwrap();
    let mut cmd = Command::new(EXE);
    cmd.arg(command).arg(&path);
    match command {
        "simulate" => cmd.arg("-o").arg(dir.path().join("out.csv")),
        "build" => cmd
            .arg("-o")
            .arg(dir.path().join("out.fmu"))
            .arg("--binary")
            .arg(Path::new(EXE).parent().unwrap().join("libflexfmu.so")),
        _ => &mut cmd,
    };
    let out = cmd.output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned(), path.display().to_string())
}

/// `check`, `simulate` and `build` all exit with 2 and an error at `line` saying `needle`.
fn refused_everywhere(text: &str, line: usize, needle: &str) {
    for command in ["check", "simulate", "build"] {
        let (code, stderr, path) = run(command, text);
        assert_eq!(code, 2, "{command}: exit code; stderr: {}", &stderr[..stderr.len().min(500)]);
        let prefix = format!("error: {path}:{line}:");
        assert!(stderr.starts_with(&prefix), "{command}: expected {prefix:?}..., got {stderr}");
        assert!(stderr.contains(needle), "{command}: expected {needle:?} in {stderr}");
    }
}

#[test]
fn deep_expressions_are_located_errors() {
    let spring =
        "[[springs]]\nname = \"deep\"\nbody1 = \"ground\"\npoint1 = [0.0, 0.0]\nbody2 = \"mass\"\nstiffness = 1.0";
    for deep in
        [format!("{}1{}", "(".repeat(9000), ")".repeat(9000)), "-".repeat(17_500) + "1", vec!["1"; 40_000].join("+")]
    {
        let (text, line) = with_line(&format!("{}\n{spring}", mass_spring()), &format!("free_length = \"{deep}\""));
        refused_everywhere(&text, line, "nested deeper than 100 levels");
    }
    // A time function (a load), 3000 deep: refused too, not packaged.
    let load = "[[loads]]\nname = \"deep\"\ntype = \"force\"\nbody = \"mass\"\ndirection = [1.0, 0.0]";
    let deep = format!("{}t{}", "sin(".repeat(3000), ")".repeat(3000));
    let (text, line) = with_line(&format!("{}\n{load}", mass_spring()), &format!("value = \"{deep}\""));
    refused_everywhere(&text, line, "nested deeper than 100 levels");
}
