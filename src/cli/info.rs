//! `flexfmu info`: what a model file (or the model an FMU built by flexfmu carries) declares
//! and what its FMU would expose.

use std::path::PathBuf;

use anyhow::Result;
use flexfmu::export::variables::{Role, VarType, Variables, guid};
use flexfmu::integrators::Dynamics;
use flexfmu::model::Model;
use flexfmu::simulation::Simulation;

use super::fmu_archive::{FmuArchive, is_fmu};

#[derive(Debug, clap::Args)]
pub struct InfoArgs {
    /// Model file (TOML), or an FMU built by flexfmu (.fmu): the model it carries.
    pub model: PathBuf,
}

pub fn run(args: InfoArgs) -> Result<()> {
    let model = if is_fmu(&args.model) {
        let mut fmu = FmuArchive::open(&args.model)?;
        // What makes the file an FMU, read before the model it carries.
        fmu.model_description()?;
        fmu.model()?
    } else {
        Model::load(&args.model)?
    };
    let vars = Variables::new(&model)?;
    let params = model.default_parameters();
    let sim = Simulation::new(&model, &params, vars.settings, vars.experiment.start_time)?;
    let sys = sim.system();
    match model.definition.model.description.as_str() {
        "" => println!("model {}", model.name()),
        description => println!("model {} ({description})", model.name()),
    }
    println!("guid {}", guid(&model.source));
    println!(
        "{}, {}, {}, {}",
        count(sys.coordinates(), "coordinate"),
        count(sys.constraints(), "constraint equation"),
        count(sys.bodies.len(), "body"),
        count(sys.joints.len(), "joint")
    );
    // Overconstrained joints (docs/solver.md, "Redundant constraints"): name the rows left out.
    let redundant: Vec<String> = sys
        .joints
        .iter()
        .filter_map(|j| {
            let n = j.rows.clone().filter(|&r| sys.is_redundant(r)).count();
            (n > 0).then(|| format!("{} ({n} of {})", j.name, j.rows.len()))
        })
        .collect();
    if !redundant.is_empty() {
        println!(
            "redundant constraint rows, left out (their reactions are reported as 0; the others carry the load): {}",
            redundant.join(", ")
        );
    }
    let s = &vars.settings;
    println!("solver {} rho_inf={} step={:e} tolerance={:e}", s.method, s.rho_inf, s.step, s.tolerance);
    let e = &vars.experiment;
    match e.output_interval {
        Some(dt) => println!("experiment start={} stop={} output_interval={dt}", e.start_time, e.stop_time),
        None => println!("experiment start={} stop={}", e.start_time, e.stop_time),
    }
    println!();
    println!(
        "{:<24} {:>4}  {:<20} {:<8} {:>14}  {:<8} description",
        "variable", "vr", "causality", "type", "start", "unit"
    );
    for v in &vars.list {
        let causality = match v.role {
            Role::Parameter(_) if v.tunable => "parameter (tunable)",
            Role::Parameter(_) => "parameter (fixed)",
            Role::Solver(_) => "parameter (tunable)",
            Role::Input(_) => "input",
            Role::Output(_) => "output",
        };
        let ty = match v.ty {
            VarType::Integer => "Integer",
            VarType::Real => "Real",
            VarType::String => "String",
        };
        let start = match v.ty {
            VarType::String => v.start_text().unwrap_or_default().to_string(),
            _ => v.start.map(|s| format!("{s}")).unwrap_or_default(),
        };
        println!(
            "{:<24} {:>4}  {:<20} {:<8} {:>14}  {:<8} {}",
            v.name, v.vr, causality, ty, start, v.unit, v.description
        );
    }
    Ok(())
}

/// "1 body", "2 bodies".
fn count(n: usize, noun: &str) -> String {
    match (n, noun.strip_suffix('y')) {
        (1, _) => format!("1 {noun}"),
        (_, Some(stem)) => format!("{n} {stem}ies"),
        _ => format!("{n} {noun}s"),
    }
}
