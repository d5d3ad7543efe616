//! C types of fmi3PlatformTypes.h / fmi3FunctionTypes.h (FMI 3.0).

use std::ffi::{c_char, c_int, c_void};

pub type Fmi3Instance = *mut c_void;
pub type Fmi3InstanceEnvironment = *mut c_void;
pub type Fmi3FmuState = *mut c_void;
pub type Fmi3ValueReference = u32;
pub type Fmi3Float64 = f64;
pub type Fmi3Int32 = i32;
/// C99 `bool`. Read as a byte (any non-zero byte is true) so that an importer's value other
/// than 0 or 1 is not undefined behaviour on our side; written as 0 or 1.
pub type Fmi3Boolean = u8;
pub type Fmi3String = *const c_char;
pub type Fmi3Byte = u8;
pub type Fmi3Binary = *const u8;
pub type Fmi3Clock = u8;

pub const FMI3_TRUE: Fmi3Boolean = 1;
pub const FMI3_FALSE: Fmi3Boolean = 0;

/// fmi3Status: the core's status (same values).
pub use crate::fmu::Status;

/// fmi3LogMessageCallback (not variadic, unlike FMI 2's logger).
pub type LogMessage =
    unsafe extern "C" fn(env: Fmi3InstanceEnvironment, status: c_int, category: Fmi3String, message: Fmi3String);

/// fmi3IntermediateUpdateCallback (accepted at instantiation, never called:
/// providesIntermediateUpdate = false).
pub type IntermediateUpdate = unsafe extern "C" fn(
    env: Fmi3InstanceEnvironment,
    intermediate_update_time: f64,
    intermediate_variable_set_requested: Fmi3Boolean,
    intermediate_variable_get_allowed: Fmi3Boolean,
    intermediate_step_finished: Fmi3Boolean,
    can_return_early: Fmi3Boolean,
    early_return_requested: *mut Fmi3Boolean,
    early_return_time: *mut f64,
);

pub type ClockUpdate = unsafe extern "C" fn(env: Fmi3InstanceEnvironment);
pub type LockPreemption = unsafe extern "C" fn();
