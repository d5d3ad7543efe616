//! `[[rigid_bodies]]` of spatial models: seven coordinates (r, Euler parameters p) each, a
//! `RigidBody3d` element; the inertia tensor about the centre of mass (principal values or a
//! symmetric 3x3 matrix) and the orientation (Euler parameters, or an axis and an angle).

use super::{Body3, Builder, Layout};
use crate::limits::coordinates_fit;
use crate::mechanics::elements::RigidBody3d;
use crate::mechanics::euler_parameters::{Mat3, e_matrix, from_axis_angle};
use crate::mechanics::momentum::BodyMass;
use crate::mechanics::unit_vector::unit;
use crate::model::ModelError;
use crate::model::schema::{Definition, RigidBodyDecl, Tensor};

/// Lay out the section's bodies after those of the kinds before it in `BODY_KINDS`.
pub(super) fn build(def: &Definition, b: &mut Builder, l: &mut Layout) -> Result<(), ModelError> {
    let model = b.model;
    for rb in &def.rigid_bodies {
        b.check_name(&rb.name, "body")?;
        let x = l.q0.len();
        coordinates_fit(x, 7, "this rigid body").map_err(|e| model.error(rb.name.span(), e))?;
        let mass = b.scope.positive(&rb.mass, "mass")?;
        let inertia = inertia(b, rb)?;
        let r = b.scope.vec3(&rb.position)?;
        let p = orientation(b, rb)?;
        let v = rb.velocity.as_ref().map(|v| b.scope.vec3(v)).transpose()?;
        let w = rb.angular_velocity.as_ref().map(|w| b.scope.vector3(w, "angular_velocity")).transpose()?;
        // p' = 1/2 E^T omega (omega = 2 E p', E E^T = I on p.p = 1).
        let e = e_matrix(&p);
        let pd: [f64; 4] =
            std::array::from_fn(|k| w.map_or(0.0, |w| 0.5 * (0..3).map(|i| e[i][k] * w[i]).sum::<f64>()));
        l.q0.extend(r);
        l.q0.extend(p);
        l.v0.extend(v.unwrap_or([0.0; 3]));
        l.v0.extend(pd);
        l.specified.extend([v.is_some(); 3]);
        l.specified.extend([w.is_some(); 4]);
        let rigid = Some(BodyMass::Rigid(l.sys.elements::<RigidBody3d>().len()));
        l.sys.push(RigidBody3d::new(x, mass, inertia, l.gravity));
        b.add_body(Body3 { name: rb.name.get_ref().clone(), x, position: r, orientation: Some(p), mass: rigid });
    }
    Ok(())
}

fn inertia(b: &Builder, rb: &RigidBodyDecl) -> Result<Mat3, ModelError> {
    let (model, span) = (b.model, rb.inertia.span());
    let num = |n: &crate::model::schema::Number| b.scope.number(&toml::Spanned::new(span.clone(), n.clone()));
    let j: Mat3 = match rb.inertia.get_ref() {
        Tensor::Vector(v) if v.len() == 3 => {
            let mut j = [[0.0; 3]; 3];
            for k in 0..3 {
                j[k][k] = num(&v[k])?;
            }
            j
        }
        Tensor::Matrix(rows) if rows.len() == 3 && rows.iter().all(|r| r.len() == 3) => {
            let mut j = [[0.0; 3]; 3];
            for (r, row) in rows.iter().enumerate() {
                for (c, x) in row.iter().enumerate() {
                    j[r][c] = num(x)?;
                }
            }
            j
        }
        _ => return Err(model.error(span, "in a spatial model, inertia is [J1, J2, J3] (principal, body frame) or a 3x3 matrix [[..], [..], [..]] about the centre of mass".into())),
    };
    let scale = j.iter().flatten().fold(0.0f64, |a, x| a.max(x.abs()));
    if (0..3).any(|r| (0..3).any(|c| (j[r][c] - j[c][r]).abs() > 1e-12 * scale)) {
        return Err(model.error(span, "the inertia tensor must be symmetric".into()));
    }
    let eig = nalgebra::Matrix3::from_fn(|r, c| j[r][c]).symmetric_eigen().eigenvalues;
    let (a, b, c) = (eig[0], eig[1], eig[2]);
    if a.min(b).min(c) <= 0.0 {
        return Err(model.error(
            span,
            format!("the inertia tensor must be positive definite (principal values {a:.6e}, {b:.6e}, {c:.6e})"),
        ));
    }
    // A mass distribution has J1 + J2 >= J3 for every ordering of the principal values.
    if a + b < c * (1.0 - 1e-12) || b + c < a * (1.0 - 1e-12) || c + a < b * (1.0 - 1e-12) {
        return Err(model.error(
            span,
            format!(
                "principal values {a:.6e}, {b:.6e}, {c:.6e} violate the triangle inequality J1 + J2 >= J3 of any body"
            ),
        ));
    }
    Ok(j)
}

fn orientation(b: &Builder, rb: &RigidBodyDecl) -> Result<[f64; 4], ModelError> {
    match (&rb.euler_parameters, &rb.axis, &rb.angle) {
        (Some(e), None, None) => {
            let p = b.scope.vector::<4>(e)?;
            unit(p).ok_or_else(|| b.model.error(e.span(), "Euler parameters must not all be zero".into()))
        }
        (Some(e), _, _) => {
            Err(b.model.error(e.span(), "give either `euler_parameters` or `axis` and `angle`, not both".into()))
        }
        (None, Some(ax), None) => Err(b.model.error(
            ax.span(),
            "`axis` is the axis the body is turned about by `angle` (its initial orientation), and there is no \
             `angle`: give both (`angle = 0.0` for the unturned body), or neither"
                .into(),
        )),
        (None, Some(ax), Some(angle)) => {
            let u = unit(b.scope.vec3(ax)?).ok_or_else(|| b.model.error(ax.span(), "axis must not be zero".into()))?;
            Ok(from_axis_angle(u, b.scope.number(angle)?))
        }
        (None, None, Some(a)) => {
            Err(b.model.error(a.span(), "in a spatial model an angle needs `axis = [x, y, z]`".into()))
        }
        (None, None, None) => Ok([1.0, 0.0, 0.0, 0.0]),
    }
}
