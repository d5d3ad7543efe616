//! The corpus of benchmark problems (issue 17): every check of `tests/corpus/references.toml`
//! (model, output, metric, published or analytic reference, bound, source) on a run of the
//! model with its own settings through the simulation facade, sampled at the model's output
//! interval. `scripts/fmpy_corpus.py` asserts the same file on the FMUs in FMPy.

use std::path::Path;

use crate::common;
use common::sim::{example, simulation_with};

/// The outputs of `model` at every output time from 0 to the stop time.
fn run(model: &str, path: Option<&str>) -> (Vec<String>, Vec<f64>, Vec<Vec<f64>>) {
    let m = match path {
        Some(p) => flexfmu::model::Model::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(p)).unwrap(),
        None => example(model),
    };
    let mut sim = simulation_with(&m, &[], |_| {});
    let names: Vec<String> = sim.outputs().iter().map(|o| o.name.clone()).collect();
    let experiment = flexfmu::simulation::Experiment::from_model(&m, &m.default_parameters()).unwrap();
    let interval = experiment.output_interval.expect("corpus models give an output_interval");
    let steps = ((experiment.stop_time - experiment.start_time) / interval).round() as usize;
    let (mut times, mut rows) = (vec![experiment.start_time], vec![sim.output_values().unwrap().to_vec()]);
    for k in 1..=steps {
        let t = experiment.start_time + k as f64 * interval;
        sim.step_to(t).unwrap_or_else(|e| panic!("{model}: stopped at t = {t}: {e}"));
        times.push(t);
        rows.push(sim.output_values().unwrap().to_vec());
    }
    (names, times, rows)
}

fn number(check: &toml::Table, key: &str) -> Option<f64> {
    check.get(key).map(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64)).unwrap())
}

/// The piecewise linear `table` ([[time, value], ...], held constant outside) at `t`.
fn table_value(table: &[(f64, f64)], t: f64) -> f64 {
    let k = table.iter().position(|p| p.0 > t).unwrap_or(table.len());
    match k {
        0 => table[0].1,
        k if k == table.len() => table[k - 1].1,
        k => {
            let (a, b) = (table[k - 1], table[k]);
            a.1 + (b.1 - a.1) * (t - a.0) / (b.0 - a.0)
        }
    }
}

/// (E(end) - E(0) - W) / W, W the work of a torque `table` (or the output `force`) on the rate `rate` (trapezoid rule on the
/// output times): zero for a system without dissipation.
fn work_balance(check: &toml::Table, times: &[f64], energy: &[f64], rate: &[f64], force: Option<Vec<f64>>) -> f64 {
    if let Some(force) = force {
        let power: Vec<f64> = force.iter().zip(rate).map(|(f, w)| f * w).collect();
        let work: f64 = (1..times.len()).map(|k| 0.5 * (power[k] + power[k - 1]) * (times[k] - times[k - 1])).sum();
        println!("  work of the force output {work:.6} J");
        return (energy[energy.len() - 1] - energy[0] - work) / work;
    }
    let table: Vec<(f64, f64)> = check["table"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let p = p.as_array().unwrap();
            let f = |v: &toml::Value| v.as_float().or_else(|| v.as_integer().map(|i| i as f64)).unwrap();
            (f(&p[0]), f(&p[1]))
        })
        .collect();
    let power: Vec<f64> = times.iter().zip(rate).map(|(t, w)| table_value(&table, *t) * w).collect();
    let work: f64 = (1..times.len()).map(|k| 0.5 * (power[k] + power[k - 1]) * (times[k] - times[k - 1])).sum();
    println!("  work of the table {work:.6} J");
    (energy[energy.len() - 1] - energy[0] - work) / work
}

/// The check's measured value from the sampled series.
fn measure(check: &toml::Table, times: &[f64], y: &[f64]) -> f64 {
    let metric = check["metric"].as_str().unwrap();
    let window = |t: f64| {
        t >= number(check, "from").unwrap_or(f64::MIN) - 1e-12 && t <= number(check, "to").unwrap_or(f64::MAX) + 1e-12
    };
    match metric {
        "at" => {
            let t = number(check, "time").unwrap();
            let k =
                times.iter().position(|s| (s - t).abs() < 1e-9).unwrap_or_else(|| panic!("{t} is not an output time"));
            y[k]
        }
        "max" => times.iter().zip(y).filter(|(t, _)| window(**t)).map(|(_, v)| *v).fold(f64::MIN, f64::max),
        "min" => times.iter().zip(y).filter(|(t, _)| window(**t)).map(|(_, v)| *v).fold(f64::MAX, f64::min),
        "drift" => y.iter().map(|v| (v - y[0]).abs()).fold(0.0, f64::max),
        "interval" => {
            let at = |index: f64| {
                let mut c = check.clone();
                c.insert("metric".into(), "crossing".into());
                c.insert("index".into(), toml::Value::Integer(index as i64));
                measure(&c, times, y)
            };
            at(number(check, "index2").unwrap()) - at(number(check, "index").unwrap())
        }
        "crossing" => {
            let (level, index) = (number(check, "level").unwrap(), number(check, "index").unwrap() as usize);
            let mut found = 0;
            for k in 1..y.len() {
                let (a, b) = (y[k - 1] - level, y[k] - level);
                if a * b < 0.0 || (b == 0.0 && a != 0.0) {
                    found += 1;
                    if found == index {
                        return times[k - 1] + (times[k] - times[k - 1]) * a / (a - b);
                    }
                }
            }
            panic!("only {found} crossings of {level}")
        }
        other => panic!("unknown metric {other}"),
    }
}

#[test]
fn every_corpus_model_meets_its_reference_with_its_own_settings() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/references.toml");
    let manifest: toml::Table = std::fs::read_to_string(&path).unwrap().parse().unwrap();
    let checks = manifest["check"].as_array().unwrap();
    let mut runs = std::collections::HashMap::new();
    let mut failures = Vec::new();
    for check in checks {
        let check = check.as_table().unwrap();
        let model = check["model"].as_str().unwrap();
        let (names, times, rows) =
            runs.entry(model.to_string()).or_insert_with(|| run(model, check.get("path").and_then(|p| p.as_str())));
        let column = |name: &str| {
            let j = names.iter().position(|n| n == name).unwrap_or_else(|| panic!("{model}: no output {name}"));
            rows.iter().map(|r| r[j]).collect::<Vec<f64>>()
        };
        let mut y = column(check["output"].as_str().unwrap());
        if let Some(sub) = check.get("subtract") {
            y.iter_mut().zip(column(sub.as_str().unwrap())).for_each(|(a, b)| *a -= b);
        }
        let value = if check["metric"].as_str() == Some("work_balance") {
            work_balance(
                check,
                times,
                &y,
                &column(check["rate"].as_str().unwrap()),
                check.get("force").map(|f| column(f.as_str().unwrap())),
            )
        } else {
            measure(check, times, &y)
        };
        let reference = number(check, "reference").unwrap();
        let bound = number(check, "atol").unwrap_or_else(|| number(check, "rtol").unwrap() * reference.abs());
        let error = (value - reference).abs();
        let line = format!(
            "{model} {} {}: measured {value:.10e}, reference {reference:.10e}, error {error:.2e} (bound {bound:.1e}) [{}]",
            check["output"].as_str().unwrap(),
            check["metric"].as_str().unwrap(),
            check["source"].as_str().unwrap()
        );
        println!("{line}");
        if error.is_nan() || error > bound {
            failures.push(line);
        }
    }
    assert!(failures.is_empty(), "missed references:\n{}", failures.join("\n"));
}
