//! `flexfmu sweep`: run a model over the cartesian product of parameter values, in parallel,
//! each run exactly as `flexfmu simulate` would, and tabulate chosen metrics of the outputs.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result, bail};
use clap::Parser;
use rayon::prelude::*;

use flexfmu::model::Model;
use flexfmu::simulation::Experiment;

use super::csv_number::csv_number;
use super::csv_table::CsvTable;
use super::metric::Metric;
use super::model_outputs::output_columns;
use super::option_values::{self, UsageError};
use super::progress::Progress;
use super::simulate::{self, SimulateArgs, SolverArgs};
use super::sweep_grid::{self, Axis};

#[derive(Debug, clap::Args)]
pub struct SweepArgs {
    /// Model file (TOML).
    pub model: PathBuf,
    /// A swept parameter (repeatable): NAME=v1,v2,... or NAME=first:last:count (count values
    /// linearly spaced, both ends included) or NAME=value (fixed).
    #[arg(long = "set", value_name = "NAME=VALUES")]
    pub set: Vec<String>,
    /// End time (s) of every run, after the model's start time; default: the model's
    /// stop_time.
    #[arg(long, value_parser = option_values::time, allow_hyphen_values = true)]
    pub stop_time: Option<f64>,
    /// Interval between the rows of each run's CSV (s); default as for simulate.
    #[arg(long, value_parser = option_values::duration, allow_hyphen_values = true)]
    pub output_interval: Option<f64>,
    /// Solver options of every run, as for simulate.
    #[command(flatten)]
    pub solver: SolverArgs,
    /// Input values of every run, as for simulate: NAME=VALUE or NAME=FILE.csv.
    #[arg(long = "input", value_name = "NAME=VALUE|CSV")]
    pub inputs: Vec<String>,
    /// A column of the table (repeatable): NAME=end|max|min|mean of output NAME; default: the
    /// end value of every output.
    #[arg(long = "metric", value_name = "NAME=STAT")]
    pub metrics: Vec<String>,
    /// Runs at a time, at most the number of runs; default: the number of cores.
    #[arg(long, short = 'j', allow_hyphen_values = true)]
    pub jobs: Option<usize>,
    /// Output directory: sweep.csv and run_0001.csv, run_0002.csv, ...
    #[arg(short = 'o', long)]
    pub output: PathBuf,
}

/// `flexfmu simulate`'s own argument parser, so that a sweep's run is the command line's run.
#[derive(Parser)]
#[command(name = "simulate")]
struct SimulateCommand {
    #[command(flatten)]
    args: SimulateArgs,
}

/// The arguments of `flexfmu simulate` for one run.
fn simulate_args(args: &SweepArgs, label: String, run: &[String], csv: &Path) -> Result<SimulateArgs> {
    let mut argv: Vec<OsString> = vec!["simulate".into(), args.model.clone().into()];
    for set in run {
        argv.extend(["--set".into(), set.into()]);
    }
    if let Some(t) = args.stop_time {
        // Joined by '=', so that the value is the option's whatever it starts with.
        argv.push(format!("--stop-time={t}").into());
    }
    if let Some(dt) = args.output_interval {
        argv.push(format!("--output-interval={dt}").into());
    }
    argv.extend(args.solver.to_argv());
    for input in &args.inputs {
        argv.extend(["--input".into(), input.into()]);
    }
    argv.extend(["-o".into(), csv.into()]);
    let mut parsed = SimulateCommand::try_parse_from(argv).context("building the simulate arguments")?.args;
    parsed.run_label = Some(label);
    Ok(parsed)
}

/// Simulate one run into `csv` and evaluate the metrics on what it wrote.
fn run_one(args: &SweepArgs, label: String, run: &[String], csv: &Path, metrics: &[Metric]) -> Result<Vec<f64>> {
    simulate::run(simulate_args(args, label, run, csv)?)?;
    let table = CsvTable::read(csv)?;
    let time = table.column("time").context("the run's CSV has no time column")?;
    metrics
        .iter()
        .map(|m| {
            let values = table.column(&m.output).with_context(|| format!("no output '{}' in the run", m.output))?;
            Ok(m.evaluate(time, values))
        })
        .collect()
}

/// Remove what an earlier sweep wrote into `dir` (its sweep.csv and run_NNNN.csv files), saying
/// so: a sweep into the directory of a larger one left that one's runs beside a table of its
/// own, and a glob over run_*.csv read them (a probe). Other files stay.
fn remove_earlier_sweep(dir: &std::path::Path) -> Result<()> {
    let is_run = |name: &str| {
        name.strip_prefix("run_")
            .and_then(|n| n.strip_suffix(".csv"))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    let mut removed = 0;
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if (is_run(name) || name == "sweep.csv") && entry.file_type()?.is_file() {
            std::fs::remove_file(entry.path()).with_context(|| format!("cannot remove {}", entry.path().display()))?;
            removed += 1;
        }
    }
    if removed > 0 {
        eprintln!(
            "note: removed {removed} file{} of an earlier sweep from {}",
            if removed == 1 { "" } else { "s" },
            dir.display()
        );
    }
    Ok(())
}

pub fn run(args: SweepArgs) -> Result<()> {
    let model = Model::load(&args.model)?;
    let axes = args.set.iter().map(|s| Axis::parse(s)).collect::<Result<Vec<_>>>()?;
    for (i, axis) in axes.iter().enumerate() {
        if axes[..i].iter().any(|a| a.parameter == axis.parameter) {
            bail!(UsageError(format!("--set {}: the parameter is given twice", axis.parameter)));
        }
    }
    let runs = sweep_grid::runs(&axes)?;
    for (i, run) in runs.iter().enumerate() {
        let params =
            simulate::parameter_values(&model, run).with_context(|| format!("run {} ({})", i + 1, run.join(", ")))?;
        if let Some(stop) = args.stop_time {
            let start = Experiment::from_model(&model, &params)?.start_time;
            option_values::stop_time(stop, start, true)
                .with_context(|| format!("run {} ({})", i + 1, run.join(", ")))?;
        }
    }
    let outputs: Vec<String> = output_columns(&model)?.into_iter().map(|o| o.name).collect();
    let metrics = if args.metrics.is_empty() {
        outputs.iter().map(|o| Metric::end(o)).collect()
    } else {
        args.metrics.iter().map(|m| Metric::parse(m)).collect::<Result<Vec<_>>>()?
    };
    for m in &metrics {
        if !outputs.contains(&m.output) {
            bail!(UsageError(format!(
                "--metric {}: unknown output '{}' ({})",
                m.header(),
                m.output,
                super::declared(&outputs)
            )));
        }
    }
    if args.jobs == Some(0) {
        bail!(UsageError("-j 0: a sweep runs at least one run at a time".into()));
    }
    std::fs::create_dir_all(&args.output).with_context(|| format!("cannot create {}", args.output.display()))?;
    remove_earlier_sweep(&args.output)?;
    let width = runs.len().to_string().len().max(4);
    let csv_path = |i: usize| args.output.join(format!("run_{:0width$}.csv", i + 1));

    // No more workers than runs: each is a thread of its own, and a worker without a run
    // would only be started and stopped (`-j 10000` on 2 runs started 10,000 threads).
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    let jobs = jobs.clamp(1, runs.len().max(1));
    let pool = rayon::ThreadPoolBuilder::new().num_threads(jobs).build().context("starting the worker threads")?;
    let progress = Mutex::new((Progress::new(runs.len() as u64, "{msg} runs"), 0u64));
    let total = runs.len();
    let results: Vec<Result<Vec<f64>>> = pool.install(|| {
        runs.par_iter()
            .enumerate()
            .map(|(i, run)| {
                let label = format!("run {} ({})", i + 1, run.join(", "));
                let result = run_one(&args, label, run, &csv_path(i), &metrics);
                let mut guard = progress.lock().expect("progress lock");
                let (bar, done) = &mut *guard;
                *done += 1;
                let d = *done;
                bar.update(d, || format!("{d}/{total}"));
                result
            })
            .collect()
    });
    progress.into_inner().expect("progress lock").0.finish();

    let table_path = args.output.join("sweep.csv");
    let file = std::fs::File::create(&table_path).with_context(|| format!("cannot write {}", table_path.display()))?;
    let mut table = std::io::BufWriter::new(file);
    let mut header = vec!["run".to_string()];
    header.extend(axes.iter().map(|a| a.parameter.clone()));
    header.extend(metrics.iter().map(Metric::header));
    writeln!(table, "{}", header.join(","))?;
    let mut failures = Vec::new();
    for (i, (run, result)) in runs.iter().zip(&results).enumerate() {
        let mut row = vec![(i + 1).to_string()];
        row.extend(run.iter().map(|s| s.split_once('=').map_or("", |(_, v)| v).to_string()));
        match result {
            Ok(values) => row.extend(values.iter().copied().map(csv_number)),
            Err(e) => {
                row.extend(metrics.iter().map(|_| String::new()));
                failures.push(format!("run {} ({}): {e:#}", i + 1, run.join(", ")));
            }
        }
        writeln!(table, "{}", row.join(","))?;
    }
    table.flush()?;
    println!(
        "{}: {} run{} ({} at a time) in {}, table {}",
        model.name(),
        runs.len(),
        if runs.len() == 1 { "" } else { "s" },
        jobs,
        args.output.display(),
        table_path.display()
    );
    if !failures.is_empty() {
        for f in &failures {
            eprintln!("{f}");
        }
        bail!("{} of {} runs failed (their table cells are empty)", failures.len(), runs.len());
    }
    Ok(())
}
