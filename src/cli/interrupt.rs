//! Ctrl-C (SIGINT) during `flexfmu simulate`: the run stops at its next output row and ends as
//! a failed run does, its rows kept, the states file and the statistics written, exit code 130
//! (a probe's interrupted run left an empty states file that `animate` could not read). A
//! second Ctrl-C ends the process at once. The flag is the process's, set by the handler alone
//! (an atomic store is async-signal-safe); the FMU library has no such state.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_interrupt(_: libc::c_int) {
    if REQUESTED.swap(true, Ordering::SeqCst) {
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(EXIT_CODE.into()) }
    }
}

/// From now on, Ctrl-C asks the run to stop (`requested`).
pub fn catch() {
    #[cfg(unix)]
    // SAFETY: the handler only stores to an atomic (or exits); installed from the main thread.
    unsafe {
        libc::signal(libc::SIGINT, on_interrupt as *const () as libc::sighandler_t);
    }
}

/// Whether Ctrl-C was pressed since `catch`.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// The exit code of an interrupted command (128 + SIGINT, as shells report it).
pub const EXIT_CODE: u8 = 130;

/// A run stopped by Ctrl-C at the row of time `at`, its results in `output`.
#[derive(Debug)]
pub struct Interrupted {
    pub at: f64,
    pub output: String,
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = flexfmu::compact_number::Compact(self.at);
        write!(f, "interrupted at t = {at}: {} holds the results up to t = {at}", self.output)
    }
}

impl std::error::Error for Interrupted {}
