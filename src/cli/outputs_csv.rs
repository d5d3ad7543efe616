//! The CSV of a run's outputs (`simulate`, `statics`): `time` and one column per output, a row
//! per output time. Every row is flushed as it is written, so that a run that stops keeps the
//! rows it computed.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{Context, Result};

use flexfmu::simulation::Simulation;

use super::csv_number::csv_number;

pub struct OutputsCsv {
    file: BufWriter<File>,
    path: std::path::PathBuf,
}

impl OutputsCsv {
    /// Create `path` with the header of `sim`'s outputs (`time` alone without outputs: no
    /// trailing comma).
    pub fn create(path: &Path, sim: &Simulation) -> Result<OutputsCsv> {
        let file = File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
        let mut csv = OutputsCsv { file: BufWriter::new(file), path: path.to_path_buf() };
        let names = sim.outputs().iter().map(|o| o.name.as_str());
        let header = std::iter::once("time").chain(names).collect::<Vec<_>>().join(",");
        csv.write_line(&header)?;
        Ok(csv)
    }

    /// The row of `sim`'s outputs at its current time.
    pub fn write_row(&mut self, sim: &mut Simulation) -> Result<()> {
        let t = sim.time();
        let values = sim.output_values().map_err(anyhow::Error::msg)?;
        let row: Vec<String> = std::iter::once(t).chain(values.iter().copied()).map(csv_number).collect();
        self.write_line(&row.join(","))
    }

    /// One line, flushed; a failure names the file (a probe's `-o /dev/full` printed only
    /// "No space left on device").
    fn write_line(&mut self, line: &str) -> Result<()> {
        writeln!(self.file, "{line}")
            .and_then(|()| self.file.flush())
            .with_context(|| format!("cannot write {}", self.path.display()))
    }
}
