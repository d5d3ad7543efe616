//! C types of fmi2TypesPlatform.h / fmi2FunctionTypes.h.

use std::ffi::{c_char, c_int, c_void};

pub type Fmi2Real = f64;
pub type Fmi2Integer = c_int;
pub type Fmi2Boolean = c_int;
pub type Fmi2ValueReference = u32;
pub type Fmi2String = *const c_char;
pub type Fmi2Component = *mut c_void;
pub type Fmi2FmuState = *mut c_void;
pub type Fmi2Byte = c_char;

pub const FMI2_TRUE: Fmi2Boolean = 1;
pub const FMI2_FALSE: Fmi2Boolean = 0;

/// fmi2Status: the core's status (same values).
pub use crate::fmu::Status;

/// fmi2Type values.
pub const FMI2_MODEL_EXCHANGE: c_int = 0;
pub const FMI2_CO_SIMULATION: c_int = 1;

/// fmi2StatusKind values.
pub const FMI2_DO_STEP_STATUS: c_int = 0;
pub const FMI2_PENDING_STATUS: c_int = 1;
pub const FMI2_LAST_SUCCESSFUL_TIME: c_int = 2;
pub const FMI2_TERMINATED: c_int = 3;

/// The importer's logger: C-variadic with printf semantics; we always pass "%s" + text.
pub type Logger = unsafe extern "C" fn(
    env: *mut c_void,
    instance_name: Fmi2String,
    status: c_int,
    category: Fmi2String,
    message: Fmi2String,
    ...
);

/// fmi2CallbackFunctions, copied at instantiation.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CallbackFunctions {
    pub logger: Option<Logger>,
    pub allocate_memory: Option<unsafe extern "C" fn(usize, usize) -> *mut c_void>,
    pub free_memory: Option<unsafe extern "C" fn(*mut c_void)>,
    pub step_finished: Option<unsafe extern "C" fn(*mut c_void, c_int)>,
    pub component_environment: *mut c_void,
}
