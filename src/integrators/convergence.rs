//! When a Newton iteration of a stage has converged, measured in scales it can reach in
//! floating point.
//!
//! The unknown of a stage is the acceleration a; position and velocity follow as
//! q = q_base + beta' a and v = v_base + gamma' a (src/integrators/newton.rs). A Newton increment
//! da is measured as the larger of the position change beta' da and the velocity change
//! gamma' da, each relative to its scale (Hairer & Wanner, Solving ODEs II, sec. IV.8, eq. 8.9:
//! sc_i = atol_i + rtol |y_i|):
//!
//! - positions: the model's size `length` (the largest initial coordinate, the absolute floor)
//!   plus |q_i|;
//! - velocities: `length` per second plus |v_i|.
//!
//! Round-off: a position is only known to some ulps of its size, and in the directions the
//! constraint rows Phi(q)/beta' fix, a position error dq is a velocity error (gamma'/beta') dq
//! with gamma'/beta' ~ 2/h. So at small steps the velocity increments stagnate above a fixed
//! tolerance (h = 1e-5 with |q| ~ 20: 1e-9 m/s of pure round-off), and step halving made the
//! iteration fail harder, never easier (issue 17). The `attainable` measure therefore floors
//! the velocity scale at (gamma'/beta') ROUNDOFF (ell + |q_i|) / tol; an iteration whose exact
//! Newton step no longer contracts (theta >= 1/2) and is below the tolerance in that measure
//! has converged to the attainable accuracy (the stagnation criterion of Deuflhard, Newton
//! methods for nonlinear problems, 2004, sec. 2.1.5). Ordinary convergence is judged on the
//! strict measure: flooring it always loosened velocities at ordinary steps (TTBIF on the rigid
//! pendulum at h = 2.5e-4 lost its second order at 100 ulps; the crank-slider reference at
//! h = 1e-6, tolerance 1e-12, drifted by 6e-7 at 16 ulps).
//!
//! The tolerance itself is floored at ROUNDOFF: no scaled quantity is asked to be more
//! accurate than 16 ulps.

/// The relative precision a converged iterate can be asked for: 16 ulps.
pub const ROUNDOFF: f64 = 16.0 * f64::EPSILON;

/// The scales of one stage's increments.
#[derive(Debug, Clone, Copy)]
pub struct IncrementScale {
    /// Absolute floor of the position scale (the model's size, m or rad).
    pub length: f64,
    /// The Newton tolerance, floored at ROUNDOFF.
    pub tolerance: f64,
    /// dq/da and dv/da of the stage.
    pub beta: f64,
    pub gamma: f64,
}

impl IncrementScale {
    pub fn new(length: f64, tolerance: f64, beta: f64, gamma: f64) -> Self {
        IncrementScale { length, tolerance: reachable(tolerance), beta, gamma }
    }

    /// The scaled size max_i of (beta' |da_i| / sq_i, gamma' |da_i| / sv_i) of an increment da
    /// at the iterate (q, v), compared with `tolerance`: strict, and with the round-off floor
    /// of the velocity scale (the attainable measure).
    pub fn increment(&self, da: &[f64], q: &[f64], v: &[f64]) -> Increment {
        let velocity_per_position = if self.beta > 0.0 { self.gamma / self.beta } else { 0.0 };
        let floor = velocity_per_position * ROUNDOFF / self.tolerance;
        // The largest of each measure, NaNs ignored as f64::max ignores them, but as plain
        // comparisons (the maxima start at 0 and never become NaN): f64::max's NaN handling
        // made this loop a tenth of a 256-element beam's run (perf). A ratio x / s is formed
        // only where it may raise its maximum m (x > m s; the scales are positive): the three
        // divisions per coordinate cost 2 % of that run, and the maxima are the same.
        let raise = |m: &mut f64, x: f64, s: f64| {
            if x > *m * s {
                let r = x / s;
                if r > *m {
                    *m = r;
                }
            }
        };
        let (mut size, mut attainable) = (0.0f64, 0.0f64);
        for ((d, qi), vi) in da.iter().zip(q).zip(v) {
            let sq = self.length + qi.abs();
            let sv = self.length + vi.abs();
            let dq = (self.beta * d).abs();
            let dv = (self.gamma * d).abs();
            raise(&mut size, dq, sq);
            raise(&mut size, dv, sv);
            raise(&mut attainable, dq, sq);
            raise(&mut attainable, dv, sv.max(floor * sq));
        }
        Increment { size, attainable }
    }

    /// A position-level increment dp (GGL's projection) in the same measure.
    pub fn position_increment(&self, dp: &[f64], q: &[f64]) -> f64 {
        dp.iter().zip(q).fold(0.0f64, |m, (d, qi)| m.max(d.abs() / (self.length + qi.abs())))
    }

    /// The constraint error at the iterate (q, v) relative to its scale, compared with
    /// `tolerance` like an increment: the position-level violation in the position scale
    /// (`length` + max |q_i|), the velocity-level one (GGL's Phi_q v rows) in the velocity
    /// scale (`length` per second + max |v_i|). Measuring Phi_q v in position units instead
    /// (times beta'/gamma' ~ h/2) accepted |Phi_q v| = 3e-9 m/s at h = 1e-3 once a good
    /// predictor made the first increment small.
    pub fn constraint_error(&self, e: ConstraintError, q: &[f64], v: &[f64]) -> f64 {
        let largest = |x: &[f64]| x.iter().fold(0.0f64, |m, y| m.max(y.abs()));
        let position = e.position / (self.length + largest(q));
        if e.velocity == 0.0 {
            return position;
        }
        position.max(e.velocity / (self.length + largest(v)))
    }
}

/// The constraint violations of an iterate: max |Phi| (position level) and max |Phi_q v|
/// (velocity level, the rows GGL enforces; zero for the other treatments).
#[derive(Debug, Clone, Copy)]
pub struct ConstraintError {
    pub position: f64,
    pub velocity: f64,
}

impl ConstraintError {
    pub fn is_finite(&self) -> bool {
        self.position.is_finite() && self.velocity.is_finite()
    }
}

/// Sizes of one Newton increment (see `IncrementScale::increment`).
#[derive(Debug, Clone, Copy)]
pub struct Increment {
    pub size: f64,
    pub attainable: f64,
}

/// The tolerance actually used: `tolerance`, but not below ROUNDOFF.
pub fn reachable(tolerance: f64) -> f64 {
    tolerance.max(ROUNDOFF)
}

/// The absolute floor of the position scale: the largest coordinate of the initial
/// configuration (the model's size), at least 1 mm.
pub fn model_length(q0: &[f64]) -> f64 {
    q0.iter().fold(1e-3f64, |m, x| if x.is_finite() { m.max(x.abs()) } else { m })
}

/// Whether an iteration contracting at `rate` (theta, from the last two increments) has
/// converged with the last increment of scaled size `increment`: the increment is below the
/// tolerance, or the error left, estimated as theta/(1 - theta) |increment|, is below
/// kappa tol (Hairer & Wanner, sec. IV.8, eq. 8.10). kappa = 0.1: with kappa = 1 the leftover
/// Newton error showed in the crank-slider energy balance at h = 1e-4, tolerance 1e-12
/// (1.8e-8 J instead of 2.8e-8 J, order 2.58 instead of 2.00).
pub fn converged(increment: f64, rate: Option<f64>, tolerance: f64) -> bool {
    increment <= tolerance || rate.is_some_and(|r| r < 1.0 && r / (1.0 - r) * increment <= KAPPA * tolerance)
}

/// Whether an iteration contracting linearly at `rate` can still meet the estimate of
/// `converged` within `remaining` iterations (Hairer & Wanner, sec. IV.8: the iteration is
/// stopped, or here its matrix refreshed, when theta^(kmax - k) / (1 - theta) |increment|
/// > kappa tol).
pub fn can_converge(increment: f64, rate: f64, remaining: usize, tolerance: f64) -> bool {
    rate < 1.0 && rate.powi(remaining.min(i32::MAX as usize) as i32) / (1.0 - rate) * increment <= KAPPA * tolerance
}

const KAPPA: f64 = 0.1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn velocity_scale_has_the_roundoff_floor_of_the_positions() {
        // h = 1e-6 with Newmark: beta' = h^2/4, gamma' = h/2, gamma'/beta' = 2/h = 2e6.
        let h = 1e-6;
        let s = IncrementScale::new(1.0, 1e-10, h * h / 4.0, h / 2.0);
        // A position change of 10 ulps of |q| = 20 is round-off: must count as converged.
        let q = [20.0];
        let dq = 10.0 * f64::EPSILON * 20.0;
        let da = [dq / s.beta];
        let inc = s.increment(&da, &q, &[0.0]);
        assert!(inc.attainable <= s.tolerance && inc.size > s.tolerance);
        // A velocity change 10x the tolerance at h = 1e-3 is not.
        let h = 1e-3;
        let s = IncrementScale::new(1.0, 1e-10, h * h / 4.0, h / 2.0);
        let da = [10.0 * 1e-10 / s.gamma];
        assert!(s.increment(&da, &[20.0], &[0.0]).attainable > s.tolerance);
    }

    #[test]
    fn contraction_estimates() {
        assert!(converged(1e-9, Some(0.001), 1e-10));
        assert!(!converged(1e-9, Some(0.5), 1e-10));
        assert!(!converged(1e-9, None, 1e-10));
        // 0.2^11 / 0.8 * 1e-2 = 2.6e-10 > 1e-11: refresh the matrix.
        assert!(!can_converge(1e-2, 0.2, 11, 1e-10));
        assert!(can_converge(1e-2, 0.01, 11, 1e-10));
        assert!(!can_converge(1e-2, 1.0, 100, 1e-10));
    }
}
