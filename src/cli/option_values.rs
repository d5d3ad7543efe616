//! Times and steps on the command line. What no model can make valid (a time that is not a
//! finite number, a step or interval that is not positive) is refused by clap as the command
//! line is parsed; what is wrong only against the model (a stop time not after its start time) is
//! a [`UsageError`]. Both exit with code 2, as clap's own usage errors (docs/cli.md, "Exit
//! codes"): the run never starts.
//!
//! Every option that takes a number takes a value that starts with '-' as its value
//! (`allow_hyphen_values`): `--rho-inf -0.1` and `--step -1e-3` had read as unknown options
//! `-0` and `-1`; now each is checked as its option checks its values (a step that is not
//! positive here, a rho_inf the method cannot take by the solver's settings).

use flexfmu::compact_number::Compact;

/// A command-line value that does not fit the model it is applied to.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// clap value parser of a time (s): any finite number.
pub fn time(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(t) if t.is_finite() => Ok(t),
        Ok(_) => Err("a time must be a finite number of seconds".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// clap value parser of a step or interval (s): a positive finite number.
pub fn duration(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(h) if h > 0.0 && h.is_finite() => Ok(h),
        Ok(_) => Err("a step or interval must be a positive finite number of seconds".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// The stop time, refused unless it is after `start` (`after_start`) or at least `start`.
/// A run (simulate, sweep, animate, compare) needs a span, as the model file's stop_time does
/// ("must be after start_time"); only statics takes the start time alone, one equilibrium.
pub fn stop_time(stop: f64, start: f64, after_start: bool) -> Result<f64, UsageError> {
    let fits = if after_start { stop > start } else { stop >= start };
    if !fits {
        // "before" where it is, "not after" for a stop time equal to the start.
        let relation = if stop < start { "before" } else { "not after" };
        return Err(UsageError(format!(
            "--stop-time {} s is {relation} the model's start time {} s: give a later --stop-time",
            Compact(stop),
            Compact(start)
        )));
    }
    Ok(stop)
}
