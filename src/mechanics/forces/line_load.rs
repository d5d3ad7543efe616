//! A uniform force per unit length on one planar beam element (`type = "distributed_force"`
//! in `[[loads]]`, src/mechanics/loads/distributed_force.rs): its consistent nodal load, the
//! virtual work of the force density f (N per metre of the undeformed element, along a fixed
//! global direction) on the element's interpolated centre line r(xi),
//!   Q = l0 int_0^1 (dr/dq)^T f dxi,
//! exactly as the element takes its own weight (gravity is the case f = rho A g):
//!
//! - corotational (Timoshenko, Euler-Bernoulli; `corotational_beam_2d.rs`): the chord's share
//!   l0 f / 2 at each node and the end moments +-(l0^2 / 12) f . n of the cubic transverse field
//!   (`chord_load_potential`), which turn with the chord normal n, hence a load stiffness;
//! - ANCF (paper 003, `ancf_beam_2d.rs`): the quadratic positions' shares l0 (1/6, 2/3, 1/6),
//!   constant.
//!
//! f is conservative for a constant magnitude (the potential -f . int r dx, `potential`), but
//! its magnitude follows time and inputs, so its work is counted in `energy_supplied` like any
//! load's (`Load`): over a step, exactly the change of that potential at the step's magnitude.

use crate::mechanics::elements::corotational_beam_2d::{V6, add_chord_load_hessian, chord_load_potential};

/// One element of a beam as a distributed force sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LineSegment {
    /// A corotational element between the nodes whose coordinates (x, y, th) start at `nodes`.
    Chord { nodes: [usize; 2], l0: f64 },
    /// An ANCF element of three nodes (x, y, d1, d2) starting at `nodes` (end, middle, end).
    Quadratic { nodes: [usize; 3], l0: f64 },
}

impl LineSegment {
    /// The coordinates the load acts on: the chord's (x, y, th) of both nodes, the ANCF
    /// nodes' positions (x, y).
    pub fn dofs(&self) -> Vec<usize> {
        match *self {
            LineSegment::Chord { nodes, .. } => nodes.iter().flat_map(|&x| [x, x + 1, x + 2]).collect(),
            LineSegment::Quadratic { nodes, .. } => nodes.iter().flat_map(|&x| [x, x + 1]).collect(),
        }
    }

    /// The generalized force Q of the load density `f` (N/m) at `q`, each component given to
    /// `out` with its index in `dofs`.
    pub fn generalized_force(&self, f: [f64; 2], q: &[f64], mut out: impl FnMut(usize, f64)) {
        match *self {
            LineSegment::Chord { nodes, l0 } => {
                let e = chord_coordinates(nodes, q);
                let (dx, dy) = (e[3] - e[0], e[4] - e[1]);
                let inv_l = 1.0 / (dx * dx + dy * dy).sqrt();
                // Q = -grad V, V = -l0 f . (x1 + x2) / 2 + V_c(d = x2 - x1, th1 - th2).
                let (_, grad_d, grad_th) = chord_load_potential(l0 * l0 / 12.0, f, &e, inv_l);
                for k in 0..2 {
                    out(k, 0.5 * l0 * f[k] + grad_d[k]);
                    out(3 + k, 0.5 * l0 * f[k] - grad_d[k]);
                }
                out(2, -grad_th);
                out(5, grad_th);
            }
            LineSegment::Quadratic { l0, .. } => {
                for (m, share) in [l0 / 6.0, 2.0 * l0 / 3.0, l0 / 6.0].into_iter().enumerate() {
                    out(2 * m, share * f[0]);
                    out(2 * m + 1, share * f[1]);
                }
            }
        }
    }

    /// The potential V of the load density `f` at `q` (Q = -grad V): -f . int r dx over the
    /// element's interpolated centre line.
    pub fn potential(&self, f: [f64; 2], q: &[f64]) -> f64 {
        match *self {
            LineSegment::Chord { nodes, l0 } => {
                let e = chord_coordinates(nodes, q);
                let inv_l = 1.0 / ((e[3] - e[0]).powi(2) + (e[4] - e[1]).powi(2)).sqrt();
                -0.5 * l0 * (f[0] * (e[0] + e[3]) + f[1] * (e[1] + e[4]))
                    + chord_load_potential(l0 * l0 / 12.0, f, &e, inv_l).0
            }
            LineSegment::Quadratic { nodes, l0 } => {
                let shares = [l0 / 6.0, 2.0 * l0 / 3.0, l0 / 6.0];
                -nodes.iter().zip(shares).map(|(&x, s)| s * (f[0] * q[x] + f[1] * q[x + 1])).sum::<f64>()
            }
        }
    }

    /// -dQ/dq times `scale` added to the row-major `block` over `dofs` (the Newton matrix's
    /// part of a load whose force enters the residual as -Q).
    pub fn add_tangent(&self, f: [f64; 2], q: &[f64], scale: f64, block: &mut [f64]) {
        if let LineSegment::Chord { nodes, l0 } = *self {
            // -dQ/dq = the Hessian of V, which only its cubic part V_c has.
            add_chord_load_hessian(l0 * l0 / 12.0, f, &chord_coordinates(nodes, q), scale, block);
        }
    }
}

/// The element's (x1, y1, th1, x2, y2, th2).
fn chord_coordinates([a, b]: [usize; 2], q: &[f64]) -> V6 {
    V6::from([q[a], q[a + 1], q[a + 2], q[b], q[b + 1], q[b + 2]])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Q against minus the gradient of the potential -l0 f . (x1 + x2) / 2 + V_c by central
    /// differences, and the tangent against differences of Q, at a bent, stretched, turned
    /// element.
    #[test]
    fn the_chord_load_is_the_gradient_of_its_potential_and_its_tangent_the_gradient_of_the_load() {
        let (l0, f) = (0.7, [3.0, -5.0]);
        let seg = LineSegment::Chord { nodes: [0, 3], l0 };
        let q = [0.1, 0.2, 0.3, 0.75, 0.45, -0.2];
        let potential = |q: &[f64]| {
            let e = chord_coordinates([0, 3], q);
            let inv_l = 1.0 / ((e[3] - e[0]).powi(2) + (e[4] - e[1]).powi(2)).sqrt();
            -0.5 * l0 * (f[0] * (q[0] + q[3]) + f[1] * (q[1] + q[4]))
                + chord_load_potential(l0 * l0 / 12.0, f, &e, inv_l).0
        };
        let force = |q: &[f64]| {
            let mut g = [0.0; 6];
            seg.generalized_force(f, q, |k, v| g[k] += v);
            g
        };
        let g = force(&q);
        assert!((seg.potential(f, &q) - potential(&q)).abs() < 1e-15, "the element's potential");
        let mut block = [0.0; 36];
        seg.add_tangent(f, &q, 1.0, &mut block);
        let h = 1e-6;
        for j in 0..6 {
            let (mut qp, mut qm) = (q, q);
            qp[j] += h;
            qm[j] -= h;
            let dv = (potential(&qp) - potential(&qm)) / (2.0 * h);
            assert!((g[j] + dv).abs() < 1e-8, "Q_{j} = {} against -dV/dq = {}", g[j], -dv);
            let (gp, gm) = (force(&qp), force(&qm));
            for i in 0..6 {
                let d = -(gp[i] - gm[i]) / (2.0 * h);
                assert!((block[6 * i + j] - d).abs() < 1e-7, "({i}, {j}): {} against {d}", block[6 * i + j]);
            }
        }
    }

    /// A straight unloaded element along x under a transverse load: the nodal forces are half
    /// the total and the end moments +-f l0^2 / 12 (the fixed-end moments of a uniform load).
    #[test]
    fn a_straight_element_takes_the_textbook_consistent_load() {
        let (l0, w) = (2.0, -3.0);
        let seg = LineSegment::Chord { nodes: [0, 3], l0 };
        let mut g = [0.0; 6];
        seg.generalized_force([0.0, w], &[0.0, 0.0, 0.0, l0, 0.0, 0.0], |k, v| g[k] += v);
        let expected = [0.0, w * l0 / 2.0, w * l0 * l0 / 12.0, 0.0, w * l0 / 2.0, -w * l0 * l0 / 12.0];
        for (a, b) in g.iter().zip(expected) {
            assert!((a - b).abs() < 1e-14, "{g:?} against {expected:?}");
        }
    }
}
