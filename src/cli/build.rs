//! `flexfmu build` and `flexfmu check`.

use std::io::Read;
use std::path::PathBuf;

use anyhow::{Context, Result, anyhow, bail};

use flexfmu::export::model_description::model_description;
use flexfmu::export::package::{build_fmu, find_binary, platform};
use flexfmu::export::variables::{Variables, guid};
use flexfmu::model::Model;

#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// Model file (TOML).
    pub model: PathBuf,
    /// Output .fmu file.
    #[arg(short = 'o', long)]
    pub output: PathBuf,
    /// The generic FMU shared library (default: $FLEXFMU_BINARY, else next to this executable).
    #[arg(long)]
    pub binary: Option<PathBuf>,
}

pub fn build(args: BuildArgs) -> Result<()> {
    let model = Model::load(&args.model)?;
    // Model-file problems first, located (exit code 2).
    Variables::of(&model)?;
    let binary = match args.binary {
        Some(b) => b,
        None => find_binary().map_err(|e| anyhow!(e))?,
    };
    build_fmu(&model, &binary, &args.output).map_err(|e| anyhow!(e))?;
    println!("{}: wrote {} (guid {})", model.name(), args.output.display(), guid(&model.source));
    Ok(())
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// A model file (.toml) or an FMU built by flexfmu (.fmu).
    pub path: PathBuf,
}

pub fn check(args: CheckArgs) -> Result<()> {
    let is_fmu = args.path.extension().is_some_and(|e| e.eq_ignore_ascii_case("fmu"));
    if !is_fmu {
        let model = Model::load(&args.path)?;
        let vars = Variables::of(&model)?;
        println!("{}: ok, {} variables, guid {}", model.name(), vars.list.len(), guid(&model.source));
        return Ok(());
    }
    let file = std::fs::File::open(&args.path).with_context(|| format!("cannot open {}", args.path.display()))?;
    let mut zip =
        zip::ZipArchive::new(file).with_context(|| format!("{} is not a zip archive", args.path.display()))?;
    let mut read = |name: &str| -> Result<Vec<u8>> {
        let mut entry = zip.by_name(name).with_context(|| format!("{}: missing {name}", args.path.display()))?;
        let mut buf = Vec::new();
        entry.read_to_end(&mut buf)?;
        Ok(buf)
    };
    let xml = String::from_utf8(read("modelDescription.xml")?).context("modelDescription.xml is not UTF-8")?;
    let source = String::from_utf8(read("resources/model.toml")?).context("resources/model.toml is not UTF-8")?;
    let model = Model::parse(&source, "resources/model.toml")?;
    let (dir, ext) = platform();
    let binary = read(&format!("binaries/{dir}/{}.{ext}", model.name()))?;
    if binary.is_empty() {
        bail!("{}: the binary is empty", args.path.display());
    }
    let expected = model_description(&model).map_err(|e| anyhow!(e))?;
    if xml != expected {
        bail!(
            "{}: modelDescription.xml does not match resources/model.toml (built by another flexfmu version, or edited)",
            args.path.display()
        );
    }
    println!("{}: ok ({}, guid {})", args.path.display(), model.name(), guid(&model.source));
    Ok(())
}
