//! The reverse Cuthill-McKee ordering of a sparse pattern (Cuthill & McKee, "Reducing the
//! bandwidth of sparse symmetric matrices", 1969; reversed as George, 1971), from a
//! pseudo-peripheral start node of each connected component (Gibbs, Poole & Stockmeyer, 1976:
//! the George & Liu search, Computer Solution of Large Sparse Positive Definite Systems, 1981,
//! sec. 4.3.3). It numbers a chain of beam elements node after node whatever order the model
//! file gave them in, and puts a joint's multiplier rows beside the coordinates they hold, so
//! the Newton matrix of a beam model becomes banded with a bandwidth of a few nodes' coordinates
//! (src/linalg/banded_lu.rs).

/// The symmetrized pattern of a square compressed-column pattern, without the diagonal, as
/// adjacency lists (`start`, `adjacent`).
struct Graph {
    start: Vec<usize>,
    adjacent: Vec<usize>,
}

impl Graph {
    fn new(n: usize, col_ptr: &[usize], row_idx: &[usize]) -> Self {
        let mut degree = vec![0usize; n + 1];
        for j in 0..n {
            for &i in &row_idx[col_ptr[j]..col_ptr[j + 1]] {
                if i != j {
                    degree[i + 1] += 1;
                    degree[j + 1] += 1;
                }
            }
        }
        for i in 0..n {
            degree[i + 1] += degree[i];
        }
        let mut next = degree.clone();
        let mut adjacent = vec![0usize; degree[n]];
        for j in 0..n {
            for &i in &row_idx[col_ptr[j]..col_ptr[j + 1]] {
                if i != j {
                    adjacent[next[i]] = j;
                    next[i] += 1;
                    adjacent[next[j]] = i;
                    next[j] += 1;
                }
            }
        }
        // Each list sorted and deduplicated in place (an entry and its transpose both appear).
        let mut start = vec![0usize; n + 1];
        let mut kept = 0;
        for i in 0..n {
            let (from, to) = (degree[i], degree[i + 1]);
            adjacent[from..to].sort_unstable();
            let first = kept;
            for k in from..to {
                let a = adjacent[k];
                if kept == first || adjacent[kept - 1] != a {
                    adjacent[kept] = a;
                    kept += 1;
                }
            }
            start[i + 1] = kept;
        }
        adjacent.truncate(kept);
        Graph { start, adjacent }
    }

    fn neighbours(&self, i: usize) -> &[usize] {
        &self.adjacent[self.start[i]..self.start[i + 1]]
    }

    fn degree(&self, i: usize) -> usize {
        self.start[i + 1] - self.start[i]
    }

    /// The breadth-first level structure from `root` over the unnumbered nodes: the nodes in
    /// visiting order into `order` (from its current end), returns the number of levels and the
    /// first node of the last level's range in `order`. `mark` holds `stamp` for visited nodes.
    fn levels(
        &self,
        root: usize,
        numbered: &[bool],
        mark: &mut [usize],
        stamp: usize,
        order: &mut Vec<usize>,
    ) -> (usize, usize) {
        let begin = order.len();
        order.push(root);
        mark[root] = stamp;
        let (mut level_start, mut depth) = (begin, 0);
        loop {
            let level_end = order.len();
            depth += 1;
            for k in level_start..level_end {
                let i = order[k];
                for &j in self.neighbours(i) {
                    if !numbered[j] && mark[j] != stamp {
                        mark[j] = stamp;
                        order.push(j);
                    }
                }
            }
            if order.len() == level_end {
                return (depth, level_start);
            }
            level_start = level_end;
        }
    }
}

/// The reverse Cuthill-McKee permutation of a square pattern (compressed columns; the pattern
/// is symmetrized): `perm[new] = old`.
pub fn reverse_cuthill_mckee(n: usize, col_ptr: &[usize], row_idx: &[usize]) -> Vec<usize> {
    let graph = Graph::new(n, col_ptr, row_idx);
    let mut numbered = vec![false; n];
    let mut mark = vec![usize::MAX; n];
    let mut stamp = 0;
    let mut order = Vec::with_capacity(n);
    let mut scratch = Vec::with_capacity(n);
    for seed in 0..n {
        if numbered[seed] {
            continue;
        }
        // The component's node of least degree, then the George & Liu search for a
        // pseudo-peripheral node: from the root, a node of least degree in the last level,
        // while that deepens the level structure.
        let mut root = seed;
        scratch.clear();
        graph.levels(seed, &numbered, &mut mark, stamp, &mut scratch);
        stamp += 1;
        for &i in &scratch {
            if graph.degree(i) < graph.degree(root) {
                root = i;
            }
        }
        let mut depth = 0;
        for _ in 0..n {
            scratch.clear();
            let (d, last) = graph.levels(root, &numbered, &mut mark, stamp, &mut scratch);
            stamp += 1;
            let far = scratch[last..].iter().copied().min_by_key(|&i| graph.degree(i)).expect("a level has a node");
            if d <= depth {
                break;
            }
            depth = d;
            root = far;
        }
        // Cuthill-McKee from the root: breadth first, each node's unnumbered neighbours by
        // increasing degree.
        let begin = order.len();
        order.push(root);
        numbered[root] = true;
        let mut k = begin;
        while k < order.len() {
            let i = order[k];
            let from = order.len();
            for &j in graph.neighbours(i) {
                if !numbered[j] {
                    numbered[j] = true;
                    order.push(j);
                }
            }
            order[from..].sort_by_key(|&j| (graph.degree(j), j));
            k += 1;
        }
    }
    order.reverse();
    order
}

/// The lower and upper bandwidths (kl, ku) of the pattern renumbered by `perm`
/// (`inverse[old] = new`): the largest i - j and j - i over its entries (i, j).
pub fn bandwidths(n: usize, col_ptr: &[usize], row_idx: &[usize], inverse: &[usize]) -> (usize, usize) {
    let (mut kl, mut ku) = (0usize, 0usize);
    for j in 0..n {
        let jn = inverse[j];
        for &i in &row_idx[col_ptr[j]..col_ptr[j + 1]] {
            let ii = inverse[i];
            if ii > jn {
                kl = kl.max(ii - jn);
            } else {
                ku = ku.max(jn - ii);
            }
        }
    }
    (kl, ku)
}

/// `inverse[perm[k]] = k`.
pub fn inverse(perm: &[usize]) -> Vec<usize> {
    let mut inv = vec![0usize; perm.len()];
    for (k, &p) in perm.iter().enumerate() {
        inv[p] = k;
    }
    inv
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The compressed columns of a symmetric pattern given by its off-diagonal pairs.
    fn pattern(n: usize, pairs: &[(usize, usize)]) -> (Vec<usize>, Vec<usize>) {
        let mut columns = vec![vec![]; n];
        for (i, column) in columns.iter_mut().enumerate() {
            column.push(i);
        }
        for &(i, j) in pairs {
            columns[j].push(i);
            columns[i].push(j);
        }
        let mut col_ptr = vec![0];
        let mut row_idx = vec![];
        for mut c in columns {
            c.sort_unstable();
            c.dedup();
            row_idx.extend(c);
            col_ptr.push(row_idx.len());
        }
        (col_ptr, row_idx)
    }

    /// A path numbered at random becomes tridiagonal; every node is numbered once.
    #[test]
    fn a_shuffled_path_becomes_tridiagonal() {
        let n = 40;
        // A path through the nodes in the order of a fixed shuffle (i * 17 mod 40).
        let walk: Vec<usize> = (0..n).map(|i| (i * 17) % n).collect();
        let pairs: Vec<_> = walk.windows(2).map(|w| (w[0], w[1])).collect();
        let (col_ptr, row_idx) = pattern(n, &pairs);
        let identity: Vec<usize> = (0..n).collect();
        assert!(bandwidths(n, &col_ptr, &row_idx, &identity).0 > 10);
        let perm = reverse_cuthill_mckee(n, &col_ptr, &row_idx);
        let mut seen = perm.clone();
        seen.sort_unstable();
        assert_eq!(seen, identity);
        assert_eq!(bandwidths(n, &col_ptr, &row_idx, &inverse(&perm)), (1, 1));
    }

    /// A ladder (two coupled paths) of 2 x 30 nodes reaches bandwidth 2; a second component
    /// (an isolated node and a triangle) is numbered too.
    #[test]
    fn a_ladder_and_separate_components() {
        let m = 30;
        let mut pairs = vec![];
        for k in 0..m {
            pairs.push((k, m + k));
            if k + 1 < m {
                pairs.push((k, k + 1));
                pairs.push((m + k, m + k + 1));
            }
        }
        let n = 2 * m + 4;
        pairs.extend([(2 * m + 1, 2 * m + 2), (2 * m + 2, 2 * m + 3), (2 * m + 1, 2 * m + 3)]);
        let (col_ptr, row_idx) = pattern(n, &pairs);
        let perm = reverse_cuthill_mckee(n, &col_ptr, &row_idx);
        let mut seen = perm.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..n).collect::<Vec<_>>());
        let (kl, ku) = bandwidths(n, &col_ptr, &row_idx, &inverse(&perm));
        assert_eq!((kl, ku), (2, 2));
    }
}
