//! What assembling a model file makes (planar or spatial).

use super::System;
use super::outputs::Output;
use crate::integrators::State;
use crate::model::ModelError;

/// What the model file makes: the system, its consistent initial state, its outputs, and
/// located warnings of what assembly changed of the given model (a configuration moved onto
/// its joints).
#[derive(Debug, Clone)]
pub struct Assembly {
    pub system: System,
    pub initial: State,
    pub outputs: Vec<Output>,
    pub input_names: Vec<String>,
    pub warnings: Vec<ModelError>,
}
