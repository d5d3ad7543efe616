//! A point mass in the plane (D = 2, coordinates x, y) or in space (D = 3, x, y, z): the
//! constant mass matrix m I, the weight m g and the energies m v.v / 2 and -m g.r. One
//! element over the dimension; the planar and the spatial one are registered as two kinds
//! (`System::with_kinds`), so the plane's summation order is what it always was.

use super::{Element, Energy, Kin};
use crate::integrators::TangentCoefficients;

/// `PointMass` alone is the planar one.
#[derive(Debug, Clone, PartialEq)]
pub struct PointMass<const D: usize = 2> {
    dofs: [usize; D],
    pub mass: f64,
    pub gravity: [f64; D],
}

impl<const D: usize> PointMass<D> {
    /// The point mass whose D coordinates start at `x`.
    pub fn new(x: usize, mass: f64, gravity: [f64; D]) -> Self {
        PointMass { dofs: std::array::from_fn(|k| x + k), mass, gravity }
    }

    /// Its first coordinate.
    pub fn first(&self) -> usize {
        self.dofs[0]
    }

    /// Its angular momentum m r x v about the global origin (spatial point masses;
    /// `momentum.rs`).
    pub fn angular_momentum(&self, q: &[f64], v: &[f64]) -> [f64; 3] {
        let r: [f64; 3] = std::array::from_fn(|k| if k < D { q[self.dofs[k]] } else { 0.0 });
        let p: [f64; 3] = std::array::from_fn(|k| if k < D { self.mass * v[self.dofs[k]] } else { 0.0 });
        crate::mechanics::euler_parameters::cross(r, p)
    }
}

impl<const D: usize> Element for PointMass<D> {
    fn dofs(&self) -> &[usize] {
        &self.dofs
    }

    fn add_forces(&self, x: &Kin, inertial: &mut [f64], forces: &mut [f64]) {
        for k in 0..D {
            let i = self.dofs[k];
            inertial[i] += self.mass * x.a[i];
            forces[i] -= self.mass * self.gravity[k];
        }
    }

    fn add_tangent(&self, _x: &Kin, c: &TangentCoefficients, block: &mut [f64]) {
        for k in 0..D {
            block[k * D + k] += c.mass * self.mass;
        }
    }

    fn energy(&self, x: &Kin) -> Energy {
        // Summed from the first coordinate on: in the plane the very sums of the planar element.
        let (mut vv, mut gr) = (x.v[self.dofs[0]] * x.v[self.dofs[0]], self.gravity[0] * x.q[self.dofs[0]]);
        for k in 1..D {
            let i = self.dofs[k];
            vv += x.v[i] * x.v[i];
            gr += self.gravity[k] * x.q[i];
        }
        Energy { kinetic: 0.5 * self.mass * vv, potential: -self.mass * gr }
    }
}
