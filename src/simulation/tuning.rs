//! Tunable parameters: those a running simulation can take a new value of at a
//! communication point without changing the model's structure (FMI 2.0
//! `variability="tunable"`): stiffnesses, damping, masses, load magnitudes, restitution.
//!
//! A parameter is tunable when assembling the model with another value of it changes only
//! element coefficients: the same coordinates, constraint rows, sparsity pattern, outputs,
//! initial state, geometry (kinematic outputs and contact penetrations at the initial state)
//! and solver settings. A parameter that moves the initial configuration (a
//! length, an angle, an initial velocity), sets a count or a choice, what a recorded history
//! means (a fractional damper's order, memory span or reference, `history_terms`) or enters
//! the solver settings is structural: changing it in a run would not describe the same
//! mechanism.

use super::{Experiment, Model, ParameterKind, Simulation, SolverSettings};
use crate::integrators::{Dynamics, EnergyFlow, Statistics};
use crate::mechanics::System;
use crate::mechanics::assemble::{Assembly, assemble};
use crate::mechanics::forces::{Contact, FractionalSpringDamper};
use crate::mechanics::outputs::{OutputKind, OutputState};

/// Geometry at the initial state: the kinematic outputs (positions, angles and their rates)
/// and every contact's penetration. A parameter that changes one of them (a length, an
/// obstacle's position) reshapes the mechanism, even if the coordinates do not move.
fn geometry(a: &Assembly) -> Vec<f64> {
    let (q, v) = (&a.initial.q, &a.initial.v);
    let zeros = (vec![0.0; q.len()], vec![0.0; a.initial.lambda.len()]);
    let state = OutputState {
        q,
        v,
        a: &zeros.0,
        lambda: &zeros.1,
        t: a.initial.t,
        exchanged: EnergyFlow::default(),
        drive_inputs: &a.system.inputs,
    };
    let kinematic = |k: &OutputKind| match k {
        OutputKind::Point { order, .. }
        | OutputKind::Rotation { order, .. }
        | OutputKind::SectionAngle { order, .. }
        | OutputKind::SpatialPoint { order, .. } => *order < 2,
        OutputKind::JointCoordinate { .. }
        | OutputKind::EulerParameter { .. }
        | OutputKind::SpatialAngularVelocity { .. }
        | OutputKind::SpatialBodyAngularVelocity { .. }
        | OutputKind::TaitBryan { .. }
        | OutputKind::FloatingFrameTip { .. }
        | OutputKind::PointInFrame { .. }
        | OutputKind::SpatialPointInFrame { .. }
        | OutputKind::TransverseDeflection { .. } => true,
        _ => false,
    };
    let sys = &a.system;
    a.outputs
        .iter()
        .filter(|o| kinematic(&o.kind))
        .map(|o| o.eval(sys, &state))
        .chain(sys.elements::<Contact>().iter().map(|c| c.evaluate(q, v).penetration))
        .chain(sys.contact_constraints.iter().map(|c| c.penetration(q)))
        .collect()
}

/// What the samples a fractional damper records mean, one entry per damper: its order (the
/// Grünwald weights the samples are summed with), its memory span (which samples are kept)
/// and the reference its q is measured from. A new value of any of them mid-run would be
/// summed with a history recorded under the old one, which describes no material (a probe
/// set alpha 0.5 -> 0.9 between steps and got fmi2OK), so a parameter that changes one is
/// structural, as one that sets a count is.
fn history_terms(s: &System) -> Vec<(f64, Option<f64>, f64)> {
    s.elements::<FractionalSpringDamper>().iter().map(|d| (d.order, d.memory, d.reference)).collect()
}

/// The parts of an assembly a tunable parameter must leave unchanged.
fn same_structure(a: &Assembly, b: &Assembly) -> bool {
    let pattern = |s: &System| s.newton_pattern().entries().map(|(i, j, _)| (i, j)).collect::<Vec<_>>();
    a.system.coordinates() == b.system.coordinates()
        && a.system.constraints() == b.system.constraints()
        && a.initial.q == b.initial.q
        && a.initial.v == b.initial.v
        && a.outputs == b.outputs
        && a.input_names == b.input_names
        && pattern(&a.system) == pattern(&b.system)
        && geometry(a) == geometry(b)
        && history_terms(&a.system) == history_terms(&b.system)
}

/// The valid values of parameter `i` near `x` (relative 1e-3 above, then below).
fn nearby(model: &Model, i: usize, x: f64) -> Vec<f64> {
    let step = 1e-3 * x.abs().max(1e-3);
    [x + step, x - step].into_iter().filter(|&y| model.check_parameter(i, y).is_ok()).collect()
}

impl Simulation {
    /// For each model parameter, whether it is tunable (module doc), judged at `params`.
    /// The parameters expressions name are judged in groups: a group whose values changed
    /// together keep the structure is tunable as a whole, one that does not is halved (so a
    /// model whose thousands of parameters are all stiffnesses takes one assembly, where one
    /// per parameter made `check` and `build` cost parameters times model size: 145 s for
    /// 6000, beyond 600 s for 10^4; a probe).
    pub fn tunable_parameters(model: &Model, params: &[f64]) -> Vec<bool> {
        let real = |i: usize| model.parameters.get(i).is_some_and(|p| p.kind == ParameterKind::Real);
        if !(0..params.len()).any(real) {
            // Only real parameters can be tunable: no need to assemble the model.
            return vec![false; params.len()];
        }
        let Ok(base) = assemble(model, params) else { return vec![false; params.len()] };
        // The declared settings: a default step derived from the beams' stiffness and mass
        // (`SolverSettings::from_model`) is the model's start, not a structure a stiffness
        // changes (a tuned E keeps the run's step).
        let settings = SolverSettings::declared(model, params).ok();
        let experiment = Experiment::from_model(model, params).ok();
        // A parameter no expression names assembles the same model at any value: no assembly
        // for it (one per parameter made 25,000 unused ones take seconds).
        let mentioned = model.mentioned_parameters();
        // A parameter in a drive prescribes the motion: a new value mid-run would make the
        // joint jump (a drive A (1 - cos t) starts at 0 whatever A, so the initial state did
        // not tell; a re-probe's tuned A moved its joint 8.5 mm in one step and broke the
        // energy balance by 160 J).
        let driving = model.drive_parameters();
        let mut tunable = vec![false; params.len()];
        let judged = |i: usize| real(i) && !driving[i];
        let values: Vec<Vec<f64>> =
            (0..params.len()).map(|i| if judged(i) { nearby(model, i, params[i]) } else { Vec::new() }).collect();
        let mut candidates = Vec::new();
        for i in (0..params.len()).filter(|&i| judged(i)) {
            match values[i][..] {
                [] => {}
                _ if !mentioned[i] => tunable[i] = true,
                [y, ..] => candidates.push((i, y)),
            }
        }
        let keeps_structure = |group: &[(usize, f64)]| {
            let mut other = params.to_vec();
            for &(i, y) in group {
                other[i] = y;
            }
            SolverSettings::declared(model, &other).ok() == settings
                && Experiment::from_model(model, &other).ok() == experiment
                && assemble(model, &other).is_ok_and(|a| same_structure(&base, &a))
        };
        let mut groups = vec![&candidates[..]];
        while let Some(group) = groups.pop() {
            if group.is_empty() {
                continue;
            }
            if keeps_structure(group) {
                group.iter().for_each(|&(i, _)| tunable[i] = true);
            } else if let [(i, _)] = group {
                // Alone, the value below too: a restitution of 1 (at the law's bound, 1.001
                // does not assemble) is tunable (a re-probe's was fixed at 1, tunable at 0.999).
                let below = values[*i].get(1).copied();
                tunable[*i] = below.is_some_and(|y| keeps_structure(&[(*i, y)]));
            } else {
                let (a, b) = group.split_at(group.len() / 2);
                groups.extend([a, b]);
            }
        }
        tunable
    }

    /// Continue with the element coefficients of `params` (all tunable changes from the
    /// parameters this simulation was built with): positions, velocities, histories, inputs
    /// and solver settings are kept, accelerations and multipliers become consistent with
    /// the new coefficients; the next step uses them. Refused, with nothing
    /// changed, if the structure would change.
    pub fn retune(&mut self, model: &Model, params: &[f64]) -> Result<(), String> {
        let asm = assemble(model, params).map_err(|e| e.to_string())?;
        let mut system = asm.system;
        let pattern = |s: &System| s.newton_pattern().entries().map(|(i, j, _)| (i, j)).collect::<Vec<_>>();
        let outputs: Vec<_> = self.outputs.iter().map(|o| &o.kind).collect();
        if system.coordinates() != self.system.coordinates()
            || system.constraints() != self.system.constraints()
            || asm.outputs.iter().map(|o| &o.kind).collect::<Vec<_>>() != outputs
            || pattern(&system) != pattern(&self.system)
            || history_terms(&system) != history_terms(&self.system)
        {
            return Err("these parameter values change the model's structure".into());
        }
        system.set_history(self.system.history())?;
        system.inputs.clone_from(&self.system.inputs);
        // The force law changed: the methods restart from accelerations and multipliers
        // consistent with it (as at the start), otherwise the stale ones cost an O(h) error.
        let s = &self.state;
        let (mut a, mut lambda) = (vec![0.0; s.a.len()], vec![0.0; s.lambda.len()]);
        self.stepper.workspace.invalidate();
        self.stepper
            .workspace
            .consistent_accelerations(&system, (&s.q, &s.v, s.t), &mut a, &mut lambda, &mut Statistics::default())
            .map_err(|e| format!("accelerations with the new values: {e}"))?;
        // New coefficients (a stiffness, a mass) change the energy at the same (q, v): the
        // change is supplied from outside, as an input's change is.
        let total = |e: crate::mechanics::elements::Energy| e.kinetic + e.potential;
        let change = total(system.energy(&s.q, &s.v, s.t)) - total(self.system.energy(&s.q, &s.v, s.t));
        self.system = system;
        self.state.exchanged.supplied += change;
        self.state.aux.copy_from_slice(&a);
        self.state.a = a;
        self.state.lambda = lambda;
        self.stepper.workspace.invalidate();
        self.invalidate_outputs();
        Ok(())
    }
}
