//! Constraint rows grouped by the coordinates they share: two rows are in one group when a
//! chain of rows, each sharing a coordinate with the next, joins them. The initial-state
//! projection (`initial_state::consistent_initial_state`) works on dense matrices per group, so
//! a model of many independent joints (a point mass on a slider each, spatial bodies with
//! their Euler-parameter rows) costs time linear in its size, not cubic.

/// Rows of one group (ascending) and the coordinates they involve (ascending).
#[derive(Debug, Clone, PartialEq)]
pub struct ConstraintGroup {
    pub rows: Vec<usize>,
    pub coordinates: Vec<usize>,
}

impl ConstraintGroup {
    /// The column of coordinate `i` in this group's dense matrices.
    pub fn column(&self, i: usize) -> Option<usize> {
        self.coordinates.binary_search(&i).ok()
    }
}

/// Groups of the rows whose coordinates `dofs(r)` lists, r = 0..rows, in the order of their
/// first rows; `n` is the number of coordinates.
pub fn constraint_groups<'a>(rows: usize, n: usize, dofs: impl Fn(usize) -> &'a [usize]) -> Vec<ConstraintGroup> {
    // Union-find over rows, joined through the first row that touched each coordinate.
    let mut parent: Vec<usize> = (0..rows).collect();
    fn root(parent: &mut [usize], mut r: usize) -> usize {
        while parent[r] != r {
            parent[r] = parent[parent[r]];
            r = parent[r];
        }
        r
    }
    let mut owner = vec![usize::MAX; n];
    for r in 0..rows {
        for &i in dofs(r) {
            if owner[i] == usize::MAX {
                owner[i] = r;
            } else {
                let (a, b) = (root(&mut parent, owner[i]), root(&mut parent, r));
                // The smaller row is the root: groups keep the order of their first rows.
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    let mut index = vec![usize::MAX; rows];
    let mut groups: Vec<ConstraintGroup> = Vec::new();
    for r in 0..rows {
        let g = root(&mut parent, r);
        if index[g] == usize::MAX {
            index[g] = groups.len();
            groups.push(ConstraintGroup { rows: Vec::new(), coordinates: Vec::new() });
        }
        let group = &mut groups[index[g]];
        group.rows.push(r);
        group.coordinates.extend_from_slice(dofs(r));
    }
    for g in &mut groups {
        g.coordinates.sort_unstable();
        g.coordinates.dedup();
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_sharing_coordinates_form_one_group() {
        let dofs: Vec<Vec<usize>> = vec![vec![0, 1], vec![4], vec![1, 2], vec![], vec![5, 4], vec![2, 3]];
        let groups = constraint_groups(dofs.len(), 6, |r| &dofs[r]);
        let rows: Vec<&[usize]> = groups.iter().map(|g| g.rows.as_slice()).collect();
        assert_eq!(rows, [&[0, 2, 5][..], &[1, 4], &[3]]);
        assert_eq!(groups[0].coordinates, [0, 1, 2, 3]);
        assert_eq!(groups[1].coordinates, [4, 5]);
        assert_eq!((groups[0].column(2), groups[0].column(4)), (Some(2), None));
    }
}
