//! Exit codes as README documents them, for every command: 2 for a problem in the model file
//! (with `file:line:column`, the file named once), 1 for other failures, 0 for success.

use std::path::Path;
use std::process::Command;

const EXE: &str = env!("CARGO_BIN_EXE_flexfmu");

/// Every command that reads a model file, with the arguments it needs besides the file.
fn commands(out: &Path) -> Vec<Vec<String>> {
    let o = |name: &str| out.join(name).display().to_string();
    vec![
        vec!["build".into(), "-o".into(), o("m.fmu")],
        vec!["check".into()],
        vec!["info".into()],
        vec!["modes".into()],
        vec!["simulate".into(), "-o".into(), o("m.csv")],
        vec!["statics".into(), "-o".into(), o("s.csv")],
        vec!["compare".into(), "--halvings".into(), "1".into()],
    ]
}

fn run(args: &[String], model: &Path) -> (i32, String) {
    let out = Command::new(EXE).arg(&args[0]).arg(model).args(&args[1..]).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn mass_spring() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml")).unwrap()
}

/// (what is wrong, model text, 1-based line the error must name)
fn malformed() -> Vec<(&'static str, String, usize)> {
    let base = mass_spring();
    let line_of = |needle: &str| base.lines().position(|l| l.contains(needle)).unwrap() + 1;
    let mass_line = line_of("mass = \"m\"");
    let with = |replacement: &str| base.replacen("mass = \"m\"", replacement, 1);
    vec![
        ("negative mass", with("mass = \"-m\""), mass_line),
        ("TOML syntax", with("mass = = \"m\""), mass_line),
        ("unknown name in an expression", with("mass = \"no_such_parameter * 2\""), mass_line),
    ]
}

#[test]
fn every_command_returns_2_on_a_malformed_model_and_names_the_file_once() {
    let dir = tempfile::tempdir().unwrap();
    for (what, text, line) in malformed() {
        let model = dir.path().join("bad_model.toml");
        std::fs::write(&model, &text).unwrap();
        let file = model.display().to_string();
        for args in commands(dir.path()) {
            let (code, stderr) = run(&args, &model);
            assert_eq!(code, 2, "{} on a model with {what}: exit code; stderr: {stderr}", args[0]);
            assert!(stderr.contains(&format!("{file}:{line}:")), "{} ({what}): no {file}:{line}: in {stderr}", args[0]);
            assert_eq!(stderr.matches("bad_model.toml").count(), 1, "{} ({what}): file named once: {stderr}", args[0]);
        }
    }
}

#[test]
fn a_missing_model_file_is_a_model_file_problem_and_a_good_one_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.toml");
    let good = dir.path().join("good.toml");
    std::fs::write(&good, mass_spring()).unwrap();
    for args in commands(dir.path()) {
        let (code, stderr) = run(&args, &missing);
        assert_eq!(code, 2, "{} on a missing file: {stderr}", args[0]);
        if args[0] == "compare" {
            continue; // runs every integrator at several steps: covered by tests/suite/cli_compare.rs
        }
        let (code, stderr) = run(&args, &good);
        assert_eq!(code, 0, "{} on a valid model: {stderr}", args[0]);
    }
}

/// A file named on the command line that cannot be read is a command line that cannot run,
/// exit code 2 as for a missing model file, whatever the command and the kind of file
/// (docs/cli.md, "Exit codes"): a missing FMU given to `check` exited 1, and so did a missing
/// results CSV for `plot`, states file for `animate` and `--binary` for `build`. Nothing is
/// written.
#[test]
fn a_missing_input_file_is_a_command_line_that_cannot_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml").display().to_string();
    std::fs::create_dir(dir.path().join("folder.fmu")).unwrap();
    let cases: Vec<(Vec<String>, String)> = vec![
        (vec!["check".into(), path("m.fmu")], path("m.fmu")),
        (vec!["check".into(), path("folder.fmu")], path("folder.fmu")),
        (vec!["info".into(), path("m.fmu")], path("m.fmu")),
        (vec!["check".into(), path("m.toml")], path("m.toml")),
        (vec!["plot".into(), path("r.csv"), "-o".into(), path("p.png")], path("r.csv")),
        (vec!["animate".into(), path("s.json"), "-o".into(), path("a.html")], path("s.json")),
        (vec!["animate".into(), model.clone(), path("s.json"), "-o".into(), path("a.html")], path("s.json")),
        (vec!["build".into(), model, "-o".into(), path("b.fmu"), "--binary".into(), path("lib.so")], path("lib.so")),
    ];
    for (args, file) in cases {
        let out = Command::new(EXE).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(&file), "{args:?}: the file is named: {stderr}");
    }
    for written in ["p.png", "a.html", "b.fmu"] {
        assert!(!dir.path().join(written).exists(), "{written} written");
    }
}

#[test]
fn a_failure_that_is_not_in_the_model_file_returns_1() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.toml");
    std::fs::write(&good, mass_spring()).unwrap();
    // An unwritable output path: not the model's fault.
    let args: Vec<String> = vec!["simulate".into(), "-o".into(), "/nonexistent-dir/out.csv".into()];
    let (code, stderr) = run(&args, &good);
    assert_eq!(code, 1, "{stderr}");
    let args: Vec<String> = vec!["build".into(), "-o".into(), "/nonexistent-dir/out.fmu".into()];
    let (code, stderr) = run(&args, &good);
    assert_eq!(code, 1, "{stderr}");
}

#[test]
fn a_model_without_outputs_writes_time_alone() {
    // The header and rows of a model with no outputs are `time` alone, without a trailing
    // comma (a CSV reader would otherwise see an unnamed empty column).
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("free.toml");
    std::fs::write(&model, "[model]\nname = \"free\"\n[solver]\nstop_time = 0.01\nstep = 1e-3\n[[rigid_bodies]]\nname = \"b\"\nmass = 1.0\ninertia = 1.0\nposition = [0.0, 0.0]\n").unwrap();
    let csv = dir.path().join("free.csv");
    let out = Command::new(EXE).args(["simulate"]).arg(&model).arg("-o").arg(&csv).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "time");
    assert!(lines.len() > 2 && lines[1..].iter().all(|l| !l.contains(',') && l.parse::<f64>().is_ok()), "{text}");
}

/// `simulate --help` states every solver option's default (docs/cli.md promises it): each
/// stated value is the one `SolverSettings::default()` has, and every method is named.
#[test]
fn simulate_help_states_the_solver_defaults() {
    use flexfmu::integrators::Method;
    use flexfmu::simulation::SolverSettings;
    let out = Command::new(EXE).args(["simulate", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout).replace('\n', " ");
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    let d = SolverSettings::default();
    let stated = [
        format!("the model's step, else {:e}", d.step),
        format!("the model's integrator, else {}", d.method.name()),
        format!("the model's rho_inf, else {}", d.rho_inf),
        format!("the model's tolerance, else {:e}", d.tolerance),
        format!("the model's newton, else {}", d.strategy.name()),
        format!("the model's, else {}]", d.baumgarte.alpha),
        format!("the model's, else {}]", d.baumgarte.beta),
        format!("the model's error_control, else {}", d.error_control.enabled),
        format!("the model's rtol, else {:e}", d.error_control.rtol),
        format!("the model's atol, else {:e}", d.error_control.atol),
    ];
    for s in &stated {
        assert!(help.contains(s.as_str()), "simulate --help does not say '{s}':\n{help}");
    }
    for m in Method::ALL {
        assert!(help.contains(m.name()), "simulate --help does not name the integrator {}", m.name());
    }
}

/// `--integrator` on a model whose rho_inf suits its own method (the cantilever asks TTBIF for
/// rho_inf = 0) moves rho_inf into the chosen method's range (HHT: 0.5); an explicit
/// `--rho-inf` outside it is refused with the range.
#[test]
fn integrator_from_the_command_line_takes_a_rho_inf_it_can_realise() {
    let dir = tempfile::tempdir().unwrap();
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/cantilever_corotational.toml");
    let (csv, stats) = (dir.path().join("c.csv"), dir.path().join("s.json"));
    let simulate = |extra: &[&str]| {
        Command::new(EXE)
            .args(["simulate"])
            .arg(&model)
            .arg("-o")
            .arg(&csv)
            .args(["--stop-time", "0.01", "--integrator", "hht", "--stats-json"])
            .arg(&stats)
            .args(extra)
            .output()
            .unwrap()
    };
    let out = simulate(&[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(json["rho_inf"], 0.5, "{json}");
    let out = simulate(&["--rho-inf", "0.2"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("rho_inf = 0.2 is outside [0.5, 1] for hht"), "{stderr}");
    // A model that names Newmark and no rho_inf runs another method at the default 0.5, not
    // at Newmark's own 1 (with GGL, as a probe found generalized-alpha run).
    let newmark = dir.path().join("newmark.toml");
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml")).unwrap();
    assert!(text.contains("integrator = \"ttbif\"\nrho_inf = 0.5\n"));
    std::fs::write(&newmark, text.replace("integrator = \"ttbif\"\nrho_inf = 0.5\n", "integrator = \"newmark\"\n"))
        .unwrap();
    for (method, rho_inf, constraints) in [("newmark", 1.0, "ggl"), ("generalized-alpha", 0.5, "index3")] {
        let out = Command::new(EXE)
            .arg("simulate")
            .arg(&newmark)
            .arg("-o")
            .arg(&csv)
            .args(["--stop-time", "0.01", "--integrator", method, "--stats-json"])
            .arg(&stats)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
        assert_eq!((json["rho_inf"].as_f64(), json["constraints"].as_str()), (Some(rho_inf), Some(constraints)));
    }
}

/// A reader that closes the pipe early (`flexfmu simulate ... -o /dev/stdout | head -1`) ends
/// the run quietly by SIGPIPE, as it ends other Unix tools: no panic message, no backtrace
/// (println! panicked with "failed printing to stdout: Broken pipe").
#[test]
#[cfg(unix)]
fn a_closed_pipe_ends_the_run_quietly() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.toml");
    std::fs::write(&good, mass_spring()).unwrap();
    let mut child = Command::new(EXE)
        .args(["simulate".as_ref(), good.as_os_str(), "--stop-time".as_ref(), "1000".as_ref()])
        .args(["--output-interval", "1e-3", "-o", "/dev/stdout"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut header = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut header).unwrap();
    assert!(header.starts_with("time,"), "{header}");
    // The reader is dropped here: the pipe is closed with a million rows still to write.
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.signal(), Some(libc::SIGPIPE), "{:?}", output.status);
    assert!(output.stderr.is_empty(), "stderr: {}", String::from_utf8_lossy(&output.stderr));
}

/// Times and steps that no run can take are refused before anything runs, with exit code 2
/// (docs/cli.md, "Exit codes") and no output written, by every command that takes them:
/// `--stop-time nan` ran to "t = NaN s", `--stop-time=-1` and `--output-interval inf` wrote the
/// start row alone and exited 0.
#[test]
fn times_and_steps_that_no_run_can_take_are_refused_as_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/pendulum.toml");
    let out = dir.path().join("out");
    let o = out.display().to_string();
    let page = dir.path().join("out.html").display().to_string();
    let commands: [(&str, Vec<&str>); 5] = [
        ("simulate", vec!["-o", &o]),
        ("statics", vec!["-o", &o]),
        ("sweep", vec!["-o", &o]),
        ("compare", vec!["-o", &o]),
        ("animate", vec!["-o", &page]),
    ];
    let refusals = [
        (vec!["--stop-time", "nan"], "a time must be a finite number of seconds"),
        (vec!["--stop-time", "inf"], "a time must be a finite number of seconds"),
        (vec!["--stop-time=-1"], "--stop-time -1 s is before the model's start time 0 s"),
        (vec!["--output-interval", "inf"], "a step or interval must be a positive finite number"),
        (vec!["--output-interval", "0"], "a step or interval must be a positive finite number"),
        (vec!["--output-interval=-1e-3"], "a step or interval must be a positive finite number"),
    ];
    for (command, extra) in &commands {
        for (values, message) in &refusals {
            let o = Command::new(EXE).arg(command).arg(&model).args(extra).args(values).output().unwrap();
            let stderr = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{command} {values:?}: {stderr}");
            assert!(stderr.contains(message), "{command} {values:?}: no '{message}' in {stderr}");
            assert!(!out.exists(), "{command} {values:?} wrote {}", out.display());
        }
    }
    for (command, option) in
        [("simulate", "--step"), ("sweep", "--step"), ("compare", "--steps"), ("compare", "--reference-step")]
    {
        for value in ["nan", "0", "-1e-3", "inf"] {
            let o = Command::new(EXE)
                .arg(command)
                .arg(&model)
                .args(["-o", &o])
                .arg(format!("{option}={value}"))
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{command} {option} {value}: {stderr}");
            assert!(stderr.contains("a step or interval must be a positive finite number"), "{command}: {stderr}");
        }
    }
}

/// A stop time equal to the start time is no span to run: the model file's `stop_time` equal
/// to its `start_time` is refused ("must be after start_time", exit 2) and so was `compare
/// --stop-time 0`, but `simulate --stop-time 0` wrote the start row alone and exited 0 (and
/// `sweep` and `animate`, which run simulate, did too). Every command that runs the model
/// refuses it now with exit code 2, as a stop time before the start; `statics` still solves
/// at the start time alone (one equilibrium, docs/cli.md).
#[test]
fn a_stop_time_equal_to_the_start_time_is_refused_by_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml");
    let out = dir.path().join("out");
    let o = out.display().to_string();
    let message = "--stop-time 0 s is not after the model's start time 0 s: give a later --stop-time";
    let page = dir.path().join("out.html").display().to_string();
    let commands: [(&str, &[&str]); 4] = [
        ("simulate", &["-o", &o]),
        ("sweep", &["--set", "k=1,2", "-o", &o]),
        ("animate", &["-o", &page]),
        ("compare", &[]),
    ];
    for (command, extra) in commands {
        let r = Command::new(EXE).arg(command).arg(&model).args(extra).args(["--stop-time", "0"]).output().unwrap();
        let stderr = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{command}: {stderr}");
        assert!(stderr.contains(message), "{command}: no '{message}' in {stderr}");
        assert!(!out.exists(), "{command} wrote {}", out.display());
    }
    let csv = dir.path().join("statics.csv");
    let r = Command::new(EXE).arg("statics").arg(&model).arg("--stop-time=0").arg("-o").arg(&csv).output().unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert_eq!(std::fs::read_to_string(&csv).unwrap().lines().count(), 2, "a header and the start time's row");
}

/// Extreme numbers in messages are written compactly (`1e300`, not a 301-digit decimal):
/// the refused span of output rows, a located `start_time = 1e300`, a stop time before it.
#[test]
fn extreme_numbers_in_messages_are_compact() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.toml");
    std::fs::write(&good, mass_spring()).unwrap();
    let o = Command::new(EXE)
        .args(["simulate".as_ref(), good.as_os_str(), "--stop-time".as_ref(), "1e300".as_ref()])
        .args(["--output-interval", "1e-300", "-o"])
        .arg(dir.path().join("out.csv"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("0 s to 1e300 s every 1e-300 s is over 1e308 output rows"), "{stderr}");
    assert!(stderr.len() < 200, "{stderr}");
    let late = dir.path().join("late.toml");
    std::fs::write(&late, mass_spring().replace("[solver]\n", "[solver]\nstart_time = 1e300\n")).unwrap();
    let o = Command::new(EXE).arg("check").arg(&late).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("must be after start_time 1e300"), "{stderr}");
    assert!(stderr.len() < 300, "{stderr}");
    let early = dir.path().join("early.toml");
    std::fs::write(&early, mass_spring().replace("stop_time = 2.0", "start_time = 1e7\nstop_time = 2e7")).unwrap();
    let o = Command::new(EXE)
        .arg("simulate")
        .arg(&early)
        .args(["--stop-time=-1e300", "-o"])
        .arg(dir.path().join("e.csv"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--stop-time -1e300 s is before the model's start time 1e7 s"), "{stderr}");
}

/// The argument parser's usage errors exit with 2 as docs/cli.md says: an unknown option.
#[test]
fn usage_errors_exit_with_2() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml");
    let o =
        Command::new(EXE).arg("simulate").arg(&model).args(["-o", "/dev/null", "--no-such-option"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("unexpected argument"), "{stderr}");
}

/// A number that starts with '-' is its option's value (`--rho-inf -0.1` read as an unknown
/// option `-0`, `--step -1` as an option `-1`), checked as the option checks its values, with
/// its own message and exit code (docs/cli.md, "Exit codes"): a step that is not positive, a
/// stop time before the start or a count that is no count exit with 2; a value the solver
/// refuses, such as a rho_inf outside [0, 1], with 1. A negative stop time after a negative start
/// time runs.
#[test]
fn negative_numbers_are_values_checked_by_their_option() {
    let dir = tempfile::tempdir().unwrap();
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml");
    let o = dir.path().join("out").display().to_string();
    let positive = "a step or interval must be a positive finite number";
    let cases: [(&str, &[&str], i32, &str); 14] = [
        ("simulate", &["--rho-inf", "-0.1"], 1, "rho_inf must be in [0, 1], got -0.1"),
        ("simulate", &["--step", "-1"], 2, positive),
        ("simulate", &["--step", "-1e-3"], 2, positive),
        ("simulate", &["--stop-time", "-1"], 2, "--stop-time -1 s is before the model's start time 0 s"),
        ("simulate", &["--tolerance", "-1"], 1, "tolerance must be in (0, 1), got -1"),
        ("simulate", &["--constraints", "baumgarte", "--baumgarte-beta", "-5"], 1, "beta = -5"),
        ("statics", &["--output-interval", "-0.5"], 2, positive),
        (
            "sweep",
            &["--set", "k=1,2", "--stop-time", "0.1", "--rho-inf", "-0.1"],
            1,
            "rho_inf must be in [0, 1], got -0.1",
        ),
        ("sweep", &["--set", "k=1,2", "-j", "-2"], 2, "invalid value '-2' for '--jobs"),
        ("compare", &["--rho-inf", "-1"], 1, "--rho-inf must be in [0, 1], got -1"),
        ("compare", &["--steps", "-1e-3,1e-3"], 2, positive),
        ("modes", &["--time", "-1"], 2, "--time -1 s is before the model's start time 0 s"),
        ("modes", &["--count", "-1"], 2, "invalid value '-1' for '--count"),
        ("animate", &["--stop-time", "-1"], 2, "--stop-time -1 s is before the model's start time 0 s"),
    ];
    let page = dir.path().join("out.html").display().to_string();
    for (command, values, code, message) in cases {
        let output = match command {
            "modes" | "compare" => &[][..],
            "animate" => &["-o", page.as_str()][..],
            _ => &["-o", o.as_str()][..],
        };
        let out = Command::new(EXE).arg(command).arg(&model).args(output).args(values).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{command} {values:?}: {stderr}");
        assert!(stderr.contains(message), "{command} {values:?}: no '{message}' in {stderr}");
        assert!(!stderr.contains("unexpected argument"), "{command} {values:?}: {stderr}");
    }
    let early = dir.path().join("early.toml");
    std::fs::write(&early, mass_spring().replace("stop_time = 2.0", "start_time = -1.0\nstop_time = 1.0")).unwrap();
    let csv = dir.path().join("early.csv");
    let out = Command::new(EXE)
        .arg("simulate")
        .arg(&early)
        .args(["--stop-time", "-0.5", "--output-interval", "0.25", "-o"])
        .arg(&csv)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&csv).unwrap();
    let times: Vec<f64> = text.lines().skip(1).map(|l| l.split(',').next().unwrap().parse().unwrap()).collect();
    assert_eq!(times, [-1.0, -0.75, -0.5]);
}

/// `--set` and `--input` that do not fit the model (an unknown name, a value not of the
/// parameter's kind, no `=`) are usage errors, exit code 2, in every command that takes them;
/// a probe's `--set kk=3` exited 1 while `--set n=0` below its minimum exited 2.
#[test]
fn overrides_that_do_not_fit_the_model_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml");
    let o = dir.path().join("out").display().to_string();
    let cases = [
        (vec!["--set", "kk=3"], "unknown parameter 'kk'"),
        (vec!["--set", "k=abc"], "'abc' is not a number (such as 2, -0.5 or 1e-3; no expressions)"),
        (vec!["--set", "k"], "--set expects NAME="),
    ];
    for command in ["simulate", "statics", "sweep", "compare"] {
        for (values, message) in &cases {
            let out = Command::new(EXE).arg(command).arg(&model).args(["-o", &o]).args(values).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{command} {values:?}: {stderr}");
            assert!(stderr.contains(message), "{command} {values:?}: no '{message}' in {stderr}");
        }
    }
    // A model without inputs says so (it had said "the model declares: ").
    let no_inputs = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/ball_drop.toml");
    for (model, values, message) in [
        (&model, ["--input", "zz=1"], "unknown input 'zz'"),
        (&model, ["--input", "force"], "--input expects"),
        (&model, ["--input", "force=abc"], "input 'abc' is neither a number nor a readable CSV file"),
        (&no_inputs, ["--input", "u=1"], "unknown input 'u' (the model declares none)"),
    ] {
        let out = Command::new(EXE).arg("simulate").arg(model).args(["-o", &o]).args(values).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{values:?}: {stderr}");
        assert!(stderr.contains(message), "{values:?}: no '{message}' in {stderr}");
    }
}

/// An output file that is the model file, or another output's file, is refused before anything
/// is written (a probe's `simulate m.toml -o m.toml` replaced the model by the results).
#[test]
fn outputs_that_would_overwrite_the_model_or_each_other_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.toml");
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml")).unwrap();
    std::fs::write(&model, &text).unwrap();
    let again = dir.path().join("sub/../m.toml");
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let csv = dir.path().join("out.csv");
    for (command, args, message) in [
        ("simulate", vec!["-o".as_ref(), model.as_os_str()], "-o"),
        ("simulate", vec!["-o".as_ref(), again.as_os_str()], "-o"),
        ("statics", vec!["-o".as_ref(), model.as_os_str()], "-o"),
        ("simulate", vec!["-o".as_ref(), csv.as_os_str(), "--states".as_ref(), model.as_os_str()], "--states"),
    ] {
        let o = Command::new(EXE).arg(command).arg(&model).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(&format!("error: {message} ")) && stderr.contains("is the model file"), "{stderr}");
    }
    let o = Command::new(EXE)
        .args(["simulate".as_ref(), model.as_os_str(), "-o".as_ref(), csv.as_os_str(), "--stats-json".as_ref()])
        .arg(&csv)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is also given to -o"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&model).unwrap(), text, "the model file is untouched");
    // Nor what the other commands read: build's and compare's model, an input table, the
    // states animate shows (a probe's build m.toml -o m.toml wrote the FMU over the model,
    // simulate -o in.csv --input force=in.csv the results over the table).
    let table = dir.path().join("force.csv");
    std::fs::write(&table, "time,value\n0,0\n1,1\n").unwrap();
    let input = format!("force={}", table.display());
    let states = dir.path().join("s.json");
    let o = Command::new(EXE)
        .arg("simulate")
        .arg(&model)
        .arg("-o")
        .arg(&csv)
        .arg("--states")
        .arg(&states)
        .output()
        .unwrap();
    assert!(o.status.success());
    let json = std::fs::read_to_string(&states).unwrap();
    let mut cases = vec![
        (vec!["build".as_ref(), model.as_os_str(), "-o".as_ref(), model.as_os_str()], "is the model file"),
        (vec!["compare".as_ref(), model.as_os_str(), "-o".as_ref(), model.as_os_str()], "is the model file"),
        (vec!["animate".as_ref(), states.as_os_str(), "-o".as_ref(), states.as_os_str()], "is an input of animate"),
    ];
    for command in ["simulate", "statics"] {
        let args = [command.as_ref(), model.as_os_str(), "-o".as_ref(), table.as_os_str(), "--input".as_ref()];
        cases.push(([args.as_slice(), &[input.as_ref()]].concat(), "is an input table"));
    }
    for (args, message) in cases {
        let o = Command::new(EXE).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
    assert_eq!(std::fs::read_to_string(&model).unwrap(), text, "the model file is untouched");
    assert_eq!(std::fs::read_to_string(&table).unwrap(), "time,value\n0,0\n1,1\n", "the table is untouched");
    assert_eq!(std::fs::read_to_string(&states).unwrap(), json, "the states file is untouched");
}

/// A run of more than a million steps of the default step says that the step is the default,
/// 1e-3 in the model's time unit (a probe's model in milliseconds stepped by 1 us, 1000 times
/// its SI twin's steps, without a word); a model or command line that gives the step does not.
#[test]
fn a_million_default_steps_are_told_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("fall.toml");
    std::fs::write(
        &model,
        "[model]\nname = \"fall\"\ngravity = [0.0, -9.81]\n[solver]\noutput_interval = 100.0\n\
         [[point_masses]]\nname = \"m\"\nmass = 1.0\nposition = [0.0, 0.0]\n\
         [[outputs]]\nname = \"y\"\nquantity = \"y\"\nbody = \"m\"\n",
    )
    .unwrap();
    let csv = dir.path().join("fall.csv");
    let run = |extra: &[&str]| {
        let o = Command::new(EXE)
            .arg("simulate")
            .arg(&model)
            .arg("-o")
            .arg(&csv)
            .args(["--stop-time", "1000.1"])
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success());
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let told = run(&[]);
    assert!(
        told.contains("note: 1.0001e6 internal steps of the default step 0.001 (1e-3 in the model's time unit"),
        "{told}"
    );
    let given = run(&["--step", "0.01"]);
    assert!(!given.contains("default step"), "{given}");
}

/// `flexfmu simulate MODEL -o CSV ARGS`, sent SIGINT once CSV holds `rows` lines and `delay`
/// has passed after that: the exit code, stderr, the time of the CSV's last row and the
/// seconds from the signal to the end of the process.
#[cfg(unix)]
fn interrupted_simulate(
    model: &Path,
    csv: &Path,
    args: &[&str],
    rows: usize,
    delay: std::time::Duration,
) -> (Option<i32>, String, f64, f64) {
    let child = Command::new(EXE)
        .arg("simulate")
        .arg(model)
        .arg("-o")
        .arg(csv)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while std::fs::read_to_string(csv).map_or(0, |t| t.lines().count()) < rows {
        assert!(start.elapsed().as_secs() < 60, "no rows written");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(delay);
    let signalled = std::time::Instant::now();
    // SAFETY: signalling a child process this test started.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let waited = signalled.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let text = std::fs::read_to_string(csv).unwrap();
    let last: f64 = text.lines().last().unwrap().split(',').next().unwrap().parse().unwrap();
    (out.status.code(), stderr, last, waited)
}

/// Ctrl-C (SIGINT) stops `simulate` after its next internal step: exit code 130, the rows kept, and
/// the states file and statistics written as at a run's end, so `animate` plays them (a probe's
/// interrupted run left an empty states file and no statistics).
#[cfg(unix)]
#[test]
fn an_interrupted_run_keeps_its_rows_states_and_statistics() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, states, stats) = (dir.path().join("l.csv"), dir.path().join("s.json"), dir.path().join("j.json"));
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml");
    let (s, j) = (states.to_str().unwrap(), stats.to_str().unwrap());
    let args = ["--stop-time", "1e5", "--step", "1e-5", "--states", s, "--stats-json", j];
    // Once some rows are written.
    let (code, stderr, last, _) = interrupted_simulate(&model, &csv, &args, 5, std::time::Duration::ZERO);
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.contains("interrupted at t = "), "{stderr}");
    assert!(
        stderr.contains(&format!("holds the results up to t = {}", flexfmu::compact_number::Compact(last))),
        "{stderr}"
    );
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert!(json["steps"].as_u64().unwrap() > 0, "{json}");
    assert_eq!(json["outcome"], "interrupted", "{json}");
    let a = Command::new(EXE).arg("animate").arg(&states).arg("-o").arg(dir.path().join("a.html")).output().unwrap();
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
}

/// Ctrl-C acts at the next internal step, not at the end of the output interval: a pile of
/// balls crawling through contact events (tests/suite/contact_constraint.rs) with one output
/// interval of 1 s stops within seconds, its state there written as the last row (it went on
/// to the interval's end, 17 and 43 s late in a probe's runs).
#[cfg(unix)]
#[test]
fn an_interrupted_run_stops_inside_its_output_interval() {
    let dir = tempfile::tempdir().unwrap();
    let (model, csv) = (dir.path().join("pile.toml"), dir.path().join("p.csv"));
    std::fs::write(&model, crate::contact_constraint::pile_text("constraint")).unwrap();
    let args = ["--stop-time", "1", "--output-interval", "1"];
    // The row at t = 0, then well into the storm that starts at 0.2 s.
    let (code, stderr, last, waited) =
        interrupted_simulate(&model, &csv, &args, 2, std::time::Duration::from_millis(1500));
    assert_eq!(code, Some(130), "{stderr}");
    println!("stopped {waited:.2} s after the signal at t = {last}");
    assert!(last > 0.0 && last < 1.0, "the last row is inside the interval: {last}; {stderr}");
    assert!(stderr.contains(&format!("interrupted at t = {}", flexfmu::compact_number::Compact(last))), "{stderr}");
}

/// A run that fails before its first step (a load that is NaN at the start) writes its
/// `--stats-json` too, as documented for failed runs: outcome "failed", the error, nothing
/// computed (a probe's script found no file to read `outcome` from).
#[test]
fn a_run_failing_at_its_start_writes_its_statistics() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("nan.toml");
    let text = mass_spring().replace("value = \"force\"", "value = \"force + sqrt(t - 0.5)\"");
    assert_ne!(text, mass_spring());
    std::fs::write(&model, text).unwrap();
    let (csv, json) = (dir.path().join("out.csv"), dir.path().join("stats.json"));
    let o = Command::new(EXE)
        .arg("simulate")
        .arg(&model)
        .arg("-o")
        .arg(&csv)
        .arg("--stats-json")
        .arg(&json)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    let stats: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    println!("{stats}");
    assert_eq!(stats["outcome"], "failed");
    assert!(stats["error"].as_str().unwrap().contains("NaN"), "{stats}");
    assert_eq!(stats["steps"], 0);
}

/// Output names that do not fit: `animate` writes an HTML page and refuses another extension,
/// as `plot` refuses a plot that is not a .png; `modes --count 0` asks for nothing. Both usage
/// errors (probe 39b: `animate -o a.png` wrote HTML into a.png, `--count 0` printed an empty
/// table).
#[test]
fn an_animation_not_named_html_and_zero_modes_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml");
    let png = dir.path().join("a.png");
    let o = Command::new(EXE).arg("animate").arg(&model).arg("-o").arg(&png).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(".html") && !png.exists(), "{stderr}");
    let o = Command::new(EXE).arg("modes").arg(&model).args(["--count", "0"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--count"), "{stderr}");
}
