//! A spatial rigid body: coordinates r (centre of mass, 3) and Euler parameters p (4).
//!
//! Kinetic energy T = 1/2 m r'.r' + 2 p'^T G^T J' G p' (omega' = 2 G p', paper 001 eqs.
//! 14-28 give the Newton-Euler form with omega' in the body frame; this is its Lagrangian
//! form in Euler parameters, Nikravesh ch. 11). Lagrange's equations give
//!   m r'' - m g = 0,
//!   4 G^T J' G p'' - 8 G(p')^T J' G(p') p = 0   (using G(p) p' = -G(p') p, G(a) a = 0),
//! plus the normalisation constraint p.p = 1 (a separate index-3 row, see
//! `joints::spatial`), whose multiplier takes the p direction that M_pp = 4 G^T J' G lacks
//! (M_pp p = 0, singular alone; regular on the constraint's tangent space).
//! M_pp alone is singular (M_pp p = 0): the p direction is left to the multiplier of p.p = 1.
//! The kinetic energy is augmented by 2 j (p.p')^2, j = trace(J')/3, which vanishes with its
//! gradient on the constraint's velocity manifold (p.p' = 0): the equations gain
//!   4 j p p^T p'' + 4 j (p'.p') p = 4 j (p.p'' + p'.p') p,
//! zero on every motion satisfying p.p = 1 (its second derivative is p.p'' + p'.p' = 0), and
//! the body's mass matrix M_pp + 4 j p p^T is positive definite on its own. (This does not
//! cure the drift of p.p' under index-3 rows with rho_inf >= 0.95 that makes Newton fail on
//! the heavy top; GGL constraints do, see tests/suite/spatial_rigid_body.rs.)
//! Tangent blocks (checked against central differences in the tests below):
//!   K = d(M_pp a_p + g_p)/dp = 4 Lambda(J' G a_p) - 4 G^T J' G(a_p) - 8 G(p')^T J' G(p'),
//!   C = dg_p/dp' = -8 Lambda(J' G(p') p) + 8 G(p')^T J' G,
//! with G(p)^T w = Lambda(w) p (`euler_parameters::lambda_matrix`).

use super::{Element, Energy, Kin, scatter};
use crate::integrators::TangentCoefficients;
use crate::mechanics::euler_parameters::{Mat3, cross, g_matrix, lambda_matrix, mat_vec, rotation};

#[derive(Debug, Clone, PartialEq)]
pub struct RigidBody3d {
    dofs: [usize; 7],
    pub mass: f64,
    /// Inertia tensor J' about the centre of mass, body frame (symmetric positive definite).
    pub inertia: Mat3,
    pub gravity: [f64; 3],
}

type G = [[f64; 4]; 3];

/// G^T J' H (4 x 4) for 3 x 4 matrices G, H.
fn gt_j_h(j: &Mat3, g: &G, h: &G) -> [[f64; 4]; 4] {
    let mut out = [[0.0; 4]; 4];
    for a in 0..4 {
        for b in 0..4 {
            let mut s = 0.0;
            for i in 0..3 {
                for k in 0..3 {
                    s += g[i][a] * j[i][k] * h[k][b];
                }
            }
            out[a][b] = s;
        }
    }
    out
}

fn mul(g: &G, v: &[f64]) -> [f64; 3] {
    std::array::from_fn(|i| (0..4).map(|k| g[i][k] * v[k]).sum())
}

fn jmul(j: &Mat3, w: [f64; 3]) -> [f64; 3] {
    std::array::from_fn(|i| (0..3).map(|k| j[i][k] * w[k]).sum())
}

impl RigidBody3d {
    pub fn new(x: usize, mass: f64, inertia: Mat3, gravity: [f64; 3]) -> Self {
        RigidBody3d { dofs: std::array::from_fn(|k| x + k), mass, inertia, gravity }
    }

    fn slices<'a>(&self, v: &'a [f64]) -> &'a [f64] {
        &v[self.dofs[3]..self.dofs[3] + 4]
    }

    /// j = trace(J')/3 of the regularising term 2 j (p.p')^2 (see the module documentation).
    fn regularisation(&self) -> f64 {
        (self.inertia[0][0] + self.inertia[1][1] + self.inertia[2][2]) / 3.0
    }

    /// Body-frame angular velocity omega' = 2 G p'.
    pub fn body_angular_velocity(&self, q: &[f64], v: &[f64]) -> [f64; 3] {
        mul(&g_matrix(self.slices(q)), self.slices(v)).map(|x| 2.0 * x)
    }

    /// Angular momentum about the global origin, global components: r x m r' + A(p) J' omega'
    /// (the spin part alone for zero mass, a beam node's rotary inertia).
    pub fn angular_momentum(&self, q: &[f64], v: &[f64]) -> [f64; 3] {
        let r = &self.dofs[..3];
        let spin = mat_vec(&rotation(self.slices(q)), jmul(&self.inertia, self.body_angular_velocity(q, v)));
        let orbital = cross([q[r[0]], q[r[1]], q[r[2]]], [v[r[0]], v[r[1]], v[r[2]]]);
        std::array::from_fn(|k| self.mass * orbital[k] + spin[k])
    }
}

impl RigidBody3d {
    /// The body's share of the equations of motion at its coordinates (r, p): the inertia
    /// forces m r'' and 4 G^T J' G p'' (with the regularisation), and the quadratic-velocity
    /// force -8 G(p')^T J' G(p') p less the weight.
    pub fn local_forces(&self, x: &Kin) -> ([f64; 7], [f64; 7]) {
        let (mut inertial, mut forces) = ([0.0; 7], [0.0; 7]);
        for k in 0..3 {
            inertial[k] = self.mass * x.a[self.dofs[k]];
            forces[k] = -self.mass * self.gravity[k];
        }
        let (p, pd, pdd) = (self.slices(x.q), self.slices(x.v), self.slices(x.a));
        let g = g_matrix(p);
        let gd = g_matrix(pd);
        // 4 G^T J' (G p'') and -8 G(p')^T J' (G(p') p)
        let wa = jmul(&self.inertia, mul(&g, pdd));
        let wq = jmul(&self.inertia, mul(&gd, p));
        let j = self.regularisation();
        let p_a: f64 = (0..4).map(|k| p[k] * pdd[k]).sum();
        let pd_pd: f64 = (0..4).map(|k| pd[k] * pd[k]).sum();
        for a in 0..4 {
            inertial[3 + a] = 4.0 * (0..3).map(|k| g[k][a] * wa[k]).sum::<f64>() + 4.0 * j * p_a * p[a];
            forces[3 + a] = -8.0 * (0..3).map(|k| gd[k][a] * wq[k]).sum::<f64>() + 4.0 * j * pd_pd * p[a];
        }
        (inertial, forces)
    }
}

impl Element for RigidBody3d {
    fn dofs(&self) -> &[usize] {
        &self.dofs
    }

    fn add_forces(&self, x: &Kin, inertial: &mut [f64], forces: &mut [f64]) {
        let (ma, f) = self.local_forces(x);
        scatter::<7>(&self.dofs[..1], &ma, &f, inertial, forces);
    }

    fn add_tangent(&self, x: &Kin, c: &TangentCoefficients, block: &mut [f64]) {
        for k in 0..3 {
            block[k * 7 + k] += c.mass * self.mass;
        }
        let (p, pd, pdd) = (self.slices(x.q), self.slices(x.v), self.slices(x.a));
        let (g, gd, ga) = (g_matrix(p), g_matrix(pd), g_matrix(pdd));
        let j = &self.inertia;
        let m = gt_j_h(j, &g, &g);
        let k1 = lambda_matrix(jmul(j, mul(&g, pdd)));
        let k2 = gt_j_h(j, &g, &ga);
        let k3 = gt_j_h(j, &gd, &gd);
        let c1 = lambda_matrix(jmul(j, mul(&gd, p)));
        let c2 = gt_j_h(j, &gd, &g);
        let jr = self.regularisation();
        let p_a: f64 = (0..4).map(|k| p[k] * pdd[k]).sum();
        let pd_pd: f64 = (0..4).map(|k| pd[k] * pd[k]).sum();
        for a in 0..4 {
            for b in 0..4 {
                let id = f64::from(u8::from(a == b));
                let mm = 4.0 * m[a][b] + 4.0 * jr * p[a] * p[b];
                let kk =
                    4.0 * k1[a][b] - 4.0 * k2[a][b] - 8.0 * k3[a][b] + 4.0 * jr * (p[a] * pdd[b] + (p_a + pd_pd) * id);
                let cc = -8.0 * c1[a][b] + 8.0 * c2[a][b] + 8.0 * jr * p[a] * pd[b];
                block[(3 + a) * 7 + 3 + b] += c.mass * mm + c.stiffness * kk + c.damping * cc;
            }
        }
    }

    fn energy(&self, x: &Kin) -> Energy {
        let r = &self.dofs[..3];
        let w = self.body_angular_velocity(x.q, x.v);
        let jw = jmul(&self.inertia, w);
        Energy {
            kinetic: 0.5 * self.mass * r.iter().map(|&i| x.v[i] * x.v[i]).sum::<f64>()
                + 0.5 * (0..3).map(|k| w[k] * jw[k]).sum::<f64>(),
            potential: -self.mass * (0..3).map(|k| self.gravity[k] * x.q[r[k]]).sum::<f64>(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Residual R = M a + g over the body's 7 coordinates.
    fn residual(b: &RigidBody3d, q: &[f64], v: &[f64], a: &[f64]) -> Vec<f64> {
        let mut i = vec![0.0; 7];
        let mut f = vec![0.0; 7];
        b.add_forces(&Kin::without_inputs(q, v, a, 0.0), &mut i, &mut f);
        i.iter().zip(&f).map(|(x, y)| x + y).collect()
    }

    #[test]
    fn tangent_blocks_match_central_differences() {
        let j = [[0.7, 0.05, -0.02], [0.05, 0.9, 0.03], [-0.02, 0.03, 0.4]];
        let b = RigidBody3d::new(0, 2.5, j, [0.0, 0.0, -9.81]);
        let q = [0.1, -0.2, 0.3, 0.8, 0.2, -0.5, 0.26];
        let v = [0.3, 0.1, -0.4, 0.7, -1.1, 0.4, 0.9];
        let a = [1.0, -2.0, 0.5, 2.1, 0.3, -1.7, 0.6];
        let h = 1e-6;
        let mut worst: f64 = 0.0;
        for (which, coef) in [
            (0, TangentCoefficients { mass: 1.0, damping: 0.0, stiffness: 0.0, lambda: 0.0 }),
            (1, TangentCoefficients { mass: 0.0, damping: 1.0, stiffness: 0.0, lambda: 0.0 }),
            (2, TangentCoefficients { mass: 0.0, damping: 0.0, stiffness: 1.0, lambda: 0.0 }),
        ] {
            let mut block = vec![0.0; 49];
            b.add_tangent(&Kin::without_inputs(&q, &v, &a, 0.0), &coef, &mut block);
            for col in 0..7 {
                let (mut qp, mut qm, mut vp, mut vm, mut ap, mut am) = (q, q, v, v, a, a);
                match which {
                    0 => (ap[col] += h, am[col] -= h),
                    1 => (vp[col] += h, vm[col] -= h),
                    _ => (qp[col] += h, qm[col] -= h),
                };
                let rp = residual(&b, &qp, &vp, &ap);
                let rm = residual(&b, &qm, &vm, &am);
                for row in 0..7 {
                    let fd = (rp[row] - rm[row]) / (2.0 * h);
                    let err = (fd - block[row * 7 + col]).abs();
                    worst = worst.max(err);
                    assert!(err < 1e-6, "block {which} ({row},{col}): fd {fd} vs {}", block[row * 7 + col]);
                }
            }
        }
        println!("rigid body 3d: worst |analytic - central difference| over M, C, K = {worst:.2e}");
    }

    #[test]
    fn kinetic_energy_is_that_of_the_body_angular_velocity() {
        // T_rot = 2 p'^T G^T J' G p' = 1/2 w'^T J' w' with p' = 1/2 G^T w' (p.p = 1).
        let j = [[0.7, 0.0, 0.0], [0.0, 0.9, 0.0], [0.0, 0.0, 0.4]];
        let b = RigidBody3d::new(0, 1.0, j, [0.0; 3]);
        let n = (0.8f64 * 0.8 + 0.04 + 0.25 + 0.26 * 0.26).sqrt();
        let p = [0.8 / n, 0.2 / n, -0.5 / n, 0.26 / n];
        let w = [0.3, -1.2, 2.0];
        let g = g_matrix(&p);
        let pd: Vec<f64> = (0..4).map(|k| 0.5 * (0..3).map(|i| g[i][k] * w[i]).sum::<f64>()).collect();
        let q = [0.0, 0.0, 0.0, p[0], p[1], p[2], p[3]];
        let v = [0.0, 0.0, 0.0, pd[0], pd[1], pd[2], pd[3]];
        let e = b.energy(&Kin::without_inputs(&q, &v, &v, 0.0));
        let expect = 0.5 * (0.7 * w[0] * w[0] + 0.9 * w[1] * w[1] + 0.4 * w[2] * w[2]);
        assert!((e.kinetic - expect).abs() < 1e-14, "{} vs {expect}", e.kinetic);
    }
}
