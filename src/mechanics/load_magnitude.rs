//! The magnitude of a `[[loads]]` entry, planar or spatial: an expression of time, parameters
//! and inputs (`value`) or a piecewise-linear table of [time, value] rows (`table`).

use super::System;
use super::forces::TimeFunction;
use super::forces::load::slope_overflow;
use crate::compact_number::Compact;
use crate::model::schema::{LoadDecl, PlainNumber};
use crate::model::{Model, ModelError, Scope};

/// `l`'s magnitude, its expression compiled in `input_scope` (parameters and inputs); an
/// expression is watched in `sys` (`System::watch`: said where a force turns NaN in time).
pub fn load_magnitude(
    l: &LoadDecl,
    input_scope: &Scope,
    model: &Model,
    sys: &mut System,
) -> Result<TimeFunction, ModelError> {
    match (&l.value, &l.table) {
        (Some(v), None) => {
            let f = input_scope.time_function(v, "load value")?;
            let load = match &l.name {
                Some(name) => format!("the value of load '{}'", name.get_ref()),
                None => format!("the value of the load on '{}'", l.body.get_ref()),
            };
            sys.watch(model.watch_label(v, load), &f, false);
            Ok(TimeFunction::Expr(f))
        }
        (None, Some(t)) => {
            let fail = |why: String| Err(model.error(t.span(), format!("table: {why}")));
            let mut rows: Vec<[f64; 2]> = Vec::with_capacity(t.get_ref().len());
            for row in t.get_ref() {
                // A third entry had been ignored without a word (a probe).
                let &[PlainNumber(time), PlainNumber(value)] = row.as_slice() else {
                    return fail(format!("each row is [time, value], got {} entries", row.len()));
                };
                if !(time.is_finite() && value.is_finite()) {
                    return fail("the times and values must be finite numbers".into());
                }
                if let Some(&[t0, v0]) = rows.last() {
                    if time <= t0 {
                        return fail(format!("times must increase, {} follows {}", Compact(time), Compact(t0)));
                    }
                    // The slope is the load's rate: an overflowing one had been reported as a
                    // NaN force at t = 0, without a location (a probe).
                    if let Some(why) = slope_overflow(t0, v0, time, value) {
                        return fail(why);
                    }
                }
                rows.push([time, value]);
            }
            if rows.is_empty() {
                return fail("it needs at least one [time, value] row".into());
            }
            Ok(TimeFunction::Table(rows))
        }
        _ => Err(model.error(l.kind.span(), "a load needs exactly one of `value` or `table`".into())),
    }
}
