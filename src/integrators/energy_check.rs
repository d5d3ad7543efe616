//! The energy check of a converged step. energy_total + dissipated - supplied is constant for
//! the exact motion, and the methods keep it to their accuracy (the dissipative ones lose
//! some). A step that gains more than `GROWTH_LIMIT` of the energy in play (beyond a floor far
//! below any resolved motion) has not found the motion: its iteration converged to a spurious root of the step equations, or the method is
//! unstable on the model (the trapezoidal rule on a stiff nonlinear beam, Simo & Tarnow,
//! ZAMP 43, 1992). It fails, and is retried shorter, instead of passing on a state of
//! arbitrary energy.

use super::State;
use super::dynamics::{Dynamics, EnergyFlow};
use super::newton::NewtonError;

/// A converged step fails if its mechanical energy grew, beyond what loads, drives and inputs
/// supplied and dampers took, by more than this fraction of the energy in play plus the floor.
const GROWTH_LIMIT: f64 = 0.5;

/// The floor, as a fraction of the model's characteristic energy: the kinetic energy with
/// every coordinate moving at the model length per second. A system at rest has no energy in
/// play, and the round-off of its steps (1e-44 J on a rotor at rest) is no growth.
const FLOOR: f64 = 1e-6;

/// The check, with the energy of the state the last checked step ended at: the next step
/// starts there unless the state changed in between (compared exactly) or the system did
/// (`forget`).
#[derive(Debug, Clone, Default)]
pub struct EnergyCheck {
    /// Off for studies of the plain method from states that are not motions.
    pub off: bool,
    /// Whether `end` holds the energy of the last checked step's end.
    valid: bool,
    end: Energies,
    /// FLOOR times the characteristic energy, once computed (at the first check).
    floor: Option<f64>,
    /// The largest kinetic energy at the checked steps' ends since `take_peak_kinetic`.
    peak_kinetic: f64,
}

#[derive(Debug, Clone, Default)]
struct Energies {
    t: f64,
    q: Vec<f64>,
    v: Vec<f64>,
    exchanged: EnergyFlow,
    kinetic: f64,
    potential: f64,
}

impl EnergyCheck {
    /// Forget the last step's end (the system's coefficients or inputs changed).
    pub fn forget(&mut self) {
        self.valid = false;
    }

    /// The floor, once the first check computed it (a snapshot carries it: computed at another
    /// state it would differ).
    pub fn floor(&self) -> Option<f64> {
        self.floor
    }

    /// Restore a snapshot's `floor` and, if the last checked step ended at `state`, its
    /// (kinetic, potential) energy (`energy_at` of the snapshot's state).
    pub fn restore(&mut self, floor: Option<f64>, energy: Option<(f64, f64)>, state: &State) {
        self.floor = floor;
        self.valid = false;
        if let Some((kinetic, potential)) = energy {
            let e = &mut self.end;
            e.t = state.t;
            e.q.clone_from(&state.q);
            e.v.clone_from(&state.v);
            (e.exchanged, e.kinetic, e.potential) = (state.exchanged, kinetic, potential);
            self.valid = true;
        }
    }

    /// The largest kinetic energy at the ends of the steps checked since the last call (the
    /// energy in play of a run whose output rows miss its swings: `BalanceWatch`).
    pub fn take_peak_kinetic(&mut self) -> f64 {
        std::mem::take(&mut self.peak_kinetic)
    }

    /// The (kinetic, potential) energy of `state` if it is where the last checked step ended.
    pub fn energy_at(&self, state: &State) -> Option<(f64, f64)> {
        let e = &self.end;
        let same = e.t == state.t && e.exchanged == state.exchanged && e.q == state.q && e.v == state.v;
        (self.valid && same).then_some((e.kinetic, e.potential))
    }

    /// The energy balance of a converged step from `start` to `end` (module doc); `length` is
    /// the model's length (m), its velocity scale per second.
    pub fn check(&mut self, sys: &dyn Dynamics, start: &State, end: &State, length: f64) -> Result<(), NewtonError> {
        if self.off {
            return Ok(());
        }
        let floor = *self.floor.get_or_insert_with(|| {
            let v = vec![length; start.v.len()];
            FLOOR * sys.mechanical_energy(&start.q, &v, start.t).0
        });
        let (k0, v0) = self.energy_at(start).unwrap_or_else(|| sys.mechanical_energy(&start.q, &start.v, start.t));
        let (k1, v1) = sys.mechanical_energy(&end.q, &end.v, end.t);
        self.peak_kinetic = self.peak_kinetic.max(k1);
        let e = &mut self.end;
        // The copies reuse their storage (no allocation once they have the state's length).
        e.t = end.t;
        e.q.clone_from(&end.q);
        e.v.clone_from(&end.v);
        (e.exchanged, e.kinetic, e.potential) = (end.exchanged, k1, v1);
        self.valid = true;
        let dissipated = end.exchanged.dissipated - start.exchanged.dissipated;
        let supplied = end.exchanged.supplied - start.exchanged.supplied;
        let growth = (k1 + v1) - (k0 + v0) + dissipated - supplied;
        let scale = k0 + k1 + v0.abs() + v1.abs() + dissipated.abs() + supplied.abs();
        if growth > GROWTH_LIMIT * scale + floor {
            return Err(NewtonError::EnergyGrowth { t: end.t, growth, scale });
        }
        Ok(())
    }
}
