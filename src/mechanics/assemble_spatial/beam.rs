//! `[[beams]]` of spatial models: corotational elements (`elements/corotational_beam_3d.rs`)
//! between nodes (r, p), straight from `start` to `end` or on a circular arc about `center`.
//! Nodes are frames named `<name>.node[k]` (aliases `<name>.start`, `<name>.end`), addressed
//! like rigid bodies by joints, loads, springs and outputs.

use super::{Body3, Builder, Layout};
use crate::limits::coordinates_fit;
use crate::mechanics::assembly::BeamPeriod;
use crate::mechanics::beam_section::{self, Given};
use crate::mechanics::elements::{BeamProperties, CorotationalBeam3d, SpatialBeamProperties};
use crate::mechanics::euler_parameters::{Mat3, cross, e_matrix, from_rotation};
use crate::mechanics::unit_vector::unit;
use crate::model::ModelError;
use crate::model::schema::{BeamDecl, Definition, Name, Tensor};
use std::f64::consts::PI;
use toml::Spanned;

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The section frame [t, y, z] at a node with unit tangent t: y the part of `y_axis` normal to
/// t; by default z the part of the global z normal to t (global y for a beam along z).
fn section_frame(t: [f64; 3], y_axis: Option<[f64; 3]>) -> Option<Mat3> {
    let (y, z) = match y_axis {
        Some(a) => {
            let y = unit(std::array::from_fn(|i| a[i] - dot(a, t) * t[i]))?;
            (y, cross(t, y))
        }
        None if cross(t, [0.0, 0.0, 1.0]).iter().map(|x| x * x).sum::<f64>() > 1e-18 => {
            let z = unit(std::array::from_fn(|i| f64::from(u8::from(i == 2)) - t[2] * t[i]))?;
            (cross(z, t), z)
        }
        None => ([0.0, 1.0, 0.0], cross(t, [0.0, 1.0, 0.0])),
    };
    if dot(y, t).abs() > 1e-9 || unit(y).is_none() {
        return None;
    }
    Some(std::array::from_fn(|i| [t[i], y[i], z[i]]))
}

/// The section's `mass_per_length` and `rotary_inertia` in place of those of the density:
/// sections whose mass is not where their stiffness is (Simo & Vu-Quoc 1988's beams give
/// rho A and rho J apart from EA, EI, GJ). Each positive, or a located error.
fn mass_overrides(
    b: &Builder,
    bd: &BeamDecl,
    props: SpatialBeamProperties,
) -> Result<SpatialBeamProperties, ModelError> {
    let sec = bd.section.get_ref();
    let mass_per_length = sec.mass_per_length.as_ref().map(|m| b.scope.positive(m, "mass_per_length")).transpose()?;
    let rotary_inertia = match &sec.rotary_inertia {
        Some(t) => {
            let v = match t.get_ref() {
                Tensor::Vector(v) if v.len() == 3 => v,
                _ => {
                    return Err(b.model.error(
                        t.span(),
                        "in a spatial model, rotary_inertia is [Jx, Jy, Jz] (kg m, about the section's x, y and \
                         z axes)"
                            .into(),
                    ));
                }
            };
            let j = b.scope.vec3(&Spanned::new(t.span(), v.clone()))?;
            if !j.iter().all(|x| *x > 0.0 && x.is_finite()) {
                return Err(b.model.error(t.span(), format!("rotary_inertia must be positive, got {j:?}")));
            }
            Some(j)
        }
        None => None,
    };
    Ok(SpatialBeamProperties {
        mass_per_length: mass_per_length.unwrap_or(props.mass_per_length),
        rotary_inertia: rotary_inertia.unwrap_or(props.rotary_inertia),
        ..props
    })
}

/// The properties of a section given by its stress resultants: EA, GA (both axes) or GAy and
/// GAz (`timoshenko` only; unused by `euler_bernoulli`), EIy, EIz, GJ, with the mass per length
/// and, unless `rotary_inertia` gives it (`mass_overrides`), the rotary inertia of a
/// homogeneous section, m / EA (EIy + EIz, EIy, EIz) = rho (Iy + Iz, Iy, Iz).
fn resultants(
    b: &Builder,
    bd: &BeamDecl,
    timoshenko: bool,
    mass_per_length: f64,
) -> Result<SpatialBeamProperties, ModelError> {
    let (model, sec) = (b.model, bd.section.get_ref());
    if let Some(ei) = &sec.ei {
        return Err(model.error(
            ei.span(),
            "in a spatial model the section gives `EIy` and `EIz` (bending about its y and z axes), not `EI`".into(),
        ));
    }
    let required = |n, key, what| beam_section::required(&b.scope, bd, n, key, what);
    let ea = required(&sec.ea, "EA", "the axial stiffness E A, N")?;
    let ga = beam_section::optional(&b.scope, &sec.ga, "GA")?;
    let ga_y = beam_section::optional(&b.scope, &sec.ga_y, "GAy")?;
    let ga_z = beam_section::optional(&b.scope, &sec.ga_z, "GAz")?;
    let ei_y = required(&sec.ei_y, "EIy", "the bending stiffness E Iy about the section's y axis, N m^2")?;
    let ei_z = required(&sec.ei_z, "EIz", "the bending stiffness E Iz about the section's z axis, N m^2")?;
    let gj = required(&sec.gj, "GJ", "the torsional stiffness G J, N m^2")?;
    // GAy or GAz, the first given, with the other's name.
    let split = [(&sec.ga_y, "GAy", "GAz"), (&sec.ga_z, "GAz", "GAy")]
        .into_iter()
        .find_map(|(n, key, other)| n.as_ref().map(|n| (n.span(), key, other)));
    let shear = match (ga, ga_y.zip(ga_z), split) {
        (Some(_), _, Some((span, key, _))) => {
            return Err(model.error(
                span,
                format!(
                    "`{key}` contradicts `GA`, which gives the shear stiffness along both section axes: give GA, or \
                     GAy and GAz"
                ),
            ));
        }
        (Some(ga), _, None) => Some([ga; 2]),
        (None, Some((y, z)), _) => Some([y, z]),
        (None, None, Some((span, key, other))) => {
            return Err(model.error(
                span,
                format!(
                    "`{key}` needs `{other}` (the shear stiffnesses along the section's y and z axes), or give `GA` \
                     for both"
                ),
            ));
        }
        (None, None, None) => None,
    };
    let shear = match (timoshenko, shear) {
        (true, None) => {
            return Err(model.error(
                bd.section.span(),
                "a timoshenko beam's section given by its stress resultants needs `GA` (the effective shear stiffness \
                 k G A, N), or `GAy` and `GAz`; formulation = \"euler_bernoulli\" has no shear"
                    .into(),
            ));
        }
        (true, shear) => shear,
        (false, _) => None,
    };
    let m = mass_per_length / ea;
    Ok(SpatialBeamProperties::resultants(
        ea,
        shear,
        [ei_y, ei_z],
        gj,
        mass_per_length,
        [m * (ei_y + ei_z), m * ei_y, m * ei_z],
    ))
}

/// Area, Iy, Iz, J and the default shear factor of the section.
fn section(b: &Builder, bd: &BeamDecl, nu: f64) -> Result<(f64, f64, f64, f64, f64), ModelError> {
    let model = b.model;
    let sec = bd.section.get_ref();
    if let Some(i) = &sec.inertia {
        return Err(
            model.error(i.span(), "in a spatial model the section gives `iy` and `iz` (and `j`), not `inertia`".into())
        );
    }
    let shape = sec.shape.as_ref().map(|s| b.scope.text(s)).transpose()?;
    let rectangle_k = BeamProperties::rectangle_shear_factor(nu);
    let given = |n: &Option<crate::model::schema::Num>, what: &str| -> Result<Option<f64>, ModelError> {
        n.as_ref().map(|n| b.scope.positive(n, what)).transpose()
    };
    let explicit = [given(&sec.area, "area")?, given(&sec.iy, "iy")?, given(&sec.iz, "iz")?, given(&sec.j, "j")?];
    let (width, height, radius) =
        (given(&sec.width, "width")?, given(&sec.height, "height")?, given(&sec.radius, "radius")?);
    let shape_name = shape.as_ref().map(|s| s.get_ref().as_str());
    let any_explicit = explicit.iter().any(Option::is_some);
    match (shape_name, width, height, radius, any_explicit) {
        (None | Some("rectangle"), Some(w), Some(h), None, false) => {
            // Height along the section's y axis, width along z: Iz = w h^3/12 (bending in the
            // x-y plane, as the planar beam), Iy = h w^3/12; Saint-Venant torsion constant of
            // a rectangle a >= b: J = a b^3 (1/3 - 0.21 (b/a)(1 - b^4/(12 a^4))) (Roark's
            // Formulas, Young & Budynas 2002, table 10.7 case 4).
            let (a, c) = (w.max(h), w.min(h));
            let j = a * c.powi(3) * (1.0 / 3.0 - 0.21 * (c / a) * (1.0 - c.powi(4) / (12.0 * a.powi(4))));
            Ok((w * h, h * w.powi(3) / 12.0, w * h.powi(3) / 12.0, j, rectangle_k))
        }
        (Some("circle"), None, None, Some(r), false) => {
            // Shear factor of a circle 6(1+nu)/(7+6nu) (Cowper 1966).
            let i = PI * r.powi(4) / 4.0;
            Ok((PI * r * r, i, i, 2.0 * i, 6.0 * (1.0 + nu) / (7.0 + 6.0 * nu)))
        }
        (None, None, None, None, true) => {
            match explicit {
                [Some(a), Some(iy), Some(iz), Some(j)] => Ok((a, iy, iz, j, rectangle_k)),
                _ => Err(model
                    .error(bd.section.span(), "a section given by its values needs all of area, iy, iz and j".into())),
            }
        }
        (Some(other), ..) if other != "rectangle" && other != "circle" => Err(model.error(
            shape.as_ref().map_or(bd.section.span(), |s| s.span()),
            format!("unknown section shape '{other}', expected rectangle or circle"),
        )),
        _ => Err(model.error(
            bd.section.span(),
            "a spatial beam's section is { width, height } (shape = \"rectangle\"), { shape = \"circle\", radius }, \
             { area, iy, iz, j } or its stress resultants { EA, GA, EIy, EIz, GJ, mass_per_length }"
                .into(),
        )),
    }
}

/// A node's position and the beam's unit tangent there.
type NodeFrame = ([f64; 3], [f64; 3]);

/// Node positions and unit tangents: straight, or on the arc about `center` (under 180 degrees).
fn geometry(b: &Builder, bd: &BeamDecl, count: usize) -> Result<Vec<NodeFrame>, ModelError> {
    let model = b.model;
    let (p0, p1) = (b.scope.vec3(&bd.start)?, b.scope.vec3(&bd.end)?);
    let d: [f64; 3] = std::array::from_fn(|i| p1[i] - p0[i]);
    let Some(t) = unit(d) else {
        return Err(model.error(bd.end.span(), "the beam's end coincides with its start".into()));
    };
    let fraction = |k: usize| k as f64 / count as f64;
    let Some(c) = &bd.center else {
        return Ok((0..=count).map(|k| (std::array::from_fn(|i| p0[i] + fraction(k) * d[i]), t)).collect());
    };
    let centre = b.scope.vec3(c)?;
    let a: [f64; 3] = std::array::from_fn(|i| p0[i] - centre[i]);
    let e: [f64; 3] = std::array::from_fn(|i| p1[i] - centre[i]);
    let (ra, re) = (dot(a, a).sqrt(), dot(e, e).sqrt());
    if ra == 0.0 || (ra - re).abs() > 1e-9 * ra {
        return Err(model.error(c.span(), format!("start and end must be equally far from the center ({ra} and {re})")));
    }
    let normal = cross(a, e);
    let Some(n) = unit(normal).filter(|_| dot(normal, normal).sqrt() > 1e-9 * ra * ra) else {
        return Err(model
            .error(c.span(), "start, end and center are collinear: an arc must turn by less than 180 degrees".into()));
    };
    let angle = dot(normal, normal).sqrt().atan2(dot(a, e));
    let na = cross(n, a);
    Ok((0..=count)
        .map(|k| {
            let (s, co) = (fraction(k) * angle).sin_cos();
            let x = std::array::from_fn(|i| centre[i] + co * a[i] + s * na[i]);
            let t = std::array::from_fn(|i| (-s * a[i] + co * na[i]) / ra);
            (x, t)
        })
        .collect())
}

/// Lay out every beam's nodes after the bodies of the kinds before it in `BODY_KINDS`, with
/// its elements.
pub(super) fn build(def: &Definition, b: &mut Builder, l: &mut Layout) -> Result<(), ModelError> {
    let model = b.model;
    for bd in &def.beams {
        b.check_name(&bd.name, "beam")?;
        let name = bd.name.get_ref();
        if let Some(m) = &bd.modes {
            return Err(model.error(m.span(), "`modes` applies to planar floating_frame beams only".into()));
        }
        let formulation = bd.formulation.as_ref().map(|f| b.scope.text(f)).transpose()?;
        let timoshenko = match formulation.as_ref().map(|f| (f.get_ref().as_str(), f.span())) {
            None | Some(("timoshenko", _)) => true,
            Some(("euler_bernoulli", _)) => false,
            Some((other, span)) => {
                return Err(model.error(
                    span,
                    format!(
                        "unknown beam formulation '{other}' in a spatial model, expected timoshenko or euler_bernoulli"
                    ),
                ));
            }
        };
        let given = beam_section::given(&b.scope, bd)?;
        // Kelvin-Voigt material damping beta (s).
        let damping = beam_section::damping(&b.scope, bd)?;
        let props = match given {
            Given::Geometry { young, nu, rho } => {
                let (area, iy, iz, torsion, default_k) = section(b, bd, nu)?;
                let shear_factor = match &bd.section.get_ref().shear_factor {
                    Some(k) => b.scope.positive(k, "shear_factor")?,
                    None => default_k,
                };
                SpatialBeamProperties {
                    young,
                    shear: young / (2.0 * (1.0 + nu)),
                    area,
                    iy,
                    iz,
                    torsion,
                    shear_factor: timoshenko.then_some([shear_factor; 2]),
                    mass_per_length: 0.0,
                    rotary_inertia: [0.0; 3],
                }
                .with_density(rho)
            }
            Given::Resultants { mass_per_length } => resultants(b, bd, timoshenko, mass_per_length)?,
        };
        let props = mass_overrides(b, bd, props)?;
        let Some(elements_decl) = &bd.elements else {
            return Err(model.error(bd.name.span(), "the beam needs `elements = N`".into()));
        };
        let count = b.scope.element_count(elements_decl)?;
        coordinates_fit(l.q0.len(), 7 * (count + 1), "this beam").map_err(|e| model.error(elements_decl.span(), e))?;
        let nodes = geometry(b, bd, count)?;
        let length: f64 =
            nodes.windows(2).map(|w| (0..3).map(|i| (w[1].0[i] - w[0].0[i]).powi(2)).sum::<f64>().sqrt()).sum();
        b.beam_periods.push(BeamPeriod {
            name: name.clone(),
            span: bd.name.span(),
            vibration: "bending",
            period: beam_section::bending_period(length, props.young * props.iy.min(props.iz), props.mass_per_length),
        });
        let torsional = beam_section::torsion_period(length, props.shear * props.torsion, props.rotary_inertia[0]);
        if torsional > 0.0 && torsional.is_finite() {
            b.beam_periods.push(BeamPeriod {
                name: name.clone(),
                span: bd.name.span(),
                vibration: "torsional",
                period: torsional,
            });
        }
        let y_axis = bd.y_axis.as_ref().map(|a| b.scope.vec3(a)).transpose()?;
        let velocity = bd.velocity.as_ref().map(|v| b.scope.vec3(v)).transpose()?;
        let omega = bd.angular_velocity.as_ref().map(|w| b.scope.vector3(w, "angular_velocity")).transpose()?;
        let start = nodes[0].0;
        let mut rest = Vec::new();
        for (k, &(x, t)) in nodes.iter().enumerate() {
            let frame = section_frame(t, y_axis).ok_or_else(|| {
                model.error(
                    bd.y_axis.as_ref().map_or(bd.name.span(), |a| a.span()),
                    "y_axis must not be parallel to the beam's axis".into(),
                )
            })?;
            let p = from_rotation(&frame);
            let first = l.q0.len();
            let w = omega.unwrap_or([0.0; 3]);
            let arm: [f64; 3] = std::array::from_fn(|i| x[i] - start[i]);
            let wxr = cross(w, arm);
            let v: [f64; 3] = std::array::from_fn(|i| velocity.map_or(0.0, |v| v[i]) + wxr[i]);
            // p' = 1/2 E(p)^T omega (omega global).
            let e = e_matrix(&p);
            let pd: [f64; 4] = std::array::from_fn(|j| 0.5 * (0..3).map(|i| e[i][j] * w[i]).sum::<f64>());
            l.q0.extend(x);
            l.q0.extend(p);
            l.v0.extend(v);
            l.v0.extend(pd);
            let given = velocity.is_some() || omega.is_some();
            l.specified.extend([given; 7]);
            let node_name = format!("{name}.node[{k}]");
            b.check_name(&Name::new(bd.name.span(), node_name.clone()), "beam node")?;
            let index = b.bodies.len();
            b.add_body(Body3 { name: node_name, x: first, position: x, orientation: Some(p), mass: None });
            let mut aliases = Vec::new();
            if k == 0 {
                aliases.push(format!("{name}.start"));
            }
            if k == count {
                aliases.push(format!("{name}.end"));
            }
            for alias in aliases {
                b.check_name(&Name::new(bd.name.span(), alias.clone()), "beam node")?;
                b.body_index.insert(alias, index);
            }
            rest.push((first, x, p));
        }
        let first_element = l.sys.elements::<CorotationalBeam3d>().len();
        for w in rest.windows(2) {
            let ((n1, x1, p1), (n2, x2, p2)) = (w[0], w[1]);
            l.sys.push(CorotationalBeam3d::new(n1, n2, (x1, p1, x2, p2), &props, l.gravity).with_damping(damping));
        }
        b.beams.insert(name.clone(), first_element..l.sys.elements::<CorotationalBeam3d>().len());
    }
    Ok(())
}
