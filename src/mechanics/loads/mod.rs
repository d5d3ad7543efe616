//! The load types of `[[loads]]` (docs/model-file.md): each type lives in its own file and
//! says how a declaration on a body becomes a `Load` (planar, src/mechanics/forces/load.rs)
//! or a `SpatialLoad` (src/mechanics/forces/spatial_load.rs). `LOAD_TYPES` is the one table of
//! types; both assemblers look the `type` key up there, after the checks every load shares
//! (its magnitude, `load_magnitude.rs`; a body that is not ground; in space a unit
//! `direction`). A load at a point of a floating-frame beam (planar, force only) is built by
//! the planar assembler (assemble/floating_frame.rs), as no `Anchor` describes that point. Adding a type is its file plus
//! one line in the table.
//!
//! The assemblers hand the types what they need through the one `Site` trait
//! (src/mechanics/site.rs), so this module depends on neither assembler.

pub mod distributed_force;
pub mod force;
pub mod torque;

use super::forces::{Load, SpatialLoad, TimeFunction};
use super::kind_list::listing;
pub use super::site::{PlanarSite, SpatialSite};
use super::unit_vector::unit;
use crate::model::schema::LoadDecl;
use crate::model::{Model, ModelError};

/// The planar loads of a type on `l.body` with their magnitude: one for a body (not ground),
/// one per element for a beam.
type Planar = fn(&LoadDecl, &dyn PlanarSite, TimeFunction) -> Result<Vec<Load>, ModelError>;
/// The spatial loads of a type on `l.body` along the unit `direction` (global): one for a body
/// (not ground), one per element for a beam.
type Spatial = fn(&LoadDecl, &dyn SpatialSite, [f64; 3], TimeFunction) -> Result<Vec<SpatialLoad>, ModelError>;

/// One load type: its `type` name, what it acts on and its builders (`None` where it does not
/// exist).
pub struct LoadType {
    pub name: &'static str,
    /// Whether `body` names a whole beam (a distributed load) rather than a body or beam node.
    pub on_beam: bool,
    pub planar: Option<Planar>,
    pub spatial: Option<Spatial>,
}

/// Every load type, in the order error messages list them.
pub const LOAD_TYPES: &[LoadType] = &[force::TYPE, torque::TYPE, distributed_force::TYPE];

/// "unknown load type ..., expected <the types with a builder in this dimension>", or, for a
/// type of the other dimension only, that it is not available in this one.
fn unknown(l: &LoadDecl, model: &Model, has: impl Fn(&LoadType) -> bool, models: &str) -> ModelError {
    let name = l.kind.get_ref();
    if LOAD_TYPES.iter().any(|t| t.name == name) {
        return model.error(l.kind.span(), format!("`type = \"{name}\"` is not available in {models} models"));
    }
    let known: Vec<_> = LOAD_TYPES.iter().filter(|t| has(t)).map(|t| t.name).collect();
    model.error(l.kind.span(), format!("unknown load type '{name}', expected {}", listing(&known, "or")))
}

/// Whether the load's `type` names a load on a whole beam (`LoadType::on_beam`).
pub fn on_beam(l: &LoadDecl) -> bool {
    LOAD_TYPES.iter().any(|t| t.on_beam && t.name == l.kind.get_ref().as_str())
}

/// The planar builder of the load's type; an unknown type is a located error.
pub fn planar(l: &LoadDecl, model: &Model) -> Result<Planar, ModelError> {
    let name = l.kind.get_ref().as_str();
    LOAD_TYPES
        .iter()
        .find_map(|t| t.planar.filter(|_| t.name == name))
        .ok_or_else(|| unknown(l, model, |t| t.planar.is_some(), "planar"))
}

/// The spatial builder of the load's type; an unknown type is a located error.
pub fn spatial(l: &LoadDecl, model: &Model) -> Result<Spatial, ModelError> {
    let name = l.kind.get_ref().as_str();
    LOAD_TYPES
        .iter()
        .find_map(|t| t.spatial.filter(|_| t.name == name))
        .ok_or_else(|| unknown(l, model, |t| t.spatial.is_some(), "spatial (dimension = 3)"))
}

/// Whether the load's direction turns with its body (`follower = true`).
fn is_follower(l: &LoadDecl) -> bool {
    l.follower.as_ref().is_some_and(|f| *f.get_ref())
}

/// The unit vector of a planar load's required `direction`.
fn planar_direction(l: &LoadDecl, site: &dyn PlanarSite, what: &str) -> Result<[f64; 2], ModelError> {
    let model = site.model();
    let Some(dir) = &l.direction else {
        return Err(model.error(l.kind.span(), format!("{what} needs `direction = [x, y]`")));
    };
    // `unit` scales first: [1e200, 1e200] overflowed the plain length and gave no load at all,
    // [0, 1e-170] underflowed it and was refused as zero (a probe).
    unit(site.scope().vec2(dir)?).ok_or_else(|| model.error(dir.span(), "direction must not be zero".into()))
}

/// `point` has no meaning for a torque.
fn no_point(l: &LoadDecl, model: &Model) -> Result<(), ModelError> {
    match &l.point {
        Some(p) => Err(model.error(p.span(), "a torque has no point of application; remove `point`".into())),
        None => Ok(()),
    }
}
