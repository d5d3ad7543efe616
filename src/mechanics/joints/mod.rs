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
//! Spatial joints: see `spatial.rs`.

pub mod contact_constraint;
pub mod cylindrical;
pub mod fixed;
pub mod planar;
pub mod prismatic;
pub mod revolute;
pub mod spatial;
pub mod spherical;
pub mod universal;

pub use contact_constraint::{ContactConstraint, ContactConstraintMemory, ContactMode};

use super::contact_gap::ContactGap;
use super::kind_list::listing;
use super::kinematics::{Anchor, Measure, MeasureKind};
use super::spatial_kinematics::{Anchor3, SpatialKind, SpatialMeasure};
use crate::model::expr::{Expr, InputRates};
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
        let r = self.measure.value(q)
            - if self.drive.is_some() { self.prescribed(t, inputs, rates)[0] } else { self.target };
        if self.periodic() { r - std::f64::consts::TAU * (r / std::f64::consts::TAU).round() } else { r }
    }

    /// Whether the row's measure is a spatial relative angle, wrapped to (-pi, pi].
    fn periodic(&self) -> bool {
        matches!(
            self.measure.measure().map(|m| &m.kind),
            Some(MeasureKind::Spatial(SpatialMeasure { kind: SpatialKind::Angle { .. }, .. }))
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
}

/// A joint's rows and its joint coordinate (slider displacement or relative angle; `None`
/// where the joint has none or more than one).
pub struct Rows {
    pub rows: Vec<ConstraintRow>,
    pub coordinate: Option<Measure>,
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
/// (in space), whether it takes `axis` in planar resp. spatial models, and its rows in each
/// dimension (`None` where it does not exist).
pub struct JointType {
    pub name: &'static str,
    pub kind: JointKind,
    pub freedoms: usize,
    pub planar_axis: bool,
    pub spatial_axis: bool,
    pub planar: Option<Planar>,
    pub spatial: Option<Spatial>,
}

/// Every joint type, in the order error messages list them.
pub const JOINT_TYPES: &[JointType] =
    &[spherical::TYPE, revolute::TYPE, prismatic::TYPE, fixed::TYPE, cylindrical::TYPE, universal::TYPE];

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

#[derive(Debug, Clone, PartialEq)]
pub struct JointInfo {
    pub name: String,
    pub kind: JointKind,
    /// Constraint rows (indices into the multiplier vector).
    pub rows: Range<usize>,
    /// First coordinate of body 2 (reactions act on it).
    pub body2_x: usize,
    pub body2_rotates: bool,
    /// Spatial joints: body 2's anchor at the joint point, about which the reaction moment is
    /// taken (src/mechanics/reactions.rs); `None` in planar models.
    pub body2_point: Option<Anchor3>,
    /// The joint coordinate: slider displacement along the axis, or relative angle (None at a
    /// floating-frame beam point, whose section angle is no anchor).
    pub coordinate: Option<Measure>,
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
            Some("unknown joint type 'hinge', expected revolute, prismatic or fixed")
        );
        assert_eq!(
            spatial_type("ball").err().as_deref(),
            Some(
                "unknown joint type 'ball', expected spherical, revolute, prismatic or fixed, or the two-coordinate \
                 cylindrical or universal"
            )
        );
        assert!(planar_type("spherical").is_err() && spatial_type("spherical").is_ok());
        assert_eq!(axis_only(false), "`axis` only applies to prismatic joints");
        assert_eq!(axis_only(true), "`axis` only applies to revolute, prismatic, cylindrical and universal joints");
    }
}
