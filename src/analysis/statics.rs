//! Static equilibrium of a constrained system at rest:
//!   g(q, t) + Phi_q^T lambda = 0,   Phi(q, t) = 0,
//! by Newton's method on [dq, dlambda] with the Newton matrix of the `Dynamics` contract
//! taken with the stiffness coefficient only (K + (Phi_q^T lambda)_q and Phi_q), factorized
//! with the sparse LU. No load stepping here: `Simulation::settle_static` calls it over load
//! increments, halving one that does not converge.

use crate::integrators::{Dynamics, TangentCoefficients};
use crate::linalg::SparseLu;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StaticsError {
    #[error(
        "the static tangent is singular: the model is a mechanism or has a coordinate without stiffness (hold it \
         with a joint, a spring or a support), or the load has reached a critical point (buckling); smaller \
         increments cannot help"
    )]
    Singular,
    #[error(
        "static Newton did not converge in {0} iterations: the load increment is too large (take smaller ones, \
         e.g. a shorter output interval) or the load is beyond a limit point, past which load control finds no \
         equilibrium nearby (snap-through)"
    )]
    NotConverged(usize),
}

/// Solves from (q, lambda) in place at time t; converged when the position increment is
/// below `tolerance` times (1 + max |q|). Returns the number of Newton iterations.
pub fn static_equilibrium(
    sys: &dyn Dynamics,
    q: &mut [f64],
    lambda: &mut [f64],
    t: f64,
    tolerance: f64,
) -> Result<usize, StaticsError> {
    const MAX_ITERATIONS: usize = 30;
    let (n, m) = (sys.coordinates(), sys.constraints());
    let zeros = vec![0.0; n];
    let c = TangentCoefficients { mass: 0.0, damping: 0.0, stiffness: 1.0, lambda: 1.0 };
    let mut matrix = sys.newton_pattern();
    let mut lu = SparseLu::new(&matrix);
    let (mut inertial, mut rhs) = (vec![0.0; n], vec![0.0; n + m]);
    for iteration in 1..=MAX_ITERATIONS {
        rhs.fill(0.0);
        let (g, phi) = rhs.split_at_mut(n);
        sys.forces(q, &zeros, &zeros, t, &mut inertial, g);
        sys.add_constraint_forces(q, lambda, g);
        sys.constraint_residual(q, t, phi);
        rhs.iter_mut().for_each(|r| *r = -*r);
        sys.newton_matrix(q, &zeros, &zeros, lambda, t, c, &mut matrix);
        lu.factorize(&matrix).map_err(|_| StaticsError::Singular)?;
        lu.solve(&mut rhs).map_err(|_| StaticsError::Singular)?;
        if rhs.iter().any(|x| !x.is_finite()) {
            return Err(StaticsError::Singular);
        }
        q.iter_mut().zip(&rhs[..n]).for_each(|(x, dx)| *x += dx);
        lambda.iter_mut().zip(&rhs[n..]).for_each(|(l, dl)| *l += dl);
        let scale = 1.0 + q.iter().fold(0.0f64, |acc, x| acc.max(x.abs()));
        if rhs[..n].iter().fold(0.0f64, |acc, x| acc.max(x.abs())) < tolerance * scale {
            return Ok(iteration);
        }
    }
    Err(StaticsError::NotConverged(MAX_ITERATIONS))
}
