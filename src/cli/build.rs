//! `flexfmu build` and `flexfmu check`.

use std::path::PathBuf;

use anyhow::{Result, anyhow, bail};

use flexfmu::export::FmiVersion;
use flexfmu::export::model_description::model_description;
use flexfmu::export::model_description3::model_description3;
use flexfmu::export::package::{build_fmu_version, find_binary, platform_of};
use flexfmu::export::variables::{Variables, guid};
use flexfmu::limits::MAX_FMU_ENTRY_BYTES;
use flexfmu::model::Model;

use super::fmu_archive::FmuArchive;

#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// Model file (TOML).
    pub model: PathBuf,
    /// Output .fmu file.
    #[arg(short = 'o', long)]
    pub output: PathBuf,
    /// The generic FMU shared library (default: $FLEXFMU_BINARY, else the one built into this
    /// executable, else libflexfmu.so next to it).
    #[arg(long)]
    pub binary: Option<PathBuf>,
    /// FMI version of the FMU: 2 (FMI 2.0) or 3 (FMI 3.0). The binary is the same.
    #[arg(long, default_value = "2", value_parser = parse_fmi_version)]
    pub fmi_version: FmiVersion,
}

fn parse_fmi_version(s: &str) -> Result<FmiVersion, String> {
    match s {
        "2" | "2.0" => Ok(FmiVersion::V2),
        "3" | "3.0" => Ok(FmiVersion::V3),
        other => Err(format!("unknown FMI version '{other}' (expected 2 or 3)")),
    }
}

/// The generic FMU binary built into this executable (the library's cdylib of the same build,
/// named by build.rs; empty in contributors' builds, which find it beside the executable).
const EMBEDDED_FMU_BINARY: &[u8] = include_bytes!(env!("FLEXFMU_EMBEDDED_FMU_BINARY"));

/// The FMU binary's bytes: `--binary`, `$FLEXFMU_BINARY`, the embedded one, or the file beside
/// the executable, in that order.
fn fmu_binary(explicit: Option<&PathBuf>) -> Result<std::borrow::Cow<'static, [u8]>> {
    let path = match explicit {
        Some(p) => {
            super::readable_input(p, "the --binary library")?;
            p.clone()
        }
        None if std::env::var_os("FLEXFMU_BINARY").is_none() && !EMBEDDED_FMU_BINARY.is_empty() => {
            return Ok(EMBEDDED_FMU_BINARY.into());
        }
        None => find_binary().map_err(|e| anyhow!(e))?,
    };
    let bytes = flexfmu::limits::read_bounded(&path, MAX_FMU_ENTRY_BYTES, "the FMU binary").map_err(|e| anyhow!(e))?;
    // A shared library for the platform the FMU names: ELF, PE or Mach-O (a probe's
    // `--binary /etc/passwd` was packaged).
    let shared_library = [&b"\x7fELF"[..], b"MZ", &[0xcf, 0xfa, 0xed, 0xfe], &[0xca, 0xfe, 0xba, 0xbe]];
    if !shared_library.iter().any(|magic| bytes.starts_with(magic)) {
        bail!("the FMU binary {} is not a shared library (ELF, PE or Mach-O)", path.display());
    }
    Ok(bytes.into())
}

pub fn build(args: BuildArgs) -> Result<()> {
    let mut read: Vec<(&str, &std::path::Path)> = vec![("the model file", &args.model)];
    read.extend(args.binary.as_deref().map(|b| ("the --binary library", b)));
    super::outputs_apart_from(&read, &[("-o", Some(&args.output))])?;
    // An FMU is a .fmu file (FMI 2.0 sec. 2.3, FMI 3.0 sec. 2.5): `-o x.zip` was written as asked.
    if !args.output.extension().is_some_and(|e| e.eq_ignore_ascii_case("fmu")) {
        bail!(super::option_values::UsageError(format!("-o {}: an FMU is a .fmu file", args.output.display())));
    }
    let model = Model::load(&args.model)?;
    let binary = fmu_binary(args.binary.as_ref())?;
    build_fmu_version(&model, &binary, &args.output, args.fmi_version)?;
    let (name, out, token) = (model.name(), args.output.display(), guid(&model.source));
    match args.fmi_version {
        FmiVersion::V2 => println!("{name}: wrote {out} (guid {token})"),
        FmiVersion::V3 => println!("{name}: wrote {out} (FMI 3.0, instantiationToken {token})"),
    }
    Ok(())
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// A model file (.toml) or an FMU built by flexfmu (.fmu).
    pub path: PathBuf,
}

pub fn check(args: CheckArgs) -> Result<()> {
    if !super::fmu_archive::is_fmu(&args.path) {
        let model = Model::load(&args.path)?;
        let vars = Variables::new(&model)?;
        super::print_warnings(&vars.warnings);
        println!("{}: ok, {} variables, guid {}", model.name(), vars.list.len(), guid(&model.source));
        // The process ends here: freeing a large model's allocations one by one (a million
        // for 100,000 bodies) would take 7 % of the check.
        std::mem::forget((model, vars));
        return Ok(());
    }
    let mut fmu = FmuArchive::open(&args.path)?;
    let xml = fmu.model_description()?;
    let model = fmu.model()?;
    let version = if xml.contains(r#"fmiVersion="3.0""#) { FmiVersion::V3 } else { FmiVersion::V2 };
    let (dir, ext) = platform_of(version);
    let binary = fmu.read(&format!("binaries/{dir}/{}.{ext}", model.name()))?;
    if binary.is_empty() {
        bail!("{}: the binary is empty", args.path.display());
    }
    let expected = match version {
        FmiVersion::V2 => model_description(&model)?,
        FmiVersion::V3 => model_description3(&model)?,
    };
    if xml != expected {
        bail!(
            "{}: modelDescription.xml does not match resources/model.toml (built by another flexfmu version, or edited)",
            args.path.display()
        );
    }
    let (path, name, token) = (args.path.display(), model.name(), guid(&model.source));
    match version {
        FmiVersion::V2 => println!("{path}: ok ({name}, guid {token})"),
        FmiVersion::V3 => println!("{path}: ok ({name}, FMI 3.0, instantiationToken {token})"),
    }
    Ok(())
}
