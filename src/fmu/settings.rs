//! The solver settings as tunable FMU parameters (`solver_*` variables): reading one field as
//! a number and setting one from a number. Combinations (method vs rho_inf, ...) are checked
//! when the settings are applied to the simulation.

use super::variables::{SolverField, constraints_description, integrator_description, method_code, method_from_code};
use crate::simulation::{ConstraintTreatment, SolverSettings};

/// The value of `field` as the FMU reports it.
pub fn value(settings: &SolverSettings, field: SolverField) -> f64 {
    match field {
        SolverField::Integrator => f64::from(method_code(settings.method)),
        SolverField::RhoInf => settings.rho_inf,
        SolverField::Step => settings.step,
        SolverField::Tolerance => settings.tolerance,
        SolverField::Constraints => settings.constraints.code() as f64,
        SolverField::BaumgarteAlpha => settings.baumgarte.alpha,
        SolverField::BaumgarteBeta => settings.baumgarte.beta,
        SolverField::ErrorControl => f64::from(u8::from(settings.error_control.enabled)),
        SolverField::Rtol => settings.error_control.rtol,
        SolverField::Atol => settings.error_control.atol,
    }
}

/// `settings` with `field` (variable `name`) set to the finite number `x`; an error for a
/// code that names no method, constraint treatment or switch position.
pub fn with(settings: SolverSettings, field: SolverField, name: &str, x: f64) -> Result<SolverSettings, String> {
    let mut s = settings;
    match field {
        SolverField::Integrator => {
            let Some(m) = method_from_code(x as i32) else {
                return Err(format!("{name} = {x} is not a method code ({})", integrator_description()));
            };
            // Its rho_inf is the instance's to derive (`Instance::followed`).
            s.method = m;
        }
        SolverField::RhoInf => s.rho_inf = x,
        SolverField::Step => s.step = x,
        SolverField::Tolerance => s.tolerance = x,
        SolverField::Constraints => {
            let Some(c) = ConstraintTreatment::from_code(x as i64) else {
                return Err(format!("{name} = {x} is not a constraint treatment code ({})", constraints_description()));
            };
            s.constraints = c;
        }
        SolverField::BaumgarteAlpha => s.baumgarte.alpha = x,
        SolverField::BaumgarteBeta => s.baumgarte.beta = x,
        SolverField::ErrorControl => {
            if x != 0.0 && x != 1.0 {
                return Err(format!("{name} = {x} must be 0 (fixed steps) or 1 (error-controlled steps)"));
            }
            s.error_control.enabled = x == 1.0;
        }
        SolverField::Rtol => s.error_control.rtol = x,
        SolverField::Atol => s.error_control.atol = x,
    }
    // Each value is checked now (an importer sets one at a time); combinations (method vs
    // rho_inf) when the settings are applied.
    s.validate_values().map_err(|e| format!("{name} = {x} refused: {e}"))?;
    Ok(s)
}
