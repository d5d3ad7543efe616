//! A run whose fixed step does not resolve how fast its bodies turn. A step of h at angular
//! speed w turns a body w h rad; the methods err in the phase of such a motion by about
//! (w h)^2 / 12 per step (the trapezoidal rule's on an oscillation of that frequency), and that
//! error neither fails a Newton iteration nor shows in the energy balance: a probe's cart,
//! pushed by an input of 1e5 N, whipped its pendulum at 560 rad/s with steps of 1e-3 s, and the
//! pendulum's angle was 1.06 rad off the converged one without a word. Error-controlled steps
//! shrink on their own and are not watched.

use crate::mechanics::System;

/// More than this angle per step (rad) is under-resolved: fewer than about 25 steps per turn,
/// a phase error of 0.5 % per step. The probe's run above turned 0.18 rad per step at 1e4 N
/// (0.09 rad off after 1 s) and 0.56 rad at 1e5 N.
pub const LARGEST_TURN_PER_STEP: f64 = 0.25;

/// The step that turned a body furthest, if one turned it more than `LARGEST_TURN_PER_STEP`:
/// its end time, the body (index in `System::bodies`), its angular speed and the step. A
/// diagnosis of the run, not part of its state.
#[derive(Debug, Clone, Copy, Default)]
pub struct TurnWatch {
    worst: Option<(f64, usize, f64, f64)>,
}

impl TurnWatch {
    /// After a step of h that ended at (q, v, t).
    pub fn check(&mut self, system: &System, (q, v, t): (&[f64], &[f64], f64), h: f64) {
        let Some((body, speed)) = system.fastest_turning(q, v) else { return };
        let furthest = self.worst.map_or(LARGEST_TURN_PER_STEP, |(_, _, w, h)| w * h);
        if speed * h > furthest {
            self.worst = Some((t, body, speed, h));
        }
    }

    /// The warning, if a step turned a body too far: the step that turned one furthest.
    pub fn warning(&self, system: &System) -> Option<String> {
        let (t, body, speed, h) = self.worst?;
        Some(format!(
            "at t = {t:.4}, {} turned at {speed:.3e} rad/s, {:.2} rad per internal step of {h:.3e} s (about {:.0} steps \
             per turn): a step this coarse against the motion leaves a large error in it (a phase error of about \
             (w h)^2/12 per step, which the Newton iteration does not notice and the energy balance need not); use a smaller `step` \
             (about {:.1e} s keeps {LARGEST_TURN_PER_STEP} rad per step) or error_control = true",
            system.bodies[body].name,
            speed * h,
            std::f64::consts::TAU / (speed * h),
            LARGEST_TURN_PER_STEP / speed,
        ))
    }
}
