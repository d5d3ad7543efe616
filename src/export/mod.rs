//! Export: modelDescription.xml and the .fmu archive (the variable table is the FMU core's,
//! `crate::fmu::variables`, re-exported here).

pub mod model_description;
pub mod package;
pub use crate::fmu::variables;
