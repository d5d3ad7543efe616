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

/// The factors of P A = L U in one row-major matrix (L unit lower, below the diagonal) and the
/// row interchanges.
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
            a[i * n + j] += v;
        }
        for k in 0..n {
            let p = (k..n).fold(k, |p, i| if a[i * n + k].abs() > a[p * n + k].abs() { i } else { p });
            if a[p * n + k] == 0.0 {
                return Err(FactorizationError::Singular);
            }
            self.pivot[k] = p;
            if p != k {
                for j in 0..n {
                    a.swap(k * n + j, p * n + j);
                }
            }
            let (upper, lower) = a.split_at_mut((k + 1) * n);
            let row_k = &upper[k * n..];
            let pivot = row_k[k];
            for row_i in lower.chunks_exact_mut(n) {
                let l = row_i[k] / pivot;
                row_i[k] = l;
                if l != 0.0 {
                    for (x, u) in row_i[k + 1..].iter_mut().zip(&row_k[k + 1..]) {
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
        for i in 0..n {
            let s: f64 = a[i * n..i * n + i].iter().zip(&b[..i]).map(|(l, x)| l * x).sum();
            b[i] -= s;
        }
        for i in (0..n).rev() {
            let s: f64 = a[i * n + i + 1..(i + 1) * n].iter().zip(&b[i + 1..]).map(|(u, x)| u * x).sum();
            b[i] = (b[i] - s) / a[i * n + i];
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
