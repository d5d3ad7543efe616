//! `type = "cylindrical"` (spatial models): rotation about and sliding along the axis, fixed
//! in body 1: the two projections of the prismatic joint and the two axis rows of the
//! revolute joint (4 rows); two coordinates, so none is a joint coordinate.

use super::{Drive, JointKind, JointType, Rows, spatial};
use crate::mechanics::spatial_kinematics::Anchor3;

pub const TYPE: JointType = JointType {
    name: "cylindrical",
    kind: JointKind::Cylindrical,
    freedoms: 2,
    planar_axis: false,
    spatial_axis: true,
    two_points: false,
    drive: Drive::No,
    planar: None,
    spatial: Some(rows3),
};

fn rows3(a1: Anchor3, a2: Anchor3, [axis, _]: [[f64; 3]; 2], q0: &[f64]) -> Rows {
    let mut rows = spatial::on_axis(a1, a2, axis, q0);
    rows.extend(spatial::axis_kept(a1, a2, axis, q0));
    Rows { rows, coordinate: None }
}
