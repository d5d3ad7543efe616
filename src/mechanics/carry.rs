//! What a drive carries, moved rigidly with it: the start of `Workspace::follow_drives` when a
//! driving input set before the first step puts its joint elsewhere than the assembled state.
//!
//! follow_drives solves f(q) - f(q0) + Phi_q^T lambda = 0, Phi(q, t) = 0 from q0 by Newton
//! steps proximal in the mass metric. A body that only gravity holds (a hook on its sling)
//! meets no force there besides that proximal term, since gravity on a rigid body is linear in
//! the coordinates and drops out of f(q) - f(q0): from q0 it moved least in the mass metric,
//! and a crane slewed by 0.1 rad at the start tilted its sling and lifted the hook 0.1 m
//! instead of carrying it along. So the iteration starts from q0 with everything behind each
//! driven joint turned or slid rigidly by the amount its drive is off. That configuration
//! solves the iteration's equations (lambda = 0: the forces at rest of rigid bodies under
//! gravity and of unstrained elements turned rigidly are q0's) but for what the motion changes
//! of the forces, which the iteration then balances: springs between the carried part and the
//! rest, and a beam's consistent gravity end moments, which turn with it.
//!
//! "Behind the joint": the bodies and nodes connected to the joint's body 2 once the joint is
//! cut, through the other joints and through the elements that hold nodes together as one
//! piece (beam elements, a plate's element: `Element::TIES`), but not through springs,
//! dampers, contacts or loads (forces, which the iteration balances). If that part holds
//! ground or body 1, the joint closes a loop (the driven crank of a crank-slider) and nothing
//! is carried: the iteration moves it as before. If body 2's part holds ground and body 1's
//! does not (a driven joint declared with the free body as body 1), body 1's part is carried
//! the other way.

use super::System;
use super::euler_parameters::{compose, cross, from_axis_angle, mat_vec, rotation};
use super::kinematics::{Measure, MeasureKind, rot};
use super::spatial_kinematics::{Anchor3, SpatialKind};
use super::unit_vector::unit;

/// The coordinates of a body or beam node as a rigid motion moves them (`BodyInfo`); each
/// holds its first coordinate. Coordinates of no node (a floating-frame beam's modal
/// coordinates, measured in its frame) are not changed by a rigid motion. Also what the static
/// solver measures motions in (`Simulation`'s static scales: `orientation`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Node {
    /// (x, y): a point mass.
    Point(usize),
    /// (x, y, theta): a planar rigid body, a corotational beam node, a floating frame.
    Rigid(usize),
    /// (x, y, d1, d2): an ANCF beam node with its slope d = dr/dy, a vector.
    Director(usize),
    /// (r, p): a spatial body or beam node, its position and Euler parameters.
    Spatial(usize),
    /// (x, y, z): a spatial point mass.
    Point3(usize),
}

impl Node {
    fn first(self) -> usize {
        match self {
            Node::Point(x) | Node::Rigid(x) | Node::Director(x) | Node::Spatial(x) | Node::Point3(x) => x,
        }
    }

    fn len(self) -> usize {
        match self {
            Node::Point(_) => 2,
            Node::Rigid(_) | Node::Point3(_) => 3,
            Node::Director(_) => 4,
            Node::Spatial(_) => 7,
        }
    }

    /// Its dimensionless coordinates (an angle, a slope, Euler parameters): the rest are
    /// positions.
    pub(crate) fn orientation(self) -> std::ops::Range<usize> {
        let x = self.first();
        match self {
            Node::Spatial(_) => x + 3..x + 7,
            Node::Point3(_) => x + 3..x + 3,
            _ => x + 2..x + self.len(),
        }
    }
}

/// A rigid motion of the plane or of space.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Motion {
    /// A turn by `angle` about `centre`.
    Turn2 {
        centre: [f64; 2],
        angle: f64,
    },
    Shift2([f64; 2]),
    /// A turn about an axis through `centre`, as Euler parameters `p`.
    Turn3 {
        centre: [f64; 3],
        p: [f64; 4],
    },
    Shift3([f64; 3]),
}

impl Motion {
    /// The motion of body 2 that changes the joint coordinate `m` by `amount` at q, the rest
    /// of the joint held (its rows hold at q): a revolute joint's relative angle turns body 2
    /// about the joint axis (fixed in body 1) through the joint point (a universal joint's
    /// angle2 about body 2's pin), a prismatic joint's
    /// displacement slides it along the axis, a distance joint's length along the link. The
    /// same motion by -amount moves body 1 so. `None` for other measures.
    fn changing(m: &Measure, q: &[f64], amount: f64) -> Option<Motion> {
        Some(match &m.kind {
            // theta2 - theta1: the anchors coincide at the joint point.
            MeasureKind::Angle => Motion::Turn2 { centre: m.a2.position(q), angle: amount },
            // u . (p2 - p1), u turning with body 1.
            MeasureKind::Projection { u, rotating } => {
                Motion::Shift2(m.direction(q, *u, *rotating).map(|x| amount * x))
            }
            MeasureKind::Distance => {
                let (p1, p2) = (m.a1.position(q), m.a2.position(q));
                Motion::Shift2(unit([p2[0] - p1[0], p2[1] - p1[1]])?.map(|x| amount * x))
            }
            MeasureKind::Spatial(s) => {
                let body1 = |u: [f64; 3]| match s.a1 {
                    Anchor3::Ground { .. } | Anchor3::Point { .. } => u,
                    Anchor3::Body { x, .. } => mat_vec(&rotation(&q[x + 3..x + 7]), u),
                };
                match s.kind {
                    // atan2((A1 c1) . (A2 b2), (A1 b1) . (A2 b2)) with (a, b1, c1) right-handed
                    // in body 1's frame: turning A2 b2 by phi about A1 a = A1 (b1 x c1) adds phi.
                    SpatialKind::Angle { b1, c1, .. } => Motion::Turn3 {
                        centre: s.a2.position(q),
                        p: from_axis_angle(unit(body1(cross(b1, c1)))?, amount),
                    },
                    // atan2(-(A2 c2) . (A1 b1), (A2 b2) . (A1 b1)) with (a, b2, c2) right-handed
                    // in body 2's frame: turning body 2 by phi about A2 a = A2 (b2 x c2) adds phi.
                    SpatialKind::AngleAbout2 { b2, c2, .. } => {
                        let Anchor3::Body { x, .. } = s.a2 else { return None };
                        let axis = mat_vec(&rotation(&q[x + 3..x + 7]), cross(b2, c2));
                        Motion::Turn3 { centre: s.a2.position(q), p: from_axis_angle(unit(axis)?, amount) }
                    }
                    SpatialKind::Projection { u1 } => Motion::Shift3(body1(u1).map(|x| amount * x)),
                    SpatialKind::Distance => {
                        let (p1, p2) = (s.a1.position(q), s.a2.position(q));
                        Motion::Shift3(unit(std::array::from_fn(|k| p2[k] - p1[k]))?.map(|x| amount * x))
                    }
                    _ => return None,
                }
            }
            _ => return None,
        })
    }

    /// Move the node's coordinates q and their rates v: positions move, planar angles add the
    /// turn, slopes and rates of positions turn, Euler parameters and their rates are
    /// pre-multiplied by the turn's (A(r p) = A(r) A(p)). A motion of the other dimension
    /// leaves the node alone (it cannot be one of the system's).
    fn apply(self, node: Node, q: &mut [f64], v: &mut [f64]) {
        let x = node.first();
        match (self, node) {
            (Motion::Turn2 { centre, angle }, Node::Point(_) | Node::Rigid(_) | Node::Director(_)) => {
                let arm = rot(angle, [q[x] - centre[0], q[x + 1] - centre[1]]);
                q[x] = centre[0] + arm[0];
                q[x + 1] = centre[1] + arm[1];
                let w = rot(angle, [v[x], v[x + 1]]);
                v[x..x + 2].copy_from_slice(&w);
                match node {
                    Node::Rigid(_) => q[x + 2] += angle,
                    Node::Director(_) => {
                        for z in [&mut *q, &mut *v] {
                            let d = rot(angle, [z[x + 2], z[x + 3]]);
                            z[x + 2..x + 4].copy_from_slice(&d);
                        }
                    }
                    _ => {}
                }
            }
            (Motion::Shift2(d), Node::Point(_) | Node::Rigid(_) | Node::Director(_)) => {
                q[x] += d[0];
                q[x + 1] += d[1];
            }
            (Motion::Turn3 { centre, p }, Node::Spatial(_) | Node::Point3(_)) => {
                let a = rotation(&p);
                let arm = mat_vec(&a, std::array::from_fn(|k| q[x + k] - centre[k]));
                for k in 0..3 {
                    q[x + k] = centre[k] + arm[k];
                }
                let w = mat_vec(&a, [v[x], v[x + 1], v[x + 2]]);
                v[x..x + 3].copy_from_slice(&w);
                if node != Node::Point3(x) {
                    for z in [&mut *q, &mut *v] {
                        let e = compose(p, &z[x + 3..x + 7]);
                        z[x + 3..x + 7].copy_from_slice(&e);
                    }
                }
            }
            (Motion::Shift3(d), Node::Spatial(_) | Node::Point3(_)) => {
                for k in 0..3 {
                    q[x + k] += d[k];
                }
            }
            _ => {}
        }
    }
}

/// Disjoint sets of the coordinates and ground (union by size, path halving).
struct Parts {
    parent: Vec<usize>,
    size: Vec<usize>,
}

impl Parts {
    fn new(n: usize) -> Self {
        Parts { parent: (0..n).collect(), size: vec![1; n] }
    }

    fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    fn join(&mut self, a: usize, b: usize) {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        if self.size[a] < self.size[b] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b] = a;
        self.size[a] += self.size[b];
    }

    fn join_all(&mut self, dofs: &[usize]) {
        for w in dofs.windows(2) {
            self.join(w[0], w[1]);
        }
    }
}

impl System {
    /// The bodies and beam nodes, once each (a node has several names), in coordinate order.
    pub(crate) fn nodes(&self) -> Vec<Node> {
        let mut nodes: Vec<Node> = self
            .bodies
            .iter()
            .map(|b| match (self.spatial, b.director, b.rotates) {
                (true, _, true) => Node::Spatial(b.x),
                (true, _, false) => Node::Point3(b.x),
                (false, true, _) => Node::Director(b.x),
                (false, false, true) => Node::Rigid(b.x),
                (false, false, false) => Node::Point(b.x),
            })
            .collect();
        nodes.sort_by_key(|n| n.first());
        nodes.dedup();
        nodes
    }

    /// The parts of the model with joint `cut` removed: the coordinates joined through the
    /// nodes, the other joints (to ground where body 1 is ground) and the elements that tie
    /// (`Element::TIES`); ground is the element `n`.
    fn parts_without(&self, cut: usize, nodes: &[Node]) -> Parts {
        let ground = self.n;
        let mut parts = Parts::new(self.n + 1);
        for node in nodes {
            let x = node.first();
            for k in 1..node.len() {
                parts.join(x, x + k);
            }
        }
        for g in &self.groups {
            g.ties(&mut |dofs, grounded| {
                parts.join_all(dofs);
                if grounded && let Some(&x) = dofs.first() {
                    parts.join(x, ground);
                }
            });
        }
        for joint in self.joints.iter().enumerate().filter(|&(k, _)| k != cut).map(|(_, j)| j) {
            let body1 = joint.body1_x.unwrap_or(ground);
            parts.join(body1, joint.body2_x);
            for c in &self.constraints[joint.rows.clone()] {
                for &i in c.measure.dofs() {
                    parts.join(body1, i);
                }
            }
        }
        parts
    }

    /// Each driving row that is not redundant, with its measure and its joint: (row, measure,
    /// joint index).
    fn driven_joints(&self) -> impl Iterator<Item = (usize, &Measure, usize)> {
        self.drive_rows.iter().filter_map(|&r| {
            let measure = self.constraints[r].measure.measure().filter(|_| !self.is_redundant(r))?;
            let cut = self.joints.iter().position(|j| j.rows.contains(&r))?;
            Some((r, measure, cut))
        })
    }

    /// Move everything each driven joint carries rigidly by the amount its drive is off at
    /// (q, t): prescribed value minus the joint coordinate (`ConstraintRow::driven_coordinate`).
    /// The part behind the joint (see the module's comment) turns about the joint axis through
    /// the joint point (revolute), slides along the axis (prismatic) or along the link
    /// (distance), with the joint's geometry at the current q: after a slew has turned the
    /// crane, its luffing axis is the turned one. No other joint crosses the boundary of a
    /// carried part (it would join the part to the rest), so the transports keep every other
    /// joint's rows and coordinate, and one pass in any order puts each carried joint on its
    /// drive. The velocities turn with the positions; a model at rest stays at rest.
    /// `Dynamics::carry_with_drives`.
    pub fn carry_with_drives(&self, q: &mut [f64], v: &mut [f64], t: f64) {
        let mut nodes = None;
        for (r, measure, cut) in self.driven_joints() {
            let row = &self.constraints[r];
            let off = row.prescribed(t, &self.inputs, &self.input_rates)[0]
                - row.driven_coordinate(q, t, &self.inputs, &self.input_rates);
            if off == 0.0 || !off.is_finite() {
                continue;
            }
            let nodes = nodes.get_or_insert_with(|| self.nodes());
            self.carry_joint(cut, measure, off, nodes, q, v);
        }
    }

    /// Give what each driven joint carries the rigid motion of its drive's rate where the
    /// joint's coordinate moves otherwise at (q, v, t) (the rate mismatch, -Phi_dot of its
    /// row): the velocity field of the transport of `carry_with_drives`, by central
    /// differences of the finite motion. What a drive's rate set before the first step moves
    /// (`Simulation::set_initial_inputs`): a flexible body behind the joint turns rigidly with
    /// it, as the least-strain-rate velocities of a model-file drive do (a mass-orthogonal
    /// projection onto the rate left a welded blade's tip at 1.1 of the 2 rad/s: a probe).
    pub fn carry_rates_with_drives(&self, q: &[f64], v: &mut [f64], t: f64) {
        /// The transport's amount each side (rad or m), its error ~1e-10 relative.
        const DELTA: f64 = 1e-5;
        let mut phi_dot = vec![0.0; crate::integrators::Dynamics::constraints(self)];
        let mut nodes = None;
        for (r, measure, cut) in self.driven_joints() {
            crate::integrators::Dynamics::constraint_velocity(self, q, v, t, &mut phi_dot);
            let off = -phi_dot[r];
            if off == 0.0 || !off.is_finite() {
                continue;
            }
            let nodes = nodes.get_or_insert_with(|| self.nodes());
            let (mut plus, mut minus, mut scratch) = (q.to_vec(), q.to_vec(), vec![0.0; v.len()]);
            if !self.carry_joint(cut, measure, DELTA, nodes, &mut plus, &mut scratch) {
                continue;
            }
            self.carry_joint(cut, measure, -DELTA, nodes, &mut minus, &mut scratch);
            for ((vi, p), m) in v.iter_mut().zip(&plus).zip(&minus) {
                *vi += off * (p - m) / (2.0 * DELTA);
            }
        }
    }

    /// Move the part behind joint `cut` rigidly (see the module's comment) so that its
    /// coordinate `m` changes by `amount`, with the velocities; whether anything moved (not
    /// in a closed loop, nor for a measure that is no joint coordinate).
    fn carry_joint(&self, cut: usize, m: &Measure, amount: f64, nodes: &[Node], q: &mut [f64], v: &mut [f64]) -> bool {
        let mut parts = self.parts_without(cut, nodes);
        let joint = &self.joints[cut];
        let (ground, body2) = (parts.find(self.n), parts.find(joint.body2_x));
        let body1 = joint.body1_x.map_or(ground, |x| parts.find(x));
        let (part, amount) = if body2 != ground && body2 != body1 {
            (body2, amount)
        } else if body1 != ground && body1 != body2 {
            (body1, -amount)
        } else {
            // A closed loop (through ground or body 1): the iteration moves it.
            return false;
        };
        let Some(motion) = Motion::changing(m, q, amount) else {
            return false;
        };
        for &node in nodes {
            if parts.find(node.first()) == part {
                motion.apply(node, q, v);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A turn of the plane moves a point about the centre, adds to an angle and turns a slope
    /// and the rates of positions; a spatial turn composes the orientation.
    #[test]
    fn rigid_motions_move_every_kind_of_node() {
        let angle = 0.3f64;
        let turn = Motion::Turn2 { centre: [1.0, 0.0], angle };
        let mut q = [2.0, 0.0, 0.5, 0.0, 1.0];
        let mut v = [1.0, 0.0, 0.2, 0.0, 1.0];
        turn.apply(Node::Rigid(0), &mut q, &mut v);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-15;
        assert!(close(q[0], 1.0 + angle.cos()) && close(q[1], angle.sin()) && close(q[2], 0.5 + angle));
        assert!(close(v[0], angle.cos()) && close(v[1], angle.sin()) && v[2] == 0.2);
        let mut q = [1.0, 1.0, 0.0, 1.0];
        let mut v = [0.0; 4];
        turn.apply(Node::Director(0), &mut q, &mut v);
        assert!(close(q[0], 1.0 - angle.sin()) && close(q[1], angle.cos()));
        assert!(close(q[2], -angle.sin()) && close(q[3], angle.cos()));
        // A quarter turn about z through (1, 0, 0) of a body at the origin turned by 0.2 about z.
        let spin =
            Motion::Turn3 { centre: [1.0, 0.0, 0.0], p: from_axis_angle([0.0, 0.0, 1.0], 0.5 * std::f64::consts::PI) };
        let mut q = [0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0];
        q[3..7].copy_from_slice(&from_axis_angle([0.0, 0.0, 1.0], 0.2));
        let mut v = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        spin.apply(Node::Spatial(0), &mut q, &mut v);
        let expected = from_axis_angle([0.0, 0.0, 1.0], 0.2 + 0.5 * std::f64::consts::PI);
        assert!(close(q[0], 1.0) && close(q[1], -1.0) && q[2] == 2.0, "{q:?}");
        assert!((0..4).all(|k| close(q[3 + k], expected[k])), "{q:?} vs {expected:?}");
        assert!(close(v[0], 0.0) && close(v[1], 1.0), "{v:?}");
        // A shift moves positions only.
        let mut q = [0.0, 0.0, 0.7];
        Motion::Shift2([0.1, -0.2]).apply(Node::Rigid(0), &mut q, &mut [0.0; 3]);
        assert_eq!(q, [0.1, -0.2, 0.7]);
    }

    /// In every shipped model, each joint with a coordinate that carries something (not in a
    /// closed loop) changes its coordinate by exactly the amount asked, and every constraint
    /// row of the model (the other joints', the joint's own, the Euler-parameter norms) keeps
    /// its residual: no other joint crosses the boundary of the carried part, and the motion
    /// keeps the joint's own rows. Every kind of node is among the carried ones.
    #[test]
    fn carrying_a_joint_changes_its_coordinate_alone_in_every_shipped_model() {
        use crate::model::Model;
        use crate::simulation::{Simulation, SolverSettings};
        let mut kinds = std::collections::BTreeSet::new();
        let (mut carried, mut loops) = (0, 0);
        let mut files: Vec<_> = std::fs::read_dir("models").unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for file in files.iter().filter(|f| f.extension().is_some_and(|e| e == "toml")) {
            let model = Model::load(file).unwrap();
            let p = model.default_parameters();
            let sim = Simulation::new(&model, &p, SolverSettings::from_model(&model, &p).unwrap(), 0.0).unwrap();
            let (sys, state) = (sim.system(), sim.state());
            let nodes = sys.nodes();
            let residuals = |q: &[f64]| -> Vec<f64> {
                sys.constraints.iter().map(|c| c.residual(q, state.t, &sys.inputs, &sys.input_rates)).collect()
            };
            let before = residuals(&state.q);
            let size = 1.0 + state.q.iter().fold(0.0f64, |a, x| a.max(x.abs()));
            for (k, joint) in sys.joints.iter().enumerate() {
                for m in &joint.coordinates {
                    let (mut q, mut v) = (state.q.clone(), state.v.clone());
                    let amount = 0.1;
                    if !sys.carry_joint(k, m, amount, &nodes, &mut q, &mut v) {
                        loops += 1;
                        continue;
                    }
                    carried += 1;
                    for node in &nodes {
                        let x = node.first();
                        if q[x..x + node.len()] != state.q[x..x + node.len()] {
                            kinds.insert(format!("{node:?}").split('(').next().unwrap_or_default().to_string());
                        }
                    }
                    let change = m.value(&q) - m.value(&state.q);
                    let name = format!("{}: joint '{}'", file.display(), joint.name);
                    assert!((change - amount).abs() < 1e-12 * size, "{name}: coordinate changed by {change}");
                    for (r, (a, b)) in residuals(&q).iter().zip(&before).enumerate() {
                        let own = sys.constraints[r].measure.measure() == Some(m);
                        assert!(own || (a - b).abs() < 1e-12 * size, "{name}: row {r} from {b:.3e} to {a:.3e}");
                    }
                }
            }
        }
        eprintln!("{carried} joints carried, {loops} in loops; node kinds moved: {kinds:?}");
        assert!(carried >= 10 && loops >= 3, "{carried} carried, {loops} in loops");
        for kind in ["Point", "Rigid", "Director", "Spatial", "Point3"] {
            assert!(kinds.contains(kind), "no {kind} node carried: {kinds:?}");
        }
    }
}
