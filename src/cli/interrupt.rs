//! Ctrl-C (SIGINT) during `flexfmu simulate`: the run stops after its next internal step
//! (`Simulation::set_interrupt`), writes the state there as its last row and ends as a failed
//! run does, its rows kept, the states file and the statistics written, exit code 130
//! (a probe's interrupted run left an empty states file that `animate` could not read). A
//! second Ctrl-C ends the process at once, removing the files registered with
//! `remove_on_exit` first (`animate`'s scratch directory). The flag is the process's, set by the
//! handler alone (an atomic store is async-signal-safe); the FMU library has no such state.

use std::ffi::CString;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Files and directories to remove when a second Ctrl-C ends the process, in order (a
/// directory after its files), made C strings beforehand: the handler may only call
/// async-signal-safe functions, unlink and rmdir, and may not allocate.
static REMOVE_ON_EXIT: OnceLock<Vec<CString>> = OnceLock::new();

extern "C" fn on_interrupt(_: libc::c_int) {
    if REQUESTED.swap(true, Ordering::SeqCst) {
        for path in REMOVE_ON_EXIT.get().into_iter().flatten() {
            // SAFETY: unlink and rmdir are async-signal-safe; each path is a valid C string.
            // One of the two fails (a file is no directory, and the other way round): no matter.
            unsafe {
                libc::unlink(path.as_ptr());
                libc::rmdir(path.as_ptr());
            }
        }
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(EXIT_CODE.into()) }
    }
}

/// The files (then the directory) a second Ctrl-C removes before it ends the process: those of
/// a scratch directory the process would otherwise leave behind. Once per process; later
/// calls are ignored.
pub fn remove_on_exit(paths: &[PathBuf]) {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let paths = paths.iter().filter_map(|p| CString::new(p.as_os_str().as_bytes()).ok()).collect();
        let _ = REMOVE_ON_EXIT.set(paths);
    }
    #[cfg(not(unix))]
    let _ = paths;
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

/// A run stopped by Ctrl-C at the row of time `at`; `kept` says what it leaves ("OUT.csv holds
/// the results up to t = 0.5", "no page written").
#[derive(Debug)]
pub struct Interrupted {
    pub at: f64,
    pub kept: String,
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "interrupted at t = {}: {}", flexfmu::compact_number::Compact(self.at), self.kept)
    }
}

impl std::error::Error for Interrupted {}
