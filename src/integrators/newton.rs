//! The one Newton solver every integrator uses.
//!
//! Every implicit stage of every method in this crate has the same shape: the unknown
//! acceleration a (and multipliers lambda) determine velocity and position affinely,
//!   v = v_base + gamma' a,   q = q_base + beta' a,
//! and the residual is
//!   R1 = M(q) a + g(q, v, t) + Phi_q^T lambda = 0,
//!   R2 = Phi(q, t) / beta' = 0.
//! Dividing Phi by beta' is the constraint-row scaling of paper 000 eqs. (33), (39): with
//! it every Newton-matrix entry is O(dt^0), M + gamma' C + beta' K in the first rows
//! and Phi_q in the last (paper 000 eqs. 36, 40).

use super::constraints::{BaumgarteConstants, ConstraintTreatment};
use super::convergence::{ConstraintError, IncrementScale, ROUNDOFF, can_converge, converged};
use super::dynamics::{Dynamics, EnergyFlow, StepPoint, Stride, TangentCoefficients};
use super::energy_check::EnergyCheck;
use super::predictor::{Known, StageMemory, extrapolate_through};
use crate::linalg::{FactorizationError, SparseLu, SparseMatrix};

mod follow_drives;
mod memory;

pub use memory::SolverMemory;

/// How the Newton matrix is refreshed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NewtonStrategy {
    /// New Jacobian and factorization every iteration.
    Full,
    /// Keep the factorization across iterations, stages and steps while the iteration
    /// contracts fast enough; refresh it when it does not.
    Modified,
    /// Broyden's quasi-Newton method (paper 002 eqs. 32-33): the factorized Newton matrix
    /// J0 = M + gamma' C + beta' K (+ constraint blocks), evaluated at a stage start and kept
    /// like modified Newton's, corrected within each stage by "good Broyden" rank-one updates of
    /// its inverse in Sherman-Morrison product form. Paper 002 keeps the generalized damping
    /// matrix C in J0 (its Table 2: fewer iterations than without); ours always has it.
    Broyden,
}

impl NewtonStrategy {
    pub const ALL: [NewtonStrategy; 3] = [NewtonStrategy::Full, NewtonStrategy::Modified, NewtonStrategy::Broyden];

    pub fn name(self) -> &'static str {
        match self {
            NewtonStrategy::Full => "full",
            NewtonStrategy::Modified => "modified",
            NewtonStrategy::Broyden => "broyden",
        }
    }
}

impl std::fmt::Display for NewtonStrategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for NewtonStrategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        NewtonStrategy::ALL.into_iter().find(|m| m.name() == s).ok_or_else(|| {
            let names: Vec<_> = NewtonStrategy::ALL.iter().map(|m| m.name()).collect();
            format!("unknown Newton strategy '{s}', expected one of: {}", names.join(", "))
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewtonSettings {
    /// Relative tolerance on position and velocity increments and on the constraints, in the
    /// scales of src/integrators/convergence.rs (floored at 16 ulps).
    pub tolerance: f64,
    pub max_iterations: usize,
    pub strategy: NewtonStrategy,
    /// The constraint rows (src/integrators/constraints.rs).
    pub constraints: ConstraintTreatment,
    pub baumgarte: BaumgarteConstants,
}

impl Default for NewtonSettings {
    fn default() -> Self {
        NewtonSettings {
            tolerance: 1e-10,
            max_iterations: 25,
            strategy: NewtonStrategy::Modified,
            constraints: ConstraintTreatment::Index3,
            baumgarte: BaumgarteConstants { alpha: 10.0, beta: 50.0 },
        }
    }
}

/// Counters reported by `--stats-json` and the FMU's solver log.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Statistics {
    pub steps: u64,
    pub rejected_steps: u64,
    pub newton_iterations: u64,
    pub jacobian_evaluations: u64,
    pub factorizations: u64,
    /// Spans far below the internal step taken by extrapolation, not by steps
    /// (`Simulation::extrapolate`; a master's spans at events and from round-off).
    #[serde(default)]
    pub extrapolated_spans: u64,
}

impl Statistics {
    /// ", N short spans extrapolated" when there were any (the run's summaries).
    pub fn extrapolated(&self) -> String {
        match self.extrapolated_spans {
            0 => String::new(),
            1 => ", 1 short span extrapolated".to_string(),
            n => format!(", {n} short spans extrapolated"),
        }
    }
}

/// Why a stage's Newton iteration failed; the message says what happened and what to try
/// (the CLI prints it, the FMU logs it with fmi2Discard).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NewtonError {
    #[error(
        "Newton iteration did not converge in {iterations} iteration{} (last increment {increment:.1e} times the \
         tolerance{}); try a smaller step, error_control = true, or more max_iterations",
        if *iterations == 1 { "" } else { "s" },
        // One iteration has no rate ("contraction rate NaN" read as a fault; a probe).
        if rate.is_nan() { String::new() } else { format!(", contraction rate {rate:.2}") }
    )]
    NotConverged { iterations: usize, increment: f64, rate: f64 },
    #[error(
        "Newton iteration diverged after {iterations} iterations (the increments grew even along damped steps); \
         the motion is too fast for the step: try a smaller step or error_control = true"
    )]
    Diverged { iterations: usize },
    #[error(
        "{} {part} evaluated to NaN or infinity at t = {} (an expression outside its domain, such as the square \
         root of a negative number, or an overflow); check the model's values (SI units?), expressions and inputs, \
         or a smaller step",
        if part.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" },
        crate::compact_number::Compact(*.t)
    )]
    NonFinite { t: f64, part: &'static str },
    #[error(
        "the step to t = {} ended at NaN or infinity although its iteration converged (a force or the motion blew \
         up); check the model's values and inputs, or try a smaller step",
        crate::compact_number::Compact(*.t)
    )]
    NonFiniteResult { t: f64 },
    /// The error-controlled step's local error estimate, in units of the tolerance, stayed
    /// above 1 (src/integrators/error_control.rs).
    #[error("local error estimate {0:.3e} times the tolerance")]
    LocalErrorTest(f64),
    #[error("{0}")]
    Factorization(#[from] FactorizationError),
    #[error(
        "the step to t = {t} gained {growth:.3e} J of energy that no load, drive or input supplied (energy in play \
         {scale:.3e} J): its iteration found a spurious root or the method is unstable on this model; try the \
         default integrator (TTBIF), a smaller step or error_control = true"
    )]
    EnergyGrowth { t: f64, growth: f64, scale: f64 },
}

impl NewtonError {
    /// A failure of the iteration itself (not of the model's functions at the start, nor the
    /// error test): full Newton from the same start may still succeed.
    pub fn is_iteration_failure(&self) -> bool {
        matches!(self, NewtonError::NotConverged { .. } | NewtonError::Diverged { .. } | NewtonError::Factorization(_))
    }
}

/// Buffers and the factorization kept between stages and steps.
pub struct Workspace {
    matrix: SparseMatrix,
    lu: SparseLu,
    /// Coefficients of the matrix currently factorized, if the factorization is usable.
    factorized: Option<TangentCoefficients>,
    /// The values of the matrix in `lu` and in `spare_lu` (`matrix` is overwritten by every
    /// assembly, the index-1 ones too): what a snapshot carries of the kept factorizations
    /// (src/integrators/newton/memory.rs).
    kept_values: Vec<f64>,
    spare_values: Vec<f64>,
    /// A second kept factorization (with its coefficients), for methods whose stages alternate
    /// between two Newton matrices (Bathe with gamma = 1/2: beta' = (gamma h)^2/4, then
    /// (q2 h)^2): modified Newton then factorizes twice per communication interval on a linear
    /// problem instead of twice per step.
    spare_lu: SparseLu,
    spare: Option<TangentCoefficients>,
    /// The index-1 matrix [[M, Phi_q^T], [Phi_q, 0]] of `consistent_accelerations` and
    /// `velocity_jump`, in storage of its own: computing outputs between steps leaves the
    /// Newton factorizations, and so the steps, as they are.
    index1_lu: SparseLu,
    /// Iterations beyond EXACT_NEWTON_ITERATIONS of the stages solved with the current
    /// factorization, summed since it was computed.
    excess: usize,
    /// Stale kept matrices (`STALE_BACKOFF`): how many times in a row a stage abandoned the
    /// kept matrix it started with, and how many of the next stages refresh theirs at once.
    stale: Stale,
    inertial: Vec<f64>,
    forces: Vec<f64>,
    phi: Vec<f64>,
    /// Phi_q v, gamma and Phi_q a of the GGL and Baumgarte constraint rows.
    phi_dot: Vec<f64>,
    acceleration_rhs: Vec<f64>,
    phi_q_a: Vec<f64>,
    /// GGL's position shift -S^-1 Phi_q^T mu of the current stage.
    shift: Vec<f64>,
    rhs: Vec<f64>,
    broyden: BroydenUpdates,
    history: StepHistory,
    /// What the method kept of the last accepted step (of size `memory_h`) for its predictor.
    memory: StageMemory,
    memory_h: f64,
    memory_valid: bool,
    /// A cautious start for the next stage solve (`StepContext::set_fallback`).
    fallback_a: Vec<f64>,
    fallback_lambda: Vec<f64>,
    fallback_set: bool,
    /// Absolute floor of the position scale of the convergence test (the model's size).
    length: f64,
    /// A stage's starting values (for the full-Newton restart).
    start_a: Vec<f64>,
    start_lambda: Vec<f64>,
    /// Zeros for the a and lambda of `project_onto_constraints`' matrix (length n + m).
    zeros: Vec<f64>,
    /// The last step and (GGL) the shift before it, to retreat along the step.
    previous_shift: Vec<f64>,
    step: Vec<f64>,
    /// The energy check of converged steps, forgotten with the factorization.
    pub energy: EnergyCheck,
}

/// Acceleration and multipliers at the start of the previous step, for the Newton predictor
/// of a step's first stage (linear extrapolation in time). Forgotten with the factorization
/// (a failed step, an event, a changed parameter or setting) and at a restart; carried over
/// from one communication interval to the next and in snapshots (`SolverMemory`), so that a
/// restored state re-steps bit for bit.
#[derive(Default)]
struct StepHistory {
    valid: bool,
    h: f64,
    a: Vec<f64>,
    lambda: Vec<f64>,
}

/// The good-Broyden inverse H_k = (I + u_{k-1} s_{k-1}^T) ... (I + u_0 s_0^T) J0^-1 of one stage
/// (Sherman-Morrison product form, e.g. Kelley, "Iterative methods for linear and nonlinear
/// equations", SIAM 1995, sec. 7.3): the pairs (u_j, s_j), allocated once.
#[derive(Default)]
struct BroydenUpdates {
    u: Vec<Vec<f64>>,
    s: Vec<Vec<f64>>,
    count: usize,
    /// The previous step s_k is in `last` (none right after a (re)factorization).
    has_last: bool,
    last: Vec<f64>,
}

impl BroydenUpdates {
    fn reset(&mut self) {
        self.count = 0;
        self.has_last = false;
    }

    /// Room for `updates` pairs of length `len` (at most one update per Newton step since the
    /// last reset), allocated on the first use so that later stages allocate nothing; a stage
    /// that needs more adds them in `update_and_step`.
    fn reserve(&mut self, updates: usize, len: usize) {
        while self.u.len() < updates {
            self.u.push(vec![0.0; len]);
            self.s.push(vec![0.0; len]);
        }
        self.last.resize(len, 0.0);
    }

    /// x <- H_k x given x = J0^-1 r (the LU solve already done).
    fn apply_updates(&self, x: &mut [f64]) {
        for j in 0..self.count {
            let d = dot(&self.s[j], x);
            for (xi, ui) in x.iter_mut().zip(&self.u[j]) {
                *xi += ui * d;
            }
        }
    }

    /// With z = H_k r_{k+1} in `x`, form H_{k+1} from the last step s_k (good Broyden:
    /// H_{k+1} = H_k + (s_k - H_k y_k) s_k^T H_k / (s_k^T H_k y_k), y_k = F_{k+1} - F_k; with
    /// r = -F and s_k = H_k r_k, s_k - H_k y_k = z and s_k^T H_k y_k = s_k.s_k - s_k.z) and
    /// overwrite `x` with the new step s_{k+1} = H_{k+1} r_{k+1} = z (s_k.s_k) / (s_k.s_k - s_k.z).
    fn update_and_step(&mut self, x: &mut [f64]) {
        if self.has_last {
            let ss = dot(&self.last, &self.last);
            let sz = dot(&self.last, x);
            let denom = ss - sz;
            if denom.abs() > 1e-12 * ss && ss > 0.0 {
                let k = self.count;
                if self.u.len() <= k {
                    self.u.push(vec![0.0; x.len()]);
                    self.s.push(vec![0.0; x.len()]);
                }
                for (u, xi) in self.u[k].iter_mut().zip(x.iter()) {
                    *u = xi / denom;
                }
                self.s[k].copy_from_slice(&self.last);
                self.count += 1;
                let f = ss / denom;
                for xi in x.iter_mut() {
                    *xi *= f;
                }
            }
        }
        self.last.resize(x.len(), 0.0);
        self.last.copy_from_slice(x);
        self.has_last = true;
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

impl Workspace {
    pub fn new(sys: &dyn Dynamics) -> Self {
        let n = sys.coordinates();
        let m = sys.constraints();
        let matrix = sys.newton_pattern();
        let lu = SparseLu::new(&matrix);
        let entries = matrix.values.len();
        Workspace {
            matrix,
            kept_values: vec![0.0; entries],
            spare_values: vec![0.0; entries],
            spare_lu: lu.clone(),
            index1_lu: lu.clone(),
            lu,
            factorized: None,
            spare: None,
            excess: 0,
            stale: Stale::default(),
            inertial: vec![0.0; n],
            forces: vec![0.0; n],
            phi: vec![0.0; m],
            phi_dot: vec![0.0; m],
            acceleration_rhs: vec![0.0; m],
            phi_q_a: vec![0.0; m],
            shift: vec![0.0; n],
            rhs: vec![0.0; n + m],
            broyden: BroydenUpdates::default(),
            history: StepHistory::default(),
            memory: StageMemory::new(n, m),
            memory_h: 0.0,
            memory_valid: false,
            fallback_a: Vec::with_capacity(n),
            fallback_lambda: Vec::with_capacity(m),
            fallback_set: false,
            length: 1.0,
            start_a: Vec::with_capacity(n),
            start_lambda: Vec::with_capacity(m),
            previous_shift: Vec::new(),
            step: vec![0.0; n + m],
            zeros: vec![0.0; n + m],
            energy: EnergyCheck::default(),
        }
    }

    /// The absolute floor of the position scale (m or rad; per second for velocities).
    pub fn model_length(&self) -> f64 {
        self.length
    }

    /// Set the absolute floor of the position scale of the convergence test, normally
    /// `convergence::model_length` of the initial configuration (default 1).
    pub fn set_model_length(&mut self, length: f64) {
        if length.is_finite() && length > 0.0 {
            self.length = length;
        }
    }

    /// Forget the factorization and the predictor's history (after a parameter or settings
    /// change, a failed step, an event, or the restore of a state copied without them).
    pub fn invalidate(&mut self) {
        self.energy.forget();
        self.factorized = None;
        self.spare = None;
        self.stale = Stale::default();
        self.history.valid = false;
        self.memory_valid = false;
    }

    /// The energy check of a converged step from `start` to `end` (src/integrators/energy_check.rs),
    /// with the model length as the velocity scale of its floor.
    pub(crate) fn check_energy(
        &mut self,
        sys: &dyn Dynamics,
        start: &super::State,
        end: &super::State,
    ) -> Result<(), NewtonError> {
        self.energy.check(sys, start, end, self.length)
    }

    /// Forget what the predictor extrapolates from (the last steps' accelerations), keeping
    /// the factorization: the state was restarted from consistent accelerations.
    pub fn forget_history(&mut self) {
        self.history.valid = false;
        self.memory_valid = false;
    }

    /// Remember (a, lambda) at the start of a step of size h that succeeded, and what its
    /// method kept of it for the next step's predictor.
    pub(crate) fn record_step(&mut self, h: f64, a: &[f64], lambda: &[f64], memory: &StageMemory) {
        self.memory.copy_from(memory);
        self.memory_h = h;
        self.memory_valid = h > 0.0 && h.is_finite();
        self.record_step_start(h, a, lambda);
    }

    fn record_step_start(&mut self, h: f64, a: &[f64], lambda: &[f64]) {
        self.history.a.clear();
        self.history.a.extend_from_slice(a);
        self.history.lambda.clear();
        self.history.lambda.extend_from_slice(lambda);
        self.history.h = h;
        self.history.valid = true;
    }

    /// Newton's starting values at time t_n + dt from (a, lambda) at t_n: linear extrapolation
    /// through the values at the previous step's start (an O(h^2) guess instead of O(h)), or
    /// (a, lambda) themselves without history.
    pub(crate) fn predict(&self, a: &[f64], lambda: &[f64], dt: f64, a_out: &mut [f64], lambda_out: &mut [f64]) {
        let hist = &self.history;
        if !hist.valid
            || hist.h.is_nan()
            || hist.h <= 0.0
            || hist.a.len() != a.len()
            || hist.lambda.len() != lambda.len()
        {
            a_out.copy_from_slice(a);
            lambda_out.copy_from_slice(lambda);
            return;
        }
        let c = dt / hist.h;
        for ((o, x), p) in a_out.iter_mut().zip(a).zip(&hist.a) {
            *o = c * (x - p) + *x;
        }
        for ((o, x), p) in lambda_out.iter_mut().zip(lambda).zip(&hist.lambda) {
            *o = c * (x - p) + *x;
        }
    }

    /// Make the kept factorization the one for `c` if either slot has it; otherwise move a
    /// usable current factorization to the spare slot and leave none current.
    fn select(&mut self, c: &TangentCoefficients) {
        if self.factorized.is_some_and(|f| same_matrix(&f, c)) {
            return;
        }
        if self.spare.is_some_and(|f| same_matrix(&f, c)) || self.factorized.is_some() {
            std::mem::swap(&mut self.lu, &mut self.spare_lu);
            std::mem::swap(&mut self.kept_values, &mut self.spare_values);
            std::mem::swap(&mut self.factorized, &mut self.spare);
        }
        if !self.factorized.is_some_and(|f| same_matrix(&f, c)) {
            self.factorized = None;
        }
    }

    fn refactorize(
        &mut self,
        sys: &dyn Dynamics,
        x: (&[f64], &[f64], &[f64], &[f64]),
        t: f64,
        c: TangentCoefficients,
        stats: &mut Statistics,
    ) -> Result<(), NewtonError> {
        let (q, v, a, lambda) = x;
        sys.newton_matrix(q, v, a, lambda, t, c, &mut self.matrix);
        stats.jacobian_evaluations += 1;
        self.factorized = None;
        self.excess = 0;
        self.lu.factorize(&self.matrix)?;
        stats.factorizations += 1;
        self.kept_values.copy_from_slice(&self.matrix.values);
        self.factorized = Some(c);
        Ok(())
    }

    /// Assemble and factorize the index-1 matrix at x into `index1_lu`.
    fn factorize_index1(
        &mut self,
        sys: &dyn Dynamics,
        (q, v, a, lambda): (&[f64], &[f64], &[f64], &[f64]),
        t: f64,
        stats: &mut Statistics,
    ) -> Result<(), NewtonError> {
        Ok(factorize_index1_into(sys, (q, v, a, lambda), t, &mut self.matrix, &mut self.index1_lu, stats)?)
    }

    /// Solve the saddle-point system [[M, Phi_q^T], [Phi_q, 0]] [a; lambda] = [-g; gamma]
    /// at (q, v, t): consistent accelerations and multipliers (index-1 form).
    pub fn consistent_accelerations(
        &mut self,
        sys: &dyn Dynamics,
        (q, v, t): (&[f64], &[f64], f64),
        a: &mut [f64],
        lambda: &mut [f64],
        stats: &mut Statistics,
    ) -> Result<(), NewtonError> {
        a.fill(0.0);
        lambda.fill(0.0);
        self.index1_forces(sys, (q, v, t), a)?;
        self.factorize_index1(sys, (q, v, a, lambda), t, stats)?;
        self.solve_index1(sys, (q, v, t), a, lambda)
    }

    /// `consistent_accelerations` at the velocities v projected onto the joints' velocity
    /// constraints, Phi_q v_p + Phi_t = 0 (`mass_orthogonal_correction`, whose factorization
    /// the accelerations' solve reuses), written to `projected`. An index-3 method holds the joints at the
    /// position level only; near a singular position (a slider-crank driven from the piston
    /// through its dead centre: the crank's acceleration is the drive's over dx/dtheta -> 0)
    /// the index-1 solve turns that velocity residual into accelerations and drive forces 17 to
    /// 145 times the true ones (a probe: 43.9 N for 2.58 N).
    pub fn projected_accelerations(
        &mut self,
        sys: &dyn Dynamics,
        (q, v, t): (&[f64], &[f64], f64),
        projected: &mut [f64],
        (a, lambda): (&mut [f64], &mut [f64]),
        stats: &mut Statistics,
    ) -> Result<(), NewtonError> {
        a.fill(0.0);
        lambda.fill(0.0);
        sys.constraint_velocity(q, v, t, &mut self.phi_dot);
        projected.copy_from_slice(v);
        // A residual that is not finite is the drive's rate (named by the solve below).
        if self.phi_dot.iter().all(|r| r.is_finite()) {
            self.mass_orthogonal_correction(sys, (q, v, t), true, stats)?;
            projected.iter_mut().zip(&self.rhs).for_each(|(v, d)| *v += d);
        } else {
            self.factorize_index1(sys, (q, v, a, lambda), t, stats)?;
        }
        self.index1_forces(sys, (q, projected, t), a)?;
        self.solve_index1(sys, (q, projected, t), a, lambda)
    }

    /// The forces at (q, v, t) for the index-1 solve, into `forces` and `inertial`.
    fn index1_forces(
        &mut self,
        sys: &dyn Dynamics,
        (q, v, t): (&[f64], &[f64], f64),
        a: &[f64],
    ) -> Result<(), NewtonError> {
        sys.forces(q, v, a, t, &mut self.inertial, &mut self.forces);
        // NaN forces are no property of the matrix: named here, before the solve would take
        // them for a singular one (a probe's load sqrt(0.5 - t) was told "singular").
        if !self.forces.iter().all(|f| f.is_finite()) {
            return Err(NewtonError::NonFinite { t, part: "force" });
        }
        Ok(())
    }

    /// The index-1 solve with the factors of `factorize_index1` and the forces of
    /// `index1_forces`.
    fn solve_index1(
        &mut self,
        sys: &dyn Dynamics,
        (q, v, t): (&[f64], &[f64], f64),
        a: &mut [f64],
        lambda: &mut [f64],
    ) -> Result<(), NewtonError> {
        let n = sys.coordinates();
        let fill = |rhs: &mut [f64], forces: &[f64], scale: f64| {
            let (r1, r2) = rhs.split_at_mut(n);
            for (r, f) in r1.iter_mut().zip(forces) {
                *r = -f * scale;
            }
            sys.constraint_acceleration_rhs(q, v, t, r2);
            r2.iter_mut().for_each(|r| *r *= scale);
        };
        fill(&mut self.rhs, &self.forces, 1.0);
        // Likewise a drive whose rate or acceleration is not finite (a probe's
        // theta0 + omega t + 0.01 sqrt(0.5 - t) at t = 0.5 was told "singular").
        if !self.rhs[n..].iter().all(|r| r.is_finite()) {
            return Err(NewtonError::NonFinite { t, part: "drive's rate or acceleration" });
        }
        if let Err(e) = self.index1_lu.solve_unshifted(&mut self.rhs) {
            // A solution that overflows (forces near f64::MAX, a probe's input torque of
            // 1.7e308 N m) is no singular matrix: the same system scaled down solves.
            fill(&mut self.rhs, &self.forces, f64::EPSILON);
            let overflow = self.index1_lu.solve_unshifted(&mut self.rhs).is_ok();
            return Err(if overflow { NewtonError::NonFinite { t, part: "acceleration" } } else { e.into() });
        }
        a.copy_from_slice(&self.rhs[..n]);
        lambda.copy_from_slice(&self.rhs[n..]);
        Ok(())
    }

    /// The velocity jump of an impact: solve [[M, Phi_q^T], [Phi_q, 0]] [dv; impulse] = [0; jump]
    /// at q (the matrix of `consistent_accelerations`), so that Phi_q (v + dv) = Phi_q v + jump
    /// and M dv = -Phi_q^T impulse.
    pub fn velocity_jump(
        &mut self,
        sys: &dyn Dynamics,
        (q, v, t): (&[f64], &[f64], f64),
        jump: &[f64],
        (dv, impulse): (&mut [f64], &mut [f64]),
        stats: &mut Statistics,
    ) -> Result<(), NewtonError> {
        let n = sys.coordinates();
        self.factorize_index1(sys, (q, v, v, &*impulse), t, stats)?;
        let (r1, r2) = self.rhs.split_at_mut(n);
        r1.fill(0.0);
        r2.copy_from_slice(jump);
        self.index1_lu.solve_unshifted(&mut self.rhs)?;
        dv.copy_from_slice(&self.rhs[..n]);
        impulse.copy_from_slice(&self.rhs[n..]);
        Ok(())
    }

    /// Move (q, v) onto the constraints at t by mass-orthogonal projection (Bayo & Ledesma
    /// 1996): if the positions violate them beyond the Newton `tolerance` (in the measure of
    /// `IncrementScale::constraint_error`, which converged steps meet), Newton steps
    /// [[M, Phi_q^T], [Phi_q, 0]] [dq; mu] = [0; -Phi] at each iterate until Phi holds to
    /// ROUNDOFF of the model's size; then the velocity jump that makes Phi_q v + Phi_t = 0
    /// (as `velocity_jump`), with the resting contacts opened (below): the caller settles the
    /// events after it (`Stepper::settle_events`). What a driven joint asks for when its
    /// prescribed position or rate changed between communication steps or at a kink. Returns
    /// whether anything moved.
    pub fn project_onto_constraints(
        &mut self,
        sys: &mut dyn Dynamics,
        (q, v, t): (&mut [f64], &mut [f64], f64),
        tolerance: f64,
        stats: &mut Statistics,
    ) -> Result<bool, NewtonError> {
        const MAX_ITERATIONS: usize = 20;
        let n = sys.coordinates();
        let largest = |x: &[f64]| x.iter().fold(0.0f64, |a, y| a.max(y.abs()));
        sys.constraint_residual(q, t, &mut self.phi);
        let mut moved = false;
        for iteration in 0.. {
            if iteration == 0 && largest(&self.phi) <= tolerance * (self.length + largest(q)) {
                break;
            }
            let error = largest(&self.phi) / (ROUNDOFF * (self.length + largest(q)));
            if error <= 1.0 {
                break;
            }
            if iteration == MAX_ITERATIONS {
                return Err(NewtonError::NotConverged { iterations: iteration, increment: error, rate: f64::NAN });
            }
            self.mass_orthogonal_correction(sys, (q, v, t), false, stats)?;
            for (x, d) in q.iter_mut().zip(&self.rhs[..n]) {
                *x += d;
            }
            sys.constraint_residual(q, t, &mut self.phi);
            moved = true;
        }
        sys.constraint_velocity(q, v, t, &mut self.phi_dot);
        if largest(&self.phi_dot) <= ROUNDOFF * (self.length + largest(v)) {
            return Ok(moved);
        }
        // A jump beyond the velocities' round-off opens the resting contacts first
        // (`Dynamics::open_contacts`): the caller then settles the events, where each contact
        // the jump presses takes it as an impact (Newton's law, with restitution) and each it
        // leaves parts. A table whose drive stops short leaves the ball on it flying, one moving
        // down that stops makes it bounce (a probe's shaker, driven through an input table,
        // held the ball glued with 9.81 N at every row). Within the tolerance it is round-off
        // (a ball resting on a table drifting at 2e-15 m/s), and nothing opens (that ball was
        // released at every change of the table's input and landed 4.5e-7 s later).
        let scale = self.length + largest(v);
        if largest(&self.phi_dot) > tolerance * scale && sys.open_contacts(q) {
            sys.constraint_velocity(q, v, t, &mut self.phi_dot);
        }
        self.mass_orthogonal_correction(sys, (q, v, t), true, stats)?;
        for (x, d) in v.iter_mut().zip(&self.rhs[..n]) {
            *x += d;
        }
        Ok(true)
    }

    /// Into `rhs[..n]`: the correction dx with M dx + Phi_q^T mu = 0, Phi_q dx = -r at (q, v, t),
    /// r the constraint residual `phi` (positions) or `phi_dot` (`velocity`).
    fn mass_orthogonal_correction(
        &mut self,
        sys: &dyn Dynamics,
        (q, v, t): (&[f64], &[f64], f64),
        velocity: bool,
        stats: &mut Statistics,
    ) -> Result<(), NewtonError> {
        let (a, lambda) = self.zeros.split_at(sys.coordinates());
        factorize_index1_into(sys, (q, v, a, lambda), t, &mut self.matrix, &mut self.index1_lu, stats)?;
        let residual = if velocity { &self.phi_dot } else { &self.phi };
        let (r1, r2) = self.rhs.split_at_mut(sys.coordinates());
        r1.fill(0.0);
        for (r, p) in r2.iter_mut().zip(residual) {
            *r = -p;
        }
        Ok(self.index1_lu.solve_unshifted(&mut self.rhs)?)
    }

    /// Right after `velocity_jump` (its factorization at q): the mass-orthogonal position
    /// correction dq with Phi_q dq = -phi and M dq = -Phi_q^T mu, one Newton step of the
    /// projection of q onto Phi = 0 (Bayo & Ledesma 1996).
    pub fn position_correction(&mut self, phi: &[f64], dq: &mut [f64]) -> Result<(), NewtonError> {
        let (r1, r2) = self.rhs.split_at_mut(dq.len());
        r1.fill(0.0);
        for (r, p) in r2.iter_mut().zip(phi) {
            *r = -p;
        }
        self.index1_lu.solve_unshifted(&mut self.rhs)?;
        dq.copy_from_slice(&self.rhs[..dq.len()]);
        Ok(())
    }
}

/// `Workspace::factorize_index1` with the matrix and factorization given (so that a caller
/// may borrow the workspace's other fields meanwhile).
fn factorize_index1_into(
    sys: &dyn Dynamics,
    (q, v, a, lambda): (&[f64], &[f64], &[f64], &[f64]),
    t: f64,
    matrix: &mut SparseMatrix,
    lu: &mut SparseLu,
    stats: &mut Statistics,
) -> Result<(), FactorizationError> {
    let c = TangentCoefficients { mass: 1.0, damping: 0.0, stiffness: 0.0, lambda: 1.0 };
    sys.newton_matrix(q, v, a, lambda, t, c, matrix);
    stats.jacobian_evaluations += 1;
    lu.factorize(matrix)?;
    stats.factorizations += 1;
    Ok(())
}

/// Whether a factorization made with coefficients `a` serves a stage with coefficients `b`.
/// Compared to a relative 1e-10, not bit for bit: the facade's equal sub-steps of an interval
/// differ in the last bits (t0 + span k / count rounding), and TTBIF's third sub-step has
/// theta3 h = gamma h / 2 only to rounding (paper 000, gamma* with theta3 = gamma/2: one
/// effective matrix for all three sub-steps). Exact comparison refactorized on ~40% of the
/// steps of a linear oscillator; a 1e-10 change of the matrix is irrelevant to the contraction
/// of the (modified) Newton iteration.
fn same_matrix(a: &TangentCoefficients, b: &TangentCoefficients) -> bool {
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-10 * x.abs().max(y.abs());
    close(a.mass, b.mass) && close(a.damping, b.damping) && close(a.stiffness, b.stiffness) && close(a.lambda, b.lambda)
}

/// One implicit stage (see the module documentation).
pub struct Stage<'a> {
    pub t: f64,
    pub q_base: &'a [f64],
    pub v_base: &'a [f64],
    /// dq/da
    pub beta: f64,
    /// dv/da
    pub gamma: f64,
}

impl<'a> Stage<'a> {
    /// The plain stage at time t: equilibrium M a + g + Phi_q^T lambda = 0 with
    /// q = q_base + beta' a, v = v_base + gamma' a.
    pub fn new(t: f64, q_base: &'a [f64], v_base: &'a [f64], beta: f64, gamma: f64) -> Self {
        Stage { t, q_base, v_base, beta, gamma }
    }

    /// q = q_base + beta' a + shift, v = v_base + gamma' a.
    fn kinematics(&self, a: &[f64], shift: &[f64], q: &mut [f64], v: &mut [f64]) {
        for i in 0..a.len() {
            q[i] = self.q_base[i] + (self.beta * a[i] + shift[i]);
            v[i] = self.v_base[i] + self.gamma * a[i];
        }
    }
}

/// The unknowns of a stage, (a, lambda), with the position and velocity they determine.
pub struct Iterate<'a> {
    pub a: &'a mut [f64],
    pub lambda: &'a mut [f64],
    pub q: &'a mut [f64],
    pub v: &'a mut [f64],
}

impl Iterate<'_> {
    fn kinematics(&mut self, stage: &Stage, shift: &[f64]) {
        stage.kinematics(self.a, shift, self.q, self.v);
    }
}

/// What a method's step works with: the system, the Newton workspace (factorizations,
/// predictor history), the Newton settings and the statistics it counts into.
pub struct StepContext<'a> {
    pub sys: &'a dyn Dynamics,
    pub workspace: &'a mut Workspace,
    pub settings: &'a NewtonSettings,
    pub stats: &'a mut Statistics,
}

impl StepContext<'_> {
    /// Solve a stage for (a, lambda), starting from their values on entry; on success `x.q`,
    /// `x.v` hold the stage's position and velocity. A kept-matrix iteration (modified Newton,
    /// Broyden) that fails is restarted from the same starting values as full Newton before the
    /// failure is reported, so that the step is only shortened when Newton's method itself fails.
    pub fn solve(&mut self, stage: &Stage, mut x: Iterate) -> Result<(), NewtonError> {
        let ws = &mut *self.workspace;
        ws.start_a.clear();
        ws.start_a.extend_from_slice(x.a);
        ws.start_lambda.clear();
        ws.start_lambda.extend_from_slice(x.lambda);
        let strategy = self.settings.strategy;
        let fallback = std::mem::take(&mut ws.fallback_set);
        let mut result = iterate(self, stage, &mut x, strategy);
        if fallback && matches!(&result, Err(e) if e.is_iteration_failure()) {
            // The extrapolated start failed: once more from the cautious one.
            let ws = &mut *self.workspace;
            x.a.copy_from_slice(&ws.fallback_a);
            x.lambda.copy_from_slice(&ws.fallback_lambda);
            result = iterate(self, stage, &mut x, strategy);
        }
        match result {
            Err(e) if strategy != NewtonStrategy::Full && e.is_iteration_failure() => {
                x.a.copy_from_slice(&self.workspace.start_a);
                x.lambda.copy_from_slice(&self.workspace.start_lambda);
                iterate(self, stage, &mut x, NewtonStrategy::Full)
            }
            result => result,
        }
    }

    /// A cautious start (a, lambda) for the next `solve`, tried if the iteration fails from
    /// the given one (`predict_stage`'s line through the two latest stage values).
    pub fn set_fallback(&mut self, a: &[f64], lambda: &[f64]) {
        let ws = &mut *self.workspace;
        ws.fallback_a.clear();
        ws.fallback_a.extend_from_slice(a);
        ws.fallback_lambda.clear();
        ws.fallback_lambda.extend_from_slice(lambda);
        ws.fallback_set = true;
    }

    /// Newton's starting values at time t_n + dt from (a, lambda) at t_n
    /// (`Workspace::predict`).
    pub fn predict(&self, (a, lambda): (&[f64], &[f64]), dt: f64, (a_out, lambda_out): (&mut [f64], &mut [f64])) {
        self.workspace.predict(a, lambda, dt, a_out, lambda_out);
    }

    /// Newton's starting values (a, lambda) for stage k of a step, at time `tau` after the
    /// step's start, from `known`, this step's earlier stage values in time order, and what
    /// the method kept of the last step (`StageMemory`):
    /// - a by the cubic through the four latest stage values, lambda by the line through the
    ///   two latest (index-3 multipliers carry O(h) errors that a higher degree amplifies);
    /// - plus the error this prediction made at stage k of the last step. The stage values of
    ///   a composite method deviate from a smooth curve in a pattern that repeats from step to
    ///   step (each sub-step has its own local error): the extrapolation misses it by nearly
    ///   the same amount at the same stage of consecutive steps (the idea of a predictor
    ///   corrected by its last error, as in Adams predictor-corrector pairs; Hairer, Norsett &
    ///   Wanner, Solving ODEs I, sec. III.1).
    ///
    /// Where the stage values are not smooth (rho_inf = 1 keeps the method's high-frequency
    /// components, e.g. the heavy top) the extrapolation amplifies them: each stage then starts
    /// from whichever of the corrected extrapolation and the line through the two latest
    /// values came closer at the same stage of the last step (the line, uncorrected, for both
    /// a and lambda). Records the predictions in `memory` for `StageMemory::finish_error`.
    pub fn predict_stage<'a>(
        &'a self,
        k: usize,
        tau: f64,
        known: &[Known<'a>],
        (a, lambda): (&mut [f64], &mut [f64]),
        memory: &mut StageMemory,
    ) {
        const A_POINTS: usize = 4;
        const LAMBDA_POINTS: usize = 2;
        let (n, m) = (a.len(), lambda.len());
        let ws = &*self.workspace;
        let previous = ws.memory_valid.then_some(&ws.memory);
        let h = ws.memory_h;
        let mut points: [Known<'a>; 6] = [(0.0, &[], &[]); 6];
        let mut count = 0;
        let older = previous.into_iter().flat_map(|p| p.values().map(move |(t, x, l)| (t - h, x, l)));
        for p in older.chain(known.iter().copied()).filter(|p| p.1.len() == n && p.2.len() == m) {
            if count == points.len() {
                points.copy_within(1.., 0);
                count -= 1;
            }
            points[count] = p;
            count += 1;
        }
        let points = &points[..count];
        let mut pick: [(f64, &'a [f64]); A_POINTS] = [(0.0, &[]); A_POINTS];
        let mut extrapolate = |last: usize, multipliers: bool, out: &mut [f64]| {
            let from = points.len().saturating_sub(last);
            for (slot, p) in pick.iter_mut().zip(&points[from..]) {
                *slot = (p.0, if multipliers { p.2 } else { p.1 });
            }
            extrapolate_through(tau, &pick[..points.len() - from], out);
        };
        extrapolate(A_POINTS, false, a);
        extrapolate(LAMBDA_POINTS, true, lambda);
        let error = previous.and_then(|p| p.error(k)).filter(|(ea, el)| ea.len() == n && el.len() == m);
        let corrected = previous.is_none_or(|p| p.prefers_corrected(k));
        if let Some(((ra, rl), ca, la)) = memory.prediction_slots(k)
            && ra.len() == n
            && rl.len() == m
            && ca.len() == n
            && la.len() == n
        {
            ra.copy_from_slice(a);
            rl.copy_from_slice(lambda);
            extrapolate(2, false, la);
            ca.copy_from_slice(a);
            if let Some((ea, _)) = error {
                for (x, e) in ca.iter_mut().zip(ea) {
                    *x += e;
                }
            }
            if !corrected {
                a.copy_from_slice(la);
                return;
            }
        }
        if let Some((ea, el)) = error {
            for (x, e) in a.iter_mut().zip(ea) {
                *x += e;
            }
            for (x, e) in lambda.iter_mut().zip(el) {
                *x += e;
            }
        }
    }

    /// The power dissipated and supplied at (q, v, lambda, t) over the step `stride`
    /// (`Dynamics::power`).
    pub fn power(&self, (q, v, lambda, t): StepPoint, stride: &Stride) -> EnergyFlow {
        self.sys.power(q, v, lambda, t, stride)
    }
}

/// Broyden pairs allocated up front (a stage rarely takes more steps since a refresh).
const BROYDEN_RESERVED: usize = 16;

/// Damped steps are halved down to this fraction of the Newton step.
const MIN_DAMPING: f64 = 1.0 / 16.0;

/// Iterations a stage takes with an exact Newton matrix: a step and the one that confirms
/// convergence (a linear problem's stages take exactly these).
const EXACT_NEWTON_ITERATIONS: usize = 2;

/// A kept factorization is refreshed once the iterations its stages took beyond
/// EXACT_NEWTON_ITERATIONS add up to more than this since it was computed (a Jacobian
/// assembly and a sparse LU cost some residuals and triangular solves). The matrix carries
/// over from step to step and from one `step_to` to the next; its contraction rate alone
/// (refreshed above 0.25) let it grow stale where it still contracts at 0.05-0.2 per
/// iteration: Bricard's mechanism, 10,000 steps, took 123,477 iterations with 72
/// factorizations without this rule.
const KEPT_MATRIX_EXCESS: usize = 3;

/// A kept matrix that a stage abandoned (it contracted too slowly, `iterate`) is refreshed
/// at the start of the next 2^k - 1 stages that would use a kept matrix, k the number of such
/// abandonments in a row (at most STALE_BACKOFF); the next stage tries a kept one again, and
/// one that converges with it ends the run of abandonments. A body that turns fast makes
/// every kept matrix useless within a step (the tangent turns with it): a spinning beam's
/// stages each spent two iterations finding that out before refreshing (models/spin_up.toml:
/// 11.9 iterations and 4.6 factorizations a step).
const STALE_BACKOFF: u32 = 4;

/// `Workspace::stale`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Stale {
    abandoned: u32,
    refresh_ahead: u32,
}

impl Stale {
    /// Whether the stage about to start with a kept matrix refreshes it at once.
    fn refresh_now(&mut self) -> bool {
        let refresh = self.refresh_ahead > 0;
        self.refresh_ahead = self.refresh_ahead.saturating_sub(1);
        refresh
    }

    /// The stage abandoned the kept matrix it started with.
    fn abandoned(&mut self) {
        self.abandoned = (self.abandoned + 1).min(STALE_BACKOFF);
        self.refresh_ahead = (1 << self.abandoned) - 1;
    }

    /// The stage converged with the kept matrix it started with.
    fn kept(&mut self) {
        self.abandoned = 0;
    }

    /// Within the counts a run reaches (a snapshot's may be anything).
    pub(crate) fn capped(self) -> Stale {
        let abandoned = self.abandoned.min(STALE_BACKOFF);
        Stale { abandoned, refresh_ahead: self.refresh_ahead.min((1 << abandoned) - 1) }
    }
}

/// The Newton iteration of one stage with one strategy.
///
/// Each iteration computes the Newton step da = S^-1 r with the kept or a fresh matrix S and
/// measures it in the scales of src/integrators/convergence.rs; theta = |da_k| / |da_{k-1}| is
/// the contraction rate. Following the natural monotonicity test (Deuflhard, "Newton methods
/// for nonlinear problems", Springer 2004, sec. 3.3), a step that is not shorter than the last
/// one is not taken: with a kept matrix the matrix is refreshed at the current iterate and the
/// step recomputed; if even the exact Newton step is not shorter, the last step overshot and
/// the iterate retreats along it (damping 1/2, 1/4, ... down to MIN_DAMPING). A kept matrix is
/// also refreshed for the next iteration when it contracts slowly (theta > 0.25) or too slowly
/// to converge in the iterations left (Hairer & Wanner, Solving ODEs II, sec. IV.8).
fn iterate(cx: &mut StepContext, stage: &Stage, x: &mut Iterate, strategy: NewtonStrategy) -> Result<(), NewtonError> {
    let (sys, settings) = (cx.sys, cx.settings);
    let (ws, stats) = (&mut *cx.workspace, &mut *cx.stats);
    let n = sys.coordinates();
    let coefficients = TangentCoefficients { mass: 1.0, damping: stage.gamma, stiffness: stage.beta, lambda: 1.0 };
    let full = strategy == NewtonStrategy::Full;
    if full {
        ws.factorized = None;
    } else {
        ws.select(&coefficients);
        if ws.factorized.is_some() && ws.stale.refresh_now() {
            ws.factorized = None;
        }
    }
    // Whether the matrix in use is still the kept one the stage started with (`Stale`).
    let mut kept = ws.factorized.is_some();
    let broyden = strategy == NewtonStrategy::Broyden;
    if broyden {
        ws.broyden.reserve(settings.max_iterations.min(BROYDEN_RESERVED), ws.rhs.len());
    }
    let scale = IncrementScale::new(ws.length, settings.tolerance, stage.beta, stage.gamma);
    let tol = scale.tolerance;
    ws.broyden.reset();
    ws.shift.fill(0.0);
    ws.previous_shift.clear();
    x.kinematics(stage, &ws.shift);
    // Scaled size of the last step taken (in full), the contraction rate, the damping of the
    // last step and whether there is a last step to retreat along.
    let mut previous_increment = f64::INFINITY;
    let mut increment = f64::INFINITY;
    let mut rate: Option<f64> = None;
    let mut damping = 1.0;
    let mut can_retreat = false;
    // Whether the last step was an exact Newton step (a matrix fresh at its iterate).
    let mut previous_exact = false;
    // One pass more than max_iterations: the last only asks whether the last iterate solves
    // the stage (a linear system is solved by its first step, which max_iterations = 1 must
    // allow: without this pass every step failed and was halved down to the floor, a probe).
    for iteration in 0..=settings.max_iterations {
        let (r1_max, force_scale, phi_error) = residual(sys, stage, x, ws, settings);
        if !(r1_max.is_finite() && phi_error.is_finite()) {
            if can_retreat && damping > MIN_DAMPING {
                ws.retreat(stage, damping, 0.5 * damping, x);
                damping *= 0.5;
                continue;
            }
            ws.factorized = None;
            return Err(if iteration == 0 {
                NewtonError::NonFinite { t: stage.t, part: if r1_max.is_finite() { "constraint" } else { "force" } }
            } else {
                NewtonError::Diverged { iterations: iteration }
            });
        }
        let phi_max = scale.constraint_error(phi_error, x.q, x.v);
        if iteration > 0 && r1_max <= 1e-3 * tol * force_scale && phi_max <= 1e-2 * tol {
            return Ok(());
        }
        if iteration == settings.max_iterations {
            break;
        }
        let mut fresh = full || ws.factorized.is_none();
        if fresh {
            kept = false;
            ws.refactorize(sys, (x.q, x.v, x.a, x.lambda), stage.t, coefficients, stats)?;
            ws.broyden.reset();
        }
        ws.newton_step(broyden, stage.t, stats)?;
        let mut measured = scale.increment(&ws.rhs[..n], x.q, x.v);
        increment = measured.size;
        let mut theta = increment / previous_increment;
        if !fresh && increment > tol && (theta.is_nan() || theta >= 1.0) {
            // The kept matrix does not contract here: refresh it at this iterate (the residual
            // is evaluated again rather than copied on every iteration).
            if std::mem::take(&mut kept) {
                ws.stale.abandoned();
            }
            residual(sys, stage, x, ws, settings);
            ws.refactorize(sys, (x.q, x.v, x.a, x.lambda), stage.t, coefficients, stats)?;
            ws.broyden.reset();
            fresh = true;
            ws.newton_step(broyden, stage.t, stats)?;
            measured = scale.increment(&ws.rhs[..n], x.q, x.v);
            increment = measured.size;
            theta = increment / previous_increment;
        }
        // At a singular configuration (the constraint Jacobian loses rank, e.g. a four-bar
        // chain passing its flat position) exact Newton steps (this one and the last) stop
        // contracting in the directions the rank loss frees (the steps flip back and forth,
        // theta = 1) while the residual is already small: the iterate solves the stage
        // equations as well as floating point allows there (the residual form of the
        // stagnation test, Deuflhard 2004, sec. 2.1.5); keep it, without the step. "Small" is
        // sqrt(tol) of the forces: at a singular (multiple) root a solve attains about the
        // square root of the accuracy it attains at a regular one. IFToMM's N four-bar
        // (N = 40) flipped at force residuals of 4e-9 to 1e-7 relative with tol = 1e-10, and
        // with tol here that run stopped at its flat position at t = 8.58 s, or not,
        // depending on where earlier steps had refreshed the matrix. Two exact steps: a
        // refreshed matrix's first step is often longer than the kept matrix's before it,
        // which is no sign of a singular configuration.
        if fresh
            && previous_exact
            && theta >= 0.5
            && r1_max <= tol.sqrt() * force_scale
            && phi_max <= tol
            && previous_increment.is_finite()
        {
            return Ok(());
        }
        // Below the tolerance in the attainable measure, a step is round-off: no retreat.
        let mut attainable = measured.attainable;
        if fresh && attainable > tol && (theta.is_nan() || theta >= 1.0) && can_retreat && damping > MIN_DAMPING {
            // Even the exact Newton step is not shorter: the last step overshot.
            ws.retreat(stage, damping, 0.5 * damping, x);
            damping *= 0.5;
            continue;
        }
        if !increment.is_finite() {
            ws.factorized = None;
            return Err(NewtonError::Diverged { iterations: iteration + 1 });
        }
        let ggl = settings.constraints == ConstraintTreatment::Ggl && !ws.phi.is_empty();
        if ggl {
            ws.previous_shift.clone_from(&ws.shift);
        }
        can_retreat = true;
        damping = 1.0;
        for (ai, d) in x.a.iter_mut().zip(&ws.rhs[..n]) {
            *ai += d;
        }
        for (l, dl) in x.lambda.iter_mut().zip(&ws.rhs[n..]) {
            *l += dl;
        }
        // The step is kept for a retreat along it; `rhs` is rewritten before its next use.
        std::mem::swap(&mut ws.step, &mut ws.rhs);
        x.kinematics(stage, &ws.shift);
        if ggl {
            // GGL position shift: [S, w Phi_q^T; Phi_q, 0] [dp; nu] = [0; -Phi(q)] with the kept
            // factorization, so Phi_q dp = -Phi (a Newton step onto Phi = 0 along S^-1 Phi_q^T).
            sys.constraint_residual(x.q, stage.t, &mut ws.phi);
            let (r1, r2) = ws.rhs.split_at_mut(n);
            r1.fill(0.0);
            for (r, p) in r2.iter_mut().zip(&ws.phi) {
                *r = -p;
            }
            ws.lu.solve(&mut ws.rhs)?;
            for (p, dp) in ws.shift.iter_mut().zip(&ws.rhs[..n]) {
                *p += dp;
            }
            let dp = scale.position_increment(&ws.rhs[..n], x.q);
            increment = increment.max(dp);
            attainable = attainable.max(dp);
            x.kinematics(stage, &ws.shift);
        }
        if !increment.is_finite() {
            ws.factorized = None;
            return Err(NewtonError::Diverged { iterations: iteration + 1 });
        }
        rate = (iteration > 0 && previous_increment.is_finite()).then(|| increment / previous_increment);
        // Converged, or at the attainable accuracy: an exact Newton step that no longer
        // contracts and is round-off in size (src/integrators/convergence.rs).
        let stagnated = fresh && attainable <= tol && rate.is_some_and(|r| r >= 0.5);
        if phi_max <= tol && (converged(increment, rate, tol) || stagnated) {
            // A kept matrix that costs more iterations than a fresh one would is refreshed
            // for the next stage (see KEPT_MATRIX_EXCESS).
            if kept {
                ws.stale.kept();
            }
            ws.excess += (iteration + 1).saturating_sub(EXACT_NEWTON_ITERATIONS);
            if !full && ws.excess > KEPT_MATRIX_EXCESS {
                ws.factorized = None;
            }
            return Ok(());
        }
        // A kept factorization that contracts slowly is refreshed at the next iterate.
        let left = settings.max_iterations - iteration - 1;
        if !full && rate.is_some_and(|r| r > 0.25 || !can_converge(increment, r, left, tol)) {
            ws.factorized = None;
            if std::mem::take(&mut kept) {
                ws.stale.abandoned();
            }
        }
        previous_increment = increment;
        previous_exact = fresh;
    }
    ws.factorized = None;
    Err(NewtonError::NotConverged {
        iterations: settings.max_iterations,
        increment: increment / tol,
        rate: rate.unwrap_or(f64::NAN),
    })
}

/// The stage residual into `ws.rhs` (force rows R1, constraint rows R2 per the treatment) at
/// the iterate (a, lambda) with position q and velocity v. Returns max |R1|, the scale of the
/// forces R1 balances, and the constraint errors.
fn residual(
    sys: &dyn Dynamics,
    stage: &Stage,
    x: &Iterate,
    ws: &mut Workspace,
    settings: &NewtonSettings,
) -> (f64, f64, ConstraintError) {
    let (a, lambda, q, v): (&[f64], &[f64], &[f64], &[f64]) = (x.a, x.lambda, x.q, x.v);
    let n = sys.coordinates();
    sys.forces(q, v, a, stage.t, &mut ws.inertial, &mut ws.forces);
    let (r1, r2) = ws.rhs.split_at_mut(n);
    r1.fill(0.0);
    sys.add_constraint_forces_and_residual(q, stage.t, lambda, r1, &mut ws.phi);
    let (mut force_scale, mut r1_max) = (f64::MIN_POSITIVE, 0.0f64);
    for ((r, m), f) in r1.iter_mut().zip(&ws.inertial).zip(&ws.forces) {
        force_scale = force_scale.max(m.abs() + (f.abs() + r.abs()));
        *r = -(m + (f + *r));
        r1_max = r1_max.max(r.abs());
    }
    // Constraint rows, and their errors at position level (phi_max) and, for GGL, at velocity
    // level (phi_dot_max).
    let mut phi_max = ws.phi.iter().fold(0.0f64, |m, p| m.max(p.abs()));
    let mut phi_dot_max = 0.0f64;
    match settings.constraints {
        ConstraintTreatment::Index3 => {
            for (r, p) in r2.iter_mut().zip(&ws.phi) {
                *r = -p / stage.beta;
            }
            // Regularized rows hold Phi = c lambda (`Dynamics::add_regularization`).
            if sys.add_regularization(lambda, stage.beta, r2) {
                phi_max = r2.iter().fold(0.0f64, |m, r| m.max((stage.beta * r).abs()));
            }
        }
        ConstraintTreatment::Ggl => {
            // Velocity-level row Phi_q v / gamma' (paper 004 eqs. 19, 21); the position row is
            // the shift of `iterate`.
            sys.constraint_velocity(q, v, stage.t, &mut ws.phi_dot);
            for (r, p) in r2.iter_mut().zip(&ws.phi_dot) {
                *r = -p / stage.gamma;
                phi_dot_max = phi_dot_max.max(p.abs());
            }
            if sys.add_regularization(lambda, stage.beta, r2) {
                phi_dot_max = r2.iter().fold(0.0f64, |m, r| m.max((stage.gamma * r).abs()));
            }
        }
        ConstraintTreatment::Baumgarte => {
            let BaumgarteConstants { alpha, beta } = settings.baumgarte;
            // Phi'' + 2 alpha Phi' + beta^2 Phi (paper 004 eqs. 12-13), scaled to a Phi_q row.
            sys.constraint_velocity(q, v, stage.t, &mut ws.phi_dot);
            sys.constraint_velocity(q, a, stage.t, &mut ws.phi_q_a);
            sys.constraint_acceleration_rhs(q, v, stage.t, &mut ws.acceleration_rhs);
            let scale = 1.0 + 2.0 * alpha * stage.gamma + beta * beta * stage.beta;
            phi_max = 0.0;
            for (k, r) in r2.iter_mut().enumerate() {
                let g = ws.phi_q_a[k] - ws.acceleration_rhs[k] + 2.0 * alpha * ws.phi_dot[k] + beta * beta * ws.phi[k];
                *r = -g / scale;
                phi_max = phi_max.max((stage.beta * *r).abs());
            }
            if sys.add_regularization(lambda, stage.beta, r2) {
                phi_max = r2.iter().fold(0.0f64, |m, r| m.max((stage.beta * r).abs()));
            }
        }
    }
    (r1_max, force_scale, ConstraintError { position: phi_max, velocity: phi_dot_max })
}

impl Workspace {
    /// The Newton step at time `t`: `rhs` (the residual) <- S^-1 rhs with the current
    /// factorization, corrected by Broyden's updates if they are used. A solve that fails on a residual with NaN entries is the forces' or
    /// constraints' failure, not the matrix's: the residual's largest entry (`f64::max`) does
    /// not see a NaN, so it is looked for here, on the failure path only (a probe's force
    /// sqrt(0.5 - t) past 0.5 s was reported as a singular matrix).
    fn newton_step(&mut self, broyden: bool, t: f64, stats: &mut Statistics) -> Result<(), NewtonError> {
        stats.newton_iterations += 1;
        if let Err(e) = self.lu.solve(&mut self.rhs) {
            let finite = |x: &[f64]| x.iter().all(|v| v.is_finite());
            return Err(if !(finite(&self.forces) && finite(&self.inertial)) {
                NewtonError::NonFinite { t, part: "force" }
            } else if !finite(&self.phi) {
                NewtonError::NonFinite { t, part: "constraint" }
            } else {
                e.into()
            });
        }
        if broyden {
            self.broyden.apply_updates(&mut self.rhs);
            self.broyden.update_and_step(&mut self.rhs);
        }
        Ok(())
    }

    /// Move from the iterate `from` times along the last step to `to` times along it (the
    /// iterate before the step plus `to` times the step); GGL's shift goes back to its value
    /// before the step.
    fn retreat(&mut self, stage: &Stage, from: f64, to: f64, x: &mut Iterate) {
        let n = x.a.len();
        let c = to - from;
        for (y, d) in x.a.iter_mut().zip(&self.step[..n]) {
            *y += c * *d;
        }
        for (y, d) in x.lambda.iter_mut().zip(&self.step[n..]) {
            *y += c * *d;
        }
        if self.previous_shift.len() == self.shift.len() {
            self.shift.clone_from(&self.previous_shift);
        }
        self.broyden.reset();
        x.kinematics(stage, &self.shift);
    }
}
