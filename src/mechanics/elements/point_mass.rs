//! A point mass in the plane: coordinates (x, y).

use super::{Element, Energy, Kin};
use crate::integrators::TangentCoefficients;

#[derive(Debug, Clone, PartialEq)]
pub struct PointMass {
    dofs: [usize; 2],
    pub mass: f64,
    pub gravity: [f64; 2],
}

impl PointMass {
    pub fn new(x: usize, mass: f64, gravity: [f64; 2]) -> Self {
        PointMass { dofs: [x, x + 1], mass, gravity }
    }
}

impl Element for PointMass {
    fn dofs(&self) -> &[usize] {
        &self.dofs
    }

    fn add_forces(&self, x: &Kin, inertial: &mut [f64], forces: &mut [f64]) {
        for k in 0..2 {
            let i = self.dofs[k];
            inertial[i] += self.mass * x.a[i];
            forces[i] -= self.mass * self.gravity[k];
        }
    }

    fn add_tangent(&self, _x: &Kin, c: &TangentCoefficients, block: &mut [f64]) {
        block[0] += c.mass * self.mass;
        block[3] += c.mass * self.mass;
    }

    fn energy(&self, x: &Kin) -> Energy {
        let [i, j] = self.dofs;
        Energy {
            kinetic: 0.5 * self.mass * (x.v[i] * x.v[i] + x.v[j] * x.v[j]),
            potential: -self.mass * (self.gravity[0] * x.q[i] + self.gravity[1] * x.q[j]),
        }
    }
}
