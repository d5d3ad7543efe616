//! `flexfmu sweep` on models/mass_spring.toml: a 2 x 3 grid equals six separate
//! `flexfmu simulate` runs bit for bit (run CSVs byte for byte, table cells = their last rows),
//! its metrics are what they say (max/min/mean of x = x0 cos(2 pi t) over a period), and
//! unknown parameters or outputs are refused by name.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const EXE: &str = env!("CARGO_BIN_EXE_flexfmu");

fn model() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml")
}

fn flexfmu(args: &[&str]) -> Output {
    Command::new(EXE).args(args).output().unwrap()
}

/// `flexfmu sweep` of models/mass_spring.toml with `args`, its table and runs into `out`.
fn sweep(args: &[&str], out: &Path) -> Output {
    let m = model();
    let mut argv = vec!["sweep", m.to_str().unwrap()];
    argv.extend(args);
    argv.extend(["-o", out.to_str().unwrap()]);
    flexfmu(&argv)
}

/// sweep.csv as its header and rows of cells.
fn table(dir: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(dir.join("sweep.csv")).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    (header, lines.map(|l| l.split(',').map(String::from).collect()).collect())
}

#[test]
fn sweep_equals_separate_simulate_runs_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    let m = model();
    let o = sweep(&["--set", "k=20,40", "--set", "x0=0.05:0.15:3", "--stop-time", "0.5", "-j", "2"], &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    println!("{}", String::from_utf8_lossy(&o.stdout));

    let (header, rows) = table(&out);
    assert_eq!(header, ["run", "k", "x0", "end(x)", "end(v)", "end(a)", "end(energy_total)"]);
    assert_eq!(rows.len(), 6);
    // First axis slowest; a:b:n gives n values from a to b inclusive.
    let expected = [(20.0, 0.05), (20.0, 0.1), (20.0, 0.15), (40.0, 0.05), (40.0, 0.1), (40.0, 0.15)];
    for (i, (row, (k, x0))) in rows.iter().zip(expected).enumerate() {
        assert_eq!(row[0], (i + 1).to_string());
        assert_eq!(row[1].parse::<f64>().unwrap(), k);
        assert!((row[2].parse::<f64>().unwrap() - x0).abs() < 1e-15, "x0 = {}", row[2]);
    }
    assert!(!out.join("run_0007.csv").exists());

    for (i, row) in rows.iter().enumerate() {
        let single = dir.path().join(format!("single_{i}.csv"));
        let o = flexfmu(&[
            "simulate",
            m.to_str().unwrap(),
            "--set",
            &format!("k={}", row[1]),
            "--set",
            &format!("x0={}", row[2]),
            "--stop-time",
            "0.5",
            "-o",
            single.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let separate = std::fs::read(&single).unwrap();
        let swept = std::fs::read(out.join(format!("run_{:04}.csv", i + 1))).unwrap();
        assert!(separate == swept, "run {} differs from the separate simulate run", i + 1);
        // The table's end values are the last row of the run, cell for cell.
        let text = String::from_utf8(separate).unwrap();
        let last: Vec<&str> = text.lines().last().unwrap().split(',').collect();
        assert_eq!(row[3..], last[1..], "run {}", i + 1);
    }
    // The runs differ: the sweep did set the parameters.
    let ends: std::collections::HashSet<&str> = rows.iter().map(|r| r[3].as_str()).collect();
    assert_eq!(ends.len(), 6);
}

#[test]
fn metrics_over_one_period_of_the_oscillator() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    let o = sweep(
        &[
            "--set",
            "x0=0.1,0.2",
            "--stop-time",
            "1",
            "--metric",
            "x=max",
            "--metric",
            "x=min",
            "--metric",
            "x=mean",
            "--metric",
            "energy_total=end",
        ],
        &out,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (header, rows) = table(&out);
    assert_eq!(header, ["run", "x0", "max(x)", "min(x)", "mean(x)", "end(energy_total)"]);
    for row in &rows {
        let v: Vec<f64> = row[1..].iter().map(|c| c.parse().unwrap()).collect();
        let (x0, max, min, mean, energy) = (v[0], v[1], v[2], v[3], v[4]);
        // x = x0 cos(2 pi t), period 1 s: the maximum is the start value, the minimum -x0 at
        // t = 0.5 (a sample), the time mean over the period 0; energy k x0^2 / 2.
        assert_eq!(max, x0);
        assert!((min + x0).abs() < 1e-3 * x0, "min {min} for x0 {x0}");
        assert!(mean.abs() < 1e-3 * x0, "mean {mean} for x0 {x0}");
        let k = 4.0 * std::f64::consts::PI.powi(2);
        assert!((energy - 0.5 * k * x0 * x0).abs() < 1e-3 * energy, "energy {energy} for x0 {x0}");
    }
}

#[test]
fn unknown_parameter_and_output_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    let o = sweep(&["--set", "stiffness=1,2"], &out);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("unknown parameter 'stiffness'") && stderr.contains("m, k, x0"), "{stderr}");

    let o = sweep(&["--set", "k=1,2", "--metric", "y=max"], &out);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("unknown output 'y'") && stderr.contains("x, v, a, energy_total"), "{stderr}");

    let o = sweep(&["--set", "k=1:2:0"], &out);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--set k=1:2:0") && stderr.contains("positive integer"), "{stderr}");
    assert!(!out.join("sweep.csv").exists(), "nothing is run for a refused grid");
}

/// Every solver option and the inputs reach the runs: a sweep with a non-default integrator,
/// step, rho_inf, Newton strategy, tolerance and error control gives the CSV of `simulate` with
/// the same options byte for byte, and not the CSV of the model's own settings.
#[test]
fn sweep_passes_the_solver_options_on() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    let m = model();
    let options = [
        "--integrator",
        "hht",
        "--rho-inf",
        "0.8",
        "--step",
        "0.004",
        "--newton",
        "full",
        "--tolerance",
        "1e-9",
        "--error-control",
        "true",
        "--rtol",
        "1e-5",
        "--atol",
        "1e-7",
    ];
    let mut args = vec!["sweep", m.to_str().unwrap(), "--set", "k=20,40", "--stop-time", "0.5"];
    args.extend(options);
    args.extend(["-o", out.to_str().unwrap()]);
    let o = flexfmu(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for (i, k) in ["20", "40"].iter().enumerate() {
        let swept = std::fs::read(out.join(format!("run_{:04}.csv", i + 1))).unwrap();
        let (with, without) = (dir.path().join("with.csv"), dir.path().join("without.csv"));
        let set = format!("k={k}");
        let mut single = vec!["simulate", m.to_str().unwrap(), "--set", &set, "--stop-time", "0.5"];
        single.extend(options);
        single.extend(["-o", with.to_str().unwrap()]);
        assert!(flexfmu(&single).status.success());
        let plain =
            ["simulate", m.to_str().unwrap(), "--set", &set, "--stop-time", "0.5", "-o", without.to_str().unwrap()];
        assert!(flexfmu(&plain).status.success());
        assert!(swept == std::fs::read(&with).unwrap(), "run {} is simulate with the options", i + 1);
        assert!(swept != std::fs::read(&without).unwrap(), "run {} used the options", i + 1);
    }
}

/// A grid of more than `MAX_SWEEP_RUNS` runs is refused before anything is made, whether one
/// range asks for it (`k=1:2:1000000000` grew to 9 GB making its values; its count is
/// checked before a value is made) or the product of axes does (the axes' sizes are
/// multiplied before a run is made). No output directory is created.
#[test]
fn an_absurd_grid_is_refused_before_it_is_made() {
    use flexfmu::limits::MAX_SWEEP_RUNS;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    let huge = format!("k=1:2:{}", 1_000_000_000u64);
    let o = sweep(&["--set", &huge], &out);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("1000000000 values, more than the {MAX_SWEEP_RUNS} runs a sweep may have")),
        "{stderr}"
    );
    let o = sweep(&["--set", "k=1:2:100000", "--set", "x0=0:1:3"], &out);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("the grid has 300000 runs (100000 x 3), more than the {MAX_SWEEP_RUNS}")),
        "{stderr}"
    );
    assert!(!out.exists());
}

/// A range's count beyond the 64-bit integers is a count beyond the limit, as
/// `k=1:2:1000000000` is: exit code 1 with the count as written (it was refused as "not a
/// positive integer", exit code 2, though it is one). What is no count stays a usage error.
#[test]
fn a_count_beyond_the_integer_range_is_a_grid_beyond_the_limit() {
    use flexfmu::limits::MAX_SWEEP_RUNS;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    let count = "99999999999999999999999";
    let o = sweep(&["--set", &format!("k=1:2:{count}")], &out);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("{count} values, more than the {MAX_SWEEP_RUNS} runs a sweep may have")),
        "{stderr}"
    );
    assert!(!out.exists());
    for count in ["0", "-3", "2.5", "1e3", "many"] {
        let o = sweep(&["--set", &format!("k=1:2:{count}")], &out);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{count}: {stderr}");
        assert!(stderr.contains(&format!("the count '{count}' is not a positive integer")), "{stderr}");
        assert!(!out.exists());
    }
}

/// `-j` beyond the number of runs starts one worker per run (`-j 10000` on 2 runs started
/// 10,000 threads): the summary line says how many ran at a time.
#[test]
fn workers_are_at_most_the_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    let m = model();
    let args = ["sweep", m.to_str().unwrap(), "--set", "k=20,40", "--stop-time", "0.1", "-j", "10000", "-o"];
    let o = Command::new(EXE).args(args).arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("2 runs (2 at a time)"), "{stdout}");
}

/// A run's warnings name the run: k = 1e20 at the model's 1 ms step loses all its energy, k = 1
/// does not (a probe could not tell which run an energy warning came from).
#[test]
fn a_warning_names_its_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    let o = sweep(&["--set", "k=1,1e20", "--stop-time", "0.1"], &out);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("warning: run 2 (k=1e20): the energy balance"), "{stderr}");
    assert!(!stderr.contains("run 1"), "{stderr}");
}

/// A sweep into the directory of an earlier, larger one removes that one's run files and table
/// (with a note) and leaves other files: the directory holds one sweep (a probe's glob over
/// run_*.csv read two stale runs). `-j 0` is a usage error; one run is "1 run".
#[test]
fn a_sweep_into_an_earlier_sweeps_directory_replaces_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sw");
    let o = sweep(&["--set", "k=10:40:3", "--stop-time", "0.1"], &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let o = sweep(&["--set", "k=5", "--stop-time", "0.1"], &out);
    let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("note: removed 4 files of an earlier sweep"), "{stderr}");
    assert!(stdout.contains(": 1 run (1 at a time)"), "{stdout}");
    let mut names: Vec<String> =
        std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, ["notes.txt", "run_0001.csv", "sweep.csv"]);
    assert_eq!(table(&out).1.len(), 1);
    let o = sweep(&["--set", "k=5", "-j", "0"], &out);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("-j 0: a sweep runs at least one run at a time"));
}
