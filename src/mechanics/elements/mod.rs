//! Bodies and force elements. Each kind lives in one `Vec` and is assembled in one pass.

pub mod ancf_beam_2d;
pub mod corotational_beam_2d;
pub mod corotational_beam_3d;
mod corotational_center_line_3d;
mod corotational_derivatives_3d;
pub mod floating_frame_beam_2d;
mod floating_frame_integrals;
pub mod point_mass;
pub mod rigid_body_2d;
pub mod rigid_body_3d;

pub use ancf_beam_2d::AncfBeam2d;
pub use corotational_beam_2d::{BeamProperties, CorotationalBeam2d};
pub use corotational_beam_3d::{CorotationalBeam3d, SpatialBeamProperties};
pub use floating_frame_beam_2d::{FloatingFrameBeam2d, FloatingFramePoint};
pub use point_mass::PointMass;
pub use rigid_body_2d::RigidBody2d;
pub use rigid_body_3d::RigidBody3d;

use super::history::{HistoryWriter, Memory, MemoryKind};
use crate::integrators::{ContactOutlook, EnergyFlow, Stride, TangentCoefficients};

/// The state an element is evaluated at (global vectors).
#[derive(Debug, Clone, Copy)]
pub struct Kin<'a> {
    pub q: &'a [f64],
    pub v: &'a [f64],
    pub a: &'a [f64],
    pub t: f64,
    /// The inputs' values at `rates.t0` and their rates: an element reads input j at its time
    /// t as `rates.jet(j, inputs[j], t)` (`Expr::eval_interpolated`).
    pub inputs: &'a [f64],
    pub rates: &'a crate::model::expr::InputRates,
}

impl<'a> Kin<'a> {
    /// The state (q, v, a) at time t of an element that reads no inputs (element checks).
    pub fn without_inputs(q: &'a [f64], v: &'a [f64], a: &'a [f64], t: f64) -> Self {
        Kin { q, v, a, t, inputs: &[], rates: &crate::model::expr::HELD }
    }
}

/// Kinetic and potential (gravitational + elastic) energy.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Energy {
    pub kinetic: f64,
    pub potential: f64,
}

impl std::ops::AddAssign for Energy {
    fn add_assign(&mut self, o: Energy) {
        self.kinetic += o.kinetic;
        self.potential += o.potential;
    }
}

/// Add an element's share of the equations of motion, its inertia forces `ma` and the rest
/// `f`, to the global `inertial` and `forces` (`Element::add_forces` of the kinds that compute
/// their forces locally). The element's coordinates are its nodes' in turn, `W`
/// consecutive ones each starting at `nodes[k]`, added a node's block at a time: a global
/// index per coordinate took 1.2 % more instructions on a 256-element beam's run (callgrind),
/// a width known only at run time 7 %.
#[inline]
pub(crate) fn scatter<const W: usize>(
    nodes: &[usize],
    ma: &[f64],
    f: &[f64],
    inertial: &mut [f64],
    forces: &mut [f64],
) {
    for (n, &x) in nodes.iter().enumerate() {
        let (i, g) = (&mut inertial[x..][..W], &mut forces[x..][..W]);
        let (m, h) = (&ma[n * W..][..W], &f[n * W..][..W]);
        for j in 0..W {
            i[j] += m[j];
            g[j] += h[j];
        }
    }
}

/// What every element contributes to the equations of motion.
pub trait Element {
    /// Global coordinates the element couples; its tangent is a dense block over them.
    fn dofs(&self) -> &[usize];
    /// Add M(q) a into `inertial` and the other forces g(q, v, t) into `forces` (global vectors).
    fn add_forces(&self, x: &Kin, inertial: &mut [f64], forces: &mut [f64]);
    /// Add c.mass*M + c.damping*C + c.stiffness*K into `block` (row-major over `dofs()`).
    fn add_tangent(&self, x: &Kin, c: &TangentCoefficients, block: &mut [f64]);
    /// The stiffness of the element's strain alone at `x` (at rest), added into `block` as
    /// `add_tangent` adds: its elastic tangent, without what loads on it add (a beam's weight,
    /// whose end moments turn with it). What the least-strain-rate initial velocities minimize
    /// (src/mechanics/initial_state.rs), for the kinds that tie their nodes (`TIES`); the
    /// default is the tangent's stiffness part.
    fn add_strain_stiffness(&self, x: &Kin, block: &mut [f64]) {
        self.add_tangent(x, &TangentCoefficients { mass: 0.0, damping: 0.0, stiffness: 1.0, lambda: 0.0 }, block);
    }
    fn energy(&self, x: &Kin) -> Energy;
    /// Whether the kind's forces do work that `energy` does not hold: they dissipate
    /// (dampers) or supply energy (loads, free lengths that move in time). Only such kinds
    /// count in the balance (`power`).
    const NON_CONSERVATIVE: bool = false;
    /// The power the element's non-conservative forces at the state `x` dissipate and supply
    /// over the step `stride` (W): each force times the mean rate over the step of what it
    /// works on, (d(q_end) - d(q_start))/h for a damper's deformation d (a spring's length, a
    /// beam's local strains, a contact's penetration), the coordinates' mean velocity for a
    /// load; plus what moves in time at fixed q (a free length s0(t)). The integrators weight
    /// it over the step's points, so that the energy they count is the work of the forces
    /// along the step's own motion (src/integrators/stages.rs, `work_along`). Deformations
    /// make a rigid motion exchange nothing over a step of any size (the chord of a turn
    /// would); as the step shrinks to q_end = q_start + h v it is the power at v.
    fn power(&self, _x: &Kin, _stride: &Stride) -> EnergyFlow {
        EnergyFlow::default()
    }
    /// Whether this element of a non-conservative kind can have power at all: a beam without
    /// material damping has none, and a group of such elements is left out of the balance
    /// (`System::power` then sums exactly what it summed before beams could dissipate).
    fn exchanges_energy(&self) -> bool {
        Self::NON_CONSERVATIVE
    }
    /// The list of `History` the kind's memory goes to; `None` for kinds without memory.
    const MEMORY: Option<MemoryKind> = None;
    /// Prepare a run whose outputs are at `times` (kinds with memory).
    fn prepare(&mut self, _times: &[f64]) {}
    /// The forces are about to be evaluated at `times` near the accepted time t, along the
    /// motion from the state there (output derivatives, src/simulation/motion_derivatives.rs):
    /// a kind whose forces read its memory at the evaluation time (a fractional damper's
    /// series) makes them smooth functions of time there. `times` empty: back to stepping.
    fn follow_motion(&mut self, _t: f64, _times: &[f64]) {}
    /// On: the forces are evaluated as at rest for all time (static analysis), so a kind whose
    /// forces read its memory gives the memory's limit (a fractional damper's c D^alpha q of a
    /// constant q: 0 for alpha > 0). Off: back to stepping.
    fn at_rest(&mut self, _on: bool) {}
    /// Record an accepted state (kinds with memory).
    fn record(&mut self, _q: &[f64], _v: &[f64], _t: f64) {}
    /// Write the element's memory into `w` (kinds with memory); the default copies
    /// `memory()`, kinds with long memories override it to reuse `w`'s storage.
    fn save_memory(&self, w: &mut HistoryWriter) {
        if let Some(m) = self.memory() {
            w.memory(m);
        }
    }
    /// The element's memory (kinds with memory).
    fn memory(&self) -> Option<Memory> {
        None
    }
    /// Continue from `m` (an entry of the kind's `MEMORY` list).
    fn set_memory(&mut self, _m: Memory) {}
    /// Whether the kind is a compliant contact that limits the step (`contact_step_limit`).
    const CONTACT_TIME_SCALE: bool = false;
    /// Whether a compliant contact is in an impact or closes within `horizon` from (q, v, t),
    /// decided without its effective mass: `contact_step_limit` asks `inverse_mass` only where
    /// one of them is (`Dynamics::contact_outlook`).
    fn contact_outlook(&self, _q: &[f64], _v: &[f64], _t: f64, _horizon: f64) -> ContactOutlook {
        ContactOutlook::NONE
    }
    /// A compliant contact's step limit at (q, v, t) while an impact is under way or begins
    /// within `horizon`: the time until it closes plus `fraction` of its impact duration; None
    /// otherwise. `inverse_mass(dofs, d)` gives d^T M_c^-1 d for a gradient d over `dofs`
    /// (`Dynamics::contact_step_limit`). The contact may store its impact's scales in its
    /// memory (the state is the accepted one a step starts from).
    fn contact_step_limit(
        &mut self,
        _q: &[f64],
        _v: &[f64],
        _t: f64,
        _horizon: f64,
        _fraction: f64,
        _inverse_mass: &mut dyn FnMut(&[usize], &[f64]) -> f64,
    ) -> Option<f64> {
        None
    }
    /// The inputs the element's forces g(q, v, t, u) read, appended to `out` (repeats allowed).
    /// Inputs enter the equations of motion only through such elements (and drives,
    /// src/mechanics/joints): what the FMI output dependencies (src/simulation/dependencies.rs)
    /// and the input Jacobian (src/simulation/derivatives.rs) ask. An element that reads inputs
    /// gives `add_input_derivative` too.
    fn inputs_read(&self, _out: &mut Vec<usize>) {}
    /// Add dg/du_i at `x`, the derivative of the element's forces with respect to input `i`,
    /// into `forces` (elements that read input `i`, `inputs_read`).
    fn add_input_derivative(&self, _x: &Kin, _i: usize, _forces: &mut [f64]) {}
    /// Number of event functions (zeros are switching times, e.g. contact onset).
    fn event_count(&self) -> usize {
        0
    }
    /// The `event_count()` event functions into `out`.
    fn event_functions(&self, _q: &[f64], _out: &mut [f64]) {}
    /// Whether the kind holds its coordinates together as one piece of the structure (a beam
    /// element its nodes, a plate's element its patches): a driving input set at the start
    /// turns or slides what such elements tie to the driven body rigidly with it
    /// (`System::carry_with_drives`). Forces between bodies (springs, dampers, contacts,
    /// loads) tie nothing: the Newton iteration after the transport balances them.
    const TIES: bool = false;
    /// Whether the element's tangent block is exactly zero at times (a force contact while
    /// open): the block is then a switchable part of the Newton pattern, its entries that
    /// nothing else fills left out of the factorization while they are zero
    /// (src/linalg/switching.rs).
    const SWITCHES: bool = false;
    /// For a kind that ties (`TIES`): whether this element also holds its coordinates to
    /// ground (a plate whose reference is ground).
    fn tied_to_ground(&self) -> bool {
        false
    }
    /// Why the element's formulation no longer holds at the configuration q (a corotational
    /// element deformed beyond the local rotations its mass is written for), None while it
    /// holds. Asked once per communication interval and when a step fails
    /// (`System::outside_formulation`), not in the Newton iteration.
    fn outside_formulation(&self, _q: &[f64]) -> Option<String> {
        None
    }
    /// An impact this contact's law could not follow in the run so far (its own complete
    /// sentence, naming the contact), None for every other kind (`System::impact_warning`).
    fn impact_warning(&self) -> Option<String> {
        None
    }
}
