//! What a kind file (a spring type in src/mechanics/springs/, a contact geometry in
//! src/mechanics/contacts/) may ask of the assembler building the model: one trait for both
//! dimensions, with the anchor type as its associated type (`Anchor` in planar models,
//! `Anchor3` in spatial ones). Each assembler implements it once (assemble/mod.rs,
//! assemble_spatial.rs), so the kind files depend on neither assembler.

use super::contact_gap::ContactGap;
use super::elements::CorotationalBeam3d;
use super::forces::line_load::LineSegment;
use super::joints::JointInfo;
use super::kinematics::{Anchor, Measure};
use super::spatial_kinematics::Anchor3;
use crate::model::schema::{Name, Vec2};
use crate::model::{Model, ModelError, Scope};

/// The assembler as seen by a kind file, in either dimension.
pub trait Site {
    /// A point fixed on a body (or on ground): `Anchor` or `Anchor3`.
    type Anchor;
    fn model(&self) -> &Model;
    fn scope(&self) -> &Scope<'_>;
    /// The initial configuration.
    fn q0(&self) -> &[f64];
    /// The anchor of `body` at the global point `point` (initial configuration); without a
    /// point, the body's reference point (planar) or centre of mass (spatial). An unknown
    /// body, or ground without a point, is a located error.
    fn anchor(&self, body: &Name, point: Option<&Vec2>) -> Result<Self::Anchor, ModelError>;
    /// The joint named `name`, once the joints are laid out.
    fn joint(&self, name: &str) -> Option<&JointInfo>;
}

/// What only planar models add: section angles, and body2 of a contact that may be a point of
/// a floating-frame beam (paper 004 eq. 1), which no `Anchor` describes.
pub trait PlanarSite: Site<Anchor = Anchor> {
    /// Whether `body` has a section angle (rigid body, beam node); `None` for ground; an
    /// unknown name is a located error.
    fn has_angle(&self, body: &Name) -> Result<Option<bool>, ModelError>;
    /// The initial angle of `body`'s frame if it rotates (a rigid body), else `None`.
    fn frame_angle(&self, body: &Name) -> Result<Option<f64>, ModelError>;
    /// The anchor of `body` at `point` as body2 of the contact being built: a placeholder on
    /// ground when it is a point of a floating-frame beam (see `gap`).
    fn contact_anchor2(&self, body: &Name, point: Option<&Vec2>) -> Result<Anchor, ModelError>;
    /// The gap of the contact being built on the measure `m`: `m` itself, or, when body2 is a
    /// point of a floating-frame beam, that point against the ground plane or circle
    /// described by `m`'s first anchor.
    fn gap(&self, m: Measure) -> ContactGap;
    /// The elements of the beam named `beam` as a distributed force sees them; a name that is
    /// no such beam is a located error.
    fn beam_segments(&self, beam: &Name) -> Result<Vec<LineSegment>, ModelError>;
}

/// What only spatial models add: the elements of a beam.
pub trait SpatialSite: Site<Anchor = Anchor3> {
    /// The elements of the beam named `beam`, for a distributed force; a name that is no
    /// beam is a located error.
    fn beam_elements(&self, beam: &Name) -> Result<Vec<CorotationalBeam3d>, ModelError>;
}
