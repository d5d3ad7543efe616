//! `type = "distributed_force"`: a uniform force per unit length of the undeformed beam along
//! a direction fixed in the global frame, on every element of the beam named by `body`
//! (planar `timoshenko`, `euler_bernoulli` and `ancf` beams, spatial beams): each element
//! takes its consistent nodal load (src/mechanics/forces/line_load.rs), as it takes its own
//! weight.

use super::{LoadType, PlanarSite, SpatialSite, is_follower, planar_direction};
use crate::mechanics::forces::{Load, SpatialLoad, TimeFunction};
use crate::model::schema::LoadDecl;
use crate::model::{Model, ModelError};

pub const TYPE: LoadType =
    LoadType { name: "distributed_force", on_beam: true, planar: Some(planar), spatial: Some(spatial) };

/// The message for a distributed force on `name`, which is none of the model's `beams`
/// (both assemblers).
pub fn not_a_beam<'a>(name: &str, beams: impl Iterator<Item = &'a String>) -> String {
    let mut beams: Vec<&str> = beams.map(String::as_str).collect();
    beams.sort_unstable();
    let known = if beams.is_empty() { "the model has none".to_string() } else { beams.join(", ") };
    format!("a distributed force acts on a whole beam, named as in [[beams]]; '{name}' is none (beams: {known})")
}

/// What a distributed force refuses in both dimensions: a `point`, `follower = true`.
fn refuse_point_and_follower(l: &LoadDecl, model: &Model) -> Result<(), ModelError> {
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
    Ok(())
}

fn planar(l: &LoadDecl, site: &dyn PlanarSite, magnitude: TimeFunction) -> Result<Vec<Load>, ModelError> {
    refuse_point_and_follower(l, site.model())?;
    let u = planar_direction(l, site, "a distributed force")?;
    let segments = site.beam_segments(&l.body)?;
    Ok(segments.into_iter().map(|s| Load::line(s, u, magnitude.clone())).collect())
}

fn spatial(
    l: &LoadDecl,
    site: &dyn SpatialSite,
    u: [f64; 3],
    magnitude: TimeFunction,
) -> Result<Vec<SpatialLoad>, ModelError> {
    refuse_point_and_follower(l, site.model())?;
    let elements = site.beam_elements(&l.body)?;
    Ok(elements.into_iter().map(|e| SpatialLoad::line(e, u, magnitude.clone())).collect())
}
