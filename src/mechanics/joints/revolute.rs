//! `type = "revolute"` (hinge): the anchor points coincide; in space the joint axis, fixed in
//! body 1, stays normal to two directions fixed in body 2 (`spatial::axis_kept`). Its
//! coordinate is the relative angle (planar: theta2 - theta1; spatial: about the axis).

use super::{ANGLE, Drive, JointKind, JointType, Rows, planar, spatial};
use crate::mechanics::kinematics::Anchor;
use crate::mechanics::spatial_kinematics::Anchor3;

pub const TYPE: JointType = JointType {
    name: "revolute",
    kind: JointKind::Revolute,
    freedoms: 1,
    coordinates: &[ANGLE],
    planar_axis: false,
    spatial_axis: true,
    two_points: false,
    drive: Drive::Adds,
    planar: Some(rows2),
    spatial: Some(rows3),
};

fn rows2(a1: Anchor, a2: Anchor, _: [f64; 2], q0: &[f64]) -> Rows {
    Rows { rows: planar::coincide(a1, a2, q0), coordinates: vec![planar::relative_angle(a1, a2, q0)] }
}

fn rows3(a1: Anchor3, a2: Anchor3, [axis, _]: [[f64; 3]; 2], q0: &[f64]) -> Rows {
    let mut rows = spatial::coincide(a1, a2, q0);
    rows.extend(spatial::axis_kept(a1, a2, axis, q0));
    Rows { rows, coordinates: vec![spatial::relative_angle(a1, a2, axis, q0)] }
}
