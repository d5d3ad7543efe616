//! `flexfmu animate`: one self-contained HTML page (inline script and style, no network) that
//! plays a states file of `flexfmu simulate --states`, or a model simulated on the spot.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Parser;

use super::interrupt::Interrupted;
use super::scratch_dir::ScratchDir;
use super::simulate::{self, SimulateArgs};
use super::states::States;

/// The player (assets/animate.js).
const PLAYER: &str = include_str!("../../assets/animate.js");

#[derive(Debug, clap::Args)]
pub struct AnimateArgs {
    /// A states file of `flexfmu simulate --states` (.json); or a model file (.toml), simulated
    /// first with its solver settings; or both, MODEL.toml STATES.json: the states of that model.
    #[arg(required = true, num_args = 1..=2, value_name = "MODEL.toml|STATES.json")]
    pub inputs: Vec<PathBuf>,
    /// With a model only: override a parameter (repeatable), as for simulate.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// With a model only: end time (s), after the model's start time.
    #[arg(long, value_parser = super::option_values::time, allow_hyphen_values = true)]
    pub stop_time: Option<f64>,
    /// With a model only: interval between frames (s).
    #[arg(long, value_parser = super::option_values::duration, allow_hyphen_values = true)]
    pub output_interval: Option<f64>,
    /// The HTML file to write.
    #[arg(short = 'o', long, value_name = "VIEW.html")]
    pub output: PathBuf,
}

#[derive(Parser)]
#[command(name = "simulate")]
struct SimulateCommand {
    #[command(flatten)]
    args: SimulateArgs,
}

fn is_model(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("toml"))
}

/// The files of a simulated model's scratch directory.
const OUTPUTS: &str = "outputs.csv";
const STATES: &str = "states.json";

/// Simulate `model` as `flexfmu simulate --states` would, into files next to nothing: a
/// scratch directory removed afterwards, however the command ends (src/cli/scratch_dir.rs).
fn simulate_states(args: &AnimateArgs, model: &Path) -> Result<States> {
    // From before the directory exists, Ctrl-C asks the run to stop (src/cli/interrupt.rs):
    // simulate returns at its next row and the directory is dropped.
    super::interrupt::catch();
    let scratch = ScratchDir::create("flexfmu-animate", &[OUTPUTS, STATES])?;
    let (csv, json) = (scratch.join(OUTPUTS), scratch.join(STATES));
    let mut argv: Vec<OsString> = vec!["simulate".into(), model.into()];
    for s in &args.set {
        argv.extend(["--set".into(), s.into()]);
    }
    if let Some(t) = args.stop_time {
        // Joined by '=', so that the value is the option's whatever it starts with.
        argv.push(format!("--stop-time={t}").into());
    }
    if let Some(dt) = args.output_interval {
        argv.push(format!("--output-interval={dt}").into());
    }
    argv.extend(["--states".into(), json.clone().into(), "-o".into(), csv.into()]);
    let parsed = SimulateCommand::try_parse_from(argv).context("building the simulate arguments")?.args;
    match simulate::run(parsed) {
        Ok(()) => States::load(&json),
        // The run's files go with the directory: say so, not where they were.
        Err(e) => match e.downcast::<Interrupted>() {
            Ok(stopped) => Err(Interrupted { at: stopped.at, kept: "no page written".into() }.into()),
            Err(e) => Err(e),
        },
    }
}

/// The page: the states as inline JSON (with `<` escaped so that no string can close the
/// script element), the player and its style.
pub fn page(states: &States) -> Result<String> {
    #[derive(serde::Serialize)]
    struct Data<'a> {
        model: &'a str,
        scene: &'a serde_json::Value,
        frames: &'a [serde_json::Value],
    }
    let json = serde_json::to_string(&Data { model: &states.model, scene: &states.scene, frames: &states.frames })?
        .replace('<', "\\u003c");
    let title = states.model.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    Ok(format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title} - flexfmu animate</title>
<style>
html, body {{ margin: 0; height: 100%; overflow: hidden; font: 14px sans-serif; }}
#view {{ position: fixed; left: 0; top: 0; }}
#controls {{ position: fixed; left: 0; right: 0; bottom: 0; display: flex; gap: 1em; align-items: center;
  padding: 6px 12px; background: rgba(245, 245, 245, 0.9); }}
#slider {{ flex: 1; }}
#status {{ color: #777; }}
</style>
</head>
<body>
<canvas id="view"></canvas>
<div id="controls">
<button id="play" type="button">play</button>
<input id="slider" type="range" min="0" max="0" step="1" value="0">
<span id="time"></span>
<span id="status">loading</span>
</div>
<script id="states" type="application/json">{json}</script>
<script>
{PLAYER}
</script>
</body>
</html>
"#
    ))
}

pub fn run(args: AnimateArgs) -> Result<()> {
    let read: Vec<(&str, &std::path::Path)> =
        args.inputs.iter().map(|p| ("an input of animate", p.as_path())).collect();
    super::outputs_apart_from(&read, &[("-o", Some(&args.output))])?;
    // The page is HTML: as `plot` refuses a plot that is not a .png (a probe's `-o a.png`
    // wrote an HTML page under that name).
    if !args.output.extension().is_some_and(|e| e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm")) {
        bail!(super::option_values::UsageError(format!(
            "the animation {} is an HTML page: name it .html",
            args.output.display()
        )));
    }
    let (model, states_path) = match args.inputs.as_slice() {
        [one] if is_model(one) => (Some(one), None),
        [one] => (None, Some(one)),
        [m, s] if is_model(m) && !is_model(s) => (Some(m), Some(s)),
        _ => bail!("expected STATES.json, MODEL.toml, or MODEL.toml STATES.json"),
    };
    if let Some(path) = states_path {
        super::readable_input(path, "states file")?;
    }
    let states = match (model, states_path) {
        (_, Some(path)) => {
            if !args.set.is_empty() || args.stop_time.is_some() || args.output_interval.is_some() {
                bail!("--set, --stop-time and --output-interval apply when animating a model, not a states file");
            }
            let states = States::load(path)?;
            if let Some(m) = model {
                let name = flexfmu::model::Model::load(m)?.name().to_string();
                if name != states.model {
                    bail!(
                        "{} holds states of model '{}', not of '{name}' ({})",
                        path.display(),
                        states.model,
                        m.display()
                    );
                }
            }
            states
        }
        (Some(m), None) => simulate_states(&args, m)?,
        (None, None) => bail!("expected STATES.json or MODEL.toml"),
    };
    std::fs::write(&args.output, page(&states)?).with_context(|| format!("cannot write {}", args.output.display()))?;
    println!("{}: {} frames in {}", states.model, states.frames.len(), args.output.display());
    Ok(())
}
