//! `[[plates]]` of spatial models: the discrete plate of paper 001 (src/mechanics/
//! discrete_plate.rs), its patches as rigid bodies `<plate>.body[i][j]` (seven coordinates
//! each) and one `MultiPointForce` coupling them (eq. 13).

use super::{Body3, Builder, Layout};
use crate::compact_number::Compact;
use crate::limits::coordinates_fit;
use crate::mechanics::System;
use crate::mechanics::discrete_plate::{PlateSpec, discrete_plate, patch_bodies};
use crate::mechanics::elements::RigidBody3d;
use crate::mechanics::forces::{Member, MultiPointForce};
use crate::mechanics::momentum::BodyMass;
use crate::model::schema::{Definition, Name, PlateDecl, Vec2};
use crate::model::{Model, ModelError};
use crate::structural::{EdgeSupport, PlateMaterial};

/// A plate whose bodies are laid out and whose multi-point element is still to be built
/// (`condense`): the condensation costs seconds on a fine mesh, so a misspelt name elsewhere in
/// the file is told before it (a probe waited 34 s for an unknown body).
pub(super) struct PlateToCondense {
    name: Name,
    spec: PlateSpec,
    members: Vec<Member>,
    reference: Option<usize>,
}

/// Lay out the section's patch bodies after those of the kinds before it in `BODY_KINDS`; their
/// multi-point elements follow once every name has been resolved (`condense`).
pub(super) fn build(def: &Definition, b: &mut Builder, l: &mut Layout) -> Result<(), ModelError> {
    let model = b.model;
    for pd in &def.plates {
        b.check_name(&pd.name, "plate")?;
        let spec = plate_spec(b, pd)?;
        let (bodies, reference_body) = patch_bodies(&spec);
        let origin = pd.origin.as_ref().map(|o| b.scope.vec3(o)).transpose()?.unwrap_or([0.0; 3]);
        let (mut members, mut reference) = (Vec::new(), None);
        for (k, body) in bodies.iter().enumerate() {
            let name = format!("{}.body[{}][{}]", pd.name.get_ref(), body.i, body.j);
            b.check_name(&Name::new(pd.name.span(), name.clone()), "body")?;
            let x = l.q0.len();
            coordinates_fit(x, 7, "this plate body").map_err(|e| model.error(pd.name.span(), e))?;
            let r = [origin[0] + body.centre[0], origin[1] + body.centre[1], origin[2]];
            let p = [1.0, 0.0, 0.0, 0.0];
            l.q0.extend(r);
            l.q0.extend(p);
            l.v0.extend([0.0; 7]);
            l.specified.extend([false; 7]);
            let rigid = Some(BodyMass::Rigid(l.sys.elements::<RigidBody3d>().len()));
            l.sys.push(RigidBody3d::new(x, body.mass, body.inertia, l.gravity));
            b.add_body(Body3 { name, x, position: r, orientation: Some(p), mass: rigid });
            // c = conj(p_R0) p_0 = identity: every patch starts aligned with the reference.
            if reference_body == Some(k) {
                reference = Some(x);
            } else {
                members.push(Member { x, s: [0.0; 3], c: p });
            }
        }
        l.sys.multi_point_names.push(pd.name.get_ref().clone());
        b.plates.push(PlateToCondense { name: pd.name.clone(), spec, members, reference });
    }
    Ok(())
}

/// The plates' multi-point elements (paper 001 eqs. 2-13), in the order of their names in
/// `System::multi_point_names`.
pub(super) fn condense(
    model: &Model,
    plates: Vec<PlateToCondense>,
    q0: &[f64],
    sys: &mut System,
) -> Result<(), ModelError> {
    for PlateToCondense { name, spec, members, reference } in plates {
        let plate =
            discrete_plate(&spec).map_err(|e| model.error(name.span(), format!("plate '{}': {e}", name.get_ref())))?;
        let (k, c) = (plate.stiffness.transpose().as_slice().to_vec(), plate.damping.transpose().as_slice().to_vec());
        let mut element = MultiPointForce::new(members, reference, k, c, q0);
        // Clamped on two opposite edges, a plate's deflection stretches its mid-surface.
        let [x_min, x_max, y_min, y_max] = spec.edges.map(|e| e == EdgeSupport::Clamped);
        if (x_min && x_max) || (y_min && y_max) {
            element.membrane_thickness = Some(spec.t);
        }
        sys.push(element);
    }
    Ok(())
}

/// A pair of positive integers (`mesh`, `bodies`).
fn count(b: &Builder, v: &Vec2, what: &str) -> Result<[usize; 2], ModelError> {
    let x = b.scope.vec2(v)?;
    let mut out = [0; 2];
    let shown = |c: f64| crate::compact_number::Compact(c).to_string();
    for (o, &c) in out.iter_mut().zip(&x) {
        if c < 1.0 || c.fract() != 0.0 {
            return Err(b.model.error(
                v.span(),
                format!("{what} must be two positive integers, got [{}, {}]", shown(x[0]), shown(x[1])),
            ));
        }
        // A probe's [1e9, 1e9] was told "must be two positive integers".
        if c > 1e6 {
            return Err(b.model.error(
                v.span(),
                format!("{what} = [{}, {}] is too large: at most 1e6 per direction", shown(x[0]), shown(x[1])),
            ));
        }
        *o = c as usize;
    }
    Ok(out)
}

fn plate_spec(b: &Builder, pd: &PlateDecl) -> Result<PlateSpec, ModelError> {
    let model = b.model;
    let size = b.scope.vec2(&pd.size)?;
    if size.iter().any(|&x| x <= 0.0) {
        return Err(model.error(pd.size.span(), format!("size must be positive, got [{}, {}]", size[0], size[1])));
    }
    let t = b.scope.positive(&pd.thickness, "thickness")?;
    // Reissner-Mindlin plates from thin to moderately thick: a block thicker than half its
    // side is none, and below 1e-6 of it the bending stiffness (h^3) is round-off beside the
    // rest in the condensation (h/a = 1e-7 took 153 Newton iterations and was 0.3 % off, 1e-8
    // was singular; a probe's 1e-9 was told in the condensation's own words).
    let side = size[0].min(size[1]);
    if !(t <= 0.5 * side && t >= 1e-6 * side) {
        return Err(model.error(
            pd.thickness.span(),
            format!(
                "thickness {} m against a smaller side of {} m: a plate's thickness is between 1e-6 and 1/2 of its \
                 sides (thinner, its bending stiffness is lost in round-off: a foil; thicker, it is a block)",
                Compact(t),
                Compact(side)
            ),
        ));
    }
    let mat = pd.material.get_ref();
    let e = b.scope.positive(&mat.young, "E")?;
    let rho = b.scope.positive(&mat.rho, "rho")?;
    let nu = b.scope.number(&mat.nu)?;
    if !(nu > -1.0 && nu < 0.5) {
        return Err(model.error(mat.nu.span(), format!("nu must be in (-1, 0.5), got {nu}")));
    }
    if let Some(d) = &mat.damping {
        return Err(model.error(
            d.span(),
            "`material.damping` applies to beams; a plate's stiffness-proportional damping is `damping_ratio`".into(),
        ));
    }
    let mesh = count(b, &pd.mesh, "mesh")?;
    let bodies = count(b, &pd.bodies, "bodies")?;
    let mut edges = [EdgeSupport::Free; 4];
    for edge in pd.clamped.iter().flat_map(|c| c.get_ref()) {
        let k = ["x_min", "x_max", "y_min", "y_max"].iter().position(|e| e == edge.get_ref()).ok_or_else(|| {
            model
                .error(edge.span(), format!("unknown edge '{}', expected x_min, x_max, y_min or y_max", edge.get_ref()))
        })?;
        if edges[k] == EdgeSupport::Clamped {
            return Err(model.error(edge.span(), format!("edge '{}' is clamped twice", edge.get_ref())));
        }
        edges[k] = EdgeSupport::Clamped;
    }
    let damping_ratio =
        pd.damping_ratio.as_ref().map(|z| b.scope.non_negative(z, "damping_ratio")).transpose()?.unwrap_or(0.0);
    let spec = PlateSpec {
        a: size[0],
        b: size[1],
        t,
        material: PlateMaterial::new(e, nu, rho),
        mesh,
        bodies,
        edges,
        damping_ratio,
    };
    spec.validate().map_err(|m| {
        let span = if m.starts_with("mesh") {
            pd.mesh.span()
        } else if m.starts_with("bodies") || m.starts_with("a free plate") {
            pd.bodies.span()
        } else {
            pd.damping_ratio.as_ref().map_or(pd.name.span(), |z| z.span())
        };
        model.error(span, m)
    })?;
    Ok(spec)
}
