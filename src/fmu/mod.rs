//! The FMU core, independent of the FMI version: the variable table (`variables`), the
//! solver settings as variables (`settings`), the lifecycle state machine with its one
//! `allowed(state, call)` table (`lifecycle`), log categories (`log`), the FMU state
//! (`state`) and the instance (`instance`) that ties them to the simulation facade
//! (src/simulation.rs), the only part of the solver it knows. The FMI layers (src/fmi2/) are
//! thin C shells over it: pointer and call-sequence checks, a panic barrier (`panic`) and
//! one call into `Instance`.

pub mod instance;
pub mod lifecycle;
pub mod log;
pub mod panic;
pub mod settings;
pub mod state;
pub mod status;
pub mod variables;

pub use instance::Instance;
pub use status::Status;
