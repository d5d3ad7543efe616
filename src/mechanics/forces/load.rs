//! Applied forces (at a point of a body, along a fixed global direction or one that turns
//! with the body) and torques, whose magnitude is a function of time and inputs.
//!
//! A torque T acts on a section angle theta(q) (a rigid body's or corotational node's rotation
//! coordinate, or the angle of an ANCF node's slope d = dr/dy, paper 003 eq. 4). Its virtual
//! work is T dtheta, so the generalized force is Q = T dtheta/dq (paper 003 eq. 24). For an
//! ANCF node, theta = atan2(-d1, d2) gives dtheta/dd = (-d2, d1)/|d|^2, hence
//! Q = T (-e4, e3)/(e3^2 + e4^2) on the slope coordinates (e3, e4) = d. Eq. 24 prints the
//! opposite sign, T (e4, -e3)/(e3^2 + e4^2): there T is the reaction torque of the pivot's
//! spring-damper (eq. 8), which opposes the rotation; for an applied (driving) torque the sign
//! above is the one whose work is T dtheta (checked by finite differences in
//! tests/suite/ancf_torque.rs). Q depends on q, so the load contributes the tangent -T d2theta/dq2.

use crate::integrators::{EnergyFlow, Stride, TangentCoefficients};
use crate::mechanics::elements::floating_frame_beam_2d::MAX_COORDINATES;
use crate::mechanics::elements::{Element, Energy, FloatingFramePoint, Kin};
use crate::mechanics::forces::line_load::LineSegment;
use crate::mechanics::kinematics::{Anchor, rot};
use crate::model::expr::{Expr, InputRates};

/// Why a piecewise-linear table cannot go from (t0, v0) to (t1, v1), t1 > t0: a slope beyond
/// the range of double precision, which is the rate of what it feeds (a load, a drive). Shared
/// by model-file load tables and `simulate --input` tables.
pub fn slope_overflow(t0: f64, v0: f64, t1: f64, v1: f64) -> Option<String> {
    use crate::compact_number::Compact;
    (!((v1 - v0) / (t1 - t0)).is_finite()).then(|| {
        format!(
            "the value changes from {} to {} in {} s, a slope beyond the range of double precision",
            Compact(v0),
            Compact(v1),
            Compact(t1 - t0)
        )
    })
}

/// Magnitude of a load over time.
#[derive(Debug, Clone, PartialEq)]
pub enum TimeFunction {
    /// Expression in parameters, `t` and inputs.
    Expr(Expr),
    /// Piecewise-linear [time, value] rows, held constant outside the table.
    Table(Vec<[f64; 2]>),
}

impl TimeFunction {
    /// The magnitude at time t, the inputs interpolated by their rates (`Kin`).
    pub fn eval(&self, t: f64, inputs: &[f64], rates: &InputRates) -> f64 {
        match self {
            TimeFunction::Expr(e) => e.eval_interpolated(t, inputs, rates),
            TimeFunction::Table(rows) => {
                let k = rows.partition_point(|r| r[0] <= t);
                if k == 0 {
                    rows[0][1]
                } else if k == rows.len() {
                    rows[k - 1][1]
                } else {
                    let ([t0, v0], [t1, v1]) = (rows[k - 1], rows[k]);
                    v0 + (v1 - v0) * (t - t0) / (t1 - t0)
                }
            }
        }
    }

    pub fn reads_input(&self, i: usize) -> bool {
        matches!(self, TimeFunction::Expr(e) if e.reads_input(i))
    }

    /// The inputs the function reads, appended to `out` (`Expr::inputs_read`).
    pub fn inputs_read(&self, out: &mut Vec<usize>) {
        if let TimeFunction::Expr(e) = self {
            e.inputs_read(out);
        }
    }

    /// d/du_i at (t, inputs): forward mode through the expression (`Expr::eval_with_input_derivative`);
    /// a table reads no input.
    pub fn input_derivative(&self, t: f64, inputs: &[f64], i: usize) -> f64 {
        match self {
            TimeFunction::Expr(e) => e.eval_with_input_derivative(t, inputs, i).1,
            TimeFunction::Table(_) => 0.0,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum LoadKind {
    /// Force of the given magnitude along the fixed unit vector `direction`, at `anchor`.
    Force { anchor: Anchor, direction: [f64; 2] },
    /// Force along a direction that turns with the section angle theta of `anchor` (a
    /// follower force): u(q) = R(theta(q)) `direction`, with `direction` the unit vector at
    /// theta = 0. Its virtual work f u . dP gives Q = f J_P^T u: on the position f u, and on a
    /// rigid anchor's theta f (R s) x u = f s x `direction`, constant. So only u's turning
    /// enters the tangent: dQ_P/dq = f perp(u) dtheta/dq (not symmetric: a follower load is
    /// not conservative; Argyris & Symeonidis 1981, "Nonlinear finite element analysis of
    /// elastic systems under nonconservative loading").
    FollowerForce { anchor: Anchor, direction: [f64; 2] },
    /// Torque on the section angle of `anchor` (a rigid anchor's theta or an ANCF node's slope
    /// angle).
    Torque { anchor: Anchor },
    /// Force along the fixed unit vector `direction` at a material point of a floating-frame
    /// beam (paper 004 eq. 1): generalized force J^T F over the frame and modal coordinates,
    /// stiffness -f u . d2r/dq2 (the follower terms of the rotating frame and the axial
    /// shortening).
    FloatingForce { point: FloatingFramePoint, direction: [f64; 2] },
    /// A force per unit length along the fixed unit vector `direction` on one beam element
    /// (src/mechanics/forces/line_load.rs).
    Line { segment: LineSegment, direction: [f64; 2] },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Load {
    pub kind: LoadKind,
    pub magnitude: TimeFunction,
    dofs: Vec<usize>,
}

impl Load {
    pub fn force(anchor: Anchor, direction: [f64; 2], magnitude: TimeFunction) -> Self {
        Load { dofs: anchor.dofs(), kind: LoadKind::Force { anchor, direction }, magnitude }
    }

    /// A follower force at `anchor` (a rigid anchor or an ANCF node) along the unit
    /// `direction` (global, at the anchor's angle in `q0`), which then turns with the anchor.
    pub fn follower_force(anchor: Anchor, direction: [f64; 2], q0: &[f64], magnitude: TimeFunction) -> Self {
        let direction = rot(-anchor.angle(q0), direction);
        Load { dofs: anchor.dofs(), kind: LoadKind::FollowerForce { anchor, direction }, magnitude }
    }

    pub fn floating_force(point: FloatingFramePoint, direction: [f64; 2], magnitude: TimeFunction) -> Self {
        Load {
            dofs: (point.first..point.first + point.coordinates()).collect(),
            kind: LoadKind::FloatingForce { point, direction },
            magnitude,
        }
    }

    /// A force of `magnitude` per unit length along the unit `direction` (global) on the beam
    /// element `segment`.
    pub fn line(segment: LineSegment, direction: [f64; 2], magnitude: TimeFunction) -> Self {
        Load { dofs: segment.dofs(), kind: LoadKind::Line { segment, direction }, magnitude }
    }

    /// A torque on a rigid body / corotational node (`Anchor::Rigid`) or an ANCF beam node
    /// (`Anchor::Director`).
    pub fn torque(anchor: Anchor, magnitude: TimeFunction) -> Self {
        Load { dofs: anchor.dofs(), kind: LoadKind::Torque { anchor }, magnitude }
    }

    /// Add the generalized force of magnitude `f` at `x` into `forces` (g is linear in f).
    fn add_force_of(&self, f: f64, x: &Kin, forces: &mut [f64]) {
        self.generalized_force(f, x, |i, q| forces[i] -= q);
    }

    /// Each component (coordinate i, Q_i) of the generalized force Q of magnitude `f` at `x`.
    fn generalized_force(&self, f: f64, x: &Kin, mut out: impl FnMut(usize, f64)) {
        match &self.kind {
            LoadKind::Torque { anchor } => {
                // Q = T dtheta/dq (003 eq. 24, sign for an applied torque: see the module doc).
                let (g, _) = anchor.angle_derivatives(x.q);
                for (k, &i) in self.dofs.iter().enumerate() {
                    out(i, f * g[k]);
                }
            }
            LoadKind::Force { anchor, direction: u } => {
                out(self.dofs[0], f * u[0]);
                out(self.dofs[1], f * u[1]);
                if let Anchor::Rigid { x: i, .. } = *anchor {
                    // Generalized force on theta: (dp/dtheta) . F, dp/dtheta = perp(R s).
                    let p = anchor.position(x.q);
                    let arm = [p[0] - x.q[i], p[1] - x.q[i + 1]];
                    out(i + 2, f * (-arm[1] * u[0] + arm[0] * u[1]));
                }
            }
            LoadKind::FollowerForce { anchor, direction } => {
                let u = rot(anchor.angle(x.q), *direction);
                out(self.dofs[0], f * u[0]);
                out(self.dofs[1], f * u[1]);
                if let Anchor::Rigid { x: i, s } = *anchor {
                    out(i + 2, f * (s[0] * direction[1] - s[1] * direction[0]));
                }
            }
            LoadKind::FloatingForce { point, direction: u } => {
                let mut jac = [[0.0; 2]; MAX_COORDINATES];
                let jac = &mut jac[..point.coordinates()];
                point.jacobian_into(x.q, jac);
                for (&d, col) in self.dofs.iter().zip(jac.iter()) {
                    out(d, f * (u[0] * col[0] + u[1] * col[1]));
                }
            }
            LoadKind::Line { segment, direction: u } => {
                segment.generalized_force([f * u[0], f * u[1]], x.q, |k, q| out(self.dofs[k], q));
            }
        }
    }
}

impl Element for Load {
    fn dofs(&self) -> &[usize] {
        &self.dofs
    }

    fn add_forces(&self, x: &Kin, _inertial: &mut [f64], forces: &mut [f64]) {
        self.add_force_of(self.magnitude.eval(x.t, x.inputs, x.rates), x, forces);
    }

    fn add_tangent(&self, x: &Kin, c: &TangentCoefficients, block: &mut [f64]) {
        if let LoadKind::Line { segment, direction: u } = &self.kind {
            let f = self.magnitude.eval(x.t, x.inputs, x.rates);
            segment.add_tangent([f * u[0], f * u[1]], x.q, c.stiffness, block);
            return;
        }
        if let LoadKind::FloatingForce { point, direction: u } = &self.kind {
            let f = self.magnitude.eval(x.t, x.inputs, x.rates);
            let nd = point.coordinates();
            let mut hess = [0.0; MAX_COORDINATES * MAX_COORDINATES];
            point.weighted_hessian_into(x.q, *u, &mut hess[..nd * nd]);
            for (b, h) in block.iter_mut().zip(&hess[..nd * nd]) {
                *b -= c.stiffness * f * h;
            }
            return;
        }
        if let LoadKind::Torque { anchor: anchor @ Anchor::Director { .. } } = &self.kind {
            // d/dq of -T dtheta/dq = -T d2theta/dq2 (zero for a rigid anchor).
            let f = self.magnitude.eval(x.t, x.inputs, x.rates);
            let (_, h) = anchor.angle_derivatives(x.q);
            for (b, hk) in block.iter_mut().zip(h.iter()) {
                *b -= c.stiffness * f * hk;
            }
            return;
        }
        if let LoadKind::FollowerForce { anchor, direction } = &self.kind {
            // d/dq of -f u(theta(q)) on the position rows: -f perp(u) dtheta/dq.
            let f = self.magnitude.eval(x.t, x.inputs, x.rates);
            let u = rot(anchor.angle(x.q), *direction);
            let (g, _) = anchor.angle_derivatives(x.q);
            let n = self.dofs.len();
            for (row, du) in [-u[1], u[0]].into_iter().enumerate() {
                for (b, gj) in block[row * n..(row + 1) * n].iter_mut().zip(g) {
                    *b -= c.stiffness * f * du * gj;
                }
            }
            return;
        }
        if let LoadKind::Force { anchor: anchor @ Anchor::Rigid { x: i, .. }, direction: u } = &self.kind {
            // d/dtheta of -(perp(R s) . F) = (R s) . F
            let f = self.magnitude.eval(x.t, x.inputs, x.rates);
            let p = anchor.position(x.q);
            let arm = [p[0] - x.q[*i], p[1] - x.q[i + 1]];
            block[8] += c.stiffness * f * (arm[0] * u[0] + arm[1] * u[1]);
        }
    }

    fn energy(&self, _x: &Kin) -> Energy {
        Energy::default()
    }

    const NON_CONSERVATIVE: bool = true;

    /// The load's power Q . (q_end - q_start)/h; a distributed force's exactly, minus the
    /// change of its potential over the stride.
    fn power(&self, x: &Kin, stride: &Stride) -> EnergyFlow {
        let f = self.magnitude.eval(x.t, x.inputs, x.rates);
        if let LoadKind::Line { segment, direction: u } = &self.kind {
            let density = [f * u[0], f * u[1]];
            let change = segment.potential(density, stride.end) - segment.potential(density, stride.start);
            return EnergyFlow { dissipated: 0.0, supplied: -change / stride.h };
        }
        let mut supplied = 0.0;
        self.generalized_force(f, x, |i, q| supplied += q * stride.velocity(i));
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
