//! Why `Simulation::step_to` stopped: a step that failed, or an interval it refuses because
//! it cannot be done within the budget of internal steps (`MAX_STEPS_PER_INTERVAL`,
//! src/limits.rs) or does not end at a finite time. The FMU reports each as fmi2Discard.

use crate::compact_number::Compact;
use crate::integrators::{NewtonError, Statistics, StepFailure};
use crate::limits::MAX_STEPS_PER_INTERVAL;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StepError {
    /// An internal step failed even at the smallest step.
    #[error(transparent)]
    Failure(#[from] StepFailure),
    /// The interval needs more internal steps than one `step_to` may take; nothing was done.
    #[error(
        "the interval from t = {} to {} needs {needed:e} internal steps of at most {step:e} s, more than the \
         {MAX_STEPS_PER_INTERVAL} one interval may take (use a larger step or shorter intervals)",
        Compact(*.t),
        Compact(*.t_end)
    )]
    TooManySteps { t: f64, t_end: f64, step: f64, needed: f64 },
    /// The budget ran out inside the interval (rejected steps count too); the state is that
    /// of the last successful internal step.
    #[error(
        "stopped at t = {} on the way to {}: the interval took the {MAX_STEPS_PER_INTERVAL} internal steps \
         (accepted and rejected) one interval may take",
        Compact(*.t),
        Compact(*.t_end)
    )]
    BudgetExhausted { t: f64, t_end: f64 },
    /// The current time or the end of the interval is not a finite number.
    #[error("cannot step from t = {} to {}: both times must be finite", Compact(*.t), Compact(*.t_end))]
    NonFiniteTime { t: f64, t_end: f64 },
    /// The interval or the internal step is lost in the time's round-off: t + step == t.
    #[error(
        "cannot step from t = {} to {}: a step of {} s is below the time resolution there (t + step == t in \
         double precision); start nearer t = 0, or use longer steps",
        Compact(*.t),
        Compact(*.t_end),
        Compact(*.step)
    )]
    BelowTimeResolution { t: f64, t_end: f64, step: f64 },
    /// A redundant constraint row (left out of the Newton matrix at the initial state) no
    /// longer holds: the rank of the constraint Jacobian changed along the motion.
    #[error(
        "at t = {} the redundant constraints of joint '{joint}' are violated by {violation:.3e}: the rank of the \
         constraint Jacobian changed since the initial state, so the rows found redundant there no longer follow \
         from the others (the initial state is a singular position, or the motion left the configurations where \
         those joints repeat each other); start the model away from the singular position, or remove the joint \
         rows that are redundant only there",
        Compact(*.t)
    )]
    RedundancyChanged { t: f64, joint: String, violation: f64 },
    /// The accelerations consistent with changed inputs could not be solved for
    /// (`Simulation::set_input`); nothing was stepped.
    #[error("at t = {} the accelerations consistent with {after} could not be computed: {cause}", Compact(*.t))]
    Restart { t: f64, after: &'static str, cause: NewtonError },
    /// A failed step with what the simulation found about why (`Simulation::step_to`): the
    /// run had lost its energy balance, an element's formulation no longer holds (no step size
    /// helps), a force or drive turned NaN or infinite (the model expression it came from), a
    /// drive asked for a position out of the mechanism's reach, or the inputs' values (inputs a
    /// master drives, an unstable control loop, are a common cause).
    #[error("{failure}\n{diagnosis}")]
    Explained { failure: Box<StepError>, diagnosis: String },
    /// The caller's interrupt (`Simulation::set_interrupt`: Ctrl-C in `simulate`) asked the
    /// interval to stop; the state is that of the last internal step.
    #[error("interrupted at t = {}", Compact(*.t))]
    Interrupted { t: f64 },
}

impl StepError {
    /// Whether an internal step failed (not an interval refused or a budget spent).
    pub fn is_failed_step(&self) -> bool {
        match self {
            StepError::Failure(_) => true,
            StepError::Explained { failure, .. } => failure.is_failed_step(),
            _ => false,
        }
    }

    /// The time at which a failed step's forces, constraints or drives evaluated to NaN or
    /// infinity, if that is why it failed.
    pub fn non_finite_at(&self) -> Option<f64> {
        match self {
            StepError::Failure(StepFailure { cause: NewtonError::NonFinite { t, .. }, .. }) => Some(*t),
            StepError::Explained { failure, .. } => failure.non_finite_at(),
            _ => None,
        }
    }

    /// Where a step that failed even at its smallest size started, and that size (not the
    /// settling of an event).
    pub fn failed_step(&self) -> Option<(f64, f64)> {
        match self {
            StepError::Failure(StepFailure { t, h_min, at_event: false, .. }) => Some((*t, *h_min)),
            StepError::Explained { failure, .. } => failure.failed_step(),
            _ => None,
        }
    }
}

/// The internal steps one `step_to` has taken, counted from the stepper's statistics.
pub struct StepBudget {
    start: u64,
    interrupt: Option<fn() -> bool>,
}

impl StepBudget {
    pub fn new(stats: &Statistics, interrupt: Option<fn() -> bool>) -> StepBudget {
        StepBudget { start: Self::spent(stats), interrupt }
    }

    fn spent(stats: &Statistics) -> u64 {
        stats.steps.saturating_add(stats.rejected_steps)
    }

    /// Err once more than `MAX_STEPS_PER_INTERVAL` steps were taken since `new`, or when the
    /// interrupt asks to stop.
    pub fn check(&self, stats: &Statistics, t: f64, t_end: f64) -> Result<(), StepError> {
        if Self::spent(stats).saturating_sub(self.start) > MAX_STEPS_PER_INTERVAL {
            return Err(StepError::BudgetExhausted { t, t_end });
        }
        if self.interrupt.is_some_and(|stop| stop()) {
            return Err(StepError::Interrupted { t });
        }
        Ok(())
    }
}
