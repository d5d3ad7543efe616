//! `type = "prismatic"` (slider): body 2's anchor stays on the line through body 1's anchor
//! along the axis fixed in body 1, and the relative orientation is held (planar: the
//! projection on the axis' normal, rotating with a rigid body 1, and the relative angle if
//! body 2 has one; spatial: `spatial::on_axis`, and `spatial::orientation_kept` if body 2 has
//! an orientation: a point mass as body 2 slides on body 1's axis with the two projection
//! rows alone, as in the plane). Its coordinate is the displacement along the axis. Body 1
//! carries the axis, so it is never a point mass (the projections read its orientation).

use super::{Drive, JointKind, JointType, Rows, SLIDE, planar, spatial};
use crate::mechanics::kinematics::{Anchor, Measure, MeasureKind};
use crate::mechanics::spatial_kinematics::Anchor3;

pub const TYPE: JointType = JointType {
    name: "prismatic",
    kind: JointKind::Prismatic,
    freedoms: 1,
    coordinates: &[SLIDE],
    planar_axis: true,
    spatial_axis: true,
    two_points: false,
    drive: Drive::Adds,
    planar: Some(rows2),
    spatial: Some(rows3),
};

fn rows2(a1: Anchor, a2: Anchor, axis: [f64; 2], q0: &[f64]) -> Rows {
    let rotating = matches!(a1, Anchor::Rigid { .. });
    let normal = Measure::new(a1, a2, MeasureKind::Projection { u: [-axis[1], axis[0]], rotating });
    let mut rows = vec![planar::holding(normal, q0)];
    rows.extend(planar::angle_held(a1, a2, q0));
    Rows { rows, coordinates: vec![Measure::new(a1, a2, MeasureKind::Projection { u: axis, rotating })] }
}

fn rows3(a1: Anchor3, a2: Anchor3, [axis, _]: [[f64; 3]; 2], q0: &[f64]) -> Rows {
    let mut rows = spatial::on_axis(a1, a2, axis, q0);
    if !matches!(a2, Anchor3::Point { .. }) {
        rows.extend(spatial::orientation_kept(a1, a2, q0));
    }
    Rows { rows, coordinates: vec![spatial::displacement(a1, a2, axis, q0)] }
}
