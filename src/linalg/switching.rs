//! Parts of a pattern that are zero at times, and the factorization of the pattern without
//! them.
//!
//! A unilateral contact constraint contributes its row, its column and the curvature block of
//! its gap to the Newton matrix's pattern, but while the contact is open all of them are zero
//! (its row is the trivial d_lambda = 0). The symbolic LU treats every entry of the pattern as
//! non-zero, so the contacts of a box of balls (a contact per pair) made the whole contact
//! graph one dense block: 30 balls, 525 contacts, a 585-unknown dense LU per factorization
//! (96 % of the run, perf) where the contacts that touch leave a few dozen non-zeros.
//!
//! Such a part is declared with `PatternBuilder::switchable_block`. At each factorization a
//! part is off when all of its own entries (those no permanent block covers) are exactly
//! zero; the entries whose parts are all off are left out, and the matrix of the remaining
//! pattern — equal to the given one, since only exact zeros are left out — is factorized with
//! the symbolic analysis of that pattern. The analyses of the last few sets of parts that were
//! on are kept (`KEPT_PATTERNS`), so a run that alternates among a few contact states analyses
//! each once and then allocates nothing.

use std::sync::Arc;

use faer::sparse::linalg::lu::factorize_symbolic_lu;
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};

use super::{FactorizationError, FaerLu};

/// The entries of the switchable parts of a pattern, by slot (index into the matrix's values).
#[derive(Debug)]
pub(super) struct Switching {
    /// Per part, the slots of its own entries (covered by no permanent block, off the diagonal):
    /// `part_slots[part_start[p]..part_start[p + 1]]`.
    part_start: Vec<usize>,
    part_slots: Vec<usize>,
    /// Per slot, the parts that own it (`owner_start`, `owners` as above); empty for the slots
    /// of permanent entries.
    owner_start: Vec<usize>,
    owners: Vec<usize>,
}

impl Switching {
    /// From the pattern's slots of every switchable entry with its part, and whether each slot
    /// is permanent (covered by a block that is not switchable, or on the diagonal).
    pub(super) fn new(slots: usize, parts: usize, owned: &[(usize, usize)], permanent: &[bool]) -> Self {
        let mut own: Vec<(usize, usize)> = owned.iter().copied().filter(|&(s, _)| !permanent[s]).collect();
        own.sort_unstable();
        own.dedup();
        let mut owner_start = vec![0usize; slots + 1];
        for &(s, _) in &own {
            owner_start[s + 1] += 1;
        }
        for s in 0..slots {
            owner_start[s + 1] += owner_start[s];
        }
        let owners = own.iter().map(|&(_, p)| p).collect();
        let mut part_start = vec![0usize; parts + 1];
        for &(_, p) in &own {
            part_start[p + 1] += 1;
        }
        for p in 0..parts {
            part_start[p + 1] += part_start[p];
        }
        let mut next = part_start.clone();
        let mut part_slots = vec![0usize; own.len()];
        for &(s, p) in &own {
            part_slots[next[p]] = s;
            next[p] += 1;
        }
        Switching { part_start, part_slots, owner_start, owners }
    }

    fn parts(&self) -> usize {
        self.part_start.len() - 1
    }

    /// Which parts are off in `values`: all their own entries exactly zero.
    fn off_parts(&self, values: &[f64], off: &mut [bool]) {
        for (p, o) in off.iter_mut().enumerate() {
            *o = self.part_slots[self.part_start[p]..self.part_start[p + 1]].iter().all(|&s| values[s] == 0.0);
        }
    }

    /// Whether the entry at `slot` is left out when the parts `off` are off: it is some parts'
    /// own, and all of them are off.
    fn left_out(&self, slot: usize, off: &[bool]) -> bool {
        let parts = &self.owners[self.owner_start[slot]..self.owner_start[slot + 1]];
        !parts.is_empty() && parts.iter().all(|&p| off[p])
    }
}

/// How many patterns (sets of parts off) a `SwitchingLu` keeps analysed.
const KEPT_PATTERNS: usize = 8;

/// Sparse LU of a matrix with switchable parts: the pattern of the parts that are on, its
/// symbolic analysis kept for the last `KEPT_PATTERNS` such sets.
pub(super) struct SwitchingLu {
    switching: Arc<Switching>,
    /// The parts off in the matrix being factorized (scratch).
    off: Vec<bool>,
    patterns: Vec<Reduced>,
    /// The pattern whose factors `solve` uses.
    current: usize,
    /// Factorizations so far, for the least recently used pattern.
    clock: u64,
}

/// A pattern without the entries of some parts, and the LU of the matrices on it (a clone
/// shares the analysis and starts unfactorized, as `FaerLu`'s).
#[derive(Clone)]
struct Reduced {
    off: Vec<bool>,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    /// The slot in the whole pattern of each entry of this one.
    gather: Vec<usize>,
    values: Vec<f64>,
    lu: FaerLu,
    used: u64,
}

impl Clone for SwitchingLu {
    /// A clone shares the analyses and starts unfactorized.
    fn clone(&self) -> Self {
        SwitchingLu {
            switching: self.switching.clone(),
            off: self.off.clone(),
            patterns: self.patterns.clone(),
            current: usize::MAX,
            clock: self.clock,
        }
    }
}

impl SwitchingLu {
    pub(super) fn new(switching: Arc<Switching>) -> Self {
        let off = vec![false; switching.parts()];
        SwitchingLu { switching, off, patterns: Vec::new(), current: usize::MAX, clock: 0 }
    }

    /// Factorize the matrix of the pattern (`col_ptr`, `row_idx`) with `values`.
    pub(super) fn factorize(
        &mut self,
        (n, col_ptr, row_idx): (usize, &[usize], &[usize]),
        values: &[f64],
    ) -> Result<(), FactorizationError> {
        self.current = usize::MAX;
        self.switching.off_parts(values, &mut self.off);
        let index = match self.patterns.iter().position(|r| r.off == self.off) {
            Some(i) => i,
            None => self.analyse(n, col_ptr, row_idx),
        };
        self.clock += 1;
        let r = &mut self.patterns[index];
        r.used = self.clock;
        for (v, &s) in r.values.iter_mut().zip(&r.gather) {
            *v = values[s];
        }
        let symbolic = SymbolicSparseColMatRef::new_checked(n, n, &r.col_ptr, None, &r.row_idx);
        r.lu.factorize(SparseColMatRef::new(symbolic, &r.values))?;
        self.current = index;
        Ok(())
    }

    /// The pattern without the entries of the parts in `self.off`, analysed, in place of the
    /// least recently used one if KEPT_PATTERNS are kept; returns its index.
    fn analyse(&mut self, n: usize, col_ptr: &[usize], row_idx: &[usize]) -> usize {
        let mut reduced_ptr = Vec::with_capacity(n + 1);
        let (mut reduced_rows, mut gather) = (Vec::new(), Vec::new());
        reduced_ptr.push(0);
        for j in 0..n {
            let column = col_ptr[j]..col_ptr[j + 1];
            for (s, &i) in column.clone().zip(&row_idx[column]) {
                if !self.switching.left_out(s, &self.off) {
                    reduced_rows.push(i);
                    gather.push(s);
                }
            }
            reduced_ptr.push(reduced_rows.len());
        }
        let pattern = SymbolicSparseColMatRef::new_checked(n, n, &reduced_ptr, None, &reduced_rows);
        let symbolic = factorize_symbolic_lu(pattern, Default::default()).expect("symbolic LU of a valid pattern");
        let reduced = Reduced {
            off: self.off.clone(),
            values: vec![0.0; gather.len()],
            col_ptr: reduced_ptr,
            row_idx: reduced_rows,
            gather,
            lu: FaerLu::new(symbolic),
            used: 0,
        };
        if self.patterns.len() < KEPT_PATTERNS {
            self.patterns.push(reduced);
            return self.patterns.len() - 1;
        }
        let oldest = (0..self.patterns.len()).min_by_key(|&i| self.patterns[i].used).unwrap_or(0);
        self.patterns[oldest] = reduced;
        oldest
    }

    /// Solve in place with the factors of the last successful `factorize` (NaN without one,
    /// which `SparseLu::solve` reports as a singular matrix).
    pub(super) fn solve(&mut self, rhs: &mut [f64]) {
        match self.patterns.get_mut(self.current) {
            Some(r) => r.lu.solve(rhs),
            None => rhs.fill(f64::NAN),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Factors, PatternBuilder, SparseLu, SparseMatrix};

    /// A chain of `n` coordinates (tridiagonal, permanent) and, for each pair (i, j) of
    /// coordinates 0..k, a switchable row coupling them (a contact: row, column and the 2 x 2
    /// curvature block), on where `on(i, j)`.
    fn contacts(n: usize, k: usize, on: impl Fn(usize, usize) -> bool) -> (SparseMatrix, Vec<f64>) {
        let pairs: Vec<(usize, usize)> = (0..k).flat_map(|i| (i + 1..k).map(move |j| (i, j))).collect();
        let size = n + pairs.len();
        let mut b = PatternBuilder::new(size);
        for i in 0..n - 1 {
            b.block(&[i, i + 1], &[i, i + 1]);
        }
        for (r, &(i, j)) in pairs.iter().enumerate() {
            let part = b.switchable_part();
            b.switchable_block(part, &[n + r], &[i, j]);
            b.switchable_block(part, &[i, j], &[n + r]);
            b.switchable_block(part, &[i, j], &[i, j]);
        }
        let mut a = b.build();
        for i in 0..n {
            let s = a.slot(i, i);
            a.values[s] = 4.0;
            if i + 1 < n {
                let (s, t) = (a.slot(i, i + 1), a.slot(i + 1, i));
                a.values[s] = -1.0;
                a.values[t] = -1.0;
            }
        }
        for (r, &(i, j)) in pairs.iter().enumerate() {
            let row = n + r;
            if on(i, j) {
                for (c, g) in [(i, 1.0), (j, -1.0)] {
                    let (s, t) = (a.slot(row, c), a.slot(c, row));
                    a.values[s] = g;
                    a.values[t] = g;
                }
                let s = a.slot(i, j);
                a.values[s] += 0.5;
                let s = a.slot(j, i);
                a.values[s] += 0.5;
            } else {
                let s = a.slot(row, row);
                a.values[s] = 1.0;
            }
        }
        let x: Vec<f64> = (0..size).map(|i| (0.3 * i as f64).cos()).collect();
        (a, x)
    }

    fn solve(a: &SparseMatrix, lu: &mut SparseLu, x: &[f64]) -> f64 {
        let mut rhs = vec![0.0; x.len()];
        a.mul_vec(x, &mut rhs);
        lu.factorize(a).unwrap();
        lu.solve(&mut rhs).unwrap();
        rhs.iter().zip(x).fold(0.0f64, |m, (y, z)| m.max((y - z).abs()))
    }

    /// The parts that are off are left out of the analysed pattern (a handful of contacts on
    /// among 190: the pattern is the chain's and theirs), and every set of parts on, one
    /// analysed before included, solves to round-off; the least recently used analysis makes
    /// room for a new one beyond KEPT_PATTERNS.
    #[test]
    fn open_parts_are_left_out_of_the_factorization() {
        let (n, k) = (40, 20);
        let (full, _) = contacts(n, k, |_, _| true);
        let mut lu = SparseLu::new(&full);
        for round in 0..2 {
            for m in 0..super::KEPT_PATTERNS + 2 {
                let (a, x) = contacts(n, k, |i, j| i == m && j == m + 1 || i + 5 == j && i == 2 * m);
                let err = solve(&a, &mut lu, &x);
                assert!(err < 1e-13, "round {round}, set {m}: error {err:.1e}");
                let Factors::Switching(f) = &lu.factors else { panic!("not the switching LU") };
                let r = &f.patterns[f.current];
                let on = r.off.iter().filter(|o| !**o).count();
                assert!((1..=2).contains(&on), "set {m}: {on} parts on");
                // The chain (3 n - 2), the diagonals of the contact rows, and at most 6 + 2
                // entries of each part on.
                assert!(r.row_idx.len() <= 3 * n - 2 + (full.dim() - n) + 8 * on, "{} entries", r.row_idx.len());
                assert!(f.patterns.len() <= super::KEPT_PATTERNS);
            }
        }
        // Every neighbouring pair on (19 independent rows on the 20 coordinates).
        let (a, x) = contacts(n, k, |i, j| j == i + 1);
        assert!(solve(&a, &mut lu, &x) < 1e-12);
    }

    /// An entry a permanent block shares with a part is never left out: a coupling given by
    /// both a spring and a contact between the same coordinates stays while the contact is open.
    #[test]
    fn an_entry_shared_with_a_permanent_block_stays() {
        let mut b = PatternBuilder::new(40);
        for i in 0..39 {
            b.block(&[i, i + 1], &[i, i + 1]);
        }
        b.block(&[0, 30], &[0, 30]);
        let part = b.switchable_part();
        b.switchable_block(part, &[39], &[0, 30]);
        b.switchable_block(part, &[0, 30], &[39]);
        b.switchable_block(part, &[0, 30], &[0, 30]);
        let mut a = b.build();
        for (i, j, _) in a.entries().collect::<Vec<_>>() {
            let s = a.slot(i, j);
            let contact = (i == 39) != (j == 39);
            a.values[s] = if contact {
                0.0
            } else if i == j {
                4.0
            } else {
                -1.0
            };
        }
        let x: Vec<f64> = (0..40).map(|i| 1.0 + i as f64).collect();
        let mut lu = SparseLu::new(&a);
        assert!(solve(&a, &mut lu, &x) < 1e-12);
    }
}
