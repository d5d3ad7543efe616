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
//! forces reading i act on or the row of a drive whose acceleration reads i. The blocks come
//! from the matrix's nonzeros at the current configuration and at a perturbed one (a
//! coefficient like s sin(theta) vanishing at one configuration is still structural), with
//! every contact constraint treated as active (it may close later); the coordinates the
//! forces act on are the nonzeros of dg/du_i (`System::input_force_derivative`, only the
//! elements that read u_i) at both configurations, and they and the drives are sampled at
//! three times and three values of u_i (`samples`), so that a coefficient vanishing at one
//! point does not hide a dependence (a force along x on a point mass acts on x, not on y).

use super::Simulation;
use crate::integrators::{Dynamics, TangentCoefficients};
use crate::mechanics::System;
use crate::mechanics::kinematics::Anchor;
use crate::mechanics::outputs::OutputKind;
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
/// indices) and multipliers (row indices). `None`: the output reads neither.
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
        OutputKind::Rotation { theta, .. } => (vec![*theta], vec![]),
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
        // Any other kind that re-solves accelerations: every unknown (conservative).
        _ => ((0..n).collect(), (0..sys.constraints()).collect()),
    })
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

    /// For each output, the indices of the inputs it depends on directly (ascending). The
    /// answer depends only on the model's structure: it is the same at every communication
    /// point.
    pub fn direct_dependencies(&self) -> Vec<Vec<usize>> {
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
        // A deterministic perturbation of about 1 % (never zero) for the second configuration.
        let perturbed: Vec<f64> = q
            .iter()
            .enumerate()
            .map(|(i, x)| x + 0.01 * (1.0 + x.abs()) * (0.3 + (i as f64 * 0.618).fract()))
            .collect();
        let configurations = [q.as_slice(), &perturbed];
        let c = TangentCoefficients { mass: 1.0, damping: 0.0, stiffness: 0.0, lambda: 1.0 };
        let mut matrix = sys.newton_pattern();
        let zeros = vec![0.0; n];
        for q in configurations {
            sys.newton_matrix(q, &zeros, &zeros, &vec![0.0; m], self.state.t, c, &mut matrix);
            for (i, j, x) in matrix.entries() {
                if i != j && x != 0.0 {
                    blocks.join(i, j);
                }
            }
        }
        for (k, contact) in sys.contact_constraints.iter().enumerate() {
            for &d in contact.gap.dofs() {
                blocks.join(n + sys.contact_constraint_row(k), d);
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
        self.outputs
            .iter()
            .zip(reads)
            .map(|(o, r)| {
                if o.kind.reads_potential_energy() {
                    return (0..inputs).filter(|&i| potential[i]).collect();
                }
                let Some((a, lambda)) = r else { return Vec::new() };
                let unknowns = a.into_iter().chain(lambda.into_iter().map(|r| n + r));
                let roots: Vec<usize> = unknowns.map(|u| blocks.root(u)).collect();
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

/// Whether the second time derivative of a drive `f` (inputs held) changes with input `i`:
/// at one of the samples, another value of u_i changes it.
fn acceleration_reads_input(f: &Expr, i: usize, u: &mut [f64]) -> bool {
    if !f.reads_input(i) {
        return false;
    }
    let held = InputRates::default();
    let mut base = 0.0;
    any_sample(u, i, |t, k, u| {
        let a = f.eval_time_jet(t, u, &held)[2];
        if k == 0 {
            base = a;
        }
        a != base
    })
}
