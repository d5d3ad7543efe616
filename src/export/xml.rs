//! What the FMI 2.0 and 3.0 modelDescription.xml writers share: number texts, the document
//! root, the variables' causality and bounds, log categories, the default experiment, the
//! dependency lists and the snapshot test of every example model.

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, Event};

use crate::fmu::log::Category;
use crate::fmu::variables::{Role, VarType, Variable, Variables};
use crate::model::Model;

pub type XmlWriter = Writer<Vec<u8>>;

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
        if v.contains(['\t', '\n', '\r']) {
            // An XML parser turns a literal tab or line break in an attribute into a space
            // (attribute-value normalization, XML 1.0 sec. 3.3.3): written as character
            // references they are read back (a description with a tab arrived as a space).
            let text =
                quick_xml::escape::escape(*v).replace('\t', "&#9;").replace('\n', "&#10;").replace('\r', "&#13;");
            e.push_attribute(quick_xml::events::attributes::Attribute {
                key: quick_xml::name::QName(k.as_bytes()),
                value: std::borrow::Cow::Owned(text.into_bytes()),
            });
        } else {
            e.push_attribute((*k, *v));
        }
    }
    e
}

/// An indenting writer with the XML declaration and the opened `<fmiModelDescription>` of
/// `version`, identified by `id` (FMI 2: `guid`, FMI 3: `instantiationToken`).
pub(super) fn start_document(model: &Model, version: &str, id: (&str, &str)) -> std::io::Result<XmlWriter> {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let tool = format!("flexfmu {}", env!("CARGO_PKG_VERSION"));
    let description = model.definition.model.description.as_str();
    let mut root = vec![("fmiVersion", version), ("modelName", model.name()), id];
    if !description.is_empty() {
        root.push(("description", description));
    }
    root.extend([("generationTool", tool.as_str()), ("variableNamingConvention", "flat")]);
    w.write_event(Event::Start(elem("fmiModelDescription", &root)))?;
    Ok(w)
}

/// Close `<ModelStructure>` and the document; the text with a final newline.
pub(super) fn finish(mut w: XmlWriter) -> std::io::Result<String> {
    w.write_event(Event::End(BytesEnd::new("ModelStructure")))?;
    w.write_event(Event::End(BytesEnd::new("fmiModelDescription")))?;
    let mut text = String::from_utf8(w.into_inner()).map_err(std::io::Error::other)?;
    text.push('\n');
    Ok(text)
}

/// `<UnitDefinitions>` of `units`, each with its `<BaseUnit>` where its string tells it
/// (src/export/units.rs): exponents of the SI base units and a factor, what an importer checks
/// connections and converts values with.
pub(super) fn unit_definitions<'a>(w: &mut XmlWriter, units: impl IntoIterator<Item = &'a str>) -> std::io::Result<()> {
    w.write_event(Event::Start(BytesStart::new("UnitDefinitions")))?;
    for u in units {
        match super::units::base_unit(u) {
            Some(base) => {
                w.write_event(Event::Start(elem("Unit", &[("name", u)])))?;
                let attributes = base.attributes();
                let attributes: Vec<(&str, &str)> = attributes.iter().map(|(k, v)| (*k, v.as_str())).collect();
                w.write_event(Event::Empty(elem("BaseUnit", &attributes)))?;
                w.write_event(Event::End(BytesEnd::new("Unit")))?;
            }
            None => w.write_event(Event::Empty(elem("Unit", &[("name", u)])))?,
        }
    }
    w.write_event(Event::End(BytesEnd::new("UnitDefinitions")))
}

/// `<LogCategories>`, descriptions passed through `words` (FMI 3 names its own functions).
pub(super) fn log_categories(w: &mut XmlWriter, words: impl Fn(&str) -> String) -> std::io::Result<()> {
    w.write_event(Event::Start(BytesStart::new("LogCategories")))?;
    for c in Category::ALL {
        let description = words(c.description());
        w.write_event(Event::Empty(elem("Category", &[("name", c.name()), ("description", description.as_str())])))?;
    }
    w.write_event(Event::End(BytesEnd::new("LogCategories")))
}

/// `<DefaultExperiment>` from the model's experiment.
pub(super) fn default_experiment(w: &mut XmlWriter, vars: &Variables) -> std::io::Result<()> {
    let ex = &vars.experiment;
    let (start, stop) = (real(ex.start_time), real(ex.stop_time));
    let step = ex.output_interval.map(real);
    let mut de = vec![("startTime", start.as_str()), ("stopTime", stop.as_str())];
    if let Some(s) = &step {
        de.push(("stepSize", s.as_str()));
    }
    w.write_event(Event::Empty(elem("DefaultExperiment", &de)))
}

/// causality, variability and initial of a variable (the same in FMI 2.0 and 3.0; a tunable
/// parameter may change at communication points, as the FMU has no Event Mode: FMI 3.0.1
/// section 2.4.7.4).
pub(super) fn causality(v: &Variable) -> Vec<(&'static str, &'static str)> {
    match v.role {
        Role::Parameter(_) => vec![
            ("causality", "parameter"),
            ("variability", if v.tunable { "tunable" } else { "fixed" }),
            ("initial", "exact"),
        ],
        Role::Solver(_) => vec![("causality", "parameter"), ("variability", "tunable"), ("initial", "exact")],
        Role::Input(_) => vec![("causality", "input"), ("variability", "continuous")],
        Role::Output(_) => vec![
            ("causality", "output"),
            ("variability", if v.discrete { "discrete" } else { "continuous" }),
            ("initial", "calculated"),
        ],
    }
}

/// The texts of a numeric variable's min, max and start (integers without a fraction).
pub(super) struct Bounds([Option<String>; 3]);

impl Bounds {
    pub fn of(v: &Variable) -> Bounds {
        let fmt = |x: f64| if v.ty == VarType::Integer { integer(x) } else { real(x) };
        Bounds([v.min.map(fmt), v.max.map(fmt), v.start.map(fmt)])
    }

    /// Append min, max and start, in that order, where given.
    pub fn push<'a>(&'a self, attrs: &mut Vec<(&'a str, &'a str)>) {
        for (name, value) in ["min", "max", "start"].into_iter().zip(&self.0) {
            if let Some(x) = value {
                attrs.push((name, x.as_str()));
            }
        }
    }
}

/// The `dependencies` and `dependenciesKind` texts of a list of knowns (every known enters
/// through the solver: "dependent").
pub(super) fn dependency_lists<T: ToString>(known: &[T]) -> (String, String) {
    let dependencies = known.iter().map(T::to_string).collect::<Vec<_>>().join(" ");
    (dependencies, vec!["dependent"; known.len()].join(" "))
}

/// The XML `generate` writes for every model in models/ equals its snapshot in `dir`/
/// (`FLEXFMU_BLESS=1` rewrites the snapshots).
#[cfg(test)]
pub(super) fn check_snapshots(dir: &str, generate: impl Fn(&Model) -> Result<String, super::ExportError>) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut count = 0;
    for entry in std::fs::read_dir(root.join("models")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        // The GUID hashes the file text; read it as it is packaged.
        let model = Model::load(&path).unwrap();
        let xml = generate(&model).unwrap();
        let snap = root.join(dir).join(format!("{}.xml", path.file_stem().unwrap().to_str().unwrap()));
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

#[cfg(test)]
mod tests {
    use super::*;
    use quick_xml::events::Event;

    /// Tabs and line breaks in attribute values are written as character references, which
    /// an XML parser reads back (a literal one it would turn into a space); the other special
    /// characters as entities.
    #[test]
    fn tabs_and_line_breaks_in_attributes_survive_a_parser() {
        let text = "a\tb\nc\rd <&>\"'";
        let mut w = quick_xml::Writer::new(Vec::new());
        w.write_event(Event::Empty(elem("x", &[("description", text)]))).unwrap();
        let xml = String::from_utf8(w.into_inner()).unwrap();
        assert!(!xml.contains(['\t', '\n', '\r']), "{xml}");
        let value = xml.split('"').nth(1).unwrap();
        assert_eq!(value, "a&#9;b&#10;c&#13;d &lt;&amp;&gt;&quot;&apos;");
        assert_eq!(quick_xml::escape::unescape(value).unwrap(), text);
    }
}
