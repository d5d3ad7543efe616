//! What an animation of a model needs: which bodies, beams and contacts there are (the scene,
//! fixed for a run) and their coordinates at one time (a frame). Written by
//! `flexfmu simulate --states` and played by `flexfmu animate` (docs/cli.md, "States file").

use serde::Serialize;

use crate::mechanics::System;
use crate::mechanics::elements::{FloatingFrameBeam2d, FloatingFramePoint};
use crate::mechanics::forces::Contact;
use crate::mechanics::kinematics::Anchor;
use crate::mechanics::outputs::{Output, OutputKind};
use crate::mechanics::spatial_kinematics::Anchor3;
use crate::model::{Model, ModelError};

/// Points sampled along a floating-frame beam's axis for its drawn curve.
const FLOATING_FRAME_SAMPLES: usize = 16;

/// The fixed description of what moves.
#[derive(Debug, Clone, Serialize)]
pub struct Scene {
    /// 2 (planar) or 3 (spatial).
    pub dimension: usize,
    pub bodies: Vec<SceneBody>,
    pub beams: Vec<SceneBeam>,
    pub contacts: Vec<SceneContact>,
    /// Ground planes of contacts (planar models): a point and the unit normal to the free side.
    pub ground_planes: Vec<GroundPlane>,
    #[serde(skip)]
    floating_points: Vec<Vec<FloatingFramePoint>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SceneBody {
    pub name: String,
    /// "point_mass" (state x, y; in a spatial model x, y, z), "rigid_body" (x, y, theta) or
    /// "spatial_body" (x, y, z, e0, e1, e2, e3: centre of mass and Euler parameters).
    pub kind: &'static str,
    /// Radius of the circle a contact gives the body (m), if any: its drawn shape.
    pub radius: Option<f64>,
    #[serde(skip)]
    first: usize,
    #[serde(skip)]
    size: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct SceneBeam {
    pub name: String,
    /// "corotational" (node state x, y, theta), "ancf" (x, y, dx/dy, dy/dy at element ends and
    /// middles) or "floating_frame" (one node: the frame x0, y0, theta, then the modal
    /// coordinates).
    pub formulation: &'static str,
    /// Node names in the order of a frame's `nodes` (`arm.node[0]`, `arm.mid[0]`, ...).
    pub nodes: Vec<String>,
    /// Consecutive node pairs joined by an element (indices into `nodes`).
    pub elements: Vec<[usize; 2]>,
    #[serde(skip)]
    node_coordinates: Vec<(usize, usize)>,
    /// Index among the system's floating-frame beams, for a floating-frame beam.
    #[serde(skip)]
    floating: Option<usize>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SceneContact {
    pub name: String,
    /// "force" or "constraint".
    pub method: &'static str,
    /// The bodies in contact ("ground" for the ground).
    pub body1: String,
    pub body2: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct GroundPlane {
    pub point: [f64; 2],
    pub normal: [f64; 2],
}

/// The state of the scene at one time.
#[derive(Debug, Clone, Serialize)]
pub struct SceneFrame {
    pub t: f64,
    /// Per body, its coordinates (see `SceneBody::kind`).
    pub bodies: Vec<Vec<f64>>,
    pub beams: Vec<BeamFrame>,
    /// Per contact: true while in contact (penetration > 0, or the constraint active).
    pub contacts: Vec<bool>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BeamFrame {
    /// Per node, its coordinates (see `SceneBeam::formulation`).
    pub nodes: Vec<Vec<f64>>,
    /// The deformed axis as a polyline (x, y): the node positions, or points sampled along a
    /// floating-frame beam.
    pub curve: Vec<[f64; 2]>,
}

impl Scene {
    /// The scene of `system`, assembled from `model` with `params`.
    pub(crate) fn new(model: &Model, params: &[f64], system: &System) -> Result<Scene, ModelError> {
        let def = &model.definition;
        let spatial = def.model.dimension.as_ref().is_some_and(|d| d.get_ref().0 == 3);
        let scope = model.scope(params);
        let mut bodies = Vec::new();
        if spatial {
            for b in &system.bodies {
                let (kind, size) = if b.rotates { ("spatial_body", 7) } else { ("point_mass", 3) };
                bodies.push(SceneBody { name: b.name.clone(), kind, radius: None, first: b.x, size });
            }
        } else {
            for pm in &def.point_masses {
                if let Some(b) = system.body(pm.name.get_ref()) {
                    bodies.push(SceneBody {
                        name: b.name.clone(),
                        kind: "point_mass",
                        radius: None,
                        first: b.x,
                        size: 2,
                    });
                }
            }
            for rb in &def.rigid_bodies {
                if let Some(b) = system.body(rb.name.get_ref()) {
                    bodies.push(SceneBody {
                        name: b.name.clone(),
                        kind: "rigid_body",
                        radius: None,
                        first: b.x,
                        size: 3,
                    });
                }
            }
        }
        let mut beams = Vec::new();
        let mut floating_points = Vec::new();
        // Spatial beam nodes are frames among the spatial bodies above (drawn, and with
        // visualization outputs, as such); the beam polylines are planar.
        for decl in def.beams.iter().filter(|_| !spatial) {
            let name = decl.name.get_ref();
            let node = |label: &str, k: usize| system.body(&format!("{name}.{label}[{k}]"));
            if let Some(first) = node("node", 0) {
                let ancf = first.director;
                let (mut nodes, mut node_coordinates) = (Vec::new(), Vec::new());
                let size = if ancf { 4 } else { 3 };
                for k in 0.. {
                    let Some(n) = node("node", k) else { break };
                    nodes.push(format!("{name}.node[{k}]"));
                    node_coordinates.push((n.x, size));
                    if let Some(m) = node("mid", k).filter(|_| ancf) {
                        nodes.push(format!("{name}.mid[{k}]"));
                        node_coordinates.push((m.x, size));
                    }
                }
                let elements = (1..nodes.len()).map(|k| [k - 1, k]).collect();
                let formulation = if ancf { "ancf" } else { "corotational" };
                beams.push(SceneBeam {
                    name: name.clone(),
                    formulation,
                    nodes,
                    elements,
                    node_coordinates,
                    floating: None,
                });
                floating_points.push(Vec::new());
            } else if let Some(start) = system.body(&format!("{name}.start")) {
                let Some(index) =
                    system.elements::<FloatingFrameBeam2d>().iter().position(|b| b.tip_point().first == start.x)
                else {
                    continue;
                };
                let beam = &system.elements::<FloatingFrameBeam2d>()[index];
                let points = (0..=FLOATING_FRAME_SAMPLES)
                    .map(|k| {
                        let x = beam.length * k as f64 / FLOATING_FRAME_SAMPLES as f64;
                        if k == FLOATING_FRAME_SAMPLES { beam.tip_point() } else { beam.material_point(x) }
                    })
                    .collect();
                beams.push(SceneBeam {
                    name: name.clone(),
                    formulation: "floating_frame",
                    nodes: vec![format!("{name}.start")],
                    elements: Vec::new(),
                    node_coordinates: vec![(start.x, 3 + 2 * beam.modes)],
                    floating: Some(index),
                });
                floating_points.push(points);
            }
        }
        let mut contacts = Vec::new();
        let mut ground_planes = Vec::new();
        let ground =
            |b: &Option<crate::model::schema::Name>| b.as_ref().map_or("ground".to_string(), |n| n.get_ref().clone());
        for (names, method) in [(&system.contact_names, "force"), (&system.contact_constraint_names, "constraint")] {
            for name in names {
                let Some(decl) = def.contacts.iter().find(|c| c.name.get_ref() == name) else {
                    // Every assembled contact is declared; keep the frames' order regardless.
                    contacts.push(SceneContact {
                        name: name.clone(),
                        method,
                        body1: String::new(),
                        body2: String::new(),
                    });
                    continue;
                };
                let (body1, body2) = (ground(&decl.body1), decl.body2.get_ref().clone());
                for (body, radius) in [(&body1, &decl.radius1), (&body2, &decl.radius2)] {
                    let Some(r) = radius else { continue };
                    let r = scope.number(r)?;
                    if let Some(b) = bodies.iter_mut().find(|b| &b.name == body) {
                        b.radius = Some(b.radius.map_or(r, |old: f64| old.max(r)));
                    }
                }
                if body1 == "ground" && !spatial {
                    if let (Some(p), Some(n)) = (&decl.point1, &decl.normal) {
                        let (point, n) = (scope.vec2(p)?, scope.vec2(n)?);
                        let norm = n[0].hypot(n[1]);
                        if decl.kind.get_ref().ends_with("plane") && norm > 0.0 {
                            ground_planes.push(GroundPlane { point, normal: [n[0] / norm, n[1] / norm] });
                        }
                    }
                }
                contacts.push(SceneContact { name: name.clone(), method, body1, body2 });
            }
        }
        Ok(Scene { dimension: if spatial { 3 } else { 2 }, bodies, beams, contacts, ground_planes, floating_points })
    }

    /// The visualization outputs (`[visualization] outputs = true`): position and orientation
    /// of every body and beam node, named `<body>.x`, `.y` (`.z`), `.angle` (planar) or `.e0`..
    /// `.e3` (spatial, Euler parameters); a floating-frame beam gives its frame `<beam>.start`
    /// and its tip `<beam>.end`. `q0` is the initial state (the reference of ANCF section angles).
    pub(crate) fn visualization_outputs(&self, q0: &[f64]) -> Vec<Output> {
        let mut out = Vec::new();
        let mut push = |name: &str, quantity: &str, kind: OutputKind| {
            out.push(Output {
                name: format!("{name}.{quantity}"),
                unit: kind.unit().to_string(),
                description: format!("visualization: {quantity} of {name}"),
                kind,
            });
        };
        let planar = |push: &mut dyn FnMut(&str, &str, OutputKind), name: &str, anchor: Anchor| {
            for (component, q) in ["x", "y"].iter().enumerate() {
                push(name, q, OutputKind::Point { anchor, component, order: 0 });
            }
        };
        for b in &self.bodies {
            let x = b.first;
            match b.kind {
                "point_mass" if self.dimension == 3 => {
                    for (component, q) in ["x", "y", "z"].iter().enumerate() {
                        let anchor = Anchor3::Point { x };
                        push(&b.name, q, OutputKind::SpatialPoint { anchor, component, order: 0 });
                    }
                }
                "point_mass" => planar(&mut push, &b.name, Anchor::Point { x }),
                "rigid_body" => {
                    planar(&mut push, &b.name, Anchor::Rigid { x, s: [0.0; 2] });
                    push(&b.name, "angle", OutputKind::Rotation { theta: x + 2, order: 0 });
                }
                _ => {
                    for (component, q) in ["x", "y", "z"].iter().enumerate() {
                        let anchor = Anchor3::Body { x, s: [0.0; 3] };
                        push(&b.name, q, OutputKind::SpatialPoint { anchor, component, order: 0 });
                    }
                    for k in 0..4 {
                        push(&b.name, &format!("e{k}"), OutputKind::EulerParameter { index: x + 3 + k });
                    }
                }
            }
        }
        for beam in &self.beams {
            for (name, &(x, _)) in beam.nodes.iter().zip(&beam.node_coordinates) {
                match beam.formulation {
                    "ancf" => {
                        planar(&mut push, name, Anchor::Point { x });
                        // The reference section normal is the initial director, as for an
                        // `angle` output of the node (src/mechanics/assemble.rs).
                        let norm = q0[x + 2].hypot(q0[x + 3]);
                        let reference = [q0[x + 2] / norm, q0[x + 3] / norm];
                        let anchor = Anchor::Director { x, reference };
                        push(name, "angle", OutputKind::SectionAngle { anchor, order: 0 });
                    }
                    _ => {
                        planar(&mut push, name, Anchor::Rigid { x, s: [0.0; 2] });
                        push(name, "angle", OutputKind::Rotation { theta: x + 2, order: 0 });
                    }
                }
            }
            if let Some(index) = beam.floating {
                let tip = format!("{}.end", beam.name);
                for (quantity, q) in ["x", "y", "angle"].iter().enumerate() {
                    push(&tip, q, OutputKind::FloatingFrameTip { beam: index, quantity, frame: None });
                }
            }
        }
        out
    }

    /// The frame of the system at (q, v, t).
    pub(crate) fn frame(&self, system: &System, q: &[f64], v: &[f64], t: f64) -> SceneFrame {
        let bodies = self.bodies.iter().map(|b| q[b.first..b.first + b.size].to_vec()).collect();
        let beams = self
            .beams
            .iter()
            .zip(&self.floating_points)
            .map(|(beam, points)| {
                let nodes: Vec<Vec<f64>> = beam.node_coordinates.iter().map(|&(x, n)| q[x..x + n].to_vec()).collect();
                let curve = if points.is_empty() {
                    nodes.iter().map(|c| [c[0], c[1]]).collect()
                } else {
                    points.iter().map(|p| p.position(q)).collect()
                };
                BeamFrame { nodes, curve }
            })
            .collect();
        let mut contacts: Vec<bool> =
            system.elements::<Contact>().iter().map(|c| c.evaluate(q, v).penetration > 0.0).collect();
        contacts.extend(system.contact_constraints.iter().map(|c| c.is_active()));
        SceneFrame { t, bodies, beams, contacts }
    }
}
