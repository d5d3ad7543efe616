//! Wall-clock times of repeated calls: FMI doStep calls, or the output intervals of a
//! standalone run. A real-time co-simulation is budgeted by the worst case, not the mean, so
//! both are kept, with the communication point where the worst call started. Recording
//! allocates nothing (a step stays allocation-free).

/// Count, total and worst wall time of the calls so far.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CallTimes {
    pub calls: u64,
    /// Seconds, summed over the calls.
    pub total: f64,
    /// Seconds, the longest call.
    pub worst: f64,
    /// The time (simulated) at which the longest call started.
    pub worst_from: f64,
}

impl CallTimes {
    /// One call that took `seconds` of wall time from simulated time `from`.
    pub fn record(&mut self, seconds: f64, from: f64) {
        self.calls += 1;
        self.total += seconds;
        if seconds > self.worst || self.calls == 1 {
            self.worst = seconds;
            self.worst_from = from;
        }
    }

    /// "mean 12.3 µs, worst 45.6 µs (the call from t = 0.12) over 100 calls", or `None`
    /// before the first call.
    pub fn summary(&self) -> Option<String> {
        (self.calls > 0).then(|| {
            let mean = self.total / self.calls as f64;
            // The communication point to 9 decimals, without trailing zeros (0.33, not
            // 0.33000000000000002).
            let from = format!("{:.9}", self.worst_from);
            let from = from.trim_end_matches('0').trim_end_matches('.');
            format!(
                "mean {:.1} µs, worst {:.1} µs (the call from t = {from}) over {} calls",
                mean * 1e6,
                self.worst * 1e6,
                self.calls
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_mean_and_the_worst_call() {
        let mut t = CallTimes::default();
        assert_eq!(t.summary(), None);
        for (s, from) in [(2e-6, 0.0), (5e-6, 0.1), (2e-6, 0.2)] {
            t.record(s, from);
        }
        assert_eq!((t.calls, t.worst, t.worst_from), (3, 5e-6, 0.1));
        assert!((t.total - 9e-6).abs() < 1e-18);
        assert_eq!(t.summary().unwrap(), "mean 3.0 µs, worst 5.0 µs (the call from t = 0.1) over 3 calls");
    }
}
