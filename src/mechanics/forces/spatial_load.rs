//! Applied loads on spatial rigid bodies: a force of fixed global direction at a body point,
//! or a torque about a fixed global direction, whose magnitude is a function of time and
//! inputs (as the planar `Load`).
//!
//! - force F = f u at P = r + A(p) s': virtual work F . dP, so Q = f grad(u . P) over (r, p)
//!   and the tangent of g = -Q is -f d2(u . P)/dq2 (the `Along` measure of
//!   `spatial_kinematics`, from the global origin to the body point);
//! - torque T = f u: the virtual rotation is dpi = 2 E(p) dp (global angular velocity
//!   omega = 2 E p', Nikravesh 1988, eq. 6.94), so Q_p = 2 E(p)^T T; E is linear in p, hence
//!   dQ_p/dp_l = 2 E(e_l)^T T exactly;
//! - a follower load (`follower = true`), fixed in the body: force F' at the body point s'
//!   and moment M' (body frame); the virtual rotation in the body frame is dpi' = 2 G(p) dp
//!   (omega' = 2 G p'), so Q_r = A(p) F' and Q_p = 2 G(p)^T (M' + s' x F'); not conservative,
//!   so its tangent is not symmetric (Argyris & Symeonidis 1981).

use super::TimeFunction;
use crate::integrators::{EnergyFlow, Stride, TangentCoefficients};
use crate::mechanics::elements::{CorotationalBeam3d, Element, Energy, Kin};
use crate::mechanics::euler_parameters::{
    cross, e_matrix, g_matrix, mat_t_vec, mat_vec, rotated_vector_jacobian, rotation, rotation_increment,
};
use crate::mechanics::spatial_kinematics::{Anchor3, SpatialKind, SpatialMeasure};

#[derive(Debug, Clone, PartialEq)]
pub enum SpatialLoadKind {
    /// Force along the unit global `direction` at a body point (`SpatialMeasure` Along).
    Force { measure: SpatialMeasure },
    /// Torque about the unit global `direction` on the body whose first coordinate is `x`.
    Torque { x: usize, direction: [f64; 3] },
    /// A load fixed in the body whose first coordinate is `x` (a follower load), per unit
    /// magnitude in the body frame: the force F' at the reference point (zero for a torque)
    /// and the moment M' about it (s' x F' for a force at the body point s', the axis for a
    /// torque).
    Follower { x: usize, force: [f64; 3], moment: [f64; 3] },
    /// A force per unit length along the unit global `direction` on the centre line of a
    /// spatial beam element (src/mechanics/forces/line_load.rs).
    Line { element: Box<CorotationalBeam3d>, direction: [f64; 3] },
}

#[derive(Debug, Clone, PartialEq)]
pub struct SpatialLoad {
    pub kind: SpatialLoadKind,
    pub magnitude: TimeFunction,
    dofs: Vec<usize>,
}

impl SpatialLoad {
    /// A force along the unit global `direction` at `anchor` (a body point).
    pub fn force(anchor: Anchor3, direction: [f64; 3], magnitude: TimeFunction) -> Self {
        let measure = SpatialMeasure::new(Anchor3::Ground { p: [0.0; 3] }, anchor, SpatialKind::Along { u: direction });
        SpatialLoad { dofs: measure.dofs(), kind: SpatialLoadKind::Force { measure }, magnitude }
    }

    /// A torque about the unit global `direction` on the body whose first coordinate is `x`.
    pub fn torque(x: usize, direction: [f64; 3], magnitude: TimeFunction) -> Self {
        SpatialLoad { dofs: (x..x + 7).collect(), kind: SpatialLoadKind::Torque { x, direction }, magnitude }
    }

    /// A load fixed in the body whose first coordinate is `x`, along the unit global
    /// `direction` in the initial configuration `q0`: a force at the body point `s` (body
    /// frame), or a torque (`s` = None).
    pub fn follower(x: usize, q0: &[f64], s: Option<[f64; 3]>, direction: [f64; 3], magnitude: TimeFunction) -> Self {
        let u = mat_t_vec(&rotation(&q0[x + 3..x + 7]), direction);
        let (force, moment) = match s {
            Some(s) => (u, cross(s, u)),
            None => ([0.0; 3], u),
        };
        SpatialLoad { dofs: (x..x + 7).collect(), kind: SpatialLoadKind::Follower { x, force, moment }, magnitude }
    }

    /// A force of `magnitude` per unit length along the unit global `direction` on the beam
    /// element `element`.
    pub fn line(element: CorotationalBeam3d, direction: [f64; 3], magnitude: TimeFunction) -> Self {
        SpatialLoad {
            dofs: element.dofs().to_vec(),
            kind: SpatialLoadKind::Line { element: Box::new(element), direction },
            magnitude,
        }
    }

    pub fn dofs(&self) -> &[usize] {
        &self.dofs
    }

    /// Add the generalized force of magnitude `f` at `x` into `forces` (g is linear in f).
    fn add_force_of(&self, f: f64, x: &Kin, forces: &mut [f64]) {
        self.generalized_force(f, x, |i, q| forces[i] -= q);
    }

    /// Each component (coordinate i, Q_i) of the generalized force Q of magnitude `f` at `x`.
    fn generalized_force(&self, f: f64, x: &Kin, mut out: impl FnMut(usize, f64)) {
        match &self.kind {
            SpatialLoadKind::Force { measure } => {
                let d = measure.gradient(x.q);
                for (k, &i) in self.dofs.iter().enumerate() {
                    out(i, f * d.gradient[k]);
                }
            }
            SpatialLoadKind::Torque { x: b, direction } => {
                let q = torque_on_p(e_matrix, &x.q[b + 3..b + 7], *direction);
                for (k, qk) in q.iter().enumerate() {
                    out(b + 3 + k, f * qk);
                }
            }
            SpatialLoadKind::Follower { x: b, force, moment } => {
                let p = &x.q[b + 3..b + 7];
                for (k, fk) in mat_vec(&rotation(p), *force).iter().enumerate() {
                    out(b + k, f * fk);
                }
                for (k, qk) in torque_on_p(g_matrix, p, *moment).iter().enumerate() {
                    out(b + 3 + k, f * qk);
                }
            }
            SpatialLoadKind::Line { element, direction: u } => {
                let q = element.line_load_force(x.q, u.map(|uk| f * uk));
                for (&i, qk) in self.dofs.iter().zip(q) {
                    out(i, qk);
                }
            }
        }
    }
}

/// 2 E(p)^T u: the generalized force of a unit torque u on the Euler parameters p
/// (omega = 2 E p_dot) with `matrix` = `e_matrix`; with `g_matrix`, of a torque given in
/// the body frame (omega' = 2 G p_dot).
fn torque_on_p(matrix: fn(&[f64]) -> [[f64; 4]; 3], p: &[f64], u: [f64; 3]) -> [f64; 4] {
    let e = matrix(p);
    std::array::from_fn(|k| 2.0 * (0..3).map(|i| e[i][k] * u[i]).sum::<f64>())
}

/// Subtract `scale` times the Jacobian of Q_p = `linear`(p), linear in p, from the Euler
/// parameter block of `block` (n x n, the body's coordinates first): its columns are
/// `linear`(e_l).
fn add_linear_tangent(block: &mut [f64], n: usize, scale: f64, linear: impl Fn(&[f64]) -> [f64; 4]) {
    for l in 0..4 {
        let unit: [f64; 4] = std::array::from_fn(|k| f64::from(u8::from(k == l)));
        for (k, d) in linear(&unit).iter().enumerate() {
            block[(3 + k) * n + 3 + l] -= scale * d;
        }
    }
}

impl Element for SpatialLoad {
    fn dofs(&self) -> &[usize] {
        &self.dofs
    }

    fn add_forces(&self, x: &Kin, _inertial: &mut [f64], forces: &mut [f64]) {
        self.add_force_of(self.magnitude.eval(x.t, x.inputs, x.rates), x, forces);
    }

    fn add_tangent(&self, x: &Kin, c: &TangentCoefficients, block: &mut [f64]) {
        let f = self.magnitude.eval(x.t, x.inputs, x.rates);
        let n = self.dofs.len();
        match &self.kind {
            SpatialLoadKind::Force { measure } => {
                let d = measure.derivatives(x.q);
                for (b, h) in block.iter_mut().zip(&d.hessian[..n * n]) {
                    *b -= c.stiffness * f * h;
                }
            }
            SpatialLoadKind::Torque { direction, .. } => {
                add_linear_tangent(block, n, c.stiffness * f, |p| torque_on_p(e_matrix, p, *direction));
            }
            SpatialLoadKind::Follower { x: b, force, moment } => {
                // Q_r = f A(p) F' (d/dp: the Jacobian of A(p) F'); Q_p = 2 f G(p)^T M', linear
                // in p (d/dp_l = 2 f G(e_l)^T M'). Neither depends on r.
                let jac = rotated_vector_jacobian(&x.q[b + 3..b + 7], *force);
                for (k, row) in jac.iter().enumerate() {
                    for (l, d) in row.iter().enumerate() {
                        block[k * n + 3 + l] -= c.stiffness * f * d;
                    }
                }
                add_linear_tangent(block, n, c.stiffness * f, |p| torque_on_p(g_matrix, p, *moment));
            }
            SpatialLoadKind::Line { element, direction: u } => {
                element.add_line_load_tangent(x.q, u.map(|uk| f * uk), c.stiffness, block);
            }
        }
    }

    fn energy(&self, _x: &Kin) -> Energy {
        Energy::default()
    }

    const NON_CONSERVATIVE: bool = true;

    /// The load's power: the load times the mean rate of what it works on over the stride, a
    /// force the motion of its point, a torque the turn of its body, exact
    /// (`rotation_increment`; the generalized force times the change of the Euler parameters is
    /// that turn only to first order: a 3D cantilever rolled up by its end moment was supplied
    /// 1973.1 J for 1973.9 J stored, the planar twin exactly, a probe).
    fn power(&self, x: &Kin, stride: &Stride) -> EnergyFlow {
        let f = self.magnitude.eval(x.t, x.inputs, x.rates);
        let turn = |matrix, b: usize, u: [f64; 3]| {
            let phi = rotation_increment(matrix, &stride.start[b + 3..b + 7], &stride.end[b + 3..b + 7]);
            f * (u[0] * phi[0] + u[1] * phi[1] + u[2] * phi[2]) / stride.h
        };
        let supplied = match &self.kind {
            SpatialLoadKind::Force { .. } => {
                let mut supplied = 0.0;
                self.generalized_force(f, x, |i, q| supplied += q * stride.velocity(i));
                supplied
            }
            SpatialLoadKind::Torque { x: b, direction } => turn(e_matrix, *b, *direction),
            // Exact: the force density times the change of the centre line's integral.
            SpatialLoadKind::Line { element, direction: u } => {
                let (a, b) = (element.center_line_integral(stride.start), element.center_line_integral(stride.end));
                f * (0..3).map(|k| u[k] * (b[k] - a[k])).sum::<f64>() / stride.h
            }
            SpatialLoadKind::Follower { x: b, force, moment } => {
                let p = &x.q[b + 3..b + 7];
                let along = mat_vec(&rotation(p), *force);
                f * (0..3).map(|k| along[k] * stride.velocity(b + k)).sum::<f64>() + turn(g_matrix, *b, *moment)
            }
        };
        EnergyFlow { dissipated: 0.0, supplied }
    }

    fn inputs_read(&self, out: &mut Vec<usize>) {
        self.magnitude.inputs_read(out);
    }

    fn add_input_derivative(&self, x: &Kin, i: usize, forces: &mut [f64]) {
        // g is linear in the magnitude: dg/du_i = (d magnitude/du_i) g at unit magnitude.
        self.add_force_of(self.magnitude.input_derivative(x.t, x.inputs, i), x, forces);
    }
}
