//! Time integrators for the index-3 DAE. They see the system only through [`Dynamics`].

pub mod bathe;
pub mod constraints;
pub mod contact_step;
pub mod convergence;
pub mod dynamics;
pub mod energy_check;
pub mod error_control;
pub mod generalized_alpha;
pub mod hht;
pub mod integrator;
pub mod method;
pub mod newmark;
pub mod newton;
pub mod predictor;
pub mod stages;
pub mod ttbif;

pub use constraints::{BaumgarteConstants, ConstraintTreatment};
use contact_step::ContactStep;
pub use dynamics::{
    ContactOutlook, Dynamics, EnergyFlow, EventAction, Stride, TangentCoefficients, largest_ratio, stiffest_ratio,
};
pub use error_control::ErrorControl;
pub use integrator::{Integrator, TimeIntegrator};
pub use method::Method;
pub use newton::{NewtonError, NewtonSettings, NewtonStrategy, SolverMemory, Statistics, StepContext, Workspace};
pub use predictor::StageMemory;
pub use stages::StepBuffers;

/// Everything that evolves in time. `aux` is a method's extra vector (generalized-alpha's
/// pseudo-acceleration; equal to `a` for the other methods).
#[derive(Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct State {
    pub t: f64,
    pub q: Vec<f64>,
    pub v: Vec<f64>,
    pub a: Vec<f64>,
    pub lambda: Vec<f64>,
    pub aux: Vec<f64>,
    /// Energy dissipated and supplied since the start (J).
    pub exchanged: EnergyFlow,
}

impl Clone for State {
    fn clone(&self) -> Self {
        State {
            t: self.t,
            q: self.q.clone(),
            v: self.v.clone(),
            a: self.a.clone(),
            lambda: self.lambda.clone(),
            aux: self.aux.clone(),
            exchanged: self.exchanged,
        }
    }

    /// Copies into the vectors already there (no allocation when the sizes agree).
    fn clone_from(&mut self, source: &Self) {
        self.t = source.t;
        self.q.clone_from(&source.q);
        self.v.clone_from(&source.v);
        self.a.clone_from(&source.a);
        self.lambda.clone_from(&source.lambda);
        self.aux.clone_from(&source.aux);
        self.exchanged = source.exchanged;
    }
}

impl State {
    /// Whether every number is finite: a state that is not is never accepted.
    pub fn is_finite(&self) -> bool {
        let finite = |x: &[f64]| x.iter().all(|x| x.is_finite());
        self.t.is_finite()
            && self.exchanged.is_finite()
            && finite(&self.q)
            && finite(&self.v)
            && finite(&self.a)
            && finite(&self.lambda)
            && finite(&self.aux)
    }

    pub fn zeros(n: usize, m: usize) -> Self {
        State {
            t: 0.0,
            q: vec![0.0; n],
            v: vec![0.0; n],
            a: vec![0.0; n],
            lambda: vec![0.0; m],
            aux: vec![0.0; n],
            exchanged: EnergyFlow::default(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct StepFailure {
    pub t: f64,
    pub h_min: f64,
    pub cause: NewtonError,
    /// The step reached an event (an impact, a release) whose settling failed: such a step is
    /// accepted before the event is settled, so it is not retried shorter.
    pub at_event: bool,
}

impl StepFailure {
    fn describe(&self) -> String {
        let t = crate::compact_number::Compact(self.t);
        if self.at_event {
            format!("the event at t = {t} (an impact or a contact's release) could not be settled: {}", self.cause)
        } else {
            format!("step from t = {t} failed even at the smallest step {:e} s: {}", self.h_min, self.cause)
        }
    }
}

/// Advances a [`State`] with one integrator, reusing the Newton workspace.
pub struct Stepper {
    pub integrator: Integrator,
    pub newton: NewtonSettings,
    pub stats: Statistics,
    pub workspace: Workspace,
    buffers: StepBuffers,
    trial: State,
    /// What the method kept of the step in `trial` (and in `single`) for its predictor.
    trial_memory: StageMemory,
    single_memory: StageMemory,
    /// An event update that failed after its step was accepted (not retried with halves).
    event_failure: Option<NewtonError>,
    /// The single step and the half-step state of an error-controlled step.
    single: State,
    half: State,
    /// Whether `step` ends at the first located event instead of going on to the end of its
    /// interval (what an FMI 3.0 early return needs).
    pub stop_at_events: bool,
    /// With `stop_at_events`: the time of the event the stepper stopped at, until
    /// `take_event_stop`.
    event_stop: Option<f64>,
    /// The state before `step`, put back if it fails.
    start: State,
    /// Event location: the latest step that ends after the crossing, and the event functions
    /// at the step's start (`g0`), at the two ends of the bracket (`ga`, `gb`) and at a trial
    /// end (`g`), each of length `Dynamics::event_count`.
    best: State,
    g0: Vec<f64>,
    ga: Vec<f64>,
    gb: Vec<f64>,
    g: Vec<f64>,
    /// The impulse system's buffers of `settle_events`: the constraint-velocity jump and the
    /// velocities before it (length m), the velocity change and the impulse.
    jump: Vec<f64>,
    w: Vec<f64>,
    dv: Vec<f64>,
    impulse: Vec<f64>,
    /// Whether closed compliant contacts limit the step (src/integrators/contact_step.rs; on
    /// by default, off for studies of the plain fixed-step method).
    pub contact_step_limit: bool,
    contact_step: ContactStep,
    /// The shortest sub-step the contact limit may ask for in the current `step`.
    contact_floor: f64,
    /// The first time a contact asked for a sub-step below `contact_floor`: (t, its limit, the
    /// floor). Its impact is then not resolved; a diagnosis of the run, not part of the state.
    pub unresolved_contact: Option<(f64, f64, f64)>,
    /// The span of `event_storm`'s count (the model's step, `Simulation` sets it) and the
    /// window being counted: its start and the events located in it.
    pub event_span: f64,
    event_window: (f64, usize),
    /// The first window of `event_span` in which EVENT_STORM events were located: (its start,
    /// the time reached). A diagnosis of the run, like `unresolved_contact`.
    pub event_storm: Option<(f64, f64)>,
}

/// Located events within one model step beyond which the run is told it crawls: contacts that
/// close and open again in ever shorter intervals (a pile of balls held by constraint
/// contacts: 38,000 steps for 0.02 s, docs/model-file.md), each event a located step and a
/// restart. A Newton's cradle locates a handful per step. Counted in windows of the model's
/// step, not per internal step: the error-controlled step shrinks in such a storm.
pub const EVENT_STORM: usize = 100;

/// A step that fails is retried as two halves, down to 2^-MAX_HALVINGS of the step.
pub const MAX_HALVINGS: u32 = 12;

impl Stepper {
    pub fn new(sys: &dyn Dynamics, integrator: Integrator, newton: NewtonSettings) -> Self {
        let (n, m) = (sys.coordinates(), sys.constraints());
        Stepper {
            integrator,
            newton,
            stats: Statistics::default(),
            workspace: Workspace::new(sys),
            buffers: StepBuffers::new(n, m),
            trial: State::zeros(n, m),
            trial_memory: StageMemory::new(n, m),
            single_memory: StageMemory::new(n, m),
            event_failure: None,
            single: State::zeros(n, m),
            half: State::zeros(n, m),
            stop_at_events: false,
            event_stop: None,
            start: State::zeros(n, m),
            best: State::zeros(n, m),
            g0: Vec::new(),
            jump: vec![0.0; m],
            w: vec![0.0; m],
            dv: vec![0.0; n],
            impulse: vec![0.0; m],
            ga: Vec::new(),
            gb: Vec::new(),
            g: Vec::new(),
            contact_step_limit: true,
            contact_step: ContactStep::new(sys),
            contact_floor: 0.0,
            unresolved_contact: None,
            event_span: 0.0,
            event_window: (f64::NEG_INFINITY, 0),
            event_storm: None,
        }
    }

    /// Allocate what the steps from `state` will need of the contact step limit's LU
    /// (`ContactStep::warm_up`; nothing is counted).
    pub fn warm_up(&mut self, sys: &dyn Dynamics, state: &State) {
        self.contact_step.warm_up(sys, state);
    }

    /// The time of the event a step stopped at (`stop_at_events`), once; None if none did.
    pub fn take_event_stop(&mut self) -> Option<f64> {
        self.event_stop.take()
    }

    /// Whether a step stopped at an event (`stop_at_events`) and `take_event_stop` has not
    /// been called since.
    pub fn stopped_at_event(&self) -> bool {
        self.event_stop.is_some()
    }

    /// One integrator step of size h from `state` into `self.trial`.
    fn integrate(&mut self, sys: &mut dyn Dynamics, state: &State, h: f64) -> Result<(), NewtonError> {
        sys.prepare(&self.integrator.evaluation_times(state.t, h));
        let mut cx =
            StepContext { sys: &*sys, workspace: &mut self.workspace, settings: &self.newton, stats: &mut self.stats };
        self.buffers.memory.clear();
        self.integrator.step(&mut cx, &mut self.buffers, state, h, &mut self.trial)?;
        std::mem::swap(&mut self.buffers.memory, &mut self.trial_memory);
        self.workspace.check_energy(&*sys, state, &self.trial)
    }

    /// One attempt at a step of at most h. If an event function changes sign over the step,
    /// the step is shortened to end just after the earliest change (located by the Illinois
    /// variant of regula falsi on the step size, each trial a full step from `state`).
    /// On failure `state` is untouched.
    fn try_step(&mut self, sys: &mut dyn Dynamics, state: &mut State, h: f64) -> Result<(), NewtonError> {
        self.integrate(sys, state, h)?;
        if !self.trial.is_finite() {
            return Err(NewtonError::NonFiniteResult { t: state.t + h });
        }
        self.accept_trial(sys, state, h)
    }

    /// Accept the step of size h in `self.trial` (shortened first if an event lies inside it)
    /// into `state`.
    fn accept_trial(&mut self, sys: &mut dyn Dynamics, state: &mut State, h: f64) -> Result<(), NewtonError> {
        let events = sys.event_count();
        let mut located = false;
        if events > 0 {
            for g in [&mut self.g0, &mut self.ga, &mut self.gb, &mut self.g] {
                g.resize(events, 0.0);
            }
            sys.event_functions(&state.q, &state.v, &state.lambda, state.t, &mut self.g0);
            sys.event_functions(&self.trial.q, &self.trial.v, &self.trial.lambda, self.trial.t, &mut self.gb);
            if crossing(&self.g0, &self.gb).is_some() {
                self.locate_event(sys, state, h)?;
                located = true;
            }
        }
        self.workspace.record_step(self.trial.t - state.t, &state.a, &state.lambda, &self.trial_memory);
        if located {
            // The extrapolating predictor would span steps of very different sizes.
            self.workspace.invalidate();
        }
        std::mem::swap(state, &mut self.trial);
        sys.step_accepted(&state.q, &state.v, state.t);
        self.stats.steps += 1;
        if located {
            let (start, count) = &mut self.event_window;
            if state.t - *start > self.event_span {
                (*start, *count) = (state.t, 0);
            }
            *count += 1;
            if *count == EVENT_STORM && self.event_storm.is_none() {
                self.event_storm = Some((*start, state.t));
            }
            // The step is accepted: a failure here cannot be cured by a shorter step.
            if let Err(e) = self.settle_events(sys, state) {
                self.event_failure = Some(e.clone());
                return Err(e);
            }
            if self.stop_at_events && self.event_stop.is_none() {
                self.event_stop = Some(state.t);
            }
        }
        Ok(())
    }

    /// Let the system make its discrete changes at an event (`Dynamics::event_update`):
    /// velocity jumps through the impulse system [M Phi_q^T; Phi_q 0] and a clean restart from
    /// consistent accelerations and multipliers (the index-1 solve of the initial state).
    /// Returns whether anything changed.
    pub fn settle_events(&mut self, sys: &mut dyn Dynamics, state: &mut State) -> Result<bool, NewtonError> {
        let m = sys.constraints();
        let (jump, w, dv, impulse) = (&mut self.jump, &mut self.w, &mut self.dv, &mut self.impulse);
        let mut changed = false;
        // A chain of touching contacts takes an impact and a release round per contact.
        for _ in 0..MAX_EVENT_UPDATES + 2 * m {
            jump.fill(0.0);
            match sys.event_update(&state.q, &state.v, &state.lambda, state.t, jump) {
                EventAction::None => break,
                EventAction::Switch => changed = true,
                EventAction::Jump => {
                    changed = true;
                    sys.constraint_velocity(&state.q, &state.v, state.t, w);
                    // Without the resting contacts the impulse would pull on (a hammer
                    // striking a table does not pull down the ball resting on it): they part,
                    // and the jump is solved again (their jump entries are 0).
                    loop {
                        self.workspace.velocity_jump(
                            sys,
                            (&state.q, &state.v, state.t),
                            jump,
                            (dv, impulse),
                            &mut self.stats,
                        )?;
                        if !sys.release_tensile(&state.q, impulse) {
                            break;
                        }
                    }
                    for (x, d) in state.v.iter_mut().zip(dv.iter()) {
                        *x += d;
                    }
                    // With w = Phi_q v + Phi_t: T+ - T- = -(1/2) impulse . Phi_q (v+ + v-)
                    // = -(1/2) impulse . (w- + w+) + impulse . Phi_t, w+ = w- + jump. The first
                    // part is lost in the impact; the second is the work of the drives, which
                    // move their rows while the impulse acts (a ball striking a table lifted at
                    // 0.5 m/s: 1.53 J that `energy_supplied` missed, a probe).
                    let lost: f64 = (0..m).map(|i| 0.5 * impulse[i] * (2.0 * w[i] + jump[i])).sum();
                    state.exchanged.dissipated += lost;
                    dv.fill(0.0);
                    sys.constraint_velocity(&state.q, dv, state.t, w);
                    state.exchanged.supplied += (0..m).map(|i| impulse[i] * w[i]).sum::<f64>();
                    // The impacting row starts at the penetration where the event was located
                    // (up to the event tolerance past zero): put q on the active constraints
                    // now. Left to the next step, an index-3 row would remove it within that
                    // step, and a step cut short by the next event (a chain of contacts) can
                    // be 1e-11 s long: the velocity error delta/h would be of order 0.1 m/s.
                    sys.constraint_residual(&state.q, state.t, w);
                    self.workspace.position_correction(w, dv)?;
                    for (x, d) in state.q.iter_mut().zip(dv.iter()) {
                        *x += d;
                    }
                }
            }
            self.workspace.consistent_accelerations(
                sys,
                (&state.q, &state.v, state.t),
                &mut state.a,
                &mut state.lambda,
                &mut self.stats,
            )?;
            state.aux.copy_from_slice(&state.a);
        }
        if changed {
            self.workspace.invalidate();
        }
        Ok(changed)
    }

    /// Shrink the step [0, h] whose end (event functions `self.gb`) differs in sign from its
    /// start (`self.g0`) until it ends within `EVENT_TOLERANCE * h` after the first sign
    /// change; leaves that step in `self.trial`.
    fn locate_event(&mut self, sys: &mut dyn Dynamics, state: &State, h: f64) -> Result<(), NewtonError> {
        let tolerance = EVENT_TOLERANCE * h;
        let (mut ha, mut hb) = (0.0, h);
        self.ga.copy_from_slice(&self.g0);
        self.best.clone_from(&self.trial);
        // Illinois: halve the retained end's value when the same end is kept twice.
        let mut kept_b = 0u32;
        let mut kept_a = 0u32;
        for _ in 0..MAX_EVENT_ITERATIONS {
            if hb - ha <= tolerance {
                break;
            }
            let Some(i) = crossing(&self.ga, &self.gb) else { break };
            let (mut fa, mut fb) = (self.ga[i], self.gb[i]);
            if kept_b >= 2 {
                fb *= 0.5f64.powi(kept_b as i32 - 1);
            }
            if kept_a >= 2 {
                fa *= 0.5f64.powi(kept_a as i32 - 1);
            }
            let theta = if fb != fa { fa / (fa - fb) } else { 0.5 };
            let hm = (ha + theta.clamp(0.0, 1.0) * (hb - ha)).clamp(ha + 0.25 * tolerance, hb - 0.25 * tolerance);
            self.integrate(sys, state, hm)?;
            sys.event_functions(&self.trial.q, &self.trial.v, &self.trial.lambda, self.trial.t, &mut self.g);
            if crossing(&self.g0, &self.g).is_some() {
                hb = hm;
                self.gb.copy_from_slice(&self.g);
                self.best.clone_from(&self.trial);
                kept_a += 1;
                kept_b = 0;
            } else {
                ha = hm;
                self.ga.copy_from_slice(&self.g);
                kept_b += 1;
                kept_a = 0;
            }
        }
        std::mem::swap(&mut self.trial, &mut self.best);
        Ok(())
    }

    /// Advance by h; a failing step is rejected and retried as two half steps, recursively.
    /// On failure `state` is unchanged; what the system recorded for the sub-steps it had
    /// accepted is the caller's to discard (`Simulation::step_to` puts its history back).
    pub fn step(&mut self, sys: &mut dyn Dynamics, state: &mut State, h: f64) -> Result<(), StepFailure> {
        self.start.clone_from(state);
        self.contact_floor = h * 0.5f64.powi(MAX_HALVINGS as i32);
        let result = self.step_halving(sys, state, h, 0);
        if result.is_err() {
            state.clone_from(&self.start);
        }
        result
    }

    fn step_halving(
        &mut self,
        sys: &mut dyn Dynamics,
        state: &mut State,
        h: f64,
        depth: u32,
    ) -> Result<(), StepFailure> {
        let t_end = state.t + h;
        // A step may end early at an event; the rest of h follows (unless the stepper is to
        // stop at the event: `stop_at_events`).
        while t_end - state.t > EVENT_TOLERANCE * h {
            if self.event_stop.is_some() {
                return Ok(());
            }
            let rest = t_end - state.t;
            // While a compliant contact is closed, sub-steps resolve its time scale.
            let limit = if self.contact_step_limit {
                self.contact_step.limit(sys, state, rest, &mut self.stats)
            } else {
                f64::INFINITY
            };
            if limit < self.contact_floor && self.unresolved_contact.is_none() {
                self.unresolved_contact = Some((state.t, limit, self.contact_floor));
            }
            let h_try = contact_step::sub_step(rest, limit, self.contact_floor);
            // A kink of a prescribed motion ends the step.
            let (h_try, kink) = up_to_kink(sys, state, h_try, h);
            if h_try == 0.0 {
                self.pass_kink(sys, state, kink)?;
                continue;
            }
            let t_try = if h_try < rest { state.t + h_try } else { t_end };
            match self.try_step(sys, state, h_try) {
                Ok(()) => {
                    if state.t == t_try && kink.is_finite() {
                        self.pass_kink(sys, state, kink)?;
                    }
                }
                Err(cause) => {
                    if let Some(cause) = self.event_failure.take() {
                        return Err(StepFailure { t: state.t, h_min: h_try, cause, at_event: true });
                    }
                    self.stats.rejected_steps += 1;
                    self.workspace.invalidate();
                    if depth >= MAX_HALVINGS {
                        return Err(StepFailure { t: state.t, h_min: h_try, cause, at_event: false });
                    }
                    self.step_halving(sys, state, 0.5 * h_try, depth + 1)?;
                    self.step_halving(sys, state, t_try - state.t, depth + 1)?;
                }
            }
        }
        Ok(())
    }
}

impl Stepper {
    /// One error-controlled step of at most `h` (src/integrators/error_control.rs): the single
    /// step is accepted when its estimated local error is within the tolerances, otherwise (or
    /// when Newton fails) it is retried smaller, each retry counted in `rejected_steps`.
    /// Returns (step taken, proposed next step); the step taken is shorter than the one tried
    /// if an event lies inside it. On failure `state` is unchanged, except after an event
    /// update that failed once its step was accepted.
    pub fn error_controlled_step(
        &mut self,
        sys: &mut dyn Dynamics,
        state: &mut State,
        h: f64,
        control: &ErrorControl,
        h_min: f64,
    ) -> Result<(f64, f64), StepFailure> {
        let mut h = h.max(h_min);
        loop {
            // A kink of a prescribed motion ends the step.
            let (h_kink, kink) = up_to_kink(sys, state, h, h);
            if h_kink == 0.0 {
                let t0 = state.t;
                self.pass_kink(sys, state, kink)?;
                return Ok((state.t - t0, h));
            }
            h = h_kink;
            // The factor to retry with, and why.
            let (factor, cause) = match self.single_and_halves(sys, state, h) {
                Ok(()) => {
                    let err = control.error_norm(
                        h,
                        sys.constraints() > 0,
                        (&state.q, &state.v),
                        (&self.single.q, &self.single.v),
                        (&self.trial.q, &self.trial.v),
                    );
                    if err <= 1.0 {
                        std::mem::swap(&mut self.trial, &mut self.single);
                        std::mem::swap(&mut self.trial_memory, &mut self.single_memory);
                        let t0 = state.t;
                        match self.accept_trial(sys, state, h) {
                            Ok(()) => {
                                if state.t == t0 + h && kink.is_finite() {
                                    self.pass_kink(sys, state, kink)?;
                                }
                                return Ok((state.t - t0, h * ErrorControl::step_factor(err)));
                            }
                            Err(cause) => {
                                if let Some(cause) = self.event_failure.take() {
                                    return Err(StepFailure { t: state.t, h_min: h, cause, at_event: true });
                                }
                                (SHRINK_LIMIT, cause)
                            }
                        }
                    } else {
                        (ErrorControl::step_factor(err).min(SAFETY), NewtonError::LocalErrorTest(err))
                    }
                }
                Err(cause) => (SHRINK_LIMIT, cause),
            };
            self.stats.rejected_steps += 1;
            self.workspace.invalidate();
            if h <= h_min {
                return Err(StepFailure { t: state.t, h_min: h, cause, at_event: false });
            }
            h = (h * factor).max(h_min);
        }
    }

    /// The single step of size h into `self.single` and two half steps into `self.trial`.
    fn single_and_halves(&mut self, sys: &mut dyn Dynamics, state: &State, h: f64) -> Result<(), NewtonError> {
        self.integrate(sys, state, h)?;
        std::mem::swap(&mut self.trial, &mut self.single);
        std::mem::swap(&mut self.trial_memory, &mut self.single_memory);
        self.integrate(sys, state, 0.5 * h)?;
        std::mem::swap(&mut self.trial, &mut self.half);
        let half = std::mem::take(&mut self.half);
        let result = self.integrate(sys, &half, state.t + h - half.t);
        self.half = half;
        result?;
        if !(self.single.is_finite() && self.trial.is_finite()) {
            return Err(NewtonError::NonFiniteResult { t: state.t + h });
        }
        Ok(())
    }
}

use error_control::{SAFETY, SHRINK_LIMIT};

/// A step of at most h from `state`, shortened to end at the first kink of the prescribed
/// motions inside it (`Dynamics::kink`), and the kink's time (infinite if none). A kink
/// within EVENT_TOLERANCE of the nominal step h is passed where the state is (a step of 0).
fn up_to_kink(sys: &dyn Dynamics, state: &State, h: f64, nominal: f64) -> (f64, f64) {
    match sys.kink(state.t, state.t + h) {
        Some(tk) if tk - state.t <= EVENT_TOLERANCE * nominal => (0.0, tk),
        Some(tk) => (tk - state.t, tk),
        None => (h, f64::INFINITY),
    }
}

impl Stepper {
    /// At the kink `tk` of a prescribed motion, which the last step ended on (to rounding):
    /// the velocities are projected onto the new rates with the resting contacts opened
    /// (`Workspace::project_onto_constraints`), the energy of that impulse counts as supplied,
    /// and the method restarts from consistent accelerations after the events are settled
    /// (each contact the jump presses takes an impact, each it leaves parts). Stepped across,
    /// a drive that stops (`0.5*min(t, T)`) hit the body on it within one stage: a ball on a
    /// table stopping at 0.5 m/s left it at 0.125 m/s (a probe).
    fn pass_kink(&mut self, sys: &mut dyn Dynamics, state: &mut State, tk: f64) -> Result<(), StepFailure> {
        let failure = |cause| StepFailure { t: tk, h_min: 0.0, cause, at_event: true };
        state.t = tk;
        let (k0, p0) = sys.mechanical_energy(&state.q, &state.v, state.t);
        let moved = self
            .workspace
            .project_onto_constraints(sys, (&mut state.q, &mut state.v, tk), self.newton.tolerance, &mut self.stats)
            .map_err(failure)?;
        if moved {
            let (k1, p1) = sys.mechanical_energy(&state.q, &state.v, state.t);
            state.exchanged.supplied += (k1 + p1) - (k0 + p0);
        }
        self.workspace
            .consistent_accelerations(sys, (&state.q, &state.v, tk), &mut state.a, &mut state.lambda, &mut self.stats)
            .map_err(failure)?;
        state.aux.copy_from_slice(&state.a);
        self.settle_events(sys, state).map_err(failure)?;
        self.workspace.invalidate();
        Ok(())
    }
}

/// Events are located to this fraction of the step that crosses them.
pub const EVENT_TOLERANCE: f64 = 1e-7;
const MAX_EVENT_ITERATIONS: usize = 60;
/// Bound on the rounds of `Dynamics::event_update` at one event.
const MAX_EVENT_UPDATES: usize = 8;

/// The event whose sign (`>= 0` or `< 0`) differs between `a` and `b` and whose linear
/// interpolation crosses zero first.
fn crossing(a: &[f64], b: &[f64]) -> Option<usize> {
    let mut first: Option<(usize, f64)> = None;
    for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
        if (x >= 0.0) != (y >= 0.0) {
            let theta = if x != y { x / (x - y) } else { 0.0 };
            if first.is_none_or(|(_, t)| theta < t) {
                first = Some((i, theta));
            }
        }
    }
    first.map(|(i, _)| i)
}
