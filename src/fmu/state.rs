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
    /// The input derivatives set for the next doStep (`fmi2SetRealInputDerivatives`), orders 1
    /// and 2 per input.
    pub input_derivatives: Vec<[f64; 2]>,
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
    /// 1: the first serde layout (replaced the hand-written codec "flexfmuS"); 2: a contact's
    /// history holds its impact's duration and inverse effective mass; 3: the state holds the
    /// supplied energy beside the dissipated; 4: the snapshot's solver memory (predictor
    /// histories, kept Newton matrices, energy check; snapshot version 7), and the snapshot
    /// layouts of its versions 5 and 6, for which this number was not bumped; 5: the input
    /// derivatives set for the next doStep.
    const VERSION: u32 = 6;
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
        if self.input_derivatives.len() != inputs {
            return Err(format!(
                "the FMU state has input derivatives for {} inputs, the model {inputs}",
                self.input_derivatives.len()
            ));
        }
        let derivatives = self.input_derivatives.iter().flatten();
        if let Some(x) = self.params.iter().chain(&self.inputs).chain(derivatives).find(|x| !x.is_finite()) {
            return Err(format!("the FMU state holds a non-finite parameter, input or input derivative ({x})"));
        }
        model.check_parameters(&self.params).map_err(|e| e.message)?;
        let s = &self.settings;
        let numbers = [s.rho_inf, s.step, s.tolerance, s.baumgarte.alpha, s.baumgarte.beta];
        let numbers = numbers.into_iter().chain([s.error_control.rtol, s.error_control.atol]);
        if numbers.into_iter().any(|x| !x.is_finite()) {
            return Err(format!("the FMU state's solver settings are not valid: {s:?}"));
        }
        // Each value in its range (a forged max_iterations would make every step endless).
        s.validate_values().map_err(|e| format!("the FMU state's solver settings are not valid: {e}"))?;
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

/// The FMU state as the C layers hand it out (`fmi2FMUstate`, `fmi3FMUState`): an opaque
/// pointer to a boxed blob of `Instance::fmu_state`. One implementation of get, set, free,
/// size, serialize and deserialize for both FMI versions; each takes the FMI function name
/// for its messages. The pointers are the importer's arguments, checked for NULL here; the
/// call-sequence check and the panic barrier are the C layer's.
pub mod handle {
    use std::ffi::c_void;

    use crate::fmu::{Instance, Status};

    /// What an FMU state pointer points to.
    type Blob = Vec<u8>;

    fn null_argument(core: &Instance, function: &str) -> Status {
        core.error(&format!("{function}: NULL argument"))
    }

    /// Store `bytes` in the state `*state`: a new box if it is NULL, else overwriting the
    /// importer's state in place.
    ///
    /// # Safety
    /// `state` is valid for writes; a non-NULL `*state` came from this module.
    unsafe fn store(state: *mut *mut c_void, bytes: Blob) {
        unsafe {
            if (*state).is_null() {
                *state = Box::into_raw(Box::new(bytes)) as *mut c_void;
            } else {
                *(*state as *mut Blob) = bytes;
            }
        }
    }

    /// fmi2GetFMUstate / fmi3GetFMUState.
    ///
    /// # Safety
    /// `state` is NULL or valid for reads and writes; a non-NULL `*state` came from this module.
    pub unsafe fn get(core: &mut Instance, function: &str, state: *mut *mut c_void) -> Status {
        if state.is_null() {
            return null_argument(core, function);
        }
        unsafe { store(state, core.fmu_state()) };
        Status::Ok
    }

    /// fmi2SetFMUstate / fmi3SetFMUState.
    ///
    /// # Safety
    /// `state` is NULL or came from this module and has not been freed.
    pub unsafe fn set(core: &mut Instance, function: &str, state: *mut c_void) -> Status {
        if state.is_null() {
            return null_argument(core, function);
        }
        let bytes = unsafe { &*(state as *const Blob) };
        core.set_fmu_state(function, bytes)
    }

    /// fmi2FreeFMUstate / fmi3FreeFMUState: frees `*state` (if any) and sets it to NULL.
    ///
    /// # Safety
    /// `state` is NULL or valid for reads and writes; a non-NULL `*state` came from this module.
    pub unsafe fn free(state: *mut *mut c_void) -> Status {
        unsafe {
            if !state.is_null() && !(*state).is_null() {
                drop(Box::from_raw(*state as *mut Blob));
                *state = std::ptr::null_mut();
            }
        }
        Status::Ok
    }

    /// fmi2SerializedFMUstateSize / fmi3SerializedFMUStateSize.
    ///
    /// # Safety
    /// `state` is NULL or came from this module; `size` is NULL or valid for writes.
    pub unsafe fn serialized_size(core: &Instance, function: &str, state: *mut c_void, size: *mut usize) -> Status {
        if state.is_null() || size.is_null() {
            return null_argument(core, function);
        }
        unsafe { *size = (*(state as *const Blob)).len() };
        Status::Ok
    }

    /// fmi2SerializeFMUstate / fmi3SerializeFMUState: the blob into the importer's buffer of
    /// `size` bytes.
    ///
    /// # Safety
    /// `state` is NULL or came from this module; `buffer` is NULL or valid for `size` bytes.
    pub unsafe fn serialize(
        core: &Instance,
        function: &str,
        state: *mut c_void,
        buffer: *mut u8,
        size: usize,
    ) -> Status {
        if state.is_null() || buffer.is_null() {
            return null_argument(core, function);
        }
        let bytes = unsafe { &*(state as *const Blob) };
        if size < bytes.len() {
            return core.error(&format!("{function}: buffer of {size} bytes is too small, need {}", bytes.len()));
        }
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), buffer, bytes.len()) };
        Status::Ok
    }

    /// fmi2DeSerializeFMUstate / fmi3DeserializeFMUState: `size` bytes at `buffer`, checked
    /// (`Instance::check_fmu_state`), into the state `*state`.
    ///
    /// # Safety
    /// `buffer` is NULL or valid for `size` bytes; `state` is NULL or valid for reads and
    /// writes, and a non-NULL `*state` came from this module.
    pub unsafe fn deserialize(
        core: &Instance,
        function: &str,
        buffer: *const u8,
        size: usize,
        state: *mut *mut c_void,
    ) -> Status {
        let bytes = match size {
            0 => Some(&[][..]),
            _ if buffer.is_null() => None,
            _ => Some(unsafe { std::slice::from_raw_parts(buffer, size) }),
        };
        let (Some(bytes), false) = (bytes, state.is_null()) else {
            return null_argument(core, function);
        };
        if let Err(e) = core.check_fmu_state(bytes) {
            return core.error(&format!("{function}: {e}"));
        }
        unsafe { store(state, bytes.to_vec()) };
        Status::Ok
    }
}
