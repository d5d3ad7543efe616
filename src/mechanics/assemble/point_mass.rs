//! `[[point_masses]]`: two coordinates (x, y) each, a `PointMass` element.

use super::{BodyEntry, Builder, Layout, Names, check_name};
use crate::limits::coordinates_fit;
use crate::mechanics::BodyInfo;
use crate::mechanics::elements::PointMass;
use crate::model::ModelError;
use crate::model::schema::Definition;

/// Lay out the section's bodies after those of the kinds before it in `BODY_KINDS`.
pub(super) fn build(def: &Definition, b: &mut Builder, names: &mut Names, l: &mut Layout) -> Result<(), ModelError> {
    let model = b.model;
    for pm in &def.point_masses {
        check_name(model, &pm.name, "body", names)?;
        coordinates_fit(l.n, 2, "this point mass").map_err(|e| model.error(pm.name.span(), e))?;
        let mass = b.scope.positive(&pm.mass, "mass")?;
        let p = b.scope.vec2(&pm.position)?;
        let v = pm.velocity.as_ref().map(|v| b.scope.vec2(v)).transpose()?;
        l.q0.extend(p);
        l.v0.extend(v.unwrap_or([0.0; 2]));
        l.specified.extend([v.is_some(); 2]);
        l.sys.push(PointMass::new(l.n, mass, l.gravity));
        let info = BodyInfo { name: pm.name.get_ref().clone(), x: l.n, rotates: false, director: false };
        b.add_body(BodyEntry { info: info.clone(), position: p, angle: 0.0, listed: true, section: None });
        l.bodies.push(info);
        l.n += 2;
    }
    Ok(())
}
