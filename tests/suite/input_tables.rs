//! `flexfmu simulate --input NAME=FILE.csv`: the table is linearly interpolated between its
//! rows and the solver follows the interpolation (each piece's slope is the input's first
//! derivative, as fmi2SetRealInputDerivatives gives it), so a drive fed by a table moves as the
//! table says. Reference: a crane trolley (5 kg) whose rail position is the input, with a 1 kg
//! load on a 1 m rope; the trolley follows X(t) = (1 - cos(pi t))/2 for t < 1 s, then rests at
//! 1 m. The load's swing phi obeys phi'' = -(g sin phi + X''(t) cos phi) / l (a pendulum on an
//! accelerated support), integrated here by RK4 at 1e-5 s with the exact X''. Holding the input
//! over each output interval instead (what `--input` did) put the load 0.24 m off a 0.7 m swing
//! (a user's probe).

use std::f64::consts::PI;
use std::path::Path;
use std::process::Command;

use crate::common;

const MODEL: &str = r#"[model]
name = "input_crane"
gravity = [0.0, -9.81]
[[inputs]]
name = "u"
unit = "m"
[[point_masses]]
name = "trolley"
mass = 5.0
position = [0.0, 0.0]
[[point_masses]]
name = "load"
mass = 1.0
position = [0.0, -1.0]
[[joints]]
name = "rail"
type = "prismatic"
body2 = "trolley"
axis = [1.0, 0.0]
drive = "u"
[[joints]]
name = "rope"
type = "distance"
body1 = "trolley"
body2 = "load"
[[outputs]]
name = "xs"
quantity = "joint_position"
joint = "rail"
[[outputs]]
name = "xl"
quantity = "x"
body = "load"
[[outputs]]
name = "E"
quantity = "energy_total"
[[outputs]]
name = "W"
quantity = "energy_supplied"
"#;

const G: f64 = 9.81;

fn trolley(t: f64) -> f64 {
    if t < 1.0 { 0.5 * (1.0 - (PI * t).cos()) } else { 1.0 }
}

fn trolley_acceleration(t: f64) -> f64 {
    if t < 1.0 { 0.5 * PI * PI * (PI * t).cos() } else { 0.0 }
}

/// The load's x at t = k dt_out, k = 0..=n (RK4 of the swing at 1e-5 s).
fn load_x_reference(dt_out: f64, n: usize) -> Vec<f64> {
    let f = |t: f64, y: [f64; 2]| [y[1], -(G * y[0].sin() + trolley_acceleration(t) * y[0].cos())];
    let h = 1e-5;
    let per_output = (dt_out / h).round() as usize;
    let (mut y, mut t, mut out) = ([0.0f64; 2], 0.0, vec![0.0]);
    for _ in 0..n {
        for _ in 0..per_output {
            let k1 = f(t, y);
            let k2 = f(t + h / 2.0, [y[0] + h / 2.0 * k1[0], y[1] + h / 2.0 * k1[1]]);
            let k3 = f(t + h / 2.0, [y[0] + h / 2.0 * k2[0], y[1] + h / 2.0 * k2[1]]);
            let k4 = f(t + h, [y[0] + h * k3[0], y[1] + h * k3[1]]);
            for i in 0..2 {
                y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            }
            t += h;
        }
        out.push(trolley(t) + y[0].sin());
    }
    out
}

/// `simulate` with the table `rows` as the input u; the rows of the outputs CSV.
fn simulate(dir: &Path, rows: &[(f64, f64)], output_interval: &str) -> Vec<Vec<f64>> {
    let text: Vec<String> = rows.iter().map(|(t, u)| format!("{t},{u}")).collect();
    let table = format!("time,u\n{}\n", text.join("\n"));
    simulate_with_table(dir, MODEL, "u", &table, &["--stop-time", "2", "--output-interval", output_interval])
}

/// `simulate` of the model `text` with the CSV `table` as its input `input` and `args`; the
/// rows of the outputs CSV.
fn simulate_with_table(dir: &Path, text: &str, input: &str, table: &str, args: &[&str]) -> Vec<Vec<f64>> {
    let (model, table_file, csv) = (dir.join("model.toml"), dir.join("table.csv"), dir.join("out.csv"));
    std::fs::write(&model, text).unwrap();
    std::fs::write(&table_file, table).unwrap();
    let o = Command::new(common::cli::EXE)
        .arg("simulate")
        .arg(&model)
        .args(args)
        .arg("--input")
        .arg(format!("{input}={}", table_file.display()))
        .arg("-o")
        .arg(&csv)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&csv).unwrap();
    text.lines().skip(1).map(|l| l.split(',').map(|c| c.parse().unwrap()).collect()).collect()
}

#[test]
fn a_drive_follows_an_input_table_between_output_points() {
    let dir = tempfile::tempdir().unwrap();
    // The motion sampled every 1 ms; outputs every 10 ms, so ten table rows inside each.
    let rows: Vec<(f64, f64)> = (0..=2000).map(|k| (k as f64 * 1e-3, trolley(k as f64 * 1e-3))).collect();
    let out = simulate(dir.path(), &rows, "0.01");
    let reference = load_x_reference(0.01, 200);
    assert_eq!(out.len(), reference.len());
    let (mut trolley_error, mut load_error) = (0.0f64, 0.0f64);
    for (k, row) in out.iter().enumerate() {
        trolley_error = trolley_error.max((row[1] - trolley(row[0])).abs());
        load_error = load_error.max((row[2] - reference[k]).abs());
    }
    let (e0, last) = (out[0][3], &out[out.len() - 1]);
    let balance = (last[3] - e0) - last[4];
    eprintln!(
        "trolley {trolley_error:.2e} m, load {load_error:.2e} m, energy balance {balance:.2e} J of {:.4} J",
        last[4]
    );
    assert!(trolley_error < 1e-9, "the trolley is at the table's value at every row: {trolley_error:.3e} m");
    // Measured 6.8e-5 m on a swing of 0.7 m (the table's kinks every 1 ms); held: 0.24 m.
    assert!(load_error < 2e-4, "load x off the reference by {load_error:.3e} m");
    // The drive's work equals the energy change (2.84 J) to the kinks' error (measured 0.35 %).
    assert!(balance.abs() < 1e-2 * last[4], "energy change - supplied = {balance:.3e} J");
}

#[test]
fn between_coarse_table_rows_the_drive_moves_along_the_straight_line() {
    let dir = tempfile::tempdir().unwrap();
    // Rows every 30 ms, not on the 10 ms output grid. (A step, two rows at one time, is for
    // loads: a drive cannot jump; tests/suite/spatial_loads_fmu.rs steps a torque.)
    let rows: Vec<(f64, f64)> = (0..=50).map(|k| (k as f64 * 0.03, trolley(k as f64 * 0.03))).collect();
    let out = simulate(dir.path(), &rows, "0.01");
    let line = |t: f64| {
        let k = rows.partition_point(|r| r.0 <= t);
        if k == rows.len() {
            return rows[k - 1].1;
        }
        let ((t0, u0), (t1, u1)) = (rows[k - 1], rows[k]);
        u0 + (u1 - u0) * (t - t0) / (t1 - t0)
    };
    let worst = out.iter().fold(0.0f64, |w, row| w.max((row[1] - line(row[0])).abs()));
    assert!(worst < 1e-9, "the trolley is on the table's straight line at every output: {worst:.3e} m");
    assert!(out.len() == 201 && (out[200][1] - 1.0).abs() < 1e-9, "after the last row its value holds");
}

/// A table the run cannot follow is refused before the run with its file, line and the value
/// as written: an infinite value (was "got NaN", after interpolation), a NaN time, a third
/// column (was ignored), a headerless row of three cells, times that go back, a slope that
/// overflows, and a constant that is not finite.
#[test]
fn a_table_the_run_cannot_follow_is_refused_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("crane.toml");
    std::fs::write(&model, MODEL).unwrap();
    let table = dir.path().join("u.csv");
    let cases = [
        ("time,value\n0,0\n1,inf\n", ":3: the time and value must be finite numbers, got '1,inf'"),
        ("time,value\n0,0\nnan,1\n2,0\n", ":3: the time and value must be finite numbers, got 'nan,1'"),
        ("time,value,extra\n0,0,5\n1,1,6\n", ":1: unknown column 'extra': an input table has two columns"),
        ("0,0,5\n1,1,6\n", ":1: expected 'time,value', got '0,0,5'"),
        ("time,value\n0,0\n2,1\n1,0\n", ":4: time 1 is before the row above's 2: times must increase"),
        // A slope beyond double precision (was "must be finite, got NaN" without the line).
        ("time,value\n0,0\n0.5,1e308\n", ":3: the value changes from 0 to 1e308 in 0.5 s, a slope beyond"),
        // Another separator (its first row had been taken as a header).
        ("0;0\n1;1\n", ":1: the columns are separated by commas ('time,value'), got '0;0'"),
        // The input drives the rail: its position cannot jump (a probe's steps of 0.1 rad swung
        // a crane with 1e7 N m).
        ("time,value\n0,0\n1,0\n1,0.5\n", ":4: the value steps from 0 to 0.5 at t = 1, and this input drives a joint"),
    ];
    let simulate = |input: String| {
        Command::new(common::cli::EXE)
            .args(["simulate".as_ref(), model.as_os_str(), "--stop-time".as_ref(), "0.01".as_ref(), "--input".as_ref()])
            .arg(input)
            .arg("-o")
            .arg(dir.path().join("out.csv"))
            .output()
            .unwrap()
    };
    for (text, message) in cases {
        std::fs::write(&table, text).unwrap();
        let o = simulate(format!("u={}", table.display()));
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{text}: {stderr}");
        let expected = format!("--input u: {}{message}", table.display());
        assert!(stderr.contains(&expected), "{text}: no '{expected}' in {stderr}");
    }
    // A constant that is not a number is a usage error, as `--set m=nan` is (docs/cli.md).
    let o = simulate("u=inf".into());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--input u: the value must be a finite number, got inf"), "{stderr}");
}

/// Each table row inside an output interval ends an internal step, so a table denser than the
/// step budget of one interval (500,000 steps) is refused when the run reaches it, with the
/// rows computed before kept (a probe's 2e6 rows 1e-9 s apart ran 2e6 steps in one 0.01 s
/// interval without a word, and the table limit allows 12 times more).
#[test]
fn a_table_denser_than_the_step_budget_of_an_interval_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("crane.toml");
    std::fs::write(&model, MODEL).unwrap();
    let table = dir.path().join("u.csv");
    let mut text = String::from("time,value\n0,0\n");
    let rows = 500_001;
    for k in 1..=rows {
        text += &format!("{:e},0\n", 0.01 + 0.001 * k as f64 / rows as f64);
    }
    std::fs::write(&table, text).unwrap();
    let out = dir.path().join("out.csv");
    let o = Command::new(common::cli::EXE)
        .args(["simulate".as_ref(), model.as_os_str(), "--stop-time".as_ref(), "0.03".as_ref()])
        .args(["--output-interval", "0.01", "--input"])
        .arg(format!("u={}", table.display()))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("the input tables have 500001 rows between t = 0.01 and 0.02"), "{stderr}");
    let rows_written = std::fs::read_to_string(&out).unwrap().lines().count();
    assert_eq!(rows_written, 3, "header and the rows at 0 and 0.01 s");
}

/// Output rows at k x 0.01 s (41 x 0.01 = 0.41000000000000003) and table rows written "0.41"
/// (0.40999999999999997) are the same times: the row reports the piece that ends there. A rotor
/// (J = 1) driven by a table of q = t^2 every 10 ms turns at the slope of the piece before each
/// row, (2k - 1)/100 rad/s at row k, with no drive torque (linear pieces). Before, 13 of 60
/// rows took an internal step of 6e-17 s onto the next piece and reported its slope (a
/// probe's arm showed a drive torque of 1028 N m instead of 9 there).
#[test]
fn table_rows_within_round_off_of_an_output_row_are_that_row() {
    let dir = tempfile::tempdir().unwrap();
    let model = "[model]\nname = \"rotor\"\n[solver]\nstep = 1e-3\nstop_time = 0.6\noutput_interval = 0.01\n\
                 [[inputs]]\nname = \"q\"\n[[rigid_bodies]]\nname = \"rotor\"\nmass = 1.0\ninertia = 1.0\n\
                 position = [0.0, 0.0]\n[[joints]]\nname = \"drive\"\ntype = \"revolute\"\nbody2 = \"rotor\"\n\
                 point = [0.0, 0.0]\ndrive = \"q\"\n\
                 [[outputs]]\nname = \"torque\"\nquantity = \"drive_force\"\njoint = \"drive\"\n\
                 [[outputs]]\nname = \"rate\"\nquantity = \"joint_velocity\"\njoint = \"drive\"\n";
    let rows: Vec<String> = (0..=61).map(|k| format!("{:.2},{}", k as f64 / 100.0, (k * k) as f64 / 1e4)).collect();
    let out = simulate_with_table(dir.path(), model, "q", &format!("time,q\n{}\n", rows.join("\n")), &[]);
    assert_eq!(out.len(), 61);
    let (mut rate, mut torque) = (0.0f64, 0.0f64);
    for (k, row) in out.iter().enumerate().skip(1) {
        rate = rate.max((row[2] - (2 * k - 1) as f64 / 100.0).abs());
        torque = torque.max(row[1].abs());
    }
    eprintln!("rate off the piece's slope by {rate:.2e} rad/s, torque {torque:.2e} N m");
    assert!(rate < 1e-9, "a row reports the rate of the piece after it: {rate:.3e} rad/s off");
    assert!(torque < 1e-6, "drive torque {torque:.3e} N m on linear pieces");
}

/// A free 1 kg mass pushed along x by the input `u` as a force: x = u (t - t_s)^2 / 2 for a
/// value u from t_s on.
const PUSHED: &str = "[model]\nname = \"pushed\"\n[solver]\nstep = 1e-3\nstop_time = 2.0\noutput_interval = 0.5\n\
                      [[inputs]]\nname = \"u\"\n[[point_masses]]\nname = \"m\"\nmass = 1.0\nposition = [0.0, 0.0]\n\
                      [[joints]]\nname = \"rail\"\ntype = \"prismatic\"\nbody2 = \"m\"\naxis = [1.0, 0.0]\n\
                      [[loads]]\nname = \"push\"\ntype = \"force\"\nbody = \"m\"\ndirection = [1.0, 0.0]\nvalue = \"u\"\n\
                      [[outputs]]\nname = \"x\"\nquantity = \"x\"\nbody = \"m\"\n";

/// Two table rows within round-off of each other (1e-12 relative, absolute below 1 s) are one
/// time: a step to the later row's value, which holds from then on. Before, the later row was
/// never applied: a probe's step at 1 s and 1.0000000000001 s held 0 to the end, and rows at 0
/// and 1e-12 s held the first value. Quoted cells, as spreadsheets write them, are numbers (a
/// probe's "0","3" had been taken as the header).
#[test]
fn rows_within_round_off_of_each_other_make_a_step() {
    let dir = tempfile::tempdir().unwrap();
    for (table, t_step, force) in [
        ("0,0\n1,0\n1.0000000000001,10\n", 1.0, 10.0),
        ("0,1\n1e-12,2\n", 0.0, 2.0),
        ("\"time\",\"u\"\n\"0\",\"3\"\n", 0.0, 3.0),
    ] {
        let out = simulate_with_table(dir.path(), PUSHED, "u", table, &[]);
        let last = out.last().unwrap();
        let exact = 0.5 * force * (2.0f64 - t_step).powi(2);
        assert!(
            (last[0] - 2.0).abs() < 1e-12 && (last[1] - exact).abs() < 1e-9,
            "{table}: x(2) = {} against {exact}",
            last[1]
        );
    }
}
