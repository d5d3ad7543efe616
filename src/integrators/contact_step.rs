//! Step selection for compliant contacts: while a contact force law is closed (or closing), the
//! internal step is at most `CONTACT_STEP_FRACTION` of the contact's own time scale, the
//! duration of an impact with its force law and current normal energy
//! (`Dynamics::contact_step_limit`). Contact onset and separation inside a step are located as
//! events (`Stepper::locate_event`), so a step that reaches a contact ends at its onset and the
//! next one is limited; a step after the located separation is free again. A contact that is
//! open but closes within the step at its current rate limits the step to the time to contact
//! plus the same fraction of the impact at that rate: the step then ends inside the impact and
//! its onset is located (a longer step could pass over the whole impact, the penetration
//! negative at both ends).
//!
//! The effective mass along a contact measure with gradient d is 1/(d^T M_c^-1 d), M_c^-1 the
//! inverse mass under the constraints: the upper left block of [M Phi_q^T; Phi_q 0]^-1, the
//! matrix of the consistent accelerations and of the impulse at an impact (the mass a unit
//! impulse along d accelerates; Pfeiffer & Glocker, Multibody Dynamics with Unilateral
//! Contacts, 1996, sec. 4.2). It is factorized once per step that starts with a contact in an
//! impact or closing (`Dynamics::contact_outlook`, decided without it; a sustained contact
//! needs none), in a matrix and LU of its own (the Newton iteration keeps its factorization),
//! allocated with the stepper, so a step allocates nothing.
//!
//! The fraction: measured on Newton's cradle (models/newtons_cradle.toml, t_c = 4.0 ms at
//! v = 1 m/s, ttbif rho_inf 0.5), docs/solver.md "Compliant contacts".

use super::State;
use super::dynamics::{Dynamics, TangentCoefficients};
use super::newton::Statistics;
use crate::linalg::{SparseLu, SparseMatrix};

/// The internal step is at most this fraction of the shortest contact time scale.
pub const CONTACT_STEP_FRACTION: f64 = 1.0 / 50.0;

/// The mass matrix [M Phi_q^T; Phi_q 0] at the state of the current step, and its LU.
pub struct ContactStep {
    mass: Option<(SparseMatrix, SparseLu)>,
    rhs: Vec<f64>,
    /// Whether the LU was factorized once (its numeric storage grows then, not in a contact).
    warm: bool,
}

impl ContactStep {
    /// The matrix, its symbolic LU and the right-hand side of a system with compliant
    /// contacts, allocated here (none for a system without).
    pub fn new(sys: &dyn Dynamics) -> Self {
        if !sys.has_contact_time_scales() {
            return ContactStep { mass: None, rhs: Vec::new(), warm: false };
        }
        let matrix = sys.newton_pattern();
        let lu = SparseLu::new(&matrix);
        ContactStep { mass: Some((matrix, lu)), rhs: vec![0.0; sys.coordinates() + sys.constraints()], warm: false }
    }

    /// Factorize once at `state` (the start of a run) and solve with the factors, so that the
    /// LU's storage is allocated before the first step; not counted in the statistics, like
    /// the rest of a run's initialization. Done when a simulation is built: a simulation built
    /// to restore a snapshot then counts what the one that took it counted from there on
    /// (tests/suite/snapshot_neutral.rs), instead of one more factorization in its first step.
    pub fn warm_up(&mut self, sys: &dyn Dynamics, state: &State) {
        if self.warm || !self.factorize(sys, state, &mut Statistics::default()) {
            return;
        }
        self.warm = true;
        if let Some((_, lu)) = self.mass.as_mut() {
            self.rhs.iter_mut().for_each(|x| *x = 0.0);
            let _ = lu.solve(&mut self.rhs);
        }
    }

    /// The longest step from `state` that resolves the compliant contacts closed there or
    /// closing within `horizon` (`Dynamics::contact_step_limit` with `CONTACT_STEP_FRACTION`;
    /// infinite if none is, or if the system has no compliant contacts). The mass matrix is
    /// factorized only if a contact can limit the step (`Dynamics::contact_may_limit`): a
    /// resting contact costs what a free body costs.
    pub fn limit(&mut self, sys: &mut dyn Dynamics, state: &State, horizon: f64, stats: &mut Statistics) -> f64 {
        if self.mass.is_none() || !sys.has_contact_time_scales() {
            return f64::INFINITY;
        }
        let may_limit = sys.contact_outlook(&state.q, &state.v, state.t, horizon).may_limit();
        // The first step of a run not warmed up (`warm_up`) factorizes once, limited or not, so
        // that the LU's storage is allocated before the first impact
        // (tests/allocation_free_step.rs).
        let factorized = if may_limit || !self.warm { self.factorize(&*sys, state, stats) } else { false };
        let ContactStep { mass, rhs, warm } = self;
        let mut inverse_mass = |dofs: &[usize], d: &[f64]| -> f64 {
            let Some((_, lu)) = mass.as_mut() else { return f64::NAN };
            if !factorized {
                return f64::NAN;
            }
            rhs.iter_mut().for_each(|x| *x = 0.0);
            for (&i, &g) in dofs.iter().zip(d) {
                rhs[i] += g;
            }
            if lu.solve(rhs).is_err() {
                return f64::NAN;
            }
            dofs.iter().zip(d).map(|(&i, &g)| g * rhs[i]).sum()
        };
        if !*warm {
            *warm = true;
            inverse_mass(&[], &[]);
        }
        if !may_limit {
            return f64::INFINITY;
        }
        sys.contact_step_limit(&state.q, &state.v, state.t, horizon, CONTACT_STEP_FRACTION, &mut inverse_mass)
    }

    /// Assemble [M Phi_q^T; Phi_q 0] at `state` and factorize it; false if that fails.
    fn factorize(&mut self, sys: &dyn Dynamics, state: &State, stats: &mut Statistics) -> bool {
        let Some((matrix, lu)) = self.mass.as_mut() else { return false };
        let n = sys.coordinates();
        let c = TangentCoefficients { mass: 1.0, damping: 0.0, stiffness: 0.0, lambda: 1.0 };
        self.rhs.iter_mut().for_each(|x| *x = 0.0);
        let (a, lambda) = self.rhs.split_at(n);
        sys.newton_matrix(&state.q, &state.v, a, lambda, state.t, c, matrix);
        stats.jacobian_evaluations += 1;
        stats.factorizations += 1;
        lu.factorize(matrix).is_ok()
    }
}

/// The sub-step to take of the `rest` of a step under the contact step `limit`: `rest` itself
/// if it is within the limit, else `rest` split into the fewest equal parts within it, never
/// shorter than `floor`.
pub fn sub_step(rest: f64, limit: f64, floor: f64) -> f64 {
    if limit.is_nan() || limit >= rest {
        return rest;
    }
    let parts = (rest / limit.max(floor) * (1.0 - 1e-12)).ceil().max(1.0);
    (rest / parts).max(floor.min(rest))
}
