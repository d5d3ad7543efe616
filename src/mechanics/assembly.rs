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
    /// Each beam's estimated first bending period (`beam_section::bending_period`) and, in
    /// 3D, first torsional period (`beam_section::torsion_period`), where it is declared: the
    /// default step resolves them and a step too long for them is warned of
    /// (`resolved_period` in src/simulation.rs).
    pub beam_periods: Vec<BeamPeriod>,
}

/// A beam's estimated period (s) of its first vibration of one kind, and its declaration.
#[derive(Debug, Clone)]
pub struct BeamPeriod {
    pub name: String,
    pub span: std::ops::Range<usize>,
    /// "bending" or "torsional".
    pub vibration: &'static str,
    pub period: f64,
}
