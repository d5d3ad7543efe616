//! The progress bar of long runs: drawn on stderr only when stderr is a terminal and only once
//! the run has taken more than a second, so short runs and piped output stay clean.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Wall time after which a still-running job shows its bar.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// A bar over `total` units of work (output points of a simulation, runs of a sweep), hidden
/// until [`SHOW_AFTER`] has passed and never drawn into a pipe or file.
pub struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
    shown: bool,
}

impl Progress {
    /// A bar for `total` units; `template_tail` follows the percentage (e.g. `t = {msg} s`).
    pub fn new(total: u64, template_tail: &str) -> Progress {
        let bar = (std::io::stderr().is_terminal() && total > 0).then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
            bar.set_style(
                ProgressStyle::with_template(&format!("{{bar:40}} {{percent:>3}}% {template_tail}, eta {{eta}}"))
                    .expect("static template"),
            );
            bar
        });
        Progress { bar, started: Instant::now(), shown: false }
    }

    /// The bar that never draws (sweep runs report through the sweep's own bar).
    pub fn hidden() -> Progress {
        Progress { bar: None, started: Instant::now(), shown: false }
    }

    /// `done` units finished; `message` fills `{msg}` in the template.
    pub fn update(&mut self, done: u64, message: impl FnOnce() -> String) {
        let Some(bar) = &self.bar else { return };
        if !self.shown && self.started.elapsed() >= SHOW_AFTER {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
        if self.shown {
            bar.set_message(message());
        }
        bar.set_position(done);
    }

    /// Remove the bar from the terminal.
    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}
