//! The parameter grid of a sweep: each `--set NAME=VALUES` is an axis, the runs are the
//! cartesian product of the axes.

use anyhow::{Result, bail};

use super::option_values::UsageError;
use flexfmu::compact_number::Compact;
use flexfmu::limits::MAX_SWEEP_RUNS;

/// One swept parameter and the values it takes, as they are passed to `simulate --set`.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub parameter: String,
    pub values: Vec<String>,
}

impl Axis {
    /// Parse `NAME=v1,v2,...` (a list; a string parameter's choices too), `NAME=a:b:n` (n values
    /// linearly spaced from a to b, both included) or `NAME=v` (one value).
    /// A malformed one is a usage error (exit code 2); one beyond the limits is not.
    pub fn parse(spec: &str) -> Result<Axis> {
        let (name, values) = spec.split_once('=').ok_or_else(|| {
            UsageError(format!("--set expects NAME=v1,v2,... or NAME=first:last:count, got '{spec}'"))
        })?;
        let parameter = name.trim().to_string();
        let values = values.trim();
        let values = if let [first, last, count] = values.split(':').collect::<Vec<_>>()[..] {
            let number = |text: &str| -> Result<f64, UsageError> {
                text.trim().parse().map_err(|_| UsageError(format!("--set {spec}: '{}' is not a number", text.trim())))
            };
            let (first, last) = (number(first)?, number(last)?);
            let count = count.trim();
            // Digits alone are a count, however many: one beyond the 64-bit integers is beyond
            // the limit too (it was refused as no positive integer, a usage error).
            let digits = count.strip_prefix('+').unwrap_or(count);
            let is_integer = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
            let fits = count.parse::<u64>().ok();
            if !is_integer || fits == Some(0) {
                bail!(UsageError(format!("--set {spec}: the count '{count}' is not a positive integer")));
            }
            // Before the values are made: the grid's size is checked again as a whole.
            let Some(count) = fits.filter(|&n| n <= MAX_SWEEP_RUNS) else {
                bail!("--set {spec}: {count} values, more than the {MAX_SWEEP_RUNS} runs a sweep may have");
            };
            let count = count as usize;
            linspace(first, last, count).iter().map(|&v| Compact(v).to_string()).collect()
        } else {
            values.split(',').map(|v| v.trim().to_string()).collect::<Vec<_>>()
        };
        if values.iter().any(String::is_empty) {
            bail!(UsageError(format!("--set {spec}: empty value")));
        }
        Ok(Axis { parameter, values })
    }
}

/// `count` values from `first` to `last`, both included (exactly); `first` alone if `count` is 1.
pub fn linspace(first: f64, last: f64, count: usize) -> Vec<f64> {
    (0..count)
        .map(|i| match i {
            0 => first,
            i if i + 1 == count => last,
            // As a weighted mean: last - first overflows for ends of opposite sign near the
            // range of double precision (a probe's 1e308:-1e308:3 had -inf in the middle).
            i => {
                let f = (i as f64) / ((count - 1) as f64);
                first * (1.0 - f) + last * f
            }
        })
        .collect()
}

/// The runs of the grid in order, the first axis varying slowest: each run is one value per
/// axis, as `NAME=VALUE` overrides. A grid of more than `MAX_SWEEP_RUNS` runs is refused
/// before any run is made.
pub fn runs(axes: &[Axis]) -> Result<Vec<Vec<String>>> {
    let count = axes.iter().try_fold(1u64, |n, a| n.checked_mul(a.values.len() as u64)).unwrap_or(u64::MAX);
    if count > MAX_SWEEP_RUNS {
        let sizes: Vec<String> = axes.iter().map(|a| a.values.len().to_string()).collect();
        bail!(
            "the grid has {} runs ({}), more than the {MAX_SWEEP_RUNS} a sweep may have: sweep fewer values, or split the grid into several sweeps",
            if count == u64::MAX { "more than 1.8e19".to_string() } else { count.to_string() },
            sizes.join(" x ")
        );
    }
    let mut runs = vec![Vec::new()];
    for axis in axes {
        runs = runs
            .into_iter()
            .flat_map(|run| {
                axis.values.iter().map(move |v| {
                    let mut next = run.clone();
                    next.push(format!("{}={v}", axis.parameter));
                    next
                })
            })
            .collect();
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::linspace;

    #[test]
    fn evenly_spaced_values_include_both_ends_and_do_not_overflow() {
        assert_eq!(linspace(1.0, 2.0, 3), [1.0, 1.5, 2.0]);
        assert_eq!(linspace(0.0, 1.0, 5), [0.0, 0.25, 0.5, 0.75, 1.0]);
        assert_eq!(linspace(1e308, -1e308, 3), [1e308, 0.0, -1e308]);
        assert_eq!(linspace(4.0, 8.0, 1), [4.0]);
    }
}
