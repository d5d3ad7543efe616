//! `type = "force"`: a force of the given magnitude along a direction fixed in the global
//! frame, at a body point (`point`, default the body's reference point resp. centre of
//! mass): generalized force J^T F with J the point's Jacobian.

use super::{LoadType, PlanarSite, SpatialSite};
use crate::mechanics::forces::{Load, SpatialLoad, TimeFunction};
use crate::model::ModelError;
use crate::model::schema::LoadDecl;

pub const TYPE: LoadType = LoadType { name: "force", planar: Some(planar), spatial: Some(spatial) };

fn planar(l: &LoadDecl, site: &dyn PlanarSite, magnitude: TimeFunction) -> Result<Load, ModelError> {
    let model = site.model();
    let Some(dir) = &l.direction else {
        return Err(model.error(l.kind.span(), "a force needs `direction = [x, y]`".into()));
    };
    let v = site.scope().vec2(dir)?;
    let n = (v[0] * v[0] + v[1] * v[1]).sqrt();
    let Some(u) = (n > 0.0).then(|| [v[0] / n, v[1] / n]) else {
        return Err(model.error(dir.span(), "direction must not be zero".into()));
    };
    Ok(Load::force(site.anchor(&l.body, l.point.as_ref())?, u, magnitude))
}

fn spatial(
    l: &LoadDecl,
    site: &dyn SpatialSite,
    u: [f64; 3],
    magnitude: TimeFunction,
) -> Result<SpatialLoad, ModelError> {
    Ok(SpatialLoad::force(site.anchor(&l.body, l.point.as_ref())?, u, magnitude))
}
