//! The row pieces spatial joint types share (between rigid bodies and ground), and the
//! Euler-parameter normalisation row of each body. The types (one file each in this folder):
//!
//! - spherical: the anchor points coincide: u_k . (P2 - P1) = 0 for the global axes u_k (3 rows);
//! - revolute: spherical plus the joint axis a, fixed in body 1, perpendicular to two
//!   directions b, c fixed in body 2 that are normal to a initially: (A1 a').(A2 b'') = 0,
//!   (A1 a').(A2 c'') = 0 (5 rows);
//! - fixed: spherical plus three perpendicularity rows x1.y2, y1.z2, z1.x2 = const between
//!   triads fixed in each body (they are independent at the initial configuration: their
//!   derivatives in a small relative rotation theta are -theta_z, -theta_x, -theta_y) (6 rows);
//! - prismatic: two projections (A1 n'_k).(P2 - P1) = 0 on directions normal to the axis
//!   fixed in body 1, plus the three rotation rows of the fixed joint (5 rows);
//! - cylindrical: the two projections of the prismatic joint and the two axis rows of the
//!   revolute joint: rotation about and sliding along the axis (4 rows);
//! - universal (Hooke, cardan): spherical plus the cross's pins perpendicular,
//!   (A1 a1').(A2 a2'') = 0 with pin a1 fixed in body 1 and a2 in body 2 (4 rows; Haug 1989,
//!   ch. 9: spherical + dot-1).
//!
//! The normalisation p.p = 1 is a constraint row like the others (scaled by the integrator
//! like every row, multiplier lambda_p): the Euler parameters stay unit to the Newton
//! tolerance with no projection step, and no rotation coordinate is ever singular.

use super::ConstraintRow;
use crate::mechanics::contact_gap::ContactGap;
use crate::mechanics::euler_parameters::{mat_t_vec, rotation};
use crate::mechanics::kinematics::Measure;
use crate::mechanics::spatial_kinematics::{Anchor3, SpatialKind, SpatialMeasure};

fn row(m: SpatialMeasure, q0: &[f64]) -> ConstraintRow {
    ConstraintRow::holding(ContactGap::Measure(Measure::spatial(m)), q0)
}

/// p.p = 1 for the body whose first coordinate is `x`.
pub fn normalisation_row(x: usize) -> ConstraintRow {
    ConstraintRow {
        measure: ContactGap::Measure(Measure::spatial(SpatialMeasure::euler_norm(x))),
        target: 1.0,
        drive: None,
    }
}

/// A global direction expressed in the frame of the anchor's body (global for ground and a
/// point mass, which does not turn).
pub fn body_frame(a: &Anchor3, u: [f64; 3], q0: &[f64]) -> [f64; 3] {
    match *a {
        Anchor3::Ground { .. } | Anchor3::Point { .. } => u,
        Anchor3::Body { x, .. } => mat_t_vec(&rotation(&q0[x + 3..x + 7]), u),
    }
}

/// Two unit vectors completing the unit `a` to a right-handed orthonormal triad.
pub fn normals(a: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let t = if a[0].abs() < 0.9 { [1.0, 0.0, 0.0] } else { [0.0, 1.0, 0.0] };
    let cross =
        |u: [f64; 3], v: [f64; 3]| [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    let b = cross(a, t);
    let n = (b[0] * b[0] + b[1] * b[1] + b[2] * b[2]).sqrt();
    let b = b.map(|x| x / n);
    (b, cross(a, b))
}

/// The anchor points coincide: u_k . (P2 - P1) held for the global axes u_k (3 rows).
pub fn coincide(a1: Anchor3, a2: Anchor3, q0: &[f64]) -> Vec<ConstraintRow> {
    (0..3)
        .map(|k| {
            let u = std::array::from_fn(|i| f64::from(u8::from(i == k)));
            row(SpatialMeasure::new(a1, a2, SpatialKind::Along { u }), q0)
        })
        .collect()
}

/// P2 stays on the line through P1 along `axis` fixed in body 1: the projections on the two
/// normals of the axis (2 rows).
pub fn on_axis(a1: Anchor3, a2: Anchor3, axis: [f64; 3], q0: &[f64]) -> Vec<ConstraintRow> {
    let (b, c) = normals(axis);
    [b, c]
        .into_iter()
        .map(|n| row(SpatialMeasure::new(a1, a2, SpatialKind::Projection { u1: body_frame(&a1, n, q0) }), q0))
        .collect()
}

/// (A1 u1') . (A2 u2'') held, with the global directions u1, u2 fixed in body 1 resp. body 2.
pub fn dot(a1: Anchor3, a2: Anchor3, u1: [f64; 3], u2: [f64; 3], q0: &[f64]) -> ConstraintRow {
    row(SpatialMeasure::new(a1, a2, SpatialKind::Dot { u1: body_frame(&a1, u1, q0), u2: body_frame(&a2, u2, q0) }), q0)
}

/// `axis` fixed in body 1 stays normal to the axis' normals fixed in body 2 (2 rows).
pub fn axis_kept(a1: Anchor3, a2: Anchor3, axis: [f64; 3], q0: &[f64]) -> [ConstraintRow; 2] {
    let (b, c) = normals(axis);
    [dot(a1, a2, axis, b, q0), dot(a1, a2, axis, c, q0)]
}

/// The relative orientation held: x1.y2, y1.z2, z1.x2 (3 rows).
pub fn orientation_kept(a1: Anchor3, a2: Anchor3, q0: &[f64]) -> [ConstraintRow; 3] {
    let (x, y, z) = ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
    [dot(a1, a2, x, y, q0), dot(a1, a2, y, z, q0), dot(a1, a2, z, x, q0)]
}

/// The relative angle about `axis` (`SpatialKind::Angle`, zero in `q0`), the coordinate of a
/// revolute joint.
pub fn relative_angle(a1: Anchor3, a2: Anchor3, axis: [f64; 3], q0: &[f64]) -> Measure {
    let (b, c) = normals(axis);
    let kind =
        SpatialKind::Angle { b1: body_frame(&a1, b, q0), c1: body_frame(&a1, c, q0), b2: body_frame(&a2, b, q0) };
    Measure::spatial(SpatialMeasure::new(a1, a2, kind))
}

/// The displacement along `axis` fixed in body 1 (a projection, zero in `q0`), the coordinate
/// of a prismatic joint.
pub fn displacement(a1: Anchor3, a2: Anchor3, axis: [f64; 3], q0: &[f64]) -> Measure {
    Measure::spatial(SpatialMeasure::new(a1, a2, SpatialKind::Projection { u1: body_frame(&a1, axis, q0) }))
}
