//! Linear spring-damper acting along a kinematic measure s (a distance, a prismatic joint
//! coordinate, a relative angle): generalized force G^T f with f = k (s - s0(t, u)) + c s'
//! (docs/model-file.md `[[springs]]`). The free length s0 is an expression of time,
//! parameters and inputs, evaluated at the stage's time and the current inputs as a load's
//! magnitude is (`Kin::t`, `Kin::inputs`); the damper acts on the rate of s itself.
//! s0 does not depend on q or v, so the tangents are those of a fixed free length:
//! K = (k G + c (H v)) G^T + f H, C = c G G^T (see `kinematics`). With respect to input i,
//! df/du_i = -k ds0/du_i (`add_input_derivative`). The potential ½ k (s - s0)² uses the
//! current s0, so it changes by the work the input does on the spring.

use crate::integrators::{EnergyFlow, Stride, TangentCoefficients};
use crate::mechanics::elements::{Element, Energy, Kin};
use crate::mechanics::kinematics::{Jet, MAX_DOFS, Measure};
use crate::model::expr::Expr;

#[derive(Debug, Clone, PartialEq)]
pub struct SpringDamper {
    pub measure: Measure,
    pub stiffness: f64,
    pub damping: f64,
    /// s0(t, u): the measure at which the spring force vanishes.
    pub free_length: Expr,
}

impl SpringDamper {
    /// (s, s', G and, if `H` > 0, the Hessian) at the current state.
    fn eval<const H: usize>(&self, x: &Kin) -> (f64, f64, Jet<MAX_DOFS, H>) {
        let d = self.measure.jet(x.q);
        let rate = self.measure.dofs().iter().enumerate().map(|(k, &i)| d.gradient[k] * x.v[i]).sum();
        (d.value, rate, d)
    }

    /// s - s0(t, u) at the state `x` with measure `s`.
    fn stretch(&self, x: &Kin, s: f64) -> f64 {
        s - self.free_length.eval_interpolated(x.t, x.inputs, x.rates)
    }
}

impl Element for SpringDamper {
    fn dofs(&self) -> &[usize] {
        self.measure.dofs()
    }

    fn add_forces(&self, x: &Kin, _inertial: &mut [f64], forces: &mut [f64]) {
        let (s, rate, d) = self.eval::<0>(x);
        let f = self.stiffness * self.stretch(x, s) + self.damping * rate;
        for (k, &i) in self.measure.dofs().iter().enumerate() {
            forces[i] += f * d.gradient[k];
        }
    }

    fn add_tangent(&self, x: &Kin, c: &TangentCoefficients, block: &mut [f64]) {
        let (s, rate, d) = self.eval::<{ MAX_DOFS * MAX_DOFS }>(x);
        let f = self.stiffness * self.stretch(x, s) + self.damping * rate;
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
        Energy { kinetic: 0.0, potential: 0.5 * self.stiffness * self.stretch(x, s).powi(2) }
    }

    const NON_CONSERVATIVE: bool = true;

    fn power(&self, x: &Kin, stride: &Stride) -> EnergyFlow {
        let dissipated = match self.damping {
            0.0 => 0.0,
            c => c * self.measure.rate(x.q, x.v) * self.measure.stride_rate(stride),
        };
        let supplied = free_length_power(&self.measure, self.stiffness, &self.free_length, x);
        EnergyFlow { dissipated, supplied }
    }

    fn inputs_read(&self, out: &mut Vec<usize>) {
        self.free_length.inputs_read(out);
    }

    fn add_input_derivative(&self, x: &Kin, i: usize, forces: &mut [f64]) {
        add_free_length_derivative(&self.measure, self.stiffness, &self.free_length, x, i, forces);
    }
}

/// The power a free length s0(t) that moves in time supplies to a spring term k (s - s0) on
/// `measure`: d/dt of the potential at fixed q, -k (s - s0) ds0/dt (inputs held, as they are
/// over a step; an input's change at a communication point changes the potential at once,
/// `System::input_energy_change`). Zero for a constant s0.
pub(super) fn free_length_power(measure: &Measure, stiffness: f64, free_length: &Expr, x: &Kin) -> f64 {
    if stiffness == 0.0 || free_length.constant().is_some() {
        return 0.0;
    }
    let [s0, rate, _] = free_length.eval_time_jet(x.t, x.inputs, x.rates);
    -stiffness * (measure.value(x.q) - s0) * rate
}

/// d(G^T f)/du_i = G^T (-k ds0/du_i) of a spring term k (s - s0(t, u)) on `measure` (G does
/// not depend on u; a damper on s does not read u): the viscous and the fractional element.
pub(super) fn add_free_length_derivative(
    measure: &Measure,
    stiffness: f64,
    free_length: &Expr,
    x: &Kin,
    i: usize,
    forces: &mut [f64],
) {
    let (_, slope) = free_length.eval_with_input_derivative(x.t, x.inputs, i);
    let df = -stiffness * slope;
    let d = measure.gradient(x.q);
    for (k, &j) in measure.dofs().iter().enumerate() {
        forces[j] += df * d.gradient[k];
    }
}
