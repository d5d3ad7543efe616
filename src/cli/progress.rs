//! The progress bar of long runs: drawn on stderr only when stderr is a terminal and only once
//! the run has taken more than a second, so short runs and piped output stay clean.
//!
//! A watcher thread shows the bar when the second has passed, whether or not the work reported
//! progress meanwhile (a single long output interval, a slow reference run), and keeps its
//! elapsed time and eta ticking; the bar is removed however the work ends (finish, an error
//! returned early, a panic), since dropping it clears it.

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Wall time after which a still-running job shows its bar.
const SHOW_AFTER: Duration = Duration::from_secs(1);
/// How often the watcher looks whether the work has ended, and the bar's redraw period.
const TICK: Duration = Duration::from_millis(100);

/// A bar over `total` units of work (output points of a simulation, runs of a sweep), hidden
/// until [`SHOW_AFTER`] has passed and never drawn into a pipe or file.
pub struct Progress {
    bar: Option<ProgressBar>,
    /// Set when the work ends: the watcher stops.
    ended: Arc<AtomicBool>,
    watcher: Option<JoinHandle<()>>,
}

impl Progress {
    /// A bar for `total` units; `template_tail` follows the percentage (e.g. `t = {msg} s`).
    pub fn new(total: u64, template_tail: &str) -> Progress {
        let ended = Arc::new(AtomicBool::new(false));
        if !(std::io::stderr().is_terminal() && total > 0) {
            return Progress { bar: None, ended, watcher: None };
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template(&format!("{{bar:40}} {{percent:>3}}% {template_tail}, eta {{eta}}"))
                .expect("static template"),
        );
        let watcher = {
            let (bar, ended) = (bar.clone(), ended.clone());
            std::thread::Builder::new()
                .name("progress".into())
                .spawn(move || {
                    let started = Instant::now();
                    while started.elapsed() < SHOW_AFTER {
                        if ended.load(Ordering::Acquire) {
                            return;
                        }
                        std::thread::sleep(TICK);
                    }
                    if !ended.load(Ordering::Acquire) {
                        bar.set_draw_target(ProgressDrawTarget::stderr());
                        bar.enable_steady_tick(TICK);
                    }
                })
                .ok()
        };
        Progress { bar: Some(bar), ended, watcher }
    }

    /// The bar that never draws (sweep runs report through the sweep's own bar).
    pub fn hidden() -> Progress {
        Progress { bar: None, ended: Arc::new(AtomicBool::new(false)), watcher: None }
    }

    /// `done` units finished; `message` fills `{msg}` in the template.
    pub fn update(&mut self, done: u64, message: impl FnOnce() -> String) {
        let Some(bar) = &self.bar else { return };
        bar.set_message(message());
        bar.set_position(done);
    }

    /// Remove the bar from the terminal (also done when the bar is dropped).
    pub fn finish(self) {}
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.ended.store(true, Ordering::Release);
        if let Some(watcher) = self.watcher.take() {
            let _ = watcher.join();
        }
        if let Some(bar) = self.bar.take() {
            bar.disable_steady_tick();
            bar.finish_and_clear();
        }
    }
}
