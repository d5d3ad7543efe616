//! Joints as index-3 constraints: each joint is a set of rows Phi = measure - target. Each
//! joint type lives in its own file and builds its rows, and its joint coordinate, from the two
//! anchors in planar and/or spatial models; `JOINT_TYPES` is the one table of types, where the
//! assemblers look the `[[joints]]` `type` key up (and the unknown-type messages list it).
//! Adding a type is its file plus one line in the table. The row pieces the types share are in
//! `planar.rs` and `spatial.rs`.
//!
//! Planar joints:
//! - revolute: the two anchor points coincide (projections on the global x and y axes);
//! - prismatic: the anchor of body 2 stays on the line through body 1's anchor along the
//!   axis (projection on the normal, rotating with body 1), and, if body 2 rotates, the
//!   relative angle is fixed;
//! - fixed: revolute plus fixed relative angle (for an ANCF beam node: the angle of its slope
//!   d = dr/dy, paper 003 eq. 4, so the section is clamped; its shear stays free).
//!
//! Spatial joints: see `spatial.rs`. The distance joint (`distance.rs`, both dimensions)
//! links two points, one on each body, instead of anchoring both bodies at one point.

pub mod contact_constraint;
pub mod cylindrical;
pub mod distance;
pub mod fixed;
pub mod planar;
pub mod prismatic;
pub mod revolute;
pub mod spatial;
pub mod spherical;
pub mod universal;

pub use contact_constraint::{ContactConstraint, ContactConstraintMemory, ContactMode};

use super::System;
use super::contact_gap::ContactGap;
use super::kind_list::listing;
use super::kinematics::{Anchor, Measure, MeasureKind, within_half_turn};
use super::spatial_kinematics::{Anchor3, SpatialKind, SpatialMeasure};
use crate::model::expr::{Expr, InputRates};
use crate::model::schema::{DriveDecl, JointDecl, Name, Num};
use crate::model::{Model, ModelError, Scope};
use std::ops::Range;

/// Phi = measure - target - f(t). The measure is a planar or spatial `Measure`, or a component
/// of the relative position at a floating-frame beam point (`ContactGap::FloatingJoint`).
/// A driven joint's coordinate row is rheonomic: `drive` is the prescribed f(t, inputs), whose
/// exact time derivatives give Phi_t = -f' and Phi_tt = -f'' (Haug 1989, sec. 6.1: driving
/// constraints). Its multiplier lambda is the generalized constraint force -lambda Phi_q on the
/// joint coordinate: the drive applies the force/torque -lambda along it.
#[derive(Debug, Clone, PartialEq)]
pub struct ConstraintRow {
    pub measure: ContactGap,
    pub target: f64,
    pub drive: Option<Expr>,
}

impl ConstraintRow {
    /// The row Phi = m(q) - m(q0): the measure keeps its initial value.
    pub fn holding(measure: ContactGap, q0: &[f64]) -> Self {
        let target = measure.value(q0);
        ConstraintRow { measure, target, drive: None }
    }

    /// The driving row Phi = m(q) - f(t, inputs).
    pub fn driven(measure: ContactGap, drive: Expr) -> Self {
        ConstraintRow { measure, target: 0.0, drive: Some(drive) }
    }

    /// Phi at (q, t). A spatial relative angle is wrapped to (-pi, pi], so its residual is
    /// taken modulo 2 pi (a driven rotor may turn any number of times).
    pub fn residual(&self, q: &[f64], t: f64, inputs: &[f64], rates: &InputRates) -> f64 {
        self.residual_of(self.measure.value(q), t, inputs, rates)
    }

    /// Phi for the row's measure `value` at time t (`residual`).
    pub fn residual_of(&self, value: f64, t: f64, inputs: &[f64], rates: &InputRates) -> f64 {
        let r = value - if self.drive.is_some() { self.prescribed(t, inputs, rates)[0] } else { self.target };
        self.wrapped(r)
    }

    /// The change of the row's measure from `start` to `end` (positions of one step): for a
    /// wrapped angle the difference wrapped to (-pi, pi], as a step turns by less than that.
    pub fn measure_change(&self, start: &[f64], end: &[f64]) -> f64 {
        self.wrapped(self.measure.value(end) - self.measure.value(start))
    }

    /// A difference of the row's measure: for a wrapped angle, modulo 2 pi into (-pi, pi].
    fn wrapped(&self, d: f64) -> f64 {
        if self.periodic() { within_half_turn(d) } else { d }
    }

    /// Whether the row's measure is a spatial relative angle, wrapped to (-pi, pi].
    fn periodic(&self) -> bool {
        matches!(
            self.measure.measure().map(|m| &m.kind),
            Some(MeasureKind::Spatial(SpatialMeasure {
                kind: SpatialKind::Angle { .. } | SpatialKind::AngleAbout2 { .. },
                ..
            }))
        )
    }

    /// The joint coordinate of a driving row at (q, t): the measure, and for a wrapped angle
    /// the branch nearest the drive (continuous over any number of turns). The drive picks
    /// only the whole number of turns, so the value is the measure's to the last bit (an
    /// input change that does not move the joint does not change it).
    pub fn driven_coordinate(&self, q: &[f64], t: f64, inputs: &[f64], rates: &InputRates) -> f64 {
        let m = self.measure.value(q);
        if !self.periodic() {
            return m;
        }
        let turns = ((self.prescribed(t, inputs, rates)[0] - m) / std::f64::consts::TAU).round();
        if turns == 0.0 { m } else { m + std::f64::consts::TAU * turns }
    }

    /// The prescribed part target + f and its first and second time derivatives (the inputs
    /// with their `rates`: a drive follows an interpolated input exactly, with consistent
    /// velocity and acceleration).
    pub fn prescribed(&self, t: f64, inputs: &[f64], rates: &InputRates) -> [f64; 3] {
        match &self.drive {
            None => [self.target, 0.0, 0.0],
            Some(f) => {
                let [v, d1, d2] = f.eval_time_jet(t, inputs, rates);
                [self.target + v, d1, d2]
            }
        }
    }
}

/// The type of a joint, in either dimension (one per entry of `JOINT_TYPES`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JointKind {
    Spherical,
    Revolute,
    Prismatic,
    Fixed,
    Cylindrical,
    Universal,
    Distance,
}

impl JointKind {
    /// The coordinates of its type (`JointType::coordinates`).
    pub fn coordinates(self) -> &'static [Coordinate] {
        JOINT_TYPES.iter().find(|t| t.kind == self).map_or(&[], |t| t.coordinates)
    }
}

/// What a joint coordinate measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoordinateKind {
    /// A displacement along the joint axis (m), the coordinate of prismatic springs.
    Slide,
    /// A rotation angle (rad), the coordinate of torsional springs.
    Angle,
    /// A link's length (m).
    Length,
}

impl CoordinateKind {
    /// Whether it is a length (m) rather than an angle (rad).
    pub fn linear(self) -> bool {
        matches!(self, CoordinateKind::Slide | CoordinateKind::Length)
    }
}

/// One coordinate of a joint type: the name by which `coordinate = "..."` (outputs, springs)
/// and the keys of `drive = { ... }` pick it on a type with more than one, and what it
/// measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Coordinate {
    pub name: &'static str,
    pub kind: CoordinateKind,
}

/// A slider's displacement along the axis (prismatic, cylindrical).
pub const SLIDE: Coordinate = Coordinate { name: "slide", kind: CoordinateKind::Slide };
/// A relative angle about the axis (revolute, cylindrical; planar fixed, held).
pub const ANGLE: Coordinate = Coordinate { name: "angle", kind: CoordinateKind::Angle };

/// What `drive` does on a joint type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drive {
    /// Not available: the joint has no single coordinate, or (planar fixed joint) holds it.
    No,
    /// One more row, coordinate(q) = drive(t), besides the joint's rows (revolute, prismatic).
    Adds,
    /// The joint is the one row on its coordinate: coordinate(q) = `length` (default: its
    /// initial value), or = drive(t) when driven (distance). The type's row builders return
    /// no rows, only the coordinate; `coordinate_row` makes the row.
    Holds,
}

/// A joint's rows and its joint coordinates, in the order of its type's `coordinates`
/// (slider displacement, relative angle, link length; empty where the joint has none).
pub struct Rows {
    pub rows: Vec<ConstraintRow>,
    pub coordinates: Vec<Measure>,
}

/// The planar rows of a type from anchors placed at the same global point in the initial
/// configuration `q0`; `axis` is the unit sliding direction in body 1's frame (joints with
/// `axis` only).
pub type Planar = fn(a1: Anchor, a2: Anchor, axis: [f64; 2], q0: &[f64]) -> Rows;

/// The spatial rows of a type from anchors at the same global point in `q0`; `axes` are the
/// global unit joint axis (body 1's pin for a universal joint) and body 2's pin (universal only;
/// the joint axis otherwise).
pub type Spatial = fn(a1: Anchor3, a2: Anchor3, axes: [[f64; 3]; 2], q0: &[f64]) -> Rows;

/// One joint type: its `type` name, what it is, the relative degrees of freedom it leaves
/// (in space), its joint coordinates (what its row builders return, when they return any),
/// whether it takes `axis` in planar resp. spatial models, whether it links two
/// points (`point1` on body1, `point2` on body2) instead of anchoring both bodies at one
/// `point`, what `drive` does on it, and its rows in each dimension (`None` where it does not
/// exist). The anchors the row builders get are at the one point, or at the two points.
pub struct JointType {
    pub name: &'static str,
    pub kind: JointKind,
    pub freedoms: usize,
    pub coordinates: &'static [Coordinate],
    pub planar_axis: bool,
    pub spatial_axis: bool,
    pub two_points: bool,
    pub drive: Drive,
    pub planar: Option<Planar>,
    pub spatial: Option<Spatial>,
}

/// Every joint type, in the order error messages list them.
pub const JOINT_TYPES: &[JointType] = &[
    spherical::TYPE,
    revolute::TYPE,
    prismatic::TYPE,
    fixed::TYPE,
    distance::TYPE,
    cylindrical::TYPE,
    universal::TYPE,
];

/// The planar joint type named `name` and its rows; an unknown name is the message listing
/// the table.
pub fn planar_type(name: &str) -> Result<(&'static JointType, Planar), String> {
    JOINT_TYPES.iter().find_map(|t| t.planar.filter(|_| t.name == name).map(|p| (t, p))).ok_or_else(|| {
        let known: Vec<_> = JOINT_TYPES.iter().filter(|t| t.planar.is_some()).map(|t| t.name).collect();
        format!("unknown joint type '{name}', expected {}", listing(&known, "or"))
    })
}

/// The spatial joint type named `name` and its rows; an unknown name is the message listing
/// the table (the two-coordinate types last).
pub fn spatial_type(name: &str) -> Result<(&'static JointType, Spatial), String> {
    JOINT_TYPES.iter().find_map(|t| t.spatial.filter(|_| t.name == name).map(|p| (t, p))).ok_or_else(|| {
        let known = |two: bool| -> Vec<_> {
            JOINT_TYPES.iter().filter(|t| t.spatial.is_some() && (t.freedoms == 2) == two).map(|t| t.name).collect()
        };
        let (one, two) = (known(false), known(true));
        let more =
            if two.is_empty() { String::new() } else { format!(", or the two-coordinate {}", listing(&two, "or")) };
        format!("unknown joint type '{name}', expected {}{more}", listing(&one, "or"))
    })
}

/// "`axis` only applies to a, b and c joints" in planar (`spatial` false) or spatial models.
pub fn axis_only(spatial: bool) -> String {
    let with: Vec<_> =
        JOINT_TYPES.iter().filter(|t| if spatial { t.spatial_axis } else { t.planar_axis }).map(|t| t.name).collect();
    format!("`axis` only applies to {} joints", listing(&with, "and"))
}

/// The names of the planar (`spatial` false) or spatial types for which `has` holds, listed
/// "a, b and c".
fn types_with(spatial: bool, has: impl Fn(&JointType) -> bool) -> String {
    let with: Vec<_> = JOINT_TYPES
        .iter()
        .filter(|t| if spatial { t.spatial.is_some() } else { t.planar.is_some() })
        .filter(|t| has(t))
        .map(|t| t.name)
        .collect();
    listing(&with, "and")
}

/// The types whose coordinates outputs and springs reference, "a, b or c", in planar
/// (`spatial` false) or spatial models: those with a drive (the fixed joint holds its
/// relative angle, and in space has none).
pub fn coordinate_types(spatial: bool) -> String {
    let with: Vec<_> = JOINT_TYPES
        .iter()
        .filter(|t| if spatial { t.spatial.is_some() } else { t.planar.is_some() })
        .filter(|t| t.drive != Drive::No)
        .map(|t| t.name)
        .collect();
    listing(&with, "or")
}

/// "`drive` applies to a and b joints" (the types with one coordinate) in planar (`spatial`
/// false) or spatial models.
pub fn drive_only(spatial: bool) -> String {
    format!("`drive` applies to {} joints", types_with(spatial, |t| t.drive != Drive::No && t.coordinates.len() == 1))
}

/// The message for `drive` on a type `name` that has none: `drive_only`, and where there are
/// types with two coordinates, how those take theirs.
fn no_drive(spatial: bool, name: &str) -> String {
    let two = types_with(spatial, |t| t.drive != Drive::No && t.coordinates.len() > 1);
    let by_name = if two.is_empty() {
        String::new()
    } else {
        format!("; {two} joints take `drive = {{ name = expression, ... }}` by coordinate")
    };
    format!("{}, not {name}{by_name}", drive_only(spatial))
}

/// Whether a joint's spatial rows or its coordinates read the orientation of its anchor 1
/// resp. anchor 2 (`SpatialMeasure::reads_orientation`): a point mass, which has none, can be
/// neither (spherical and distance joints read positions alone; a prismatic joint reads body
/// 1's, its axis, and builds no rotation rows on a point mass as body 2).
pub fn reads_orientation(rows: &[ConstraintRow], coordinates: &[Measure]) -> [bool; 2] {
    let measures = rows.iter().filter_map(|r| r.measure.measure()).chain(coordinates);
    measures.fold([false; 2], |reads, m| match &m.kind {
        MeasureKind::Spatial(s) => {
            let [r1, r2] = s.reads_orientation();
            [reads[0] || r1, reads[1] || r2]
        }
        _ => reads,
    })
}

/// Whether the spatial rows and coordinate of type `t` read the orientation of body 1 resp.
/// body 2 (`reads_orientation`, on the rows the type builds between two point masses): a
/// point mass can be neither.
pub fn reads_body_orientation(t: &JointType) -> [bool; 2] {
    let (a1, a2) = (Anchor3::Point { x: 0 }, Anchor3::Point { x: 3 });
    let q0 = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0];
    let (a, b) = ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0]);
    t.spatial.map_or([false; 2], |build| {
        let Rows { rows, coordinates } = build(a1, a2, [a, b], &q0);
        reads_orientation(&rows, &coordinates)
    })
}

/// The spatial joint types a point mass can take, "a and b joints" (their rows read no
/// orientation), and ", and c joints as body2" for those that read body 1's alone (a
/// prismatic joint's axis is fixed in body 1).
pub fn point_mass_types() -> String {
    let either = types_with(true, |t| reads_body_orientation(t) == [false, false]);
    let body2 = types_with(true, |t| reads_body_orientation(t) == [true, false]);
    if body2.is_empty() { format!("{either} joints") } else { format!("{either} joints, and {body2} joints as body2") }
}

/// The keys locating a joint of type `t`: `point1`/`point2` on a two-point type, `point` on
/// the others (the other keys are located errors); a two-point joint to ground needs
/// `point1` (ground has no reference point).
pub fn check_points(j: &JointDecl, t: &JointType, body1_is_ground: bool, model: &Model) -> Result<(), ModelError> {
    let name = j.kind.get_ref();
    if t.two_points {
        if let Some(p) = &j.point {
            return Err(model.error(p.span(), format!("a {name} joint takes `point1` and `point2`, not `point`")));
        }
        if body1_is_ground && j.point1.is_none() {
            let span = j.body1.as_ref().map_or(j.name.span(), |b| b.span());
            return Err(model.error(span, format!("a {name} joint to ground needs `point1`, its ground point")));
        }
    } else if let Some(p) = j.point1.as_ref().or(j.point2.as_ref()) {
        let with: Vec<_> = JOINT_TYPES.iter().filter(|t| t.two_points).map(|t| t.name).collect();
        return Err(model.error(
            p.span(),
            format!("`point1` and `point2` apply to {} joints; a {name} joint takes `point`", listing(&with, "and")),
        ));
    }
    Ok(())
}

/// Whether a two-point joint's points `p1`, `p2` (global, initial configuration) are apart:
/// a link between coincident points has no direction (its row's gradient is undefined).
/// Refused below 1e-12 of the points' size, so points equal up to round-off are too.
fn points_apart(p1: &[f64], p2: &[f64]) -> bool {
    let size = 1.0 + p1.iter().chain(p2).fold(0.0f64, |a, x| a.max(x.abs()));
    let d = p1.iter().zip(p2).map(|(a, b)| (b - a) * (b - a)).sum::<f64>().sqrt();
    d > 1e-12 * size
}

/// `points_apart`, or the located error (at `point1`, else `point2`, else the name).
pub fn check_apart(j: &JointDecl, p1: &[f64], p2: &[f64], model: &Model) -> Result<(), ModelError> {
    if points_apart(p1, p2) {
        return Ok(());
    }
    Err(model.error(
        j.point1.as_ref().or(j.point2.as_ref()).map_or(j.name.span(), |p| p.span()),
        format!(
            "the points of {} joint '{}' coincide initially; a link needs two distinct points",
            j.kind.get_ref(),
            j.name.get_ref()
        ),
    ))
}

/// The `length` of a joint that holds its coordinate (`Drive::Holds`): > 0, or `None` for the
/// initial value; `length` on another type is a located error.
pub fn held_length(j: &JointDecl, t: &JointType, scope: &Scope, model: &Model) -> Result<Option<f64>, ModelError> {
    match &j.length {
        None => Ok(None),
        Some(l) if t.drive == Drive::Holds => {
            if j.drive.is_some() {
                return Err(model
                    .error(l.span(), "give either `length` or `drive` (a driven joint's length is drive(t))".into()));
            }
            scope.positive(l, "length").map(Some)
        }
        Some(l) => {
            let with: Vec<_> = JOINT_TYPES.iter().filter(|t| t.drive == Drive::Holds).map(|t| t.name).collect();
            Err(model.error(l.span(), format!("`length` applies to {} joints", listing(&with, "and"))))
        }
    }
}

/// The drive f(t, inputs) of a joint of type `t`, an expression of `t`, parameters and inputs
/// (`scope`); it and its first two time derivatives must be finite at the start time `t0`
/// with the inputs' start values and rates, and a held length (`Drive::Holds`) must be
/// positive there (the initial state is projected onto it).
pub fn drive_function(
    d: &Num,
    t: &JointType,
    scope: &Scope,
    t0: f64,
    (inputs, rates): (&[f64], &InputRates),
    model: &Model,
) -> Result<Expr, ModelError> {
    let f = scope.time_function(d, "drive")?;
    let jet = f.eval_time_jet(t0, inputs, rates);
    if let Some(bad) = jet.into_iter().find(|x| !x.is_finite()) {
        return Err(model.error(
            d.span(),
            format!("the drive or its time derivatives are not finite at t = {t0}, the start time ({bad})"),
        ));
    }
    if t.drive == Drive::Holds && jet[0] <= 0.0 {
        return Err(model.error(
            d.span(),
            format!(
                "the driven length of a {} joint must be positive; it is {} at t = {t0}, the start time",
                t.name, jet[0]
            ),
        ));
    }
    Ok(f)
}

/// The drive f(t, inputs) of each of the `n` coordinates the rows of joint `j` (type `t`)
/// gave (`drive_function` each): `drive = expression` on a joint with one, `drive = { name =
/// expression, ... }` by coordinate name, either or both, on a joint with two. `drive` on a
/// type without one, one expression for two coordinates, a table for one, an unknown or no
/// name are located errors. `spatial` picks the dimension whose types the messages list.
#[allow(clippy::too_many_arguments)] // the joint, its type, and the drive function's context
pub fn drives(
    j: &JointDecl,
    t: &JointType,
    n: usize,
    spatial: bool,
    scope: &Scope,
    t0: f64,
    sys: &mut System,
    model: &Model,
) -> Result<Vec<Option<Expr>>, ModelError> {
    let inputs = (sys.inputs.as_slice(), &sys.input_rates);
    let mut drives = vec![None; n];
    let Some(d) = &j.drive else { return Ok(drives) };
    if t.drive == Drive::No || n == 0 {
        return Err(model.error(d.span(), no_drive(spatial, j.kind.get_ref())));
    }
    let names: Vec<_> = t.coordinates.iter().map(|c| c.name).collect();
    match d {
        DriveDecl::One(f) if n == 1 => drives[0] = Some(drive_function(f, t, scope, t0, inputs, model)?),
        DriveDecl::One(f) => {
            let each: Vec<_> = names.iter().map(|c| format!("{c} = ...")).collect();
            return Err(model.error(
                f.span(),
                format!(
                    "a {} joint has {} coordinates: drive them by name, `drive = {{ {} }}` (any of them)",
                    t.name,
                    count(n),
                    each.join(", ")
                ),
            ));
        }
        DriveDecl::Each(e) if n == 1 => {
            return Err(model.error(
                e.span(),
                format!(
                    "`drive = {{ ... }}` drives the coordinates of {} joints by name; a {} joint has one: \
                     `drive = expression`",
                    types_with(spatial, |t| t.coordinates.len() > 1),
                    t.name
                ),
            ));
        }
        DriveDecl::Each(e) => {
            if e.get_ref().is_empty() {
                return Err(model.error(
                    e.span(),
                    format!("an empty `drive` drives nothing: name {}", listing(&quoted(&names), "or")),
                ));
            }
            for (name, f) in e.get_ref() {
                let k = names.iter().position(|c| c == name.get_ref()).ok_or_else(|| {
                    model.error(
                        name.span(),
                        format!(
                            "a {} joint has no coordinate '{}': its coordinates are {}",
                            t.name,
                            name.get_ref(),
                            listing(&quoted(&names), "and")
                        ),
                    )
                })?;
                drives[k] = Some(drive_function(f, t, scope, t0, inputs, model)?);
            }
        }
    }
    // What a drive that turns NaN in time is said as (`System::non_finite_expression`).
    let named: Vec<(Option<&String>, &Num)> = match d {
        DriveDecl::One(f) => vec![(None, f)],
        DriveDecl::Each(e) => e.get_ref().iter().map(|(name, f)| (Some(name.get_ref()), f)).collect(),
    };
    for (coordinate, f) in named {
        let k = coordinate.map_or(0, |c| names.iter().position(|n| n == c).unwrap_or(0));
        let of = coordinate.map(|c| format!(" of {c}")).unwrap_or_default();
        if let Some(drive) = &drives[k] {
            sys.watch(model.watch_label(f, format!("the drive{of} of joint '{}'", j.name.get_ref())), drive, true);
        }
    }
    Ok(drives)
}

/// "one", "two", ... for the few coordinates a joint has.
fn count(n: usize) -> &'static str {
    ["no", "one", "two", "three"].get(n).copied().unwrap_or("several")
}

/// The names in double quotes, as the model file spells them.
fn quoted(names: &[&str]) -> Vec<String> {
    names.iter().map(|c| format!("\"{c}\"")).collect()
}

/// Which of the coordinates of joint `j` a reference to it (an output, a spring) means:
/// `key`, the `coordinate = "name"` of the reference, names one of a joint with several and
/// is left out for a joint with one. Missing where needed, given where not, or naming no
/// coordinate of the joint, it is a located error (at `key`, or at `at`, the reference's
/// `joint`). The joint must have coordinates (`JointInfo::coordinates` not empty).
pub fn pick_coordinate(
    j: &JointInfo,
    key: Option<&Name>,
    at: Range<usize>,
    model: &Model,
) -> Result<usize, ModelError> {
    let table = j.kind.coordinates();
    let names: Vec<_> = table.iter().map(|c| c.name).collect();
    let type_name = JOINT_TYPES.iter().find(|t| t.kind == j.kind).map_or("", |t| t.name);
    match (key, j.coordinates.len()) {
        (None, 0 | 1) => Ok(0),
        (Some(k), 0 | 1) => {
            let with: Vec<_> = JOINT_TYPES.iter().filter(|t| t.coordinates.len() > 1).map(|t| t.name).collect();
            Err(model.error(
                k.span(),
                format!(
                    "`coordinate` picks one of the coordinates of {} joints; {type_name} joint '{}' has one \
                     (leave `coordinate` out)",
                    listing(&with, "and"),
                    j.name
                ),
            ))
        }
        (None, n) => {
            let each: Vec<_> = quoted(&names).iter().map(|c| format!("`coordinate = {c}`")).collect();
            Err(model.error(
                at,
                format!("{type_name} joint '{}' has {} coordinates: give {}", j.name, count(n), listing(&each, "or")),
            ))
        }
        (Some(k), _) => names.iter().position(|c| c == k.get_ref()).ok_or_else(|| {
            model.error(
                k.span(),
                format!(
                    "{type_name} joint '{}' has no coordinate '{}': its coordinates are {}",
                    j.name,
                    k.get_ref(),
                    listing(&quoted(&names), "and")
                ),
            )
        }),
    }
}

/// The row that prescribes the joint coordinate `m`: coordinate(q) = drive(t) when driven;
/// undriven, for a type that holds its coordinate (`Drive::Holds`), coordinate(q) = `held`
/// (the initial value `m(q0)` when `None`). `None` otherwise (the type's own rows do not
/// prescribe it).
pub fn coordinate_row(
    t: &JointType,
    m: &Measure,
    drive: Option<Expr>,
    held: Option<f64>,
    q0: &[f64],
) -> Option<ConstraintRow> {
    let measure = ContactGap::Measure(m.clone());
    match (drive, t.drive, held) {
        (Some(f), _, _) => Some(ConstraintRow::driven(measure, f)),
        (None, Drive::Holds, Some(target)) => Some(ConstraintRow { measure, target, drive: None }),
        (None, Drive::Holds, None) => Some(ConstraintRow::holding(measure, q0)),
        (None, _, _) => None,
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct JointInfo {
    pub name: String,
    pub kind: JointKind,
    /// Constraint rows (indices into the multiplier vector).
    pub rows: Range<usize>,
    /// First coordinate of body 1; `None` for ground.
    pub body1_x: Option<usize>,
    /// First coordinate of body 2 (reactions act on it).
    pub body2_x: usize,
    pub body2_rotates: bool,
    /// Spatial joints: body 2's anchor at the joint point, about which the reaction moment is
    /// taken (src/mechanics/reactions.rs); `None` in planar models.
    pub body2_point: Option<Anchor3>,
    /// The joint coordinates, in the order of the type's `coordinates`: slider displacement
    /// along the axis, relative angle, link length (none at a floating-frame beam point, whose
    /// section angle is no anchor).
    pub coordinates: Vec<Measure>,
}

impl JointInfo {
    /// What its coordinate `k` measures.
    pub fn coordinate_kind(&self, k: usize) -> Option<CoordinateKind> {
        self.kind.coordinates().get(k).map(|c| c.kind)
    }

    /// The row driving its coordinate `k`, if it is driven.
    pub fn drive_row(&self, k: usize, constraints: &[ConstraintRow]) -> Option<usize> {
        let m = self.coordinates.get(k)?;
        self.rows.clone().find(|&r| constraints[r].drive.is_some() && constraints[r].measure.measure() == Some(m))
    }
}

/// Why a joint between `body` and itself is refused: both sides the ground (body1's default)
/// is a joint with no body; the same body twice joins nothing.
pub fn same_bodies_message(body: &str) -> String {
    if body == "ground" {
        "body2 is the ground, and so is body1 (its default): a joint holds a body to the ground or to another \
         body; name the moving body in body2"
            .into()
    } else {
        format!("a joint needs two different bodies (body1 and body2 are both '{body}')")
    }
}

/// Why a joint between two names of one body is refused (a beam's `arm.node[0]` and
/// `arm.start`): it joins nothing, and had been reported as "these joints constrain nothing
/// here" (a probe).
pub fn aliased_bodies_message(body1: &str, body2: &str) -> String {
    format!("a joint needs two different bodies ('{body1}' and '{body2}' name the same one)")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The messages generated from `JOINT_TYPES` are the ones the assemblers wrote by hand
    /// before the table (tests/model_errors.rs checks them located in a model file).
    #[test]
    fn messages_list_the_table() {
        assert_eq!(
            planar_type("hinge").err().as_deref(),
            Some("unknown joint type 'hinge', expected revolute, prismatic, fixed or distance")
        );
        assert_eq!(
            spatial_type("ball").err().as_deref(),
            Some(
                "unknown joint type 'ball', expected spherical, revolute, prismatic, fixed or distance, or the \
                 two-coordinate cylindrical or universal"
            )
        );
        assert!(planar_type("spherical").is_err() && spatial_type("spherical").is_ok());
        assert_eq!(axis_only(false), "`axis` only applies to prismatic joints");
        assert_eq!(axis_only(true), "`axis` only applies to revolute, prismatic, cylindrical and universal joints");
        assert_eq!(drive_only(false), "`drive` applies to revolute, prismatic and distance joints");
        assert_eq!(drive_only(true), "`drive` applies to revolute, prismatic and distance joints");
        assert_eq!(no_drive(false, "fixed"), "`drive` applies to revolute, prismatic and distance joints, not fixed");
        assert_eq!(
            no_drive(true, "spherical"),
            "`drive` applies to revolute, prismatic and distance joints, not spherical; cylindrical and universal \
             joints take `drive = { name = expression, ... }` by coordinate"
        );
        assert_eq!(coordinate_types(false), "revolute, prismatic or distance");
        assert_eq!(coordinate_types(true), "revolute, prismatic, distance, cylindrical or universal");
    }

    /// Points apart by a relative 1e-12 of their size are refused (no direction); 1e-9 apart
    /// is a link.
    #[test]
    fn coincident_points_are_told_apart_from_close_ones() {
        assert!(!points_apart(&[0.1 + 0.2, 0.0], &[0.3, 0.0]));
        assert!(!points_apart(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]));
        assert!(points_apart(&[0.0, 0.0], &[0.0, 1e-9]));
        assert!(points_apart(&[0.0, 0.0, 0.0], &[0.0, 0.0, -2.0]));
    }
}
