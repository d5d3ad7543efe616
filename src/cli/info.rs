//! `flexfmu info`: what a model file (or the model an FMU built by flexfmu carries) declares
//! and what its FMU would expose; of an FMU, in the words of its FMI version (an FMI 3.0 FMU's
//! instantiationToken, Float64 and Int32 types, its `time` variable).

use std::path::PathBuf;

use anyhow::Result;
use flexfmu::export::model_description3::fmi3_words;
use flexfmu::export::variables::{Role, VarType, Variables, guid};
use flexfmu::fmi3::time_value_reference;
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
    // An FMU's FMI version (None: a model file, shown as its FMI 2.0 FMU would be).
    let (model, version) = if is_fmu(&args.model) {
        let mut fmu = FmuArchive::open(&args.model)?;
        // What makes the file an FMU, read before the model it carries.
        let description = fmu.model_description()?;
        let version = if description.contains("fmiVersion=\"3.0\"") { "3.0" } else { "2.0" };
        (fmu.model()?, Some(version))
    } else {
        (Model::load(&args.model)?, None)
    };
    let fmi3 = version == Some("3.0");
    // Type names and descriptions as the FMU's modelDescription.xml has them.
    let words = |text: &str| if fmi3 { fmi3_words(text) } else { text.to_string() };
    let function = if fmi3 { "fmi3" } else { "fmi2" };
    let vars = Variables::new(&model)?;
    let params = model.default_parameters();
    let sim = Simulation::new(&model, &params, vars.settings, vars.experiment.start_time)?;
    let sys = sim.system();
    if let Some(version) = version {
        println!("FMI {version} Co-Simulation FMU");
    }
    match model.definition.model.description.as_str() {
        "" => println!("model {}", model.name()),
        description => println!("model {} ({description})", model.name()),
    }
    println!("{} {}", if fmi3 { "instantiationToken" } else { "guid" }, guid(&model.source));
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
    // One row per variable (an FMI 3.0 FMU's `time` first, as its modelDescription.xml lists
    // it), the columns as wide as their longest entry.
    let mut rows: Vec<[String; 7]> = Vec::with_capacity(vars.list.len() + 2);
    rows.push(["variable", "vr", "causality", "type", "start", "unit", "description"].map(String::from));
    if fmi3 {
        let vr = time_value_reference(&vars).to_string();
        rows.push(["time", &vr, "independent", "Float64", "", "s", "simulation time"].map(String::from));
    }
    for v in &vars.list {
        let causality = match v.role {
            Role::Parameter(_) if v.tunable => "parameter (tunable)",
            Role::Parameter(_) => "parameter (fixed)",
            Role::Solver(_) => "parameter (tunable)",
            Role::Input(_) => "input",
            Role::Output(_) => "output",
        };
        let start = match v.ty {
            VarType::String => v.start_text().unwrap_or_default().to_string(),
            _ => v.start.map(|s| format!("{s}")).unwrap_or_default(),
        };
        rows.push([
            v.name.clone(),
            v.vr.to_string(),
            causality.to_string(),
            v.ty.name_in(function).to_string(),
            start,
            v.unit.clone(),
            words(&v.description),
        ]);
    }
    let width = |k: usize| rows.iter().map(|r| r[k].chars().count()).max().unwrap_or(0);
    let widths: [usize; 6] = std::array::from_fn(width);
    for [name, vr, causality, ty, start, unit, description] in &rows {
        let line = format!(
            "{name:<w0$} {vr:>w1$}  {causality:<w2$} {ty:<w3$} {start:>w4$}  {unit:<w5$} {description}",
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3],
            w4 = widths[4],
            w5 = widths[5]
        );
        println!("{}", line.trim_end());
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
