//! The outputs a model declares, by name and unit, as `flexfmu simulate` writes them.

use anyhow::Result;

use flexfmu::export::variables::Variables;
use flexfmu::model::Model;
use flexfmu::simulation::Simulation;

/// One output column: its name in the CSV header and its unit (may be empty).
pub struct OutputColumn {
    pub name: String,
    pub unit: String,
}

/// The model's outputs in CSV column order, with the default parameter values.
pub fn output_columns(model: &Model) -> Result<Vec<OutputColumn>> {
    let vars = Variables::new(model)?;
    let params = model.default_parameters();
    let sim = Simulation::new(model, &params, vars.settings, vars.experiment.start_time)?;
    Ok(sim.outputs().iter().map(|o| OutputColumn { name: o.name.clone(), unit: o.unit.clone() }).collect())
}
