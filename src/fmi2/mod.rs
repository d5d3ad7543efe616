//! FMI 2.0 Co-Simulation C API. `api` holds the exported `extern "C"` entry points (NULL
//! checks, call-sequence check, `catch_unwind`, one call into `instance`); `instance` is
//! safe Rust over the `Simulation` facade; `state` is the call-sequence table.

pub mod api;
pub mod instance;
pub mod state;
pub mod types;
