//! `type = "universal"` (Hooke, cardan; spatial models): the anchor points coincide and the
//! cross's pins stay perpendicular, (A1 a1') . (A2 a2'') = 0 with pin a1 (`axis`) fixed in
//! body 1 and a2 (`axis2`) in body 2 (4 rows; Haug 1989, ch. 9: spherical + dot-1); two
//! coordinates, so none is a joint coordinate.

use super::{Drive, JointKind, JointType, Rows, spatial};
use crate::mechanics::spatial_kinematics::Anchor3;

pub const TYPE: JointType = JointType {
    name: "universal",
    kind: JointKind::Universal,
    freedoms: 2,
    planar_axis: false,
    spatial_axis: true,
    two_points: false,
    drive: Drive::No,
    planar: None,
    spatial: Some(rows3),
};

fn rows3(a1: Anchor3, a2: Anchor3, [axis, axis2]: [[f64; 3]; 2], q0: &[f64]) -> Rows {
    let mut rows = spatial::coincide(a1, a2, q0);
    rows.push(spatial::dot(a1, a2, axis, axis2, q0));
    Rows { rows, coordinate: None }
}
