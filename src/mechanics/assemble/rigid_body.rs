//! `[[rigid_bodies]]` of planar models: three coordinates (x, y, theta) each, a
//! `RigidBody2d` element.

use super::{BodyEntry, Builder, Layout, Names, check_name};
use crate::limits::coordinates_fit;
use crate::mechanics::BodyInfo;
use crate::mechanics::elements::RigidBody2d;
use crate::model::ModelError;
use crate::model::schema::Definition;

/// Lay out the section's bodies after those of the kinds before it in `BODY_KINDS`.
pub(super) fn build(def: &Definition, b: &mut Builder, names: &mut Names, l: &mut Layout) -> Result<(), ModelError> {
    let model = b.model;
    for rb in &def.rigid_bodies {
        check_name(model, &rb.name, "body", names)?;
        coordinates_fit(l.n, 3, "this rigid body").map_err(|e| model.error(rb.name.span(), e))?;
        let mass = b.scope.positive(&rb.mass, "mass")?;
        let inertia = b.scope.scalar(&rb.inertia, "moment of inertia")?;
        if inertia <= 0.0 {
            return Err(model.error(rb.inertia.span(), format!("moment of inertia must be positive, got {inertia}")));
        }
        let p = b.scope.vec2(&rb.position)?;
        let angle = rb.angle.as_ref().map(|a| b.scope.number(a)).transpose()?.unwrap_or(0.0);
        let v = rb.velocity.as_ref().map(|v| b.scope.vec2(v)).transpose()?;
        let w = rb.angular_velocity.as_ref().map(|w| b.scope.scalar(w, "angular_velocity")).transpose()?;
        l.q0.extend([p[0], p[1], angle]);
        l.v0.extend([v.map_or(0.0, |v| v[0]), v.map_or(0.0, |v| v[1]), w.unwrap_or(0.0)]);
        l.specified.extend([v.is_some(), v.is_some(), w.is_some()]);
        l.sys.push(RigidBody2d::new(l.n, mass, inertia, l.gravity));
        let info = BodyInfo { name: rb.name.get_ref().clone(), x: l.n, rotates: true, director: false };
        b.add_body(BodyEntry { info: info.clone(), position: p, angle, listed: true, section: None });
        l.bodies.push(info);
        l.n += 3;
    }
    Ok(())
}
