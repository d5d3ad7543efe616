//! The exact gradient (internal force) and Hessian (tangent stiffness) of the spatial
//! corotational beam's strain energy U = 1/2 d^T K d over its 14 node coordinates, in closed
//! form; d = (u, theta_1, theta_2) are the deformations of `corotational_beam_3d.rs` and
//! f = K d = (N, m_1, m_2) the local forces. Crisfield (1990, sec. 4) and Battini & Pacoste
//! (2002, sec. 3) derive the consistent tangent for spin variables; this is the Hessian of U in
//! the Euler-parameter coordinates (exact also off p.p = 1), equal to that of automatic
//! differentiation to rounding (the test below: hyper-dual numbers, Fike & Alonso 2011), at
//! about a thirtieth of its cost.
//!
//! Variables. At a configuration every quantity is expanded to second order in
//! y = (d, phi_1, phi_2): the chord d = x2 - x1 and rotation vectors turning the node triads,
//! T_i(phi_i) = exp(phi_i~) T_i = T_i + phi_i~ T_i + phi_i~^2 T_i / 2 + O(3).
//!
//! Euler parameters. R(p) = exp(phi~) R(p0) with the quaternion r = p p0^-1 (Hamilton product,
//! A(a b) = A(a) A(b)): r_v = E(p0) p / |p0|^2, r_0 = p0.p / |p0|^2, and as
//! phi = 2 atan(|r_v| / r_0) r_v / |r_v| = 2 r_v / r_0 + O(3),
//!   phi(p) = 2 E(p0) p / (p0.p) + O(3),   dphi/dp = P = 2 E(p) / (p.p)   (omega = 2 E p'),
//!   sum_k g_k d2phi_k/dp2 = -(F p^T + p F^T) / (p.p),   F = P^T g the force on p.
//!
//! Element frame E = [e1 e2 e3] (Battini & Pacoste 2002, eqs. 12-14): e1 = d/l, n = e1 x q,
//! q = (T_1 + T_2) e_y / 2, e3 = n/|n|, e2 = e3 x e1. Its turn psi, E(y) = exp(psi~) E, is
//! psi = 1/2 sum_b e_b x e_b(y) + O(3) (the skew part of E(y) E^T = exp(psi~) is psi~ to
//! second order), so a turn's component mu.psi weighs the frame vectors with w_b = mu x e_b / 2;
//! with e2 eliminated, w1.e1 + w2.e2 + w3.e3 = (w1 + w2 x e3).e1 + (w3 + e1 x w2).e3, and e3
//! and e1 go back through n, q and d by the chain rule (`FrameWeights`, `FrameJacobians`).
//!
//! Local rotations. E(y)^T T_i(y) = exp(-psi'~) exp(phi_i'~) M_i (primes: components in E,
//! M_i = E^T T_i = exp(theta_i~)), so by the Baker-Campbell-Hausdorff formula
//!   theta_i = Z_i(a_i),   a_i = phi_i' - psi' - psi' x phi_i' / 2 + O(3),
//!   Z_i(a) = log(exp(a~) M_i),   dZ_i = J^-1 a,   J^-1 = I - theta~/2 + c theta~^2,
//! c = 1/t^2 - (1 + cos t)/(2 t sin t), t = |theta_i| (the inverse left Jacobian of SO(3);
//! Barfoot, State Estimation for Robotics, 2017, sec. 7.1), and since J(Z) dZ/ds = a along
//! exp(s a~) M_i, m.d2Z_i[a, a] = m^T D(J^-1)[J^-1 a] a with
//!   D(J^-1)[b] = -b~/2 + c (b~ theta~ + theta~ b~) + c'(t)/t (theta.b) theta~^2.
//!
//! Hence, with mu_i = J^-T m_i (mu_ig = E mu_i in global components), S_i = [I] on phi_i,
//! Da_i = E^T (S_i - Dpsi) and B = dd/dy = (Du, J_1^-1 Da_1, J_2^-1 Da_2):
//!   dU/dy = N e1 (on d) + sum_i S_i^T mu_ig - Dpsi^T (mu_1g + mu_2g),
//!   d2U/dy2 = B^T K B + N (I - e1 e1^T)/l (on d, d) + sum_i Da_i^T H_i Da_i
//!     + sum_i (Dpsi^T mu_ig~ S_i + S_i^T mu_ig~^T Dpsi)/2 - d2((mu_1g + mu_2g).psi)/dy2,
//! H_i the Hessian of m_i.Z_i at a = 0 (the symmetric part of the form above); then in the
//! node coordinates, x1 = -d, x2 = d, phi_i = P_i p_i, plus the curvature of phi_i(p_i).

use std::ops::Range;

use super::corotational_beam_3d::{Configuration, V3, cross, dot};
use crate::mechanics::euler_parameters::{Mat3, e_matrix};

/// d(a 3-vector)/dy, y = (d, phi_1, phi_2).
type Jacobian = [[f64; 9]; 3];
type Hessian = [[f64; 9]; 9];

/// The columns of d, of phi_1 and phi_2, and all of y.
const D: Range<usize> = 0..3;
const PHI: Range<usize> = 3..9;
const ALL: Range<usize> = 0..9;

fn phi(node: usize) -> Range<usize> {
    3 + 3 * node..6 + 3 * node
}

fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn scaled(a: V3, s: f64) -> V3 {
    a.map(|x| x * s)
}

fn identity(i: usize, j: usize) -> f64 {
    f64::from(u8::from(i == j))
}

/// v~ (v~ u = v x u), scaled by s.
fn tilde(v: V3, s: f64) -> Mat3 {
    [[0.0, -s * v[2], s * v[1]], [s * v[2], 0.0, -s * v[0]], [-s * v[1], s * v[0], 0.0]]
}

/// s (I - v v^T).
fn projector(v: V3, s: f64) -> Mat3 {
    std::array::from_fn(|i| std::array::from_fn(|j| s * (identity(i, j) - v[i] * v[j])))
}

fn mat_vec(a: &Mat3, v: V3) -> V3 {
    std::array::from_fn(|i| a[i][0] * v[0] + a[i][1] * v[1] + a[i][2] * v[2])
}

fn mat_jacobian(a: &Mat3, j: &Jacobian) -> Jacobian {
    std::array::from_fn(|i| std::array::from_fn(|c| a[i][0] * j[0][c] + a[i][1] * j[1][c] + a[i][2] * j[2][c]))
}

/// s a + t b.
fn combine(s: f64, a: &Jacobian, t: f64, b: &Jacobian) -> Jacobian {
    std::array::from_fn(|i| std::array::from_fn(|c| s * a[i][c] + t * b[i][c]))
}

/// h += a^T m b + (a^T m b)^T, for a nonzero in the columns `ra` only and b in `rb`.
fn add_symmetric(h: &mut Hessian, (a, ra): (&Jacobian, Range<usize>), m: &Mat3, (b, rb): (&Jacobian, Range<usize>)) {
    for c in rb {
        let mb = [0, 1, 2].map(|i| m[i][0] * b[0][c] + m[i][1] * b[1][c] + m[i][2] * b[2][c]);
        for r in ra.clone() {
            let x = a[0][r] * mb[0] + a[1][r] * mb[1] + a[2][r] * mb[2];
            h[r][c] += x;
            h[c][r] += x;
        }
    }
}

/// h += a^T m a (m symmetric).
fn add_congruent(h: &mut Hessian, a: &Jacobian, m: &Mat3) {
    let ma = mat_jacobian(m, a);
    for r in 0..9 {
        for c in 0..9 {
            h[r][c] += a[0][r] * ma[0][c] + a[1][r] * ma[1][c] + a[2][r] * ma[2][c];
        }
    }
}

/// h[at.., at..] += m.
fn add_block(h: &mut Hessian, at: usize, m: &Mat3) {
    for r in 0..3 {
        for c in 0..3 {
            h[at + r][at + c] += m[r][c];
        }
    }
}

/// The Hessian of w.(v/|v|) in v, at v = len y: -(w y^T + y w^T + (w.y)(I - 3 y y^T)) / len^2.
fn unit_vector_hessian(w: V3, y: V3, len: f64) -> Mat3 {
    let wy = dot(w, y);
    let s = -1.0 / (len * len);
    std::array::from_fn(|i| {
        std::array::from_fn(|j| s * (w[i] * y[j] + y[i] * w[j] + wy * (identity(i, j) - 3.0 * y[i] * y[j])))
    })
}

/// c(t) = 1/t^2 - (1 + cos t)/(2 t sin t) and c'(t)/t, from t^2; below t = 0.1 their series
/// (1/t^2 - cot(t/2)/(2t) = 1/12 + t^2/720 + t^4/30240 + t^6/1209600 + t^8/47900160 + ...),
/// where the closed forms cancel.
fn inverse_jacobian_coefficients(t2: f64) -> (f64, f64) {
    if t2 < 1e-2 {
        let t4 = t2 * t2;
        (
            1.0 / 12.0 + t2 / 720.0 + t4 / 30240.0 + t4 * t2 / 1209600.0 + t4 * t4 / 47900160.0,
            1.0 / 360.0 + t2 / 7560.0 + t4 / 201600.0 + t4 * t2 / 5987520.0,
        )
    } else {
        let t = t2.sqrt();
        let (s, c) = t.sin_cos();
        (1.0 / t2 - (1.0 + c) / (2.0 * t * s), -2.0 / (t2 * t2) + (1.0 + s / t) / (2.0 * t2 * (1.0 - c)))
    }
}

/// One node's local rotation theta with the coefficients of J^-1(theta).
struct LocalRotation {
    theta: V3,
    c: f64,
    /// c'(t)/t.
    c1: f64,
}

impl LocalRotation {
    fn new(theta: V3) -> Self {
        let (c, c1) = inverse_jacobian_coefficients(dot(theta, theta));
        LocalRotation { theta, c, c1 }
    }

    /// J^-T m = m + theta x m / 2 + c theta x (theta x m).
    fn transposed_inverse_jacobian(&self, m: V3) -> V3 {
        let tm = cross(self.theta, m);
        add(add(m, scaled(tm, 0.5)), scaled(cross(self.theta, tm), self.c))
    }

    /// J^-1 = I - theta~/2 + c theta~^2.
    fn inverse_jacobian(&self) -> Mat3 {
        let th = self.theta;
        let (tt, half) = (dot(th, th), tilde(th, -0.5));
        // theta~^2 = theta theta^T - (theta.theta) I.
        std::array::from_fn(|i| {
            std::array::from_fn(|j| identity(i, j) + half[i][j] + self.c * (th[i] * th[j] - tt * identity(i, j)))
        })
    }

    /// The Hessian of m.Z(a) at a = 0: the symmetric part of rows m^T D(J^-1)[J^-1 e_j].
    fn log_hessian(&self, m: V3, inverse_jacobian: &Mat3) -> Mat3 {
        let th = self.theta;
        let tm = cross(th, m);
        let ttm = cross(th, tm);
        let rows: Mat3 = std::array::from_fn(|j| {
            let b = [inverse_jacobian[0][j], inverse_jacobian[1][j], inverse_jacobian[2][j]];
            let bm = cross(b, m);
            let first = add(scaled(bm, 0.5), scaled(add(cross(th, bm), cross(b, tm)), self.c));
            add(first, scaled(ttm, self.c1 * dot(th, b)))
        });
        std::array::from_fn(|i| std::array::from_fn(|j| 0.5 * (rows[i][j] + rows[j][i])))
    }
}

/// The first-order quantities shared by force and stiffness: the local rotations, the moments
/// mu_ig = E J_i^-T m_i, and the frame vectors' weights in -(mu_1g + mu_2g).psi carried back
/// through e3 = n/|n|, n = e1 x q (module documentation).
struct FrameWeights {
    rotations: [LocalRotation; 2],
    mu: [V3; 2],
    /// w2 of e2 = e3 x e1.
    w2: V3,
    /// Weight of e1 (with n's share q x lambda), of e3, of n and of q.
    e1: V3,
    e3: V3,
    n: V3,
    q: V3,
}

impl FrameWeights {
    fn new(c: &Configuration<f64>, f: &[f64; 7]) -> Self {
        Self::with_turn(c, f, [0.0; 3])
    }

    /// The weights of the function whose gradient is that of U's with local forces f plus
    /// turn.psi (a moment on the frame's turn).
    fn with_turn(c: &Configuration<f64>, f: &[f64; 7], turn: V3) -> Self {
        let [e1, e2, e3] = c.e;
        let rotations = c.theta.map(LocalRotation::new);
        let mu: [V3; 2] = std::array::from_fn(|i| {
            let m = rotations[i].transposed_inverse_jacobian([f[1 + 3 * i], f[2 + 3 * i], f[3 + 3 * i]]);
            std::array::from_fn(|k| e1[k] * m[0] + e2[k] * m[1] + e3[k] * m[2])
        });
        let total = add(add(mu[0], mu[1]), scaled(turn, -1.0));
        let [w1, w2, w3] = c.e.map(|eb| scaled(cross(total, eb), -0.5));
        let on_e3 = add(w3, cross(e1, w2));
        let n = mat_vec(&projector(e3, 1.0 / c.normal), on_e3);
        FrameWeights {
            rotations,
            mu,
            w2,
            e1: add(add(w1, cross(w2, e3)), cross(c.q, n)),
            e3: on_e3,
            n,
            q: cross(n, e1),
        }
    }

    /// dU/dy.
    fn gradient(&self, c: &Configuration<f64>, f: &[f64; 7]) -> [f64; 9] {
        let d = add(scaled(c.e[0], f[0]), mat_vec(&projector(c.e[0], 1.0 / c.l), self.e1));
        // dq/dphi_i = -t_i~ / 2 with t_i = T_i e_y.
        let phi = [0, 1].map(|i| add(self.mu[i], scaled(cross(c.t[i][1], self.q), 0.5)));
        std::array::from_fn(|k| [d, phi[0], phi[1]][k / 3][k % 3])
    }
}

/// Map dU/dy and d2U/dy2 to the node coordinates (x1, p1, x2, p2): d = x2 - x1,
/// dphi_i/dp_i = P_i = 2 E(p_i)/(p_i.p_i), and the curvature of phi_i(p_i).
struct NodeMap {
    p: [[f64; 4]; 2],
    pp: [f64; 2],
    /// P_i (3 x 4).
    jacobian: [[[f64; 4]; 3]; 2],
}

/// dd/dx_i: -1 for node 1, 1 for node 2.
const SIGN: [f64; 2] = [-1.0, 1.0];

impl NodeMap {
    fn new(q: &[f64; 14]) -> Self {
        let p: [[f64; 4]; 2] = [0, 1].map(|i| std::array::from_fn(|k| q[7 * i + 3 + k]));
        let pp = p.map(|pi| pi.iter().map(|x| x * x).sum::<f64>());
        let jacobian = [0, 1].map(|i| e_matrix(&p[i]).map(|row| row.map(|x| 2.0 * x / pp[i])));
        NodeMap { p, pp, jacobian }
    }

    fn force(&self, g: &[f64; 9]) -> [f64; 14] {
        let mut f = [0.0; 14];
        for node in 0..2 {
            let (o, p) = (7 * node, &self.jacobian[node]);
            for k in 0..3 {
                f[o + k] = SIGN[node] * g[k];
            }
            for a in 0..4 {
                f[o + 3 + a] = (0..3).map(|k| p[k][a] * g[3 + 3 * node + k]).sum();
            }
        }
        f
    }

    fn stiffness(&self, g: &[f64; 9], h: &Hessian) -> [[f64; 14]; 14] {
        // Rows of h times P_j on the columns of phi_j.
        let hp: [[[f64; 4]; 2]; 9] = std::array::from_fn(|r| {
            [0, 1].map(|j| std::array::from_fn(|b| (0..3).map(|k| h[r][3 + 3 * j + k] * self.jacobian[j][k][b]).sum()))
        });
        let mut k = [[0.0; 14]; 14];
        for i in 0..2 {
            let (oi, pi) = (7 * i, &self.jacobian[i]);
            for j in 0..2 {
                let oj = 7 * j;
                for r in 0..3 {
                    for c in 0..3 {
                        k[oi + r][oj + c] = SIGN[i] * SIGN[j] * h[r][c];
                    }
                    for b in 0..4 {
                        k[oi + r][oj + 3 + b] = SIGN[i] * hp[r][j][b];
                        k[oj + 3 + b][oi + r] = SIGN[i] * hp[r][j][b];
                    }
                }
                for a in 0..4 {
                    for b in 0..4 {
                        k[oi + 3 + a][oj + 3 + b] = (0..3).map(|s| pi[s][a] * hp[3 + 3 * i + s][j][b]).sum();
                    }
                }
            }
        }
        let force = self.force(g);
        for node in 0..2 {
            let (o, p) = (7 * node + 3, &self.p[node]);
            for a in 0..4 {
                for b in 0..4 {
                    k[o + a][o + b] -= (force[o + a] * p[b] + p[a] * force[o + b]) / self.pp[node];
                }
            }
        }
        k
    }
}

/// dU/dq at the configuration `c` of the coordinates `q` with local forces f = K d.
pub(super) fn elastic_force(c: &Configuration<f64>, q: &[f64; 14], f: &[f64; 7]) -> [f64; 14] {
    frame_force(c, q, f, [0.0; 3])
}

/// The gradient over q of f . d + turn . psi (local forces f on the deformations d, a moment
/// `turn` on the frame's turn psi): J^T of generalized forces on the local rotations and the
/// frame (`corotational_center_line_3d.rs`).
pub(super) fn frame_force(c: &Configuration<f64>, q: &[f64; 14], f: &[f64; 7], turn: V3) -> [f64; 14] {
    NodeMap::new(q).force(&FrameWeights::with_turn(c, f, turn).gradient(c, f))
}

/// The first derivatives of the frame's construction with respect to y (module
/// documentation): e1 = d/l, q (through phi_1, phi_2), n = e1 x q, e3 = n/|n|, and the frame's
/// turn psi = 1/2 sum_b e_b x e_b(y), with de2 = e3~ de1 - e1~ de3.
struct FrameJacobians {
    e1: Jacobian,
    q: Jacobian,
    n: Jacobian,
    e3: Jacobian,
    psi: Jacobian,
}

impl FrameJacobians {
    fn new(c: &Configuration<f64>) -> Self {
        let [e1, e2, e3] = c.e;
        let (mut de1, mut dq): (Jacobian, Jacobian) = ([[0.0; 9]; 3], [[0.0; 9]; 3]);
        let p1 = projector(e1, 1.0 / c.l);
        for node in 0..2 {
            // dq/dphi_i = -t_i~ / 2 with t_i = T_i e_y.
            let t = tilde(c.t[node][1], -0.5);
            for r in 0..3 {
                dq[r][phi(node)].copy_from_slice(&t[r]);
            }
        }
        for r in 0..3 {
            de1[r][D].copy_from_slice(&p1[r]);
        }
        let dn = combine(1.0, &mat_jacobian(&tilde(e1, 1.0), &dq), -1.0, &mat_jacobian(&tilde(c.q, 1.0), &de1));
        let de3 = mat_jacobian(&projector(e3, 1.0 / c.normal), &dn);
        let de2 = combine(1.0, &mat_jacobian(&tilde(e3, 1.0), &de1), -1.0, &mat_jacobian(&tilde(e1, 1.0), &de3));
        let turns = [(e1, &de1), (e2, &de2), (e3, &de3)].map(|(eb, deb)| mat_jacobian(&tilde(eb, 0.5), deb));
        let psi =
            std::array::from_fn(|r| std::array::from_fn(|col| turns[0][r][col] + turns[1][r][col] + turns[2][r][col]));
        FrameJacobians { e1: de1, q: dq, n: dn, e3: de3, psi }
    }
}

/// [I] in the columns of phi_i.
fn selection(node: usize) -> Jacobian {
    let mut s = [[0.0; 9]; 3];
    for r in 0..3 {
        s[r][phi(node).start + r] = 1.0;
    }
    s
}

/// d2U/dq2 at the configuration `c` of the coordinates `q` with local forces f = K d and the
/// local stiffness K: the terms of the module documentation, in its order.
pub(super) fn elastic_stiffness(
    c: &Configuration<f64>,
    q: &[f64; 14],
    f: &[f64; 7],
    k: &[[f64; 7]; 7],
) -> [[f64; 14]; 14] {
    let w = FrameWeights::new(c, f);
    let j = FrameJacobians::new(c);
    let e1 = c.e[0];
    // Da_i = E^T (S_i - Dpsi), S_i = [I] on phi_i; B = (Du, J_1^-1 Da_1, J_2^-1 Da_2).
    let turn = mat_jacobian(&c.e, &j.psi);
    let da: [Jacobian; 2] = [0, 1].map(|i| {
        let mut a = turn.map(|row| row.map(|x| -x));
        for (row, e) in a.iter_mut().zip(&c.e) {
            for (x, es) in row[phi(i)].iter_mut().zip(e) {
                *x += es;
            }
        }
        a
    });
    let inverse_jacobians = w.rotations.each_ref().map(LocalRotation::inverse_jacobian);
    let dtheta = [0, 1].map(|i| mat_jacobian(&inverse_jacobians[i], &da[i]));
    let b: [[f64; 9]; 7] = std::array::from_fn(|r| match r {
        0 => std::array::from_fn(|col| if col < 3 { e1[col] } else { 0.0 }),
        _ => dtheta[(r - 1) / 3][(r - 1) % 3],
    });
    let mut h: Hessian = [[0.0; 9]; 9];
    for (kr, br) in k.iter().zip(&b) {
        let kb: [f64; 9] = std::array::from_fn(|col| (0..7).map(|s| kr[s] * b[s][col]).sum());
        for r in ALL {
            for col in ALL {
                h[r][col] += br[r] * kb[col];
            }
        }
    }
    add_block(&mut h, 0, &projector(e1, f[0] / c.l));
    for i in 0..2 {
        let m = [f[1 + 3 * i], f[2 + 3 * i], f[3 + 3 * i]];
        add_congruent(&mut h, &da[i], &w.rotations[i].log_hessian(m, &inverse_jacobians[i]));
        add_symmetric(&mut h, (&j.psi, ALL), &tilde(w.mu[i], 0.5), (&selection(i), phi(i)));
    }
    // -d2((mu_1g + mu_2g).psi) through the frame's construction (`FrameWeights`): e1 = d/l,
    // e3 = n/|n|, q(phi_1, phi_2) (d2(w.q)/dphi_i2 = (w t_i^T + t_i w^T)/4 - (w.t_i) I/2), and the
    // products w2.(e3 x e1) and lambda.(e1 x q).
    add_block(&mut h, 0, &unit_vector_hessian(w.e1, e1, c.l));
    add_congruent(&mut h, &j.n, &unit_vector_hessian(w.e3, c.e[2], c.normal));
    for node in 0..2 {
        let t = c.t[node][1];
        let wt = dot(w.q, t);
        let block: Mat3 = std::array::from_fn(|r| {
            std::array::from_fn(|s| 0.25 * (w.q[r] * t[s] + t[r] * w.q[s]) - 0.5 * wt * identity(r, s))
        });
        add_block(&mut h, phi(node).start, &block);
    }
    add_symmetric(&mut h, (&j.e3, ALL), &tilde(w.w2, -1.0), (&j.e1, D));
    add_symmetric(&mut h, (&j.e1, D), &tilde(w.n, -1.0), (&j.q, PHI));
    NodeMap::new(q).stiffness(&w.gradient(c, f), &h)
}

#[cfg(test)]
mod tests {
    use crate::mechanics::dual::{Dual, gradient};
    use crate::mechanics::elements::{CorotationalBeam3d, SpatialBeamProperties};
    use crate::mechanics::euler_parameters::from_axis_angle;
    use crate::mechanics::hyper_dual::{HyperDual, hessian};

    fn compose(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
        [
            a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
            a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
            a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
            a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
        ]
    }

    fn unit(v: [f64; 3]) -> [f64; 3] {
        let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        v.map(|x| x / n)
    }

    /// The closed forms equal the gradient (dual numbers) and Hessian (hyper-dual numbers) of
    /// the strain energy to rounding: at rest, for local rotations from 1e-7 rad (the series of
    /// c) to 2.4 rad (beyond pi/2, where the rotation vector switches to atan2), and with Euler
    /// parameters off p.p = 1; a curved rest shape and Timoshenko shear.
    #[test]
    fn force_and_stiffness_equal_automatic_differentiation() {
        let props = SpatialBeamProperties {
            young: 2.1e11,
            shear: 2.1e11 / 2.6,
            area: 1e-4,
            iy: 2e-9,
            iz: 8e-9,
            torsion: 3e-9,
            shear_factor: Some([0.85; 2]),
            mass_per_length: 0.0,
            rotary_inertia: [0.0; 3],
        }
        .with_density(7850.0);
        let x1 = [0.1, -0.2, 0.3];
        let d = unit([1.0, 0.4, -0.3]).map(|x| 0.5 * x);
        let x2 = [x1[0] + d[0], x1[1] + d[1], x1[2] + d[2]];
        let p1 = from_axis_angle(unit([0.3, -0.5, 0.8]), 0.9);
        let p2 = compose(p1, from_axis_angle([0.0, 1.0, 0.0], 0.2));
        let e = CorotationalBeam3d::new(0, 7, (x1, p1, x2, p2), &props, [0.0; 3]);
        let mut rest = [0.0; 14];
        rest[..3].copy_from_slice(&x1);
        rest[3..7].copy_from_slice(&p1);
        rest[7..10].copy_from_slice(&x2);
        rest[10..].copy_from_slice(&p2);
        let mut worst = (0.0f64, 0.0f64);
        for (amplitude, norm) in [(0.0, 1.0), (4e-7, 1.0), (0.02, 1.0), (0.4, 1.3), (1.5, 1.0), (4.0, 0.8), (8.0, 1.0)]
        {
            let mut q = rest;
            for (k, u) in [0.02, -0.03, 0.04].iter().enumerate() {
                q[7 + k] += u * amplitude;
            }
            let turn1 = compose(from_axis_angle(unit([0.2, 1.0, -0.4]), 0.25 * amplitude), p1);
            let turn2 = compose(from_axis_angle(unit([-0.7, 0.1, 0.5]), 0.3 * amplitude), p2);
            q[3..7].copy_from_slice(&turn1.map(|x| x * norm));
            q[10..].copy_from_slice(&turn2.map(|x| x / norm));
            let force = e.elastic_force(&q);
            let stiffness = e.elastic_stiffness(&q);
            let ad_force = gradient(|x: &[Dual<14>; 14]| e.strain_energy(x), &q);
            let ad_stiffness = hessian(|x: &[HyperDual; 14]| e.strain_energy(x), &q);
            // Relative to the largest entry; the force at rest is rounding of the frame.
            let largest = |x: &mut dyn Iterator<Item = f64>| x.fold(1e-300f64, |m, y| m.max(y.abs()));
            let force_scale = largest(&mut ad_force.iter().copied()).max(1e-6);
            let stiffness_scale = largest(&mut ad_stiffness.iter().flatten().copied());
            let force_error = largest(&mut force.iter().zip(&ad_force).map(|(a, b)| a - b)) / force_scale;
            let stiffness_error =
                largest(&mut stiffness.iter().flatten().zip(ad_stiffness.iter().flatten()).map(|(a, b)| a - b))
                    / stiffness_scale;
            let (_, theta) = e.deformations(&q);
            println!(
                "|theta_1| = {:.1e}: force {force_error:.1e}, stiffness {stiffness_error:.1e} (of the largest entry)",
                theta[0].iter().map(|x| x * x).sum::<f64>().sqrt()
            );
            worst = (worst.0.max(force_error), worst.1.max(stiffness_error));
        }
        assert!(worst.0 < 1e-12 && worst.1 < 1e-12, "{worst:?}");
    }
}
