//! `type = "point_to_point"`: the distance s = |P2 - P1| of two points (planar and spatial).

use super::{PlanarSite, SpatialSite, SpringType, no_axis, no_coordinate};
use crate::mechanics::kinematics::{Measure, MeasureKind};
use crate::mechanics::spatial_kinematics::{SpatialKind, SpatialMeasure};
use crate::model::ModelError;
use crate::model::schema::{Name, SpringDecl};

pub const TYPE: SpringType = SpringType { name: "point_to_point", planar: Some(planar), spatial: Some(spatial) };

fn bodies<'a>(s: &'a SpringDecl, site: &crate::model::Model) -> Result<(&'a Name, &'a Name), ModelError> {
    no_coordinate(s, site)?;
    if let Some(j) = &s.joint {
        return Err(site.error(
            j.span(),
            "a point_to_point spring acts between body1 and body2 and needs no joint (for a joint's coordinate use \
             type = \"prismatic\" or \"torsional\")"
                .into(),
        ));
    }
    match (&s.body1, &s.body2) {
        (Some(b1), Some(b2)) => Ok((b1, b2)),
        _ => Err(site.error(s.name.span(), "a point_to_point spring needs body1 and body2".into())),
    }
}

/// A distance that is zero initially has no direction: refused.
fn checked(s: &SpringDecl, m: Measure, q0: &[f64], model: &crate::model::Model) -> Result<Measure, ModelError> {
    if m.value(q0) <= 0.0 {
        return Err(
            model.error(s.name.span(), "the spring's end points coincide initially; its direction is undefined".into())
        );
    }
    Ok(m)
}

fn planar(s: &SpringDecl, site: &dyn PlanarSite) -> Result<Measure, ModelError> {
    let (b1, b2) = bodies(s, site.model())?;
    let a1 = site.anchor(b1, s.point1.as_ref())?;
    let a2 = site.anchor(b2, s.point2.as_ref())?;
    let m = checked(s, Measure::new(a1, a2, MeasureKind::Distance), site.q0(), site.model())?;
    no_axis(s, site.model())?;
    Ok(m)
}

fn spatial(s: &SpringDecl, site: &dyn SpatialSite) -> Result<Measure, ModelError> {
    let (b1, b2) = bodies(s, site.model())?;
    let m = Measure::spatial(SpatialMeasure::new(
        site.anchor(b1, s.point1.as_ref())?,
        site.anchor(b2, s.point2.as_ref())?,
        SpatialKind::Distance,
    ));
    let m = checked(s, m, site.q0(), site.model())?;
    no_axis(s, site.model())?;
    Ok(m)
}
