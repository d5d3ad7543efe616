//! The inertia shape integrals of the planar floating-frame beam, gathered in one Gram matrix.
//!
//! Every quantity of a material point that the beam's Lagrange equations integrate is, for a
//! given state, a linear combination of the point's *shape features*
//!   f(x) = (1, x, Phi_x(x), Phi_y(x), H(x))   (H symmetric, stored as its upper triangle),
//! with coefficients that depend on the state only: the local position
//! p = (x + Phi_x A - B^T H B / 2, Phi_y B) (Guo et al. 2017, eq. 1), its rates, the columns of
//! L = dp_global/dq and of the local acceleration w and its derivatives. So every integral
//! int rho S u(x) v(x) dx of two such quantities is c_u^T G c_v with the Gram matrix
//! G = int rho S f f^T dx: the inertia shape integrals of the floating frame of reference
//! formulation (Shabana, *Dynamics of Multibody Systems*, 3rd ed., 2005), here with the
//! second-order shortening term of Guo et al.'s eq. 1, which adds the H features. G is computed once
//! per beam type by the element's quadrature; an evaluation then costs a few products with G
//! ((2 + 2N + N(N+1)/2)^2 each) instead of a pass over every quadrature point.

use nalgebra::{DMatrix, DVector};

/// Largest number of features: 2 + 2N + N(N+1)/2 at N = 20 modes per direction.
pub const MAX_FEATURES: usize = 2 + 2 * 20 + 20 * 21 / 2;

/// Features of up to 8 modes per direction (54): the forms' capacity for the common sizes.
pub const SMALL_FEATURES: usize = 2 + 2 * 8 + 8 * 9 / 2;

/// Index of the feature `1`.
pub const ONE: usize = 0;
/// Index of the feature `x`.
pub const X: usize = 1;

/// The layout of the features for N modes per direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Features {
    pub modes: usize,
}

impl Features {
    pub fn len(&self) -> usize {
        2 + 2 * self.modes + self.modes * (self.modes + 1) / 2
    }

    pub fn phi_x(&self, i: usize) -> usize {
        2 + i
    }

    pub fn phi_y(&self, i: usize) -> usize {
        2 + self.modes + i
    }

    /// Index of H_il (= H_li).
    pub fn h(&self, i: usize, l: usize) -> usize {
        let (i, l) = if i <= l { (i, l) } else { (l, i) };
        2 + 2 * self.modes + i * (2 * self.modes - i - 1) / 2 + l
    }

    /// Adds k Phi_x . v to the linear form `c`.
    pub fn add_phi_x(&self, c: &mut [f64], k: f64, v: &[f64]) {
        for (ci, vi) in c[2..2 + self.modes].iter_mut().zip(v) {
            *ci += k * vi;
        }
    }

    /// Adds k Phi_y . v to the linear form `c`.
    pub fn add_phi_y(&self, c: &mut [f64], k: f64, v: &[f64]) {
        for (ci, vi) in c[2 + self.modes..2 + 2 * self.modes].iter_mut().zip(v) {
            *ci += k * vi;
        }
    }

    /// Adds k u^T H v to the linear form `c`.
    pub fn add_quadratic(&self, c: &mut [f64], k: f64, u: &[f64], v: &[f64]) {
        for i in 0..self.modes {
            c[self.h(i, i)] += k * u[i] * v[i];
            for l in i + 1..self.modes {
                c[self.h(i, l)] += k * (u[i] * v[l] + u[l] * v[i]);
            }
        }
    }

    /// Adds k (H v)_i to the linear form `c`.
    pub fn add_h_row(&self, c: &mut [f64], k: f64, i: usize, v: &[f64]) {
        for (l, vl) in v.iter().enumerate().take(self.modes) {
            c[self.h(i, l)] += k * vl;
        }
    }

    /// u^T H v as the linear form `add_quadratic` builds, dotted with d.
    pub fn quadratic_dot(&self, d: &[f64], u: &[f64], v: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..self.modes {
            s += d[self.h(i, i)] * u[i] * v[i];
            for l in i + 1..self.modes {
                s += d[self.h(i, l)] * (u[i] * v[l] + u[l] * v[i]);
            }
        }
        s
    }

    /// (H v)_i as the linear form `add_h_row` builds, dotted with d.
    pub fn h_row_dot(&self, d: &[f64], i: usize, v: &[f64]) -> f64 {
        v.iter().take(self.modes).enumerate().map(|(l, vl)| d[self.h(i, l)] * vl).sum()
    }

    /// The feature vector of a point.
    fn of_point(&self, x: f64, phi_x: &DVector<f64>, phi_y: &DVector<f64>, h: &DMatrix<f64>) -> Vec<f64> {
        let mut f = vec![0.0; self.len()];
        f[ONE] = 1.0;
        f[X] = x;
        for i in 0..self.modes {
            f[self.phi_x(i)] = phi_x[i];
            f[self.phi_y(i)] = phi_y[i];
            for l in i..self.modes {
                f[self.h(i, l)] = h[(i, l)];
            }
        }
        f
    }
}

/// G = sum over quadrature points of w rho S f f^T (symmetric, stored whole, row-major).
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeGram {
    pub features: Features,
    gram: Vec<f64>,
}

impl ShapeGram {
    pub fn new(modes: usize) -> Self {
        let features = Features { modes };
        ShapeGram { features, gram: vec![0.0; features.len() * features.len()] }
    }

    /// Adds the point at abscissa x with weight `mu` (rho S times the quadrature weight).
    pub fn add_point(&mut self, mu: f64, x: f64, phi_x: &DVector<f64>, phi_y: &DVector<f64>, h: &DMatrix<f64>) {
        let f = self.features.of_point(x, phi_x, phi_y, h);
        let m = f.len();
        for (row, fi) in self.gram.chunks_exact_mut(m).zip(&f) {
            for (g, fj) in row.iter_mut().zip(&f) {
                *g += mu * fi * fj;
            }
        }
    }

    /// int rho S dx: the mass.
    pub fn mass(&self) -> f64 {
        self.gram[0]
    }

    /// d_k = G c_k for K forms in one pass over G: d_k holds the integrals int rho S f u_k dx
    /// of the quantities u_k with the linear forms c_k.
    pub fn apply<const K: usize>(&self, c: [&[f64]; K], mut d: [&mut [f64]; K]) {
        let m = self.features.len();
        for (i, row) in self.gram.chunks_exact(m).enumerate() {
            for (ck, dk) in c.iter().zip(d.iter_mut()) {
                dk[i] = row_dot(row, &ck[..m]);
            }
        }
    }

    /// int rho S u v dx = c_u^T G c_v.
    pub fn inner(&self, c: &[f64], e: &[f64]) -> f64 {
        let m = self.features.len();
        let mut d = [0.0; MAX_FEATURES];
        self.apply([c], [&mut d[..]]);
        d[..m].iter().zip(&e[..m]).map(|(a, b)| a * b).sum()
    }
}

/// a . b in four partial sums (independent chains that the processor overlaps).
#[inline(always)]
fn row_dot(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..4 {
            acc[k] += x[k] * y[k];
        }
    }
    let rest: f64 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    (acc[0] + acc[2]) + (acc[1] + acc[3]) + rest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_indices_cover_the_upper_triangle_once() {
        for n in 1..=20 {
            let f = Features { modes: n };
            let mut seen = vec![false; f.len()];
            for i in 0..n {
                for l in 0..n {
                    assert_eq!(f.h(i, l), f.h(l, i));
                    if i <= l {
                        assert!(!seen[f.h(i, l)], "n {n}: ({i}, {l}) twice");
                        seen[f.h(i, l)] = true;
                    }
                }
            }
            assert!(seen[2 + 2 * n..].iter().all(|&s| s), "n {n}");
            assert!(f.len() <= MAX_FEATURES);
        }
    }
}
