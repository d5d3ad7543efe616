//! Which outputs depend directly on which inputs at a communication point (FMI 2.0 sec.
//! 3.3.4 `<Outputs>` `dependencies`): an output depends directly on an input if setting the
//! input changes the output without a step.
//!
//! Inputs enter through the forces g(q, v, t, u) of the elements that read them
//! (`Element::reads_input`: load magnitudes, src/mechanics/forces/load.rs; spring free
//! lengths, src/mechanics/forces/spring_damper.rs) and through the drives' prescribed
//! accelerations (below). At a communication point q and v are fixed, so only
//! what is solved from the forces at that instant responds: the accelerations a and
//! multipliers lambda of the index-1 system
//!   [ M(q)   Phi_q^T ] [ a      ]   [ -g(q, v, t, u) ]
//!   [ Phi_q  0       ] [ lambda ] = [ gamma(q, v)    ]
//! (`Simulation::output_values`). Positions, velocities, the kinetic and dissipated energies
//! and the element states never read the current inputs; the potential energy reads them
//! where an element stores an energy of them (a spring's k (s - s0(t, u))^2 / 2), so
//! energy_total and energy_potential depend on input i when the potential changes with u_i
//! (`potential_reads_input`). An acceleration or multiplier responds to the forces on
//! the coordinates of its connected block of the matrix above: the inverse of an
//! irreducible matrix is structurally full (Duff, Erisman & Reid 2017, sec. 6.7), and
//! coordinates of another block cannot respond. So an output depends on input i exactly when
//! an acceleration or multiplier it reads lies in a block that contains a coordinate the
//! forces reading i act on or the row of a drive whose acceleration reads i.
//!
//! Where the joints hold. The configurations a run reaches satisfy the joints (to the
//! solver's tolerance), and there a matrix entry or an output's coefficient may vanish that
//! does not elsewhere: two point masses on slides along x = 0 touch along y whatever their
//! heights, so the contact's row never reaches their x coordinates. The blocks come from the
//! matrix's nonzeros at three configurations where the joints hold, the drives left free (every
//! value they may take): the current one and two about 1 % away (0.1 % or 0.01 % if the
//! Newton steps do not converge from there), moved back onto the joints (`onto_joints`,
//! mass-orthogonal Newton steps; a perturbation they cannot bring back is used as it is, which
//! only joins more). A coefficient like s sin(theta) vanishing at one configuration
//! still shows at another. Every contact constraint is treated as active (it may close later)
//! and joins the coordinates its gap's gradient reaches there. The coordinates the forces act
//! on are the nonzeros of dg/du_i (`System::input_force_derivative`, only the elements that
//! read u_i) at the current configuration and one perturbed without the joints, and they and
//! the drives are sampled at three times and three values of u_i (`samples`), so that a
//! coefficient vanishing at one point does not hide a dependence (a force along x on a point
//! mass acts on x, not on y).
//!
//! What an output reads. An output that re-solves accelerations and multipliers is linear in
//! them at a configuration; its candidates (`solved_unknowns`: a point's body coordinates, a
//! joint's rows) are narrowed to those it has a coefficient on at one of the three
//! configurations (`Reads::keep`): the centre of a rigid body has no arm for its angular
//! acceleration, a planar joint at body 2's reference point no torque about it, a prismatic
//! joint's rows no force along the slide. A component of a vector (a point's acceleration, a
//! joint's force or moment) below 1e-9 of the vector's coefficient there counts as zero: where
//! the joints hold it is zero, and what is left is their violation times the vector (the
//! moment of a revolute joint about its axis fixed in space is transmitted by no row, while its
//! other components are); a joint's moment about its point, the difference of two terms, also
//! below 1e-9 of their size (the rows holding the point exert a force through it).
//!
//! Not found: a coefficient that vanishes by the values of the model rather than its
//! structure. A torque about a wheel's axis needs no moment across it when the axis is a
//! principal axis of inertia, but the block and the coefficient are there (a product of
//! inertia would use them); telling would take the solve itself at sampled states and a
//! tolerance on its result, so such outputs are declared dependent.

use super::Simulation;
use crate::integrators::{Dynamics, EnergyFlow, TangentCoefficients};
use crate::linalg::SparseLu;
use crate::mechanics::System;
use crate::mechanics::kinematics::Anchor;
use crate::mechanics::outputs::{Output, OutputKind, OutputState};
use crate::mechanics::reactions;
use crate::model::expr::{Expr, InputRates};

/// Union-find over the n + m unknowns of the index-1 system.
struct Blocks {
    parent: Vec<usize>,
}

impl Blocks {
    fn new(size: usize) -> Self {
        Blocks { parent: (0..size).collect() }
    }

    fn root(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    fn join(&mut self, i: usize, j: usize) {
        let (a, b) = (self.root(i), self.root(j));
        if a != b {
            self.parent[a] = b;
        }
    }
}

/// What an output reads that the current inputs can change: accelerations (coordinate
/// indices) and multipliers (row indices), as candidates that `Reads::keep` narrows to those
/// the output's value has a coefficient on. `None`: the output reads neither.
fn solved_unknowns(kind: &OutputKind, sys: &System) -> Option<(Vec<usize>, Vec<usize>)> {
    if !kind.needs_accelerations() {
        return None;
    }
    let n = sys.coordinates();
    Some(match kind {
        OutputKind::Point { anchor, component, .. } => match *anchor {
            Anchor::Ground { .. } => (vec![], vec![]),
            Anchor::Point { x } | Anchor::Director { x, .. } => (vec![x + component], vec![]),
            Anchor::Rigid { x, .. } => (vec![x + component, x + 2], vec![]),
        },
        OutputKind::SpatialPoint { anchor, .. } => (anchor.dofs(), vec![]),
        OutputKind::Rotation { theta, .. } => (vec![*theta], vec![]),
        OutputKind::JointCoordinate { joint, coordinate, .. } => {
            let m = sys.joints[*joint].coordinates.get(*coordinate);
            (m.map_or_else(|| (0..n).collect(), |m| m.dofs().to_vec()), vec![])
        }
        OutputKind::DriveForce { row, .. } | OutputKind::LinkForce { row } => (vec![], vec![*row]),
        OutputKind::SectionAngle { anchor, .. } => (anchor.dofs(), vec![]),
        OutputKind::Reaction { joint, .. } | OutputKind::SpatialReaction { joint, .. } => {
            (vec![], sys.joints[*joint].rows.clone().collect())
        }
        // A spherical joint's moment is 0 whatever the multipliers.
        OutputKind::SpatialReactionTorque { joint, .. } if reactions::moment_free(&sys.joints[*joint]) => {
            (vec![], vec![])
        }
        OutputKind::SpatialReactionTorque { joint, .. } => (vec![], sys.joints[*joint].rows.clone().collect()),
        OutputKind::ContactConstraint { contact, .. } => (vec![], vec![sys.contact_constraint_row(*contact)]),
        OutputKind::SectionForce { beam, elements, .. } => {
            (crate::mechanics::section_forces::section_dofs(sys, *beam, elements), vec![])
        }
        // Any other kind that re-solves accelerations: every unknown (conservative).
        _ => ((0..n).collect(), (0..sys.constraints()).collect()),
    })
}

/// The outputs whose values with `kind` form one vector (the components of a point's
/// acceleration, of a joint's force, of its moment), `kind` among them; a scalar is its own.
fn vector_of(kind: &OutputKind) -> Vec<OutputKind> {
    match *kind {
        OutputKind::Point { anchor, order, .. } => {
            (0..2).map(|component| OutputKind::Point { anchor, component, order }).collect()
        }
        OutputKind::SpatialPoint { anchor, order, .. } => {
            (0..3).map(|component| OutputKind::SpatialPoint { anchor, component, order }).collect()
        }
        // The planar force; the torque (component 2) is a scalar of its own.
        OutputKind::Reaction { joint, component } if component < 2 => {
            (0..2).map(|component| OutputKind::Reaction { joint, component }).collect()
        }
        OutputKind::SpatialReaction { joint, .. } => {
            (0..3).map(|component| OutputKind::SpatialReaction { joint, component }).collect()
        }
        OutputKind::SpatialReactionTorque { joint, point, .. } => {
            (0..3).map(|component| OutputKind::SpatialReactionTorque { joint, point, component }).collect()
        }
        _ => vec![kind.clone()],
    }
}

/// A component below this fraction of its vector's coefficient (`vector_of`) at every sampled
/// configuration is zero where the joints hold: what is left is the joints' violation (the
/// projection's 1e-13, the solver's tolerance in a run) times the vector.
const NEGLIGIBLE: f64 = 1e-9;

/// The coefficients of the outputs on the accelerations and multipliers: an output that
/// re-solves them is linear in them at a configuration (at rest, v = 0, the rest of its value
/// vanishes), so its coefficient on unknown j is its value at a = e_j (j < n) or
/// lambda = e_(j - n), at the configurations `samples`.
struct Reads<'a> {
    sys: &'a System,
    t: f64,
    samples: Vec<Vec<f64>>,
    zeros: Vec<f64>,
    a: Vec<f64>,
    lambda: Vec<f64>,
}

impl Reads<'_> {
    /// The value of output `o` at configuration `q`, at rest, with a = e_j or lambda = e_(j - n).
    fn coefficient(&mut self, o: &Output, q: &[f64], j: usize) -> f64 {
        let n = self.a.len();
        let unit = if j < n { &mut self.a[j] } else { &mut self.lambda[j - n] };
        *unit = 1.0;
        let state = OutputState {
            q,
            v: &self.zeros,
            a: &self.a,
            lambda: &self.lambda,
            t: self.t,
            exchanged: EnergyFlow::default(),
            drive_inputs: &self.sys.inputs,
        };
        let c = o.eval(self.sys, &state);
        if j < n {
            self.a[j] = 0.0;
        } else {
            self.lambda[j - n] = 0.0;
        }
        c
    }

    /// Whether output `kind` has a coefficient on unknown `j` that is not negligible
    /// (`NEGLIGIBLE`) beside its vector's at one of the samples (kept if it is not finite);
    /// a joint's moment about its point is the difference of two terms, and beside their size
    /// too (`reactions::spatial_moment_terms`: the rows holding the point exert a force
    /// through it). A contact constraint's force reads its multiplier only while active:
    /// always kept.
    fn keep(&mut self, kind: &OutputKind, j: usize) -> bool {
        if matches!(kind, OutputKind::ContactConstraint { .. }) {
            return true;
        }
        let output =
            |kind: OutputKind| Output { name: String::new(), unit: String::new(), description: String::new(), kind };
        let own = output(kind.clone());
        let vector: Vec<Output> = vector_of(kind).into_iter().map(output).collect();
        let samples = std::mem::take(&mut self.samples);
        let kept = samples.iter().any(|q| {
            let c = self.coefficient(&own, q, j).abs();
            let mut scale = vector.iter().fold(0.0f64, |s, o| s.max(self.coefficient(o, q, j).abs()));
            if let OutputKind::SpatialReactionTorque { joint, point, .. } = kind {
                let n = self.a.len();
                self.lambda[j - n] = 1.0;
                let (_, terms) =
                    reactions::spatial_moment_terms(self.sys, &self.sys.joints[*joint], point, q, &self.lambda);
                self.lambda[j - n] = 0.0;
                scale = scale.max(terms);
            }
            c > NEGLIGIBLE * scale || !c.is_finite()
        });
        self.samples = samples;
        kept
    }
}

/// `p` moved onto the joints as a run finds them: Phi(q, t) = 0 with each drive held where `p`
/// puts its coordinate rather than at f(t, u) (the drives may take every value), contact
/// constraints as they are, by mass-orthogonal Newton steps on the index-1 matrix
/// [M, Phi_q^T; Phi_q, 0] (as `Workspace::project_onto_constraints`, sparse); None if they do
/// not bring it within 1e-13 of the model's size in 20 steps.
fn onto_joints(sys: &System, p: &[f64], t: f64) -> Option<Vec<f64>> {
    let (n, m) = (sys.coordinates(), sys.constraints());
    let rows = sys.constraints.len();
    let c = TangentCoefficients { mass: 1.0, damping: 0.0, stiffness: 0.0, lambda: 1.0 };
    let mut matrix = sys.newton_pattern();
    let mut lu = SparseLu::new(&matrix);
    let (zeros, lambda) = (vec![0.0; n], vec![0.0; m]);
    let mut q = p.to_vec();
    let mut rhs = vec![0.0; n + m];
    let scale = 1.0 + q.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    for _ in 0..=20 {
        rhs.fill(0.0);
        for (r, row) in sys.constraints.iter().enumerate() {
            rhs[n + r] = -if sys.is_redundant(r) {
                // The trivial row of the matrix: its residual is zero.
                0.0
            } else if row.drive.is_some() {
                row.measure_change(p, &q)
            } else {
                row.residual(&q, t, &sys.inputs, &sys.input_rates)
            };
        }
        let worst = rhs[n..n + rows].iter().fold(0.0f64, |a, x| a.max(x.abs()));
        if !worst.is_finite() {
            return None;
        }
        if worst <= 1e-13 * scale {
            return Some(q);
        }
        sys.newton_matrix(&q, &zeros, &zeros, &lambda, t, c, &mut matrix);
        lu.factorize(&matrix).ok()?;
        lu.solve(&mut rhs).ok()?;
        for (x, d) in q.iter_mut().zip(&rhs[..n]) {
            *x += d;
        }
    }
    None
}

/// A deterministic perturbation of every coordinate by about `size` (relative; never zero),
/// `k` = 0 or 1 (the second with alternating signs and other magnitudes).
fn perturbed(q: &[f64], k: usize, size: f64) -> Vec<f64> {
    q.iter()
        .enumerate()
        .map(|(i, x)| {
            let factor = if k == 0 {
                0.3 + (i as f64 * 0.618).fract()
            } else {
                (0.25 + (i as f64 * 0.382).fract()) * if i % 2 == 0 { -1.3 } else { 1.1 }
            };
            x + size * (1.0 + x.abs()) * factor
        })
        .collect()
}

impl Simulation {
    /// For each output, whether it is a function of the configuration q alone (a position,
    /// an angle, a joint coordinate, a penetration: `OutputKind::is_configuration`). At
    /// initialization such an output depends only on the parameters that move the initial
    /// configuration: the assembly's q0 is what every other known is judged against
    /// (`tunable_parameters` keeps it fixed), and nothing after the assembly (consistent
    /// accelerations, contact events at the start) changes q.
    pub fn configuration_outputs(&self) -> Vec<bool> {
        self.outputs.iter().map(|o| o.kind.is_configuration()).collect()
    }

    /// For each output, the inputs (ascending) whose values set in Initialization Mode can
    /// change its initial value besides those it depends on directly (`direct_dependencies`,
    /// which hold there too). Inputs set then are the initial state's
    /// (`Simulation::set_initial_inputs`): when a driving input moves, the configuration
    /// follows the drives at rest, with the forces of the assembled state
    /// (`Workspace::follow_drives`: f(q) - f(q0) + Phi_q^T lambda = 0, proximal in the mass
    /// metric), which the inputs of the elements enter too (a follower load turns with what
    /// carries it), and the velocities are projected onto the drives' rates. So:
    /// - the energy dissipated and supplied: none (0 at the start, `zero_at_start`);
    /// - the coordinate of a driven joint: the inputs its drive reads (it is the drive's value
    ///   to the projection's tolerance), and its rate those the drive's rate reads (an input
    ///   held enters f' only through terms that vary in time, so `theta = u` does not);
    /// - any other output, in a model with a driving input: every input a drive or an
    ///   element reads (the configuration, velocities and forces move with them), else none.
    pub fn initial_input_dependencies(&self) -> Vec<Vec<usize>> {
        let sys = &self.system;
        let inputs = sys.inputs.len();
        let driving = (0..inputs).any(|i| self.input_drives_a_joint(i));
        let read: Vec<usize> = (0..inputs).filter(|&i| self.input_drives_a_joint(i) || sys.reads_input(i)).collect();
        let mut u = sys.inputs.clone();
        self.outputs
            .iter()
            .map(|o| {
                if o.kind.zero_at_start() {
                    return Vec::new();
                }
                if let OutputKind::JointCoordinate { joint, coordinate, order: order @ (0 | 1) } = o.kind {
                    let drive = sys.joints[joint]
                        .drive_row(coordinate, &sys.constraints)
                        .and_then(|r| sys.constraints[r].drive.as_ref());
                    if let Some(f) = drive {
                        return (0..inputs)
                            .filter(|&i| if order == 0 { f.reads_input(i) } else { jet_reads_input(f, 1, i, &mut u) })
                            .collect();
                    }
                }
                if driving { read.clone() } else { Vec::new() }
            })
            .collect()
    }

    /// For each output, the indices of the inputs it depends on directly (ascending). The
    /// answer depends only on the model's structure: it is the same at every communication
    /// point, and found once, at the first call.
    pub fn direct_dependencies(&self) -> Vec<Vec<usize>> {
        self.dependencies.get_or_init(|| self.find_direct_dependencies()).clone()
    }

    fn find_direct_dependencies(&self) -> Vec<Vec<usize>> {
        let sys = &self.system;
        let inputs = sys.inputs.len();
        let reads: Vec<_> = self.outputs.iter().map(|o| solved_unknowns(&o.kind, sys)).collect();
        let energies = self.outputs.iter().any(|o| o.kind.reads_potential_energy());
        if inputs == 0 || (reads.iter().all(Option::is_none) && !energies) {
            return vec![Vec::new(); self.outputs.len()];
        }
        let (n, m) = (sys.coordinates(), sys.constraints());
        let mut blocks = Blocks::new(n + m);
        let q = &self.state.q;
        // Where the forces reading an input act: here and about 1 % away, the joints need
        // not hold (more nonzeros only add dependencies).
        let perturbed = perturbed(q, 0, 0.01);
        let configurations = [q.as_slice(), &perturbed];
        // The blocks and the outputs' coefficients: where the joints hold, the drives left
        // free (every value they may take), here and at two configurations about 1 % away (a
        // perturbation the projection does not bring back is used as it is).
        let t = self.state.t;
        let mut samples = vec![q.clone()];
        for k in 0..2 {
            // Smaller if the Newton steps do not converge from there (a long chain).
            let on = [0.01, 1e-3, 1e-4].into_iter().find_map(|size| onto_joints(sys, &self::perturbed(q, k, size), t));
            samples.push(on.unwrap_or_else(|| self::perturbed(q, k, 0.01)));
        }
        let c = TangentCoefficients { mass: 1.0, damping: 0.0, stiffness: 0.0, lambda: 1.0 };
        let mut matrix = sys.newton_pattern();
        let zeros = vec![0.0; n];
        for q in &samples {
            sys.newton_matrix(q, &zeros, &zeros, &vec![0.0; m], self.state.t, c, &mut matrix);
            for (i, j, x) in matrix.entries() {
                if i != j && x != 0.0 {
                    blocks.join(i, j);
                }
            }
        }
        for (k, contact) in sys.contact_constraints.iter().enumerate() {
            for q in &samples {
                contact.gap.with_gradient(q, |_, gradient| {
                    for (&d, &g) in contact.gap.dofs().iter().zip(gradient) {
                        if g != 0.0 {
                            blocks.join(n + sys.contact_constraint_row(k), d);
                        }
                    }
                });
            }
        }
        let mut probe = Probe { u: sys.inputs.clone(), zeros: vec![0.0; n], dg: vec![0.0; n] };
        let driven: Vec<Vec<usize>> = (0..inputs)
            .map(|i| {
                let mut roots: Vec<usize> = forced_coordinates(sys, configurations, i, &mut probe)
                    .into_iter()
                    // A drive whose f'' reads u_i changes its row's acceleration rhs
                    // (-Phi_tt = f''); an input held over the interval enters f'' only through
                    // terms that also vary in time (u t^2, u sin t), so `theta = u` does not.
                    .chain(
                        sys.constraints
                            .iter()
                            .enumerate()
                            .filter(|(_, c)| {
                                c.drive.as_ref().is_some_and(|f| acceleration_reads_input(f, i, &mut probe.u))
                            })
                            .map(|(r, _)| n + r),
                    )
                    .map(|d| blocks.root(d))
                    .collect();
                roots.sort_unstable();
                roots.dedup();
                roots
            })
            .collect();
        let potential: Vec<bool> =
            (0..inputs).map(|i| energies && potential_reads_input(sys, configurations, i, &mut probe)).collect();
        let mut coefficients = Reads { sys, t, samples, zeros: vec![0.0; n], a: vec![0.0; n], lambda: vec![0.0; m] };
        self.outputs
            .iter()
            .zip(reads)
            .map(|(o, r)| {
                if o.kind.reads_potential_energy() {
                    return (0..inputs).filter(|&i| potential[i]).collect();
                }
                let Some((a, lambda)) = r else { return Vec::new() };
                let unknowns = a.into_iter().chain(lambda.into_iter().map(|r| n + r));
                let roots: Vec<usize> =
                    unknowns.filter(|&u| coefficients.keep(&o.kind, u)).map(|u| blocks.root(u)).collect();
                (0..inputs).filter(|&i| driven[i].iter().any(|d| roots.contains(d))).collect()
            })
            .collect()
    }
}

/// The points a dependence on input `i` is looked for at: three times and, at each, the
/// inputs `u` with u_i at its value and at two others (the value itself first, k = 0), until
/// `f(t, k, u)` returns true. One buffer `u` serves every input (u_i is put back): a copy of
/// the inputs per sample made the dependencies quadratic in the number of inputs.
fn any_sample(u: &mut [f64], i: usize, mut f: impl FnMut(f64, usize, &[f64]) -> bool) -> bool {
    let ui = u[i];
    let mut found = false;
    'times: for t in [0.0, 0.37, 1.3] {
        for (k, du) in [0.0, 0.5, -1.7].into_iter().enumerate() {
            u[i] = ui + du * (1.0 + ui.abs());
            if f(t, k, u) {
                found = true;
                break 'times;
            }
        }
    }
    u[i] = ui;
    found
}

/// Buffers of the dependency search, one for all inputs: the inputs, zero velocities and
/// dg/du_i (zero outside the readers' coordinates between uses).
struct Probe {
    u: Vec<f64>,
    zeros: Vec<f64>,
    dg: Vec<f64>,
}

/// The coordinates on which the forces of the elements reading input `i` act: the nonzeros of
/// dg/du_i at the `configurations` (at rest) and the samples (`any_sample`). Only the readers'
/// coordinates can change (`System::input_dofs`), and only they are cleared and scanned.
fn forced_coordinates(sys: &System, configurations: [&[f64]; 2], i: usize, p: &mut Probe) -> Vec<usize> {
    if !sys.reads_input(i) {
        return Vec::new();
    }
    let dofs = sys.input_dofs(i);
    let mut acted = vec![false; dofs.len()];
    let Probe { u, zeros, dg } = p;
    for q in configurations {
        any_sample(u, i, |t, _, u| {
            sys.add_input_force_derivative(q, zeros, t, u, i, dg);
            for (a, &d) in acted.iter_mut().zip(&dofs) {
                *a |= dg[d] != 0.0;
                dg[d] = 0.0;
            }
            false
        });
    }
    dofs.iter().zip(&acted).filter(|(_, a)| **a).map(|(&d, _)| d).collect()
}

/// Whether the potential energy (at rest) changes with input `i`: at one of the samples at
/// either configuration, another value of u_i changes it. Only elements that read inputs
/// store an energy of them (`System::input_energy`).
fn potential_reads_input(sys: &System, configurations: [&[f64]; 2], i: usize, p: &mut Probe) -> bool {
    if !sys.reads_input(i) {
        return false;
    }
    let Probe { u, zeros, .. } = p;
    configurations.into_iter().any(|q| {
        let mut base = 0.0;
        any_sample(u, i, |t, k, u| {
            let e = sys.input_energy(q, zeros, t, u, i).potential;
            if k == 0 {
                base = e;
            }
            e != base
        })
    })
}

/// Whether the second time derivative of a drive `f` (inputs held) changes with input `i`.
fn acceleration_reads_input(f: &Expr, i: usize, u: &mut [f64]) -> bool {
    jet_reads_input(f, 2, i, u)
}

/// Whether time derivative `order` (1 or 2) of a drive `f` (inputs held) changes with input
/// `i`: at one of the samples, another value of u_i changes it.
fn jet_reads_input(f: &Expr, order: usize, i: usize, u: &mut [f64]) -> bool {
    if !f.reads_input(i) {
        return false;
    }
    let held = InputRates::default();
    let mut base = 0.0;
    any_sample(u, i, |t, k, u| {
        let a = f.eval_time_jet(t, u, &held)[order];
        if k == 0 {
            base = a;
        }
        a != base
    })
}
