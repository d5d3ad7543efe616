//! modelDescription.xml for FMI 2.0 Co-Simulation, written with quick-xml.

use std::collections::BTreeSet;

use quick_xml::events::{BytesEnd, BytesStart, Event};

use super::ExportError;
use super::xml::{
    Bounds, causality, default_experiment, dependency_lists, elem, finish, log_categories, start_document,
    unit_definitions,
};
use crate::fmu::variables::{Role, VarType, Variable, Variables, guid};
use crate::model::Model;

/// Generate modelDescription.xml for `model`.
pub fn model_description(model: &Model) -> Result<String, ExportError> {
    model_description_of(model, &Variables::new(model)?)
}

/// modelDescription.xml for `model` with its variable table `vars` already built.
pub fn model_description_of(model: &Model, vars: &Variables) -> Result<String, ExportError> {
    write(model, vars).map_err(|e| ExportError::Io(format!("writing modelDescription.xml: {e}")))
}

fn write(model: &Model, vars: &Variables) -> std::io::Result<String> {
    let name = model.name();
    let guid = guid(&model.source);
    let mut w = start_document(model, "2.0", ("guid", guid.as_str()))?;

    w.write_event(Event::Empty(elem(
        "CoSimulation",
        &[
            ("modelIdentifier", name),
            ("canHandleVariableCommunicationStepSize", "true"),
            ("canInterpolateInputs", "true"),
            ("maxOutputDerivativeOrder", "2"),
            ("canNotUseMemoryManagementFunctions", "true"),
            ("canGetAndSetFMUstate", "true"),
            ("canSerializeFMUstate", "true"),
            ("providesDirectionalDerivative", "true"),
        ],
    )))?;

    let units: BTreeSet<&str> = vars.list.iter().map(|v| v.unit.as_str()).filter(|u| !u.is_empty()).collect();
    if !units.is_empty() {
        unit_definitions(&mut w, units)?;
    }

    log_categories(&mut w, str::to_string)?;
    default_experiment(&mut w, vars)?;

    w.write_event(Event::Start(BytesStart::new("ModelVariables")))?;
    for v in &vars.list {
        let vr = v.vr.to_string();
        let mut attrs = vec![("name", v.name.as_str()), ("valueReference", vr.as_str())];
        if !v.description.is_empty() {
            attrs.push(("description", v.description.as_str()));
        }
        attrs.extend(causality(v));
        w.write_event(Event::Start(elem("ScalarVariable", &attrs)))?;
        if v.ty == VarType::String {
            let start = v.start_text().unwrap_or_default();
            w.write_event(Event::Empty(elem("String", &[("start", start)])))?;
            w.write_event(Event::End(BytesEnd::new("ScalarVariable")))?;
            continue;
        }
        let bounds = Bounds::of(v);
        let mut ta: Vec<(&str, &str)> = Vec::new();
        if v.ty == VarType::Real && !v.unit.is_empty() {
            ta.push(("unit", v.unit.as_str()));
        }
        bounds.push(&mut ta);
        let tag = if v.ty == VarType::Integer { "Integer" } else { "Real" };
        w.write_event(Event::Empty(elem(tag, &ta)))?;
        w.write_event(Event::End(BytesEnd::new("ScalarVariable")))?;
    }
    w.write_event(Event::End(BytesEnd::new("ModelVariables")))?;

    w.write_event(Event::Start(BytesStart::new("ModelStructure")))?;
    // FMI 2.0 sec. 2.2.8: `dependencies` lists the knowns an unknown depends on. At a
    // communication point the knowns are the inputs: the direct dependencies of
    // `Simulation::direct_dependencies` (only accelerations and reactions respond to
    // inputs, and the potential energy where a spring's free length reads one). In
    // Initialization Mode the parameters (initial = "exact") are knowns too, and the inputs
    // that move the initial state: `Variables::initial_dependencies` (the model parameters
    // that reach the output's initial value, not the solver settings; a parameter is never
    // connected to another FMU's output, so this creates no algebraic loop). Every known enters through the solver:
    // dependenciesKind "dependent". Unknowns: the outputs (initial = "calculated"); no
    // calculated parameters, and no states or derivatives (no <Derivatives> in Co-Simulation).
    let index_of = |vr: u32| vars.get(vr).map_or(0, Variable::index);
    let input_index: Vec<usize> =
        vars.list.iter().filter(|v| matches!(v.role, Role::Input(_))).map(|v| v.index()).collect();
    let knowns = vars.initial_knowns();
    for section in ["Outputs", "InitialUnknowns"] {
        if vars.outputs().next().is_none() {
            continue;
        }
        w.write_event(Event::Start(BytesStart::new(section)))?;
        for v in vars.outputs() {
            let known: Vec<usize> = if section == "InitialUnknowns" {
                knowns.of(v).into_iter().map(index_of).collect()
            } else {
                v.input_dependencies.iter().map(|&i| input_index[i]).collect()
            };
            let index = v.index().to_string();
            let (dependencies, kinds) = dependency_lists(&known);
            w.write_event(Event::Empty(elem(
                "Unknown",
                &[
                    ("index", index.as_str()),
                    ("dependencies", dependencies.as_str()),
                    ("dependenciesKind", kinds.as_str()),
                ],
            )))?;
        }
        w.write_event(Event::End(BytesEnd::new(section)))?;
    }
    finish(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generated XML of every model in models/ equals its snapshot in modelDescription/.
    /// Regenerate with `FLEXFMU_BLESS=1 cargo test`.
    #[test]
    fn model_descriptions_match_snapshots() {
        super::super::xml::check_snapshots("modelDescription", model_description);
    }

    #[test]
    fn guid_depends_on_text() {
        assert_eq!(guid("a"), guid("a"));
        assert_ne!(guid("a"), guid("b"));
        assert!(guid("a").starts_with('{') && guid("a").ends_with('}'));
    }
}
