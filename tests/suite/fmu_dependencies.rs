//! `<ModelStructure>` dependencies through a real importer (the `fmi` crate): for every model
//! in models/ the declared direct dependencies of the outputs on the inputs equal the probed
//! ones (set an input, read the outputs without stepping), and two FMUs coupled both ways
//! run in a plain fixed-step master, without an algebraic loop.

use std::collections::BTreeSet;
use std::path::Path;

use flexfmu::model::Model;
use fmi::fmi2::instance::{CoSimulation, Common, InstanceCS};
use fmi::traits::{FmiImport, FmiInstance};

use crate::common;
use common::fmu::{Fmu, read};

/// (output index, declared knowns) of a `<ModelStructure>` section.
fn declared(unknowns: &[fmi::schema::fmi2::Fmi2VariableDependency]) -> Vec<(u32, BTreeSet<u32>)> {
    unknowns.iter().map(|u| (u.index, u.dependencies.iter().copied().collect())).collect()
}

/// For each output (in `outputs` order), the 1-based indices of the inputs whose change
/// changes it at once, bit for bit.
fn probe(inst: &mut InstanceCS, outputs: &[u32], inputs: &[(u32, f64)]) -> Vec<BTreeSet<u32>> {
    probe_beyond(inst, outputs, inputs, 0.0)
}

/// `probe`, counting only changes by more than `tolerance` of the value (1 + |y|).
fn probe_beyond(inst: &mut InstanceCS, outputs: &[u32], inputs: &[(u32, f64)], tolerance: f64) -> Vec<BTreeSet<u32>> {
    let mut found = vec![BTreeSet::new(); outputs.len()];
    for &(vr, start) in inputs {
        let before = read(inst, outputs);
        // A change of order one in SI units (N, N.m): far above rounding, far below overflow.
        inst.set_real(&[vr], &[start + 1.0 + start.abs()]).unwrap();
        let after = read(inst, outputs);
        inst.set_real(&[vr], &[start]).unwrap();
        assert_eq!(read(inst, outputs), before, "outputs return with the input");
        for (k, (b, a)) in before.iter().zip(&after).enumerate() {
            let changed =
                if tolerance == 0.0 { a != b } else { (a - b).abs() > tolerance * (1.0 + a.abs().max(b.abs())) };
            if changed {
                found[k].insert(vr + 1);
            }
        }
    }
    found
}

#[test]
fn declared_dependencies_equal_the_probed_ones_for_every_model() {
    let models = common::sim::example_paths();
    let mut with_dependencies = 0;
    for path in &models {
        let model = Model::load(path).unwrap();
        let fmu = Fmu::build(&model);
        let md = fmu.import.model_description();
        let outputs = fmu.outputs();
        let inputs: Vec<(u32, f64)> = fmu
            .vars
            .list
            .iter()
            .filter(|v| matches!(v.role, flexfmu::export::variables::Role::Input(_)))
            .map(|v| (v.vr, v.start.unwrap()))
            .collect();
        let parameters: BTreeSet<u32> = fmu
            .vars
            .list
            .iter()
            .filter(|v| {
                matches!(
                    v.role,
                    flexfmu::export::variables::Role::Parameter(_) | flexfmu::export::variables::Role::Solver(_)
                )
            })
            .map(|v| v.vr + 1)
            .collect();
        let solver_settings: BTreeSet<u32> = fmu
            .vars
            .list
            .iter()
            .filter(|v| matches!(v.role, flexfmu::export::variables::Role::Solver(_)))
            .map(|v| v.vr + 1)
            .collect();
        let out = declared(&md.model_structure.outputs.unknowns);
        let init = declared(&md.model_structure.initial_unknowns.unknowns);
        assert_eq!(out.iter().map(|o| o.0).collect::<Vec<_>>(), outputs.iter().map(|v| v + 1).collect::<Vec<_>>());
        for u in md.model_structure.outputs.unknowns.iter().chain(&md.model_structure.initial_unknowns.unknowns) {
            assert_eq!(u.dependencies.len(), u.dependencies_kind.len());
        }

        // Initialization Mode: the inputs' part of <InitialUnknowns>; no solver setting is a
        // known (tests/suite/initial_unknowns.rs checks the parameters' part, and the inputs'
        // with the drives moved). An input a drive reads moves the initial configuration:
        // declared for the outputs it moves (`Simulation::initial_input_dependencies`), it is
        // probed wherever the drives' iteration moves what the output reads, which may be
        // only its last bits at one value and not at another. A driving input moves the
        // state through a Newton iteration (`Workspace::follow_drives`), which leaves another
        // driven joint's coordinate at its drive's value to its last bits: changes within
        // 1e-13 of a value are that iteration's.
        let driving: BTreeSet<u32> =
            fmu.vars.outputs().flat_map(|v| v.initial_inputs.iter().map(|&i| inputs[i].0 + 1)).collect();
        let mut inst = fmu.import.instantiate_cs("probe", false, false).unwrap();
        FmiInstance::enter_initialization_mode(&mut inst, None, 0.0, None).unwrap();
        let probed_init = probe_beyond(&mut inst, &outputs, &inputs, 1e-13);
        for ((index, known), probed) in init.iter().zip(&probed_init) {
            let from_inputs: BTreeSet<u32> = known.difference(&parameters).copied().collect();
            assert!(
                from_inputs.is_superset(probed),
                "{}: initial unknown {index}: {from_inputs:?} vs {probed:?}",
                path.display()
            );
            let unprobed: BTreeSet<u32> = from_inputs.difference(probed).copied().collect();
            assert!(
                unprobed.is_subset(&driving),
                "{}: initial unknown {index}: {from_inputs:?} vs {probed:?}",
                path.display()
            );
            assert!(known.is_disjoint(&solver_settings));
        }
        FmiInstance::exit_initialization_mode(&mut inst).unwrap();

        // Communication points: the union over three points (a coefficient may vanish at one).
        let mut probed = probe(&mut inst, &outputs, &inputs);
        if !inputs.is_empty() {
            let mut t = 0.0;
            for steps in [5, 15] {
                for _ in 0..steps {
                    inst.do_step(t, 0.01, true).unwrap();
                    t += 0.01;
                }
                for (p, more) in probed.iter_mut().zip(probe(&mut inst, &outputs, &inputs)) {
                    p.extend(more);
                }
            }
        }
        for ((index, known), probed) in out.iter().zip(&probed) {
            assert_eq!(known, probed, "{}: output {index}", path.display());
            with_dependencies += usize::from(!known.is_empty());
        }
        FmiInstance::terminate(&mut inst).unwrap();
    }
    assert!(models.len() >= 18);
    // mass_spring's acceleration, pendulum's pivot reaction, and crank_slider_link's rod
    // tension, rod force on the slider and drive torque (all three carry its input load F).
    assert_eq!(with_dependencies, 5);
}

/// Two mass_spring FMUs (m = 1 kg, k = 4 pi^2 N/m, both started at x = 0.1 m) coupled both
/// ways: each one's x (m) is the other's force (N), a coupling stiffness of 1 N/m. Both x
/// are declared independent of the inputs (`dependencies=""`): the outputs at t_n are
/// known before the inputs at t_n are set, so a Jacobi master needs no iteration and the
/// coupling is no algebraic loop. With equal starts only the symmetric mode moves:
/// m x'' + k x = x, x(t) = 0.1 cos(sqrt(k - 1) t). Holding the inputs over a step of H
/// lags the coupling force by H/2 on average, an error of order H in the phase: the error
/// must halve when H halves (first order), and be below that bound at H = 1e-3.
#[test]
fn two_fmus_coupled_both_ways_need_no_algebraic_loop() {
    let model = Model::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml")).unwrap();
    let fmu = Fmu::build(&model);
    let md = fmu.import.model_description();
    let (x, force) = (fmu.vr("x"), fmu.vr("force"));
    let x_deps = md.model_structure.outputs.unknowns.iter().find(|u| u.index == x + 1).unwrap();
    assert!(x_deps.dependencies.is_empty(), "x must not depend directly on force");

    let k = 4.0 * std::f64::consts::PI.powi(2);
    let omega = (k - 1.0).sqrt();
    let run = |h: f64| -> f64 {
        let mut a = fmu.start("a", None, |_| {});
        let mut b = fmu.start("b", None, |_| {});
        let steps = (1.0 / h).round() as usize;
        let mut t = 0.0;
        let mut worst: f64 = 0.0;
        for _ in 0..steps {
            // Outputs first (they need no input of this step), then inputs, then steps.
            let (xa, xb) = (read(&mut a, &[x])[0], read(&mut b, &[x])[0]);
            a.set_real(&[force], &[xb]).unwrap();
            b.set_real(&[force], &[xa]).unwrap();
            a.do_step(t, h, true).unwrap();
            b.do_step(t, h, true).unwrap();
            t += h;
            let exact = 0.1 * (omega * t).cos();
            worst = worst.max((read(&mut a, &[x])[0] - exact).abs());
            assert_eq!(read(&mut a, &[x]), read(&mut b, &[x]), "the symmetric mode stays symmetric");
        }
        for mut inst in [a, b] {
            FmiInstance::terminate(&mut inst).unwrap();
            assert_eq!(Common::get_version(&inst), "2.0");
        }
        worst
    };
    let (e1, e2) = (run(2e-3), run(1e-3));
    // The lag of the held force: |delta x| <~ t * (H/2) * |F'| / (m omega) * ... over one
    // second, |F'| <= 0.1 omega: bound 0.1 * H / 2 * 1 s * omega / omega = 0.05 H (plus the
    // integrator's own error, O(h^2) with h = 1e-3 s, ~1e-5).
    eprintln!("max |x - exact| over 1 s: {e1:.3e} (H = 2e-3), {e2:.3e} (H = 1e-3), ratio {:.3}", e1 / e2);
    assert!(e2 < 0.05 * 1e-3 + 2e-5, "{e2}");
    assert!((1.6..2.4).contains(&(e1 / e2)), "first order in H: ratio {}", e1 / e2);
}

/// Springs whose free length is an input (tests/suite/spring_input.rs `two_actuators`): a mass
/// on a slide pulled by a spring to free length u, and a rod on a pivot turned by a torsional
/// spring to free angle w. The declared dependencies are exact: the mass's acceleration reads
/// u only, the rod's angular acceleration and its pivot reaction (one block with the rod) read
/// w only, energy_total both (each spring's potential uses its current free length), and
/// positions, angles and the slide's reaction (the y block of the mass, which the spring along
/// x does not act on) read neither; they equal the probed ones at three points and in
/// Initialization Mode.
/// fmi2GetDirectionalDerivative gives d ax/du = k/m = 100 and d alpha/dw = k_t/J_O = 24.
#[test]
fn input_free_lengths_declare_exactly_the_outputs_they_change() {
    let model = Model::parse(&crate::spring_input::two_actuators(), "two.toml").unwrap();
    let fmu = Fmu::build(&model);
    let md = fmu.import.model_description();
    let outputs = fmu.outputs();
    let (u, w) = (fmu.vr("u"), fmu.vr("w"));
    let names = ["x", "ax", "slide_reaction", "angle", "alpha", "pivot_reaction", "energy"];
    let expected: Vec<(u32, BTreeSet<u32>)> = names
        .iter()
        .map(|name| {
            let known: BTreeSet<u32> = match *name {
                "ax" => [u + 1].into(),
                "alpha" | "pivot_reaction" => [w + 1].into(),
                "energy" => [u + 1, w + 1].into(),
                _ => BTreeSet::new(),
            };
            (fmu.vr(name) + 1, known)
        })
        .collect();
    assert_eq!(declared(&md.model_structure.outputs.unknowns), expected);

    // Initialization Mode: the inputs' part of <InitialUnknowns> is the same.
    let mut inst = fmu.import.instantiate_cs("probe", false, false).unwrap();
    FmiInstance::enter_initialization_mode(&mut inst, None, 0.0, None).unwrap();
    let initial: Vec<BTreeSet<u32>> = declared(&md.model_structure.initial_unknowns.unknowns)
        .into_iter()
        .map(|(_, known)| known.into_iter().filter(|k| [u + 1, w + 1].contains(k)).collect())
        .collect();
    assert_eq!(initial, expected.iter().map(|e| e.1.clone()).collect::<Vec<_>>());
    assert_eq!(probe(&mut inst, &outputs, &[(u, 0.1), (w, 0.2)]), initial);
    FmiInstance::exit_initialization_mode(&mut inst).unwrap();
    let mut probed = probe(&mut inst, &outputs, &[(u, 0.1), (w, 0.2)]);
    let mut t = 0.0;
    for steps in [5, 15] {
        for _ in 0..steps {
            inst.do_step(t, 0.01, true).unwrap();
            t += 0.01;
        }
        for (p, more) in probed.iter_mut().zip(probe(&mut inst, &outputs, &[(u, 0.1), (w, 0.2)])) {
            p.extend(more);
        }
    }
    assert_eq!(probed, expected.iter().map(|e| e.1.clone()).collect::<Vec<_>>());

    // One unknown per call: the `fmi` crate (0.8.0) asserts as many unknowns as knowns.
    let derivative = |of: &str, by: u32| {
        let mut d = [0.0];
        inst.get_directional_derivative(&[fmu.vr(of)], &[by], &[1.0], &mut d).unwrap();
        d[0]
    };
    let j_o: f64 = 0.25 / 12.0 + 0.25 * 0.25;
    let (ax_u, ax_w, alpha_u, alpha_w) =
        (derivative("ax", u), derivative("ax", w), derivative("alpha", u), derivative("alpha", w));
    println!("d ax/du = {ax_u}, d alpha/dw = {alpha_w} (k_t/J_O = {})", 2.0 / j_o);
    assert_eq!((ax_w, alpha_u), (0.0, 0.0));
    assert!((ax_u - 100.0).abs() < 1e-9, "d ax/du = {ax_u}");
    assert!((alpha_w - 2.0 / j_o).abs() < 1e-9, "d alpha/dw = {alpha_w}");
    FmiInstance::terminate(&mut inst).unwrap();
}

/// Spatial joint moments are reactions: a body on a revolute joint loaded by an input torque
/// declares `reaction_torque_*` dependent on the input (the joint's multipliers respond at
/// once), the angular momentum (of the body and of the model: functions of q and v) and the
/// position not; the declarations equal the probed ones, and the directional derivative of a
/// moment is its change per unit torque (linear in the input: the difference quotient).
#[test]
fn spatial_joint_moments_depend_on_the_inputs_and_angular_momentum_does_not() {
    let text = r#"[model]
name = "hinge"
dimension = 3
gravity = [0.0, 0.0, -9.81]
[[inputs]]
name = "tau"
unit = "N.m"
start = 0.5
[[rigid_bodies]]
name = "b"
mass = 2.0
inertia = [[0.05, 0.01, -0.005], [0.01, 0.08, 0.002], [-0.005, 0.002, 0.06]]
position = [0.5, 0.1, -0.2]
angular_velocity = [1.2, 1.6, 0.0]
[[joints]]
name = "j"
type = "revolute"
body2 = "b"
point = [0.1, -0.2, 0.05]
axis = [0.6, 0.8, 0.0]
[[loads]]
type = "torque"
body = "b"
direction = [0.3, -0.5, 0.8]
value = "tau"
[[outputs]]
name = "mx"
quantity = "reaction_torque_x"
joint = "j"
[[outputs]]
name = "mz"
quantity = "reaction_torque_z"
joint = "j"
[[outputs]]
name = "lx"
quantity = "angular_momentum_x"
body = "b"
[[outputs]]
name = "lz"
quantity = "angular_momentum_z"
[[outputs]]
name = "x"
quantity = "x"
body = "b"
"#;
    let model = Model::parse(text, "hinge.toml").unwrap();
    let fmu = Fmu::build(&model);
    let md = fmu.import.model_description();
    let outputs = fmu.outputs();
    let tau = fmu.vr("tau");
    let out = declared(&md.model_structure.outputs.unknowns);
    let expected: Vec<BTreeSet<u32>> =
        [true, true, false, false, false].iter().map(|&d| if d { [tau + 1].into() } else { BTreeSet::new() }).collect();
    assert_eq!(out.iter().map(|o| o.1.clone()).collect::<Vec<_>>(), expected);
    let mut inst = fmu.start("hinge", None, |_| {});
    let mut t = 0.0;
    for _ in 0..10 {
        inst.do_step(t, 0.01, true).unwrap();
        t += 0.01;
    }
    let probed = probe(&mut inst, &outputs, &[(tau, 0.5)]);
    assert_eq!(probed, expected);
    // d mx / d tau by the FMU, against the change of mx for a unit change of tau.
    let before = read(&mut inst, &outputs);
    inst.set_real(&[tau], &[1.5]).unwrap();
    let after = read(&mut inst, &outputs);
    inst.set_real(&[tau], &[0.5]).unwrap();
    let mut dv = [0.0; 2];
    for (k, d) in dv.iter_mut().enumerate() {
        let mut one = [0.0];
        inst.get_directional_derivative(&[outputs[k]], &[tau], &[1.0], &mut one).unwrap();
        *d = one[0];
    }
    println!(
        "hinge: d(mx, mz)/d tau = {dv:?}, difference quotient ({}, {})",
        after[0] - before[0],
        after[1] - before[1]
    );
    for k in 0..2 {
        assert!((dv[k] - (after[k] - before[k])).abs() < 1e-9, "{dv:?}");
    }
}

/// The declared dependencies hold for every choice of a string parameter: a ball's contact
/// method chosen by `"$contact"` (default "force") makes the contact force respond to the
/// load's input at once with the constraint method (the multiplier of a closed contact),
/// so `fc` declares `fy` although the default's compliant force does not (a probe found
/// only the default's set declared, hiding an algebraic loop from a master). And an input a
/// drive reads places the initial configuration, so every output's initial value may depend
/// on it (`<InitialUnknowns>`).
#[test]
fn dependencies_cover_every_choice_and_driving_inputs_the_initial_state() {
    use flexfmu::fmu::variables::{Role, Variables};
    let ball = "[model]\nname = \"ball\"\ngravity = [0.0, -9.81]\n\
                [parameters]\ncontact = { value = \"force\", choices = [\"force\", \"constraint\"] }\n\
                [[inputs]]\nname = \"fy\"\n[[rigid_bodies]]\nname = \"ball\"\nmass = 1.0\ninertia = 0.004\n\
                position = [0.0, 0.1]\n[[contacts]]\nname = \"floor\"\ntype = \"circle_plane\"\nmethod = \"$contact\"\n\
                point1 = [0.0, 0.0]\nnormal = [0.0, 1.0]\nbody2 = \"ball\"\nradius2 = 0.1\nrestitution = 0.5\n\
                stiffness = 1e8\n[[loads]]\ntype = \"force\"\nbody = \"ball\"\ndirection = [0.0, 1.0]\nvalue = \"fy\"\n\
                [[outputs]]\nname = \"fc\"\nquantity = \"contact_force\"\ncontact = \"floor\"\n\
                [[outputs]]\nname = \"y\"\nquantity = \"y\"\nbody = \"ball\"\n";
    let vars = Variables::new(&Model::parse(ball, "ball.toml").unwrap()).unwrap();
    let output = |name: &str| vars.list.iter().find(|v| v.name == name).unwrap();
    assert_eq!(output("fc").input_dependencies, vec![0], "fc responds to fy with the constraint method");
    assert!(output("y").input_dependencies.is_empty(), "a position does not respond at once");
    let servo = "[model]\nname = \"servo\"\ngravity = [0.0, -9.81]\n[[inputs]]\nname = \"u\"\n[[inputs]]\nname = \"f\"\n\
                 [[rigid_bodies]]\nname = \"arm\"\nmass = 1.0\ninertia = 0.01\nposition = [0.0, -0.3]\n\
                 [[joints]]\nname = \"pivot\"\ntype = \"revolute\"\nbody2 = \"arm\"\npoint = [0.0, 0.0]\ndrive = \"u\"\n\
                 [[point_masses]]\nname = \"free\"\nmass = 1.0\nposition = [1.0, 0.0]\n\
                 [[loads]]\ntype = \"force\"\nbody = \"free\"\ndirection = [1.0, 0.0]\nvalue = \"f\"\n\
                 [[outputs]]\nname = \"angle\"\nquantity = \"joint_position\"\njoint = \"pivot\"\n";
    let vars = Variables::new(&Model::parse(servo, "servo.toml").unwrap()).unwrap();
    let vr = |name: &str| vars.list.iter().find(|v| v.name == name).unwrap().vr;
    let angle = vars.list.iter().find(|v| matches!(v.role, Role::Output(_))).unwrap();
    let initial = vars.initial_dependencies(angle);
    assert!(initial.contains(&vr("u")) && !initial.contains(&vr("f")), "{initial:?}");
}

/// Many inputs, each loading its own mass (and one the potential of a spring's free length):
/// every mass's output depends on its own input alone, the energy on the free length's. The
/// search asks only the elements that read an input and one buffer of inputs serves all: per
/// input it asked every element and copied every input per sample, quadratic in the inputs (a
/// probe's 8,000 inputs took 2.8 s to check; now 0.07 s).
#[test]
fn direct_dependencies_of_many_inputs_are_each_their_own() {
    use flexfmu::simulation::{Simulation, SolverSettings};
    let n = 3000;
    let mut text = String::from("[model]\nname = \"many\"\n");
    for k in 0..n {
        text += &format!("[[inputs]]\nname = \"u{k}\"\n");
    }
    text += "[[inputs]]\nname = \"s0\"\n";
    for k in 0..n {
        text += &format!(
            "[[point_masses]]\nname = \"b{k}\"\nmass = 1.0\nposition = [{k}.0, 0.0]\n\
             [[loads]]\ntype = \"force\"\nbody = \"b{k}\"\ndirection = [1.0, 0.0]\nvalue = \"u{k}\"\n\
             [[outputs]]\nname = \"a{k}\"\nquantity = \"ax\"\nbody = \"b{k}\"\n"
        );
    }
    text += "[[springs]]\nname = \"s\"\nbody1 = \"b0\"\nbody2 = \"b1\"\nstiffness = 10.0\nfree_length = \"1 + s0\"\n\
             [[outputs]]\nname = \"e\"\nquantity = \"energy_potential\"\n";
    let model = Model::parse(&text, "many.toml").unwrap();
    let sim = Simulation::new(&model, &[], SolverSettings::default(), 0.0).unwrap();
    let deps = sim.direct_dependencies();
    assert_eq!(deps.len(), n + 1);
    for (k, d) in deps.iter().take(n).enumerate() {
        // The spring couples b0 and b1 to its free length's input.
        let expected: Vec<usize> = if k < 2 { vec![k, n] } else { vec![k] };
        assert_eq!(d, &expected, "output a{k}");
    }
    assert_eq!(deps[n], vec![n], "the potential energy reads the free length's input alone");
}

/// In Initialization Mode the knowns of fmi2GetDirectionalDerivative are those
/// `<InitialUnknowns>` lists, the parameters among them (FMI 2.0.4 sec. 2.1.9; a probe got
/// fmi2Error for every parameter). The ball drop's initial state is analytic: y = r + h0,
/// penetration = -h0, energy_total = m g (r + h0); so dy/dh0 = dy/dr = 1, d penetration/dh0 = -1,
/// d energy/dm = g (r + h0) and d energy/dh0 = m g, and nothing depends on the restitution e
/// (set to its maximum 1, where the difference is one-sided). In Step Mode a parameter is no
/// known (fmi2Error).
#[test]
fn initialization_mode_directional_derivatives_take_parameters_as_knowns() {
    let model = crate::common::sim::example("ball_drop_constraint");
    let fmu = Fmu::build(&model);
    let mut inst = fmu.import.instantiate_cs("params", false, false).unwrap();
    inst.set_real(&[fmu.vr("e")], &[1.0]).unwrap();
    FmiInstance::enter_initialization_mode(&mut inst, None, 0.0, None).unwrap();
    let derivative = |of: &str, by: &str| {
        let mut d = [0.0];
        inst.get_directional_derivative(&[fmu.vr(of)], &[fmu.vr(by)], &[1.0], &mut d).map(|_| d[0])
    };
    let (g, m, r, h0) = (9.81, 1.0, 0.05, 0.5);
    let cases = [
        ("y", "h0", 1.0),
        ("y", "r", 1.0),
        ("penetration", "h0", -1.0),
        ("energy_total", "m", g * (r + h0)),
        ("energy_total", "h0", m * g),
        ("y", "e", 0.0),
        ("energy_total", "e", 0.0),
    ];
    for (of, by, exact) in cases {
        let d = derivative(of, by).unwrap();
        println!("d {of} / d {by} = {d:.12} (exact {exact})");
        assert!((d - exact).abs() < 1e-8 * exact.abs().max(1.0), "d {of} / d {by} = {d}");
    }
    FmiInstance::exit_initialization_mode(&mut inst).unwrap();
    let mut d = [0.0];
    assert!(inst.get_directional_derivative(&[fmu.vr("y")], &[fmu.vr("h0")], &[1.0], &mut d).is_err());
}

/// A parameter whose value is smaller than the difference step: hertz_impact's spheres start
/// `gap` = 2e-5 m apart, so the contact force stays 0 and the penetration is -gap for any
/// small change of it (d contact_force / d gap = 0, d penetration / d gap = -1). The step
/// 1e-4 (1 + gap) put one side 8e-5 m into contact: -3.9e7 N/m (probe 40b); the step now
/// shrinks where the sides are not smooth with the value between them.
#[test]
fn initial_parameter_derivatives_do_not_straddle_a_contact_onset() {
    let model = crate::common::sim::example("hertz_impact");
    let fmu = Fmu::build(&model);
    let mut inst = fmu.import.instantiate_cs("gap", false, false).unwrap();
    FmiInstance::enter_initialization_mode(&mut inst, None, 0.0, None).unwrap();
    let mut gap = [0.0];
    inst.get_real(&[fmu.vr("gap")], &mut gap).unwrap();
    assert!(gap[0] > 0.0 && gap[0] < 1e-4, "the case: a gap below the first step, {}", gap[0]);
    for (of, exact) in [("contact_force", 0.0), ("penetration", -1.0), ("energy_total", 0.0)] {
        let mut d = [f64::NAN];
        inst.get_directional_derivative(&[fmu.vr(of)], &[fmu.vr("gap")], &[1.0], &mut d).unwrap();
        println!("d {of} / d gap = {:.12e} (exact {exact})", d[0]);
        assert!((d[0] - exact).abs() < 1e-8, "d {of} / d gap = {}", d[0]);
    }
}
