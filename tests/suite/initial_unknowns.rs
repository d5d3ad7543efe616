//! `<InitialUnknowns>` (FMI 2.0.5 sec. 2.2.8) and `<InitialUnknown>` (FMI 3.0.1 sec. 2.4.8)
//! for every model in models/: the unknowns are exactly the outputs (initial = "calculated"),
//! in value-reference order, with no parameter among them (no calculated parameters, no
//! states or derivatives in Co-Simulation); and every known an output is declared not to
//! depend on leaves it unchanged, bit for bit, when set in Initialization Mode (the FMU
//! builds its initial state with `Simulation::new`, so the facade is probed): each solver
//! setting (no output depends on one) and each tunable parameter for the outputs of the
//! configuration alone (positions, angles, penetrations).

use std::collections::BTreeSet;
use std::path::Path;

use flexfmu::export::model_description::model_description_of;
use flexfmu::export::model_description3::model_description3_of;
use flexfmu::export::variables::{Role, Variables};
use flexfmu::model::{Model, ParameterKind};
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
        let model_parameters: BTreeSet<u32> =
            vars.list.iter().filter(|v| matches!(v.role, Role::Parameter(_))).map(|v| v.vr).collect();
        let fixed: BTreeSet<u32> =
            vars.list.iter().filter(|v| matches!(v.role, Role::Parameter(_)) && !v.tunable).map(|v| v.vr).collect();
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
            // The inputs it depends on at communication points and those placing its driven
            // joints at the start (probed through an importer in fmu_dependencies.rs), every
            // fixed parameter, and
            // the tunable ones unless it is an output of the configuration alone.
            let parameters = if v.configuration { fixed.clone() } else { model_parameters.clone() };
            let expected: BTreeSet<u32> =
                v.input_dependencies.iter().chain(&v.initial_inputs).map(|&i| inputs[i]).chain(parameters).collect();
            assert_eq!(known, expected, "{name}: output {} ({vr})", v.name);
        }
    }
}

/// The outputs of a fresh simulation (what the FMU reads in Initialization Mode).
fn initial_outputs(model: &Model, params: &[f64], settings: SolverSettings) -> Option<Vec<u64>> {
    let start = Experiment::from_model(model, params).ok()?.start_time;
    let mut sim = Simulation::new(model, params, settings, start).ok()?;
    Some(sim.output_values().ok()?.iter().map(|x| x.to_bits()).collect())
}

#[test]
fn undeclared_knowns_leave_the_initial_outputs_unchanged() {
    let (mut settings_probed, mut tunable_probed) = (0, 0);
    for model in models() {
        let name = model.name().to_string();
        let vars = Variables::new(&model).unwrap();
        let params = model.default_parameters();
        let settings = SolverSettings::from_model(&model, &params).unwrap();
        let base = initial_outputs(&model, &params, settings).unwrap();

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
            assert_eq!(initial_outputs(&model, &params, s).as_ref(), Some(&base), "{name}: {s:?}");
            settings_probed += 1;
        }

        // Every tunable parameter, changed by 1 %: the outputs of the configuration alone
        // (declared without it) do not change.
        let configuration: Vec<usize> =
            vars.outputs().enumerate().filter(|(_, v)| v.configuration).map(|(k, _)| k).collect();
        for (i, p) in model.parameters.iter().enumerate() {
            let tunable = vars.list.iter().any(|v| v.role == Role::Parameter(i) && v.tunable);
            if !tunable || p.kind != ParameterKind::Real {
                continue;
            }
            let mut other = params.clone();
            other[i] = if params[i] == 0.0 { 1e-3 } else { params[i] * 1.01 };
            if model.check_parameters(&other).is_err() {
                other[i] = params[i] * 0.99;
            }
            let Some(changed) = initial_outputs(&model, &other, settings) else { continue };
            for &k in &configuration {
                assert_eq!(changed[k], base[k], "{name}: {} changes output {k}", p.name);
            }
            tunable_probed += 1;
        }
    }
    println!("{settings_probed} solver-setting variants and {tunable_probed} tunable parameters probed");
    assert!(settings_probed > 50 && tunable_probed > 20);
}
