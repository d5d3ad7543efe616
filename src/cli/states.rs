//! `flexfmu simulate --states FILE`: the scene (bodies, beams, contacts) and its state at every
//! output time, as one JSON document (docs/cli.md, "States file"), the input of `flexfmu animate`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use flexfmu::simulation::{Scene, SceneFrame, Simulation};

/// The `format` field of a states file and its version.
pub const FORMAT: &str = "flexfmu-states";
pub const VERSION: u32 = 1;

/// The states of one run, collected as it goes and written at its end (also when it stops
/// early: the frames up to the stop).
pub struct StatesRecorder {
    path: PathBuf,
    model: String,
    scene: Scene,
    frames: Vec<SceneFrame>,
}

#[derive(Serialize)]
struct Document<'a> {
    format: &'static str,
    version: u32,
    model: &'a str,
    scene: &'a Scene,
    frames: &'a [SceneFrame],
}

impl StatesRecorder {
    pub fn new(path: &Path, model: &str, scene: Scene) -> Result<StatesRecorder> {
        // Fail before the run, not after it, if the file cannot be written.
        std::fs::write(path, b"").with_context(|| format!("cannot write {}", path.display()))?;
        Ok(StatesRecorder { path: path.to_path_buf(), model: model.to_string(), scene, frames: Vec::new() })
    }

    /// Record the simulation's current state (once per time).
    pub fn record(&mut self, sim: &Simulation) {
        if self.frames.last().is_some_and(|f| f.t >= sim.time()) {
            return;
        }
        self.frames.push(sim.scene_frame(&self.scene));
    }

    pub fn write(&self) -> Result<()> {
        let doc =
            Document { format: FORMAT, version: VERSION, model: &self.model, scene: &self.scene, frames: &self.frames };
        let file =
            std::fs::File::create(&self.path).with_context(|| format!("cannot write {}", self.path.display()))?;
        let mut out = std::io::BufWriter::new(file);
        serde_json::to_writer(&mut out, &doc)?;
        std::io::Write::flush(&mut out).with_context(|| format!("cannot write {}", self.path.display()))?;
        Ok(())
    }
}

/// A states file as read back (by `flexfmu animate`): checked for its format and version.
#[derive(Debug, Deserialize)]
pub struct States {
    pub format: String,
    pub version: u32,
    pub model: String,
    pub scene: serde_json::Value,
    pub frames: Vec<serde_json::Value>,
}

impl States {
    pub fn load(path: &Path) -> Result<States> {
        let text = flexfmu::limits::read_text_bounded(path, flexfmu::limits::MAX_DATA_FILE_BYTES, "states file")
            .map_err(anyhow::Error::msg)?;
        let states: States = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a states file of `flexfmu simulate --states`", path.display()))?;
        if states.format != FORMAT || states.version != VERSION {
            bail!(
                "{}: format '{}' version {} (expected '{FORMAT}' version {VERSION})",
                path.display(),
                states.format,
                states.version
            );
        }
        if states.frames.is_empty() {
            bail!("{}: no frames", path.display());
        }
        Ok(states)
    }
}
