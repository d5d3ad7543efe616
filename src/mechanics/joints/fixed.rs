//! `type = "fixed"`: the anchor points coincide and the relative orientation is held
//! (planar: the relative angle, if body 2 has one; for an ANCF beam node the angle of its
//! slope d = dr/dy, paper 003 eq. 4, so the section is clamped and its shear stays free;
//! spatial: `spatial::orientation_kept`). Planar joint coordinate: the relative angle.

use super::{ANGLE, Drive, JointKind, JointType, Rows, planar, spatial};
use crate::mechanics::kinematics::Anchor;
use crate::mechanics::spatial_kinematics::Anchor3;

pub const TYPE: JointType = JointType {
    name: "fixed",
    kind: JointKind::Fixed,
    freedoms: 0,
    coordinates: &[ANGLE],
    planar_axis: false,
    spatial_axis: false,
    two_points: false,
    drive: Drive::No,
    planar: Some(rows2),
    spatial: Some(rows3),
};

fn rows2(a1: Anchor, a2: Anchor, _: [f64; 2], q0: &[f64]) -> Rows {
    let mut rows = planar::coincide(a1, a2, q0);
    rows.extend(planar::angle_held(a1, a2, q0));
    Rows { rows, coordinates: vec![planar::relative_angle(a1, a2, q0)] }
}

fn rows3(a1: Anchor3, a2: Anchor3, _: [[f64; 3]; 2], q0: &[f64]) -> Rows {
    let mut rows = spatial::coincide(a1, a2, q0);
    rows.extend(spatial::orientation_kept(a1, a2, q0));
    Rows { rows, coordinates: Vec::new() }
}
