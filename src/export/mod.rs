//! Export: the variable table, modelDescription.xml and the .fmu archive.

pub mod model_description;
pub mod package;
pub mod variables;
