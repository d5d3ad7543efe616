//! The contact constraint method (paper 004 section 2.3.1): a unilateral constraint that
//! switches on at impact and off when its multiplier would turn tensile, so the equations of
//! motion change between ODEs (no contact) and the index-3 DAE of eq. 5,
//!   M q'' + C_q^T lambda = Q   (5a),     C(q) = 0   (5b),
//! with lambda the contact force. Model files choose it with `[[contacts]] method =
//! "constraint"` (default "force": the Hertz force of src/mechanics/forces/contact.rs).
//!
//! Design: the dimension change without changing the integrators.
//! - Each contact constraint owns one row of the system's fixed sparse pattern (after the
//!   joint rows): C = delta = reach - s(q), the penetration (same geometry as the contact
//!   force), so C_q = -G_s and a compressive contact force is lambda > 0.
//! - An *active set* (the `ContactMode` of each row, part of the system's explicit
//!   [`History`](crate::mechanics::History) like the contact force's impact-speed memory)
//!   decides what the row enforces. Active: delta = 0 (index-3,
//!   scaled by the integrator like every joint row; GGL and Baumgarte see its velocity and
//!   acceleration forms). Separated: the trivial row [0 | 1] d_lambda = 0 with zero residual
//!   and no force, and lambda = 0 (the multiplier is reset whenever the stepper restarts from
//!   consistent accelerations, whose row then reads lambda = 0). The pattern, the Newton
//!   solver and every integrator stay unchanged and never see element types.
//! - Switching happens only at event-located step boundaries (`Dynamics::event_functions`,
//!   `Dynamics::event_update`). Event function of a separated row: delta - offset (contact
//!   onset); of an active row: lambda (the multiplier turning tensile).
//! - Impact (a separated row whose event function reached >= 0): the row is active for the
//!   velocity jump of Newton's restitution law v_n+ = -e v_n- (v_n = delta', the approach
//!   rate), which the stepper applies as the impulse of [M C_q^T; C_q 0] [dv; P] = [0; jump]
//!   with jump = -(1 + e) v_n- (other active rows keep their constraint velocity, so joints
//!   transmit the impulse). The kinetic energy lost, P v_n- (1 - e) / 2, goes to
//!   `energy_dissipated`. Then for e > 0 the row is released at once (the body separates);
//!   for e = 0, or an approach slower than `min_impact_speed` (which ends a bouncing sequence
//!   in resting contact instead of infinitely many impacts in finite time), it stays active
//!   until lambda < 0. After every change the stepper restarts from consistent accelerations
//!   and multipliers (the index-1 solve that makes the initial state consistent).
//! - Re-arming: at release delta is ~0 (active: within the Newton tolerance; after an
//!   impact: at most the event tolerance past zero). The onset event of a released row is
//!   delta - offset with offset = max(delta_release, 0) + `REARM`, so a separating body does
//!   not trigger a spurious event right after release; the next onset is recognised at a
//!   penetration below offset (~1e-12 m).
//! - The modes and offsets are part of the element histories (snapshots, FMU state); they
//!   change only through `&mut` at accepted steps, so a rejected step never commits them.
//!
//! Paper 004 solves the active phase with HHT-alpha and GGL (eqs. 15-22); any integrator and
//! constraint treatment of this crate can be used.

use crate::mechanics::contact_gap::{ContactGap, time_to_contact};
use crate::mechanics::quadratic_form;

/// Added to the release penetration in the re-armed onset event (m).
pub const REARM: f64 = 1e-12;

pub use crate::mechanics::history::{ContactConstraintMemory, ContactMode};

#[derive(Debug, Clone, PartialEq)]
pub struct ContactConstraint {
    /// s: plane-normal projection or centre distance (src/mechanics/contact_gap.rs).
    pub gap: ContactGap,
    /// delta = reach - s (sum of the radii; 0 for a point).
    pub reach: f64,
    /// Newton's restitution coefficient e in [0, 1].
    pub restitution: f64,
    /// Impacts slower than this (m/s) end in resting contact (e taken as 0).
    pub min_impact_speed: f64,
    /// delta of the row's regularization while active (`System::regularize_contacts`).
    pub regularization: f64,
    memory: ContactConstraintMemory,
}

impl ContactConstraint {
    pub fn new(gap: ContactGap, reach: f64, restitution: f64, min_impact_speed: f64) -> Self {
        ContactConstraint {
            gap,
            reach,
            restitution,
            min_impact_speed,
            regularization: 0.0,
            memory: ContactConstraintMemory::NONE,
        }
    }

    pub fn memory(&self) -> ContactConstraintMemory {
        self.memory
    }

    pub fn set_memory(&mut self, m: ContactConstraintMemory) {
        self.memory = m;
    }

    /// Whether the row enforces delta = 0.
    pub fn is_active(&self) -> bool {
        self.memory.mode != ContactMode::Separated
    }

    /// Whether the row is active at rest (not taking an impact).
    pub fn is_resting(&self) -> bool {
        self.memory.mode == ContactMode::Active
    }

    /// The diagonal shift of the row in a Newton matrix of stiffness coefficient `beta` while it
    /// is active and depends on other active rows (`System::mark_dependent_contacts`), else 0:
    /// the compliance delta beta_nominal over beta (Phi = delta beta_nominal lambda whatever the
    /// step), delta in an index-1 matrix (beta = 0).
    pub fn active_regularization(&self, beta: f64, beta_nominal: f64) -> f64 {
        match (self.is_active() && self.memory.dependent, beta > 0.0) {
            (false, _) => 0.0,
            (true, true) => self.regularization * beta_nominal / beta,
            (true, false) => self.regularization,
        }
    }

    /// Mark the row as depending on other active rows (or not).
    pub fn set_dependent(&mut self, dependent: bool) {
        self.memory.dependent = dependent && self.is_active();
    }

    /// The penetration delta = C(q) (negative: the gap).
    pub fn penetration(&self, q: &[f64]) -> f64 {
        self.reach - self.gap.value(q)
    }

    /// `f(s_q, s_qq)` over `gap.dofs()`, without allocating (rows of the Newton matrix and the
    /// impulse system at every contact event): the gap's gradient and Hessian, whose negatives
    /// are C_q and C_qq (C = reach - s).
    pub fn with_gap_derivatives<R>(&self, q: &[f64], f: impl FnOnce(&[f64], &[f64]) -> R) -> R {
        self.gap.with_derivatives(q, |_, gradient, hessian| f(gradient, hessian))
    }

    /// The approach rate delta' = C_q v.
    pub fn approach_rate(&self, q: &[f64], v: &[f64]) -> f64 {
        -self.gap.rate(q, v)
    }

    /// For an open contact that closes within `horizon` at its current rate: the time to
    /// contact and the rate.
    pub fn closing_within(&self, q: &[f64], v: &[f64], horizon: f64) -> Option<(f64, f64)> {
        if self.is_active() {
            return None;
        }
        let rate = self.approach_rate(q, v);
        time_to_contact(self.penetration(q), rate, horizon).map(|onset| (onset, rate))
    }

    /// gamma = -(C_q v)_q v of the acceleration-level row.
    pub fn acceleration_rhs(&self, q: &[f64], v: &[f64]) -> f64 {
        self.with_gap_derivatives(q, |_, hessian| quadratic_form(self.gap.dofs(), hessian, v))
    }

    /// The event function: onset (separated) or tensile multiplier (active).
    pub fn event_function(&self, q: &[f64], lambda: f64) -> f64 {
        let m = self.memory;
        match m.mode {
            ContactMode::Separated => self.penetration(q) - m.offset,
            ContactMode::Impact | ContactMode::Active => lambda,
        }
    }

    /// Separate the row, re-armed at the current penetration.
    pub fn release(&mut self, q: &[f64]) {
        let offset = self.penetration(q).max(0.0) + REARM;
        self.memory = ContactConstraintMemory { mode: ContactMode::Separated, offset, dependent: false, ..self.memory };
    }

    /// Separate the row armed at its current penetration (its onset event function 0), for
    /// `event_update` to decide at once whether the motion presses it (`System::open_contacts`).
    pub fn open(&mut self, q: &[f64]) {
        let offset = self.penetration(q);
        self.memory = ContactConstraintMemory { mode: ContactMode::Separated, offset, dependent: false, ..self.memory };
    }

    /// Make the row active (resting contact) without an impact.
    pub fn close(&mut self) {
        self.memory = ContactConstraintMemory { mode: ContactMode::Active, ..self.memory };
    }

    /// Whether the separated row is at its contact: its onset reached, or still where it
    /// parted (within its re-arm offset) with the bodies approaching again. A row released in
    /// this event that the other rows' impulses turn back onto its contact is hit again now,
    /// not a step later: in a stack of balls on a table that stops, the bottom ball was left
    /// moving into the table, and the outcome depended on where the next step located that (a
    /// probe). So is a row of touching balls whose gap is a round-off separation (balls drawn
    /// at 0.1 m spacing: -2.8e-17 m).
    /// `rate` is the approach rate at (q, v).
    fn at_contact(&self, q: &[f64], v: &[f64], rate: f64) -> bool {
        self.event_function(q, 0.0) >= 0.0
            || (self.penetration(q) >= self.memory.offset - 2.0 * REARM && rate > round_off_rate(v))
    }

    /// Whether the row is separated and at its contact (`at_contact`) with the bodies
    /// approaching faster than round-off (an impact, not a touch). `update` starts an impact
    /// exactly there, so that rows that only touch wait for it: a row of six touching balls
    /// whose fourth gap was a round-off separation impacted there without the touching fifth
    /// waiting, which joined as a held pair (velocities -1/3, 2/3, 2/3 instead of 0, 0, 1; a
    /// probe).
    pub fn impacts(&self, q: &[f64], v: &[f64]) -> bool {
        if self.memory.mode != ContactMode::Separated {
            return false;
        }
        let rate = self.approach_rate(q, v);
        self.at_contact(q, v, rate) && rate > round_off_rate(v)
    }

    /// One round of the event update at a step boundary (see the module documentation):
    /// returns the constraint-velocity jump this row asks for (Some: an impact starts) or
    /// whether it switched (Err(true)) or not (Err(false)). `impact`: another row impacts in
    /// this round, so a row that only touches waits for the next round (sequential impacts).
    /// `unloaded`: an active row's multiplier at or below it carries no load (round-off of
    /// the model's forces) and is released.
    pub fn update(
        &mut self,
        q: &[f64],
        v: &[f64],
        lambda: f64,
        t: f64,
        impact: bool,
        unloaded: f64,
    ) -> Result<f64, bool> {
        let m = self.memory;
        match m.mode {
            ContactMode::Separated => {
                let rate = self.approach_rate(q, v);
                if !self.at_contact(q, v, rate) {
                    return Err(false);
                }
                if rate < -round_off_rate(v) {
                    // Parting: no contact. Re-armed at the current penetration (a neighbour's
                    // position correction after an impact pushes a row past its offset as its
                    // bodies part; activated, it was stopped and held closed: a row of
                    // touching balls then ended in a plastic cluster with e = 1).
                    self.release(q);
                    return Err(true);
                }
                if impact && rate <= round_off_rate(v) {
                    return Err(false);
                }
                let e = if rate > self.min_impact_speed { self.restitution } else { 0.0 };
                self.memory = ContactConstraintMemory { mode: ContactMode::Impact, onset: t, ..m };
                // Newton's law: delta'+ = -e delta'- (a touching row, delta' within round-off
                // of 0, is held at rest and released once it carries no load).
                Ok(-rate - e * rate.max(0.0))
            }
            ContactMode::Impact => {
                // After the jump delta' = -e delta'-: released if the body leaves.
                let leaving = self.approach_rate(q, v) < -round_off_rate(v);
                if leaving {
                    self.release(q);
                } else {
                    self.memory = ContactConstraintMemory { mode: ContactMode::Active, ..m };
                }
                Err(true)
            }
            ContactMode::Active => {
                if lambda <= unloaded {
                    self.release(q);
                    Err(true)
                } else {
                    Err(false)
                }
            }
        }
    }
}

/// Approach rates within this of zero are round-off of the velocities `v` (m/s).
fn round_off_rate(v: &[f64]) -> f64 {
    1e-12 * (1.0 + v.iter().fold(0.0f64, |a, x| a.max(x.abs())))
}
