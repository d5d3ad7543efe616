//! `flexfmu statics`: quasi-static analysis. At each output time the model's static
//! equilibrium with its loads, drives and inputs at that time (`Simulation::settle_static`),
//! from the equilibrium before: loads that grow with `t` are load increments, so a sequence of
//! output times follows a large deflection; the first (from the configuration drawn) is
//! globalized and ends in a stable equilibrium unless the model starts on an unstable one,
//! which is reported on stderr. The CSV has the columns of `flexfmu simulate`; reactions are
//! the static reactions, velocities and accelerations zero.

use flexfmu::compact_number::Compact;
use std::path::PathBuf;

use anyhow::Result;

use flexfmu::model::Model;
use flexfmu::simulation::{Experiment, Simulation, SolverSettings};

use super::option_values;
use super::outputs_csv::OutputsCsv;
use super::simulate::{input_signals, parameter_values};

#[derive(Debug, clap::Args)]
pub struct StaticsArgs {
    /// Model file (TOML).
    pub model: PathBuf,
    /// Last time (s) at which to solve, at or after the model's start time; default: the
    /// model's stop_time.
    #[arg(long, value_parser = option_values::time, allow_hyphen_values = true)]
    pub stop_time: Option<f64>,
    /// Interval between the times solved, one CSV row each (s); default: the model's
    /// output_interval, else a tenth of the time span. Smaller intervals are smaller load
    /// increments.
    #[arg(long, value_parser = option_values::duration, allow_hyphen_values = true)]
    pub output_interval: Option<f64>,
    /// Override a parameter (repeatable): NAME=VALUE.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Input values: NAME=VALUE (constant) or NAME=FILE.csv (columns time,value; linear interpolation).
    #[arg(long = "input", value_name = "NAME=VALUE|CSV")]
    pub inputs: Vec<String>,
    /// Output CSV file.
    #[arg(short = 'o', long)]
    pub output: PathBuf,
}

pub fn run(args: StaticsArgs) -> Result<()> {
    super::simulate::outputs_apart_from_model_and_tables(&args.model, &args.inputs, &[("-o", Some(&args.output))])?;
    let model = Model::load(&args.model)?;
    let params = parameter_values(&model, &args.set)?;
    let settings = SolverSettings::from_model(&model, &params)?;
    let experiment = Experiment::from_model(&model, &params)?;
    let start = experiment.start_time;
    let stop = option_values::stop_time(args.stop_time.unwrap_or(experiment.stop_time), start, false)?;
    // A tenth of the span: at the start time alone (a span of 0), any interval makes one row.
    let interval = args.output_interval.or(experiment.output_interval).unwrap_or((stop - start) / 10.0);
    let interval = if interval > 0.0 { interval } else { 1.0 };
    let mut sim = Simulation::new(&model, &params, settings, start)?;
    super::print_warnings(sim.assembly_warnings());
    let signals = input_signals(&sim, &args.inputs)?;
    let mut csv = OutputsCsv::create(&args.output, &sim)?;
    let count = flexfmu::limits::output_intervals(start, stop, interval).map_err(anyhow::Error::msg)?;
    let (mut iterations, mut unstable, mut neutral, mut outside, mut moving) = (0, false, false, false, false);
    super::simulate::set_start_inputs(&mut sim, &signals, start)?;
    for k in 0..=count {
        let t = if k == count { stop } else { start + k as f64 * interval };
        for (i, s) in &signals {
            sim.set_input(*i, s.at(t)).map_err(anyhow::Error::msg)?;
        }
        // As `modes` tells it: a spinning hub's beam balanced at rest loses its centrifugal
        // stiffening (a probe's statics of a spinning model said nothing).
        let speed = if moving { 0.0 } else { super::modes::motion_at(&sim, t, start)[0] };
        if speed > super::modes::MOVING {
            eprintln!(
                "note: the model moves at t = {} (velocities up to {}): its equilibrium is found at rest, without \
                 what the motion adds (the centrifugal forces of a spinning beam); `simulate` follows the motion",
                Compact(t),
                Compact(speed)
            );
            moving = true;
        }
        // The diagnosis carries its own advice (src/analysis/statics.rs): smaller increments
        // help a Newton iteration that does not converge, not a singular tangent.
        iterations += sim.settle_static(t).map_err(|e| {
            anyhow::anyhow!("{e}\n{} holds the equilibria up to the time before", args.output.display())
        })?;
        csv.write_row(&mut sim)?;
        // As `simulate` tells it: an equilibrium beyond the elements' range (a plate's patches
        // turned 0.3 rad against each other) is not the structure's (a probe's rolled plate
        // stiffened silently, then stopped at a "limit point" that does not exist).
        if !outside && let Some(why) = sim.outside_formulation() {
            eprintln!("warning: the model left its elements' range {why}");
            outside = true;
        }
        // An unstable equilibrium is an answer, but not the one a user drawing a model near
        // it expects: said once where the rows become unstable, and where they stop being so.
        let stability = sim.equilibrium_stability();
        let now = stability.map(|s| s.unstable);
        match (unstable, now) {
            (false, Some(k)) if k > 0 => eprintln!(
                "warning: the static equilibrium at t = {} is unstable ({k} admissible direction{} of negative \
                 stiffness): a disturbance leaves it. A model drawn exactly on an unstable equilibrium (a link \
                 upright) stays there, as does a perfect structure loaded past a bifurcation (a straight column \
                 past its buckling load); draw it slightly off to reach a stable one",
                Compact(t),
                if k == 1 { "" } else { "s" }
            ),
            (true, Some(0)) => eprintln!("note: the static equilibrium is stable again from t = {}", Compact(t)),
            _ => {}
        }
        unstable = now.is_some_and(|k| k > 0) || (unstable && now.is_none());
        if (sim.equilibrium_is_neutral() || stability.is_some_and(|s| s.neutral > 0)) && !neutral {
            eprintln!(
                "warning: the static equilibrium at t = {} is neutral: the forces balance, but the model can move \
                 in some direction without any force (a free body, a ball on a frictionless floor, a mechanism its \
                 loads do not move; or a critical point), so it is not unique: the coordinates along those \
                 directions keep the values they had",
                Compact(t)
            );
            neutral = true;
        }
    }
    println!(
        "{}: {} with {} equilibria from t = {} to {} s, {iterations} Newton iterations",
        model.name(),
        args.output.display(),
        count + 1,
        Compact(start),
        Compact(stop)
    );
    Ok(())
}
