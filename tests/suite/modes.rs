//! `flexfmu modes` / `Simulation::natural_frequencies` against closed-form frequencies.

use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};
use std::f64::consts::PI;

fn frequencies(text: &str) -> Vec<f64> {
    let model = Model::parse(text, "test.toml").unwrap();
    let params = model.default_parameters();
    let sim = Simulation::new(&model, &params, SolverSettings::default(), 0.0).unwrap();
    sim.natural_frequencies().unwrap()
}

#[test]
fn mass_spring_has_period_one_second() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/models/mass_spring.toml")).unwrap();
    let f = frequencies(&text);
    assert_eq!(f.len(), 1);
    assert!((f[0] - 1.0).abs() < 1e-12, "{f:?}");
}

/// A uniform rod (2 kg, length l) on a pin at its end under gravity g, hanging down
/// (`up` = -1) or standing upright (`up` = 1).
fn rod_on_pin(g: f64, l: f64, up: f64) -> String {
    format!(
        r#"
[model]
name = "rod"
gravity = [0.0, -{g}]
[[rigid_bodies]]
name = "rod"
mass = 2.0
inertia = "2.0*{l}^2/12"
position = [0.0, "{up}*{l}/2"]
angle = "{up}*pi/2"
[[joints]]
name = "pin"
type = "revolute"
body2 = "rod"
point = [0.0, 0.0]
"#
    )
}

#[test]
fn hanging_rod_pendulum_small_oscillations() {
    // Uniform rod pinned at its end, hanging down: omega^2 = 3 g / (2 L). The restoring
    // stiffness comes entirely from the constraint term (Phi_q^T lambda)_q with the
    // multiplier of the static state, so this checks its sign and size.
    let (g, l): (f64, f64) = (9.81, 0.8);
    let f = frequencies(&rod_on_pin(g, l, -1.0));
    let exact = (1.5 * g / l).sqrt() / (2.0 * PI);
    assert_eq!(f.len(), 1);
    assert!((f[0] / exact - 1.0).abs() < 1e-10, "{} vs {exact}", f[0]);
}

#[test]
fn two_mass_chain() {
    // ground -k- m -k- m along x: omega^2 = (k/m) (3 -+ sqrt 5) / 2.
    let (k, m): (f64, f64) = (50.0, 2.0);
    let text = format!(
        r#"
[model]
name = "chain"
[[point_masses]]
name = "m1"
mass = {m}
position = [1.0, 0.0]
[[point_masses]]
name = "m2"
mass = {m}
position = [2.0, 0.0]
[[joints]]
name = "s1"
type = "prismatic"
body2 = "m1"
point = [0.0, 0.0]
axis = [1.0, 0.0]
[[joints]]
name = "s2"
type = "prismatic"
body2 = "m2"
point = [0.0, 0.0]
axis = [1.0, 0.0]
[[springs]]
name = "k1"
body1 = "ground"
point1 = [0.0, 0.0]
body2 = "m1"
stiffness = {k}
[[springs]]
name = "k2"
body1 = "m1"
body2 = "m2"
stiffness = {k}
"#
    );
    let f = frequencies(&text);
    let w = |s: f64| ((k / m) * (3.0 + s * 5f64.sqrt()) / 2.0).sqrt() / (2.0 * PI);
    assert_eq!(f.len(), 2);
    assert!((f[0] / w(-1.0) - 1.0).abs() < 1e-10, "{f:?}");
    assert!((f[1] / w(1.0) - 1.0).abs() < 1e-10, "{f:?}");
}

/// `flexfmu modes MODEL [--count N]`: (exit success, stderr, frequencies).
fn modes_command(text: &str, count: usize) -> (bool, String, Vec<f64>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.toml");
    std::fs::write(&path, text).unwrap();
    let o = std::process::Command::new(crate::common::cli::EXE)
        .arg("modes")
        .arg(&path)
        .args(["--count", &count.to_string()])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let f = out.lines().skip(1).map(|l| l.split(',').nth(1).unwrap().parse().unwrap()).collect();
    (o.status.success(), String::from_utf8_lossy(&o.stderr).into_owned(), f)
}

/// A probe's hanging flexible pendulum: a stiff beam (EA = 1e8, EI = 1e5, 1 kg/m, L = 1 m,
/// 4 elements) on a pin under gravity, drawn hanging and unstressed. Its pendulum stiffness is
/// the geometric stiffness of the axial force gravity puts into it, absent from the drawn
/// configuration: `modes` printed 0 Hz there (the rigid rod, whose stiffness comes from the
/// pin's multipliers, gave 0.6105 Hz). Linearised about the static equilibrium it is the
/// compound pendulum omega^2 = (m g L / 2) / J with J = m L^2 / 3 + m r^2 L, r^2 = EI / EA the
/// section's rotary inertia per mass (the beam's rho I): 0.60960679 Hz, 1.5e-3 below the rigid
/// rod's sqrt(3 g / 2 L) / 2 pi = 0.61052052 Hz (the probe's dynamic run: a period 0.15 % longer
/// than the rigid rod's). What the formula leaves out: the stretch under the weight (m g L /
/// (2 EA) = 5e-8) and the coupling of the pendulum with the first bending mode ((0.61 / 762)^2
/// = 6e-7); measured 4e-8 off, so the tolerance 2e-6 is 700 times finer than the rotary
/// inertia's correction.
#[test]
fn a_hanging_flexible_pendulum_has_its_pendulum_frequency() {
    let text = r#"[model]
name = "hang_beam"
gravity = [0.0, -9.81]
[[beams]]
name = "link"
start = [0.0, 0.0]
end = [0.0, -1.0]
elements = 4
section = { EA = 1e8, GA = 1e8, EI = 1e5, mass_per_length = 1.0 }
[[joints]]
name = "pin"
type = "revolute"
body2 = "link.start"
point = [0.0, 0.0]
"#;
    let (ok, err, f) = modes_command(text, 3);
    assert!(ok, "{err}");
    let (g, l, r2): (f64, f64, f64) = (9.81, 1.0, 1e5 / 1e8);
    let want = ((g / 2.0) / (l / 3.0 + r2)).sqrt() / (2.0 * PI);
    let rigid = (1.5 * g / l).sqrt() / (2.0 * PI);
    println!("first frequency {} Hz against {want} ({:+.1e}); rigid rod {rigid}", f[0], f[0] / want - 1.0);
    assert!((f[0] / want - 1.0).abs() < 2e-6, "{f:?} against {want}");
    assert!((rigid / want - 1.0) > 1e-3);
    assert!(!err.contains("no static equilibrium"), "{err}");
}

/// A free-free beam's three rigid-body modes print as 0 (they printed as 2.47e-4 and 3.51e-4
/// Hz, round-off, in a probe): frequencies within n ulps of the largest omega^2 are not resolved by the
/// eigensolver (src/analysis/modes.rs, roundoff_frequency_squared). The first elastic one is
/// still the free-free beam's (lambda = 4.73004: 35.608 Hz for EI = 100, m = 1, L = 1; 20
/// elements, 2e-6 above it as the probe measured). No gravity, no loads: the drawn
/// configuration is a (neutral) equilibrium, so no note on stderr although the static solve
/// finds the tangent singular.
#[test]
fn rigid_body_modes_print_as_zero() {
    let text = r#"[model]
name = "freefree"
[[beams]]
name = "beam"
start = [0.0, 0.0]
end = [1.0, 0.0]
elements = 20
formulation = "euler_bernoulli"
section = { EA = 1e7, GA = 1e9, EI = 100.0, mass_per_length = 1.0, rotary_inertia = 1e-12 }
"#;
    let (ok, err, f) = modes_command(text, 4);
    assert!(ok, "{err}");
    println!("{f:?}\n{err}");
    assert_eq!(&f[..3], [0.0; 3]);
    let want = 4.730040744862704f64.powi(2) / (2.0 * PI) * 10.0;
    assert!((f[3] / want - 1.0).abs() < 1e-5, "{} against {want}", f[3]);
    assert!(!err.contains("no static equilibrium"), "{err}");
}

/// A model that starts moving is linearised at rest, without the stiffening of its motion, and
/// stderr says so (a probe's blade on a hub driven at 35 rad/s printed its 5.59 Hz at rest
/// without a word); the same model at rest (the drive holding the hub) has no note. At a later
/// `--time` the drives' rates there count (models/spin_up.toml: at rest at t = 0, 3.8 rad/s at
/// t = 12).
#[test]
fn a_model_that_starts_moving_is_told_its_modes_are_at_rest() {
    let text = |speed: f64| {
        format!(
            "[model]\nname = \"blade\"\n\
             [[rigid_bodies]]\nname = \"hub\"\nmass = 1.0\ninertia = 0.01\nposition = [0.0, 0.0]\n\
             [[joints]]\nname = \"motor\"\ntype = \"revolute\"\nbody2 = \"hub\"\npoint = [0.0, 0.0]\ndrive = \"{speed}*t\"\n\
             [[beams]]\nname = \"b\"\nstart = [0.0, 0.0]\nend = [1.0, 0.0]\nelements = 8\n\
             formulation = \"euler_bernoulli\"\nsection = {{ EA = 1e6, EI = 100.0, mass_per_length = 1.0 }}\n\
             [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody1 = \"hub\"\nbody2 = \"b.start\"\n"
        )
    };
    let (ok, err, moving) = modes_command(&text(35.0), 1);
    assert!(ok, "{err}");
    assert!(err.contains("the model moves at t = 0 (velocities up to 35)"), "{err}");
    let (ok, err, at_rest) = modes_command(&text(0.0), 1);
    assert!(ok && err.is_empty(), "{err}");
    // A rate of round-off is no motion (a probe's 1e-14 rad/s was told).
    let (ok, err, _) = modes_command(&text(1e-14), 1);
    assert!(ok && err.is_empty(), "{err}");
    // Starting at rest but accelerating: its inertia loads the model (a probe's t^2/2 drive).
    let (ok, err, _) = modes_command(&text(0.0).replace("drive = \"0*t\"", "drive = \"0.5*t^2\""), 1);
    assert!(ok && err.contains("note: a drive accelerates at t = 0 (up to 1)"), "{err}");
    // The clamped blade's first bending frequency, 1.875104^2 sqrt(EI / m) / (2 pi L^2).
    let want = 1.875104068711961f64.powi(2) * 10.0 / (2.0 * PI);
    assert!((at_rest[0] / want - 1.0).abs() < 1e-3, "{at_rest:?} against {want}");
    assert_eq!(moving, at_rest);
    let spin_up = crate::common::sim::model_path("spin_up");
    let note = |extra: &[&str]| {
        let o = std::process::Command::new(crate::common::cli::EXE)
            .arg("modes")
            .arg(&spin_up)
            .args(["--count", "1"])
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success());
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    assert!(!note(&[]).contains("moves"), "{}", note(&[]));
    assert!(
        note(&["--time", "12"]).contains("the model moves at t = 12 (velocities up to 3.8"),
        "{}",
        note(&["--time", "12"])
    );
}

/// An unstable direction prints as a negative number, minus its rate of divergence over 2 pi,
/// not as 0 like a rigid-body mode: the uniform rod of `hanging_rod_pendulum_small_oscillations`
/// standing upright on its pin, omega^2 = -3 g / (2 L) (a probe's inverted pendulum printed 0).
#[test]
fn an_inverted_pendulum_has_a_negative_frequency() {
    let (g, l): (f64, f64) = (9.81, 0.8);
    let f = frequencies(&rod_on_pin(g, l, 1.0));
    let rate = (1.5 * g / l).sqrt() / (2.0 * PI);
    assert_eq!(f.len(), 1);
    assert!((f[0] / -rate - 1.0).abs() < 1e-10, "{} vs {}", f[0], -rate);
}

/// `modes` takes no time steps, so it does not warn that the step leaves a beam's vibration
/// unresolved (`simulate` does): a stocky steel beam at the default 1 ms step, whose first
/// bending period is 2 ms.
#[test]
fn modes_does_not_warn_about_the_time_step() {
    let text = "[model]\nname = \"b\"\ngravity = [0.0, 0.0]\n[[beams]]\nname = \"b\"\nstart = [0.0, 0.0]\nend = [1.0, 0.0]\n\
                elements = 8\nsection = { width = 0.2, height = 0.2 }\nmaterial = { E = 2.1e11, nu = 0.3, rho = 7850.0 }\n\
                [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"b.start\"\npoint = [0.0, 0.0]\n";
    let (ok, stderr, f) = modes_command(text, 3);
    assert!(ok && f.len() == 3, "{stderr}");
    assert!(!stderr.contains("steps per period"), "{stderr}");
    // The same model's run warns (the warning is the step's, not the model's).
    let model = flexfmu::model::Model::parse(text, "b.toml").unwrap();
    let sim = Simulation::new(&model, &[], SolverSettings::default(), 0.0).unwrap();
    let warning = sim.warnings().iter().map(|w| w.to_string()).find(|w| w.contains("steps per period")).unwrap();
    // Below 10 steps per period with a decimal (a probe's short steel beam read "takes 0 steps").
    println!("{warning}");
    assert!(warning.contains("takes 2.1 steps per period") && warning.contains("period about 2.13e-3 s"), "{warning}");
}

/// `modes` on every example model returns within a bounded time (exit 0 or a clear error): the
/// stability check of the equilibrium used nalgebra's `complex_eigenvalues`, which never
/// returned on the discrete plate's reduced problem (`flexfmu modes models/plate_discrete.toml`
/// hung; now faer's bounded eigenvalue iteration, 0.06 s). Each run gets 60 s.
#[test]
fn modes_of_every_example_return() {
    for path in crate::common::sim::example_paths() {
        let mut child = std::process::Command::new(crate::common::cli::EXE)
            .arg("modes")
            .arg(&path)
            .args(["--count", "3"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let start = std::time::Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if start.elapsed().as_secs() > 60 {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let status = status.unwrap_or_else(|| panic!("modes {} did not return in 60 s", path.display()));
        // Exit 0, or 1 with a message (a model without degrees of freedom); never a crash.
        assert!(matches!(status.code(), Some(0 | 1)), "modes {}: {status}", path.display());
    }
}

/// Two free bodies (1 and 2 kg) joined by a spring (k = 100 N/m) drawn stretched by 0.1 m
/// (a probe's model): the static equilibrium is the spring at its free length, a neutral one
/// (the pair floats freely), and linearised there the only elastic mode is the relative
/// oscillation sqrt(k / mu) / 2 pi, mu = m1 m2 / (m1 + m2). The static solve ended on its
/// singular tangent and `modes` linearised about the stretched drawing instead, printing two
/// spurious 0.6497 Hz modes (the pretension's transverse stiffness T / l) and a note that
/// the model was a mechanism.
#[test]
fn a_free_pair_drawn_stretched_is_linearised_about_its_relaxed_spring() {
    let text = r#"[model]
name = "free_pair"
dimension = 3
gravity = [0.0, 0.0, 0.0]
[[rigid_bodies]]
name = "a"
mass = 1.0
inertia = [0.01, 0.01, 0.01]
position = [0.0, 0.0, 0.0]
[[rigid_bodies]]
name = "b"
mass = 2.0
inertia = [0.02, 0.02, 0.02]
position = [0.3, 0.6, 0.6]
[[springs]]
name = "s"
body1 = "a"
body2 = "b"
stiffness = 100.0
free_length = 0.8
"#;
    let (ok, err, f) = modes_command(text, 12);
    assert!(ok, "{err}");
    let want = (100.0f64 * (1.0 + 0.5)).sqrt() / (2.0 * PI);
    println!("{f:?}\n{err}");
    assert_eq!(&f[..11], [0.0; 11]);
    assert!((f[11] / want - 1.0).abs() < 1e-9, "{} against {want}", f[11]);
    assert!(!err.contains("no static equilibrium"), "{err}");
}

/// Fine meshes: the steel cantilever of models/cantilever_corotational.toml (10 m, 0.25 x 0.5 m,
/// Timoshenko, clamped) with 50, 100 and 400 elements. Its first three frequencies converge
/// from above as the mesh is refined (consistent mass), the 400-element ones within 2e-5 of
/// the 100-element ones (measured 4e-8, 1.2e-6, 8.8e-6), and the first is Euler-Bernoulli's
/// 1.875^2/(2 pi) sqrt(EI/(rho A L^4)) = 4.1776 Hz lowered by shear and rotary inertia (by
/// 0.20 %). Before, the null-space basis (eigenvectors of J^T J) mixed every coordinate at
/// round-off, which times the axial stiffness put the first three omega^2 about 1e3 1/s^2
/// off: 100 elements gave a first frequency 6e-4 high, 400 elements 14 % low.
#[test]
fn a_fine_beam_mesh_keeps_its_lowest_frequencies() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/models/cantilever_corotational.toml")).unwrap();
    let run = |elements: usize| {
        let model = Model::parse(&text, "cantilever.toml").unwrap();
        let mut params = model.default_parameters();
        params[model.parameter_index("elements").unwrap()] = elements as f64;
        let sim = Simulation::new(&model, &params, SolverSettings::default(), 0.0).unwrap();
        sim.natural_frequencies().unwrap()[..3].to_vec()
    };
    let (f50, f100, f400) = (run(50), run(100), run(400));
    eprintln!("50: {f50:?}\n100: {f100:?}\n400: {f400:?}");
    for k in 0..3 {
        assert!(f50[k] >= f100[k] && f100[k] >= f400[k], "mode {k}: not converging from above");
        assert!((f100[k] - f400[k]).abs() < 2e-5 * f400[k], "mode {k}: {} vs {}", f100[k], f400[k]);
    }
    let (ei, rho_a, l) = (210e9 * 0.25 * 0.5f64.powi(3) / 12.0, 7850.0 * 0.125, 10.0f64);
    let euler_bernoulli = 1.875104f64.powi(2) / (2.0 * PI) * (ei / (rho_a * l.powi(4))).sqrt();
    let lowered = 1.0 - f400[0] / euler_bernoulli;
    eprintln!("Euler-Bernoulli {euler_bernoulli:.5} Hz, lowered by {:.3} %", 100.0 * lowered);
    assert!(lowered > 0.0 && lowered < 0.006, "{lowered}");
}

/// A narrow cantilever strip (EIz = GJ = 1, EIy = 1e4, L = 1, 40 elements) under a tip load
/// P near its lateral-torsional buckling load (Michell/Prandtl: P_cr = 4.0126 sqrt(EIz GJ)/L^2):
/// its lowest frequency, a few tenths of a hertz against a largest of 2.5e5 Hz, prints with its
/// sign: positive at 0.95 and 0.985 P_cr, falling, and negative (divergence) at 1.01 P_cr. With
/// the fixed round-off cut at 1e-6 of the largest frequency it printed 0 from 0.95 P_cr on (a
/// probe); the cut is now n ulps of the largest omega^2.
#[test]
fn a_low_mode_of_a_fine_mesh_near_buckling_keeps_its_sign() {
    let strip = |p: f64| {
        format!(
            "[model]\nname = \"ltb\"\ndimension = 3\n[parameters]\nP = {p}\n[solver]\nstart_time = 1.0\nstop_time = 2.0\n\
             [[beams]]\nname = \"b\"\nstart = [0.0, 0.0, 0.0]\nend = [1.0, 0.0, 0.0]\nelements = 40\n\
             formulation = \"euler_bernoulli\"\nsection = {{ EA = 1e5, EIy = 1e4, EIz = 1.0, GJ = 1.0, \
             mass_per_length = 1.0, rotary_inertia = [0.01, 0.005, 0.005] }}\n\
             [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"b.start\"\npoint = [0.0, 0.0, 0.0]\n\
             [[loads]]\ntype = \"force\"\nbody = \"b.end\"\ndirection = [0.0, 0.0, -1.0]\nvalue = \"P\"\n"
        )
    };
    let p_cr = 4.0126;
    let lowest = |ratio: f64| {
        let (ok, err, f) = modes_command(&strip(ratio * p_cr), 2);
        assert!(ok, "{err}");
        f[0]
    };
    let (f95, f985, f101) = (lowest(0.95), lowest(0.985), lowest(1.01));
    println!("lowest frequency at 0.95, 0.985, 1.01 P_cr: {f95:.4e}, {f985:.4e}, {f101:.4e} Hz");
    assert!(f95 > f985 && f985 > 0.0, "{f95}, {f985}");
    assert!(f101 < 0.0, "{f101}");
}

/// `modes --time T`: about the static equilibrium at T, followed from the start by load
/// increments as `statics` does, so a load ramped in time (P t) is on when the modes are
/// taken. A clamped-free column (EI = L = 1, 20 elements) at 0.9 P_cr, P_cr = pi^2/4: its
/// lowest frequency at t = 1 equals the one with the load constant from the start (to 1e-9),
/// and (f / f_unloaded)^2 = 0.108, close to 1 - P/P_cr = 0.1 (exact for a sine mode). A probe
/// made the start time a parameter to get this.
#[test]
fn modes_at_a_later_time_see_the_ramped_load() {
    let column = |load: &str| {
        format!(
            "[model]\nname = \"column\"\n[[beams]]\nname = \"b\"\nstart = [0.0, 0.0]\nend = [1.0, 0.0]\nelements = 20\n\
             formulation = \"euler_bernoulli\"\nsection = {{ EA = 1.0e6, EI = 1.0, mass_per_length = 1.0, \
             rotary_inertia = 1e-10 }}\n[[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"b.start\"\n\
             [[loads]]\ntype = \"force\"\nbody = \"b.end\"\ndirection = [-1.0, 0.0]\nvalue = \"{load}\"\n"
        )
    };
    let lowest = |text: &str, extra: &[&str]| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("column.toml");
        std::fs::write(&path, text).unwrap();
        let o =
            std::process::Command::new(crate::common::cli::EXE).arg("modes").arg(&path).args(extra).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        out.lines().nth(1).unwrap().split(',').nth(1).unwrap().parse::<f64>().unwrap()
    };
    let p = 0.9 * PI * PI / 4.0;
    let ramped = lowest(&column(&format!("{p}*t")), &["--time", "1"]);
    let constant = lowest(&column(&format!("{p}")), &[]);
    let unloaded = lowest(&column(&format!("{p}*t")), &[]);
    let ratio = (ramped / unloaded).powi(2);
    println!("lowest at t = 1: {ramped} Hz, constant load {constant} Hz, unloaded {unloaded} Hz; ratio^2 {ratio:.4}");
    assert!((ramped - constant).abs() < 1e-9 * constant, "{ramped} vs {constant}");
    assert!((ratio - 0.1).abs() < 0.015, "{ratio}");
}

/// Mode shapes over the outputs (`modes --shapes`, `Simulation::output_mode_shapes`):
/// - two masses m1 = 1, m2 = 2 kg on rails, ground -k1 = 100- m1 -k2 = 50- m2: omega^2 solves
///   omega^4 - 175 omega^2 + 2500 = 0, and (K - omega^2 M) x = 0 gives x1 / x2 = k2 / (k1 + k2 -
///   omega^2 m1): 0.372281 in the first mode, -5.372281 in the second (scaled to x1 = 1);
///   a velocity output has no shape;
/// - a clamped Euler-Bernoulli cantilever (20 elements), first two bending modes at x = L/2
///   against the tip: the continuum's phi(x) = cosh bx - cos bx - s (sinh bx - sin bx),
///   b L = 1.8751041, 4.6940911, s = (cosh bL + cos bL) / (sinh bL + sin bL);
/// - the CSV `--shapes` writes, and a name that is not .csv refused.
#[test]
fn mode_shapes_are_those_of_the_eigenproblem_and_of_beam_theory() {
    let text = "[model]\nname = \"two\"\n[[point_masses]]\nname = \"m1\"\nmass = 1.0\nposition = [1.0, 0.0]\n\
                [[point_masses]]\nname = \"m2\"\nmass = 2.0\nposition = [2.0, 0.0]\n\
                [[joints]]\nname = \"r1\"\ntype = \"prismatic\"\nbody2 = \"m1\"\naxis = [1.0, 0.0]\n\
                [[joints]]\nname = \"r2\"\ntype = \"prismatic\"\nbody2 = \"m2\"\naxis = [1.0, 0.0]\n\
                [[springs]]\nname = \"k1\"\nbody1 = \"ground\"\npoint1 = [0.0, 0.0]\nbody2 = \"m1\"\nstiffness = 100.0\n\
                [[springs]]\nname = \"k2\"\nbody1 = \"m1\"\nbody2 = \"m2\"\nstiffness = 50.0\n\
                [[outputs]]\nname = \"x1\"\nquantity = \"x\"\nbody = \"m1\"\n\
                [[outputs]]\nname = \"v1\"\nquantity = \"vx\"\nbody = \"m1\"\n\
                [[outputs]]\nname = \"x2\"\nquantity = \"x\"\nbody = \"m2\"\n";
    let model = Model::parse(text, "two.toml").unwrap();
    let mut sim = Simulation::new(&model, &[], SolverSettings::from_model(&model, &[]).unwrap(), 0.0).unwrap();
    sim.modes_at_equilibrium().unwrap();
    assert_eq!(sim.mode_shape_outputs(), ["x1", "x2"]);
    let shapes = sim.output_mode_shapes(2).unwrap();
    for (k, sign) in [(0, -1.0), (1, 1.0)] {
        let w2 = 87.5 + sign * (87.5f64 * 87.5 - 2500.0).sqrt();
        let ratio = 50.0 / (150.0 - w2);
        let expected = if ratio.abs() <= 1.0 { [ratio, 1.0] } else { [1.0, 1.0 / ratio] };
        let (f, s) = (shapes[k].frequency, &shapes[k].shape);
        println!("mode {}: {f:.9} Hz ({:.9}), shape {s:?} ({expected:?})", k + 1, w2.sqrt() / (2.0 * PI));
        assert!((f - w2.sqrt() / (2.0 * PI)).abs() < 1e-9 * f, "{f}");
        assert!((s[0] - expected[0]).abs() < 1e-8 && (s[1] - expected[1]).abs() < 1e-8, "{s:?} vs {expected:?}");
    }
    // The cantilever: tip (x = L) and middle (x = L/2) deflections.
    let beam = "[model]\nname = \"cantilever\"\n[[beams]]\nname = \"b\"\nstart = [0.0, 0.0]\nend = [1.0, 0.0]\n\
                elements = 20\nsection = { EA = 1e9, EI = 100.0, mass_per_length = 1.0 }\n\
                formulation = \"euler_bernoulli\"\n[[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"b.start\"\n\
                [[outputs]]\nname = \"tip\"\nquantity = \"y\"\nbody = \"b.end\"\n\
                [[outputs]]\nname = \"middle\"\nquantity = \"y\"\nbody = \"b.node[10]\"\n";
    let model = Model::parse(beam, "cantilever.toml").unwrap();
    let mut sim = Simulation::new(&model, &[], SolverSettings::from_model(&model, &[]).unwrap(), 0.0).unwrap();
    sim.modes_at_equilibrium().unwrap();
    let shapes = sim.output_mode_shapes(2).unwrap();
    for (k, bl) in [(0, 1.8751040687), (1, 4.6940911330)] {
        let s = (f64::cosh(bl) + f64::cos(bl)) / (f64::sinh(bl) + f64::sin(bl));
        let phi = |x: f64| f64::cosh(bl * x) - f64::cos(bl * x) - s * (f64::sinh(bl * x) - f64::sin(bl * x));
        let (tip, middle) = (shapes[k].shape[0], shapes[k].shape[1]);
        println!("bending mode {}: middle / tip {:.6} (theory {:.6})", k + 1, middle / tip, phi(0.5) / phi(1.0));
        assert!((middle / tip - phi(0.5) / phi(1.0)).abs() < 1e-4, "mode {}: {middle} / {tip}", k + 1);
    }
    // The command: the CSV, and a name that is not .csv.
    let dir = tempfile::tempdir().unwrap();
    let (path, csv) = (dir.path().join("two.toml"), dir.path().join("shapes.csv"));
    std::fs::write(&path, text).unwrap();
    let run = |out: &std::path::Path| {
        std::process::Command::new(crate::common::cli::EXE)
            .arg("modes")
            .arg(&path)
            .arg("--shapes")
            .arg(out)
            .output()
            .unwrap()
    };
    let o = run(&csv);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines[0], "mode,frequency_hz,x1,x2");
    assert!(
        lines.len() == 3 && lines[1].starts_with("1,6.30481955") && lines[2].contains(",1.00000000000000000e0,"),
        "{table}"
    );
    let o = run(&dir.path().join("shapes.txt"));
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("the shapes are written as a .csv file"));
}

/// A clamped spatial shaft (40 x 20 mm steel bar, 1 m): its shapes over the tip's roll and
/// position. The bending modes move the tip sideways and do not roll it; the first torsion
/// mode (Blevins: f = (1 / 4 L) sqrt(G J / (rho I_p)), here about 594 Hz) rolls it and moves
/// its position by nothing but round-off, which is written as 0 (a probe got the round-off
/// scaled to a unit sideways motion, and no column for the roll: yaw, pitch and roll were not
/// taken as configuration outputs).
#[test]
fn a_torsion_mode_rolls_the_tip_and_moves_it_nowhere() {
    let text = "[model]\nname = \"shaft\"\ndimension = 3\n\
                [[beams]]\nname = \"s\"\nstart = [0.0, 0.0, 0.0]\nend = [1.0, 0.0, 0.0]\nelements = 12\n\
                section = { width = 0.04, height = 0.02 }\nmaterial = { E = 2.1e11, nu = 0.3, rho = 7850.0 }\n\
                [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"s.start\"\npoint = [0.0, 0.0, 0.0]\n\
                [[outputs]]\nname = \"roll\"\nquantity = \"roll\"\nbody = \"s.end\"\n\
                [[outputs]]\nname = \"y\"\nquantity = \"y\"\nbody = \"s.end\"\n\
                [[outputs]]\nname = \"z\"\nquantity = \"z\"\nbody = \"s.end\"\n";
    let model = Model::parse(text, "shaft.toml").unwrap();
    let mut sim = Simulation::new(&model, &[], SolverSettings::from_model(&model, &[]).unwrap(), 0.0).unwrap();
    sim.modes_at_equilibrium().unwrap();
    assert_eq!(sim.mode_shape_outputs(), ["roll", "y", "z"]);
    let shapes = sim.output_mode_shapes(12).unwrap();
    let torsion: Vec<_> = shapes.iter().filter(|m| m.shape[0] != 0.0).collect();
    assert!(!torsion.is_empty(), "{shapes:?}");
    let first = torsion[0];
    println!("first torsion mode: {:.2} Hz, shape {:?}", first.frequency, first.shape);
    assert!((first.frequency - 594.0).abs() < 10.0, "{}", first.frequency);
    assert_eq!(first.shape, [1.0, 0.0, 0.0], "rolls, and moves the tip nowhere");
    for m in shapes.iter().filter(|m| m.frequency < first.frequency) {
        assert!(m.shape[0] == 0.0 && (m.shape[1] == 1.0 || m.shape[2] == 1.0), "bending: {m:?}");
    }
}

/// Probe 39b's slender shear-deformable ANCF strip (1 m x 10 mm x 1 mm steel, clamped): its
/// cross-section modes lie 1e17 times above the fundamental's omega^2, beyond the n ulps the
/// direct eigenproblem resolves, and the fundamental printed 0.15 % off at 40 elements and 0 Hz
/// at 80. The lowest frequencies come from the inverse problem (K_r positive definite):
/// Euler-Bernoulli f1 = 1.8751^2/(2 pi) sqrt(EI/(rho A))/L^2 = 0.835517 Hz and f2 = 5.23609
/// Hz (shear and rotary inertia negligible at L/h = 1000) at every mesh; and a resultant
/// section with GA = 1e12 against EI = 100 gives its first two modes (5.5959 and 35.069 Hz for
/// the corotational beam), not 0 Hz.
#[test]
fn a_slender_ancf_strip_keeps_its_fundamental_on_every_mesh() {
    let strip = |n: usize| {
        format!(
            r#"
[model]
name = "strip"
[[beams]]
name = "b"
start = [0.0, 0.0]
end = [1.0, 0.0]
elements = {n}
formulation = "ancf"
section = {{ width = 0.01, height = 0.001 }}
material = {{ E = 210e9, nu = 0.3, rho = 7850.0 }}
[[joints]]
name = "clamp"
type = "fixed"
body2 = "b.start"
point = [0.0, 0.0]
"#
        )
    };
    let (ei, rho_a): (f64, f64) = (210e9 * 0.01 * 1e-9 / 12.0, 7850.0 * 1e-5);
    let f = |beta_l: f64| beta_l * beta_l / (2.0 * std::f64::consts::PI) * (ei / rho_a).sqrt();
    let (f1, f2) = (f(1.875104068711961), f(4.694091132974175));
    for n in [20, 80, 160] {
        let (ok, err, freqs) = modes_command(&strip(n), 2);
        println!("{n} elements: {freqs:?} against {f1:.6}, {f2:.6}");
        assert!(ok, "{err}");
        assert!((freqs[0] / f1 - 1.0).abs() < 2e-6 && (freqs[1] / f2 - 1.0).abs() < 1e-4, "{freqs:?}");
    }
    let resultants = strip(20).replace(
        "section = { width = 0.01, height = 0.001 }\nmaterial = { E = 210e9, nu = 0.3, rho = 7850.0 }",
        "section = { EA = 1e9, EI = 100.0, GA = 1e12, mass_per_length = 1.0 }",
    );
    assert_ne!(resultants, strip(20));
    let (ok, err, freqs) = modes_command(&resultants, 2);
    println!("resultants: {freqs:?}");
    assert!(ok, "{err}");
    assert!((freqs[0] / 5.5959 - 1.0).abs() < 1e-3 && (freqs[1] / 35.069 - 1.0).abs() < 1e-3, "{freqs:?}");
    // The shapes file's modes likewise (its mode 1 was at 0 Hz).
    let dir = tempfile::tempdir().unwrap();
    let (model, shapes) = (dir.path().join("strip.toml"), dir.path().join("shapes.csv"));
    std::fs::write(&model, strip(80) + "[[outputs]]\nname = \"tip_y\"\nquantity = \"y\"\nbody = \"b.end\"\n").unwrap();
    let o = std::process::Command::new(crate::common::cli::EXE)
        .arg("modes")
        .arg(&model)
        .args(["--count", "2", "--shapes"])
        .arg(&shapes)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&shapes).unwrap();
    let first: f64 = text.lines().nth(1).unwrap().split(',').nth(1).unwrap().parse().unwrap();
    assert!((first / f1 - 1.0).abs() < 2e-6, "{text}");
    // Nor is the clamped, unloaded beam a neutral equilibrium to `statics` (it was).
    let (model, csv) = (dir.path().join("m.toml"), dir.path().join("m.csv"));
    std::fs::write(&model, &resultants).unwrap();
    let o = std::process::Command::new(crate::common::cli::EXE)
        .arg("statics")
        .arg(&model)
        .args(["--stop-time", "0", "-o"])
        .arg(&csv)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && !stderr.contains("neutral"), "{stderr}");
}
