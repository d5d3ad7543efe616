//! The FMI 3.0 C API (Co-Simulation), the sibling of `fmi2`: a thin C shell over the same
//! version-neutral core (`crate::fmu`). The 75 functions of fmi3Functions.h are exported from
//! the same shared library as the FMI 2.0 ones; those of capabilities the modelDescription.xml
//! does not claim (Model Exchange, Scheduled Execution, Event Mode, clocks, adjoint derivatives) return
//! fmi3Error with the reason logged.

pub mod api;
pub mod derivatives;
pub mod instance;
pub mod lifecycle;
pub mod not_claimed;
pub mod types;
pub mod values;

use crate::fmu::variables::Variables;

/// The value reference of the independent variable `time`: the one after the variable table
/// (whose value references are 0..n), so the FMI 2 value references stay those of FMI 3.
pub fn time_value_reference(vars: &Variables) -> u32 {
    vars.list.len() as u32
}
