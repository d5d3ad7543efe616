//! `[[point_masses]]` of spatial models: three coordinates (x, y, z) each, a `PointMass<3>`
//! element (the planar point mass's element, over the dimension). A point mass has no
//! orientation: its anchor is `Anchor3::Point` (no Euler parameters, no normalisation row),
//! at the mass itself.

use super::{Body3, Builder, Layout};
use crate::limits::coordinates_fit;
use crate::mechanics::elements::PointMass;
use crate::mechanics::momentum::BodyMass;
use crate::model::ModelError;
use crate::model::schema::Definition;

/// Lay out the section's bodies after those of the kinds before it in `BODY_KINDS`.
pub(super) fn build(def: &Definition, b: &mut Builder, l: &mut Layout) -> Result<(), ModelError> {
    let model = b.model;
    for pm in &def.point_masses {
        b.check_name(&pm.name, "body")?;
        let x = l.q0.len();
        coordinates_fit(x, 3, "this point mass").map_err(|e| model.error(pm.name.span(), e))?;
        let mass = b.scope.positive(&pm.mass, "mass")?;
        let r = b.scope.vec3(&pm.position)?;
        let v = pm.velocity.as_ref().map(|v| b.scope.vec3(v)).transpose()?;
        l.q0.extend(r);
        l.v0.extend(v.unwrap_or([0.0; 3]));
        l.specified.extend([v.is_some(); 3]);
        let own = Some(BodyMass::Point(l.sys.elements::<PointMass<3>>().len()));
        l.sys.push(PointMass::new(x, mass, l.gravity));
        b.add_body(Body3 { name: pm.name.get_ref().clone(), x, position: r, orientation: None, mass: own });
    }
    Ok(())
}
