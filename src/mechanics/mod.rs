//! The mechanical system: DOF layout, elements, constraints, and the [`Dynamics`] contract.

pub mod assemble;
pub mod assemble_spatial;
pub mod constraint_groups;
pub mod contact_gap;
pub mod discrete_plate;
pub mod elements;
pub mod euler_parameters;
pub mod forces;
pub mod history;
pub mod joints;
pub mod kinematics;
pub mod outputs;
pub mod spatial_kinematics;

use elements::{
    AncfBeam2d, CorotationalBeam2d, Element, Energy, FloatingFrameBeam2d, Kin, PointMass, RigidBody2d, RigidBody3d,
};
use forces::{Contact, FractionalSpringDamper, Load, MultiPointForce, SpringDamper};
pub use history::History;
use joints::{ConstraintRow, ContactConstraint};
use kinematics::quadratic_form;

use crate::integrators::{Dynamics, EventAction, TangentCoefficients};
use crate::linalg::{PatternBuilder, SparseMatrix};

/// Elements of one kind, with the matrix slots of their tangent blocks.
#[derive(Debug, Clone)]
pub struct ElementSet<E> {
    pub elements: Vec<E>,
    slots: Vec<Vec<usize>>,
}

impl<E> Default for ElementSet<E> {
    fn default() -> Self {
        ElementSet { elements: Vec::new(), slots: Vec::new() }
    }
}

impl<E: Element> ElementSet<E> {
    pub fn push(&mut self, e: E) {
        self.elements.push(e);
    }

    fn add_pattern(&self, b: &mut PatternBuilder) {
        for e in &self.elements {
            b.block(e.dofs(), e.dofs());
        }
    }

    fn compute_slots(&mut self, m: &SparseMatrix) {
        self.slots = self.elements.iter().map(|e| m.block_slots(e.dofs(), e.dofs())).collect();
    }

    fn add_forces(&self, x: &Kin, inertial: &mut [f64], forces: &mut [f64]) {
        for e in &self.elements {
            e.add_forces(x, inertial, forces);
        }
    }

    fn assemble_tangent(&self, x: &Kin, c: &TangentCoefficients, block: &mut Vec<f64>, m: &mut SparseMatrix) {
        for (e, slots) in self.elements.iter().zip(&self.slots) {
            block.clear();
            block.resize(slots.len(), 0.0);
            e.add_tangent(x, c, block);
            for (&s, &v) in slots.iter().zip(block.iter()) {
                m.values[s] += v;
            }
        }
    }

    fn energy(&self, x: &Kin) -> Energy {
        let mut e = Energy::default();
        for el in &self.elements {
            e += el.energy(x);
        }
        e
    }

    fn dissipation_power(&self, x: &Kin) -> f64 {
        self.elements.iter().map(|e| e.dissipation_power(x)).sum()
    }
}

/// Slots of a constraint row: (row, dofs), (dofs, row) and the dofs x dofs Hessian block.
type RowSlots = (Vec<usize>, Vec<usize>, Vec<usize>);

/// Where a named body's coordinates are.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyInfo {
    pub name: String,
    /// First coordinate: x, then y, then theta if `rotates`, or the slope d = dr/dy (two
    /// coordinates) if `director` (ANCF beam nodes).
    pub x: usize,
    pub rotates: bool,
    pub director: bool,
}

/// A flexible multibody system ready for integration.
#[derive(Debug, Clone)]
pub struct System {
    n: usize,
    pub point_masses: ElementSet<PointMass>,
    pub rigid_bodies: ElementSet<RigidBody2d>,
    pub spatial_bodies: ElementSet<RigidBody3d>,
    pub beams: ElementSet<CorotationalBeam2d>,
    pub ancf_beams: ElementSet<AncfBeam2d>,
    pub floating_frame_beams: ElementSet<FloatingFrameBeam2d>,
    pub springs: ElementSet<SpringDamper>,
    pub fractional: ElementSet<FractionalSpringDamper>,
    /// Multi-point stiffness/damping elements (paper 001 eqs. 12-13).
    pub multi_point: ElementSet<MultiPointForce>,
    /// Names of the plates the multi-point elements belong to, in the order of `multi_point`.
    pub multi_point_names: Vec<String>,
    pub loads: ElementSet<Load>,
    pub contacts: ElementSet<Contact>,
    /// Contact names, in the order of `contacts`.
    pub contact_names: Vec<String>,
    /// Joint rows (the first rows of the multiplier vector).
    pub constraints: Vec<ConstraintRow>,
    /// Unilateral contact constraints (paper 004 sec. 2.3.1), one row each after the joint rows.
    pub contact_constraints: Vec<ContactConstraint>,
    /// Their names, in the same order.
    pub contact_constraint_names: Vec<String>,
    pub bodies: Vec<BodyInfo>,
    pub joints: Vec<joints::JointInfo>,
    /// Current values of the model's inputs (set between steps).
    pub inputs: Vec<f64>,
    pattern: SparseMatrix,
    /// Per constraint row: slots of (row, dofs), (dofs, row) and the dofs x dofs Hessian block.
    constraint_slots: Vec<RowSlots>,
    /// Per contact constraint: the joint-like slots and the diagonal slot of its row.
    contact_slots: Vec<(RowSlots, usize)>,
}

impl System {
    /// An empty system with `n` coordinates; add elements, then call `finish`.
    pub fn new(n: usize) -> Self {
        System {
            n,
            point_masses: Default::default(),
            rigid_bodies: Default::default(),
            spatial_bodies: Default::default(),
            beams: Default::default(),
            ancf_beams: Default::default(),
            floating_frame_beams: Default::default(),
            springs: Default::default(),
            fractional: Default::default(),
            multi_point: Default::default(),
            multi_point_names: Vec::new(),
            loads: Default::default(),
            contacts: Default::default(),
            contact_names: Vec::new(),
            constraints: Vec::new(),
            contact_constraints: Vec::new(),
            contact_constraint_names: Vec::new(),
            bodies: Vec::new(),
            joints: Vec::new(),
            inputs: Vec::new(),
            pattern: PatternBuilder::new(0).build(),
            constraint_slots: Vec::new(),
            contact_slots: Vec::new(),
        }
    }

    /// The multiplier row of contact constraint k.
    pub fn contact_constraint_row(&self, k: usize) -> usize {
        self.constraints.len() + k
    }

    /// Freeze the sparsity pattern and compute every element's matrix slots.
    pub fn finish(&mut self) {
        let (n, m) = (self.n, self.constraints.len() + self.contact_constraints.len());
        let mut b = PatternBuilder::new(n + m);
        self.point_masses.add_pattern(&mut b);
        self.rigid_bodies.add_pattern(&mut b);
        self.spatial_bodies.add_pattern(&mut b);
        self.beams.add_pattern(&mut b);
        self.ancf_beams.add_pattern(&mut b);
        self.floating_frame_beams.add_pattern(&mut b);
        self.springs.add_pattern(&mut b);
        self.fractional.add_pattern(&mut b);
        self.multi_point.add_pattern(&mut b);
        self.loads.add_pattern(&mut b);
        self.contacts.add_pattern(&mut b);
        for (r, c) in self.constraints.iter().enumerate() {
            let d = c.measure.dofs();
            b.block(&[n + r], d);
            b.block(d, &[n + r]);
            b.block(d, d);
        }
        let rows = self.constraints.len();
        for (k, c) in self.contact_constraints.iter().enumerate() {
            let d = c.gap.dofs();
            b.block(&[n + rows + k], d);
            b.block(d, &[n + rows + k]);
            b.block(d, d);
        }
        self.pattern = b.build();
        let p = &self.pattern;
        self.point_masses.compute_slots(p);
        self.rigid_bodies.compute_slots(p);
        self.spatial_bodies.compute_slots(p);
        self.beams.compute_slots(p);
        self.ancf_beams.compute_slots(p);
        self.floating_frame_beams.compute_slots(p);
        self.springs.compute_slots(p);
        self.fractional.compute_slots(p);
        self.multi_point.compute_slots(p);
        self.loads.compute_slots(p);
        self.contacts.compute_slots(p);
        self.constraint_slots = self
            .constraints
            .iter()
            .enumerate()
            .map(|(r, c)| {
                let d = c.measure.dofs();
                (p.block_slots(&[n + r], d), p.block_slots(d, &[n + r]), p.block_slots(d, d))
            })
            .collect();
        self.contact_slots = self
            .contact_constraints
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let (d, r) = (c.gap.dofs(), n + rows + k);
                ((p.block_slots(&[r], d), p.block_slots(d, &[r]), p.block_slots(d, d)), p.slot(r, r))
            })
            .collect();
    }

    fn kin<'a>(&'a self, q: &'a [f64], v: &'a [f64], a: &'a [f64], t: f64) -> Kin<'a> {
        Kin { q, v, a, t, inputs: &self.inputs }
    }

    /// Kinetic and potential (gravity + springs + strain) energy.
    pub fn energy(&self, q: &[f64], v: &[f64], t: f64) -> Energy {
        let x = self.kin(q, v, v, t);
        let mut e = self.point_masses.energy(&x);
        e += self.rigid_bodies.energy(&x);
        e += self.spatial_bodies.energy(&x);
        e += self.beams.energy(&x);
        e += self.ancf_beams.energy(&x);
        e += self.floating_frame_beams.energy(&x);
        e += self.springs.energy(&x);
        e += self.fractional.energy(&x);
        e += self.multi_point.energy(&x);
        e += self.contacts.energy(&x);
        e
    }

    /// Record an accepted state in the history of elements with memory (fractional
    /// dampers sample q; contacts track approach rates and impact speeds).
    pub fn record_history(&mut self, q: &[f64], v: &[f64], t: f64) {
        for f in &mut self.fractional.elements {
            f.record(q, t);
        }
        for c in &mut self.contacts.elements {
            c.record(q, v, t);
        }
    }

    /// The histories of the elements with memory (part of snapshots).
    pub fn history(&self) -> History {
        History {
            fractional: self.fractional.elements.iter().map(|f| f.history().clone()).collect(),
            contacts: self.contacts.elements.iter().map(|c| c.memory()).collect(),
            contact_constraints: self.contact_constraints.iter().map(|c| c.memory()).collect(),
        }
    }

    /// Continue from `history`; refused (and nothing changed) unless it has one valid entry
    /// per element with memory.
    pub fn set_history(&mut self, history: History) -> Result<(), String> {
        let counts = [
            ("fractional dampers", history.fractional.len(), self.fractional.elements.len()),
            ("contact forces", history.contacts.len(), self.contacts.elements.len()),
            ("contact constraints", history.contact_constraints.len(), self.contact_constraints.len()),
        ];
        for (what, got, expected) in counts {
            if got != expected {
                return Err(format!("the history has {got} {what}, the model {expected}"));
            }
        }
        history.validate()?;
        for (f, h) in self.fractional.elements.iter_mut().zip(history.fractional) {
            f.set_history(h);
        }
        for (c, m) in self.contacts.elements.iter_mut().zip(history.contacts) {
            c.set_memory(m);
        }
        for (c, m) in self.contact_constraints.iter_mut().zip(history.contact_constraints) {
            c.set_memory(m);
        }
        Ok(())
    }

    pub fn body(&self, name: &str) -> Option<&BodyInfo> {
        self.bodies.iter().find(|b| b.name == name)
    }
}

impl Dynamics for System {
    fn coordinates(&self) -> usize {
        self.n
    }

    fn constraints(&self) -> usize {
        self.constraints.len() + self.contact_constraints.len()
    }

    fn forces(&self, q: &[f64], v: &[f64], a: &[f64], t: f64, inertial: &mut [f64], forces: &mut [f64]) {
        inertial.fill(0.0);
        forces.fill(0.0);
        let x = self.kin(q, v, a, t);
        self.point_masses.add_forces(&x, inertial, forces);
        self.rigid_bodies.add_forces(&x, inertial, forces);
        self.spatial_bodies.add_forces(&x, inertial, forces);
        self.beams.add_forces(&x, inertial, forces);
        self.ancf_beams.add_forces(&x, inertial, forces);
        self.floating_frame_beams.add_forces(&x, inertial, forces);
        self.springs.add_forces(&x, inertial, forces);
        self.fractional.add_forces(&x, inertial, forces);
        self.multi_point.add_forces(&x, inertial, forces);
        self.loads.add_forces(&x, inertial, forces);
        self.contacts.add_forces(&x, inertial, forces);
    }

    fn constraint_residual(&self, q: &[f64], _t: f64, phi: &mut [f64]) {
        let (joints, contacts) = phi.split_at_mut(self.constraints.len());
        for (p, c) in joints.iter_mut().zip(&self.constraints) {
            *p = c.measure.value(q) - c.target;
        }
        // Paper 004 eq. 5b while active; the trivial row (zero residual) while separated.
        for (p, c) in contacts.iter_mut().zip(&self.contact_constraints) {
            *p = if c.is_active() { c.penetration(q) } else { 0.0 };
        }
    }

    fn add_constraint_forces(&self, q: &[f64], lambda: &[f64], out: &mut [f64]) {
        for (c, &l) in self.constraints.iter().zip(lambda) {
            c.measure.with_derivatives(q, |_, gradient, _| {
                for (g, &i) in gradient.iter().zip(c.measure.dofs()) {
                    out[i] += g * l;
                }
            });
        }
        // C_q^T lambda of eq. 5a (active rows only).
        for (c, &l) in self.contact_constraints.iter().zip(&lambda[self.constraints.len()..]) {
            if c.is_active() {
                let d = c.derivatives(q);
                for (k, &i) in c.gap.dofs().iter().enumerate() {
                    out[i] += d.gradient[k] * l;
                }
            }
        }
    }

    fn constraint_velocity(&self, q: &[f64], v: &[f64], _t: f64, phi_dot: &mut [f64]) {
        for (p, c) in phi_dot.iter_mut().zip(&self.constraints) {
            *p = c.measure.with_derivatives(q, |_, gradient, _| {
                c.measure.dofs().iter().zip(gradient).map(|(&i, g)| g * v[i]).sum()
            });
        }
        for (p, c) in phi_dot[self.constraints.len()..].iter_mut().zip(&self.contact_constraints) {
            *p = if c.is_active() { c.approach_rate(q, v) } else { 0.0 };
        }
    }

    fn constraint_acceleration_rhs(&self, q: &[f64], v: &[f64], _t: f64, gamma: &mut [f64]) {
        for (g, c) in gamma.iter_mut().zip(&self.constraints) {
            *g = -c.measure.with_derivatives(q, |_, _, hessian| quadratic_form(c.measure.dofs(), hessian, v));
        }
        for (g, c) in gamma[self.constraints.len()..].iter_mut().zip(&self.contact_constraints) {
            *g = if c.is_active() { c.acceleration_rhs(q, v) } else { 0.0 };
        }
    }

    fn newton_pattern(&self) -> SparseMatrix {
        self.pattern.clone()
    }

    fn newton_matrix(
        &self,
        q: &[f64],
        v: &[f64],
        a: &[f64],
        lambda: &[f64],
        t: f64,
        c: TangentCoefficients,
        m: &mut SparseMatrix,
    ) {
        m.clear();
        let x = self.kin(q, v, a, t);
        let mut block = Vec::with_capacity(64);
        self.point_masses.assemble_tangent(&x, &c, &mut block, m);
        self.rigid_bodies.assemble_tangent(&x, &c, &mut block, m);
        self.spatial_bodies.assemble_tangent(&x, &c, &mut block, m);
        self.beams.assemble_tangent(&x, &c, &mut block, m);
        self.ancf_beams.assemble_tangent(&x, &c, &mut block, m);
        self.floating_frame_beams.assemble_tangent(&x, &c, &mut block, m);
        self.springs.assemble_tangent(&x, &c, &mut block, m);
        self.fractional.assemble_tangent(&x, &c, &mut block, m);
        self.multi_point.assemble_tangent(&x, &c, &mut block, m);
        self.loads.assemble_tangent(&x, &c, &mut block, m);
        self.contacts.assemble_tangent(&x, &c, &mut block, m);
        for ((con, (row, col, hess)), &l) in self.constraints.iter().zip(&self.constraint_slots).zip(lambda) {
            con.measure.with_derivatives(q, |_, gradient, hessian| {
                for (k, g) in gradient.iter().enumerate() {
                    m.values[row[k]] += g;
                    m.values[col[k]] += c.lambda * g;
                }
                for (&s, h) in hess.iter().zip(hessian) {
                    m.values[s] += c.stiffness * l * h;
                }
            });
        }
        let rows = self.constraints.len();
        for ((con, ((row, col, hess), diagonal)), &l) in
            self.contact_constraints.iter().zip(&self.contact_slots).zip(&lambda[rows..])
        {
            if !con.is_active() {
                // The trivial row d_lambda = 0 (its residual is zero).
                m.values[*diagonal] += 1.0;
                continue;
            }
            let d = con.derivatives(q);
            for k in 0..con.gap.dofs().len() {
                m.values[row[k]] += d.gradient[k];
                m.values[col[k]] += c.lambda * d.gradient[k];
            }
            for (k, &s) in hess.iter().enumerate() {
                m.values[s] += c.stiffness * l * d.hessian[k];
            }
        }
    }

    fn dissipation_power(&self, q: &[f64], v: &[f64], t: f64) -> f64 {
        let x = self.kin(q, v, v, t);
        self.springs.dissipation_power(&x)
            + self.fractional.dissipation_power(&x)
            + self.multi_point.dissipation_power(&x)
            + self.contacts.dissipation_power(&x)
    }

    fn prepare(&mut self, times: &[f64]) {
        for f in &mut self.fractional.elements {
            f.prepare(times);
        }
    }

    fn step_accepted(&mut self, q: &[f64], v: &[f64], t: f64) {
        self.record_history(q, v, t);
    }

    /// One event per contact force: its penetration (contact onset and separation are its
    /// zeros); one per contact constraint: onset while separated, its multiplier while active.
    fn event_count(&self) -> usize {
        self.contacts.elements.len() + self.contact_constraints.len()
    }

    fn event_functions(&self, q: &[f64], _v: &[f64], lambda: &[f64], _t: f64, out: &mut [f64]) {
        let (forces, constraints) = out.split_at_mut(self.contacts.elements.len());
        for (o, c) in forces.iter_mut().zip(&self.contacts.elements) {
            *o = c.penetration(q);
        }
        for (o, (c, &l)) in
            constraints.iter_mut().zip(self.contact_constraints.iter().zip(&lambda[self.constraints.len()..]))
        {
            *o = c.event_function(q, l);
        }
    }

    /// Contact constraints switch on (impact with Newton's restitution law) and off
    /// (tensile multiplier); see src/mechanics/joints/contact_constraint.rs.
    fn event_update(&mut self, q: &[f64], v: &[f64], lambda: &[f64], t: f64, jump: &mut [f64]) -> EventAction {
        let rows = self.constraints.len();
        let mut action = EventAction::None;
        for (k, c) in self.contact_constraints.iter_mut().enumerate() {
            match c.update(q, v, lambda[rows + k], t) {
                Ok(j) => {
                    jump[rows + k] = j;
                    action = EventAction::Jump;
                }
                Err(true) if action == EventAction::None => action = EventAction::Switch,
                Err(_) => {}
            }
        }
        action
    }
}
