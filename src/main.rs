//! The `flexfmu` command line: simulate models, build FMUs, check models and FMUs.

mod cli;

use std::process::ExitCode;

use clap::Parser;
use flexfmu::export::ExportError;
use flexfmu::model::ModelError;
use flexfmu::simulation::SimulationError;

/// Exit code 2 is for a located problem in the model file and for a command line that does not
/// fit the model (docs/cli.md, "Exit codes"; clap exits with 2 on the usage errors it finds);
/// whichever command met it and however the error was wrapped.
fn is_model_file_or_usage_problem(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause.is::<ModelError>()
            || cause.is::<cli::option_values::UsageError>()
            || matches!(cause.downcast_ref::<SimulationError>(), Some(SimulationError::Model(_)))
            || matches!(cause.downcast_ref::<ExportError>(), Some(ExportError::Model(SimulationError::Model(_))))
    })
}

#[derive(Debug, Parser)]
#[command(name = "flexfmu", version, about = "Flexible multibody models as FMI 2.0 and 3.0 Co-Simulation FMUs")]
enum Command {
    /// Run a model with the built-in solver and write its outputs as CSV.
    Simulate(cli::simulate::SimulateArgs),
    /// Build an FMI 2.0 (default) or FMI 3.0 Co-Simulation FMU from a model.
    Build(cli::build::BuildArgs),
    /// Check a model file or an FMU built by flexfmu.
    Check(cli::build::CheckArgs),
    /// Show what a model declares: sizes, solver settings, the FMU's variables.
    Info(cli::info::InfoArgs),
    /// Natural frequencies (Hz) linearised about the static equilibrium at the start time, constraints respected.
    Modes(cli::modes::ModesArgs),
    /// Quasi-static analysis: the static equilibrium at each output time, loads growing with t as increments.
    Statics(cli::statics::StaticsArgs),
    /// Run a model with every integrator at several steps: error against a tight reference vs cost.
    Compare(cli::compare::CompareArgs),
    /// Plot outputs of a results CSV against time as a PNG.
    Plot(cli::plot::PlotArgs),
    /// Run a model over a grid of parameter values in parallel and tabulate metrics of the outputs.
    Sweep(cli::sweep::SweepArgs),
    /// Write a self-contained HTML page that plays a model's motion (from `simulate --states`).
    Animate(cli::animate::AnimateArgs),
}

fn main() -> ExitCode {
    // Writing into a closed pipe (`flexfmu info m.toml | head -1`) ends the process quietly,
    // as it ends other Unix tools, instead of a panic in println! (Rust ignores SIGPIPE).
    #[cfg(unix)]
    // SAFETY: restoring the default action of one signal before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let command = Command::parse();
    let result = match command {
        Command::Simulate(args) => cli::simulate::run(args),
        Command::Build(args) => cli::build::build(args),
        Command::Check(args) => cli::build::check(args),
        Command::Modes(args) => cli::modes::run(args),
        Command::Statics(args) => cli::statics::run(args),
        Command::Info(args) => cli::info::run(args),
        Command::Compare(args) => cli::compare::run(args),
        Command::Plot(args) => cli::plot::run(args),
        Command::Sweep(args) => cli::sweep::run(args),
        Command::Animate(args) => cli::animate::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(if e.downcast_ref::<cli::interrupt::Interrupted>().is_some() {
                cli::interrupt::EXIT_CODE
            } else if is_model_file_or_usage_problem(&e) {
                2
            } else {
                1
            })
        }
    }
}
