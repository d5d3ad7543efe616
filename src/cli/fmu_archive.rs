//! An FMU file read back (`check`, `info`): its entries by name, each read up to
//! `MAX_FMU_ENTRY_BYTES`, and errors that name the file and say what is wrong with it (not a
//! zip archive, an entry it lacks, an entry that is not UTF-8 text). `info` had read every
//! `.fmu` as a model file and said only that it was not UTF-8.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow, bail};

use flexfmu::limits::MAX_FMU_ENTRY_BYTES;
use flexfmu::model::Model;

/// Where an FMU built by flexfmu carries the model it was built from.
const MODEL_ENTRY: &str = "resources/model.toml";

pub struct FmuArchive {
    path: PathBuf,
    zip: zip::ZipArchive<File>,
}

/// Whether `path` names an FMU (`.fmu`, any case) rather than a model file.
pub fn is_fmu(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("fmu"))
}

impl FmuArchive {
    /// Open the FMU at `path`: a file that cannot be read is a usage error (exit code 2), one
    /// that is no zip archive is not an FMU.
    pub fn open(path: &Path) -> Result<FmuArchive> {
        super::readable_input(path, "FMU")?;
        let file = File::open(path).map_err(|e| anyhow!("cannot read FMU {}: {e}", path.display()))?;
        let zip = zip::ZipArchive::new(file)
            .map_err(|e| anyhow!("{} is not an FMU: it is not a zip archive ({e})", path.display()))?;
        Ok(FmuArchive { path: path.to_path_buf(), zip })
    }

    /// How an entry is named in messages: `FMU.fmu/resources/model.toml`, so that a model
    /// error reads `FMU.fmu/resources/model.toml:LINE:COLUMN`.
    pub fn entry_name(&self, name: &str) -> String {
        format!("{}/{name}", self.path.display())
    }

    /// The bytes of the entry `name`, refused once more than `MAX_FMU_ENTRY_BYTES` are read,
    /// whatever size the archive declares.
    pub fn read(&mut self, name: &str) -> Result<Vec<u8>> {
        let path = self.path.display().to_string();
        let entry = self.zip.by_name(name).map_err(|_| match name {
            "modelDescription.xml" => anyhow!("{path} is not an FMU: it has no modelDescription.xml"),
            _ => anyhow!("{path} has no {name}"),
        })?;
        let mut buf = Vec::new();
        entry
            .take(MAX_FMU_ENTRY_BYTES + 1)
            .read_to_end(&mut buf)
            .map_err(|e| anyhow!("cannot read {path}/{name}: {e}"))?;
        if buf.len() as u64 > MAX_FMU_ENTRY_BYTES {
            bail!(
                "{path}: {name} unpacks to more than {} MiB (MAX_FMU_ENTRY_BYTES, src/limits.rs): no FMU built by flexfmu holds one that large; check the model file it was built from instead",
                MAX_FMU_ENTRY_BYTES >> 20
            );
        }
        Ok(buf)
    }

    /// The entry `name` as UTF-8 text.
    pub fn read_text(&mut self, name: &str) -> Result<String> {
        String::from_utf8(self.read(name)?).map_err(|e| anyhow!("{} is not UTF-8 text ({e})", self.entry_name(name)))
    }

    /// modelDescription.xml, the entry every FMU has.
    pub fn model_description(&mut self) -> Result<String> {
        self.read_text("modelDescription.xml")
    }

    /// The model an FMU built by flexfmu carries, its errors located inside the FMU.
    pub fn model(&mut self) -> Result<Model> {
        if self.zip.index_for_name(MODEL_ENTRY).is_none() {
            bail!("{} has no {MODEL_ENTRY}: it is not an FMU built by flexfmu", self.path.display());
        }
        let source = self.read_text(MODEL_ENTRY)?;
        Ok(Model::parse(&source, &self.entry_name(MODEL_ENTRY))?)
    }
}
