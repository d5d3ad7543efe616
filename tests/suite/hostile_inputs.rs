//! Hostile model files through the command line: `check`, `simulate` and `build` refuse what
//! would overflow the stack, exhaust the memory or give an FMU importers cannot read, each
//! with an error located at file:line:column and exit code 2 — never a crash (exit 134).

use std::path::Path;
use std::process::Command;

use crate::common;

use flexfmu::integrators::Dynamics;
use flexfmu::limits::{MAX_CONSTRAINT_GROUP_ROWS, MAX_COORDINATES, MAX_MODEL_NAME_LENGTH};
use flexfmu::mechanics::assemble::assemble;
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings, StepError};

const EXE: &str = env!("CARGO_BIN_EXE_flexfmu");

fn mass_spring() -> String {
    std::fs::read_to_string(common::sim::model_path("mass_spring")).unwrap()
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
    for deep in [
        format!("{}1{}", "(".repeat(9000), ")".repeat(9000)),
        "-".repeat(17_500) + "1",
        format!("{}1{}", "1+(".repeat(9000), ")".repeat(9000)),
    ] {
        let (text, line) = with_line(&format!("{}\n{spring}", mass_spring()), &format!("free_length = \"{deep}\""));
        refused_everywhere(&text, line, "nested deeper than 100 levels");
    }
    // A time function (a load), 3000 deep: refused too, not packaged.
    let load = "[[loads]]\nname = \"deep\"\ntype = \"force\"\nbody = \"mass\"\ndirection = [1.0, 0.0]";
    let deep = format!("{}t{}", "sin(".repeat(3000), ")".repeat(3000));
    let (text, line) = with_line(&format!("{}\n{load}", mass_spring()), &format!("value = \"{deep}\""));
    refused_everywhere(&text, line, "nested deeper than 100 levels");
}

/// A flat sum is one level however long: 200 terms were refused as "nested deeper than 100
/// levels" although nothing nests. 10,000 terms in a load and a free length are read, packaged
/// and run by every command (100,000 on a small stack: tests/suite/fmu_hostile.rs).
#[test]
fn long_flat_sums_run_everywhere() {
    let n = 10_000;
    let load = format!(
        "[[loads]]\nname = \"long\"\ntype = \"force\"\nbody = \"mass\"\ndirection = [1.0, 0.0]\nvalue = \"{}\"",
        vec!["1e-6*t"; n].join(" + ")
    );
    let spring = format!(
        "[[springs]]\nname = \"long\"\nbody1 = \"ground\"\npoint1 = [0.0, 1.0]\nbody2 = \"mass\"\nstiffness = 1.0\n\
         free_length = \"{}\"",
        vec!["1e-5"; n].join(" + ")
    );
    let text = format!("{}\n{load}\n{spring}\n", mass_spring());
    for command in ["check", "simulate", "build"] {
        let (code, stderr, _) = run(command, &text);
        assert_eq!(code, 0, "{command}: {}", &stderr[..stderr.len().min(500)]);
    }
}

#[test]
fn control_characters_in_texts_are_located_errors() {
    let base = mass_spring();
    // Every kind of text that reaches modelDescription.xml.
    let cases = [
        ("description = \"1 kg mass", "description = \"\\u0001 1 kg mass"),
        ("unit = \"kg\"", "unit = \"k\\u0000g\""),
        ("description = \"mass\"", "description = \"ma\\u001Bss\""),
    ];
    for (from, to) in cases {
        assert!(base.contains(from), "{from}");
        let text = base.replacen(from, to, 1);
        let line = text.lines().position(|l| l.contains(to)).unwrap() + 1;
        refused_everywhere(&text, line, "control character");
    }
    let extra = [
        "[[inputs]]\nname = \"u\"\nunit = \"N\\u0002\"",
        "[[outputs]]\nname = \"x2\"\nquantity = \"x\"\nbody = \"mass\"\ndescription = \"\\u0007\"",
        "[parameters.choice]\nvalue = \"a\"\nchoices = [\"a\", \"b\\u0003\"]",
    ];
    for e in extra {
        let text = if e.starts_with("[parameters") {
            base.replacen("[parameters]", &format!("{e}\n[parameters]"), 1)
        } else {
            format!("{base}\n{e}\n")
        };
        let line = text.lines().position(|l| l.contains("\\u000")).unwrap() + 1;
        refused_everywhere(&text, line, "control character");
    }
    // Tab, newline and non-ASCII text are valid XML and stay accepted.
    let fine = base.replacen("description = \"mass\"", "description = \"m\\tä\\nß\"", 1);
    assert_eq!(run("check", &fine).0, 0, "{}", run("check", &fine).1);
}

#[test]
fn model_names_too_long_for_the_binary_file_name_are_located_errors() {
    let base = mass_spring();
    let line = base.lines().position(|l| l.starts_with("name = \"mass_spring\"")).unwrap() + 1;
    let long = base.replacen("name = \"mass_spring\"", &format!("name = \"{}\"", "a".repeat(253)), 1);
    refused_everywhere(&long, line, "at most 249");
    // The longest accepted name builds an FMU whose binary file name has 255 bytes or fewer.
    let longest = "n".repeat(MAX_MODEL_NAME_LENGTH);
    let text = base.replacen("name = \"mass_spring\"", &format!("name = \"{longest}\""), 1);
    let (code, stderr, _) = run("build", &text);
    assert_eq!(code, 0, "{stderr}");
    assert!(format!("{longest}.dylib").len() <= 255);
}

#[test]
fn non_finite_times_are_refused_by_the_step_loop() {
    let model = Model::parse(&mass_spring(), "mass_spring.toml").unwrap();
    let params = model.default_parameters();
    let settings = SolverSettings::from_model(&model, &params).unwrap();
    let mut sim = Simulation::new(&model, &params, settings, 0.0).unwrap();
    assert!(matches!(sim.step_to(f64::INFINITY), Err(StepError::NonFiniteTime { .. })));
    assert_eq!(sim.time(), 0.0, "nothing was stepped");
    // A state whose time is not finite does not even get in (Snapshot::validate).
    let mut snapshot = sim.snapshot();
    snapshot.state_mut().t = f64::NEG_INFINITY;
    let refused = sim.restore(&snapshot).unwrap_err();
    assert!(refused.contains("-inf"), "{refused}");
    assert_eq!(sim.time(), 0.0, "the refused state changed nothing");
}

#[test]
fn the_step_budget_bounds_one_interval_not_a_run() {
    let model = Model::parse(&mass_spring(), "mass_spring.toml").unwrap();
    let params = model.default_parameters();
    let mut settings = SolverSettings::from_model(&model, &params).unwrap();
    settings.step = 1e-6;
    let mut sim = Simulation::new(&model, &params, settings, 0.0).unwrap();
    // 0.6 s at 1e-6 s: 600,000 steps in one interval, refused before any work.
    let err = sim.step_to(0.6).unwrap_err();
    assert!(matches!(err, StepError::TooManySteps { .. }), "{err}");
    assert!(err.to_string().contains("500000"), "{err}");
    assert_eq!((sim.time(), sim.statistics().steps), (0.0, 0));
    // Time in intervals within the budget runs.
    sim.step_to(0.1).unwrap();
    sim.step_to(0.2).unwrap();
    assert_eq!(sim.statistics().steps, 200_000);
}

/// Parameters, inputs and outputs are the FMU's variables: `simulate` refuses a name they share
/// (or the `solver_` prefix of the FMU's solver parameters) as `check` and `build` do.
#[test]
fn variable_names_are_one_namespace_for_every_command() {
    let output =
        |name: &str| with_line(&mass_spring(), &format!("[[outputs]]\nquantity = \"energy_total\"\nname = \"{name}\""));
    let (text, line) = output("k");
    refused_everywhere(&text, line, "name 'k' is the parameter's on line 10");
    let (text, line) = output("solver_step");
    refused_everywhere(&text, line, "reserved for the FMU's solver parameters");
    let base = mass_spring().replacen("[parameters]", "[parameters]\nsolver_x = 1.0", 1);
    refused_everywhere(&base, 9, "names starting with 'solver_' are reserved");
}

/// FMI 3.0's modelDescription.xml declares the independent variable `time` beside the model's
/// variables: a parameter, input or output named so made an FMU importers refuse ("the
/// variable name \"time\" is not unique"). Refused by every command, where it is written.
#[test]
fn the_fmi3_time_variable_name_is_reserved() {
    let needle = "name 'time' is reserved: it is the FMU's independent variable";
    let (text, line) = with_line(&mass_spring(), "[[outputs]]\nquantity = \"energy_total\"\nname = \"time\"");
    refused_everywhere(&text, line, needle);
    let (text, line) = with_line(&mass_spring(), "[[inputs]]\nname = \"time\"");
    refused_everywhere(&text, line, needle);
    let text = mass_spring().replacen("[parameters]", "[parameters]\ntime = 3.0", 1);
    refused_everywhere(&text, 9, needle);
    // Names that only contain it are variables like any other.
    let (text, _) = with_line(&mass_spring(), "[[outputs]]\nquantity = \"energy_total\"\nname = \"time_1\"");
    assert_eq!(run("check", &text).0, 0, "{}", run("check", &text).1);
}

/// Output times k h computed by the master carry round-off of a few ulps of t: past t = 8.192 s
/// an interval of one step came out up to 2e-12 of a step longer and was taken as two steps
/// (10624 steps for 10 s at h = 1 ms). One step per interval, to t = 100 s.
#[test]
fn an_interval_of_one_step_is_one_step_at_any_time() {
    let model = Model::parse(&mass_spring(), "mass_spring.toml").unwrap();
    let params = model.default_parameters();
    let mut settings = SolverSettings::from_model(&model, &params).unwrap();
    settings.step = 1e-3;
    let mut sim = Simulation::new(&model, &params, settings, 0.0).unwrap();
    for k in 1..=100_000 {
        sim.step_to(k as f64 * 1e-3).unwrap();
    }
    assert_eq!(sim.statistics().steps, 100_000);
}

/// A beam of `elements` corotational elements named `name`, pinned at the origin.
fn beam(name: &str, elements: usize) -> String {
    format!(
        "[[beams]]\nname = \"{name}\"\nstart = [0.0, 0.0]\nend = [1.0, 0.0]\nelements = {elements}\n\
         section = {{ width = 0.01, height = 0.01 }}\nmaterial = {{ E = 2e11, nu = 0.3, rho = 7800 }}\n"
    )
}

#[test]
fn models_beyond_the_coordinate_limit_are_located_errors() {
    let head = "[model]\nname = \"big\"\n[solver]\nstop_time = 0.002\n";
    // 1e6 and 3e5 elements (3 and 0.9 million coordinates): refused before allocating.
    for elements in [1_000_000, 300_000] {
        let text = format!("{head}{}", beam("arm", elements));
        let line = text.lines().position(|l| l.starts_with("elements")).unwrap() + 1;
        refused_everywhere(&text, line, &format!("more than the {MAX_COORDINATES} allowed"));
    }
    // Two beams that fit alone but not together: the error points at the second.
    let text = format!("{head}{}{}", beam("a", 80_000), beam("b", 5_000));
    let line = text.lines().enumerate().filter(|(_, l)| l.starts_with("elements")).last().unwrap().0 + 1;
    refused_everywhere(&text, line, "would bring the model to 255006 generalized coordinates");
}

/// Body names are looked up in maps: 20,000 point masses, each named by a spring and an
/// output, assemble (in linear time; the README gives the measurement, this test no timing).
#[test]
fn many_point_masses_assemble() {
    let n = 20_000;
    let mut text = String::from("[model]\nname = \"many\"\ngravity = [0.0, -9.81]\n");
    for i in 0..n {
        text += &format!("[[point_masses]]\nname = \"p{i}\"\nmass = 1.0\nposition = [{i}.0, 0.0]\n");
    }
    for i in 0..n {
        text += &format!(
            "[[springs]]\nname = \"s{i}\"\nbody1 = \"ground\"\npoint1 = [{i}.0, 1.0]\nbody2 = \"p{i}\"\nstiffness = 10.0\n"
        );
    }
    text += &format!("[[outputs]]\nname = \"y\"\nquantity = \"y\"\nbody = \"p{}\"\n", n - 1);
    let model = Model::parse(&text, "many.toml").unwrap();
    let assembly = assemble(&model, &model.default_parameters()).unwrap();
    assert_eq!(assembly.system.coordinates(), 2 * n);
    // A duplicate name is still reported at its later declaration.
    let dup = text.replacen("name = \"p7\"", "name = \"p3\"", 1);
    let err = assemble(&Model::parse(&dup, "many.toml").unwrap(), &[]).map(|_| ()).unwrap_err();
    assert!(err.message.contains("name 'p3' is already used on line"), "{err}");
}

/// `n` point masses, each on its own prismatic joint to ground (1 constraint row each).
fn sliders(n: usize) -> String {
    let mut text = String::from("[model]\nname = \"sliders\"\ngravity = [0.0, -9.81]\n");
    for i in 0..n {
        text += &format!("[[point_masses]]\nname = \"p{i}\"\nmass = 1.0\nposition = [{i}.0, 0.0]\n");
    }
    for i in 0..n {
        text += &format!(
            "[[joints]]\nname = \"j{i}\"\ntype = \"prismatic\"\nbody1 = \"ground\"\nbody2 = \"p{i}\"\n\
             point = [{i}.0, 0.0]\naxis = [1.0, 0.0]\n"
        );
    }
    text + "[[outputs]]\nname = \"x\"\nquantity = \"x\"\nbody = \"p0\"\n"
}

/// A chain of `n` rods, each pinned to the one before (the first to ground): 2 rows per
/// joint, all in one group.
fn chain(n: usize) -> String {
    let mut text = String::from("[model]\nname = \"chain\"\ngravity = [0.0, -9.81]\n");
    for i in 0..n {
        text += &format!("[[rigid_bodies]]\nname = \"r{i}\"\nmass = 1.0\ninertia = 0.1\nposition = [{i}.5, 0.0]\n");
    }
    for i in 0..n {
        let body1 = if i == 0 { "ground".to_string() } else { format!("r{}", i - 1) };
        text += &format!(
            "[[joints]]\nname = \"j{i}\"\ntype = \"revolute\"\nbody1 = \"{body1}\"\nbody2 = \"r{i}\"\npoint = [{i}.0, 0.0]\n"
        );
    }
    text + "[[outputs]]\nname = \"x\"\nquantity = \"x\"\nbody = \"r0\"\n"
}

/// The initial state is made consistent per group of joints sharing bodies: 5,000
/// independent sliders start (one dense 5,000-row projection took minutes); a chain beyond the
/// dense limit starts too (solved sparse), and one with a redundant joint there, or closed
/// straight (singular), is refused at its first joint (redundant rows are found in dense
/// groups only).
#[test]
fn independent_joints_are_projected_per_group() {
    let text = sliders(5000);
    let model = Model::parse(&text, "sliders.toml").unwrap();
    let params = model.default_parameters();
    let settings = SolverSettings::from_model(&model, &params).unwrap();
    let mut sim = Simulation::new(&model, &params, settings, 0.0).unwrap();
    assert_eq!((sim.system().coordinates(), sim.system().constraints()), (10_000, 5000));
    sim.step_to(0.01).unwrap();
    // A chain: every revolute joint joins the group of the one before (2 rows each); a
    // chain at the limit starts.
    let n = MAX_CONSTRAINT_GROUP_ROWS / 2;
    let model = Model::parse(&chain(n), "chain.toml").unwrap();
    Simulation::new(&model, &model.default_parameters(), settings, 0.0).unwrap();
    let model = Model::parse(&chain(n + 2), "chain.toml").unwrap();
    let mut sim = Simulation::new(&model, &model.default_parameters(), settings, 0.0).unwrap();
    sim.step_to(0.01).unwrap();
    let hinge = "[[joints]]\nname = \"twice\"\ntype = \"revolute\"\nbody2 = \"r0\"\npoint = [0.0, 0.0]\n";
    let text = chain(n + 2).replacen("[[outputs]]", &format!("{hinge}[[outputs]]"), 1);
    let line = text.lines().position(|l| l == "name = \"j0\"").unwrap() + 1;
    refused_everywhere(
        &text,
        line,
        &format!("redundant rows are found in groups of up to {MAX_CONSTRAINT_GROUP_ROWS} rows"),
    );
    // Pinned to the ground at its far end too, the straight chain is singular (its rows
    // lose rank there: the sparse solve gave finite values and the run failed at t = 0 with
    // a Newton message naming no joint, a probe).
    let end = format!(
        "[[joints]]\nname = \"end\"\ntype = \"revolute\"\nbody2 = \"r{}\"\npoint = [{}.0, 0.0]\n",
        n + 1,
        n + 2
    );
    let text = chain(n + 2).replacen("[[outputs]]", &format!("{end}[[outputs]]"), 1);
    refused_everywhere(&text, line, "redundant or singular");
}

/// An integer parameter is an FMI Integer (xs:int, 32 bits): a start, min or max beyond it
/// made an FMU FMPy's validation refused (a probe's `value = 1e300` was written as
/// 9223372036854775807, `3e9` as 3000000000); each is a located error, and so is a value set
/// beyond it.
#[test]
fn integer_parameters_beyond_32_bits_or_not_whole_are_located_errors() {
    let base = mass_spring();
    const BEYOND: &str = "outside the 32-bit range of an FMI Integer";
    // A fractional value or bound: min = 1.5 was written to modelDescription.xml as min="1",
    // and the FMU then refused n = 1 as below 1.5 (a probe).
    const FRACTIONAL: &str = "is not a whole number";
    for (decl, message) in [
        ("n = { value = 1e300, type = \"integer\" }", BEYOND),
        ("n = { value = 3e9, type = \"integer\" }", BEYOND),
        ("n = { value = 1, type = \"integer\", min = -3e9 }", BEYOND),
        ("n = { value = 1, type = \"integer\", max = 2147483648 }", BEYOND),
        ("n = { value = 4, type = \"integer\", min = 1.5 }", FRACTIONAL),
        ("n = { value = 4, type = \"integer\", max = 9.5 }", FRACTIONAL),
        ("n = { value = 4.5, type = \"integer\" }", FRACTIONAL),
    ] {
        let text = base.replacen("[parameters]\n", &format!("[parameters]\n{decl}\n"), 1);
        let line = text.lines().position(|l| l.starts_with("n = ")).unwrap() + 1;
        refused_everywhere(&text, line, message);
    }
    let text = base.replacen("[parameters]\n", "[parameters]\nn = { value = 2147483647, type = \"integer\" }\n", 1);
    let model = Model::parse(&text, "n.toml").unwrap();
    let n = model.parameter_index("n").unwrap();
    assert!(model.check_parameter(n, 2147483647.0).is_ok());
    assert!(model.check_parameter(n, 2147483648.0).is_err());
}

/// Files and values the command line reads are bounded and checked before use (a probe's
/// `--input force=/dev/zero`, `plot /dev/zero`, `check /dev/zero` and `build --binary
/// /dev/zero` ran until the kernel killed them; `--binary /etc/passwd` was packaged; a
/// 'value,time' table was read the wrong way round; `modes` of a 250,000-coordinate beam
/// aborted asking for 500 GB): each is an error naming the file or the limit.
#[test]
fn oversized_files_and_misfit_values_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big");
    std::fs::write(&big, "12345678901").unwrap();
    let refused = flexfmu::limits::read_bounded(&big, 10, "table").unwrap_err();
    assert!(refused.contains("larger than") && refused.contains("big"), "{refused}");
    assert_eq!(flexfmu::limits::read_bounded(&big, 11, "table").unwrap().len(), 11);

    let model = common::sim::model_path("mass_spring");
    let cli = |args: &[&str]| {
        let o = Command::new(EXE).args(args).output().unwrap();
        (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let m = model.to_str().unwrap();
    let fmu = dir.path().join("x.fmu");
    let (code, err) = cli(&["build", m, "-o", fmu.to_str().unwrap(), "--binary", m]);
    assert!(code != 0 && err.contains("not a shared library"), "{code}: {err}");
    let swapped = dir.path().join("swapped.csv");
    std::fs::write(&swapped, "value,time\n0,1\n1,2\n").unwrap();
    let out = dir.path().join("out.csv");
    let input = format!("force={}", swapped.display());
    let (code, err) = cli(&["simulate", m, "-o", out.to_str().unwrap(), "--input", &input]);
    assert!(code != 0 && err.contains("'time,value' in that order"), "{code}: {err}");
    let (code, err) = cli(&["simulate", m, "-o", out.to_str().unwrap(), "--input", "force=nan"]);
    assert_eq!(code, 2, "a misfit value is a usage error: {err}");

    let beam = dir.path().join("beam.toml");
    std::fs::write(
        &beam,
        "[model]\nname = \"long\"\n[[beams]]\nname = \"beam\"\nstart = [0.0, 0.0]\nend = [10.0, 0.0]\nelements = 1100\n\
         section = { width = 0.1, height = 0.1 }\nmaterial = { E = 2e11, nu = 0.3, rho = 7850 }\n\
         [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"beam.start\"\n",
    )
    .unwrap();
    let (code, err) = cli(&["modes", beam.to_str().unwrap()]);
    assert!(code != 0 && err.contains("3303 coordinates") && err.contains("at most 3100"), "{code}: {err}");
}

/// What the user wrote is quoted in messages, but not without bound: a reference to a body
/// with a 1 MB name is refused with a message of about 2 KB (a probe's printed the megabyte),
/// its start and end kept; a `true` where a number belongs says what is expected (it said
/// "data did not match any variant of untagged enum Number"); an output file that cannot be
/// written is named.
#[test]
fn messages_quote_inputs_within_bounds_and_say_what_is_expected() {
    let base = mass_spring();
    let long = "x".repeat(1 << 20);
    let text = base.replacen("body = \"mass\"", &format!("body = \"{long}\""), 1);
    assert_ne!(text, base, "the model has a `body = \"mass\"` line");
    let (code, stderr, _) = run("check", &text);
    assert_eq!(code, 2);
    assert!(stderr.len() < 3000 && stderr.contains("bytes left out"), "{} bytes", stderr.len());
    let text = base.replacen("mass = \"m\"", "mass = true", 1);
    let (code, stderr, _) = run("check", &text);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("expected a number or an expression in quotes"), "{stderr}");
    let o = Command::new(EXE)
        .arg("simulate")
        .arg(common::sim::model_path("mass_spring"))
        .args(["-o", "/dev/full"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("cannot write /dev/full"), "{stderr}");
}

/// Two newcomer mistakes a probe made, answered with what to write: a parameter's unit written
/// into its value (`k = "200 N/m"`), and a joint whose body2 is the ground (so is body1 by
/// default).
#[test]
fn a_unit_in_a_value_and_a_joint_on_the_ground_alone_say_what_to_write() {
    let base = mass_spring();
    let text = base.replacen(
        "k = { value = 39.47841760435743, unit = \"N/m\", description = \"spring stiffness (4 pi^2)\" }",
        "k = \"200 N/m\"",
        1,
    );
    assert_ne!(text, base);
    let (code, stderr, _) = run("check", &text);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("units go apart: { value = 200, unit = \"N/m\" }"), "{stderr}");
    let text = base.replacen("body1 = \"ground\"\nbody2 = \"mass\"", "body2 = \"ground\"", 1);
    assert_ne!(text, base);
    let (code, stderr, _) = run("check", &text);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("body2 is the ground, and so is body1 (its default)"), "{stderr}");
}

/// A spatial rigid body's `axis` without `angle` turned nothing and was accepted in silence (a
/// probe took it for the body's axis direction): now a located error saying to give both.
#[test]
fn an_axis_without_an_angle_is_a_located_error() {
    let text = "[model]\nname = \"a\"\ndimension = 3\n[[rigid_bodies]]\nname = \"b\"\nmass = 1.0\n\
                inertia = [0.1, 0.2, 0.3]\nposition = [0.0, 0.0, 0.0]\naxis = [0.0, 0.0, 1.0]\n";
    let err = common::sim::parse_and_assemble(text, "a.toml").expect_err("axis without angle").to_string();
    assert!(err.starts_with("a.toml:9:") && err.contains("give both"), "{err}");
    let turned = text.replace("axis = [0.0, 0.0, 1.0]\n", "axis = [0.0, 0.0, 1.0]\nangle = 0.0\n");
    assert!(common::sim::parse_and_assemble(&turned, "a.toml").is_ok());
}

/// A body named as a beam's node ("arm.end", "arm.node[2]") took the node's place in every
/// `body = "arm.end"` of the model, silently: a probe's pendulum then reported a falling point
/// mass as the beam's tip. Node names are claimed like any other (2D as 3D), so the clash is a
/// located error whichever comes first.
#[test]
fn a_body_named_as_a_beam_node_is_refused() {
    for (model, position) in [("pendulum_corotational", "[5.0, 5.0]"), ("beam3d_cantilever", "[5.0, 5.0, 5.0]")] {
        let text = std::fs::read_to_string(common::sim::model_path(model)).unwrap();
        let beam = text.find("[[beams]]").unwrap();
        let name_at = beam + text[beam..].find("name = \"").unwrap() + 8;
        let beam_name = &text[name_at..name_at + text[name_at..].find('"').unwrap()];
        for node in ["end", "node[2]", "start"] {
            let mass =
                format!("[[point_masses]]\nname = \"{beam_name}.{node}\"\nmass = 1.0\nposition = {position}\n\n");
            // After the beam, and before it.
            for bad in [format!("{text}\n{mass}"), format!("{}{mass}{}", &text[..beam], &text[beam..])] {
                let err = common::sim::parse_and_assemble(&bad, "clash.toml").expect_err(&bad);
                println!("{model}: {err}");
                assert!(err.message.contains(&format!("name '{beam_name}.{node}' is already used on line")), "{err}");
            }
        }
    }
}

/// An input torque of 1.7e308 N m overflows the pendulum's accelerations, and so its reaction
/// output: reading that output is an error that says the accelerations overflowed (it said
/// "the Newton matrix is singular"), while the angle and angular velocity, which do not
/// depend on it, stay readable one by one (a probe's FMU refused every read). The whole set
/// of outputs is still an error, as the CLI needs it.
#[test]
fn an_overflowing_input_leaves_the_outputs_that_do_not_depend_on_it_readable() {
    let model = common::sim::example("pendulum");
    let mut sim = common::sim::simulation_with(&model, &[], |_| {});
    sim.step_to(0.01).unwrap();
    let index = |name: &str| sim.outputs().iter().position(|o| o.name == name).unwrap();
    let (phi, fy) = (index("phi"), index("Fy"));
    let angle = sim.output_value(phi).unwrap();
    sim.set_input(0, 1.7e308).unwrap();
    assert_eq!(sim.output_value(phi), Ok(angle));
    let err = sim.output_value(fy).unwrap_err();
    assert!(err.contains("an acceleration evaluated to NaN or infinity"), "{err}");
    assert!(sim.output_values().is_err());
    sim.set_input(0, 0.0).unwrap();
    assert!(sim.output_value(fy).unwrap().is_finite());
}
