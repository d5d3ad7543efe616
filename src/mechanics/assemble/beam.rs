//! `[[beams]]` of planar models: corotational (Timoshenko or Euler-Bernoulli) elements
//! between nodes (x, y, theta), ANCF elements with nodes (r, d) (paper 003), or one
//! floating-frame beam with assumed modes (paper 004); its nodes and ends are named bodies.
//! An initial rigid motion (`velocity` of `start`, `angular_velocity`) sets every node's rates.

use std::collections::HashMap;

use super::{BodyEntry, Builder, Layout, Names, check_name};
use crate::limits::coordinates_fit;
use crate::mechanics::BodyInfo;
use crate::mechanics::assembly::BeamPeriod;
use crate::mechanics::beam_section::{self, Given};
use crate::mechanics::contact_gap::ContactGap;
use crate::mechanics::elements::{AncfBeam2d, BeamProperties, CorotationalBeam2d, FloatingFrameBeam2d};
use crate::mechanics::forces::line_load::LineSegment;
use crate::mechanics::joints::{ConstraintRow, JointKind};
use crate::mechanics::kinematics::{Anchor, Measure};
use crate::model::schema::{Definition, JointDecl, Name, Tensor};
use crate::model::{Model, ModelError};
use toml::Spanned;

/// Lay out the section's bodies after those of the kinds before it in `BODY_KINDS`.
pub(super) fn build(def: &Definition, b: &mut Builder, names: &mut Names, l: &mut Layout) -> Result<(), ModelError> {
    let model = b.model;
    // Floating-frame beams already built, by (length, modes, E, S, I, rho, gravity): a beam
    // equal in these has the same modal integrals, copied instead of integrated again.
    let mut built: HashMap<[u64; 8], usize> = HashMap::new();
    for bd in &def.beams {
        check_name(model, &bd.name, "beam", names)?;
        let name = bd.name.get_ref();
        let p0 = b.scope.vec2(&bd.start)?;
        let p1 = b.scope.vec2(&bd.end)?;
        let length = ((p1[0] - p0[0]).powi(2) + (p1[1] - p0[1]).powi(2)).sqrt();
        if length <= 0.0 {
            return Err(model.error(bd.end.span(), "the beam's end coincides with its start".into()));
        }
        let given = beam_section::given(&b.scope, bd)?;
        // Kelvin-Voigt material damping beta (s), every formulation.
        let damping = beam_section::damping(&b.scope, bd)?;
        let sec = bd.section.get_ref();
        let spatial_only = [
            (bd.center.as_ref().map(|v| v.span()), "center"),
            (bd.y_axis.as_ref().map(|v| v.span()), "y_axis"),
            (sec.shape.as_ref().map(|v| v.span()), "section.shape"),
            (sec.radius.as_ref().map(|v| v.span()), "section.radius"),
            (sec.iy.as_ref().map(|v| v.span()), "section.iy"),
            (sec.iz.as_ref().map(|v| v.span()), "section.iz"),
            (sec.j.as_ref().map(|v| v.span()), "section.j"),
            (sec.ga_y.as_ref().map(|v| v.span()), "section.GAy"),
            (sec.ga_z.as_ref().map(|v| v.span()), "section.GAz"),
            (sec.ei_y.as_ref().map(|v| v.span()), "section.EIy"),
            (sec.ei_z.as_ref().map(|v| v.span()), "section.EIz"),
            (sec.gj.as_ref().map(|v| v.span()), "section.GJ"),
        ];
        if let Some((Some(span), key)) = spatial_only.into_iter().find(|(s, _)| s.is_some()) {
            let planar = if key.starts_with("section.G") || key.starts_with("section.EI") {
                " (a planar section's resultants are EA, GA and EI)"
            } else {
                ""
            };
            return Err(
                model.error(span, format!("`{key}` applies to beams in spatial models (dimension = 3){planar}"))
            );
        }
        let formulation = bd.formulation.as_ref().map(|f| b.scope.text(f)).transpose()?;
        let (timoshenko, ancf, floating) = match formulation.as_ref().map(|f| (f.get_ref().as_str(), f.span())) {
            None | Some(("timoshenko", _)) => (true, false, false),
            Some(("euler_bernoulli", _)) => (false, false, false),
            Some(("ancf", _)) => (true, true, false),
            Some(("floating_frame", _)) => (false, false, true),
            Some((other, span)) => return Err(model.error(
                span,
                format!(
                    "unknown beam formulation '{other}', expected timoshenko, euler_bernoulli, ancf or floating_frame"
                ),
            )),
        };
        let rotary_inertia = sec.rotary_inertia.as_ref().map(|j| rotary_inertia(b, j, floating)).transpose()?;
        // The element properties: shear (`timoshenko`, `ancf`) only where the formulation has it;
        // the floating-frame beam reads E, A, I and rho alone.
        let props = match given {
            Given::Geometry { young, nu, rho } => {
                let (area, inertia) = match (&sec.width, &sec.height, &sec.area, &sec.inertia) {
                    (Some(w), Some(h), None, None) => {
                        let (w, h) = (b.scope.positive(w, "width")?, b.scope.positive(h, "height")?);
                        (w * h, w * h * h * h / 12.0)
                    }
                    (None, None, Some(a), Some(i)) => (b.scope.positive(a, "area")?, b.scope.positive(i, "inertia")?),
                    _ => {
                        return Err(model.error(
                            bd.section.span(),
                            "section needs either { width, height } or { area, inertia }, or the stress resultants \
                             { EA, GA, EI, mass_per_length }"
                                .into(),
                        ));
                    }
                };
                // The mass per length given apart from the stiffness: the density it makes of the
                // section (rho A = m; the rotary inertia rho I = m I / A follows the section's shape
                // unless `rotary_inertia` gives it too).
                let rho = match &sec.mass_per_length {
                    Some(m) => b.scope.positive(m, "mass_per_length")? / area,
                    None => rho,
                };
                let shear_factor = match &sec.shear_factor {
                    Some(k) => b.scope.positive(k, "shear_factor")?,
                    None => BeamProperties::rectangle_shear_factor(nu),
                };
                BeamProperties {
                    young,
                    shear: young / (2.0 * (1.0 + nu)),
                    area,
                    inertia,
                    shear_factor: timoshenko.then_some(shear_factor),
                    density: rho,
                    rotary_inertia,
                }
            }
            Given::Resultants { mass_per_length } => {
                let ea = beam_section::required(&b.scope, bd, &sec.ea, "EA", "the axial stiffness E A, N")?;
                let ga = beam_section::optional(&b.scope, &sec.ga, "GA")?;
                let ei = beam_section::required(&b.scope, bd, &sec.ei, "EI", "the bending stiffness E I, N m^2")?;
                let ga = match (timoshenko, ga) {
                    (true, None) => {
                        return Err(model.error(
                            bd.section.span(),
                            format!(
                                "{} beam's section given by its stress resultants needs `GA` (the effective shear \
                                 stiffness k G A, N); formulation = \"euler_bernoulli\" has no shear",
                                if ancf { "an ancf" } else { "a timoshenko" }
                            ),
                        ));
                    }
                    (true, ga) => ga,
                    // Euler-Bernoulli and floating-frame beams have no shear: GA is unused.
                    (false, _) => None,
                };
                BeamProperties::resultants(ea, ga, ei, mass_per_length, rotary_inertia)
            }
        };
        b.beam_periods.push(BeamPeriod {
            name: name.clone(),
            span: bd.name.span(),
            vibration: "bending",
            period: beam_section::bending_period(length, props.young * props.inertia, props.density * props.area),
        });
        let angle = (p1[1] - p0[1]).atan2(p1[0] - p0[0]);
        let first = l.n;
        // Initial rigid motion: velocity of `start` (0 when only the angular velocity is given)
        // and angular velocity. Given, all the beam's velocities are kept by the initial state,
        // as for spatial beams; omitted, all are solved from the joints.
        let velocity = bd.velocity.as_ref().map(|v| b.scope.vec2(v)).transpose()?;
        let omega = bd.angular_velocity.as_ref().map(|w| b.scope.scalar(w, "angular_velocity")).transpose()?;
        let given = velocity.is_some() || omega.is_some();
        let (v_start, w) = (velocity.unwrap_or([0.0; 2]), omega.unwrap_or(0.0));
        let rigid_velocity = |p: [f64; 2]| {
            let t = turned(w, [p[0] - p0[0], p[1] - p0[1]]);
            [v_start[0] + t[0], v_start[1] + t[1]]
        };
        if floating {
            // Floating frame with assumed modes (paper 004 section 2): coordinates (x0, y0,
            // theta) of the frame at the clamped end, then N axial and N transverse modal
            // coordinates. `<name>.start` is the frame (a rigid section at the frame origin).
            if let Some(e) = &bd.elements {
                return Err(model.error(
                    e.span(),
                    "a floating_frame beam has no elements; give its number of modes with `modes = N`".into(),
                ));
            }
            let Some(modes) = &bd.modes else {
                return Err(model.error(
                    bd.name.span(),
                    "a floating_frame beam needs `modes = N` (modes per direction, 1..=20)".into(),
                ));
            };
            let count = b.scope.number(modes)?;
            if !(1.0..=20.0).contains(&count) || count.fract() != 0.0 {
                return Err(model.error(modes.span(), format!("modes must be an integer in 1..=20, got {count}")));
            }
            let count = count as usize;
            coordinates_fit(l.n, 3 + 2 * count, "this beam").map_err(|e| model.error(modes.span(), e))?;
            l.q0.extend([p0[0], p0[1], angle]);
            l.q0.extend(std::iter::repeat_n(0.0, 2 * count));
            // The frame moves with the rigid motion; the modal coordinates start at rest.
            l.v0.extend([v_start[0], v_start[1], w]);
            l.v0.extend(std::iter::repeat_n(0.0, 2 * count));
            l.specified.extend(std::iter::repeat_n(given, 3 + 2 * count));
            for node in [format!("{name}.start"), format!("{name}.end")] {
                check_name(model, &Name::new(bd.name.span(), node), "beam node", names)?;
            }
            let info = BodyInfo { name: format!("{name}.start"), x: l.n, rotates: true, director: false };
            b.add_body(BodyEntry { info: info.clone(), position: p0, angle, listed: false, section: None });
            l.bodies.push(info);
            b.beam_nodes.push(format!("{name}.start ({name}.end: outputs x, y, angle, revolute joints (as body2), contacts with ground and forces; {name} with a point on its axis: revolute joints, contacts with ground and forces)"));
            b.floating.insert(name, l.sys.elements::<FloatingFrameBeam2d>().len());
            let key = [
                length,
                count as f64,
                props.young,
                props.area,
                props.inertia,
                props.density,
                l.gravity[0],
                l.gravity[1],
            ]
            .map(f64::to_bits);
            let same = built.get(&key).map(|&k| l.sys.elements::<FloatingFrameBeam2d>()[k].moved_to(first));
            let beam = same.unwrap_or_else(|| {
                built.insert(key, l.sys.elements::<FloatingFrameBeam2d>().len());
                FloatingFrameBeam2d::new(first, length, count, &props, l.gravity)
            });
            l.sys.push(beam.with_damping(damping));
            l.n += 3 + 2 * count;
            continue;
        }
        if let Some(m) = &bd.modes {
            return Err(model.error(m.span(), "`modes` applies to formulation = \"floating_frame\" only".into()));
        }
        let Some(elements) = &bd.elements else {
            return Err(model.error(bd.name.span(), "the beam needs `elements = N`".into()));
        };
        let count = b.scope.element_count(elements)?;
        let added = if ancf { 4 * (2 * count + 1) } else { 3 * (count + 1) };
        coordinates_fit(l.n, added, "this beam").map_err(|e| model.error(elements.span(), e))?;
        let l_el = length / count as f64;
        if ancf {
            // Nodes (r, d) at every element end and middle (paper 003 eq. 3), d = dr/dy the
            // unit normal to the axis; element ends are node[k], middles mid[k].
            let (sa, ca) = angle.sin_cos();
            let last = first + 8 * count;
            let ends = [
                (first, ([first + 4, first + 8], [-3.0 / l_el, 4.0 / l_el, -1.0 / l_el])),
                (last, ([last - 4, last - 8], [3.0 / l_el, -4.0 / l_el, 1.0 / l_el])),
            ];
            for k in 0..=2 * count {
                let f = k as f64 / (2 * count) as f64;
                let section = ends.iter().find(|(x, _)| *x == l.n).map(|(_, s)| *s);
                let p = [p0[0] + f * (p1[0] - p0[0]), p0[1] + f * (p1[1] - p0[1])];
                l.q0.extend([p[0], p[1], -sa, ca]);
                // Rigid motion: r' = v + w z x (r - r_start), the slope turns, d' = w z x d.
                l.v0.extend(rigid_velocity(p));
                l.v0.extend(turned(w, [-sa, ca]));
                l.specified.extend([given; 4]);
                let mut aliases =
                    vec![if k % 2 == 0 { format!("{name}.node[{}]", k / 2) } else { format!("{name}.mid[{}]", k / 2) }];
                if k == 0 {
                    aliases.push(format!("{name}.start"));
                }
                if k == 2 * count {
                    aliases.push(format!("{name}.end"));
                }
                for alias in aliases {
                    check_name(model, &Name::new(bd.name.span(), alias.clone()), "beam node", names)?;
                    let info = BodyInfo { name: alias, x: l.n, rotates: false, director: true };
                    b.add_body(BodyEntry { info: info.clone(), position: p, angle, listed: false, section });
                    l.bodies.push(info);
                }
                l.n += 4;
            }
            b.beam_nodes.push(format!("{name}.start, {name}.end, {name}.node[0..={count}], {name}.mid[0..{count}]"));
            let mut segments = Vec::with_capacity(count);
            for k in 0..count {
                let at = |j: usize| first + 4 * (2 * k + j);
                l.sys.push(AncfBeam2d::new([at(0), at(1), at(2)], l_el, &props, l.gravity).with_damping(damping));
                segments.push(LineSegment::Quadratic { nodes: [at(0), at(1), at(2)], l0: l_el });
            }
            b.beam_segments.insert(name.clone(), segments);
            continue;
        }
        for k in 0..=count {
            let f = k as f64 / count as f64;
            let p = [p0[0] + f * (p1[0] - p0[0]), p0[1] + f * (p1[1] - p0[1])];
            l.q0.extend([p[0], p[1], angle]);
            // Rigid motion: r' = v + w z x (r - r_start), theta' = w.
            l.v0.extend(rigid_velocity(p));
            l.v0.push(w);
            l.specified.extend([given; 3]);
            let mut aliases = vec![format!("{name}.node[{k}]")];
            if k == 0 {
                aliases.push(format!("{name}.start"));
            }
            if k == count {
                aliases.push(format!("{name}.end"));
            }
            for alias in aliases {
                check_name(model, &Name::new(bd.name.span(), alias.clone()), "beam node", names)?;
                let info = BodyInfo { name: alias, x: l.n, rotates: true, director: false };
                b.add_body(BodyEntry { info: info.clone(), position: p, angle, listed: false, section: None });
                l.bodies.push(info);
            }
            l.n += 3;
        }
        b.beam_nodes.push(format!("{name}.start, {name}.end, {name}.node[0..={count}]"));
        let mut segments = Vec::with_capacity(count);
        for k in 0..count {
            let nodes = [first + 3 * k, first + 3 * (k + 1)];
            let element = CorotationalBeam2d::new(nodes[0], nodes[1], l_el, &props, l.gravity);
            l.sys.push(element.with_damping(damping));
            segments.push(LineSegment::Chord { nodes, l0: l_el });
        }
        b.beam_segments.insert(name.clone(), segments);
    }
    Ok(())
}

/// `section.rotary_inertia` of a planar beam: the mass moment of inertia per unit length about
/// the out-of-plane axis (kg m), int rho y^2 dA over the section (rho I when it is homogeneous),
/// given apart from the stiffness; one positive number. It is the J of the section rotation's
/// kinetic energy J psi'^2 / 2 per length in Timoshenko's beam (Timoshenko 1921, "On the
/// correction for shear of the differential equation for transverse vibrations of prismatic
/// bars") and Rayleigh's (The Theory of Sound, 1877). The floating-frame beam neglects the
/// section's rotary inertia (Guo et al. 2017's Euler-Bernoulli model) and refuses it.
fn rotary_inertia(b: &Builder, j: &Spanned<Tensor>, floating: bool) -> Result<f64, ModelError> {
    if floating {
        return Err(b.model.error(
            j.span(),
            "a floating_frame beam has no rotary inertia (its Euler-Bernoulli modes neglect the section's): \
             `section.rotary_inertia` applies to formulations timoshenko, euler_bernoulli and ancf"
                .into(),
        ));
    }
    let Tensor::Scalar(n) = j.get_ref() else {
        return Err(b.model.error(
            j.span(),
            "in a planar model, rotary_inertia is one number: the moment about the out-of-plane axis (kg m)".into(),
        ));
    };
    let value = b.scope.number(&Spanned::new(j.span(), n.clone()))?;
    if !(value > 0.0 && value.is_finite()) {
        return Err(b.model.error(j.span(), format!("rotary_inertia must be positive, got {value}")));
    }
    Ok(value)
}

/// The rate of a vector a turning at angular velocity w: w z x a = w (-a_y, a_x).
fn turned(w: f64, a: [f64; 2]) -> [f64; 2] {
    [-w * a[1], w * a[0]]
}

/// The rigid-section row of a revolute joint whose body2 is the start or end node of an ANCF
/// beam (`rigid_section = true`): paper 003 eq. 23, d . r_x = 0 at the node (initially 0: d
/// is normal to the axis). `section` is the node's (`BodyEntry::section`), `a2` its anchor.
pub(super) fn rigid_section(
    model: &Model,
    j: &JointDecl,
    kind: JointKind,
    section: Option<([usize; 2], [f64; 3])>,
    a2: Anchor,
    q0: &[f64],
) -> Result<Option<ConstraintRow>, ModelError> {
    let Some(rs) = j.rigid_section.as_ref().filter(|r| *r.get_ref()) else { return Ok(None) };
    let section = match (kind, section) {
        (JointKind::Revolute, Some(section)) => section,
        (JointKind::Revolute, None) => {
            return Err(
                model.error(rs.span(), "rigid_section needs body2 to be the start or end node of an ANCF beam".into())
            );
        }
        _ => {
            return Err(model.error(
                rs.span(),
                "rigid_section applies to revolute joints only (fixed joints already hold the section)".into(),
            ));
        }
    };
    Ok(Some(ConstraintRow::holding(ContactGap::Measure(Measure::section_shear(a2, section.0, section.1)), q0)))
}
