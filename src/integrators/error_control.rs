//! Error-controlled internal step: a local error estimate by step doubling and the step-size
//! controller. The same for every method, because it looks only at the states a step produces.
//!
//! Estimate (Richardson extrapolation, e.g. Hairer, Norsett & Wanner, Solving ODEs I, sec. II.4).
//! Every method here is second order, so one step of size h from the state y_n has the local
//! error  y_h - y(t_n + h) = C h^3 + O(h^4)  in q and v, with C depending on the method and on
//! the solution's third derivatives (for generalized-alpha and HHT on the extended state with
//! the method's auxiliary acceleration; the expansion still starts at h^3 because that state
//! enters the h^2 term only). Two half steps from the same y_n have the error
//! 2 C (h/2)^3 + O(h^4) = C h^3 / 4 + O(h^4). Hence
//!   y_h - y_{h/2,h/2} = (3/4) C h^3 + O(h^4)   and   y_h - y(t_n + h) = (4/3) (y_h - y_{h/2,h/2}) + O(h^4).
//! The accepted solution is the single step y_h (so the trajectory is the method's own with
//! variable steps and event location works on it as on a fixed-step run); the half steps serve
//! the estimate only and cost two more steps' Newton iterations. A predictor-difference
//! estimate (Zienkiewicz & Xie 1991) would be cheaper but needs each method's error constant
//! and a true acceleration at the step start, which generalized-alpha's `aux` and HHT's shifted
//! equilibrium do not provide.
//!
//! Which variables: in the index-3 equations of motion the velocities are index-2 variables
//! and the multipliers index-3 ones. Their local errors do not vanish with h as a position's
//! does: the velocity update divides the position-level Newton residual by beta h (so a
//! relative Newton tolerance of 1e-10 leaves ~1e-10/h in v), and the multipliers carry the
//! method's first-order O(1) errors. As for index-2 and index-3 components in RADAU5 (Hairer &
//! Wanner, Solving ODEs II, sec. VII.4), the velocity error of a constrained system is
//! multiplied by h before the test and the multipliers are left out; without that scaling the HHT and generalized-alpha steps
//! of the rigid pendulum were rejected down to the smallest step.
//!
//! Controller: the weighted error
//!   err = max_i s_i |e_i| / (atol + rtol max(|y_n,i|, |y_{n+1},i|)),
//! s = 1 for q, and for v h if the system has constraints (1 if it has none),
//! a step is accepted when err <= 1, and the next step is h * clamp(0.9 err^(-1/3), 0.2, 2)
//! (exponent 1/(p+1) for the local order p+1 = 3). Controlling the error per step gives a
//! global error proportional to tol^(2/3) (h ~ tol^(1/3), global error ~ h^2).

/// Settings of the error-controlled step (`[solver] error_control = true`, `rtol`, `atol`).
/// The model's `step` is the first step; steps stay within
/// [`MIN_STEP_RATIO`, `MAX_STEP_RATIO`] times it.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ErrorControl {
    pub enabled: bool,
    pub rtol: f64,
    pub atol: f64,
}

pub const MIN_STEP_RATIO: f64 = 1e-6;
pub const MAX_STEP_RATIO: f64 = 100.0;
/// Limits of the step-size change per step, and the safety factor.
pub const SHRINK_LIMIT: f64 = 0.2;
pub const GROWTH_LIMIT: f64 = 2.0;
pub const SAFETY: f64 = 0.9;

impl Default for ErrorControl {
    fn default() -> Self {
        ErrorControl { enabled: false, rtol: 1e-4, atol: 1e-6 }
    }
}

impl ErrorControl {
    pub fn validate(&self) -> Result<(), String> {
        for (name, x) in [("rtol", self.rtol), ("atol", self.atol)] {
            if !(0.0..1.0).contains(&x) {
                return Err(format!("{name} must be in [0, 1), got {}", crate::compact_number::Compact(x)));
            }
        }
        if self.rtol == 0.0 && self.atol == 0.0 {
            return Err("rtol and atol cannot both be 0".into());
        }
        Ok(())
    }

    /// The weighted local error of the single step of size `h` to `(q1, v1)`, estimated from
    /// the two half steps `(q2, v2)`, both from `(q0, v0)` (module documentation).
    pub fn error_norm(
        &self,
        h: f64,
        constrained: bool,
        start: (&[f64], &[f64]),
        single: (&[f64], &[f64]),
        halves: (&[f64], &[f64]),
    ) -> f64 {
        let mut err = 0.0f64;
        // Velocities are index-2 variables of constrained equations: their error then enters
        // multiplied by h (module documentation). Without constraints they are ODE variables.
        let velocity_scale = if constrained { h } else { 1.0 };
        for (((y0, y1), y2), scale) in
            [(start.0, single.0), (start.1, single.1)].into_iter().zip([halves.0, halves.1]).zip([1.0, velocity_scale])
        {
            for i in 0..y0.len() {
                let e = 4.0 / 3.0 * scale * (y1[i] - y2[i]).abs();
                let w = self.atol + self.rtol * y0[i].abs().max(y1[i].abs());
                err = err.max(e / w);
            }
        }
        if err.is_nan() { f64::INFINITY } else { err }
    }

    /// Factor for the next step after a step with weighted error `err`.
    pub fn step_factor(err: f64) -> f64 {
        if err <= 0.0 {
            return GROWTH_LIMIT;
        }
        (SAFETY * err.powf(-1.0 / 3.0)).clamp(SHRINK_LIMIT, GROWTH_LIMIT)
    }
}
