//! Linear spring-damper acting along a kinematic measure s (a distance, a prismatic joint
//! coordinate, a relative angle): generalized force G^T f with f = k (s - s0) + c s'.
//! Tangents: K = (k G + c (H v)) G^T + f H, C = c G G^T (see `kinematics`).

use crate::integrators::TangentCoefficients;
use crate::mechanics::elements::{Element, Energy, Kin};
use crate::mechanics::kinematics::{Jet, MAX_DOFS, Measure};

#[derive(Debug, Clone, PartialEq)]
pub struct SpringDamper {
    pub measure: Measure,
    pub stiffness: f64,
    pub damping: f64,
    /// s0: the measure at which the spring force vanishes.
    pub free_value: f64,
}

impl SpringDamper {
    /// (s, s', G and, if `H` > 0, the Hessian) at the current state.
    fn eval<const H: usize>(&self, x: &Kin) -> (f64, f64, Jet<MAX_DOFS, H>) {
        let d = self.measure.jet(x.q);
        let rate = self.measure.dofs().iter().enumerate().map(|(k, &i)| d.gradient[k] * x.v[i]).sum();
        (d.value, rate, d)
    }

    /// Tension-positive force along the measure.
    pub fn force(&self, q: &[f64], v: &[f64]) -> f64 {
        let s = self.measure.value(q);
        self.stiffness * (s - self.free_value) + self.damping * self.measure.rate(q, v)
    }
}

impl Element for SpringDamper {
    fn dofs(&self) -> &[usize] {
        self.measure.dofs()
    }

    fn add_forces(&self, x: &Kin, _inertial: &mut [f64], forces: &mut [f64]) {
        let (s, rate, d) = self.eval::<0>(x);
        let f = self.stiffness * (s - self.free_value) + self.damping * rate;
        for (k, &i) in self.measure.dofs().iter().enumerate() {
            forces[i] += f * d.gradient[k];
        }
    }

    fn add_tangent(&self, x: &Kin, c: &TangentCoefficients, block: &mut [f64]) {
        let (s, rate, d) = self.eval::<{ MAX_DOFS * MAX_DOFS }>(x);
        let f = self.stiffness * (s - self.free_value) + self.damping * rate;
        let dofs = self.measure.dofs();
        let n = dofs.len();
        // (H v)_a
        let mut hv = [0.0; MAX_DOFS];
        for (a, h) in hv.iter_mut().enumerate().take(n) {
            *h = (0..n).map(|b| d.hessian[a * n + b] * x.v[dofs[b]]).sum();
        }
        for a in 0..n {
            for b in 0..n {
                let k =
                    (self.stiffness * d.gradient[b] + self.damping * hv[b]) * d.gradient[a] + f * d.hessian[a * n + b];
                let cc = self.damping * d.gradient[a] * d.gradient[b];
                block[a * n + b] += c.stiffness * k + c.damping * cc;
            }
        }
    }

    fn energy(&self, x: &Kin) -> Energy {
        let s = self.measure.value(x.q);
        Energy { kinetic: 0.0, potential: 0.5 * self.stiffness * (s - self.free_value).powi(2) }
    }

    const DISSIPATIVE: bool = true;

    fn dissipation_power(&self, x: &Kin) -> f64 {
        let rate = self.measure.rate(x.q, x.v);
        self.damping * rate * rate
    }
}
