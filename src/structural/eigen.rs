//! Dense generalized symmetric eigenproblem K phi = omega^2 M phi.
//!
//! M = L L^T (Cholesky), A = L^{-1} K L^{-T} (symmetric), A y = lambda y (SymmetricEigen),
//! phi = L^{-T} y (M-orthonormal). Frequencies f = sqrt(lambda) / (2 pi) in Hz; slightly
//! negative eigenvalues (rigid-body modes with round-off) give f = 0.

use crate::linalg::symmetric_eigen;
use nalgebra::{DMatrix, SymmetricEigen};

use super::StructuralError;

/// Eigenpairs sorted by ascending eigenvalue.
#[derive(Debug, Clone)]
pub struct Modes {
    /// omega^2 (rad^2/s^2), ascending.
    pub eigenvalues: Vec<f64>,
    /// Natural frequencies in Hz, ascending.
    pub frequencies_hz: Vec<f64>,
    /// Mode shapes as columns (M-orthonormal), same order.
    pub shapes: DMatrix<f64>,
}

fn check(m: &DMatrix<f64>, k: &DMatrix<f64>) -> Result<(), StructuralError> {
    let n = k.nrows();
    if k.ncols() != n {
        return Err(StructuralError::Dimension { name: "K", rows: k.nrows(), cols: k.ncols(), expected: n });
    }
    if m.nrows() != n || m.ncols() != n {
        return Err(StructuralError::Dimension { name: "M", rows: m.nrows(), cols: m.ncols(), expected: n });
    }
    Ok(())
}

/// L^{-1} K L^{-T} for M = L L^T, symmetrised.
fn standard_form(m: &DMatrix<f64>, k: &DMatrix<f64>) -> Result<(DMatrix<f64>, DMatrix<f64>), StructuralError> {
    check(m, k)?;
    let l = m.clone().cholesky().ok_or(StructuralError::MassNotPositive)?.unpack();
    let x = l.solve_lower_triangular(k).ok_or(StructuralError::MassNotPositive)?; // L^{-1} K
    let a = l.solve_lower_triangular(&x.transpose()).ok_or(StructuralError::MassNotPositive)?; // L^{-1} K L^{-T}
    Ok(((&a + a.transpose()) * 0.5, l))
}

fn hz(lambda: f64) -> f64 {
    lambda.max(0.0).sqrt() / (2.0 * std::f64::consts::PI)
}

/// All eigenpairs of K phi = omega^2 M phi (M symmetric positive definite, K symmetric).
pub fn generalized_eigen(m: &DMatrix<f64>, k: &DMatrix<f64>) -> Result<Modes, StructuralError> {
    let (a, l) = standard_form(m, k)?;
    let eig = symmetric_eigen(a).ok_or(StructuralError::Eigen)?;
    let mut order: Vec<usize> = (0..eig.eigenvalues.len()).collect();
    order.sort_by(|&i, &j| eig.eigenvalues[i].total_cmp(&eig.eigenvalues[j]));
    let eigenvalues: Vec<f64> = order.iter().map(|&i| eig.eigenvalues[i]).collect();
    let y = DMatrix::from_fn(a_rows(&eig), order.len(), |r, c| eig.eigenvectors[(r, order[c])]);
    let shapes = l.transpose().solve_upper_triangular(&y).ok_or(StructuralError::MassNotPositive)?;
    let frequencies_hz = eigenvalues.iter().map(|&v| hz(v)).collect();
    Ok(Modes { eigenvalues, frequencies_hz, shapes })
}

fn a_rows(eig: &SymmetricEigen<f64, nalgebra::Dyn>) -> usize {
    eig.eigenvectors.nrows()
}

/// The lowest `count` natural frequencies in Hz (eigenvalues only; cheaper than
/// [`generalized_eigen`]).
pub fn natural_frequencies_hz(m: &DMatrix<f64>, k: &DMatrix<f64>, count: usize) -> Result<Vec<f64>, StructuralError> {
    let (a, _) = standard_form(m, k)?;
    let mut ev: Vec<f64> = symmetric_eigen(a).ok_or(StructuralError::Eigen)?.eigenvalues.iter().copied().collect();
    ev.sort_by(f64::total_cmp);
    Ok(ev.into_iter().take(count).map(hz).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_mass_oscillator() {
        // Masses 1 and 2, springs ground-1: 3, 1-2: 2.
        let m = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.0, 2.0]);
        let k = DMatrix::from_row_slice(2, 2, &[5.0, -2.0, -2.0, 2.0]);
        let modes = generalized_eigen(&m, &k).unwrap();
        // det(K - l M) = 2 l^2 - 12 l + 6 = 0 -> l = 3 -+ sqrt(6).
        let s6 = 6.0_f64.sqrt();
        assert!((modes.eigenvalues[0] - (3.0 - s6)).abs() < 1e-12);
        assert!((modes.eigenvalues[1] - (3.0 + s6)).abs() < 1e-12);
        let phi = &modes.shapes;
        let mm = phi.transpose() * &m * phi;
        assert!((mm - DMatrix::identity(2, 2)).amax() < 1e-12);
        let kk = phi.transpose() * &k * phi;
        assert!((kk[(0, 0)] - modes.eigenvalues[0]).abs() < 1e-12 && kk[(0, 1)].abs() < 1e-12);
        let f = natural_frequencies_hz(&m, &k, 1).unwrap();
        assert!((f[0] - (3.0 - s6).sqrt() / (2.0 * std::f64::consts::PI)).abs() < 1e-12);
        assert!(generalized_eigen(&DMatrix::zeros(2, 2), &k).is_err());
    }
}
