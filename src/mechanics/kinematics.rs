//! Planar kinematic measures with exact gradients and Hessians.
//!
//! A [`Measure`] is a scalar function of the coordinates of at most two bodies (a distance,
//! a projection of a relative position, a relative angle). Joints constrain measures
//! (Phi = measure - target); spring-dampers act along them (F = k (s - s0) + c s').
//! With gradient G and Hessian H of the measure s:
//!   s' = G v,   d/dt(G v) = G a + v^T H v,   d(G^T f)/dq = f H,
//! so constraint Jacobians, the acceleration right-hand side gamma = -v^T H v, the
//! geometric stiffness lambda H and spring tangents all come from the same two functions.

pub use super::derivatives::{Derivatives, Gradient, Jet, MAX_DOFS, quadratic_form};

/// A point fixed to ground, to a point mass (x, y), to a rigid body (x, y, theta) at the
/// body-frame offset `s`, or an ANCF beam node (x, y, d1, d2): its position, with the section
/// orientation given by the slope d = dr/dy = |d| (-sin theta, cos theta) (paper 003 eq. 4).
/// `reference` is the unit slope in the initial configuration; the angle is counted from it
/// so that it is continuous within half a turn of the start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Anchor {
    Ground { p: [f64; 2] },
    Point { x: usize },
    Rigid { x: usize, s: [f64; 2] },
    Director { x: usize, reference: [f64; 2] },
}

/// s rotated by theta.
pub fn rot(theta: f64, s: [f64; 2]) -> [f64; 2] {
    let (sn, cs) = theta.sin_cos();
    [cs * s[0] - sn * s[1], sn * s[0] + cs * s[1]]
}

/// Rotation by +90 degrees (the derivative of a rotation matrix is J R).
fn perp(u: [f64; 2]) -> [f64; 2] {
    [-u[1], u[0]]
}

/// An angle difference taken modulo 2 pi into [-pi, pi]: the turn nearest to no turn.
pub fn within_half_turn(d: f64) -> f64 {
    d - std::f64::consts::TAU * (d / std::f64::consts::TAU).round()
}

fn dot(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

impl Anchor {
    /// The anchor's coordinates (consecutive: x, y, then theta or the slope d).
    pub fn dof_range(&self) -> std::ops::Range<usize> {
        match *self {
            Anchor::Ground { .. } => 0..0,
            Anchor::Point { x } => x..x + 2,
            Anchor::Rigid { x, .. } => x..x + 3,
            Anchor::Director { x, .. } => x..x + 4,
        }
    }

    pub fn dofs(&self) -> Vec<usize> {
        self.dof_range().collect()
    }

    /// The section angle: theta for a rigid body, from the slope for an ANCF node (paper 003
    /// eq. 4, taken relative to the initial slope to stay continuous), 0 otherwise.
    pub fn angle(&self, q: &[f64]) -> f64 {
        match *self {
            Anchor::Rigid { x, .. } => q[x + 2],
            Anchor::Director { x, reference: r } => {
                let d = [q[x + 2], q[x + 3]];
                (-r[0]).atan2(r[1]) + (r[0] * d[1] - r[1] * d[0]).atan2(dot(r, d))
            }
            _ => 0.0,
        }
    }

    /// Gradient and Hessian of `angle` over the anchor's own coordinates (row-major).
    /// For a slope d: dtheta/dd = (-d2, d1)/|d|^2 (an applied torque T has the generalized
    /// force T times this; paper 003 eq. 24 prints -T times it for the restoring torque of its
    /// pivot spring, see forces/load.rs); Hessian [[2 d1 d2, d2^2 - d1^2], [d2^2 - d1^2,
    /// -2 d1 d2]]/|d|^4.
    pub fn angle_derivatives(&self, q: &[f64]) -> ([f64; 4], [f64; 16]) {
        let mut g = [0.0; 4];
        let mut h = [0.0; 16];
        match *self {
            Anchor::Rigid { .. } => g[2] = 1.0,
            Anchor::Director { x, .. } => {
                let (d1, d2) = (q[x + 2], q[x + 3]);
                let n = d1 * d1 + d2 * d2;
                g[2] = -d2 / n;
                g[3] = d1 / n;
                let n2 = n * n;
                h[2 * 4 + 2] = 2.0 * d1 * d2 / n2;
                h[2 * 4 + 3] = (d2 * d2 - d1 * d1) / n2;
                h[3 * 4 + 2] = h[2 * 4 + 3];
                h[3 * 4 + 3] = -h[2 * 4 + 2];
            }
            _ => {}
        }
        (g, h)
    }

    pub fn position(&self, q: &[f64]) -> [f64; 2] {
        match *self {
            Anchor::Ground { p } => p,
            Anchor::Point { x } | Anchor::Director { x, .. } => [q[x], q[x + 1]],
            Anchor::Rigid { x, s } => {
                let r = rot(q[x + 2], s);
                [q[x] + r[0], q[x + 1] + r[1]]
            }
        }
    }

    pub fn velocity(&self, q: &[f64], v: &[f64]) -> [f64; 2] {
        match *self {
            Anchor::Ground { .. } => [0.0, 0.0],
            Anchor::Point { x } | Anchor::Director { x, .. } => [v[x], v[x + 1]],
            Anchor::Rigid { x, s } => {
                let w = perp(rot(q[x + 2], s));
                [v[x] + w[0] * v[x + 2], v[x + 1] + w[1] * v[x + 2]]
            }
        }
    }

    /// The anchor as a point of the same position over its position coordinates only,
    /// when that position does not depend on its other coordinates (no offset from a rigid
    /// anchor's reference point, an ANCF node), unless `keep_angle`.
    fn position_only(self, keep_angle: bool) -> Anchor {
        match self {
            Anchor::Rigid { x, s: [0.0, 0.0] } if !keep_angle => Anchor::Point { x },
            Anchor::Director { x, .. } => Anchor::Point { x },
            a => a,
        }
    }

    /// Offset R(theta) s of a rigid anchor (zero otherwise).
    fn arm(&self, q: &[f64]) -> [f64; 2] {
        match *self {
            Anchor::Rigid { x, s } => rot(q[x + 2], s),
            _ => [0.0, 0.0],
        }
    }

    fn theta(&self) -> Option<usize> {
        match *self {
            Anchor::Rigid { x, .. } => Some(x + 2),
            _ => None,
        }
    }
}

/// An anchor point of a measure (`Measure::add_point_jacobian`).
struct PointJacobian {
    p: [f64; 2],
    /// d2p/dtheta2 = -R s of a rigid anchor.
    pp: [f64; 2],
    /// The measure-local index of a rigid anchor's theta.
    theta: Option<usize>,
}

/// What a measure measures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MeasureKind {
    /// |p2 - p1|
    Distance,
    /// u . (p2 - p1), u = R(theta1) u_body if `rotating` (body 1's frame) else the fixed u_body.
    Projection { u: [f64; 2], rotating: bool },
    /// theta2 - theta1 (theta1 = 0 for ground).
    Angle,
    /// d . r_x at an ANCF beam node a1 (paper 003 eq. 23, zero for a rigid section): the slope
    /// d of the node times the axis tangent r_x = w0 r_node + w1 r_a + w2 r_b of its element,
    /// r_a, r_b the positions of the element's other two nodes (first coordinates `others`).
    SectionShear { others: [usize; 2], weights: [f64; 3] },
    /// A measure between spatial rigid bodies (see `spatial_kinematics`).
    Spatial(super::spatial_kinematics::SpatialMeasure),
}

/// A scalar measure between two anchors, with its coordinate list.
#[derive(Debug, Clone, PartialEq)]
pub struct Measure {
    pub a1: Anchor,
    pub a2: Anchor,
    pub kind: MeasureKind,
    dofs: Vec<usize>,
    /// Where each anchor's coordinates start in `dofs`.
    off2: usize,
    /// An `Angle` with an ANCF node (`Measure::relative_angle`): the value at the initial
    /// configuration, about which the value is taken within half a turn.
    branch: Option<f64>,
}

impl Measure {
    pub fn new(a1: Anchor, a2: Anchor, kind: MeasureKind) -> Self {
        // A distance or projection sees only the anchors' positions: the angle of a point
        // without offset (a beam node, a body's reference point) and an ANCF node's slope do
        // not enter it, so they are left out of its coordinates (their gradient entries are
        // zero) and the point costs no sine and cosine. Body 1's angle stays when it turns
        // the projection axis.
        let (a1, a2) = match kind {
            MeasureKind::Distance => (a1.position_only(false), a2.position_only(false)),
            MeasureKind::Projection { rotating, .. } => (a1.position_only(rotating), a2.position_only(false)),
            _ => (a1, a2),
        };
        let d1 = a1.dofs();
        let off2 = d1.len();
        let mut dofs = d1;
        dofs.extend(a2.dofs());
        Measure { a1, a2, kind, dofs, off2, branch: None }
    }

    /// The relative angle theta2 - theta1 (`MeasureKind::Angle`). An ANCF node's angle comes
    /// from its slope and is defined only up to whole turns (`Anchor::angle`: within half a turn
    /// of its reference), so against a partner that turns on (a hub it is fixed to) the
    /// difference jumped by 2 pi once the node had turned half a turn from where it started,
    /// and the joint holding it failed there (a probe's driven hub at t = pi s). With an ANCF
    /// node the relative angle is therefore taken within half a turn of its value at `q0`,
    /// which a fixed joint or a spring keeps it near.
    pub fn relative_angle(a1: Anchor, a2: Anchor, q0: &[f64]) -> Self {
        let mut m = Measure::new(a1, a2, MeasureKind::Angle);
        let director = |a: &Anchor| matches!(a, Anchor::Director { .. });
        if director(&a1) || director(&a2) {
            m.branch = Some(m.value(q0));
        }
        m
    }

    /// A spatial measure (its anchors live in the kind; `a1`, `a2` are unused placeholders).
    pub fn spatial(m: super::spatial_kinematics::SpatialMeasure) -> Self {
        let off2 = m.a1.dofs().len();
        let ground = Anchor::Ground { p: [0.0, 0.0] };
        Measure { a1: ground, a2: ground, kind: MeasureKind::Spatial(m), dofs: m.dofs(), off2, branch: None }
    }

    /// The rigid-section measure d . r_x of an ANCF node (see [`MeasureKind::SectionShear`]);
    /// coordinates: the node's (x, y, d1, d2), then the other two nodes' positions.
    pub fn section_shear(node: Anchor, others: [usize; 2], weights: [f64; 3]) -> Self {
        let mut dofs = node.dofs();
        dofs.extend([others[0], others[0] + 1, others[1], others[1] + 1]);
        Measure {
            a1: node,
            a2: Anchor::Ground { p: [0.0, 0.0] },
            kind: MeasureKind::SectionShear { others, weights },
            dofs,
            off2: 4,
            branch: None,
        }
    }

    /// For `SectionShear`: the slope d and the axis tangent r_x.
    fn slope_and_tangent(&self, q: &[f64], others: [usize; 2], w: [f64; 3]) -> ([f64; 2], [f64; 2]) {
        let x = self.dofs[0];
        let t = std::array::from_fn(|k| w[0] * q[x + k] + w[1] * q[others[0] + k] + w[2] * q[others[1] + k]);
        ([q[x + 2], q[x + 3]], t)
    }

    pub fn dofs(&self) -> &[usize] {
        &self.dofs
    }

    /// Value only (cheaper than `derivatives`).
    pub fn value(&self, q: &[f64]) -> f64 {
        // By reference: a spatial measure is large, and matching a copy made a memcpy per call.
        match &self.kind {
            MeasureKind::Distance => {
                let (p1, p2) = (self.a1.position(q), self.a2.position(q));
                ((p2[0] - p1[0]).powi(2) + (p2[1] - p1[1]).powi(2)).sqrt()
            }
            MeasureKind::Projection { u, rotating } => {
                let (p1, p2) = (self.a1.position(q), self.a2.position(q));
                let u = self.direction(q, *u, *rotating);
                dot(u, [p2[0] - p1[0], p2[1] - p1[1]])
            }
            MeasureKind::Angle => {
                let angle = self.a2.angle(q) - self.a1.angle(q);
                self.branch.map_or(angle, |b| b + within_half_turn(angle - b))
            }
            MeasureKind::SectionShear { others, weights } => {
                let (d, t) = self.slope_and_tangent(q, *others, *weights);
                dot(d, t)
            }
            MeasureKind::Spatial(m) => m.value(q),
        }
    }

    /// Whether the measure is an angle known only up to whole turns: a spatial joint angle
    /// (wrapped to (-pi, pi]) or a planar one with an ANCF node (within half a turn of its
    /// start). Its value jumps by 2 pi where the wrapping does, its gradient does not.
    pub fn is_periodic(&self) -> bool {
        match &self.kind {
            MeasureKind::Angle => self.branch.is_some(),
            MeasureKind::Spatial(m) => m.is_angle(),
            _ => false,
        }
    }

    /// `value` at q, taken within half a turn of `near` if the measure is periodic: an element
    /// that follows the measure through whole turns (its last accepted value for `near`)
    /// sees it continuous.
    pub fn value_near(&self, q: &[f64], near: f64) -> f64 {
        let s = self.value(q);
        if self.is_periodic() { near + within_half_turn(s - near) } else { s }
    }

    /// The mean rate of the measure over the step `stride`, (s(end) - s(start)) / h, with the
    /// change of a periodic measure taken within half a turn (not the 2 pi jump where it wraps).
    pub fn stride_rate(&self, stride: &crate::integrators::Stride) -> f64 {
        let change = self.value(stride.end) - self.value(stride.start);
        (if self.is_periodic() { within_half_turn(change) } else { change }) / stride.h
    }

    /// Rate s' = G v.
    pub fn rate(&self, q: &[f64], v: &[f64]) -> f64 {
        let d = self.gradient(q);
        self.dofs.iter().enumerate().map(|(k, &i)| d.gradient[k] * v[i]).sum()
    }

    /// The global direction of a projection's `u`: turned by body 1's angle if `rotating`.
    pub(crate) fn direction(&self, q: &[f64], u: [f64; 2], rotating: bool) -> [f64; 2] {
        match (rotating, self.a1.theta()) {
            (true, Some(i)) => rot(q[i], u),
            _ => u,
        }
    }

    /// The anchor point p_k (k = 1, 2), with sign * its gradient with respect to the
    /// measure's dofs added to `dd` (columns dp/dq_j stored as [x-row; y-row]), and
    /// d2p/dtheta2 = -R s for rigid anchors with the index of theta. One sine/cosine per
    /// rigid anchor with an offset.
    fn add_point_jacobian(&self, q: &[f64], second: bool, sign: f64, dd: &mut [[f64; MAX_DOFS]; 2]) -> PointJacobian {
        let (a, off) = if second { (&self.a2, self.off2) } else { (&self.a1, 0) };
        let mut pj = PointJacobian { p: [0.0; 2], pp: [0.0; 2], theta: None };
        pj.p = match *a {
            Anchor::Ground { p } => p,
            Anchor::Point { x } | Anchor::Director { x, .. } => {
                dd[0][off] += sign;
                dd[1][off + 1] += sign;
                [q[x], q[x + 1]]
            }
            Anchor::Rigid { x, .. } => {
                dd[0][off] += sign;
                dd[1][off + 1] += sign;
                let arm = a.arm(q);
                let w = perp(arm);
                dd[0][off + 2] += sign * w[0];
                dd[1][off + 2] += sign * w[1];
                pj.pp = [-arm[0], -arm[1]];
                pj.theta = Some(off + 2);
                [q[x] + arm[0], q[x + 1] + arm[1]]
            }
        };
        pj
    }

    /// The value and gradient (forces G^T f, constraint forces C_q^T lambda, velocities C_q v).
    pub fn gradient(&self, q: &[f64]) -> Gradient {
        self.jet(q)
    }

    /// The value, gradient and Hessian (tangents).
    pub fn derivatives(&self, q: &[f64]) -> Derivatives {
        self.jet(q)
    }

    /// The value with its gradient and, if `H` > 0, its Hessian.
    pub fn jet<const H: usize>(&self, q: &[f64]) -> Jet<MAX_DOFS, H> {
        if let MeasureKind::Spatial(m) = &self.kind {
            return m.jet(q);
        }
        let n = self.dofs.len();
        let mut d = Jet::zero();
        match self.kind {
            MeasureKind::Spatial(_) => unreachable!("returned above"),
            MeasureKind::SectionShear { others, weights: w } => {
                // value d . t with t = w0 r_node + w1 r_a + w2 r_b; dofs (x, y, d1, d2, a, b).
                let (dv, t) = self.slope_and_tangent(q, others, w);
                d.value = dot(dv, t);
                let positions = [(0, w[0]), (4, w[1]), (6, w[2])];
                for k in 0..2 {
                    d.gradient[2 + k] = t[k];
                    for (at, wk) in positions {
                        d.gradient[at + k] = wk * dv[k];
                        if H > 0 {
                            d.hessian[(2 + k) * n + at + k] += wk;
                            d.hessian[(at + k) * n + 2 + k] += wk;
                        }
                    }
                }
            }
            MeasureKind::Angle => {
                d.value = self.value(q);
                for (a, off, sign) in [(&self.a1, 0, -1.0), (&self.a2, self.off2, 1.0)] {
                    let (g, h) = a.angle_derivatives(q);
                    let na = a.dof_range().len();
                    for r in 0..na {
                        d.gradient[off + r] += sign * g[r];
                        for c in 0..if H > 0 { na } else { 0 } {
                            d.hessian[(off + r) * n + off + c] += sign * h[4 * r + c];
                        }
                    }
                }
            }
            MeasureKind::Distance | MeasureKind::Projection { .. } => {
                // D = d(p2 - p1)/dq, and the only second derivatives of d: theta2-theta2 (pp2)
                // and theta1-theta1 (-pp1).
                let mut dd = [[0.0; MAX_DOFS]; 2];
                let PointJacobian { p: p1, pp: pp1, theta: th1 } = self.add_point_jacobian(q, false, -1.0, &mut dd);
                let PointJacobian { p: p2, pp: pp2, theta: th2 } = self.add_point_jacobian(q, true, 1.0, &mut dd);
                let dv = [p2[0] - p1[0], p2[1] - p1[1]];
                let d2 = |h: &mut [f64; H], w: [f64; 2]| {
                    // adds w . d2(p2 - p1)/dq2
                    if H == 0 {
                        return;
                    }
                    if let Some(t) = th2 {
                        h[t * n + t] += dot(w, pp2);
                    }
                    if let Some(t) = th1 {
                        h[t * n + t] -= dot(w, pp1);
                    }
                };
                match self.kind {
                    MeasureKind::Distance => {
                        let len = dot(dv, dv).sqrt();
                        d.value = len;
                        if len > 0.0 {
                            let e = [dv[0] / len, dv[1] / len];
                            for (c, g) in d.gradient.iter_mut().enumerate().take(n) {
                                *g = e[0] * dd[0][c] + e[1] * dd[1][c];
                            }
                            // H = D^T (I - e e^T) D / L + e . d2d
                            for a in 0..if H > 0 { n } else { 0 } {
                                for b in 0..n {
                                    let dot_ab = dd[0][a] * dd[0][b] + dd[1][a] * dd[1][b];
                                    d.hessian[a * n + b] = (dot_ab - d.gradient[a] * d.gradient[b]) / len;
                                }
                            }
                            d2(&mut d.hessian, e);
                        }
                    }
                    MeasureKind::Projection { u, rotating } => {
                        let u = self.direction(q, u, rotating);
                        d.value = dot(u, dv);
                        for (c, g) in d.gradient.iter_mut().enumerate().take(n) {
                            *g = u[0] * dd[0][c] + u[1] * dd[1][c];
                        }
                        d2(&mut d.hessian, u);
                        if rotating && let Some(t1) = th1 {
                            // u depends on theta1: du = perp(u) dtheta1, d2u = -u dtheta1^2.
                            let up = perp(u);
                            d.gradient[t1] += dot(up, dv);
                            if H > 0 {
                                for (c, (d0, d1)) in dd[0].iter().zip(&dd[1]).enumerate().take(n) {
                                    let cross = up[0] * d0 + up[1] * d1;
                                    d.hessian[t1 * n + c] += cross;
                                    d.hessian[c * n + t1] += cross;
                                }
                                d.hessian[t1 * n + t1] -= dot(u, dv);
                            }
                        }
                    }
                    MeasureKind::Angle | MeasureKind::SectionShear { .. } | MeasureKind::Spatial(_) => unreachable!(),
                }
            }
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_against_finite_differences(m: &Measure, q: &[f64]) {
        let n = m.dofs().len();
        let d = m.derivatives(q);
        let h = 1e-6;
        for (a, &i) in m.dofs().iter().enumerate() {
            let mut qp = q.to_vec();
            let mut qm = q.to_vec();
            qp[i] += h;
            qm[i] -= h;
            let g = (m.value(&qp) - m.value(&qm)) / (2.0 * h);
            assert!((g - d.gradient[a]).abs() < 1e-8, "gradient {a}: fd {g} vs {}", d.gradient[a]);
            let (dp, dm) = (m.derivatives(&qp), m.derivatives(&qm));
            for b in 0..n {
                let hfd = (dp.gradient[b] - dm.gradient[b]) / (2.0 * h);
                assert!(
                    (hfd - d.hessian[a * n + b]).abs() < 1e-7,
                    "hessian ({a},{b}): fd {hfd} vs {}",
                    d.hessian[a * n + b]
                );
            }
        }
    }

    #[test]
    fn gradients_and_hessians_match_finite_differences() {
        let q = [0.3, -0.2, 0.7, 1.1, 0.4, -1.3, 0.5, 0.25, 0.9, -0.3, 0.4, 1.2];
        let r1 = Anchor::Rigid { x: 0, s: [0.4, -0.1] };
        let r2 = Anchor::Rigid { x: 3, s: [-0.2, 0.3] };
        let pm = Anchor::Point { x: 6 };
        let g = Anchor::Ground { p: [0.1, 0.2] };
        let d1 = Anchor::Director { x: 8, reference: [0.0, 1.0] };
        let d2 = Anchor::Director { x: 4, reference: [-0.6, 0.8] };
        let kinds = [
            MeasureKind::Distance,
            MeasureKind::Projection { u: [0.6, 0.8], rotating: true },
            MeasureKind::Projection { u: [0.0, 1.0], rotating: false },
            MeasureKind::Angle,
        ];
        for kind in kinds {
            for (a1, a2) in [(r1, r2), (g, r2), (r1, pm), (g, pm), (g, d1), (r1, d1), (d2, d1), (d1, r2)] {
                if kind == MeasureKind::Angle && matches!(a2, Anchor::Point { .. }) {
                    continue;
                }
                check_against_finite_differences(&Measure::new(a1, a2, kind), &q);
            }
        }
        check_against_finite_differences(
            &Measure::section_shear(Anchor::Director { x: 4, reference: [0.0, 1.0] }, [0, 8], [-3.0, 4.0, -1.0]),
            &q,
        );
    }
}
