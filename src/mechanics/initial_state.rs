//! The consistent initial state of an assembled system: coordinates projected onto the
//! joint constraints, velocities compatible with them, per independent group of rows.

use super::System;
use super::constraint_groups::{ConstraintGroup, constraint_groups};
use crate::compact_number::Compact;
use crate::integrators::{Dynamics, State, TangentCoefficients};
use crate::limits::MAX_CONSTRAINT_GROUP_ROWS;
use crate::linalg::{PatternBuilder, SparseLu, SparseMatrix};
use crate::model::{Model, ModelError};
use nalgebra::{DMatrix, DVector};

/// A joint that the given configuration violates by more than this, relative to the model's
/// size (1 + max |q|, in m or rad as the row measures), gets a warning when the projection
/// moves the configuration onto it: a drive whose value at t0 is not the joint's given angle
/// or position, a distance joint's `length` other than its points' distance. Joints built from
/// the given positions hold exactly; values rounded to six digits pass.
const MOVED_WARNING: f64 = 1e-6;

/// Project the initial coordinates onto Phi(q, t0) = 0 (Gauss-Newton, minimum-norm corrections),
/// then solve the unspecified initial velocities from Phi_q v = -Phi_t (minimum norm, then
/// least kinetic energy: `least_strain_rate_velocities`), keeping the specified ones. Contradictory constraints are errors; redundant rows (linearly
/// dependent on earlier rows at the initial state, by a rank-revealing SVD) are handed to
/// `System::set_redundant`. Returns the state and a located warning for each joint whose
/// violation moved the given configuration (`MOVED_WARNING`).
pub fn consistent_initial_state(
    model: &Model,
    sys: &mut System,
    mut q: Vec<f64>,
    mut v: Vec<f64>,
    specified: &[bool],
    joint_spans: &[std::ops::Range<usize>],
    t0: f64,
) -> Result<(State, Vec<ModelError>), ModelError> {
    let n = sys.coordinates();
    sys.regularize_contacts(&q);
    // Joint rows; the contact constraint rows start separated (lambda = 0).
    let m = sys.constraints.len();
    let mut state = State::zeros(n, sys.constraints());
    let span_of_row =
        |r: usize| sys.joints.iter().position(|j| j.rows.contains(&r)).map_or(0..0, |j| joint_spans[j].clone());
    let is_joint_row = |r: usize| sys.joints.iter().any(|j| j.rows.contains(&r));
    // The first joint of a group (its first rows may be Euler-parameter rows of no joint).
    let span_of_group =
        |g: &ConstraintGroup| g.rows.iter().map(|&r| span_of_row(r)).find(|s| !s.is_empty()).unwrap_or(0..0);
    // Rows that share no coordinate are independent: the matrices below are per group, dense
    // up to MAX_CONSTRAINT_GROUP_ROWS rows (`large` otherwise: sparse).
    let groups = constraint_groups(m, n, |r| sys.constraints[r].measure.dofs());
    // A large group's rows are taken as independent (its redundant rows are not looked for).
    let not_independent = |g: &ConstraintGroup| {
        model.error(
            span_of_group(g),
            format!(
                "these joints join a group of {} constraint rows connected through shared bodies, and their \
                 constraints are redundant or singular here: redundant rows are found in groups of up to \
                 {MAX_CONSTRAINT_GROUP_ROWS} rows",
                g.rows.len()
            ),
        )
    };
    let mut dependent: Vec<usize> = Vec::new();
    // Rows whose velocity constraint the given velocities settle (independent rows of Phi_q
    // on the omitted velocities are the others): a spatial body's Euler-parameter row when its
    // angular velocity is given.
    let mut settled: Vec<usize> = Vec::new();
    let mut warnings = Vec::new();
    if m > 0 {
        let scale = 1.0 + q.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        let mut phi = vec![0.0; sys.constraints()];
        // The joints the given configuration violates, each with its largest row violation.
        sys.constraint_residual(&q, t0, &mut phi);
        let mut violated_joints: Vec<(usize, f64)> = Vec::new();
        for (j, joint) in sys.joints.iter().enumerate() {
            let worst = joint.rows.clone().filter(|&r| r < m).fold(0.0f64, |w, r| w.max(phi[r].abs()));
            if worst > MOVED_WARNING * scale {
                violated_joints.push((j, worst));
            }
        }
        let q_given = if violated_joints.is_empty() { Vec::new() } else { q.clone() };
        let failed = |failure: ProjectionFailure| match failure {
            ProjectionFailure::NotIndependent(g) => not_independent(&groups[g]),
            ProjectionFailure::NoSvd(g) => model.error(span_of_group(&groups[g]), NO_SVD.into()),
        };
        if let Some((worst, by)) = project(sys, &groups, &mut q, t0, false).map_err(failed)? {
            // A drive the other joints could hold without is the one asking the impossible.
            let (row, message) = match unreachable_drive(sys, &groups, &q, t0) {
                Some(row) => (
                    row,
                    format!(
                        "this joint's drive asks at t = {} for a position the mechanism cannot reach: the other \
                         joints hold without it, with it they stay violated by {by:.3e} (m or rad); check the \
                         drive's value at the start time against the mechanism's reach",
                        Compact(t0)
                    ),
                ),
                None => (
                    worst,
                    format!("the joints cannot all be satisfied in the initial configuration (violation {by:.3e})"),
                ),
            };
            return Err(model.error(span_of_row(row), message));
        }
        if !violated_joints.is_empty() {
            // The largest move of the coordinates of the joint's group (the groups are
            // projected apart: another group's move is not this joint's, a probe).
            let moved = |j: usize| {
                let row = sys.joints[j].rows.start;
                groups
                    .iter()
                    .find(|g| g.rows.contains(&row))
                    .map_or(0.0, |g| g.coordinates.iter().fold(0.0f64, |d, &i| d.max((q[i] - q_given[i]).abs())))
            };
            for (j, by) in violated_joints {
                let moved = moved(j);
                warnings.push(model.error(
                    joint_spans.get(j).cloned().unwrap_or(0..0),
                    format!(
                        "the given initial configuration violates this joint by {by:.3e} (m or rad): the \
                         positions were moved onto it, the largest coordinate by {moved:.3e}; check its drive at \
                         the start time, its length or the bodies' positions"
                    ),
                ));
            }
        }
        // Rows on no coordinate, the redundant rows, and the first row whose velocity
        // constraint the given velocities violate (by how much).
        let mut redundant: Option<usize> = None;
        let mut violated: Option<(usize, f64)> = None;
        let vscale = 1.0 + v.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        for g in &groups {
            if g.coordinates.is_empty() {
                // Rows on no coordinate (ground to ground): nothing they could constrain.
                redundant = Some(redundant.map_or(g.rows[0], |x| x.min(g.rows[0])));
                continue;
            }
            let cols = &g.coordinates;
            let phi_t = |r: usize| -sys.constraints[g.rows[r]].prescribed(t0, &sys.inputs, &sys.input_rates)[1];
            let entries = gradients(sys, g, &q);
            if large(g) {
                // The rows on omitted velocities (the others are settled by the given ones).
                let mut on_free = vec![false; g.rows.len()];
                entries
                    .iter()
                    .filter(|&&(_, c, x)| !specified[cols[c]] && x != 0.0)
                    .for_each(|&(r, _, _)| on_free[r] = true);
                let free_rows: Vec<usize> = (0..g.rows.len()).filter(|&r| on_free[r]).collect();
                settled.extend((0..g.rows.len()).filter(|&r| !on_free[r]).map(|r| g.rows[r]));
                let given: Vec<Option<f64>> = cols.iter().map(|&i| specified[i].then_some(v[i])).collect();
                let rhs: Vec<f64> = free_rows.iter().map(|&r| -phi_t(r)).collect();
                let solved = min_norm_sparse(&entries, &free_rows, &given, &rhs).ok_or_else(|| not_independent(g))?;
                for (c, &i) in cols.iter().enumerate() {
                    v[i] = solved[c];
                }
            } else {
                let full = dense(g, &entries);
                // An independent subset of the rows (the first that span Phi_q's row space), the
                // joints' rows before the drives': a drive that prescribes what the joints already
                // determine is the redundant row whatever the order of the file (a drive written
                // before the joint that locks its motion left the joint's rows out instead).
                let mut order: Vec<usize> = (0..g.rows.len()).collect();
                order.sort_by_key(|&r| sys.constraints[g.rows[r]].drive.is_some());
                let ordered = DMatrix::from_fn(order.len(), full.ncols(), |r, c| full[(order[r], c)]);
                let mut kept: Vec<usize> = independent_rows(&ordered)
                    .ok_or_else(|| model.error(span_of_group(g), NO_SVD.into()))?
                    .into_iter()
                    .map(|r| order[r])
                    .collect();
                kept.sort_unstable();
                if kept.is_empty() {
                    return Err(model.error(
                        span_of_group(g),
                        "these joints constrain nothing here (their constraint Jacobian is zero)".into(),
                    ));
                }
                if kept.len() < g.rows.len() {
                    dependent.extend((0..g.rows.len()).filter(|r| !kept.contains(r)).map(|r| g.rows[r]));
                }
                let jm = DMatrix::from_fn(kept.len(), full.ncols(), |r, c| full[(kept[r], c)]);
                // Unspecified velocities: Phi_q,U v_U = -Phi_q,S v_S - Phi_t (Phi_t = -f' on a
                // driving row).
                let free: Vec<usize> = (0..cols.len()).filter(|&c| !specified[cols[c]]).collect();
                let rhs = DVector::from_fn(kept.len(), |k, _| {
                    let r = kept[k];
                    -(0..cols.len()).filter(|&c| specified[cols[c]]).map(|c| full[(r, c)] * v[cols[c]]).sum::<f64>()
                        - phi_t(r)
                });
                if free.is_empty() {
                    settled.extend(kept.iter().map(|&r| g.rows[r]));
                } else {
                    let ju = DMatrix::from_fn(kept.len(), free.len(), |r, c| jm[(r, free[c])]);
                    let nonzero: Vec<usize> =
                        (0..kept.len()).filter(|&r| ju.row(r).iter().any(|&x| x != 0.0)).collect();
                    let on_free = DMatrix::from_fn(nonzero.len(), free.len(), |r, c| ju[(nonzero[r], c)]);
                    let free_rows: Vec<usize> = match nonzero.is_empty() {
                        true => Vec::new(),
                        false => independent_rows(&on_free)
                            .ok_or_else(|| model.error(span_of_group(g), NO_SVD.into()))?
                            .into_iter()
                            .map(|r| nonzero[r])
                            .collect(),
                    };
                    settled.extend((0..kept.len()).filter(|r| !free_rows.contains(r)).map(|r| g.rows[kept[r]]));
                    let mut vu = svd(ju.clone(), true)
                        .ok_or_else(|| model.error(span_of_group(g), NO_SVD.into()))?
                        .solve(&rhs, 1e-12);
                    // The rows of no joint (a spatial body's Euler-parameter row p . p' = 0)
                    // hold exactly: given velocities that violate a joint leave the whole
                    // violation in the joint's rows, where it is reported, and none in the
                    // least-squares split with the parameters' growth (a probe: a spherical
                    // joint violated by 1 m/s was reported at 1:1, by 0.5). Where the rows are
                    // consistent the correction is round-off.
                    let own: Vec<usize> = (0..kept.len()).filter(|&r| !is_joint_row(g.rows[kept[r]])).collect();
                    if !own.is_empty() && own.len() < kept.len() {
                        let jo = DMatrix::from_fn(own.len(), free.len(), |r, c| ju[(own[r], c)]);
                        let miss = DVector::from_fn(own.len(), |r, _| rhs[own[r]] - (ju.row(own[r]) * &vu)[0]);
                        if let Some(s) = svd(jo, true) {
                            vu += s.solve(&miss, 1e-12);
                        }
                    }
                    for (k, &c) in free.iter().enumerate() {
                        v[cols[c]] = vu[k];
                    }
                }
            }
            // Against the solved velocities' size too, and each row's terms: in mm and tonnes a
            // crank-slider's solved velocities (470 mm/s) left 7.4e-9 of round-off in a row, 1e3
            // times the 7.4e-12 in metres, and were refused (a probe).
            let solved = cols.iter().fold(vscale, |m, &i| m.max(1.0 + v[i].abs()));
            let (mut residual, mut terms) = (vec![0.0; g.rows.len()], vec![0.0; g.rows.len()]);
            entries.iter().for_each(|&(r, c, x)| {
                residual[r] += x * v[cols[c]];
                terms[r] += (x * v[cols[c]]).abs();
            });
            if let Some(r) = (0..g.rows.len())
                .find(|&r| (residual[r] + phi_t(r)).abs() > 1e-9 * (solved + terms[r] + phi_t(r).abs()))
            {
                if violated.is_none_or(|(x, _)| g.rows[r] < x) {
                    violated = Some((g.rows[r], residual[r] + phi_t(r)));
                }
            }
        }
        if let Some(r) = redundant {
            return Err(model.error(span_of_row(r), "this joint constrains no body (both sides are the ground)".into()));
        }
        if let Some(&r) = dependent.iter().find(|&&r| sys.constraints[r].drive.is_some()) {
            return Err(model.error(
                span_of_row(r),
                "this drive prescribes a motion the other joints already determine (a redundant driving constraint)"
                    .into(),
            ));
        }
        if let Some((r, by)) = violated {
            // Positions moved onto a joint first (a drive that starts elsewhere than drawn) are
            // the likelier cause: said here, or their warning would be lost with the run.
            let moved: String = warnings.iter().map(|w| format!("\n  the positions were moved first: {w}")).collect();
            return Err(model.error(
                span_of_row(r),
                format!(
                    "the given initial velocities violate this joint (by {:.3e}); omit some so they can be computed{moved}",
                    by.abs()
                ),
            ));
        }
    }
    if !dependent.is_empty() {
        dependent.sort_unstable();
        sys.set_redundant(&dependent);
    }
    least_strain_rate_velocities(sys, &q, &mut v, specified, &settled, t0);
    state.q = q;
    state.v = v;
    Ok((state, warnings))
}

/// Groups larger than this are projected with sparse minimum-norm solves, and their rows are
/// taken as independent (their redundant rows are not looked for).
fn large(g: &ConstraintGroup) -> bool {
    g.rows.len() > MAX_CONSTRAINT_GROUP_ROWS
}

/// A group's constraint Jacobian at `q` as (row, column, value) entries in its numbering.
fn gradients(sys: &System, g: &ConstraintGroup, q: &[f64]) -> Vec<(usize, usize, f64)> {
    let mut entries = Vec::new();
    for (r, &row) in g.rows.iter().enumerate() {
        let measure = &sys.constraints[row].measure;
        let d = measure.derivatives(q);
        for (k, &i) in measure.dofs().iter().enumerate() {
            entries.push((r, g.column(i).expect("a coordinate of the group"), d.gradient[k]));
        }
    }
    entries
}

/// A group's dense Phi_q from its `gradients`.
fn dense(g: &ConstraintGroup, entries: &[(usize, usize, f64)]) -> DMatrix<f64> {
    let mut jm = DMatrix::zeros(g.rows.len(), g.coordinates.len());
    entries.iter().for_each(|&(r, c, x)| jm[(r, c)] += x);
    jm
}

/// A group (its index) whose correction could not be solved.
enum ProjectionFailure {
    /// A large group's rows are redundant or singular.
    NotIndependent(usize),
    /// The dense SVD did not converge.
    NoSvd(usize),
}

/// Gauss-Newton from `q` onto the joint rows Phi(q, t) = 0, a minimum-norm correction per
/// group each iteration; with `without_drives` the drives' rows are left out. None once every
/// row holds to 1e-13 of the model's size (1 + max |q| at the start); after 50 iterations that
/// did not get there, the worst row and its violation.
fn project(
    sys: &System,
    groups: &[ConstraintGroup],
    q: &mut [f64],
    t: f64,
    without_drives: bool,
) -> Result<Option<(usize, f64)>, ProjectionFailure> {
    let m = sys.constraints.len();
    let left_out = |row: usize| without_drives && sys.constraints[row].drive.is_some();
    let scale = 1.0 + q.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    let mut phi = vec![0.0; sys.constraints()];
    for _ in 0..50 {
        sys.constraint_residual(q, t, &mut phi);
        phi.truncate(m);
        (0..m).filter(|&r| left_out(r)).for_each(|r| phi[r] = 0.0);
        if phi.iter().all(|p| p.abs() <= 1e-13 * scale) {
            return Ok(None);
        }
        for (k, g) in groups.iter().enumerate().filter(|(_, g)| !g.coordinates.is_empty()) {
            let rhs = DVector::from_iterator(g.rows.len(), g.rows.iter().map(|&r| phi[r]));
            let mut entries = gradients(sys, g, q);
            entries.retain(|&(r, _, _)| !left_out(g.rows[r]));
            let dq = if large(g) {
                let kept: Vec<usize> = (0..g.rows.len()).filter(|&r| !left_out(g.rows[r])).collect();
                let none = vec![None; g.coordinates.len()];
                DVector::from_vec(
                    min_norm_sparse(&entries, &kept, &none, rhs.as_slice())
                        .ok_or(ProjectionFailure::NotIndependent(k))?,
                )
            } else {
                svd(dense(g, &entries), true).ok_or(ProjectionFailure::NoSvd(k))?.solve(&rhs, 1e-12)
            };
            for (c, &i) in g.coordinates.iter().enumerate() {
                q[i] -= dq[c];
            }
        }
    }
    let worst = (0..m).max_by(|&a, &b| phi[a].abs().total_cmp(&phi[b].abs())).unwrap_or(0);
    Ok(Some((worst, phi[worst])))
}

/// The drive row that asks at `t` for a position the mechanism cannot reach from `q`: the
/// joints cannot all be satisfied, but without the drives they can; of the drives, the one
/// that configuration misses most. None if the joints hold, or do not hold even without the
/// drives.
fn unreachable_drive(sys: &System, groups: &[ConstraintGroup], q: &[f64], t: f64) -> Option<usize> {
    let mut without = q.to_vec();
    if !matches!(project(sys, groups, &mut without, t, true), Ok(None)) {
        return None;
    }
    let mut phi = vec![0.0; sys.constraints()];
    sys.constraint_residual(&without, t, &mut phi);
    (0..sys.constraints.len())
        .filter(|&r| sys.constraints[r].drive.is_some())
        .max_by(|&a, &b| phi[a].abs().total_cmp(&phi[b].abs()))
        .filter(|&r| phi[r].abs() > 1e-13 * (1.0 + q.iter().fold(0.0f64, |a, x| a.max(x.abs()))))
}

/// For a step that failed at time `t` from positions `q`: the joint whose drive asks there for
/// a position the mechanism cannot reach (`unreachable_drive`), with the violation the joints
/// are left at when projected onto all rows.
pub fn drive_out_of_reach(sys: &System, q: &[f64], t: f64) -> Option<(usize, f64)> {
    if sys.constraints.iter().all(|c| c.drive.is_none()) {
        return None;
    }
    let groups = constraint_groups(sys.constraints.len(), sys.coordinates(), |r| sys.constraints[r].measure.dofs());
    let mut projected = q.to_vec();
    let (_, by) = project(sys, &groups, &mut projected, t, false).ok()??;
    let row = unreachable_drive(sys, &groups, &projected, t)?;
    sys.joints.iter().position(|j| j.rows.contains(&row)).map(|j| (j, by))
}

/// Below the largest stiffness of a structure's coordinates, the weight of the kinetic-energy
/// term in `least_strain_rate_velocities` (small against the softest bending stiffness of a
/// slender beam chain, ~1e-7 of its axial one, yet resolved by the factorization).
const NORM_WEIGHT: f64 = 1e-12;

/// The least diagonal entry of the mass matrix in the kinetic-energy term of
/// `least_strain_rate_velocities`, relative to its largest: it settles coordinates without
/// inertia (raised to it; the others keep theirs).
const MASSLESS_FLOOR: f64 = 1e-9;

/// Proximal steps of `least_strain_rate_velocities`.
const PROXIMAL_STEPS: usize = 3;

/// The omitted velocities: those of least kinetic energy the joints allow and, on flexible
/// bodies (the coordinates of elements that tie their nodes into a structure: beams, plates),
/// first those of least rate of strain: a beam
/// carried by a moving joint or a drive starts moving as a rigid body where it can, instead of
/// its interior nodes starting at rest (a shock of the drive torque, and vibration that an
/// undamped beam keeps). The velocities of all omitted coordinates minimize
/// 1/2 v^T (K + w M) v subject to Phi_q v = -Phi_t with the given velocities kept, K the
/// structures' stiffness and M the mass matrix at the initial configuration at rest, and
/// w M (w = NORM_WEIGHT max K_ii / M_ii) the kinetic-energy term that settles what K leaves
/// free: of the motions without strain rate, the one of least kinetic energy, which a finer
/// mesh does not change (with the identity for M, the minimum-norm velocities, a beam pinned
/// to a spinning hub started turning at -0.200, -0.225, -0.248, -0.253 rad/s with 1, 2, 8, 16
/// elements, a probe). The rows `settled` by the given velocities alone drop out (their
/// multiplier would be undetermined). Nothing changes if the solve does not hold the joints
/// (the minimum-norm velocities of the joints above stay). Without a flexible body's omitted
/// velocity K drops out: the omitted velocities are those of least kinetic energy, which do
/// not depend on the units (the minimum norm of rates in m/s and rad/s together did: a probe's
/// pendulum on a driven cart started at -0.165 rad/s in metres and -2.0 rad/s in millimetres).
fn least_strain_rate_velocities(
    sys: &System,
    q: &[f64],
    v: &mut [f64],
    specified: &[bool],
    settled: &[usize],
    t0: f64,
) {
    let n = sys.coordinates();
    if specified.iter().all(|&s| s) {
        return;
    }
    let structure = sys.structure_coordinates();
    let mut matrix = sys.newton_pattern();
    sys.structure_stiffness_matrix(q, t0, &mut matrix);
    // Without an omitted velocity on a structure, K acts on given velocities only: the
    // omitted ones are those of least kinetic energy.
    let strained = structure.iter().any(|&i| !specified[i]);
    if strained {
        let largest = structure.iter().fold(0.0f64, |m, &i| m.max(matrix.values[matrix.slot(i, i)].abs()));
        if !(largest.is_finite() && largest > 0.0) {
            return;
        }
    }
    // The mass matrix's entries on the rows of the omitted velocities (with their slots, the
    // same in `matrix`), and its diagonal floor.
    let inertia = TangentCoefficients { mass: 1.0, damping: 0.0, stiffness: 0.0, lambda: 0.0 };
    let mass = sys.matrix_at_rest(q, t0, inertia);
    let kinetic: Vec<(usize, usize, usize, f64)> = mass
        .entries()
        .enumerate()
        .filter(|&(_, (i, j, x))| i < n && j < n && !specified[i] && x != 0.0)
        .map(|(k, (i, j, x))| (k, i, j, x))
        .collect();
    let heaviest = kinetic.iter().filter(|e| e.1 == e.2).fold(0.0f64, |m, e| m.max(e.3.abs()));
    if !(heaviest.is_finite() && heaviest > 0.0) {
        return;
    }
    // The floor's part of each omitted coordinate's diagonal, and the diagonal with it.
    let mut floor = vec![0.0; n];
    for i in (0..n).filter(|&i| !specified[i]) {
        floor[i] = MASSLESS_FLOOR * heaviest;
    }
    for &(_, i, _, x) in kinetic.iter().filter(|e| e.1 == e.2) {
        floor[i] = (floor[i] - x).max(0.0);
    }
    let mut diagonal = floor.clone();
    kinetic.iter().filter(|e| e.1 == e.2).for_each(|e| diagonal[e.1] += e.3);
    // The weight w: NORM_WEIGHT of the largest K_ii / M_ii (the highest frequency squared),
    // in the coordinates scaled by sqrt(M_ii) in which the matrix is factorized. Scaled by
    // the largest M_ii instead, the rotations of a steel beam's short elements (M_ii ~ 4e-11
    // beside a 3 kg body) made it conditioned as 1e21, and the velocities missed the least
    // kinetic energy by 10 % (a probe).
    // Coordinates without inertia of their own count with the floor only where no coordinate
    // has inertia: K_ii / floor would set w far above the soft modes, and the proximal steps
    // would not remove its bias.
    let frequency = |massless: bool| {
        structure
            .iter()
            .filter(|&&i| !specified[i] && (massless || floor[i] == 0.0))
            .fold(0.0f64, |m, &i| m.max(matrix.values[matrix.slot(i, i)].abs() / diagonal[i]))
    };
    let weight = match strained {
        true => NORM_WEIGHT * Some(frequency(false)).filter(|&f| f > 0.0).unwrap_or_else(|| frequency(true)),
        false => 1.0,
    };
    let scaling: Vec<f64> =
        (0..matrix.dim()).map(|i| if i < n && !specified[i] { 1.0 / diagonal[i].sqrt() } else { 1.0 }).collect();
    let mut trivial = vec![false; sys.constraints()];
    settled.iter().for_each(|&r| trivial[r] = true);
    matrix.fix_rows(|i| if i < n { specified[i] } else { trivial[i - n] });
    for &(k, _, _, x) in &kinetic {
        matrix.values[k] += weight * x;
    }
    for i in (0..n).filter(|&i| floor[i] > 0.0) {
        let slot = matrix.slot(i, i);
        matrix.values[slot] += weight * floor[i];
    }
    let factors: Vec<f64> = matrix.entries().map(|(i, j, _)| scaling[i] * scaling[j]).collect();
    matrix.values.iter_mut().zip(factors).for_each(|(x, f)| *x *= f);
    // Right-hand side: the given velocities, 0 for the stationarity rows of the omitted ones,
    // -Phi_t (a drive's rate) on the active joint rows; trivial rows 0.
    let mut rhs = vec![0.0; matrix.dim()];
    for i in (0..n).filter(|&i| specified[i]) {
        rhs[i] = v[i];
    }
    for (r, con) in sys.constraints.iter().enumerate() {
        if !sys.is_redundant(r) && !trivial[r] {
            rhs[n + r] = con.prescribed(t0, &sys.inputs, &sys.input_rates)[1];
        }
    }
    // Proximal steps: each solves for the least strain rate plus w/2 (v - v_k)^T M (v - v_k),
    // from v_0 = 0; the first has the kinetic term's bias (w M / K of the softest mode, ~1e-8
    // for a slender coupler), each next one that bias times it again, towards the
    // least-strain-rate velocities of least kinetic energy.
    let mut lu = SparseLu::new(&matrix);
    if lu.factorize(&matrix).is_err() {
        return;
    }
    // x the velocities (and multipliers), y = x / scaling the unknowns of the scaled matrix.
    let (mut x, mut y) = (vec![0.0; matrix.dim()], vec![0.0; matrix.dim()]);
    for _ in 0..PROXIMAL_STEPS {
        y.clone_from(&rhs);
        for &(_, i, j, m) in &kinetic {
            y[i] += weight * m * x[j];
        }
        for i in (0..n).filter(|&i| floor[i] > 0.0) {
            y[i] += weight * floor[i] * x[i];
        }
        y.iter_mut().zip(&scaling).for_each(|(b, d)| *b *= d);
        if solve_refined(&matrix, &mut lu, &mut y).is_none() {
            return;
        }
        x.iter_mut().zip(y.iter().zip(&scaling)).for_each(|(x, (y, d))| *x = y * d);
    }
    // The joints must hold as well as the minimum-norm velocities hold them (their rows are
    // not scaled).
    let mut image = vec![0.0; matrix.dim()];
    matrix.mul_vec(&y, &mut image);
    let scale = 1.0 + v.iter().chain(&x[..n]).fold(0.0f64, |m, y| m.max(y.abs()));
    let held = (n..matrix.dim()).all(|k| (image[k] - rhs[k]).abs() <= 1e-10 * scale);
    // Where the joints determine the omitted velocities (a mechanism driven or given one rate),
    // least kinetic energy and minimum norm are the same solution: the minimum-norm one stays,
    // bit for bit, so that the masses do not enter it by round-off (a mass would no longer be
    // tunable: `Simulation::tunable_parameters` asks for the same initial state).
    let determined = !strained && (0..n).all(|i| specified[i] || (x[i] - v[i]).abs() <= 1e-10 * scale);
    if held && !determined {
        for i in (0..n).filter(|&i| !specified[i]) {
            v[i] = x[i];
        }
    }
}

/// Iterative refinements of `solve_refined`, at most.
const REFINEMENTS: usize = 4;

/// Solve A x = b (b given in `x`) with A's factorization and iterative refinement: the scaled
/// least-strain-rate matrix K + w M is conditioned as K_ii / M_ii's largest over w, 1e12 by
/// construction, so a solve alone holds the joints to about 1e-4 relative, and the velocities
/// fell back to the minimum-norm ones of the joints (interior nodes at rest) from about 90
/// steel elements on (a probe's beam pinned to a hub, 0.27 % off before that). Refinement
/// recovers what cond(A) eps < 1 allows.
fn solve_refined(matrix: &SparseMatrix, lu: &mut SparseLu, x: &mut [f64]) -> Option<()> {
    let b = x.to_vec();
    lu.solve(x).ok()?;
    let size = b.iter().fold(0.0f64, |m, y| m.max(y.abs()));
    let mut residual = vec![0.0; b.len()];
    for _ in 0..REFINEMENTS {
        matrix.mul_vec(x, &mut residual);
        let mut worst = 0.0f64;
        for (r, bi) in residual.iter_mut().zip(&b) {
            *r = bi - *r;
            worst = worst.max(r.abs());
        }
        if worst <= 1e-15 * size {
            break;
        }
        lu.solve(&mut residual).ok()?;
        for (xi, d) in x.iter_mut().zip(&residual) {
            *xi += d;
        }
    }
    Some(())
}

/// The minimum-norm x with J x = b on the `rows` of J (given as (row, column, value) entries
/// of a group's constraint Jacobian) and x_c = given[c] where given: the saddle-point system
/// [I J^T; J 0] with the given unknowns' rows fixed, factorized sparse (a large group's
/// Gauss-Newton correction and velocities, without the dense SVD). None if it is singular or
/// its solution misses a row by more than 1e-9 of the terms' size (redundant or singular
/// rows).
fn min_norm_sparse(
    entries: &[(usize, usize, f64)],
    rows: &[usize],
    given: &[Option<f64>],
    b: &[f64],
) -> Option<Vec<f64>> {
    let nc = given.len();
    let mut position = vec![usize::MAX; entries.iter().map(|e| e.0 + 1).max().unwrap_or(0)];
    rows.iter().enumerate().for_each(|(k, &r)| position[r] = nc + k);
    let mut pattern = PatternBuilder::new(nc + rows.len());
    for c in 0..nc {
        pattern.block(&[c], &[c]);
    }
    for &(r, c, _) in entries.iter().filter(|e| position[e.0] != usize::MAX) {
        pattern.block(&[position[r]], &[c]);
        pattern.block(&[c], &[position[r]]);
    }
    let mut matrix = pattern.build();
    for c in 0..nc {
        let slot = matrix.slot(c, c);
        matrix.values[slot] = 1.0;
    }
    for &(r, c, x) in entries.iter().filter(|e| position[e.0] != usize::MAX) {
        let (row, col) = (matrix.slot(position[r], c), matrix.slot(c, position[r]));
        matrix.values[row] += x;
        matrix.values[col] += x;
    }
    matrix.fix_rows(|i| i < nc && given[i].is_some());
    let mut lu = SparseLu::new(&matrix);
    lu.factorize(&matrix).ok()?;
    // Rows that are singular on the omitted unknowns (J_U J_U^T of rank below its size, as a
    // chain pinned at both ends and drawn straight) factorize to round-off pivots and solve to
    // finite values that may even hold the rows: the saddle-point solve of [0; y] gives
    // -(J_U J_U^T)^-1 y, so inverse iteration finds 1 / sigma_min^2 of J_U, and rows whose
    // sigma_min is below 1e-10 of their largest norm (the dense groups' rank threshold) are
    // singular.
    let largest_row = {
        let mut squares = vec![0.0; rows.len()];
        for &(r, _, x) in entries.iter().filter(|e| position[e.0] != usize::MAX && given[e.1].is_none()) {
            squares[position[r] - nc] += x * x;
        }
        squares.into_iter().fold(0.0, f64::max)
    };
    let mut y: Vec<f64> = (0..rows.len()).map(|k| 1.0 + (k % 7) as f64 / 7.0).collect();
    for _ in 0..3 {
        let mut z = vec![0.0; nc];
        z.extend_from_slice(&y);
        lu.solve(&mut z).ok()?;
        let (before, after) = (norm(&y), norm(&z[nc..]));
        if after * largest_row > 1e20 * before {
            return None;
        }
        y = z[nc..].iter().map(|v| v / after).collect();
    }
    let mut x: Vec<f64> = given.iter().map(|g| g.unwrap_or(0.0)).chain(b.iter().copied()).collect();
    lu.solve(&mut x).ok()?;
    x.truncate(nc);
    // The given unknowns exactly (their identity rows solve to round-off).
    x.iter_mut().zip(given).for_each(|(x, g)| *x = g.unwrap_or(*x));
    let mut image = vec![0.0; rows.len()];
    let mut size = b.iter().fold(1.0f64, |m, y| m.max(y.abs()));
    for &(r, c, value) in entries.iter().filter(|e| position[e.0] != usize::MAX) {
        image[position[r] - nc] += value * x[c];
        size = size.max((value * x[c]).abs());
    }
    image.iter().zip(b).all(|(a, b)| (a - b).abs() <= 1e-9 * size).then_some(x)
}

fn norm(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>().sqrt()
}

/// Rows of `jm` that are linearly independent, chosen greedily in row order: a row is kept
/// when it raises the rank of the rows kept before it (singular values below 1e-10 of the
/// largest count as zero). The rows left out are combinations of earlier rows.
fn independent_rows(jm: &DMatrix<f64>) -> Option<Vec<usize>> {
    // A single row is independent if and only if it is not zero. This is the SVD's answer
    // without computing it: nalgebra divides the matrix by its largest entry first, so a
    // nonzero row's singular value is at least that entry (positive), and it stays finite
    // for entries up to 1e300; a zero row's is zero, which the test below counts as
    // dependent. Larger or non-finite entries take the SVD path (and its errors).
    if jm.nrows() == 1 && jm.iter().all(|x| x.abs() <= 1e300) {
        return Some(if jm.iter().any(|&x| x != 0.0) { vec![0] } else { Vec::new() });
    }
    independent_rows_by_svd(jm)
}

/// `independent_rows` by the rank of the SVD, for any number of rows (where it is deficient,
/// the rows chosen by Gram-Schmidt against that rank threshold).
fn independent_rows_by_svd(jm: &DMatrix<f64>) -> Option<Vec<usize>> {
    let full = svd(jm.clone(), false)?.singular_values;
    let smax = full.max();
    if full.iter().filter(|&&s| s > 1e-10 * smax).count() == jm.nrows() {
        return Some((0..jm.nrows()).collect());
    }
    // Greedily by Gram-Schmidt, orthogonalized twice (Giraud et al. 2005: twice is enough):
    // a row is kept when its part outside the kept rows' span exceeds the rank threshold. An
    // SVD per row cost rows^2 x rank x columns (a 450-link chain with one joint written
    // twice took 75 s to check, a probe); this costs rows x rank x columns.
    let mut basis: Vec<DVector<f64>> = Vec::new();
    let mut kept: Vec<usize> = Vec::new();
    for r in 0..jm.nrows() {
        let mut rest = jm.row(r).transpose();
        for _ in 0..2 {
            for b in &basis {
                let along = b.dot(&rest);
                rest.axpy(-along, b, 1.0);
            }
        }
        let norm = rest.norm();
        if norm > 1e-10 * smax {
            basis.push(rest / norm);
            kept.push(r);
        }
    }
    Some(kept)
}

const NO_SVD: &str = "the joints cannot be assembled: the singular value decomposition of their constraint \
                      Jacobian does not converge (extreme or non-finite geometry)";

/// A singular value decomposition A = U diag(s) V^T (thin), computed by faer. nalgebra's SVD
/// (`DMatrix::try_svd`) returned orthogonal factors whose product missed A by 6e-6 on the
/// constraint Jacobian of a Cardan shaft (IFToMM-like universal joint between two driven
/// shafts at 0.2 rad), so the velocities solved with it violated a kept row by 2.3e-6 and the
/// model was refused (probe 19); faer's reconstructs it to round-off.
struct Svd {
    u: DMatrix<f64>,
    singular_values: DVector<f64>,
    v: DMatrix<f64>,
}

impl Svd {
    /// The minimum-norm least-squares solution of A x = b, singular values at most `eps`
    /// counted as zero.
    fn solve(&self, b: &DVector<f64>, eps: f64) -> DVector<f64> {
        let utb = self.u.transpose() * b;
        let scaled = DVector::from_fn(utb.len(), |i, _| {
            let s = self.singular_values[i];
            if s > eps { utb[i] / s } else { 0.0 }
        });
        &self.v * scaled
    }
}

/// The SVD of `m` (U and V only if `vectors`), or None for non-finite entries or if the
/// iteration does not converge (extreme scales). `m` is divided by its largest entry first (as
/// nalgebra did), so subnormal and huge entries keep their singular values.
fn svd(m: DMatrix<f64>, vectors: bool) -> Option<Svd> {
    if m.is_empty() || m.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let (rows, cols, k) = (m.nrows(), m.ncols(), m.nrows().min(m.ncols()));
    let scale = m.amax();
    let scale = if scale > 0.0 { scale } else { 1.0 };
    let a = faer::Mat::<f64>::from_fn(rows, cols, |i, j| m[(i, j)] / scale);
    if !vectors {
        let s = a.singular_values().ok()?;
        return Some(Svd {
            u: DMatrix::zeros(0, 0),
            singular_values: DVector::from_iterator(k, s.into_iter().map(|x| x * scale)),
            v: DMatrix::zeros(0, 0),
        });
    }
    let d = a.thin_svd().ok()?;
    let (u, s, v) = (d.U(), d.S().column_vector(), d.V());
    Some(Svd {
        u: DMatrix::from_fn(rows, k, |i, j| u[(i, j)]),
        singular_values: DVector::from_fn(k, |i, _| s[i] * scale),
        v: DMatrix::from_fn(cols, k, |i, j| v[(i, j)]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows kept greedily in order: a row in the span of earlier ones (a sum, a multiple, a
    /// repeat, one off by round-off) is left out, the first of two parallel rows kept.
    #[test]
    fn dependent_rows_are_the_later_combinations() {
        let a = [1.0, 2.0, 0.0, -1.0];
        let b = [0.0, 1.0, 3.0, 0.5];
        let c = [2.0, 0.0, 1.0, 1.0];
        let sum: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x + y + 1e-15).collect();
        let rows: Vec<&[f64]> = vec![&a, &b, &sum, &c, &[4.0, 0.0, 2.0, 2.0], &b, &[0.0, 0.0, 0.0, 1.0]];
        let jm = DMatrix::from_fn(rows.len(), 4, |r, c| rows[r][c]);
        assert_eq!(independent_rows(&jm), Some(vec![0, 1, 3, 6]));
    }

    /// The sparse saddle-point solve gives the SVD's minimum-norm solution on the omitted
    /// unknowns, keeps the given ones, leaves out the rows not asked for, and refuses
    /// redundant rows.
    #[test]
    fn the_sparse_minimum_norm_solution_is_the_svds() {
        let j = DMatrix::from_row_slice(
            3,
            5,
            &[1.0, 2.0, 0.0, -1.0, 0.5, 0.0, 1.0, 3.0, 0.0, -2.0, 4.0, 0.0, 1.0, 1.0, 0.0],
        );
        let entries: Vec<(usize, usize, f64)> = (0..3)
            .flat_map(|r| (0..5).map(move |c| (r, c)))
            .filter(|&(r, c)| j[(r, c)] != 0.0)
            .map(|(r, c)| (r, c, j[(r, c)]))
            .collect();
        let b = [0.3, -1.2, 2.5];
        let given = [None, Some(0.7), None, None, None];
        let x = min_norm_sparse(&entries, &[0, 1, 2], &given, &b).expect("independent rows");
        let free = [0, 2, 3, 4];
        let ju = DMatrix::from_fn(3, 4, |r, c| j[(r, free[c])]);
        let rhs = DVector::from_fn(3, |r, _| b[r] - j[(r, 1)] * 0.7);
        let expected = svd(ju, true).unwrap().solve(&rhs, 1e-12);
        assert_eq!(x[1], 0.7);
        for (k, &c) in free.iter().enumerate() {
            assert!((x[c] - expected[k]).abs() < 1e-13, "x[{c}] = {} against {}", x[c], expected[k]);
        }
        // Row 1 left out: its equation is not imposed, the others are.
        let x = min_norm_sparse(&entries, &[0, 2], &[None; 5], &[b[0], b[2]]).unwrap();
        let image = &j * DVector::from_column_slice(&x);
        assert!((image[0] - b[0]).abs() < 1e-13 && (image[2] - b[2]).abs() < 1e-13 && (image[1] - b[1]).abs() > 1e-3);
        // A row repeated: singular.
        let twice: Vec<_> = entries
            .iter()
            .chain(entries.iter().filter(|e| e.0 == 0))
            .enumerate()
            .map(|(k, &(r, c, x))| (if k >= entries.len() { 3 } else { r }, c, x))
            .collect();
        assert_eq!(min_norm_sparse(&twice, &[0, 1, 2, 3], &[None; 5], &[b[0], b[1], b[2], b[0] + 1.0]), None);
    }

    /// The single-row shortcut gives the SVD's answer: nonzero rows (from subnormal to 1e300
    /// entries, one to five columns) are independent, zero rows are not.
    #[test]
    fn a_single_row_is_independent_exactly_when_the_svd_says_so() {
        let rows: [&[f64]; 9] = [
            &[0.0, 1.0],
            &[-3.5, 2.0, 0.25],
            &[0.0, 0.0],
            &[-0.0],
            &[5e-324, 0.0],
            &[1e-300, -2e-300, 3e-300],
            &[1e300, 1e300, -1e300, 1e300, 1e300],
            &[7.0],
            &[0.0, 0.0, 1e-200, 0.0],
        ];
        for r in rows {
            let jm = DMatrix::from_row_slice(1, r.len(), r);
            let expected = independent_rows_by_svd(&jm).expect("finite entries");
            assert_eq!(independent_rows(&jm), Some(expected.clone()), "row {r:?}");
            assert_eq!(expected.is_empty(), r.iter().all(|&x| x == 0.0), "row {r:?}");
        }
    }
}
