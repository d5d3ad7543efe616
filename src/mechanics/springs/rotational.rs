//! `type = "rotational"`: a rotational spring-damper between two bodies (or a body and
//! ground) with no joint, torque k (s - s0) + c s'.
//!
//! - Planar: s = theta2 - theta1, the relative angle of two rigid bodies or beam nodes
//!   (the section angle of a corotational or ANCF node, paper 003 eq. 4); ground has angle 0.
//!   The measure is linear in the angles: the torsional oscillator J theta'' + k theta = 0 is
//!   exact for every amplitude.
//! - Spatial: s = (A1 c) . (A2 b) with (a, b, c) a right-handed orthonormal triad, a the
//!   global `axis`, b and c fixed in body 2 resp. body 1 in the initial configuration. For a
//!   relative rotation phi about a, A2 b = b cos phi + c sin phi, so s = sin phi: the spring
//!   acts on sin phi (small-angle: s = phi + O(phi^3)); rotations about axes normal to a
//!   change s only to second order. Its potential k (s - s0)^2 / 2 is exact, so energy is
//!   conserved exactly for any motion (tests/suite/rotational_spring.rs).

use super::{PlanarSite, SpatialSite, SpringType, no_axis, no_coordinate};
use crate::mechanics::joints::spatial::{body_frame, normals};
use crate::mechanics::kinematics::{Anchor, Measure};
use crate::mechanics::spatial_kinematics::{Anchor3, SpatialKind, SpatialMeasure};
use crate::mechanics::unit_vector::unit;
use crate::model::ModelError;
use crate::model::schema::{Name, SpringDecl};

pub const TYPE: SpringType = SpringType { name: "rotational", planar: Some(planar), spatial: Some(spatial) };

/// body1 and body2, different, and no points (the spring acts on angles).
fn bodies<'a>(s: &'a SpringDecl, model: &crate::model::Model) -> Result<(&'a Name, &'a Name), ModelError> {
    let (Some(b1), Some(b2)) = (&s.body1, &s.body2) else {
        return Err(
            model.error(s.name.span(), "a rotational spring needs body1 and body2 (either may be ground)".into())
        );
    };
    if b1.get_ref() == b2.get_ref() {
        return Err(model.error(b2.span(), "a rotational spring needs two different bodies".into()));
    }
    if let Some(p) = s.point1.as_ref().or(s.point2.as_ref()) {
        return Err(model.error(p.span(), "a rotational spring acts on the bodies' rotations; remove the point".into()));
    }
    if let Some(j) = &s.joint {
        return Err(model.error(
            j.span(),
            "a rotational spring needs no joint (for a joint's angle use type = \"torsional\")".into(),
        ));
    }
    no_coordinate(s, model)?;
    Ok((b1, b2))
}

/// A point mass has no angle for a rotational spring to act on.
fn point_mass(b: &Name, model: &crate::model::Model) -> ModelError {
    model.error(
        b.span(),
        format!("a rotational spring needs rigid bodies, beam nodes or ground; '{}' is a point mass", b.get_ref()),
    )
}

fn planar(s: &SpringDecl, site: &dyn PlanarSite) -> Result<Measure, ModelError> {
    let model = site.model();
    let (b1, b2) = bodies(s, model)?;
    no_axis(s, model)?;
    let anchor = |b: &Name| -> Result<Anchor, ModelError> {
        match site.has_angle(b)? {
            None => Ok(Anchor::Ground { p: [0.0, 0.0] }),
            Some(true) => site.anchor(b, None),
            Some(false) => Err(point_mass(b, model)),
        }
    };
    Ok(Measure::relative_angle(anchor(b1)?, anchor(b2)?, site.q0()))
}

fn spatial(s: &SpringDecl, site: &dyn SpatialSite) -> Result<Measure, ModelError> {
    let model = site.model();
    let (b1, b2) = bodies(s, model)?;
    let Some(ax) = &s.axis else {
        return Err(model.error(
            s.name.span(),
            "a rotational spring in a spatial model needs `axis = [x, y, z]` (global, initial configuration)".into(),
        ));
    };
    let a = site.scope().vec3(ax)?;
    let a = unit(a).ok_or_else(|| model.error(ax.span(), "axis must not be zero".into()))?;
    let (b, c) = normals(a);
    let anchor = |n: &Name| -> Result<Anchor3, ModelError> {
        if n.get_ref() == "ground" {
            return Ok(Anchor3::Ground { p: [0.0; 3] });
        }
        match site.anchor(n, None)? {
            Anchor3::Point { .. } => Err(point_mass(n, model)),
            a => Ok(a),
        }
    };
    let (a1, a2) = (anchor(b1)?, anchor(b2)?);
    let q0 = site.q0();
    let (u1, u2) = (body_frame(&a1, c, q0), body_frame(&a2, b, q0));
    Ok(Measure::spatial(SpatialMeasure::new(a1, a2, SpatialKind::Dot { u1, u2 })))
}
