//! Multi-point stiffness/damping force element of paper 001 (section 2.2, eqs. 12-13): n
//! member bodies held elastically relative to a floating reference body (or ground) by one
//! 6n x 6n stiffness matrix K and damping matrix C, e.g. a Guyan-condensed plate (eq. 8/10).
//!
//! Measures, per member i (6 each, expressed in the reference frame):
//!  - translation  x_t = A_R^T (r_i + A_i s_i - r_R) - l_t: the relative position of the
//!    member's attachment point (body-fixed offset s_i from its centre of mass), minus its
//!    initial value l_t (the "l" of eq. 12);
//!  - small rotation  theta = 2 vec(p_rel),  p_rel = conj(p_R) (x) p_i (x) conj(c_i), c_i the
//!    initial relative Euler parameters conj(p_R0) (x) p_i0: p_rel is the rotation, in the
//!    reference frame, that took the member from its initial relative orientation to the
//!    current one, and for a rotation by phi about u, 2 vec(p_rel) = 2 sin(phi/2) u = phi u +
//!    O(phi^3) (exact to first order; sign fixed by e0 > 0, i.e. |phi| < pi).
//!
//! With ground as the reference, r_R = 0 and p_R = (1, 0, 0, 0) (the global frame).
//!
//! Force (eq. 12):  F = -K (x - l) - C x_dot + f0, with f0 the preload (zero unless set) and
//! x_dot = J v the rate of the measures. As generalized forces (virtual work; the "forces"
//! vector of the `Element` contract holds the internal force, opposite to F):
//!   g = J^T (K e + C J v - f0),  e = x - l,  J = dx/dq.
//! The rows of J^T belonging to the reference body give its reaction, eq. 13: minus the sum of
//! the member forces and minus the sum of (moments + x_Jl x translational forces), which the
//! chain rule through A_R^T (r_i + A_i s_i - r_R) produces; this is checked in the tests (a
//! rigid motion of the whole group does no work, so the total force and moment vanish).
//! Newton tangent:
//!   K_t = J^T K J + J^T C (d(J v)/dq) + sum_k f_k H_k,  C_t = J^T C J,  f = K e + C J v - f0,
//! with H_k the Hessian of measure k. Measures, gradients and Hessians are computed exactly by
//! second-order forward differentiation over the (7 or 14) coordinates each member's measures
//! depend on (`Taylor2` below; forces use its gradient-only form); A(p) is the homogeneous
//! quadratic form of `euler_parameters::rotation`, as for the rigid bodies.
//! Energy: 1/2 e^T K e - f0^T e (K symmetric); dissipation x_dot^T C x_dot.

use crate::integrators::{EnergyFlow, Stride, TangentCoefficients};
use crate::mechanics::elements::{Element, Energy, Kin};

/// The largest rotation of a member against its reference (rad; the measure 2 sin(phi/2))
/// within the element's formulation (`Element::outside_formulation`).
const ROTATION_LIMIT: f64 = 0.3;

/// Deflections of a plate clamped on opposite edges beyond this fraction of its thickness: the
/// membrane force its stretching brings stiffens it by about 5 % there (a clamped circular
/// plate, Timoshenko & Woinowsky-Krieger 1959, sec. 97: q ~ (w/h)(1 + 0.488 (w/h)^2)), which
/// the linear element leaves out.
const MEMBRANE_LIMIT: f64 = 0.3;

/// Second-order truncated Taylor number over N variables: value, gradient, Hessian (M = N),
/// or value and gradient only (M = 0, for forces, which need no Hessian).
#[derive(Clone, Copy)]
struct Taylor2<const N: usize, const M: usize> {
    v: f64,
    g: [f64; N],
    h: [[f64; M]; M],
}

impl<const N: usize, const M: usize> Taylor2<N, M> {
    fn constant(v: f64) -> Self {
        Taylor2 { v, g: [0.0; N], h: [[0.0; M]; M] }
    }

    fn variable(v: f64, k: usize) -> Self {
        let mut t = Self::constant(v);
        t.g[k] = 1.0;
        t
    }

    fn add(&self, o: &Self) -> Self {
        let mut t = *self;
        t.v += o.v;
        for a in 0..N {
            t.g[a] += o.g[a];
        }
        for a in 0..M {
            for b in 0..M {
                t.h[a][b] += o.h[a][b];
            }
        }
        t
    }

    fn scale(&self, s: f64) -> Self {
        let mut t = *self;
        t.v *= s;
        for a in 0..N {
            t.g[a] *= s;
        }
        for a in 0..M {
            for b in 0..M {
                t.h[a][b] *= s;
            }
        }
        t
    }

    fn sub(&self, o: &Self) -> Self {
        self.add(&o.scale(-1.0))
    }

    fn mul(&self, o: &Self) -> Self {
        let mut t = Self::constant(self.v * o.v);
        for a in 0..N {
            t.g[a] = self.v * o.g[a] + o.v * self.g[a];
        }
        for a in 0..M {
            for b in 0..M {
                t.h[a][b] = self.v * o.h[a][b] + o.v * self.h[a][b] + self.g[a] * o.g[b] + o.g[a] * self.g[b];
            }
        }
        t
    }
}

type Quat<const N: usize, const M: usize> = [Taylor2<N, M>; 4];

/// Quaternion (Euler-parameter) product p (x) q, with A(p (x) q) = A(p) A(q).
fn quat_mul<const N: usize, const M: usize>(p: &Quat<N, M>, q: &Quat<N, M>) -> Quat<N, M> {
    let m = |a: usize, b: usize| p[a].mul(&q[b]);
    [
        m(0, 0).sub(&m(1, 1)).sub(&m(2, 2)).sub(&m(3, 3)),
        m(0, 1).add(&m(1, 0)).add(&m(2, 3)).sub(&m(3, 2)),
        m(0, 2).add(&m(2, 0)).add(&m(3, 1)).sub(&m(1, 3)),
        m(0, 3).add(&m(3, 0)).add(&m(1, 2)).sub(&m(2, 1)),
    ]
}

fn conj<const N: usize, const M: usize>(p: &Quat<N, M>) -> Quat<N, M> {
    [p[0], p[1].scale(-1.0), p[2].scale(-1.0), p[3].scale(-1.0)]
}

/// A(p) = (e0^2 - e.e) I + 2 e e^T + 2 e0 e~ (homogeneous quadratic form, as
/// `euler_parameters::rotation`).
fn rotation<const N: usize, const M: usize>(p: &Quat<N, M>) -> [[Taylor2<N, M>; 3]; 3] {
    let e0 = p[0];
    let e = [p[1], p[2], p[3]];
    let d = e0.mul(&e0).sub(&e[0].mul(&e[0])).sub(&e[1].mul(&e[1])).sub(&e[2].mul(&e[2]));
    let mut a = [[Taylor2::constant(0.0); 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            let mut x = e[i].mul(&e[j]).scale(2.0);
            if i == j {
                x = x.add(&d);
            }
            a[i][j] = x;
        }
    }
    // + 2 e0 e~,  e~ = [[0, -e3, e2], [e3, 0, -e1], [-e2, e1, 0]]
    let t = |k: usize| e0.mul(&e[k]).scale(2.0);
    a[0][1] = a[0][1].sub(&t(2));
    a[0][2] = a[0][2].add(&t(1));
    a[1][0] = a[1][0].add(&t(2));
    a[1][2] = a[1][2].sub(&t(0));
    a[2][0] = a[2][0].sub(&t(1));
    a[2][1] = a[2][1].add(&t(0));
    a
}

/// A member body: its coordinates (r, p) start at `x`; `s` is the attachment point in its body
/// frame, `c` the initial relative Euler parameters conj(p_R0) (x) p_0.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub x: usize,
    pub s: [f64; 3],
    pub c: [f64; 4],
}

/// Measures (6 per member), their gradients (J rows) and Hessians, over the local variables
/// [member (r, p); reference (r, p)].
#[derive(Debug, Default)]
struct MemberMeasures {
    value: [f64; 6],
    gradient: [Vec<f64>; 6],
    hessian: [Vec<f64>; 6],
}

fn member_measures<const N: usize, const M: usize>(
    q: &[f64],
    member: &Member,
    reference: Option<usize>,
    out: &mut MemberMeasures,
) {
    let var = |k: usize| -> Taylor2<N, M> {
        let i = if k < 7 { member.x + k } else { reference.unwrap_or(0) + k - 7 };
        Taylor2::variable(q[i], k)
    };
    let r_i: [Taylor2<N, M>; 3] = std::array::from_fn(var);
    let p_i: Quat<N, M> = std::array::from_fn(|k| var(3 + k));
    let (r_ref, p_ref): ([Taylor2<N, M>; 3], Quat<N, M>) = if N == 14 {
        (std::array::from_fn(|k| var(7 + k)), std::array::from_fn(|k| var(10 + k)))
    } else {
        (
            [Taylor2::constant(0.0); 3],
            [Taylor2::constant(1.0), Taylor2::constant(0.0), Taylor2::constant(0.0), Taylor2::constant(0.0)],
        )
    };
    // d = r_i + A_i s_i - r_R (global), x_t = A_R^T d.
    let a_i = rotation(&p_i);
    let d: [Taylor2<N, M>; 3] = std::array::from_fn(|k| {
        let mut x = r_i[k].sub(&r_ref[k]);
        for (a, &s) in a_i[k].iter().zip(&member.s) {
            x = x.add(&a.scale(s));
        }
        x
    });
    let x_t: [Taylor2<N, M>; 3] = if N == 14 {
        let a_r = rotation(&p_ref);
        std::array::from_fn(|k| a_r[0][k].mul(&d[0]).add(&a_r[1][k].mul(&d[1])).add(&a_r[2][k].mul(&d[2])))
    } else {
        d
    };
    let c: Quat<N, M> = std::array::from_fn(|k| Taylor2::constant(if k == 0 { member.c[0] } else { -member.c[k] }));
    let rel = quat_mul(&quat_mul(&conj(&p_ref), &p_i), &c);
    let all = [x_t[0], x_t[1], x_t[2], rel[1].scale(2.0), rel[2].scale(2.0), rel[3].scale(2.0)];
    // Into the lists `out` already has (no allocation once they have their length).
    for (k, m) in all.iter().enumerate() {
        out.value[k] = m.v;
        out.gradient[k].clear();
        out.gradient[k].extend_from_slice(&m.g);
        out.hessian[k].clear();
        out.hessian[k].extend(m.h.iter().flatten());
    }
}

/// The lists of one evaluation (measures, deformations, forces, tangent rows), kept with the
/// element so that a step does not allocate; every evaluation overwrites them, so they are
/// no state: a clone starts empty and equality ignores them.
#[derive(Debug, Default)]
struct Workspace {
    measures: Vec<MemberMeasures>,
    e: Vec<f64>,
    rate: Vec<f64>,
    f: Vec<f64>,
    jrow: Vec<f64>,
    erow: Vec<f64>,
    w: Vec<f64>,
}

/// The element's `Workspace` behind a lock (elements are evaluated through `&self` and
/// shared between threads; an evaluation holds the lock while it uses the lists).
#[derive(Debug, Default)]
struct Scratch(std::sync::Mutex<Workspace>);

impl Scratch {
    fn with<R>(&self, f: impl FnOnce(&mut Workspace) -> R) -> R {
        // The lists hold no state between evaluations: a poisoned lock is still usable.
        let mut ws = self.0.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut ws)
    }
}

impl Clone for Scratch {
    fn clone(&self) -> Self {
        Scratch::default()
    }
}

impl PartialEq for Scratch {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Paper 001 eqs. 12-13 (see the module documentation).
#[derive(Debug, Clone, PartialEq)]
pub struct MultiPointForce {
    dofs: Vec<usize>,
    pub members: Vec<Member>,
    /// First coordinate of the reference body, None for ground.
    pub reference: Option<usize>,
    /// K, 6n x 6n row-major (symmetric), over the measures [x_t, theta] of member 0, 1, ...
    pub stiffness: Vec<f64>,
    /// C, 6n x 6n row-major.
    pub damping: Vec<f64>,
    /// l: the measures at which the elastic force vanishes (6n).
    pub free_values: Vec<f64>,
    /// f0 of eq. 12: preload on the members at x = l (6n; zero by default).
    pub preload: Vec<f64>,
    /// A plate held in its plane by clamps on opposite edges (reference: ground), its
    /// thickness: deflections beyond `MEMBRANE_LIMIT` of it stretch its mid-surface, a
    /// stiffening the element (linear) leaves out (`outside_formulation`).
    pub membrane_thickness: Option<f64>,
    scratch: Scratch,
}

impl MultiPointForce {
    /// `free_values` None: the element is unstressed at `q0` (l = x(q0)).
    pub fn new(
        members: Vec<Member>,
        reference: Option<usize>,
        stiffness: Vec<f64>,
        damping: Vec<f64>,
        q0: &[f64],
    ) -> Self {
        let mut dofs: Vec<usize> = members.iter().flat_map(|m| m.x..m.x + 7).collect();
        if let Some(r) = reference {
            dofs.extend(r..r + 7);
        }
        let mut e = MultiPointForce {
            dofs,
            members,
            reference,
            stiffness,
            damping,
            free_values: Vec::new(),
            preload: Vec::new(),
            membrane_thickness: None,
            scratch: Scratch::default(),
        };
        let mut ms = Vec::new();
        e.measures_into(q0, false, &mut ms);
        e.free_values = ms.iter().flat_map(|m| m.value).collect();
        e.preload = vec![0.0; e.free_values.len()];
        e
    }

    fn local_vars(&self) -> usize {
        if self.reference.is_some() { 14 } else { 7 }
    }

    /// Measures and gradients of every member; Hessians too if `hessians`.
    /// The members' measures (with Hessians if asked) into `out`.
    fn measures_into(&self, q: &[f64], hessians: bool, out: &mut Vec<MemberMeasures>) {
        out.resize_with(self.members.len(), MemberMeasures::default);
        for (m, o) in self.members.iter().zip(out.iter_mut()) {
            match (self.reference, hessians) {
                (Some(_), true) => member_measures::<14, 14>(q, m, self.reference, o),
                (Some(_), false) => member_measures::<14, 0>(q, m, self.reference, o),
                (None, true) => member_measures::<7, 7>(q, m, None, o),
                (None, false) => member_measures::<7, 0>(q, m, None, o),
            }
        }
    }

    /// Position in `dofs` of local variable k of member i.
    fn slot(&self, i: usize, k: usize) -> usize {
        if k < 7 { 7 * i + k } else { 7 * self.members.len() + k - 7 }
    }

    fn global(&self, i: usize, k: usize) -> usize {
        self.dofs[self.slot(i, k)]
    }

    /// Measures x (6n) and their rates J v.
    pub fn deformation(&self, q: &[f64], v: &[f64]) -> (Vec<f64>, Vec<f64>) {
        self.scratch.with(|ws| {
            self.deformation_into(q, v, ws);
            (ws.e.clone(), ws.rate.clone())
        })
    }

    /// The measures (without Hessians), e = x - l and J v into `ws`.
    fn deformation_into(&self, q: &[f64], v: &[f64], ws: &mut Workspace) {
        self.measures_into(q, false, &mut ws.measures);
        self.deformation_of(v, ws);
    }

    /// e = x - l and J v of the measures in `ws`.
    fn deformation_of(&self, v: &[f64], ws: &mut Workspace) {
        let nv = self.local_vars();
        let Workspace { measures, e, rate, .. } = ws;
        e.clear();
        rate.clear();
        for (i, m) in measures.iter().enumerate() {
            for k in 0..6 {
                e.push(m.value[k] - self.free_values[6 * i + k]);
                rate.push((0..nv).map(|a| m.gradient[k][a] * v[self.global(i, a)]).sum());
            }
        }
    }

    /// Force of the element on its reference body, global frame: eq. 13's
    /// F_Jtrans = -sum F_l,trans = sum f_trans (measured in the reference frame, rotated by
    /// A_R). With ground as the reference it is the force on the support.
    pub fn reference_force(&self, q: &[f64], v: &[f64]) -> [f64; 3] {
        let local: [f64; 3] = self.scratch.with(|ws| {
            self.deformation_into(q, v, ws);
            self.member_forces(ws);
            std::array::from_fn(|k| (0..self.members.len()).map(|i| ws.f[6 * i + k]).sum())
        });
        match self.reference {
            None => local,
            Some(r) => crate::mechanics::euler_parameters::mat_vec(
                &crate::mechanics::euler_parameters::rotation(&q[r + 3..r + 7]),
                local,
            ),
        }
    }

    /// f = K e + C x_dot - f0 (6n): minus the force of eq. 12 on the members.
    /// (into `ws.f`, from `ws.e` and `ws.rate`)
    fn member_forces(&self, ws: &mut Workspace) {
        let Workspace { e, rate, f, .. } = ws;
        let n = e.len();
        f.clear();
        f.extend((0..n).map(|r| {
            (0..n).map(|c| self.stiffness[r * n + c] * e[c] + self.damping[r * n + c] * rate[c]).sum::<f64>()
                - self.preload[r]
        }));
    }

    /// `Element::add_tangent` with the lists of `ws`.
    fn tangent_into(&self, x: &Kin, c: &TangentCoefficients, block: &mut [f64], ws: &mut Workspace) {
        let nv = self.local_vars();
        let nd = self.dofs.len();
        let n6 = 6 * self.members.len();
        self.measures_into(x.q, true, &mut ws.measures);
        self.deformation_of(x.v, ws);
        self.member_forces(ws);
        let Workspace { measures: ms, f, jrow, erow, w, .. } = ws;
        // Rows of J and of E = d(J v)/dq (row k: (H_k v)^T) over the member's local variables
        // (each row has at most nv nonzeros, at the block positions `slot(i, a)`).
        jrow.clear();
        jrow.resize(n6 * nv, 0.0);
        erow.clear();
        erow.resize(n6 * nv, 0.0);
        for (i, m) in ms.iter().enumerate() {
            let v_loc: [f64; 14] = std::array::from_fn(|a| if a < nv { x.v[self.global(i, a)] } else { 0.0 });
            for k in 0..6 {
                let row = 6 * i + k;
                for a in 0..nv {
                    jrow[row * nv + a] = m.gradient[k][a];
                    erow[row * nv + a] = (0..nv).map(|b| m.hessian[k][a * nv + b] * v_loc[b]).sum::<f64>();
                }
            }
        }
        // W = c_s (K J + C E) + c_d C J  (n6 x nd), then block += J^T W + c_s sum f_k H_k.
        w.clear();
        w.resize(n6 * nd, 0.0);
        for r in 0..n6 {
            let wr = &mut w[r * nd..(r + 1) * nd];
            for l in 0..n6 {
                let (k, d) = (self.stiffness[r * n6 + l], self.damping[r * n6 + l]);
                if k == 0.0 && d == 0.0 {
                    continue;
                }
                let (cj, ce) = (c.stiffness * k + c.damping * d, c.stiffness * d);
                let member = l / 6;
                for a in 0..nv {
                    wr[self.slot(member, a)] += cj * jrow[l * nv + a] + ce * erow[l * nv + a];
                }
            }
        }
        for (i, m) in ms.iter().enumerate() {
            for k in 0..6 {
                let row = 6 * i + k;
                let wr = &w[row * nd..(row + 1) * nd];
                for a in 0..nv {
                    let ja = m.gradient[k][a];
                    let sa = self.slot(i, a);
                    if ja != 0.0 {
                        for s in 0..nd {
                            block[sa * nd + s] += ja * wr[s];
                        }
                    }
                    for b in 0..nv {
                        block[sa * nd + self.slot(i, b)] += c.stiffness * f[row] * m.hessian[k][a * nv + b];
                    }
                }
            }
        }
    }
}

impl Element for MultiPointForce {
    /// The plate's patches (and its reference body) are one piece (`Element::TIES`).
    const TIES: bool = true;

    fn dofs(&self) -> &[usize] {
        &self.dofs
    }

    /// A plate held by ground as its reference.
    fn tied_to_ground(&self) -> bool {
        self.reference.is_none()
    }

    fn add_forces(&self, x: &Kin, _inertial: &mut [f64], forces: &mut [f64]) {
        let nv = self.local_vars();
        self.scratch.with(|ws| {
            self.deformation_into(x.q, x.v, ws);
            self.member_forces(ws);
            for (i, m) in ws.measures.iter().enumerate() {
                for k in 0..6 {
                    for a in 0..nv {
                        forces[self.global(i, a)] += m.gradient[k][a] * ws.f[6 * i + k];
                    }
                }
            }
        })
    }

    fn add_tangent(&self, x: &Kin, c: &TangentCoefficients, block: &mut [f64]) {
        self.scratch.with(|ws| self.tangent_into(x, c, block, ws))
    }

    fn energy(&self, x: &Kin) -> Energy {
        let u = self.scratch.with(|ws| {
            self.deformation_into(x.q, x.v, ws);
            let e = &ws.e;
            let n = e.len();
            (0..n)
                .map(|r| e[r] * (0.5 * (0..n).map(|c| self.stiffness[r * n + c] * e[c]).sum::<f64>() - self.preload[r]))
                .sum()
        });
        Energy { kinetic: 0.0, potential: u }
    }

    /// The element is linear in its measures, so it holds for small relative rotations only
    /// (module documentation): a plate's patches turned far show its linear bending, not the
    /// plate's (a probe's cantilever plate under a tip line load deflected 0.959 m where the
    /// elastica gives 0.636 m, its patches pitched 1.55 rad, without a word). Beyond
    /// `ROTATION_LIMIT` a cantilever's linear tip deflection exceeds the elastica's by more
    /// than about 5 % (Bisshopp & Drucker 1945: at P L^2 / EI = 0.5, tip rotation 0.24 rad,
    /// 0.1620 L against the linear 0.1667 L; at 1, 0.46 rad, 0.3017 L against 0.3333 L).
    fn outside_formulation(&self, q: &[f64]) -> Option<String> {
        let turned = self.scratch.with(|ws| {
            self.measures_into(q, false, &mut ws.measures);
            ws.measures
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    let r: [f64; 3] = std::array::from_fn(|k| m.value[3 + k] - self.free_values[6 * i + 3 + k]);
                    (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]).sqrt()
                })
                .fold(0.0f64, f64::max)
        });
        if turned > ROTATION_LIMIT {
            return Some(format!(
                "a patch turned {turned:.2} rad against the plate's reference: the discrete \
                 plate is geometrically linear (small rotations), and beyond about {ROTATION_LIMIT} rad its \
                 deflections are no longer the plate's (a cantilever's tip deflection more than 5 % above the \
                 elastica's)"
            ));
        }
        // Clamped to ground on opposite edges: the out-of-plane (z) deflection against the
        // thickness (a probe's clamped plate deflected 6.6 thicknesses, linearly, silently).
        let h = self.membrane_thickness.filter(|_| self.reference.is_none())?;
        let deflected = self.scratch.with(|ws| {
            self.measures_into(q, false, &mut ws.measures);
            ws.measures
                .iter()
                .enumerate()
                .map(|(i, m)| (m.value[2] - self.free_values[6 * i + 2]).abs())
                .fold(0.0, f64::max)
        });
        (deflected > MEMBRANE_LIMIT * h).then(|| {
            format!(
                "the plate deflected {deflected:.3e} m, {:.2} times its thickness: held in its plane by clamps on \
                 opposite edges, it stretches its mid-surface, and the membrane force stiffens it (about 5 % at \
                 {MEMBRANE_LIMIT} thicknesses), which the discrete plate (geometrically linear) leaves out",
                deflected / h
            )
        })
    }

    const NON_CONSERVATIVE: bool = true;

    /// The damping's force D e'(v) times the deformation's rate over the step,
    /// (e(q_end) - e(q_start))/h.
    fn power(&self, x: &Kin, stride: &Stride) -> EnergyFlow {
        let dissipated = self.scratch.with(|ws| {
            // e(q_end) in the scratch list `w`, then e(q_start), then the rates at (q, v).
            self.deformation_into(stride.end, x.v, ws);
            std::mem::swap(&mut ws.e, &mut ws.w);
            self.deformation_into(stride.start, x.v, ws);
            for (end, start) in ws.w.iter_mut().zip(&ws.e) {
                *end = (*end - start) / stride.h;
            }
            self.deformation_into(x.q, x.v, ws);
            let (rate, rate_along) = (&ws.rate, &ws.w);
            let n = rate.len();
            (0..n).map(|r| rate_along[r] * (0..n).map(|c| self.damping[r * n + c] * rate[c]).sum::<f64>()).sum()
        });
        EnergyFlow { dissipated, supplied: 0.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::euler_parameters::{from_axis_angle, rotation as rot};

    fn normalise(p: [f64; 4]) -> [f64; 4] {
        let n = p.iter().map(|x| x * x).sum::<f64>().sqrt();
        p.map(|x| x / n)
    }

    fn qmul(p: [f64; 4], q: [f64; 4]) -> [f64; 4] {
        [
            p[0] * q[0] - p[1] * q[1] - p[2] * q[2] - p[3] * q[3],
            p[0] * q[1] + p[1] * q[0] + p[2] * q[3] - p[3] * q[2],
            p[0] * q[2] + p[2] * q[0] + p[3] * q[1] - p[1] * q[3],
            p[0] * q[3] + p[3] * q[0] + p[1] * q[2] - p[2] * q[1],
        ]
    }

    /// A random symmetric positive definite 6n x 6n matrix (deterministic).
    fn spd(n6: usize, seed: u64, scale: f64) -> Vec<f64> {
        let mut s = seed;
        let mut rnd = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 33) as f64 / (1u64 << 31) as f64) - 0.5
        };
        let b: Vec<f64> = (0..n6 * n6).map(|_| rnd()).collect();
        let mut k = vec![0.0; n6 * n6];
        for r in 0..n6 {
            for c in 0..n6 {
                k[r * n6 + c] = scale
                    * ((0..n6).map(|l| b[r * n6 + l] * b[c * n6 + l]).sum::<f64>() + if r == c { 1.0 } else { 0.0 });
            }
        }
        k
    }

    /// Two members and a floating reference body: 21 coordinates, body 0 is the reference.
    fn group(with_reference: bool) -> (MultiPointForce, Vec<f64>) {
        let bodies = [
            ([0.1, 0.2, -0.1], normalise([0.9, 0.1, -0.2, 0.3])),
            ([1.0, 0.3, 0.2], normalise([0.8, -0.3, 0.1, 0.2])),
            ([0.4, 1.1, -0.3], normalise([1.0, 0.2, 0.4, -0.1])),
        ];
        let q0: Vec<f64> =
            bodies.iter().flat_map(|(r, p)| r.iter().chain(p.iter()).copied().collect::<Vec<_>>()).collect();
        let p_ref = if with_reference { bodies[0].1 } else { [1.0, 0.0, 0.0, 0.0] };
        let conj_ref = [p_ref[0], -p_ref[1], -p_ref[2], -p_ref[3]];
        let members: Vec<Member> = [1usize, 2]
            .iter()
            .map(|&b| Member { x: 7 * b, s: [0.2 * b as f64, -0.1, 0.05], c: qmul(conj_ref, bodies[b].1) })
            .collect();
        let k = spd(12, 7, 1.0);
        let c = spd(12, 11, 0.1);
        (MultiPointForce::new(members, with_reference.then_some(0), k, c, &q0), q0)
    }

    fn residual(e: &MultiPointForce, q: &[f64], v: &[f64]) -> Vec<f64> {
        let mut f = vec![0.0; q.len()];
        let mut i = vec![0.0; q.len()];
        e.add_forces(&Kin::without_inputs(q, v, v, 0.0), &mut i, &mut f);
        f
    }

    #[test]
    fn tangent_matches_central_differences() {
        for with_reference in [false, true] {
            let (e, q0) = group(with_reference);
            // A deformed, moving state.
            let q: Vec<f64> = q0.iter().enumerate().map(|(k, x)| x + 0.03 * ((k as f64) * 1.7).sin()).collect();
            let v: Vec<f64> = (0..q.len()).map(|k| 0.5 * ((k as f64) * 0.9).cos()).collect();
            let nd = e.dofs().len();
            let (h, mut worst, mut scale) = (1e-6, 0.0f64, 0.0f64);
            for (coef, which) in [
                (TangentCoefficients { mass: 0.0, damping: 0.0, stiffness: 1.0, lambda: 0.0 }, 0),
                (TangentCoefficients { mass: 0.0, damping: 1.0, stiffness: 0.0, lambda: 0.0 }, 1),
            ] {
                let mut block = vec![0.0; nd * nd];
                e.add_tangent(&Kin::without_inputs(&q, &v, &v, 0.0), &coef, &mut block);
                for (cb, &col) in e.dofs().iter().enumerate() {
                    let (mut qp, mut qm, mut vp, mut vm) = (q.clone(), q.clone(), v.clone(), v.clone());
                    if which == 0 {
                        qp[col] += h;
                        qm[col] -= h;
                    } else {
                        vp[col] += h;
                        vm[col] -= h;
                    }
                    let (rp, rm) = (residual(&e, &qp, &vp), residual(&e, &qm, &vm));
                    for (rb, &row) in e.dofs().iter().enumerate() {
                        let fd = (rp[row] - rm[row]) / (2.0 * h);
                        worst = worst.max((fd - block[rb * nd + cb]).abs());
                        scale = scale.max(fd.abs());
                    }
                }
            }
            println!(
                "multi-point force (reference body: {with_reference}): worst |tangent - central difference| = {worst:.2e} (largest entry {scale:.2e})"
            );
            assert!(worst < 1e-6 * scale.max(1.0), "worst {worst}");
        }
    }

    /// A rigid motion of the whole group (reference included) leaves the measures unchanged:
    /// zero force. With a floating reference, the generalized forces of any deformation do no
    /// work on a rigid motion: total force and total moment vanish (eq. 13's reaction).
    #[test]
    fn rigid_motion_of_the_group_gives_zero_force_and_reactions_balance() {
        let (e, q0) = group(true);
        let rot_p = from_axis_angle([0.48, -0.6, 0.64], 1.1);
        let a = rot(&rot_p);
        let shift = [0.7, -2.0, 0.4];
        let mut q = q0.clone();
        for b in 0..3 {
            let r = [q0[7 * b], q0[7 * b + 1], q0[7 * b + 2]];
            for k in 0..3 {
                q[7 * b + k] = shift[k] + (0..3).map(|j| a[k][j] * r[j]).sum::<f64>();
            }
            let p = qmul(rot_p, [q0[7 * b + 3], q0[7 * b + 4], q0[7 * b + 5], q0[7 * b + 6]]);
            q[7 * b + 3..7 * b + 7].copy_from_slice(&p);
        }
        let v = vec![0.0; q.len()];
        let (def, _) = e.deformation(&q, &v);
        let worst = def.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let f = residual(&e, &q, &v);
        let fmax = f.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        println!("rigid motion of the group: max |x - l| = {worst:.2e}, max |g| = {fmax:.2e}");
        assert!(worst < 1e-12 && fmax < 1e-10);

        // Deform (members displaced) and check total force and moment of the generalized forces.
        let mut qd = q0.clone();
        qd[7] += 0.01;
        qd[15] -= 0.02;
        qd[9] += 0.005;
        let p = normalise([qd[17] + 0.01, qd[18], qd[19] - 0.02, qd[20]]);
        qd[17..21].copy_from_slice(&p);
        let g = residual(&e, &qd, &v);
        // Total force = sum of translational generalized forces.
        let total: [f64; 3] = std::array::from_fn(|k| (0..3).map(|b| g[7 * b + k]).sum());
        // Moment about the origin: r x F + 1/2 E(p) g_p for each body (g_p = 1/2 E^T n).
        let mut moment = [0.0; 3];
        for b in 0..3 {
            let r = [qd[7 * b], qd[7 * b + 1], qd[7 * b + 2]];
            let f = [g[7 * b], g[7 * b + 1], g[7 * b + 2]];
            let em = crate::mechanics::euler_parameters::e_matrix(&qd[7 * b + 3..7 * b + 7]);
            for k in 0..3 {
                let cross = [r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2], r[0] * f[1] - r[1] * f[0]];
                moment[k] += cross[k] + 0.5 * (0..4).map(|j| em[k][j] * g[7 * b + 3 + j]).sum::<f64>();
            }
        }
        let gmax = g.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        println!(
            "deformed group: total force {total:?}, total moment {moment:?} (largest generalized force {gmax:.2e})"
        );
        assert!(total.iter().chain(&moment).all(|x| x.abs() < 1e-12 * gmax.max(1.0)));
    }

    /// Small displacements from l: the force on the members is -K x to first order.
    #[test]
    fn small_displacements_give_minus_k_x() {
        let (e, q0) = group(false);
        let mut q = q0.clone();
        let eps = 1e-6;
        // Member 0: translate by eps (1, -2, 0.5); member 1: rotate by eps (0.3, 1, -0.4) (global).
        let dr = [1.0, -2.0, 0.5].map(|x| x * eps);
        for k in 0..3 {
            q[7 + k] += dr[k];
        }
        let phi = [0.3, 1.0, -0.4];
        let nphi = (phi.iter().map(|x| x * x).sum::<f64>()).sqrt();
        let dp = from_axis_angle(phi.map(|x| x / nphi), eps * nphi);
        let p1: [f64; 4] = std::array::from_fn(|k| q0[17 + k]);
        let p = qmul(dp, p1);
        q[17..21].copy_from_slice(&p);
        // Member 1's attachment point moves by phi x (A s): the expected x (6n).
        let a1 = rot(&p1);
        let s = e.members[1].s;
        let as1: [f64; 3] = std::array::from_fn(|k| (0..3).map(|j| a1[k][j] * s[j]).sum());
        let w = phi.map(|x| x * eps);
        let mv = [w[1] * as1[2] - w[2] * as1[1], w[2] * as1[0] - w[0] * as1[2], w[0] * as1[1] - w[1] * as1[0]];
        let x_expected = [dr[0], dr[1], dr[2], 0.0, 0.0, 0.0, mv[0], mv[1], mv[2], w[0], w[1], w[2]];
        let v = vec![0.0; q.len()];
        let (x, _) = e.deformation(&q, &v);
        let mut worst: f64 = 0.0;
        for k in 0..12 {
            worst = worst.max((x[k] - x_expected[k]).abs());
        }
        // Force on the members (translation rows of member 0 are -f directly).
        let g = residual(&e, &q, &v);
        let kx: Vec<f64> = (0..12).map(|r| (0..12).map(|c| e.stiffness[r * 12 + c] * x_expected[c]).sum()).collect();
        let ferr = (0..3).map(|k| (-g[7 + k] - -kx[k]).abs()).fold(0.0, f64::max);
        let kmax = kx.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        println!(
            "small displacements (eps = {eps}): max |x - expected| = {worst:.2e}; member-0 force vs -K x: {ferr:.2e} (|K x| {kmax:.2e})"
        );
        assert!(worst < 1e-11, "{worst}");
        assert!(ferr < 1e-6 * kmax, "{ferr}");
    }

    /// With C = 0 the generalized force is the gradient of the potential 1/2 e^T K e - f0^T e
    /// (central differences), preload included; at x = l the force on the members is f0.
    #[test]
    fn forces_are_the_gradient_of_the_potential_with_preload() {
        for with_reference in [false, true] {
            let (mut e, q0) = group(with_reference);
            e.damping.iter_mut().for_each(|c| *c = 0.0);
            e.preload = (0..12).map(|k| 0.3 * (k as f64 - 5.0)).collect();
            let v = vec![0.0; q0.len()];
            // At x = l: g = -J^T f0; the translational rows of member 0 (ground reference) are -f0.
            let g0 = residual(&e, &q0, &v);
            if !with_reference {
                for k in 0..3 {
                    assert!((g0[7 + k] + e.preload[k]).abs() < 1e-14, "{} vs {}", g0[7 + k], -e.preload[k]);
                }
            }
            let q: Vec<f64> = q0.iter().enumerate().map(|(k, x)| x + 0.02 * ((k as f64) * 2.3).cos()).collect();
            let g = residual(&e, &q, &v);
            let potential = |q: &[f64]| e.energy(&Kin::without_inputs(q, &v, &v, 0.0)).potential;
            let h = 1e-6;
            let mut worst: f64 = 0.0;
            for &i in e.dofs() {
                let (mut qp, mut qm) = (q.clone(), q.clone());
                qp[i] += h;
                qm[i] -= h;
                worst = worst.max(((potential(&qp) - potential(&qm)) / (2.0 * h) - g[i]).abs());
            }
            let scale = g.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            println!(
                "preloaded element (reference body: {with_reference}): |dV/dq - g| = {worst:.2e} (|g| up to {scale:.2e})"
            );
            assert!(worst < 1e-7 * scale.max(1.0));
        }
    }
}
