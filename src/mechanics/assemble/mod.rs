//! From a model definition (with parameter values) to a [`System`], its initial state and
//! its outputs. Every user error is reported at the offending place in the model file.

mod beam;
mod floating_frame;
mod point_mass;
mod rigid_body;

pub use super::assembly::Assembly;
use super::assembly::BeamPeriod;
use super::contact_gap::{ContactGap, GroundShape};
use super::contacts::ContactElement;
use super::elements::FloatingFramePoint;
use super::forces::Load;
use super::forces::line_load::LineSegment;
use super::initial_state::consistent_initial_state;
use super::joints::{
    Drive, JointInfo, JointKind, Rows, aliased_bodies_message, axis_only, check_apart, check_points, coordinate_row,
    drives, held_length, planar_type, same_bodies_message,
};
use super::kinematics::{Anchor, Measure, MeasureKind};
use super::load_magnitude::load_magnitude;
use super::output_quantities::{self, Quantity};
use super::outputs::{Output, OutputKind, parse_shared};
use super::section_forces::section_output;
use super::site::PlanarSite;
use super::unit_vector::unit;
use super::{BodyInfo, System};
use crate::model::schema::{Definition, Name, Vec2};
use crate::model::{Model, ModelError, Scope};
use floating_frame::FloatingPoints;
use std::collections::HashMap;
use std::collections::hash_map::Entry;

struct BodyEntry {
    info: BodyInfo,
    position: [f64; 2],
    angle: f64,
    /// Named in "unknown body" messages (beam nodes are summarised per beam instead).
    listed: bool,
    /// ANCF beam end nodes: the other two nodes of their element and the weights of the axis
    /// tangent r_x = w0 r_node + w1 r_a + w2 r_b at the node (for paper 003 eq. 23).
    section: Option<([usize; 2], [f64; 3])>,
}

fn rot_t(theta: f64, d: [f64; 2]) -> [f64; 2] {
    let (s, c) = theta.sin_cos();
    [c * d[0] + s * d[1], -s * d[0] + c * d[1]]
}

struct Builder<'a> {
    model: &'a Model,
    scope: Scope<'a>,
    bodies: Vec<BodyEntry>,
    /// "arm.start, arm.end, arm.node[0..=4]" per beam, for error messages.
    beam_nodes: Vec<String>,
    /// The floating-frame beams by name (their points are no `Anchor`: floating_frame.rs).
    floating: FloatingPoints,
    /// Contact force names → their index among the `Contact` elements.
    contact_index: HashMap<String, usize>,
    /// The first entry of `bodies` with each name (body names are looked up for every joint,
    /// spring, load, contact and output: a map keeps assembly linear in the model's size).
    body_index: HashMap<String, usize>,
    /// The index of each joint in `System::joints`, once they are all laid out.
    joint_index: HashMap<String, usize>,
    /// Each beam's estimated first bending period.
    beam_periods: Vec<BeamPeriod>,
    /// The elements of each finite-element beam by its name, for distributed forces.
    beam_segments: HashMap<String, Vec<LineSegment>>,
}

/// The error of a point on ground without its position (`{xyz}`: the coordinates' names),
/// naming the keys the entries take (a probe's contact was told `point`; its key is point1).
pub(crate) const GROUND_POINT: &str = "a point on ground needs its global position {xyz}: `point`, or `point1` for \
    `body1` and `point2` for `body2` where the entry has both (springs, contacts, distance joints)";

impl Builder<'_> {
    fn add_body(&mut self, entry: BodyEntry) {
        self.body_index.entry(entry.info.name.clone()).or_insert(self.bodies.len());
        self.bodies.push(entry);
    }

    fn err(&self, span: std::ops::Range<usize>, msg: String) -> ModelError {
        self.model.error(span, msg)
    }

    /// The first coordinate of the body named as an output's `frame`: a rigid body or a
    /// corotational beam node (x, y, theta); ground and bodies without an orientation are
    /// located errors.
    fn frame(&self, name: &Name) -> Result<usize, ModelError> {
        match self.body(name)? {
            Some(e) if e.info.rotates && !e.info.director => Ok(e.info.x),
            Some(e) => Err(self.err(
                name.span(),
                format!("a frame needs a rigid body or a corotational beam node; '{}' has no orientation", e.info.name),
            )),
            None => Err(self.err(name.span(), "positions are global by default; remove `frame = \"ground\"`".into())),
        }
    }

    fn body(&self, name: &Name) -> Result<Option<&BodyEntry>, ModelError> {
        let n = self.scope.indexed_name(name.get_ref()).map_err(|e| self.err(name.span(), e))?;
        let n = n.as_ref();
        if n == "ground" {
            return Ok(None);
        }
        match self.body_index.get(n).map(|&i| &self.bodies[i]) {
            Some(b) => Ok(Some(b)),
            None if self.floating.names(n) => Err(self.err(name.span(), {
                let beam = n.strip_suffix(".end").unwrap_or(n);
                format!(
                    "'{n}' is a point of a floating_frame beam, which only revolute joints (as body2), force \
                         loads and contacts (as body2, against ground) take, and outputs at its tip '{beam}.end'; \
                         attach this to the beam's frame '{beam}.start' instead"
                )
            })),
            None => {
                let mut known: Vec<_> = self.bodies.iter().filter(|b| b.listed).map(|b| b.info.name.as_str()).collect();
                known.extend(self.beam_nodes.iter().map(String::as_str));
                Err(self.err(name.span(), format!("unknown body '{n}' (known: ground, {})", known.join(", "))))
            }
        }
    }

    /// The anchor of `body` at global point `point` (initial configuration); a missing point
    /// means the body's reference point (`GROUND_POINT` on ground).
    fn anchor(&self, body: &Name, point: Option<&Vec2>) -> Result<Anchor, ModelError> {
        let p = point.map(|p| self.scope.vec2(p)).transpose()?;
        Ok(match self.body(body)? {
            None => match p {
                Some(p) => Anchor::Ground { p },
                None => return Err(self.err(body.span(), GROUND_POINT.replace("{xyz}", "[x, y]"))),
            },
            Some(b) if !b.info.rotates => {
                if let Some(p) = p {
                    let d = ((p[0] - b.position[0]).powi(2) + (p[1] - b.position[1]).powi(2)).sqrt();
                    if d > 1e-12 * (1.0 + p[0].abs() + p[1].abs()) {
                        let span = point.map_or(body.span(), |p| p.span());
                        let what = if b.info.director { "ANCF beam node" } else { "point mass" };
                        return Err(self.err(
                            span,
                            format!("{what} '{}' is at {:?}; a point on it must be there too", b.info.name, b.position),
                        ));
                    }
                }
                if b.info.director {
                    let (s, c) = b.angle.sin_cos();
                    Anchor::Director { x: b.info.x, reference: [-s, c] }
                } else {
                    Anchor::Point { x: b.info.x }
                }
            }
            Some(b) => {
                let p = p.unwrap_or(b.position);
                let s = rot_t(b.angle, [p[0] - b.position[0], p[1] - b.position[1]]);
                Anchor::Rigid { x: b.info.x, s }
            }
        })
    }
}

/// The planar assembly as the spring types and contact geometries see it
/// (src/mechanics/site.rs); `tip` is body2 of the contact being built when that is a point of
/// a floating-frame beam (paper 004 eq. 1), against ground.
struct Site<'a, 'b> {
    b: &'a Builder<'b>,
    joints: &'a [JointInfo],
    q0: &'a [f64],
    tip: Option<FloatingFramePoint>,
}

impl super::site::Site for Site<'_, '_> {
    type Anchor = Anchor;

    fn model(&self) -> &Model {
        self.b.model
    }

    fn scope(&self) -> &Scope<'_> {
        &self.b.scope
    }

    fn q0(&self) -> &[f64] {
        self.q0
    }

    fn anchor(&self, body: &Name, point: Option<&Vec2>) -> Result<Anchor, ModelError> {
        self.b.anchor(body, point)
    }

    fn joint(&self, name: &str) -> Option<&JointInfo> {
        self.b.joint_index.get(name).map(|&i| &self.joints[i])
    }
}

impl PlanarSite for Site<'_, '_> {
    fn has_angle(&self, body: &Name) -> Result<Option<bool>, ModelError> {
        Ok(self.b.body(body)?.map(|e| e.info.rotates || e.info.director))
    }

    fn frame_angle(&self, body: &Name) -> Result<Option<f64>, ModelError> {
        Ok(self.b.body(body)?.filter(|e| e.info.rotates).map(|e| e.angle))
    }

    fn contact_anchor2(&self, body: &Name, point: Option<&Vec2>) -> Result<Anchor, ModelError> {
        match self.tip {
            Some(_) => Ok(Anchor::Ground { p: [0.0, 0.0] }),
            None => self.b.anchor(body, point),
        }
    }

    fn beam_segments(&self, beam: &Name) -> Result<Vec<LineSegment>, ModelError> {
        let b = self.b;
        let name = beam.get_ref();
        if let Some(segments) = b.beam_segments.get(name) {
            return Ok(segments.clone());
        }
        let why = if b.floating.names(name) {
            format!(
                "'{name}' is a floating_frame beam, which takes forces at its points only (a distributed force acts \
                 on timoshenko, euler_bernoulli and ancf beams)"
            )
        } else {
            super::loads::distributed_force::not_a_beam(name, b.beam_segments.keys())
        };
        Err(b.err(beam.span(), why))
    }

    fn gap(&self, m: Measure) -> ContactGap {
        match self.tip {
            None => ContactGap::Measure(m),
            Some(ref point) => {
                let target = match m.kind {
                    MeasureKind::Projection { u, .. } => {
                        GroundShape::Plane { point: m.a1.position(self.q0), normal: u }
                    }
                    _ => GroundShape::Circle { centre: m.a1.position(self.q0) },
                };
                ContactGap::floating_tip(point.clone(), target)
            }
        }
    }
}

/// Declared names and where (one namespace: bodies, joints, springs, contacts, inputs, outputs).
type Names = HashMap<String, std::ops::Range<usize>>;

/// Refuse an empty, reserved or already used name (reported at the later of the two
/// declarations, naming the earlier one); record it otherwise.
fn check_name(model: &Model, name: &Name, what: &str, names: &mut Names) -> Result<(), ModelError> {
    let n = name.get_ref();
    if n == "ground" || n.is_empty() {
        return Err(model.error(name.span(), format!("{what} name '{n}' is empty or reserved")));
    }
    match names.entry(n.clone()) {
        Entry::Occupied(first) => {
            let first = first.get();
            let (earlier, later) = if first.start < name.span().start {
                (first.clone(), name.span())
            } else {
                (name.span(), first.clone())
            };
            let (line, _) = crate::model::line_column(&model.source, earlier.start);
            Err(model.error(later, format!("name '{n}' is already used on line {line}")))
        }
        Entry::Vacant(slot) => {
            slot.insert(name.span());
            Ok(())
        }
    }
}

/// The coordinates laid out so far, with their initial values, the named bodies and the
/// system collecting the bodies' elements.
struct Layout {
    n: usize,
    q0: Vec<f64>,
    v0: Vec<f64>,
    /// Whether each initial velocity is given (the others are solved for).
    specified: Vec<bool>,
    bodies: Vec<BodyInfo>,
    gravity: [f64; 2],
    sys: System,
}

/// The body kinds of planar models, in the order their coordinates are laid out: each is a
/// file of this folder building its section into coordinates, named bodies and elements.
/// A new body kind is its file plus one line here.
const BODY_KINDS: &[BodyKind] = &[point_mass::build, rigid_body::build, beam::build];

/// A body kind's builder: its section of the model into coordinates, names and elements.
type BodyKind = fn(&Definition, &mut Builder, &mut Names, &mut Layout) -> Result<(), ModelError>;

pub fn assemble(model: &Model, params: &[f64]) -> Result<Assembly, ModelError> {
    assemble_at(model, params, 0.0)
}

/// [`assemble`] with the initial state consistent at time `t0`: driven joints are projected
/// onto drive(t0) and the omitted velocities solved from drive'(t0) (a simulation that
/// starts at t0).
pub fn assemble_at(model: &Model, params: &[f64], t0: f64) -> Result<Assembly, ModelError> {
    model.check_parameters(params)?;
    let def = &model.definition;
    match def.model.dimension.as_ref().map(|d| (d.get_ref().0, d.span())) {
        None | Some((2, _)) => {}
        Some((3, _)) => return super::assemble_spatial::assemble_spatial_at(model, params, t0),
        Some((other, span)) => return Err(model.error(span, format!("dimension must be 2 or 3, got {other}"))),
    }
    if let Some(p) = def.plates.first() {
        return Err(
            model.error(p.name.span(), "plates are available in spatial models only (`[model] dimension = 3`)".into())
        );
    }
    for rb in &def.rigid_bodies {
        if let Some(e) = rb.axis.as_ref().or(rb.euler_parameters.as_ref()) {
            return Err(model.error(
                e.span(),
                "`axis` and `euler_parameters` apply to spatial models only (`[model] dimension = 3`)".into(),
            ));
        }
    }
    let input_names: Vec<String> = def.inputs.iter().map(|i| i.name.get_ref().clone()).collect();
    let scope = model.scope(params);
    let gravity = def.model.gravity.as_ref().map(|g| scope.vec2(g)).transpose()?.unwrap_or([0.0, 0.0]);
    let mut b = Builder {
        model,
        scope,
        bodies: Vec::new(),
        beam_nodes: Vec::new(),
        floating: FloatingPoints::default(),
        contact_index: HashMap::new(),
        body_index: HashMap::with_capacity(def.point_masses.len() + def.rigid_bodies.len() + def.beams.len()),
        joint_index: HashMap::new(),
        beam_periods: Vec::new(),
        beam_segments: HashMap::new(),
    };

    // Sized for every declared name at once (no rehashing of a growing map).
    let declared = [
        def.inputs.len(),
        def.point_masses.len(),
        def.rigid_bodies.len(),
        def.beams.len(),
        def.joints.len(),
        def.springs.len(),
        def.contacts.len(),
        def.outputs.len(),
    ];
    let mut names = Names::with_capacity(declared.iter().sum());
    for (i, inp) in def.inputs.iter().enumerate() {
        check_name(model, &inp.name, "input", &mut names)?;
        if !inp.start.0.is_finite() {
            return Err(model.error(inp.name.span(), format!("input {i} start value must be finite")));
        }
    }

    // Coordinates: bodies in file order, kind by kind in the order of `BODY_KINDS`.
    let mut l = Layout {
        n: 0,
        q0: Vec::new(),
        v0: Vec::new(),
        specified: Vec::new(),
        bodies: Vec::new(),
        gravity,
        sys: System::new(0),
    };
    for build in BODY_KINDS {
        build(def, &mut b, &mut names, &mut l)?;
    }
    let Layout { n, q0, v0, specified, bodies: system_bodies, mut sys, .. } = l;
    if n == 0 {
        return Err(model.error(def.model.name.span(), "the model has no bodies".into()));
    }

    sys.set_coordinates(n);
    sys.bodies = system_bodies;
    sys.inputs = def.inputs.iter().map(|i| i.start.0).collect();

    // Parameters, `t` and the inputs: drives, spring free lengths and load magnitudes.
    let input_scope = model.scope(params).with_inputs(&input_names);

    // Joints.
    let mut joint_spans = Vec::new();
    for j in &def.joints {
        check_name(model, &j.name, "joint", &mut names)?;
        let (joint_type, build) = planar_type(j.kind.get_ref()).map_err(|m| model.error(j.kind.span(), m))?;
        let kind = joint_type.kind;
        let ground = Name::new(0..0, "ground".to_string());
        let body1 = j.body1.as_ref().unwrap_or(&ground);
        if body1.get_ref() == j.body2.get_ref() {
            return Err(model.error(j.body2.span(), same_bodies_message(j.body2.get_ref())));
        }
        if let Some(ax) = &j.axis2 {
            return Err(model.error(ax.span(), "`axis2` applies to spatial universal joints only".into()));
        }
        check_points(j, joint_type, body1.get_ref() == "ground", model)?;
        if let Some((rows, body2_x)) = floating_frame::joint(j, kind, body1, &b, &sys, &q0)? {
            let start = sys.constraints.len();
            sys.constraints.extend(rows);
            sys.joints.push(JointInfo {
                name: j.name.get_ref().clone(),
                kind,
                rows: start..sys.constraints.len(),
                body1_x: b.body(body1)?.map(|b1| b1.info.x),
                body2_x,
                body2_rotates: false,
                body2_point: None,
                coordinates: Vec::new(),
            });
            joint_spans.push(j.name.span());
            continue;
        }
        let b1 = b.body(body1)?;
        let b2 = b
            .body(&j.body2)?
            .ok_or_else(|| model.error(j.body2.span(), "body2 must not be ground (put ground in body1)".into()))?;
        if b1.is_some_and(|b1| b1.info.x == b2.info.x) {
            return Err(model.error(j.body2.span(), aliased_bodies_message(body1.get_ref(), j.body2.get_ref())));
        }
        let (a1, a2) = if joint_type.two_points {
            // A link between two points: each anchor at its own point (default: the body's
            // reference point); its row sees positions only, so any body1 will do.
            let (a1, a2) = (b.anchor(body1, j.point1.as_ref())?, b.anchor(&j.body2, j.point2.as_ref())?);
            check_apart(j, &a1.position(&q0), &a2.position(&q0), model)?;
            (a1, a2)
        } else {
            let point = match &j.point {
                Some(p) => b.scope.vec2(p)?,
                None => b2.position,
            };
            let pt =
                Vec2::new(j.point.as_ref().map_or(j.name.span(), |p| p.span()), vec![point[0].into(), point[1].into()]);
            let b1_director = b1.is_some_and(|b| b.info.director);
            if (b1.is_some_and(|b| !b.info.rotates)
                && kind != JointKind::Revolute
                && !(b1_director && kind == JointKind::Fixed))
                || (b1_director && kind == JointKind::Prismatic)
            {
                return Err(model.error(
                    body1.span(),
                    format!("body1 of a {} joint must be ground or a rigid body", j.kind.get_ref()),
                ));
            }
            let a1 = b.anchor(body1, Some(&pt))?;
            let a2 = match b2.info.rotates {
                true => b.anchor(&j.body2, Some(&pt))?,
                false if kind == JointKind::Prismatic => b.anchor(&j.body2, None)?,
                false => b.anchor(&j.body2, j.point.as_ref())?,
            };
            (a1, a2)
        };
        let axis = match (&j.axis, joint_type.planar_axis) {
            (Some(ax), true) => {
                let ax_global =
                    unit(b.scope.vec2(ax)?).ok_or_else(|| model.error(ax.span(), "axis must not be zero".into()))?;
                // into body 1's frame
                b1.map_or(ax_global, |bb| rot_t(bb.angle, ax_global))
            }
            (None, true) => {
                return Err(model.error(j.name.span(), format!("a {} joint needs `axis = [x, y]`", j.kind.get_ref())));
            }
            (Some(ax), _) => return Err(model.error(ax.span(), axis_only(false))),
            (None, _) => [1.0, 0.0],
        };
        let Rows { mut rows, coordinates } = build(a1, a2, axis, &q0);
        rows.extend(beam::rigid_section(model, j, kind, b2.section, a2, &q0)?);
        let held = held_length(j, joint_type, &b.scope, model)?;
        // The rheonomic row joint_coordinate(q) - f(t) = 0 (its multiplier is the drive's
        // force/torque, `drive_force`).
        if let Some(d) = &j.drive
            && joint_type.drive != Drive::No
            && kind == JointKind::Revolute
            && !b2.info.rotates
        {
            return Err(model.error(
                d.span(),
                "a driven revolute joint needs a body2 with an angle coordinate (a rigid body or a corotational beam \
                 node): the relative angle is its coordinate"
                    .into(),
            ));
        }
        let drives = drives(j, joint_type, coordinates.len(), false, &input_scope, t0, &mut sys, model)?;
        for (m, drive) in coordinates.iter().zip(drives) {
            rows.extend(coordinate_row(joint_type, m, drive, held, &q0));
        }
        let start = sys.constraints.len();
        sys.constraints.extend(rows);
        sys.joints.push(JointInfo {
            name: j.name.get_ref().clone(),
            kind,
            rows: start..sys.constraints.len(),
            body1_x: b1.map(|b1| b1.info.x),
            body2_x: b2.info.x,
            body2_rotates: b2.info.rotates,
            body2_point: None,
            coordinates,
        });
        joint_spans.push(j.name.span());
    }
    b.joint_index = sys.joints.iter().enumerate().map(|(i, j)| (j.name.clone(), i)).collect();

    // Spring-dampers.
    for s in &def.springs {
        check_name(model, &s.name, "spring", &mut names)?;
        let measure = super::springs::planar(s, model)?(s, &Site { b: &b, joints: &sys.joints, q0: &q0, tip: None })?;
        super::springs::push_element(s, measure, &input_scope, t0, model, &q0, &mut sys)?;
    }

    // Loads.
    for l in &def.loads {
        // The type first: a misspelt type on a beam's name was reported as an unknown body.
        let build = super::loads::planar(l, model)?;
        let magnitude = load_magnitude(l, &input_scope, model, &mut sys)?;
        if !super::loads::on_beam(l) {
            if let Some((point, u)) = floating_frame::load_point(l, &b, &sys, &q0)? {
                sys.push(Load::floating_force(point, u, magnitude));
                continue;
            }
            if b.body(&l.body)?.is_none() {
                return Err(model.error(l.body.span(), "loads on ground have no effect".into()));
            }
        }
        let site = Site { b: &b, joints: &sys.joints, q0: &q0, tip: None };
        for load in build(l, &site, magnitude)? {
            sys.push(load);
        }
    }

    // Contacts.
    let mut contact_warnings = Vec::new();
    for c in &def.contacts {
        check_name(model, &c.name, "contact", &mut names)?;
        match contact(c, &b, &sys, &q0)? {
            ContactElement::Force(f) => {
                contact_warnings.extend(super::contacts::deep_start_warning(c, &f, &q0, model));
                b.contact_index.entry(c.name.get_ref().clone()).or_insert(sys.contact_names.len());
                sys.push(f);
                sys.contact_names.push(c.name.get_ref().clone());
            }
            ContactElement::Constraint(k) => {
                sys.contact_constraints.push(k);
                sys.contact_constraint_names.push(c.name.get_ref().clone());
            }
        }
    }

    // Outputs.
    let mut outputs = Vec::new();
    for o in &def.outputs {
        check_name(model, &o.name, "output", &mut names)?;
        let kind = OutputKind::parse(o, &b, &sys)?;
        outputs.push(Output {
            name: o.name.get_ref().clone(),
            unit: kind.unit().to_string(),
            description: o.description.clone(),
            kind,
        });
    }

    sys.finish();
    let (initial, mut warnings) = consistent_initial_state(model, &mut sys, q0, v0, &specified, &joint_spans, t0)?;
    warnings.extend(contact_warnings);
    Ok(Assembly { system: sys, initial, outputs, input_names, warnings, beam_periods: b.beam_periods })
}

/// A `[[contacts]]` entry as a contact force element or a contact constraint: its geometry
/// from the table `CONTACT_TYPES` (src/mechanics/contacts/), its method from the shared keys.
/// The checks every planar contact shares, and body2 as a floating-frame beam point.
fn contact(
    c: &crate::model::schema::ContactDecl,
    b: &Builder,
    sys: &System,
    q0: &[f64],
) -> Result<ContactElement, ModelError> {
    let model = b.model;
    let body1 = super::contacts::body1(c);
    if body1.get_ref() == c.body2.get_ref() {
        return Err(model.error(c.body2.span(), "a contact needs two different bodies".into()));
    }
    let tip = floating_frame::contact_body2(c, &body1, b, sys, q0)?;
    let site = Site { b, joints: &sys.joints, q0, tip };
    let geometry = super::contacts::planar(c, model)?(c, &site)?;
    super::contacts::element(c, geometry, &b.scope, model, q0)
}

impl OutputKind {
    fn parse(o: &crate::model::schema::OutputDecl, b: &Builder, sys: &System) -> Result<OutputKind, ModelError> {
        let model = b.model;
        let q = o.quantity.get_ref().as_str();
        let quantity = output_quantities::lookup(q, 2);
        if let Some(kind) = floating_frame::tip_output(o, b)? {
            return Ok(kind);
        }
        let need_body = || -> Result<(&BodyEntry, Anchor), ModelError> {
            let name = o
                .body
                .as_ref()
                .ok_or_else(|| model.error(o.quantity.span(), format!("output quantity '{q}' needs `body`")))?;
            let entry = b.body(name)?.ok_or_else(|| model.error(name.span(), "ground does not move".into()))?;
            Ok((entry, b.anchor(name, o.point.as_ref())?))
        };
        let need_joint = || -> Result<usize, ModelError> {
            let name = o
                .joint
                .as_ref()
                .ok_or_else(|| model.error(o.quantity.span(), format!("output quantity '{q}' needs `joint`")))?;
            b.joint_index
                .get(name.get_ref())
                .copied()
                .ok_or_else(|| model.error(name.span(), format!("unknown joint '{}'", name.get_ref())))
        };
        let need_rotation = |e: &BodyEntry| -> Result<usize, ModelError> {
            if e.info.rotates {
                Ok(e.info.x + 2)
            } else {
                Err(model
                    .error(o.quantity.span(), format!("'{q}' needs a rigid body; '{}' is a point mass", e.info.name)))
            }
        };
        if let Some(c) = o.chord.as_ref().filter(|_| quantity != Some(Quantity::TransverseDeflection)) {
            return Err(model.error(c.span(), "`chord` applies only to quantity = \"transverse_deflection\"".into()));
        }
        if let Some(f) = o.frame.as_ref().filter(|_| !matches!(quantity, Some(Quantity::Point { order: 0, .. }))) {
            return Err(model.error(f.span(), format!("`frame` applies only to positions (x, y), not '{q}'")));
        }
        if let Some(kind) = parse_shared(o, quantity, sys, model, &b.joint_index, &b.contact_index)? {
            return Ok(kind);
        }
        Ok(match quantity {
            Some(Quantity::Point { component, order: 0 }) if o.frame.is_some() => {
                let (_, point) = need_body()?;
                let frame = b.frame(o.frame.as_ref().expect("checked by the guard"))?;
                OutputKind::PointInFrame { point, frame, component }
            }
            Some(Quantity::Point { component, order }) => {
                let (_, anchor) = need_body()?;
                OutputKind::Point { anchor, component, order }
            }
            Some(Quantity::Rotation { order }) => {
                let (e, anchor) = need_body()?;
                if e.info.director {
                    OutputKind::SectionAngle { anchor, order }
                } else {
                    OutputKind::Rotation { theta: need_rotation(e)?, order }
                }
            }
            Some(Quantity::Reaction { component }) => {
                let j = need_joint()?;
                if component == 2 && !sys.joints[j].body2_rotates {
                    let message = "reaction_torque needs a body2 with an angle coordinate (a rigid body or a \
                                   corotational beam node), not a point mass or an ANCF node";
                    return Err(model.error(o.quantity.span(), message.into()));
                }
                OutputKind::Reaction { joint: j, component }
            }
            Some(Quantity::TransverseDeflection) => {
                let (_, point) = need_body()?;
                let Some(chord) = &o.chord else {
                    return Err(model.error(o.quantity.span(), "transverse_deflection needs `chord = [\"body_a\", \"body_b\"]`, the bodies whose reference points span the chord".into()));
                };
                let [a, b_] = chord.get_ref().as_slice() else {
                    return Err(model.error(
                        chord.span(),
                        format!("chord needs exactly two bodies, got {}", chord.get_ref().len()),
                    ));
                };
                let ends = [b.anchor(a, None)?, b.anchor(b_, None)?];
                if ends.iter().all(|e| e.dofs().is_empty()) || (ends[0] == ends[1]) {
                    return Err(
                        model.error(chord.span(), "the chord needs two different points, not both on ground".into())
                    );
                }
                OutputKind::TransverseDeflection { point, chord: ends }
            }
            Some(Quantity::SectionForce { component }) => {
                let (e, _) = need_body()?;
                if let Some(p) = &o.point {
                    return Err(model.error(p.span(), format!("'{q}' is the section's at the beam node: no `point`")));
                }
                let name = o.body.as_ref().expect("need_body checked it");
                section_output(sys, e.info.x, &e.info.name, component).map_err(|m| model.error(name.span(), m))?
            }
            // Not in the planar table (the shared quantities were built above).
            _ => return Err(model.error(o.quantity.span(), output_quantities::unknown(q, 2))),
        })
    }
}
