//! `flexfmu simulate`: the solver without FMI, writing a CSV of the outputs.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use flexfmu::compact_number::Compact;
use flexfmu::integrators::{ConstraintTreatment, Method, NewtonStrategy};
use flexfmu::limits::{MAX_DATA_FILE_BYTES, MAX_STEPS_PER_INTERVAL};
use flexfmu::model::{Model, ParameterKind};
use flexfmu::simulation::call_times::CallTimes;
use flexfmu::simulation::{Experiment, Simulation, SolverSettings};

use super::option_values::{self, UsageError};
use super::outputs_csv::OutputsCsv;
use super::progress::Progress;
use super::states::StatesRecorder;

/// The solver options of `simulate`, also taken (and passed on) by `flexfmu sweep`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SolverArgs {
    /// Internal step (s) [default: the model's step, else 1e-3 or 1/20 of its beams' first bending or torsional period if shorter; `flexfmu info` shows it].
    #[arg(long, value_parser = option_values::duration, allow_hyphen_values = true)]
    pub step: Option<f64>,
    /// Integration method: ttbif, hht, generalized-alpha, newmark or bathe [default: the
    /// model's integrator, else ttbif].
    #[arg(long)]
    pub integrator: Option<Method>,
    /// Spectral radius at infinity [default: the model's rho_inf, else 0.5; with --integrator,
    /// moved into that method's range (HHT at least 0.5; Newmark is 1)].
    #[arg(long, allow_hyphen_values = true)]
    pub rho_inf: Option<f64>,
    /// Newton tolerance (relative) [default: the model's tolerance, else 1e-10].
    #[arg(long, allow_hyphen_values = true)]
    pub tolerance: Option<f64>,
    /// Newton strategy: full, modified or broyden [default: the model's newton, else modified].
    #[arg(long)]
    pub newton: Option<NewtonStrategy>,
    /// Constraint treatment: index3, ggl or baumgarte [default: the model's constraints, else
    /// ggl at rho_inf 1 and index3 below].
    #[arg(long)]
    pub constraints: Option<ConstraintTreatment>,
    /// Baumgarte's alpha (1/s), with --constraints baumgarte [default: the model's, else 10].
    #[arg(long, allow_hyphen_values = true)]
    pub baumgarte_alpha: Option<f64>,
    /// Baumgarte's beta (1/s), with --constraints baumgarte [default: the model's, else 50].
    #[arg(long, allow_hyphen_values = true)]
    pub baumgarte_beta: Option<f64>,
    /// Error-controlled internal steps: true or false [default: the model's error_control, else
    /// false].
    #[arg(long)]
    pub error_control: Option<bool>,
    /// Relative tolerance of the error-controlled step [default: the model's rtol, else 1e-4].
    #[arg(long, allow_hyphen_values = true)]
    pub rtol: Option<f64>,
    /// Absolute tolerance of the error-controlled step [default: the model's atol, else 1e-6].
    #[arg(long, allow_hyphen_values = true)]
    pub atol: Option<f64>,
}

impl SolverArgs {
    /// The options as `flexfmu simulate` arguments (those given only).
    pub fn to_argv(&self) -> Vec<std::ffi::OsString> {
        let mut argv: Vec<std::ffi::OsString> = Vec::new();
        let mut push = |name: &str, value: Option<String>| {
            if let Some(v) = value {
                // Joined by '=', so that the value is the option's whatever it starts with.
                argv.push(format!("--{name}={v}").into());
            }
        };
        push("step", self.step.map(|x| x.to_string()));
        push("integrator", self.integrator.map(|m| m.name().to_string()));
        push("rho-inf", self.rho_inf.map(|x| x.to_string()));
        push("tolerance", self.tolerance.map(|x| x.to_string()));
        push("newton", self.newton.map(|x| x.name().to_string()));
        push("constraints", self.constraints.map(|x| x.name().to_string()));
        push("baumgarte-alpha", self.baumgarte_alpha.map(|x| x.to_string()));
        push("baumgarte-beta", self.baumgarte_beta.map(|x| x.to_string()));
        push("error-control", self.error_control.map(|x| x.to_string()));
        push("rtol", self.rtol.map(|x| x.to_string()));
        push("atol", self.atol.map(|x| x.to_string()));
        argv
    }
}

#[derive(Debug, clap::Args)]
pub struct SimulateArgs {
    /// Model file (TOML).
    pub model: PathBuf,
    /// End time (s), after the model's start time; default: the model's stop_time.
    #[arg(long, value_parser = option_values::time, allow_hyphen_values = true)]
    pub stop_time: Option<f64>,
    /// Solver options (override the model's [solver] section).
    #[command(flatten)]
    pub solver: SolverArgs,
    /// Interval between CSV rows (s); default: the model's output_interval, else the step.
    #[arg(long, value_parser = option_values::duration, allow_hyphen_values = true)]
    pub output_interval: Option<f64>,
    /// Override a parameter (repeatable): NAME=VALUE.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Input values: NAME=VALUE (constant) or NAME=FILE.csv (columns time,value; linear interpolation).
    #[arg(long = "input", value_name = "NAME=VALUE|CSV")]
    pub inputs: Vec<String>,
    /// Write solver statistics as JSON.
    #[arg(long)]
    pub stats_json: Option<PathBuf>,
    /// Also plot every output against time into this PNG (as `flexfmu plot`, units from the model).
    #[arg(long, value_name = "PLOT.png")]
    pub plot: Option<PathBuf>,
    /// Also write every body's and beam node's coordinates and the contact states at the output
    /// times as JSON (docs/cli.md, "States file"; the input of `flexfmu animate`).
    #[arg(long, value_name = "STATES.json")]
    pub states: Option<PathBuf>,
    /// Output CSV file.
    #[arg(short = 'o', long)]
    pub output: PathBuf,
    /// Set by `flexfmu sweep` for its runs ("run 2 (k=1e20)"): no progress bar and no summary
    /// line, and the warnings start with it (a probe could not tell which run an energy
    /// warning came from).
    #[arg(skip)]
    pub run_label: Option<String>,
}

/// Apply `--set NAME=VALUE` overrides to the model's default parameter values. A name the
/// model does not declare or a value not of its kind is a usage error (exit code 2).
pub fn parameter_values(model: &Model, sets: &[String]) -> Result<Vec<f64>> {
    let mut params = model.default_parameters();
    for s in sets {
        let (name, value) =
            s.split_once('=').ok_or_else(|| UsageError(format!("--set expects NAME=VALUE, got '{s}'")))?;
        let Some(i) = model.parameter_index(name.trim()) else {
            let known: Vec<_> = model.parameters.iter().map(|p| p.name.as_str()).collect();
            bail!(UsageError(format!("unknown parameter '{}' ({})", name.trim(), super::declared(&known))));
        };
        let p = &model.parameters[i];
        params[i] = if p.kind == ParameterKind::String {
            p.choice_index(value.trim()).ok_or_else(|| {
                UsageError(format!("--set {name}: '{}' is not one of {}", value.trim(), p.choices.join(", ")))
            })?
        } else {
            // Rust's parse error ("invalid float literal") said nothing a user writes (a probe).
            value.trim().parse().map_err(|_| {
                UsageError(format!("--set {name}: '{value}' is not a number (such as 2, -0.5 or 1e-3; no expressions)"))
            })?
        };
    }
    model.check_parameters(&params)?;
    Ok(params)
}

/// `distinct_outputs` for a command that reads the model and the tables of its `--input
/// NAME=VALUE|NAME=FILE` specs (the values that are no number): no output may be one of them
/// (a probe's `simulate -o in.csv --input u=in.csv` wrote the results over the table).
pub fn outputs_apart_from_model_and_tables(
    model: &Path,
    inputs: &[String],
    outputs: &[(&str, Option<&Path>)],
) -> Result<()> {
    let tables: Vec<PathBuf> = inputs
        .iter()
        .filter_map(|s| s.split_once('=').map(|(_, v)| v.trim()))
        .filter(|v| v.parse::<f64>().is_err())
        .map(PathBuf::from)
        .collect();
    let mut read: Vec<(&str, &Path)> = vec![("the model file", model)];
    read.extend(tables.iter().map(|p| ("an input table", p.as_path())));
    super::outputs_apart_from(&read, outputs)
}

/// The signals' values at `start` are the initial state's (`Simulation::set_initial_inputs`):
/// a drive that reads one starts where it puts it, what the drive carries moved rigidly there
/// (in `statics` too: a probe's crane slewed 0.3 rad by its input found no equilibrium from
/// the unslewed drawing).
pub fn set_start_inputs(sim: &mut Simulation, signals: &[(usize, InputSignal)], start: f64) -> Result<()> {
    let mut initial = sim.inputs().to_vec();
    for (i, s) in signals {
        initial[*i] = s.at(start);
    }
    sim.set_initial_inputs(&initial, &[]).map_err(anyhow::Error::msg)
}

/// `--input NAME=VALUE|NAME=FILE.csv` options: (the input's index, its signal) each.
pub fn input_signals(sim: &Simulation, specs: &[String]) -> Result<Vec<(usize, InputSignal)>> {
    let mut signals = Vec::new();
    for spec in specs {
        let (name, value) = spec
            .split_once('=')
            .ok_or_else(|| UsageError(format!("--input expects NAME=VALUE or NAME=FILE, got '{spec}'")))?;
        let Some(i) = sim.input_names().iter().position(|n| n == name.trim()) else {
            bail!(UsageError(format!("unknown input '{}' ({})", name.trim(), super::declared(sim.input_names()))));
        };
        let signal = InputSignal::parse(value.trim(), sim.input_drives_a_joint(i))
            .with_context(|| format!("--input {}", name.trim()))?;
        signals.push((i, signal));
    }
    Ok(signals)
}

/// An input signal given on the command line: a constant, or a table linearly interpolated
/// between its rows (constant before the first and after the last; two rows at one time, or
/// within round-off of it, make a step, the later row's value holding from that time on).
pub enum InputSignal {
    Constant(f64),
    Table(Vec<(f64, f64)>),
}

impl InputSignal {
    pub fn at(&self, t: f64) -> f64 {
        let t = self.snap(t);
        let (k, rows) = match self {
            InputSignal::Constant(v) => return *v,
            InputSignal::Table(rows) => (rows.partition_point(|r| r.0 <= t), rows),
        };
        match k {
            0 => rows[0].1,
            k if k == rows.len() => rows[k - 1].1,
            k => rows[k - 1].1 + self.slope(t) * (t - rows[k - 1].0),
        }
    }

    /// t, or the time of a table row within round-off of it (`same_time`): an output row at
    /// 41 x 0.01 = 0.41000000000000003 s is the table's row at 0.41 (a probe's drive table:
    /// without this, an internal step of 6e-17 s took the next piece's slope and the drive
    /// torque there was 1028 N m instead of 9).
    fn snap(&self, t: f64) -> f64 {
        match self {
            InputSignal::Table(rows) => {
                let k = rows.partition_point(|r| r.0 < t);
                [k.checked_sub(1), Some(k)]
                    .into_iter()
                    .flatten()
                    .filter_map(|i| rows.get(i))
                    .map(|r| r.0)
                    .find(|&r| same_time(r, t))
                    .unwrap_or(t)
            }
            InputSignal::Constant(_) => t,
        }
    }

    /// The slope of the piece that holds t (0 outside the table and for a constant).
    fn slope(&self, t: f64) -> f64 {
        match self {
            InputSignal::Table(rows) => match rows.partition_point(|r| r.0 <= t) {
                k if k == 0 || k == rows.len() => 0.0,
                k => {
                    let ((t0, v0), (t1, v1)) = (rows[k - 1], rows[k]);
                    (v1 - v0) / (t1 - t0)
                }
            },
            InputSignal::Constant(_) => 0.0,
        }
    }

    /// Whether the signal steps at t (table rows at t, the first and last of different values).
    fn steps_at(&self, t: f64) -> bool {
        let t = self.snap(t);
        match self {
            InputSignal::Table(rows) => {
                let at_t = &rows[rows.partition_point(|r| r.0 < t)..rows.partition_point(|r| r.0 <= t)];
                at_t.len() > 1 && at_t[0].1 != at_t[at_t.len() - 1].1
            }
            InputSignal::Constant(_) => false,
        }
    }

    /// The table's row times inside (from, to), not within round-off of either end.
    fn rows_inside(&self, from: f64, to: f64) -> impl Iterator<Item = f64> + '_ {
        let rows: &[(f64, f64)] = match self {
            InputSignal::Table(rows) => rows,
            InputSignal::Constant(_) => &[],
        };
        let first = rows.partition_point(|r| r.0 <= from);
        rows[first..]
            .iter()
            .map(|r| r.0)
            .take_while(move |&t| t < to)
            .filter(move |&t| !same_time(t, from) && !same_time(t, to))
    }

    /// The signal written `text`: a number or a CSV file's name. `drives`: the input drives a
    /// joint, whose position cannot jump, so a table may not step.
    fn parse(text: &str, drives: bool) -> Result<InputSignal> {
        if let Ok(v) = text.parse::<f64>() {
            if !v.is_finite() {
                bail!(UsageError(format!("the value must be a finite number, got {v}")));
            }
            return Ok(InputSignal::Constant(v));
        }
        let csv = flexfmu::limits::read_text_bounded(Path::new(text), MAX_DATA_FILE_BYTES, "input table")
            .map_err(|e| UsageError(format!("input '{text}' is neither a number nor a readable CSV file: {e}")))?;
        let mut rows: Vec<(f64, f64)> = Vec::new();
        for (i, line) in csv.lines().enumerate() {
            let at = format!("{text}:{}", i + 1);
            // Cells may be quoted, as spreadsheets write them (a probe's "0","1" was taken as the header).
            let cells: Vec<_> = line.split(',').map(|c| c.trim().trim_matches('"').trim()).collect();
            let numbers: Vec<_> = cells.iter().map(|c| c.parse::<f64>()).collect();
            // Another separator makes one column of every line (a probe's "0;1" rows: the first
            // was taken as a header).
            if cells.len() == 1 && [';', '\t'].iter().any(|&c| line.contains(c)) {
                bail!("{at}: the columns are separated by commas ('time,value'), got '{line}'");
            }
            if i == 0 && numbers.iter().any(Result::is_err) {
                // The header: its names are free, but a third column would be ignored.
                if let Some(extra) = cells.get(2) {
                    bail!("{at}: unknown column '{extra}': an input table has two columns, time and value");
                }
                // A 'value,time' table would be read the wrong way round.
                if cells.get(1).is_some_and(|c| c.eq_ignore_ascii_case("time")) {
                    bail!("{at}: the columns are 'time,value' in that order, got '{line}'");
                }
                continue;
            }
            let [Ok(t), Ok(v)] = numbers[..] else {
                bail!("{at}: expected 'time,value', got '{line}'");
            };
            if !t.is_finite() || !v.is_finite() {
                bail!("{at}: the time and value must be finite numbers, got '{line}'");
            }
            // A row within round-off of the one above (`same_time`) is at its time: a step. Its
            // value had never been set (a probe's 1 s and 1.0000000000001 s rows held the first
            // value to the end).
            let t = match rows.last() {
                Some(&(before, _)) if same_time(t, before) => before,
                _ => t,
            };
            // A drive that steps is a jump in position, an infinite impulse (a probe's table of
            // 0.1 rad steps swung a crane with 1e7 N m and lost 92 % of the energy); at the
            // table's first time, where a run starting there takes the later value, it is not.
            if let Some(&(before, v0)) = rows.last()
                && drives
                && rows.len() > 1
                && t == before
                && v != v0
            {
                bail!(
                    "{at}: the value steps from {} to {} at t = {}, and this input drives a joint, whose position \
                     cannot jump: give the change a duration (a row a little later)",
                    Compact(v0),
                    Compact(v),
                    Compact(t)
                );
            }
            if let Some(&(before, _)) = rows.last()
                && t < before
            {
                bail!(
                    "{at}: time {} is before the row above's {}: times must increase (two rows at one time make a step)",
                    Compact(t),
                    Compact(before)
                );
            }
            // The slope between rows is the input's derivative: it must be finite too (a
            // probe's 0 to 1e308 over 0.5 s was "input 'u' must be finite, got NaN").
            if let Some(&(t0, v0)) = rows.last()
                && t > t0
                && let Some(why) = flexfmu::mechanics::forces::load::slope_overflow(t0, v0, t, v)
            {
                bail!("{at}: {why}");
            }
            rows.push((t, v));
        }
        if rows.is_empty() {
            bail!("{text}: no rows 'time,value'");
        }
        Ok(InputSignal::Table(rows))
    }
}

/// Whether two times are the same but for round-off (relative 1e-12, absolute below 1 s).
fn same_time(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

/// Step from `from` to `to` along the input signals: to each table row inside the interval,
/// each piece with its inputs' slope as first derivative (`Simulation::set_input_derivative`,
/// as fmi2SetRealInputDerivatives), so drives follow the tables' linear interpolation
/// exactly and loads read it at their stage times. A value is set where the
/// table steps (and at the start); elsewhere the interpolation has taken the input there.
fn step_along(sim: &mut Simulation, signals: &[(usize, InputSignal)], from: f64, to: f64) -> Result<(), String> {
    let mut ends: Vec<f64> = signals.iter().flat_map(|(_, s)| s.rows_inside(from, to)).collect();
    ends.sort_by(f64::total_cmp);
    ends.dedup();
    ends.push(to);
    // Each row ends an internal step: the budget of one interval (a probe's table of 2e6 rows
    // 1e-9 s apart ran 2e6 steps in one 0.01 s interval, without a word).
    if ends.len() as u64 > MAX_STEPS_PER_INTERVAL {
        return Err(format!(
            "the input tables have {} rows between t = {} and {}, more than the {MAX_STEPS_PER_INTERVAL} internal \
             steps one output interval may take (each row ends a step): use a shorter output interval or a \
             coarser table",
            ends.len() - 1,
            Compact(from),
            Compact(to)
        ));
    }
    let mut t0 = from;
    for t1 in ends {
        for (i, s) in signals {
            if s.steps_at(t0) {
                sim.set_input(*i, s.at(t0))?;
            }
            let slope = s.slope(0.5 * (t0 + t1));
            if slope != 0.0 {
                sim.set_input_derivative(*i, 1, slope)?;
            }
        }
        sim.step_to(t1).map_err(|e| e.to_string())?;
        t0 = t1;
    }
    // A step at the interval's end holds from there: the output row at `to` shows it.
    for (i, s) in signals.iter().filter(|(_, s)| s.steps_at(to)) {
        sim.set_input(*i, s.at(to))?;
    }
    Ok(())
}

/// Internal steps of the default step beyond which `simulate` says the step is a default.
const DEFAULT_STEP_NOTE: f64 = 1e6;

pub fn run(args: SimulateArgs) -> Result<()> {
    if let Some(png) = &args.plot {
        super::plot::png_name(png)?;
    }
    outputs_apart_from_model_and_tables(
        &args.model,
        &args.inputs,
        &[
            ("-o", Some(&args.output)),
            ("--states", args.states.as_deref()),
            ("--plot", args.plot.as_deref()),
            ("--stats-json", args.stats_json.as_deref()),
        ],
    )?;
    for path in [args.states.as_deref(), args.plot.as_deref(), args.stats_json.as_deref()].into_iter().flatten() {
        super::output_directory_exists(path)?;
    }
    let model = Model::load(&args.model)?;
    let params = parameter_values(&model, &args.set)?;
    let mut settings = SolverSettings::from_model(&model, &params)?;
    if let Some(m) = args.solver.integrator {
        settings.method = m;
        // The model's rho_inf was chosen for its own method (TTBIF takes 0): moved into this
        // one's range. A model without one takes the default 0.5 (not the 1 its own Newmark
        // had: --integrator generalized-alpha on a Newmark model ran at 1, a probe). An explicit
        // --rho-inf below is checked as given.
        settings.rho_inf = m.default_rho_inf(settings.stated_rho_inf(&model));
    }
    if let Some(r) = args.solver.rho_inf {
        settings.rho_inf = r;
    }
    if let Some(h) = args.solver.step {
        settings.step = h;
    }
    if let Some(tol) = args.solver.tolerance {
        settings.tolerance = tol;
    }
    if let Some(strategy) = args.solver.newton {
        settings.strategy = strategy;
    }
    // Without a treatment on the command line or in the model file: the default for rho_inf
    // as now set (src/integrators/constraints.rs).
    settings.constraints = args.solver.constraints.unwrap_or(settings.constraints_at(&model, settings.rho_inf));
    if let Some(x) = args.solver.baumgarte_alpha {
        settings.baumgarte.alpha = x;
    }
    if let Some(x) = args.solver.baumgarte_beta {
        settings.baumgarte.beta = x;
    }
    if let Some(on) = args.solver.error_control {
        settings.error_control.enabled = on;
    }
    if let Some(x) = args.solver.rtol {
        settings.error_control.rtol = x;
    }
    if let Some(x) = args.solver.atol {
        settings.error_control.atol = x;
    }
    if (args.solver.baumgarte_alpha.is_some() || args.solver.baumgarte_beta.is_some())
        && settings.constraints != ConstraintTreatment::Baumgarte
    {
        bail!("--baumgarte-alpha/--baumgarte-beta apply only with --constraints baumgarte");
    }
    if let Err(e) = settings.validate() {
        bail!("{e}");
    }
    let experiment = Experiment::from_model(&model, &params)?;
    let stop = option_values::stop_time(args.stop_time.unwrap_or(experiment.stop_time), experiment.start_time, true)?;
    let interval = args.output_interval.or(experiment.output_interval).unwrap_or(settings.step);
    // A run that fails before its first step (a load that is NaN at the start) has its
    // statistics written too, with nothing computed (a probe's script read `outcome` from a
    // file that was not there).
    let failed_start = |e: &anyhow::Error, settings: &SolverSettings| -> Result<()> {
        match &args.stats_json {
            Some(path) => write_stats_json(path, "failed", Some(&format!("{e:#}")), &RunRecord::default(), settings),
            None => Ok(()),
        }
    };
    let mut sim = match Simulation::new(&model, &params, settings, experiment.start_time) {
        Ok(sim) => sim,
        Err(e) => {
            let e = anyhow::Error::from(e);
            failed_start(&e, &settings)?;
            return Err(e);
        }
    };
    sim.limit_steps_to(&model, interval);
    let label = args.run_label.as_ref().map_or(String::new(), |l| format!("{l}: "));
    for w in sim.warnings() {
        eprintln!("{label}{}", w.warning());
    }
    // The default step is 1e-3 in the model's time unit: a model in milliseconds steps by 1 us
    // (a probe's mm-kg-ms crane ran 1000 times the steps of its SI twin without a word).
    let steps = (stop - experiment.start_time) / sim.settings().step;
    if args.solver.step.is_none() && model.definition.solver.step.is_none() && steps > DEFAULT_STEP_NOTE {
        eprintln!(
            "{label}note: {} internal steps of the default step {} (1e-3 in the model's time unit, s in SI, or 1/20 \
             of the beams' first bending or torsional period; give `step` in [solver] or --step for a model whose \
             time unit is not the second, or that needs no such resolution)",
            Compact(steps.round()),
            Compact(sim.settings().step)
        );
    }

    let signals = input_signals(&sim, &args.inputs)?;

    let mut states = match &args.states {
        Some(path) => Some(StatesRecorder::new(path, model.name(), sim.scene(&model, &params)?)?),
        None => None,
    };
    let mut csv = OutputsCsv::create(&args.output, &sim)?;

    let start = experiment.start_time;
    let count = flexfmu::limits::output_intervals(start, stop, interval).map_err(anyhow::Error::msg)?;
    let mut progress = if args.run_label.is_some() { Progress::hidden() } else { Progress::new(count, "t = {msg} s") };
    progress.update(0, || format!("{start:.4}"));
    let clock = Instant::now();
    if let Err(e) = set_start_inputs(&mut sim, &signals, start).and_then(|_| csv.write_row(&mut sim)) {
        failed_start(&e, sim.settings())?;
        return Err(e);
    }
    if let Some(s) = &mut states {
        s.record(&sim);
    }
    let mut last_row = start;
    let mut interval_times = CallTimes::default();
    // A standalone run stops after its next internal step on Ctrl-C and ends as below
    // (src/cli/interrupt.rs); a sweep's runs are the sweep's to stop.
    if args.run_label.is_none() {
        super::interrupt::catch();
        sim.set_interrupt(super::interrupt::requested);
    }
    let mut interrupted = false;
    // A failed run ends as the others do (states file, statistics), then reports: what failed,
    // and the time up to which the CSV holds results.
    let mut failure: Option<(String, f64)> = None;
    // The first output time at which an element left the range of its formulation.
    let mut outside_formulation = sim.outside_formulation();
    for k in 1..=count {
        let t = if k == count { stop } else { start + (k as f64) * interval };
        let interval_clock = Instant::now();
        let stepped = step_along(&mut sim, &signals, last_row, t);
        interval_times.record(interval_clock.elapsed().as_secs_f64(), last_row);
        if let Err(e) = stepped {
            // The state is that of the last successful internal step: write it as the last row.
            // (If even its outputs fail, the rows so far stay and the step's error is reported.)
            // Ctrl-C stops the interval at its next internal step, and the run ends the same way.
            let stopped = sim.time();
            if stopped > last_row && csv.write_row(&mut sim).is_ok() {
                last_row = stopped;
            }
            if let Some(s) = &mut states {
                s.record(&sim);
            }
            if args.run_label.is_none() && super::interrupt::requested() {
                interrupted = true;
            } else {
                failure = Some((format!("simulation stopped at t = {}: {e}", Compact(stopped)), stopped));
            }
            break;
        }
        // Outputs that cannot be evaluated at the reached state end the run as a failed step
        // does, with the rows so far kept and said so (a probe's drive with an infinite rate at
        // t = 0.5 ended without the line).
        if let Err(e) = csv.write_row(&mut sim) {
            failure = Some((format!("simulation stopped at t = {}: {e:#}", Compact(t)), last_row));
            break;
        }
        if let Some(s) = &mut states {
            s.record(&sim);
        }
        if outside_formulation.is_none() {
            outside_formulation = sim.outside_formulation();
        }
        last_row = t;
        progress.update(k, || format!("{t:.4}"));
        if args.run_label.is_none() && super::interrupt::requested() {
            interrupted = true;
            break;
        }
    }
    progress.finish();
    if let Some(s) = &states {
        s.write()?;
    }
    let wall = clock.elapsed().as_secs_f64();
    let st = sim.statistics();
    // The energy balance of the whole run: a violent motion the step does not resolve shows
    // here even when every step converged.
    let drift = sim.energy_balance_change();
    // A failed run's error carries its diagnosis (the energy balance's too): no warnings and
    // no summary line besides it.
    if failure.is_none() {
        if let Some(warning) = sim.energy_balance_warning() {
            eprintln!("warning: {label}{warning}");
        }
        if let Some(warning) = outside_formulation {
            eprintln!("warning: {label}the model left its elements' range {warning}");
        }
        for warning in Simulation::RUN_WARNINGS.iter().filter_map(|w| w(&sim)) {
            eprintln!("warning: {label}{warning}");
        }
    }
    if args.run_label.is_none() && failure.is_none() {
        println!(
            "{}: {} to t = {} s with {} at step {} s: {} steps ({} rejected){}, {} Newton iterations, {} Jacobian evaluations, {} factorizations, {wall:.3} s wall{}",
            model.name(),
            args.output.display(),
            Compact(last_row),
            sim.settings().method,
            // The nominal step (the model's, the default or --step); the output interval and
            // events may cut steps shorter (the count says how many were taken).
            Compact(sim.settings().step),
            st.steps,
            st.rejected_steps,
            st.extrapolated(),
            st.newton_iterations,
            st.jacobian_evaluations,
            st.factorizations,
            // Each output interval is one step_to, as one doStep of the FMU: its worst case is
            // what a real-time budget must cover.
            interval_times.summary().map(|t| format!("; per output interval: {t}")).unwrap_or_default(),
        );
    }
    if let Some(path) = &args.stats_json {
        // How the run ended: it reached its stop time, was stopped by Ctrl-C, or failed (its
        // error as printed, without the line on the rows kept).
        let outcome = match (&failure, interrupted) {
            (Some(_), _) => "failed",
            (None, true) => "interrupted",
            (None, false) => "completed",
        };
        let run =
            RunRecord { statistics: st, energy_balance_change_j: drift, wall_time_s: wall, intervals: interval_times };
        write_stats_json(path, outcome, failure.as_ref().map(|(message, _)| message.as_str()), &run, sim.settings())?;
    }
    if let Some((message, kept_to)) = failure {
        bail!("{message}\n{} holds the results up to t = {}", args.output.display(), Compact(kept_to));
    }
    if interrupted {
        let kept = format!("{} holds the results up to t = {}", args.output.display(), Compact(last_row));
        return Err(super::interrupt::Interrupted { at: last_row, kept }.into());
    }
    if let Some(png) = &args.plot {
        super::plot::plot_file(&args.output, &[], Some(&args.model), png)?;
    }
    Ok(())
}

/// What a run computed, for `--stats-json` (all zero for a run that failed before its first
/// step).
#[derive(Default)]
struct RunRecord {
    statistics: flexfmu::integrators::Statistics,
    energy_balance_change_j: f64,
    wall_time_s: f64,
    intervals: CallTimes,
}

/// `--stats-json`: how the run ended (`outcome`, the `error` it failed with), its counters and
/// the solver settings it ran with.
fn write_stats_json(
    path: &Path,
    outcome: &str,
    error: Option<&str>,
    run: &RunRecord,
    settings: &SolverSettings,
) -> Result<()> {
    let (st, calls) = (&run.statistics, &run.intervals);
    let json = serde_json::json!({
        "outcome": outcome,
        "error": error,
        "steps": st.steps,
        "rejected_steps": st.rejected_steps,
        "extrapolated_spans": st.extrapolated_spans,
        "newton_iterations": st.newton_iterations,
        "jacobian_evaluations": st.jacobian_evaluations,
        "factorizations": st.factorizations,
        "energy_balance_change_j": run.energy_balance_change_j,
        "wall_time_s": run.wall_time_s,
        "interval_wall_mean_s": calls.total / (calls.calls.max(1) as f64),
        "interval_wall_worst_s": calls.worst,
        "interval_worst_from": calls.worst_from,
        "integrator": settings.method.name(),
        "rho_inf": settings.rho_inf,
        "step": settings.step,
        "constraints": settings.constraints.name(),
    });
    std::fs::write(path, serde_json::to_string_pretty(&json)? + "\n")
        .with_context(|| format!("cannot write {}", path.display()))
}
