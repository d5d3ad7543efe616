//! What a sweep reports of one output over one run: its end value, maximum, minimum or time mean.

use anyhow::{Result, bail};

use super::option_values::UsageError;

/// A scalar summary of an output's time history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Statistic {
    /// The value at the stop time (the last CSV row).
    End,
    /// The largest sampled value.
    Max,
    /// The smallest sampled value.
    Min,
    /// The time average over the run, trapezoidal rule on the output samples.
    Mean,
}

impl Statistic {
    fn parse(text: &str) -> Option<Statistic> {
        match text {
            "end" => Some(Statistic::End),
            "max" => Some(Statistic::Max),
            "min" => Some(Statistic::Min),
            "mean" => Some(Statistic::Mean),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Statistic::End => "end",
            Statistic::Max => "max",
            Statistic::Min => "min",
            Statistic::Mean => "mean",
        }
    }
}

/// One column of the sweep table: a statistic of a named output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metric {
    pub output: String,
    pub statistic: Statistic,
}

impl Metric {
    /// The end value of `output`, the sweep's default column.
    pub fn end(output: &str) -> Metric {
        Metric { output: output.to_string(), statistic: Statistic::End }
    }

    /// Parse `--metric NAME=end|max|min|mean`.
    pub fn parse(spec: &str) -> Result<Metric> {
        let (output, statistic) = spec
            .split_once('=')
            .ok_or_else(|| UsageError(format!("--metric expects NAME=end|max|min|mean, got '{spec}'")))?;
        let Some(statistic) = Statistic::parse(statistic.trim()) else {
            bail!(UsageError(format!("--metric {spec}: '{}' is not one of end, max, min, mean", statistic.trim())));
        };
        Ok(Metric { output: output.trim().to_string(), statistic })
    }

    /// The column header in sweep.csv, e.g. `max(x)`.
    pub fn header(&self) -> String {
        format!("{}({})", self.statistic.name(), self.output)
    }

    /// The statistic of the samples `values` at times `time` (same length, at least one row).
    pub fn evaluate(&self, time: &[f64], values: &[f64]) -> f64 {
        match self.statistic {
            Statistic::End => values.last().copied().unwrap_or(f64::NAN),
            Statistic::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            Statistic::Min => values.iter().copied().fold(f64::INFINITY, f64::min),
            Statistic::Mean => {
                let span = time.last().copied().unwrap_or(0.0) - time.first().copied().unwrap_or(0.0);
                if span <= 0.0 {
                    return values.first().copied().unwrap_or(f64::NAN);
                }
                let area: f64 =
                    time.windows(2).zip(values.windows(2)).map(|(t, v)| 0.5 * (v[0] + v[1]) * (t[1] - t[0])).sum();
                area / span
            }
        }
    }
}
