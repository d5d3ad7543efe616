//! The mechanical system: DOF layout, elements, constraints, and the [`Dynamics`] contract.

pub mod assemble;
pub mod assemble_spatial;
pub mod assembly;
mod beam_section;
mod carry;
pub mod constraint_groups;
pub mod contact_gap;
pub mod contacts;
pub mod derivatives;
pub mod discrete_plate;
pub mod dual;
pub mod element_group;
pub mod elements;
pub mod euler_parameters;
pub mod forces;
pub mod history;
pub mod hyper_dual;
pub mod initial_state;
pub mod joints;
pub mod kind_list;
pub mod kinematics;
mod load_magnitude;
pub mod loads;
pub mod momentum;
pub mod motion_jet;
pub mod output_quantities;
pub mod outputs;
pub mod reactions;
pub mod section_forces;
pub mod site;
pub mod spatial_kinematics;
pub mod springs;
mod turning;
pub mod unit_vector;

use contact_gap::ContactGap;
pub use element_group::{ElementGroup, ElementSet};
use elements::{
    AncfBeam2d, CorotationalBeam2d, CorotationalBeam3d, Element, Energy, FloatingFrameBeam2d, Kin, PointMass,
    RigidBody2d, RigidBody3d,
};
use forces::{Contact, FractionalSpringDamper, Load, MultiPointForce, SpatialLoad, SpringDamper};
pub use history::History;
use history::{HistoryWriter, MemoryCounts};
use joints::{ConstraintRow, ContactConstraint};
use kinematics::quadratic_form;

use crate::compact_number::Compact;
use crate::integrators::{ContactOutlook, Dynamics, EnergyFlow, EventAction, Stride, TangentCoefficients};
use crate::linalg::{PatternBuilder, SparseMatrix};
use crate::model::expr::{Expr, InputRates};

/// The regularization of the contact rows relative to their largest inverse mass
/// (`System::regularize_contacts`).
const CONTACT_REGULARIZATION: f64 = 1e-5;
/// ... and at most this multiple of a row's own inverse mass (rows of bodies whose masses differ
/// more keep a relative shift of at most CONTACT_REGULARIZATION times it).
const REGULARIZATION_SPREAD: f64 = 1e4;

/// Slots of a constraint row: (row, dofs), (dofs, row) and the dofs x dofs Hessian block.
type RowSlots = (Vec<usize>, Vec<usize>, Vec<usize>);

/// Where a named body's coordinates are.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyInfo {
    pub name: String,
    /// First coordinate: x, then y, then theta if `rotates`, or the slope d = dr/dy (two
    /// coordinates) if `director` (ANCF beam nodes). Spatial: x, y, z, then the Euler
    /// parameters if `rotates` (not a point mass).
    pub x: usize,
    pub rotates: bool,
    pub director: bool,
}

/// A flexible multibody system ready for integration.
#[derive(Debug, Clone)]
pub struct System {
    n: usize,
    /// One group per element kind, in registration order (`System::new`); forces, tangents,
    /// energies and dissipated powers are summed in this order.
    groups: Vec<Box<dyn ElementGroup>>,
    /// Names of the plates the multi-point elements belong to, in the order of the
    /// `MultiPointForce` elements.
    pub multi_point_names: Vec<String>,
    /// Contact names, in the order of the `Contact` elements.
    pub contact_names: Vec<String>,
    /// Joint rows (the first rows of the multiplier vector).
    pub constraints: Vec<ConstraintRow>,
    /// Unilateral contact constraints (paper 004 sec. 2.3.1), one row each after the joint rows.
    pub contact_constraints: Vec<ContactConstraint>,
    /// beta' of the nominal step, h^2 / 4, which fixes the dependent contact rows' compliance
    /// (`regularize_contacts`, `set_nominal_step`).
    contact_beta: f64,
    /// Their names, in the same order.
    pub contact_constraint_names: Vec<String>,
    pub bodies: Vec<BodyInfo>,
    /// Whether the model is spatial: every body's coordinates are then its position and, if it
    /// `rotates`, its Euler parameters (seven; a point mass has three), those of a planar one
    /// x, y and theta, the slope or neither (`BodyInfo`).
    pub spatial: bool,
    /// The first entry of `bodies` with each name (built by `finish`).
    body_index: std::collections::HashMap<String, usize>,
    pub joints: Vec<joints::JointInfo>,
    /// Current values of the model's inputs (set between steps).
    pub inputs: Vec<f64>,
    /// Their time derivatives where they are interpolated inside an interval (drives follow
    /// the interpolated input; loads hold the value of the step's start).
    pub input_rates: InputRates,
    pattern: SparseMatrix,
    /// Per constraint row: slots of (row, dofs), (dofs, row) and the dofs x dofs Hessian block.
    constraint_slots: Vec<RowSlots>,
    /// Per contact constraint: the joint-like slots and the diagonal slot of its row.
    contact_slots: Vec<(RowSlots, usize)>,
    /// Which contact rows `mark_dependent_contacts` has grouped (sized by `finish`, so that an
    /// event allocates nothing).
    contact_grouped: Vec<bool>,
    /// Joint rows found linearly dependent on earlier rows at the initial state (empty if none):
    /// they are left out of the Newton matrix, their multipliers are zero (`set_redundant`).
    redundant: Vec<bool>,
    /// The groups with an element that reads an input, the non-conservative groups
    /// (`Element::NON_CONSERVATIVE`) and the driving rows (built by `finish`).
    input_groups: Vec<usize>,
    power_groups: Vec<usize>,
    drive_rows: Vec<usize>,
    /// The model's expressions that forces and drives evaluate as time goes on, with what and
    /// where each is (`watch`, `non_finite_expression`).
    watched: Vec<Watched>,
}

/// A model expression a force or a drive evaluates in time: a load's value, a spring's free
/// length (`derivatives` false), a joint's drive (and its first two time derivatives).
#[derive(Debug, Clone)]
struct Watched {
    label: String,
    f: Expr,
    derivatives: bool,
}

impl System {
    /// An empty system with `n` coordinates; add elements, then call `finish`.
    pub fn new(n: usize) -> Self {
        System {
            n,
            groups: Vec::new(),
            multi_point_names: Vec::new(),
            contact_names: Vec::new(),
            constraints: Vec::new(),
            contact_constraints: Vec::new(),
            contact_beta: 0.25e-6,
            contact_constraint_names: Vec::new(),
            bodies: Vec::new(),
            spatial: false,
            body_index: Default::default(),
            joints: Vec::new(),
            inputs: Vec::new(),
            input_rates: InputRates::default(),
            pattern: PatternBuilder::new(0).build(),
            constraint_slots: Vec::new(),
            contact_slots: Vec::new(),
            contact_grouped: Vec::new(),
            redundant: Vec::new(),
            input_groups: Vec::new(),
            power_groups: Vec::new(),
            drive_rows: Vec::new(),
            watched: Vec::new(),
        }
        .with_kinds()
    }

    /// The registered element kinds. Their order is the summation order of forces, tangents
    /// and energies; append new kinds at the end (results of existing models stay bit-for-bit
    /// the same).
    fn with_kinds(mut self) -> Self {
        self.register::<PointMass<2>>();
        self.register::<RigidBody2d>();
        self.register::<RigidBody3d>();
        self.register::<CorotationalBeam2d>();
        self.register::<AncfBeam2d>();
        self.register::<FloatingFrameBeam2d>();
        self.register::<SpringDamper>();
        self.register::<FractionalSpringDamper>();
        self.register::<MultiPointForce>();
        self.register::<Load>();
        self.register::<Contact>();
        self.register::<SpatialLoad>();
        self.register::<CorotationalBeam3d>();
        self.register::<PointMass<3>>();
        self
    }

    /// Add a group for the kind `E` (no effect if it has one).
    pub fn register<E: Element + std::fmt::Debug + Clone + Send + Sync + 'static>(&mut self) {
        if self.set::<E>().is_none() {
            self.groups.push(Box::new(ElementSet::<E>::default()));
        }
    }

    fn set<E: 'static>(&self) -> Option<&ElementSet<E>> {
        self.groups.iter().find_map(|g| g.as_any().downcast_ref::<ElementSet<E>>())
    }

    fn set_mut<E: 'static>(&mut self) -> Option<&mut ElementSet<E>> {
        self.groups.iter_mut().find_map(|g| g.as_any_mut().downcast_mut::<ElementSet<E>>())
    }

    /// Add an element (its kind is registered at the end if it is not yet).
    pub fn push<E: Element + std::fmt::Debug + Clone + Send + Sync + 'static>(&mut self, e: E) {
        self.register::<E>();
        if let Some(set) = self.set_mut::<E>() {
            set.push(e);
        }
    }

    /// The elements of kind `E`, in the order they were added.
    pub fn elements<E: 'static>(&self) -> &[E] {
        self.set::<E>().map_or(&[], |s| &s.elements)
    }

    /// The element groups, in registration order.
    pub fn groups(&self) -> &[Box<dyn ElementGroup>] {
        &self.groups
    }

    /// Set the number of coordinates (assemblers lay the bodies out before they know it);
    /// call before `finish`.
    pub fn set_coordinates(&mut self, n: usize) {
        self.n = n;
    }

    /// The multiplier row of contact constraint k.
    pub fn contact_constraint_row(&self, k: usize) -> usize {
        self.constraints.len() + k
    }

    /// out += Phi_q^T lambda over the joint rows, handing each row's index and measure value
    /// (which comes with its gradient) to `value`; redundant rows are skipped.
    fn add_joint_forces(&self, q: &[f64], lambda: &[f64], out: &mut [f64], mut value: impl FnMut(usize, f64)) {
        for (r, (c, &l)) in self.constraints.iter().zip(lambda).enumerate() {
            if self.is_redundant(r) {
                continue;
            }
            c.measure.with_gradient(q, |v, gradient| {
                for (g, &i) in gradient.iter().zip(c.measure.dofs()) {
                    out[i] += g * l;
                }
                value(r, v);
            });
        }
    }

    /// out += C_q^T lambda of the active contact constraint rows (paper 004 eq. 5a).
    fn add_contact_constraint_forces(&self, q: &[f64], lambda: &[f64], out: &mut [f64]) {
        for (c, &l) in self.contact_constraints.iter().zip(&lambda[self.constraints.len()..]) {
            if c.is_active() {
                // C_q = -s_q.
                c.with_gap_derivatives(q, |gradient, _| {
                    for (g, &i) in gradient.iter().zip(c.gap.dofs()) {
                        out[i] -= g * l;
                    }
                });
            }
        }
    }

    /// The contact constraint rows of Phi: the penetration (paper 004 eq. 5b) while active,
    /// the trivial row (zero residual) while separated.
    fn contact_constraint_residuals(&self, q: &[f64], phi: &mut [f64]) {
        for (p, c) in phi.iter_mut().zip(&self.contact_constraints) {
            *p = if c.is_active() { c.penetration(q) } else { 0.0 };
        }
    }

    /// Whether joint row `r` is redundant (see `set_redundant`).
    pub fn is_redundant(&self, r: usize) -> bool {
        self.redundant.get(r).copied().unwrap_or(false)
    }

    /// Whether any joint row is redundant (`set_redundant`).
    pub fn has_redundant_rows(&self) -> bool {
        self.redundant.contains(&true)
    }

    /// Treat the joint rows `rows` as redundant: each is replaced by the trivial row
    /// d_lambda = 0 (residual 0), so its multiplier stays 0 and the Newton matrix keeps full
    /// rank. Valid while the rank of Phi_q stays that of the initial state: the rows kept
    /// then imply the dropped ones (`redundant_violation` checks it). Rebuilds the pattern.
    pub fn set_redundant(&mut self, rows: &[usize]) {
        self.redundant = vec![false; self.constraints.len()];
        for &r in rows {
            self.redundant[r] = true;
        }
        if rows.is_empty() {
            self.redundant.clear();
        }
        self.finish();
    }

    /// Close the separated contact rows that penetrate by more than `depth` at q (a static
    /// solve that moved a body into a support it had not reached: `Simulation::settle_static`;
    /// a negative depth also closes those apart by less than -depth). Returns whether any was
    /// closed.
    pub fn close_penetrated_contacts(&mut self, q: &[f64], depth: f64) -> bool {
        let mut closed = false;
        for c in &mut self.contact_constraints {
            if !c.is_active() && c.penetration(q) > depth {
                c.close();
                closed = true;
            }
        }
        if closed {
            self.mark_dependent_contacts(q);
        }
        closed
    }

    /// Mark the active contact rows that depend on one another or on the joints: rows that
    /// share coordinates with a first one (contacts of one body with the ground or with another
    /// body), with the joint rows on that one's coordinates, whose gradients at q, over the
    /// coordinates they act on together, have a lower rank than their number (four corners of a
    /// box on a floor, three collinear points, a contact given twice, a pinned bar on two
    /// supports; a support at a body's reference point acts on its translations only). Only
    /// those are regularized (`regularize_contacts`), so a model whose contacts are
    /// independent is solved as without.
    fn mark_dependent_contacts(&mut self, q: &[f64]) {
        let (contacts, grouped) = (&mut self.contact_constraints, &mut self.contact_grouped);
        grouped.iter_mut().for_each(|g| *g = false);
        for c in contacts.iter_mut() {
            c.set_dependent(false);
        }
        let shares = |a: &ContactGap, b: &ContactGap| a.dofs().iter().any(|i| b.dofs().contains(i));
        let (joints, redundant) = (&self.constraints, &self.redundant);
        for k in 0..contacts.len() {
            if grouped[k] || !contacts[k].is_active() {
                continue;
            }
            let dependent = {
                let first = &contacts[k].gap;
                let members = |j: &usize| !grouped[*j] && contacts[*j].is_active() && shares(first, &contacts[*j].gap);
                let held =
                    |r: &usize| !redundant.get(*r).copied().unwrap_or(false) && shares(first, &joints[*r].measure);
                if (k..contacts.len()).filter(members).count() < 2 && !(0..joints.len()).any(|r| held(&r)) {
                    continue;
                }
                let rows = (0..joints.len()).filter(held).map(|r| (&joints[r].measure, false));
                let rows = rows.chain((k..contacts.len()).filter(members).map(|j| (&contacts[j].gap, true)));
                !independent_rows(rows, q)
            };
            for j in k..contacts.len() {
                if !grouped[j] && contacts[j].is_active() && shares(&contacts[k].gap, &contacts[j].gap) {
                    grouped[j] = true;
                    if dependent {
                        contacts[j].set_dependent(true);
                    }
                }
            }
        }
    }

    /// The solver's step h, which sets the dependent contact rows' compliance to delta h^2 / 4
    /// (`regularize_contacts`): a penetration that does not change with the step, as it must
    /// not (with the shift delta itself, the penetration beta' delta lambda scaled with the
    /// step's square, and an event's 2.5e-11 s step had to remove 3.4e-11 m: 1.4 m/s and
    /// 9e11 N in a probe's bar, its energy_dissipated going to -7.7 J).
    pub fn set_nominal_step(&mut self, h: f64) {
        if h.is_finite() && h > 0.0 {
            self.contact_beta = 0.25 * h * h;
        }
    }

    /// The regularization of the contact rows: while active and dependent on other active rows
    /// (`mark_dependent_contacts`), row k is compliant, Phi_k = c lambda_k with
    /// c = delta beta_nominal (`set_nominal_step`): in the Newton iteration it reads
    /// Phi_k / beta' - (c / beta') lambda_k = 0, the matrix's diagonal shifted by -c / beta' and
    /// the residual by (c / beta') lambda_k (`Dynamics::add_regularization`); the index-1 solves
    /// shift by delta and refine it away (`SparseLu::solve_unshifted`). Dependent rows (a box on
    /// four corner contacts, a bar on three collinear points: the contacts hold the body
    /// statically indeterminately) leave the matrix singular otherwise, and with the shift in
    /// the matrix alone the part of the multipliers the equations do not fix took up round-off
    /// each iteration (a probe's table drifted from a quarter of its weight on each foot to half
    /// on two diagonal feet in 0.3 s). With the same c on every row that part is that of equal
    /// compliances: the least-norm split. The penetration c lambda is of order 1e-5 h^2 / 4
    /// times the contact accelerations, and its work is counted as dissipated (`power`).
    /// delta = CONTACT_REGULARIZATION times the largest row's C diag(M)^-1 C^T at q (capped at
    /// REGULARIZATION_SPREAD times each row's own).
    pub fn regularize_contacts(&mut self, q: &[f64]) {
        if self.contact_constraints.is_empty() {
            return;
        }
        // The Newton matrix with the mass coefficient alone: M on the coordinates' block.
        let mut mass = self.newton_pattern();
        let (zeros, lambda) = (vec![0.0; self.n], vec![0.0; self.constraints()]);
        let c = TangentCoefficients { mass: 1.0, damping: 0.0, stiffness: 0.0, lambda: 0.0 };
        self.newton_matrix(q, &zeros, &zeros, &lambda, 0.0, c, &mut mass);
        let reach: Vec<f64> = self
            .contact_constraints
            .iter()
            .zip(&self.contact_slots)
            .map(|(con, ((_, _, hess), _))| {
                con.with_gap_derivatives(q, |gradient, _| {
                    let nd = gradient.len();
                    gradient
                        .iter()
                        .enumerate()
                        .map(|(k, g)| {
                            let a = mass.values[hess[k * nd + k]];
                            if a > 0.0 { g * g / a } else { 0.0 }
                        })
                        .sum::<f64>()
                })
            })
            .collect();
        let largest = reach.iter().copied().filter(|r| r.is_finite()).fold(0.0f64, f64::max);
        for (con, r) in self.contact_constraints.iter_mut().zip(reach) {
            con.regularization = CONTACT_REGULARIZATION * largest.min(REGULARIZATION_SPREAD * r);
        }
    }

    /// The largest |Phi| of the redundant rows at (q, t) and its row: the rows kept imply
    /// them only while the rank of Phi_q stays constant.
    pub fn redundant_violation(&self, q: &[f64], t: f64) -> Option<(usize, f64)> {
        (0..self.constraints.len())
            .filter(|&r| self.is_redundant(r))
            .map(|r| (r, self.constraints[r].residual(q, t, &self.inputs, &self.input_rates).abs()))
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// Freeze the sparsity pattern and compute every element's matrix slots.
    pub fn finish(&mut self) {
        let (n, m) = (self.n, self.constraints.len() + self.contact_constraints.len());
        let mut b = PatternBuilder::new(n + m);
        for g in &self.groups {
            g.add_pattern(&mut b);
        }
        for (r, c) in self.constraints.iter().enumerate() {
            if self.is_redundant(r) {
                b.block(&[n + r], &[n + r]);
                continue;
            }
            let d = c.measure.dofs();
            b.block(&[n + r], d);
            b.block(d, &[n + r]);
            b.block(d, d);
        }
        // A contact's row, column and gap curvature are zero while it is open: a switchable
        // part, left out of the factorization then (src/linalg/switching.rs).
        let rows = self.constraints.len();
        for (k, c) in self.contact_constraints.iter().enumerate() {
            let d = c.gap.dofs();
            let part = b.switchable_part();
            b.switchable_block(part, &[n + rows + k], d);
            b.switchable_block(part, d, &[n + rows + k]);
            b.switchable_block(part, d, d);
        }
        self.pattern = b.build();
        self.contact_grouped = vec![false; self.contact_constraints.len()];
        self.body_index.clear();
        self.body_index.reserve(self.bodies.len());
        for (i, body) in self.bodies.iter().enumerate() {
            self.body_index.entry(body.name.clone()).or_insert(i);
        }
        let p = &self.pattern;
        for g in &mut self.groups {
            g.compute_slots(p);
        }
        let inputs = self.inputs.len();
        self.input_groups =
            (0..self.groups.len()).filter(|&g| (0..inputs).any(|i| self.groups[g].reads_input(i))).collect();
        self.power_groups = (0..self.groups.len()).filter(|&g| self.groups[g].non_conservative()).collect();
        self.drive_rows = (0..self.constraints.len()).filter(|&r| self.constraints[r].drive.is_some()).collect();
        self.constraint_slots = self
            .constraints
            .iter()
            .enumerate()
            .map(|(r, c)| {
                if self.redundant.get(r).copied().unwrap_or(false) {
                    // The diagonal slot of the trivial row.
                    return (p.block_slots(&[n + r], &[n + r]), Vec::new(), Vec::new());
                }
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

    /// The constraint rows Phi_q and columns c.lambda Phi_q^T of the Newton matrix, with the
    /// multipliers' curvature c.stiffness lambda Phi_qq (redundant and inactive contact rows
    /// trivial: d_lambda = 0), added to `m`.
    fn add_constraint_blocks(&self, q: &[f64], lambda: &[f64], c: TangentCoefficients, m: &mut SparseMatrix) {
        for (r, ((con, (row, col, hess)), &l)) in
            self.constraints.iter().zip(&self.constraint_slots).zip(lambda).enumerate()
        {
            if self.is_redundant(r) {
                // The trivial row d_lambda = 0 (its residual is zero).
                m.values[row[0]] += 1.0;
                continue;
            }
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
        let (n, rows) = (self.n, self.constraints.len());
        for (k, ((con, ((row, col, hess), diagonal)), &l)) in
            self.contact_constraints.iter().zip(&self.contact_slots).zip(&lambda[rows..]).enumerate()
        {
            if !con.is_active() {
                // The trivial row d_lambda = 0 (its residual is zero).
                m.values[*diagonal] += 1.0;
                continue;
            }
            // C_q = -s_q, C_qq = -s_qq.
            con.with_gap_derivatives(q, |gradient, hessian| {
                let delta = con.active_regularization(c.stiffness, self.contact_beta);
                if delta > 0.0 {
                    m.shift_diagonal(n + rows + k, *diagonal, delta);
                }
                for (k, g) in gradient.iter().enumerate() {
                    m.values[row[k]] -= g;
                    m.values[col[k]] -= c.lambda * g;
                }
                for (k, &s) in hess.iter().enumerate() {
                    m.values[s] -= c.stiffness * l * hessian[k];
                }
            });
        }
    }

    /// The coordinates of the elements that tie their nodes into one structure (beams,
    /// plates: `Element::TIES`), each once, in increasing order.
    pub fn structure_coordinates(&self) -> Vec<usize> {
        let mut tied = vec![false; self.n];
        for g in &self.groups {
            g.ties(&mut |dofs, _| dofs.iter().for_each(|&i| tied[i] = true));
        }
        (0..self.n).filter(|&i| tied[i]).collect()
    }

    /// The strain stiffness of the tying elements (`structure_coordinates`, `Element::add_strain_stiffness`) at q and t at rest, with the
    /// constraint rows and columns Phi_q of `newton_matrix` (no multipliers), into `m` (the
    /// Newton pattern): the matrix of the least-strain-rate initial velocities
    /// (`initial_state`).
    pub fn structure_stiffness_matrix(&self, q: &[f64], t: f64, m: &mut SparseMatrix) {
        m.clear();
        let rest = vec![0.0; self.n];
        let x = self.kin(q, &rest, &rest, t);
        let c = TangentCoefficients { mass: 0.0, damping: 0.0, stiffness: 1.0, lambda: 1.0 };
        let mut block = m.take_block();
        for g in &self.groups {
            let mut ties = false;
            g.ties(&mut |_, _| ties = true);
            if ties {
                // Their strain alone: the weight's load stiffness made the initial velocities
                // of a beam hinged to a driven crank depend on gravity and the mesh (a probe:
                // -0.15 rad/s with one element, 2.63 with two, 2.2274 expected).
                g.assemble_strain_stiffness(&x, &mut block, m);
            }
        }
        m.put_block(block);
        let lambda = vec![0.0; self.constraints()];
        self.add_constraint_blocks(q, &lambda, c, m);
    }

    /// The Newton matrix (the Newton pattern) at q and t at rest (v = a = 0, no multipliers)
    /// with coefficients `c`: the elements' stiffness for c.stiffness = 1, their mass matrix for
    /// c.mass = 1, with the constraint rows Phi_q.
    pub fn matrix_at_rest(&self, q: &[f64], t: f64, c: TangentCoefficients) -> SparseMatrix {
        let mut m = self.newton_pattern();
        let (rest, lambda) = (vec![0.0; self.n], vec![0.0; self.constraints()]);
        self.newton_matrix(q, &rest, &rest, &lambda, t, c, &mut m);
        m
    }

    /// The largest diagonal entry of the elements' stiffness at q and t at rest (N/m or
    /// N m/rad): the scale of their energy's round-off (`BalanceWatch`).
    pub fn largest_stiffness(&self, q: &[f64], t: f64) -> f64 {
        let c = TangentCoefficients { mass: 0.0, damping: 0.0, stiffness: 1.0, lambda: 0.0 };
        let m = self.matrix_at_rest(q, t, c);
        m.entries().filter(|&(i, j, _)| i == j && i < self.n).fold(0.0, |k, (_, _, x)| k.max(x.abs()))
    }

    fn kin<'a>(&'a self, q: &'a [f64], v: &'a [f64], a: &'a [f64], t: f64) -> Kin<'a> {
        Kin { q, v, a, t, inputs: &self.inputs, rates: &self.input_rates }
    }

    /// The largest |rate| and |acceleration| the drives prescribe at time t (m/s or rad/s and
    /// their rates, with the current inputs and their rates); 0 without drives.
    pub fn largest_drive_rates(&self, t: f64) -> [f64; 2] {
        self.drive_rows.iter().fold([0.0f64; 2], |[v, a], &r| {
            let [_, d1, d2] = self.constraints[r].prescribed(t, &self.inputs, &self.input_rates);
            [v.max(d1.abs()), a.max(d2.abs())]
        })
    }

    /// Kinetic and potential (gravity + springs + strain) energy.
    pub fn energy(&self, q: &[f64], v: &[f64], t: f64) -> Energy {
        self.energy_with_inputs(q, v, t, &self.inputs)
    }

    /// `energy` with the input values `inputs` (a spring's potential reads its free length
    /// s0(t, u)).
    pub fn energy_with_inputs(&self, q: &[f64], v: &[f64], t: f64, inputs: &[f64]) -> Energy {
        let x = Kin { q, v, a: v, t, inputs, rates: &self.input_rates };
        let mut e = Energy::default();
        for g in &self.groups {
            e += g.energy(&x);
        }
        e
    }

    /// Record an accepted state in the history of elements with memory (fractional
    /// dampers sample q; contacts track approach rates and impact speeds).
    pub fn record_history(&mut self, q: &[f64], v: &[f64], t: f64) {
        for g in &mut self.groups {
            g.record(q, v, t);
        }
    }

    /// The forces are about to be evaluated at `times` near the accepted time t, along the
    /// motion from the state there (`Element::follow_motion`); `times` empty: back to stepping.
    pub fn follow_motion(&mut self, t: f64, times: &[f64]) {
        for g in &mut self.groups {
            g.follow_motion(t, times);
        }
    }

    /// On: forces as at rest for all time (static analysis, `Element::at_rest`); off: back to
    /// stepping.
    pub fn at_rest(&mut self, on: bool) {
        for g in &mut self.groups {
            g.at_rest(on);
        }
    }

    /// The histories of the elements with memory (part of snapshots).
    pub fn history(&self) -> History {
        let mut h = History::default();
        self.history_into(&mut h);
        h
    }

    /// The histories into `h`, reusing its lists and entries (no allocation once they have
    /// their length; a fractional damper's samples are copied into the previous copy).
    pub fn history_into(&self, h: &mut History) {
        let mut w = HistoryWriter::new(h);
        for g in &self.groups {
            g.save_history(&mut w);
        }
        w.finish();
        h.contact_constraints.clear();
        h.contact_constraints.extend(self.contact_constraints.iter().map(|c| c.memory()));
    }

    /// Continue from `history`; refused (and nothing changed) unless it has one valid entry
    /// per element with memory.
    pub fn set_history(&mut self, history: History) -> Result<(), String> {
        let mut counts = MemoryCounts::default();
        for g in &self.groups {
            g.history_count(&mut counts);
        }
        let constraints = ("contact constraints", history.contact_constraints.len(), self.contact_constraints.len());
        let mismatch = counts.mismatch(&history).or((constraints.1 != constraints.2).then_some(constraints));
        if let Some((what, got, expected)) = mismatch {
            return Err(format!("the history has {got} {what}, the model {expected}"));
        }
        history.validate()?;
        let mut history = history;
        for (c, m) in self.contact_constraints.iter_mut().zip(std::mem::take(&mut history.contact_constraints)) {
            c.set_memory(m);
        }
        let mut reader = history.reader();
        for g in &mut self.groups {
            g.load_history(&mut reader);
        }
        Ok(())
    }

    /// The potential energy of the elements that read inputs, at the current inputs: a
    /// spring's k (s - s0(t, u))^2 / 2. An input that changes at a communication point changes
    /// it at once by the work the change supplies (`Simulation::set_input`).
    pub fn input_potential(&self, q: &[f64], v: &[f64], t: f64) -> f64 {
        let x = self.kin(q, v, v, t);
        self.input_groups.iter().map(|&g| self.groups[g].energy(&x).potential).sum()
    }

    /// Whether the forces of some element read input `i` (`Element::inputs_read`).
    pub fn reads_input(&self, i: usize) -> bool {
        self.groups.iter().any(|g| g.reads_input(i))
    }

    /// dg/du_i at (q, v, t) and the inputs `inputs`: the derivative of the elements' forces
    /// (`Dynamics::forces`) with respect to input `i`, into `out` (overwritten). Only the
    /// elements that read input i (`Element::reads_input`) contribute; drives reading inputs
    /// are constraint rows, not elements.
    pub fn input_force_derivative(&self, q: &[f64], v: &[f64], t: f64, inputs: &[f64], i: usize, out: &mut [f64]) {
        out.fill(0.0);
        self.add_input_force_derivative(q, v, t, inputs, i, out);
    }

    /// `input_force_derivative` added into `out`, which changes only at `input_dofs(i)`.
    pub fn add_input_force_derivative(&self, q: &[f64], v: &[f64], t: f64, inputs: &[f64], i: usize, out: &mut [f64]) {
        let x = Kin { q, v, a: v, t, inputs, rates: &self.input_rates };
        for g in &self.groups {
            g.add_input_derivative(&x, i, out);
        }
    }

    /// The coordinates the elements reading input `i` act on (ascending, each once).
    pub fn input_dofs(&self, i: usize) -> Vec<usize> {
        let mut dofs = Vec::new();
        for g in &self.groups {
            g.input_dofs(i, &mut dofs);
        }
        dofs.sort_unstable();
        dofs.dedup();
        dofs
    }

    /// The energy of the elements reading input `i` at (q, v, t) and the inputs `inputs`: the
    /// part of the energy the inputs can change.
    pub fn input_energy(&self, q: &[f64], v: &[f64], t: f64, inputs: &[f64], i: usize) -> Energy {
        let x = Kin { q, v, a: v, t, inputs, rates: &self.input_rates };
        let mut e = Energy::default();
        for g in &self.groups {
            e += g.input_energy(&x, i);
        }
        e
    }

    /// Why the formulation of an element no longer holds at the configuration q, naming the
    /// bodies or beam nodes it joins (`Element::outside_formulation`); None while all hold.
    pub fn outside_formulation(&self, q: &[f64]) -> Option<String> {
        let (dofs, why) = self.groups.iter().find_map(|g| g.outside_formulation(q))?;
        // Each node once, by the first of its names (`arm.node[4]`, not also `arm.end`).
        let names: Vec<&str> =
            dofs.iter().filter_map(|&d| self.bodies.iter().find(|b| b.x == d)).map(|b| b.name.as_str()).collect();
        match names[..] {
            [one] => Some(format!("the element of {one}: {why}")),
            [a, b] => Some(format!("the element between {a} and {b}: {why}")),
            _ => Some(format!(
                "the element of {} bodies ({} ... {}): {why}",
                names.len(),
                names[0],
                names[names.len() - 1]
            )),
        }
    }

    /// Keep `f`, said as `label` (what and where it is in the model file), for
    /// `non_finite_expression`; with `derivatives` its first two time derivatives count too.
    pub fn watch(&mut self, label: String, f: &Expr, derivatives: bool) {
        if f.constant().is_none() {
            self.watched.push(Watched { label, f: f.clone(), derivatives });
        }
    }

    /// The first watched expression (`watch`) that is not finite at time t with the current
    /// inputs: what a force or drive that "evaluated to NaN or infinity" came from (a probe's
    /// load value sqrt(t - 1) was reported without its name or place).
    pub fn non_finite_expression(&self, t: f64) -> Option<String> {
        self.watched.iter().find_map(|w| {
            let [value, rate, acceleration] = match w.derivatives {
                true => w.f.eval_time_jet(t, &self.inputs, &self.input_rates),
                false => [w.f.eval_interpolated(t, &self.inputs, &self.input_rates), 0.0, 0.0],
            };
            let parts =
                [("is", value), ("has a rate that is", rate), ("has a second derivative that is", acceleration)];
            let (what, x) = parts.into_iter().find(|(_, x)| !x.is_finite())?;
            let x = if x.is_nan() { "NaN" } else { "infinite" };
            Some(format!("{} {what} {x} at t = {}", w.label, Compact(t)))
        })
    }

    /// The first force contact's impact warning (`Element::impact_warning`), if one has any.
    pub fn impact_warning(&self) -> Option<String> {
        self.groups.iter().find_map(|g| g.impact_warning())
    }

    pub fn body(&self, name: &str) -> Option<&BodyInfo> {
        // The index is built by `finish`; bodies added after it are found by a scan.
        match self.body_index.get(name).and_then(|&i| self.bodies.get(i)) {
            Some(b) if b.name == name => Some(b),
            _ => self.bodies.iter().find(|b| b.name == name),
        }
    }
}

/// Whether the contact rows among `rows` (those marked true) are linearly independent of the
/// rows before them, over the union of the coordinates all act on: modified Gram-Schmidt on the
/// unit gradients at q, a row dependent when less than 1e-9 of it is left (a box's fourth
/// corner: exactly 0 up to round-off); joint rows (marked false) that depend on earlier ones
/// are passed over. On the stack up to 16 coordinates and rows (a rigid-body pair has 14), so
/// an event allocates nothing; larger groups (a floating-frame beam point's modes, a chain of
/// jointed bodies) are taken as independent.
fn independent_rows<'a>(rows: impl Iterator<Item = (&'a ContactGap, bool)> + Clone, q: &[f64]) -> bool {
    const MAX: usize = 16;
    let mut union = [0usize; MAX];
    let mut size = 0;
    for (row, _) in rows.clone() {
        for &i in row.dofs() {
            if !union[..size].contains(&i) {
                if size == MAX {
                    return true;
                }
                union[size] = i;
                size += 1;
            }
        }
    }
    let mut basis = [[0.0f64; MAX]; MAX];
    let mut count = 0;
    for (row, contact) in rows {
        let added = row.with_derivatives(q, |_, gradient, _| {
            let mut g = [0.0f64; MAX];
            for (&i, d) in row.dofs().iter().zip(gradient) {
                let at = union[..size].iter().position(|&u| u == i).expect("in the union");
                g[at] += d;
            }
            let norm = g.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm == 0.0 || count == MAX {
                return false;
            }
            g.iter_mut().for_each(|x| *x /= norm);
            for _ in 0..2 {
                for b in &basis[..count] {
                    let d: f64 = b.iter().zip(&g).map(|(x, y)| x * y).sum();
                    g.iter_mut().zip(b).for_each(|(x, y)| *x -= d * y);
                }
            }
            let left = g.iter().map(|x| x * x).sum::<f64>().sqrt();
            if left < 1e-9 {
                return false;
            }
            basis[count] = g.map(|x| x / left);
            count += 1;
            true
        });
        if !added && contact {
            return false;
        }
    }
    true
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
        for g in &self.groups {
            g.add_forces(&x, inertial, forces);
        }
    }

    fn constraint_residual(&self, q: &[f64], t: f64, phi: &mut [f64]) {
        let (joints, contacts) = phi.split_at_mut(self.constraints.len());
        for (r, (p, c)) in joints.iter_mut().zip(&self.constraints).enumerate() {
            *p = if self.is_redundant(r) { 0.0 } else { c.residual(q, t, &self.inputs, &self.input_rates) };
        }
        self.contact_constraint_residuals(q, contacts);
    }

    fn add_constraint_forces(&self, q: &[f64], lambda: &[f64], out: &mut [f64]) {
        self.add_joint_forces(q, lambda, out, |_, _| {});
        self.add_contact_constraint_forces(q, lambda, out);
    }

    fn add_constraint_forces_and_residual(&self, q: &[f64], t: f64, lambda: &[f64], out: &mut [f64], phi: &mut [f64]) {
        let (joints, contacts) = phi.split_at_mut(self.constraints.len());
        joints.fill(0.0);
        self.add_joint_forces(q, lambda, out, |r, value| {
            joints[r] = self.constraints[r].residual_of(value, t, &self.inputs, &self.input_rates);
        });
        self.add_contact_constraint_forces(q, lambda, out);
        self.contact_constraint_residuals(q, contacts);
    }

    fn add_regularization(&self, lambda: &[f64], beta: f64, rows: &mut [f64]) -> bool {
        let joints = self.constraints.len();
        let mut any = false;
        for ((r, c), l) in rows[joints..].iter_mut().zip(&self.contact_constraints).zip(&lambda[joints..]) {
            let delta = c.active_regularization(beta, self.contact_beta);
            if delta > 0.0 {
                *r += delta * l;
                any = true;
            }
        }
        any
    }

    fn constraint_velocity(&self, q: &[f64], v: &[f64], t: f64, phi_dot: &mut [f64]) {
        // Phi_q v + Phi_t; Phi_t = -f' on a driving row.
        for (r, (p, c)) in phi_dot.iter_mut().zip(&self.constraints).enumerate() {
            if self.is_redundant(r) {
                *p = 0.0;
                continue;
            }
            *p = c
                .measure
                .with_gradient(q, |_, gradient| c.measure.dofs().iter().zip(gradient).map(|(&i, g)| g * v[i]).sum());
            if c.drive.is_some() {
                *p -= c.prescribed(t, &self.inputs, &self.input_rates)[1];
            }
        }
        for (p, c) in phi_dot[self.constraints.len()..].iter_mut().zip(&self.contact_constraints) {
            *p = if c.is_active() { c.approach_rate(q, v) } else { 0.0 };
        }
    }

    fn constraint_acceleration_rhs(&self, q: &[f64], v: &[f64], t: f64, gamma: &mut [f64]) {
        // gamma = -(Phi_q q')_q q' - Phi_tt (no Phi_qt: f depends on t alone); Phi_tt = -f''.
        for (r, (g, c)) in gamma.iter_mut().zip(&self.constraints).enumerate() {
            if self.is_redundant(r) {
                *g = 0.0;
                continue;
            }
            *g = -c.measure.with_derivatives(q, |_, _, hessian| quadratic_form(c.measure.dofs(), hessian, v));
            if c.drive.is_some() {
                *g += c.prescribed(t, &self.inputs, &self.input_rates)[2];
            }
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
        let mut block = m.take_block();
        for g in &self.groups {
            g.assemble_tangent(&x, &c, &mut block, m);
        }
        m.put_block(block);
        self.add_constraint_blocks(q, lambda, c, m);
    }

    fn mechanical_energy(&self, q: &[f64], v: &[f64], t: f64) -> (f64, f64) {
        let e = self.energy(q, v, t);
        (e.kinetic, e.potential)
    }

    fn power(&self, q: &[f64], v: &[f64], lambda: &[f64], t: f64, stride: &Stride) -> EnergyFlow {
        let x = self.kin(q, v, v, t);
        // Summed in registration order over the non-conservative kinds.
        let mut p = EnergyFlow::default();
        for &g in &self.power_groups {
            p = p + self.groups[g].power(&x, stride);
        }
        // A drive applies -lambda along its coordinate; its work is that force times the
        // coordinate's change over the step, as a load's is (`stages::work_along`), rather than
        // times the prescribed rate f' at the step's points: at a kink of f (min(t, T), the
        // documented form of a drive that stops) f' at a step ending on T is one side's, and
        // the balance of a slider-crank lost 0.44 J of 97 J there, halving only with the step
        // (a probe written from the docs).
        for &r in &self.drive_rows {
            p.supplied -= lambda[r] * self.constraints[r].measure_change(stride.start, stride.end) / stride.h;
        }
        // A regularized contact row gives by c lambda (`regularize_contacts`): the work its
        // force does on that penetration leaves the motion (a table settling 5e-12 m onto its
        // four feet was warned of losing 100 % of the 4.6e-10 J in play), and comes back when
        // the row is exact again (a support lifting off leaves the others independent, and
        // their penetration goes in the next step: without it the step "gained energy" and was
        // refused down to the smallest step). On an exact row the penetration does not change.
        let rows = self.constraints.len();
        for (c, l) in self.contact_constraints.iter().zip(&lambda[rows..]) {
            if c.is_active() {
                p.dissipated += l * stride.rate(|q| c.penetration(q));
            }
        }
        p
    }

    fn carry_with_drives(&self, q: &mut [f64], v: &mut [f64], t: f64) {
        System::carry_with_drives(self, q, v, t);
    }

    /// The first switch of a kink of a drive expression (`Expr::kink_switch`) in (t0, t1].
    fn kink(&self, t0: f64, t1: f64) -> Option<f64> {
        let mut first: Option<f64> = None;
        for &r in &self.drive_rows {
            let Some(f) = &self.constraints[r].drive else { continue };
            for k in 0..f.kink_count() {
                let g = |t| f.kink_switch(k, t, &self.inputs, &self.input_rates);
                if let Some(tk) = first_switch(g, t0, first.unwrap_or(t1)) {
                    first = Some(tk);
                }
            }
        }
        first
    }

    fn prepare(&mut self, times: &[f64]) {
        for g in &mut self.groups {
            g.prepare(times);
        }
    }

    fn step_accepted(&mut self, q: &[f64], v: &[f64], t: f64) {
        self.record_history(q, v, t);
    }

    /// Compliant contacts, and contact constraints between bodies of some size (a step must
    /// not pass over them: `contact_step_limit`).
    fn has_contact_time_scales(&self) -> bool {
        self.groups.iter().any(|g| g.has_contact_time_scales())
            || self.contact_constraints.iter().any(|c| c.reach > 0.0)
    }

    fn contact_outlook(&self, q: &[f64], v: &[f64], t: f64, horizon: f64) -> ContactOutlook {
        let closing = self.contact_constraints.iter().any(|c| c.closing_within(q, v, horizon).is_some());
        let constraints = ContactOutlook { closing, in_impact: false };
        self.groups.iter().fold(constraints, |o, g| o.and(g.contact_outlook(q, v, t, horizon)))
    }

    fn contact_step_limit(
        &mut self,
        q: &[f64],
        v: &[f64],
        t: f64,
        horizon: f64,
        fraction: f64,
        inverse_mass: &mut dyn FnMut(&[usize], &[f64]) -> f64,
    ) -> f64 {
        // A contact constraint closing within the step: its onset and then at most half the
        // time to cross its radii at that rate, so that the step ends with the bodies
        // overlapping and the event is located (no resolution is needed: the impact is a jump).
        // A longer step passed over the whole contact (two spheres whose centres cross in one
        // step: no sign change of the gap at its ends); a probe's sphere at 250 m/s went
        // through another in a 1 ms step without an impact.
        let constraints = self
            .contact_constraints
            .iter()
            .filter(|c| c.reach > 0.0)
            .filter_map(|c| c.closing_within(q, v, horizon).map(|(onset, rate)| onset + 0.5 * c.reach / rate))
            .fold(f64::INFINITY, f64::min);
        self.groups
            .iter_mut()
            .filter(|g| g.has_contact_time_scales())
            .map(|g| g.contact_step_limit(q, v, t, horizon, fraction, inverse_mass))
            .fold(constraints, f64::min)
    }

    /// The elements' events (one per contact force: its penetration, whose zeros are contact
    /// onset and separation), then one per contact constraint: onset while separated, its
    /// multiplier while active.
    fn event_count(&self) -> usize {
        self.groups.iter().map(|g| g.event_count()).sum::<usize>() + self.contact_constraints.len()
    }

    fn event_functions(&self, q: &[f64], _v: &[f64], lambda: &[f64], _t: f64, out: &mut [f64]) {
        let elements = self.groups.iter().map(|g| g.event_count()).sum::<usize>();
        let (mut forces, constraints) = out.split_at_mut(elements);
        for g in &self.groups {
            let (here, rest) = forces.split_at_mut(g.event_count());
            g.event_functions(q, here);
            forces = rest;
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
        // Touching contacts take part in an impact one after another, as the motion reaches
        // them: in a round where a row impacts, rows that only touch wait (the next round sees
        // whether the impulse made them approach), and an active row without load (its
        // multiplier within round-off of the model's forces: the larger of the largest
        // multiplier and the kinetic energy per model length) is released. Otherwise whether
        // a touching row joined an impulse was decided by the sign of round-off, and so by the
        // integrator (five touching balls gave three different outcomes, one dissipating with
        // e = 1).
        let impact = self.contact_constraints.iter().any(|c| c.impacts(q, v));
        // Only active rows read it: the energy is not evaluated at the events of models with none
        // (compliant contacts, a row of separated balls).
        let unloaded = if self.contact_constraints.iter().any(|c| c.is_active()) {
            let length = 1.0 + q.iter().fold(0.0f64, |a, x| a.max(x.abs()));
            1e-9 * lambda.iter().fold(self.mechanical_energy(q, v, t).0 / length, |a, l| a.max(l.abs()))
        } else {
            0.0
        };
        for (k, c) in self.contact_constraints.iter_mut().enumerate() {
            match c.update(q, v, lambda[rows + k], t, impact, unloaded) {
                Ok(j) => {
                    jump[rows + k] = j;
                    action = EventAction::Jump;
                }
                Err(true) if action == EventAction::None => action = EventAction::Switch,
                Err(_) => {}
            }
        }
        if action != EventAction::None {
            self.mark_dependent_contacts(q);
        }
        action
    }

    /// Resting contact rows are separated with the onset offset at their penetration, so that
    /// their event function is 0 (reached): `event_update` takes an approaching row as an
    /// impact and releases a parting one.
    fn open_contacts(&mut self, q: &[f64]) -> bool {
        let mut opened = false;
        for c in &mut self.contact_constraints {
            if c.is_resting() {
                c.open(q);
                opened = true;
            }
        }
        if opened {
            self.mark_dependent_contacts(q);
        }
        opened
    }

    /// Resting contact rows (not one that is taking its impact) whose impulse is tensile
    /// beyond round-off of the largest one (1e-9, as `event_update`'s unloaded rows) are
    /// released.
    fn release_tensile(&mut self, q: &[f64], impulse: &[f64]) -> bool {
        let rows = self.constraints.len();
        let round_off = 1e-9 * impulse.iter().fold(0.0f64, |a, p| a.max(p.abs()));
        let mut released = false;
        for (c, p) in self.contact_constraints.iter_mut().zip(&impulse[rows..]) {
            if c.is_resting() && *p < -round_off {
                c.release(q);
                released = true;
            }
        }
        if released {
            self.mark_dependent_contacts(q);
        }
        released
    }
}

/// The first time in (t0, t1] at which g has left the sign it has at t0 (reaching 0 counts),
/// by bisection to the last bit; None if g(t0) is 0 or NaN, or g(t1) has not left it.
fn first_switch(g: impl Fn(f64) -> f64, t0: f64, t1: f64) -> Option<f64> {
    let g0 = g(t0);
    if g0 == 0.0 || g0.is_nan() {
        return None;
    }
    let left = |t: f64| {
        let x = g(t);
        x == 0.0 || (x < 0.0 && g0 > 0.0) || (x > 0.0 && g0 < 0.0)
    };
    if !left(t1) {
        return None;
    }
    let (mut lo, mut hi) = (t0, t1);
    loop {
        let mid = lo + 0.5 * (hi - lo);
        if mid <= lo || mid >= hi {
            return Some(hi);
        }
        if left(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
}
