//! The exported FMI 3.0 functions of the common and Co-Simulation API: inquiry, logging,
//! instantiation, the lifecycle, fmi3DoStep and the FMU state. Each one: NULL checks, the
//! call-sequence check (`lifecycle::allowed`), the panic barrier (`fmu::panic::barrier`), one
//! call into the core instance. Getters and setters are in `values`, the functions of
//! capabilities not claimed in `not_claimed`.

#![allow(non_snake_case, clippy::missing_safety_doc, clippy::too_many_arguments)]

use std::ffi::{CStr, c_int};

use super::instance::{Callback, Fmi3Component};
use super::lifecycle::{Call, allowed};
use super::types::*;
use crate::fmu::lifecycle::{State, illegal_call};
use crate::fmu::log::Category;
use crate::fmu::panic::barrier;
use crate::fmu::state::handle;

const ERROR: c_int = Status::Error as c_int;

pub(super) unsafe fn text(p: Fmi3String) -> Option<String> {
    if p.is_null() { None } else { Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()) }
}

/// `n` elements at `p`; an empty slice for n == 0 (p may then be NULL), None for NULL otherwise.
pub(super) unsafe fn slice<'a, T>(p: *const T, n: usize) -> Option<&'a [T]> {
    if n == 0 {
        Some(&[])
    } else if p.is_null() {
        None
    } else {
        Some(unsafe { std::slice::from_raw_parts(p, n) })
    }
}

pub(super) unsafe fn slice_mut<'a, T>(p: *mut T, n: usize) -> Option<&'a mut [T]> {
    if n == 0 {
        Some(&mut [])
    } else if p.is_null() {
        None
    } else {
        Some(unsafe { std::slice::from_raw_parts_mut(p, n) })
    }
}

/// The common frame: NULL instance, call-sequence check, panic barrier.
pub(super) unsafe fn guarded(
    instance: Fmi3Instance,
    call: Call,
    function: &str,
    f: impl FnOnce(&mut Fmi3Component) -> Status,
) -> c_int {
    if instance.is_null() {
        return ERROR;
    }
    let p = instance as *mut Fmi3Component;
    // SAFETY: `instance` came from fmi3InstantiateCoSimulation and has not been freed
    // (importer contract).
    let inst = unsafe { &mut *p };
    if !allowed(inst.core.state(), call) {
        return inst.core.error(&illegal_call(
            function,
            allowed(State::InitializationMode, call),
            inst.core.state(),
            "fmi3",
        )) as c_int;
    }
    match barrier(|| f(unsafe { &mut *p })) {
        Ok(status) => status as c_int,
        Err(what) => {
            let inst = unsafe { &mut *p };
            inst.core.fatal(&format!("{function}: internal error (panic: {what}); the instance is unusable")) as c_int
        }
    }
}

pub(super) fn null_argument(inst: &Fmi3Component, function: &str) -> Status {
    inst.core.error(&format!("{function}: NULL argument"))
}

// ---------------------------------------------------------------- inquiry, logging, lifecycle

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetVersion() -> Fmi3String {
    c"3.0".as_ptr()
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetDebugLogging(
    instance: Fmi3Instance,
    loggingOn: Fmi3Boolean,
    nCategories: usize,
    categories: *const Fmi3String,
) -> c_int {
    unsafe {
        guarded(instance, Call::SetDebugLogging, "fmi3SetDebugLogging", |inst| {
            let Some(cats) = slice(categories, nCategories) else { return null_argument(inst, "fmi3SetDebugLogging") };
            let names: Vec<Option<String>> = cats.iter().map(|p| text(*p)).collect();
            inst.core.set_debug_logging("fmi3SetDebugLogging", loggingOn != FMI3_FALSE, &names)
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3InstantiateCoSimulation(
    instanceName: Fmi3String,
    instantiationToken: Fmi3String,
    resourcePath: Fmi3String,
    _visible: Fmi3Boolean,
    loggingOn: Fmi3Boolean,
    eventModeUsed: Fmi3Boolean,
    earlyReturnAllowed: Fmi3Boolean,
    requiredIntermediateVariables: *const Fmi3ValueReference,
    nRequiredIntermediateVariables: usize,
    instanceEnvironment: Fmi3InstanceEnvironment,
    logMessage: Option<LogMessage>,
    _intermediateUpdate: Option<IntermediateUpdate>,
) -> Fmi3Instance {
    let callback = Callback { log_message: logMessage, environment: instanceEnvironment };
    let fail = |msg: &str| {
        callback.log(Status::Error, Category::StatusError, &format!("fmi3InstantiateCoSimulation: {msg}"));
        std::ptr::null_mut()
    };
    let result = barrier(|| {
        let name = unsafe { text(instanceName) };
        let token = unsafe { text(instantiationToken) };
        let resources = unsafe { text(resourcePath) };
        if name.as_deref().is_none_or(|n| n.trim().is_empty()) {
            return fail("instanceName must not be NULL or empty");
        }
        let Some(token) = token else { return fail("instantiationToken is NULL") };
        if eventModeUsed != FMI3_FALSE {
            return fail("eventModeUsed = true, but this FMU has no Event Mode (hasEventMode=false)");
        }
        // earlyReturnAllowed = true lets fmi3DoStep end at the first contact event inside
        // the step (mightReturnEarlyFromDoStep="true" for models with contacts).
        if nRequiredIntermediateVariables > 0 {
            let vrs = unsafe { slice(requiredIntermediateVariables, nRequiredIntermediateVariables) };
            return fail(&format!(
                "requiredIntermediateVariables {:?} requested, but this FMU provides no intermediate update \
                 (providesIntermediateUpdate=false)",
                vrs.unwrap_or_default()
            ));
        }
        let (logging, early) = (loggingOn != FMI3_FALSE, earlyReturnAllowed != FMI3_FALSE);
        match Fmi3Component::instantiate(&token, resources.as_deref(), callback, logging, early) {
            Ok(inst) => Box::into_raw(Box::new(inst)) as Fmi3Instance,
            Err(e) => fail(&e),
        }
    });
    result.unwrap_or_else(|what| fail(&format!("internal error (panic: {what})")))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3FreeInstance(instance: Fmi3Instance) {
    if instance.is_null() {
        return;
    }
    let p = instance as *mut Fmi3Component;
    // Free even after a fatal error: nothing else could reclaim it.
    let _ = barrier(|| drop(unsafe { Box::from_raw(p) }));
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3EnterInitializationMode(
    instance: Fmi3Instance,
    toleranceDefined: Fmi3Boolean,
    tolerance: Fmi3Float64,
    startTime: Fmi3Float64,
    stopTimeDefined: Fmi3Boolean,
    stopTime: Fmi3Float64,
) -> c_int {
    let function = "fmi3EnterInitializationMode";
    unsafe {
        guarded(instance, Call::EnterInitializationMode, function, |inst| {
            // FMI 2's fmi2SetupExperiment and fmi2EnterInitializationMode in one call.
            let status = inst.core.setup_experiment(
                function,
                (toleranceDefined != FMI3_FALSE).then_some(tolerance),
                startTime,
                (stopTimeDefined != FMI3_FALSE).then_some(stopTime),
            );
            if status != Status::Ok {
                return status;
            }
            inst.core.enter_initialization_mode()
        })
    }
}

/// To Step Mode (eventModeUsed is always false here).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3ExitInitializationMode(instance: Fmi3Instance) -> c_int {
    unsafe {
        guarded(instance, Call::ExitInitializationMode, "fmi3ExitInitializationMode", |inst| {
            inst.core.exit_initialization_mode("fmi3ExitInitializationMode")
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3Terminate(instance: Fmi3Instance) -> c_int {
    unsafe { guarded(instance, Call::Terminate, "fmi3Terminate", |inst| inst.core.terminate()) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3Reset(instance: Fmi3Instance) -> c_int {
    unsafe { guarded(instance, Call::Reset, "fmi3Reset", |inst| inst.core.reset()) }
}

// ---------------------------------------------------------------- stepping

/// One communication step. A step the solver cannot complete returns fmi3Discard with
/// terminateSimulation = true and lastSuccessfulTime where the simulation stopped (the
/// instance is then in Step Discarded: values readable, fmi3Terminate, fmi3SetFMUState or
/// fmi3Reset). With earlyReturnAllowed the step ends at the first located event (contact
/// onset or release, impact) inside it: fmi3OK, earlyReturn = true, lastSuccessfulTime the
/// event time, the state just after the event (FMI 3.0.1 section 4.2.1, argument
/// earlyReturn: "the FMU's request for a communication point at lastSuccessfulTime");
/// the next step starts there. eventHandlingNeeded is always false (hasEventMode=false:
/// the importer does not use Event Mode).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3DoStep(
    instance: Fmi3Instance,
    currentCommunicationPoint: Fmi3Float64,
    communicationStepSize: Fmi3Float64,
    _noSetFMUStatePriorToCurrentPoint: Fmi3Boolean,
    eventHandlingNeeded: *mut Fmi3Boolean,
    terminateSimulation: *mut Fmi3Boolean,
    earlyReturn: *mut Fmi3Boolean,
    lastSuccessfulTime: *mut Fmi3Float64,
) -> c_int {
    let function = "fmi3DoStep";
    unsafe {
        guarded(instance, Call::DoStep, function, |inst| {
            if eventHandlingNeeded.is_null()
                || terminateSimulation.is_null()
                || earlyReturn.is_null()
                || lastSuccessfulTime.is_null()
            {
                return null_argument(inst, function);
            }
            let (tc, h) = (currentCommunicationPoint, communicationStepSize);
            let (status, early) = if inst.early_return_allowed {
                inst.core.do_step_to_event(function, tc, h)
            } else {
                (inst.core.do_step(function, tc, h), false)
            };
            *eventHandlingNeeded = FMI3_FALSE;
            *earlyReturn = if early { FMI3_TRUE } else { FMI3_FALSE };
            *terminateSimulation = if status == Status::Discard { FMI3_TRUE } else { FMI3_FALSE };
            *lastSuccessfulTime = inst.core.last_successful_time();
            status
        })
    }
}

// ---------------------------------------------------------------- FMU state
// The core's blob (`fmu::state::FmuState` in the one blob format), boxed: the pointer
// handling is `fmu::state::handle`, shared with FMI 2.0.

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetFMUState(instance: Fmi3Instance, FMUState: *mut Fmi3FmuState) -> c_int {
    let function = "fmi3GetFMUState";
    unsafe { guarded(instance, Call::FmuState, function, |inst| handle::get(&mut inst.core, function, FMUState)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetFMUState(instance: Fmi3Instance, FMUState: Fmi3FmuState) -> c_int {
    let function = "fmi3SetFMUState";
    unsafe { guarded(instance, Call::FmuState, function, |inst| handle::set(&mut inst.core, function, FMUState)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3FreeFMUState(instance: Fmi3Instance, FMUState: *mut Fmi3FmuState) -> c_int {
    unsafe { guarded(instance, Call::FmuState, "fmi3FreeFMUState", |_inst| handle::free(FMUState)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SerializedFMUStateSize(
    instance: Fmi3Instance,
    FMUState: Fmi3FmuState,
    size: *mut usize,
) -> c_int {
    let function = "fmi3SerializedFMUStateSize";
    unsafe {
        guarded(instance, Call::FmuState, function, |inst| {
            handle::serialized_size(&inst.core, function, FMUState, size)
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SerializeFMUState(
    instance: Fmi3Instance,
    FMUState: Fmi3FmuState,
    serializedState: *mut Fmi3Byte,
    size: usize,
) -> c_int {
    let function = "fmi3SerializeFMUState";
    unsafe {
        guarded(instance, Call::FmuState, function, |inst| {
            handle::serialize(&inst.core, function, FMUState, serializedState, size)
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3DeserializeFMUState(
    instance: Fmi3Instance,
    serializedState: *const Fmi3Byte,
    size: usize,
    FMUState: *mut Fmi3FmuState,
) -> c_int {
    let function = "fmi3DeserializeFMUState";
    unsafe {
        guarded(instance, Call::FmuState, function, |inst| {
            handle::deserialize(&inst.core, function, serializedState, size, FMUState)
        })
    }
}
