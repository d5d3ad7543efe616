//! `type = "prismatic"` and `type = "torsional"`: the coordinate of a joint (slider
//! displacement along a prismatic joint's axis, relative angle across a revolute joint), in
//! planar and spatial models. In 3D the angle is `SpatialKind::Angle` (atan2 of the rotated
//! body-2 direction's components in body 1's plane normal to the axis, wrapped to (-pi, pi])
//! and the displacement a projection on the axis fixed in body 1
//! (`joints::spatial::spatial_joint_coordinate`); both are zero initially.

use super::{PlanarSite, SpatialSite, SpringType, no_axis};
use crate::mechanics::joints::spatial::SpatialJointKind;
use crate::mechanics::joints::{JointInfo, JointKind};
use crate::mechanics::kinematics::Measure;
use crate::model::ModelError;
use crate::model::schema::SpringDecl;

pub const PRISMATIC: SpringType =
    SpringType { name: "prismatic", planar: Some(prismatic), spatial: Some(spatial_prismatic) };
pub const TORSIONAL: SpringType =
    SpringType { name: "torsional", planar: Some(torsional), spatial: Some(spatial_torsional) };

fn prismatic(s: &SpringDecl, site: &dyn PlanarSite) -> Result<Measure, ModelError> {
    joint_coordinate(s, site.model(), |n| site.joint(n), "prismatic", JointKind::Prismatic)
}

fn torsional(s: &SpringDecl, site: &dyn PlanarSite) -> Result<Measure, ModelError> {
    joint_coordinate(s, site.model(), |n| site.joint(n), "torsional", JointKind::Revolute)
}

fn spatial_prismatic(s: &SpringDecl, site: &dyn SpatialSite) -> Result<Measure, ModelError> {
    let expected = JointKind::Spatial(SpatialJointKind::Prismatic);
    joint_coordinate(s, site.model(), |n| site.joint(n), "prismatic", expected)
}

fn spatial_torsional(s: &SpringDecl, site: &dyn SpatialSite) -> Result<Measure, ModelError> {
    let expected = JointKind::Spatial(SpatialJointKind::Revolute);
    joint_coordinate(s, site.model(), |n| site.joint(n), "torsional", expected)
}

fn joint_coordinate<'a>(
    s: &SpringDecl,
    model: &crate::model::Model,
    joint: impl Fn(&str) -> Option<&'a JointInfo>,
    kind: &str,
    expected: JointKind,
) -> Result<Measure, ModelError> {
    let Some(jn) = &s.joint else {
        return Err(model.error(s.name.span(), format!("a {kind} spring needs `joint = \"name\"`")));
    };
    let Some(ji) = joint(jn.get_ref()) else {
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
