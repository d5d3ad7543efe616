//! What assembling a model file makes (planar or spatial).

use super::System;
use super::outputs::Output;
use crate::integrators::State;

/// What the model file makes: the system, its consistent initial state, its outputs.
#[derive(Debug, Clone)]
pub struct Assembly {
    pub system: System,
    pub initial: State,
    pub outputs: Vec<Output>,
    pub input_names: Vec<String>,
}
