//! `type = "prismatic"` and `type = "torsional"`: a joint coordinate (slider displacement
//! along a prismatic joint's axis, relative angle across a revolute joint; on a cylindrical
//! joint its `slide` resp. `angle`, on a universal joint its `angle1` or `angle2`, named by
//! `coordinate`), in planar and spatial models. In 3D the angle is `SpatialKind::Angle` (atan2
//! of the rotated body-2 direction's components in body 1's plane normal to the axis, wrapped
//! to (-pi, pi]; a universal joint's angle2 `SpatialKind::AngleAbout2`) and the displacement a
//! projection on the axis fixed in body 1 (`joints::spatial::relative_angle`,
//! `joints::spatial::displacement`, src/mechanics/joints/universal.rs); all are zero initially.

use super::{Site, SpringType, no_axis};
use crate::mechanics::joints::{CoordinateKind, JointKind, pick_coordinate};
use crate::mechanics::kinematics::Measure;
use crate::model::ModelError;
use crate::model::schema::SpringDecl;

pub const PRISMATIC: SpringType = SpringType {
    name: "prismatic",
    planar: Some(|s, site| joint_coordinate(s, site, "prismatic", CoordinateKind::Slide)),
    spatial: Some(|s, site| joint_coordinate(s, site, "prismatic", CoordinateKind::Slide)),
};
pub const TORSIONAL: SpringType = SpringType {
    name: "torsional",
    planar: Some(|s, site| joint_coordinate(s, site, "torsional", CoordinateKind::Angle)),
    spatial: Some(|s, site| joint_coordinate(s, site, "torsional", CoordinateKind::Angle)),
};

/// The coordinate of kind `expected` the spring `s` of type `kind` acts on: its joint's, the
/// one `coordinate` names on a joint with two. Prismatic springs act on prismatic joints and
/// cylindrical slides, torsional springs on revolute joints and the angles of cylindrical and
/// universal joints (not on a fixed joint's held angle).
fn joint_coordinate<S: Site + ?Sized>(
    s: &SpringDecl,
    site: &S,
    kind: &str,
    expected: CoordinateKind,
) -> Result<Measure, ModelError> {
    let model = site.model();
    if let Some(b) = s.body1.as_ref().or(s.body2.as_ref()) {
        return Err(model.error(b.span(), format!("a {kind} spring acts on its joint's coordinate: remove the body")));
    }
    if let Some(p) = s.point1.as_ref().or(s.point2.as_ref()) {
        return Err(model.error(p.span(), format!("a {kind} spring acts on its joint's coordinate: remove the point")));
    }
    let Some(jn) = &s.joint else {
        return Err(model.error(s.name.span(), format!("a {kind} spring needs `joint = \"name\"`")));
    };
    let Some(ji) = site.joint(jn.get_ref()) else {
        return Err(model.error(jn.span(), format!("unknown joint '{}'", jn.get_ref())));
    };
    let acts_on = |j: JointKind| j != JointKind::Fixed && j.coordinates().iter().any(|c| c.kind == expected);
    if !acts_on(ji.kind) {
        let needs = if expected == CoordinateKind::Slide {
            "a prismatic joint, or a cylindrical joint's slide"
        } else {
            "a revolute joint, or an angle of a cylindrical or universal joint"
        };
        return Err(model.error(jn.span(), format!("a {kind} spring needs {needs}")));
    }
    if ji.coordinates.is_empty() {
        return Err(model.error(
            jn.span(),
            format!(
                "joint '{}' is at a floating_frame beam point: it has no joint coordinate for a {kind} spring",
                ji.name
            ),
        ));
    }
    let k = pick_coordinate(ji, s.coordinate.as_ref(), jn.span(), model)?;
    let c = ji.kind.coordinates()[k];
    if c.kind != expected {
        let other = if c.kind == CoordinateKind::Slide { "a prismatic" } else { "a torsional" };
        let span = s.coordinate.as_ref().map_or(jn.span(), |c| c.span());
        return Err(model.error(
            span,
            format!("a {kind} spring cannot act on '{}' of joint '{}': use {other} spring", c.name, ji.name),
        ));
    }
    no_axis(s, model)?;
    Ok(ji.coordinates[k].clone())
}
