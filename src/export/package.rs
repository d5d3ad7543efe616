//! The .fmu archive: modelDescription.xml (FMI 2.0 or 3.0), the generic binary renamed to the
//! model identifier, the model text as resources/model.toml, and an HTML variable table.

use std::io::Write;
use std::path::{Path, PathBuf};

use zip::CompressionMethod;
use zip::write::SimpleFileOptions;

use super::model_description::model_description_of;
use super::model_description3::model_description3_of;
use super::xml::real;
use super::{ExportError, FmiVersion};
use crate::fmu::variables::{Role, VarType, Variables};
use crate::model::Model;

/// The FMI 3.0 platform tuple (FMI 3.0.1 section 2.5.1.1: `<arch>-<sys>`) and library
/// suffix of this build.
pub fn platform3() -> (&'static str, &'static str) {
    let (_, ext) = platform();
    let arm = cfg!(target_arch = "aarch64");
    let tuple = if cfg!(target_os = "windows") {
        if arm { "aarch64-windows" } else { "x86_64-windows" }
    } else if cfg!(target_os = "macos") {
        if arm { "aarch64-darwin" } else { "x86_64-darwin" }
    } else if arm {
        "aarch64-linux"
    } else {
        "x86_64-linux"
    };
    (tuple, ext)
}

/// The binaries/ subdirectory and library suffix of this build for FMI `version`.
pub fn platform_of(version: FmiVersion) -> (&'static str, &'static str) {
    match version {
        FmiVersion::V2 => platform(),
        FmiVersion::V3 => platform3(),
    }
}

/// The FMI 2.0 platform directory and library suffix of this build.
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

/// Write `model` as an FMI 2.0 FMU to `out`, with `lib` (the generic FMU binary) as its shared
/// library.
pub fn build_fmu(model: &Model, lib: &[u8], out: &Path) -> Result<(), ExportError> {
    build_fmu_version(model, lib, out, FmiVersion::V2)
}

/// Write `model` as an FMI `version` FMU to `out`, with `lib` (the generic FMU binary, which
/// exports the functions of both versions) as its shared library.
pub fn build_fmu_version(model: &Model, lib: &[u8], out: &Path, version: FmiVersion) -> Result<(), ExportError> {
    let vars = Variables::new(model)?;
    let xml = match version {
        FmiVersion::V2 => model_description_of(model, &vars)?,
        FmiVersion::V3 => model_description3_of(model, &vars)?,
    };
    let doc = documentation(model, &vars);
    let (platform, ext) = platform_of(version);
    // The archive is made in memory and written at once: written to the file, a full disk
    // failed inside the zip writer, which printed its debug text on stderr when dropped and
    // reported a bare "i/o error" (a probe's `-o /dev/full`).
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::with_capacity(lib.len() + xml.len() + 65536)));
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
    let archive = zip.finish().map_err(|e| err(&e))?.into_inner();
    std::fs::write(out, archive).map_err(|e| ExportError::Io(format!("cannot write {}: {e}", out.display())))
}
