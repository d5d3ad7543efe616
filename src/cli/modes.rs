//! `flexfmu modes`: natural frequencies linearised about the static equilibrium at the start
//! time reached from the initial configuration (`Simulation::modes_at_equilibrium`), or about
//! the initial configuration where none is found (said on stderr).

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use flexfmu::compact_number::Compact;

use super::csv_number::csv_number;
use super::option_values::UsageError;
use flexfmu::model::Model;
use flexfmu::simulation::{Experiment, Linearisation, Simulation, SolverSettings};

#[derive(Debug, clap::Args)]
pub struct ModesArgs {
    /// Model file (TOML).
    pub model: PathBuf,
    /// How many of the lowest frequencies to print (at least 1).
    #[arg(long, default_value_t = 10, allow_hyphen_values = true)]
    pub count: usize,
    /// Override a parameter (repeatable): NAME=VALUE.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Linearise about the static equilibrium at this time (s), reached by load increments from
    /// the start time as `statics` does; default: the start time.
    #[arg(long, value_parser = super::option_values::time, allow_hyphen_values = true)]
    pub time: Option<f64>,
    /// Also write the modes' shapes to this CSV: per mode its frequency and the motion of each
    /// output of the configuration (positions, angles, joint coordinates), the largest +1.
    #[arg(long, value_name = "FILE.csv")]
    pub shapes: Option<PathBuf>,
}

/// Velocities (m/s, rad/s) up to this are no motion for the note on the modes at rest.
pub(super) const MOVING: f64 = 1e-9;

/// The largest velocity (m/s, rad/s) and drive acceleration of the model at `at`: its
/// velocities at the start time `start`, its drives' rates at a later one. `modes` and
/// `statics` both linearise or balance at rest, without what motion adds.
pub(super) fn motion_at(sim: &Simulation, at: f64, start: f64) -> [f64; 2] {
    let [rate, acceleration] = sim.system().largest_drive_rates(at);
    let speed = if at == start { sim.state().v.iter().fold(rate, |m, v| m.max(v.abs())) } else { rate };
    [speed, acceleration]
}

pub fn run(args: ModesArgs) -> Result<()> {
    if args.count == 0 {
        bail!(UsageError("--count must be at least 1 (the number of the lowest frequencies to print)".into()));
    }
    if let Some(path) = &args.shapes {
        if !path.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv")) {
            bail!(UsageError(format!("--shapes {}: the shapes are written as a .csv file", path.display())));
        }
        super::output_directory_exists(path)?;
    }
    let model = Model::load(&args.model)?;
    let params = super::simulate::parameter_values(&model, &args.set)?;
    let settings = SolverSettings::from_model(&model, &params)?;
    let experiment = Experiment::from_model(&model, &params)?;
    let mut sim = Simulation::new(&model, &params, settings, experiment.start_time)?;
    super::print_warnings(sim.assembly_warnings());
    // The modes are those at rest: a model that moves at the time they are linearised at (a
    // hub driven at a constant speed) loses the stiffening of its motion, which a probe's
    // spinning blade missed silently (5.59 Hz printed for 8.7 Hz at 35 rad/s): its velocities
    // at the start time, its drives' rates at a later one. A drive that accelerates there loads
    // the model with its inertia, as gravity does (a probe's arm driven by t^2/2 linearised at
    // t = 0 as if g were g + 1).
    let at = args.time.unwrap_or(experiment.start_time);
    let [speed, acceleration] = motion_at(&sim, at, experiment.start_time);
    // Loads that grow with t (a ramp to the load of interest): the equilibrium at that time,
    // followed from the start (a probe set the start time to a parameter instead).
    if let Some(t) = args.time.filter(|&t| t != experiment.start_time) {
        if t < experiment.start_time {
            bail!(UsageError(format!(
                "--time {} s is before the model's start time {} s",
                Compact(t),
                Compact(experiment.start_time)
            )));
        }
        sim.settle_static(t).map_err(|e| anyhow::anyhow!("--time {}: {e}", Compact(t)))?;
    }
    let (freqs, about) = sim.modes_at_equilibrium().map_err(anyhow::Error::msg)?;
    // Rates far below any motion that stiffens (round-off of a drive's expression) are none.
    if speed > MOVING {
        eprintln!(
            "note: the model moves at t = {} (velocities up to {}): the modes are linearised at rest, without \
             what its motion adds (the centrifugal stiffening of a spinning beam, gyroscopic coupling); \
             `simulate` with a small disturbance shows the frequencies in motion",
            Compact(at),
            Compact(speed)
        );
    } else if acceleration > MOVING {
        eprintln!(
            "note: a drive accelerates at t = {} (up to {}): the modes are linearised with the reactions of that \
             acceleration, whose inertia loads the model as gravity does",
            Compact(at),
            Compact(acceleration)
        );
    }
    match about {
        Linearisation::Initial { reason } => eprintln!(
            "note: the modes are linearised about the initial configuration, not about a static equilibrium \
             ({reason}); loads that the deformation would carry there (gravity on a hanging beam) add no stiffness"
        ),
        Linearisation::Equilibrium { unstable: Some(k), .. } if k > 0 => eprintln!(
            "warning: the static equilibrium the modes are linearised about is unstable ({k} admissible \
             direction{} of negative stiffness, printed as negative frequencies: minus the rate of divergence \
             over 2 pi)",
            if k == 1 { "" } else { "s" }
        ),
        Linearisation::Equilibrium { .. } => {}
    }
    println!("mode,frequency_hz");
    for (k, f) in freqs.iter().take(args.count).enumerate() {
        println!("{},{f:.9e}", k + 1);
    }
    if let Some(path) = &args.shapes {
        write_shapes(&mut sim, args.count, path)?;
    }
    Ok(())
}

/// The lowest `count` modes' shapes over the configuration outputs (`Simulation::output_mode_shapes`)
/// as CSV: `mode,frequency_hz,<output>...`, one row per mode.
fn write_shapes(sim: &mut Simulation, count: usize, path: &std::path::Path) -> Result<()> {
    use std::io::Write;
    let names = sim.mode_shape_outputs();
    if names.is_empty() {
        bail!(
            "--shapes: the model has no output of its configuration (a position, an angle, a joint coordinate) to \
             show the modes' shapes on"
        );
    }
    let shapes = sim.output_mode_shapes(count).map_err(anyhow::Error::msg)?;
    let file = std::fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
    let mut w = std::io::BufWriter::new(file);
    writeln!(w, "mode,frequency_hz,{}", names.join(","))?;
    for (k, m) in shapes.iter().enumerate() {
        let cells: Vec<String> = m.shape.iter().map(|&x| csv_number(x)).collect();
        writeln!(w, "{},{},{}", k + 1, csv_number(m.frequency), cells.join(","))?;
    }
    w.flush().with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}
