//! A seeded random mutation loop over every model in `models/` and over expressions: the
//! model parser and the expression evaluator never panic, never overflow the stack, and
//! either accept the text (a model that assembles, or an error from a later stage) or refuse
//! it with an error located in the file. Complements `model_robustness.rs` (systematic
//! single-line mutations) with random edits stacked on each other, spliced lines of other
//! models and hostile tokens (deep nesting, control-character escapes, huge counts).
//!
//! Runs for `FLEXFMU_FUZZ_SECONDS` (default 3) seconds from `FLEXFMU_FUZZ_SEED` (default 1);
//! prints the number of variants tried and the outcomes. The `cargo fuzz` target in
//! `fuzz/` drives the same parse-and-evaluate path from libFuzzer.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::common;

use flexfmu::integrators::Dynamics;
use flexfmu::mechanics::assemble::assemble;
use flexfmu::model::expr::{Expr, Symbol};
use flexfmu::model::{Model, ModelError};
use flexfmu::simulation::{Simulation, SolverSettings};

/// splitmix64: a small, seedable generator (the test needs no statistical quality).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Tokens worth inserting: syntax of TOML and of expressions, names the models use, numbers
/// at the edges of f64, escapes XML cannot carry, counts beyond the limits.
const TOKENS: &[&str] = &[
    "(",
    ")",
    "-",
    "+",
    "*",
    "/",
    "^",
    ",",
    "\"",
    "[",
    "]",
    "{",
    "}",
    "=",
    "\n",
    " ",
    ".",
    "e",
    "#",
    "0",
    "1",
    "-1",
    "1e308",
    "1e-308",
    "nan",
    "inf",
    "t",
    "pi",
    "sin(",
    "atan2(",
    "max(",
    "sqrt(-1)",
    "ln(0)",
    "1/0",
    "\\u0001",
    "\\u0000",
    "\\uFFFF",
    "\\t",
    "ü",
    "ground",
    "mass",
    "name",
    "value",
    "elements = 1000000",
    "elements = 80000",
    "modes = 20",
    "step = 1e-300",
    "[[point_masses]]",
    "[[outputs]]",
    "[[loads]]",
    "[parameters]",
    "[solver]",
];

/// One random edit of `text`.
fn mutate(text: &str, others: &[String], rng: &mut Rng) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let at = rng.below(bytes.len() + 1);
    match rng.below(7) {
        // Insert a token.
        0 | 1 => {
            let t = rng.pick(TOKENS);
            bytes.splice(at..at, t.bytes());
        }
        // Delete a short run.
        2 => {
            let end = (at + 1 + rng.below(8)).min(bytes.len());
            bytes.drain(at.min(end)..end);
        }
        // Replace a byte.
        3 => {
            if at < bytes.len() {
                bytes[at] = rng.pick(TOKENS).as_bytes().first().copied().unwrap_or(b'x');
            }
        }
        // Nest: wrap a run in many parentheses, signs or calls.
        4 => {
            let n = [3, 50, 99, 101, 400, 5000][rng.below(6)];
            let (open, close) = *rng.pick(&[("(", ")"), ("-", ""), ("sin(", ")"), ("-(", ")")]);
            let end = (at + rng.below(6)).min(bytes.len());
            bytes.splice(end..end, close.repeat(n).bytes());
            bytes.splice(at..at, open.repeat(n).bytes());
        }
        // Splice a line of another model.
        5 => {
            let other = rng.pick(others);
            let lines: Vec<&str> = other.lines().collect();
            let line = format!("{}\n", rng.pick(&lines));
            let start = bytes[..at].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
            bytes.splice(start..start, line.bytes());
        }
        // Duplicate a line.
        _ => {
            let start = bytes[..at].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
            let end = bytes[at..].iter().position(|b| *b == b'\n').map_or(bytes.len(), |i| at + i + 1);
            let line = bytes[start..end].to_vec();
            bytes.splice(start..start, line);
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[derive(Default, Debug)]
struct Outcomes {
    variants: usize,
    refused: usize,
    assembled: usize,
    started: usize,
    expressions: usize,
}

/// Parse `text`, assemble it with its default parameters (every expression compiled and the
/// constant ones evaluated) and, if small, start it (time functions evaluated at t = 0).
fn exercise(text: &str, file: &str, outcomes: &mut Outcomes) -> Result<(), String> {
    let located = |e: &ModelError| common::sim::located_in(e, file, text);
    let model = match Model::parse(text, file) {
        Ok(m) => m,
        Err(e) => {
            outcomes.refused += 1;
            return located(&e);
        }
    };
    let params = model.default_parameters();
    let assembly = match assemble(&model, &params) {
        Ok(a) => a,
        Err(e) => {
            outcomes.refused += 1;
            return located(&e);
        }
    };
    outcomes.assembled += 1;
    if assembly.system.coordinates() > 2000 {
        return Ok(());
    }
    let Ok(mut settings) = SolverSettings::from_model(&model, &params) else { return Ok(()) };
    settings.step = settings.step.clamp(1e-5, 1e-3);
    if let Ok(mut sim) = Simulation::new(&model, &params, settings, 0.0) {
        outcomes.started += 1;
        if let Ok(values) = sim.output_values() {
            if let Some(v) = values.iter().find(|v| !v.is_finite()) {
                return Err(format!("non-finite output {v} returned as valid"));
            }
        }
    }
    Ok(())
}

/// A random expression over `t`, `u` and numbers; parse errors must point inside the text.
fn random_expression(rng: &mut Rng) -> String {
    let mut s = String::new();
    for _ in 0..rng.below(40) {
        s.push_str(rng.pick::<&str>(&[
            "(", ")", "-", "+", "*", "/", "^", ",", "t", "u", "2", "0.5", "1e300", "pi", "sin(", "max(", " ", "x",
        ]));
    }
    s
}

fn exercise_expression(text: &str, outcomes: &mut Outcomes) -> Result<(), String> {
    let resolve = |name: &str| match name {
        "t" => Some(Symbol::Time),
        "u" => Some(Symbol::Input(0)),
        _ => None,
    };
    outcomes.expressions += 1;
    match Expr::parse(text, &resolve) {
        Ok(e) => {
            let _ = e.eval(0.25, &[-3.0]);
            Ok(())
        }
        Err(e) if e.offset <= text.len() => Ok(()),
        Err(e) => Err(format!("error offset {} beyond the text ({} bytes)", e.offset, text.len())),
    }
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
}

#[test]
fn random_mutations_of_models_and_expressions_never_crash() {
    let seconds: f64 = std::env::var("FLEXFMU_FUZZ_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(3.0);
    let seed: u64 = std::env::var("FLEXFMU_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let texts: Vec<String> = files.iter().map(|p| std::fs::read_to_string(p).unwrap()).collect();
    let names: Vec<String> = files.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();

    let mut rng = Rng(seed);
    let mut outcomes = Outcomes::default();
    let mut failures = Vec::new();
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    while Instant::now() < deadline && failures.len() < 10 {
        let k = rng.below(texts.len());
        let mut text = texts[k].clone();
        for _ in 0..1 + rng.below(4) {
            text = mutate(&text, &texts, &mut rng);
        }
        outcomes.variants += 1;
        let result = catch_unwind(AssertUnwindSafe(|| exercise(&text, &names[k], &mut outcomes)));
        match result {
            Ok(Ok(())) => {}
            Ok(Err(e)) => failures.push(format!("{} variant {}: {e}\n{text}", names[k], outcomes.variants)),
            Err(p) => {
                failures.push(format!("{} variant {}: panic {}\n{text}", names[k], outcomes.variants, panic_text(p)))
            }
        }
        let expr = random_expression(&mut rng);
        match catch_unwind(AssertUnwindSafe(|| exercise_expression(&expr, &mut outcomes))) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => failures.push(format!("expression {expr:?}: {e}")),
            Err(p) => failures.push(format!("expression {expr:?}: panic {}", panic_text(p))),
        }
    }
    println!("seed {seed}, {seconds} s: {outcomes:?}");
    assert!(outcomes.variants > 20 && outcomes.refused > 0 && outcomes.assembled > 0, "{outcomes:?}");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
}
