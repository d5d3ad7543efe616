//! The translational inertia and the gravity of the spatial corotational beam
//! (`corotational_beam_3d.rs`): those of its interpolated centre line, as in Le, Battini &
//! Hjiaj (2014), "A consistent 3D corotational beam element for nonlinear dynamic analysis of
//! flexible structures", CMAME 269, sec. 4 (cubic local transverse displacements for the
//! inertia, not only for the strains).
//!
//! Centre line, in the element frame E = [e1 e2 e3] with the local rotations theta_1, theta_2:
//!   r(xi) = x1 + xi (x2 - x1) + l0 (v(xi) e2 + w(xi) e3),   xi in [0, 1],
//!   v = N2 theta_1z + N4 theta_2z,   w = -(N2 theta_1y + N4 theta_2y),
//!   N2 = xi (1 - xi)^2,   N4 = -xi^2 (1 - xi):
//! the Hermite cubics of the local linear element with zero end displacements in the chord
//! frame and end slopes v' = theta_z, w' = -theta_y (the field whose bending energy the
//! element's K_b is). In a plane it is the field of the planar element's consistent mass
//! (`corotational_beam_2d.rs`, paper 000 eqs. 13-16).
//!
//! Kinetic energy T = 1/2 int rho A |r_t|^2 dx and gravity potential V = -int rho A g . r dx,
//! both exact by 4-point Gauss quadrature (r_t is a cubic in xi, |r_t|^2 of degree 6).
//! Lagrange's equations give the inertia and gravity forces as the virtual work of
//! d'Alembert's force density,
//!   F = int rho A J^T (r_tt - g) dx,   J = dr/dq,   r_tt = J a + (dJ/dt) v,
//! evaluated per Gauss point: r_t, J a and (dJ/dt) v = d2r[v, v] from one evaluation of r on
//! motion jets (`motion_jet.rs`), and J^T applied in closed form (`pull_back`): the node positions directly, the rotations and the frame
//! through `corotational_derivatives_3d::frame_force`. Tangents: the mass M = int rho A J^T J
//! and the gyroscopic C = 2 int rho A J^T d2r[v, .] exactly (hyper-dual, seeded with each
//! coordinate and v); dF/dq, which the Newton matrix weighs with beta' ~ h^2, by forward
//! differences of the exact F (relative error ~1e-8 of these terms).

use super::corotational_beam_3d::{Configuration, V3, cross, dot};
use super::corotational_derivatives_3d::frame_force;
use crate::mechanics::hyper_dual::Real;

/// Gauss-Legendre points on [0, 1] and their weights (summing to 1), exact to degree 7.
fn gauss() -> [(f64, f64); 4] {
    let inner = (3.0 / 7.0 - 2.0 / 7.0 * (6.0f64 / 5.0).sqrt()).sqrt();
    let outer = (3.0 / 7.0 + 2.0 / 7.0 * (6.0f64 / 5.0).sqrt()).sqrt();
    let (wi, wo) = ((18.0 + 30.0f64.sqrt()) / 72.0, (18.0 - 30.0f64.sqrt()) / 72.0);
    [(0.5 - 0.5 * outer, wo), (0.5 - 0.5 * inner, wi), (0.5 + 0.5 * inner, wi), (0.5 + 0.5 * outer, wo)]
}

/// N2 and N4 at xi.
fn hermite(xi: f64) -> (f64, f64) {
    (xi * (1.0 - xi) * (1.0 - xi), -xi * xi * (1.0 - xi))
}

/// The transverse deflections (v, w) / l0 at a point with shape values N2, N4 (module doc).
fn deflections<S: Real>([t1, t2]: [V3<S>; 2], n2: f64, n4: f64) -> (S, S) {
    (t1[2] * n2 + t2[2] * n4, -(t1[1] * n2 + t2[1] * n4))
}

/// The centre line's mass and where its Gauss points are.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct CenterLine {
    /// Initial length.
    l0: f64,
    /// (xi, mass share, N2, N4) of each Gauss point.
    points: [(f64, f64, f64, f64); 4],
}

impl CenterLine {
    pub(super) fn new(l0: f64, mass: f64) -> Self {
        let points = gauss().map(|(xi, w)| {
            let (n2, n4) = hermite(xi);
            (xi, w * mass, n2, n4)
        });
        CenterLine { l0, points }
    }

    /// The mass m_g each Gauss point carries.
    pub(super) fn masses(&self) -> [f64; 4] {
        self.points.map(|p| p.1)
    }

    /// r at the Gauss points for the element's coordinates `q` and their configuration `c`.
    pub(super) fn points<S: Real>(&self, q: &[S; 14], c: &Configuration<S>) -> [V3<S>; 4] {
        let [_, e2, e3] = c.e;
        self.points.map(|(xi, _, n2, n4)| {
            let (v, w) = deflections(c.theta, n2, n4);
            let (v, w) = (v * self.l0, w * self.l0);
            std::array::from_fn(|k| q[k] + (q[7 + k] - q[k]) * xi + e2[k] * v + e3[k] * w)
        })
    }

    /// sum_g m_g J_g^T z_g for vectors z_g at the Gauss points (the generalized force of
    /// forces m_g z_g there), as the part on the node positions directly (d r_g / d x1 =
    /// (1 - xi) I, d r_g / d x2 = xi I) and the weights of the rest on the local rotations (as
    /// local forces on d = (u, theta_1, theta_2)) and on the frame's turn (a frame vector's
    /// weight g as the turn e x g: de = dpsi x e), which `frame_force` takes to the node
    /// coordinates in closed form together with the elastic forces.
    pub(super) fn pull_back(&self, c: &Configuration<f64>, z: &[V3; 4]) -> GeneralizedForce {
        let [_, e2, e3] = c.e;
        let mut g = GeneralizedForce { direct: [0.0; 14], local: [0.0; 7], turn: [0.0; 3] };
        let (mut on_e2, mut on_e3) = ([0.0; 3], [0.0; 3]);
        for (&(xi, m, n2, n4), z) in self.points.iter().zip(z) {
            let ml = m * self.l0;
            let (v, w) = deflections(c.theta, n2, n4);
            let (v, w) = (v * ml, w * ml);
            for k in 0..3 {
                g.direct[k] += m * (1.0 - xi) * z[k];
                g.direct[7 + k] += m * xi * z[k];
                on_e2[k] += v * z[k];
                on_e3[k] += w * z[k];
            }
            let (z2, z3) = (dot(e2, *z), dot(e3, *z));
            g.local[3] += ml * n2 * z2;
            g.local[6] += ml * n4 * z2;
            g.local[2] -= ml * n2 * z3;
            g.local[5] -= ml * n4 * z3;
        }
        let (a, b) = (cross(e2, on_e2), cross(e3, on_e3));
        g.turn = [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
        g
    }
}

/// A generalized force in parts (`CenterLine::pull_back`).
pub(super) struct GeneralizedForce {
    /// On the node coordinates directly.
    pub direct: [f64; 14],
    /// On the deformations d = (u, theta_1, theta_2), like the local forces K d.
    pub local: [f64; 7],
    /// On the frame's turn psi.
    pub turn: V3,
}

impl GeneralizedForce {
    /// The force on the node coordinates `q`, with local forces `f` (the elastic ones) added.
    pub(super) fn on_nodes(&self, c: &Configuration<f64>, q: &[f64; 14], f: &[f64; 7]) -> [f64; 14] {
        let local = std::array::from_fn(|k| self.local[k] + f[k]);
        let through = frame_force(c, q, &local, self.turn);
        std::array::from_fn(|k| self.direct[k] + through[k])
    }
}
