//! Spatial models (`[model] dimension = 3`): point masses, rigid bodies with Euler
//! parameters, plates, corotational beams (`beam.rs`), the spatial joint types,
//! spring-dampers, loads, contacts (the geometries of src/mechanics/contacts/), gravity,
//! outputs.

mod beam;
mod plate;
mod point_mass;
mod rigid_body;

use super::assembly::{Assembly, BeamPeriod};
use super::contacts::ContactElement;
use super::elements::CorotationalBeam3d;
use super::euler_parameters::{mat_t_vec, rotation};
use super::initial_state::consistent_initial_state;
use super::joints::spatial::normalisation_row;
use super::joints::{
    JointInfo, JointKind, Rows, aliased_bodies_message, axis_only, check_apart, check_points, coordinate_row, drives,
    held_length, point_mass_types, reads_body_orientation, same_bodies_message, spatial_type,
};
use super::load_magnitude::load_magnitude;
use super::momentum::BodyMass;
use super::output_quantities::{self, Quantity};
use super::outputs::{Output, OutputKind, parse_shared};
use super::section_forces::section_output;
use super::spatial_kinematics::Anchor3;
use super::unit_vector::unit;
use super::{BodyInfo, System};
use crate::model::schema::{Definition, JointDecl, Name, OutputDecl, Vec2};
use crate::model::{Model, ModelError, Scope};
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::ops::Range;

struct Body3 {
    name: String,
    x: usize,
    position: [f64; 3],
    /// Its initial Euler parameters (seven coordinates: position, then Euler parameters);
    /// `None` for a point mass (three coordinates, no orientation).
    orientation: Option<[f64; 4]>,
    /// Its element with mass: a `RigidBody3d` (rigid bodies and plate patches) or a
    /// `PointMass<3>`; `None` for beam nodes, whose mass belongs to their elements.
    mass: Option<BodyMass>,
}

struct Builder<'a> {
    model: &'a Model,
    scope: Scope<'a>,
    bodies: Vec<Body3>,
    /// Declared names and where; the index of each body in `bodies` (maps keep assembly
    /// linear in the model's size).
    names: HashMap<String, Range<usize>>,
    body_index: HashMap<String, usize>,
    /// Each beam's estimated first bending period.
    beam_periods: Vec<BeamPeriod>,
    /// Each beam's elements by its name: their range in the system's `CorotationalBeam3d`s.
    beams: HashMap<String, Range<usize>>,
    /// The plates laid out, to be condensed once every name has been resolved.
    plates: Vec<plate::PlateToCondense>,
}

/// The spatial assembly as the spring types and contact geometries see it
/// (src/mechanics/site.rs).
struct Site<'a, 'b> {
    b: &'a Builder<'b>,
    q0: &'a [f64],
    joints: &'a [JointInfo],
    joint_index: &'a HashMap<String, usize>,
    /// The beam elements laid out (`Builder::beams` indexes them).
    beam_elements: &'a [CorotationalBeam3d],
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

impl super::site::SpatialSite for Site<'_, '_> {
    fn beam_elements(&self, beam: &Name) -> Result<Vec<CorotationalBeam3d>, ModelError> {
        let name = beam.get_ref();
        if let Some(range) = self.b.beams.get(name) {
            return Ok(self.beam_elements[range.clone()].to_vec());
        }
        Err(self.b.model.error(beam.span(), super::loads::distributed_force::not_a_beam(name, self.b.beams.keys())))
    }
}

/// The coordinates laid out so far, with their initial values, and the system collecting the
/// bodies' elements.
struct Layout {
    q0: Vec<f64>,
    v0: Vec<f64>,
    /// Whether each initial velocity is given (the others are solved for).
    specified: Vec<bool>,
    gravity: [f64; 3],
    sys: System,
}

/// The body kinds of spatial models, in the order their coordinates are laid out: each is a
/// file of this folder building its section into coordinates, named bodies (`Body3`) and
/// elements. A new body kind is its file plus one line here.
const BODY_KINDS: &[BodyKind] = &[point_mass::build, rigid_body::build, plate::build, beam::build];

/// A body kind's builder: its section of the model into coordinates, names and elements.
type BodyKind = fn(&Definition, &mut Builder, &mut Layout) -> Result<(), ModelError>;

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
        match self.names.entry(n.clone()) {
            Entry::Occupied(first) => {
                let (line, _) = crate::model::line_column(&self.model.source, first.get().start);
                Err(self.model.error(name.span(), format!("name '{n}' is already used on line {line}")))
            }
            Entry::Vacant(slot) => {
                slot.insert(name.span());
                Ok(())
            }
        }
    }

    fn body(&self, name: &Name) -> Result<Option<&Body3>, ModelError> {
        let n = self.scope.indexed_name(name.get_ref()).map_err(|e| self.model.error(name.span(), e))?;
        let n = n.as_ref();
        if n == "ground" {
            return Ok(None);
        }
        self.body_index.get(n).map(|&i| Some(&self.bodies[i])).ok_or_else(|| {
            let known = summarised(self.bodies.iter().map(|b| b.name.as_str()));
            self.model.error(name.span(), format!("unknown body '{n}' (known: ground, {known})"))
        })
    }

    /// The anchor of `body` at the global point `point` (initial configuration); a missing
    /// point means the body's centre of mass. A point on a point mass must be the mass's
    /// position (it has no extent), as in planar models.
    fn anchor(&self, body: &Name, point: Option<&Vec2>) -> Result<Anchor3, ModelError> {
        let p = point.map(|p| self.scope.vec3(p)).transpose()?;
        Ok(match self.body(body)? {
            None => Anchor3::Ground {
                p: p.ok_or_else(|| {
                    self.model.error(body.span(), super::assemble::GROUND_POINT.replace("{xyz}", "[x, y, z]"))
                })?,
            },
            Some(b) => {
                let p = p.unwrap_or(b.position);
                let d = [p[0] - b.position[0], p[1] - b.position[1], p[2] - b.position[2]];
                match b.orientation {
                    Some(e) => Anchor3::Body { x: b.x, s: mat_t_vec(&rotation(&e), d) },
                    None => {
                        let size = 1.0 + p.iter().map(|c| c.abs()).sum::<f64>();
                        if d.iter().map(|c| c * c).sum::<f64>().sqrt() > 1e-12 * size {
                            return Err(self.model.error(
                                point.map_or(body.span(), |p| p.span()),
                                format!(
                                    "point mass '{}' is at {:?}; a point on it must be there too",
                                    b.name, b.position
                                ),
                            ));
                        }
                        Anchor3::Point { x: b.x }
                    }
                }
            }
        })
    }
}

pub fn assemble_spatial(model: &Model, params: &[f64]) -> Result<Assembly, ModelError> {
    assemble_spatial_at(model, params, 0.0)
}

/// [`assemble_spatial`] with the initial state consistent at the start time `t0` (drives).
pub fn assemble_spatial_at(model: &Model, params: &[f64], t0: f64) -> Result<Assembly, ModelError> {
    let def = &model.definition;
    let input_names: Vec<String> = def.inputs.iter().map(|i| i.name.get_ref().clone()).collect();
    let scope = model.scope(params);
    let gravity = def.model.gravity.as_ref().map(|g| scope.vec3(g)).transpose()?.unwrap_or([0.0; 3]);
    let mut b = Builder {
        model,
        scope,
        bodies: Vec::new(),
        names: HashMap::new(),
        body_index: HashMap::new(),
        beam_periods: Vec::new(),
        beams: HashMap::new(),
        plates: Vec::new(),
    };
    for inp in &def.inputs {
        b.check_name(&inp.name, "input")?;
    }

    // Coordinates: bodies in file order, kind by kind in the order of `BODY_KINDS`.
    let mut l = Layout { q0: Vec::new(), v0: Vec::new(), specified: Vec::new(), gravity, sys: System::new(0) };
    for build in BODY_KINDS {
        build(def, &mut b, &mut l)?;
    }
    let Layout { q0, v0, specified, mut sys, .. } = l;
    if q0.is_empty() {
        return Err(model.error(def.model.name.span(), "the model has no bodies".into()));
    }
    sys.set_coordinates(q0.len());
    sys.spatial = true;
    sys.bodies = b
        .bodies
        .iter()
        .map(|e| BodyInfo { name: e.name.clone(), x: e.x, rotates: e.orientation.is_some(), director: false })
        .collect();
    sys.inputs = def.inputs.iter().map(|i| i.start.0).collect();
    for body in b.bodies.iter().filter(|b| b.orientation.is_some()) {
        sys.constraints.push(normalisation_row(body.x));
    }

    // Loads: a force along a global direction at a body point, or a torque about a global
    // direction (src/mechanics/forces/spatial_load.rs).
    let input_scope = model.scope(params).with_inputs(&input_names);
    for l in &def.loads {
        let build = super::loads::spatial(l, model)?;
        let magnitude = load_magnitude(l, &input_scope, model, &mut sys)?;
        if !super::loads::on_beam(l) && b.body(&l.body)?.is_none() {
            return Err(model.error(l.body.span(), "loads on ground have no effect".into()));
        }
        let Some(dir) = &l.direction else {
            return Err(
                model.error(l.kind.span(), format!("a spatial {} needs `direction = [x, y, z]`", l.kind.get_ref()))
            );
        };
        let u = unit(b.scope.vec3(dir)?).ok_or_else(|| model.error(dir.span(), "direction must not be zero".into()))?;
        let no_joints = HashMap::new();
        let beam_elements = sys.elements::<CorotationalBeam3d>();
        let site = Site { b: &b, q0: &q0, joints: &sys.joints, joint_index: &no_joints, beam_elements };
        let loads = build(l, &site, u, magnitude)?;
        for load in loads {
            sys.push(load);
        }
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
            return Err(model.error(j.body2.span(), same_bodies_message(j.body2.get_ref())));
        }
        let b2 = b
            .body(&j.body2)?
            .ok_or_else(|| model.error(j.body2.span(), "body2 must not be ground (put ground in body1)".into()))?;
        let b2x = b2.x;
        let b1 = b.body(body1)?;
        if b1.is_some_and(|b1| b1.x == b2x) {
            return Err(model.error(j.body2.span(), aliased_bodies_message(body1.get_ref(), j.body2.get_ref())));
        }
        let b1x = b1.map(|b1| b1.x);
        // A point mass has no orientation for a joint to hold (checked before its point, which
        // must be the mass's own).
        let point_masses = [b1.is_some_and(|b1| b1.orientation.is_none()), b2.orientation.is_none()];
        let reads = reads_body_orientation(joint_type);
        for ((name, point_mass), reads) in [body1, &j.body2].into_iter().zip(point_masses).zip(reads) {
            if point_mass && reads {
                return Err(model.error(
                    name.span(),
                    format!(
                        "'{}' is a point mass, which has no orientation for a {} joint to hold; point masses take {}",
                        name.get_ref(),
                        j.kind.get_ref(),
                        point_mass_types()
                    ),
                ));
            }
        }
        check_points(j, joint_type, body1.get_ref() == "ground", model)?;
        let (a1, a2) = if joint_type.two_points {
            // A link between two points, each anchor at its own (default: the body's centre).
            let (a1, a2) = (b.anchor(body1, j.point1.as_ref())?, b.anchor(&j.body2, j.point2.as_ref())?);
            check_apart(j, &a1.position(&q0), &a2.position(&q0), model)?;
            (a1, a2)
        } else {
            let point = match &j.point {
                Some(p) => b.scope.vec3(p)?,
                None => b2.position,
            };
            let pt = Vec2::new(
                j.point.as_ref().map_or(j.name.span(), |p| p.span()),
                point.iter().map(|&x| x.into()).collect(),
            );
            (b.anchor(body1, Some(&pt))?, b.anchor(&j.body2, Some(&pt))?)
        };
        let axis = match (&j.axis, joint_type.spatial_axis) {
            (Some(ax), true) => {
                unit(b.scope.vec3(ax)?).ok_or_else(|| model.error(ax.span(), "axis must not be zero".into()))?
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
        let Rows { mut rows, coordinates } = build(a1, a2, [axis, axis2], &q0);
        let held = held_length(j, joint_type, &b.scope, model)?;
        // The rheonomic rows coordinate(q) - f(t) = 0; their multipliers give `drive_force`.
        let drives = drives(j, joint_type, coordinates.len(), true, &input_scope, t0, &mut sys, model)?;
        for (m, drive) in coordinates.iter().zip(drives) {
            rows.extend(coordinate_row(joint_type, m, drive, held, &q0));
        }
        let start = sys.constraints.len();
        sys.constraints.extend(rows);
        sys.joints.push(JointInfo {
            name: j.name.get_ref().clone(),
            kind,
            rows: start..sys.constraints.len(),
            body1_x: b1x,
            body2_x: b2x,
            body2_rotates: false,
            body2_point: Some(a2),
            coordinates,
        });
        joint_spans.push(j.name.span());
    }

    let joint_index: HashMap<String, usize> = sys.joints.iter().enumerate().map(|(i, j)| (j.name.clone(), i)).collect();
    for s in &def.springs {
        b.check_name(&s.name, "spring")?;
        let build = super::springs::spatial(s, model)?;
        let site = Site { b: &b, q0: &q0, joints: &sys.joints, joint_index: &joint_index, beam_elements: &[] };
        let m = build(s, &site)?;
        super::springs::push_element(s, m, &input_scope, t0, model, &q0, &mut sys)?;
    }

    // Contacts: a geometry of the table `CONTACT_TYPES`, as a force or a constraint.
    let mut contact_index = HashMap::new();
    let mut contact_warnings = Vec::new();
    for c in &def.contacts {
        b.check_name(&c.name, "contact")?;
        if super::contacts::body1(c).get_ref() == c.body2.get_ref() {
            return Err(model.error(c.body2.span(), "a contact needs two different bodies".into()));
        }
        let geometry = super::contacts::spatial(c, model)?(
            c,
            &Site { b: &b, q0: &q0, joints: &sys.joints, joint_index: &joint_index, beam_elements: &[] },
        )?;
        match super::contacts::element(c, geometry, &b.scope, model, &q0)? {
            ContactElement::Force(f) => {
                contact_warnings.extend(super::contacts::deep_start_warning(c, &f, &q0, model));
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

    plate::condense(model, std::mem::take(&mut b.plates), &q0, &mut sys)?;
    sys.finish();
    let (initial, mut warnings) = consistent_initial_state(model, &mut sys, q0, v0, &specified, &joint_spans, t0)?;
    warnings.extend(contact_warnings);
    Ok(Assembly { system: sys, initial, outputs, input_names, warnings, beam_periods: b.beam_periods })
}

/// Names with their indexed families summarised in order of appearance: a beam's nodes
/// `arm.node[0]` .. `arm.node[16]` as `arm.node[0..=16]`, a plate's patches `p.body[i][j]` as
/// `p.body[0..=5][0..=5]` (a probe's misspelt patch was answered with all 256 names).
fn summarised<'n>(names: impl Iterator<Item = &'n str>) -> String {
    // (family, each index's range) or a plain name, in order of first appearance.
    type Ranges = Vec<(usize, usize)>;
    let mut shown: Vec<(String, Option<Ranges>)> = Vec::new();
    let mut family: HashMap<String, usize> = HashMap::new();
    for name in names {
        let (mut stem, mut indices) = (name, Vec::new());
        while let Some(open) = stem.strip_suffix(']').and_then(|s| s.rfind('[')) {
            match stem[open + 1..stem.len() - 1].parse::<usize>() {
                Ok(i) => indices.insert(0, i),
                Err(_) => break,
            }
            stem = &stem[..open];
        }
        if indices.is_empty() {
            shown.push((name.to_string(), None));
            continue;
        }
        let key = format!("{stem}/{}", indices.len());
        match family.get(&key) {
            Some(&k) => {
                let ranges = shown[k].1.as_mut().expect("a family");
                ranges.iter_mut().zip(&indices).for_each(|((lo, hi), &i)| (*lo, *hi) = ((*lo).min(i), (*hi).max(i)));
            }
            None => {
                family.insert(key, shown.len());
                shown.push((stem.to_string(), Some(indices.iter().map(|&i| (i, i)).collect())));
            }
        }
    }
    let text: Vec<String> = shown
        .into_iter()
        .map(|(stem, ranges)| match ranges {
            None => stem,
            Some(ranges) => ranges.iter().fold(stem, |s, (lo, hi)| match lo == hi {
                true => format!("{s}[{lo}]"),
                false => format!("{s}[{lo}..={hi}]"),
            }),
        })
        .collect();
    text.join(", ")
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
            let u = unit(b.scope.vec3(ax)?).ok_or_else(|| model.error(ax.span(), "axis2 must not be zero".into()))?;
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
    // The first coordinate of a body with an orientation (rigid body, plate patch, beam node).
    let need_turning = || -> Result<usize, ModelError> {
        let (body, name) = need_body()?;
        match body.orientation {
            Some(_) => Ok(body.x),
            None => Err(model.error(
                name.span(),
                format!("'{q}' needs a body that turns (a rigid body or a beam node); '{}' is a point mass", body.name),
            )),
        }
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
            let frame = b.body(frame_name)?.ok_or_else(|| {
                model.error(frame_name.span(), "positions are global by default; remove `frame = \"ground\"`".into())
            })?;
            if frame.orientation.is_none() {
                return Err(model.error(
                    frame_name.span(),
                    format!(
                        "a frame needs a rigid body or a beam node; '{}' is a point mass, which has no orientation",
                        frame.name
                    ),
                ));
            }
            let frame = frame.x;
            OutputKind::SpatialPointInFrame { anchor, frame, component }
        }
        Some(Quantity::Point { component, order }) => {
            let (_, name) = need_body()?;
            let anchor = b.anchor(name, o.point.as_ref())?;
            OutputKind::SpatialPoint { anchor, component, order }
        }
        Some(Quantity::BodyAngularVelocity { component, order }) => {
            OutputKind::SpatialBodyAngularVelocity { x: need_turning()?, component, order }
        }
        Some(Quantity::TaitBryan { component }) => OutputKind::TaitBryan { x: need_turning()?, component },
        Some(Quantity::EulerParameter { index }) => OutputKind::EulerParameter { index: need_turning()? + 3 + index },
        Some(Quantity::AngularVelocity { component, order }) => {
            OutputKind::SpatialAngularVelocity { x: need_turning()?, component, order }
        }
        Some(Quantity::Reaction { component }) => {
            let joint = need_joint()?;
            OutputKind::SpatialReaction { joint, component }
        }
        Some(Quantity::ReactionTorque { component }) => {
            let joint = need_joint()?;
            let point = sys.joints[joint].body2_point.expect("spatial joints have body 2's anchor");
            OutputKind::SpatialReactionTorque { joint, point, component }
        }
        Some(Quantity::AngularMomentum { component }) => {
            if let Some(p) = &o.point {
                return Err(model.error(
                    p.span(),
                    format!("`point` does not apply to {q}: angular momentum is taken about the global origin"),
                ));
            }
            let body = match o.body {
                None => None,
                Some(_) => {
                    let (body, name) = need_body()?;
                    Some(body.mass.ok_or_else(|| {
                        model.error(
                            name.span(),
                            format!(
                                "{q} needs a rigid body or a point mass: '{}' is a beam node, whose mass belongs to its \
                                 elements (leave out `body` for the whole model's angular momentum, beams included)",
                                name.get_ref()
                            ),
                        )
                    })?)
                }
            };
            OutputKind::AngularMomentum { body, component }
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
        Some(Quantity::SectionForce { component }) => {
            let (body, name) = need_body()?;
            if let Some(p) = &o.point {
                return Err(model.error(p.span(), format!("'{q}' is the section's at the beam node: no `point`")));
            }
            section_output(sys, body.x, &body.name, component).map_err(|m| model.error(name.span(), m))?
        }
        // Not in the spatial table (the shared quantities were built above).
        _ => return Err(model.error(o.quantity.span(), output_quantities::unknown(q, 3))),
    })
}
