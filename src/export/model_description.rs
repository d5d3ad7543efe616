//! modelDescription.xml for FMI 2.0 Co-Simulation, written with quick-xml.

use std::collections::BTreeSet;

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, Event};

use super::ExportError;
use crate::fmu::log::Category;
use crate::fmu::variables::{Role, VarType, Variable, Variables, guid};
use crate::model::Model;

/// `xs:double` text that reads back to the same value.
pub fn real(x: f64) -> String {
    format!("{x:?}")
}

pub(super) fn integer(x: f64) -> String {
    format!("{}", x as i64)
}

pub(super) fn elem<'a>(name: &'a str, attrs: &[(&'a str, &'a str)]) -> BytesStart<'a> {
    let mut e = BytesStart::new(name);
    for (k, v) in attrs {
        e.push_attribute((*k, *v));
    }
    e
}

/// Generate modelDescription.xml for `model`.
pub fn model_description(model: &Model) -> Result<String, ExportError> {
    model_description_of(model, &Variables::new(model)?)
}

/// modelDescription.xml for `model` with its variable table `vars` already built.
pub fn model_description_of(model: &Model, vars: &Variables) -> Result<String, ExportError> {
    write(model, vars).map_err(|e| ExportError::Io(format!("writing modelDescription.xml: {e}")))
}

fn write(model: &Model, vars: &Variables) -> std::io::Result<String> {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let name = model.name();
    let guid = guid(&model.source);
    let tool = format!("flexfmu {}", env!("CARGO_PKG_VERSION"));
    let description = model.definition.model.description.as_str();
    let mut root = vec![("fmiVersion", "2.0"), ("modelName", name), ("guid", guid.as_str())];
    if !description.is_empty() {
        root.push(("description", description));
    }
    root.extend([("generationTool", tool.as_str()), ("variableNamingConvention", "flat")]);
    w.write_event(Event::Start(elem("fmiModelDescription", &root)))?;

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
        w.write_event(Event::Start(BytesStart::new("UnitDefinitions")))?;
        for u in units {
            w.write_event(Event::Empty(elem("Unit", &[("name", u)])))?;
        }
        w.write_event(Event::End(BytesEnd::new("UnitDefinitions")))?;
    }

    w.write_event(Event::Start(BytesStart::new("LogCategories")))?;
    for c in Category::ALL {
        w.write_event(Event::Empty(elem("Category", &[("name", c.name()), ("description", c.description())])))?;
    }
    w.write_event(Event::End(BytesEnd::new("LogCategories")))?;

    let ex = &vars.experiment;
    let (start, stop) = (real(ex.start_time), real(ex.stop_time));
    let step = ex.output_interval.map(real);
    let mut de = vec![("startTime", start.as_str()), ("stopTime", stop.as_str())];
    if let Some(s) = &step {
        de.push(("stepSize", s.as_str()));
    }
    w.write_event(Event::Empty(elem("DefaultExperiment", &de)))?;

    w.write_event(Event::Start(BytesStart::new("ModelVariables")))?;
    for v in &vars.list {
        let vr = v.vr.to_string();
        let mut attrs = vec![("name", v.name.as_str()), ("valueReference", vr.as_str())];
        if !v.description.is_empty() {
            attrs.push(("description", v.description.as_str()));
        }
        match v.role {
            Role::Parameter(_) => attrs.extend([
                ("causality", "parameter"),
                ("variability", if v.tunable { "tunable" } else { "fixed" }),
                ("initial", "exact"),
            ]),
            Role::Solver(_) => {
                attrs.extend([("causality", "parameter"), ("variability", "tunable"), ("initial", "exact")])
            }
            Role::Input(_) => attrs.extend([("causality", "input"), ("variability", "continuous")]),
            Role::Output(_) => {
                attrs.extend([("causality", "output"), ("variability", "continuous"), ("initial", "calculated")])
            }
        }
        w.write_event(Event::Start(elem("ScalarVariable", &attrs)))?;
        if v.ty == VarType::String {
            let start = v.start_text().unwrap_or_default();
            w.write_event(Event::Empty(elem("String", &[("start", start)])))?;
            w.write_event(Event::End(BytesEnd::new("ScalarVariable")))?;
            continue;
        }
        let fmt = |x: f64| if v.ty == VarType::Integer { integer(x) } else { real(x) };
        let (start, min, max) = (v.start.map(fmt), v.min.map(fmt), v.max.map(fmt));
        let mut ta: Vec<(&str, &str)> = Vec::new();
        if v.ty == VarType::Real && !v.unit.is_empty() {
            ta.push(("unit", v.unit.as_str()));
        }
        if let Some(m) = &min {
            ta.push(("min", m.as_str()));
        }
        if let Some(m) = &max {
            ta.push(("max", m.as_str()));
        }
        if let Some(s) = &start {
            ta.push(("start", s.as_str()));
        }
        let tag = if v.ty == VarType::Integer { "Integer" } else { "Real" };
        w.write_event(Event::Empty(elem(tag, &ta)))?;
        w.write_event(Event::End(BytesEnd::new("ScalarVariable")))?;
    }
    w.write_event(Event::End(BytesEnd::new("ModelVariables")))?;

    w.write_event(Event::Start(BytesStart::new("ModelStructure")))?;
    // FMI 2.0 sec. 2.2.8: `dependencies` lists the knowns an unknown depends on. At a
    // communication point the knowns are the inputs: the direct dependencies of
    // `Simulation::direct_dependencies` (only accelerations and reactions respond to
    // inputs). In Initialization Mode the parameters (initial = "exact") are knowns too:
    // `Variables::initial_dependencies` (the model parameters the initial state is assembled
    // from, not the solver settings; a parameter is never connected to another FMU's output,
    // so this creates no algebraic loop). Every known enters through the solver:
    // dependenciesKind "dependent". Unknowns: the outputs (initial = "calculated"); no
    // calculated parameters, and no states or derivatives (no <Derivatives> in Co-Simulation).
    let index_of = |vr: u32| vars.get(vr).map_or(0, Variable::index);
    let input_index: Vec<usize> =
        vars.list.iter().filter(|v| matches!(v.role, Role::Input(_))).map(|v| v.index()).collect();
    for section in ["Outputs", "InitialUnknowns"] {
        if vars.outputs().next().is_none() {
            continue;
        }
        w.write_event(Event::Start(BytesStart::new(section)))?;
        for v in vars.outputs() {
            let known: Vec<usize> = if section == "InitialUnknowns" {
                vars.initial_dependencies(v).into_iter().map(index_of).collect()
            } else {
                v.input_dependencies.iter().map(|&i| input_index[i]).collect()
            };
            let index = v.index().to_string();
            let dependencies = known.iter().map(usize::to_string).collect::<Vec<_>>().join(" ");
            let kinds = vec!["dependent"; known.len()].join(" ");
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
    w.write_event(Event::End(BytesEnd::new("ModelStructure")))?;
    w.write_event(Event::End(BytesEnd::new("fmiModelDescription")))?;
    let mut text = String::from_utf8(w.into_inner()).map_err(std::io::Error::other)?;
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The generated XML of every model in models/ equals its snapshot in modelDescription/.
    /// Regenerate with `FLEXFMU_BLESS=1 cargo test`.
    #[test]
    fn model_descriptions_match_snapshots() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut count = 0;
        for entry in std::fs::read_dir(root.join("models")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "toml") {
                continue;
            }
            // The GUID hashes the file text; read it as it is packaged.
            let model = Model::load(&path).unwrap();
            let xml = model_description(&model).unwrap();
            let snap =
                root.join("modelDescription").join(format!("{}.xml", path.file_stem().unwrap().to_str().unwrap()));
            if std::env::var_os("FLEXFMU_BLESS").is_some() {
                std::fs::create_dir_all(snap.parent().unwrap()).unwrap();
                std::fs::write(&snap, &xml).unwrap();
            }
            let expected = std::fs::read_to_string(&snap).unwrap_or_else(|e| panic!("{}: {e}", snap.display()));
            assert_eq!(xml, expected, "{} differs from {}", path.display(), snap.display());
            count += 1;
        }
        assert!(count > 0);
    }

    #[test]
    fn guid_depends_on_text() {
        assert_eq!(guid("a"), guid("a"));
        assert_ne!(guid("a"), guid("b"));
        assert!(guid("a").starts_with('{') && guid("a").ends_with('}'));
    }
}
