//! Spatial models (`[model] dimension = 3`): rigid bodies with Euler parameters, plates,
//! corotational beams (`beam.rs`), spherical, revolute, prismatic and fixed joints,
//! spring-dampers, loads, contacts (the geometries of src/mechanics/contacts/), gravity,
//! outputs. Planar-only entries (point masses) are reported as errors.

mod beam;

use super::assembly::Assembly;
use super::contact_gap::ContactGap;
use super::contacts::ContactElement;
use super::discrete_plate::{PlateSpec, discrete_plate};
use super::elements::RigidBody3d;
use super::euler_parameters::{Mat3, e_matrix, from_axis_angle, mat_t_vec, rotation};
use super::forces::{Member, MultiPointForce};
use super::initial_state::consistent_initial_state;
use super::joints::spatial::normalisation_row;
use super::joints::{ConstraintRow, JointInfo, JointKind, Rows, axis_only, spatial_type};
use super::load_magnitude::load_magnitude;
use super::output_quantities::{self, Quantity};
use super::outputs::{Output, OutputKind, parse_shared};
use super::spatial_kinematics::Anchor3;
use super::{BodyInfo, System};
use crate::limits::coordinates_fit;
use crate::model::schema::{JointDecl, Name, OutputDecl, PlateDecl, RigidBodyDecl, Tensor, Vec2};
use crate::model::{Model, ModelError, Scope};
use crate::structural::{EdgeSupport, PlateMaterial};
use std::collections::HashMap;
use std::ops::Range;

struct Body3 {
    name: String,
    x: usize,
    position: [f64; 3],
    orientation: [f64; 4],
}

struct Builder<'a> {
    model: &'a Model,
    scope: Scope<'a>,
    bodies: Vec<Body3>,
    /// Declared names and where; the index of each body in `bodies` (maps keep assembly
    /// linear in the model's size).
    names: HashMap<String, Range<usize>>,
    body_index: HashMap<String, usize>,
}

/// The spatial assembly as the spring types and contact geometries see it
/// (src/mechanics/site.rs).
struct Site<'a, 'b> {
    b: &'a Builder<'b>,
    q0: &'a [f64],
    joints: &'a [JointInfo],
    joint_index: &'a HashMap<String, usize>,
}

impl super::site::Site for Site<'_, '_> {
    type Anchor = Anchor3;

    fn model(&self) -> &Model {
        self.b.model
    }

    fn scope(&self) -> &Scope<'_> {
        &self.b.scope
    }

    fn q0(&self) -> &[f64] {
        self.q0
    }

    fn anchor(&self, body: &Name, point: Option<&Vec2>) -> Result<Anchor3, ModelError> {
        self.b.anchor(body, point)
    }

    fn joint(&self, name: &str) -> Option<&JointInfo> {
        self.joint_index.get(name).map(|&i| &self.joints[i])
    }
}

fn unit3(v: [f64; 3]) -> Option<[f64; 3]> {
    let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    (n > 0.0).then(|| v.map(|x| x / n))
}

impl Builder<'_> {
    fn add_body(&mut self, body: Body3) {
        self.body_index.entry(body.name.clone()).or_insert(self.bodies.len());
        self.bodies.push(body);
    }

    fn check_name(&mut self, name: &Name, what: &str) -> Result<(), ModelError> {
        let n = name.get_ref();
        if n == "ground" || n.is_empty() {
            return Err(self.model.error(name.span(), format!("{what} name '{n}' is empty or reserved")));
        }
        if let Some(first) = self.names.get(n) {
            let (line, _) = crate::model::line_column(&self.model.source, first.start);
            return Err(self.model.error(name.span(), format!("name '{n}' is already used on line {line}")));
        }
        self.names.insert(n.clone(), name.span());
        Ok(())
    }

    fn body(&self, name: &Name) -> Result<Option<&Body3>, ModelError> {
        let n = name.get_ref();
        if n == "ground" {
            return Ok(None);
        }
        self.body_index.get(n).map(|&i| Some(&self.bodies[i])).ok_or_else(|| {
            let known: Vec<_> = self.bodies.iter().map(|b| b.name.as_str()).collect();
            self.model.error(name.span(), format!("unknown body '{n}' (known: ground, {})", known.join(", ")))
        })
    }

    /// The anchor of `body` at the global point `point` (initial configuration); a missing
    /// point means the body's centre of mass.
    fn anchor(&self, body: &Name, point: Option<&Vec2>) -> Result<Anchor3, ModelError> {
        let p = point.map(|p| self.scope.vec3(p)).transpose()?;
        Ok(match self.body(body)? {
            None => Anchor3::Ground {
                p: p.ok_or_else(|| {
                    self.model.error(body.span(), "a point on ground needs `point = [x, y, z]`".into())
                })?,
            },
            Some(b) => {
                let p = p.unwrap_or(b.position);
                let d = [p[0] - b.position[0], p[1] - b.position[1], p[2] - b.position[2]];
                Anchor3::Body { x: b.x, s: mat_t_vec(&rotation(&b.orientation), d) }
            }
        })
    }

    fn inertia(&self, rb: &RigidBodyDecl) -> Result<Mat3, ModelError> {
        let span = rb.inertia.span();
        let num = |n: &crate::model::schema::Number| self.scope.number(&toml::Spanned::new(span.clone(), n.clone()));
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
            _ => return Err(self.model.error(span, "in a spatial model, inertia is [J1, J2, J3] (principal, body frame) or a 3x3 matrix [[..], [..], [..]] about the centre of mass".into())),
        };
        let scale = j.iter().flatten().fold(0.0f64, |a, x| a.max(x.abs()));
        if (0..3).any(|r| (0..3).any(|c| (j[r][c] - j[c][r]).abs() > 1e-12 * scale)) {
            return Err(self.model.error(span, "the inertia tensor must be symmetric".into()));
        }
        let eig = nalgebra::Matrix3::from_fn(|r, c| j[r][c]).symmetric_eigen().eigenvalues;
        let (a, b, c) = (eig[0], eig[1], eig[2]);
        if a.min(b).min(c) <= 0.0 {
            return Err(self.model.error(
                span,
                format!("the inertia tensor must be positive definite (principal values {a:.6e}, {b:.6e}, {c:.6e})"),
            ));
        }
        // A mass distribution has J1 + J2 >= J3 for every ordering of the principal values.
        if a + b < c * (1.0 - 1e-12) || b + c < a * (1.0 - 1e-12) || c + a < b * (1.0 - 1e-12) {
            return Err(self.model.error(span, format!("principal values {a:.6e}, {b:.6e}, {c:.6e} violate the triangle inequality J1 + J2 >= J3 of any body")));
        }
        Ok(j)
    }

    fn orientation(&self, rb: &RigidBodyDecl) -> Result<[f64; 4], ModelError> {
        match (&rb.euler_parameters, &rb.axis, &rb.angle) {
            (Some(e), None, None) => {
                let p = self.scope.vector::<4>(e)?;
                let n = p.iter().map(|x| x * x).sum::<f64>().sqrt();
                if n == 0.0 {
                    return Err(self.model.error(e.span(), "Euler parameters must not all be zero".into()));
                }
                Ok(p.map(|x| x / n))
            }
            (Some(e), _, _) => {
                Err(self.model.error(e.span(), "give either `euler_parameters` or `axis` and `angle`, not both".into()))
            }
            (None, Some(ax), angle) => {
                let u = unit3(self.scope.vec3(ax)?)
                    .ok_or_else(|| self.model.error(ax.span(), "axis must not be zero".into()))?;
                let angle = angle.as_ref().map(|a| self.scope.number(a)).transpose()?.unwrap_or(0.0);
                Ok(from_axis_angle(u, angle))
            }
            (None, None, Some(a)) => {
                Err(self.model.error(a.span(), "in a spatial model an angle needs `axis = [x, y, z]`".into()))
            }
            (None, None, None) => Ok([1.0, 0.0, 0.0, 0.0]),
        }
    }
}

pub fn assemble_spatial(model: &Model, params: &[f64]) -> Result<Assembly, ModelError> {
    assemble_spatial_at(model, params, 0.0)
}

/// [`assemble_spatial`] with the initial state consistent at the start time `t0` (drives).
pub fn assemble_spatial_at(model: &Model, params: &[f64], t0: f64) -> Result<Assembly, ModelError> {
    let def = &model.definition;
    let planar_only = |span: Option<Range<usize>>, what: &str| -> Result<(), ModelError> {
        match span {
            Some(s) => Err(model.error(s, format!("{what} are not available in spatial models (dimension = 3)"))),
            None => Ok(()),
        }
    };
    planar_only(def.point_masses.first().map(|p| p.name.span()), "point masses")?;
    let input_names: Vec<String> = def.inputs.iter().map(|i| i.name.get_ref().clone()).collect();
    let scope = model.scope(params);
    let gravity = def.model.gravity.as_ref().map(|g| scope.vec3(g)).transpose()?.unwrap_or([0.0; 3]);
    let mut b = Builder { model, scope, bodies: Vec::new(), names: HashMap::new(), body_index: HashMap::new() };
    for inp in &def.inputs {
        b.check_name(&inp.name, "input")?;
    }

    let (mut q0, mut v0, mut specified) = (Vec::new(), Vec::new(), Vec::new());
    let mut elements = Vec::new();
    for rb in &def.rigid_bodies {
        b.check_name(&rb.name, "body")?;
        let x = q0.len();
        coordinates_fit(x, 7, "this rigid body").map_err(|e| model.error(rb.name.span(), e))?;
        let mass = b.scope.positive(&rb.mass, "mass")?;
        let inertia = b.inertia(rb)?;
        let r = b.scope.vec3(&rb.position)?;
        let p = b.orientation(rb)?;
        let v = rb.velocity.as_ref().map(|v| b.scope.vec3(v)).transpose()?;
        let w = match &rb.angular_velocity {
            None => None,
            Some(w) => match w.get_ref() {
                Tensor::Vector(v) => Some(b.scope.vec3(&Vec2::new(w.span(), v.clone()))?),
                _ => {
                    return Err(model.error(
                        w.span(),
                        "in a spatial model, angular_velocity is a vector [wx, wy, wz] (global frame)".into(),
                    ));
                }
            },
        };
        // p' = 1/2 E^T omega (omega = 2 E p', E E^T = I on p.p = 1).
        let e = e_matrix(&p);
        let pd: [f64; 4] =
            std::array::from_fn(|k| w.map_or(0.0, |w| 0.5 * (0..3).map(|i| e[i][k] * w[i]).sum::<f64>()));
        q0.extend(r);
        q0.extend(p);
        v0.extend(v.unwrap_or([0.0; 3]));
        v0.extend(pd);
        specified.extend([v.is_some(); 3]);
        specified.extend([w.is_some(); 4]);
        elements.push(RigidBody3d::new(x, mass, inertia, gravity));
        b.add_body(Body3 { name: rb.name.get_ref().clone(), x, position: r, orientation: p });
    }
    // Discrete plates (paper 001): patch bodies now, their multi-point elements once the
    // coordinates are laid out.
    let mut plates = Vec::new();
    for pd in &def.plates {
        b.check_name(&pd.name, "plate")?;
        let spec = plate_spec(&b, pd)?;
        let plate = discrete_plate(&spec)
            .map_err(|e| model.error(pd.name.span(), format!("plate '{}': {e}", pd.name.get_ref())))?;
        let origin = pd.origin.as_ref().map(|o| b.scope.vec3(o)).transpose()?.unwrap_or([0.0; 3]);
        let (mut members, mut reference) = (Vec::new(), None);
        for (k, body) in plate.bodies.iter().enumerate() {
            let name = format!("{}.body[{}][{}]", pd.name.get_ref(), body.i, body.j);
            b.check_name(&Name::new(pd.name.span(), name.clone()), "body")?;
            let x = q0.len();
            coordinates_fit(x, 7, "this plate body").map_err(|e| model.error(pd.name.span(), e))?;
            let r = [origin[0] + body.centre[0], origin[1] + body.centre[1], origin[2]];
            let p = [1.0, 0.0, 0.0, 0.0];
            q0.extend(r);
            q0.extend(p);
            v0.extend([0.0; 7]);
            specified.extend([false; 7]);
            elements.push(RigidBody3d::new(x, body.mass, body.inertia, gravity));
            b.add_body(Body3 { name, x, position: r, orientation: p });
            // c = conj(p_R0) p_0 = identity: every patch starts aligned with the reference.
            if plate.reference == Some(k) {
                reference = Some(x);
            } else {
                members.push(Member { x, s: [0.0; 3], c: p });
            }
        }
        plates.push((members, reference, plate, pd.name.get_ref().clone()));
    }
    let beam_elements = beam::build(
        &mut b,
        &def.beams,
        gravity,
        beam::Coordinates { q0: &mut q0, v0: &mut v0, specified: &mut specified },
    )?;
    if q0.is_empty() {
        return Err(model.error(def.model.name.span(), "the model has no bodies".into()));
    }
    let mut sys = System::new(q0.len());
    sys.bodies =
        b.bodies.iter().map(|e| BodyInfo { name: e.name.clone(), x: e.x, rotates: true, director: false }).collect();
    sys.inputs = def.inputs.iter().map(|i| i.start).collect();
    for e in elements {
        sys.push(e);
    }
    for e in beam_elements {
        sys.push(e);
    }
    for body in &b.bodies {
        sys.constraints.push(normalisation_row(body.x));
    }
    for (members, reference, plate, name) in plates {
        sys.multi_point_names.push(name);
        let (k, c) = (plate.stiffness.transpose().as_slice().to_vec(), plate.damping.transpose().as_slice().to_vec());
        sys.push(MultiPointForce::new(members, reference, k, c, &q0));
    }

    // Loads: a force along a global direction at a body point, or a torque about a global
    // direction (src/mechanics/forces/spatial_load.rs).
    let input_scope = model.scope(params).with_inputs(&input_names);
    for l in &def.loads {
        let magnitude = load_magnitude(l, &input_scope, model)?;
        if b.body(&l.body)?.is_none() {
            return Err(model.error(l.body.span(), "loads on ground have no effect".into()));
        }
        let Some(dir) = &l.direction else {
            return Err(
                model.error(l.kind.span(), format!("a spatial {} needs `direction = [x, y, z]`", l.kind.get_ref()))
            );
        };
        let u =
            unit3(b.scope.vec3(dir)?).ok_or_else(|| model.error(dir.span(), "direction must not be zero".into()))?;
        let no_joints = HashMap::new();
        let site = Site { b: &b, q0: &q0, joints: &sys.joints, joint_index: &no_joints };
        let load = super::loads::spatial(l, model)?(l, &site, u, magnitude)?;
        sys.push(load);
    }

    let mut joint_spans = Vec::new();
    for j in &def.joints {
        b.check_name(&j.name, "joint")?;
        let (joint_type, build) = spatial_type(j.kind.get_ref()).map_err(|m| model.error(j.kind.span(), m))?;
        let kind = joint_type.kind;
        if let Some(rs) = &j.rigid_section {
            return Err(model.error(rs.span(), "rigid_section applies to planar ANCF beams only".into()));
        }
        let ground = Name::new(0..0, "ground".to_string());
        let body1 = j.body1.as_ref().unwrap_or(&ground);
        if body1.get_ref() == j.body2.get_ref() {
            return Err(model.error(j.body2.span(), "a joint needs two different bodies".into()));
        }
        let b2 = b
            .body(&j.body2)?
            .ok_or_else(|| model.error(j.body2.span(), "body2 must not be ground (put ground in body1)".into()))?;
        let b2x = b2.x;
        let point = match &j.point {
            Some(p) => b.scope.vec3(p)?,
            None => b2.position,
        };
        let pt =
            Vec2::new(j.point.as_ref().map_or(j.name.span(), |p| p.span()), point.iter().map(|&x| x.into()).collect());
        let (a1, a2) = (b.anchor(body1, Some(&pt))?, b.anchor(&j.body2, Some(&pt))?);
        let axis = match (&j.axis, joint_type.spatial_axis) {
            (Some(ax), true) => {
                unit3(b.scope.vec3(ax)?).ok_or_else(|| model.error(ax.span(), "axis must not be zero".into()))?
            }
            (None, true) => {
                return Err(
                    model.error(j.name.span(), format!("a {} joint needs `axis = [x, y, z]`", j.kind.get_ref()))
                );
            }
            (Some(ax), false) => return Err(model.error(ax.span(), axis_only(true))),
            (None, false) => [0.0, 0.0, 1.0],
        };
        let axis2 = universal_pin(model, &b, j, kind, axis)?;
        let Rows { mut rows, coordinate } = build(a1, a2, [axis, axis2], &q0);
        if let Some(d) = &j.drive {
            // The rheonomic row coordinate(q) - f(t) = 0; its multiplier gives `drive_force`.
            let f = input_scope.time_function(d)?;
            if let Some(bad) = f.eval_time_jet(t0, &sys.inputs, &sys.input_rates).into_iter().find(|x| !x.is_finite()) {
                return Err(model.error(
                    d.span(),
                    format!("the drive or its time derivatives are not finite at t = {t0}, the start time ({bad})"),
                ));
            }
            let m = coordinate.clone().ok_or_else(|| {
                model.error(
                    d.span(),
                    format!("`drive` applies to revolute and prismatic joints, not {}", j.kind.get_ref()),
                )
            })?;
            rows.push(ConstraintRow::driven(ContactGap::Measure(m), f));
        }
        let start = sys.constraints.len();
        sys.constraints.extend(rows);
        sys.joints.push(JointInfo {
            name: j.name.get_ref().clone(),
            kind,
            rows: start..sys.constraints.len(),
            body2_x: b2x,
            body2_rotates: false,
            coordinate,
        });
        joint_spans.push(j.name.span());
    }

    let joint_index: HashMap<String, usize> = sys.joints.iter().enumerate().map(|(i, j)| (j.name.clone(), i)).collect();
    for s in &def.springs {
        b.check_name(&s.name, "spring")?;
        let build = super::springs::spatial(s, model)?;
        let m = build(s, &Site { b: &b, q0: &q0, joints: &sys.joints, joint_index: &joint_index })?;
        super::springs::push_element(s, m, &b.scope, model, &q0, &mut sys)?;
    }

    // Contacts: a geometry of the table `CONTACT_TYPES`, as a force or a constraint.
    let mut contact_index = HashMap::new();
    for c in &def.contacts {
        b.check_name(&c.name, "contact")?;
        if super::contacts::body1(c).get_ref() == c.body2.get_ref() {
            return Err(model.error(c.body2.span(), "a contact needs two different bodies".into()));
        }
        let geometry = super::contacts::spatial(c, model)?(
            c,
            &Site { b: &b, q0: &q0, joints: &sys.joints, joint_index: &joint_index },
        )?;
        match super::contacts::element(c, geometry, &b.scope, model, &q0)? {
            ContactElement::Force(f) => {
                contact_index.entry(c.name.get_ref().clone()).or_insert(sys.contact_names.len());
                sys.push(f);
                sys.contact_names.push(c.name.get_ref().clone());
            }
            ContactElement::Constraint(k) => {
                sys.contact_constraints.push(k);
                sys.contact_constraint_names.push(c.name.get_ref().clone());
            }
        }
    }

    let mut outputs = Vec::new();
    for o in &def.outputs {
        b.check_name(&o.name, "output")?;
        let kind = output_kind(o, &b, &sys, &joint_index, &contact_index)?;
        outputs.push(Output {
            name: o.name.get_ref().clone(),
            unit: kind.unit().to_string(),
            description: o.description.clone(),
            kind,
        });
    }

    sys.finish();
    let initial = consistent_initial_state(model, &mut sys, q0, v0, &specified, &joint_spans, t0)?;
    Ok(Assembly { system: sys, initial, outputs, input_names })
}

/// A positive integer given as a number (or expression) in a list entry.
/// Body 2's pin of a universal joint (`axis2`, unit, perpendicular to body 1's pin `axis`);
/// `axis2` is refused on the other joints.
fn universal_pin(
    model: &Model,
    b: &Builder,
    j: &JointDecl,
    kind: JointKind,
    axis: [f64; 3],
) -> Result<[f64; 3], ModelError> {
    match (&j.axis2, kind) {
        (Some(ax), JointKind::Universal) => {
            let u = unit3(b.scope.vec3(ax)?).ok_or_else(|| model.error(ax.span(), "axis2 must not be zero".into()))?;
            let cos = (0..3).map(|k| u[k] * axis[k]).sum::<f64>();
            if cos.abs() > 1e-9 {
                return Err(model.error(
                    ax.span(),
                    format!(
                        "the pins of a universal joint must be perpendicular: axis . axis2 = {cos:.3e} (unit vectors)"
                    ),
                ));
            }
            Ok(u)
        }
        (None, JointKind::Universal) => Err(model.error(
            j.name.span(),
            "a universal joint needs `axis2 = [x, y, z]`, body2's pin (perpendicular to `axis`, body1's pin)".into(),
        )),
        (Some(ax), _) => Err(model.error(ax.span(), "`axis2` only applies to universal joints".into())),
        (None, _) => Ok(axis),
    }
}

fn count(b: &Builder, v: &Vec2, what: &str) -> Result<[usize; 2], ModelError> {
    let x = b.scope.vec2(v)?;
    let mut out = [0; 2];
    for (o, &c) in out.iter_mut().zip(&x) {
        if c < 1.0 || c.fract() != 0.0 || c > 1e6 {
            return Err(b
                .model
                .error(v.span(), format!("{what} must be two positive integers, got [{}, {}]", x[0], x[1])));
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
    let mat = pd.material.get_ref();
    let e = b.scope.positive(&mat.young, "E")?;
    let rho = b.scope.positive(&mat.rho, "rho")?;
    let nu = b.scope.number(&mat.nu)?;
    if !(nu > -1.0 && nu < 0.5) {
        return Err(model.error(mat.nu.span(), format!("nu must be in (-1, 0.5), got {nu}")));
    }
    let mesh = count(b, &pd.mesh, "mesh")?;
    let bodies = count(b, &pd.bodies, "bodies")?;
    let mut edges = [EdgeSupport::Free; 4];
    for edge in pd.clamped.iter().flat_map(|c| c.get_ref()) {
        let k = ["x_min", "x_max", "y_min", "y_max"].iter().position(|e| e == edge.get_ref()).ok_or_else(|| {
            model
                .error(edge.span(), format!("unknown edge '{}', expected x_min, x_max, y_min or y_max", edge.get_ref()))
        })?;
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

fn output_kind(
    o: &OutputDecl,
    b: &Builder,
    sys: &System,
    joint_index: &HashMap<String, usize>,
    contact_index: &HashMap<String, usize>,
) -> Result<OutputKind, ModelError> {
    let model = b.model;
    let q = o.quantity.get_ref().as_str();
    let quantity = output_quantities::lookup(q, 3);
    let need_body = || -> Result<(&Body3, &Name), ModelError> {
        let name = o
            .body
            .as_ref()
            .ok_or_else(|| model.error(o.quantity.span(), format!("output quantity '{q}' needs `body`")))?;
        let body = b.body(name)?.ok_or_else(|| model.error(name.span(), "ground does not move".into()))?;
        Ok((body, name))
    };
    let need_joint = || -> Result<usize, ModelError> {
        let name = o
            .joint
            .as_ref()
            .ok_or_else(|| model.error(o.quantity.span(), format!("output quantity '{q}' needs `joint`")))?;
        joint_index
            .get(name.get_ref())
            .copied()
            .ok_or_else(|| model.error(name.span(), format!("unknown joint '{}'", name.get_ref())))
    };
    if let Some(c) = &o.chord {
        return Err(model.error(c.span(), "`chord` (transverse_deflection) applies to planar models only".into()));
    }
    if let Some(f) = o.frame.as_ref().filter(|_| !matches!(quantity, Some(Quantity::Point { order: 0, .. }))) {
        return Err(model.error(f.span(), format!("`frame` applies only to positions (x, y, z), not '{q}'")));
    }
    if let Some(kind) = parse_shared(o, quantity, sys, model, joint_index, contact_index)? {
        return Ok(kind);
    }
    Ok(match quantity {
        Some(Quantity::Point { component, order: 0 }) if o.frame.is_some() => {
            let (_, name) = need_body()?;
            let anchor = b.anchor(name, o.point.as_ref())?;
            let frame_name = o.frame.as_ref().expect("checked by the guard");
            let frame = b
                .body(frame_name)?
                .ok_or_else(|| {
                    model
                        .error(frame_name.span(), "positions are global by default; remove `frame = \"ground\"`".into())
                })?
                .x;
            OutputKind::SpatialPointInFrame { anchor, frame, component }
        }
        Some(Quantity::Point { component, order }) => {
            let (_, name) = need_body()?;
            let anchor = b.anchor(name, o.point.as_ref())?;
            OutputKind::SpatialPoint { anchor, component, order }
        }
        Some(Quantity::BodyAngularVelocity { component }) => {
            OutputKind::SpatialBodyAngularVelocity { x: need_body()?.0.x, component }
        }
        Some(Quantity::TaitBryan { component }) => OutputKind::TaitBryan { x: need_body()?.0.x, component },
        Some(Quantity::EulerParameter { index }) => OutputKind::EulerParameter { index: need_body()?.0.x + 3 + index },
        Some(Quantity::AngularVelocity { component }) => {
            OutputKind::SpatialAngularVelocity { x: need_body()?.0.x, component }
        }
        Some(Quantity::Reaction { component }) => {
            let joint = need_joint()?;
            OutputKind::SpatialReaction { joint, component }
        }
        Some(Quantity::SupportForce { component }) => {
            let name = o
                .plate
                .as_ref()
                .ok_or_else(|| model.error(o.quantity.span(), format!("output quantity '{q}' needs `plate`")))?;
            let element = sys
                .multi_point_names
                .iter()
                .position(|p| p == name.get_ref())
                .ok_or_else(|| model.error(name.span(), format!("unknown plate '{}'", name.get_ref())))?;
            OutputKind::SupportForce { element, component }
        }
        // Not in the spatial table (the shared quantities were built above).
        _ => return Err(model.error(o.quantity.span(), output_quantities::unknown(q, 3))),
    })
}
