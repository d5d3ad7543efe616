//! The row pieces planar joint types share: coincident points, a held relative angle.

use super::ConstraintRow;
use crate::mechanics::contact_gap::ContactGap;
use crate::mechanics::kinematics::{Anchor, Measure, MeasureKind};

/// The row Phi = m(q) - m(q0).
pub fn holding(m: Measure, q0: &[f64]) -> ConstraintRow {
    ConstraintRow::holding(ContactGap::Measure(m), q0)
}

/// The anchor points coincide: their projections on the global x and y axes (2 rows).
pub fn coincide(a1: Anchor, a2: Anchor, q0: &[f64]) -> Vec<ConstraintRow> {
    [[1.0, 0.0], [0.0, 1.0]]
        .into_iter()
        .map(|u| holding(Measure::new(a1, a2, MeasureKind::Projection { u, rotating: false }), q0))
        .collect()
}

/// The relative angle held, if body 2 has one: a rigid body, or an ANCF node, whose section
/// turns with its slope (paper 003 eq. 4).
pub fn angle_held(a1: Anchor, a2: Anchor, q0: &[f64]) -> Option<ConstraintRow> {
    matches!(a2, Anchor::Rigid { .. } | Anchor::Director { .. })
        .then(|| holding(Measure::relative_angle(a1, a2, q0), q0))
}

/// The relative angle theta2 - theta1, the coordinate of revolute (and fixed) joints.
pub fn relative_angle(a1: Anchor, a2: Anchor, q0: &[f64]) -> Measure {
    Measure::relative_angle(a1, a2, q0)
}
