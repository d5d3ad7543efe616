//! The history of a system: everything its equations depend on besides (q, v, a, lambda, t)
//! and the inputs. Contact forces remember the impact speed and onset of the current
//! impact, fractional dampers their accepted samples, contact constraints their mode (the
//! active set). It is explicit state: elements change it only through `&mut` when a step is
//! accepted (`Dynamics::step_accepted`, `Dynamics::event_update`), so a rejected step never
//! commits a history, and it is part of every snapshot and FMU state.

use serde::{Deserialize, Serialize};

use super::forces::ContactMemory;
use super::forces::fractional_damper::FractionalHistory;
use super::joints::ContactConstraintMemory;

/// One entry per element with memory, in the order of the system's element lists.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct History {
    pub fractional: Vec<FractionalHistory>,
    pub contacts: Vec<ContactMemory>,
    pub contact_constraints: Vec<ContactConstraintMemory>,
}

impl History {
    /// Whether every entry holds numbers its element can continue from.
    pub fn validate(&self) -> Result<(), String> {
        for h in &self.fractional {
            h.validate()?;
        }
        for m in &self.contacts {
            m.validate()?;
        }
        for m in &self.contact_constraints {
            m.validate()?;
        }
        Ok(())
    }
}
