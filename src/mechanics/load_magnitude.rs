//! The magnitude of a `[[loads]]` entry, planar or spatial: an expression of time, parameters
//! and inputs (`value`) or a piecewise-linear table of [time, value] rows (`table`).

use super::forces::TimeFunction;
use crate::model::schema::LoadDecl;
use crate::model::{Model, ModelError, Scope};

/// `l`'s magnitude, its expression compiled in `input_scope` (parameters and inputs).
pub fn load_magnitude(l: &LoadDecl, input_scope: &Scope, model: &Model) -> Result<TimeFunction, ModelError> {
    match (&l.value, &l.table) {
        (Some(v), None) => Ok(TimeFunction::Expr(input_scope.time_function(v, "load value")?)),
        (None, Some(t)) => {
            let rows = t.get_ref().clone();
            if rows.is_empty()
                || rows.windows(2).any(|w| w[1][0] <= w[0][0])
                || rows.iter().flatten().any(|x| !x.is_finite())
            {
                return Err(model.error(
                    t.span(),
                    "table rows must be finite [time, value] pairs with strictly increasing times".into(),
                ));
            }
            Ok(TimeFunction::Table(rows))
        }
        _ => Err(model.error(l.kind.span(), "a load needs exactly one of `value` or `table`".into())),
    }
}
