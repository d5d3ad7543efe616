//! What the Newton workspace remembers of the steps before, as a snapshot carries it
//! (`SolverMemory`). The next steps depend on it beyond the state: Newton starts every stage
//! from the predictor's extrapolation and iterates with the kept factorization, so two runs
//! that differ in it converge to iterates one Newton increment apart (at the level of the
//! tolerance). Carried in snapshots so that taking one changes nothing (FMI 2.0.4 sec. 2.1.8:
//! fmi2GetFMUstate makes a copy of the state) and restoring one, in this simulation or a
//! fresh one in another process, re-steps bit for bit.
//!
//! A kept factorization is carried as the values of the matrix it factorized (and its
//! coefficients), not as the point it was evaluated at: the Newton matrix also depends on the
//! inputs, drive rates and element histories of that time, which may have changed since
//! (the matrix carries over across input changes and accepted steps). The restore factorizes
//! the same values again, which gives the same factors bit for bit (the LU is sequential and
//! deterministic: src/linalg/mod.rs); the snapshot itself only copies.

use serde::{Deserialize, Serialize};

use super::{Stale, Workspace};
use crate::integrators::State;
use crate::integrators::dynamics::TangentCoefficients;
use crate::integrators::predictor::StageRecord;

/// The Newton workspace's memory of the last steps (module documentation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SolverMemory {
    /// (a, lambda) at the start of the last accepted step and its size, through which the
    /// linear predictor of HHT, generalized-alpha, Newmark and Bathe extrapolates
    /// (`Workspace::predict`); none after a restart.
    previous_step: Option<PreviousStep>,
    /// The size of the last accepted step and what TTBIF kept of its stages for the corrected
    /// extrapolation (`StepContext::predict_stage`); none after a restart.
    stages: Option<(f64, StageRecord)>,
    /// The kept factorizations of modified Newton and Broyden (the current one and the spare
    /// one of methods whose stages alternate between two matrices), if usable.
    current: Option<KeptMatrix>,
    spare: Option<KeptMatrix>,
    /// The iterations beyond EXACT_NEWTON_ITERATIONS per stage since the current
    /// factorization (`KEPT_MATRIX_EXCESS`).
    excess: u64,
    /// The record of abandoned kept matrices (`STALE_BACKOFF`).
    #[serde(default)]
    stale: Stale,
    /// The energy check (src/integrators/energy_check.rs): its floor, computed at the first
    /// checked step of the run, and the (kinetic, potential) energy of the state if the last
    /// checked step ended there.
    energy_floor: Option<f64>,
    energy: Option<(f64, f64)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct PreviousStep {
    h: f64,
    a: Vec<f64>,
    lambda: Vec<f64>,
}

/// A factorized Newton matrix: its coefficients, its values in the pattern's order and the
/// solves done with it (a dense LU solves by its inverse after a number of them:
/// src/linalg/dense_lu.rs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct KeptMatrix {
    coefficients: TangentCoefficients,
    values: Vec<f64>,
    solves: u64,
}

impl SolverMemory {
    /// Whether the memory fits a system of n coordinates, m multipliers and a Newton matrix of
    /// `entries` stored entries, every number finite.
    pub fn check(&self, n: usize, m: usize, entries: usize) -> Result<(), String> {
        if let Some(p) = &self.previous_step {
            if p.a.len() != n || p.lambda.len() != m {
                return Err(format!(
                    "the predictor's history belongs to a different model ({} and {} entries, expected {n} and {m})",
                    p.a.len(),
                    p.lambda.len()
                ));
            }
            if !(p.h.is_finite() && p.a.iter().chain(&p.lambda).all(|x| x.is_finite())) {
                return Err("the predictor's history holds a non-finite number".into());
            }
        }
        if let Some((h, record)) = &self.stages {
            if !h.is_finite() {
                return Err(format!("the predictor's step {h} is not finite"));
            }
            record.check(n, m)?;
        }
        for kept in self.current.iter().chain(&self.spare) {
            if kept.values.len() != entries {
                return Err(format!(
                    "the kept Newton matrix belongs to a different model ({} entries, expected {entries})",
                    kept.values.len()
                ));
            }
            let TangentCoefficients { mass, damping, stiffness, lambda } = kept.coefficients;
            if !kept.values.iter().chain(&[mass, damping, stiffness, lambda]).all(|x| x.is_finite()) {
                return Err("the kept Newton matrix holds a non-finite number".into());
            }
        }
        let energies = self.energy_floor.into_iter().chain(self.energy.into_iter().flat_map(|(k, p)| [k, p]));
        if !energies.into_iter().all(|x| x.is_finite()) {
            return Err("the energy check's memory holds a non-finite number".into());
        }
        Ok(())
    }
}

impl Workspace {
    /// The number of stored entries of the Newton matrix (a snapshot's kept matrices have as
    /// many values).
    pub fn matrix_entries(&self) -> usize {
        self.matrix.values.len()
    }

    /// A copy of what the next steps from `state` depend on in this workspace (module
    /// documentation); copies only.
    pub fn memory(&self, state: &State) -> SolverMemory {
        let h = &self.history;
        SolverMemory {
            previous_step: h.valid.then(|| PreviousStep { h: h.h, a: h.a.clone(), lambda: h.lambda.clone() }),
            stages: self.memory_valid.then(|| (self.memory_h, self.memory.record())),
            current: self.factorized.map(|c| KeptMatrix {
                coefficients: c,
                values: self.kept_values.clone(),
                solves: self.lu.solves() as u64,
            }),
            spare: self.spare.map(|c| KeptMatrix {
                coefficients: c,
                values: self.spare_values.clone(),
                solves: self.spare_lu.solves() as u64,
            }),
            excess: self.excess as u64,
            stale: self.stale,
            energy_floor: self.energy.floor(),
            energy: self.energy.energy_at(state),
        }
    }

    /// Make this workspace's memory `memory` (checked by `SolverMemory::check` against this
    /// system), with `state` the state it continues from. The kept matrices are factorized
    /// again from their values (not counted in the statistics: the run that took the
    /// snapshot had counted them) and resume at the solves they had served; one that no
    /// longer factorizes is dropped, as a failed refresh would drop it.
    pub fn restore_memory(&mut self, memory: &SolverMemory, state: &State) {
        self.invalidate();
        if let Some(p) = &memory.previous_step {
            self.record_step_start(p.h, &p.a, &p.lambda);
        }
        if let Some((h, record)) = &memory.stages {
            self.memory.restore(record);
            self.memory_h = *h;
            self.memory_valid = *h > 0.0 && h.is_finite();
        }
        for (kept, spare) in [(&memory.spare, true), (&memory.current, false)] {
            let Some(kept) = kept else { continue };
            self.matrix.values.copy_from_slice(&kept.values);
            if self.lu.factorize(&self.matrix).is_ok() {
                self.lu.resume(usize::try_from(kept.solves).unwrap_or(usize::MAX));
                self.kept_values.copy_from_slice(&kept.values);
                self.factorized = Some(kept.coefficients);
            }
            if spare {
                std::mem::swap(&mut self.lu, &mut self.spare_lu);
                std::mem::swap(&mut self.kept_values, &mut self.spare_values);
                std::mem::swap(&mut self.factorized, &mut self.spare);
            }
        }
        // A run keeps it below KEPT_MATRIX_EXCESS plus one stage's iterations; any count is
        // valid (capped so that adding to it cannot overflow).
        self.excess = memory.excess.min(u64::from(u32::MAX)) as usize;
        self.stale = memory.stale.capped();
        self.energy.restore(memory.energy_floor, memory.energy, state);
    }
}
