//! `type = "universal"` (Hooke, cardan; spatial models): the anchor points coincide and the
//! cross's pins stay perpendicular, (A1 a1') . (A2 a2'') = 0 with pin a1 (`axis`) fixed in
//! body 1 and a2 (`axis2`) in body 2 (4 rows; Haug 1989, ch. 9: spherical + dot-1).
//!
//! Its two coordinates are the angles of the cross, the massless link between the pins whose
//! arms are a1 (turning in body 1) and a2 (turning in body 2), both zero initially:
//! - `angle1`, the rotation of the cross relative to body 1 about a1: the angle of the arm
//!   A2 a2'' about A1 a1' from where it started, measured in body 1
//!   (`SpatialKind::Angle` with b1 = a2, c1 = a1 x a2 in body 1's frame, b2 = a2'');
//! - `angle2`, the rotation of body 2 relative to the cross about a2: the angle by which body
//!   2 turned about its pin away from the arm A1 a1' (`SpatialKind::AngleAbout2` with
//!   b2 = a1, c2 = a2 x a1 in body 2's frame, b1 = a1').
//!
//! So A2 = A1 A1(0)^T R(a1, angle1) R(a2, angle2) A2(0), with a1, a2 the pins as given (global,
//! initial configuration) and R(a, phi) the turn by phi about a: first about body 1's pin,
//! then about body 2's pin as the cross carries it, the Cardan angles of the joint. The pins are perpendicular in every configuration the rows
//! allow, so the arm whose angle each atan2 takes lies in the plane it is measured in: both
//! angles are defined and smooth for every orientation the joint can take, with no singular
//! configuration (unlike Euler angles of a free rotation, whose third axis can align with
//! the first); each is wrapped to (-pi, pi] undriven and continuous when driven, like the
//! revolute joint's angle. For shafts bent by beta with body 1's pin in the plane of the
//! shafts initially (Hooke-joint kinematics, tests/suite/joint_coordinates.rs),
//! tan angle1 = tan beta sin theta1 for the input shaft's angle theta1.

use super::{Coordinate, CoordinateKind, Drive, JointKind, JointType, Rows, spatial};
use crate::mechanics::euler_parameters::cross;
use crate::mechanics::kinematics::Measure;
use crate::mechanics::spatial_kinematics::{Anchor3, SpatialKind, SpatialMeasure};

pub const TYPE: JointType = JointType {
    name: "universal",
    kind: JointKind::Universal,
    freedoms: 2,
    coordinates: &[
        Coordinate { name: "angle1", kind: CoordinateKind::Angle },
        Coordinate { name: "angle2", kind: CoordinateKind::Angle },
    ],
    planar_axis: false,
    spatial_axis: true,
    two_points: false,
    drive: Drive::Adds,
    planar: None,
    spatial: Some(rows3),
};

fn rows3(a1: Anchor3, a2: Anchor3, [axis, axis2]: [[f64; 3]; 2], q0: &[f64]) -> Rows {
    let mut rows = spatial::coincide(a1, a2, q0);
    rows.push(spatial::dot(a1, a2, axis, axis2, q0));
    let (across, back) = (cross(axis, axis2), cross(axis2, axis));
    let frame1 = |u| spatial::body_frame(&a1, u, q0);
    let frame2 = |u| spatial::body_frame(&a2, u, q0);
    let angle1 = SpatialKind::Angle { b1: frame1(axis2), c1: frame1(across), b2: frame2(axis2) };
    let angle2 = SpatialKind::AngleAbout2 { b2: frame2(axis), c2: frame2(back), b1: frame1(axis) };
    Rows { rows, coordinates: [angle1, angle2].map(|k| Measure::spatial(SpatialMeasure::new(a1, a2, k))).into() }
}
