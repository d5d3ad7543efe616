//! Models and simulations through the facade: the helpers most test files need.

use std::path::{Path, PathBuf};

use flexfmu::mechanics::assemble::assemble;
use flexfmu::model::{Model, ModelError};
use flexfmu::simulation::{Simulation, SolverSettings};

/// The path of `models/<name>` (`.toml` added when missing).
pub fn model_path(name: &str) -> PathBuf {
    let file = if name.ends_with(".toml") { name.to_string() } else { format!("{name}.toml") };
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models").join(file)
}

/// Every example model, `models/*.toml`, sorted by path.
pub fn example_paths() -> Vec<PathBuf> {
    let mut models: Vec<_> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("models"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    models.sort();
    models
}

/// The example model `models/<name>`, parsed.
pub fn example(name: &str) -> Model {
    let path = model_path(name);
    Model::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The model's default parameter values with `set` (name, value) applied.
pub fn parameters(model: &Model, set: &[(&str, f64)]) -> Vec<f64> {
    let mut params = model.default_parameters();
    for (name, value) in set {
        params[model.parameter_index(name).unwrap_or_else(|| panic!("no parameter {name}"))] = *value;
    }
    params
}

/// A simulation of `model` with the parameters `set` and the model's own solver settings,
/// changed by `adjust`.
pub fn simulation_with(model: &Model, set: &[(&str, f64)], adjust: impl FnOnce(&mut SolverSettings)) -> Simulation {
    let params = parameters(model, set);
    let mut settings = SolverSettings::from_model(model, &params).unwrap();
    adjust(&mut settings);
    Simulation::new(model, &params, settings, 0.0).unwrap()
}

/// The current value of the output `name`.
pub fn output(sim: &mut Simulation, name: &str) -> f64 {
    let i = sim.outputs().iter().position(|o| o.name == name).unwrap_or_else(|| panic!("no output {name}"));
    sim.output_values().unwrap()[i]
}

/// Parse and assemble `text` (named `file`) with its default parameters.
pub fn parse_and_assemble(text: &str, file: &str) -> Result<(), ModelError> {
    Model::parse(text, file).and_then(|m| assemble(&m, &m.default_parameters()).map(|_| ()))
}

/// Replace the first `from` in `text` by `to` and parse and assemble the result, which must be
/// refused: the error (printed) and the line where `to` stands.
pub fn refused(text: &str, file: &str, from: &str, to: &str) -> (ModelError, usize) {
    let bad = text.replacen(from, to, 1);
    assert_ne!(bad, text, "'{from}' is not in the model");
    let err = parse_and_assemble(&bad, file).expect_err(to);
    println!("{err}");
    let line = bad[..bad.find(to).unwrap()].lines().count() + 1;
    (err, line)
}

/// Ok if `e` points into the file `file` whose text is `text` (a line of it, or the line after
/// its end for a missing table), Err(description) otherwise.
pub fn located_in(e: &ModelError, file: &str, text: &str) -> Result<(), String> {
    let lines = text.lines().count();
    if e.file == file && (1..=lines + 1).contains(&e.line) && e.column >= 1 {
        Ok(())
    } else {
        Err(format!("error not located in the file: {e}"))
    }
}

/// Run `sim` to `t_end` at communication interval `interval`; its outputs 0 and 1 are a tip's x
/// and y and output 2 is energy_total. Returns the final (tip_x, tip_y) and the largest
/// |energy_total - initial| over the communication points.
pub fn tip_and_energy_drift(mut sim: Simulation, t_end: f64, interval: f64) -> ([f64; 2], f64) {
    let e0 = sim.output_values().unwrap()[2];
    let mut drift = 0.0f64;
    let steps = (t_end / interval).round() as usize;
    for k in 1..=steps {
        sim.step_to(k as f64 * interval).unwrap();
        drift = drift.max((sim.output_values().unwrap()[2] - e0).abs());
    }
    let o = sim.output_values().unwrap();
    ([o[0], o[1]], drift)
}
