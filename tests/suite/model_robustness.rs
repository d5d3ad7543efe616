//! Malformed and hostile model files never crash the tool: every model in `models/` is mutated
//! line by line (line deleted; each number replaced by -1, 0, 1e300, nan, inf or a string) and
//! each variant is parsed, assembled, and, if accepted, stepped a little. Each stage must
//! return Ok or an error (model-file errors located at a line of the file), never panic; after a successful step the outputs must be
//! finite or refused with an error (overflow). The counts of each outcome are printed.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use crate::common;

use flexfmu::model::{Model, ModelError};
use flexfmu::simulation::{Simulation, SimulationError, SolverSettings};

#[derive(Default, Debug)]
struct Outcomes {
    rejected: usize,
    stepped: usize,
    step_failed: usize,
    output_refused: usize,
}

/// Parse, assemble and take a few steps; Err(description) on a panic or silent garbage.
fn exercise(text: &str, file: &str, outcomes: &mut Outcomes) -> Result<(), String> {
    let result = catch_unwind(AssertUnwindSafe(|| -> Result<(), String> {
        let located = |e: &ModelError| common::sim::located_in(e, file, text);
        let model = match Model::parse(text, file) {
            Ok(m) => m,
            Err(e) => {
                outcomes.rejected += 1;
                return located(&e);
            }
        };
        let params = model.default_parameters();
        let mut settings = match SolverSettings::from_model(&model, &params) {
            Ok(s) => s,
            Err(e) => {
                outcomes.rejected += 1;
                return located(&e);
            }
        };
        // A short run at the model's step, bounded in work.
        settings.step = settings.step.clamp(1e-5, 1e-3);
        let mut sim = match Simulation::new(&model, &params, settings, 0.0) {
            Ok(sim) => sim,
            Err(SimulationError::Model(e)) => {
                outcomes.rejected += 1;
                return located(&e);
            }
            Err(_) => {
                outcomes.rejected += 1;
                return Ok(());
            }
        };
        match sim.step_to(5.0 * settings.step) {
            Ok(()) => match sim.output_values() {
                Ok(values) if values.iter().all(|v| v.is_finite()) => outcomes.stepped += 1,
                Ok(values) => return Err(format!("non-finite outputs {values:?} returned as valid")),
                Err(_) => outcomes.output_refused += 1,
            },
            Err(_) => outcomes.step_failed += 1,
        }
        Ok(())
    }));
    match result {
        Ok(r) => r,
        Err(panic) => Err(format!(
            "panic: {}",
            panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        )),
    }
}

/// Variants of `text`: each line deleted, and each numeric token of each line replaced.
fn variants(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (k, line) in lines.iter().enumerate() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let with = |replacement: &str| {
            let mut l = lines.clone();
            l[k] = replacement;
            l.join("\n")
        };
        out.push(with(""));
        // Numeric tokens: maximal runs of digits, '.', 'e', '-' starting with a digit.
        let bytes = line.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let starts = bytes[i].is_ascii_digit()
                && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || matches!(bytes[i - 1], b'_' | b'.')));
            if !starts {
                i += 1;
                continue;
            }
            let mut j = i;
            while j < bytes.len() && (bytes[j].is_ascii_digit() || matches!(bytes[j], b'.' | b'e' | b'E' | b'-' | b'+'))
            {
                j += 1;
            }
            for r in ["-1", "0", "1e300", "nan", "inf", "\"x\""] {
                out.push(with(&format!("{}{}{}", &line[..i], r, &line[j..])));
            }
            i = j;
        }
    }
    out
}

#[test]
fn mutated_model_files_never_crash() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    let mut total = Outcomes::default();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let mut outcomes = Outcomes::default();
        let all = variants(&text);
        for (k, variant) in all.iter().enumerate() {
            if let Err(e) = exercise(variant, &name, &mut outcomes) {
                let changed = variant
                    .lines()
                    .zip(text.lines())
                    .find(|(a, b)| a != b)
                    .map(|(a, _)| a.to_string())
                    .unwrap_or_default();
                failures.push(format!("{name} variant {k} (line now {changed:?}): {e}"));
            }
        }
        println!("{name}: {} variants: {outcomes:?}", all.len());
        total.rejected += outcomes.rejected;
        total.stepped += outcomes.stepped;
        total.step_failed += outcomes.step_failed;
        total.output_refused += outcomes.output_refused;
    }
    println!("total: {total:?}");
    assert!(total.rejected > 100 && total.stepped > 100, "the mutations must exercise both paths: {total:?}");
    assert!(failures.is_empty(), "{} variants crashed or gave garbage:\n{}", failures.len(), failures.join("\n"));
}
