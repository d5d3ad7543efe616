//! Element kinds as the system sees them: one object-safe [`ElementGroup`] per registered
//! kind, implemented once for every [`ElementSet<E>`] of an [`Element`] type. The system
//! iterates over its groups in registration order for the sparsity pattern, the matrix slots,
//! forces, tangents, energy, dissipated and supplied power, history, event functions and the forces'
//! derivatives with respect to the inputs; it never names a kind.

use std::any::Any;
use std::fmt::Debug;

use super::elements::{Element, Energy, Kin};
use super::history::{HistoryReader, HistoryWriter};
use crate::integrators::{ContactOutlook, EnergyFlow, Stride, TangentCoefficients};
use crate::linalg::{PatternBuilder, SparseMatrix};

/// Elements of one kind, with the matrix slots of their tangent blocks.
#[derive(Debug, Clone)]
pub struct ElementSet<E> {
    pub elements: Vec<E>,
    slots: Vec<Vec<usize>>,
    /// Per input, the elements whose forces read it (`Element::inputs_read`), kept as elements
    /// are pushed: the input questions then cost the readers, not every element per input.
    readers: Vec<Vec<usize>>,
}

impl<E> Default for ElementSet<E> {
    fn default() -> Self {
        ElementSet { elements: Vec::new(), slots: Vec::new(), readers: Vec::new() }
    }
}

impl<E: Element> ElementSet<E> {
    pub fn push(&mut self, e: E) {
        let mut inputs = Vec::new();
        e.inputs_read(&mut inputs);
        inputs.sort_unstable();
        inputs.dedup();
        for i in inputs {
            if self.readers.len() <= i {
                self.readers.resize(i + 1, Vec::new());
            }
            self.readers[i].push(self.elements.len());
        }
        self.elements.push(e);
    }

    /// The elements that read input `i`.
    fn readers_of(&self, i: usize) -> impl Iterator<Item = &E> {
        self.readers.get(i).into_iter().flatten().map(|&k| &self.elements[k])
    }
}

/// What the system does with the elements of one kind, without knowing the kind.
pub trait ElementGroup: Debug + Send + Sync {
    /// How many elements the group holds.
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Register every element's dense block in the sparsity pattern.
    fn add_pattern(&self, b: &mut PatternBuilder);
    /// Store every element's matrix slots in the frozen pattern `m`.
    fn compute_slots(&mut self, m: &SparseMatrix);
    fn add_forces(&self, x: &Kin, inertial: &mut [f64], forces: &mut [f64]);
    /// Add every element's weighted tangent block into `m` (`block` is scratch space).
    fn assemble_tangent(&self, x: &Kin, c: &TangentCoefficients, block: &mut Vec<f64>, m: &mut SparseMatrix);
    /// Add the elements' strain stiffness (`Element::add_strain_stiffness`) into `m`.
    fn assemble_strain_stiffness(&self, x: &Kin, block: &mut Vec<f64>, m: &mut SparseMatrix);
    fn energy(&self, x: &Kin) -> Energy;
    /// Whether the group has elements of a non-conservative kind (`Element::NON_CONSERVATIVE`)
    /// that exchange energy (`Element::exchanges_energy`).
    fn non_conservative(&self) -> bool;
    /// The power the group dissipates and supplies over the step `stride` (`Element::power`;
    /// zero if its kind is conservative).
    fn power(&self, x: &Kin, stride: &Stride) -> EnergyFlow;
    /// Prepare a run over the output `times` (kinds with memory).
    fn prepare(&mut self, times: &[f64]);
    /// Evaluations at `times` near the accepted time t follow the motion from there
    /// (`Element::follow_motion`).
    fn follow_motion(&mut self, t: f64, times: &[f64]);
    /// Forces as at rest for all time, or back to stepping (`Element::at_rest`).
    fn at_rest(&mut self, on: bool);
    /// Record an accepted state in the elements' memory (kinds with memory).
    fn record(&mut self, q: &[f64], v: &[f64], t: f64);
    /// Write the elements' memories to `w`, in order.
    fn save_history(&self, w: &mut HistoryWriter);
    /// How many entries of each kind of memory the group expects from a `History`.
    fn history_count(&self, counts: &mut super::history::MemoryCounts);
    /// Take the elements' memories from `h`, in order.
    fn load_history(&mut self, h: &mut HistoryReader);
    /// Whether the group holds compliant contacts that limit the step.
    fn has_contact_time_scales(&self) -> bool;
    /// What the group's contacts do from (q, v, t), decided without effective masses
    /// (`Element::contact_outlook`).
    fn contact_outlook(&self, q: &[f64], v: &[f64], t: f64, horizon: f64) -> ContactOutlook;
    /// The shortest step limit of the group's closed or closing contacts (infinite if none).
    fn contact_step_limit(
        &mut self,
        q: &[f64],
        v: &[f64],
        t: f64,
        horizon: f64,
        fraction: f64,
        inverse_mass: &mut dyn FnMut(&[usize], &[f64]) -> f64,
    ) -> f64;
    /// Whether the forces of one of the group's elements read input `i` (`Element::inputs_read`).
    fn reads_input(&self, i: usize) -> bool;
    /// Add the derivative of the forces of the group's elements that read input `i` with
    /// respect to it into `forces` (`Element::add_input_derivative`).
    fn add_input_derivative(&self, x: &Kin, i: usize, forces: &mut [f64]);
    /// The energy of the group's elements that read input `i` (they alone hold an energy of
    /// the inputs).
    fn input_energy(&self, x: &Kin, i: usize) -> Energy;
    /// Append the coordinates of the group's elements that read input `i` to `out`.
    fn input_dofs(&self, i: usize, out: &mut Vec<usize>);
    /// Number of event functions (switching surfaces) of the group.
    fn event_count(&self) -> usize;
    /// The event functions into `out` (`event_count()` values).
    fn event_functions(&self, q: &[f64], out: &mut [f64]);
    /// `tie(dofs, grounded)` for each element that holds its coordinates together
    /// (`Element::TIES`), with whether it holds them to ground too (`Element::tied_to_ground`).
    fn ties(&self, tie: &mut dyn FnMut(&[usize], bool));
    /// The coordinates of the first element whose formulation no longer holds at q, and why
    /// (`Element::outside_formulation`).
    fn outside_formulation(&self, q: &[f64]) -> Option<(&[usize], String)>;
    /// The first of the group's impact warnings (`Element::impact_warning`).
    fn impact_warning(&self) -> Option<String>;
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    fn clone_box(&self) -> Box<dyn ElementGroup>;
}

impl Clone for Box<dyn ElementGroup> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

impl<E: Element> ElementSet<E> {
    /// Each element's dense block, filled by `fill` from zero in `block`, added into `m` at
    /// the element's slots.
    fn assemble_blocks(&self, block: &mut Vec<f64>, m: &mut SparseMatrix, fill: impl Fn(&E, &mut [f64])) {
        for (e, slots) in self.elements.iter().zip(&self.slots) {
            block.clear();
            block.resize(slots.len(), 0.0);
            fill(e, block);
            for (&s, &v) in slots.iter().zip(block.iter()) {
                m.values[s] += v;
            }
        }
    }
}

impl<E: Element + Debug + Clone + Send + Sync + 'static> ElementGroup for ElementSet<E> {
    fn len(&self) -> usize {
        self.elements.len()
    }

    fn add_pattern(&self, b: &mut PatternBuilder) {
        for e in &self.elements {
            if E::SWITCHES {
                let part = b.switchable_part();
                b.switchable_block(part, e.dofs(), e.dofs());
            } else {
                b.block(e.dofs(), e.dofs());
            }
        }
    }

    fn compute_slots(&mut self, m: &SparseMatrix) {
        self.slots = self.elements.iter().map(|e| m.block_slots(e.dofs(), e.dofs())).collect();
    }

    fn add_forces(&self, x: &Kin, inertial: &mut [f64], forces: &mut [f64]) {
        for e in &self.elements {
            e.add_forces(x, inertial, forces);
        }
    }

    fn assemble_tangent(&self, x: &Kin, c: &TangentCoefficients, block: &mut Vec<f64>, m: &mut SparseMatrix) {
        self.assemble_blocks(block, m, |e, b| e.add_tangent(x, c, b));
    }

    fn assemble_strain_stiffness(&self, x: &Kin, block: &mut Vec<f64>, m: &mut SparseMatrix) {
        self.assemble_blocks(block, m, |e, b| e.add_strain_stiffness(x, b));
    }

    fn energy(&self, x: &Kin) -> Energy {
        let mut e = Energy::default();
        for el in &self.elements {
            e += el.energy(x);
        }
        e
    }

    fn non_conservative(&self) -> bool {
        E::NON_CONSERVATIVE && self.elements.iter().any(Element::exchanges_energy)
    }

    fn power(&self, x: &Kin, stride: &Stride) -> EnergyFlow {
        self.elements.iter().fold(EnergyFlow::default(), |p, e| p + e.power(x, stride))
    }

    fn prepare(&mut self, times: &[f64]) {
        for e in &mut self.elements {
            e.prepare(times);
        }
    }

    fn follow_motion(&mut self, t: f64, times: &[f64]) {
        if E::MEMORY.is_some() {
            for e in &mut self.elements {
                e.follow_motion(t, times);
            }
        }
    }

    fn at_rest(&mut self, on: bool) {
        if E::MEMORY.is_some() {
            for e in &mut self.elements {
                e.at_rest(on);
            }
        }
    }

    fn record(&mut self, q: &[f64], v: &[f64], t: f64) {
        for e in &mut self.elements {
            e.record(q, v, t);
        }
    }

    fn save_history(&self, w: &mut HistoryWriter) {
        for e in &self.elements {
            e.save_memory(w);
        }
    }

    fn history_count(&self, counts: &mut super::history::MemoryCounts) {
        if let Some(kind) = E::MEMORY {
            counts.add(kind, self.elements.len());
        }
    }

    fn load_history(&mut self, h: &mut HistoryReader) {
        if let Some(kind) = E::MEMORY {
            for e in &mut self.elements {
                if let Some(m) = h.next(kind) {
                    e.set_memory(m);
                }
            }
        }
    }

    fn has_contact_time_scales(&self) -> bool {
        E::CONTACT_TIME_SCALE && !self.elements.is_empty()
    }

    fn contact_outlook(&self, q: &[f64], v: &[f64], t: f64, horizon: f64) -> ContactOutlook {
        if !E::CONTACT_TIME_SCALE {
            return ContactOutlook::NONE;
        }
        self.elements.iter().fold(ContactOutlook::NONE, |o, e| o.and(e.contact_outlook(q, v, t, horizon)))
    }

    fn contact_step_limit(
        &mut self,
        q: &[f64],
        v: &[f64],
        t: f64,
        horizon: f64,
        fraction: f64,
        inverse_mass: &mut dyn FnMut(&[usize], &[f64]) -> f64,
    ) -> f64 {
        if !E::CONTACT_TIME_SCALE {
            return f64::INFINITY;
        }
        self.elements
            .iter_mut()
            .filter_map(|e| e.contact_step_limit(q, v, t, horizon, fraction, inverse_mass))
            .fold(f64::INFINITY, f64::min)
    }

    fn reads_input(&self, i: usize) -> bool {
        self.readers.get(i).is_some_and(|r| !r.is_empty())
    }

    fn add_input_derivative(&self, x: &Kin, i: usize, forces: &mut [f64]) {
        for e in self.readers_of(i) {
            e.add_input_derivative(x, i, forces);
        }
    }

    fn input_energy(&self, x: &Kin, i: usize) -> Energy {
        let mut e = Energy::default();
        for el in self.readers_of(i) {
            e += el.energy(x);
        }
        e
    }

    fn input_dofs(&self, i: usize, out: &mut Vec<usize>) {
        for e in self.readers_of(i) {
            out.extend_from_slice(e.dofs());
        }
    }

    fn event_count(&self) -> usize {
        self.elements.iter().map(|e| e.event_count()).sum()
    }

    fn event_functions(&self, q: &[f64], out: &mut [f64]) {
        let mut at = 0;
        for e in &self.elements {
            let k = e.event_count();
            e.event_functions(q, &mut out[at..at + k]);
            at += k;
        }
    }

    fn ties(&self, tie: &mut dyn FnMut(&[usize], bool)) {
        if E::TIES {
            for e in &self.elements {
                tie(e.dofs(), e.tied_to_ground());
            }
        }
    }

    fn outside_formulation(&self, q: &[f64]) -> Option<(&[usize], String)> {
        self.elements.iter().find_map(|e| Some((e.dofs(), e.outside_formulation(q)?)))
    }

    fn impact_warning(&self) -> Option<String> {
        if !E::CONTACT_TIME_SCALE {
            return None;
        }
        self.elements.iter().find_map(|e| e.impact_warning())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn clone_box(&self) -> Box<dyn ElementGroup> {
        Box::new(self.clone())
    }
}
