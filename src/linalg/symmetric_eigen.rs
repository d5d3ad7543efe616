//! The symmetric eigen decomposition with bounded work. nalgebra's `SymmetricEigen::new`
//! iterates its implicit QR sweeps until they converge, which a matrix with a NaN entry never
//! does (a hang, not an error); here a non-finite matrix is refused up front and the sweeps are
//! bounded. Implicit symmetric QR takes about two sweeps per eigenvalue (Golub & Van Loan,
//! Matrix computations, 2013, sec. 8.3), so MAX_SWEEPS_PER_ROW per row is far beyond any
//! convergent case.

use nalgebra::{DMatrix, Dyn, SymmetricEigen};

const MAX_SWEEPS_PER_ROW: usize = 30;

/// Eigenvalues and eigenvectors of the symmetric `a`; None if `a` has a non-finite entry or the
/// iteration did not converge within its bound.
pub fn symmetric_eigen(a: DMatrix<f64>) -> Option<SymmetricEigen<f64, Dyn>> {
    if !a.iter().all(|x| x.is_finite()) {
        return None;
    }
    let sweeps = 100 + MAX_SWEEPS_PER_ROW * a.nrows();
    SymmetricEigen::try_new(a, f64::EPSILON, sweeps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nan_entry_is_refused_and_a_finite_matrix_is_decomposed() {
        let a = DMatrix::from_row_slice(2, 2, &[2.0, 1.0, 1.0, 2.0]);
        let mut ev: Vec<f64> = symmetric_eigen(a.clone()).unwrap().eigenvalues.iter().copied().collect();
        ev.sort_by(f64::total_cmp);
        assert!((ev[0] - 1.0).abs() < 1e-15 && (ev[1] - 3.0).abs() < 1e-15, "{ev:?}");
        let mut b = a;
        b[(0, 1)] = f64::NAN;
        assert!(symmetric_eigen(b).is_none());
    }
}
