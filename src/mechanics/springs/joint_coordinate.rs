//! `type = "prismatic"` and `type = "torsional"`: the coordinate of a joint (slider
//! displacement along a prismatic joint's axis, relative angle across a revolute joint), in
//! planar and spatial models. In 3D the angle is `SpatialKind::Angle` (atan2 of the rotated
//! body-2 direction's components in body 1's plane normal to the axis, wrapped to (-pi, pi])
//! and the displacement a projection on the axis fixed in body 1
//! (`joints::spatial::relative_angle`, `joints::spatial::displacement`); both are zero initially.

use super::{Site, SpringType, no_axis};
use crate::mechanics::joints::JointKind;
use crate::mechanics::kinematics::Measure;
use crate::model::ModelError;
use crate::model::schema::SpringDecl;

pub const PRISMATIC: SpringType = SpringType {
    name: "prismatic",
    planar: Some(|s, site| joint_coordinate(s, site, "prismatic", JointKind::Prismatic)),
    spatial: Some(|s, site| joint_coordinate(s, site, "prismatic", JointKind::Prismatic)),
};
pub const TORSIONAL: SpringType = SpringType {
    name: "torsional",
    planar: Some(|s, site| joint_coordinate(s, site, "torsional", JointKind::Revolute)),
    spatial: Some(|s, site| joint_coordinate(s, site, "torsional", JointKind::Revolute)),
};

fn joint_coordinate<S: Site + ?Sized>(
    s: &SpringDecl,
    site: &S,
    kind: &str,
    expected: JointKind,
) -> Result<Measure, ModelError> {
    let model = site.model();
    let Some(jn) = &s.joint else {
        return Err(model.error(s.name.span(), format!("a {kind} spring needs `joint = \"name\"`")));
    };
    let Some(ji) = site.joint(jn.get_ref()) else {
        return Err(model.error(jn.span(), format!("unknown joint '{}'", jn.get_ref())));
    };
    if ji.kind != expected {
        return Err(model.error(
            jn.span(),
            format!("a {kind} spring needs a {} joint", if kind == "prismatic" { "prismatic" } else { "revolute" }),
        ));
    }
    let m = ji.coordinate.clone().ok_or_else(|| {
        model.error(
            jn.span(),
            format!(
                "joint '{}' is at a floating_frame beam point: it has no joint coordinate for a {kind} spring",
                ji.name
            ),
        )
    })?;
    no_axis(s, model)?;
    Ok(m)
}
