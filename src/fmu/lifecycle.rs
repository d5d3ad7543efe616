//! The Co-Simulation calling sequence (FMI 2.0.5 section 4.2.4): one table, `allowed`,
//! checked by the FMI layer at the top of every entry point, after Reference-FMUs'
//! fmi2Functions.c. The states and calls are those FMI 2 and FMI 3 Co-Simulation share.

/// Instance states (start/end is "no instance"; stepInProgress/stepCanceled need
/// asynchronous stepping, which this FMU does not offer). Part of an FMU state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum State {
    Instantiated,
    InitializationMode,
    StepComplete,
    StepFailed,
    Terminated,
    Error,
    Fatal,
}

/// Every entry point that takes an instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    SetDebugLogging,
    FreeInstance,
    SetupExperiment,
    EnterInitializationMode,
    ExitInitializationMode,
    Terminate,
    Reset,
    Get,
    Set,
    GetFmuState,
    SetFmuState,
    FreeFmuState,
    SerializedFmuStateSize,
    SerializeFmuState,
    DeSerializeFmuState,
    GetDirectionalDerivative,
    SetRealInputDerivatives,
    GetRealOutputDerivatives,
    DoStep,
    GetStatus,
}

/// The message for a call `function` that the standard's table refuses: the state and what
/// may come next (a probe's doStep after a discarded step read a bare "Illegal call
/// sequence"); `in_initialization`: whether the table allows the call in Initialization Mode.
/// `prefix` is "fmi2" or "fmi3".
pub fn illegal_call(function: &str, in_initialization: bool, state: State, prefix: &str) -> String {
    let next = match state {
        // Reads and derivatives are legal in Initialization Mode already (a probe was told to
        // exit it first).
        State::Instantiated if in_initialization => {
            format!("{prefix}EnterInitializationMode first")
        }
        State::Instantiated => format!("initialize first ({prefix}EnterInitializationMode, then exit it)"),
        State::InitializationMode => format!("{prefix}ExitInitializationMode first"),
        State::StepComplete => "the instance is stepping".to_string(),
        State::StepFailed => {
            let set_state = if prefix == "fmi2" { "fmi2SetFMUstate" } else { "fmi3SetFMUState" };
            format!(
                "the last step was discarded (its message says why); {set_state} to a saved state, \
                 {prefix}Terminate or {prefix}Reset"
            )
        }
        State::Terminated => format!("the instance is terminated; {prefix}Reset to use it again"),
        State::Error => format!("an earlier call failed with {prefix}Error; {prefix}Reset or {prefix}FreeInstance"),
        State::Fatal => format!("the instance is unusable; {prefix}FreeInstance"),
    };
    format!("{function}: Illegal call sequence in state {}: {next}", state_name(state, prefix))
}

/// The state's name in the standard of `prefix`: FMI 2.0.5 fig. 7 (stepComplete, stepFailed)
/// or FMI 3.0 fig. 40 (Step Mode, Step Discarded); a probe read FMI 2's names in FMI 3 messages.
fn state_name(state: State, prefix: &str) -> &'static str {
    let fmi3 = prefix == "fmi3";
    match state {
        State::Instantiated if fmi3 => "Instantiated",
        State::Instantiated => "instantiated",
        State::InitializationMode if fmi3 => "Initialization Mode",
        State::InitializationMode => "initializationMode",
        State::StepComplete if fmi3 => "Step Mode",
        State::StepComplete => "stepComplete",
        State::StepFailed if fmi3 => "Step Discarded",
        State::StepFailed => "stepFailed",
        State::Terminated if fmi3 => "Terminated",
        State::Terminated => "terminated",
        State::Error => "error",
        State::Fatal => "fatal",
    }
}

/// Whether `call` is legal in `state`.
pub fn allowed(state: State, call: Call) -> bool {
    use Call::*;
    use State::*;
    if state == Fatal {
        return false;
    }
    match call {
        SetDebugLogging
        | FreeInstance
        | Reset
        | GetFmuState
        | SetFmuState
        | FreeFmuState
        | SerializedFmuStateSize
        | SerializeFmuState
        | DeSerializeFmuState => true,
        SetupExperiment | EnterInitializationMode => state == Instantiated,
        ExitInitializationMode => state == InitializationMode,
        Terminate => matches!(state, StepComplete | StepFailed),
        Get => matches!(state, InitializationMode | StepComplete | StepFailed | Terminated | Error),
        Set => matches!(state, Instantiated | InitializationMode | StepComplete),
        GetDirectionalDerivative => {
            matches!(state, InitializationMode | StepComplete | StepFailed | Terminated | Error)
        }
        SetRealInputDerivatives => matches!(state, Instantiated | InitializationMode | StepComplete),
        GetRealOutputDerivatives => matches!(state, StepComplete | StepFailed | Terminated | Error),
        DoStep => state == StepComplete,
        GetStatus => matches!(state, StepComplete | StepFailed | Terminated),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Before initialization a read or a derivative needs Initialization Mode only, a step
    /// needs it entered and exited (a probe's fmi2GetReal was told to exit it first).
    #[test]
    fn a_call_before_initialization_is_told_what_it_needs() {
        let message = |function, call| {
            illegal_call(function, allowed(State::InitializationMode, call), State::Instantiated, "fmi2")
        };
        let get = message("fmi2GetReal", Call::Get);
        assert!(get.ends_with(": fmi2EnterInitializationMode first"), "{get}");
        let derivative = message("fmi2GetDirectionalDerivative", Call::GetDirectionalDerivative);
        assert!(derivative.ends_with(": fmi2EnterInitializationMode first"), "{derivative}");
        let step = message("fmi2DoStep", Call::DoStep);
        assert!(step.ends_with("initialize first (fmi2EnterInitializationMode, then exit it)"), "{step}");
    }

    #[test]
    fn table_matches_the_standard() {
        assert!(allowed(State::StepComplete, Call::DoStep));
        assert!(!allowed(State::Instantiated, Call::DoStep));
        assert!(!allowed(State::InitializationMode, Call::DoStep));
        assert!(!allowed(State::StepComplete, Call::SetupExperiment));
        assert!(!allowed(State::Instantiated, Call::Get));
        assert!(!allowed(State::Terminated, Call::Set));
        assert!(!allowed(State::Fatal, Call::Get));
        assert!(allowed(State::StepFailed, Call::Terminate));
    }
}
