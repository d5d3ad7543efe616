//! Joints as index-3 constraints: each joint is a set of rows Phi = measure - target.
//!
//! - revolute: the two anchor points coincide (projections on the global x and y axes);
//! - prismatic: the anchor of body 2 stays on the line through body 1's anchor along the
//!   axis (projection on the normal, rotating with body 1), and, if body 2 rotates, the
//!   relative angle is fixed;
//! - fixed: revolute plus fixed relative angle (for an ANCF beam node: the angle of its slope
//!   d = dr/dy, paper 003 eq. 4, so the section is clamped; its shear stays free).

pub mod contact_constraint;
pub mod spatial;

pub use contact_constraint::{ContactConstraint, ContactConstraintMemory, ContactMode};

use super::contact_gap::ContactGap;
use super::kinematics::{Anchor, Measure, MeasureKind};
use super::spatial_kinematics::{SpatialKind, SpatialMeasure};
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JointKind {
    Revolute,
    Prismatic,
    Fixed,
    /// Spatial joints (see `spatial`).
    Spatial(spatial::SpatialJointKind),
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
    /// The joint coordinate: slider displacement along the axis, or relative angle (None at a
    /// floating-frame beam point, whose section angle is no anchor).
    pub coordinate: Option<Measure>,
}

/// Rows of a joint between anchors placed at the same global point in the initial configuration.
/// `axis` is the unit sliding direction in body 1's frame (prismatic only).
pub fn joint_rows(kind: JointKind, a1: Anchor, a2: Anchor, axis: [f64; 2], q0: &[f64]) -> Vec<ConstraintRow> {
    let rotating = matches!(a1, Anchor::Rigid { .. });
    let mut rows = Vec::new();
    let mut push = |m: Measure| rows.push(ConstraintRow::holding(ContactGap::Measure(m), q0));
    // An ANCF node's section turns with its slope: fixed and prismatic joints fix it too.
    let both_rotate = matches!(a2, Anchor::Rigid { .. } | Anchor::Director { .. });
    match kind {
        JointKind::Revolute | JointKind::Fixed => {
            push(Measure::new(a1, a2, MeasureKind::Projection { u: [1.0, 0.0], rotating: false }));
            push(Measure::new(a1, a2, MeasureKind::Projection { u: [0.0, 1.0], rotating: false }));
        }
        JointKind::Prismatic => {
            push(Measure::new(a1, a2, MeasureKind::Projection { u: [-axis[1], axis[0]], rotating }));
        }
        JointKind::Spatial(_) => return Vec::new(),
    }
    if kind != JointKind::Revolute && both_rotate {
        push(Measure::new(a1, a2, MeasureKind::Angle));
    }
    rows
}

/// The joint coordinate measure: displacement along the axis (prismatic) or relative angle.
pub fn joint_coordinate(kind: JointKind, a1: Anchor, a2: Anchor, axis: [f64; 2]) -> Measure {
    match kind {
        JointKind::Prismatic => {
            Measure::new(a1, a2, MeasureKind::Projection { u: axis, rotating: matches!(a1, Anchor::Rigid { .. }) })
        }
        JointKind::Revolute | JointKind::Fixed | JointKind::Spatial(_) => Measure::new(a1, a2, MeasureKind::Angle),
    }
}
