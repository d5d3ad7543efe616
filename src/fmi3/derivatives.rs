//! fmi3GetOutputDerivatives (FMI 3.0.1 section 4.2.1, maxOutputDerivativeOrder = 2) and
//! fmi3GetDirectionalDerivative (section 2.2.11, providesDirectionalDerivatives = true):
//! the FMI 3 signatures over the core's `Instance::output_derivatives` and
//! `Instance::directional_derivative`, the functions behind fmi2GetRealOutputDerivatives and
//! fmi2GetDirectionalDerivative, so both versions return the same numbers. Every variable is a
//! scalar: nValues = nValueReferences, nSeed = nKnowns, nSensitivity = nUnknowns. FMI 3 has
//! no input-derivative setter for Co-Simulation; input interpolation stays an FMI 2 feature.

#![allow(non_snake_case, clippy::missing_safety_doc, clippy::too_many_arguments)]

use std::ffi::c_int;

use super::api::{guarded, null_argument, slice, slice_mut};
use super::lifecycle::Call;
use super::types::*;

#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetOutputDerivatives(
    instance: Fmi3Instance,
    valueReferences: *const Fmi3ValueReference,
    nValueReferences: usize,
    orders: *const Fmi3Int32,
    values: *mut Fmi3Float64,
    nValues: usize,
) -> c_int {
    const F: &str = "fmi3GetOutputDerivatives";
    unsafe {
        guarded(instance, Call::GetOutputDerivatives, F, |inst| {
            if nValues != nValueReferences {
                return inst.core.error(&format!(
                    "{F}: nValues = {nValues} but nValueReferences = {nValueReferences} (all outputs are scalars)"
                ));
            }
            let (Some(vrs), Some(orders), Some(out)) =
                (slice(valueReferences, nValueReferences), slice(orders, nValueReferences), slice_mut(values, nValues))
            else {
                return null_argument(inst, F);
            };
            inst.core.output_derivatives(F, vrs, orders, &mut |k, x| out[k] = x)
        })
    }
}

/// The unknowns are outputs, the knowns inputs (Step Mode: `<ModelStructure><Output>`;
/// the same function of the inputs in Initialization Mode): sensitivity = J seed with
/// J = d outputs / d inputs at the current state.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetDirectionalDerivative(
    instance: Fmi3Instance,
    unknowns: *const Fmi3ValueReference,
    nUnknowns: usize,
    knowns: *const Fmi3ValueReference,
    nKnowns: usize,
    seed: *const Fmi3Float64,
    nSeed: usize,
    sensitivity: *mut Fmi3Float64,
    nSensitivity: usize,
) -> c_int {
    const F: &str = "fmi3GetDirectionalDerivative";
    unsafe {
        guarded(instance, Call::GetDirectionalDerivative, F, |inst| {
            if nSeed != nKnowns || nSensitivity != nUnknowns {
                return inst.core.error(&format!(
                    "{F}: nSeed = {nSeed}, nKnowns = {nKnowns}, nSensitivity = {nSensitivity}, nUnknowns = \
                     {nUnknowns}: nSeed must equal nKnowns and nSensitivity nUnknowns (all variables are scalars)"
                ));
            }
            let (Some(unknowns), Some(knowns), Some(seed), Some(out)) = (
                slice(unknowns, nUnknowns),
                slice(knowns, nKnowns),
                slice(seed, nSeed),
                slice_mut(sensitivity, nSensitivity),
            ) else {
                return null_argument(inst, F);
            };
            if unknowns.iter().chain(knowns).any(|vr| *vr == inst.time_vr) {
                return inst.core.error(&format!(
                    "{F}: time (value reference {}) is the independent variable, neither a known nor an unknown of \
                     the directional derivatives (knowns: inputs, and parameters in Initialization Mode; unknowns: \
                     outputs)",
                    inst.time_vr
                ));
            }
            inst.core.directional_derivative(F, unknowns, knowns, seed, &mut |k, x| out[k] = x)
        })
    }
}
