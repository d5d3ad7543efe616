//! One FMU instance: safe Rust over `Simulation` and `Model`. Entry points in `api` call
//! exactly one method here after the call-sequence check.

use std::ffi::{CString, c_int};
use std::path::PathBuf;

use super::state::State;
use super::types::{CallbackFunctions, Status};
use crate::export::model_description::LOG_CATEGORIES;
use crate::export::variables::{Role, SolverField, VarType, Variables, guid, method_from_code};
use crate::integrators::Method;
use crate::model::Model;
use crate::simulation::{Simulation, Snapshot, SolverSettings};

pub const LOG_EVENTS: usize = 0;
pub const LOG_STATUS_WARNING: usize = 1;
pub const LOG_STATUS_DISCARD: usize = 2;
pub const LOG_STATUS_ERROR: usize = 3;
pub const LOG_STATUS_FATAL: usize = 4;
pub const LOG_ALL: usize = 5;
pub const LOG_SOLVER: usize = 6;

/// Relative tolerance for comparing communication points with the FMU time.
const TIME_TOLERANCE: f64 = 1e-9;

/// Parse `fmuResourceLocation`: `file:///abs`, `file:/abs`, `file://localhost/abs`, with or
/// without a trailing slash, percent-encoded.
pub fn resource_path(uri: &str) -> Result<PathBuf, String> {
    let bad = || format!("unsupported resource location '{uri}' (expected a file: URI with an absolute path)");
    if uri.len() < 5 || !uri[..5].eq_ignore_ascii_case("file:") {
        return Err(bad());
    }
    let rest = &uri[5..];
    let path = if let Some(after) = rest.strip_prefix("//") {
        let slash = after.find('/').ok_or_else(bad)?;
        let authority = &after[..slash];
        if !(authority.is_empty() || authority.eq_ignore_ascii_case("localhost")) {
            return Err(format!("resource location '{uri}' names a remote host '{authority}'"));
        }
        &after[slash..]
    } else {
        rest
    };
    if !path.starts_with('/') {
        return Err(bad());
    }
    let decoded = percent_encoding::percent_decode_str(path).decode_utf8().map_err(|_| bad())?;
    Ok(PathBuf::from(decoded.into_owned()))
}

const STATE_MAGIC: &[u8; 8] = b"flexfmuS";

/// Everything an FMU state holds, as bytes: GUID, then instance data, then the snapshot.
fn encode_state(guid: &str, inst: &Instance) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(guid.as_bytes());
    b.extend_from_slice(STATE_MAGIC);
    let tag: u64 = match inst.state {
        State::Instantiated => 0,
        State::InitializationMode => 1,
        State::StepComplete => 2,
        State::StepFailed => 3,
        State::Terminated => 4,
        State::Error | State::Fatal => 5,
    };
    let words = [tag, u64::from(inst.stop_time.is_some()), inst.params.len() as u64, inst.inputs.len() as u64];
    for w in words {
        b.extend_from_slice(&w.to_le_bytes());
    }
    inst.settings.encode(&mut b);
    for x in [inst.start_time, inst.stop_time.unwrap_or(0.0), inst.last_successful_time] {
        b.extend_from_slice(&x.to_le_bytes());
    }
    for x in inst.params.iter().chain(inst.inputs.iter()) {
        b.extend_from_slice(&x.to_le_bytes());
    }
    if let Some(sim) = &inst.sim {
        b.extend_from_slice(&sim.snapshot().to_bytes());
    }
    b
}

struct Decoded {
    state: State,
    start_time: f64,
    stop_time: Option<f64>,
    last_successful_time: f64,
    settings: SolverSettings,
    params: Vec<f64>,
    inputs: Vec<f64>,
    snapshot: Option<Snapshot>,
}

fn decode_state(guid: &str, bytes: &[u8], n_params: usize, n_inputs: usize) -> Result<Decoded, String> {
    let rest = bytes.strip_prefix(guid.as_bytes()).ok_or("the FMU state belongs to another FMU (GUID mismatch)")?;
    let bad = || "the FMU state is corrupt or of another flexfmu version".to_string();
    let rest = rest.strip_prefix(STATE_MAGIC.as_slice()).ok_or_else(bad)?;
    let fixed = 8 * (4 + SolverSettings::ENCODED_WORDS + 3 + n_params + n_inputs);
    if rest.len() < fixed {
        return Err(bad());
    }
    let (head, tail) = rest.split_at(fixed);
    let mut words = head.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")));
    let mut u = || words.next().ok_or_else(bad);
    let state = match u()? {
        0 => State::Instantiated,
        1 => State::InitializationMode,
        2 => State::StepComplete,
        3 => State::StepFailed,
        4 => State::Terminated,
        5 => State::Error,
        _ => return Err(bad()),
    };
    let stop_defined = u()? == 1;
    if u()? as usize != n_params || u()? as usize != n_inputs {
        return Err(bad());
    }
    let settings = SolverSettings::decode(&mut words).ok_or_else(bad)?;
    let mut f = || words.next().map(f64::from_bits).ok_or_else(bad);
    let (start_time, stop, last_successful_time) = (f()?, f()?, f()?);
    let params = (0..n_params).map(|_| f()).collect::<Result<Vec<_>, _>>()?;
    let inputs = (0..n_inputs).map(|_| f()).collect::<Result<Vec<_>, _>>()?;
    let snapshot = if tail.is_empty() { None } else { Some(Snapshot::from_bytes(tail)?) };
    Ok(Decoded {
        state,
        start_time,
        stop_time: stop_defined.then_some(stop),
        last_successful_time,
        settings,
        params,
        inputs,
        snapshot,
    })
}

pub struct Instance {
    pub state: State,
    name: CString,
    callbacks: CallbackFunctions,
    enabled: [bool; LOG_CATEGORIES.len()],
    model: Model,
    guid: String,
    vars: Variables,
    params: Vec<f64>,
    inputs: Vec<f64>,
    settings: SolverSettings,
    start_time: f64,
    stop_time: Option<f64>,
    last_successful_time: f64,
    sim: Option<Simulation>,
    /// The choices of every string parameter as C strings (empty for other parameters):
    /// `fmi2GetString` hands out pointers into these, valid as long as the instance.
    choice_texts: Vec<Vec<CString>>,
}

fn c_text(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap_or_default()
}

impl Instance {
    /// Log through the importer's logger if `category` is enabled.
    pub fn log(&self, status: Status, category: usize, message: &str) {
        if !(self.enabled[category] || self.enabled[LOG_ALL]) {
            return;
        }
        log_with(&self.callbacks, &self.name, status, category, message);
    }

    pub fn error(&self, message: &str) -> Status {
        self.log(Status::Error, LOG_STATUS_ERROR, message);
        Status::Error
    }

    /// fmi2Instantiate after the NULL checks. Errors are already logged.
    pub fn new(
        name: &str,
        fmu_type: c_int,
        fmu_guid: &str,
        resources: Option<&str>,
        callbacks: CallbackFunctions,
        logging_on: bool,
    ) -> Option<Instance> {
        let cname = c_text(name);
        let fail = |msg: String| {
            log_with(&callbacks, &cname, Status::Error, LOG_STATUS_ERROR, &format!("fmi2Instantiate: {msg}"));
            None
        };
        if name.trim().is_empty() {
            return fail("instanceName must not be empty".into());
        }
        match fmu_type {
            super::types::FMI2_CO_SIMULATION => {}
            super::types::FMI2_MODEL_EXCHANGE => {
                return fail("this FMU supports Co-Simulation only, not Model Exchange".into());
            }
            other => return fail(format!("unknown fmuType {other}")),
        }
        let Some(uri) = resources.filter(|s| !s.is_empty()) else {
            return fail("fmuResourceLocation is missing; the model is read from resources/model.toml".into());
        };
        let dir = match resource_path(uri) {
            Ok(d) => d,
            Err(e) => return fail(e),
        };
        let file = dir.join("model.toml");
        let model = match Model::load(&file) {
            Ok(m) => m,
            Err(e) => return fail(e.to_string()),
        };
        let guid = guid(&model.source);
        if guid != fmu_guid {
            return fail(format!(
                "GUID mismatch: the importer expects {fmu_guid} but {} has {guid} (resources do not match modelDescription.xml)",
                file.display()
            ));
        }
        let vars = match Variables::new(&model) {
            Ok(v) => v,
            Err(e) => return fail(e),
        };
        let mut enabled = [false; LOG_CATEGORIES.len()];
        enabled[LOG_STATUS_ERROR] = true;
        enabled[LOG_STATUS_FATAL] = true;
        if logging_on {
            enabled = [true; LOG_CATEGORIES.len()];
        }
        let mut inst = Instance {
            state: State::Instantiated,
            name: cname,
            callbacks,
            enabled,
            params: Vec::new(),
            inputs: Vec::new(),
            settings: vars.settings,
            start_time: vars.experiment.start_time,
            stop_time: None,
            last_successful_time: vars.experiment.start_time,
            sim: None,
            model,
            guid,
            choice_texts: Vec::new(),
            vars,
        };
        inst.choice_texts =
            inst.model.parameters.iter().map(|p| p.choices.iter().map(|c| c_text(c)).collect()).collect();
        inst.reset();
        inst.log(Status::Ok, LOG_EVENTS, &format!("instantiated {} from {}", inst.model.name(), file.display()));
        Some(inst)
    }

    pub fn set_debug_logging(&mut self, on: bool, categories: &[Option<String>]) -> Status {
        if categories.is_empty() {
            self.enabled = [on; LOG_CATEGORIES.len()];
            return Status::Ok;
        }
        let mut idx = Vec::new();
        for c in categories {
            match c.as_deref().and_then(|c| LOG_CATEGORIES.iter().position(|(n, _)| *n == c)) {
                Some(i) => idx.push(i),
                None => {
                    let names: Vec<&str> = LOG_CATEGORIES.iter().map(|(n, _)| *n).collect();
                    return self.error(&format!(
                        "fmi2SetDebugLogging: unknown log category {:?} (expected one of {})",
                        c.as_deref().unwrap_or("NULL"),
                        names.join(", ")
                    ));
                }
            }
        }
        for i in idx {
            self.enabled[i] = on;
        }
        Status::Ok
    }

    pub fn reset(&mut self) -> Status {
        self.state = State::Instantiated;
        self.params = self.model.default_parameters();
        self.inputs = self.model.definition.inputs.iter().map(|i| i.start).collect();
        self.settings = self.vars.settings;
        self.start_time = self.vars.experiment.start_time;
        self.stop_time = None;
        self.last_successful_time = self.start_time;
        self.sim = None;
        Status::Ok
    }

    pub fn setup_experiment(&mut self, tolerance: Option<f64>, start: f64, stop: Option<f64>) -> Status {
        if !start.is_finite() {
            return self.error(&format!("fmi2SetupExperiment: startTime {start} is not finite"));
        }
        if let Some(stop) = stop {
            if stop.is_nan() || stop < start {
                return self.error(&format!("fmi2SetupExperiment: stopTime {stop} is before startTime {start}"));
            }
        }
        if let Some(t) = tolerance {
            // The tolerance of FMI 2.0 sec. 2.1.6 is the relative tolerance of the
            // error-controlled step (active when solver_error_control = 1).
            if !(t > 0.0 && t < 1.0) {
                return self.error(&format!("fmi2SetupExperiment: tolerance {t} must be in (0, 1)"));
            }
            self.settings.error_control.rtol = t;
            self.log(
                Status::Ok,
                LOG_EVENTS,
                &format!("fmi2SetupExperiment: tolerance {t} sets solver_rtol (used when solver_error_control = 1)"),
            );
        }
        self.start_time = start;
        self.stop_time = stop;
        self.last_successful_time = start;
        Status::Ok
    }

    pub fn enter_initialization_mode(&mut self) -> Status {
        self.state = State::InitializationMode;
        Status::Ok
    }

    /// Build the simulation with the current parameters if it does not exist.
    fn ensure_simulation(&mut self) -> Result<&mut Simulation, String> {
        if self.sim.is_none() {
            self.model.check_parameters(&self.params).map_err(|e| e.message)?;
            let mut sim = Simulation::new(&self.model, &self.params, self.settings, self.start_time)
                .map_err(|e| e.to_string())?;
            for (i, v) in self.inputs.iter().enumerate() {
                sim.set_input(i, *v)?;
            }
            self.log(Status::Ok, LOG_EVENTS, &format!("initialized at t = {}", self.start_time));
            self.sim = Some(sim);
        }
        Ok(self.sim.as_mut().expect("just built"))
    }

    pub fn exit_initialization_mode(&mut self) -> Status {
        if let Err(e) = self.ensure_simulation() {
            return self.error(&format!("fmi2ExitInitializationMode: {e}"));
        }
        self.last_successful_time = self.start_time;
        self.state = State::StepComplete;
        Status::Ok
    }

    pub fn terminate(&mut self) -> Status {
        self.state = State::Terminated;
        self.log(Status::Ok, LOG_EVENTS, "terminated");
        Status::Ok
    }

    fn variable(&self, function: &str, vr: u32, ty: VarType) -> Result<(Role, String), Status> {
        match self.vars.get(vr) {
            Some(v) if v.ty == ty => Ok((v.role, v.name.clone())),
            Some(v) => Err(self.error(&format!("{function}: value reference {vr} ({}) is not of type {ty:?}", v.name))),
            None => Err(self.error(&format!("{function}: unknown value reference {vr}"))),
        }
    }

    fn value(&mut self, function: &str, role: Role) -> Result<f64, Status> {
        Ok(match role {
            Role::Parameter(i) => self.params[i],
            Role::Input(i) => self.inputs[i],
            Role::Solver(SolverField::Integrator) => {
                Method::ALL.iter().position(|m| *m == self.settings.method).unwrap_or(0) as f64
            }
            Role::Solver(SolverField::RhoInf) => self.settings.rho_inf,
            Role::Solver(SolverField::Step) => self.settings.step,
            Role::Solver(SolverField::Tolerance) => self.settings.tolerance,
            Role::Solver(SolverField::Constraints) => self.settings.constraints.code() as f64,
            Role::Solver(SolverField::BaumgarteAlpha) => self.settings.baumgarte.alpha,
            Role::Solver(SolverField::BaumgarteBeta) => self.settings.baumgarte.beta,
            Role::Solver(SolverField::ErrorControl) => f64::from(u8::from(self.settings.error_control.enabled)),
            Role::Solver(SolverField::Rtol) => self.settings.error_control.rtol,
            Role::Solver(SolverField::Atol) => self.settings.error_control.atol,
            Role::Output(i) => {
                let values = match self.ensure_simulation() {
                    Ok(sim) => sim.output_values().map(|v| v.get(i).copied()),
                    Err(e) => Err(e),
                };
                match values {
                    Ok(Some(x)) => x,
                    Ok(None) => return Err(self.error(&format!("{function}: output {i} out of range"))),
                    Err(e) => return Err(self.error(&format!("{function}: {e}"))),
                }
            }
        })
    }

    pub fn get(&mut self, function: &str, ty: VarType, vrs: &[u32], out: &mut dyn FnMut(usize, f64)) -> Status {
        for (k, vr) in vrs.iter().enumerate() {
            let (role, _) = match self.variable(function, *vr, ty) {
                Ok(r) => r,
                Err(s) => return s,
            };
            match self.value(function, role) {
                Ok(x) => out(k, x),
                Err(s) => return s,
            }
        }
        Status::Ok
    }

    pub fn set(&mut self, function: &str, ty: VarType, vrs: &[u32], values: &[f64]) -> Status {
        for (vr, x) in vrs.iter().zip(values) {
            let (role, name) = match self.variable(function, *vr, ty) {
                Ok(r) => r,
                Err(s) => return s,
            };
            let status = self.set_one(function, role, &name, *x);
            if status != Status::Ok {
                return status;
            }
        }
        Status::Ok
    }

    fn set_one(&mut self, function: &str, role: Role, name: &str, x: f64) -> Status {
        if !x.is_finite() {
            return self.error(&format!("{function}: {name} must be finite, got {x}"));
        }
        let running = self.state == State::StepComplete;
        match role {
            Role::Output(_) => self.error(&format!("{function}: {name} is an output and cannot be set")),
            Role::Parameter(i) => {
                if running {
                    return self.error(&format!(
                        "{function}: parameter {name} is fixed; set it before fmi2ExitInitializationMode"
                    ));
                }
                let mut params = self.params.clone();
                params[i] = x;
                if let Err(e) = self.model.check_parameters(&params) {
                    return self.error(&format!("{function}: {}", e.message));
                }
                self.params = params;
                // Rebuilt with the new value when next needed.
                self.sim = None;
                Status::Ok
            }
            Role::Input(i) => {
                if let Some(sim) = &mut self.sim {
                    if let Err(e) = sim.set_input(i, x) {
                        return self.error(&format!("{function}: {e}"));
                    }
                }
                self.inputs[i] = x;
                Status::Ok
            }
            Role::Solver(field) => {
                let mut s = self.settings;
                match field {
                    SolverField::Integrator => {
                        let Some(m) = method_from_code(x as i32) else {
                            return self.error(&format!(
                                "{function}: {name} = {x} is not a method code ({})",
                                crate::export::variables::integrator_description()
                            ));
                        };
                        if m == Method::Newmark {
                            s.rho_inf = 1.0;
                        }
                        s.method = m;
                    }
                    SolverField::RhoInf => s.rho_inf = x,
                    SolverField::Step => s.step = x,
                    SolverField::Tolerance => s.tolerance = x,
                    SolverField::Constraints => {
                        let Some(c) = crate::integrators::ConstraintTreatment::from_code(x as i64) else {
                            return self.error(&format!(
                                "{function}: {name} = {x} is not a constraint treatment code ({})",
                                crate::export::variables::constraints_description()
                            ));
                        };
                        s.constraints = c;
                    }
                    SolverField::BaumgarteAlpha => s.baumgarte.alpha = x,
                    SolverField::BaumgarteBeta => s.baumgarte.beta = x,
                    SolverField::ErrorControl => {
                        if x != 0.0 && x != 1.0 {
                            return self.error(&format!(
                                "{function}: {name} = {x} must be 0 (fixed steps) or 1 (error-controlled steps)"
                            ));
                        }
                        s.error_control.enabled = x == 1.0;
                    }
                    SolverField::Rtol => s.error_control.rtol = x,
                    SolverField::Atol => s.error_control.atol = x,
                }
                // Combinations (method vs rho_inf) are checked when the settings are applied.
                self.settings = s;
                Status::Ok
            }
        }
    }

    /// fmi2GetString: pointers to the instance's copies of the current choices.
    pub fn get_strings(&mut self, function: &str, vrs: &[u32], out: &mut [*const std::ffi::c_char]) -> Status {
        for (k, vr) in vrs.iter().enumerate() {
            let (role, name) = match self.variable(function, *vr, VarType::String) {
                Ok(r) => r,
                Err(s) => return s,
            };
            let Role::Parameter(i) = role else {
                return self.error(&format!("{function}: {name} is not a string parameter"));
            };
            let Some(text) = self.model.parameters[i]
                .choice(self.params[i])
                .and_then(|_| self.choice_texts[i].get(self.params[i] as usize))
            else {
                return self.error(&format!("{function}: {name} has no valid value (internal error)"));
            };
            out[k] = text.as_ptr();
        }
        Status::Ok
    }

    /// fmi2SetString: the texts are copied (compared with the choices) before returning.
    pub fn set_strings(&mut self, function: &str, vrs: &[u32], values: &[Option<String>]) -> Status {
        for (vr, text) in vrs.iter().zip(values) {
            let (role, name) = match self.variable(function, *vr, VarType::String) {
                Ok(r) => r,
                Err(s) => return s,
            };
            let Role::Parameter(i) = role else {
                return self.error(&format!("{function}: {name} is not a string parameter"));
            };
            if self.state == State::StepComplete {
                return self.error(&format!(
                    "{function}: parameter {name} is fixed; set it before fmi2ExitInitializationMode"
                ));
            }
            let Some(text) = text else { return self.error(&format!("{function}: NULL string for {name}")) };
            let p = &self.model.parameters[i];
            let Some(index) = p.choice_index(text) else {
                return self.error(&format!("{function}: {name} = \"{text}\" is not one of: {}", p.choices.join(", ")));
            };
            if self.params[i] != index {
                self.params[i] = index;
                // Rebuilt with the new value when next needed.
                self.sim = None;
            }
        }
        Status::Ok
    }

    pub fn do_step(&mut self, tc: f64, h: f64) -> Status {
        let Some(sim) = self.sim.as_ref() else {
            return self.error("fmi2DoStep: no simulation (internal error)");
        };
        let t = sim.time();
        if !tc.is_finite() || !h.is_finite() {
            return self.error(&format!(
                "fmi2DoStep: currentCommunicationPoint {tc} and communicationStepSize {h} must be finite"
            ));
        }
        if h < 0.0 {
            return self.error(&format!("fmi2DoStep: communicationStepSize {h} is negative"));
        }
        if (tc - t).abs() > TIME_TOLERANCE * t.abs().max(tc.abs()).max(1.0) {
            return self.error(&format!("fmi2DoStep: currentCommunicationPoint {tc} does not match the FMU time {t}"));
        }
        let target = tc + h;
        if let Some(stop) = self.stop_time {
            if target > stop + TIME_TOLERANCE * stop.abs().max(1.0) {
                return self.error(&format!("fmi2DoStep: the step to {target} goes past stopTime {stop}"));
            }
        }
        let settings = self.settings;
        let sim = self.sim.as_mut().expect("checked");
        if *sim.settings() != settings {
            if let Err(e) = sim.set_settings(settings) {
                self.settings = *sim.settings();
                return self.error(&format!("fmi2DoStep: solver settings refused: {e}; kept the previous ones"));
            }
        }
        match sim.step_to(target) {
            Ok(()) => {
                self.last_successful_time = sim.time();
                Status::Ok
            }
            Err(e) => {
                let t = sim.time();
                self.last_successful_time = t;
                self.state = State::StepFailed;
                let msg = format!("fmi2DoStep: step from {tc} to {target} failed at t = {t}: {e}");
                self.log(Status::Discard, LOG_STATUS_DISCARD, &msg);
                self.log(Status::Discard, LOG_SOLVER, &msg);
                Status::Discard
            }
        }
    }

    pub fn last_successful_time(&self) -> f64 {
        self.last_successful_time
    }

    pub fn get_fmu_state(&self) -> Vec<u8> {
        encode_state(&self.guid, self)
    }

    /// Check that `bytes` is a state of this FMU.
    pub fn check_fmu_state(&self, bytes: &[u8]) -> Result<(), String> {
        decode_state(&self.guid, bytes, self.params.len(), self.inputs.len()).map(|_| ())
    }

    pub fn set_fmu_state(&mut self, bytes: &[u8]) -> Status {
        let d = match decode_state(&self.guid, bytes, self.params.len(), self.inputs.len()) {
            Ok(d) => d,
            Err(e) => return self.error(&format!("fmi2SetFMUstate: {e}")),
        };
        let sim = match &d.snapshot {
            None => None,
            Some(snap) => {
                let reuse = self.sim.is_some() && self.params == d.params && self.start_time == d.start_time;
                let mut sim = match self.sim.take().filter(|_| reuse) {
                    Some(sim) => sim,
                    None => match Simulation::new(&self.model, &d.params, d.settings, d.start_time) {
                        Ok(s) => s,
                        Err(e) => return self.error(&format!("fmi2SetFMUstate: {e}")),
                    },
                };
                if let Err(e) = sim.restore(snap) {
                    return self.error(&format!("fmi2SetFMUstate: {e}"));
                }
                Some(sim)
            }
        };
        self.sim = sim;
        self.state = d.state;
        self.start_time = d.start_time;
        self.stop_time = d.stop_time;
        self.last_successful_time = d.last_successful_time;
        self.settings = d.settings;
        self.params = d.params;
        self.inputs = d.inputs;
        Status::Ok
    }
}

/// Call the logger with "%s" and the text ('#' escaped as "##"; it marks variable references).
pub fn log_with(callbacks: &CallbackFunctions, name: &CString, status: Status, category: usize, message: &str) {
    let Some(logger) = callbacks.logger else { return };
    let text = c_text(&message.replace('#', "##"));
    let cat = c_text(LOG_CATEGORIES[category].0);
    // SAFETY: the importer's logger, called with valid NUL-terminated strings and a "%s"
    // format consuming exactly one string argument.
    unsafe {
        logger(
            callbacks.component_environment,
            name.as_ptr(),
            status as c_int,
            cat.as_ptr(),
            c"%s".as_ptr(),
            text.as_ptr(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_uris() {
        let p = |s: &str| resource_path(s).map(|p| p.display().to_string());
        assert_eq!(p("file:///tmp/a b/resources").unwrap(), "/tmp/a b/resources");
        assert_eq!(p("file:///tmp/a%20b/resources/").unwrap(), "/tmp/a b/resources/");
        assert_eq!(p("file:/tmp/x").unwrap(), "/tmp/x");
        assert_eq!(p("file://localhost/tmp/x").unwrap(), "/tmp/x");
        assert_eq!(p("FILE:///tmp/x").unwrap(), "/tmp/x");
        assert!(p("file://host/tmp/x").is_err());
        assert!(p("http://x/y").is_err());
        assert!(p("file:relative").is_err());
        assert!(p("").is_err());
    }
}
