//! `type = "distance"` (massless rigid link, rod; planar and spatial): the point P2 of body 2
//! stays at the distance L from the point P1 of body 1, one row |P2 - P1| - L = 0 (Adams
//! "distance", Exudyn DistanceConstraint, Simpack rod). The points are `point1` and `point2`
//! (`JointType::two_points`), so the anchors are at two different points. Its coordinate is
//! the distance itself (`joint_position` is the link's length), and the joint holds it
//! (`Drive::Holds`): at `length` (default the initial distance), or at drive(t), a linear
//! actuator of prescribed length; `joints::coordinate_row` makes that one row.
//!
//! The row is written Phi = |d| - L (d = P2 - P1), not (d.d - L^2)/(2L). Both have the
//! gradient of the unit direction u = d/|d| on the constraint, but only |d| - L has it
//! everywhere: the Jacobian rows have norm 1 in every Newton iterate, as the coincident-point
//! rows of the other joints (unit axes), and the multiplier is exactly the link's tension in
//! N (the force on body 2 is -lambda u: positive lambda pulls body 2 towards P1), so
//! `link_force` = lambda and `drive_force` = -lambda is the actuator's force along the
//! increasing length, as for a prismatic joint. A driven length is the generic rheonomic row
//! measure(q) - f(t) (the squared form would be nonlinear in f). Its Hessian (I - u u^T)/|d|
//! is bounded, since |d| stays near L > 0 (refused at 0 initially). It is the same exact
//! distance measure a point_to_point spring acts along (src/mechanics/kinematics.rs,
//! spatial_kinematics.rs), on any anchor: ground, point mass, rigid body, beam node.

use super::{Coordinate, CoordinateKind, Drive, JointKind, JointType, Rows};
use crate::mechanics::kinematics::{Anchor, Measure, MeasureKind};
use crate::mechanics::spatial_kinematics::{Anchor3, SpatialKind, SpatialMeasure};

pub const TYPE: JointType = JointType {
    name: "distance",
    kind: JointKind::Distance,
    freedoms: 5,
    coordinates: &[Coordinate { name: "length", kind: CoordinateKind::Length }],
    planar_axis: false,
    spatial_axis: false,
    two_points: true,
    drive: Drive::Holds,
    planar: Some(rows2),
    spatial: Some(rows3),
};

fn rows2(a1: Anchor, a2: Anchor, _: [f64; 2], _: &[f64]) -> Rows {
    Rows { rows: Vec::new(), coordinates: vec![Measure::new(a1, a2, MeasureKind::Distance)] }
}

fn rows3(a1: Anchor3, a2: Anchor3, _: [[f64; 3]; 2], _: &[f64]) -> Rows {
    Rows { rows: Vec::new(), coordinates: vec![Measure::spatial(SpatialMeasure::new(a1, a2, SpatialKind::Distance))] }
}
