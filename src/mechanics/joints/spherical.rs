//! `type = "spherical"` (ball joint, spatial models): the anchor points coincide (3 rows); no
//! joint coordinate (three relative rotations).

use super::{Drive, JointKind, JointType, Rows, spatial};
use crate::mechanics::spatial_kinematics::Anchor3;

pub const TYPE: JointType = JointType {
    name: "spherical",
    kind: JointKind::Spherical,
    freedoms: 3,
    coordinates: &[],
    planar_axis: false,
    spatial_axis: false,
    two_points: false,
    drive: Drive::No,
    planar: None,
    spatial: Some(rows3),
};

fn rows3(a1: Anchor3, a2: Anchor3, _: [[f64; 3]; 2], q0: &[f64]) -> Rows {
    Rows { rows: spatial::coincide(a1, a2, q0), coordinates: Vec::new() }
}
