//! fmi3Get{Type} / fmi3Set{Type}. The variables are scalars of three types: Float64 (real
//! parameters, solver settings, inputs, outputs and the independent variable `time`), Int32
//! (integer parameters and solver codes) and String (string parameters); every other type has
//! no variables, so any value reference given to its getter or setter is unknown. nValues must
//! equal nValueReferences (no arrays).

#![allow(non_snake_case, clippy::missing_safety_doc, clippy::too_many_arguments)]

use std::ffi::c_int;

use super::api::{guarded, null_argument, slice, slice_mut, text};
use super::instance::Fmi3Component;
use super::lifecycle::Call;
use super::types::*;
use crate::fmu::variables::VarType;

fn count_mismatch(inst: &Fmi3Component, function: &str, nvr: usize, n_values: usize) -> Option<Status> {
    (nvr != n_values).then(|| {
        inst.core.error(&format!(
            "{function}: nValues = {n_values} but nValueReferences = {nvr} (all variables are scalars)"
        ))
    })
}

unsafe fn get_values<T: Copy>(
    instance: Fmi3Instance,
    function: &str,
    ty: VarType,
    vr: *const Fmi3ValueReference,
    nvr: usize,
    value: *mut T,
    n_values: usize,
    conv: fn(f64) -> T,
) -> c_int {
    unsafe {
        guarded(instance, Call::Get, function, |inst| {
            if let Some(s) = count_mismatch(inst, function, nvr, n_values) {
                return s;
            }
            let (Some(vrs), Some(out)) = (slice(vr, nvr), slice_mut(value, nvr)) else {
                return null_argument(inst, function);
            };
            for (k, vr) in vrs.iter().enumerate() {
                if ty == VarType::Real && *vr == inst.time_vr {
                    out[k] = conv(inst.core.last_successful_time());
                    continue;
                }
                let status = inst.core.get(function, ty, &[*vr], &mut |_, x| out[k] = conv(x));
                if status != Status::Ok {
                    return status;
                }
            }
            Status::Ok
        })
    }
}

unsafe fn set_values<T: Copy>(
    instance: Fmi3Instance,
    function: &str,
    ty: VarType,
    vr: *const Fmi3ValueReference,
    nvr: usize,
    value: *const T,
    n_values: usize,
    conv: fn(T) -> f64,
) -> c_int {
    unsafe {
        guarded(instance, Call::Set, function, |inst| {
            if let Some(s) = count_mismatch(inst, function, nvr, n_values) {
                return s;
            }
            let (Some(vrs), Some(vals)) = (slice(vr, nvr), slice(value, nvr)) else {
                return null_argument(inst, function);
            };
            if ty == VarType::Real && vrs.contains(&inst.time_vr) {
                return inst.core.error(&format!("{function}: time is the independent variable and cannot be set"));
            }
            let vals: Vec<f64> = vals.iter().map(|v| conv(*v)).collect();
            inst.core.set(function, ty, vrs, &vals)
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetFloat64(
    instance: Fmi3Instance,
    valueReferences: *const Fmi3ValueReference,
    nValueReferences: usize,
    values: *mut Fmi3Float64,
    nValues: usize,
) -> c_int {
    unsafe {
        get_values(instance, "fmi3GetFloat64", VarType::Real, valueReferences, nValueReferences, values, nValues, |x| x)
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetFloat64(
    instance: Fmi3Instance,
    valueReferences: *const Fmi3ValueReference,
    nValueReferences: usize,
    values: *const Fmi3Float64,
    nValues: usize,
) -> c_int {
    unsafe {
        set_values(instance, "fmi3SetFloat64", VarType::Real, valueReferences, nValueReferences, values, nValues, |x| x)
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetInt32(
    instance: Fmi3Instance,
    valueReferences: *const Fmi3ValueReference,
    nValueReferences: usize,
    values: *mut Fmi3Int32,
    nValues: usize,
) -> c_int {
    unsafe {
        get_values(
            instance,
            "fmi3GetInt32",
            VarType::Integer,
            valueReferences,
            nValueReferences,
            values,
            nValues,
            |x| x as i32,
        )
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetInt32(
    instance: Fmi3Instance,
    valueReferences: *const Fmi3ValueReference,
    nValueReferences: usize,
    values: *const Fmi3Int32,
    nValues: usize,
) -> c_int {
    unsafe {
        set_values(
            instance,
            "fmi3SetInt32",
            VarType::Integer,
            valueReferences,
            nValueReferences,
            values,
            nValues,
            f64::from,
        )
    }
}

/// String parameters: the returned pointers stay valid as long as the instance.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetString(
    instance: Fmi3Instance,
    valueReferences: *const Fmi3ValueReference,
    nValueReferences: usize,
    values: *mut Fmi3String,
    nValues: usize,
) -> c_int {
    let function = "fmi3GetString";
    unsafe {
        guarded(instance, Call::Get, function, |inst| {
            if let Some(s) = count_mismatch(inst, function, nValueReferences, nValues) {
                return s;
            }
            let (Some(vrs), Some(out)) =
                (slice(valueReferences, nValueReferences), slice_mut(values, nValueReferences))
            else {
                return null_argument(inst, function);
            };
            inst.get_strings(function, vrs, out)
        })
    }
}

/// String parameters: the texts are copied during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetString(
    instance: Fmi3Instance,
    valueReferences: *const Fmi3ValueReference,
    nValueReferences: usize,
    values: *const Fmi3String,
    nValues: usize,
) -> c_int {
    let function = "fmi3SetString";
    unsafe {
        guarded(instance, Call::Set, function, |inst| {
            if let Some(s) = count_mismatch(inst, function, nValueReferences, nValues) {
                return s;
            }
            let (Some(vrs), Some(vals)) = (slice(valueReferences, nValueReferences), slice(values, nValueReferences))
            else {
                return null_argument(inst, function);
            };
            let texts: Vec<Option<String>> = vals.iter().map(|p| text(*p)).collect();
            inst.core.set_strings(function, vrs, &texts)
        })
    }
}

/// A getter or setter of a type without variables: nothing to do for no value references,
/// an unknown value reference otherwise.
unsafe fn no_variables(instance: Fmi3Instance, call: Call, function: &str, vr: *const u32, nvr: usize) -> c_int {
    unsafe {
        guarded(instance, call, function, |inst| {
            let Some(vrs) = slice(vr, nvr) else { return null_argument(inst, function) };
            match vrs.first() {
                None => Status::Ok,
                Some(v) => inst.core.error(&format!(
                    "{function}: unknown value reference {v} (this FMU has no variables of this type)"
                )),
            }
        })
    }
}

macro_rules! no_variables_of_type {
    ($($get:ident, $set:ident, $t:ty;)*) => {$(
        /// This FMU has no variables of this type.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $get(
            instance: Fmi3Instance,
            valueReferences: *const Fmi3ValueReference,
            nValueReferences: usize,
            _values: *mut $t,
            _nValues: usize,
        ) -> c_int {
            unsafe { no_variables(instance, Call::Get, stringify!($get), valueReferences, nValueReferences) }
        }

        /// This FMU has no variables of this type.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $set(
            instance: Fmi3Instance,
            valueReferences: *const Fmi3ValueReference,
            nValueReferences: usize,
            _values: *const $t,
            _nValues: usize,
        ) -> c_int {
            unsafe { no_variables(instance, Call::Set, stringify!($set), valueReferences, nValueReferences) }
        }
    )*};
}

no_variables_of_type! {
    fmi3GetFloat32, fmi3SetFloat32, f32;
    fmi3GetInt8, fmi3SetInt8, i8;
    fmi3GetUInt8, fmi3SetUInt8, u8;
    fmi3GetInt16, fmi3SetInt16, i16;
    fmi3GetUInt16, fmi3SetUInt16, u16;
    fmi3GetUInt32, fmi3SetUInt32, u32;
    fmi3GetInt64, fmi3SetInt64, i64;
    fmi3GetUInt64, fmi3SetUInt64, u64;
    fmi3GetBoolean, fmi3SetBoolean, Fmi3Boolean;
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetBinary(
    instance: Fmi3Instance,
    valueReferences: *const Fmi3ValueReference,
    nValueReferences: usize,
    _valueSizes: *mut usize,
    _values: *mut Fmi3Binary,
    _nValues: usize,
) -> c_int {
    unsafe { no_variables(instance, Call::Get, "fmi3GetBinary", valueReferences, nValueReferences) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetBinary(
    instance: Fmi3Instance,
    valueReferences: *const Fmi3ValueReference,
    nValueReferences: usize,
    _valueSizes: *const usize,
    _values: *const Fmi3Binary,
    _nValues: usize,
) -> c_int {
    unsafe { no_variables(instance, Call::Set, "fmi3SetBinary", valueReferences, nValueReferences) }
}

/// No clocks (any state but Fatal, like the other functions of capabilities not claimed).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetClock(
    instance: Fmi3Instance,
    valueReferences: *const Fmi3ValueReference,
    nValueReferences: usize,
    _values: *mut Fmi3Clock,
) -> c_int {
    unsafe { no_variables(instance, Call::NotClaimed, "fmi3GetClock", valueReferences, nValueReferences) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetClock(
    instance: Fmi3Instance,
    valueReferences: *const Fmi3ValueReference,
    nValueReferences: usize,
    _values: *const Fmi3Clock,
) -> c_int {
    unsafe { no_variables(instance, Call::NotClaimed, "fmi3SetClock", valueReferences, nValueReferences) }
}
