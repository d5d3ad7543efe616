//! The .fmu archive: modelDescription.xml, the generic binary renamed to the model
//! identifier, the model text as resources/model.toml, and an HTML variable table.

use std::io::Write;
use std::path::{Path, PathBuf};

use zip::CompressionMethod;
use zip::write::SimpleFileOptions;

use super::ExportError;
use super::model_description::{model_description_of, real};
use crate::fmu::variables::{Role, VarType, Variables};
use crate::model::Model;

/// The platform directory and library suffix of this build.
pub fn platform() -> (&'static str, &'static str) {
    if cfg!(target_os = "windows") {
        ("win64", "dll")
    } else if cfg!(target_os = "macos") {
        ("darwin64", "dylib")
    } else {
        ("linux64", "so")
    }
}

fn library_file_name() -> String {
    let (_, ext) = platform();
    if cfg!(target_os = "windows") { format!("flexfmu.{ext}") } else { format!("libflexfmu.{ext}") }
}

/// Find the generic FMU binary: `$FLEXFMU_BINARY`, else next to the running executable,
/// in its `deps/` subdirectory, or in its parent directory (test executables live in deps/).
pub fn find_binary() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("FLEXFMU_BINARY") {
        let p = PathBuf::from(p);
        return if p.is_file() { Ok(p) } else { Err(format!("FLEXFMU_BINARY={} is not a file", p.display())) };
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot locate the running executable: {e}"))?;
    let dir = exe.parent().ok_or("the running executable has no directory")?;
    let name = library_file_name();
    let mut candidates = vec![dir.join(&name), dir.join("deps").join(&name)];
    if let Some(parent) = dir.parent() {
        candidates.push(parent.join(&name));
    }
    candidates.iter().find(|p| p.is_file()).cloned().ok_or_else(|| {
        let list: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
        format!(
            "the FMU binary {name} was not found (looked at {}); build it with `cargo build` or set FLEXFMU_BINARY",
            list.join(", ")
        )
    })
}

fn escape(s: &str) -> String {
    quick_xml::escape::escape(s).into_owned()
}

/// documentation/index.html: the variables of the FMU.
pub fn documentation(model: &Model, vars: &Variables) -> String {
    let mut rows = String::new();
    for v in &vars.list {
        let causality = match v.role {
            Role::Parameter(_) => "parameter (fixed)",
            Role::Solver(_) => "parameter (tunable)",
            Role::Input(_) => "input",
            Role::Output(_) => "output",
        };
        let ty = if v.ty == VarType::Integer { "Integer" } else { "Real" };
        let start = v
            .start
            .map(|s| if v.ty == VarType::Integer { format!("{}", s as i64) } else { real(s) })
            .unwrap_or_default();
        rows.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{causality}</td><td>{ty}</td><td>{start}</td><td>{}</td><td>{}</td></tr>\n",
            escape(&v.name),
            v.vr,
            escape(&v.unit),
            escape(&v.description)
        ));
    }
    include_str!("../../fmu-template/index.html")
        .replace("{{name}}", &escape(model.name()))
        .replace("{{description}}", &escape(&model.definition.model.description))
        .replace("{{version}}", env!("CARGO_PKG_VERSION"))
        .replace("{{rows}}", &rows)
}

/// Write `model` as an FMU to `out`, with `lib` (the generic FMU binary) as its shared library.
pub fn build_fmu(model: &Model, lib: &[u8], out: &Path) -> Result<(), ExportError> {
    let vars = Variables::new(model)?;
    let xml = model_description_of(model, &vars)?;
    let doc = documentation(model, &vars);
    let (platform, ext) = platform();
    let file =
        std::fs::File::create(out).map_err(|e| ExportError::Io(format!("cannot create {}: {e}", out.display())))?;
    let mut zip = zip::ZipWriter::new(file);
    let opts = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated).unix_permissions(0o644);
    let entries: [(String, &[u8]); 5] = [
        ("modelDescription.xml".into(), xml.as_bytes()),
        (format!("binaries/{platform}/{}.{ext}", model.name()), lib),
        ("resources/model.toml".into(), model.source.as_bytes()),
        ("documentation/index.html".into(), doc.as_bytes()),
        ("documentation/licenses/flexfmu.txt".into(), include_bytes!("../../fmu-template/LICENSE.txt")),
    ];
    let err = |e: &dyn std::fmt::Display| ExportError::Io(format!("writing {}: {e}", out.display()));
    for (name, data) in entries {
        zip.start_file(name, opts).map_err(|e| err(&e))?;
        zip.write_all(data).map_err(|e| err(&e))?;
    }
    zip.finish().map_err(|e| err(&e))?;
    Ok(())
}
