//! LU factorization with partial pivoting of a small dense matrix (Golub & Van Loan, Matrix
//! Computations, 4th ed., 2013, algorithm 3.4.1, row interchanges), for the Newton matrices
//! of small models (`SparseLu` below `DENSE_LIMIT` unknowns).
//!
//! Why not a library's: faer's sparse LU spent about 3,700 instructions per solve on the
//! 17 unknowns of a four-element pendulum (permutations, supernode bookkeeping) where the
//! triangular solves are 2 n^2 = 580 flops, and faer's dense LU was slower still at that size
//! (measured with callgrind); nalgebra's dynamic LU allocates its permutation on every
//! factorization, and a step must not allocate.

use super::FactorizationError;

/// The factors of P A = L U in one column-major matrix (L unit lower, below the diagonal) and
/// the row interchanges. Column-major so that elimination and both triangular solves are
/// column updates (axpys, vectorized) rather than dot products (a dependent chain of adds:
/// the row-oriented solve cost 2,900 instructions for 17 unknowns).
#[derive(Debug, Clone)]
pub struct DenseLu {
    n: usize,
    lu: Vec<f64>,
    /// Row k was interchanged with row `pivot[k]` (>= k) at step k.
    pivot: Vec<usize>,
}

impl DenseLu {
    pub fn new(n: usize) -> Self {
        DenseLu { n, lu: vec![0.0; n * n], pivot: (0..n).collect() }
    }

    /// Factorize the matrix given by its (row, column, value) entries (repeated entries add up);
    /// an exactly zero pivot column is `Singular`.
    pub fn factorize(&mut self, entries: impl Iterator<Item = (usize, usize, f64)>) -> Result<(), FactorizationError> {
        let n = self.n;
        let a = &mut self.lu;
        a.fill(0.0);
        for (i, j, v) in entries {
            a[j * n + i] += v;
        }
        for k in 0..n {
            let column = &a[k * n..(k + 1) * n];
            let p = (k..n).fold(k, |p, i| if column[i].abs() > column[p].abs() { i } else { p });
            if column[p] == 0.0 {
                return Err(FactorizationError::Singular);
            }
            self.pivot[k] = p;
            if p != k {
                for j in 0..n {
                    a.swap(j * n + k, j * n + p);
                }
            }
            let (done, rest) = a.split_at_mut((k + 1) * n);
            let column_k = &mut done[k * n..];
            let pivot = column_k[k];
            for l in &mut column_k[k + 1..] {
                *l /= pivot;
            }
            let multipliers = &column_k[k + 1..];
            for column_j in rest.chunks_exact_mut(n) {
                let u = column_j[k];
                if u != 0.0 {
                    for (x, l) in column_j[k + 1..].iter_mut().zip(multipliers) {
                        *x -= l * u;
                    }
                }
            }
        }
        Ok(())
    }

    /// Solve A x = b in place.
    pub fn solve(&self, b: &mut [f64]) {
        let (n, a) = (self.n, &self.lu);
        for (k, &p) in self.pivot.iter().enumerate() {
            b.swap(k, p);
        }
        for (k, column) in a.chunks_exact(n).enumerate() {
            let (head, tail) = b.split_at_mut(k + 1);
            let x = head[k];
            if x != 0.0 {
                for (y, l) in tail.iter_mut().zip(&column[k + 1..]) {
                    *y -= l * x;
                }
            }
        }
        for (k, column) in a.chunks_exact(n).enumerate().rev() {
            let (head, tail) = b.split_at_mut(k);
            tail[0] /= column[k];
            let x = tail[0];
            if x != 0.0 {
                for (y, u) in head.iter_mut().zip(&column[..k]) {
                    *y -= u * x;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pivoting_solves_a_matrix_with_a_zero_leading_entry() {
        // [0 2 1; 1 1 0; 3 0 1] x = b with x = (1, -2, 3).
        let a = [[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, 1.0]];
        let x = [1.0, -2.0, 3.0];
        let mut b: Vec<f64> = a.iter().map(|r| r.iter().zip(&x).map(|(p, q)| p * q).sum()).collect();
        let mut lu = DenseLu::new(3);
        lu.factorize((0..9).map(|k| (k / 3, k % 3, a[k / 3][k % 3]))).unwrap();
        lu.solve(&mut b);
        for (bi, xi) in b.iter().zip(x) {
            assert!((bi - xi).abs() < 1e-14, "{b:?}");
        }
    }

    #[test]
    fn a_zero_column_is_singular() {
        let mut lu = DenseLu::new(2);
        let entries = [(0, 0, 1.0), (1, 0, 2.0)];
        assert_eq!(lu.factorize(entries.into_iter()), Err(FactorizationError::Singular));
    }
}
