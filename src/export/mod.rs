//! Export: modelDescription.xml (FMI 2.0 or 3.0) and the .fmu archive (the variable table is the FMU core's,
//! `crate::fmu::variables`, re-exported here).

pub mod model_description;
pub mod model_description3;
pub mod package;
pub mod units;
mod xml;
pub use crate::fmu::variables;
use crate::simulation::SimulationError;

/// Why an FMU or its modelDescription.xml could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The model itself (a located problem in the model file, or it does not start).
    #[error(transparent)]
    Model(#[from] SimulationError),
    /// Reading the binary or writing the archive.
    #[error("{0}")]
    Io(String),
}

/// The FMI version of an exported FMU. The binary is the same (it exports the fmi2 and the
/// fmi3 functions); modelDescription.xml and the binaries/ directory differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FmiVersion {
    V2,
    V3,
}
