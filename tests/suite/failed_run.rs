//! A run that fails keeps its results (issue 17): `flexfmu simulate` writes each CSV row as it
//! is computed, and on failure adds the state of the last successful internal step, exits
//! with 1 and says what happened and what to try.
//!
//! The failing model: the rigid pendulum (models/rigid_pendulum.toml) under a torque
//! 1 / sqrt(0.5 - t), which is infinite at t = 0.5 s and NaN after it. Every step that ends
//! before 0.5 s is solvable; no step can pass it.

use std::process::Command;

const EXE: &str = env!("CARGO_BIN_EXE_flexfmu");

#[test]
fn a_failed_run_keeps_every_row_up_to_the_failure() {
    let dir = std::env::temp_dir().join(format!("flexfmu_failed_run_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let base = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/models/rigid_pendulum.toml")).unwrap();
    let model = dir.join("pendulum_blowup.toml");
    let text = base.replace("name = \"rigid_pendulum\"", "name = \"pendulum_blowup\"")
        + "\n[[loads]]\nname = \"blowup\"\ntype = \"torque\"\nbody = \"rod\"\nvalue = \"1/sqrt(0.5 - t)\"\n";
    std::fs::write(&model, text).unwrap();
    let csv = dir.join("out.csv");
    let out = Command::new(EXE).arg("simulate").arg(&model).arg("-o").arg(&csv).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stderr}");
    assert_eq!(out.status.code(), Some(1), "exit code");
    assert!(stderr.contains("simulation stopped at t = "), "{stderr}");
    assert!(stderr.contains("NaN or infinity"), "the diagnosis names the non-finite force: {stderr}");
    assert!(stderr.contains("holds the results up to"), "{stderr}");

    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<Vec<f64>> =
        text.lines().skip(1).map(|l| l.split(',').map(|c| c.parse::<f64>().unwrap()).collect()).collect();
    let times: Vec<f64> = rows.iter().map(|r| r[0]).collect();
    // Every output sample (interval 0.01 s) before the singularity, then the last state.
    let interval = 0.01;
    let samples = times.iter().filter(|&&t| ((t / interval).round() * interval - t).abs() < 1e-9).count();
    assert_eq!(samples, 50, "rows at 0, 0.01, ..., 0.49 s: {times:?}");
    for (k, t) in times.iter().take(50).enumerate() {
        assert!((t - k as f64 * interval).abs() < 1e-9, "row {k} at t = {t}");
    }
    let last = *times.last().unwrap();
    assert!(times.len() == 51 && last > 0.49 && last < 0.5, "last row at the failure, just before 0.5 s: {last}");
    assert!(rows.iter().flatten().all(|x| x.is_finite()));
    std::fs::remove_dir_all(&dir).ok();
}

/// A force that turns NaN without passing through infinity (sqrt(0.5 - t) after 0.5 s) is
/// named as such, not as a singular Newton matrix (a probe got "the Newton matrix is singular
/// (redundant constraints, a body without mass ...)" for it: the solve took the NaN forces
/// for a property of the matrix).
#[test]
fn a_force_turning_nan_is_named_not_the_matrix() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/models/rigid_pendulum.toml")).unwrap();
    let model = dir.path().join("pendulum_nan.toml");
    std::fs::write(
        &model,
        base + "\n[[loads]]\nname = \"root\"\ntype = \"torque\"\nbody = \"rod\"\nvalue = \"sqrt(0.5 - t)\"\n",
    )
    .unwrap();
    let out = Command::new(EXE).arg("simulate").arg(&model).arg("-o").arg(dir.path().join("out.csv")).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stderr}");
    assert_eq!(out.status.code(), Some(1), "exit code");
    assert!(stderr.contains("simulation stopped at t = 0.5"), "{stderr}");
    assert!(stderr.contains("a force evaluated to NaN or infinity") && !stderr.contains("singular"), "{stderr}");
    // The load it came from, with its place in the file (the last line the model has).
    let line = std::fs::read_to_string(&model).unwrap().lines().count();
    let said =
        format!("not finite there: {}:{line}:9: the value of load 'root' `sqrt(0.5 - t)` is NaN", model.display());
    assert!(stderr.contains(&said), "{said}\n{stderr}");
}

/// What a force or initial acceleration that is not finite came from is said for every kind
/// of model expression: a load without a name, a spring's free length, at the start and later
/// (a probe's load sqrt(t - 1) was reported without its name or place).
#[test]
fn the_expression_a_non_finite_force_came_from_is_named_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/models/mass_spring.toml")).unwrap();
    let run = |name: &str, text: String| {
        let model = dir.path().join(name);
        std::fs::write(&model, text).unwrap();
        let out =
            Command::new(EXE).arg("simulate").arg(&model).arg("-o").arg(dir.path().join("out.csv")).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    // An unnamed load, NaN from the start: the initial accelerations fail.
    let unnamed =
        base.replace("name = \"external\"\n", "").replace("value = \"force\"", "value = \"force + sqrt(t - 1)\"");
    let line = unnamed.lines().position(|l| l.contains("sqrt(t - 1)")).unwrap() + 1;
    let (code, stderr) = run("unnamed.toml", unnamed);
    assert_eq!(code, Some(1), "{stderr}");
    let said = format!(
        "initial accelerations: a force evaluated to NaN or infinity at t = 0 (an expression outside its domain, \
         such as the square root of a negative number, or an overflow); check the model's values (SI units?), \
         expressions and inputs, or a smaller step\nnot finite there: {}:{line}:9: the value of the load on 'mass' \
         `force + sqrt(t - 1)` is NaN at t = 0",
        dir.path().join("unnamed.toml").display()
    );
    assert!(stderr.contains(&said), "{said}\n{stderr}");
    // A spring's free length that turns infinite at t = 1.
    let spring = base.replace("free_length = 0.0", "free_length = \"0.01/(1 - t)\"");
    let line = spring.lines().position(|l| l.contains("0.01/(1 - t)")).unwrap() + 1;
    let (code, stderr) = run("spring.toml", spring);
    assert_eq!(code, Some(1), "{stderr}");
    let said = format!(
        "not finite there: {}:{line}:15: the free_length of spring 'spring' `0.01/(1 - t)` is infinite at t = 1",
        dir.path().join("spring.toml").display()
    );
    assert!(stderr.contains("simulation stopped at t = 0.99") && stderr.contains(&said), "{said}\n{stderr}");
}

/// A drive whose rate turns infinite (0.1 sqrt(0.5 - t) at t = 0.5 s): the step reaches 0.5
/// (the positions are finite there) but its outputs' accelerations cannot be evaluated. The run
/// ends as a failed step does, the drive named and the rows kept (a probe got "the Newton matrix
/// is singular" and no "holds the results" line).
#[test]
fn a_drive_whose_rate_turns_infinite_is_named_and_the_rows_kept() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/models/rigid_pendulum.toml")).unwrap();
    let model = dir.path().join("pendulum_drive.toml");
    let text = base.replacen("type = \"revolute\"", "type = \"revolute\"\ndrive = \"0.1*sqrt(0.5 - t)\"", 1)
        + "\n[[outputs]]\nname = \"torque\"\nquantity = \"drive_force\"\njoint = \"pivot\"\n";
    std::fs::write(&model, text).unwrap();
    let csv = dir.path().join("out.csv");
    let out = Command::new(EXE).arg("simulate").arg(&model).arg("-o").arg(&csv).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("simulation stopped at t = 0.5: the accelerations at t = 0.5: a drive's rate or acceleration evaluated to NaN or infinity"), "{stderr}");
    assert!(stderr.contains("holds the results up to t = 0.49"), "{stderr}");
    assert!(
        stderr.contains("the drive of joint 'pivot' `0.1*sqrt(0.5 - t)` has a rate that is infinite at t = 0.5"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&csv).unwrap().lines().count(), 1 + 50, "header and rows 0 .. 0.49 s");
}

/// A step that fails in a model with inputs names their values: an unstable control loop that
/// drives an input to absurd values is a common cause in co-simulation, and the failure's
/// advice (a smaller step) points away from it (probe 18: a PD loop drove two torques to
/// 4e6 N m). The crank-slider under crank_torque = 1e9 N m fails at its first steps.
#[test]
fn a_failed_step_names_the_inputs_over_it() {
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/models/crank_slider.toml");
    let csv = std::env::temp_dir().join(format!("flexfmu_failed_inputs_{}.csv", std::process::id()));
    let out =
        Command::new(EXE).args(["simulate", model, "--input", "crank_torque=1e9", "-o"]).arg(&csv).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("the inputs over the step: crank_torque = 1e9"), "{stderr}");
    let _ = std::fs::remove_file(&csv);
}

/// The 4-element soft pendulum (models/pendulum_corotational.toml) run past its 1 s: its tip
/// element whips until its sections turn about 1 and 1.4 rad against its chord, where the
/// corotational element's consistent mass (linear in those rotations) is no longer positive
/// definite, and at t = 2.796 s every method fails. The run says so when it happens (a
/// warning at the first output time) and the failure names the element, not a smaller step;
/// 16 elements keep the local rotations in range and run to the end without either.
#[test]
fn a_corotational_element_turned_beyond_its_mass_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/models/pendulum_corotational.toml");
    let run = |elements: &str, stop: &str| {
        let out = Command::new(EXE)
            .args(["simulate", model, "--set", elements, "--stop-time", stop, "-o"])
            .arg(dir.path().join("out.csv"))
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, stderr) = run("elements=4", "2.5");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "warning: the model left its elements' range at t = 1.44, the element between arm.node[2] and arm.node[3]"
        ),
        "{stderr}"
    );
    let (code, stderr) = run("elements=4", "5");
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("simulation stopped at t = 2.79"), "{stderr}");
    assert!(stderr.contains("the model left its elements' range: at t = 2.79"), "{stderr}");
    assert!(stderr.contains("the element between arm.node[3] and arm.node[4]"), "{stderr}");
    let (code, stderr) = run("elements=16", "5");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("range"), "{stderr}");
}

/// The same soft pendulum as a spatial model: the spatial corotational element's frame (the
/// mean of its nodes' section axes, Battini & Pacoste 2002) holds for local rotations below
/// pi/2, and with 4 elements the whipping tip element passes it and fails at t = 1.60 s. The
/// failure names the element and its local rotations; 16 elements stay in range to 5 s.
#[test]
fn a_spatial_corotational_element_turned_past_its_frame_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("pendulum_3d.toml");
    std::fs::write(
        &model,
        r#"[model]
name = "pendulum_3d"
dimension = 3
gravity = [0.0, -9.81, 0.0]
[parameters]
elements = { value = 4, type = "integer", min = 1, max = 100 }
[solver]
step = 3e-4
stop_time = 5.0
output_interval = 0.01
[[beams]]
name = "arm"
start = [0.0, 0.0, 0.0]
end = [1.2, 0.0, 0.0]
elements = "elements"
section = { shape = "rectangle", width = 0.015, height = 0.01 }
material = { E = 1.0e7, nu = 0.3, rho = 5540.0 }
[[joints]]
name = "pin"
type = "revolute"
body2 = "arm.start"
axis = [0.0, 0.0, 1.0]
[[outputs]]
name = "tip_x"
quantity = "x"
body = "arm.end"
"#,
    )
    .unwrap();
    let run = |elements: &str| {
        let out = Command::new(EXE)
            .arg("simulate")
            .arg(&model)
            .args(["--set", elements, "-o"])
            .arg(dir.path().join("out.csv"))
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, stderr) = run("elements=4");
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("simulation stopped at t = 1.60"), "{stderr}");
    assert!(stderr.contains("the model left its elements' range: at t = 1.60"), "{stderr}");
    assert!(stderr.contains("the element between arm.node[3] and arm.node[4]: its nodes are turned"), "{stderr}");
    let (code, stderr) = run("elements=16");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("range"), "{stderr}");
}

/// A run that fails keeps its statistics as it keeps its rows: `--stats-json` is written with
/// the steps taken up to the failure, `outcome` "failed" and the failure's message as `error`
/// (it was not written at all); a run that reaches its stop time says `outcome` "completed",
/// `error` null.
#[test]
fn a_failed_run_writes_its_statistics_with_the_failure() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/models/rigid_pendulum.toml")).unwrap();
    let model = dir.path().join("pendulum_blowup.toml");
    std::fs::write(
        &model,
        base + "\n[[loads]]\nname = \"blowup\"\ntype = \"torque\"\nbody = \"rod\"\nvalue = \"1/sqrt(0.5 - t)\"\n",
    )
    .unwrap();
    let (csv, stats) = (dir.path().join("out.csv"), dir.path().join("stats.json"));
    let run = |stop: &str| {
        Command::new(EXE)
            .arg("simulate")
            .arg(&model)
            .args(["--stop-time", stop, "-o"])
            .arg(&csv)
            .arg("--stats-json")
            .arg(&stats)
            .output()
            .unwrap()
    };
    let out = run("1");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(json["outcome"], "failed", "{json}");
    let error = json["error"].as_str().unwrap();
    assert!(error.starts_with("simulation stopped at t = 0.4") && error.contains("NaN or infinity"), "{error}");
    assert!(json["steps"].as_u64().unwrap() >= 490, "{json}");
    assert_eq!(json["integrator"], "ttbif", "{json}");

    let out = run("0.3");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(json["outcome"], "completed", "{json}");
    assert!(json["error"].is_null(), "{json}");
}

/// A drive that asks for a position the mechanism cannot reach is named as the cause, at the
/// start and during the run: the crank-slider's piston driven from the model's start at
/// 0.2 m/s, past the reach r + l = 0.45 m at t* = (0.45 - x0) / 0.2 (a probe's run stopped with
/// "try a smaller step, error_control = true, or more max_iterations", and a piston driven to
/// 0.5 m at t = 0 was blamed on the crank pin).
#[test]
fn a_drive_beyond_the_mechanisms_reach_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let base =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/models/crank_slider_driven.toml")).unwrap();
    let (r, l, theta0) = (0.15f64, 0.30f64, std::f64::consts::FRAC_PI_3);
    let x0 = r * theta0.cos() + (l * l - (r * theta0.sin()).powi(2)).sqrt();
    let t_reach = (r + l - x0) / 0.2;
    let piston = |drive: &str| {
        let text = base
            .replace("drive = \"theta0 + omega*t\"\n", "")
            .replace("axis = [1.0, 0.0]\n", &format!("axis = [1.0, 0.0]\ndrive = \"{drive}\"\n"));
        // Without the crank's drive there is no drive force of the crank to write.
        text.split("[[outputs]]").filter(|o| !o.contains("drive_force")).collect::<Vec<_>>().join("[[outputs]]")
    };
    let run = |name: &str, text: String| {
        let model = dir.path().join(name);
        std::fs::write(&model, &text).unwrap();
        let out =
            Command::new(EXE).arg("simulate").arg(&model).arg("-o").arg(dir.path().join("out.csv")).output().unwrap();
        let line = text.lines().position(|l| l == "name = \"slide\"").unwrap() + 1;
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned(), format!("{}:{line}:", model.display()))
    };
    let (code, stderr, _) = run("during.toml", piston(&format!("{x0} + 0.2*t")));
    assert_eq!(code, Some(1), "{stderr}");
    let said = "the drive of joint 'slide' asks by t = ";
    let at: f64 = stderr
        .split(said)
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!((t_reach - 1e-6..t_reach + 1e-3).contains(&at), "t* = {t_reach}: {stderr}");
    assert!(stderr.contains("for a position the mechanism cannot reach"), "{stderr}");
    let (code, stderr, place) = run("start.toml", piston("0.5"));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr
            .contains(&format!("{place}8: this joint's drive asks at t = 0 for a position the mechanism cannot reach")),
        "{place}\n{stderr}"
    );
}
