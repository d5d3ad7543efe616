//! The kinematic measure s(q) of a contact (paper 004 sec. 2.3): penetration delta =
//! reach - s for the Hertz force (eqs. 6-10) and the constraint C(q) = delta (eq. 5b).
//!
//! - `Measure`: a planar measure between two anchors (rigid bodies, point masses, beam nodes;
//!   src/mechanics/kinematics.rs): projection on a plane normal or distance of centres.
//! - `FloatingTip`: the tip or another material point of a floating-frame beam (paper 004
//!   eq. 1 at x = L or at its abscissa x, with the axial shortening -B^T H(x) B / 2) against
//!   a plane or circle fixed to ground.
//! - `FloatingJoint`: u . (r_P(q) - r_A(q)) for a material point P of a floating-frame beam
//!   and an anchor A on ground or another body, u a fixed global axis: with u = x and y the
//!   two rows of a revolute joint at P (joint rows use this type too; see
//!   `joints::ConstraintRow`).
//!
//! For the tip, plane: s = n . (r_tip(q) - p1); circle: s = |r_tip(q) - c1|. With the tip
//! Jacobian D = dr/dq (rigid frame and modal columns) and the second derivatives of r
//! (src/mechanics/elements/floating_frame_beam_2d.rs, `FloatingFramePoint`):
//! G = s_r D, H = D^T s_rr D + s_r . d2r/dq2, with s_r = n, s_rr = 0 (plane) or
//! s_r = u = (r - c1)/|r - c1|, s_rr = (I - u u^T)/|r - c1| (circle). The contact's
//! generalized force is then G^T f over the beam's 3 + 2N coordinates (the floating frame
//! and every mode), exactly as for rigid bodies.

use super::elements::FloatingFramePoint;
use super::elements::floating_frame_beam_2d::MAX_COORDINATES as FLOATING_COORDINATES;
use super::kinematics::{Anchor, MAX_DOFS, Measure, MeasureKind};

/// For a contact open at penetration `delta` (< 0) and closing at `rate` (> 0): the time to
/// contact at that rate, if it is within `horizon` (both contact methods' step limits).
pub fn time_to_contact(delta: f64, rate: f64, horizon: f64) -> Option<f64> {
    (delta < 0.0 && rate > 0.0 && -delta < rate * horizon).then(|| -delta / rate)
}

/// What a floating-frame beam tip touches (fixed to ground).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GroundShape {
    /// The plane through `point` with unit normal `normal` (towards the free side).
    Plane { point: [f64; 2], normal: [f64; 2] },
    /// A circle (or point) centred at `centre`; s is the centre distance.
    Circle { centre: [f64; 2] },
}

/// s, its gradient and Hessian over `ContactGap::dofs()` (row-major).
#[derive(Debug, Clone, PartialEq)]
pub struct GapDerivatives {
    pub value: f64,
    pub gradient: Vec<f64>,
    pub hessian: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ContactGap {
    Measure(Measure),
    FloatingTip {
        tip: FloatingFramePoint,
        target: GroundShape,
        dofs: Vec<usize>,
    },
    /// u . r_P - `anchor` (the measure u . r_A, see `floating_joint`); dofs: the beam's, then
    /// the anchor's.
    FloatingJoint {
        point: FloatingFramePoint,
        anchor: Measure,
        u: [f64; 2],
        dofs: Vec<usize>,
    },
}

impl ContactGap {
    /// Whether s is the distance between two centres (circles, spheres): a penetration beyond
    /// the reach crosses them, and the normal turns over. Against a plane it cannot (the plane
    /// pushes along its normal at any depth).
    pub fn is_centre_distance(&self) -> bool {
        match self {
            ContactGap::Measure(m) => matches!(
                &m.kind,
                MeasureKind::Distance
                    | MeasureKind::Spatial(crate::mechanics::spatial_kinematics::SpatialMeasure {
                        kind: crate::mechanics::spatial_kinematics::SpatialKind::Distance,
                        ..
                    })
            ),
            ContactGap::FloatingTip { target, .. } => matches!(target, GroundShape::Circle { .. }),
            ContactGap::FloatingJoint { .. } => false,
        }
    }

    pub fn floating_tip(tip: FloatingFramePoint, target: GroundShape) -> Self {
        let dofs = (tip.first..tip.first + tip.coordinates()).collect();
        ContactGap::FloatingTip { tip, target, dofs }
    }

    /// u . (r_P - r_A) for the point P of a floating-frame beam and the anchor A (whose
    /// coordinates must not be the beam's).
    pub fn floating_joint(point: FloatingFramePoint, anchor: Anchor, u: [f64; 2]) -> Self {
        let anchor =
            Measure::new(Anchor::Ground { p: [0.0, 0.0] }, anchor, MeasureKind::Projection { u, rotating: false });
        let mut dofs: Vec<usize> = (point.first..point.first + point.coordinates()).collect();
        dofs.extend(anchor.dofs());
        ContactGap::FloatingJoint { point, anchor, u, dofs }
    }

    /// The planar or spatial measure, if this is one.
    pub fn measure(&self) -> Option<&Measure> {
        match self {
            ContactGap::Measure(m) => Some(m),
            _ => None,
        }
    }

    pub fn dofs(&self) -> &[usize] {
        match self {
            ContactGap::Measure(m) => m.dofs(),
            ContactGap::FloatingTip { dofs, .. } | ContactGap::FloatingJoint { dofs, .. } => dofs,
        }
    }

    /// `f(value, gradient, hessian)` with the derivatives of `derivatives`, without the
    /// allocations for a `Measure` (the joint rows of rigid models take this path).
    pub fn with_derivatives<R>(&self, q: &[f64], f: impl FnOnce(f64, &[f64], &[f64]) -> R) -> R {
        match self {
            ContactGap::Measure(m) => {
                let n = m.dofs().len();
                let d = m.derivatives(q);
                f(d.value, &d.gradient[..n], &d.hessian[..n * n])
            }
            ContactGap::FloatingTip { tip, target, .. } => {
                let nd = tip.coordinates();
                let mut gradient = [0.0; FLOATING_COORDINATES];
                let gradient = &mut gradient[..nd];
                with_zeros(nd * nd, |hessian| {
                    let value = floating_tip_derivatives(tip, *target, q, gradient, Some(&mut *hessian));
                    f(value, gradient, hessian)
                })
            }
            ContactGap::FloatingJoint { point, anchor, u, dofs } => {
                let n = dofs.len();
                let mut gradient = [0.0; JOINT_COORDINATES];
                let gradient = &mut gradient[..n];
                with_zeros(n * n, |hessian| {
                    let value = floating_joint_derivatives(point, anchor, *u, q, gradient, Some(&mut *hessian));
                    f(value, gradient, hessian)
                })
            }
        }
    }

    /// `f(value, gradient)`: `with_derivatives` without the Hessian, which a spatial measure
    /// then does not compute (constraint forces and velocities need the gradient only).
    pub fn with_gradient<R>(&self, q: &[f64], f: impl FnOnce(f64, &[f64]) -> R) -> R {
        match self {
            ContactGap::Measure(m) => {
                let n = m.dofs().len();
                let d = m.gradient(q);
                f(d.value, &d.gradient[..n])
            }
            ContactGap::FloatingTip { tip, target, .. } => {
                let mut gradient = [0.0; FLOATING_COORDINATES];
                let gradient = &mut gradient[..tip.coordinates()];
                let value = floating_tip_derivatives(tip, *target, q, gradient, None);
                f(value, gradient)
            }
            ContactGap::FloatingJoint { point, anchor, u, dofs } => {
                let mut gradient = [0.0; JOINT_COORDINATES];
                let gradient = &mut gradient[..dofs.len()];
                let value = floating_joint_derivatives(point, anchor, *u, q, gradient, None);
                f(value, gradient)
            }
        }
    }

    /// s(q).
    pub fn value(&self, q: &[f64]) -> f64 {
        match self {
            ContactGap::Measure(m) => m.value(q),
            ContactGap::FloatingTip { tip, target, .. } => {
                let r = tip.position(q);
                match *target {
                    GroundShape::Plane { point, normal } => {
                        normal[0] * (r[0] - point[0]) + normal[1] * (r[1] - point[1])
                    }
                    GroundShape::Circle { centre } => (r[0] - centre[0]).hypot(r[1] - centre[1]),
                }
            }
            ContactGap::FloatingJoint { point, anchor, u, .. } => {
                let r = point.position(q);
                u[0] * r[0] + u[1] * r[1] - anchor.value(q)
            }
        }
    }

    pub fn derivatives(&self, q: &[f64]) -> GapDerivatives {
        match self {
            ContactGap::Measure(m) => {
                let n = m.dofs().len();
                let d = m.derivatives(q);
                GapDerivatives {
                    value: d.value,
                    gradient: d.gradient[..n].to_vec(),
                    hessian: d.hessian[..n * n].to_vec(),
                }
            }
            ContactGap::FloatingTip { tip, target, .. } => {
                let nd = tip.coordinates();
                let (mut gradient, mut hessian) = (vec![0.0; nd], vec![0.0; nd * nd]);
                let value = floating_tip_derivatives(tip, *target, q, &mut gradient, Some(&mut hessian));
                GapDerivatives { value, gradient, hessian }
            }
            ContactGap::FloatingJoint { point, anchor, u, dofs } => {
                let n = dofs.len();
                let (mut gradient, mut hessian) = (vec![0.0; n], vec![0.0; n * n]);
                let value = floating_joint_derivatives(point, anchor, *u, q, &mut gradient, Some(&mut hessian));
                GapDerivatives { value, gradient, hessian }
            }
        }
    }

    /// s' = G v.
    pub fn rate(&self, q: &[f64], v: &[f64]) -> f64 {
        self.with_gradient(q, |_, gradient| self.dofs().iter().zip(gradient).map(|(&i, g)| g * v[i]).sum())
    }
}

/// The most coordinates of a `FloatingJoint`: the beam's and the anchor's.
const JOINT_COORDINATES: usize = FLOATING_COORDINATES + MAX_DOFS;

/// `f` on `len` zeros on the stack: a buffer of the smaller size class that holds them, so
/// that the common beams (up to 7 modes, 17 coordinates) do not clear the largest Hessian.
fn with_zeros<R>(len: usize, f: impl FnOnce(&mut [f64]) -> R) -> R {
    const SMALL: usize = 17 * 17;
    if len <= SMALL { f(&mut [0.0; SMALL][..len]) } else { f(&mut [0.0; JOINT_COORDINATES * JOINT_COORDINATES][..len]) }
}

/// u . r_P - u . r_A for the point P of a floating-frame beam and the anchor measure
/// `anchor` (u . r_A), its gradient G = [u . D, -G_A] over the beam's then the anchor's
/// coordinates and, if asked, its Hessian (zero on entry) H = diag(u . d2r/dq2, -H_A): no
/// coordinate is shared.
fn floating_joint_derivatives(
    point: &FloatingFramePoint,
    anchor: &Measure,
    u: [f64; 2],
    q: &[f64],
    gradient: &mut [f64],
    hessian: Option<&mut [f64]>,
) -> f64 {
    let (nb, n) = (point.coordinates(), gradient.len());
    let na = n - nb;
    let mut jac = [[0.0; 2]; FLOATING_COORDINATES];
    let jac = &mut jac[..nb];
    let r = point.jacobian_into(q, jac);
    for (g, c) in gradient.iter_mut().zip(jac.iter()) {
        *g = u[0] * c[0] + u[1] * c[1];
    }
    let anchor_value = match hessian {
        None => {
            let a = anchor.gradient(q);
            for (g, ga) in gradient[nb..].iter_mut().zip(&a.gradient[..na]) {
                *g = -ga;
            }
            a.value
        }
        Some(hessian) => {
            with_zeros(nb * nb, |hp| {
                point.weighted_hessian_into(q, u, hp);
                for i in 0..nb {
                    hessian[i * n..i * n + nb].copy_from_slice(&hp[i * nb..(i + 1) * nb]);
                }
            });
            let a = anchor.derivatives(q);
            for i in 0..na {
                gradient[nb + i] = -a.gradient[i];
                for j in 0..na {
                    hessian[(nb + i) * n + nb + j] = -a.hessian[i * na + j];
                }
            }
            a.value
        }
    };
    u[0] * r[0] + u[1] * r[1] - anchor_value
}

/// s of a floating-frame beam's tip against a ground shape, its gradient and, if asked, its
/// Hessian (zero on entry) over the beam's coordinates.
fn floating_tip_derivatives(
    tip: &FloatingFramePoint,
    target: GroundShape,
    q: &[f64],
    gradient: &mut [f64],
    hessian: Option<&mut [f64]>,
) -> f64 {
    let nd = tip.coordinates();
    let mut jac = [[0.0; 2]; FLOATING_COORDINATES];
    let jac = &mut jac[..nd];
    let r = tip.jacobian_into(q, jac);
    let (value, sr, curvature) = match target {
        GroundShape::Plane { point, normal } => {
            (normal[0] * (r[0] - point[0]) + normal[1] * (r[1] - point[1]), normal, None)
        }
        GroundShape::Circle { centre } => {
            let d = [r[0] - centre[0], r[1] - centre[1]];
            let len = d[0].hypot(d[1]);
            let u = if len > 0.0 { [d[0] / len, d[1] / len] } else { [0.0, 0.0] };
            (len, u, (len > 0.0).then_some(len))
        }
    };
    for (g, c) in gradient.iter_mut().zip(jac.iter()) {
        *g = sr[0] * c[0] + sr[1] * c[1];
    }
    let Some(hessian) = hessian else { return value };
    tip.weighted_hessian_into(q, sr, hessian);
    if let Some(len) = curvature {
        // D^T (I - u u^T) D / |d|
        for a in 0..nd {
            for b in 0..nd {
                let dot = jac[a][0] * jac[b][0] + jac[a][1] * jac[b][1];
                hessian[a * nd + b] += (dot - gradient[a] * gradient[b]) / len;
            }
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::elements::{BeamProperties, FloatingFrameBeam2d};

    /// The tip gap's gradient (the contact Jacobian over the rigid frame and the modal
    /// coordinates) and Hessian against central differences of s(q), at a deformed state
    /// with large modal coordinates so that the axial-shortening terms matter.
    #[test]
    fn floating_tip_gap_derivatives_match_central_differences() {
        let props = BeamProperties {
            young: 6.8952e10,
            shear: 2.6e10,
            area: 3.14e-4,
            inertia: 7.85e-9,
            shear_factor: None,
            density: 2766.7,
            rotary_inertia: None,
        };
        for modes in [1, 3, 5] {
            // two leading coordinates of another body before the beam
            let beam = FloatingFrameBeam2d::new(2, 1.0, modes, &props, [0.0, -9.81]);
            let nd = 3 + 2 * modes;
            let mut q = vec![0.7, -0.4, 0.05, -0.02, 0.6];
            for k in 0..2 * modes {
                q.push(if k < modes {
                    1e-3 * (k as f64 + 1.0)
                } else {
                    0.08 / (k as f64 - modes as f64 + 1.0) * if k % 2 == 0 { 1.0 } else { -1.0 }
                });
            }
            let targets = [
                GroundShape::Plane { point: [0.1, -0.2], normal: [0.6, 0.8] },
                GroundShape::Circle { centre: [1.5, 2.0] },
            ];
            for (target, point) in
                targets.into_iter().flat_map(|t| [(t, beam.tip_point()), (t, beam.material_point(0.37))])
            {
                let gap = ContactGap::floating_tip(point.clone(), target);
                assert_eq!(gap.dofs(), (2..2 + nd).collect::<Vec<_>>().as_slice());
                let d = gap.derivatives(&q);
                assert!((d.value - gap.value(&q)).abs() < 1e-15);
                let h = 1e-6;
                let (mut worst_g, mut worst_h): (f64, f64) = (0.0, 0.0);
                for a in 0..nd {
                    let (mut qp, mut qm) = (q.clone(), q.clone());
                    qp[2 + a] += h;
                    qm[2 + a] -= h;
                    let g = (gap.value(&qp) - gap.value(&qm)) / (2.0 * h);
                    worst_g = worst_g.max((g - d.gradient[a]).abs());
                    let (dp, dm) = (gap.derivatives(&qp), gap.derivatives(&qm));
                    for b in 0..nd {
                        let hfd = (dp.gradient[b] - dm.gradient[b]) / (2.0 * h);
                        worst_h = worst_h.max((hfd - d.hessian[a * nd + b]).abs());
                    }
                }
                println!(
                    "N = {modes}, x = {}, {target:?}: s = {:.6}, max |G - fd| = {worst_g:.2e}, max |H - fd| = {worst_h:.2e}",
                    point.abscissa, d.value
                );
                assert!(worst_g < 1e-8 && worst_h < 1e-6, "{worst_g} {worst_h}");
                // Symmetric Hessian.
                for a in 0..nd {
                    for b in 0..nd {
                        assert!((d.hessian[a * nd + b] - d.hessian[b * nd + a]).abs() < 1e-12);
                    }
                }
            }
        }
    }

    /// The joint rows u . (r_P - r_A) at a deformed state: gradient and Hessian against
    /// central differences, for a rigid-body anchor (with an offset) and a point mass.
    #[test]
    fn floating_joint_rows_match_central_differences() {
        let props = BeamProperties {
            young: 6.8952e10,
            shear: 2.6e10,
            area: 3.14e-4,
            inertia: 7.85e-9,
            shear_factor: None,
            density: 2766.7,
            rotary_inertia: None,
        };
        let modes = 3;
        let beam = FloatingFrameBeam2d::new(3, 1.0, modes, &props, [0.0, -9.81]);
        let mut q = vec![0.3, 0.2, 0.9, 0.7, -0.4, 0.05];
        q.extend((0..2 * modes).map(|k| if k < modes { 1e-3 * (k as f64 + 1.0) } else { 0.08 / (k as f64 - 2.0) }));
        let anchors =
            [Anchor::Rigid { x: 0, s: [0.25, -0.1] }, Anchor::Point { x: 0 }, Anchor::Ground { p: [0.5, 0.5] }];
        for (anchor, u) in anchors.into_iter().flat_map(|a| [(a, [1.0, 0.0]), (a, [0.0, 1.0])]) {
            let row = ContactGap::floating_joint(beam.material_point(0.6), anchor, u);
            let n = row.dofs().len();
            let d = row.derivatives(&q);
            assert!((d.value - row.value(&q)).abs() < 1e-15);
            row.with_derivatives(&q, |value, g, h| {
                assert!(value == d.value && g == d.gradient.as_slice() && h == d.hessian.as_slice())
            });
            let h = 1e-6;
            let (mut worst_g, mut worst_h): (f64, f64) = (0.0, 0.0);
            for (a, &i) in row.dofs().iter().enumerate() {
                let (mut qp, mut qm) = (q.clone(), q.clone());
                qp[i] += h;
                qm[i] -= h;
                worst_g = worst_g.max(((row.value(&qp) - row.value(&qm)) / (2.0 * h) - d.gradient[a]).abs());
                let (dp, dm) = (row.derivatives(&qp), row.derivatives(&qm));
                for b in 0..n {
                    worst_h = worst_h.max(((dp.gradient[b] - dm.gradient[b]) / (2.0 * h) - d.hessian[a * n + b]).abs());
                }
            }
            println!("{anchor:?}, u = {u:?}: {n} dofs, max |G - fd| = {worst_g:.2e}, max |H - fd| = {worst_h:.2e}");
            assert!(worst_g < 1e-8 && worst_h < 1e-6, "{worst_g} {worst_h}");
        }
    }

    /// material_point(x) by its own quadrature over [0, x] agrees with the element's tip data
    /// as x -> L (H is continuous in x), and H(x) grows monotonically (a positive integrand).
    #[test]
    fn material_point_shape_matches_the_tip_and_grows() {
        let props = BeamProperties {
            young: 6.8952e10,
            shear: 2.6e10,
            area: 3.14e-4,
            inertia: 7.85e-9,
            shear_factor: None,
            density: 2766.7,
            rotary_inertia: None,
        };
        let beam = FloatingFrameBeam2d::new(0, 1.0, 5, &props, [0.0, 0.0]);
        let tip = beam.tip_point();
        let near = beam.material_point(1.0 - 1e-12);
        let dh = (&near.shape.h - &tip.shape.h).amax();
        let dphi = (&near.shape.phi_y - &tip.shape.phi_y).amax();
        println!("x = L - 1e-12 vs tip: max |dH| = {dh:.2e}, max |dPhi_y| = {dphi:.2e}");
        assert!(dh < 1e-11 * tip.shape.h.amax() && dphi < 1e-9);
        let traces: Vec<f64> = [0.1, 0.3, 0.5, 0.9].iter().map(|&x| beam.material_point(x).shape.h.trace()).collect();
        println!("trace H(x) at 0.1, 0.3, 0.5, 0.9: {traces:?}");
        assert!(traces.windows(2).all(|w| w[1] > w[0]));
    }

    /// At the undeformed beam the tip is at r0 + R (L, 0) and the modal columns of the plane
    /// gap are n . R (Phi_x, 0) and n . R (0, Phi_y): e.g. for the horizontal beam and the
    /// plane y = 0 the gap gradient is (0, 1, L, 0..0, Phi_y(L)) with Phi_y(L) = 2 (-1)^(n+1)
    /// for the clamped-free eigenfunctions normalised to int phi^2 = L.
    #[test]
    fn undeformed_tip_gap_gradient_is_the_rigid_lever_and_tip_mode_values() {
        let props = BeamProperties {
            young: 1e9,
            shear: 4e8,
            area: 1e-4,
            inertia: 1e-9,
            shear_factor: None,
            density: 1000.0,
            rotary_inertia: None,
        };
        let beam = FloatingFrameBeam2d::new(0, 2.0, 4, &props, [0.0, 0.0]);
        let gap =
            ContactGap::floating_tip(beam.tip_point(), GroundShape::Plane { point: [0.0, 0.0], normal: [0.0, 1.0] });
        let q = vec![0.0; 11];
        let d = gap.derivatives(&q);
        println!("gradient at rest: {:?}", d.gradient);
        assert_eq!(&d.gradient[..3], &[0.0, 1.0, 2.0]);
        for i in 0..4 {
            assert!(d.gradient[3 + i].abs() < 1e-12, "axial column {i}");
            let want = 2.0 * if i % 2 == 0 { 1.0 } else { -1.0 };
            assert!((d.gradient[7 + i] - want).abs() < 1e-9, "transverse column {i}: {}", d.gradient[7 + i]);
        }
    }
}
