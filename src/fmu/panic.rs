//! The panic barrier of the FMI layers: run a call, turn a panic into its message. Nothing
//! may unwind across the C boundary, and the panic's text belongs in the importer's log, not
//! on the host's stderr: while a barrier is active on a thread, the panic hook stays silent
//! (outside barriers it defers to the hook that was installed before).

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

thread_local! {
    /// How many barriers are active on this thread (a barrier may call into another
    /// instance through the importer's callbacks).
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

fn install_quiet_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if DEPTH.with(Cell::get) == 0 {
                previous(info);
            }
        }));
    });
}

/// Run `f`; a panic becomes Err with its message.
pub fn barrier<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install_quiet_hook();
    DEPTH.with(|d| d.set(d.get() + 1));
    let result = catch_unwind(AssertUnwindSafe(f));
    DEPTH.with(|d| d.set(d.get() - 1));
    result.map_err(|panic| {
        panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_its_message() {
        assert_eq!(barrier(|| 3), Ok(3));
        let text = "abcdé";
        let err = barrier(|| text[..4].len() + text[..5].len()).unwrap_err();
        assert!(err.contains("is not a char boundary"), "{err}");
        assert_eq!(DEPTH.with(Cell::get), 0);
    }
}
