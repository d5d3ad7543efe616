//! A planar rigid body: coordinates (x, y, theta) of its centre of mass and orientation.
//! With the reference point at the centre of mass the mass matrix is constant,
//! diag(m, m, J), and there are no quadratic-velocity forces.

use super::{Element, Energy, Kin};
use crate::integrators::TangentCoefficients;

#[derive(Debug, Clone, PartialEq)]
pub struct RigidBody2d {
    dofs: [usize; 3],
    pub mass: f64,
    /// Moment of inertia about the centre of mass.
    pub inertia: f64,
    pub gravity: [f64; 2],
}

impl RigidBody2d {
    pub fn new(x: usize, mass: f64, inertia: f64, gravity: [f64; 2]) -> Self {
        RigidBody2d { dofs: [x, x + 1, x + 2], mass, inertia, gravity }
    }
}

impl Element for RigidBody2d {
    fn dofs(&self) -> &[usize] {
        &self.dofs
    }

    fn add_forces(&self, x: &Kin, inertial: &mut [f64], forces: &mut [f64]) {
        let [i, j, k] = self.dofs;
        inertial[i] += self.mass * x.a[i];
        inertial[j] += self.mass * x.a[j];
        inertial[k] += self.inertia * x.a[k];
        forces[i] -= self.mass * self.gravity[0];
        forces[j] -= self.mass * self.gravity[1];
    }

    fn add_tangent(&self, _x: &Kin, c: &TangentCoefficients, block: &mut [f64]) {
        block[0] += c.mass * self.mass;
        block[4] += c.mass * self.mass;
        block[8] += c.mass * self.inertia;
    }

    fn energy(&self, x: &Kin) -> Energy {
        let [i, j, k] = self.dofs;
        Energy {
            kinetic: 0.5 * self.mass * (x.v[i] * x.v[i] + x.v[j] * x.v[j]) + 0.5 * self.inertia * x.v[k] * x.v[k],
            potential: -self.mass * (self.gravity[0] * x.q[i] + self.gravity[1] * x.q[j]),
        }
    }
}
