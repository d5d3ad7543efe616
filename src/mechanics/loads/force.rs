//! `type = "force"`: a force of the given magnitude at a body point (`point`, default the
//! body's reference point resp. centre of mass), along a direction fixed in the global frame
//! or, with `follower = true`, fixed in the body (given in the initial configuration):
//! generalized force J^T F with J the point's Jacobian.

use super::{LoadType, PlanarSite, SpatialSite, is_follower, planar_direction};
use crate::mechanics::forces::{Load, SpatialLoad, TimeFunction};
use crate::mechanics::spatial_kinematics::Anchor3;
use crate::model::ModelError;
use crate::model::schema::LoadDecl;

pub const TYPE: LoadType = LoadType { name: "force", on_beam: false, planar: Some(planar), spatial: Some(spatial) };

const FOLLOWER_ON_POINT_MASS: &str =
    "a follower force needs a body that turns (a rigid body or a beam node); a point mass has no orientation";

fn planar(l: &LoadDecl, site: &dyn PlanarSite, magnitude: TimeFunction) -> Result<Vec<Load>, ModelError> {
    let u = planar_direction(l, site, "a force")?;
    let anchor = site.anchor(&l.body, l.point.as_ref())?;
    if !is_follower(l) {
        return Ok(vec![Load::force(anchor, u, magnitude)]);
    }
    if site.has_angle(&l.body)? != Some(true) {
        return Err(site.model().error(l.body.span(), FOLLOWER_ON_POINT_MASS.into()));
    }
    Ok(vec![Load::follower_force(anchor, u, site.q0(), magnitude)])
}

fn spatial(
    l: &LoadDecl,
    site: &dyn SpatialSite,
    u: [f64; 3],
    magnitude: TimeFunction,
) -> Result<Vec<SpatialLoad>, ModelError> {
    let anchor = site.anchor(&l.body, l.point.as_ref())?;
    if !is_follower(l) {
        return Ok(vec![SpatialLoad::force(anchor, u, magnitude)]);
    }
    match anchor {
        Anchor3::Body { x, s } => Ok(vec![SpatialLoad::follower(x, site.q0(), Some(s), u, magnitude)]),
        Anchor3::Point { .. } => Err(site.model().error(l.body.span(), FOLLOWER_ON_POINT_MASS.into())),
        Anchor3::Ground { .. } => Err(site.model().error(l.body.span(), "loads on ground have no effect".into())),
    }
}
