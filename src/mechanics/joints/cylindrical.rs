//! `type = "cylindrical"` (spatial models): rotation about and sliding along the axis, fixed
//! in body 1: the two projections of the prismatic joint and the two axis rows of the
//! revolute joint (4 rows). Its two coordinates are those of the prismatic and the revolute
//! joint about the same axis: `slide`, the displacement of body 2's anchor along the axis
//! from body 1's (`spatial::displacement`, m), and `angle`, the rotation of body 2 relative to
//! body 1 about the axis (`spatial::relative_angle`, rad, wrapped to (-pi, pi] undriven);
//! both zero initially.

use super::{ANGLE, Drive, JointKind, JointType, Rows, SLIDE, spatial};
use crate::mechanics::spatial_kinematics::Anchor3;

pub const TYPE: JointType = JointType {
    name: "cylindrical",
    kind: JointKind::Cylindrical,
    freedoms: 2,
    coordinates: &[SLIDE, ANGLE],
    planar_axis: false,
    spatial_axis: true,
    two_points: false,
    drive: Drive::Adds,
    planar: None,
    spatial: Some(rows3),
};

fn rows3(a1: Anchor3, a2: Anchor3, [axis, _]: [[f64; 3]; 2], q0: &[f64]) -> Rows {
    let mut rows = spatial::on_axis(a1, a2, axis, q0);
    rows.extend(spatial::axis_kept(a1, a2, axis, q0));
    Rows { rows, coordinates: vec![spatial::displacement(a1, a2, axis, q0), spatial::relative_angle(a1, a2, axis, q0)] }
}
