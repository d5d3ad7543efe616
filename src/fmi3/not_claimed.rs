//! The fmi3Functions.h functions of capabilities modelDescription.xml does not claim: Model
//! Exchange, Scheduled Execution, Event Mode (hasEventMode=false), Configuration Mode (no
//! structural parameters), clocks, per-element dependencies, adjoint derivatives
//! (providesAdjointDerivatives = false). They exist because an FMI 3.0 binary exports all
//! of them; each returns fmi3Error (or NULL) with the reason logged.

#![allow(non_snake_case, clippy::missing_safety_doc, clippy::too_many_arguments)]

use std::ffi::c_int;

use super::api::guarded;
use super::instance::Callback;
use super::lifecycle::Call;
use super::types::*;
use crate::fmu::log::Category;

unsafe fn not_claimed(instance: Fmi3Instance, function: &str, reason: &str) -> c_int {
    unsafe {
        guarded(instance, Call::NotClaimed, function, |inst| {
            inst.core.error(&format!("{function}: not supported ({reason})"))
        })
    }
}

const MODEL_EXCHANGE: &str = "this FMU implements Co-Simulation only, not Model Exchange";
const EVENT_MODE: &str = "this FMU has no Event Mode (hasEventMode=false)";
const CLOCKS: &str = "this FMU has no clocks";

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3InstantiateModelExchange(
    _instanceName: Fmi3String,
    _instantiationToken: Fmi3String,
    _resourcePath: Fmi3String,
    _visible: Fmi3Boolean,
    _loggingOn: Fmi3Boolean,
    instanceEnvironment: Fmi3InstanceEnvironment,
    logMessage: Option<LogMessage>,
) -> Fmi3Instance {
    let callback = Callback { log_message: logMessage, environment: instanceEnvironment };
    callback.log(Status::Error, Category::StatusError, &format!("fmi3InstantiateModelExchange: {MODEL_EXCHANGE}"));
    std::ptr::null_mut()
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3InstantiateScheduledExecution(
    _instanceName: Fmi3String,
    _instantiationToken: Fmi3String,
    _resourcePath: Fmi3String,
    _visible: Fmi3Boolean,
    _loggingOn: Fmi3Boolean,
    instanceEnvironment: Fmi3InstanceEnvironment,
    logMessage: Option<LogMessage>,
    _clockUpdate: Option<ClockUpdate>,
    _lockPreemption: Option<LockPreemption>,
    _unlockPreemption: Option<LockPreemption>,
) -> Fmi3Instance {
    let callback = Callback { log_message: logMessage, environment: instanceEnvironment };
    callback.log(
        Status::Error,
        Category::StatusError,
        "fmi3InstantiateScheduledExecution: this FMU implements Co-Simulation only, not Scheduled Execution",
    );
    std::ptr::null_mut()
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3EnterEventMode(instance: Fmi3Instance) -> c_int {
    unsafe { not_claimed(instance, "fmi3EnterEventMode", EVENT_MODE) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3EnterStepMode(instance: Fmi3Instance) -> c_int {
    unsafe {
        not_claimed(
            instance,
            "fmi3EnterStepMode",
            "Step Mode follows fmi3ExitInitializationMode directly; this FMU has no Event Mode (hasEventMode=false)",
        )
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetNumberOfVariableDependencies(
    instance: Fmi3Instance,
    _valueReference: Fmi3ValueReference,
    _nDependencies: *mut usize,
) -> c_int {
    unsafe { not_claimed(instance, "fmi3GetNumberOfVariableDependencies", "providesPerElementDependencies=false") }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetVariableDependencies(
    instance: Fmi3Instance,
    _dependent: Fmi3ValueReference,
    _elementIndicesOfDependent: *mut usize,
    _independents: *mut Fmi3ValueReference,
    _elementIndicesOfIndependents: *mut usize,
    _dependencyKinds: *mut c_int,
    _nDependencies: usize,
) -> c_int {
    unsafe { not_claimed(instance, "fmi3GetVariableDependencies", "providesPerElementDependencies=false") }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetAdjointDerivative(
    instance: Fmi3Instance,
    _unknowns: *const Fmi3ValueReference,
    _nUnknowns: usize,
    _knowns: *const Fmi3ValueReference,
    _nKnowns: usize,
    _seed: *const Fmi3Float64,
    _nSeed: usize,
    _sensitivity: *mut Fmi3Float64,
    _nSensitivity: usize,
) -> c_int {
    unsafe { not_claimed(instance, "fmi3GetAdjointDerivative", "providesAdjointDerivatives=false") }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3EnterConfigurationMode(instance: Fmi3Instance) -> c_int {
    unsafe { not_claimed(instance, "fmi3EnterConfigurationMode", "this FMU has no structural parameters") }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3ExitConfigurationMode(instance: Fmi3Instance) -> c_int {
    unsafe { not_claimed(instance, "fmi3ExitConfigurationMode", "this FMU has no structural parameters") }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetIntervalDecimal(
    instance: Fmi3Instance,
    _valueReferences: *const Fmi3ValueReference,
    _nValueReferences: usize,
    _intervals: *mut Fmi3Float64,
    _qualifiers: *mut c_int,
) -> c_int {
    unsafe { not_claimed(instance, "fmi3GetIntervalDecimal", CLOCKS) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetIntervalFraction(
    instance: Fmi3Instance,
    _valueReferences: *const Fmi3ValueReference,
    _nValueReferences: usize,
    _counters: *mut u64,
    _resolutions: *mut u64,
    _qualifiers: *mut c_int,
) -> c_int {
    unsafe { not_claimed(instance, "fmi3GetIntervalFraction", CLOCKS) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetShiftDecimal(
    instance: Fmi3Instance,
    _valueReferences: *const Fmi3ValueReference,
    _nValueReferences: usize,
    _shifts: *mut Fmi3Float64,
) -> c_int {
    unsafe { not_claimed(instance, "fmi3GetShiftDecimal", CLOCKS) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetShiftFraction(
    instance: Fmi3Instance,
    _valueReferences: *const Fmi3ValueReference,
    _nValueReferences: usize,
    _counters: *mut u64,
    _resolutions: *mut u64,
) -> c_int {
    unsafe { not_claimed(instance, "fmi3GetShiftFraction", CLOCKS) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetIntervalDecimal(
    instance: Fmi3Instance,
    _valueReferences: *const Fmi3ValueReference,
    _nValueReferences: usize,
    _intervals: *const Fmi3Float64,
) -> c_int {
    unsafe { not_claimed(instance, "fmi3SetIntervalDecimal", CLOCKS) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetIntervalFraction(
    instance: Fmi3Instance,
    _valueReferences: *const Fmi3ValueReference,
    _nValueReferences: usize,
    _counters: *const u64,
    _resolutions: *const u64,
) -> c_int {
    unsafe { not_claimed(instance, "fmi3SetIntervalFraction", CLOCKS) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetShiftDecimal(
    instance: Fmi3Instance,
    _valueReferences: *const Fmi3ValueReference,
    _nValueReferences: usize,
    _shifts: *const Fmi3Float64,
) -> c_int {
    unsafe { not_claimed(instance, "fmi3SetShiftDecimal", CLOCKS) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetShiftFraction(
    instance: Fmi3Instance,
    _valueReferences: *const Fmi3ValueReference,
    _nValueReferences: usize,
    _counters: *const u64,
    _resolutions: *const u64,
) -> c_int {
    unsafe { not_claimed(instance, "fmi3SetShiftFraction", CLOCKS) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3EvaluateDiscreteStates(instance: Fmi3Instance) -> c_int {
    unsafe { not_claimed(instance, "fmi3EvaluateDiscreteStates", "providesEvaluateDiscreteStates=false") }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3UpdateDiscreteStates(
    instance: Fmi3Instance,
    _discreteStatesNeedUpdate: *mut Fmi3Boolean,
    _terminateSimulation: *mut Fmi3Boolean,
    _nominalsOfContinuousStatesChanged: *mut Fmi3Boolean,
    _valuesOfContinuousStatesChanged: *mut Fmi3Boolean,
    _nextEventTimeDefined: *mut Fmi3Boolean,
    _nextEventTime: *mut Fmi3Float64,
) -> c_int {
    unsafe { not_claimed(instance, "fmi3UpdateDiscreteStates", EVENT_MODE) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3EnterContinuousTimeMode(instance: Fmi3Instance) -> c_int {
    unsafe { not_claimed(instance, "fmi3EnterContinuousTimeMode", MODEL_EXCHANGE) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3CompletedIntegratorStep(
    instance: Fmi3Instance,
    _noSetFMUStatePriorToCurrentPoint: Fmi3Boolean,
    _enterEventMode: *mut Fmi3Boolean,
    _terminateSimulation: *mut Fmi3Boolean,
) -> c_int {
    unsafe { not_claimed(instance, "fmi3CompletedIntegratorStep", MODEL_EXCHANGE) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetTime(instance: Fmi3Instance, _time: Fmi3Float64) -> c_int {
    unsafe { not_claimed(instance, "fmi3SetTime", MODEL_EXCHANGE) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetContinuousStates(
    instance: Fmi3Instance,
    _continuousStates: *const Fmi3Float64,
    _nContinuousStates: usize,
) -> c_int {
    unsafe { not_claimed(instance, "fmi3SetContinuousStates", MODEL_EXCHANGE) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetContinuousStateDerivatives(
    instance: Fmi3Instance,
    _derivatives: *mut Fmi3Float64,
    _nContinuousStates: usize,
) -> c_int {
    unsafe { not_claimed(instance, "fmi3GetContinuousStateDerivatives", MODEL_EXCHANGE) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetEventIndicators(
    instance: Fmi3Instance,
    _eventIndicators: *mut Fmi3Float64,
    _nEventIndicators: usize,
) -> c_int {
    unsafe { not_claimed(instance, "fmi3GetEventIndicators", MODEL_EXCHANGE) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetContinuousStates(
    instance: Fmi3Instance,
    _continuousStates: *mut Fmi3Float64,
    _nContinuousStates: usize,
) -> c_int {
    unsafe { not_claimed(instance, "fmi3GetContinuousStates", MODEL_EXCHANGE) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetNominalsOfContinuousStates(
    instance: Fmi3Instance,
    _nominals: *mut Fmi3Float64,
    _nContinuousStates: usize,
) -> c_int {
    unsafe { not_claimed(instance, "fmi3GetNominalsOfContinuousStates", MODEL_EXCHANGE) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetNumberOfEventIndicators(
    instance: Fmi3Instance,
    _nEventIndicators: *mut usize,
) -> c_int {
    unsafe { not_claimed(instance, "fmi3GetNumberOfEventIndicators", MODEL_EXCHANGE) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetNumberOfContinuousStates(
    instance: Fmi3Instance,
    _nContinuousStates: *mut usize,
) -> c_int {
    unsafe { not_claimed(instance, "fmi3GetNumberOfContinuousStates", MODEL_EXCHANGE) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3ActivateModelPartition(
    instance: Fmi3Instance,
    _clockReference: Fmi3ValueReference,
    _activationTime: Fmi3Float64,
) -> c_int {
    unsafe {
        not_claimed(
            instance,
            "fmi3ActivateModelPartition",
            "this FMU implements Co-Simulation only, not Scheduled Execution",
        )
    }
}
