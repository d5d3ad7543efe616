//! Output variables: kinematics of body points, joint reactions and coordinates, angular
//! momentum, energies.

use super::System;
use super::derivatives::quadratic_form;
use super::elements::{FloatingFrameBeam2d, Kin};
use super::forces::{Contact, MultiPointForce};
use super::joints::{JointInfo, JointKind, coordinate_types, pick_coordinate};
use super::kinematics::Anchor;
use super::output_quantities::Quantity;
use super::spatial_kinematics::Anchor3;
use super::{momentum, reactions};
use crate::integrators::EnergyFlow;
use crate::model::schema::OutputDecl;
use crate::model::{Model, ModelError};
use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq)]
pub enum OutputKind {
    /// Position (order 0), velocity (1) or acceleration (2) of a body point; component 0 = x, 1 = y.
    Point {
        anchor: Anchor,
        component: usize,
        order: usize,
    },
    /// Position of a body point in the frame of a rotating body (rigid body or corotational
    /// beam node) whose coordinates (x, y, theta) start at `frame`: R(theta)^T (r_P - r_F),
    /// component 0 = x, 1 = y (e.g. a beam tip's deflection in a rotating hub's frame).
    PointInFrame {
        point: Anchor,
        frame: usize,
        component: usize,
    },
    /// Rotation angle (continuous), angular velocity or acceleration of a rigid body.
    Rotation {
        theta: usize,
        order: usize,
    },
    /// Section angle of an ANCF beam node from its slope (paper 003 eq. 4), its rate or
    /// second derivative.
    SectionAngle {
        anchor: Anchor,
        order: usize,
    },
    /// Force (x, y) and torque (about body 2's reference point) exerted by body 1 on body 2.
    Reaction {
        joint: usize,
        component: usize,
    },
    /// Force (prismatic) or torque (revolute) a driven joint's drive applies along its joint
    /// coordinate, on body 2 (the opposite on body 1): -lambda of the driving row, since the
    /// constraint force is -Phi_q^T lambda and Phi_q is the coordinate's gradient.
    DriveForce {
        row: usize,
        torque: bool,
    },
    /// Tension of a distance joint, positive pulling its points together: +lambda of its row
    /// |P2 - P1| - L, whose gradient on body 2's point is the unit direction u, so the force
    /// on body 2 is -lambda u (src/mechanics/joints/distance.rs). A driven joint's
    /// `drive_force` is its opposite.
    LinkForce {
        row: usize,
    },
    /// Slider displacement / relative angle of a joint (order 0) or its rate (1): its
    /// coordinate `coordinate` (an index into `JointInfo::coordinates`); a driven spatial
    /// angle is continuous (drive(t) + wrapped residual).
    JointCoordinate {
        joint: usize,
        coordinate: usize,
        order: usize,
    },
    /// Normal force (0), penetration (1, negative: the gap), state (2: 1 in contact, else 0)
    /// or time of the latest contact onset (3: impact time, -1 before any) of a contact.
    Contact {
        contact: usize,
        quantity: usize,
    },
    /// Position (order 0), velocity (1) or acceleration (2) of a point of a spatial body;
    /// component 0..3 = x, y, z.
    SpatialPoint {
        anchor: Anchor3,
        component: usize,
        order: usize,
    },
    /// Position of a point of a spatial body in the frame of the spatial body whose coordinates
    /// (r, p) start at `frame`: A(p)^T (r_P - r), component 0..3 = x, y, z of that body's axes.
    SpatialPointInFrame {
        anchor: Anchor3,
        frame: usize,
        component: usize,
    },
    /// Force of body 1 on body 2 of a spatial joint, global component 0..3 (x, y, z).
    SpatialReaction {
        joint: usize,
        component: usize,
    },
    /// Moment of body 1 on body 2 of a spatial joint about the joint point carried by body 2
    /// (`point`, body 2's anchor there), global component 0..3 (src/mechanics/reactions.rs).
    SpatialReactionTorque {
        joint: usize,
        point: Anchor3,
        component: usize,
    },
    /// Angular momentum about the global origin, global component 0..3, of one body with mass
    /// of its own (a rigid body, plate patch or point mass) or, for `None`, of the whole model
    /// (src/mechanics/momentum.rs).
    AngularMomentum {
        body: Option<momentum::BodyMass>,
        component: usize,
    },
    /// One Euler parameter (global coordinate index).
    EulerParameter {
        index: usize,
    },
    /// Global angular velocity omega = 2 E(p) p' of the spatial body at `x`, one component
    /// (order 0), or its angular acceleration 2 E(p) p'' (order 1: E(p') p' = 0, each row of
    /// E(p) is skew in p).
    SpatialAngularVelocity {
        x: usize,
        component: usize,
        order: usize,
    },
    /// Angular velocity of the spatial body at `x` in its own frame, omega' = 2 G(p) p'
    /// (one component; order 0), or its rate 2 G(p) p'' (order 1: G(p') p' = 0).
    SpatialBodyAngularVelocity {
        x: usize,
        component: usize,
        order: usize,
    },
    /// Orientation of the spatial body at `x` as intrinsic z-y'-x'' Tait-Bryan angles, A(p) =
    /// Rz(yaw) Ry(pitch) Rx(roll): component 0 yaw, 1 pitch, 2 roll.
    TaitBryan {
        x: usize,
        component: usize,
    },
    /// The same quantities of a contact constraint: its multiplier (the contact force, eq.
    /// 5a) while active, else 0; penetration; 1 while active.
    ContactConstraint {
        contact: usize,
        quantity: usize,
    },
    /// Tip of a floating-frame beam: x (0), y (1) or section rotation theta + Phi_y'(L) B (2);
    /// x and y in the axes of the rotating body whose coordinates (x, y, theta) start at
    /// `frame`, if given (as `PointInFrame`).
    FloatingFrameTip {
        beam: usize,
        quantity: usize,
        frame: Option<usize>,
    },
    /// Signed distance of a body point from the chord through two other points, positive to
    /// the left of the chord's direction (paper 003 Fig. 18: transverse deformation of the
    /// rod's midpoint P relative to the line A-B).
    TransverseDeflection {
        point: Anchor,
        chord: [Anchor; 2],
    },
    /// Force of a plate's multi-point element on its reference (the support when clamped),
    /// paper 001 eq. 13, global component 0..3.
    SupportForce {
        element: usize,
        component: usize,
    },
    /// A stress resultant of a beam at an element end (src/mechanics/section_forces.rs): the
    /// element kind, the elements that end and start there; component 0..6 of (N, Vy, Vz, T, My, Mz) (a
    /// planar beam's N, V, M are 0, 1 and 5: its plane is the x-y plane).
    SectionForce {
        beam: super::section_forces::SectionBeam,
        elements: [Option<usize>; 2],
        component: usize,
    },
    EnergyTotal,
    EnergyKinetic,
    EnergyPotential,
    EnergyDissipated,
    EnergySupplied,
}

impl OutputKind {
    pub fn unit(&self) -> &'static str {
        match self {
            OutputKind::Point { order, .. } => ["m", "m/s", "m/s2"][*order],
            OutputKind::PointInFrame { .. } | OutputKind::SpatialPointInFrame { .. } => "m",
            OutputKind::Rotation { order, .. } | OutputKind::SectionAngle { order, .. } => {
                ["rad", "rad/s", "rad/s2"][*order]
            }
            OutputKind::Reaction { component, .. } => ["N", "N", "N.m"][*component],
            OutputKind::DriveForce { torque, .. } => ["N", "N.m"][usize::from(*torque)],
            OutputKind::LinkForce { .. } => "N",
            OutputKind::SpatialReaction { .. } | OutputKind::SupportForce { .. } => "N",
            OutputKind::SpatialReactionTorque { .. } => "N.m",
            OutputKind::AngularMomentum { .. } => "kg.m2/s",
            OutputKind::JointCoordinate { .. } | OutputKind::EulerParameter { .. } => "",
            OutputKind::SpatialPoint { order, .. } => ["m", "m/s", "m/s2"][*order],
            OutputKind::SpatialAngularVelocity { order, .. } | OutputKind::SpatialBodyAngularVelocity { order, .. } => {
                ["rad/s", "rad/s2"][*order]
            }
            OutputKind::TaitBryan { .. } => "rad",
            OutputKind::Contact { quantity, .. } | OutputKind::ContactConstraint { quantity, .. } => {
                ["N", "m", "", "s"][*quantity]
            }
            OutputKind::FloatingFrameTip { quantity, .. } => ["m", "m", "rad"][*quantity],
            OutputKind::TransverseDeflection { .. } => "m",
            OutputKind::SectionForce { component, .. } => ["N", "N", "N", "N.m", "N.m", "N.m"][*component],
            _ => "J",
        }
    }

    /// Whether the output is a function of the configuration q alone (a position, an angle, a
    /// joint coordinate, an Euler parameter, a deflection, a contact's penetration): not of
    /// velocities, accelerations, multipliers, the active set or the history.
    pub fn is_configuration(&self) -> bool {
        match self {
            OutputKind::Point { order, .. }
            | OutputKind::Rotation { order, .. }
            | OutputKind::SectionAngle { order, .. }
            | OutputKind::JointCoordinate { order, .. }
            | OutputKind::SpatialPoint { order, .. } => *order == 0,
            OutputKind::Contact { quantity, .. } => matches!(quantity, 1 | 2),
            OutputKind::ContactConstraint { quantity, .. } => *quantity == 1,
            OutputKind::EulerParameter { .. }
            | OutputKind::TaitBryan { .. }
            | OutputKind::PointInFrame { .. }
            | OutputKind::SpatialPointInFrame { .. }
            | OutputKind::FloatingFrameTip { .. }
            | OutputKind::TransverseDeflection { .. } => true,
            _ => false,
        }
    }

    /// Whether the output is 0 at the start whatever the parameters and inputs: the energy
    /// dissipated and supplied since the start (inputs set before the first step supply
    /// nothing: `Simulation::set_initial_inputs`).
    pub fn zero_at_start(&self) -> bool {
        matches!(self, OutputKind::EnergyDissipated | OutputKind::EnergySupplied)
    }

    /// Whether the output is piecewise constant, changing only at contact events: a contact's
    /// state (0/1) and the time of its latest onset (declared `variability="discrete"`, so that
    /// a master does not interpolate them as continuous signals).
    pub fn is_discrete(&self) -> bool {
        matches!(
            self,
            OutputKind::Contact { quantity: 2 | 3, .. } | OutputKind::ContactConstraint { quantity: 2 | 3, .. }
        )
    }

    /// Whether the output reads the potential energy, which an element storing an energy of
    /// the current inputs (a spring whose free length reads them) makes depend on them directly;
    /// the supplied energy changes with it (`Simulation::set_input`).
    pub fn reads_potential_energy(&self) -> bool {
        matches!(self, OutputKind::EnergyTotal | OutputKind::EnergyPotential | OutputKind::EnergySupplied)
    }

    /// Whether evaluating needs accelerations and multipliers consistent with (q, v).
    pub fn needs_accelerations(&self) -> bool {
        matches!(
            self,
            OutputKind::Point { order: 2, .. }
                | OutputKind::Rotation { order: 2, .. }
                | OutputKind::SectionAngle { order: 2, .. }
                | OutputKind::JointCoordinate { order: 2, .. }
                | OutputKind::SpatialPoint { order: 2, .. }
                | OutputKind::Reaction { .. }
                | OutputKind::DriveForce { .. }
                | OutputKind::LinkForce { .. }
                | OutputKind::SpatialReaction { .. }
                | OutputKind::SpatialReactionTorque { .. }
                | OutputKind::ContactConstraint { quantity: 0, .. }
                | OutputKind::SpatialAngularVelocity { order: 1, .. }
                | OutputKind::SpatialBodyAngularVelocity { order: 1, .. }
                | OutputKind::SectionForce { .. }
        )
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    pub name: String,
    pub unit: String,
    pub description: String,
    pub kind: OutputKind,
}

/// The state outputs are evaluated at.
pub struct OutputState<'a> {
    pub q: &'a [f64],
    pub v: &'a [f64],
    pub a: &'a [f64],
    pub lambda: &'a [f64],
    pub t: f64,
    /// Energy dissipated and supplied since the start.
    pub exchanged: EnergyFlow,
    /// The inputs the state's drives follow (at t, with the system's input rates): a driven
    /// spatial angle is reported on the branch of its drive at these. Those the last interval
    /// ended on (`Simulation::drive_ends`): an input set since moves no joint until a step
    /// takes it there, so it must not turn the reported angle by whole turns either (a probe
    /// read a crane's slew angle 2 pi, then 1592 turns, off after setting its command).
    pub drive_inputs: &'a [f64],
}

/// The output quantities that mean the same in planar and spatial models, built once for
/// both assemblers (energies, joint coordinates, drive forces, contact quantities) from the
/// `quantity` looked up in `OUTPUT_QUANTITIES`; `None` for the others, which each assembler
/// builds itself (`OutputKind::parse` in assemble/mod.rs, `output_kind` in
/// assemble_spatial.rs). Called where the assemblers' own quantities are matched, after their
/// checks of `body`, `frame` and `chord`. `joints` and `contacts` map
/// the names of `sys.joints` and of the contact force elements (`sys.contact_names`, first
/// of each name) to their indices, so parsing stays linear in the model's size.
pub fn parse_shared(
    o: &OutputDecl,
    quantity: Option<Quantity>,
    sys: &System,
    model: &Model,
    joints: &HashMap<String, usize>,
    contacts: &HashMap<String, usize>,
) -> Result<Option<OutputKind>, ModelError> {
    let q = o.quantity.get_ref().as_str();
    let need_joint = || -> Result<usize, ModelError> {
        let name = o
            .joint
            .as_ref()
            .ok_or_else(|| model.error(o.quantity.span(), format!("output quantity '{q}' needs `joint`")))?;
        joints
            .get(name.get_ref())
            .copied()
            .ok_or_else(|| model.error(name.span(), format!("unknown joint '{}'", name.get_ref())))
    };
    if let Some(c) = o
        .coordinate
        .as_ref()
        .filter(|_| quantity.is_some_and(|k| !matches!(k, Quantity::JointCoordinate { .. } | Quantity::DriveForce)))
    {
        return Err(model.error(
            c.span(),
            format!("`coordinate` applies to joint_position, joint_velocity and drive_force, not '{q}'"),
        ));
    }
    // The coordinate of joint `j` the output names (`joints::pick_coordinate`).
    let pick = |j: &JointInfo| {
        let at = o.joint.as_ref().map_or(o.quantity.span(), |n| n.span());
        pick_coordinate(j, o.coordinate.as_ref(), at, model)
    };
    let Some(quantity) = quantity else { return Ok(None) };
    Ok(Some(match quantity {
        Quantity::JointCoordinate { order } => {
            let joint = need_joint()?;
            let j = &sys.joints[joint];
            if j.coordinates.is_empty() {
                // A revolute joint without one is at a floating-frame beam point (planar).
                let msg = if j.kind == JointKind::Revolute {
                    format!(
                        "{q} is not available for a joint at a floating_frame beam point (its section angle is not a joint coordinate)"
                    )
                } else {
                    format!("{q} needs a joint with a coordinate: {}", coordinate_types(sys.spatial))
                };
                return Err(model.error(o.quantity.span(), msg));
            }
            OutputKind::JointCoordinate { joint, coordinate: pick(j)?, order }
        }
        Quantity::DriveForce => {
            let j = &sys.joints[need_joint()?];
            let driven = |r: usize| sys.constraints[r].drive.is_some();
            if !j.rows.clone().any(driven) {
                return Err(model.error(o.quantity.span(), "drive_force needs a driven joint (`drive = ...`)".into()));
            }
            let k = pick(j)?;
            let Some(row) = j.drive_row(k, &sys.constraints) else {
                let name = j.kind.coordinates()[k].name;
                let span = o.coordinate.as_ref().map_or(o.quantity.span(), |c| c.span());
                return Err(model.error(span, format!("coordinate '{name}' of joint '{}' is not driven", j.name)));
            };
            OutputKind::DriveForce { row, torque: j.coordinate_kind(k).is_some_and(|c| !c.linear()) }
        }
        Quantity::LinkForce => {
            let j = &sys.joints[need_joint()?];
            if j.kind != JointKind::Distance {
                let span = o.joint.as_ref().map_or(o.quantity.span(), |n| n.span());
                return Err(model.error(span, "link_force needs a distance joint".into()));
            }
            // Its one row, held at its length or driven.
            OutputKind::LinkForce { row: j.rows.start }
        }
        Quantity::Contact { quantity } => {
            let name = o
                .contact
                .as_ref()
                .ok_or_else(|| model.error(o.quantity.span(), format!("output quantity '{q}' needs `contact`")))?;
            let constraint = sys.contact_constraint_names.iter().position(|c| c == name.get_ref());
            match (constraint, contacts.get(name.get_ref()).copied()) {
                (Some(contact), _) => OutputKind::ContactConstraint { contact, quantity },
                (None, Some(contact)) => OutputKind::Contact { contact, quantity },
                (None, None) => {
                    let known: Vec<_> =
                        sys.contact_names.iter().chain(&sys.contact_constraint_names).cloned().collect();
                    return Err(model.error(
                        name.span(),
                        format!("unknown contact '{}' (known: {})", name.get_ref(), known.join(", ")),
                    ));
                }
            }
        }
        Quantity::EnergyTotal => OutputKind::EnergyTotal,
        Quantity::EnergyKinetic => OutputKind::EnergyKinetic,
        Quantity::EnergyPotential => OutputKind::EnergyPotential,
        Quantity::EnergyDissipated => OutputKind::EnergyDissipated,
        Quantity::EnergySupplied => OutputKind::EnergySupplied,
        _ => return Ok(None),
    }))
}

impl Output {
    pub fn eval(&self, sys: &System, s: &OutputState) -> f64 {
        self.kind.eval(sys, s)
    }
}

impl OutputKind {
    /// Whether the output reads the inputs itself, not only through the motion: a section
    /// force holds the element's distributed loads, whose magnitudes may read them
    /// (`eval_with_inputs`). Not the energies, which `reads_potential_energy` names.
    pub fn reads_inputs(&self) -> bool {
        matches!(self, OutputKind::SectionForce { .. })
    }

    /// `eval` with the inputs `inputs` in place of the system's where the output reads them
    /// itself (`reads_inputs`); the others' value.
    pub fn eval_with_inputs(&self, sys: &System, s: &OutputState, inputs: &[f64]) -> f64 {
        match self {
            OutputKind::SectionForce { beam, elements, component } => {
                let x = Kin { q: s.q, v: s.v, a: s.a, t: s.t, inputs, rates: &sys.input_rates };
                super::section_forces::section_force(sys, *beam, elements, *component, &x)
            }
            _ => self.eval(sys, s),
        }
    }

    /// The output's value at the state `s`.
    pub fn eval(&self, sys: &System, s: &OutputState) -> f64 {
        match self {
            OutputKind::Point { anchor, component, order } => {
                let c = *component;
                match (order, anchor) {
                    (0, _) => anchor.position(s.q)[c],
                    (1, _) => anchor.velocity(s.q, s.v)[c],
                    (_, Anchor::Ground { .. }) => 0.0,
                    (_, Anchor::Point { x } | Anchor::Director { x, .. }) => s.a[x + c],
                    (_, Anchor::Rigid { x, .. }) => {
                        let x = *x;
                        let p = anchor.position(s.q);
                        let arm = [p[0] - s.q[x], p[1] - s.q[x + 1]];
                        let (w, alpha) = (s.v[x + 2], s.a[x + 2]);
                        let perp = [-arm[1], arm[0]];
                        s.a[x + c] + perp[c] * alpha - arm[c] * w * w
                    }
                }
            }
            OutputKind::PointInFrame { point, frame, component } => {
                in_frame(point.position(s.q), *frame, s.q)[*component]
            }
            OutputKind::Rotation { theta, order } => [s.q, s.v, s.a][*order][*theta],
            OutputKind::SectionAngle { anchor, order } => {
                if *order == 0 {
                    return anchor.angle(s.q);
                }
                let dofs = anchor.dof_range();
                let (g, h) = anchor.angle_derivatives(s.q);
                let mut r = 0.0;
                for (a, i) in dofs.clone().enumerate() {
                    r += g[a] * if *order == 1 { s.v[i] } else { s.a[i] };
                    if *order == 2 {
                        for (b, j) in dofs.clone().enumerate() {
                            r += h[4 * a + b] * s.v[i] * s.v[j];
                        }
                    }
                }
                r
            }
            OutputKind::Reaction { joint, component } | OutputKind::SpatialReaction { joint, component } => {
                let j = &sys.joints[*joint];
                let [f] = reactions::generalized_force::<1>(sys, j, j.body2_x + component, s.q, s.lambda);
                f
            }
            OutputKind::SpatialReactionTorque { joint, point, component } => {
                reactions::spatial_moment(sys, &sys.joints[*joint], point, s.q, s.lambda)[*component]
            }
            OutputKind::AngularMomentum { body, component } => {
                momentum::angular_momentum(sys, *body, s.q, s.v)[*component]
            }
            OutputKind::DriveForce { row, .. } => -s.lambda[*row],
            OutputKind::LinkForce { row } => s.lambda[*row],
            OutputKind::JointCoordinate { joint, coordinate, order } => {
                let j = &sys.joints[*joint];
                let m = &j.coordinates[*coordinate];
                match order {
                    // A driven spatial angle (atan2, wrapped to (-pi, pi]) is reported on the
                    // branch of the drive: continuous over any number of turns.
                    0 => match j.drive_row(*coordinate, &sys.constraints) {
                        Some(r) => sys.constraints[r].driven_coordinate(s.q, s.t, s.drive_inputs, &sys.input_rates),
                        None => m.value(s.q),
                    },
                    1 => m.rate(s.q, s.v),
                    // s'' = G a + v^T H v (the measure's exact gradient and Hessian).
                    _ => {
                        let d = m.derivatives(s.q);
                        let dofs = m.dofs();
                        let linear: f64 = dofs.iter().enumerate().map(|(k, &i)| d.gradient[k] * s.a[i]).sum();
                        linear + quadratic_form(dofs, &d.hessian[..dofs.len() * dofs.len()], s.v)
                    }
                }
            }
            OutputKind::Contact { contact, quantity } => {
                let c = &sys.elements::<Contact>()[*contact];
                let f = c.evaluate(s.q, s.v);
                match quantity {
                    0 => f.force,
                    1 => f.penetration,
                    3 => c.memory().onset,
                    _ => f64::from(u8::from(f.penetration > 0.0)),
                }
            }
            OutputKind::SpatialPoint { anchor, component, order } => match order {
                0 => anchor.position(s.q)[*component],
                1 => anchor.velocity(s.q, s.v)[*component],
                _ => anchor.acceleration(s.q, s.v, s.a)[*component],
            },
            OutputKind::SpatialPointInFrame { anchor, frame, component } => {
                let (p, f) = (anchor.position(s.q), *frame);
                let d = [p[0] - s.q[f], p[1] - s.q[f + 1], p[2] - s.q[f + 2]];
                let a = super::euler_parameters::rotation(&s.q[f + 3..f + 7]);
                super::euler_parameters::mat_t_vec(&a, d)[*component]
            }
            OutputKind::EulerParameter { index } => s.q[*index],
            OutputKind::SpatialAngularVelocity { x, component, order } => {
                let e = super::euler_parameters::e_matrix(&s.q[x + 3..x + 7]);
                let rate = if *order == 0 { s.v } else { s.a };
                2.0 * (0..4).map(|k| e[*component][k] * rate[x + 3 + k]).sum::<f64>()
            }
            OutputKind::SpatialBodyAngularVelocity { x, component, order } => {
                let g = super::euler_parameters::g_matrix(&s.q[x + 3..x + 7]);
                let rate = if *order == 0 { s.v } else { s.a };
                2.0 * (0..4).map(|k| g[*component][k] * rate[x + 3 + k]).sum::<f64>()
            }
            OutputKind::TaitBryan { x, component } => {
                // A = Rz(yaw) Ry(pitch) Rx(roll): A31 = -sin(pitch), A21/A11 = tan(yaw),
                // A32/A33 = tan(roll); A(p) is scaled by p.p off the unit sphere.
                let p = &s.q[x + 3..x + 7];
                let a = super::euler_parameters::rotation(p);
                let norm = p.iter().map(|e| e * e).sum::<f64>();
                // At pitch = +-pi/2 (gimbal lock) only yaw -+ roll is defined, and A11, A21, A32,
                // A33 (all ~cos(pitch)) are round-off whose ratios are no angles (a probe read
                // yaw and roll 0.44 rad off the body's rotation): there roll = 0 and the yaw
                // that A12 = -sin(yaw), A22 = cos(yaw) give. The threshold keeps the general
                // formulas' error (round-off / cos(pitch)) below 1e-8 rad; the locked branch's
                // is O(cos(pitch)).
                let locked = a[0][0].hypot(a[1][0]) < GIMBAL_LOCK * norm;
                match component {
                    0 if locked => (-a[0][1]).atan2(a[1][1]),
                    0 => a[1][0].atan2(a[0][0]),
                    1 => (-a[2][0] / norm).clamp(-1.0, 1.0).asin(),
                    _ if locked => 0.0,
                    _ => a[2][1].atan2(a[2][2]),
                }
            }
            OutputKind::ContactConstraint { contact, quantity } => {
                let c = &sys.contact_constraints[*contact];
                match quantity {
                    0 if c.is_active() => s.lambda[sys.contact_constraint_row(*contact)],
                    0 => 0.0,
                    1 => c.penetration(s.q),
                    3 => c.memory().onset,
                    _ => f64::from(u8::from(c.is_active())),
                }
            }
            OutputKind::FloatingFrameTip { beam, quantity, frame } => {
                let (p, angle) = sys.elements::<FloatingFrameBeam2d>()[*beam].tip_pose(s.q);
                match frame {
                    Some(f) if *quantity < 2 => in_frame(p, *f, s.q)[*quantity],
                    _ => [p[0], p[1], angle][*quantity],
                }
            }
            OutputKind::TransverseDeflection { point, chord } => {
                let (p, a, b) = (point.position(s.q), chord[0].position(s.q), chord[1].position(s.q));
                let u = [b[0] - a[0], b[1] - a[1]];
                let n = (u[0] * u[0] + u[1] * u[1]).sqrt();
                // (b - a) x (p - a) / |b - a|; zero chord length: no direction, report 0.
                if n > 0.0 { (u[0] * (p[1] - a[1]) - u[1] * (p[0] - a[0])) / n } else { 0.0 }
            }
            OutputKind::SectionForce { .. } => self.eval_with_inputs(sys, s, &sys.inputs),
            OutputKind::SupportForce { element, component } => {
                sys.elements::<MultiPointForce>()[*element].reference_force(s.q, s.v)[*component]
            }
            OutputKind::EnergyTotal => {
                let e = sys.energy(s.q, s.v, s.t);
                e.kinetic + e.potential
            }
            OutputKind::EnergyKinetic => sys.energy(s.q, s.v, s.t).kinetic,
            OutputKind::EnergyPotential => sys.energy(s.q, s.v, s.t).potential,
            OutputKind::EnergyDissipated => s.exchanged.dissipated,
            OutputKind::EnergySupplied => s.exchanged.supplied,
        }
    }
}

/// The point `p` in the axes of the planar body whose coordinates (x, y, theta) start at `f`:
/// R(theta)^T (p - r).
fn in_frame(p: [f64; 2], f: usize, q: &[f64]) -> [f64; 2] {
    let d = [p[0] - q[f], p[1] - q[f + 1]];
    let (sin, cos) = q[f + 2].sin_cos();
    [cos * d[0] + sin * d[1], -sin * d[0] + cos * d[1]]
}

/// cos(pitch) below which yaw/pitch/roll are taken as at gimbal lock (`OutputKind::TaitBryan`).
const GIMBAL_LOCK: f64 = 1e-8;
