//! The documented limits that keep hostile inputs from exhausting the stack, the memory or
//! the time of the host (README, "Limits"). A model file or call beyond one is refused with
//! an error, never a crash or a hang.

use crate::compact_number::Compact;

/// Deepest nesting of an expression in a model file: parentheses, unary signs, function
/// calls and `^` count one level each over the numbers and names, which are one deep; a chain
/// of `+ -` or of `* /` is one level whatever its length (`"a + b + c"` is two deep, `"a*b + c"`
/// three), since it is parsed and walked in a loop. Bounds the stack the parser and the
/// evaluator use.
pub const MAX_EXPRESSION_DEPTH: usize = 100;

/// Most Newton iterations per attempt (`[solver] max_iterations`): a step that does not
/// converge tries every one of them at every halving of the step, so this bounds the work of
/// one step (and of one FMU doStep) where the model gives up. 25 is the default; a run that
/// has not converged after some hundreds of iterations does not converge after more.
pub const MAX_NEWTON_ITERATIONS: usize = 1000;

/// Longest model name: it names the FMU binary `binaries/<platform>/<name>.<so|dll|dylib>`,
/// and a file name has at most 255 bytes on common file systems.
pub const MAX_MODEL_NAME_LENGTH: usize = 255 - ".dylib".len();

/// Most internal steps (accepted and rejected) one `Simulation::step_to` may take: one
/// communication interval of the FMU, one output interval of `flexfmu simulate`. An interval
/// that needs more is refused (the FMU returns fmi2Discard); the state stays at the last
/// successful step. (A 1e-5 s step takes 0.1 to 0.25 ms in the example models: at most about
/// two minutes per interval; the largest interval of the test suite takes exactly 500,000.)
pub const MAX_STEPS_PER_INTERVAL: u64 = 500_000;

/// Most generalized coordinates a model may have (a point mass has 2, a planar rigid body 3,
/// a spatial one 7, a corotational beam node 3, an ANCF beam node 4). Checked before anything
/// of that size is allocated; 250,000 coordinates take 0.3 GB (corotational beam) to 0.8 GB
/// (ANCF beam) while the model starts.
pub const MAX_COORDINATES: usize = 250_000;

/// Most `elements` of one beam (the coordinates they make are limited by MAX_COORDINATES; this
/// bounds the count before it is converted to an integer).
pub const MAX_ELEMENTS: f64 = 1e6;

/// Most constraint rows in one group of joints connected through shared bodies (a planar
/// revolute joint has 2 rows, a spatial body 1 for its Euler parameters) whose initial state
/// is made consistent with dense matrices (and its redundant rows found), in time ~ rows^2 x
/// coordinates; larger groups are solved sparse (`initial_state::min_norm_sparse`).
pub const MAX_CONSTRAINT_GROUP_ROWS: usize = 1000;

/// Most output rows one command run writes (`simulate`, `statics`, `compare`): 1e8 rows of a
/// few outputs are several GB of CSV. A span and interval asking for more are refused before
/// any work.
pub const MAX_OUTPUT_ROWS: u64 = 100_000_000;

/// Most runs of one `flexfmu sweep` (the product of its axes' sizes): each run is a simulation
/// and a CSV file of its own. A grid asking for more is refused before any of it is allocated
/// (`--set k=1:2:1000000000` took 9 GB making its values).
pub const MAX_SWEEP_RUNS: u64 = 100_000;

/// Most bytes `flexfmu check` unpacks from one entry of an FMU (modelDescription.xml,
/// resources/model.toml, the binary; flexfmu's own are a few MB to tens of MB). A zip entry's
/// declared size is not trusted: reading stops one byte beyond the limit (a 3 GB model.toml
/// packed into 3 MB took 9 GB of memory).
pub const MAX_FMU_ENTRY_BYTES: u64 = 256 * 1024 * 1024;

/// The largest model file read (bytes): a model of 1e5 bodies written out is about 10 MB. A
/// probe's `check /dev/zero` grew to 9 GB before this.
pub const MAX_MODEL_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// The largest data file read (input and plotted CSV tables, state files, FMU binaries):
/// `--input force=/dev/zero` was killed by the kernel at 24 GB before this.
pub const MAX_DATA_FILE_BYTES: u64 = 512 * 1024 * 1024;

/// The bytes of the file at `path`, refused beyond `max` bytes before more is read: the
/// message names the file, what it is and the limit.
pub fn read_bounded(path: &std::path::Path, max: u64, what: &str) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {what} {}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read {what} {}: {e}", path.display()))?;
    if bytes.len() as u64 > max {
        return Err(format!(
            "{what} {} is larger than {} MiB, the most read (src/limits.rs)",
            path.display(),
            max >> 20
        ));
    }
    Ok(bytes)
}

/// `read_bounded` as UTF-8 text.
pub fn read_text_bounded(path: &std::path::Path, max: u64, what: &str) -> Result<String, String> {
    String::from_utf8(read_bounded(path, max, what)?)
        .map_err(|e| format!("{what} {} is not UTF-8 text: {e}", path.display()))
}

/// The number of output intervals from `start` to `stop` every `interval` (the last one may
/// be shorter), at most `MAX_OUTPUT_ROWS`.
pub fn output_intervals(start: f64, stop: f64, interval: f64) -> Result<u64, String> {
    let count = ((stop - start) / interval * (1.0 - 1e-12)).ceil().max(0.0);
    // NaN (a zero or non-finite interval) is refused too.
    let fits = count <= MAX_OUTPUT_ROWS as f64;
    if !fits {
        let rows = if count.is_finite() { format!("{count:e}") } else { "over 1e308".into() };
        return Err(format!(
            "{} s to {} s every {} s is {rows} output rows, more than the {MAX_OUTPUT_ROWS} allowed",
            Compact(start),
            Compact(stop),
            Compact(interval)
        ));
    }
    // Rows at one time: the interval is lost in the time's round-off (a start at 1e16 s with
    // 0.01 s intervals wrote 101 rows at t = 1e16).
    let last = start.abs().max(stop.abs());
    if count > 0.0 && (last + interval == last || start + interval == start) {
        return Err(format!(
            "an output interval of {} s is below the time resolution at t = {} s (t + interval == t in double \
             precision); start nearer t = 0, or use a longer interval",
            Compact(interval),
            Compact(last)
        ));
    }
    Ok(count as u64)
}

/// Err(message) if a model with `n` coordinates cannot take `added` more.
pub fn coordinates_fit(n: usize, added: usize, what: &str) -> Result<(), String> {
    match n.checked_add(added) {
        Some(total) if total <= MAX_COORDINATES => Ok(()),
        _ => Err(format!(
            "{what} would bring the model to {} generalized coordinates, more than the {MAX_COORDINATES} allowed",
            n.saturating_add(added)
        )),
    }
}
