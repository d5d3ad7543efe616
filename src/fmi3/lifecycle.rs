//! The FMI 3.0 Co-Simulation calling sequence (FMI 3.0.1 section 4.3, figure "Calling
//! sequence of Co-Simulation"; the masks of the Reference FMUs' fmi3Functions.c): one table,
//! `allowed`, checked at the top of every entry point. This FMU has no Event Mode
//! (hasEventMode = false: eventModeUsed is refused at instantiation), no Configuration Mode
//! (no structural parameters), no clocks and no intermediate update, so the reachable states
//! are those of the core's `fmu::lifecycle::State`, read the FMI 3 way:
//! Instantiated, InitializationMode, StepComplete = Step Mode, StepFailed = Step Discarded,
//! Terminated; Fatal after a caught panic.

use crate::fmu::lifecycle::State;

/// Every FMI 3 entry point that takes an instance and can be legal here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    SetDebugLogging,
    FreeInstance,
    EnterInitializationMode,
    ExitInitializationMode,
    Terminate,
    Reset,
    Get,
    Set,
    /// fmi3GetFMUState ... fmi3DeserializeFMUState.
    FmuState,
    DoStep,
    GetDirectionalDerivative,
    GetOutputDerivatives,
    /// A function of a capability this FMU does not claim (Model Exchange, Scheduled
    /// Execution, Event Mode, clocks, adjoint derivatives, ...): legal to call in any state but
    /// Fatal, always answered with fmi3Error and the reason.
    NotClaimed,
}

/// Whether `call` is legal in `state`.
pub fn allowed(state: State, call: Call) -> bool {
    use Call::*;
    use State::*;
    if state == Fatal {
        return false;
    }
    match call {
        SetDebugLogging | FreeInstance | Reset | FmuState | NotClaimed => true,
        EnterInitializationMode => state == Instantiated,
        ExitInitializationMode => state == InitializationMode,
        // Also from Event Mode and Reconfiguration Mode, which this FMU never enters.
        Terminate => matches!(state, StepComplete | StepFailed),
        // Values at the last successful time stay readable after a discarded step.
        Get => matches!(state, Instantiated | InitializationMode | StepComplete | StepFailed | Terminated | Error),
        Set => matches!(state, Instantiated | InitializationMode | StepComplete),
        DoStep => state == StepComplete,
        // The Reference FMUs' masks: Initialization Mode, Step Mode, Terminated (and the
        // values of the last successful time after a discarded step, as for Get).
        GetDirectionalDerivative => matches!(state, InitializationMode | StepComplete | StepFailed | Terminated),
        // Derivatives at the end of the last step: after fmi3ExitInitializationMode.
        GetOutputDerivatives => matches!(state, StepComplete | StepFailed | Terminated),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_the_standard() {
        assert!(allowed(State::Instantiated, Call::EnterInitializationMode));
        assert!(!allowed(State::InitializationMode, Call::EnterInitializationMode));
        assert!(!allowed(State::Instantiated, Call::ExitInitializationMode));
        assert!(!allowed(State::Instantiated, Call::DoStep));
        assert!(!allowed(State::InitializationMode, Call::DoStep));
        assert!(allowed(State::StepComplete, Call::DoStep));
        assert!(!allowed(State::StepFailed, Call::DoStep));
        assert!(!allowed(State::Terminated, Call::DoStep));
        assert!(allowed(State::StepFailed, Call::Terminate));
        assert!(!allowed(State::InitializationMode, Call::Terminate));
        assert!(!allowed(State::Terminated, Call::Set));
        assert!(!allowed(State::StepFailed, Call::Set));
        assert!(allowed(State::Instantiated, Call::Get));
        assert!(!allowed(State::Fatal, Call::Get));
        assert!(!allowed(State::Fatal, Call::Reset));
        assert!(allowed(State::InitializationMode, Call::GetDirectionalDerivative));
        assert!(!allowed(State::Instantiated, Call::GetDirectionalDerivative));
        assert!(!allowed(State::InitializationMode, Call::GetOutputDerivatives));
        assert!(allowed(State::StepComplete, Call::GetOutputDerivatives));
    }
}
