//! flexfmu: flexible multibody models as FMI 2.0 Co-Simulation FMUs.
//!
//! Data flow (see docs/architecture.md): `model` (file → definition) → `mechanics` (system, the
//! `Dynamics` contract) → `integrators` (TTBIF, HHT-alpha, generalized-alpha, Newmark) →
//! `simulation` (the facade) → `fmu` (version-neutral FMU core) → `fmi2` / `fmi3` (C APIs), and `export`
//! (modelDescription.xml, .fmu).

pub mod analysis;
pub mod compact_number;
pub mod export;
pub mod fmi2;
pub mod fmi3;
pub mod fmu;
pub mod integrators;
pub mod limits;
pub mod linalg;
pub mod mechanics;
pub mod model;
pub mod simulation;
pub mod step_error;
pub mod structural;
