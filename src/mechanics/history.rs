//! The history of a system: everything its equations depend on besides (q, v, a, lambda, t)
//! and the inputs. Contact forces remember the impact speed and onset of the current
//! impact (and its duration, for the step limit), fractional dampers their accepted samples,
//! contact constraints their mode (the active set). It is explicit state: elements change it
//! only through `&mut` when a step is accepted (`Dynamics::step_accepted`,
//! `Dynamics::event_update`) or, for a contact's impact scales, at the accepted state a step
//! starts from (`Dynamics::contact_step_limit`), so a rejected step never commits a history,
//! and it is part of every snapshot and FMU state.
//!
//! The memory types of the element kinds live here (the elements re-export them), so the
//! history depends on no element and every element can name its `Memory`.

use serde::{Deserialize, Serialize};

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

/// Which list of a [`History`] an element kind's memory goes to. A new kind with memory adds
/// a variant here, a list to `History` and a layout version bump in src/simulation/blob.rs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryKind {
    Fractional,
    Contact,
}

impl MemoryKind {
    const ALL: [MemoryKind; 2] = [MemoryKind::Fractional, MemoryKind::Contact];

    /// What the entries are, for error messages.
    pub fn what(self) -> &'static str {
        match self {
            MemoryKind::Fractional => "fractional dampers",
            MemoryKind::Contact => "contact forces",
        }
    }
}

/// The memory of one element.
#[derive(Debug, Clone, PartialEq)]
pub enum Memory {
    Fractional(FractionalHistory),
    Contact(ContactMemory),
}

impl History {
    /// Append one element's memory to its list.
    pub fn push(&mut self, m: Memory) {
        match m {
            Memory::Fractional(h) => self.fractional.push(h),
            Memory::Contact(c) => self.contacts.push(c),
        }
    }

    /// How many entries the list of `kind` holds.
    pub fn count(&self, kind: MemoryKind) -> usize {
        match kind {
            MemoryKind::Fractional => self.fractional.len(),
            MemoryKind::Contact => self.contacts.len(),
        }
    }

    /// Reads the lists in order, one entry at a time.
    pub fn reader(self) -> HistoryReader {
        HistoryReader { fractional: self.fractional.into_iter(), contacts: self.contacts.into_iter() }
    }
}

/// Writes the elements' memories into a [`History`] in order, reusing the storage of the
/// entries the history already holds (a fractional damper's samples are copied into the
/// previous copy's lists, so saving after every step allocates only when they outgrow it).
#[derive(Debug)]
pub struct HistoryWriter<'a> {
    history: &'a mut History,
    fractional: usize,
    contacts: usize,
}

impl<'a> HistoryWriter<'a> {
    pub fn new(history: &'a mut History) -> Self {
        HistoryWriter { history, fractional: 0, contacts: 0 }
    }

    /// The next entry of the fractional list.
    pub fn fractional(&mut self, h: &FractionalHistory) {
        self.fractional_entry().clone_from(h);
    }

    /// The next entry of the fractional list, to be filled in place: its lists keep their
    /// storage (for an element that keeps its samples in another layout).
    pub fn fractional_entry(&mut self) -> &mut FractionalHistory {
        if self.fractional == self.history.fractional.len() {
            self.history.fractional.push(FractionalHistory::default());
        }
        self.fractional += 1;
        &mut self.history.fractional[self.fractional - 1]
    }

    /// The next entry of its list.
    pub fn memory(&mut self, m: Memory) {
        match m {
            Memory::Fractional(h) => self.fractional(&h),
            Memory::Contact(c) => {
                match self.history.contacts.get_mut(self.contacts) {
                    Some(entry) => *entry = c,
                    None => self.history.contacts.push(c),
                }
                self.contacts += 1;
            }
        }
    }

    /// Drop the entries beyond those written.
    pub fn finish(self) {
        self.history.fractional.truncate(self.fractional);
        self.history.contacts.truncate(self.contacts);
    }
}

/// How many entries of each kind of memory a system expects.
#[derive(Debug, Clone, Default)]
pub struct MemoryCounts([usize; MemoryKind::ALL.len()]);

impl MemoryCounts {
    pub fn add(&mut self, kind: MemoryKind, n: usize) {
        self.0[kind as usize] += n;
    }

    /// The first list of `h` whose length differs from the expected one.
    pub fn mismatch(&self, h: &History) -> Option<(&'static str, usize, usize)> {
        MemoryKind::ALL.iter().find_map(|&k| {
            let (got, expected) = (h.count(k), self.0[k as usize]);
            (got != expected).then_some((k.what(), got, expected))
        })
    }
}

/// The element lists of a `History`, consumed in order by the element groups.
#[derive(Debug)]
pub struct HistoryReader {
    fractional: std::vec::IntoIter<FractionalHistory>,
    contacts: std::vec::IntoIter<ContactMemory>,
}

impl HistoryReader {
    /// The next entry of the list of `kind`.
    pub fn next(&mut self, kind: MemoryKind) -> Option<Memory> {
        match kind {
            MemoryKind::Fractional => self.fractional.next().map(Memory::Fractional),
            MemoryKind::Contact => self.contacts.next().map(Memory::Contact),
        }
    }
}

/// The accepted samples of one fractional damper, oldest first: its part of the system's
/// [`History`](crate::mechanics::History).
#[derive(Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FractionalHistory {
    /// Sample times (strictly increasing).
    pub t: Vec<f64>,
    /// q = s - s0 at those times.
    pub q: Vec<f64>,
}

impl Clone for FractionalHistory {
    fn clone(&self) -> Self {
        FractionalHistory { t: self.t.clone(), q: self.q.clone() }
    }

    /// Into the lists `self` has (a derived `clone_from` would allocate new ones).
    fn clone_from(&mut self, source: &Self) {
        self.t.clone_from(&source.t);
        self.q.clone_from(&source.q);
    }
}

impl FractionalHistory {
    /// Whether the samples can be a history: as many times as values, all finite, times
    /// strictly increasing.
    pub fn validate(&self) -> Result<(), String> {
        if self.t.len() != self.q.len() {
            return Err(format!("fractional damper history has {} times but {} values", self.t.len(), self.q.len()));
        }
        if !self.t.iter().chain(&self.q).all(|x| x.is_finite()) {
            return Err("fractional damper history holds a non-finite number".into());
        }
        if self.t.windows(2).any(|w| w[0] >= w[1]) {
            return Err("fractional damper history times are not increasing".into());
        }
        Ok(())
    }
}

/// The history of one contact: the approach rate at the last accepted separated state, the
/// impact speed v0 recorded at onset (NaN while separated; the damping's v0) and the time of
/// the latest onset (the first accepted state in contact; -1 before any; the output
/// `impact_time`). For the step limit (`Contact::contact_step_limit`): the start of the
/// current impact (the onset, or a new impact on a sustained contact), and that impact's
/// duration and inverse effective mass 1/m_eff along the contact (both NaN until the first
/// step of the impact has computed them). Part of the system's
/// [`History`](crate::mechanics::History): changed by `Contact::record` at an accepted step
/// and by the step limit at the state a step starts from.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ContactMemory {
    pub approach: f64,
    pub impact: f64,
    pub onset: f64,
    pub start: f64,
    pub duration: f64,
    pub inverse_mass: f64,
}

impl ContactMemory {
    /// Before any contact.
    pub const NONE: ContactMemory = ContactMemory {
        approach: 0.0,
        impact: f64::NAN,
        onset: -1.0,
        start: -1.0,
        duration: f64::NAN,
        inverse_mass: f64::NAN,
    };

    /// Whether the numbers can be a contact's history (finite; the impact speed, duration and
    /// inverse mass NaN while unknown, the latter two never negative).
    pub fn validate(&self) -> Result<(), String> {
        let finite_or_nan = |x: f64| x.is_finite() || x.is_nan();
        if !(self.approach.is_finite()
            && finite_or_nan(self.impact)
            && self.onset.is_finite()
            && self.start.is_finite()
            && finite_or_nan(self.duration)
            && finite_or_nan(self.inverse_mass))
        {
            return Err(format!("contact history {self:?} is not finite"));
        }
        if self.duration < 0.0 || self.inverse_mass < 0.0 {
            return Err(format!("contact history {self:?} has a negative impact duration or inverse mass"));
        }
        Ok(())
    }
}

/// What a contact constraint row enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ContactMode {
    /// lambda = 0; onset event delta - offset.
    Separated,
    /// delta = 0 during the velocity jump of an impact.
    Impact,
    /// delta = 0 until lambda < 0.
    Active,
}

/// The discrete state of one contact constraint.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ContactConstraintMemory {
    pub mode: ContactMode,
    /// The onset event is delta - offset.
    pub offset: f64,
    /// Time of the latest impact (onset of contact); -1 before any.
    pub onset: f64,
    /// Active with other active rows on the same coordinates that it depends on (a body held
    /// statically indeterminately): the row is regularized (`System::mark_dependent_contacts`).
    pub dependent: bool,
}

impl ContactConstraintMemory {
    /// Separated, before any impact.
    pub const NONE: ContactConstraintMemory =
        ContactConstraintMemory { mode: ContactMode::Separated, offset: 0.0, onset: -1.0, dependent: false };

    /// Whether the numbers can be a contact constraint's history.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.offset.is_finite() && self.onset.is_finite()) {
            return Err(format!("contact constraint history {self:?} is not finite"));
        }
        Ok(())
    }
}
