//! Natural frequencies of a constrained system linearised about a state.
//!
//! With M = dR/da, K = dR/dq + (Phi_q^T lambda)_q at the state (the Newton-matrix blocks of
//! the `Dynamics` contract) and N an orthonormal basis of the null space of Phi_q (admissible
//! motions), the reduced problem is  N^T K N phi = omega^2 N^T M N phi.  K is symmetrised
//! (about a non-equilibrium state, or with follower loads, it need not be symmetric).
//! Dense: meant for models of up to a few thousand coordinates.

use nalgebra::{DMatrix, SymmetricEigen};

use crate::integrators::{Dynamics, TangentCoefficients};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModesError {
    #[error(
        "the mass matrix restricted to the admissible motions is not positive definite (a coordinate without mass?)"
    )]
    MassNotPositive,
    #[error("the system has no degrees of freedom left by its constraints")]
    NoFreedom,
}

/// Newton-matrix block (n x n) for the given coefficients.
fn block(
    sys: &dyn Dynamics,
    x: (&[f64], &[f64], &[f64], &[f64]),
    t: f64,
    c: TangentCoefficients,
) -> (DMatrix<f64>, DMatrix<f64>) {
    let (q, v, a, lambda) = x;
    let n = sys.coordinates();
    let m = sys.constraints();
    let mut mat = sys.newton_pattern();
    sys.newton_matrix(q, v, a, lambda, t, c, &mut mat);
    let dense = mat.to_dense();
    let size = n + m;
    let top = DMatrix::from_fn(n, n, |i, j| dense[i * size + j]);
    let jac = DMatrix::from_fn(m, n, |i, j| dense[(n + i) * size + j]);
    (top, jac)
}

/// Natural frequencies in Hz, ascending (rigid-body modes give 0).
pub fn natural_frequencies(
    sys: &dyn Dynamics,
    q: &[f64],
    v: &[f64],
    a: &[f64],
    lambda: &[f64],
    t: f64,
) -> Result<Vec<f64>, ModesError> {
    let n = sys.coordinates();
    let x = (q, v, a, lambda);
    let (mass, jac) = block(sys, x, t, TangentCoefficients { mass: 1.0, damping: 0.0, stiffness: 0.0, lambda: 0.0 });
    let (stiff, _) = block(sys, x, t, TangentCoefficients { mass: 0.0, damping: 0.0, stiffness: 1.0, lambda: 0.0 });
    // Null space of Phi_q: eigenvectors of Phi_q^T Phi_q with (numerically) zero eigenvalue.
    let basis = if jac.nrows() == 0 {
        DMatrix::identity(n, n)
    } else {
        let eig = SymmetricEigen::new(jac.transpose() * &jac);
        let largest = eig.eigenvalues.max();
        let cols: Vec<_> = (0..n)
            .filter(|&k| eig.eigenvalues[k] <= 1e-12 * largest)
            .map(|k| eig.eigenvectors.column(k).into_owned())
            .collect();
        if cols.is_empty() {
            return Err(ModesError::NoFreedom);
        }
        DMatrix::from_columns(&cols)
    };
    let m_r = basis.transpose() * &mass * &basis;
    let k_r = basis.transpose() * &stiff * &basis;
    let k_r = 0.5 * (&k_r + k_r.transpose());
    let m_r = 0.5 * (&m_r + m_r.transpose());
    let chol = m_r.cholesky().ok_or(ModesError::MassNotPositive)?;
    let l_inv = chol.l().try_inverse().ok_or(ModesError::MassNotPositive)?;
    let a = &l_inv * k_r * l_inv.transpose();
    let eig = SymmetricEigen::new(0.5 * (&a + a.transpose()));
    let mut f: Vec<f64> = eig.eigenvalues.iter().map(|&w2| w2.max(0.0).sqrt() / (2.0 * std::f64::consts::PI)).collect();
    f.sort_by(f64::total_cmp);
    Ok(f)
}
