//! Spatial kinematic measures with exact gradients and Hessians, for joints and
//! spring-dampers between 3D rigid bodies (coordinates r (3), Euler parameters p (4)) and
//! point masses (r alone).
//!
//! A body point is P = r + A(p) s and a body-fixed direction d = A(p) u, A = E G^T in its
//! homogeneous quadratic form (see `euler_parameters`), so the second derivatives of P and d
//! are the constant Hessians of A(p) s. Measures are composed from these vector functions:
//! a component or projection u.(P2 - P1), a dot product d1.d2 (perpendicularity), a
//! projection on a body-fixed direction d1.(P2 - P1), a distance |P2 - P1|, and the
//! Euler-parameter norm p.p.

use super::derivatives::{Derivatives, Gradient, Jet, MAX_DOFS};
use super::euler_parameters::{mat_vec, rotated_vector_hessians, rotated_vector_jacobian, rotation};

/// A point fixed to ground, to a spatial rigid body (first coordinate `x`) at the
/// body-frame offset `s` from its centre of mass, or a point mass (coordinates x, y, z from
/// `x`), which is its own one point and has no orientation: a direction "fixed in it" is a
/// global one, as on ground (the planar `Anchor::Point`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Anchor3 {
    Ground { p: [f64; 3] },
    Body { x: usize, s: [f64; 3] },
    Point { x: usize },
}

impl Anchor3 {
    /// The anchor's coordinates (consecutive: position, then a body's Euler parameters).
    pub fn dof_range(&self) -> std::ops::Range<usize> {
        match *self {
            Anchor3::Ground { .. } => 0..0,
            Anchor3::Body { x, .. } => x..x + 7,
            Anchor3::Point { x } => x..x + 3,
        }
    }

    pub fn dofs(&self) -> Vec<usize> {
        self.dof_range().collect()
    }

    pub fn position(&self, q: &[f64]) -> [f64; 3] {
        match *self {
            Anchor3::Ground { p } => p,
            Anchor3::Body { x, s } => {
                let a = mat_vec(&rotation(&q[x + 3..x + 7]), s);
                [q[x] + a[0], q[x + 1] + a[1], q[x + 2] + a[2]]
            }
            Anchor3::Point { x } => [q[x], q[x + 1], q[x + 2]],
        }
    }

    /// dP/dt = r' + (d(A s)/dp) p'.
    pub fn velocity(&self, q: &[f64], v: &[f64]) -> [f64; 3] {
        match *self {
            Anchor3::Ground { .. } => [0.0; 3],
            Anchor3::Point { x } => [v[x], v[x + 1], v[x + 2]],
            Anchor3::Body { x, s } => {
                let jac = rotated_vector_jacobian(&q[x + 3..x + 7], s);
                let pd = &v[x + 3..x + 7];
                std::array::from_fn(|i| v[x + i] + (0..4).map(|j| jac[i][j] * pd[j]).sum::<f64>())
            }
        }
    }

    /// d2P/dt2 = r'' + (d(A s)/dp) p'' + p'^T (d2(A s)/dp2) p': A(p) s is a quadratic form in
    /// the Euler parameters p (A = (e0^2 - e.e) I + 2 e e^T + 2 e0 e~, the homogeneous form of
    /// euler_parameters.rs), so its Hessians are constant and the acceleration is exact.
    pub fn acceleration(&self, q: &[f64], v: &[f64], a: &[f64]) -> [f64; 3] {
        match *self {
            Anchor3::Ground { .. } => [0.0; 3],
            Anchor3::Point { x } => [a[x], a[x + 1], a[x + 2]],
            Anchor3::Body { x, s } => {
                let (p, pd, pdd) = (&q[x + 3..x + 7], &v[x + 3..x + 7], &a[x + 3..x + 7]);
                // p'^T H_i p' = (H_i p')^T p' = 2 (A(p') s)_i: the Jacobian at p' times p' twice.
                let (jac, jac_rate) = (rotated_vector_jacobian(p, s), rotated_vector_jacobian(pd, s));
                std::array::from_fn(|i| {
                    let linear: f64 = (0..4).map(|j| jac[i][j] * pdd[j]).sum();
                    let quadratic: f64 = (0..4).map(|j| jac_rate[i][j] * pd[j]).sum();
                    a[x + i] + linear + quadratic
                })
            }
        }
    }
}

/// What a spatial measure measures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SpatialKind {
    /// u . (P2 - P1), u fixed in the global frame.
    Along { u: [f64; 3] },
    /// (A1 u1) . (A2 u2); u_k in body k's frame (global for ground).
    Dot { u1: [f64; 3], u2: [f64; 3] },
    /// (A1 u1) . (P2 - P1), u1 in body 1's frame.
    Projection { u1: [f64; 3] },
    /// |P2 - P1|
    Distance,
    /// Rotation angle of body 2 relative to body 1 about their common axis a, wrapped to
    /// (-pi, pi]: atan2((A1 c1) . (A2 b2), (A1 b1) . (A2 b2)) with (a, b1, c1) a right-handed
    /// triad in body 1's frame and b2 the direction b1 in body 2's frame at the zero angle
    /// (rotating b by phi about a gives b cos phi + c sin phi).
    Angle { b1: [f64; 3], c1: [f64; 3], b2: [f64; 3] },
    /// Rotation angle of body 2 relative to body 1 about an axis a fixed in body 2, wrapped
    /// to (-pi, pi]: atan2(-(A2 c2) . (A1 b1), (A2 b2) . (A1 b1)) with (a, b2, c2) a
    /// right-handed triad in body 2's frame and b1 the direction b2 in body 1's frame at the
    /// zero angle (body 2 turned by phi about a sees b1 at b2 cos phi - c2 sin phi). The
    /// angle of a universal joint's body 2 about its own pin relative to the cross, whose
    /// other arm b1 is fixed in body 1 (src/mechanics/joints/universal.rs).
    AngleAbout2 { b2: [f64; 3], c2: [f64; 3], b1: [f64; 3] },
    /// p . p of the body of anchor 1 (the Euler-parameter normalisation).
    EulerNorm,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpatialMeasure {
    pub a1: Anchor3,
    pub a2: Anchor3,
    pub kind: SpatialKind,
}

/// A 3-vector function of the measure's coordinates with its Jacobian (`G` = MAX_DOFS
/// columns, or 0 where not needed) and Hessians (`H` entries, or 0), as in `Jet`.
struct VecFn<const G: usize, const H: usize> {
    val: [f64; 3],
    jac: [[f64; G]; 3],
    hess: [[f64; H]; 3],
}

impl<const G: usize, const H: usize> VecFn<G, H> {
    fn zero() -> Self {
        VecFn { val: [0.0; 3], jac: [[0.0; G]; 3], hess: [[0.0; H]; 3] }
    }

    /// Adds sign * (r + A s) (point) or sign * A s (direction) of anchor `a` whose coordinates
    /// start at `off` in a measure with `n` coordinates.
    #[allow(clippy::too_many_arguments, clippy::needless_range_loop)] // index arithmetic over three arrays
    fn add(&mut self, a: &Anchor3, q: &[f64], off: usize, n: usize, sign: f64, point: bool, s_dir: Option<[f64; 3]>) {
        match *a {
            Anchor3::Ground { p } => {
                let v = s_dir.unwrap_or(p);
                for i in 0..3 {
                    self.val[i] += sign * v[i];
                }
            }
            // A point mass: its position r (Jacobian I, no Hessian), or a constant direction.
            Anchor3::Point { x } => {
                for i in 0..3 {
                    match s_dir {
                        Some(u) if !point => self.val[i] += sign * u[i],
                        _ => {
                            self.val[i] += sign * q[x + i];
                            if G > 0 {
                                self.jac[i][off + i] += sign;
                            }
                        }
                    }
                }
            }
            Anchor3::Body { x, s } => {
                let s = s_dir.unwrap_or(s);
                let p = &q[x + 3..x + 7];
                let jac = rotated_vector_jacobian(p, s);
                let h = if H > 0 { rotated_vector_hessians(s) } else { [[[0.0; 4]; 4]; 3] };
                for i in 0..3 {
                    let mut v = 0.0;
                    for j in 0..4 {
                        let g = jac[i][j];
                        v += 0.5 * g * p[j];
                        if G > 0 {
                            self.jac[i][off + 3 + j] += sign * g;
                        }
                        if H > 0 {
                            for k in 0..4 {
                                self.hess[i][(off + 3 + j) * n + off + 3 + k] += sign * h[i][j][k];
                            }
                        }
                    }
                    self.val[i] += sign * v;
                    if point {
                        self.val[i] += sign * q[x + i];
                        if G > 0 {
                            self.jac[i][off + i] += sign;
                        }
                    }
                }
            }
        }
    }
}

/// Derivatives of a . b.
fn dot<const G: usize, const H: usize>(a: &VecFn<G, H>, b: &VecFn<G, H>, n: usize) -> Jet<G, H> {
    let mut d = Jet::zero();
    for i in 0..3 {
        d.value += a.val[i] * b.val[i];
        for r in 0..n.min(G) {
            d.gradient[r] += a.val[i] * b.jac[i][r] + b.val[i] * a.jac[i][r];
        }
        for r in 0..if H > 0 { n } else { 0 } {
            for c in 0..n {
                d.hessian[r * n + c] += a.val[i] * b.hess[i][r * n + c]
                    + b.val[i] * a.hess[i][r * n + c]
                    + a.jac[i][r] * b.jac[i][c]
                    + b.jac[i][r] * a.jac[i][c];
            }
        }
    }
    d
}

/// Derivatives of atan2(y, x) from those of y and x: phi_r = (x y_r - y x_r)/D, D = x^2 + y^2,
/// phi_rc = (x y_rc - y x_rc + x_c y_r - y_c x_r)/D - 2 phi_r (x x_c + y y_c)/D.
fn atan2<const G: usize, const H: usize>(dy: &Jet<G, H>, dx: &Jet<G, H>, n: usize) -> Jet<G, H> {
    let mut d = Jet::zero();
    let (x, y) = (dx.value, dy.value);
    let den = x * x + y * y;
    d.value = y.atan2(x);
    if den > 0.0 {
        for r in 0..n.min(G) {
            d.gradient[r] = (x * dy.gradient[r] - y * dx.gradient[r]) / den;
        }
        for r in 0..if H > 0 { n } else { 0 } {
            for c in 0..n {
                let (xr, yr, xc, yc) = (dx.gradient[r], dy.gradient[r], dx.gradient[c], dy.gradient[c]);
                d.hessian[r * n + c] = (x * dy.hessian[r * n + c] - y * dx.hessian[r * n + c] + xc * yr - yc * xr)
                    / den
                    - 2.0 * d.gradient[r] * (x * xc + y * yc) / den;
            }
        }
    }
    d
}

impl SpatialMeasure {
    pub fn new(a1: Anchor3, a2: Anchor3, kind: SpatialKind) -> Self {
        SpatialMeasure { a1, a2, kind }
    }

    /// The normalisation p.p of the body whose first coordinate is `x`.
    pub fn euler_norm(x: usize) -> Self {
        SpatialMeasure {
            a1: Anchor3::Body { x, s: [0.0; 3] },
            a2: Anchor3::Ground { p: [0.0; 3] },
            kind: SpatialKind::EulerNorm,
        }
    }

    pub fn dofs(&self) -> Vec<usize> {
        let mut d = self.a1.dofs();
        d.extend(self.a2.dofs());
        d
    }

    /// Whether the measure reads the orientation of anchor 1 resp. anchor 2: through a
    /// direction fixed in that body (`Dot`, `Projection`, `Angle`) or its Euler parameters
    /// (`EulerNorm`). A point mass has none to give (`Anchor3::Point`).
    pub fn reads_orientation(&self) -> [bool; 2] {
        match self.kind {
            SpatialKind::Along { .. } | SpatialKind::Distance => [false, false],
            SpatialKind::Projection { .. } | SpatialKind::EulerNorm => [true, false],
            SpatialKind::Dot { .. } | SpatialKind::Angle { .. } | SpatialKind::AngleAbout2 { .. } => [true, true],
        }
    }

    /// The value, gradient and Hessian (the Newton matrix's second derivatives).
    pub fn derivatives(&self, q: &[f64]) -> Derivatives {
        self.jet(q)
    }

    /// The value and gradient (constraint forces C_q^T lambda, velocities C_q v).
    pub fn gradient(&self, q: &[f64]) -> Gradient {
        self.jet(q)
    }

    /// Whether the measure is an angle wrapped to (-pi, pi] (`SpatialKind::Angle`,
    /// `SpatialKind::AngleAbout2`).
    pub fn is_angle(&self) -> bool {
        matches!(self.kind, SpatialKind::Angle { .. } | SpatialKind::AngleAbout2 { .. })
    }

    /// The value (a constraint residual), to the last bit the value of `derivatives`.
    pub fn value(&self, q: &[f64]) -> f64 {
        self.jet::<0, 0>(q).value
    }

    /// The measure with the derivatives `Jet<G, H>` has room for (H > 0 needs G = MAX_DOFS).
    pub fn jet<const G: usize, const H: usize>(&self, q: &[f64]) -> Jet<G, H> {
        let off2 = self.a1.dof_range().len();
        let n = off2 + self.a2.dof_range().len();
        debug_assert!(n <= MAX_DOFS);
        let mut d = Jet::zero();
        let separation = || {
            let mut f = VecFn::<G, H>::zero();
            f.add(&self.a2, q, off2, n, 1.0, true, None);
            f.add(&self.a1, q, 0, n, -1.0, true, None);
            f
        };
        let constant = |u: [f64; 3]| {
            let mut f = VecFn::<G, H>::zero();
            f.val = u;
            f
        };
        match self.kind {
            SpatialKind::EulerNorm => {
                let Anchor3::Body { x, .. } = self.a1 else { return d };
                for k in 0..4 {
                    d.value += q[x + 3 + k] * q[x + 3 + k];
                    if G > 0 {
                        d.gradient[3 + k] = 2.0 * q[x + 3 + k];
                    }
                    if H > 0 {
                        d.hessian[(3 + k) * n + 3 + k] = 2.0;
                    }
                }
            }
            SpatialKind::Along { u } => d = dot(&constant(u), &separation(), n),
            SpatialKind::Dot { u1, u2 } => {
                let mut d1 = VecFn::zero();
                d1.add(&self.a1, q, 0, n, 1.0, false, Some(u1));
                let mut d2 = VecFn::zero();
                d2.add(&self.a2, q, off2, n, 1.0, false, Some(u2));
                d = dot(&d1, &d2, n);
            }
            SpatialKind::Projection { u1 } => {
                let mut d1 = VecFn::zero();
                d1.add(&self.a1, q, 0, n, 1.0, false, Some(u1));
                d = dot(&d1, &separation(), n);
            }
            SpatialKind::Angle { b1, c1, b2 } => {
                let along = |u1: [f64; 3], sign: f64| {
                    let (mut d1, mut d2) = (VecFn::<G, H>::zero(), VecFn::<G, H>::zero());
                    d1.add(&self.a1, q, 0, n, sign, false, Some(u1));
                    d2.add(&self.a2, q, off2, n, 1.0, false, Some(b2));
                    dot(&d1, &d2, n)
                };
                d = atan2(&along(c1, 1.0), &along(b1, 1.0), n);
            }
            SpatialKind::AngleAbout2 { b2, c2, b1 } => {
                let along = |u2: [f64; 3], sign: f64| {
                    let (mut d1, mut d2) = (VecFn::<G, H>::zero(), VecFn::<G, H>::zero());
                    d1.add(&self.a1, q, 0, n, 1.0, false, Some(b1));
                    d2.add(&self.a2, q, off2, n, sign, false, Some(u2));
                    dot(&d1, &d2, n)
                };
                d = atan2(&along(c2, -1.0), &along(b2, 1.0), n);
            }
            SpatialKind::Distance => {
                // L = sqrt(D.D): grad = D.J / L, H = (grad(D.D)/2 Hessian - grad grad^T) / L.
                let s = separation();
                let sq = dot(&s, &s, n);
                let len = sq.value.sqrt();
                d.value = len;
                if len > 0.0 {
                    for r in 0..n.min(G) {
                        d.gradient[r] = 0.5 * sq.gradient[r] / len;
                    }
                    for r in 0..if H > 0 { n } else { 0 } {
                        for c in 0..n {
                            d.hessian[r * n + c] = (0.5 * sq.hessian[r * n + c] - d.gradient[r] * d.gradient[c]) / len;
                        }
                    }
                }
            }
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gradients_and_hessians_match_finite_differences() {
        let q = [0.3, -0.2, 0.7, 0.8, 0.3, -0.4, 0.33, 1.1, 0.4, -1.3, 0.5, -0.25, 0.9, -0.3];
        let b1 = Anchor3::Body { x: 0, s: [0.4, -0.1, 0.2] };
        let b2 = Anchor3::Body { x: 7, s: [-0.2, 0.3, 0.5] };
        let g = Anchor3::Ground { p: [0.1, 0.2, -0.3] };
        let kinds = [
            SpatialKind::Along { u: [0.6, 0.0, 0.8] },
            SpatialKind::Dot { u1: [0.0, 1.0, 0.0], u2: [0.6, 0.8, 0.0] },
            SpatialKind::Projection { u1: [0.0, 0.6, 0.8] },
            SpatialKind::Distance,
            SpatialKind::Angle { b1: [0.6, 0.8, 0.0], c1: [0.0, 0.0, 1.0], b2: [0.0, 0.6, 0.8] },
            SpatialKind::AngleAbout2 { b2: [0.6, 0.8, 0.0], c2: [0.0, 0.0, 1.0], b1: [0.0, 0.6, 0.8] },
        ];
        let mut worst: f64 = 0.0;
        let mut check = |m: SpatialMeasure| {
            let dofs = m.dofs();
            let n = dofs.len();
            let d = m.derivatives(&q);
            let h = 1e-6;
            for (a, &i) in dofs.iter().enumerate() {
                let (mut qp, mut qm) = (q, q);
                qp[i] += h;
                qm[i] -= h;
                let (dp, dm) = (m.derivatives(&qp), m.derivatives(&qm));
                let g = (dp.value - dm.value) / (2.0 * h);
                worst = worst.max((g - d.gradient[a]).abs());
                assert!((g - d.gradient[a]).abs() < 1e-8, "{m:?} gradient {a}: fd {g} vs {}", d.gradient[a]);
                for b in 0..n {
                    let hfd = (dp.gradient[b] - dm.gradient[b]) / (2.0 * h);
                    worst = worst.max((hfd - d.hessian[a * n + b]).abs());
                    assert!(
                        (hfd - d.hessian[a * n + b]).abs() < 1e-7,
                        "{m:?} hessian ({a},{b}): fd {hfd} vs {}",
                        d.hessian[a * n + b]
                    );
                }
            }
        };
        // Point masses: p1 on the first body's coordinates, p2 on the second's positions.
        let (p1, p2) = (Anchor3::Point { x: 0 }, Anchor3::Point { x: 7 });
        for kind in kinds {
            for (a1, a2) in [(b1, b2), (g, b2), (b1, g), (p1, b2), (b1, p2), (p1, p2), (g, p2), (p1, g)] {
                check(SpatialMeasure::new(a1, a2, kind));
            }
        }
        check(SpatialMeasure::euler_norm(7));
        println!("spatial measures: worst |analytic - central difference| = {worst:.2e}");
    }

    #[test]
    fn point_velocity_is_the_time_derivative_of_the_position() {
        let q = [0.3, -0.2, 0.7, 0.8, 0.3, -0.4, 0.33];
        let v = [0.1, 0.5, -0.2, 0.4, -0.9, 0.3, 1.2];
        let a = Anchor3::Body { x: 0, s: [0.4, -0.1, 0.2] };
        let h = 1e-6;
        let qp: Vec<f64> = q.iter().zip(&v).map(|(x, y)| x + h * y).collect();
        let qm: Vec<f64> = q.iter().zip(&v).map(|(x, y)| x - h * y).collect();
        let (pp, pm, vel) = (a.position(&qp), a.position(&qm), a.velocity(&q, &v));
        for i in 0..3 {
            assert!(((pp[i] - pm[i]) / (2.0 * h) - vel[i]).abs() < 1e-9);
        }
    }
}
