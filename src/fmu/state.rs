//! An FMU state (`fmi2GetFMUstate`, `fmi2SerializeFMUstate`, ...): the instance's own
//! fields and, once the simulation exists, its snapshot. One serde-derived structure in the
//! one blob format (src/simulation/blob.rs: magic, layout version, payload length, CRC-32).

use serde::{Deserialize, Serialize};

use super::lifecycle;
use crate::simulation::blob::Blob;
use crate::simulation::{Model, Snapshot, SolverSettings};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FmuState {
    /// The GUID of the FMU the state belongs to.
    pub guid: String,
    pub lifecycle: lifecycle::State,
    /// One value per model parameter (string parameters: the index of the choice).
    pub params: Vec<f64>,
    pub inputs: Vec<f64>,
    /// The settings of the `solver_*` variables (applied at the next step).
    pub settings: SolverSettings,
    pub start_time: f64,
    pub stop_time: Option<f64>,
    pub last_successful_time: f64,
    /// None before the simulation is built (before fmi2ExitInitializationMode).
    pub simulation: Option<Snapshot>,
}

impl Blob for FmuState {
    const MAGIC: [u8; 8] = *b"flexFMUS";
    /// 1: the first serde layout (replaced the hand-written codec "flexfmuS").
    const VERSION: u32 = 1;
    const WHAT: &'static str = "FMU state";
}

impl FmuState {
    /// Whether the state can be restored into an instance of `model` with GUID `guid`.
    /// The snapshot is checked against the simulation when it is restored
    /// (`Simulation::restore`).
    pub fn validate(&self, guid: &str, model: &Model) -> Result<(), String> {
        if self.guid != guid {
            return Err(format!("the FMU state belongs to another FMU (GUID {}, this FMU {guid})", self.guid));
        }
        if self.lifecycle == lifecycle::State::Fatal {
            return Err("the FMU state is of an instance after a fatal error".into());
        }
        let inputs = model.definition.inputs.len();
        if self.params.len() != model.parameters.len() || self.inputs.len() != inputs {
            return Err(format!(
                "the FMU state has {} parameters and {} inputs, the model {} and {inputs}",
                self.params.len(),
                self.inputs.len(),
                model.parameters.len()
            ));
        }
        if let Some(x) = self.params.iter().chain(&self.inputs).find(|x| !x.is_finite()) {
            return Err(format!("the FMU state holds a non-finite parameter or input ({x})"));
        }
        model.check_parameters(&self.params).map_err(|e| e.message)?;
        let s = &self.settings;
        let numbers = [s.rho_inf, s.step, s.tolerance, s.baumgarte.alpha, s.baumgarte.beta];
        let numbers = numbers.into_iter().chain([s.error_control.rtol, s.error_control.atol]);
        if numbers.into_iter().any(|x| !x.is_finite()) || s.max_iterations == 0 {
            return Err(format!("the FMU state's solver settings are not valid: {s:?}"));
        }
        let stop_ok = self.stop_time.is_none_or(|stop| stop.is_finite() && stop >= self.start_time);
        if !(self.start_time.is_finite() && stop_ok && self.last_successful_time.is_finite()) {
            return Err(format!(
                "the FMU state's start time {}, stop time {:?} and last successful time {} must be finite (stop >= start)",
                self.start_time, self.stop_time, self.last_successful_time
            ));
        }
        let stepping = matches!(
            self.lifecycle,
            lifecycle::State::StepComplete | lifecycle::State::StepFailed | lifecycle::State::Terminated
        );
        match &self.simulation {
            None if stepping => Err(format!("the FMU state in {:?} has no simulation", self.lifecycle)),
            Some(snap) if snap.time() != self.last_successful_time && stepping => Err(format!(
                "the FMU state's simulation time {} differs from its last successful time {}",
                snap.time(),
                self.last_successful_time
            )),
            _ => Ok(()),
        }
    }
}
