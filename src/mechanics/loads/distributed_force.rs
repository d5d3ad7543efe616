//! `type = "distributed_force"`: a uniform force per unit length of the undeformed beam along
//! a direction fixed in the global frame, on every element of the beam named by `body`
//! (planar `timoshenko`, `euler_bernoulli` and `ancf` beams): each element takes its
//! consistent nodal load (src/mechanics/forces/line_load.rs), as it takes its own weight.

use super::{LoadType, PlanarSite, is_follower, planar_direction};
use crate::mechanics::forces::{Load, TimeFunction};
use crate::model::ModelError;
use crate::model::schema::LoadDecl;

pub const TYPE: LoadType = LoadType { name: "distributed_force", on_beam: true, planar: Some(planar), spatial: None };

fn planar(l: &LoadDecl, site: &dyn PlanarSite, magnitude: TimeFunction) -> Result<Vec<Load>, ModelError> {
    let model = site.model();
    if let Some(p) = &l.point {
        return Err(model.error(p.span(), "a distributed force acts along the whole beam; remove `point`".into()));
    }
    if is_follower(l) {
        let span = l.follower.as_ref().map_or(l.kind.span(), |f| f.span());
        return Err(model.error(
            span,
            "a distributed force keeps its global direction (a follower one, such as a pressure normal to the \
             beam, is not available)"
                .into(),
        ));
    }
    let u = planar_direction(l, site, "a distributed force")?;
    let segments = site.beam_segments(&l.body)?;
    Ok(segments.into_iter().map(|s| Load::line(s, u, magnitude.clone())).collect())
}
