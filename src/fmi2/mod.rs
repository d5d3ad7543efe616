//! FMI 2.0 Co-Simulation C API: a thin C layer over the version-neutral FMU core
//! (src/fmu/). `api` holds the exported `extern "C"` entry points (NULL checks, the
//! call-sequence check of `fmu::lifecycle`, the panic barrier, one call into the core);
//! `component` is what an fmi2Component points to (the core instance, the logger callback,
//! C strings); `resource` parses fmuResourceLocation; `types` are the C types.

pub mod api;
pub mod component;
pub mod resource;
pub mod types;
