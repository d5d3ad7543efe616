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
        states.check().map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Ok(states)
    }

    /// Whether the frames fit the scene: per frame, a finite time, one coordinate list per body
    /// and beam node of the sizes their kinds have, one flag per contact; radii not negative.
    /// A probe's edited files (a frame short of a body, a dimension of 7, a negative radius)
    /// animated with null positions or a script error.
    fn check(&self) -> Result<(), String> {
        use serde_json::Value;
        let scene = &self.scene;
        let list = |v: &Value, key: &str| v.get(key).and_then(Value::as_array).map(Vec::len);
        let dimension = scene.get("dimension").and_then(Value::as_u64);
        if !matches!(dimension, Some(2 | 3)) {
            let got = scene.get("dimension").map_or("none".to_string(), Value::to_string);
            return Err(format!("the scene's dimension must be 2 or 3, got {got}"));
        }
        let bodies = scene.get("bodies").and_then(Value::as_array).ok_or("the scene has no body list")?;
        let sizes: Vec<usize> = bodies
            .iter()
            .map(|b| match (b.get("kind").and_then(Value::as_str), dimension) {
                (Some("point_mass"), Some(d)) => Ok(d as usize),
                (Some("rigid_body"), _) => Ok(3),
                (Some("spatial_body"), _) => Ok(7),
                (kind, _) => Err(format!("unknown body kind {}", kind.unwrap_or("(none)"))),
            })
            .collect::<Result<_, _>>()?;
        if bodies.iter().any(|b| b.get("radius").and_then(Value::as_f64).is_some_and(|r| r < 0.0)) {
            return Err("a body's radius is negative".into());
        }
        let beam_nodes: Vec<usize> = scene
            .get("beams")
            .and_then(Value::as_array)
            .ok_or("the scene has no beam list")?
            .iter()
            .map(|b| list(b, "nodes").unwrap_or(0))
            .collect();
        let contacts = list(scene, "contacts").ok_or("the scene has no contact list")?;
        let numbers =
            |v: &Value| v.as_array().is_some_and(|x| x.iter().all(|c| c.as_f64().is_some_and(f64::is_finite)));
        // A ground plane needs a direction, a spatial body's orientation a non-zero quaternion
        // (coordinates 3..7), and the frames an order in time (a probe's edited files with a
        // zero normal, a zero quaternion or a time going back animated as garbage).
        let nonzero = |v: &[Value]| v.iter().any(|c| c.as_f64().is_some_and(|x| x != 0.0));
        let planes = scene.get("ground_planes").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        if planes.iter().any(|p| !p.get("normal").and_then(Value::as_array).is_some_and(|n| nonzero(n))) {
            return Err("a ground plane's normal is zero".into());
        }
        let mut before = f64::NEG_INFINITY;
        for (k, frame) in self.frames.iter().enumerate() {
            let bad = |what: &str| Err(format!("frame {k}: {what}"));
            let Some(t) = frame.get("t").and_then(Value::as_f64).filter(|t| t.is_finite()) else {
                return bad("no finite time");
            };
            if t < before {
                return bad(&format!("its time {t} is before the frame above's {before}"));
            }
            before = t;
            let fb = frame.get("bodies").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
            if fb.len() != sizes.len()
                || fb.iter().zip(&sizes).any(|(b, &n)| !numbers(b) || b.as_array().map(Vec::len) != Some(n))
            {
                return bad("its bodies do not fit the scene's (count, coordinates, finite numbers)");
            }
            if fb.iter().zip(&sizes).any(|(b, &n)| n == 7 && b.as_array().is_some_and(|x| !nonzero(&x[3..]))) {
                return bad("a spatial body's orientation (Euler parameters) is zero");
            }
            let beams = frame.get("beams").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
            let fits = beams.len() == beam_nodes.len()
                && beams.iter().zip(&beam_nodes).all(|(b, &n)| {
                    b.get("nodes")
                        .and_then(Value::as_array)
                        .is_some_and(|nodes| nodes.len() == n && nodes.iter().all(numbers))
                });
            if !fits {
                return bad("its beams do not fit the scene's (count, nodes, finite numbers)");
            }
            if frame.get("contacts").and_then(Value::as_array).map(Vec::len) != Some(contacts) {
                return bad("its contact flags do not fit the scene's contacts");
            }
        }
        Ok(())
    }
}
