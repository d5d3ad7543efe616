//! The contract between a mechanical system and the time integrators.
//!
//! The system is the index-3 DAE of paper 000 eq. (1):
//!   M(q) q'' + g(q, q', t) + Phi_q^T lambda = 0,   Phi(q, t) = 0,
//! where M(q) q'' + g collects inertia forces F_I, elastic forces F_E and applied loads -Q.
//! Integrators see only these functions; they never see element types.

use crate::linalg::SparseMatrix;

/// Weights of the tangent blocks in the Newton matrix
/// [ mass*M + damping*C + stiffness*(K + (Phi_q^T lambda)_q)   lambda*Phi_q^T ]
/// [ Phi_q                                                      0             ]
/// with M = dR/dq'', C = dR/dq', K = dR/dq (paper 000 eqs. 18-20). Serialized with a kept
/// Newton matrix in snapshots (`SolverMemory`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TangentCoefficients {
    pub mass: f64,
    pub damping: f64,
    pub stiffness: f64,
    pub lambda: f64,
}

/// The energy that leaves the system's mechanical energy through dampers (`dissipated`) and
/// enters it through loads, drives and free lengths that move in time (`supplied`): as powers
/// (W) from [`Dynamics::power`], and integrated since the start (J) in the `State`. Then
/// energy_total + dissipated - supplied is constant in time (up to the method's error).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EnergyFlow {
    pub dissipated: f64,
    pub supplied: f64,
}

/// A point of a step, where the power is evaluated: (q, v, lambda, t).
pub type StepPoint<'a> = (&'a [f64], &'a [f64], &'a [f64], f64);

/// A step's motion, along which the non-conservative forces work (`Dynamics::power`): the
/// coordinates at its start and end, and its size h.
#[derive(Debug, Clone, Copy)]
pub struct Stride<'a> {
    pub start: &'a [f64],
    pub end: &'a [f64],
    pub h: f64,
}

impl Stride<'_> {
    /// The mean rate (f(end) - f(start))/h of a quantity of the coordinates over the step (a
    /// damper's deformation, a contact's penetration).
    pub fn rate(&self, f: impl Fn(&[f64]) -> f64) -> f64 {
        (f(self.end) - f(self.start)) / self.h
    }

    /// The mean rates of N quantities of the coordinates, `f(q)` (a beam's local
    /// deformations).
    pub fn rates<const N: usize>(&self, f: impl Fn(&[f64]) -> [f64; N]) -> [f64; N] {
        let (a, b) = (f(self.start), f(self.end));
        std::array::from_fn(|k| (b[k] - a[k]) / self.h)
    }

    /// The mean velocity (end_i - start_i)/h of coordinate i.
    pub fn velocity(&self, i: usize) -> f64 {
        (self.end[i] - self.start[i]) / self.h
    }
}

impl std::ops::Add for EnergyFlow {
    type Output = EnergyFlow;
    fn add(self, o: EnergyFlow) -> EnergyFlow {
        EnergyFlow { dissipated: self.dissipated + o.dissipated, supplied: self.supplied + o.supplied }
    }
}

impl std::ops::Mul<EnergyFlow> for f64 {
    type Output = EnergyFlow;
    fn mul(self, o: EnergyFlow) -> EnergyFlow {
        EnergyFlow { dissipated: self * o.dissipated, supplied: self * o.supplied }
    }
}

impl EnergyFlow {
    pub fn is_finite(&self) -> bool {
        self.dissipated.is_finite() && self.supplied.is_finite()
    }
}

/// What the compliant contacts of a system do from a state (`Dynamics::contact_outlook`):
/// whether one is open but closing within the horizon at its current rate, and whether one is
/// in an impact (closed, or struck while closed).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ContactOutlook {
    pub closing: bool,
    pub in_impact: bool,
}

impl ContactOutlook {
    pub const NONE: ContactOutlook = ContactOutlook { closing: false, in_impact: false };

    /// Whether a contact can limit a step (`Dynamics::contact_step_limit`).
    pub fn may_limit(self) -> bool {
        self.closing || self.in_impact
    }

    /// Both outlooks together.
    pub fn and(self, other: ContactOutlook) -> ContactOutlook {
        ContactOutlook { closing: self.closing || other.closing, in_impact: self.in_impact || other.in_impact }
    }
}

pub trait Dynamics {
    /// Number of generalized coordinates n.
    fn coordinates(&self) -> usize;
    /// Number of constraint equations m.
    fn constraints(&self) -> usize;
    /// Overwrite `inertial` with M(q) a and `forces` with g(q, v, t): quadratic-velocity
    /// inertia, internal elastic and damping forces minus applied loads.
    fn forces(&self, q: &[f64], v: &[f64], a: &[f64], t: f64, inertial: &mut [f64], forces: &mut [f64]);
    /// Overwrite `phi` with Phi(q, t).
    fn constraint_residual(&self, q: &[f64], t: f64, phi: &mut [f64]);
    /// out += Phi_q(q)^T lambda.
    fn add_constraint_forces(&self, q: &[f64], lambda: &[f64], out: &mut [f64]);
    /// `add_constraint_forces` and `constraint_residual` at the same q, which a system may
    /// evaluate together (a row's value comes with its gradient).
    fn add_constraint_forces_and_residual(&self, q: &[f64], t: f64, lambda: &[f64], out: &mut [f64], phi: &mut [f64]) {
        self.add_constraint_forces(q, lambda, out);
        self.constraint_residual(q, t, phi);
    }
    /// rows += delta_k lambda_k for the constraint rows that `newton_matrix` regularizes by
    /// the diagonal shift -delta_k at stiffness coefficient `beta` (compliant rows, those that
    /// may depend on others: `System::regularize_contacts`), so that the Newton residual of such
    /// a row is -(Phi_k / beta - delta_k lambda_k) (index 3; the velocity and Baumgarte rows
    /// alike). Returns whether it added anything (the default regularizes nothing).
    fn add_regularization(&self, _lambda: &[f64], _beta: f64, _rows: &mut [f64]) -> bool {
        false
    }
    /// Overwrite `phi_dot` with the velocity-level constraint Phi_q(q) v (= dPhi/dt for
    /// scleronomic constraints).
    fn constraint_velocity(&self, q: &[f64], v: &[f64], t: f64, phi_dot: &mut [f64]);
    /// Overwrite `gamma` with the right-hand side of the acceleration-level constraint
    /// Phi_q q'' = gamma, i.e. gamma = -(Phi_q q')_q q' (scleronomic constraints).
    fn constraint_acceleration_rhs(&self, q: &[f64], v: &[f64], t: f64, gamma: &mut [f64]);
    /// An empty matrix with the Newton matrix's sparsity pattern, size n + m.
    fn newton_pattern(&self) -> SparseMatrix;
    /// Overwrite the values of `matrix` with the Newton matrix at (q, v, a, lambda, t).
    #[allow(clippy::too_many_arguments)]
    fn newton_matrix(
        &self,
        q: &[f64],
        v: &[f64],
        a: &[f64],
        lambda: &[f64],
        t: f64,
        c: TangentCoefficients,
        matrix: &mut SparseMatrix,
    );
    /// Kinetic and potential energy at (q, v, t) (J).
    fn mechanical_energy(&self, q: &[f64], v: &[f64], t: f64) -> (f64, f64);
    /// The power dampers dissipate and loads, drives and moving free lengths supply at
    /// (q, v, lambda, t) over the step `stride` (W): each force at (q, v, t) times the mean
    /// rate over the step of what it works on (`Element::power`); as the step shrinks to
    /// q_end = q_start + h v, the power at v (`stages::work_along`).
    fn power(&self, q: &[f64], v: &[f64], lambda: &[f64], t: f64, stride: &Stride) -> EnergyFlow;
    /// Move (q, v) rigidly with the drives that are off their prescribed values at time t:
    /// what each driven joint carries turns or slides with it by the amount its drive is off,
    /// so that the drive holds. The start of `Workspace::follow_drives`, whose Newton
    /// iteration then balances the forces (springs, the deformation of what gravity loads);
    /// the integrators never learn what moved. The default moves nothing.
    fn carry_with_drives(&self, _q: &mut [f64], _v: &mut [f64], _t: f64) {}
    /// The stepper is about to evaluate the system at these times (the start and stages of
    /// one step, possibly repeated): a system may precompute what depends only on time and
    /// its history (the fractional dampers' series). Evaluations at other times must give
    /// the same results, only slower.
    fn prepare(&mut self, _times: &[f64]) {}
    /// A step was accepted at time t with coordinates q and velocities v (elements with
    /// memory record it: the only place besides `event_update` where a system changes).
    fn step_accepted(&mut self, _q: &[f64], _v: &[f64], _t: f64) {}
    /// Whether the system has compliant contacts (stiff force laws along a contact measure)
    /// that limit the step (`contact_step_limit`); false skips that call entirely.
    fn has_contact_time_scales(&self) -> bool {
        false
    }
    /// Whether a compliant contact can limit a step from (q, v, t): one in an impact, or open
    /// but closing within `horizon` at its current rate. Decided from the state and the
    /// contacts' histories without effective masses, so that the caller factorizes the mass
    /// matrix for `contact_step_limit` only where one is needed.
    fn contact_outlook(&self, _q: &[f64], _v: &[f64], _t: f64, _horizon: f64) -> ContactOutlook {
        ContactOutlook::NONE
    }
    /// The longest step from (q, v, t) that resolves the compliant contacts (infinite if none
    /// limits it): for each contact in an impact, or open but closing within `horizon` at its
    /// current rate, the time until it closes (0 if closed) plus `fraction` of the duration of
    /// an impact with its force law and normal energy (src/mechanics/forces/impact_duration.rs).
    /// The effective mass along a contact's measure s(q) comes from the caller:
    /// `inverse_mass(dofs, d)` returns d^T M_c^-1 d for the gradient d of s over the
    /// coordinates `dofs`, M_c^-1 the inverse mass matrix under the constraints (the upper
    /// left block of [M Phi_q^T; Phi_q 0]^-1), or NaN if it is not available; it is asked only
    /// by contacts for which `contact_may_limit` holds. (q, v, t) is the accepted state a step
    /// starts from: a contact stores there the scales of an impact that starts (its history).
    #[allow(clippy::too_many_arguments)]
    fn contact_step_limit(
        &mut self,
        _q: &[f64],
        _v: &[f64],
        _t: f64,
        _horizon: f64,
        _fraction: f64,
        _inverse_mass: &mut dyn FnMut(&[usize], &[f64]) -> f64,
    ) -> f64 {
        f64::INFINITY
    }
    /// Number of event functions: scalar functions of the state whose sign changes (from
    /// `< 0` to `>= 0` or back) the stepper locates inside a step, so that a step ends just
    /// after each change (contact onset, separation).
    fn event_count(&self) -> usize {
        0
    }
    /// Overwrite `out` (length `event_count()`) with the event functions at (q, v, lambda, t).
    fn event_functions(&self, _q: &[f64], _v: &[f64], _lambda: &[f64], _t: f64, _out: &mut [f64]) {}
    /// Discrete state changes at an event (hybrid systems, e.g. unilateral constraints that
    /// switch on and off). The stepper calls this after every step that ended at a located
    /// event (and once at the start), repeatedly until it returns `EventAction::None`:
    /// - `Switch`: the system changed which equations its rows enforce;
    ///   the stepper recomputes consistent accelerations and multipliers and restarts.
    /// - `Jump`: as `Switch`, and the velocities jump by the impulse that changes the
    ///   constraint velocities Phi_q v by `jump` (length m): the stepper solves
    ///   [M Phi_q^T; Phi_q 0] [dv; impulse] = [0; jump] and adds the kinetic energy lost to the
    ///   dissipated energy.
    ///
    /// The stepper never learns what the rows mean.
    fn event_update(&mut self, _q: &[f64], _v: &[f64], _lambda: &[f64], _t: f64, _jump: &mut [f64]) -> EventAction {
        EventAction::None
    }
    /// The first time in (t0, t1] at which a prescribed motion's rate may jump (a kink of a
    /// drive: `min`, `max` or `abs` of the time), to the last bit: a step ends there, and the
    /// velocities are projected onto the new rates (`Stepper::pass_kink`). None (the
    /// default): no kink.
    fn kink(&self, _t0: f64, _t1: f64) -> Option<f64> {
        None
    }
    /// Open every resting unilateral row, armed at its current penetration, before a velocity
    /// jump that the unilateral rows are not to take as constraints (a drive's rate that
    /// jumps): `event_update` then sees at once which of them the jump presses (an impact) and
    /// which it leaves (they part). Returns whether any was open (the default has none).
    fn open_contacts(&mut self, _q: &[f64]) -> bool {
        false
    }
    /// Release the unilateral rows at rest (not those `event_update` asked a jump of) that
    /// `impulse` pulls on (an impact's velocity jump, M dv = -Phi_q^T impulse, or a static
    /// equilibrium's multipliers: compressive rows are positive): a contact cannot transmit
    /// tension, so its bodies part instead. The caller then solves again without those rows.
    /// Returns whether any row was released (the default has none).
    fn release_tensile(&mut self, _q: &[f64], _impulse: &[f64]) -> bool {
        false
    }
}

/// max_i |K_ii| / M_ii over the coordinates with mass (1/s^2): the squared frequency of the
/// stiffest coordinate held alone, at rest at (q, t), K with the terms of the multipliers
/// `lambda` (none where they are zero); 0 if no coordinate has stiffness. `matrix` holds the
/// Newton pattern and is overwritten.
pub fn stiffest_ratio(sys: &dyn Dynamics, (q, lambda, t): (&[f64], &[f64], f64), matrix: &mut SparseMatrix) -> f64 {
    let n = sys.coordinates();
    let zeros = vec![0.0; n];
    let mut diagonal = |mass: f64, stiffness: f64| {
        let c = TangentCoefficients { mass, damping: 0.0, stiffness, lambda: 1.0 };
        sys.newton_matrix(q, &zeros, &zeros, lambda, t, c, matrix);
        (0..n).map(|i| matrix.values[matrix.slot(i, i)]).collect::<Vec<_>>()
    };
    let mass = diagonal(1.0, 0.0);
    largest_ratio(&mass, &diagonal(0.0, 1.0))
}

/// max_i |stiffness_i| / mass_i over the entries with mass > 0; 0 if there are none.
pub fn largest_ratio(mass: &[f64], stiffness: &[f64]) -> f64 {
    mass.iter().zip(stiffness).filter(|(m, _)| **m > 0.0).fold(0.0f64, |r, (m, k)| r.max(k.abs() / m))
}

/// What `Dynamics::event_update` asks of the stepper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventAction {
    None,
    Switch,
    Jump,
}
