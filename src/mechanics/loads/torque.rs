//! `type = "torque"`: a torque of the given magnitude on a body. Planar: on the body's angle
//! (a rigid body's theta, a corotational node's section angle, an ANCF node's slope angle,
//! paper 003 eqs. 4, 24), which turns with the body either way (`follower` changes nothing).
//! Spatial: about a direction fixed in the global frame or, with `follower = true`, in the
//! body.

use super::{LoadType, PlanarSite, SpatialSite, is_follower, no_point};
use crate::mechanics::forces::{Load, SpatialLoad, TimeFunction};
use crate::mechanics::spatial_kinematics::Anchor3;
use crate::model::ModelError;
use crate::model::schema::LoadDecl;

pub const TYPE: LoadType = LoadType { name: "torque", on_beam: false, planar: Some(planar), spatial: Some(spatial) };

const TORQUE_ON_POINT_MASS: &str =
    "a torque needs a rigid body or a beam node; a point mass has no orientation and cannot take one";

fn planar(l: &LoadDecl, site: &dyn PlanarSite, magnitude: TimeFunction) -> Result<Vec<Load>, ModelError> {
    let model = site.model();
    if site.has_angle(&l.body)? != Some(true) {
        return Err(model.error(l.body.span(), TORQUE_ON_POINT_MASS.into()));
    }
    no_point(l, model)?;
    if let Some(d) = &l.direction {
        return Err(model.error(d.span(), "a torque has no direction; remove `direction`".into()));
    }
    Ok(vec![Load::torque(site.anchor(&l.body, None)?, magnitude)])
}

fn spatial(
    l: &LoadDecl,
    site: &dyn SpatialSite,
    u: [f64; 3],
    magnitude: TimeFunction,
) -> Result<Vec<SpatialLoad>, ModelError> {
    let model = site.model();
    no_point(l, model)?;
    match site.anchor(&l.body, None)? {
        Anchor3::Body { x, .. } if is_follower(l) => Ok(vec![SpatialLoad::follower(x, site.q0(), None, u, magnitude)]),
        Anchor3::Body { x, .. } => Ok(vec![SpatialLoad::torque(x, u, magnitude)]),
        Anchor3::Point { .. } => Err(model.error(l.body.span(), TORQUE_ON_POINT_MASS.into())),
        Anchor3::Ground { .. } => Err(model.error(l.body.span(), "loads on ground have no effect".into())),
    }
}
