//! `type = "circle_circle"` (`"sphere_sphere"` in 3D): a circle (sphere) of radius `radius1`
//! centred at `point1` on body1 against one of radius `radius2` centred at `point2` on body2.
//!
//! Gap: the centre distance s = |P2 - P1|; reach = radius1 + radius2, so the penetration is
//! delta = radius1 + radius2 - s (Guo et al. 2017 eq. 5b) along the line of centres.
//! Gradient s_q = e . D and Hessian (D^T (I - e e^T) D + (P2 - P1) . d2(P2 - P1)/dq2) / s with
//! e the unit line of centres and D = d(P2 - P1)/dq (`MeasureKind::Distance`,
//! `SpatialKind::Distance`); undefined where the centres coincide, so the assembler refuses
//! coinciding initial centres. Tested against central differences below.
//!
//! A floating-frame beam point as body2 (planar only) becomes the `FloatingTip` gap against
//! a circle on ground through `PlanarSite::gap`.

use super::{ContactType, Geometry, PlanarSite, SpatialSite, body1, radius};
use crate::mechanics::contact_gap::ContactGap;
use crate::mechanics::kinematics::{Measure, MeasureKind};
use crate::mechanics::spatial_kinematics::{Anchor3, SpatialKind, SpatialMeasure};
use crate::model::ModelError;
use crate::model::schema::ContactDecl;

pub const TYPE: ContactType =
    ContactType { names: &["circle_circle", "sphere_sphere"], planar: Some(planar), spatial: Some(spatial) };

/// s = |P2 - P1| (spatial).
pub fn spatial_gap(a1: Anchor3, a2: Anchor3) -> ContactGap {
    ContactGap::Measure(Measure::spatial(SpatialMeasure::new(a1, a2, SpatialKind::Distance)))
}

fn refuse_normal(c: &ContactDecl, model: &crate::model::Model) -> Result<(), ModelError> {
    match &c.normal {
        Some(n) => Err(model.error(n.span(), "`normal` applies only to plane contacts".into())),
        None => Ok(()),
    }
}

fn checked(
    c: &ContactDecl,
    gap: ContactGap,
    q0: &[f64],
    model: &crate::model::Model,
) -> Result<ContactGap, ModelError> {
    if gap.value(q0) <= 0.0 {
        return Err(
            model.error(c.name.span(), "the centres coincide initially; the contact normal is undefined".into())
        );
    }
    Ok(gap)
}

fn reach(c: &ContactDecl, scope: &crate::model::Scope, model: &crate::model::Model) -> Result<f64, ModelError> {
    Ok(radius(c, scope, model, &c.radius1, "radius1", true)? + radius(c, scope, model, &c.radius2, "radius2", true)?)
}

fn planar(c: &ContactDecl, site: &dyn PlanarSite) -> Result<Geometry, ModelError> {
    let model = site.model();
    let a2 = site.contact_anchor2(&c.body2, c.point2.as_ref())?;
    refuse_normal(c, model)?;
    let a1 = site.anchor(&body1(c), c.point1.as_ref())?;
    let gap = checked(c, site.gap(Measure::new(a1, a2, MeasureKind::Distance)), site.q0(), model)?;
    Ok(Geometry { gap, reach: reach(c, site.scope(), model)? })
}

fn spatial(c: &ContactDecl, site: &dyn SpatialSite) -> Result<Geometry, ModelError> {
    let model = site.model();
    let a2 = site.anchor(&c.body2, c.point2.as_ref())?;
    refuse_normal(c, model)?;
    let a1 = site.anchor(&body1(c), c.point1.as_ref())?;
    let gap = checked(c, spatial_gap(a1, a2), site.q0(), model)?;
    Ok(Geometry { gap, reach: reach(c, site.scope(), model)? })
}

#[cfg(test)]
mod tests {
    use super::super::test_support::worst_derivative_errors;
    use super::*;

    /// The centre distance of two spheres on rotated bodies (centres off the centres of
    /// mass) and of a sphere against a fixed sphere, against central differences.
    #[test]
    fn sphere_sphere_gap_matches_central_differences() {
        let q = [0.3, -0.2, 0.7, 0.8, 0.3, -0.4, 0.33, 1.1, 0.4, -1.3, 0.5, -0.25, 0.9, -0.3];
        let (b1, b2) = (Anchor3::Body { x: 0, s: [0.4, -0.1, 0.2] }, Anchor3::Body { x: 7, s: [-0.2, 0.3, 0.5] });
        for (a1, a2) in
            [(b1, b2), (Anchor3::Ground { p: [0.1, 0.2, -0.3] }, b2), (b1, Anchor3::Ground { p: [1.0, 2.0, 3.0] })]
        {
            let gap = spatial_gap(a1, a2);
            let (p1, p2) = (a1.position(&q), a2.position(&q));
            let direct = (0..3).map(|i| (p2[i] - p1[i]).powi(2)).sum::<f64>().sqrt();
            let (g, h) = worst_derivative_errors(&gap, &q);
            println!("sphere gap {a1:?} / {a2:?}: s = {direct:.6}, max |G - fd| = {g:.2e}, max |H - fd| = {h:.2e}");
            assert!((gap.value(&q) - direct).abs() < 1e-14);
            assert!(g < 1e-8 && h < 1e-7, "{g} {h}");
        }
    }
}
