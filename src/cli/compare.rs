//! `flexfmu compare`: accuracy against cost. Runs a model with every integrator at a list of
//! steps, measures each run's output error against a tight reference run, and tabulates it
//! with the cost (Newton iterations, factorizations, wall time).
//!
//! Errors are relative to each output's range: for output i,
//!   e_i(t) = |y_i(t) - y_ref,i(t)| / max_t |y_ref,i(t)|,
//! and a run's `end_error` is max_i e_i(T), its `max_error` max over i and all output samples.
//! Outputs that are zero within the reference's own error are left out (they have no size).
//! `order` is log(e(h_prev) / e(h)) / log(h_prev / h) between consecutive steps of one method
//! (end errors). The reference's own error is estimated from a second reference run at twice
//! its step: (y(2 h_r) - y(h_r)) / 3 for a second-order method (Richardson).

use flexfmu::compact_number::Compact;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use flexfmu::integrators::{ErrorControl, Method, NewtonStrategy};
use flexfmu::model::Model;
use flexfmu::simulation::{Experiment, Simulation, SolverSettings};

use super::option_values::{self, UsageError};
use super::progress::Progress;

#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// Model file (TOML).
    pub model: PathBuf,
    /// End time (s), after the model's start time; default: the model's stop_time.
    #[arg(long, value_parser = option_values::time, allow_hyphen_values = true)]
    pub stop_time: Option<f64>,
    /// Steps to run (comma separated, s); default: the model's step and `--halvings` halvings of it.
    #[arg(long, value_delimiter = ',', value_parser = option_values::duration, allow_hyphen_values = true)]
    pub steps: Vec<f64>,
    /// Number of halvings of the model's step when `--steps` is not given (at most 16: the
    /// finest run then takes 65536 times the steps of the first).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(0..=16), allow_hyphen_values = true)]
    pub halvings: u32,
    /// Integrators to compare (comma separated); default: all.
    #[arg(long, value_delimiter = ',')]
    pub integrators: Vec<Method>,
    /// Spectral radius at infinity; default the model's (HHT raised to 0.5, Newmark 1).
    #[arg(long, allow_hyphen_values = true)]
    pub rho_inf: Option<f64>,
    /// Newton strategy: full, modified or broyden.
    #[arg(long)]
    pub newton: Option<NewtonStrategy>,
    /// Newton tolerance of the compared runs; default the model's.
    #[arg(long, allow_hyphen_values = true)]
    pub tolerance: Option<f64>,
    /// Step of the reference run; default: the smallest compared step / 8.
    #[arg(long, value_parser = option_values::duration, allow_hyphen_values = true)]
    pub reference_step: Option<f64>,
    /// Integrator of the reference run (TTBIF has the smallest error constant: docs/solver.md).
    #[arg(long, default_value = "ttbif")]
    pub reference_integrator: Method,
    /// Interval between compared output samples (s); default the model's output_interval,
    /// else (stop - start) / 100.
    #[arg(long, value_parser = option_values::duration, allow_hyphen_values = true)]
    pub output_interval: Option<f64>,
    /// Outputs to compare (comma separated); default: all.
    #[arg(long = "outputs", value_delimiter = ',')]
    pub outputs: Vec<String>,
    /// Override a parameter (repeatable): NAME=VALUE.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Write the table as CSV (`.csv`) or JSON (`.json`).
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
}

/// One run: the outputs at every sample, and its cost.
struct Run {
    samples: Vec<Vec<f64>>,
    stats: flexfmu::integrators::Statistics,
    wall: f64,
}

struct Row {
    method: Method,
    rho_inf: f64,
    step: f64,
    result: std::result::Result<Run, String>,
    end_errors: Vec<f64>,
    end_error: f64,
    max_error: f64,
    order: Option<f64>,
}

fn simulate(
    model: &Model,
    params: &[f64],
    settings: SolverSettings,
    start: f64,
    times: &[f64],
    columns: &[usize],
) -> std::result::Result<Run, String> {
    let mut sim = Simulation::new(model, params, settings, start).map_err(|e| e.to_string())?;
    let clock = Instant::now();
    let mut samples = Vec::with_capacity(times.len() + 1);
    let mut record = |sim: &mut Simulation| -> std::result::Result<(), String> {
        let values = sim.output_values()?;
        samples.push(columns.iter().map(|&c| values[c]).collect());
        Ok(())
    };
    record(&mut sim)?;
    for &t in times {
        sim.step_to(t).map_err(|e| format!("stopped at t = {}: {e}", Compact(sim.time())))?;
        record(&mut sim)?;
    }
    Ok(Run { samples, stats: sim.statistics(), wall: clock.elapsed().as_secs_f64() })
}

/// Keep the entries of `list` whose flag in `keep` is set.
fn retain_flagged<T>(list: &mut Vec<T>, keep: &[bool]) {
    let mut flags = keep.iter();
    list.retain(|_| *flags.next().expect("one flag per entry"));
}

/// Per-output errors of `run` against `reference` at the last sample, and the maximum over
/// all samples and outputs, relative to each reference output's range `scale`.
fn errors(run: &Run, reference: &Run, scale: &[f64]) -> (Vec<f64>, f64) {
    let rel = |s: &[f64], r: &[f64], i: usize| (s[i] - r[i]).abs() / scale[i];
    let last = run.samples.len() - 1;
    let end: Vec<f64> = (0..scale.len()).map(|i| rel(&run.samples[last], &reference.samples[last], i)).collect();
    let max = run
        .samples
        .iter()
        .zip(&reference.samples)
        .flat_map(|(s, r)| (0..scale.len()).map(move |i| rel(s, r, i)))
        .fold(0.0f64, f64::max);
    (end, max)
}

/// Fixed steps: the comparison is over the step size. Without a treatment named in the model
/// file, each method runs with the default for its rho_inf (src/integrators/constraints.rs).
fn settings_for(base: &SolverSettings, model: &Model, method: Method, rho_inf: f64, step: f64) -> SolverSettings {
    let (lo, hi) = method.rho_inf_range();
    let rho_inf = rho_inf.clamp(lo, hi);
    let error_control = ErrorControl { enabled: false, ..base.error_control };
    SolverSettings { method, rho_inf, step, error_control, constraints: base.constraints_at(model, rho_inf), ..*base }
}

pub fn run(args: CompareArgs) -> Result<()> {
    super::distinct_outputs(&args.model, &[("-o", args.output.as_deref())])?;
    let model = Model::load(&args.model)?;
    let params = super::simulate::parameter_values(&model, &args.set)?;
    let mut base = SolverSettings::from_model(&model, &params)?;
    if let Some(strategy) = args.newton {
        base.strategy = strategy;
    }
    if let Some(tol) = args.tolerance {
        base.tolerance = tol;
    }
    let rho_inf = args.rho_inf.unwrap_or(base.stated_rho_inf(&model));
    if !(0.0..=1.0).contains(&rho_inf) {
        bail!("--rho-inf must be in [0, 1], got {}", Compact(rho_inf));
    }
    let experiment = Experiment::from_model(&model, &params)?;
    let start = experiment.start_time;
    let stop = option_values::stop_time(args.stop_time.unwrap_or(experiment.stop_time), start, true)?;
    let steps: Vec<f64> = if args.steps.is_empty() {
        (0..=args.halvings).map(|k| base.step / f64::from(1u32 << k)).collect()
    } else {
        args.steps.clone()
    };
    let mut steps = steps;
    steps.sort_by(|a, b| b.total_cmp(a));
    let smallest = *steps.last().context("no steps to compare")?;
    let methods: Vec<Method> =
        if args.integrators.is_empty() { Method::ALL.to_vec() } else { args.integrators.clone() };
    let interval = args.output_interval.or(experiment.output_interval).unwrap_or((stop - start) / 100.0);
    let count = flexfmu::limits::output_intervals(start, stop, interval).map_err(anyhow::Error::msg)?.max(1);
    // The reference is finer than every compared run and than the output interval, at which
    // longer steps run: its error is estimated from a run at twice its step, and at a step
    // beyond half the interval both ran at the interval and the header said "estimated error 0"
    // (a probe's --reference-step 10 and --steps 0.1,0.1).
    let reference_step = args.reference_step.unwrap_or(smallest.min(interval) / 8.0);
    if 2.0 * reference_step > interval * (1.0 + 1e-12) {
        bail!(UsageError(format!(
            "--reference-step {} is more than half the output interval {} s: steps above the interval run at it \
             (each output ends an internal step), so the reference would not be finer than the runs it judges",
            Compact(reference_step),
            Compact(interval)
        )));
    }
    let times: Vec<f64> = (1..=count).map(|k| if k == count { stop } else { start + k as f64 * interval }).collect();

    // Output columns to compare.
    let probe = Simulation::new(&model, &params, base, start)?;
    let names: Vec<String> = probe.outputs().iter().map(|o| o.name.clone()).collect();
    let mut columns: Vec<usize> = if args.outputs.is_empty() {
        (0..names.len()).collect()
    } else {
        args.outputs
            .iter()
            .map(|o| {
                names.iter().position(|n| n == o.trim()).ok_or_else(|| {
                    anyhow::Error::new(UsageError(format!("unknown output '{o}' ({})", super::declared(&names))))
                })
            })
            .collect::<Result<_>>()?
    };
    if columns.is_empty() {
        bail!("the model declares no outputs to compare");
    }
    let mut compared: Vec<String> = columns.iter().map(|&c| names[c].clone()).collect();
    // Before any run: a table written as JSON to TABLE.txt was a surprise (a probe).
    if let Some(path) = &args.output {
        if !["csv", "json"].iter().any(|x| path.extension().is_some_and(|e| e.eq_ignore_ascii_case(x))) {
            bail!(UsageError(format!("-o {}: the table is written as .csv or .json", path.display())));
        }
        super::output_directory_exists(path)?;
    }
    // What the table would not say (a probe read HHT's row as run at --rho-inf 0, and three
    // steps above the output interval as three runs).
    for &method in methods.iter().chain([&args.reference_integrator]) {
        let (lo, hi) = method.rho_inf_range();
        if !(lo..=hi).contains(&rho_inf) {
            eprintln!(
                "note: {method} takes rho_inf in [{lo}, {hi}]; it runs at {} (its rows say so)",
                Compact(rho_inf.clamp(lo, hi))
            );
        }
    }
    if let Some(&h) = steps.iter().rev().find(|&&h| h > interval * (1.0 + 1e-12)) {
        eprintln!(
            "note: steps above the output interval {} s run at that interval (each output ends an internal step), \
             so such rows ({} s and longer) repeat one run; pass a longer --output-interval to compare them",
            Compact(interval),
            Compact(h)
        );
    }

    // The reference, and its own error estimated from a run at twice its step.
    let ref_tolerance = base.tolerance.min(1e-12);
    let ref_settings = |h| SolverSettings {
        tolerance: ref_tolerance,
        ..settings_for(&base, &model, args.reference_integrator, rho_inf, h)
    };
    let total = 2 + methods.len() * steps.len();
    let mut progress = Progress::new(total as u64, "{msg}");
    progress.update(0, || format!("run 1/{total}: reference"));
    let mut reference =
        simulate(&model, &params, ref_settings(reference_step), start, &times, &columns).map_err(|e| {
            anyhow::anyhow!("reference run ({} at step {reference_step:e}) failed: {e}", args.reference_integrator)
        })?;
    progress.update(1, || format!("run 2/{total}: reference at twice the step"));
    let mut coarse = simulate(&model, &params, ref_settings(2.0 * reference_step), start, &times, &columns)
        .map_err(|e| anyhow::anyhow!("reference run at twice the step failed: {e}"))?;
    // An output that is zero within the reference's own error (the energy_total of a
    // conservative model whose energy is zero at rest, a coordinate that stays zero) has no
    // size for its errors to be relative to: they were round-off over round-off (a probe read
    // an end_error of 1e3 and orders of 0.09 off a pendulum's energy_total of 1e-9 J).
    let n = columns.len();
    let mut peak: Vec<f64> = (0..n).map(|i| reference.samples.iter().fold(0.0f64, |m, s| m.max(s[i].abs()))).collect();
    let own: Vec<f64> = (0..n)
        .map(|i| {
            reference.samples.iter().zip(&coarse.samples).fold(0.0f64, |m, (r, c)| m.max((c[i] - r[i]).abs())) / 3.0
        })
        .collect();
    let keep: Vec<bool> = (0..n).map(|i| peak[i] > 100.0 * own[i]).collect();
    for i in (0..n).filter(|&i| !keep[i]) {
        eprintln!(
            "note: {} is left out: it is zero within the reference's own error (largest value {:.1e}, error {:.1e}), \
             so it has no size to measure errors against",
            compared[i], peak[i], own[i]
        );
    }
    if !keep.contains(&true) {
        bail!("every output is zero within the reference's own error: nothing to compare");
    }
    for s in reference.samples.iter_mut().chain(coarse.samples.iter_mut()) {
        retain_flagged(s, &keep);
    }
    retain_flagged(&mut columns, &keep);
    retain_flagged(&mut compared, &keep);
    retain_flagged(&mut peak, &keep);
    let scale: Vec<f64> = peak.iter().map(|p| p.max(f64::MIN_POSITIVE)).collect();
    let (_, reference_error) = errors(&coarse, &reference, &scale);
    let reference_error = reference_error / 3.0;

    let mut rows: Vec<Row> = Vec::new();
    for &method in &methods {
        let mut previous: Option<(f64, f64)> = None;
        for &h in &steps {
            let s = settings_for(&base, &model, method, rho_inf, h);
            s.validate().map_err(anyhow::Error::msg)?;
            let done = 2 + rows.len();
            progress.update(done as u64, || format!("run {}/{total}: {method} at step {h:e}", done + 1));
            let result = simulate(&model, &params, s, start, &times, &columns);
            let (end_errors, end_error, max_error, order) = match &result {
                Ok(run) => {
                    let (end, max) = errors(run, &reference, &scale);
                    let e = end.iter().copied().fold(0.0f64, f64::max);
                    let order =
                        previous.filter(|(_, ep)| *ep > 0.0 && e > 0.0).map(|(hp, ep)| (ep / e).ln() / (hp / h).ln());
                    previous = Some((h, e));
                    (end, e, max, order)
                }
                Err(_) => {
                    previous = None;
                    (vec![f64::NAN; columns.len()], f64::NAN, f64::NAN, None)
                }
            };
            rows.push(Row { method, rho_inf: s.rho_inf, step: h, result, end_errors, end_error, max_error, order });
        }
    }

    progress.finish();
    println!(
        "{}: t = {} .. {} s, outputs {}; reference {} rho_inf {} step {reference_step:e} (estimated error {reference_error:.1e})",
        model.name(),
        Compact(start),
        Compact(stop),
        compared.join(","),
        args.reference_integrator,
        ref_settings(reference_step).rho_inf,
    );
    println!(
        "{:<18} {:>7} {:>10} {:>10} {:>10} {:>6} {:>8} {:>9} {:>8} {:>8} {:>9}",
        "integrator",
        "rho_inf",
        "step",
        "end_error",
        "max_error",
        "order",
        "steps",
        "newton_it",
        "jacobian",
        "factor.",
        "wall_s"
    );
    for r in &rows {
        match &r.result {
            Ok(run) => println!(
                "{:<18} {:>7} {:>10.3e} {:>10.3e} {:>10.3e} {:>6} {:>8} {:>9} {:>8} {:>8} {:>9.4}",
                r.method.name(),
                r.rho_inf,
                r.step,
                r.end_error,
                r.max_error,
                r.order.map_or("-".to_string(), |p| format!("{p:.2}")),
                run.stats.steps,
                run.stats.newton_iterations,
                run.stats.jacobian_evaluations,
                run.stats.factorizations,
                run.wall
            ),
            Err(e) => println!("{:<18} {:>7} {:>10.3e} failed: {e}", r.method.name(), r.rho_inf, r.step),
        }
    }

    if let Some(path) = &args.output {
        let text = if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv")) {
            csv(&rows)
        } else {
            json(
                &rows,
                &args,
                &model,
                &compared,
                start,
                stop,
                reference_step,
                &ref_settings(reference_step),
                reference_error,
            )?
        };
        let mut f = std::fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
        f.write_all(text.as_bytes())?;
    }
    if rows.iter().any(|r| r.result.is_err()) {
        bail!("some runs failed (see the table)");
    }
    Ok(())
}

fn csv(rows: &[Row]) -> String {
    let mut s = String::from(
        "integrator,rho_inf,step,end_error,max_error,order,steps,rejected_steps,newton_iterations,jacobian_evaluations,factorizations,wall_time_s\n",
    );
    for r in rows {
        let (st, wall) = r.result.as_ref().map_or((Default::default(), f64::NAN), |run| (run.stats, run.wall));
        let order = r.order.map_or(String::new(), |p| format!("{p:.6}"));
        s += &format!(
            "{},{},{:e},{:e},{:e},{order},{},{},{},{},{},{:e}\n",
            r.method.name(),
            r.rho_inf,
            r.step,
            r.end_error,
            r.max_error,
            st.steps,
            st.rejected_steps,
            st.newton_iterations,
            st.jacobian_evaluations,
            st.factorizations,
            wall
        );
    }
    s
}

#[allow(clippy::too_many_arguments)]
fn json(
    rows: &[Row],
    args: &CompareArgs,
    model: &Model,
    compared: &[String],
    start: f64,
    stop: f64,
    reference_step: f64,
    reference: &SolverSettings,
    reference_error: f64,
) -> Result<String> {
    // JSON has no NaN: failed runs get null errors and an "error" message.
    let num = |x: f64| if x.is_finite() { serde_json::json!(x) } else { serde_json::Value::Null };
    let runs: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            let mut v = serde_json::json!({
                "integrator": r.method.name(),
                "rho_inf": r.rho_inf,
                "step": r.step,
                "end_error": num(r.end_error),
                "max_error": num(r.max_error),
                "order": r.order.map_or(serde_json::Value::Null, num),
                "end_errors": compared.iter().zip(&r.end_errors).map(|(n, e)| (n.clone(), num(*e))).collect::<serde_json::Map<_, _>>(),
            });
            match &r.result {
                Ok(run) => {
                    let st = run.stats;
                    for (k, x) in [("steps", st.steps), ("rejected_steps", st.rejected_steps), ("newton_iterations", st.newton_iterations), ("jacobian_evaluations", st.jacobian_evaluations), ("factorizations", st.factorizations)] {
                        v[k] = serde_json::json!(x);
                    }
                    v["wall_time_s"] = serde_json::json!(run.wall);
                }
                Err(e) => v["error"] = serde_json::json!(e),
            }
            v
        })
        .collect();
    let doc = serde_json::json!({
        "model": model.name(),
        "model_file": args.model.display().to_string(),
        "start_time": start,
        "stop_time": stop,
        "outputs": compared,
        "reference": {
            "integrator": reference.method.name(),
            "rho_inf": reference.rho_inf,
            "step": reference_step,
            "tolerance": reference.tolerance,
            "estimated_error": num(reference_error),
        },
        "runs": runs,
    });
    Ok(serde_json::to_string_pretty(&doc)? + "\n")
}
