//! The 34 exported FMI 2.0 functions (25 common + 9 Co-Simulation). Each one: NULL checks,
//! the call-sequence check (`fmu::lifecycle::allowed`), the panic barrier
//! (`fmu::panic::barrier`), one call into the core instance (`fmu::Instance`).

#![allow(non_snake_case, clippy::missing_safety_doc, clippy::too_many_arguments)]

use std::ffi::{CStr, c_int};

use super::component::{Component, c_text, log_with};
use super::types::*;
use crate::fmu::lifecycle::{Call, State, allowed, illegal_call};
use crate::fmu::log::Category;
use crate::fmu::panic::barrier;
use crate::fmu::state::handle;
use crate::fmu::variables::VarType;

const OK: c_int = Status::Ok as c_int;
const DISCARD: c_int = Status::Discard as c_int;
const ERROR: c_int = Status::Error as c_int;
const FATAL: c_int = Status::Fatal as c_int;

unsafe fn text(p: Fmi2String) -> Option<String> {
    if p.is_null() { None } else { Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()) }
}

/// `n` elements at `p`; an empty slice for n == 0 (p may then be NULL), None for NULL otherwise.
unsafe fn slice<'a, T>(p: *const T, n: usize) -> Option<&'a [T]> {
    if n == 0 {
        Some(&[])
    } else if p.is_null() {
        None
    } else {
        Some(unsafe { std::slice::from_raw_parts(p, n) })
    }
}

unsafe fn slice_mut<'a, T>(p: *mut T, n: usize) -> Option<&'a mut [T]> {
    if n == 0 {
        Some(&mut [])
    } else if p.is_null() {
        None
    } else {
        Some(unsafe { std::slice::from_raw_parts_mut(p, n) })
    }
}

/// The common frame: NULL instance, call-sequence check, panic barrier.
unsafe fn guarded(c: Fmi2Component, call: Call, function: &str, f: impl FnOnce(&mut Component) -> Status) -> c_int {
    if c.is_null() {
        return ERROR;
    }
    let p = c as *mut Component;
    // SAFETY: `c` came from fmi2Instantiate and has not been freed (importer contract).
    let inst = unsafe { &mut *p };
    if !allowed(inst.core.state(), call) {
        return inst.core.error(&illegal_call(
            function,
            allowed(State::InitializationMode, call),
            inst.core.state(),
            "fmi2",
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

fn null_argument(inst: &Component, function: &str) -> Status {
    inst.core.error(&format!("{function}: NULL argument"))
}

// ---------------------------------------------------------------- inquiry, logging, lifecycle

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetTypesPlatform() -> Fmi2String {
    c"default".as_ptr()
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetVersion() -> Fmi2String {
    c"2.0".as_ptr()
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetDebugLogging(
    c: Fmi2Component,
    loggingOn: Fmi2Boolean,
    nCategories: usize,
    categories: *const Fmi2String,
) -> c_int {
    unsafe {
        guarded(c, Call::SetDebugLogging, "fmi2SetDebugLogging", |inst| {
            let Some(cats) = slice(categories, nCategories) else { return null_argument(inst, "fmi2SetDebugLogging") };
            let names: Vec<Option<String>> = cats.iter().map(|p| text(*p)).collect();
            inst.core.set_debug_logging("fmi2SetDebugLogging", loggingOn != FMI2_FALSE, &names)
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2Instantiate(
    instanceName: Fmi2String,
    fmuType: c_int,
    fmuGUID: Fmi2String,
    fmuResourceLocation: Fmi2String,
    functions: *const CallbackFunctions,
    _visible: Fmi2Boolean,
    loggingOn: Fmi2Boolean,
) -> Fmi2Component {
    if functions.is_null() {
        return std::ptr::null_mut();
    }
    // Copy the struct: the pointer is only valid during this call.
    let callbacks = unsafe { *functions };
    let name = unsafe { text(instanceName) };
    let fail = |msg: &str| {
        log_with(&callbacks, &c_text(name.as_deref().unwrap_or("")), Status::Error, Category::StatusError, msg);
        std::ptr::null_mut()
    };
    let result = barrier(|| {
        let guid = unsafe { text(fmuGUID) };
        let resources = unsafe { text(fmuResourceLocation) };
        let Some(name) = name.as_deref() else { return fail("fmi2Instantiate: instanceName is NULL") };
        let Some(guid) = guid else { return fail("fmi2Instantiate: fmuGUID is NULL") };
        match Component::instantiate(name, fmuType, &guid, resources.as_deref(), callbacks, loggingOn != FMI2_FALSE) {
            Some(inst) => Box::into_raw(Box::new(inst)) as Fmi2Component,
            None => std::ptr::null_mut(),
        }
    });
    result.unwrap_or_else(|what| fail(&format!("fmi2Instantiate: internal error (panic: {what})")))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2FreeInstance(c: Fmi2Component) {
    if c.is_null() {
        return;
    }
    let p = c as *mut Component;
    // Free even after an illegal call or a fatal error: nothing else could reclaim it.
    let _ = barrier(|| {
        let inst = unsafe { &*p };
        if !allowed(inst.core.state(), Call::FreeInstance) {
            inst.core.error("fmi2FreeInstance: Illegal call sequence");
        }
        drop(unsafe { Box::from_raw(p) });
    });
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetupExperiment(
    c: Fmi2Component,
    toleranceDefined: Fmi2Boolean,
    tolerance: Fmi2Real,
    startTime: Fmi2Real,
    stopTimeDefined: Fmi2Boolean,
    stopTime: Fmi2Real,
) -> c_int {
    unsafe {
        guarded(c, Call::SetupExperiment, "fmi2SetupExperiment", |inst| {
            inst.core.setup_experiment(
                "fmi2SetupExperiment",
                (toleranceDefined != FMI2_FALSE).then_some(tolerance),
                startTime,
                (stopTimeDefined != FMI2_FALSE).then_some(stopTime),
            )
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2EnterInitializationMode(c: Fmi2Component) -> c_int {
    unsafe {
        guarded(c, Call::EnterInitializationMode, "fmi2EnterInitializationMode", |inst| {
            inst.core.enter_initialization_mode()
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2ExitInitializationMode(c: Fmi2Component) -> c_int {
    unsafe {
        guarded(c, Call::ExitInitializationMode, "fmi2ExitInitializationMode", |inst| {
            inst.core.exit_initialization_mode("fmi2ExitInitializationMode")
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2Terminate(c: Fmi2Component) -> c_int {
    unsafe { guarded(c, Call::Terminate, "fmi2Terminate", |inst| inst.core.terminate()) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2Reset(c: Fmi2Component) -> c_int {
    unsafe { guarded(c, Call::Reset, "fmi2Reset", |inst| inst.core.reset()) }
}

// ---------------------------------------------------------------- get / set

unsafe fn get_values<T: Copy>(
    c: Fmi2Component,
    function: &str,
    ty: VarType,
    vr: *const u32,
    nvr: usize,
    value: *mut T,
    conv: fn(f64) -> T,
) -> c_int {
    unsafe {
        guarded(c, Call::Get, function, |inst| {
            let (Some(vrs), Some(out)) = (slice(vr, nvr), slice_mut(value, nvr)) else {
                return null_argument(inst, function);
            };
            inst.core.get(function, ty, vrs, &mut |k, x| out[k] = conv(x))
        })
    }
}

unsafe fn set_values<T: Copy>(
    c: Fmi2Component,
    function: &str,
    ty: VarType,
    vr: *const u32,
    nvr: usize,
    value: *const T,
    conv: fn(T) -> f64,
) -> c_int {
    unsafe {
        guarded(c, Call::Set, function, |inst| {
            let (Some(vrs), Some(vals)) = (slice(vr, nvr), slice(value, nvr)) else {
                return null_argument(inst, function);
            };
            let vals: Vec<f64> = vals.iter().map(|v| conv(*v)).collect();
            inst.core.set(function, ty, vrs, &vals)
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetReal(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    value: *mut Fmi2Real,
) -> c_int {
    unsafe { get_values(c, "fmi2GetReal", VarType::Real, vr, nvr, value, |x| x) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetInteger(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    value: *mut Fmi2Integer,
) -> c_int {
    unsafe { get_values(c, "fmi2GetInteger", VarType::Integer, vr, nvr, value, |x| x as Fmi2Integer) }
}

/// There are no Boolean variables: any value reference is unknown.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetBoolean(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    value: *mut Fmi2Boolean,
) -> c_int {
    unsafe { no_variables(c, Call::Get, "fmi2GetBoolean", vr, nvr, !value.is_null()) }
}

/// String parameters: the returned pointers stay valid as long as the instance.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetString(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    value: *mut Fmi2String,
) -> c_int {
    unsafe {
        guarded(c, Call::Get, "fmi2GetString", |inst| {
            let (Some(vrs), Some(out)) = (slice(vr, nvr), slice_mut(value, nvr)) else {
                return null_argument(inst, "fmi2GetString");
            };
            inst.get_strings("fmi2GetString", vrs, out)
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetReal(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    value: *const Fmi2Real,
) -> c_int {
    unsafe { set_values(c, "fmi2SetReal", VarType::Real, vr, nvr, value, |x| x) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetInteger(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    value: *const Fmi2Integer,
) -> c_int {
    unsafe { set_values(c, "fmi2SetInteger", VarType::Integer, vr, nvr, value, |x| x as f64) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetBoolean(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    value: *const Fmi2Boolean,
) -> c_int {
    unsafe { no_variables(c, Call::Set, "fmi2SetBoolean", vr, nvr, !value.is_null()) }
}

/// String parameters: the texts are copied during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetString(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    value: *const Fmi2String,
) -> c_int {
    unsafe {
        guarded(c, Call::Set, "fmi2SetString", |inst| {
            let (Some(vrs), Some(vals)) = (slice(vr, nvr), slice(value, nvr)) else {
                return null_argument(inst, "fmi2SetString");
            };
            let texts: Vec<Option<String>> = vals.iter().map(|p| text(*p)).collect();
            inst.core.set_strings("fmi2SetString", vrs, &texts)
        })
    }
}

unsafe fn no_variables(
    c: Fmi2Component,
    call: Call,
    function: &str,
    vr: *const u32,
    nvr: usize,
    value_ok: bool,
) -> c_int {
    unsafe {
        guarded(c, call, function, |inst| {
            let Some(vrs) = slice(vr, nvr) else { return null_argument(inst, function) };
            match vrs.first() {
                None => Status::Ok,
                Some(_) if !value_ok => null_argument(inst, function),
                Some(v) => inst.core.error(&format!(
                    "{function}: unknown value reference {v} (this FMU has no variables of this type)"
                )),
            }
        })
    }
}

// ---------------------------------------------------------------- FMU state
// The blob and its pointer handling: `fmu::state::handle`, shared with FMI 3.0.

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetFMUstate(c: Fmi2Component, FMUstate: *mut Fmi2FmuState) -> c_int {
    let function = "fmi2GetFMUstate";
    unsafe { guarded(c, Call::GetFmuState, function, |inst| handle::get(&mut inst.core, function, FMUstate)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetFMUstate(c: Fmi2Component, FMUstate: Fmi2FmuState) -> c_int {
    let function = "fmi2SetFMUstate";
    unsafe { guarded(c, Call::SetFmuState, function, |inst| handle::set(&mut inst.core, function, FMUstate)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2FreeFMUstate(c: Fmi2Component, FMUstate: *mut Fmi2FmuState) -> c_int {
    unsafe { guarded(c, Call::FreeFmuState, "fmi2FreeFMUstate", |_inst| handle::free(FMUstate)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SerializedFMUstateSize(
    c: Fmi2Component,
    FMUstate: Fmi2FmuState,
    size: *mut usize,
) -> c_int {
    let function = "fmi2SerializedFMUstateSize";
    unsafe {
        guarded(c, Call::SerializedFmuStateSize, function, |inst| {
            handle::serialized_size(&inst.core, function, FMUstate, size)
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SerializeFMUstate(
    c: Fmi2Component,
    FMUstate: Fmi2FmuState,
    serializedState: *mut Fmi2Byte,
    size: usize,
) -> c_int {
    let function = "fmi2SerializeFMUstate";
    unsafe {
        guarded(c, Call::SerializeFmuState, function, |inst| {
            handle::serialize(&inst.core, function, FMUstate, serializedState as *mut u8, size)
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2DeSerializeFMUstate(
    c: Fmi2Component,
    serializedState: *const Fmi2Byte,
    size: usize,
    FMUstate: *mut Fmi2FmuState,
) -> c_int {
    let function = "fmi2DeSerializeFMUstate";
    unsafe {
        guarded(c, Call::DeSerializeFmuState, function, |inst| {
            handle::deserialize(&inst.core, function, serializedState as *const u8, size, FMUstate)
        })
    }
}

// ---------------------------------------------------------------- derivatives

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetDirectionalDerivative(
    c: Fmi2Component,
    vUnknown_ref: *const Fmi2ValueReference,
    nUnknown: usize,
    vKnown_ref: *const Fmi2ValueReference,
    nKnown: usize,
    dvKnown: *const Fmi2Real,
    dvUnknown: *mut Fmi2Real,
) -> c_int {
    const F: &str = "fmi2GetDirectionalDerivative";
    unsafe {
        guarded(c, Call::GetDirectionalDerivative, F, |inst| {
            let (Some(unknowns), Some(knowns), Some(dv), Some(out)) = (
                slice(vUnknown_ref, nUnknown),
                slice(vKnown_ref, nKnown),
                slice(dvKnown, nKnown),
                slice_mut(dvUnknown, nUnknown),
            ) else {
                return null_argument(inst, F);
            };
            inst.core.directional_derivative(F, unknowns, knowns, dv, &mut |k, x| out[k] = x)
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetRealInputDerivatives(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    order: *const Fmi2Integer,
    value: *const Fmi2Real,
) -> c_int {
    const F: &str = "fmi2SetRealInputDerivatives";
    unsafe {
        guarded(c, Call::SetRealInputDerivatives, F, |inst| {
            let (Some(vrs), Some(orders), Some(values)) = (slice(vr, nvr), slice(order, nvr), slice(value, nvr)) else {
                return null_argument(inst, F);
            };
            inst.core.set_input_derivatives(F, vrs, orders, values)
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetRealOutputDerivatives(
    c: Fmi2Component,
    vr: *const Fmi2ValueReference,
    nvr: usize,
    order: *const Fmi2Integer,
    value: *mut Fmi2Real,
) -> c_int {
    const F: &str = "fmi2GetRealOutputDerivatives";
    unsafe {
        guarded(c, Call::GetRealOutputDerivatives, F, |inst| {
            let (Some(vrs), Some(orders), Some(out)) = (slice(vr, nvr), slice(order, nvr), slice_mut(value, nvr))
            else {
                return null_argument(inst, F);
            };
            inst.core.output_derivatives(F, vrs, orders, &mut |k, x| out[k] = x)
        })
    }
}

// ---------------------------------------------------------------- not supported (not claimed)

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2CancelStep(c: Fmi2Component) -> c_int {
    // Legal only while a step is pending, which never happens (canRunAsynchronuously=false):
    // refused in every state, saying why (a probe read the call-sequence message "the instance
    // is stepping", which did not).
    if c.is_null() {
        return ERROR;
    }
    // SAFETY: `c` came from fmi2Instantiate and has not been freed (importer contract).
    let inst = unsafe { &*(c as *const Component) };
    inst.core.error(&format!("fmi2CancelStep: {NO_PENDING_STEP}")) as c_int
}

/// Why there is never a step to cancel or a pending status to report.
const NO_PENDING_STEP: &str = "this FMU steps synchronously (canRunAsynchronuously = false): fmi2DoStep \
    never returns fmi2Pending, so there is no pending step to cancel or to report on";

// ---------------------------------------------------------------- stepping and status

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2DoStep(
    c: Fmi2Component,
    currentCommunicationPoint: Fmi2Real,
    communicationStepSize: Fmi2Real,
    _noSetFMUStatePriorToCurrentPoint: Fmi2Boolean,
) -> c_int {
    unsafe {
        guarded(c, Call::DoStep, "fmi2DoStep", |inst| {
            inst.core.do_step("fmi2DoStep", currentCommunicationPoint, communicationStepSize)
        })
    }
}

fn status_kind(inst: &Component, function: &str, kind: c_int) -> Result<c_int, Status> {
    match kind {
        FMI2_DO_STEP_STATUS | FMI2_PENDING_STATUS | FMI2_LAST_SUCCESSFUL_TIME | FMI2_TERMINATED => Ok(kind),
        other => Err(inst.core.error(&format!("{function}: unknown fmi2StatusKind {other}"))),
    }
}

fn status_name(kind: c_int) -> &'static str {
    match kind {
        FMI2_DO_STEP_STATUS => "fmi2DoStepStatus",
        FMI2_PENDING_STATUS => "fmi2PendingStatus",
        FMI2_LAST_SUCCESSFUL_TIME => "fmi2LastSuccessfulTime",
        _ => "fmi2Terminated",
    }
}

unsafe fn status_query<T>(
    c: Fmi2Component,
    function: &str,
    kind: c_int,
    value: *mut T,
    answer: impl FnOnce(&Component, c_int) -> Option<T>,
) -> c_int {
    unsafe {
        let r = guarded(c, Call::GetStatus, function, |inst| {
            if value.is_null() {
                return null_argument(inst, function);
            }
            let kind = match status_kind(inst, function, kind) {
                Ok(k) => k,
                Err(s) => return s,
            };
            match answer(inst, kind) {
                Some(v) => {
                    *value = v;
                    Status::Ok
                }
                None => {
                    // FMI 2.0.5 sec. 4.2.3: fmi2Discard when the status is not available; say
                    // why (a probe found this the only refusal that logged nothing).
                    let what = match kind {
                        FMI2_DO_STEP_STATUS | FMI2_PENDING_STATUS => {
                            format!("{function}: no {} to report: {NO_PENDING_STEP}", status_name(kind))
                        }
                        _ => format!("{function}: {} has no value of this type", status_name(kind)),
                    };
                    inst.core.log(Status::Discard, Category::StatusDiscard, &what);
                    Status::Discard
                }
            }
        });
        debug_assert!(r == OK || r == DISCARD || r == ERROR || r == FATAL);
        r
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetStatus(c: Fmi2Component, s: c_int, value: *mut c_int) -> c_int {
    // Only meaningful for asynchronous stepping.
    unsafe { status_query(c, "fmi2GetStatus", s, value, |_, _| None) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetRealStatus(c: Fmi2Component, s: c_int, value: *mut Fmi2Real) -> c_int {
    unsafe {
        status_query(c, "fmi2GetRealStatus", s, value, |inst, k| {
            (k == FMI2_LAST_SUCCESSFUL_TIME).then(|| inst.core.last_successful_time())
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetIntegerStatus(c: Fmi2Component, s: c_int, value: *mut Fmi2Integer) -> c_int {
    unsafe { status_query(c, "fmi2GetIntegerStatus", s, value, |_, _| None) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetBooleanStatus(c: Fmi2Component, s: c_int, value: *mut Fmi2Boolean) -> c_int {
    unsafe {
        // fmi2Terminated: the slave wants the simulation to end: after fmi2Terminate, and
        // after a discarded step, which it cannot continue (a failure at the smallest internal
        // step, or the step budget; as fmi3DoStep's terminateSimulation). A master may still
        // roll back with fmi2SetFMUstate; one that asks (FMPy) stops with the results up to
        // fmi2LastSuccessfulTime instead of calling fmi2DoStep again (illegal after Discard).
        status_query(c, "fmi2GetBooleanStatus", s, value, |inst, k| {
            (k == FMI2_TERMINATED).then_some(if matches!(inst.core.state(), State::Terminated | State::StepFailed) {
                FMI2_TRUE
            } else {
                FMI2_FALSE
            })
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetStringStatus(c: Fmi2Component, s: c_int, value: *mut Fmi2String) -> c_int {
    unsafe { status_query(c, "fmi2GetStringStatus", s, value, |_, _| None) }
}
