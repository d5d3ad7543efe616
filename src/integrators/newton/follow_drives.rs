//! Moving an assembled configuration onto drives whose prescribed values jumped (inputs set
//! before the first step) without straining what the drives carry.

use super::{NewtonError, Statistics, Workspace};
use crate::integrators::dynamics::{Dynamics, TangentCoefficients, stiffest_ratio};

/// Newton steps allowed for the whole move.
const MAX_ITERATIONS: usize = 50;

/// A relaxation step longer than this, relative to the model's size, means that nothing
/// resists what turning the carried bodies changed of the loads: a free hinge behind a driven
/// turret with a torque about the hinge (a probe's 3D arm failed to start with "last increment
/// NaN" when the turret's input was set in Initialization Mode, even at 0.01 rad). There the
/// f(q) - f(q0) equations have no nearby root, and the carried configuration is kept.
const FAR_STEP: f64 = 1.0;

/// The proximal weight eps (1/s^2) as a fraction of the stiffest coordinate's K_ii / M_ii (about
/// the highest squared frequency): small enough that every elastic mode converges in a few
/// steps (the contraction of a mode of frequency w is eps / (eps + w^2)), large enough that the
/// Newton matrix stays factorizable where nothing but the masses resists.
const PROXIMAL_FRACTION: f64 = 1e-14;

impl Workspace {
    /// Move (q, v) at time t onto Phi(q, t) = 0 after the drives' prescribed values changed by a
    /// finite amount, as if the model had been drawn at the new values: what a drive carries
    /// moves rigidly with it, and then the configuration q near that where the constraints
    /// hold and the forces at rest are those of q0 (the given one),
    ///   f(q) - f(q0) + Phi_q(q)^T lambda = 0,   Phi(q, t) = 0
    /// (f = the system's forces at v = a = 0). Elastic elements (beams, springs) keep their
    /// deformation and the bodies a drive carries turn or slide with it; a mass-orthogonal
    /// projection (`project_onto_constraints`) would instead move the constrained nodes alone
    /// and strain a flexible body behind a driven joint (a crane boom luffed by 0.31 rad at the
    /// start: a drive torque of 13 MN m). Newton steps, proximal in the mass metric,
    ///   [[eps M + K, Phi_q^T], [Phi_q, 0]] [dq; dlambda] = -[f(q) - f(q0) + Phi_q^T lambda; Phi],
    /// whose eps M (PROXIMAL_FRACTION) fixes what no force resists and vanishes from the
    /// converged equations. Gravity on rigid bodies is linear in the coordinates and drops out
    /// of f(q) - f(q0), so a body only gravity holds meets no force but eps M and stays near
    /// the iteration's start: from q0 the crane's hook stayed where it hung when the crane was
    /// slewed (its sling tilted, the hook rose 0.1 m). So the iteration starts from q0 with
    /// what lies behind each driven joint turned or slid rigidly by the amount its drive is
    /// off (`Dynamics::carry_with_drives`; a joint in a closed loop carries nothing), which
    /// solves the equations but for what the turn changes of the forces (a beam's consistent
    /// gravity end moments) and for springs to the rest of the model: the slewed hook hangs
    /// below the turned boom tip, 1e-7 m from its rigidly turned place; a luffed boom carries
    /// its sling and hook rigidly, the sling leaning by the luff angle. Then the velocities
    /// are made consistent as in `project_onto_constraints`. If the iteration does not converge
    /// near (FAR_STEP), as where a load on an unresisted joint changes with the turn, the
    /// carried configuration is projected instead. Returns whether anything moved.
    pub fn follow_drives(
        &mut self,
        sys: &mut dyn Dynamics,
        (q, v, t): (&mut [f64], &mut [f64], f64),
        tolerance: f64,
        stats: &mut Statistics,
    ) -> Result<bool, NewtonError> {
        let (n, m) = (sys.coordinates(), sys.constraints());
        let largest = |x: &[f64]| x.iter().fold(0.0f64, |a, y| a.max(y.abs()));
        sys.constraint_residual(q, t, &mut self.phi);
        if largest(&self.phi) <= tolerance * (self.length + largest(q)) {
            return self.project_onto_constraints(sys, (q, v, t), tolerance, stats);
        }
        let q0 = q.to_vec();
        let rest = vec![0.0; n];
        sys.forces(&q0, &rest, &rest, t, &mut self.inertial, &mut self.forces);
        let f0 = self.forces.clone();
        // The stiffest coordinate's K_ii / M_ii (1 if none has stiffness).
        let ratio = stiffest_ratio(sys, (&q0, &self.zeros[n..], t), &mut self.matrix);
        let eps = PROXIMAL_FRACTION * if ratio > 0.0 && ratio.is_finite() { ratio } else { 1.0 };
        let coefficients = TangentCoefficients { mass: eps, damping: 0.0, stiffness: 1.0, lambda: 1.0 };
        let mut lambda = vec![0.0; m];
        // The iteration starts where what the drives carry has moved rigidly with them (the
        // forces compared stay q0's).
        sys.carry_with_drives(q, v, t);
        let carried = q.to_vec();
        let relaxed = 'relax: {
            let mut iteration = 0;
            loop {
                // Residual: eps M (q - q_last) is the proximal term, zero at the iterate itself.
                sys.forces(q, &rest, &rest, t, &mut self.inertial, &mut self.forces);
                let (r1, r2) = self.rhs.split_at_mut(n);
                r1.fill(0.0);
                sys.add_constraint_forces(q, &lambda, r1);
                for ((r, f), f0) in r1.iter_mut().zip(&self.forces).zip(&f0) {
                    *r = -(*r + (f - f0));
                }
                sys.constraint_residual(q, t, &mut self.phi);
                for (r, p) in r2.iter_mut().zip(&self.phi) {
                    *r = -p;
                }
                if iteration == MAX_ITERATIONS {
                    break 'relax false;
                }
                iteration += 1;
                sys.newton_matrix(q, &rest, &rest, &lambda, t, coefficients, &mut self.matrix);
                stats.jacobian_evaluations += 1;
                stats.factorizations += 1;
                if self.index1_lu.factorize(&self.matrix).is_err() || self.index1_lu.solve(&mut self.rhs).is_err() {
                    break 'relax false;
                }
                let mut step = 0.0f64;
                for (x, d) in q.iter_mut().zip(&self.rhs[..n]) {
                    *x += d;
                    step = step.max(d.abs() / (self.length + x.abs()));
                }
                for (l, dl) in lambda.iter_mut().zip(&self.rhs[n..]) {
                    *l += dl;
                }
                // A step beyond the model's size (or NaN): no stiffness resists what the move
                // changed of the loads (FAR_STEP).
                let near = step <= FAR_STEP;
                if !near {
                    break 'relax false;
                }
                if step <= tolerance {
                    break 'relax true;
                }
            }
        };
        if !relaxed {
            q.copy_from_slice(&carried);
        }
        // The constraints to round-off (the last step's own linearization error), and the
        // velocities.
        let projected = self.project_onto_constraints(sys, (q, v, t), tolerance, stats)?;
        Ok(projected || q.iter().zip(&q0).any(|(x, x0)| x != x0))
    }
}
