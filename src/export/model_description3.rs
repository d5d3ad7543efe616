//! modelDescription.xml for FMI 3.0 Co-Simulation (FMI 3.0.1 section 2.4), written with
//! quick-xml from the same variable table as the FMI 2.0 one (`model_description`), with the
//! same value references. What differs from FMI 2: `instantiationToken` instead of `guid`,
//! the FMI 3 capability flags, typed variable elements (`<Float64>`, `<Int32>`, `<String>`
//! with a `<Start>` child), units through `<TypeDefinitions>`, the independent variable `time` (value reference: after the
//! table, `fmi3::time_value_reference`) and `<ModelStructure>` elements naming value
//! references (`<Output>`, `<InitialUnknown>`) in `dependencies`, where FMI 2 names indices.

use std::collections::BTreeSet;

use quick_xml::events::{BytesEnd, BytesStart, Event};

use super::ExportError;
use super::xml::{
    Bounds, causality, default_experiment, dependency_lists, elem, finish, log_categories, start_document,
    unit_definitions,
};
use crate::fmi3::time_value_reference;
use crate::fmu::variables::{Role, VarType, Variables, guid};
use crate::model::{Model, TIME_VARIABLE};

/// Generate the FMI 3.0 modelDescription.xml for `model`.
pub fn model_description3(model: &Model) -> Result<String, ExportError> {
    model_description3_of(model, &Variables::new(model)?)
}

/// The FMI 3.0 modelDescription.xml for `model` with its variable table `vars` already built.
pub fn model_description3_of(model: &Model, vars: &Variables) -> Result<String, ExportError> {
    write(model, vars).map_err(|e| ExportError::Io(format!("writing modelDescription.xml: {e}")))
}

/// Texts shared with FMI 2 that name FMI 2 functions, in FMI 3 words.
pub fn fmi3_words(text: &str) -> String {
    text.replace("fmi2SetupExperiment", "fmi3EnterInitializationMode").replace("fmi2", "fmi3")
}

fn write(model: &Model, vars: &Variables) -> std::io::Result<String> {
    let name = model.name();
    let token = guid(&model.source);
    let mut w = start_document(model, "3.0", ("instantiationToken", token.as_str()))?;

    // Only what src/fmi3 implements: output derivatives up to order 2 and directional
    // derivatives (src/fmi3/derivatives.rs), early return at contact events for models that
    // have them (src/fmi3/api.rs, fmi3DoStep); no Event Mode, no intermediate update, no
    // adjoint derivatives or per-element dependencies.
    w.write_event(Event::Empty(elem(
        "CoSimulation",
        &[
            ("modelIdentifier", name),
            ("canGetAndSetFMUState", "true"),
            ("canSerializeFMUState", "true"),
            ("providesDirectionalDerivatives", "true"),
            ("providesAdjointDerivatives", "false"),
            ("providesPerElementDependencies", "false"),
            ("canHandleVariableCommunicationStepSize", "true"),
            ("maxOutputDerivativeOrder", "2"),
            ("providesIntermediateUpdate", "false"),
            ("mightReturnEarlyFromDoStep", if vars.events { "true" } else { "false" }),
            ("canReturnEarlyAfterIntermediateUpdate", "false"),
            ("hasEventMode", "false"),
            ("providesEvaluateDiscreteStates", "false"),
        ],
    )))?;

    let mut units: BTreeSet<&str> = vars.list.iter().map(|v| v.unit.as_str()).filter(|u| !u.is_empty()).collect();
    units.insert("s");
    unit_definitions(&mut w, units.iter().copied())?;
    // A Float64 variable names its unit through a type named after it (declaredType), as the
    // Reference FMUs do, rather than a `unit` attribute on the variable: both are FMI 3.0,
    // and importers with incomplete schemas (the `fmi` crate 0.8) read only the first.
    w.write_event(Event::Start(BytesStart::new("TypeDefinitions")))?;
    for u in &units {
        w.write_event(Event::Empty(elem("Float64Type", &[("name", u), ("unit", u)])))?;
    }
    w.write_event(Event::End(BytesEnd::new("TypeDefinitions")))?;

    log_categories(&mut w, fmi3_words)?;
    default_experiment(&mut w, vars)?;

    w.write_event(Event::Start(BytesStart::new("ModelVariables")))?;
    let time_vr = time_value_reference(vars).to_string();
    w.write_event(Event::Empty(elem(
        "Float64",
        &[
            ("name", TIME_VARIABLE),
            ("valueReference", time_vr.as_str()),
            ("description", "simulation time"),
            ("causality", "independent"),
            ("variability", "continuous"),
            ("declaredType", "s"),
        ],
    )))?;
    for v in &vars.list {
        let vr = v.vr.to_string();
        let description = fmi3_words(&v.description);
        let mut attrs = vec![("name", v.name.as_str()), ("valueReference", vr.as_str())];
        if !description.is_empty() {
            attrs.push(("description", description.as_str()));
        }
        attrs.extend(causality(v));
        if v.ty == VarType::String {
            w.write_event(Event::Start(elem("String", &attrs)))?;
            let start = v.start_text().unwrap_or_default();
            w.write_event(Event::Empty(elem("Start", &[("value", start)])))?;
            w.write_event(Event::End(BytesEnd::new("String")))?;
            continue;
        }
        if v.ty == VarType::Real && !v.unit.is_empty() {
            attrs.push(("declaredType", v.unit.as_str()));
        }
        let bounds = Bounds::of(v);
        bounds.push(&mut attrs);
        let tag = if v.ty == VarType::Integer { "Int32" } else { "Float64" };
        w.write_event(Event::Empty(elem(tag, &attrs)))?;
    }
    w.write_event(Event::End(BytesEnd::new("ModelVariables")))?;

    w.write_event(Event::Start(BytesStart::new("ModelStructure")))?;
    // FMI 3.0.1 section 2.4.8: the same sets as FMI 2's `<Outputs>`/`<InitialUnknowns>`
    // (`model_description`), named by value reference. In Step Mode the knowns are the inputs
    // the output depends on directly (`Simulation::direct_dependencies`); in Initialization
    // Mode also the inputs that move the initial state and the model parameters that reach
    // the output's initial value (`Variables::initial_dependencies`). Every known enters through the solver:
    // dependenciesKind "dependent".
    let input_vr: Vec<u32> = vars.list.iter().filter(|v| matches!(v.role, Role::Input(_))).map(|v| v.vr).collect();
    let knowns = vars.initial_knowns();
    for section in ["Output", "InitialUnknown"] {
        for v in vars.outputs() {
            let known: Vec<u32> = if section == "InitialUnknown" {
                knowns.of(v)
            } else {
                v.input_dependencies.iter().map(|&i| input_vr[i]).collect()
            };
            let vr = v.vr.to_string();
            let (dependencies, kinds) = dependency_lists(&known);
            w.write_event(Event::Empty(elem(
                section,
                &[
                    ("valueReference", vr.as_str()),
                    ("dependencies", dependencies.as_str()),
                    ("dependenciesKind", kinds.as_str()),
                ],
            )))?;
        }
    }
    finish(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The generated FMI 3 XML of every model in models/ equals its snapshot in
    /// modelDescription3/. Regenerate with `FLEXFMU_BLESS=1 cargo test`.
    #[test]
    fn model_descriptions_match_snapshots() {
        super::super::xml::check_snapshots("modelDescription3", model_description3);
    }

    #[test]
    fn time_is_the_independent_variable_after_the_table() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let model = Model::load(&root.join("models/mass_spring.toml")).unwrap();
        let vars = Variables::new(&model).unwrap();
        let xml = model_description3_of(&model, &vars).unwrap();
        let time = format!(r#"<Float64 name="time" valueReference="{}""#, vars.list.len());
        assert!(xml.contains(&time), "{xml}");
        assert!(xml.contains(r#"causality="independent""#));
        assert!(
            xml.contains(r#"fmiVersion="3.0""#)
                && xml.contains(&format!(r#"instantiationToken="{}""#, guid(&model.source)))
        );
    }
}
