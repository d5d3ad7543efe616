//! `flexfmu modes`: natural frequencies linearised about the initial configuration.

use std::path::PathBuf;

use anyhow::Result;
use flexfmu::model::Model;
use flexfmu::simulation::{Experiment, Simulation, SolverSettings};

#[derive(Debug, clap::Args)]
pub struct ModesArgs {
    /// Model file (TOML).
    pub model: PathBuf,
    /// How many of the lowest frequencies to print.
    #[arg(long, default_value_t = 10)]
    pub count: usize,
    /// Override a parameter (repeatable): NAME=VALUE.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
}

pub fn run(args: ModesArgs) -> Result<()> {
    let model = Model::load(&args.model)?;
    let params = super::simulate::parameter_values(&model, &args.set)?;
    let settings = SolverSettings::from_model(&model, &params)?;
    let experiment = Experiment::from_model(&model, &params)?;
    let sim = Simulation::new(&model, &params, settings, experiment.start_time)?;
    super::print_warnings(sim.warnings());
    let freqs = sim.natural_frequencies().map_err(anyhow::Error::msg)?;
    println!("mode,frequency_hz");
    for (k, f) in freqs.iter().take(args.count).enumerate() {
        println!("{},{f:.9e}", k + 1);
    }
    Ok(())
}
