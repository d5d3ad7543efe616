//! The facade the CLI and the FMI layer use: time, state, inputs, outputs, `step_to`,
//! snapshots. Nothing outside this module touches the system or the integrators directly.

pub mod blob;
pub mod call_times;
mod dependencies;
mod derivatives;
pub mod energy_balance;
mod mode_shapes;
mod motion_derivatives;
mod scene;
mod snapshot;
mod tuning;
mod turn_watch;

pub use mode_shapes::OutputModeShape;
pub use scene::{BeamFrame, GroundPlane, Scene, SceneBeam, SceneBody, SceneContact, SceneFrame};
pub use snapshot::{Dimensions, Snapshot};

// The vocabulary of the facade's users (the CLI, the FMU core): models, outputs and the
// solver choices the settings name.
pub use crate::integrators::{ConstraintTreatment, Method};
pub use crate::mechanics::outputs::Output;
pub use crate::model::{Model, ParameterKind};

use crate::compact_number::Compact;
use crate::integrators::error_control::{MAX_STEP_RATIO, MIN_STEP_RATIO};
use crate::integrators::{
    BaumgarteConstants, Dynamics, EVENT_TOLERANCE, ErrorControl, Integrator, NewtonError, NewtonSettings,
    NewtonStrategy, State, Statistics, Stepper, Stride,
};
use crate::limits::{MAX_NEWTON_ITERATIONS, MAX_STEPS_PER_INTERVAL};
use crate::mechanics::assemble::assemble_at;
use crate::mechanics::outputs::OutputState;
use crate::mechanics::{History, System};
use crate::model::ModelError;
use crate::model::expr::InputRates;
use crate::step_error::StepBudget;
pub use crate::step_error::StepError;
use energy_balance::{BalanceWatch, EnergySample};

/// Solver settings: from the model's `[solver]` section, overridable from the CLI and as
/// tunable FMU parameters.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SolverSettings {
    pub method: Method,
    pub rho_inf: f64,
    /// Internal (nominal) step; every interval is divided into equal steps no larger than
    /// this, or, with error control, the first step.
    pub step: f64,
    pub tolerance: f64,
    pub max_iterations: usize,
    pub strategy: NewtonStrategy,
    pub constraints: ConstraintTreatment,
    /// Used when `constraints` is Baumgarte.
    pub baumgarte: BaumgarteConstants,
    /// Error-controlled internal steps (off by default).
    pub error_control: ErrorControl,
}

impl Default for SolverSettings {
    fn default() -> Self {
        SolverSettings {
            method: Method::Ttbif,
            rho_inf: 0.5,
            step: 1e-3,
            tolerance: 1e-10,
            max_iterations: 25,
            strategy: NewtonStrategy::Modified,
            constraints: ConstraintTreatment::Index3,
            baumgarte: BaumgarteConstants::default(),
            error_control: ErrorControl::default(),
        }
    }
}

impl SolverSettings {
    /// The model's settings at `params`: those its `[solver]` section declares, and where it
    /// gives no `step`, one that resolves its most flexible beam (`resolved_period`).
    pub fn from_model(model: &Model, params: &[f64]) -> Result<Self, ModelError> {
        let mut out = Self::declared(model, params)?;
        if model.definition.solver.step.is_none() {
            if let Some(period) = resolved_period(model, params) {
                out.step = out.step.min(period / STEPS_PER_BENDING_PERIOD);
            }
        }
        Ok(out)
    }

    /// The settings the `[solver]` section declares at `params`, the defaults for what it
    /// leaves out (the default step 1e-3 as it is: no assembly).
    pub fn declared(model: &Model, params: &[f64]) -> Result<Self, ModelError> {
        let s = &model.definition.solver;
        let scope = model.scope(params);
        let mut out = SolverSettings::default();
        if let Some(m) = &s.integrator {
            out.method = m.get_ref().parse().map_err(|e| model.error(m.span(), e))?;
        }
        if let Some(r) = &s.rho_inf {
            out.rho_inf = scope.number(r)?;
            Integrator::new(out.method, out.rho_inf).map_err(|e| model.error(r.span(), e))?;
        } else {
            out.rho_inf = out.method.default_rho_inf(out.rho_inf);
        }
        if let Some(h) = &s.step {
            out.step = scope.positive(h, "step")?;
        }
        if let Some(t) = &s.tolerance {
            let v = scope.number(t)?;
            // The whole range `validate_values` accepts, so that a run never finds it unlocated.
            if !(v > 0.0 && v < 1.0) {
                return Err(model.error(t.span(), format!("tolerance must be in (0, 1), got {}", Compact(v))));
            }
            out.tolerance = v;
        }
        if let Some(k) = &s.newton {
            out.strategy = k.get_ref().parse().map_err(|e| model.error(k.span(), e))?;
        }
        out.constraints = match &s.constraints {
            Some(c) => c.get_ref().parse().map_err(|e| model.error(c.span(), e))?,
            None => ConstraintTreatment::default_for(out.rho_inf),
        };
        for (decl, slot, name) in [
            (&s.baumgarte_alpha, &mut out.baumgarte.alpha, "baumgarte_alpha"),
            (&s.baumgarte_beta, &mut out.baumgarte.beta, "baumgarte_beta"),
        ] {
            if let Some(x) = decl {
                let v = scope.number(x)?;
                if v < 0.0 {
                    return Err(model.error(x.span(), format!("{name} must be >= 0, got {}", Compact(v))));
                }
                if out.constraints != ConstraintTreatment::Baumgarte {
                    return Err(model.error(x.span(), format!("{name} applies only with constraints = \"baumgarte\"")));
                }
                *slot = v;
            }
        }
        if let Some(on) = &s.error_control {
            out.error_control.enabled = *on.get_ref();
        }
        for (decl, slot, name) in
            [(&s.rtol, &mut out.error_control.rtol, "rtol"), (&s.atol, &mut out.error_control.atol, "atol")]
        {
            if let Some(x) = decl {
                let v = scope.number(x)?;
                if !(0.0..1.0).contains(&v) {
                    return Err(model.error(x.span(), format!("{name} must be in [0, 1), got {}", Compact(v))));
                }
                *slot = v;
            }
        }
        if let (Some(x), ErrorControl { rtol: 0.0, atol: 0.0, .. }) = (&s.rtol, out.error_control) {
            return Err(model.error(x.span(), "rtol and atol cannot both be 0".into()));
        }
        if let Some(k) = &s.max_iterations {
            let n = k.get_ref().0;
            if !(1..=MAX_NEWTON_ITERATIONS as i64).contains(&n) {
                return Err(model.error(k.span(), max_iterations_range(n)));
            }
            out.max_iterations = n as usize;
        }
        Ok(out)
    }

    /// The rho_inf of these settings if `model` states one, else the default (0.5): what
    /// another method than the model's starts from (a model's Newmark has its own 1).
    pub fn stated_rho_inf(&self, model: &Model) -> f64 {
        if model.definition.solver.rho_inf.is_some() { self.rho_inf } else { SolverSettings::default().rho_inf }
    }

    /// Check the combination (rho_inf range of the method, positive step and tolerance).
    /// The constraint treatment of a run of `model` with these settings at `rho_inf`: the
    /// model file's (already in `self`), else the default for rho_inf
    /// (`ConstraintTreatment::default_for`).
    pub fn constraints_at(&self, model: &Model, rho_inf: f64) -> ConstraintTreatment {
        match model.definition.solver.constraints {
            Some(_) => self.constraints,
            None => ConstraintTreatment::default_for(rho_inf),
        }
    }

    pub fn validate(&self) -> Result<Integrator, String> {
        self.validate_values()?;
        self.error_control.validate()?;
        Integrator::new(self.method, self.rho_inf)
    }

    /// Check each value on its own, whatever the others: what a tunable FMU parameter is
    /// checked against when it is set (the combinations are checked when they are applied,
    /// since an importer sets one value at a time). Whether the step suits an interval is
    /// decided by `Simulation::step_to` (`MAX_STEPS_PER_INTERVAL`).
    pub fn validate_values(&self) -> Result<(), String> {
        if !(self.step > 0.0 && self.step.is_finite()) {
            return Err(format!("step must be positive and finite, got {}", Compact(self.step)));
        }
        if !(self.tolerance > 0.0 && self.tolerance < 1.0) {
            return Err(format!("tolerance must be in (0, 1), got {}", Compact(self.tolerance)));
        }
        if !(0.0..=1.0).contains(&self.rho_inf) {
            return Err(format!("rho_inf must be in [0, 1], got {}", Compact(self.rho_inf)));
        }
        if !(1..=MAX_NEWTON_ITERATIONS).contains(&self.max_iterations) {
            return Err(max_iterations_range(self.max_iterations));
        }
        for (name, x) in [("rtol", self.error_control.rtol), ("atol", self.error_control.atol)] {
            if !(0.0..1.0).contains(&x) {
                return Err(format!("{name} must be in [0, 1), got {}", Compact(x)));
            }
        }
        self.baumgarte.validate()
    }

    fn newton(&self) -> NewtonSettings {
        NewtonSettings {
            tolerance: self.tolerance,
            max_iterations: self.max_iterations,
            strategy: self.strategy,
            constraints: self.constraints,
            baumgarte: self.baumgarte,
        }
    }
}

/// The refusal of a `max_iterations` outside 1..=MAX_NEWTON_ITERATIONS.
fn max_iterations_range(n: impl std::fmt::Display) -> String {
    format!(
        "max_iterations must be from 1 to {MAX_NEWTON_ITERATIONS}, got {n} (every attempt of a step that does not \
         converge takes them all; try a smaller step or error_control = true instead)"
    )
}

/// Start, stop and output interval from the model's `[solver]` section.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Experiment {
    pub start_time: f64,
    pub stop_time: f64,
    pub output_interval: Option<f64>,
}

impl Experiment {
    pub fn from_model(model: &Model, params: &[f64]) -> Result<Self, ModelError> {
        let s = &model.definition.solver;
        let scope = model.scope(params);
        let start_time = s.start_time.as_ref().map(|t| scope.number(t)).transpose()?.unwrap_or(0.0);
        let stop_time = s.stop_time.as_ref().map(|t| scope.number(t)).transpose()?.unwrap_or(start_time + 1.0);
        if stop_time <= start_time {
            let span = s.stop_time.as_ref().map_or(0..0, |t| t.span());
            return Err(model.error(
                span,
                format!("stop_time {} must be after start_time {}", Compact(stop_time), Compact(start_time)),
            ));
        }
        let output_interval = s.output_interval.as_ref().map(|h| scope.positive(h, "output_interval")).transpose()?;
        Ok(Experiment { start_time, stop_time, output_interval })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SimulationError {
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error("initial accelerations: {0}")]
    Initialization(String),
    #[error("{0}")]
    Settings(String),
}

/// The unit of a joint coordinate output (its kind alone cannot tell a slider's displacement
/// from a relative angle): m and m/s for a slide or a link's length, rad and rad/s for an angle.
fn joint_coordinate_unit(kind: &crate::mechanics::outputs::OutputKind, system: &System) -> Option<&'static str> {
    let crate::mechanics::outputs::OutputKind::JointCoordinate { joint, coordinate, order } = kind else {
        return None;
    };
    let linear = system.joints.get(*joint)?.coordinate_kind(*coordinate)?.linear();
    Some(if linear { ["m", "m/s"] } else { ["rad", "rad/s"] }[(*order).min(1)])
}

/// How `Simulation::step_to_event` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepEnd {
    /// At the requested time.
    Reached,
    /// Before it, at a located event, at `Simulation::time`.
    Event,
}

/// Spans are taken by extrapolation (`Simulation::extrapolate`) while together they are no
/// longer than this fraction of the internal step and of the last interval taken by steps
/// (`Simulation::extrapolation_room`).
const EXTRAPOLATED_SPAN: f64 = 1e-2;

/// The round-off of the span from t0 to t1 (s): a difference of times carries a few ulps of
/// their size (a master's (k + 1) h - k h).
fn span_round_off(t0: f64, t1: f64) -> f64 {
    8.0 * f64::EPSILON * t0.abs().max(t1.abs())
}

/// The positions and velocities extrapolated over a short span, and the event functions at
/// its start and end (allocated once).
struct Extrapolation {
    q: Vec<f64>,
    v: Vec<f64>,
    a: Vec<f64>,
    before: Vec<f64>,
    after: Vec<f64>,
}

impl Extrapolation {
    fn new(n: usize, events: usize) -> Self {
        let zeros = |k| vec![0.0; k];
        Extrapolation { q: zeros(n), v: zeros(n), a: zeros(n), before: zeros(events), after: zeros(events) }
    }
}

/// A running simulation of one model.
pub struct Simulation {
    system: System,
    outputs: Vec<Output>,
    input_names: Vec<String>,
    state: State,
    settings: SolverSettings,
    stepper: Stepper,
    /// Outputs at the current state if `outputs_current` (computed since the last change;
    /// the vector is reused, so reading outputs allocates nothing after the first time).
    output_values: Vec<f64>,
    outputs_current: bool,
    /// Why the accelerations of the current outputs could not be solved (`compute_outputs`).
    accelerations_failure: Option<String>,
    /// Asked after each internal step whether to stop the interval (`set_interrupt`).
    interrupt: Option<fn() -> bool>,
    /// The outputs' derivatives along the motion at the current state, if computed
    /// (src/simulation/motion_derivatives.rs; cleared with `outputs_current`).
    motion: motion_derivatives::MotionDerivatives,
    needs_accelerations: bool,
    scratch_a: Vec<f64>,
    scratch_lambda: Vec<f64>,
    scratch_v: Vec<f64>,
    /// Storage kept between intervals, so that `step_to` allocates nothing after the first:
    /// the inputs at an interval's start (interpolated inputs), the drives `ramp_held_drives`
    /// ramps, and the state a failed interval returns to (`step_to`).
    interval_inputs: Vec<f64>,
    ramped: Vec<(usize, f64, f64, f64)>,
    interval_start: Option<Box<Snapshot>>,
    /// Scratch of `extrapolate`.
    extrapolation: Extrapolation,
    /// How much more time the next spans may be extrapolated over: EXTRAPOLATED_SPAN times
    /// the internal step or the last interval taken by steps, whichever is shorter, less the
    /// spans extrapolated since. Extrapolation is explicit: repeated over every interval (an
    /// output interval of 1e-2 of the step) it drifted off the constraints and grew a
    /// pendulum's velocity tenfold every 40 spans, and a steel cantilever's stiff modes to
    /// 1e30 (a probe written from the docs). Masters' short spans come after intervals of
    /// their own communication step.
    extrapolation_room: f64,
    /// The next internal step when error control is on.
    next_step: f64,
    /// The system's history before the current internal step (restored if it fails).
    accepted: History,
    /// Per input, its first and second time derivative over the next `step_to` (FMI's
    /// fmi2SetRealInputDerivatives); cleared by every `step_to`.
    input_derivatives: Vec<[f64; 2]>,
    /// The next `step_to` restarts from accelerations and multipliers consistent with the
    /// state and inputs (`restart_if_inputs_changed`): an input interpolated inside the last
    /// interval changed, or the state was set (statics, a snapshot).
    restart_pending: bool,
    /// An input was set since the last `step_to`; it restarts the method only if the inputs
    /// then differ from `stepped_inputs` (a value set and set back changes nothing).
    inputs_set: bool,
    /// The inputs the accelerations in `state` are consistent with.
    stepped_inputs: Vec<f64>,
    /// The inputs where the last interval ended (interpolated from their derivatives, or held):
    /// where a driving input set without derivatives ramps from (`ramp_held_drives`).
    drive_ends: Vec<f64>,
    /// The assembled initial state and its inputs, which `set_initial_inputs` starts from.
    start: (State, Vec<f64>),
    /// The inputs' first and second time derivatives at the start the initial state was made
    /// with (`set_initial_inputs`; empty: none).
    initial_rates: Vec<[f64; 2]>,
    /// Located warnings of assembly (`Assembly::warnings`), then those of the time step
    /// (`step_warnings`).
    warnings: Vec<ModelError>,
    /// How many of `warnings` are assembly's.
    assembly_warnings: usize,
    /// The most flexible beam's first bending period, which the step warning is about
    /// (`limit_steps_to`).
    resolved: Option<crate::mechanics::assembly::BeamPeriod>,
    /// The energy balance since the start, for the diagnosis of a run that loses it.
    balance: BalanceWatch,
    /// Per input, whether a driven joint's drive reads it (the FMU asks at every set input).
    driving_inputs: Vec<bool>,
    /// `direct_dependencies`, found once (they depend on the model's structure alone; the
    /// directional derivatives ask at every call).
    dependencies: std::sync::OnceLock<Vec<Vec<usize>>>,
    /// Per coordinate, the size of a large motion for the static solver
    /// (`StaticOptions::scales`): the model length for positions, 1 for rotations.
    static_scales: Vec<f64>,
    /// The time and coordinates of the last static equilibrium `settle_static` found, and
    /// whether it is neutral (`statics::Solved::neutral`): from there a later time is a load
    /// increment (plain Newton, halved), from anywhere else the solve is globalized.
    settled: Option<(f64, Vec<f64>, bool)>,
    /// The fixed step that turned a body furthest beyond what a step resolves (a diagnosis).
    turns: turn_watch::TurnWatch,
}

/// Change the inputs by `change` at the state `s`: the potential energy of the elements that
/// read them (a spring's moving free length) jumps, and the jump is energy supplied.
fn change_inputs(system: &mut System, s: &mut State, change: impl FnOnce(&mut [f64], &mut InputRates)) {
    let before = system.input_potential(&s.q, &s.v, s.t);
    change(&mut system.inputs, &mut system.input_rates);
    s.exchanged.supplied += system.input_potential(&s.q, &s.v, s.t) - before;
}

/// A Newton failure in words; one from a force or drive that evaluated to NaN or infinity
/// with the model expression it came from (`System::non_finite_expression`).
fn said_with_source(e: &NewtonError, system: &System) -> String {
    match e {
        NewtonError::NonFinite { t, .. } => match system.non_finite_expression(*t) {
            Some(source) => format!("{e}\nnot finite there: {source}"),
            None => e.to_string(),
        },
        _ => e.to_string(),
    }
}

impl Simulation {
    /// Assemble the model with `params` (one value per declared parameter) and compute the
    /// consistent initial accelerations and multipliers at `start_time`.
    pub fn new(
        model: &Model,
        params: &[f64],
        settings: SolverSettings,
        start_time: f64,
    ) -> Result<Simulation, SimulationError> {
        let integrator = settings.validate().map_err(SimulationError::Settings)?;
        // Driven joints: the initial configuration is projected onto the drives' values at
        // the start time.
        let asm = assemble_at(model, params, start_time)?;
        let resolved = binding_period(&asm.beam_periods, &["bending"]).cloned();
        let mut system = asm.system;
        system.set_nominal_step(settings.step);
        let mut stepper = Stepper::new(&system, integrator, settings.newton());
        stepper.event_span = settings.step;
        let mut state = asm.initial;
        stepper.workspace.set_model_length(crate::integrators::convergence::model_length(&state.q));
        state.t = start_time;
        let (mut a, mut lambda) = (vec![0.0; state.a.len()], vec![0.0; state.lambda.len()]);
        let mut stats = Statistics::default();
        stepper
            .workspace
            .consistent_accelerations(&system, (&state.q, &state.v, start_time), &mut a, &mut lambda, &mut stats)
            .map_err(|e| SimulationError::Initialization(said_with_source(&e, &system)))?;
        state.aux.copy_from_slice(&a);
        state.a = a;
        state.lambda = lambda;
        // Contact constraints touching at the start switch on (src/mechanics/joints/contact_constraint.rs).
        stepper.settle_events(&mut system, &mut state).map_err(|e| SimulationError::Initialization(e.to_string()))?;
        stepper.stats = Statistics::default();
        stepper.warm_up(&system, &state);
        system.record_history(&state.q, &state.v, start_time);
        let mut outputs = asm.outputs;
        for o in &mut outputs {
            if let Some(unit) = joint_coordinate_unit(&o.kind, &system) {
                o.unit = unit.to_string();
            }
        }
        if model.definition.visualization.as_ref().and_then(|v| v.outputs.as_ref()).is_some_and(|on| *on.get_ref()) {
            outputs.extend(Scene::new(model, params, &system)?.visualization_outputs(&state.q));
        }
        let needs_accelerations = outputs.iter().any(|o| o.kind.needs_accelerations());
        let (n, m) = (state.q.len(), state.lambda.len());
        let extrapolation = Extrapolation::new(n, system.event_count());
        let system_inputs = system.inputs.len();
        let driving_inputs = (0..system_inputs)
            .map(|i| system.constraints.iter().any(|c| c.drive.as_ref().is_some_and(|d| d.reads_input(i))))
            .collect();
        let static_scales = static_scales(&system, &state.q);
        let mut sim = Simulation {
            static_scales,
            settled: None,
            turns: Default::default(),
            system,
            outputs,
            input_names: asm.input_names,
            assembly_warnings: asm.warnings.len(),
            warnings: step_warnings(model, resolved.as_ref(), settings.step, asm.warnings),
            resolved,
            balance: BalanceWatch::new(EnergySample::default(), 0, 0.0, 1.0),
            driving_inputs,
            dependencies: std::sync::OnceLock::new(),
            state,
            settings,
            stepper,
            output_values: Vec::new(),
            outputs_current: false,
            accelerations_failure: None,
            interrupt: None,
            motion: Default::default(),
            needs_accelerations,
            scratch_a: vec![0.0; n],
            scratch_lambda: vec![0.0; m],
            scratch_v: vec![0.0; n],
            interval_inputs: Vec::new(),
            ramped: Vec::new(),
            interval_start: None,
            extrapolation,
            extrapolation_room: EXTRAPOLATED_SPAN * settings.step,
            next_step: settings.step,
            accepted: History::default(),
            input_derivatives: vec![[0.0; 2]; system_inputs],
            restart_pending: false,
            inputs_set: false,
            stepped_inputs: Vec::new(),
            drive_ends: Vec::new(),
            start: (State::zeros(0, 0), Vec::new()),
            initial_rates: Vec::new(),
        };
        sim.balance = sim.balance_watch();
        sim.stepped_inputs.clone_from(&sim.system.inputs);
        sim.drive_ends.clone_from(&sim.system.inputs);
        sim.start = (sim.state.clone(), sim.system.inputs.clone());
        Ok(sim)
    }

    /// The energy balance's watch from the current state (the start of a run).
    fn balance_watch(&mut self) -> BalanceWatch {
        self.stepper.workspace.energy.take_peak_kinetic();
        let (q, t) = (&self.state.q, self.state.t);
        let size = 1.0 + q.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        BalanceWatch::new(self.energy_balance(), q.len(), self.system.largest_stiffness(q, t), size)
    }

    /// The change of the energy balance since the start (J; `energy_balance`).
    pub fn energy_balance_change(&self) -> f64 {
        self.balance.change(self.energy_balance().balance())
    }

    /// A warning if the run has lost its energy balance (src/simulation/energy_balance.rs).
    pub fn energy_balance_warning(&self) -> Option<String> {
        self.balance.warning(self.energy_balance(), self.settings.rho_inf, self.settings.error_control.enabled)
    }

    /// Why an element's formulation no longer holds at the current state, if one does not
    /// (`System::outside_formulation`): the results from here on are not the model's.
    pub fn outside_formulation(&self) -> Option<String> {
        let why = self.system.outside_formulation(&self.state.q)?;
        Some(format!("at t = {}, {why}", crate::compact_number::Compact(self.state.t)))
    }

    /// An impact a force contact's law could not follow (`Element::impact_warning`: the bodies
    /// pass through each other), if one happened in this run.
    pub fn contact_overrun(&self) -> Option<String> {
        self.system.impact_warning()
    }

    /// The run's warnings, `contact_overrun`, `unresolved_contact`, `event_storm` and
    /// `fast_turning`: what `simulate` prints at its end and the FMU logs once each (asked only
    /// until told: a warning's text is formatted when asked, and a doStep allocates nothing).
    pub const RUN_WARNINGS: [fn(&Simulation) -> Option<String>; 4] = [
        Simulation::contact_overrun,
        Simulation::unresolved_contact,
        Simulation::event_storm,
        Simulation::fast_turning,
    ];

    /// The fixed internal step that turned a body furthest, if one turned it further than a
    /// step resolves (src/simulation/turn_watch.rs).
    pub fn fast_turning(&self) -> Option<String> {
        self.turns.warning(&self.system)
    }

    /// The first window of the model's step in which `EVENT_STORM` events were located, if one
    /// was: contacts that strike, part and strike again in ever shorter intervals make the run
    /// crawl, each event a located step and a restart (a pile of balls held by constraint
    /// contacts; a ball bouncing to rest with a `min_impact_speed` below the speeds it chatters
    /// at, a probe's 1e-6 m/s).
    pub fn event_storm(&self) -> Option<String> {
        let (t, reached) = self.stepper.event_storm?;
        Some(format!(
            "from t = {t:.4}, {} contact events were located within {:.3e} s (the model's step) by t = {reached:.4}, \
             each ending a step and restarting the solver: contacts that strike, part and strike again in ever \
             shorter intervals make the run crawl. Bodies piled on one another: model their contacts with method = \
             \"force\", which lets them rest; a body bouncing to rest on a method = \"constraint\" contact: a \
             min_impact_speed above the speeds it chatters at (default 1e-3 m/s) ends its bounces in resting contact \
             (docs/model-file.md, contacts)",
            crate::integrators::EVENT_STORM,
            self.settings.step,
        ))
    }

    /// The first impact the fixed internal step could not resolve, if one was not: a contact
    /// asked for sub-steps shorter than the shortest a step may be split into (1/4096 of it,
    /// `MAX_HALVINGS`). A probe's ball on a floor of stiffness 1e19 N/m^1.5 lost 2.1 % of its
    /// energy in its first bounce without a word; bodies fast enough to cross each other
    /// within that sub-step pass through.
    pub fn unresolved_contact(&self) -> Option<String> {
        let (t, limit, floor) = self.stepper.unresolved_contact?;
        let step = floor * f64::from(1u32 << crate::integrators::MAX_HALVINGS);
        Some(format!(
            "in the step from t = {} a contact needed sub-steps of {limit:.3e} s, {:.1} times shorter than the \
             internal step of {step:.3e} s can be split into ({floor:.3e} s): its impact is resolved by fewer \
             sub-steps than it needs (a less accurate rebound; bodies fast enough pass through each other); use a \
             smaller `step` or error_control = true",
            crate::compact_number::Compact(t),
            floor / limit,
        ))
    }

    pub fn time(&self) -> f64 {
        self.state.t
    }

    pub fn state(&self) -> &State {
        &self.state
    }

    pub fn system(&self) -> &System {
        &self.system
    }

    /// The energies at the current state, whose balance energy_total + energy_dissipated −
    /// energy_supplied (J; `EnergySample::balance`) is constant up to the method's error.
    pub fn energy_balance(&self) -> EnergySample {
        let s = &self.state;
        // The energy check of the last step has it, unless the state changed since.
        let (kinetic, potential) = self
            .stepper
            .workspace
            .energy
            .energy_at(s)
            .unwrap_or_else(|| self.system.mechanical_energy(&s.q, &s.v, s.t));
        let flow = s.exchanged;
        EnergySample { kinetic, potential, dissipated: flow.dissipated, supplied: flow.supplied }
    }

    /// What assembly changed of the given model, as located warnings (file:line:column; print
    /// them with `ModelError::warning`).
    pub fn warnings(&self) -> &[ModelError] {
        &self.warnings
    }

    /// The step warning for internal steps no longer than `longest`: a run whose communication
    /// interval (a CSV row interval) is shorter than the step ends its steps on every point, so
    /// they are that short (a probe's slider-crank at 2e-4 s rows was told its 1 ms step took
    /// 7.6 steps per period, of a run that took 38).
    pub fn limit_steps_to(&mut self, model: &Model, longest: f64) {
        let assembly = self.warnings.drain(..self.assembly_warnings).collect();
        let step = self.settings.step.min(longest);
        self.warnings = step_warnings(model, self.resolved.as_ref(), step, assembly);
    }

    /// `warnings` without those of the time step (for analyses that take no steps: `modes`,
    /// `statics`, where "the step does not resolve a vibration" is noise).
    pub fn assembly_warnings(&self) -> &[ModelError] {
        &self.warnings[..self.assembly_warnings]
    }

    /// Whether input `index` moves a driven joint (its drive reads the input).
    pub fn input_drives_a_joint(&self, index: usize) -> bool {
        self.driving_inputs.get(index).copied().unwrap_or(false)
    }

    pub fn input_names(&self) -> &[String] {
        &self.input_names
    }

    pub fn inputs(&self) -> &[f64] {
        &self.system.inputs
    }

    /// Set input `index`; non-finite values are refused.
    pub fn set_input(&mut self, index: usize, value: f64) -> Result<(), String> {
        if !value.is_finite() {
            return Err(format!(
                "input '{}' must be finite, got {value}",
                self.input_names.get(index).map_or("?", |s| s)
            ));
        }
        let old = *self.system.inputs.get(index).ok_or_else(|| format!("no input with index {index}"))?;
        if old != value {
            // The input's rates stay those the last interval ended with until the next step
            // sets its own: the outputs at this communication point (a drive's acceleration
            // and force) describe the motion the state has, as the dependencies declare (a
            // probe read a servo's torque without its inertia term after setting the command).
            change_inputs(&mut self.system, &mut self.state, |inputs, _| inputs[index] = value);
            self.invalidate_outputs();
            self.inputs_set = true;
        }
        Ok(())
    }

    /// Set the inputs before the first step as the model's start values would have been set:
    /// the initial state follows the drives they move as if the model had been drawn there
    /// (what a drive carries moves rigidly with it, then the forces at rest are balanced and the
    /// velocities projected: `Workspace::follow_drives`), the method starts from the
    /// accelerations consistent with them, and no energy counts as supplied (the balance
    /// starts here). What an FMU's values set in initialization mode and `simulate --input`
    /// are; through `set_input` a driving input at t0 other than its start value was the
    /// drive's jump in the first step (a probe: a servo commanded 0.3 rad away swung at 30 rad/s
    /// and "supplied" 150 J). `rates` (empty: none) are the inputs' first and second time
    /// derivatives at the start (an FMU's fmi2SetRealInputDerivatives in initialization mode):
    /// a drive that reads an input moves at its rate from the start, what it carries turning
    /// or sliding rigidly with it (`System::carry_rates_with_drives`), as the positions follow
    /// its value (a probe's input-driven crank started at rest and took the rate as an impulse
    /// in the first step: 1.17 J "supplied" for 0.004 J).
    pub fn set_initial_inputs(&mut self, values: &[f64], rates: &[[f64; 2]]) -> Result<(), String> {
        if values.len() != self.system.inputs.len() {
            return Err(format!("{} input values for {} inputs", values.len(), self.system.inputs.len()));
        }
        if let Some(i) = values.iter().position(|v| !v.is_finite()) {
            return Err(format!("input '{}' must be finite, got {}", self.input_names[i], values[i]));
        }
        let moving = rates.iter().any(|r| *r != [0.0; 2]);
        if moving && rates.len() != values.len() {
            return Err(format!("{} input rates for {} inputs", rates.len(), values.len()));
        }
        if let Some(i) = rates.iter().position(|r| !(r[0].is_finite() && r[1].is_finite())) {
            return Err(format!(
                "the derivatives of input '{}' must be finite, got {:?}",
                self.input_names[i], rates[i]
            ));
        }
        let rates = if moving { rates } else { &[] };
        if values == self.stepped_inputs.as_slice() && rates == self.initial_rates.as_slice() && !self.pending_restart()
        {
            // The state is the start values' already.
            self.system.inputs.copy_from_slice(values);
            return Ok(());
        }
        // From the assembled state each time: values set and set back give it bit for bit.
        self.state.clone_from(&self.start.0);
        self.system.inputs.copy_from_slice(&self.start.1);
        self.stepped_inputs.clone_from(&self.start.1);
        self.restart_pending = false;
        self.inputs_set = false;
        // The positions follow the drives' values first, at rest, then what the drives carry
        // takes their rates rigidly (`System::carry_rates_with_drives`), projected onto the
        // joints.
        self.system.input_rates = InputRates::default();
        self.initial_rates = rates.to_vec();
        if values != self.start.1.as_slice() || moving {
            self.system.inputs.copy_from_slice(values);
            let s = &mut self.state;
            let cannot = |e: crate::integrators::NewtonError| {
                format!("the initial state cannot follow the drives to the inputs at t = {}: {e}", Compact(s.t))
            };
            let (workspace, stats) = (&mut self.stepper.workspace, &mut self.stepper.stats);
            workspace
                .follow_drives(&mut self.system, (&mut s.q, &mut s.v, s.t), self.settings.tolerance, stats)
                .map_err(cannot)?;
            if moving {
                self.system.input_rates = InputRates { t0: s.t, rates: rates.to_vec() };
                self.system.carry_rates_with_drives(&s.q, &mut s.v, s.t);
                workspace
                    .project_onto_constraints(
                        &mut self.system,
                        (&mut s.q, &mut s.v, s.t),
                        self.settings.tolerance,
                        stats,
                    )
                    .map_err(cannot)?;
            }
            self.restart("the initial inputs").map_err(|e| e.to_string())?;
            self.state.exchanged = Default::default();
        }
        self.stepper.workspace.invalidate();
        self.drive_ends.clone_from(&self.system.inputs);
        self.invalidate_outputs();
        self.balance = self.balance_watch();
        Ok(())
    }

    /// Whether input `index` differs from the value the last step used (set and set back
    /// since, it does not).
    pub fn input_moved(&self, index: usize) -> bool {
        self.system.inputs.get(index) != self.stepped_inputs.get(index)
    }

    /// If an input changed since the accelerations were consistent (`restart_pending`),
    /// restart the method from accelerations and multipliers consistent with the current
    /// inputs, as at the start and after an event or a parameter change. An input set at a
    /// communication point is held over the interval (zero-order hold): the forces jump
    /// there, and a step that starts from the accelerations of the old inputs (a method's
    /// state, e.g. the trapezoidal rule's a_n) makes an O(h) error at every such jump. With
    /// an input changed at every communication point the methods were then first-order
    /// accurate (a mass-spring under a held sin 3t, tests/suite/held_inputs.rs). Inputs
    /// interpolated from their derivatives are held over each internal step the same way, so
    /// each internal step that changes them restarts too. The auxiliary acceleration of
    /// generalized-alpha and HHT is shifted by the jump of a (a restart with aux = a costs
    /// those methods their second order when every step restarts).
    fn restart_if_inputs_changed(&mut self) -> Result<(), StepError> {
        self.restart_pending = self.pending_restart();
        self.inputs_set = false;
        if !self.restart_pending {
            return Ok(());
        }
        self.restart("the changed inputs")?;
        self.restart_pending = false;
        Ok(())
    }

    /// A driving input set to another value without its derivatives (an FMU input held
    /// between communication points, as every FMI 3.0 input and FMI 2.0 inputs without
    /// fmi2SetRealInputDerivatives are) is followed at constant speed over the interval from
    /// the value the last interval ended on: its rate is (new - old) / span, and at the end of
    /// the interval the joint is where the held value puts it, as a jump at the start would
    /// have left it. A jump of a drive's position is an impulse the implicit step takes within
    /// its first stage, a velocity of jump/h that step halving made worse (a 50 um jump of a
    /// driven slider "gained 3.9e5 J" at h = 2.4e-7 s and the FMU discarded the step; a
    /// projection onto the jumped drive instead hit a flexible arm's beam with an impulse at
    /// every communication point: drive torques of 4e4 N m for a 13 N m motion). Returns the
    /// inputs so ramped with the values they were set to, their rates and the times they reach
    /// them.
    ///
    /// An interval shorter than the internal step does not speed the drive up: it goes on at
    /// the speed of the ramp before, if that went the same way (the rest of a ramp after an
    /// early return at an event ends where it was to end; a master's 1e-9 s step at another
    /// FMU's event in the middle of a lift's ramp), else at the speed of a ramp over one
    /// internal step; either way part of the way, and the intervals that follow go on from
    /// where it got to (`drive_ends`). A ramp over the 1e-9 s itself turned a crane's slew
    /// drive at 1e8 rad/s, "supplied" 8e17 J, and every later step was discarded; one over an
    /// internal step launched a ball off a lift at ten times its speed (probes).
    fn ramp_held_drives(&mut self, t_end: f64) -> Vec<(usize, f64, f64, f64)> {
        let span = t_end - self.state.t;
        let mut ramped = std::mem::take(&mut self.ramped);
        ramped.clear();
        if span.is_nan() || span <= 0.0 {
            return ramped;
        }
        for i in 0..self.driving_inputs.len() {
            let (old, new) = (self.drive_ends[i], self.system.inputs[i]);
            if self.driving_inputs[i] && old != new && self.input_derivatives[i] == [0.0; 2] {
                let before = self.system.input_rates.rates.get(i).map_or(0.0, |r| r[0]);
                // A span one step long to the round-off of the times (a master's (k + 1) h - k h
                // is an ulp short of h on one step in five: it ramped over a full step from
                // there and the drive lagged its input by three steps' increments, a probe) is
                // a full step.
                let duration = if span >= self.settings.step * (1.0 - 1e-12) - span_round_off(self.state.t, t_end) {
                    span
                } else if before != 0.0 && (new - old) / before > 0.0 {
                    span.max((new - old) / before)
                } else {
                    self.settings.step
                };
                let rate = (new - old) / duration;
                self.input_derivatives[i] = [rate, 0.0];
                self.system.inputs[i] = old;
                ramped.push((i, new, rate, if duration == span { t_end } else { f64::INFINITY }));
            }
        }
        ramped
    }

    /// Whether a drive's prescribed motion changes at this communication point: a driving
    /// input was set, has derivatives for the interval, or had rates over the last one.
    fn drives_change(&self) -> bool {
        (0..self.driving_inputs.len()).any(|i| {
            self.driving_inputs[i]
                && (self.input_moved(i)
                    || self.input_derivatives[i] != [0.0; 2]
                    || self.system.input_rates.rates.get(i).is_some_and(|r| *r != [0.0; 2]))
        })
    }

    /// A drive whose prescribed position or rate changed at this communication point (a
    /// new value or new derivatives of its input, or a held input whose ramp ended) asks for
    /// a state the last interval did not end in: the state is projected onto the constraints
    /// with the interval's starting inputs and rates (`Workspace::project_onto_constraints`),
    /// and the energy of that impulse counts as supplied, as the jump of a spring's moving free
    /// length does. Left to the step, a rate change is taken within its first stage.
    fn follow_moved_drives(&mut self) -> Result<(), StepError> {
        let s = &self.state;
        let (q, v) = (&mut self.extrapolation.q, &mut self.extrapolation.v);
        q.copy_from_slice(&s.q);
        v.copy_from_slice(&s.v);
        let projected = self
            .stepper
            .workspace
            .project_onto_constraints(&mut self.system, (q, v, s.t), self.settings.tolerance, &mut self.stepper.stats)
            .map_err(|cause| StepError::Restart { t: s.t, after: "the moved drives", cause })?;
        if projected {
            let (k0, p0) = self.system.mechanical_energy(&s.q, &s.v, s.t);
            let (k1, p1) = self.system.mechanical_energy(q, v, s.t);
            let s = &mut self.state;
            std::mem::swap(&mut s.q, q);
            std::mem::swap(&mut s.v, v);
            s.exchanged.supplied += (k1 + p1) - (k0 + p0);
            self.restart_pending = true;
        }
        Ok(())
    }

    /// Restart the method from the accelerations and multipliers consistent with the current
    /// positions, velocities, time and inputs (the auxiliary acceleration shifted by the jump of
    /// a, the predictor's history forgotten). `after` names what changed, for the error.
    fn restart(&mut self, after: &'static str) -> Result<(), StepError> {
        let s = &mut self.state;
        let (a, lambda) = (&mut self.scratch_a, &mut self.scratch_lambda);
        self.stepper
            .workspace
            .consistent_accelerations(&self.system, (&s.q, &s.v, s.t), a, lambda, &mut self.stepper.stats)
            .map_err(|cause| StepError::Restart { t: s.t, after, cause })?;
        for ((x, new), old) in s.aux.iter_mut().zip(a.iter()).zip(&s.a) {
            *x += new - old;
        }
        s.a.copy_from_slice(a);
        s.lambda.copy_from_slice(lambda);
        // The restart's multipliers may already pull on an active contact (an input that
        // turned the load into a pull-off between communication points): released here, as a
        // located event would release it, since no step sees the sign change (a probe's disc
        // pulled up through an input stayed glued to the floor with -10 N).
        if self.has_events() {
            self.stepper.settle_events(&mut self.system, &mut self.state).map_err(|cause| StepError::Restart {
                t: self.state.t,
                after,
                cause,
            })?;
        }
        self.stepper.workspace.forget_history();
        self.stepped_inputs.clone_from(&self.system.inputs);
        Ok(())
    }

    /// Set the `order`-th time derivative (1 or 2) of input `index` for the next `step_to`:
    /// inside it the input is u + u' (t - t0) + u'' (t - t0)^2 / 2 (t0 its start), which every
    /// element and drive reads at its own stage times (`Kin::rates`), so loads and free lengths
    /// follow it to the method's order. Afterwards the input is u again and the derivatives
    /// are 0.
    pub fn set_input_derivative(&mut self, index: usize, order: usize, value: f64) -> Result<(), String> {
        let name = self.input_names.get(index).map_or("?", |s| s);
        if !value.is_finite() {
            return Err(format!("derivative of order {order} of input '{name}' must be finite, got {value}"));
        }
        if !(1..=2).contains(&order) {
            return Err(format!(
                "input '{name}': derivative order {order} is not 1 or 2 (the orders flexfmu interpolates with)"
            ));
        }
        let slot = self.input_derivatives.get_mut(index).ok_or_else(|| format!("no input with index {index}"))?;
        slot[order - 1] = value;
        Ok(())
    }

    /// The inputs at the current time of an interval that started at t0
    /// (`set_input_derivative`), with their rates there: the same quadratic, taken about the
    /// current time (at the interval's start, and at its end for what follows).
    fn interpolate_inputs(&mut self, base: &[f64], t0: f64) {
        let (t, dt) = (self.state.t, self.state.t - t0);
        let mut changed = false;
        // The rates change with the values (the same quadratic taken about the current time):
        // the potential before is read with the old pair, after with the new (`change_inputs`
        // around the values alone read the old values with the new rates, and booked the whole
        // interval's change of a free length's potential as supplied a second time: a probe).
        change_inputs(&mut self.system, &mut self.state, |inputs, rates| {
            rates.t0 = t;
            rates.rates.clear();
            rates.rates.extend(self.input_derivatives.iter().map(|[d1, d2]| [d1 + d2 * dt, *d2]));
            for ((u, b), [d1, d2]) in inputs.iter_mut().zip(base).zip(&self.input_derivatives) {
                let value = b + d1 * dt + 0.5 * d2 * dt * dt;
                changed |= *u != value;
                *u = value;
            }
        });
        self.restart_pending |= changed;
    }

    pub fn outputs(&self) -> &[Output] {
        &self.outputs
    }

    /// The state, the inputs or the model changed: the outputs and their derivatives are to be
    /// computed afresh when next read.
    fn invalidate_outputs(&mut self) {
        self.outputs_current = false;
        self.motion.current = false;
        self.motion.accelerations_current = false;
    }

    /// Output values at the current time. Accelerations and reactions are recomputed from
    /// the converged (q, v) with the index-1 equations, so they are second-order accurate
    /// whatever the method's own multipliers are. An error if any is not finite, or the
    /// accelerations cannot be solved.
    pub fn output_values(&mut self) -> Result<&[f64], String> {
        self.compute_outputs();
        if let Some(e) = &self.accelerations_failure {
            return Err(e.clone());
        }
        match self.output_values.iter().position(|v| !v.is_finite()) {
            Some(i) => Err(self.non_finite_output(i)),
            None => Ok(&self.output_values),
        }
    }

    /// Output `index` at the current time (as `output_values`), where it is finite even if
    /// others are not: an input that overflows the energy, or the accelerations, leaves the
    /// positions readable (a probe's FMU refused every read, positions included). Otherwise
    /// the error that names why.
    pub fn output_value(&mut self, index: usize) -> Result<f64, String> {
        self.compute_outputs();
        match self.output_values.get(index) {
            Some(v) if v.is_finite() => Ok(*v),
            Some(_) => Err(self.accelerations_failure.clone().unwrap_or_else(|| self.non_finite_output(index))),
            None => Err(format!("no output with index {index}")),
        }
    }

    fn non_finite_output(&self, i: usize) -> String {
        format!(
            "output '{}' is {} at t = {} (overflow: are the model's values in SI units?)",
            self.outputs[i].name,
            self.output_values[i],
            Compact(self.state.t)
        )
    }

    /// The outputs at the current time into `output_values` (not finite where they overflow
    /// or, if the accelerations cannot be solved, NaN where they depend on them; why in
    /// `accelerations_failure`).
    fn compute_outputs(&mut self) {
        if self.outputs_current {
            return;
        }
        let s = &self.state;
        // At a static equilibrium (`settle_static`) the accelerations are zero and the
        // multipliers the static ones: the index-1 solve would add the inertia of the
        // drives' accelerations there (a probe's `statics` of a driven arm reported
        // gravity plus M q'' as holding torques).
        let settled = self.settled.as_ref().is_some_and(|(t, q, _)| *t == s.t && *q == s.q);
        let needs_accelerations = self.needs_accelerations && !settled;
        self.accelerations_failure = None;
        if needs_accelerations {
            let mut stats = Statistics::default();
            // At the velocities projected onto the joints' velocity constraints: an index-3
            // method's velocities hold them only to the step's error, and near a singular
            // position the index-1 solve magnifies that (`Workspace::projected_accelerations`).
            if let Err(e) = self.stepper.workspace.projected_accelerations(
                &self.system,
                (&s.q, &s.v, s.t),
                &mut self.scratch_v,
                (&mut self.scratch_a, &mut self.scratch_lambda),
                &mut stats,
            ) {
                let e = said_with_source(&e, &self.system);
                self.accelerations_failure = Some(format!("the accelerations at t = {}: {e}", Compact(s.t)));
                self.scratch_a.fill(f64::NAN);
                self.scratch_lambda.fill(f64::NAN);
            }
        }
        let (a, lambda) = if needs_accelerations { (&self.scratch_a, &self.scratch_lambda) } else { (&s.a, &s.lambda) };
        let os =
            OutputState { q: &s.q, v: &s.v, a, lambda, t: s.t, exchanged: s.exchanged, drive_inputs: &self.drive_ends };
        let values = &mut self.output_values;
        values.clear();
        values.extend(self.outputs.iter().map(|o| o.eval(&self.system, &os)));
        self.outputs_current = true;
    }

    pub fn settings(&self) -> &SolverSettings {
        &self.settings
    }

    /// A question `step_to` asks after each internal step: if it answers true, the interval
    /// stops there with `StepError::Interrupted` (`simulate`'s Ctrl-C acted only at the end of
    /// an output interval, 17 and 43 s late in a probe's crawling runs). The FMU sets none.
    pub fn set_interrupt(&mut self, interrupt: fn() -> bool) {
        self.interrupt = Some(interrupt);
    }

    pub fn set_settings(&mut self, settings: SolverSettings) -> Result<(), String> {
        let integrator = settings.validate()?;
        self.stepper.integrator = integrator;
        self.stepper.newton = settings.newton();
        self.stepper.workspace.invalidate();
        if settings.method != self.settings.method {
            // A method's auxiliary vector starts from the true acceleration.
            self.state.aux.copy_from_slice(&self.state.a);
        }
        if settings.step != self.settings.step || settings.error_control != self.settings.error_control {
            self.next_step = settings.step;
        }
        self.system.set_nominal_step(settings.step);
        self.stepper.event_span = settings.step;
        self.settings = settings;
        Ok(())
    }

    pub fn statistics(&self) -> Statistics {
        self.stepper.stats
    }

    /// Advance to `t_end` in equal internal steps no larger than the configured step, or with
    /// error-controlled steps if enabled. On failure the state stays at the last successful
    /// internal step, whose time `time()` reports. A state with a non-finite number is
    /// never reached (the stepper rejects the step that produces it). At most
    /// `MAX_STEPS_PER_INTERVAL` internal steps (accepted and rejected) are taken: an interval
    /// that needs more is refused before the first step (fixed steps, or more than that many
    /// of the largest error-controlled step) or when the budget runs out.
    ///
    /// A model with redundant joint rows is checked at the end of each interval
    /// (`check_redundant_rows`); if the rows dropped at the initial state no longer follow
    /// from the others, the state at the interval's end violates a joint, so the simulation
    /// returns to the interval's start and reports `StepError::RedundancyChanged`.
    ///
    /// An interval that starts by changing the state (a drive that moved is projected onto,
    /// changed inputs restart the method: `start_interval`) and fails before its first internal
    /// step is accepted returns to the state before it too: a crane whose slew command jumped
    /// by 1e4 rad kept the projection's 1e6 rad/s (and 7.8e13 J) after its discarded step (a
    /// probe). The work the failed steps did stays counted.
    pub fn step_to(&mut self, t_end: f64) -> Result<(), StepError> {
        let start = (self.system.has_redundant_rows() || self.drives_change() || self.pending_restart()).then(|| {
            let mut start = self.interval_start.take().unwrap_or_else(|| Box::new(self.copy_state()));
            self.copy_state_into(&mut start);
            start
        });
        let t0 = self.state.t;
        let result = self.advance_to(t_end).and_then(|()| self.check_redundant_rows());
        if let (Err(e), Some(start)) = (&result, &start)
            && (matches!(e, StepError::RedundancyChanged { .. }) || self.state.t == t0)
        {
            // This simulation's own snapshot: it fits.
            let stats = self.stepper.stats;
            let _ = self.restore(start);
            self.stepper.stats = stats;
        }
        self.interval_start = start;
        match result {
            Ok(()) => {
                let peak = self.stepper.workspace.energy.take_peak_kinetic();
                self.balance.observe(self.energy_balance(), peak, self.state.t);
                Ok(())
            }
            // A run whose energy ran away before the step failed: the failure is its symptom.
            Err(interrupted @ StepError::Interrupted { .. }) => Err(interrupted),
            Err(failure) => {
                let failed_step = failure.is_failed_step();
                let diagnoses = [
                    self.energy_balance_warning().map(|d| format!("before it stopped, {d}")),
                    self.outside_formulation()
                        .filter(|_| failed_step)
                        .map(|d| format!("the model left its elements' range: {d}")),
                    failure
                        .non_finite_at()
                        .and_then(|t| self.system.non_finite_expression(t))
                        .map(|d| format!("not finite there: {d}")),
                    failure.failed_step().and_then(|(t, h)| self.drive_out_of_reach(t, h)),
                    // A failed step's message names the inputs (not a refused interval's).
                    self.inputs_over_the_step()
                        .filter(|_| failed_step)
                        .map(|inputs| format!("the inputs over the step: {inputs}")),
                ];
                Err(diagnoses
                    .into_iter()
                    .flatten()
                    .fold(failure, |failure, diagnosis| StepError::Explained { failure: Box::new(failure), diagnosis }))
            }
        }
    }

    /// For a step from `t` that failed at its smallest size `h`: a drive that asks for a
    /// position the mechanism cannot reach, at t + h or at the end of a full step
    /// (`initial_state::drive_out_of_reach`). The other advice (a smaller step, more
    /// iterations) cannot help: a probe's slider driven past the crank's reach stopped with it.
    fn drive_out_of_reach(&self, t: f64, h: f64) -> Option<String> {
        [t + h, t + self.settings.step].into_iter().find_map(|at| {
            let (joint, by) = crate::mechanics::initial_state::drive_out_of_reach(&self.system, &self.state.q, at)?;
            Some(format!(
                "the drive of joint '{}' asks by t = {} for a position the mechanism cannot reach: the other joints \
                 hold without it, with it they stay violated by {by:.3e} (m or rad); no step size helps, the \
                 drive has to stay within the mechanism's reach",
                self.system.joints[joint].name,
                Compact(at)
            ))
        })
    }

    /// "name = value, ..." of the inputs (the first eight), for a failed step's message; none
    /// without inputs. A probe's unstable control loop drove two torques to 4e6 N m, and the
    /// failure's advice (a smaller step) pointed away from the cause.
    fn inputs_over_the_step(&self) -> Option<String> {
        const SHOWN: usize = 8;
        let values = &self.system.inputs;
        if values.is_empty() {
            return None;
        }
        let mut text: Vec<String> =
            self.input_names.iter().zip(values).take(SHOWN).map(|(n, v)| format!("{n} = {}", Compact(*v))).collect();
        if values.len() > SHOWN {
            text.push(format!("... ({} inputs)", values.len()));
        }
        Some(text.join(", "))
    }

    /// `step_to` without the check of the redundant rows.
    fn advance_to(&mut self, t_end: f64) -> Result<(), StepError> {
        let start = self.state.t;
        let ramped = self.ramp_held_drives(t_end);
        let drives_change = self.drives_change();
        let result = if self.input_derivatives.iter().all(|d| *d == [0.0; 2]) {
            self.system.input_rates.rates.clear();
            self.start_interval(drives_change).and_then(|()| self.step_over_interval(t_end))
        } else {
            let mut base = std::mem::take(&mut self.interval_inputs);
            base.clone_from(&self.system.inputs);
            let t0 = self.state.t;
            // The inputs and their rates at the start: every element and drive reads them at
            // its own stage times inside the interval (`Kin::rates`). Before, loads read the
            // interpolation at each internal step's start and held it (first order: a forced
            // mass-spring was 9.8e-4 off at 1 ms with or without derivatives, a probe).
            self.interpolate_inputs(&base, t0);
            let result = self.start_interval(drives_change).and_then(|()| self.step_over_interval(t_end));
            // The inputs end the interval where the interpolation took them, with their rates
            // there, so that the outputs at the reached time (accelerations, drive forces) see
            // the motion the drives made, also after a new value is set (`set_input`); the next
            // interval holds them unless derivatives are set again.
            self.interpolate_inputs(&base, t0);
            self.interval_inputs = base;
            result
        };
        // A ramped input ends on the value it was set to, also after a failed interval (whose
        // state is the one before it); after a successful one the state has reached it, or the
        // drive is on its way there (`ramp_held_drives`).
        for &(i, value, _, _) in &ramped {
            self.system.inputs[i] = value;
            if result.is_ok() {
                self.stepped_inputs[i] = value;
            }
        }
        if result.is_ok() || self.state.t != start {
            // Where each ramp got to: its end, or on the way (a short interval, one ended
            // early at an event: FMI 3.0's early return, or one that failed after some steps).
            for (i, end) in self.drive_ends.iter_mut().enumerate() {
                *end = match ramped.iter().find(|r| r.0 == i) {
                    Some(&(_, _, rate, end_time)) if self.state.t < end_time => *end + rate * (self.state.t - start),
                    Some(&(_, value, ..)) => value,
                    None => self.system.inputs[i],
                };
            }
        }
        self.ramped = ramped;
        self.input_derivatives.iter_mut().for_each(|d| *d = [0.0; 2]);
        self.invalidate_outputs();
        result
    }

    /// Before an interval: the drives' projection if their motion changes here, and the
    /// restart if the inputs changed.
    fn start_interval(&mut self, drives_change: bool) -> Result<(), StepError> {
        if drives_change {
            self.follow_moved_drives()?;
        }
        self.restart_if_inputs_changed()
    }

    /// The redundant joint rows (`System::set_redundant`) follow from the others only while
    /// the rank of Phi_q stays that of the initial state; checked once per interval, to
    /// 1e-6 (|q|max + 1).
    fn check_redundant_rows(&self) -> Result<(), StepError> {
        let Some((row, violation)) = self.system.redundant_violation(&self.state.q, self.state.t) else {
            return Ok(());
        };
        let scale = 1.0 + self.state.q.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        if violation <= 1e-6 * scale {
            return Ok(());
        }
        let joint = self.system.joints.iter().find(|j| j.rows.contains(&row)).map_or(String::new(), |j| j.name.clone());
        Err(StepError::RedundancyChanged { t: self.state.t, joint, violation })
    }

    /// `step_to`, but ending early at the first event located inside the interval (a contact
    /// onset or release, an impact: the zeros of `Dynamics::event_functions`), at the event
    /// time within the event tolerance (`EVENT_TOLERANCE` of the internal step), in the state
    /// just after the event (velocity jumps applied). Without an event it is `step_to`, bit
    /// for bit. What FMI 3.0's early return from fmi3DoStep needs.
    pub fn step_to_event(&mut self, t_end: f64) -> Result<StepEnd, StepError> {
        self.stepper.stop_at_events = true;
        self.stepper.take_event_stop();
        let result = self.step_to(t_end);
        self.stepper.stop_at_events = false;
        let stopped = self.stepper.take_event_stop();
        result?;
        Ok(if stopped.is_some() && self.state.t < t_end { StepEnd::Event } else { StepEnd::Reached })
    }

    /// Switch the step limit of closed compliant contacts (src/integrators/contact_step.rs) on
    /// (the default) or off: off, every internal step is the fixed `step` (studies of the
    /// fixed-step method's convergence order through an impact). Not part of the settings or
    /// snapshots; the FMU and `flexfmu simulate` always resolve contacts.
    pub fn set_contact_step_limit(&mut self, on: bool) {
        self.stepper.contact_step_limit = on;
    }

    /// Switch the energy check of every step (src/integrators/energy_check.rs) on (the
    /// default) or off: off for studies of the plain method from states that are not motions
    /// (amplification matrices measured from unit accelerations on a system at rest). Not
    /// part of the settings or snapshots.
    pub fn set_energy_check(&mut self, on: bool) {
        self.stepper.workspace.energy.off = !on;
    }

    /// Whether the model has events (contacts) at which `step_to_event` can stop.
    pub fn has_events(&self) -> bool {
        self.system.event_count() > 0
    }

    /// `step_to` over the interval, the inputs as `advance_to` set them: held, or read by
    /// every element and drive at its stage times through their rates (`Kin::rates`).
    fn step_over_interval(&mut self, t_end: f64) -> Result<(), StepError> {
        if !(self.state.t.is_finite() && t_end.is_finite()) {
            return Err(StepError::NonFiniteTime { t: self.state.t, t_end });
        }
        let span = t_end - self.state.t;
        if span.is_nan() || span < 0.0 {
            return Ok(());
        }
        let largest =
            if self.settings.error_control.enabled { MAX_STEP_RATIO * self.settings.step } else { self.settings.step };
        // Internal steps that cannot advance the time (a probe's start at 1e16 s blamed Newton).
        if largest < span && self.state.t + largest == self.state.t {
            return Err(StepError::BelowTimeResolution { t: self.state.t, t_end, step: largest });
        }
        // The span is a difference of times that carry round-off of a few ulps of their size: an
        // interval one step long at t = 8.2 s can come out 2e-12 of a step longer, which must
        // not make it two steps.
        let round_off = span_round_off(self.state.t, t_end) / largest;
        let needed = (span / largest * (1.0 - 1e-12) - round_off).ceil().max(1.0);
        if needed.is_nan() || needed > MAX_STEPS_PER_INTERVAL as f64 {
            return Err(StepError::TooManySteps { t: self.state.t, t_end, step: largest, needed });
        }
        self.invalidate_outputs();
        // The Newton matrix and the predictor's history carry over from the last interval (and
        // in snapshots: src/integrators/newton/memory.rs).
        if span <= self.extrapolation_room && self.extrapolate(t_end)? {
            self.extrapolation_room -= span;
            self.stepper.stats.extrapolated_spans += 1;
            return Ok(());
        }
        self.extrapolation_room = EXTRAPOLATED_SPAN * span.min(self.settings.step);
        let budget = StepBudget::new(&self.stepper.stats, self.interrupt);
        if self.settings.error_control.enabled {
            return self.error_controlled_steps_to(t_end, &budget);
        }
        let count = needed as u64;
        let t0 = self.state.t;
        for k in 1..=count {
            let target = if k == count { t_end } else { t0 + span * (k as f64) / (count as f64) };
            let h = target - self.state.t;
            self.system.history_into(&mut self.accepted);
            if let Err(e) = self.stepper.step(&mut self.system, &mut self.state, h) {
                self.discard_step();
                return Err(e.into());
            }
            if self.stepper.stopped_at_event() && target - self.state.t > EVENT_TOLERANCE * h {
                // Stopped at an event inside the internal step (`step_to_event`): the time is
                // the event's, not the grid's.
                return Ok(());
            }
            self.state.t = target;
            self.turns.check(&self.system, (&self.state.q, &self.state.v, target), h);
            budget.check(&self.stepper.stats, self.state.t, t_end)?;
            if self.stepper.stopped_at_event() {
                return Ok(());
            }
        }
        Ok(())
    }

    /// A span far below the internal step (masters produce them at events and from round-off
    /// of their time: 1e-13 s and less, 1e-12..1e-10 s too) taken by Heun's method with the
    /// consistent accelerations at both ends, and a restart from the accelerations consistent
    /// with the result. An implicit step that short is ill-conditioned: its positions hold to
    /// the Newton tolerance or their round-off, and the velocities then carry that error times
    /// gamma'/beta' ~ 2/s (a pendulum's state changed by 0.09 after one step of 1e-12 s, by
    /// 2.6e-6 after 1e-9 s), while Heun's method errs by about s^3 |a''| in v, below one internal
    /// step's own error for s <= EXTRAPOLATED_SPAN h. Not where an event function changes sign
    /// over the span (a contact closing), nor where a compliant contact closes within the span
    /// at its current rate (`Dynamics::contact_outlook`), although it may be open again at the
    /// span's end: that span is stepped, so that the impact is resolved (a probe's spheres at
    /// 1e5 m/s, 2e-5 m apart, passed through each other inside one span of 5e-7 s). A contact
    /// already in an impact is extrapolated like any force (an implicit step of 1e-12 s inside
    /// an impact put 0.14 J into a 2.65 J pendulum striking a wall: a probe). Returns whether
    /// the span was taken.
    fn extrapolate(&mut self, t_end: f64) -> Result<bool, StepError> {
        let (t0, span) = (self.state.t, t_end - self.state.t);
        if span == 0.0 {
            return Ok(true);
        }
        let s = &self.state;
        if self.system.contact_outlook(&s.q, &s.v, t0, span).closing {
            return Ok(false);
        }
        let Extrapolation { q, v, a, before, after } = &mut self.extrapolation;
        // The method's own end-of-step accelerations carry its error (TTBIF's are first order):
        // extrapolate with the consistent ones, a0.
        self.stepper
            .workspace
            .consistent_accelerations(
                &self.system,
                (&s.q, &s.v, t0),
                a,
                &mut self.scratch_lambda,
                &mut self.stepper.stats,
            )
            .map_err(|cause| StepError::Restart { t: t0, after: "the state before a short span", cause })?;
        for i in 0..s.q.len() {
            q[i] = s.q[i] + span * s.v[i] + 0.5 * span * span * a[i];
            v[i] = s.v[i] + span * a[i];
        }
        if !before.is_empty() {
            self.system.event_functions(&s.q, &s.v, &s.lambda, t0, before);
            self.system.event_functions(q, v, &s.lambda, t_end, after);
            if before.iter().zip(after.iter()).any(|(b, a)| (*b < 0.0) != (*a < 0.0)) {
                return Ok(false);
            }
        }
        // Heun's correction with the consistent accelerations a1 at the extrapolated end:
        // v = v0 + s (a0 + a1)/2, q = q0 + s v0 + s^2 (a0/3 + a1/6) (third order in s); then
        // the method restarts there. The state is written only when all succeeded.
        let a1 = &mut self.scratch_a;
        self.stepper
            .workspace
            .consistent_accelerations(
                &self.system,
                (q, v, t_end),
                a1,
                &mut self.scratch_lambda,
                &mut self.stepper.stats,
            )
            .map_err(|cause| StepError::Restart { t: t_end, after: "the extrapolated state", cause })?;
        // Heun's velocity correction s (a1 - a0)/2 measures the span against the motion: for a
        // mode of frequency w it is about (s w)^2 / 2 of the mode's velocity, and Heun's own
        // error (s w)^3 / 6. Above sqrt(tol) of the velocity scale (s w > 4.5e-3 at the default
        // tolerance) the span is stepped: a step far longer than the intervals makes the room
        // long (a probe's cantilever at step 0.2 s and intervals of 1 ms was extrapolated, went
        // unstable in its stiff modes and reached 1e22 J).
        let length = self.stepper.workspace.model_length();
        let correction =
            (0..s.q.len()).fold(0.0f64, |e, i| e.max(0.5 * span * (a1[i] - a[i]).abs() / (length + s.v[i].abs())));
        let short = correction <= self.settings.tolerance.sqrt();
        if !short {
            return Ok(false);
        }
        for i in 0..s.q.len() {
            v[i] = s.v[i] + 0.5 * span * (a[i] + a1[i]);
            q[i] = s.q[i] + span * s.v[i] + span * span * (a[i] / 3.0 + a1[i] / 6.0);
        }
        // The work of loads, dampers and drives over the span, by the trapezoidal rule (as
        // `stages::work_along` counts a step's).
        let power0 = self.system.power(&s.q, &s.v, &s.lambda, t0, &Stride { start: &s.q, end: q, h: span });
        let s = &mut self.state;
        std::mem::swap(&mut s.q, q);
        std::mem::swap(&mut s.v, v);
        s.t = t_end;
        if let Err(e) = self.restart("the extrapolated state") {
            // The state before the span stays (a restart writes a, lambda only on success).
            let s = &mut self.state;
            std::mem::swap(&mut s.q, &mut self.extrapolation.q);
            std::mem::swap(&mut s.v, &mut self.extrapolation.v);
            s.t = t0;
            return Err(e);
        }
        let s = &mut self.state;
        let stride = Stride { start: &self.extrapolation.q, end: &s.q, h: span };
        let power1 = self.system.power(&s.q, &s.v, &s.lambda, t_end, &stride);
        s.exchanged = s.exchanged + (0.5 * span) * (power0 + power1);
        Ok(true)
    }

    /// `step_to` with error-controlled steps (src/integrators/error_control.rs). A step is
    /// shortened to end on `t_end`; the rest of an interval shorter than two steps is split
    /// in equal halves, so that no sliver step remains.
    fn error_controlled_steps_to(&mut self, t_end: f64, budget: &StepBudget) -> Result<(), StepError> {
        let control = self.settings.error_control;
        let (h_min, h_max) = (MIN_STEP_RATIO * self.settings.step, MAX_STEP_RATIO * self.settings.step);
        let tolerance = 1e-12 * t_end.abs().max(self.settings.step);
        while t_end - self.state.t > tolerance {
            budget.check(&self.stepper.stats, self.state.t, t_end)?;
            let rest = t_end - self.state.t;
            let proposed = self.next_step;
            let h = if rest <= proposed * (1.0 + 1e-12) {
                rest
            } else if rest < 2.0 * proposed {
                0.5 * rest
            } else {
                proposed
            };
            self.system.history_into(&mut self.accepted);
            let rejected = self.stepper.stats.rejected_steps;
            let (taken, next) = match self.stepper.error_controlled_step(
                &mut self.system,
                &mut self.state,
                h,
                &control,
                h_min.min(rest),
            ) {
                Ok(x) => x,
                Err(e) => {
                    self.discard_step();
                    return Err(e.into());
                }
            };
            if taken >= rest * (1.0 - 1e-12) {
                self.state.t = t_end;
            }
            // A step shortened (to reach t_end or an event) and accepted at once with a
            // growing step says nothing against the proposal.
            let shortened = self.stepper.stats.rejected_steps == rejected && h < proposed;
            let next = if shortened && next >= h { next.max(proposed) } else { next };
            self.next_step = next.clamp(h_min, h_max);
            if self.stepper.stopped_at_event() {
                return Ok(());
            }
        }
        Ok(())
    }

    /// A failed internal step: the stepper put the state back to its start; the history
    /// the step's accepted sub-steps recorded is not committed either.
    fn discard_step(&mut self) {
        // `accepted` came from this system, so it fits.
        let _ = self.system.set_history(std::mem::take(&mut self.accepted));
        self.invalidate_outputs();
    }

    /// Natural frequencies (Hz, ascending) linearised about the current configuration at
    /// rest: the multipliers (which enter the stiffness through (Phi_q^T lambda)_q) are those
    /// that hold the configuration under its static loads, not those of the current motion.
    /// Where the configuration is not an equilibrium (an unstressed beam drawn hanging under
    /// gravity), loads that the deformation would carry stiffen nothing: `modes_at_equilibrium`
    /// linearises about the static equilibrium instead.
    pub fn natural_frequencies(&self) -> Result<Vec<f64>, String> {
        let s = &self.state;
        let (a, lambda) = self.released_from_rest().map_err(|e| e.to_string())?;
        crate::analysis::modes::natural_frequencies(&self.system, &s.q, &vec![0.0; s.v.len()], &a, &lambda, s.t)
            .map_err(|e| e.to_string())
    }

    /// The accelerations and multipliers of the current configuration released from rest
    /// (v = 0): the reactions a static analysis starts from, free of the centripetal ones of
    /// the state's own velocities.
    fn released_from_rest(&self) -> Result<(Vec<f64>, Vec<f64>), crate::integrators::NewtonError> {
        let s = &self.state;
        let rest = vec![0.0; s.v.len()];
        let (mut a, mut lambda) = (vec![0.0; s.a.len()], vec![0.0; s.lambda.len()]);
        crate::integrators::Workspace::new(&self.system).consistent_accelerations(
            &self.system,
            (&s.q, &rest, s.t),
            &mut a,
            &mut lambda,
            &mut Statistics::default(),
        )?;
        Ok((a, lambda))
    }

    /// Natural frequencies (Hz, ascending) linearised about the static equilibrium at the
    /// current time reached from the current configuration (`settle_static`), so that
    /// preloads stiffen: gravity on a hanging flexible pendulum, a tensioned string. The state
    /// is then that equilibrium. Where none is found, or it is far from the current
    /// configuration (NEAR_EQUILIBRIUM), about the current configuration as
    /// `natural_frequencies` (the state unchanged), with why in `Linearisation::Initial`.
    pub fn modes_at_equilibrium(&mut self) -> Result<(Vec<f64>, Linearisation), String> {
        let initial = self.state.clone();
        let about = match self.settle_static(self.state.t) {
            Ok(_) => {
                let moved = self
                    .state
                    .q
                    .iter()
                    .zip(&initial.q)
                    .zip(&self.static_scales)
                    .fold(0.0f64, |a, ((x, x0), s)| a.max((x - x0).abs() / s));
                if moved <= NEAR_EQUILIBRIUM {
                    Linearisation::Equilibrium { moved, unstable: self.equilibrium_stability().map(|s| s.unstable) }
                } else {
                    self.state = initial;
                    self.settled = None;
                    self.invalidate_outputs();
                    Linearisation::Initial {
                        reason: format!(
                            "the one found is far from it: a coordinate moves by {moved:.2} times its scale (the \
                             model length, 1 rad); draw the model near its equilibrium to linearise about it"
                        ),
                    }
                }
            }
            Err(e) => Linearisation::Initial { reason: e },
        };
        Ok((self.natural_frequencies()?, about))
    }

    /// Whether the state is the static equilibrium `settle_static` found and that equilibrium is
    /// neutral: the forces balance, but the static tangent is singular there (a free body, a ball
    /// on a frictionless floor, a mechanism its loads do not move, or a critical point); the
    /// coordinates the tangent leaves free kept their values.
    pub fn equilibrium_is_neutral(&self) -> bool {
        self.settled.as_ref().is_some_and(|(t, q, neutral)| *neutral && *t == self.state.t && *q == self.state.q)
    }

    /// Whether the current state, a static equilibrium, is unstable or neutral: the numbers of
    /// admissible directions in which its stiffness (elastic, geometric, of the loads and the
    /// constraints) is negative, or zero (`analysis::modes::stability`); None if not
    /// determined (more than `STABILITY_CHECK_COORDINATES` coordinates).
    pub fn equilibrium_stability(&self) -> Option<crate::analysis::modes::Stability> {
        let s = &self.state;
        crate::analysis::modes::stability(&self.system, &s.q, &s.lambda, s.t)
    }

    /// Quasi-static analysis: the static equilibrium g(q, t) + Phi_q^T lambda = 0,
    /// Phi(q, t) = 0 at time `t` (loads and drives at t, the inputs as set), by Newton's method
    /// (src/analysis/statics.rs); the state is then at rest there (v = a = 0), with the static
    /// reactions as multipliers. From the last equilibrium found (the state this returned at
    /// an earlier time, untouched since), loads that grow with t are load increments: a
    /// sequence of times follows a large deflection, and an increment whose plain Newton
    /// iteration does not converge is halved, up to `STATIC_HALVINGS` times (the equilibria in
    /// between are passed through, not kept). From any other state (the configuration drawn in
    /// the model file, a state after dynamic steps) the solve at t is globalized
    /// (pseudo-transient continuation) and ends in a stable equilibrium unless it starts on an
    /// unstable one (`equilibrium_instability` tells). Returns the Newton iterations; on
    /// failure the state is unchanged.
    pub fn settle_static(&mut self, t: f64) -> Result<usize, String> {
        use crate::analysis::statics::{StaticOptions, StaticsError, solve_static};
        /// An increment is halved at most this often: 1/1024 of it at the smallest, and at
        /// most 1024 + 10 solves per call.
        const STATIC_HALVINGS: u32 = 10;
        /// An increment that moves a coordinate by more than this, in its scale (the model
        /// length, or 1 rad), is halved; one that still does at the last halving has jumped
        /// (Lee's frame driven past its snap-back moved by 0.27 of its length within 1e-3 of
        /// the imposed displacement, silently: a probe).
        const STATIC_JUMP: f64 = 0.05;
        /// A move at most this fraction of the one before the increment was halved shrinks
        /// with it: the path is smooth there (a move proportional to the increment halves).
        const JUMP_SHRINK: f64 = 0.75;
        const JUMP_GROWTH: f64 = 2.0;
        /// Rounds of contacts switched at one time (each re-solves the equilibrium).
        const STATIC_CONTACT_ROUNDS: usize = 16;
        let s = &self.state;
        let continuing = self.settled.as_ref().is_some_and(|(at, settled, _)| *at == s.t && *settled == s.q);
        let mut iterations = 0;
        if !continuing && t != s.t {
            // The equilibrium at the state's own time first, then load increments from it.
            let start = self.state.clone();
            iterations = self.settle_static(s.t)?;
            return self.settle_static(t).map(|n| n + iterations).inspect_err(|_| {
                // Unchanged on failure, as documented.
                self.state = start;
                self.settled = None;
                self.invalidate_outputs();
            });
        }
        self.system.at_rest(true);
        let s = &self.state;
        let mut q = s.q.clone();
        // From a configuration that is not an equilibrium, the multipliers of its release from
        // rest: the state's own carry the reactions of its velocities (a body spinning on a
        // pivot), which, as forces in play, made the residual test pass on a horizontal rod.
        let mut lambda = if continuing || s.v.iter().all(|v| *v == 0.0) {
            s.lambda.clone()
        } else {
            self.released_from_rest().map_or_else(|_| vec![0.0; s.lambda.len()], |(_, lambda)| lambda)
        };
        let options =
            StaticOptions { tolerance: self.settings.tolerance, scales: &self.static_scales, globalize: !continuing };
        let (mut reached, mut increment, mut halvings) = (s.t, t - s.t, 0);
        let mut neutral = false;
        // The work of the loads and drives along the increments (trapezoidal rule between the
        // equilibria reached), from the last equilibrium reached (`energy_supplied`).
        let (mut work, rest) = (crate::integrators::EnergyFlow::default(), vec![0.0; q.len()]);
        let (mut q_reached, mut lambda_reached) = (q.clone(), lambda.clone());
        // From a stable equilibrium, an increment that lands on an unstable one has jumped a
        // bifurcation (a probe's column with a small lateral imperfection, loaded in steps of
        // 0.05, stayed near-straight past its buckling load and bent against the imperfection):
        // it is halved too, so that the load follows the stable path; a perfect structure,
        // whose path becomes unstable itself, is accepted at the last halving.
        fn unstable_at(system: &System, q: &[f64], lambda: &[f64], t: f64) -> bool {
            crate::analysis::modes::unstable_directions(system, q, lambda, t).is_some_and(|k| k > 0)
        }
        // Only a load increment can jump (not a solve again at the equilibrium's own time, as
        // `modes_at_equilibrium` does).
        let increments = continuing && t != s.t;
        let mut stable = increments && !unstable_at(&self.system, &q, &lambda, s.t);
        // The contacts' modes, put back if the solve fails; the rounds of contacts switched.
        let mut modes = History::default();
        self.system.history_into(&mut modes);
        let (mut switches, mut lifted) = (0, false);
        // The move of the attempt before the last halving, if that halving was for a jump.
        let mut jump_halved: Option<f64> = None;
        // The increment and move of the last increment taken.
        let mut last_move: Option<(f64, f64)> = None;
        let depth = self.settings.tolerance * self.stepper.workspace.model_length();
        // Contacts drawn touching, apart by less than the tolerance, rest from the start: balls
        // stacked at y = 0.05 and 0.15 m are apart by round-off (1e-17 m), and left open the
        // stack had no equilibrium (a probe). Undone with the modes if the solve fails.
        if !continuing {
            self.system.close_penetrated_contacts(&q, -depth);
        }
        // Inputs between the equilibrium's (`drive_ends`) and those set for t, linearly in the
        // load increment's time as a load written in t is: a halved increment of an input
        // table's ramp had applied the row's full value (a probe's linear spring "snapped
        // through" at the first halving; statics with `--input` tables failed wherever an
        // increment was halved).
        let (inputs_from, inputs_to) = (self.drive_ends.clone(), self.system.inputs.clone());
        let span = (self.state.t, t);
        let inputs_at = |system: &mut System, at: f64| {
            if increments && inputs_from.len() == inputs_to.len() && inputs_from != inputs_to {
                let f = if at >= span.1 { 1.0 } else { (at - span.0) / (span.1 - span.0) };
                for ((x, a), b) in system.inputs.iter_mut().zip(&inputs_from).zip(&inputs_to) {
                    *x = if f == 1.0 { *b } else { a + f * (b - a) };
                }
            }
        };
        let solved = loop {
            let target = if halvings == 0 { t } else { (reached + increment).min(t) };
            inputs_at(&mut self.system, target);
            if increments {
                // What the drives carry turns or slides with them to the target rigidly first
                // (`System::carry_with_drives`, as the dynamic restart does): the solve then
                // finds the deformation only, and a direction nothing resists (a hook's spin
                // about its sling) is not swept along (a probe's crane slewed by a ramped input
                // "snapped through" at every output interval).
                let mut at_rest = vec![0.0; q.len()];
                self.system.carry_with_drives(&mut q, &mut at_rest, target);
            }
            let (q0, lambda0) = (q.clone(), lambda.clone());
            match solve_static(&self.system, &mut q, &mut lambda, target, &options) {
                Ok(solved) => {
                    // Every iteration done counts, also those of an increment halved below.
                    iterations += solved.iterations;
                    // How far the increment moved, in the coordinates' scales: a move that
                    // does not shrink with the increment is a jump of the equilibrium path.
                    let moved = if increments {
                        q.iter()
                            .zip(&q0)
                            .zip(&self.static_scales)
                            .fold(0.0f64, |a, ((x, x0), s)| a.max((x - x0).abs() / s))
                    } else {
                        0.0
                    };
                    // A move that halved with the increment (to within JUMP_SHRINK), or that is
                    // at most JUMP_GROWTH times the last increment's of the same size, is the
                    // path's own, however long: a spun-up hub turns 0.05 rad in 1/1024 of a 20 s
                    // interval, and was told it had snapped through (a probe). A jump's move
                    // stays as the increment shrinks, and stands out from the moves before.
                    let smooth = jump_halved.is_some_and(|before: f64| moved <= JUMP_SHRINK * before)
                        || last_move.is_some_and(|(size, before): (f64, f64)| {
                            size == increment && moved <= JUMP_GROWTH * before
                        });
                    let jumped = moved > STATIC_JUMP && !smooth;
                    if halvings < STATIC_HALVINGS
                        && (jumped || (stable && unstable_at(&self.system, &q, &lambda, target)))
                    {
                        jump_halved = jumped.then_some(moved);
                        (q, lambda) = (q0, lambda0);
                        increment *= 0.5;
                        halvings += 1;
                        continue;
                    }
                    jump_halved = None;
                    last_move = Some((increment, moved));
                    if jumped {
                        break Err(format!(
                            "static equilibrium at t = {}: the equilibrium moved by {moved:.2} (in model lengths or \
                             radians) over an increment of {increment:.3e} from t = {}, halved {halvings} times: the \
                             path of equilibria turns back or ends here (a snap-through or snap-back), which neither \
                             load nor displacement control can follow; the equilibria before are on the path",
                            Compact(target),
                            Compact(reached)
                        ));
                    }
                    // Unilateral contacts: a support whose force would pull lifts off, a body
                    // that moved into a support rests on it, and the equilibrium is solved
                    // again (a probe's ball under a growing lift was held down with -5 N).
                    if switches < STATIC_CONTACT_ROUNDS {
                        let released = self.system.release_tensile(&q, &lambda);
                        let closed = self.system.close_penetrated_contacts(&q, depth);
                        if released || closed {
                            switches += 1;
                            lifted |= released;
                            continue;
                        }
                    }
                    neutral = solved.neutral;
                    stable = stable && !(halvings == STATIC_HALVINGS && unstable_at(&self.system, &q, &lambda, target));
                    if increments && target > reached {
                        let h = target - reached;
                        let stride = Stride { start: &q_reached, end: &q, h };
                        inputs_at(&mut self.system, reached);
                        let p0 = self.system.power(&q_reached, &rest, &lambda_reached, reached, &stride);
                        inputs_at(&mut self.system, target);
                        let p1 = self.system.power(&q, &rest, &lambda, target, &stride);
                        work.supplied += 0.5 * h * (p0.supplied + p1.supplied);
                        work.dissipated += 0.5 * h * (p0.dissipated + p1.dissipated);
                    }
                    q_reached.clone_from(&q);
                    lambda_reached.clone_from(&lambda);
                    reached = target;
                    if target == t {
                        break Ok(());
                    }
                }
                Err(StaticsError::NotConverged(n)) if continuing && halvings < STATIC_HALVINGS && increment != 0.0 => {
                    iterations += n;
                    (q, lambda) = (q0, lambda0);
                    increment *= 0.5;
                    halvings += 1;
                }
                Err(e) => {
                    // An increment from a neutral equilibrium that converges at no halving: a
                    // load along a direction nothing resists has no equilibrium (a free beam
                    // under a growing end load was told to take smaller increments, a probe).
                    let neutral = matches!(e, StaticsError::NotConverged(_))
                        && halvings == STATIC_HALVINGS
                        && (self.equilibrium_is_neutral()
                            || crate::analysis::modes::stability(&self.system, &q_reached, &lambda_reached, reached)
                                .is_some_and(|s| s.neutral > 0));
                    let neutral = if neutral {
                        format!(
                            "; the equilibrium at t = {} it starts from is neutral (the model can move in some \
                             direction without any force: a free body, a mechanism), and a load along such a \
                             direction has no static equilibrium: hold it with a joint, a spring or a support",
                            Compact(reached)
                        )
                    } else {
                        String::new()
                    };
                    let tried = if halvings > 0 {
                        format!(
                            " (the increment halved {halvings} times, to {increment:.3e} from t = {})",
                            Compact(reached)
                        )
                    } else {
                        String::new()
                    };
                    let contact =
                        if lifted { " (after a contact lifted off: its force would have pulled)" } else { "" };
                    // A body drawn apart from the constraint contact that would hold it: statics
                    // does not close such a contact, which the message had not said (a probe's
                    // ball above its floor was told it "may be a mechanism").
                    let open: Vec<&str> = self
                        .system
                        .contact_constraints
                        .iter()
                        .zip(&self.system.contact_constraint_names)
                        .filter(|(c, _)| !c.is_active())
                        .map(|(_, name)| name.as_str())
                        .collect();
                    let open = if open.is_empty() || matches!(e, StaticsError::NotConverged(_)) {
                        String::new()
                    } else {
                        format!(
                            "; the constraint contact{} {} {} open, and statics does not close a constraint contact \
                             a body is drawn apart from: draw the body touching its support, or give the contact \
                             method = \"force\"",
                            if open.len() == 1 { "" } else { "s" },
                            open.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", "),
                            if open.len() == 1 { "is" } else { "are" }
                        )
                    };
                    break Err(format!(
                        "static equilibrium at t = {}: {e}{tried}{contact}{neutral}{open}",
                        Compact(target)
                    ));
                }
            }
        };
        inputs_at(&mut self.system, t);
        if solved.is_err() {
            // The history came from this system: it fits.
            let _ = self.system.set_history(modes);
        }
        self.system.at_rest(false);
        solved?;
        self.settled = Some((t, q.clone(), neutral));
        // The equilibrium holds the drives at the current inputs: a driven angle is reported on
        // their branch (`OutputState::drive_inputs`; a crane slewed 6 rad by its input read
        // 6 - 2 pi in statics).
        self.drive_ends.clone_from(&self.system.inputs);
        let s = &mut self.state;
        (s.q, s.lambda, s.t) = (q, lambda, t);
        s.exchanged = s.exchanged + work;
        s.v.fill(0.0);
        s.a.fill(0.0);
        // A step from here starts afresh (matrix, predictor, consistent accelerations).
        self.stepper.workspace.invalidate();
        self.restart_pending = true;
        self.invalidate_outputs();
        Ok(iterations)
    }

    /// What an animation shows of this simulation (bodies, beams, contacts); `model` and
    /// `params` must be those it was created with.
    pub fn scene(&self, model: &Model, params: &[f64]) -> Result<Scene, ModelError> {
        Scene::new(model, params, &self.system)
    }

    /// The coordinates of `scene`'s bodies, beam nodes and contact states now.
    pub fn scene_frame(&self, scene: &Scene) -> SceneFrame {
        scene.frame(&self.system, &self.state.q, &self.state.v, self.state.t)
    }

    /// A state to come back to (an FMU state, a saved run): `copy_state` with the solver's
    /// memory of the last steps (the predictor's histories, the kept Newton matrices, the energy
    /// check's: src/integrators/newton/memory.rs), which the next steps depend on. Taking it
    /// changes nothing (FMI 2.0.4 sec. 2.1.8: fmi2GetFMUstate makes a copy of the state), and
    /// a restored snapshot re-steps bit for bit like the run that took it, in this simulation
    /// or in a new one of the same model. It copies (no factorization): the kept matrices'
    /// values are part of it, and `restore` factorizes them again.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot { solver: Some(self.stepper.workspace.memory(&self.state)), ..self.copy_state() }
    }

    /// The snapshot's contents without the solver's memory: a copy to return to if the next
    /// call fails (taken before every FMU doStep, so it copies only the state; `restore`
    /// starts the method afresh from it, so re-stepping from it takes the same steps as the
    /// original run only up to the Newton tolerance).
    pub fn copy_state(&self) -> Snapshot {
        Snapshot {
            state: self.state.clone(),
            inputs: self.system.inputs.clone(),
            settings: self.settings,
            stats: self.stepper.stats,
            history: self.system.history(),
            next_step: self.next_step,
            restart_pending: self.pending_restart(),
            extrapolation_room: self.extrapolation_room,
            drive_ends: self.drive_ends.clone(),
            input_rates: self.system.input_rates.clone(),
            solver: None,
        }
    }

    /// `copy_state` into `s`, copying into its vectors (no allocation once it has this
    /// simulation's sizes): what a caller that saves a state before every call keeps.
    pub fn copy_state_into(&self, s: &mut Snapshot) {
        s.state.clone_from(&self.state);
        s.inputs.clone_from(&self.system.inputs);
        s.settings = self.settings;
        s.stats = self.stepper.stats;
        self.system.history_into(&mut s.history);
        s.next_step = self.next_step;
        s.restart_pending = self.pending_restart();
        s.extrapolation_room = self.extrapolation_room;
        s.drive_ends.clone_from(&self.drive_ends);
        // Field by field: a derived clone_from would allocate.
        s.input_rates.t0 = self.system.input_rates.t0;
        s.input_rates.rates.clone_from(&self.system.input_rates.rates);
        s.solver = None;
    }

    /// Whether the next `step_to` restarts (`restart_if_inputs_changed`).
    fn pending_restart(&self) -> bool {
        self.restart_pending || (self.inputs_set && self.system.inputs != self.stepped_inputs)
    }

    /// The sizes a snapshot of this simulation has.
    pub fn dimensions(&self) -> Dimensions {
        Dimensions {
            coordinates: self.system.coordinates(),
            constraints: self.system.constraints(),
            inputs: self.system.inputs.len(),
            matrix_entries: self.stepper.workspace.matrix_entries(),
        }
    }

    /// Restore a snapshot of this model. Every field is checked first (`Snapshot::validate`,
    /// `System::set_history`); a snapshot that does not fit is refused and nothing changes.
    /// The solver's memory, where the snapshot has it (`snapshot`), becomes the workspace's
    /// (its kept Newton matrices factorized again); without it (`copy_state`) the method starts
    /// afresh.
    pub fn restore(&mut self, s: &Snapshot) -> Result<(), String> {
        s.validate(self.dimensions())?;
        self.system.set_history(s.history.clone())?;
        self.set_settings(s.settings)?;
        self.state = s.state.clone();
        self.system.inputs.clone_from(&s.inputs);
        self.stepper.stats = s.stats;
        match &s.solver {
            Some(memory) => self.stepper.workspace.restore_memory(memory, &self.state),
            None => self.stepper.workspace.invalidate(),
        }
        self.invalidate_outputs();
        self.next_step = s.next_step;
        self.restart_pending = s.restart_pending;
        self.extrapolation_room = s.extrapolation_room;
        self.drive_ends.clone_from(&s.drive_ends);
        self.inputs_set = false;
        self.stepped_inputs.clone_from(&s.inputs);
        self.input_derivatives.iter_mut().for_each(|d| *d = [0.0; 2]);
        self.system.input_rates.t0 = s.input_rates.t0;
        self.system.input_rates.rates.clone_from(&s.input_rates.rates);
        Ok(())
    }
}

/// Steps per period below which a beam's first bending vibration is not resolved: TTBIF's and
/// the alpha-methods' period error is about (w h)^2/12, 1 % at 20 steps per period, and their
/// numerical damping removes what takes fewer. A model that gives no `step` takes this many
/// per period of its most flexible beam (`SolverSettings::from_model`).
const STEPS_PER_BENDING_PERIOD: f64 = 20.0;

/// The vibration a step must resolve among `kinds`: of each kind the most flexible beam's first
/// (the longest period of that kind: stiffer beams, such as a flexible mechanism's short crank,
/// are usually not what a model follows), and of these the faster.
fn binding_period<'a>(
    periods: &'a [crate::mechanics::assembly::BeamPeriod],
    kinds: &[&str],
) -> Option<&'a crate::mechanics::assembly::BeamPeriod> {
    let slowest =
        |kind: &&str| periods.iter().filter(|p| p.vibration == *kind).max_by(|a, b| a.period.total_cmp(&b.period));
    kinds.iter().filter_map(slowest).min_by(|a, b| a.period.total_cmp(&b.period))
}

/// The period the default step resolves, from an assembly at `params`: the `binding_period`
/// of bending and (spatial beams) torsion; None without beams, or where the model does not
/// assemble (`Simulation::new` reports why). The 1 ms default ran a probe's flexible
/// slider-crank (a 130 Hz rod) at 7.6 steps per period, the rod's midspan deflection 12 % off
/// (0.59 of 4.7 mm), with a warning that asked for 3.8e-4 s; and a spatial cantilever's torsion
/// at 451 Hz at 2.2 steps per period, its frequency 7.6 % low and its amplitude gone within 1 s
/// (probe 40d). A `step` given is warned of for bending only (`step_warnings`): torsion is
/// excited by torques and eccentric loads, and a model that sets its step has chosen what to
/// follow (the crane's boom twists at 230 Hz under its 1 ms step).
fn resolved_period(model: &Model, params: &[f64]) -> Option<f64> {
    if model.definition.beams.is_empty() {
        return None;
    }
    let asm = crate::mechanics::assemble::assemble(model, params).ok()?;
    binding_period(&asm.beam_periods, &["bending", "torsional"]).map(|p| p.period)
}

/// The assembly's warnings, and one if `step` does not resolve `slowest`, the most flexible
/// beam's first bending vibration (`binding_period`): the step of 1 ms ran a probe's flexible
/// slider-crank (a 130 Hz rod) at 8 steps per period, its deflection 2.9 mm off a 6 mm peak,
/// without a word.
fn step_warnings(
    model: &Model,
    slowest: Option<&crate::mechanics::assembly::BeamPeriod>,
    step: f64,
    mut warnings: Vec<ModelError>,
) -> Vec<ModelError> {
    if let Some(p) = slowest.filter(|p| step * STEPS_PER_BENDING_PERIOD > p.period) {
        warnings.push(model.error(
            p.span.clone(),
            format!(
                "the step {} s takes {} steps per period of the first {} vibration of beam '{}' (the \
                 most flexible; period about {:.2e} s, as a beam {} at both ends): its motion at that frequency \
                 is damped and out of phase; for results that follow it set step <= {:.1e} s (or error_control = \
                 true)",
                Compact(step),
                // A decimal below 10, two below 1 (a short stiff beam: 0.21 steps per period, not "0").
                match p.period / step {
                    n if n >= 10.0 => format!("{n:.0}"),
                    n if n >= 1.0 => format!("{n:.1}"),
                    n => format!("{n:.2}"),
                },
                p.vibration,
                p.name,
                p.period,
                if p.vibration == "bending" { "pinned" } else { "held against twist" },
                p.period / STEPS_PER_BENDING_PERIOD
            ),
        ));
    }
    warnings
}

/// How far from the initial configuration (in coordinate scales: the model length, 1 rad) a
/// static equilibrium may be for `Simulation::modes_at_equilibrium` to linearise about it:
/// a model drawn near its equilibrium (a beam drawn unstressed, hanging or sagging; the
/// elastica under its load at the start, 0.46 rad at the tip) is meant to vibrate about it; a
/// model drawn far from it (a pendulum drawn horizontal, a body drawn above what it lands on)
/// is kept as drawn, as before, and told.
const NEAR_EQUILIBRIUM: f64 = 0.5;

/// What `Simulation::modes_at_equilibrium` linearised about.
#[derive(Debug, Clone, PartialEq)]
pub enum Linearisation {
    /// The static equilibrium at the start time: the largest coordinate change from the
    /// initial configuration, in coordinate scales (the model length, 1 rad), and how many
    /// directions it is unstable in (None: not checked).
    Equilibrium { moved: f64, unstable: Option<usize> },
    /// The initial configuration, no static equilibrium having been found near it (why).
    Initial { reason: String },
}

/// Per coordinate, the size of a large motion (`StaticOptions::scales`): 1 for the angle of a
/// rotating planar body or beam node, the slopes of an ANCF node and the Euler parameters of a
/// spatial body or beam node (dimensionless), the model length (`convergence::model_length`
/// of the initial configuration) for every other coordinate.
fn static_scales(system: &System, q0: &[f64]) -> Vec<f64> {
    let mut scales = vec![crate::integrators::convergence::model_length(q0); q0.len()];
    let n = scales.len();
    for node in system.nodes() {
        for k in node.orientation().filter(|&k| k < n) {
            scales[k] = 1.0;
        }
    }
    scales
}
