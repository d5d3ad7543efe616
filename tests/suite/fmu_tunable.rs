//! Tunable parameters through a real importer (the `fmi` crate): a tunable parameter set
//! between steps takes effect from the next step and keeps the state; a structural one is
//! refused in step mode; FMU states carry the tuned value.

use std::path::Path;

use flexfmu::model::Model;
use fmi::fmi2::instance::{CoSimulation, Common};
use fmi::traits::{FmiImport, FmiStatus};

use crate::common;
use common::fmu::{Fmu, read, step_bits};

fn fixture(name: &str) -> Fmu {
    Fmu::build(&Model::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("models/{name}.toml"))).unwrap())
}

fn variability(fmu: &Fmu, name: &str) -> String {
    let md = fmu.import.model_description();
    let v = md.model_variables.variables.iter().find(|v| v.name == name).unwrap();
    format!("{:?}", v.variability).to_lowercase()
}

/// mass_spring (m = 1 kg, k = 4 pi^2 N/m, x0 = 0.1 m) with k set to 100 N/m at t1 = 0.5 s:
/// the largest deviation over [t1, t1 + 0.5 s] from x = x1 cos(omega s) + v1/omega sin(omega s),
/// omega = 10 rad/s, s = t - t1, continued from the state (x1, v1) the FMU had at t1.
fn tuned_error(fmu: &Fmu, solver_step: f64) -> (f64, f64) {
    let (x, v, k) = (fmu.vr("x"), fmu.vr("v"), fmu.vr("k"));
    let mut inst =
        fmu.start("tuned", None, |i| i.set_real(&[fmu.vr("solver_step")], &[solver_step]).map(|_| ()).unwrap());
    let mut t = 0.0;
    let h = 0.01;
    for _ in 0..50 {
        inst.do_step(t, h, true).unwrap();
        t += h;
    }
    let [x1, v1] = read(&mut inst, &[x, v])[..] else { unreachable!() };
    inst.set_real(&[k], &[100.0]).unwrap();
    assert_eq!(read(&mut inst, &[k]), [100.0]);
    assert_eq!(read(&mut inst, &[x, v]), [x1, v1], "the state is kept");
    let mut worst: f64 = 0.0;
    for _ in 0..50 {
        inst.do_step(t, h, true).unwrap();
        t += h;
        let s = t - 0.5;
        let exact = x1 * (10.0 * s).cos() + v1 / 10.0 * (10.0 * s).sin();
        worst = worst.max((read(&mut inst, &[x])[0] - exact).abs());
    }
    (worst, (x1 * x1 + (v1 / 10.0).powi(2)).sqrt())
}

/// k is tunable, x0 (an initial value) is not. After the change the FMU follows the
/// omega = 10 rad/s oscillator from its state at the change, up to the integrator's error:
/// that error is second order in the internal step (it must fall at least 3x when the step
/// halves; stale accelerations from the old k would make it first order) and below the
/// phase error estimate (omega h)^2 omega s / 12 ~ 4e-5 of the amplitude at h = 1e-3 s.
#[test]
fn a_tunable_stiffness_takes_effect_from_the_next_step() {
    let fmu = fixture("mass_spring");
    assert!(variability(&fmu, "k").contains("tunable"), "{}", variability(&fmu, "k"));
    assert!(variability(&fmu, "x0").contains("fixed"), "{}", variability(&fmu, "x0"));
    assert!(variability(&fmu, "m").contains("tunable"));
    let ((coarse, amplitude), (fine, _)) = (tuned_error(&fmu, 1e-3), tuned_error(&fmu, 5e-4));
    eprintln!(
        "k = 100 from t = 0.5 s: max |x - exact| = {coarse:.3e} (h = 1e-3), {fine:.3e} (h = 5e-4), amplitude {amplitude:.4}"
    );
    assert!(coarse < 4e-5 * amplitude, "{coarse}");
    assert!(fine < coarse / 3.0, "{coarse} -> {fine}");

    let (x, v, k) = (fmu.vr("x"), fmu.vr("v"), fmu.vr("k"));
    let mut inst = fmu.start("state", None, |_| {});
    let h = 0.01;
    let mut t = 0.0;
    for _ in 0..50 {
        inst.do_step(t, h, true).unwrap();
        t += h;
    }
    inst.set_real(&[k], &[100.0]).unwrap();
    let state = inst.get_fmu_state().unwrap();
    inst.do_step(t, h, true).unwrap();
    t += h;

    // The FMU state carries the tuned value: restoring and re-stepping is bit-identical.
    let _ = t;
    let mut t2 = 0.5;
    let again = {
        inst.set_fmu_state(&state).ok().unwrap();
        assert_eq!(read(&mut inst, &[k]), [100.0]);
        step_bits(&mut inst, &[x, v], &mut t2, h, 50)
    };
    let mut t3 = 0.5;
    inst.set_fmu_state(&state).ok().unwrap();
    assert_eq!(step_bits(&mut inst, &[x, v], &mut t3, h, 50), again);
    assert_eq!(read(&mut inst, &[x])[0].to_bits(), again[again.len() - 2]);

    // A structural parameter in step mode: fmi2Error, nothing changes.
    let before = read(&mut inst, &[x, v]);
    assert!(inst.set_real(&[fmu.vr("x0")], &[0.2]).is_err());
    assert_eq!(read(&mut inst, &[fmu.vr("x0")]), [0.1]);
    assert_eq!(read(&mut inst, &[x, v]), before);
    inst.do_step(t3, h, true).unwrap();
    assert_eq!(Common::get_version(&inst), "2.0");
}

/// Without the change the run is the plain k = 4 pi^2 oscillator: the tuned run differs
/// from it from the first step after the change on, and not before.
#[test]
fn tuning_changes_nothing_before_the_next_step() {
    let fmu = fixture("mass_spring");
    let x = fmu.vr("x");
    let mut plain = fmu.start("plain", None, |_| {});
    let mut tuned = fmu.start("tuned", None, |_| {});
    let (mut tp, mut tt) = (0.0, 0.0);
    assert_eq!(step_bits(&mut plain, &[x], &mut tp, 0.01, 30), step_bits(&mut tuned, &[x], &mut tt, 0.01, 30));
    tuned.set_real(&[fmu.vr("k")], &[4.0 * std::f64::consts::PI.powi(2) * 1.5]).unwrap();
    assert_eq!(read(&mut plain, &[x]), read(&mut tuned, &[x]));
    let (a, b) = (step_bits(&mut plain, &[x], &mut tp, 0.01, 1), step_bits(&mut tuned, &[x], &mut tt, 0.01, 1));
    assert_ne!(a, b);
}

/// Load magnitudes, restitution and stiffness are tunable; lengths, angles, initial
/// velocities, counts and choices are structural, in every model that has them.
#[test]
fn structural_parameters_stay_fixed() {
    for (model, tunable, fixed) in [
        ("crank_slider", &["k", "c", "x_free", "m_slider"][..], &["r", "l", "theta0", "omega0"][..]),
        ("crank_slider_contact", &["K", "e"][..], &["x_c", "r_c"][..]),
        ("impact_beam", &["E", "e", "K"][..], &["contact", "N", "L", "theta0"][..]),
        ("ball_drop_constraint", &["lift", "e"][..], &["h0"][..]),
        // The drive's speed and time prescribe the hub's motion (a drive A (1 - cos t) had
        // been tunable, and tuned mid-run its joint jumped; a re-probe).
        ("spin_up", &[][..], &["w_s", "T_s"][..]),
    ] {
        let fmu = fixture(model);
        for name in tunable {
            assert!(variability(&fmu, name).contains("tunable"), "{model}: {name}");
        }
        for name in fixed {
            assert!(variability(&fmu, name).contains("fixed"), "{model}: {name}");
        }
    }
}

/// A tunable change changes the energy at the same state (a stiffness: the spring's
/// potential); energy_supplied takes the change, so energy_total + energy_dissipated -
/// energy_supplied stays at its initial value through it, as through the work of the input
/// force (mass_spring pushed by 0.5 N, k raised by half at t = 0.5 s).
#[test]
fn a_tunable_change_supplies_the_energy_it_adds() {
    use flexfmu::simulation::Simulation;
    let text = std::fs::read_to_string(common::sim::model_path("mass_spring")).unwrap()
        + "\n[[outputs]]\nname = \"S\"\nquantity = \"energy_supplied\"\n";
    let model = Model::parse(&text, "mass_spring.toml").unwrap();
    let mut params = model.default_parameters();
    let mut sim = common::sim::simulation_with(&model, &[], |s| s.tolerance = 1e-12);
    let out = |sim: &mut Simulation, name: &str| common::sim::output(sim, name);
    let balance = |sim: &mut Simulation| out(sim, "energy_total") - out(sim, "S");
    let e0 = balance(&mut sim);
    sim.set_input(0, 0.5).unwrap();
    sim.step_to(0.5).unwrap();
    let (e, s) = (out(&mut sim, "energy_total"), out(&mut sim, "S"));
    let k = model.parameters.iter().position(|p| p.name == "k").unwrap();
    params[k] *= 1.5;
    sim.retune(&model, &params).unwrap();
    let (jump_e, jump_s) = (out(&mut sim, "energy_total") - e, out(&mut sim, "S") - s);
    assert!(jump_e > 1e-3, "the stiffer spring holds more energy: {jump_e}");
    assert_eq!(jump_s, jump_e);
    sim.step_to(1.0).unwrap();
    let drift = (balance(&mut sim) - e0).abs();
    println!(
        "energy jump {jump_e:.6} J at the change; |E - S - E0| at 1 s {drift:.2e} J, work {:.4} J",
        out(&mut sim, "S")
    );
    assert!(drift < 1e-7, "{drift}");
}

/// `flexfmu info` shows each parameter as the FMU declares it (a probe found every model
/// parameter shown as fixed while modelDescription.xml declared k, m, ... tunable).
#[test]
fn info_shows_the_variability_the_fmu_declares() {
    for model in ["crank_slider", "impact_beam"] {
        let fmu = fixture(model);
        let path = common::sim::model_path(model);
        let out = std::process::Command::new(common::cli::EXE).arg("info").arg(&path).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout);
        let mut checked = 0;
        for v in fmu.vars.list.iter().filter(|v| matches!(v.role, flexfmu::export::variables::Role::Parameter(_))) {
            let line = text
                .lines()
                .find(|l| l.split_whitespace().next() == Some(v.name.as_str()))
                .unwrap_or_else(|| panic!("{model}: no line for {} in\n{text}", v.name));
            let declared = if variability(&fmu, &v.name).contains("tunable") { "(tunable)" } else { "(fixed)" };
            assert!(line.contains(declared), "{model}: {} is {declared} in the FMU; info says: {line}", v.name);
            checked += 1;
        }
        assert!(checked > 3, "{model}: {checked} parameters");
    }
}

/// A parameter no expression reads is tunable (changing it changes nothing) and is judged
/// without assembling the model once more for it; one that a description merely mentions is
/// judged by assembling, as every read one is. Both answers equal those of assembling.
#[test]
fn parameters_nothing_reads_are_tunable() {
    use flexfmu::model::Model;
    use flexfmu::simulation::Simulation;
    let text = "[model]\nname = \"m\"\n[parameters]\nk = 100.0\nx0 = 0.1\nunused = 3.0\n\
                noted = { value = 2.0, description = \"noted in a description\" }\n\
                fixed_unused = { value = 1.0, min = 1.0, max = 1.0 }\n\
                [[point_masses]]\nname = \"b\"\nmass = 1.0\nposition = [\"x0\", 0.0]\n\
                [[joints]]\nname = \"slide\"\ntype = \"prismatic\"\nbody1 = \"ground\"\nbody2 = \"b\"\n\
                point = [0.0, 0.0]\naxis = [1.0, 0.0]\n\
                [[springs]]\nname = \"s\"\ntype = \"prismatic\"\njoint = \"slide\"\nstiffness = \"k\"\n\
                free_length = 0.0\n[[outputs]]\nname = \"x\"\nquantity = \"x\"\nbody = \"b\"\n";
    let model = Model::parse(text, "m.toml").unwrap();
    let tunable = Simulation::tunable_parameters(&model, &model.default_parameters());
    let names: Vec<_> = model.parameters.iter().map(|p| p.name.as_str()).collect();
    println!("{:?}", names.iter().zip(&tunable).collect::<Vec<_>>());
    assert_eq!(tunable, [true, false, true, true, false], "k x0 unused noted fixed_unused");
}

/// A flexible model that gives no `step` starts at one its beams' stiffness and mass set (1/20
/// of the first bending period, `SolverSettings::from_model`), but that derived default is no
/// structure a stiffness changes: the beam's E stays tunable, as with the step given, and a
/// tuned E keeps the run's step.
#[test]
fn a_stiffness_that_sets_the_default_step_stays_tunable() {
    use flexfmu::model::Model;
    use flexfmu::simulation::{Simulation, SolverSettings};
    let text = "[model]\nname = \"rod\"\ngravity = [0.0, 0.0]\n[parameters]\nE = 2.1e11\n\
                [[beams]]\nname = \"rod\"\nstart = [0.0, 0.0]\nend = [0.3, 0.0]\nelements = 4\n\
                section = { width = 0.006, height = 0.006 }\nmaterial = { E = \"E\", nu = 0.3, rho = 7850.0 }\n\
                [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"rod.start\"\npoint = [0.0, 0.0]\n";
    let model = Model::parse(text, "rod.toml").unwrap();
    let params = model.default_parameters();
    let (derived, declared) =
        (SolverSettings::from_model(&model, &params).unwrap(), SolverSettings::declared(&model, &params).unwrap());
    assert!(derived.step < 1e-3 && declared.step == 1e-3, "{} {}", derived.step, declared.step);
    assert_eq!(Simulation::tunable_parameters(&model, &params), [true], "E");
}

/// Parameters are judged in groups (src/simulation/tuning.rs): in a row of 40 masses on
/// springs, each spring's stiffness and each mass's position its own parameter, every
/// stiffness is tunable and every position fixed, however the groups split.
#[test]
fn many_parameters_are_judged_each_as_alone() {
    let n = 40;
    let mut text = String::from("[model]\nname = \"row\"\ngravity = [0.0, 0.0]\n[parameters]\n");
    for i in 0..n {
        text += &format!("k{i} = {{ value = {}.0 }}\nx{i} = {{ value = {}.0 }}\n", 100 + i, i + 1);
    }
    for i in 0..n {
        let body1 = if i == 0 {
            "body1 = \"ground\"\npoint1 = [0.0, 0.0]".to_string()
        } else {
            format!("body1 = \"m{}\"", i - 1)
        };
        text += &format!(
            "[[point_masses]]\nname = \"m{i}\"\nmass = 1.0\nposition = [\"x{i}\", 0.0]\n\
             [[springs]]\nname = \"s{i}\"\ntype = \"point_to_point\"\n{body1}\nbody2 = \"m{i}\"\n\
             stiffness = \"k{i}\"\n"
        );
    }
    let model = Model::parse(&text, "row.toml").unwrap_or_else(|e| panic!("{e}"));
    let tunable = flexfmu::simulation::Simulation::tunable_parameters(&model, &model.default_parameters());
    for (p, t) in model.parameters.iter().zip(&tunable) {
        assert_eq!(*t, p.name.starts_with('k'), "{}", p.name);
    }
}

/// A restitution of 1 is at the law's bound: raised by a little it does not assemble, lowered
/// it keeps the structure, so it is tunable (it was fixed at 1 and tunable at 0.999; a
/// re-probe), for both contact methods.
#[test]
fn a_restitution_at_its_bound_is_tunable() {
    for method in ["force", "constraint"] {
        let text = format!(
            "[model]\nname = \"pair\"\ngravity = [0.0, 0.0]\n[parameters]\ne = 1.0\n\
             [[point_masses]]\nname = \"a\"\nmass = 0.1\nposition = [0.0, 0.0]\nvelocity = [1.0, 0.0]\n\
             [[point_masses]]\nname = \"b\"\nmass = 0.1\nposition = [0.05, 0.0]\n\
             [[contacts]]\nname = \"c\"\ntype = \"circle_circle\"\nmethod = \"{method}\"\nbody1 = \"a\"\n\
             radius1 = 0.01\nbody2 = \"b\"\nradius2 = 0.01\nrestitution = \"e\"\nstiffness = 1e8\n\
             [[outputs]]\nname = \"v\"\nquantity = \"vx\"\nbody = \"b\"\n"
        );
        let text = if method == "constraint" { text.replace("stiffness = 1e8\n", "") } else { text };
        let model = Model::parse(&text, "pair.toml").unwrap_or_else(|e| panic!("{e}"));
        let tunable = flexfmu::simulation::Simulation::tunable_parameters(&model, &model.default_parameters());
        assert_eq!(tunable, [true], "{method}");
    }
}

/// A fractional damper's order and memory span set what its recorded history means (the
/// Grünwald weights the samples are summed with, which samples are kept): they were tunable,
/// and fmi2SetReal(alpha, 0.9) between steps returned fmi2OK, summing the samples recorded
/// at alpha = 0.5 with the weights of 0.9 (a probe). The parameters they read are fixed now,
/// declared so in modelDescription.xml and refused in step mode with nothing changed; the
/// stiffness and damping coefficient stay tunable.
#[test]
fn a_fractional_dampers_order_and_memory_are_fixed() {
    let text = r#"
[model]
name = "frac_osc"

[parameters]
m = { value = 1.0, unit = "kg" }
k = { value = 10.0, unit = "N/m" }
c = { value = 2.0, unit = "N.s^a/m" }
alpha = { value = 0.5 }
span = { value = 2.0, unit = "s" }

[solver]
step = 1e-3
stop_time = 5.0

[[point_masses]]
name = "mass"
mass = "m"
position = [0.0, 0.0]

[[joints]]
name = "slide"
type = "prismatic"
body2 = "mass"
axis = [1.0, 0.0]

[[springs]]
name = "damper"
type = "prismatic"
joint = "slide"
stiffness = "k"
damping = "c"
fractional_order = "alpha"
memory = "span"

[[loads]]
name = "push"
type = "force"
body = "mass"
direction = [1.0, 0.0]
value = 1.0

[[outputs]]
name = "x"
quantity = "x"
body = "mass"
"#;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("frac.toml");
    std::fs::write(&path, text).unwrap();
    let model = Model::load(&path).unwrap();
    let xml = flexfmu::export::model_description::model_description(&model).unwrap();
    let declared = |name: &str| {
        let start = xml.find(&format!(r#"<ScalarVariable name="{name}""#)).unwrap();
        xml[start..start + xml[start..].find('>').unwrap()].to_string()
    };
    for name in ["alpha", "span"] {
        assert!(declared(name).contains(r#"variability="fixed""#), "{}", declared(name));
    }
    for name in ["k", "c", "m"] {
        assert!(declared(name).contains(r#"variability="tunable""#), "{}", declared(name));
    }

    let fmu = Fmu::build(&model);
    assert!(variability(&fmu, "alpha").contains("fixed"), "{}", variability(&fmu, "alpha"));
    let (x, alpha, span, c) = (fmu.vr("x"), fmu.vr("alpha"), fmu.vr("span"), fmu.vr("c"));
    let mut inst = fmu.start("fractional", None, |_| {});
    let mut t = 0.0;
    step_bits(&mut inst, &[x], &mut t, 0.01, 20);
    let before = read(&mut inst, &[x]);
    assert!(inst.set_real(&[alpha], &[0.9]).is_err());
    assert!(inst.set_real(&[span], &[1.0]).is_err());
    assert_eq!(read(&mut inst, &[alpha, span, x]), [0.5, 2.0, before[0]], "nothing changed");
    inst.set_real(&[c], &[3.0]).unwrap();
    step_bits(&mut inst, &[x], &mut t, 0.01, 5);
}

/// A contact's state (0/1) and the time of its latest onset change only at contact events: they
/// are declared `variability="discrete"` (a probe: a master interpolated them as continuous
/// signals); the other outputs stay continuous.
#[test]
fn piecewise_constant_outputs_are_declared_discrete() {
    for name in ["ball_drop", "ball_drop_constraint"] {
        let fmu = fixture(name);
        assert!(
            variability(&fmu, "contact_state").contains("discrete"),
            "{name}: {}",
            variability(&fmu, "contact_state")
        );
        for continuous in ["y", "contact_force", "energy_total"] {
            assert!(variability(&fmu, continuous).contains("continuous"), "{name}: {continuous}");
        }
    }
}
