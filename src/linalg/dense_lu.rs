//! LU factorization with partial pivoting of a small dense matrix (Golub & Van Loan, Matrix
//! Computations, 4th ed., 2013, algorithm 3.4.1, row interchanges), for the Newton matrices
//! of small models (`SparseLu` below `DENSE_LIMIT` unknowns).
//!
//! Why not a library's: faer's sparse LU spent about 3,700 instructions per solve on the
//! 17 unknowns of a four-element pendulum (permutations, supernode bookkeeping) where the
//! triangular solves are 2 n^2 = 580 flops, and faer's dense LU was slower still at that size
//! (measured with callgrind); nalgebra's dynamic LU allocates its permutation on every
//! factorization, and a step must not allocate.
//!
//! Modified Newton solves with one factorization for many iterations (the four-element
//! pendulum: 14,394 solves with 32 factorizations). So a factorization that serves many
//! solves forms its inverse (n solves, of the unit vectors) and later solves are one
//! matrix-vector product: n column updates of length n instead of 2n triangular column
//! updates of falling length and the interchanges (17 unknowns: 1,300 instructions per solve
//! instead of 2,600). It is formed once the factorization has served `INVERSE_AFTER` solves
//! (one refreshed every few solves, the heavy top's, never pays the n solves; the factors
//! decides, so a snapshot carries the count with a kept factorization and a restored run forms
//! the inverse where the original did: `resume`). A solve by the inverse has the forward error
//! of one by the factors, about cond(A) times the rounding unit, which is what Newton's
//! increments and the index-1 solves need.

use super::FactorizationError;

/// Solves with one factorization after which its inverse is formed: twice the largest dense
/// size (`DENSE_LIMIT`), so that forming it (n solves) costs at most half the solves done
/// before; the same for every n, so that models that differ only by trivial rows (redundant
/// joints) solve alike.
const INVERSE_AFTER: usize = 64;

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
    /// Solves done with the current factors (the inverse is formed at the INVERSE_AFTER-th).
    solves: usize,
    /// A^-1, column-major, once formed (`inverse_formed`).
    inverse: Vec<f64>,
    /// The right-hand side while the product A^-1 b is accumulated.
    scratch: Vec<f64>,
}

impl DenseLu {
    pub fn new(n: usize) -> Self {
        DenseLu {
            n,
            lu: vec![0.0; n * n],
            pivot: (0..n).collect(),
            solves: 0,
            inverse: vec![0.0; n * n],
            scratch: vec![0.0; n],
        }
    }

    /// Factorize the matrix given by its (row, column, value) entries (repeated entries add up);
    /// an exactly zero pivot column is `Singular`.
    pub fn factorize(&mut self, entries: impl Iterator<Item = (usize, usize, f64)>) -> Result<(), FactorizationError> {
        let n = self.n;
        self.solves = 0;
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

    /// Solve A x = b in place: by the factors, or by the inverse once it is formed.
    pub fn solve(&mut self, b: &mut [f64]) {
        let n = self.n;
        if self.solves == INVERSE_AFTER {
            self.form_inverse();
        }
        self.solves = self.solves.saturating_add(1);
        if self.inverse_formed() {
            // x = sum_j b_j (A^-1 e_j), column by column.
            self.scratch.copy_from_slice(b);
            b.fill(0.0);
            for (column, &bj) in self.inverse.chunks_exact(n).zip(&self.scratch) {
                for (x, c) in b.iter_mut().zip(column) {
                    *x += c * bj;
                }
            }
            return;
        }
        self.solve_by_factors(b);
    }

    /// A^-1 from the factors, column by column (the solves of the unit vectors).
    fn form_inverse(&mut self) {
        let mut inverse = std::mem::take(&mut self.inverse);
        for (j, column) in inverse.chunks_exact_mut(self.n).enumerate() {
            column.fill(0.0);
            column[j] = 1.0;
            self.solve_by_factors(column);
        }
        self.inverse = inverse;
    }

    /// Solves done with the current factors.
    pub fn solves(&self) -> usize {
        self.solves
    }

    /// Right after `factorize`: continue as the factorization that had served `solves` solves,
    /// with its inverse formed if it had been, so that the solves that follow are bit for bit
    /// those the factorization would have done (a snapshot's kept Newton matrix).
    pub fn resume(&mut self, solves: usize) {
        if solves > INVERSE_AFTER {
            self.form_inverse();
        }
        self.solves = solves;
    }

    /// Whether the current factors' inverse is formed.
    fn inverse_formed(&self) -> bool {
        self.solves > INVERSE_AFTER
    }

    /// Solve A x = b in place with the factors: the interchanges, then L and U.
    fn solve_by_factors(&self, b: &mut [f64]) {
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

    /// A solve by the inverse (formed once a factorization has served `INVERSE_AFTER` solves)
    /// equals the solve by the factors to round-off, and a new factorization drops the old
    /// inverse.
    #[test]
    fn solves_by_the_kept_inverse_match_the_factors() {
        let n = 6;
        // Diagonally dominant with a zero leading entry (pivoting) and a saddle-point row.
        let entry = |i: usize, j: usize, shift: f64| {
            if i == 0 && j == 0 {
                0.0
            } else if i == j {
                4.0 + i as f64 + shift
            } else {
                ((i * 7 + j * 3) % 5) as f64 * 0.3 - 0.5
            }
        };
        let mut lu = DenseLu::new(n);
        for shift in [0.0, 1.5, 3.0] {
            let a: Vec<f64> = (0..n * n).map(|k| entry(k / n, k % n, shift)).collect();
            lu.factorize((0..n * n).map(|k| (k / n, k % n, a[k]))).unwrap();
            for s in 0..INVERSE_AFTER + 10 {
                let x: Vec<f64> = (0..n).map(|i| ((i + s) % 4) as f64 - 1.5 + 0.1 * (s % 7) as f64).collect();
                let mut b: Vec<f64> = (0..n).map(|i| (0..n).map(|j| a[i * n + j] * x[j]).sum()).collect();
                lu.solve(&mut b);
                let error = b.iter().zip(&x).fold(0.0f64, |m, (p, q)| m.max((p - q).abs()));
                assert!(error < 1e-13, "shift {shift}, solve {s} (inverse formed: {}): {error:e}", lu.inverse_formed());
            }
            assert!(lu.inverse_formed());
        }
    }

    #[test]
    fn a_zero_column_is_singular() {
        let mut lu = DenseLu::new(2);
        let entries = [(0, 0, 1.0), (1, 0, 2.0)];
        assert_eq!(lu.factorize(entries.into_iter()), Err(FactorizationError::Singular));
    }
}
