//! One FMU instance in safe Rust, independent of the FMI version: the variable table, the
//! instance's parameters, inputs and solver settings, the lifecycle state and the
//! simulation. It knows only the simulation facade (src/simulation.rs); the FMI layer
//! (src/fmi2/api.rs) checks pointers and the call sequence and calls exactly one method here.
//! Messages go to the `Logger` the FMI layer supplies, prefixed with the FMI function name
//! the layer passes in.

use std::path::Path;

use super::lifecycle::State;
use super::log::{Category, Enabled, Logger};
use super::settings;
use super::state::FmuState;
use super::status::Status;
use super::variables::{Role, SolverField, VarType, Variables, guid};
use crate::compact_number::Compact;
use crate::simulation::blob;
use crate::simulation::call_times::CallTimes;
use crate::simulation::{Experiment, Model, Simulation, Snapshot, SolverSettings, StepEnd};

/// Relative tolerance for comparing communication points with the FMU time.
const TIME_TOLERANCE: f64 = 1e-9;

pub struct Instance {
    state: State,
    logger: Logger,
    enabled: Enabled,
    model: Model,
    guid: String,
    vars: Variables,
    params: Vec<f64>,
    inputs: Vec<f64>,
    settings: SolverSettings,
    start_time: f64,
    stop_time: Option<f64>,
    last_successful_time: f64,
    /// Per input, the first and second derivative set for the next step
    /// (fmi2SetRealInputDerivatives); cleared by every step.
    input_derivatives: Vec<[f64; 2]>,
    /// Per input, whether the master gave its derivatives for the next step, zeros included
    /// (a driving input given u' = 0 is not one "changed without its derivatives"); cleared
    /// by every step.
    derivatives_given: Vec<bool>,
    /// Built at instantiation with the default parameters (the one assembly of the model),
    /// rebuilt only when parameters, start time or settings change before the first step.
    sim: Option<Simulation>,
    /// Whether `vars` marks the tunable parameters yet (done when one is first set in step
    /// mode: it assembles the model once per parameter).
    tunable_marked: bool,
    /// Wall times of the doStep calls, logged with the solver statistics at termination.
    step_times: CallTimes,
    /// The state before the current doStep, to return to if its outputs cannot be computed;
    /// kept between calls so that taking it allocates nothing once it has the model's sizes.
    rollback: Option<Snapshot>,
    /// An input that moves a driven joint, changed in step mode since the last step; and
    /// whether the warning that it was held (no derivatives) was logged (once per instance).
    drive_input_changed: Option<usize>,
    held_drive_warned: bool,
    /// Whether an element out of its formulation's range, and each of the run's warnings
    /// (`Simulation::RUN_WARNINGS`), were reported (each once per instance).
    formulation_warned: bool,
    run_warned: [bool; Simulation::RUN_WARNINGS.len()],
    /// The solver settings the importer chose (solver_* variables, in the order set; the
    /// tolerance of setupExperiment is solver_rtol). The others follow the model: its
    /// parameters, when they change before the first step (a `[solver]` value may be an
    /// expression of them), and solver_rho_inf for the constraint treatment, as in
    /// `flexfmu simulate` (`SolverSettings::constraints_at`).
    chosen: Vec<SolverField>,
}

impl Instance {
    /// Load `resources/model.toml`, check it against the importer's GUID and build the
    /// simulation once (its outputs complete the variable table). The error is the reason,
    /// for the FMI layer to log.
    pub fn instantiate(resources: &Path, fmu_guid: &str, logger: Logger, logging_on: bool) -> Result<Instance, String> {
        let file = resources.join("model.toml");
        let model = Model::load(&file).map_err(|e| e.to_string())?;
        let guid = guid(&model.source);
        if guid != fmu_guid {
            return Err(format!(
                "GUID mismatch: the importer expects {fmu_guid} but {} has {guid} (resources do not match modelDescription.xml)",
                file.display()
            ));
        }
        let params = model.default_parameters();
        let settings = SolverSettings::from_model(&model, &params).map_err(|e| e.to_string())?;
        let experiment = Experiment::from_model(&model, &params).map_err(|e| e.to_string())?;
        let sim = Simulation::new(&model, &params, settings, experiment.start_time).map_err(|e| e.to_string())?;
        let vars = Variables::with_outputs(&model, settings, experiment, &sim).map_err(|e| e.to_string())?;
        let inst = Instance {
            state: State::Instantiated,
            logger,
            enabled: Enabled::new(logging_on),
            inputs: model.definition.inputs.iter().map(|i| i.start.0).collect(),
            params,
            settings,
            start_time: experiment.start_time,
            stop_time: None,
            last_successful_time: experiment.start_time,
            input_derivatives: vec![[0.0; 2]; model.definition.inputs.len()],
            derivatives_given: vec![false; model.definition.inputs.len()],
            sim: Some(sim),
            tunable_marked: false,
            step_times: CallTimes::default(),
            rollback: None,
            drive_input_changed: None,
            held_drive_warned: false,
            formulation_warned: false,
            run_warned: [false; Simulation::RUN_WARNINGS.len()],
            chosen: Vec::new(),
            model,
            guid,
            vars,
        };
        inst.log(Status::Ok, Category::Events, &format!("instantiated {} from {}", inst.model.name(), file.display()));
        inst.log_warnings();
        Ok(inst)
    }

    pub fn state(&self) -> State {
        self.state
    }

    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The variable table (value references, types, roles).
    pub fn variables(&self) -> &Variables {
        &self.vars
    }

    /// Log through the importer's logger if `category` is enabled.
    pub fn log(&self, status: Status, category: Category, message: &str) {
        if self.enabled.logs(category) {
            (self.logger)(status, category, message);
        }
    }

    /// Log what assembly warned of (`Simulation::warnings`) as fmi2Warning messages.
    fn log_warnings(&self) {
        for w in self.sim.iter().flat_map(|s| s.warnings()) {
            self.log(Status::Warning, Category::StatusWarning, &w.warning());
        }
    }

    pub fn error(&self, message: &str) -> Status {
        self.log(Status::Error, Category::StatusError, message);
        Status::Error
    }

    /// The instance is unusable (a panic was caught): every further call but freeing it
    /// is refused.
    pub fn fatal(&mut self, message: &str) -> Status {
        self.state = State::Fatal;
        self.log(Status::Fatal, Category::StatusFatal, message);
        Status::Fatal
    }

    pub fn set_debug_logging(&mut self, function: &str, on: bool, categories: &[Option<String>]) -> Status {
        if categories.is_empty() {
            self.enabled.set_all(on);
            return Status::Ok;
        }
        let mut chosen = Vec::new();
        for c in categories {
            match c.as_deref().and_then(Category::from_name) {
                Some(category) => chosen.push(category),
                None => {
                    let names: Vec<&str> = Category::ALL.iter().map(|c| c.name()).collect();
                    return self.error(&format!(
                        "{function}: unknown log category {:?} (expected one of {})",
                        c.as_deref().unwrap_or("NULL"),
                        names.join(", ")
                    ));
                }
            }
        }
        // loggingOn with categories: "only debug messages according to the categories argument
        // shall be output" (FMI 2.0.4 sec. 2.1.5; FMI 3.0 fmi3SetDebugLogging); without
        // loggingOn, the named categories are switched off.
        if on {
            self.enabled.only(&chosen);
        } else {
            for category in chosen {
                self.enabled.set(category, false);
            }
        }
        Status::Ok
    }

    pub fn reset(&mut self) -> Status {
        self.state = State::Instantiated;
        self.params = self.model.default_parameters();
        self.inputs = self.model.definition.inputs.iter().map(|i| i.start.0).collect();
        self.settings = self.vars.settings;
        self.chosen.clear();
        self.start_time = self.vars.experiment.start_time;
        self.stop_time = None;
        self.last_successful_time = self.start_time;
        self.input_derivatives.iter_mut().for_each(|d| *d = [0.0; 2]);
        self.derivatives_given.fill(false);
        self.sim = None;
        self.step_times = CallTimes::default();
        Status::Ok
    }

    pub fn setup_experiment(
        &mut self,
        function: &str,
        tolerance: Option<f64>,
        start: f64,
        stop: Option<f64>,
    ) -> Status {
        if !start.is_finite() {
            return self.error(&format!("{function}: startTime {} is not finite", Compact(start)));
        }
        if let Some(stop) = stop {
            if stop.is_nan() || stop < start {
                return self.error(&format!(
                    "{function}: stopTime {} is before startTime {}",
                    Compact(stop),
                    Compact(start)
                ));
            }
        }
        if let Some(t) = tolerance {
            // The tolerance of FMI 2.0 sec. 2.1.6 is the relative tolerance of the
            // error-controlled step (active when solver_error_control = 1).
            if !(t > 0.0 && t < 1.0) {
                return self.error(&format!("{function}: tolerance {t} must be in (0, 1)"));
            }
            let mut settings = self.settings;
            settings.error_control.rtol = t;
            self.choose(SolverField::Rtol);
            self.change_settings(settings);
            self.log(
                Status::Ok,
                Category::Events,
                &format!("{function}: tolerance {t} sets solver_rtol (used when solver_error_control = 1)"),
            );
        }
        if self.sim.as_ref().is_some_and(|sim| sim.time() != start) {
            self.sim = None;
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

    /// Record that the importer chose `field` (`chosen`).
    fn choose(&mut self, field: SolverField) {
        self.chosen.retain(|&f| f != field);
        self.chosen.push(field);
    }

    /// Parameters changed before the first step: the simulation is rebuilt with them when
    /// next needed, and the solver settings are the model's at the new values (its `[solver]`
    /// values may be expressions of parameters) with the importer's choices applied again in
    /// the order they were made.
    fn parameters_changed(&mut self, function: &str) -> Status {
        self.sim = None;
        let mut s = match SolverSettings::from_model(&self.model, &self.params) {
            Ok(s) => s,
            Err(e) => return self.error(&format!("{function}: the model's solver settings at these parameters: {e}")),
        };
        for &field in &self.chosen {
            let name = self.vars.solver_name(field);
            s = match settings::with(s, field, name, settings::value(&self.settings, field)) {
                Ok(s) => s,
                Err(e) => return self.error(&format!("{function}: {e}")),
            };
        }
        self.settings = self.followed(s);
        Status::Ok
    }

    /// `s` with what `flexfmu simulate` derives from the importer's choices (`chosen`):
    /// - with solver_integrator chosen and solver_rho_inf not, the model's rho_inf (the default
    ///   0.5 if it states none) moved into the chosen method's range, as `--integrator` does
    ///   (HHT on a model of TTBIF at 0.2 runs at 0.5; it was refused); a chosen rho_inf is
    ///   kept whatever the method, and checked against it when used (as `--rho-inf`: a
    ///   probe's rho_inf 0.8 and then Newmark ran silently at 1);
    /// - unless solver_constraints was chosen, the constraint treatment for that rho_inf.
    fn followed(&self, mut s: SolverSettings) -> SolverSettings {
        let chose = |field| self.chosen.contains(&field);
        if chose(SolverField::Integrator) && !chose(SolverField::RhoInf) {
            if let Ok(stated) = SolverSettings::declared(&self.model, &self.params) {
                s.rho_inf = s.method.default_rho_inf(stated.stated_rho_inf(&self.model));
            }
        }
        if !chose(SolverField::Constraints) {
            s.constraints = s.constraints_at(&self.model, s.rho_inf);
        }
        s
    }

    /// New solver settings. Before the first step a simulation built with other settings is
    /// rebuilt (as if they had been the model's); afterwards they apply at the next step.
    fn change_settings(&mut self, settings: SolverSettings) {
        let before_first_step = matches!(self.state, State::Instantiated | State::InitializationMode);
        if before_first_step && self.sim.as_ref().is_some_and(|sim| *sim.settings() != settings) {
            self.sim = None;
        }
        self.settings = settings;
    }

    /// Build the simulation with the current parameters if it does not exist.
    fn ensure_simulation(&mut self) -> Result<&mut Simulation, String> {
        if self.sim.is_none() {
            self.model.check_parameters(&self.params).map_err(|e| e.message)?;
            let mut sim = Simulation::new(&self.model, &self.params, self.settings, self.start_time)
                .map_err(|e| self.with_changed_parameters(e.to_string()))?;
            // Values set before exiting initialization are the initial state's.
            sim.set_initial_inputs(&self.inputs, &self.input_derivatives)?;
            self.log(Status::Ok, Category::Events, &format!("initialized at t = {}", Compact(self.start_time)));
            self.sim = Some(sim);
            self.log_warnings();
        }
        Ok(self.sim.as_mut().expect("just built"))
    }

    /// `message` of a model that the parameters the importer changed made invalid, with
    /// those parameters first (a probe's M = 0 was told "mass must be positive, got 0" at the
    /// body's line, not which value it had set).
    fn with_changed_parameters(&self, message: String) -> String {
        const SHOWN: usize = 8;
        let changed: Vec<String> = self
            .model
            .parameters
            .iter()
            .zip(&self.params)
            .filter(|(p, v)| p.default.to_bits() != v.to_bits())
            .map(|(p, v)| format!("{} = {}", p.name, Compact(*v)))
            .collect();
        match changed.len() {
            0 => message,
            n if n > SHOWN => format!("with {}, ... ({n} parameters set): {message}", changed[..SHOWN].join(", ")),
            _ => format!("with {}: {message}", changed.join(", ")),
        }
    }

    pub fn exit_initialization_mode(&mut self, function: &str) -> Status {
        // The inputs and their derivatives set in initialization mode are the initial state's
        // (the simulation may exist already, built for a value read there).
        let (inputs, rates) = (self.inputs.clone(), self.input_derivatives.clone());
        if let Err(e) = self.ensure_simulation().and_then(|sim| sim.set_initial_inputs(&inputs, &rates)) {
            return self.error(&format!("{function}: {e}"));
        }
        self.last_successful_time = self.start_time;
        self.state = State::StepComplete;
        Status::Ok
    }

    pub fn terminate(&mut self) -> Status {
        self.state = State::Terminated;
        if let (Some(sim), Some(times)) = (&self.sim, self.step_times.summary()) {
            let st = sim.statistics();
            self.log(
                Status::Ok,
                Category::Solver,
                &format!(
                    "statistics: doStep wall time {times}; {} internal steps ({} rejected){}, {} Newton iterations, \
                     {} Jacobian evaluations, {} factorizations",
                    st.steps,
                    st.rejected_steps,
                    st.extrapolated(),
                    st.newton_iterations,
                    st.jacobian_evaluations,
                    st.factorizations
                ),
            );
        }
        self.log(Status::Ok, Category::Events, "terminated");
        Status::Ok
    }

    /// The role of variable `vr`, which must be of type `ty` (its name for messages: `name`;
    /// not copied here, so that reading and setting values allocates nothing).
    fn variable(&self, function: &str, vr: u32, ty: VarType) -> Result<Role, Status> {
        match self.vars.get(vr) {
            Some(v) if v.ty == ty => Ok(v.role),
            Some(v) => Err(self.error(&format!(
                "{function}: value reference {vr} ({}) is not of type {}",
                v.name,
                ty.name_in(function)
            ))),
            None => Err(self.error(&format!("{function}: unknown value reference {vr}"))),
        }
    }

    /// The name of a variable `variable` accepted.
    fn name(&self, vr: u32) -> &str {
        self.vars.get(vr).map_or("?", |v| &v.name)
    }

    fn value(&mut self, function: &str, role: Role) -> Result<f64, Status> {
        Ok(match role {
            Role::Parameter(i) => self.params[i],
            Role::Input(i) => self.inputs[i],
            Role::Solver(field) => settings::value(&self.settings, field),
            Role::Output(i) => match self.ensure_simulation().and_then(|sim| sim.output_value(i)) {
                Ok(x) => x,
                Err(e) => return Err(self.error(&format!("{function}: {e}"))),
            },
        })
    }

    /// Values of `vrs` (all of type `ty`), handed to `out` with their position.
    pub fn get(&mut self, function: &str, ty: VarType, vrs: &[u32], out: &mut dyn FnMut(usize, f64)) -> Status {
        for (k, vr) in vrs.iter().enumerate() {
            let role = match self.variable(function, *vr, ty) {
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
            let role = match self.variable(function, *vr, ty) {
                Ok(r) => r,
                Err(s) => return s,
            };
            let status = self.set_one(function, role, *vr, *x);
            if status != Status::Ok {
                return status;
            }
        }
        Status::Ok
    }

    fn set_one(&mut self, function: &str, role: Role, vr: u32, x: f64) -> Status {
        if !x.is_finite() {
            return self.error(&format!("{function}: {} must be finite, got {x}", self.name(vr)));
        }
        let running = self.state == State::StepComplete;
        match role {
            Role::Output(_) => self.error(&format!("{function}: {} is an output and cannot be set", self.name(vr))),
            Role::Parameter(i) => {
                if running && !self.tunable_marked {
                    self.vars.mark_tunable(&self.model);
                    self.tunable_marked = true;
                }
                let tunable = self.vars.list.iter().any(|v| v.role == role && v.tunable);
                if running && !tunable {
                    return self.error(&format!(
                        "{function}: parameter {} is fixed (it changes the model's structure or initial \
                         state); set it before fmi2ExitInitializationMode",
                        self.name(vr)
                    ));
                }
                let mut params = self.params.clone();
                params[i] = x;
                if let Err(e) = self.model.check_parameters(&params) {
                    return self.error(&format!("{function}: {}", e.message));
                }
                if running {
                    // Tunable: the running simulation takes the new coefficients for its next step.
                    let retuned = match self.sim.as_mut() {
                        Some(sim) => sim.retune(&self.model, &params),
                        None => Err("no simulation (internal error)".into()),
                    };
                    if let Err(e) = retuned {
                        return self.error(&format!("{function}: {} = {} refused: {e}", self.name(vr), Compact(x)));
                    }
                    self.params = params;
                    return Status::Ok;
                }
                self.params = params;
                self.parameters_changed(function)
            }
            Role::Input(i) => {
                if let Some(sim) = &mut self.sim {
                    // Before the first step the inputs are the initial state's (a value read
                    // in initialization mode shows where a driving input puts the joint).
                    let result = if matches!(self.state, State::Instantiated | State::InitializationMode) {
                        let mut inputs = self.inputs.clone();
                        inputs[i] = x;
                        sim.set_initial_inputs(&inputs, &self.input_derivatives)
                    } else {
                        sim.set_input(i, x)
                    };
                    if let Err(e) = result {
                        return self.error(&format!("{function}: {e}"));
                    }
                    if self.state == State::StepComplete && x != self.inputs[i] && sim.input_drives_a_joint(i) {
                        self.drive_input_changed.get_or_insert(i);
                    }
                }
                self.inputs[i] = x;
                Status::Ok
            }
            Role::Solver(field) => match settings::with(self.settings, field, self.name(vr), x) {
                Ok(s) => {
                    self.choose(field);
                    let s = self.followed(s);
                    self.change_settings(s);
                    Status::Ok
                }
                Err(e) => self.error(&format!("{function}: {e}")),
            },
        }
    }

    /// The current choice of the string parameter `vr`: (parameter index, choice index).
    pub fn string_choice(&self, function: &str, vr: u32) -> Result<(usize, usize), Status> {
        let role = self.variable(function, vr, VarType::String)?;
        let name = self.name(vr);
        let Role::Parameter(i) = role else {
            return Err(self.error(&format!("{function}: {name} is not a string parameter")));
        };
        match self.model.parameters[i].choice(self.params[i]) {
            Some(_) => Ok((i, self.params[i] as usize)),
            None => Err(self.error(&format!("{function}: {name} has no valid value (internal error)"))),
        }
    }

    /// Set string parameters by their texts (compared with the choices).
    pub fn set_strings(&mut self, function: &str, vrs: &[u32], values: &[Option<String>]) -> Status {
        for (vr, text) in vrs.iter().zip(values) {
            let role = match self.variable(function, *vr, VarType::String) {
                Ok(r) => r,
                Err(s) => return s,
            };
            let name = self.name(*vr).to_string();
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
                // The text as given, but not a huge one: the log is no copy of the caller's data
                // (a probe's 10 MB string was logged in full).
                const SHOWN: usize = 80;
                let shown: String = text.chars().take(SHOWN).collect();
                let more = if text.chars().nth(SHOWN).is_some() {
                    format!("... ({} bytes)", text.len())
                } else {
                    String::new()
                };
                return self
                    .error(&format!("{function}: {name} = \"{shown}{more}\" is not one of: {}", p.choices.join(", ")));
            };
            if self.params[i] != index {
                self.params[i] = index;
                let status = self.parameters_changed(function);
                if status != Status::Ok {
                    return status;
                }
            }
        }
        Status::Ok
    }

    /// Advance from communication point `tc` by `h`. A failed step leaves the simulation at
    /// its last successful internal step and returns Discard. A step that reaches a state
    /// whose outputs are not finite (an energy that overflows at a finite state) is a failed
    /// step too: the simulation goes back to `tc`, whose outputs stay readable.
    pub fn do_step(&mut self, function: &str, tc: f64, h: f64) -> Status {
        self.step(function, tc, h, false, &mut false)
    }

    /// `do_step`, but ending early at the first event (contact onset or release, impact)
    /// located inside the step (`Simulation::step_to_event`; FMI 3.0's early return, when the
    /// importer allows it). Returns the status and whether the step ended early; the time
    /// reached is then `last_successful_time`, and the next step starts there.
    pub fn do_step_to_event(&mut self, function: &str, tc: f64, h: f64) -> (Status, bool) {
        let mut early = false;
        let status = self.step(function, tc, h, true, &mut early);
        (status, early)
    }

    fn step(&mut self, function: &str, tc: f64, h: f64, stop_at_events: bool, early: &mut bool) -> Status {
        let Some(sim) = self.sim.as_ref() else {
            return self.error(&format!("{function}: no simulation (internal error)"));
        };
        let t = sim.time();
        if !tc.is_finite() || !h.is_finite() {
            return self.error(&format!(
                "{function}: currentCommunicationPoint {tc} and communicationStepSize {h} must be finite"
            ));
        }
        // As the Modelica Reference-FMUs: a communication step is positive (a master's zero step
        // returned fmi2OK without moving, a probe).
        if h <= 0.0 {
            return self.error(&format!("{function}: communicationStepSize {} must be > 0", Compact(h)));
        }
        if tc + h == tc {
            return self.error(&format!(
                "{function}: communicationStepSize {} is below the time resolution at t = {} (t + h == t in double \
                 precision)",
                Compact(h),
                Compact(tc)
            ));
        }
        if (tc - t).abs() > TIME_TOLERANCE * t.abs().max(tc.abs()).max(1.0) {
            return self.error(&format!(
                "{function}: currentCommunicationPoint {} does not match the FMU time {}",
                Compact(tc),
                Compact(t)
            ));
        }
        let target = tc + h;
        if let Some(stop) = self.stop_time {
            if target > stop + TIME_TOLERANCE * stop.abs().max(1.0) {
                return self.error(&format!(
                    "{function}: the step to {} goes past stopTime {}",
                    Compact(target),
                    Compact(stop)
                ));
            }
        }
        let clock = std::time::Instant::now();
        let status = self.advance(function, tc, target, stop_at_events, early);
        self.step_times.record(clock.elapsed().as_secs_f64(), tc);
        status
    }

    /// `step` from `tc` to `target`, after its checks of the arguments.
    fn advance(&mut self, function: &str, tc: f64, target: f64, stop_at_events: bool, early: &mut bool) -> Status {
        let settings = self.settings;
        let Some(sim) = self.sim.as_mut() else { return Status::Error };
        if *sim.settings() != settings {
            if let Err(e) = sim.set_settings(settings) {
                self.settings = *sim.settings();
                return self.error(&format!("{function}: solver settings refused: {e}; kept the previous ones"));
            }
        }
        // A step that logs a warning returns fmi2Warning/fmi3Warning (FMI 2.0.5 sec. 2.1.3: a
        // master that does not log is told; a probe's master got fmi2OK with a warning logged).
        let mut warned = false;
        // A drive's input changed without its derivatives: the drive ramps to it over the step
        // (docs/model-file.md, driven joints). Told once per instance.
        if let Some(i) = self.drive_input_changed.take() {
            let given = self.derivatives_given[i] || self.input_derivatives[i] != [0.0; 2];
            if !given && !self.held_drive_warned && sim.input_moved(i) {
                self.held_drive_warned = true;
                let remedy = if function.starts_with("fmi3") {
                    "FMI 3.0 Co-Simulation takes no input derivatives: shorter communication steps make those \
                     steps smaller"
                } else {
                    "give the derivatives with fmi2SetRealInputDerivatives for a smooth motion"
                };
                let message = format!(
                    "{function}: input '{}' moves a driven joint and was changed without its derivatives: the \
                     joint moves at constant speed over each communication step to the value held over it, so \
                     its speed and the drive force change in steps at communication points; {remedy} (told once)",
                    sim.input_names()[i]
                );
                self.log(Status::Warning, Category::StatusWarning, &message);
                warned = true;
            }
        }
        let Some(sim) = self.sim.as_mut() else { return Status::Error };
        // Each step starts from the inputs as the master set them: one interpolated over the
        // last step from its derivatives ended that step at u + u' h (+ u'' h^2 / 2), where the
        // simulation leaves it for the outputs at the reached time, and returns to u now (a
        // driving one at constant speed over this step), as docs/fmu.md says. Only re-setting
        // the unchanged value did that before (probe 40a: a servo stayed at the extrapolated
        // command while the input read 0).
        for (i, &u) in self.inputs.iter().enumerate() {
            if sim.inputs()[i] != u {
                // Finite (checked when set).
                let _ = sim.set_input(i, u);
            }
        }
        let before = self.rollback.get_or_insert_with(|| sim.copy_state());
        sim.copy_state_into(before);
        for (i, d) in self.input_derivatives.iter_mut().enumerate() {
            // Used by this step only (cleared in place: a doStep allocates nothing).
            let d = std::mem::take(d);
            for (k, x) in d.iter().enumerate().filter(|(_, x)| **x != 0.0) {
                // Checked when set (finite, order 1 or 2, an input).
                let _ = sim.set_input_derivative(i, k + 1, *x);
            }
        }
        self.derivatives_given.fill(false);
        let stepped = if stop_at_events {
            sim.step_to_event(target).map(|end| *early = end == StepEnd::Event)
        } else {
            sim.step_to(target)
        };
        // Outputs are computed when read (`value`), not here: a master that reads none, or
        // only some communication points, does not pay for the index-1 solve of the
        // accelerations and reactions.
        let stepped = stepped.map_err(|e| e.to_string());
        if stepped.is_err() && sim.output_values().is_err() {
            // The last good internal step's outputs cannot be computed: back to the start of
            // the step. The snapshot is this simulation's own, so it fits.
            let _ = sim.restore(before);
        }
        match stepped {
            Ok(()) => {
                self.last_successful_time = sim.time();
                // An element left its formulation's range (a corotational beam element turned
                // too far against its chord): the results are no longer the model's. Told once.
                let outside = (!self.formulation_warned).then(|| sim.outside_formulation()).flatten();
                // The run's warnings (`Simulation::RUN_WARNINGS`): an impact a force contact's
                // law could not stop within the radii, one the internal step could not resolve,
                // a step crowded with contact events, a body turning too far per step. Each
                // told once.
                let told = self.run_warned;
                let run: [Option<String>; Simulation::RUN_WARNINGS.len()] =
                    std::array::from_fn(|k| (!told[k]).then(|| Simulation::RUN_WARNINGS[k](sim)).flatten());
                if let Some(why) = outside {
                    self.formulation_warned = true;
                    let message = format!("{function}: the model left its elements' range {why} (told once)");
                    self.log(Status::Warning, Category::StatusWarning, &message);
                    warned = true;
                }
                for (k, why) in run.into_iter().enumerate() {
                    if let Some(why) = why {
                        self.run_warned[k] = true;
                        self.log(Status::Warning, Category::StatusWarning, &format!("{function}: {why} (told once)"));
                        warned = true;
                    }
                }
                if *early {
                    let t = self.last_successful_time;
                    self.log(
                        Status::Ok,
                        Category::Events,
                        &format!("{function}: returned early at an event at t = {}", Compact(t)),
                    );
                }
                if warned { Status::Warning } else { Status::Ok }
            }
            Err(e) => {
                *early = false;
                let t = sim.time();
                self.last_successful_time = t;
                self.state = State::StepFailed;
                let (tc, target, t) = (Compact(tc), Compact(target), Compact(t));
                let msg = format!("{function}: step from {tc} to {target} failed at t = {t}: {e}");
                // Once: under logStatusDiscard, or under logSolver for a master that enabled
                // only that category (a probe got it twice with both).
                let category =
                    if self.enabled.logs(Category::StatusDiscard) { Category::StatusDiscard } else { Category::Solver };
                self.log(Status::Discard, category, &msg);
                Status::Discard
            }
        }
    }

    /// The `orders[k]`-th time derivative of output `vrs[k]` at the current communication
    /// point (fmi2GetRealOutputDerivatives), handed to `out` with its position.
    pub fn output_derivatives(
        &mut self,
        function: &str,
        vrs: &[u32],
        orders: &[i32],
        out: &mut dyn FnMut(usize, f64),
    ) -> Status {
        for (k, (vr, order)) in vrs.iter().zip(orders).enumerate() {
            let role = match self.variable(function, *vr, VarType::Real) {
                Ok(r) => r,
                Err(s) => return s,
            };
            let Role::Output(i) = role else {
                return self.error(&format!("{function}: {} is not an output", self.name(*vr)));
            };
            let Ok(order) = usize::try_from(*order) else {
                return self.error(&format!("{function}: order {order} of {} must be 1 or 2", self.name(*vr)));
            };
            let value = match self.ensure_simulation() {
                Ok(sim) => sim.output_derivative(i, order),
                Err(e) => Err(e),
            };
            match value {
                Ok(x) => out(k, x),
                Err(e) => return self.error(&format!("{function}: {e}")),
            }
        }
        Status::Ok
    }

    /// Derivatives of inputs `vrs` for the next step (fmi2SetRealInputDerivatives): inside it
    /// an input is u + u' (t - tc) + u'' (t - tc)^2 / 2 at each internal step.
    pub fn set_input_derivatives(&mut self, function: &str, vrs: &[u32], orders: &[i32], values: &[f64]) -> Status {
        // Checked in full before any is kept (no copy: a call allocates nothing).
        for ((vr, order), x) in vrs.iter().zip(orders).zip(values) {
            let role = match self.variable(function, *vr, VarType::Real) {
                Ok(r) => r,
                Err(s) => return s,
            };
            let Role::Input(_) = role else {
                return self.error(&format!("{function}: {} is not an input", self.name(*vr)));
            };
            if !(1..=2).contains(order) {
                return self.error(&format!("{function}: order {order} of {} must be 1 or 2", self.name(*vr)));
            }
            if !x.is_finite() {
                return self.error(&format!(
                    "{function}: derivative of order {order} of {} must be finite, got {x}",
                    self.name(*vr)
                ));
            }
        }
        for ((vr, order), x) in vrs.iter().zip(orders).zip(values) {
            if let Some(Role::Input(i)) = self.vars.get(*vr).map(|v| v.role) {
                self.input_derivatives[i][*order as usize - 1] = *x;
                self.derivatives_given[i] = true;
            }
        }
        // Before the first step they are the initial state's, as the values are: outputs read
        // in initialization mode show the motion they start (a probe read a driven joint's
        // rate 0 there and 2 rad/s after fmi2ExitInitializationMode).
        if matches!(self.state, State::Instantiated | State::InitializationMode) {
            if let Some(sim) = &mut self.sim {
                if let Err(e) = sim.set_initial_inputs(&self.inputs, &self.input_derivatives) {
                    return self.error(&format!("{function}: {e}"));
                }
            }
        }
        Status::Ok
    }

    /// dv_unknown = (d unknowns / d knowns) dv_known at the current point
    /// (fmi2GetDirectionalDerivative): unknowns are outputs, knowns inputs; in Initialization
    /// Mode those of the initial state, which driving inputs move, and the knowns may also be
    /// the Real parameters (the knowns `<InitialUnknowns>` lists, FMI 2.0.4 sec. 2.1.9;
    /// `Simulation::initial_parameter_derivative`).
    pub fn directional_derivative(
        &mut self,
        function: &str,
        unknowns: &[u32],
        knowns: &[u32],
        dv_known: &[f64],
        out: &mut dyn FnMut(usize, f64),
    ) -> Status {
        let mut outputs = Vec::with_capacity(unknowns.len());
        for vr in unknowns {
            match self.variable(function, *vr, VarType::Real) {
                Ok(Role::Output(i)) => outputs.push(i),
                Ok(_) => return self.error(&format!("{function}: unknown {} is not an output", self.name(*vr))),
                Err(s) => return s,
            }
        }
        let initial = matches!(self.state, State::InitializationMode);
        let (mut inputs, mut params) = (Vec::with_capacity(knowns.len()), Vec::new());
        for (vr, dv) in knowns.iter().zip(dv_known) {
            match self.variable(function, *vr, VarType::Real) {
                Ok(Role::Input(i)) => inputs.push((i, *dv)),
                Ok(Role::Parameter(i)) if initial => params.push((i, *dv)),
                Ok(role) => {
                    let what = match role {
                        Role::Output(_) => "an output",
                        Role::Solver(_) => "a solver setting",
                        _ => "a parameter, a known in Initialization Mode only",
                    };
                    return self.error(&format!(
                        "{function}: known {} is {what}: the knowns are the inputs{}",
                        self.name(*vr),
                        if initial { " and the model's parameters" } else { "" }
                    ));
                }
                Err(s) => return s,
            }
            if !dv.is_finite() {
                return self.error(&format!("{function}: seed of {} must be finite, got {dv}", self.name(*vr)));
            }
        }
        let jacobian = match self.ensure_simulation() {
            Ok(sim) if initial => sim.initial_input_jacobian(),
            Ok(sim) => sim.input_jacobian(),
            Err(e) => Err(e),
        };
        let jacobian = match jacobian {
            Ok(j) => j,
            Err(e) => return self.error(&format!("{function}: {e}")),
        };
        let mut columns = Vec::with_capacity(params.len());
        for &(i, dv) in &params {
            let column = Simulation::initial_parameter_derivative(
                &self.model,
                &self.params,
                self.settings,
                self.start_time,
                (&self.inputs, &self.input_derivatives),
                i,
            );
            match column {
                Ok(c) => columns.push((c, dv)),
                Err(e) => return self.error(&format!("{function}: derivative with respect to a parameter: {e}")),
            }
        }
        for (k, o) in outputs.iter().enumerate() {
            let by_inputs: f64 = inputs.iter().map(|(i, dv)| jacobian[*o][*i] * dv).sum();
            out(k, by_inputs + columns.iter().map(|(c, dv)| c[*o] * dv).sum::<f64>());
        }
        Status::Ok
    }

    pub fn last_successful_time(&self) -> f64 {
        self.last_successful_time
    }

    /// The instance's FMU state as a blob.
    pub fn fmu_state(&self) -> Vec<u8> {
        blob::encode(&FmuState {
            guid: self.guid.clone(),
            lifecycle: self.state,
            params: self.params.clone(),
            inputs: self.inputs.clone(),
            input_derivatives: self.input_derivatives.clone(),
            settings: self.settings,
            start_time: self.start_time,
            stop_time: self.stop_time,
            last_successful_time: self.last_successful_time,
            simulation: self.sim.as_ref().map(Simulation::snapshot),
        })
    }

    /// Read and check a blob of `fmu_state` (everything but the fit of the snapshot to the
    /// simulation, which `set_fmu_state` checks).
    pub fn check_fmu_state(&self, bytes: &[u8]) -> Result<FmuState, String> {
        let state: FmuState = blob::decode(bytes)?;
        state.validate(&self.guid, &self.model)?;
        // The sizes of the snapshot, if this instance's simulation has its parameters.
        if let (Some(sim), Some(snap)) = (&self.sim, &state.simulation) {
            if self.params == state.params {
                snap.validate(sim.dimensions())?;
            }
        }
        Ok(state)
    }

    /// Restore a blob of `fmu_state`; a blob that does not fit is refused and nothing changes.
    pub fn set_fmu_state(&mut self, function: &str, bytes: &[u8]) -> Status {
        let d = match self.check_fmu_state(bytes) {
            Ok(d) => d,
            Err(e) => return self.error(&format!("{function}: {e}")),
        };
        let sim = match &d.simulation {
            None => None,
            Some(snap) => {
                let reuse = self.params == d.params && self.start_time == d.start_time;
                let mut sim = match self.sim.take().filter(|_| reuse) {
                    Some(sim) => sim,
                    None => match Simulation::new(&self.model, &d.params, snap.settings(), d.start_time) {
                        Ok(s) => s,
                        Err(e) => return self.error(&format!("{function}: {e}")),
                    },
                };
                if let Err(e) = sim.restore(snap) {
                    // A reused simulation is unchanged by the refused restore.
                    if reuse {
                        self.sim = Some(sim);
                    }
                    return self.error(&format!("{function}: {e}"));
                }
                Some(sim)
            }
        };
        self.sim = sim;
        self.state = d.lifecycle;
        self.start_time = d.start_time;
        self.stop_time = d.stop_time;
        self.last_successful_time = d.last_successful_time;
        self.settings = d.settings;
        self.params = d.params;
        self.inputs = d.inputs;
        // The derivatives set for the next doStep at the state's time (FMI 2.0.4 sec. 2.1.8:
        // the state is everything the FMU continues from).
        self.input_derivatives = d.input_derivatives;
        Status::Ok
    }
}
