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
    /// Each beam's estimated first bending period (`beam_section::bending_period`), where it is
    /// declared: a step too long for it is warned of (`Simulation::new`).
    pub bending_periods: Vec<BendingPeriod>,
}

/// A beam's estimated first bending period (s) and its declaration.
#[derive(Debug, Clone)]
pub struct BendingPeriod {
    pub name: String,
    pub span: std::ops::Range<usize>,
    pub period: f64,
}
