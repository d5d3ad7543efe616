//! `type = "point_plane"` and `"circle_plane"` (`"sphere_plane"` in 3D): a point, or a circle
//! (sphere) of radius `radius2` centred at the point, on body2 against the plane through
//! `point1` with unit normal n on body1 (ground by default), n towards the free side.
//!
//! Gap: s = (A1 n') . (P2 - P1), the distance of the centre P2 from the plane along its
//! normal, with n' the normal in body 1's frame (A1 = identity on ground); reach = radius2
//! (0 for a point), so the penetration is delta = radius2 - s (Guo et al. 2017 eq. 5b).
//! - Planar: `MeasureKind::Projection { rotating: true }` (src/mechanics/kinematics.rs).
//! - Spatial: `SpatialKind::Projection` (src/mechanics/spatial_kinematics.rs): with the body
//!   points P = r + A(p) s and directions A(p) n' quadratic in the Euler parameters p, the
//!   gradient and Hessian of s are exact (the product rule over the constant Hessians of
//!   A(p) s); tested against central differences below.
//!
//! A floating-frame beam point as body2 (planar only) becomes the `FloatingTip` gap of
//! src/mechanics/contact_gap.rs through `PlanarSite::gap`.

use super::{ContactType, Geometry, PlanarSite, SpatialSite, body1, radius};
use crate::mechanics::contact_gap::ContactGap;
use crate::mechanics::joints::spatial::body_frame;
use crate::mechanics::kinematics::{Anchor, Measure, MeasureKind};
use crate::mechanics::spatial_kinematics::{Anchor3, SpatialKind, SpatialMeasure};
use crate::mechanics::unit_vector::unit;
use crate::model::ModelError;
use crate::model::schema::{ContactDecl, Vec2};

pub const POINT: ContactType = ContactType { names: &["point_plane"], planar: Some(planar), spatial: Some(spatial) };
pub const SPHERE: ContactType =
    ContactType { names: &["circle_plane", "sphere_plane"], planar: Some(planar), spatial: Some(spatial) };

/// s = n . (P2 - P1) with the normal `u` in body 1's frame (planar).
pub fn planar_gap(a1: Anchor, a2: Anchor, u: [f64; 2]) -> Measure {
    Measure::new(a1, a2, MeasureKind::Projection { u, rotating: true })
}

/// s = (A1 u1) . (P2 - P1) with the normal `u1` in body 1's frame (spatial).
pub fn spatial_gap(a1: Anchor3, a2: Anchor3, u1: [f64; 3]) -> ContactGap {
    ContactGap::Measure(Measure::spatial(SpatialMeasure::new(a1, a2, SpatialKind::Projection { u1 })))
}

/// point1, normal (refusing radius1), whether the type has a sphere.
fn keys<'a>(c: &'a ContactDecl, model: &crate::model::Model, dim: &str) -> Result<(&'a Vec2, &'a Vec2), ModelError> {
    let kind = c.kind.get_ref();
    let Some(point1) = &c.point1 else {
        return Err(model.error(c.name.span(), format!("a {kind} contact needs `point1`, a point of the plane")));
    };
    let Some(normal) = &c.normal else {
        return Err(model.error(
            c.name.span(),
            format!("a {kind} contact needs `normal = {dim}`, the plane normal towards the free side"),
        ));
    };
    if let Some(r) = &c.radius1 {
        return Err(model.error(r.span(), "`radius1` applies only to circle_circle (sphere_sphere) contacts".into()));
    }
    Ok((point1, normal))
}

fn reach(c: &ContactDecl, scope: &crate::model::Scope, model: &crate::model::Model) -> Result<f64, ModelError> {
    radius(c, scope, model, &c.radius2, "radius2", c.kind.get_ref() != "point_plane")
}

fn planar(c: &ContactDecl, site: &dyn PlanarSite) -> Result<Geometry, ModelError> {
    let model = site.model();
    let a2 = site.contact_anchor2(&c.body2, c.point2.as_ref())?;
    let (point1, normal) = keys(c, model, "[x, y]")?;
    let v = site.scope().vec2(normal)?;
    let n = unit(v).ok_or_else(|| model.error(normal.span(), "normal must not be zero".into()))?;
    let body1 = body1(c);
    let a1 = site.anchor(&body1, Some(point1))?;
    // Into body 1's frame (transpose of the rotation by its angle); the normal rotates with it.
    let u = site.frame_angle(&body1)?.map_or(n, |theta| {
        let (s, co) = theta.sin_cos();
        [co * n[0] + s * n[1], -s * n[0] + co * n[1]]
    });
    Ok(Geometry { gap: site.gap(planar_gap(a1, a2, u)), reach: reach(c, site.scope(), model)? })
}

fn spatial(c: &ContactDecl, site: &dyn SpatialSite) -> Result<Geometry, ModelError> {
    let model = site.model();
    let a2 = site.anchor(&c.body2, c.point2.as_ref())?;
    let (point1, normal) = keys(c, model, "[x, y, z]")?;
    let v = site.scope().vec3(normal)?;
    let n = unit(v).ok_or_else(|| model.error(normal.span(), "normal must not be zero".into()))?;
    let a1 = site.anchor(&body1(c), Some(point1))?;
    let u1 = body_frame(&a1, n, site.q0());
    Ok(Geometry { gap: spatial_gap(a1, a2, u1), reach: reach(c, site.scope(), model)? })
}

#[cfg(test)]
mod tests {
    use super::super::test_support::worst_derivative_errors;
    use super::*;

    /// The spatial plane gap against central differences: a ground plane and a plane on a
    /// rotated body, a sphere centre off the body's centre of mass, unnormalised Euler
    /// parameters (the Hessians must hold off the constraint p.p = 1 too).
    #[test]
    fn spatial_plane_gap_matches_central_differences() {
        let q = [0.3, -0.2, 0.7, 0.8, 0.3, -0.4, 0.33, 1.1, 0.4, -1.3, 0.5, -0.25, 0.9, -0.3];
        let n = [0.48, 0.6, 0.64];
        let ball = Anchor3::Body { x: 7, s: [-0.2, 0.3, 0.5] };
        let cases = [
            (Anchor3::Ground { p: [0.1, 0.2, -0.3] }, ball),
            (Anchor3::Body { x: 0, s: [0.4, -0.1, 0.2] }, ball),
            (Anchor3::Body { x: 0, s: [0.4, -0.1, 0.2] }, Anchor3::Ground { p: [1.0, 2.0, 3.0] }),
            // Point masses: a ball against a ground plane, a plane on a point mass (its
            // normal stays global) against a body point.
            (Anchor3::Ground { p: [0.1, 0.2, -0.3] }, Anchor3::Point { x: 7 }),
            (Anchor3::Point { x: 0 }, ball),
        ];
        for (a1, a2) in cases {
            let gap = spatial_gap(a1, a2, n);
            // s = (A1 n) . (P2 - P1) directly
            let p1 = a1.position(&q);
            let p2 = a2.position(&q);
            let an = match a1 {
                Anchor3::Ground { .. } | Anchor3::Point { .. } => n,
                Anchor3::Body { x, .. } => crate::mechanics::euler_parameters::mat_vec(
                    &crate::mechanics::euler_parameters::rotation(&q[x + 3..x + 7]),
                    n,
                ),
            };
            let direct: f64 = (0..3).map(|i| an[i] * (p2[i] - p1[i])).sum();
            let (g, h) = worst_derivative_errors(&gap, &q);
            println!("plane gap {a1:?} / {a2:?}: s = {direct:.6}, max |G - fd| = {g:.2e}, max |H - fd| = {h:.2e}");
            assert!((gap.value(&q) - direct).abs() < 1e-14);
            assert!(g < 1e-8 && h < 1e-7, "{g} {h}");
        }
    }

    /// The planar plane gap (a normal rotating with a rigid body 1) against central differences.
    #[test]
    fn planar_plane_gap_matches_central_differences() {
        let q = [0.3, -0.2, 0.7, 1.1, 0.4, -1.3];
        let gap = ContactGap::Measure(planar_gap(
            Anchor::Rigid { x: 0, s: [0.4, -0.1] },
            Anchor::Rigid { x: 3, s: [0.2, 0.3] },
            [0.6, 0.8],
        ));
        let (g, h) = worst_derivative_errors(&gap, &q);
        println!("planar plane gap: max |G - fd| = {g:.2e}, max |H - fd| = {h:.2e}");
        assert!(g < 1e-8 && h < 1e-7, "{g} {h}");
    }
}
