//! Mode shapes as the model's outputs see them (`flexfmu modes --shapes`): each mode's motion
//! (`analysis::modes::mode_shapes`, phi^T M phi = 1) taken to the outputs that are functions
//! of the configuration alone (positions, also in a body's frame, angles, Euler parameters and
//! yaw/pitch/roll, joint coordinates, deflections) by central
//! differences of the outputs along it, then scaled so that the largest entry of each mode is
//! +1: which bodies and points move, and how much relative to each other, in each mode.

use super::Simulation;
use crate::analysis::modes::{hertz, mode_shapes};
use crate::mechanics::kinematics::within_half_turn;

/// The step of the central differences along a mode: its largest coordinate moves by this
/// fraction of the coordinate's scale (the model length, or 1 rad).
const SHAPE_STEP: f64 = 1e-6;

/// The least motion of an output along that step, relative to its scale, that counts as
/// moving (a thousandth of SHAPE_STEP; the differences' round-off is ~1e-16 of the scale).
const SIGNIFICANT: f64 = 1e-9;

/// One mode as the outputs see it.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputModeShape {
    /// Natural frequency (Hz; 0 for a rigid-body mode, negative for an unstable direction, as
    /// `modes` prints them).
    pub frequency: f64,
    /// Each configuration output's motion in the mode, the largest +1 (all 0 if the mode moves
    /// none of them).
    pub shape: Vec<f64>,
}

impl Simulation {
    /// The names of the outputs mode shapes are given for (`configuration_outputs`).
    pub fn mode_shape_outputs(&self) -> Vec<String> {
        let configuration = self.configuration_outputs();
        self.outputs.iter().zip(configuration).filter(|(_, c)| *c).map(|(o, _)| o.name.clone()).collect()
    }

    /// The lowest `count` modes at the current state linearised at rest (as
    /// `natural_frequencies`), each with its shape over `mode_shape_outputs`. The state is
    /// unchanged.
    pub fn output_mode_shapes(&mut self, count: usize) -> Result<Vec<OutputModeShape>, String> {
        let s = &self.state;
        let (a, lambda) = self.released_from_rest().map_err(|e| e.to_string())?;
        let rest = vec![0.0; s.v.len()];
        let (modes, resolved) = mode_shapes(&self.system, &s.q, &rest, &a, &lambda, s.t).map_err(|e| e.to_string())?;
        let frequencies = hertz(&modes.iter().map(|m| m.0).collect::<Vec<_>>(), resolved);
        let configuration = self.configuration_outputs();
        let length = crate::integrators::convergence::model_length(&s.q);
        let saved = self.state.clone();
        let mut shapes = Vec::with_capacity(count.min(modes.len()));
        let outputs_along = |sim: &mut Simulation, phi: &[f64], step: f64| -> Result<Vec<f64>, String> {
            sim.state.q.iter_mut().zip(&saved.q).zip(phi).for_each(|((q, q0), p)| *q = q0 + step * p);
            sim.state.v.fill(0.0);
            sim.invalidate_outputs();
            let values = sim.output_values().map(<[f64]>::to_vec);
            sim.state.clone_from(&saved);
            sim.invalidate_outputs();
            values
        };
        for ((_, phi), &frequency) in modes.iter().zip(&frequencies).take(count) {
            let largest = phi.iter().zip(&self.static_scales).fold(0.0f64, |m, (p, s)| m.max(p.abs() / s));
            if !(largest.is_finite() && largest > 0.0) {
                return Err(format!("the mode at {frequency} Hz has no finite shape"));
            }
            let step = SHAPE_STEP / largest;
            let (plus, minus) = (outputs_along(self, phi, step)?, outputs_along(self, phi, -step)?);
            // An output that moves by less than SIGNIFICANT of its scale (1 rad, or the model's
            // length) while the mode's largest coordinate moves by SHAPE_STEP of its own does
            // not move in the mode: its difference is round-off (a probe's torsion mode of a
            // shaft showed round-off of the tip's position scaled to a unit sideways motion).
            let mut shape: Vec<f64> = (0..plus.len())
                .filter(|&i| configuration[i])
                .map(|i| {
                    // Angles wrapped to (-pi, pi] (yaw and roll) jump by a turn there.
                    let angle = self.outputs[i].unit == "rad";
                    let scale = if angle { 1.0 } else { length };
                    let moved = if angle { within_half_turn(plus[i] - minus[i]) } else { plus[i] - minus[i] };
                    if moved.abs() > 2.0 * SIGNIFICANT * scale { moved / (2.0 * step) } else { 0.0 }
                })
                .collect();
            // The largest entry +1; a mode that moves no output stays 0 (relative to the
            // largest, entries of differences' round-off are 0 too).
            let (mut top, mut sign) = (0.0f64, 1.0);
            for x in &shape {
                if x.abs() > top {
                    (top, sign) = (x.abs(), x.signum());
                }
            }
            for x in &mut shape {
                *x = if top > 0.0 && x.abs() > 1e-9 * top { sign * *x / top } else { 0.0 };
            }
            shapes.push(OutputModeShape { frequency, shape });
        }
        Ok(shapes)
    }
}
