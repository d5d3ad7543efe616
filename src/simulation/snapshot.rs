//! A restorable copy of everything of a [`Simulation`](super::Simulation) that evolves:
//! the integrator state, the inputs, the solver settings and statistics, the element
//! histories, the error-controlled step's proposal and the solver's memory of the last steps
//! (predictor histories, kept Newton matrices, the energy check's floor). Serde-derived; its
//! bytes are the blob format of `blob.rs`.

use serde::{Deserialize, Serialize};

use super::SolverSettings;
use super::blob::{self, Blob};
use crate::integrators::error_control::{MAX_STEP_RATIO, MIN_STEP_RATIO};
use crate::integrators::{EnergyFlow, SolverMemory, State, Statistics};
use crate::mechanics::History;
use crate::model::expr::InputRates;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub(super) state: State,
    pub(super) inputs: Vec<f64>,
    pub(super) settings: SolverSettings,
    pub(super) stats: Statistics,
    /// Histories of the elements with memory (contacts, fractional dampers, active set).
    pub(super) history: History,
    /// The error-controlled step's proposal for the next step.
    pub(super) next_step: f64,
    /// Inputs changed since the state's accelerations were consistent (`Simulation::set_input`).
    pub(super) restart_pending: bool,
    /// `Simulation::extrapolation_room`.
    pub(super) extrapolation_room: f64,
    /// `Simulation::drive_ends`.
    pub(super) drive_ends: Vec<f64>,
    /// The inputs' rates the last interval ended with (`System::input_rates`; empty if held).
    pub(super) input_rates: InputRates,
    /// What the next steps depend on in the Newton workspace (src/integrators/newton/memory.rs):
    /// `Simulation::snapshot` carries it, so that restoring re-steps bit for bit;
    /// `Simulation::copy_state` does not (the method restarts afresh there).
    pub(super) solver: Option<SolverMemory>,
}

impl Blob for Snapshot {
    const MAGIC: [u8; 8] = *b"flexSNAP";
    /// 1: the first serde layout (replaced the hand-written codec "flexfmu4"); 2: a contact's
    /// history holds its impact's duration and inverse effective mass; 3: whether changed
    /// inputs await a restart; 4: the state holds the supplied energy beside the dissipated; 5: the
    /// room for extrapolated spans; 6: the inputs where the last interval ended; 7: the solver's
    /// memory of the last steps (predictor histories, kept Newton matrices, energy check) and
    /// the inputs' rates at the end of the last interval.
    const VERSION: u32 = 8;
    const WHAT: &'static str = "simulation snapshot";
}

/// Sizes of the model a snapshot must fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dimensions {
    pub coordinates: usize,
    pub constraints: usize,
    pub inputs: usize,
    /// Stored entries of the Newton matrix (a kept matrix in the solver's memory has as many).
    pub matrix_entries: usize,
}

impl Snapshot {
    /// The stored state, to start a run from a chosen state (tests of the integrators'
    /// amplification matrices set x, v, a of a restored model this way).
    pub fn state_mut(&mut self) -> &mut State {
        &mut self.state
    }

    pub fn settings(&self) -> SolverSettings {
        self.settings
    }

    /// The time of the snapshot.
    pub fn time(&self) -> f64 {
        self.state.t
    }

    /// The snapshot in the blob format; `from_bytes` restores it bit for bit.
    pub fn to_bytes(&self) -> Vec<u8> {
        blob::encode(self)
    }

    /// Read `to_bytes`' blob (format checks only; `Simulation::restore` checks that it fits).
    pub fn from_bytes(bytes: &[u8]) -> Result<Snapshot, String> {
        blob::decode(bytes)
    }

    /// Whether the snapshot can be continued by a model of `dims`: vector sizes, finite
    /// numbers, valid settings and a positive proposed step. The history is checked by
    /// `System::set_history`.
    pub fn validate(&self, dims: Dimensions) -> Result<(), String> {
        let s = &self.state;
        let (n, m) = (dims.coordinates, dims.constraints);
        let sizes = [
            ("q", s.q.len(), n),
            ("v", s.v.len(), n),
            ("a", s.a.len(), n),
            ("aux", s.aux.len(), n),
            ("lambda", s.lambda.len(), m),
            ("inputs", self.inputs.len(), dims.inputs),
            ("drive_ends", self.drive_ends.len(), dims.inputs),
        ];
        for (name, got, expected) in sizes {
            if got != expected {
                return Err(format!(
                    "the state belongs to a different model ({name} has {got} entries, expected {expected})"
                ));
            }
        }
        if !s.t.is_finite() || !s.exchanged.is_finite() {
            let EnergyFlow { dissipated, supplied } = s.exchanged;
            return Err(format!(
                "time {}, dissipated energy {dissipated} and supplied energy {supplied} must be finite",
                s.t
            ));
        }
        let vectors = [("q", &s.q), ("v", &s.v), ("a", &s.a), ("aux", &s.aux), ("lambda", &s.lambda)];
        for (name, x) in vectors.into_iter().chain([("inputs", &self.inputs), ("drive_ends", &self.drive_ends)]) {
            if let Some(i) = x.iter().position(|x| !x.is_finite()) {
                return Err(format!("{name}[{i}] = {} is not finite", x[i]));
            }
        }
        let rates = &self.input_rates;
        if !rates.rates.is_empty() && rates.rates.len() != dims.inputs {
            return Err(format!("{} input rates for {} inputs", rates.rates.len(), dims.inputs));
        }
        if !(rates.t0.is_finite() && rates.rates.iter().flatten().all(|x| x.is_finite())) {
            return Err("the input rates must be finite".into());
        }
        if !(self.extrapolation_room.is_finite() && self.extrapolation_room >= 0.0) {
            return Err(format!("the room for extrapolated spans {} must be finite and >= 0", self.extrapolation_room));
        }
        if let Some(memory) = &self.solver {
            memory.check(n, m, dims.matrix_entries)?;
        }
        self.settings.validate()?;
        let (h_min, h_max) = (MIN_STEP_RATIO * self.settings.step, MAX_STEP_RATIO * self.settings.step);
        if !(h_min..=h_max).contains(&self.next_step) && self.next_step != self.settings.step {
            return Err(format!("the proposed step {} is outside [{h_min:e}, {h_max:e}]", self.next_step));
        }
        Ok(())
    }
}
