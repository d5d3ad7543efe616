//! `<InitialUnknowns>` (FMI 2.0.5 sec. 2.2.8) and `<InitialUnknown>` (FMI 3.0.1 sec. 2.4.8)
//! for every model in models/: the unknowns are exactly the outputs (initial = "calculated"),
//! in value-reference order, with no parameter among them (no calculated parameters, no
//! states or derivatives in Co-Simulation); and every known an output is declared not to
//! depend on leaves it unchanged when set in Initialization Mode (the FMU builds its initial
//! state with `Simulation::new` and `set_initial_inputs`, so the facade is probed): each solver
//! setting (no output depends on one), each real parameter and each input, with the inputs at
//! their start values and with the driving inputs moved (the drives followed).

use std::collections::BTreeSet;
use std::path::Path;

use flexfmu::export::model_description::model_description_of;
use flexfmu::export::model_description3::model_description3_of;
use flexfmu::export::variables::{Role, Variables};
use flexfmu::model::{Model, ParameterKind, ParameterReach};
use flexfmu::simulation::{ConstraintTreatment, Experiment, Method, Simulation, SolverSettings};

fn models() -> Vec<Model> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let mut paths: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    paths.iter().map(|p| Model::load(p).unwrap()).collect()
}

/// The `(unknown, dependencies)` pairs of the `section` elements (`Unknown` in FMI 2, the
/// section itself in FMI 3) of `xml`, as written (numbers).
fn section(xml: &str, open: &str, close: &str, element: &str, key: &str) -> Vec<(u32, Vec<u32>)> {
    let Some(start) = xml.find(open) else { return Vec::new() };
    let body = &xml[start..start + xml[start..].find(close).unwrap_or(xml.len() - start)];
    let attribute = |e: &str, name: &str| -> String {
        let at = e.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        e[at..at + e[at..].find('"').unwrap()].to_string()
    };
    body.split(&format!("<{element} "))
        .skip(1)
        .map(|e| {
            let e = &format!(" {e}");
            let numbers = attribute(e, "dependencies").split_whitespace().map(|x| x.parse().unwrap()).collect();
            (attribute(e, key).parse().unwrap(), numbers)
        })
        .collect()
}

#[test]
fn initial_unknowns_are_the_outputs_with_the_declared_knowns() {
    for model in models() {
        let name = model.name().to_string();
        let vars = Variables::new(&model).unwrap();
        let outputs: Vec<u32> = vars.outputs().map(|v| v.vr).collect();
        let solver: BTreeSet<u32> =
            vars.list.iter().filter(|v| matches!(v.role, Role::Solver(_))).map(|v| v.vr).collect();
        let parameters = |keep: &dyn Fn(&flexfmu::export::variables::Variable) -> bool| -> BTreeSet<u32> {
            vars.list.iter().filter(|v| matches!(v.role, Role::Parameter(_)) && keep(v)).map(|v| v.vr).collect()
        };
        // Mentioned anywhere; mentioned outside initial velocities, and fixed unless a drive
        // reads an input (then the drives move the configuration with forces and masses).
        let mentioned = parameters(&|v| v.reach != ParameterReach::Nothing);
        let configuration = parameters(&|v| v.reach == ParameterReach::Everything && (vars.driven || !v.tunable));
        let xml2 = model_description_of(&model, &vars).unwrap();
        let xml3 = model_description3_of(&model, &vars).unwrap();
        let fmi2 = section(&xml2, "<InitialUnknowns>", "</InitialUnknowns>", "Unknown", "index");
        let fmi3 = section(&xml3, "<InitialUnknown ", "</ModelStructure>", "InitialUnknown", "valueReference");
        // FMI 2 names 1-based indices, FMI 3 value references; the same sets.
        let fmi2: Vec<(u32, Vec<u32>)> =
            fmi2.into_iter().map(|(i, d)| (i - 1, d.into_iter().map(|x| x - 1).collect())).collect();
        assert_eq!(fmi2, fmi3, "{name}");
        assert_eq!(fmi3.iter().map(|u| u.0).collect::<Vec<_>>(), outputs, "{name}: the unknowns are the outputs");
        let inputs: Vec<u32> = vars.list.iter().filter(|v| matches!(v.role, Role::Input(_))).map(|v| v.vr).collect();
        for ((vr, known), v) in fmi3.iter().zip(vars.outputs()) {
            let known: BTreeSet<u32> = known.iter().copied().collect();
            assert!(known.is_disjoint(&solver), "{name}: output {vr} declares a solver setting");
            // The inputs it depends on at communication points and those moving its initial
            // value (probed below and through an importer in fmu_dependencies.rs), and the
            // parameters that reach it; nothing for the energy exchanged since the start.
            let parameters = if v.configuration { configuration.clone() } else { mentioned.clone() };
            let expected: BTreeSet<u32> = if v.zero_at_start {
                BTreeSet::new()
            } else {
                v.input_dependencies.iter().chain(&v.initial_inputs).map(|&i| inputs[i]).chain(parameters).collect()
            };
            assert_eq!(known, expected, "{name}: output {} ({vr})", v.name);
        }
    }
}

/// The outputs of a fresh simulation (what the FMU reads in Initialization Mode), with
/// `inputs` set before the first step if given; None if it cannot start there.
fn initial_outputs(
    model: &Model,
    params: &[f64],
    settings: SolverSettings,
    inputs: Option<&[f64]>,
) -> Option<Vec<f64>> {
    let start = Experiment::from_model(model, params).ok()?.start_time;
    let mut sim = Simulation::new(model, params, settings, start).ok()?;
    if let Some(u) = inputs {
        sim.set_initial_inputs(u, &[]).ok()?;
    }
    Some(sim.output_values().ok()?.to_vec())
}

/// Whether `a` and `b` differ: bit for bit, or, where the drives were followed (a Newton
/// iteration: `Workspace::follow_drives`), by more than 1e-13 of their size (a driven joint's
/// coordinate is its drive's value to the last bits of that iteration).
fn differ(a: f64, b: f64, exact: bool) -> bool {
    if exact { a.to_bits() != b.to_bits() } else { (a - b).abs() > 1e-13 * (1.0 + a.abs().max(b.abs())) }
}

#[test]
fn undeclared_knowns_leave_the_initial_outputs_unchanged() {
    let (mut settings_probed, mut parameters_probed, mut inputs_probed, mut moved_models) = (0, 0, 0, 0);
    for model in models() {
        let name = model.name().to_string();
        let vars = Variables::new(&model).unwrap();
        let params = model.default_parameters();
        let settings = SolverSettings::from_model(&model, &params).unwrap();
        let base = initial_outputs(&model, &params, settings, None).unwrap();
        let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();

        // Every solver setting, to other valid values: no output changes.
        let mut variants = Vec::new();
        for method in Method::ALL {
            let rho_inf = method.default_rho_inf(settings.rho_inf);
            variants.push(SolverSettings { method, rho_inf, ..settings });
        }
        for constraints in ConstraintTreatment::ALL {
            variants.push(SolverSettings { constraints, ..settings });
        }
        let mut s = settings;
        s.step *= 0.37;
        s.tolerance *= 0.1;
        s.max_iterations += 7;
        s.error_control.enabled = !s.error_control.enabled;
        s.error_control.rtol *= 0.5;
        s.error_control.atol = 1e-9;
        s.baumgarte.alpha += 3.0;
        s.baumgarte.beta += 2.0;
        variants.push(s);
        for s in variants.into_iter().filter(|s| s.validate().is_ok()) {
            let other = initial_outputs(&model, &params, s, None).unwrap();
            assert_eq!(bits(&other), bits(&base), "{name}: {s:?}");
            settings_probed += 1;
        }

        // Every real parameter changed by 1 % and every input changed in Initialization Mode:
        // an output that does not declare it does not change, with the inputs at their start
        // values and, in a model with a driving input, with each driving input moved 0.2 from
        // its start (the drives followed: a tunable mass or stiffness moves the configuration
        // then, and so does a load that turns with what a drive carries).
        let declared: Vec<BTreeSet<u32>> =
            vars.outputs().map(|v| vars.initial_dependencies(v).into_iter().collect()).collect();
        let input_vr: Vec<u32> = vars.list.iter().filter(|v| matches!(v.role, Role::Input(_))).map(|v| v.vr).collect();
        let start: Vec<f64> = model.definition.inputs.iter().map(|i| i.start.0).collect();
        let mut states = vec![None];
        let t0 = Experiment::from_model(&model, &params).unwrap().start_time;
        let sim = Simulation::new(&model, &params, settings, t0).unwrap();
        if (0..start.len()).any(|i| sim.input_drives_a_joint(i)) {
            let moved: Vec<f64> =
                start.iter().enumerate().map(|(i, u)| if sim.input_drives_a_joint(i) { u + 0.2 } else { *u }).collect();
            states.push(Some(moved));
            moved_models += 1;
        }
        for state in &states {
            let at = state.as_deref();
            let Some(here) = initial_outputs(&model, &params, settings, at) else {
                panic!("{name}: cannot start at {at:?}")
            };
            let check = |other: &[f64], known: u32, what: &str, exact: bool| {
                for (k, (a, b)) in here.iter().zip(other).enumerate() {
                    if differ(*a, *b, exact) {
                        assert!(
                            declared[k].contains(&known),
                            "{name}: {what} changes output {k} ({a} -> {b}) but is not declared (inputs {at:?})"
                        );
                    }
                }
            };
            for (i, p) in model.parameters.iter().enumerate() {
                if p.kind != ParameterKind::Real {
                    continue;
                }
                let mut other = params.clone();
                other[i] = if params[i] == 0.0 { 1e-3 } else { params[i] * 1.01 };
                if model.check_parameters(&other).is_err() {
                    other[i] = params[i] * 0.99;
                }
                let Some(changed) = initial_outputs(&model, &other, settings, at) else { continue };
                let vr = vars.list.iter().find(|v| v.role == Role::Parameter(i)).unwrap().vr;
                check(&changed, vr, &p.name, at.is_none());
                parameters_probed += 1;
            }
            for (i, &vr) in input_vr.iter().enumerate() {
                let mut u = at.map_or_else(|| start.clone(), <[f64]>::to_vec);
                u[i] += if sim.input_drives_a_joint(i) { 0.1 } else { 1.0 + u[i].abs() };
                let changed = initial_outputs(&model, &params, settings, Some(&u)).unwrap();
                check(&changed, vr, &model.definition.inputs[i].name.get_ref().clone(), false);
                inputs_probed += 1;
            }
        }
    }
    println!(
        "{settings_probed} solver-setting variants, {parameters_probed} parameters and {inputs_probed} inputs probed \
         ({moved_models} models also with the drives moved)"
    );
    assert!(settings_probed > 50 && parameters_probed > 100 && inputs_probed >= 10 && moved_models >= 1);
}
