//! Static equilibrium of a constrained system at rest:
//!   r(q, lambda) = g(q, t) + Phi_q^T lambda = 0,   Phi(q, t) = 0,
//! by Newton's method on [dq, dlambda] with the Newton matrix of the `Dynamics` contract,
//!   [[K + (Phi_q^T lambda)_q + eps M, Phi_q^T], [Phi_q, 0]] [dq; dlambda] = -[r; Phi],
//! factorized with the sparse LU. eps = 0 is plain Newton. `Simulation::settle_static` steps
//! loads that grow with t in increments and halves one that does not converge.
//!
//! Plain Newton alone failed on an ordinary model (a probe written from the docs): a flexible
//! link on a pin under gravity, drawn unstressed off its hanging position. There the link's
//! rotation about the pin has no stiffness (gravity acts on beam nodes as dead loads and the
//! unstressed beam carries no axial force, so no geometric stiffness), the tangent is singular
//! or nearly so, and the first step turned the link by 5.7e6 rad; from 0.07 rad off hanging it
//! ended upside down. So a solve may be *globalized* (`StaticOptions::globalize`, used from a
//! configuration that is not yet an equilibrium, e.g. the one drawn in the model file) by
//! pseudo-transient continuation (Kelley & Keyes 1998, "Convergence analysis of
//! pseudo-transient continuation", SIAM J. Numer. Anal. 35; for constrained, differential-
//! algebraic problems, with no pseudo-time derivative on the algebraic rows: Coffey, Kelley &
//! Keyes 2003, "Pseudotransient continuation and differential-algebraic equations", SIAM J.
//! Sci. Comput. 25): the step above with eps > 0 is a backward-Euler step of the overdamped
//! flow M q' = -r(q) on the constraint manifold, of pseudo-time step 1/eps (s^2). That flow
//! runs downhill, so it ends in a stable equilibrium; large steps (small eps) are Newton.
//! The mass term is used only where plain Newton is not to be trusted:
//! - the plain tangent is singular (a coordinate without stiffness);
//! - its step is too long: some coordinate moves by more than MAX_STEP of its scale (the model
//!   length for positions, 1 rad for rotations), which also keeps rotations sane, unless the
//!   step is verified: the residual at its end has fallen tenfold (forces and constraints), so
//!   the linearization held along it. The scales come from the model's geometry and a model
//!   can have none: a point mass at the origin on a spring under a force (paper 003's
//!   oscillator) has its equilibrium 83 to 100 model lengths (the 1 mm floor) away, which MAX_STEP
//!   steps took more than the iterations allowed; one verified step reaches it;
//! - its step climbs: the curvature dq^T (K + eps M) dq along it is negative, so it heads for
//!   a saddle or a maximum of the potential (a link falling past horizontal, compressed and
//!   with negative geometric stiffness) rather than down to a minimum.
//!
//! eps then starts where the mass-metric step r_i / (eps M_ii) moves no coordinate by more than
//! FIRST_STEP of its scale, grows tenfold while the step is still rejected, and follows the
//! residual by switched evolution relaxation (SER, Kelley & Keyes sec. 2: eps_{k+1} = eps_k
//! |r_{k+1}| / |r_k|), back to plain Newton once the residual has fallen by EPS_OFF or passes
//! the test below. A load control increment (continuing from an equilibrium, `globalize` off)
//! stays plain Newton: a step too long there fails the increment, which the caller halves, so
//! a limit point still ends the run (Lee's frame) rather than snapping through.
//!
//! An equilibrium is accepted only after a plain Newton step (its tangent nonsingular) whose
//! increment is below the tolerance (each coordinate against its scale plus its size), and only
//! if the residual itself is small: the force residual, weighted by the coordinate scales
//! (work units), against the largest such weighted force of the loads, internal forces and
//! reactions in play, with a floor at the round-off of the elastic forces (ROUNDOFF K_ii (s_i +
//! |q_i|) per coordinate); the constraint residual against tolerance (length + max |q|). Or
//! after two plain Newton steps that each move no coordinate by more than ROUNDOFF of
//! (s_i + |q_i|): then q is the equilibrium as far as floating point represents it, and what
//! remains of the residual is the round-off of the forces.
//!
//! A globalized solve that reaches no equilibrium says why it thinks so: a model whose
//! stiffness at the start is singular along the loads' first plain Newton step (`HELD`) may be a
//! mechanism its loads keep moving; one held there whose linear response moves it more than
//! FAR_REACH scales is loaded far beyond what its elements represent (a stiffness or unit
//! mistake: `StaticsError::FarBeyondElements`).

use crate::integrators::convergence::{ROUNDOFF, model_length, reachable};
use crate::integrators::{Dynamics, TangentCoefficients, largest_ratio};
use crate::linalg::{SparseLu, SparseMatrix};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StaticsError {
    #[error(
        "the static tangent is singular where the forces do not balance: the loads move a mechanism or a \
         coordinate without stiffness (hold it with a joint, a spring or a support), or the load has reached a \
         critical point (buckling); smaller increments cannot help"
    )]
    Singular,
    #[error(
        "static Newton did not converge in {0} iterations: the load increment is too large (take smaller ones, \
         e.g. a shorter output interval) or the load is beyond a limit point, past which load control finds no \
         equilibrium nearby (snap-through), or a displacement a drive imposes is beyond a turning point of the \
         path (snap-back), past which displacement control finds none"
    )]
    NotConverged(usize),
    #[error(
        "no equilibrium reached in {iterations} pseudo-transient Newton iterations from the configuration given \
         (the force residual still {residual:.1e} of the forces in play): the model may be a mechanism that its \
         loads keep moving (a body no joint, spring or support holds against them), or the configuration is far \
         from any equilibrium"
    )]
    NoEquilibrium { iterations: usize, residual: f64 },
    /// As `NoEquilibrium`, from a start where the model is held (`Solver::linear_reach`): a
    /// clamped steel cantilever with E given in MPa (a million times too soft) was told it "may
    /// be a mechanism" (a probe), where its loads would curl it hundreds of turns.
    #[error(
        "no equilibrium reached in {iterations} pseudo-transient Newton iterations from the configuration given \
         (the force residual still {residual:.1e} of the forces in play): the model is held (its stiffness at the \
         start is not singular), but the loads would deform it far beyond what its elements represent: their \
         linear response there moves it by {reach:.1e} model lengths, or radians for a rotation ({turns:.1e} \
         turns); check the stiffness and the units (E in Pa, lengths in m, forces in N)",
        turns = reach / std::f64::consts::TAU
    )]
    FarBeyondElements { iterations: usize, residual: f64, reach: f64 },
}

/// How a static solve measures and globalizes.
#[derive(Debug, Clone, Copy)]
pub struct StaticOptions<'a> {
    /// Relative tolerance (increments, residuals).
    pub tolerance: f64,
    /// Per coordinate, the size of a large motion: the model length for positions, 1 for
    /// rotation and other dimensionless coordinates. Steps are bounded in it and residual
    /// forces weighted by it.
    pub scales: &'a [f64],
    /// Pseudo-transient continuation where plain Newton fails (from a configuration that is
    /// not an equilibrium); off: plain Newton, a step too long fails (a load increment from an
    /// equilibrium, which the caller halves).
    pub globalize: bool,
}

/// Plain Newton iterations allowed for one load increment (as before globalization).
const MAX_NEWTON_ITERATIONS: usize = 30;
/// Iterations allowed for a globalized solve: pseudo-transient steps and the Newton steps
/// after them (the probe's pinned link from 30 degrees below horizontal takes about 40).
const MAX_PSEUDO_TRANSIENT_ITERATIONS: usize = 300;
/// Largest step of one iteration, in coordinate scales (1 rad for rotations): longer plain
/// Newton steps are not trusted. The elastica of `models/elastica_cantilever.toml` (k = 1)
/// takes a first step of 0.5 rad at the tip.
const MAX_STEP: f64 = 1.0;
/// A step longer than MAX_STEP is kept if the residual falls by this factor along it (the
/// forces in work units; the constraint residual too, or is at the tolerance): the
/// linearization held over it, as for any linear spring.
const LONG_STEP_REDUCTION: f64 = 0.1;
/// The first pseudo-transient step moves a coordinate by about this much of its scale.
const FIRST_STEP: f64 = 0.1;
/// Pseudo-time steps are lengthened (eps lowered beyond SER) while they move less than this,
/// in coordinate scales: SER alone lowers eps only as fast as the residual falls, and the
/// residual of a link turning about a pin falls only near the end (the moment of its weight
/// goes as the cosine of its angle), while the first eps, from the diagonal masses, is set by
/// the smallest of them (a beam node's rotary inertia, not the link's about the pin): the
/// probe's pinned link crept 0.005 rad a step.
const STEP_FLOOR: f64 = 0.1;
/// eps is raised this much at a time while a step is rejected, at most RAISES times per
/// iteration (then the matrix is taken as singular: a coordinate without mass or stiffness).
const RAISE: f64 = 10.0;
const RAISES: usize = 30;
/// Newton iterations allowed for one pseudo-time step, and its convergence: the last step
/// below this fraction of the first (the stiff directions settled; the step's own accuracy
/// does not matter, only that its residual is the soft one that SER reads).
const PSEUDO_STEP_ITERATIONS: usize = 8;
const PSEUDO_STEP_CONVERGED: f64 = 1e-3;
/// Plain Newton again once the residual has fallen by this factor from where the
/// pseudo-transient phase started (SER has lowered eps as much).
const EPS_OFF: f64 = 1e-4;

/// A held model's linear response longer than this (in coordinate scales: model lengths, or
/// radians) is far beyond any equilibrium its elements represent: ten model lengths, or more
/// than a turn and a half (`StaticsError::FarBeyondElements`; the probe's beam in MPa: 1e3).
const FAR_REACH: f64 = 10.0;
/// The model is held at the start if the stiffness along the first plain Newton step (its
/// energy dq^T K dq over |dq|^2 in coordinate scales) is above this fraction of the stiffest
/// coordinate's K_ii: a mechanism's direction has only the round-off of K, a soft structure its
/// own bending stiffness, whatever its units (the probe's cantilever in MPa: 7e-7 of its axial
/// one). Measured over the statics, modes and beam tests: mechanisms (free beams, pinned
/// links) at most 6e-18 (or negative), held structures at least 4e-11 (an ANCF cantilever of
/// 200 elements).
const HELD: f64 = 1e-13;

/// The proximal weight of a load increment's steps at a singular tangent, as a fraction of the
/// stiffest coordinate's K_ii / M_ii (`Solver::proximal_eps`).
const PROXIMAL_FRACTION: f64 = 1e-12;

/// What a solve found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Solved {
    /// Newton iterations, pseudo-transient ones included.
    pub iterations: usize,
    /// The forces balance but the tangent is singular there: a neutral equilibrium, with
    /// directions the model moves in without any force (a free body, a ball on a frictionless
    /// floor, a mechanism unloaded along its motion), or a critical point. The coordinates
    /// along those directions keep the values they had.
    pub neutral: bool,
}

/// Solves from (q, lambda) in place at time t, globalized, with the model length of q as the
/// scale of every coordinate (library callers with a well-posed start: a load increment from
/// an equilibrium). Returns the number of Newton iterations.
pub fn static_equilibrium(
    sys: &dyn Dynamics,
    q: &mut [f64],
    lambda: &mut [f64],
    t: f64,
    tolerance: f64,
) -> Result<usize, StaticsError> {
    let scales = vec![model_length(q); q.len()];
    solve_static(sys, q, lambda, t, &StaticOptions { tolerance, scales: &scales, globalize: true })
        .map(|s| s.iterations)
}

/// The residual parts at an iterate.
struct Residual {
    /// g(q, t) at rest.
    forces: Vec<f64>,
    /// Phi_q^T lambda.
    reactions: Vec<f64>,
    /// r = forces + reactions, then Phi: the negated right-hand side.
    r: Vec<f64>,
}

impl Residual {
    fn new(n: usize, m: usize) -> Self {
        Residual { forces: vec![0.0; n], reactions: vec![0.0; n], r: vec![0.0; n + m] }
    }

    fn evaluate(&mut self, sys: &dyn Dynamics, q: &[f64], lambda: &[f64], t: f64, zeros: &[f64]) {
        let n = q.len();
        let mut inertial = vec![0.0; n];
        sys.forces(q, zeros, zeros, t, &mut inertial, &mut self.forces);
        self.reactions.fill(0.0);
        sys.add_constraint_forces(q, lambda, &mut self.reactions);
        let (r, phi) = self.r.split_at_mut(n);
        for ((r, f), c) in r.iter_mut().zip(&self.forces).zip(&self.reactions) {
            *r = f + c;
        }
        sys.constraint_residual(q, t, phi);
    }

    /// max_i s_i |r_i| (work units): the SER norm.
    fn norm(&self, s: &[f64]) -> f64 {
        s.iter().zip(&self.r).fold(0.0f64, |a, (s, r)| a.max(s * r.abs()))
    }

    /// max_i s_i max(|g_i|, |(Phi_q^T lambda)_i|): the forces in play.
    fn work(&self, s: &[f64]) -> f64 {
        s.iter()
            .zip(self.forces.iter().zip(&self.reactions))
            .fold(0.0f64, |a, (s, (f, c))| a.max(s * f.abs().max(c.abs())))
    }
}

/// Solves from (q, lambda) in place at time t (module doc); on failure q and lambda hold the
/// last iterate.
pub fn solve_static(
    sys: &dyn Dynamics,
    q: &mut [f64],
    lambda: &mut [f64],
    t: f64,
    o: &StaticOptions,
) -> Result<Solved, StaticsError> {
    Solver::new(sys, t, o, q, lambda).run(q, lambda)
}

/// The state of one static solve.
struct Solver<'a> {
    sys: &'a dyn Dynamics,
    t: f64,
    o: &'a StaticOptions<'a>,
    n: usize,
    tolerance: f64,
    /// max_i s_i: the constraint residual's scale.
    length: f64,
    zeros: Vec<f64>,
    matrix: SparseMatrix,
    mass_matrix: SparseMatrix,
    lu: SparseLu,
    diagonal: Vec<Option<usize>>,
    /// M_ii at the start (first pseudo-transient eps), K_ii at the last plain Newton matrix
    /// (round-off floor of the residual test).
    mass: Vec<f64>,
    stiffness: Vec<f64>,
    res: Residual,
    /// The forces in play at the start (`Residual::work`).
    start_work: f64,
    step: Vec<f64>,
    image: Vec<f64>,
    iterations: usize,
    /// The first plain Newton step's length (coordinate scales) where the model is held there
    /// (`HELD`): the loads' linear response, to tell a failure far beyond the elements' range
    /// from a mechanism.
    linear_reach: Option<f64>,
}

/// How a step was judged.
enum Step {
    /// Taken; its length in coordinate scales and its increment relative to (s_i + |q_i|).
    Taken { longest: f64, increment: f64 },
    /// The matrix is singular.
    Singular,
    /// Longer than MAX_STEP, or climbing (negative curvature along it, globalized only).
    Rejected,
    /// Not taken: the forces balance already and the step runs along a direction without
    /// stiffness (a neutral equilibrium, `Solver::newton_step`).
    Neutral,
}

impl<'a> Solver<'a> {
    fn new(sys: &'a dyn Dynamics, t: f64, o: &'a StaticOptions<'a>, q: &[f64], lambda: &[f64]) -> Self {
        let (n, m) = (sys.coordinates(), sys.constraints());
        assert_eq!(o.scales.len(), n, "one scale per coordinate");
        let zeros = vec![0.0; n];
        let mut matrix = sys.newton_pattern();
        let lu = SparseLu::new(&matrix);
        let diagonal = diagonal_slots(&matrix, n);
        sys.newton_matrix(q, &zeros, &zeros, lambda, t, coefficients(1.0, 0.0), &mut matrix);
        let mass = diagonal.iter().map(|k| k.map_or(0.0, |k| matrix.values[k])).collect();
        let mut res = Residual::new(n, m);
        res.evaluate(sys, q, lambda, t, &zeros);
        Solver {
            sys,
            t,
            o,
            n,
            tolerance: reachable(o.tolerance),
            length: o.scales.iter().fold(0.0f64, |a, x| a.max(*x)),
            zeros,
            mass_matrix: matrix.clone(),
            matrix,
            lu,
            diagonal,
            mass,
            stiffness: vec![0.0; n],
            start_work: res.work(o.scales),
            res,
            step: vec![0.0; n + m],
            image: vec![0.0; n + m],
            iterations: 0,
            linear_reach: None,
        }
    }

    /// The weight of the proximal term of a load increment's step at a singular tangent: the
    /// fraction PROXIMAL_FRACTION of the largest K_ii / M_ii of the last plain Newton matrix
    /// (1 / s^2 if nothing has stiffness).
    fn proximal_eps(&self) -> f64 {
        let ratio = largest_ratio(&self.mass, &self.stiffness);
        PROXIMAL_FRACTION * if ratio > 0.0 && ratio.is_finite() { ratio } else { 1.0 }
    }

    fn max_iterations(&self) -> usize {
        if self.o.globalize { MAX_PSEUDO_TRANSIENT_ITERATIONS } else { MAX_NEWTON_ITERATIONS }
    }

    /// The residual test of the module doc at the current residual.
    fn residual_small(&self, q: &[f64]) -> bool {
        let (s, n, res) = (self.o.scales, self.n, &self.res);
        let work = self.start_work.max(res.work(s));
        let forces = (0..n).all(|i| {
            let floor = ROUNDOFF * self.stiffness[i].abs() * (s[i] + q[i].abs());
            s[i] * (res.r[i].abs() - floor).max(0.0) <= self.tolerance * work
        });
        let largest = q.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        forces && res.r[n..].iter().all(|p| p.abs() <= self.tolerance * (self.length + largest))
    }

    /// One Newton step on r(q) + eps M (q - base) = 0, Phi = 0 (base: the pseudo-time step's
    /// start; eps = 0: plain Newton), taken unless singular or rejected.
    fn newton_step(&mut self, q: &mut [f64], lambda: &mut [f64], eps: f64, base: &[f64]) -> Step {
        let (sys, t, n, s) = (self.sys, self.t, self.n, self.o.scales);
        self.iterations += 1;
        sys.newton_matrix(q, &self.zeros, &self.zeros, lambda, t, coefficients(eps, 1.0), &mut self.matrix);
        for (k, d) in self.step.iter_mut().zip(&self.res.r) {
            *k = -d;
        }
        if eps == 0.0 {
            for (k, slot) in self.stiffness.iter_mut().zip(&self.diagonal) {
                *k = slot.map_or(0.0, |j| self.matrix.values[j]);
            }
        } else {
            // The proximal term eps M (q - base), as in `Workspace::follow_drives`.
            sys.newton_matrix(q, &self.zeros, &self.zeros, lambda, t, coefficients(1.0, 0.0), &mut self.mass_matrix);
            let mut offset = vec![0.0; self.step.len()];
            for i in 0..n {
                offset[i] = q[i] - base[i];
            }
            self.mass_matrix.mul_vec(&offset, &mut self.image);
            for i in 0..n {
                self.step[i] -= eps * self.image[i];
            }
        }
        let solved = self.lu.factorize(&self.matrix).is_ok()
            && self.lu.solve(&mut self.step).is_ok()
            && self.step.iter().all(|x| x.is_finite());
        if !solved {
            return Step::Singular;
        }
        let longest = (0..n).fold(0.0f64, |a, i| a.max(self.step[i].abs() / s[i]));
        let first = eps == 0.0 && self.iterations == 1 && self.o.globalize;
        let judged = self.o.globalize && longest > self.tolerance;
        // A Newton step from where the forces balance already.
        let balanced = eps == 0.0 && longest > self.tolerance && self.residual_small(q);
        // The curvature along the step (with its round-off scale), once for the uses below,
        // and whether it is that of a held direction (`HELD`).
        let curvature = (first || judged || balanced).then(|| self.curvature());
        let held = curvature.map(|(curvature, _)| {
            let scaled: f64 = (0..n).map(|i| (self.step[i] / s[i]).powi(2)).sum();
            let stiffest = (0..n).fold(0.0f64, |a, i| a.max(self.stiffness[i].abs() * s[i] * s[i]));
            curvature > HELD * scaled * stiffest
        });
        if first {
            // The loads' linear response from the start, where the model is held.
            self.linear_reach = (held == Some(true)).then_some(longest);
        }
        // Forces that balance and a step along a direction with only the round-off of K: an
        // equilibrium that is neutral as far as the matrix can tell, and the step round-off
        // (a probe's tripod of steel bars on spherical joints, each free to spin about its own
        // axis but for the round-off-sized stiffness of its weight's sag: the steps spun the
        // bars back and forth, rejected as climbing, and the pseudo-transient phase gave up
        // after 300 iterations at a residual of 3e-10 of the forces in play).
        if balanced && held == Some(false) {
            return Step::Neutral;
        }
        // The curvature along the step against its round-off.
        let climbs = judged && curvature.is_some_and(|(curvature, round_off)| curvature < -ROUNDOFF * round_off);
        if climbs {
            return Step::Rejected;
        }
        let increment = (0..n).fold(0.0f64, |a, i| a.max(self.step[i].abs() / (s[i] + q[i].abs())));
        let before = (longest > MAX_STEP).then(|| (q.to_vec(), lambda.to_vec(), self.residual_sizes()));
        for (x, d) in q.iter_mut().zip(&self.step[..n]) {
            *x += d;
        }
        for (l, d) in lambda.iter_mut().zip(&self.step[n..]) {
            *l += d;
        }
        self.res.evaluate(sys, q, lambda, t, &self.zeros);
        if let Some((q0, lambda0, (forces0, phi0))) = before {
            // A long step is kept only where the linearization held along it (module doc).
            let (forces, phi) = self.residual_sizes();
            let floor = self.tolerance * (self.length + q.iter().fold(0.0f64, |a, x| a.max(x.abs())));
            if !(forces <= LONG_STEP_REDUCTION * forces0 && phi <= (LONG_STEP_REDUCTION * phi0).max(floor)) {
                q.copy_from_slice(&q0);
                lambda.copy_from_slice(&lambda0);
                self.res.evaluate(sys, q, lambda, t, &self.zeros);
                return Step::Rejected;
            }
        }
        if !self.res.r.iter().all(|x| x.is_finite()) {
            return Step::Singular;
        }
        Step::Taken { longest, increment }
    }

    /// The curvature dq^T (K + eps M) dq of the matrix along the step (its multiplier part
    /// zero), and |dq| |(K + eps M) dq|, the scale of its round-off.
    fn curvature(&mut self) -> (f64, f64) {
        let n = self.n;
        let mut x = self.step.clone();
        x[n..].fill(0.0);
        self.matrix.mul_vec(&x, &mut self.image);
        let curvature: f64 = (0..n).map(|i| x[i] * self.image[i]).sum();
        let size = |v: &[f64]| v[..n].iter().map(|v| v * v).sum::<f64>().sqrt();
        (curvature, size(&x) * size(&self.image))
    }

    /// The force residual in work units (`Residual::norm`) and the largest constraint
    /// residual, at the current residual.
    fn residual_sizes(&self) -> (f64, f64) {
        let phi = self.res.r[self.n..].iter().fold(0.0f64, |a, p| a.max(p.abs()));
        (self.res.norm(self.o.scales), phi)
    }

    /// One pseudo-time step from q (of size 1/eps): r(q1) + eps M (q1 - q) = 0, Phi(q1) = 0 by
    /// Newton. Converged steps, rather than the single Newton iteration of Kelley & Keyes: a
    /// rotation taken in one linearized step stretches a stiff beam by about L dtheta^2 / 2,
    /// and that axial force, corrected only by the next iteration, dominated the residual SER
    /// reads (measured on the probe's pinned link: the residual alternating by 100x and eps
    /// never falling). On failure (singular, a step rejected, no convergence in
    /// PSEUDO_STEP_ITERATIONS) q and lambda are put back.
    fn pseudo_step(&mut self, q: &mut [f64], lambda: &mut [f64], eps: f64) -> Option<f64> {
        let (base, base_lambda, base_res) = (q.to_vec(), lambda.to_vec(), self.res.r.clone());
        let mut first = None;
        for _ in 0..PSEUDO_STEP_ITERATIONS {
            match self.newton_step(q, lambda, eps, &base) {
                Step::Taken { longest, .. } => {
                    let first = *first.get_or_insert(longest);
                    if longest <= PSEUDO_STEP_CONVERGED * first || longest <= self.tolerance {
                        let s = self.o.scales;
                        return Some((0..self.n).fold(0.0f64, |a, i| a.max((q[i] - base[i]).abs() / s[i])));
                    }
                }
                Step::Singular | Step::Rejected | Step::Neutral => break,
            }
        }
        q.copy_from_slice(&base);
        lambda.copy_from_slice(&base_lambda);
        self.res.evaluate(self.sys, q, lambda, self.t, &self.zeros);
        debug_assert!(self.res.r.iter().zip(&base_res).all(|(a, b)| a == b || (a.is_nan() && b.is_nan())));
        None
    }

    fn run(&mut self, q: &mut [f64], lambda: &mut [f64]) -> Result<Solved, StaticsError> {
        let s = self.o.scales;
        // eps (0: plain Newton) and the residual norm its pseudo-transient phase started at.
        let (mut eps, mut norm_at_start) = (0.0f64, 0.0f64);
        let mut previous_increment: Option<f64> = None;
        let mut raises = 0;
        while self.iterations < self.max_iterations() {
            let norm = self.res.norm(s);
            if eps == 0.0 {
                match self.newton_step(q, lambda, 0.0, &[]) {
                    Step::Taken { increment, .. } => {
                        raises = 0;
                        // Converged: the increment below the tolerance, or no longer
                        // contracting (at its round-off: Deuflhard, Newton methods for
                        // nonlinear problems, 2004, sec. 2.1.5), and in both cases the
                        // residual small.
                        let stagnates = previous_increment
                            .is_some_and(|p| increment >= 0.5 * p && increment <= 1e3 * self.tolerance);
                        // Two steps that move no coordinate by more than its round-off: q is the
                        // equilibrium as far as floating point can represent it, whatever the
                        // residual (the round-off of stiff elastic forces; a probe's unloaded
                        // quarter-circle steel beam, 32 elements: residual 1e-7 N m, all of it
                        // round-off, and nothing else in play).
                        let represented = increment <= ROUNDOFF && previous_increment.is_some_and(|p| p <= ROUNDOFF);
                        if (increment <= self.tolerance || stagnates) && (represented || self.residual_small(q)) {
                            return Ok(Solved { iterations: self.iterations, neutral: false });
                        }
                        previous_increment = Some(increment);
                        continue;
                    }
                    Step::Neutral => return Ok(Solved { iterations: self.iterations, neutral: true }),
                    Step::Singular if self.residual_small(q) => {
                        // A singular tangent where the forces balance: a neutral equilibrium
                        // (a free body, a mechanism unloaded along its motion) or a critical
                        // point (`Solved::neutral`).
                        return Ok(Solved { iterations: self.iterations, neutral: true });
                    }
                    // A load increment from an equilibrium with a direction that nothing
                    // resists (a ball on a frictionless floor, loaded vertically): Newton
                    // steps proximal in the mass metric with a weight far below the stiffness
                    // (`PROXIMAL_FRACTION`), which leave such a direction where it is when the
                    // forces along it balance. Where they do not (the load pushes along it, or
                    // a critical point), the step is too long and the increment fails, as
                    // before (a probe's ball under a growing lift was "singular where the
                    // forces do not balance" at the first increment).
                    Step::Singular if !self.o.globalize => {
                        let base = q.to_vec();
                        match self.newton_step(q, lambda, self.proximal_eps(), &base) {
                            Step::Taken { .. } => {
                                previous_increment = None;
                                continue;
                            }
                            _ => return Err(StaticsError::Singular),
                        }
                    }
                    Step::Rejected if !self.o.globalize => return Err(StaticsError::NotConverged(self.iterations)),
                    Step::Singular | Step::Rejected => {
                        eps = first_eps(&self.res.r[..self.n], &self.mass, s, &self.stiffness);
                        norm_at_start = norm;
                        previous_increment = None;
                    }
                }
            }
            if let Some(moved) = self.pseudo_step(q, lambda, eps) {
                raises = 0;
                // SER, but no slower than steps of STEP_FLOOR (for a motion dominated by
                // mass, the step length goes as 1/eps); plain Newton again near the solution.
                let new_norm = self.res.norm(s);
                eps *= (new_norm / norm.max(f64::MIN_POSITIVE)).min(moved / STEP_FLOOR);
                if new_norm <= EPS_OFF * norm_at_start || self.residual_small(q) {
                    eps = 0.0;
                }
            } else {
                raises += 1;
                if raises > RAISES {
                    return Err(StaticsError::Singular);
                }
                eps *= RAISE;
            }
        }
        if self.o.globalize {
            let work = self.start_work.max(self.res.work(s));
            let (iterations, residual) = (self.iterations, self.res.norm(s) / work.max(f64::MIN_POSITIVE));
            match self.linear_reach {
                // Held, but loaded far beyond its elements: not a mechanism (a stiffness or
                // unit mistake, most likely).
                Some(reach) if reach > FAR_REACH => {
                    Err(StaticsError::FarBeyondElements { iterations, residual, reach })
                }
                _ => Err(StaticsError::NoEquilibrium { iterations, residual }),
            }
        } else {
            Err(StaticsError::NotConverged(self.iterations))
        }
    }
}

fn coefficients(mass: f64, stiffness: f64) -> TangentCoefficients {
    TangentCoefficients { mass, damping: 0.0, stiffness, lambda: 1.0 }
}

/// The first eps: the mass-metric step r_i / (eps M_ii) moves no coordinate with mass by more
/// than FIRST_STEP of its scale; if no coordinate with mass is loaded, a millionth of the
/// stiffest K_ii / M_ii (about the highest squared frequency), else 1 s^-2.
fn first_eps(r: &[f64], mass: &[f64], s: &[f64], stiffness: &[f64]) -> f64 {
    let mut eps = 0.0f64;
    let mut stiffest = 0.0f64;
    for i in 0..r.len() {
        if mass[i] > 0.0 {
            eps = eps.max(r[i].abs() / (mass[i] * FIRST_STEP * s[i]));
            stiffest = stiffest.max(stiffness[i].abs() / mass[i]);
        }
    }
    if eps > 0.0 && eps.is_finite() {
        eps
    } else if stiffest > 0.0 && stiffest.is_finite() {
        1e-6 * stiffest
    } else {
        1.0
    }
}

/// The slots of the diagonal entries of the n x n top block (None where not in the pattern).
fn diagonal_slots(matrix: &SparseMatrix, n: usize) -> Vec<Option<usize>> {
    let mut slots = vec![None; n];
    for (k, (i, j, _)) in matrix.entries().enumerate() {
        if i == j && i < n {
            slots[i] = Some(k);
        }
    }
    slots
}
