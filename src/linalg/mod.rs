//! Sparse assembly over a fixed pattern and its LU factorization (faer).
//!
//! The pattern of the Newton matrix is built once per topology; every Newton iteration
//! writes values into precomputed slots and refactorizes numerically, reusing the symbolic
//! analysis (column ordering, elimination structure) and all scratch memory. Up to
//! DENSE_LIMIT unknowns the matrix is factorized dense instead (src/linalg/dense_lu.rs), and a
//! pattern that renumbers to a narrow band (a beam chain's) banded (src/linalg/banded_lu.rs).

mod band_ordering;
mod banded_lu;
mod dense_lu;
mod switching;
mod symmetric_eigen;

pub use symmetric_eigen::symmetric_eigen;

use banded_lu::BandedLu;
use dense_lu::DenseLu;
use std::sync::Arc;
use switching::{Switching, SwitchingLu};

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::mat::MatMut;
use faer::sparse::linalg::lu::{LuRef, NumericLu, SymbolicLu, factorize_symbolic_lu};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, Par};

/// Collects the (row, column) entries of a square matrix before the pattern is frozen.
#[derive(Debug, Default, Clone)]
pub struct PatternBuilder {
    n: usize,
    entries: Vec<(usize, usize)>,
    /// The entries of `switchable_block`s with their parts.
    switchable: Vec<(usize, usize, usize)>,
    parts: usize,
}

impl PatternBuilder {
    pub fn new(n: usize) -> Self {
        PatternBuilder { n, entries: Vec::new(), switchable: Vec::new(), parts: 0 }
    }

    /// A new switchable part: its blocks (`switchable_block`) may all be zero at times (a
    /// unilateral contact while open), and are then left out of the factorization
    /// (src/linalg/switching.rs).
    pub fn switchable_part(&mut self) -> usize {
        self.parts += 1;
        self.parts - 1
    }

    /// A dense block of the switchable `part` coupling `rows` with `cols`.
    pub fn switchable_block(&mut self, part: usize, rows: &[usize], cols: &[usize]) {
        for &i in rows {
            for &j in cols {
                self.switchable.push((i, j, part));
            }
        }
    }

    /// A dense block coupling `rows` with `cols`.
    pub fn block(&mut self, rows: &[usize], cols: &[usize]) {
        for &i in rows {
            for &j in cols {
                self.entries.push((i, j));
            }
        }
    }

    pub fn build(mut self) -> SparseMatrix {
        // Every diagonal entry is structurally present, so the pattern never loses a pivot position.
        for i in 0..self.n {
            self.entries.push((i, i));
        }
        let permanent = self.entries.len();
        self.entries.extend(self.switchable.iter().map(|&(i, j, _)| (i, j)));
        // Entries bucketed by column (a counting sort, linear in their number), then each
        // column's rows sorted and deduplicated: the same pattern as one sort of all entries
        // by (column, row), which grew as n log n with the model.
        let mut start = vec![0usize; self.n + 1];
        for &(_, j) in &self.entries {
            start[j + 1] += 1;
        }
        for j in 0..self.n {
            start[j + 1] += start[j];
        }
        let mut next = start.clone();
        let mut rows = vec![0usize; self.entries.len()];
        for &(i, j) in &self.entries {
            rows[next[j]] = i;
            next[j] += 1;
        }
        if self.parts == 0 {
            self.entries = Vec::new();
        }
        let mut col_ptr = vec![0usize; self.n + 1];
        let mut row_idx = Vec::with_capacity(rows.len());
        for j in 0..self.n {
            let column = &mut rows[start[j]..start[j + 1]];
            column.sort_unstable();
            let first = row_idx.len();
            for &i in column.iter() {
                if row_idx.len() == first || row_idx.last() != Some(&i) {
                    row_idx.push(i);
                }
            }
            col_ptr[j + 1] = row_idx.len();
        }
        let values = vec![0.0; row_idx.len()];
        let mut m = SparseMatrix {
            n: self.n,
            col_ptr,
            row_idx,
            values,
            block: Vec::new(),
            shift: Shift::new(self.n),
            switching: None,
        };
        if self.parts > 0 {
            let mut fixed = vec![false; m.values.len()];
            for &(i, j) in &self.entries[..permanent] {
                fixed[m.slot(i, j)] = true;
            }
            let owned: Vec<(usize, usize)> = self.switchable.iter().map(|&(i, j, p)| (m.slot(i, j), p)).collect();
            m.switching = Some(Arc::new(Switching::new(m.values.len(), self.parts, &owned, &fixed)));
        }
        m
    }
}

/// A square sparse matrix in compressed-column form with a frozen pattern.
#[derive(Debug, Clone)]
pub struct SparseMatrix {
    n: usize,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    pub values: Vec<f64>,
    /// Scratch for one dense block while values are assembled (`take_block`), kept with the
    /// matrix so that re-assembling it allocates nothing once the largest block was seen.
    block: Vec<f64>,
    /// The diagonal shifts of `shift_diagonal` since the last `clear`.
    shift: Shift,
    /// The entries of the switchable parts (`PatternBuilder::switchable_block`), if any.
    switching: Option<Arc<Switching>>,
}

/// Diagonal shifts -delta_i of some rows (the regularization of rows that may be redundant,
/// `SparseMatrix::shift_diagonal`), allocated with the matrix.
#[derive(Debug, Clone)]
struct Shift {
    delta: Vec<f64>,
    any: bool,
}

impl Shift {
    fn new(n: usize) -> Self {
        Shift { delta: vec![0.0; n], any: false }
    }

    fn clear(&mut self) {
        if self.any {
            self.delta.fill(0.0);
            self.any = false;
        }
    }
}

impl SparseMatrix {
    pub fn dim(&self) -> usize {
        self.n
    }

    /// Index into `values` of entry (i, j); panics if it is not in the pattern (a bug in
    /// the pattern builder, not a user error).
    pub fn slot(&self, i: usize, j: usize) -> usize {
        let range = self.col_ptr[j]..self.col_ptr[j + 1];
        match self.row_idx[range.clone()].binary_search(&i) {
            Ok(k) => range.start + k,
            Err(_) => panic!("entry ({i}, {j}) is not in the sparsity pattern"),
        }
    }

    /// Slots of the dense block rows x cols, row-major.
    pub fn block_slots(&self, rows: &[usize], cols: &[usize]) -> Vec<usize> {
        rows.iter().flat_map(|&i| cols.iter().map(move |&j| self.slot(i, j))).collect()
    }

    pub fn clear(&mut self) {
        self.values.fill(0.0);
        self.shift.clear();
    }

    /// Subtract `delta` > 0 from diagonal entry (i, i) at `slot`: the regularization
    /// [A, C^T; C, -delta] of a constraint row that may depend on others (unilateral contacts
    /// that hold a body statically indeterminately, as four corners hold a box on a floor).
    /// A Newton iteration makes its residual consistent with the shift (a compliant row,
    /// `Dynamics::add_regularization`); a single solve that must satisfy the unshifted
    /// equations uses `SparseLu::solve_unshifted`.
    pub fn shift_diagonal(&mut self, i: usize, slot: usize, delta: f64) {
        self.values[slot] -= delta;
        self.shift.delta[i] += delta;
        self.shift.any = true;
    }

    /// The block scratch (give it back with `put_block` after the assembly).
    pub fn take_block(&mut self) -> Vec<f64> {
        std::mem::take(&mut self.block)
    }

    pub fn put_block(&mut self, block: Vec<f64>) {
        self.block = block;
    }

    /// Replace each row i with `fixed(i)` by the identity row (the unknown i given).
    pub fn fix_rows(&mut self, fixed: impl Fn(usize) -> bool) {
        for j in 0..self.n {
            for k in self.col_ptr[j]..self.col_ptr[j + 1] {
                let i = self.row_idx[k];
                if fixed(i) {
                    self.values[k] = if i == j { 1.0 } else { 0.0 };
                }
            }
        }
    }

    /// y = A x
    pub fn mul_vec(&self, x: &[f64], y: &mut [f64]) {
        y.fill(0.0);
        for (j, xj) in x.iter().enumerate().take(self.n) {
            for k in self.col_ptr[j]..self.col_ptr[j + 1] {
                y[self.row_idx[k]] += self.values[k] * xj;
            }
        }
    }

    /// Every stored entry as (row, column, value), column by column.
    pub fn entries(&self) -> impl Iterator<Item = (usize, usize, f64)> + '_ {
        (0..self.n).flat_map(move |j| {
            (self.col_ptr[j]..self.col_ptr[j + 1]).map(move |k| (self.row_idx[k], j, self.values[k]))
        })
    }

    /// Dense copy (row-major), for tests and small eigenproblems.
    pub fn to_dense(&self) -> Vec<f64> {
        let mut d = vec![0.0; self.n * self.n];
        for j in 0..self.n {
            for k in self.col_ptr[j]..self.col_ptr[j + 1] {
                d[self.row_idx[k] * self.n + j] += self.values[k];
            }
        }
        d
    }

    fn symbolic(&self) -> SymbolicSparseColMatRef<'_, usize> {
        SymbolicSparseColMatRef::new_checked(self.n, self.n, &self.col_ptr, None, &self.row_idx)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum FactorizationError {
    #[error(
        "the Newton matrix is singular (redundant constraints, a body without mass, or a mechanism at a \
         singular position?); check the joints and masses"
    )]
    Singular,
    #[error(
        "the Newton matrix contains NaN or infinite entries (a force or its derivative overflowed); check the \
         model's values (SI units?)"
    )]
    NotFinite,
}

/// Systems of up to this many unknowns are factorized dense (callgrind, instructions of a
/// whole run against faer's sparse LU: rigid pendulum 89M -> 77M, crank-slider 218M -> 199M,
/// four-element pendulum, 17 unknowns, 223M -> 206M, heavy top and Bricard's mechanism about
/// half). Not higher: at 128 the banded matrices of beam chains lost (20-element cantilever,
/// 66 unknowns, 1763M -> 2151M; 16-element pendulum 954M -> 1067M) while coupled rigid
/// mechanisms gained a few per cent.
const DENSE_LIMIT: usize = 32;

/// LU with partial pivoting of a `SparseMatrix`: sparse (faer; the symbolic analysis and all
/// buffers reused) or, up to DENSE_LIMIT unknowns, dense. Allocates nothing after `new`.
#[derive(Clone)]
pub struct SparseLu {
    factors: Factors,
    factorized: bool,
    /// The factorized matrix's diagonal shifts (`SparseMatrix::shift_diagonal`) and scratch for
    /// `solve_unshifted`'s corrections.
    shift: Shift,
    correction: Vec<f64>,
}

#[derive(Clone)]
enum Factors {
    Sparse(Box<FaerLu>),
    /// Sparse, over the pattern of the switchable parts that are on.
    Switching(Box<SwitchingLu>),
    /// Banded after renumbering (a beam chain's Newton matrix).
    Banded(Box<BandedLu>),
    Dense(DenseLu),
}

struct FaerLu {
    symbolic: SymbolicLu<usize>,
    numeric: NumericLu<usize, f64>,
    factor_scratch: MemBuffer,
    solve_scratch: MemBuffer,
}

impl FaerLu {
    fn new(symbolic: SymbolicLu<usize>) -> Self {
        let factor_scratch = MemBuffer::new(symbolic.factorize_numeric_lu_scratch::<f64>(Par::Seq, Default::default()));
        let solve_scratch = MemBuffer::new(symbolic.solve_in_place_scratch::<f64>(1, Par::Seq));
        FaerLu { symbolic, numeric: NumericLu::new(), factor_scratch, solve_scratch }
    }

    /// Numeric LU of `a`, whose pattern is the analysed one, into the kept buffers.
    fn factorize(&mut self, a: SparseColMatRef<'_, usize, f64>) -> Result<(), FactorizationError> {
        self.symbolic
            .factorize_numeric_lu(
                &mut self.numeric,
                a,
                Par::Seq,
                MemStack::new(&mut self.factor_scratch),
                Default::default(),
            )
            .map(|_| ())
            .map_err(|_| FactorizationError::Singular)
    }

    /// Solve in place with the factors of the last `factorize`.
    fn solve(&mut self, rhs: &mut [f64]) {
        let n = rhs.len();
        let lu = LuRef::new_unchecked(&self.symbolic, &self.numeric);
        let mat = MatMut::from_column_major_slice_mut(rhs, n, 1);
        lu.solve_in_place_with_conj(Conj::No, mat, Par::Seq, MemStack::new(&mut self.solve_scratch));
    }
}

impl Clone for FaerLu {
    /// A clone shares the symbolic analysis and starts unfactorized.
    fn clone(&self) -> Self {
        FaerLu::new(self.symbolic.clone())
    }
}

impl std::fmt::Debug for SparseLu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SparseLu").field("factorized", &self.factorized).finish()
    }
}

impl SparseLu {
    pub fn new(matrix: &SparseMatrix) -> Self {
        let factors = if matrix.n <= DENSE_LIMIT {
            Factors::Dense(DenseLu::new(matrix.n))
        } else if let Some(s) = &matrix.switching {
            Factors::Switching(Box::new(SwitchingLu::new(s.clone())))
        } else if let Some(b) = BandedLu::analyse(matrix.n, &matrix.col_ptr, &matrix.row_idx) {
            Factors::Banded(Box::new(b))
        } else {
            let symbolic =
                factorize_symbolic_lu(matrix.symbolic(), Default::default()).expect("symbolic LU of a valid pattern");
            Factors::Sparse(Box::new(FaerLu::new(symbolic)))
        };
        SparseLu { factors, factorized: false, shift: Shift::new(matrix.n), correction: vec![0.0; matrix.n] }
    }

    pub fn factorize(&mut self, matrix: &SparseMatrix) -> Result<(), FactorizationError> {
        self.factorized = false;
        if matrix.values.iter().any(|v| !v.is_finite()) {
            return Err(FactorizationError::NotFinite);
        }
        match &mut self.factors {
            Factors::Sparse(f) => f.factorize(SparseColMatRef::new(matrix.symbolic(), &matrix.values))?,
            Factors::Switching(f) => f.factorize((matrix.n, &matrix.col_ptr, &matrix.row_idx), &matrix.values)?,
            Factors::Banded(b) => b.factorize(&matrix.values)?,
            Factors::Dense(d) => d.factorize(matrix.entries())?,
        }
        if matrix.shift.any || self.shift.any {
            self.shift.delta.copy_from_slice(&matrix.shift.delta);
            self.shift.any = matrix.shift.any;
        }
        self.factorized = true;
        Ok(())
    }

    /// Solves done with the current factors: the dense LU changes how it solves after a
    /// number of them (src/linalg/dense_lu.rs); 0 for the sparse one, whose solves do not
    /// depend on their count.
    pub fn solves(&self) -> usize {
        match &self.factors {
            Factors::Sparse(_) | Factors::Switching(_) | Factors::Banded(_) => 0,
            Factors::Dense(d) => d.solves(),
        }
    }

    /// Right after `factorize`: continue as the factorization of the same matrix that had
    /// served `solves` solves (`solves`), so that the solves that follow are bit for bit its.
    pub fn resume(&mut self, solves: usize) {
        if let (Factors::Dense(d), true) = (&mut self.factors, self.factorized) {
            d.resume(solves);
        }
    }

    /// Solve in place; returns an error if the factors produce non-finite values
    /// (numerically singular matrix).
    pub fn solve(&mut self, rhs: &mut [f64]) -> Result<(), FactorizationError> {
        assert!(self.factorized, "solve before a successful factorization");
        match &mut self.factors {
            Factors::Sparse(f) => f.solve(rhs),
            Factors::Switching(f) => f.solve(rhs),
            Factors::Banded(b) => b.solve(rhs),
            Factors::Dense(d) => d.solve(rhs),
        }
        if rhs.iter().all(|v| v.is_finite()) { Ok(()) } else { Err(FactorizationError::Singular) }
    }

    /// `solve` for the matrix without its diagonal shifts (`SparseMatrix::shift_diagonal`):
    /// iterative refinement with the shifted factors S = A - D. After x0 = S^-1 b the
    /// residual is b - A x0 = -D x0, and after each correction c_k = S^-1 (-D c_(k-1)) it is
    /// -D c_k (the proximal point iteration on the shifted rows: rows that depend on others
    /// keep the least-norm part of the first solve). Each correction is about the relative
    /// shift times the last; at most MAX_REFINEMENTS, until it is round-off.
    pub fn solve_unshifted(&mut self, rhs: &mut [f64]) -> Result<(), FactorizationError> {
        const MAX_REFINEMENTS: usize = 8;
        self.solve(rhs)?;
        if !self.shift.any {
            return Ok(());
        }
        let mut correction = std::mem::take(&mut self.correction);
        correction.copy_from_slice(rhs);
        let largest = |x: &[f64]| x.iter().fold(0.0f64, |a, y| a.max(y.abs()));
        let mut result = Ok(());
        for _ in 0..MAX_REFINEMENTS {
            for (c, d) in correction.iter_mut().zip(&self.shift.delta) {
                *c *= -d;
            }
            if let Err(e) = self.solve(&mut correction) {
                result = Err(e);
                break;
            }
            for (x, c) in rhs.iter_mut().zip(&correction) {
                *x += c;
            }
            if largest(&correction) <= 1e-16 * largest(rhs) {
                break;
            }
        }
        self.correction = correction;
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saddle_point_system_with_zero_diagonal_block_is_solved() {
        // [2 0 1; 0 3 1; 1 1 0] x = [1 2 3]
        let mut b = PatternBuilder::new(3);
        b.block(&[0, 1, 2], &[0, 1, 2]);
        let mut a = b.build();
        let dense = [2.0, 0.0, 1.0, 0.0, 3.0, 1.0, 1.0, 1.0, 0.0];
        for i in 0..3 {
            for j in 0..3 {
                let s = a.slot(i, j);
                a.values[s] = dense[i * 3 + j];
            }
        }
        let mut lu = SparseLu::new(&a);
        lu.factorize(&a).unwrap();
        let mut x = vec![1.0, 2.0, 3.0];
        lu.solve(&mut x).unwrap();
        let mut r = vec![0.0; 3];
        a.mul_vec(&x, &mut r);
        for (ri, bi) in r.iter().zip([1.0, 2.0, 3.0]) {
            assert!((ri - bi).abs() < 1e-14, "{r:?}");
        }
    }

    /// A system with one saddle-point row (a constraint with a zero diagonal), solved to
    /// round-off by each factorization: below DENSE_LIMIT dense, above it a tridiagonal
    /// pattern banded and a grid's (each unknown coupled to those `m` apart too) by faer's
    /// sparse LU.
    #[test]
    fn every_factorization_solves_a_saddle_point_system() {
        let grid = |n: usize| (n as f64).sqrt() as usize;
        for (n, wide) in [(DENSE_LIMIT, false), (DENSE_LIMIT + 9, false), (400, true)] {
            let mut b = PatternBuilder::new(n);
            for i in 0..n - 1 {
                b.block(&[i, i + 1], &[i, i + 1]);
                if wide && i + grid(n) < n {
                    b.block(&[i, i + grid(n)], &[i, i + grid(n)]);
                }
            }
            let mut a = b.build();
            for (i, j, _) in a.entries().collect::<Vec<_>>() {
                let s = a.slot(i, j);
                // The last row and column: a constraint with a zero diagonal.
                a.values[s] = if i == j { if i == n - 1 { 0.0 } else { 4.0 + (i % 7) as f64 } } else { -1.0 };
            }
            let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).sin()).collect();
            let mut rhs = vec![0.0; n];
            a.mul_vec(&x, &mut rhs);
            let mut lu = SparseLu::new(&a);
            let kind = match lu.factors {
                Factors::Dense(_) => "dense",
                Factors::Banded(_) => "banded",
                Factors::Sparse(_) => "sparse",
                Factors::Switching(_) => "switching",
            };
            let expected = if n <= DENSE_LIMIT {
                "dense"
            } else if wide {
                "sparse"
            } else {
                "banded"
            };
            assert_eq!(kind, expected, "n = {n}");
            lu.factorize(&a).unwrap();
            lu.solve(&mut rhs).unwrap();
            let err = rhs.iter().zip(&x).fold(0.0f64, |m, (y, z)| m.max((y - z).abs()));
            assert!(err < 1e-13, "n = {n}: error {err:.1e}");
        }
    }

    #[test]
    fn singular_matrix_is_reported() {
        let mut b = PatternBuilder::new(2);
        b.block(&[0, 1], &[0, 1]);
        let mut a = b.build();
        a.values.copy_from_slice(&[1.0, 2.0, 2.0, 4.0]);
        let mut lu = SparseLu::new(&a);
        let result = lu.factorize(&a).and_then(|_| lu.solve(&mut [1.0, 1.0]));
        assert!(result.is_err());
    }
}
