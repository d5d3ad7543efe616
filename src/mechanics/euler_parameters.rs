//! Euler parameters p = (e0, e) of a spatial rotation and the matrices built from them
//! (Nikravesh's notation; paper 001 eqs. 14-28 write the Newton-Euler equations of a 3D body
//! with the angular velocity in its own frame, which is omega' = 2 G p_dot here):
//!   E(p) = [-e, e~ + e0 I],  G(p) = [-e, -e~ + e0 I]   (3 x 4, linear in p),
//!   A(p) = E G^T,  omega = 2 E p_dot (global),  omega' = 2 G p_dot (body frame).
//! A = E G^T is kept in its homogeneous quadratic form (e0^2 - e.e) I + 2 e e^T + 2 e0 e~,
//! which equals the rotation matrix on p.p = 1; being exactly quadratic, every component
//! (A(p) s)_i has a constant Hessian, so joint Jacobians and Hessians are exact everywhere.

pub type Mat3 = [[f64; 3]; 3];

pub fn e_matrix(p: &[f64]) -> [[f64; 4]; 3] {
    let (e0, e1, e2, e3) = (p[0], p[1], p[2], p[3]);
    [[-e1, e0, -e3, e2], [-e2, e3, e0, -e1], [-e3, -e2, e1, e0]]
}

pub fn g_matrix(p: &[f64]) -> [[f64; 4]; 3] {
    let (e0, e1, e2, e3) = (p[0], p[1], p[2], p[3]);
    [[-e1, e0, e3, -e2], [-e2, -e3, e0, e1], [-e3, e2, -e1, e0]]
}

/// The rotation vector (unit axis times angle, rad) of the turn from orientation p0 to p1: in
/// global axes with `matrix` = `e_matrix` (A(p1) = R(phi) A(p0)), in p0's body axes with
/// `g_matrix` (A(p1) = A(p0) R(phi)). E(p0) p1 and G(p0) p1 are the vector parts of p1 p0* and
/// p0* p1, (sin(phi/2)) n for unit p0, p1, whose scalar part is p0 . p1; so
/// 2 E(p0) (p1 - p0), the first-order increment omega h, is 2 sin(phi/2) n, short of phi n by
/// phi^3/24 (the work of a torque over a 0.05 rad turn 1e-4 low).
pub fn rotation_increment(matrix: fn(&[f64]) -> [[f64; 4]; 3], p0: &[f64], p1: &[f64]) -> [f64; 3] {
    let m = matrix(p0);
    let v: [f64; 3] = std::array::from_fn(|i| (0..4).map(|k| m[i][k] * p1[k]).sum());
    let s = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let c: f64 = (0..4).map(|k| p0[k] * p1[k]).sum();
    if s == 0.0 {
        return [0.0; 3];
    }
    let scale = 2.0 * s.atan2(c) / s;
    v.map(|x| x * scale)
}

/// v~, the cross-product matrix of v (v~ u = v x u), row by row.
fn tilde(v: [f64; 3]) -> Mat3 {
    [[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]]
}

/// A(p) = E G^T (homogeneous quadratic form).
pub fn rotation(p: &[f64]) -> Mat3 {
    let (e0, e) = (p[0], [p[1], p[2], p[3]]);
    let d = e0 * e0 - (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    let e_tilde = tilde(e);
    std::array::from_fn(|i| {
        std::array::from_fn(|j| 2.0 * (e[i] * e[j] + e0 * e_tilde[i][j]) + if i == j { d } else { 0.0 })
    })
}

pub fn mat_vec(a: &Mat3, s: [f64; 3]) -> [f64; 3] {
    std::array::from_fn(|i| a[i][0] * s[0] + a[i][1] * s[1] + a[i][2] * s[2])
}

pub fn mat_t_vec(a: &Mat3, s: [f64; 3]) -> [f64; 3] {
    std::array::from_fn(|i| a[0][i] * s[0] + a[1][i] * s[1] + a[2][i] * s[2])
}

/// The cross product a x b.
pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// The constant Hessians d2(A(p) s)_i / dp2 (4 x 4 each) of the quadratic form
/// (A s)_i = (e0^2 - e.e) s_i + 2 e_i (e.s) + 2 e0 (e x s)_i:
/// d2/de0^2 = 2 s_i, d2/de0 de_j = 2 eps_ijk s_k, d2/de_j de_k = 2 (delta_ij s_k + delta_ik s_j
/// - delta_jk s_i). Written out (not differenced): the joints evaluate them on every residual.
pub fn rotated_vector_hessians(s: [f64; 3]) -> [[[f64; 4]; 4]; 3] {
    let delta = |a: usize, b: usize| f64::from(u8::from(a == b));
    // eps_ijk s_k = (s~)^T: (e x s)_i = -(s x e)_i = -(s~ e)_i, so d(e x s)_i/de_j = -s~_ij.
    let s_tilde = tilde(s);
    std::array::from_fn(|i| {
        let mut h = [[0.0; 4]; 4];
        h[0][0] = 2.0 * s[i];
        for j in 0..3 {
            h[0][j + 1] = -2.0 * s_tilde[i][j];
            h[j + 1][0] = h[0][j + 1];
            for k in 0..3 {
                h[j + 1][k + 1] = 2.0 * (delta(i, j) * s[k] + delta(i, k) * s[j] - delta(j, k) * s[i]);
            }
        }
        h
    })
}

/// The Jacobian d(A(p) s)_i / dp_j = (H_i p)_j of the same quadratic form, written out:
/// d/de0 = 2 e0 s_i + 2 (e x s)_i, d/de_j = 2 (e_i s_j - e_j s_i + delta_ij e.s) + 2 e0 eps_ijk s_k.
pub fn rotated_vector_jacobian(p: &[f64], s: [f64; 3]) -> [[f64; 4]; 3] {
    let (e0, e) = (p[0], [p[1], p[2], p[3]]);
    let es = e[0] * s[0] + e[1] * s[1] + e[2] * s[2];
    let cross = [e[1] * s[2] - e[2] * s[1], e[2] * s[0] - e[0] * s[2], e[0] * s[1] - e[1] * s[0]];
    let s_tilde = tilde(s);
    std::array::from_fn(|i| {
        let mut g = [2.0 * (e0 * s[i] + cross[i]); 4];
        for j in 0..3 {
            let diagonal = if i == j { es } else { 0.0 };
            g[j + 1] = 2.0 * (e[i] * s[j] - e[j] * s[i] + diagonal - e0 * s_tilde[i][j]);
        }
        g
    })
}

/// Euler parameters of a rotation by `angle` about the unit `axis`: (cos(a/2), sin(a/2) u).
pub fn from_axis_angle(axis: [f64; 3], angle: f64) -> [f64; 4] {
    let (s, c) = (0.5 * angle).sin_cos();
    [c, s * axis[0], s * axis[1], s * axis[2]]
}

/// The Euler parameters of the rotation `p` followed by the rotation `r` (both in the global
/// frame): the quaternion product r p = (r0 p0 - r.p, r0 p + p0 r + r x p), for which
/// A(r p) = A(r) A(p). Linear in p, so it maps the rates p' the same way.
pub fn compose(r: [f64; 4], p: &[f64]) -> [f64; 4] {
    let (rv, pv) = ([r[1], r[2], r[3]], [p[1], p[2], p[3]]);
    let c = cross(rv, pv);
    let dot = rv[0] * pv[0] + rv[1] * pv[1] + rv[2] * pv[2];
    [
        r[0] * p[0] - dot,
        r[0] * pv[0] + p[0] * rv[0] + c[0],
        r[0] * pv[1] + p[0] * rv[1] + c[1],
        r[0] * pv[2] + p[0] * rv[2] + c[2],
    ]
}

/// Euler parameters of the rotation matrix `a` (orthonormal, det 1), by Shepperd's (1978)
/// method: the largest of 4 e0^2 = 1 + tr A, 4 ei^2 = 1 + 2 A_ii - tr A is taken first, so
/// no division by a small number; e0 >= 0.
pub fn from_rotation(a: &Mat3) -> [f64; 4] {
    let tr = a[0][0] + a[1][1] + a[2][2];
    let squares = [1.0 + tr, 1.0 + 2.0 * a[0][0] - tr, 1.0 + 2.0 * a[1][1] - tr, 1.0 + 2.0 * a[2][2] - tr];
    let k = (0..4).fold(0, |best, i| if squares[i] > squares[best] { i } else { best });
    // d = 2 |p_k|; p_k = d / 2 and the others from the products: p_j = (4 p_k p_j) / (2 d).
    let d = squares[k].max(0.0).sqrt();
    // 4 e0 e_i = (A_kj - A_jk) cyclic; 4 e_i e_j = A_ij + A_ji.
    let (s1, s2, s3) = (a[2][1] - a[1][2], a[0][2] - a[2][0], a[1][0] - a[0][1]);
    let (a01, a02, a12) = (a[0][1] + a[1][0], a[0][2] + a[2][0], a[1][2] + a[2][1]);
    let p = match k {
        0 => [d, s1 / d, s2 / d, s3 / d],
        1 => [s1 / d, d, a01 / d, a02 / d],
        2 => [s2 / d, a01 / d, d, a12 / d],
        _ => [s3 / d, a02 / d, a12 / d, d],
    }
    .map(|x| 0.5 * x);
    if p[0] < 0.0 { p.map(|x| -x) } else { p }
}

/// Lambda(w) with G(p)^T w = Lambda(w) p (4 x 4); used for d(G^T w)/dp.
pub fn lambda_matrix(w: [f64; 3]) -> [[f64; 4]; 4] {
    [[0.0, -w[0], -w[1], -w[2]], [w[0], 0.0, w[2], -w[1]], [w[1], -w[2], 0.0, w[0]], [w[2], w[1], -w[0], 0.0]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_is_orthogonal_and_quadratic_hessians_are_exact() {
        let n = (0.3f64.powi(2) + 0.5f64.powi(2) + 0.1f64.powi(2) + 0.8f64.powi(2)).sqrt();
        let p = [0.3 / n, -0.5 / n, 0.1 / n, 0.8 / n];
        let a = rotation(&p);
        for i in 0..3 {
            for j in 0..3 {
                let d: f64 = (0..3).map(|k| a[k][i] * a[k][j]).sum();
                assert!((d - f64::from(u8::from(i == j))).abs() < 1e-15);
            }
        }
        // A(p) = E G^T, at any p.
        let q = [0.9, 0.2, -1.1, 0.4];
        let (e, g, aq) = (e_matrix(&q), g_matrix(&q), rotation(&q));
        for i in 0..3 {
            for j in 0..3 {
                let egt: f64 = (0..4).map(|k| e[i][k] * g[j][k]).sum();
                assert!((aq[i][j] - egt).abs() < 1e-15, "A[{i}][{j}] = {} vs E G^T {egt}", aq[i][j]);
            }
        }
        // (A s)_i = 1/2 p^T H_i p for the homogeneous quadratic form, at any p.
        let s = [0.4, -1.2, 0.7];
        let h = rotated_vector_hessians(s);
        let q = [0.9, 0.2, -1.1, 0.4];
        let aq = mat_vec(&rotation(&q), s);
        for i in 0..3 {
            let v: f64 = (0..4).map(|j| (0..4).map(|k| 0.5 * q[j] * h[i][j][k] * q[k]).sum::<f64>()).sum();
            assert!((v - aq[i]).abs() < 1e-14, "{v} vs {}", aq[i]);
        }
        // The Jacobian is H_i p.
        let jac = rotated_vector_jacobian(&q, s);
        for i in 0..3 {
            for j in 0..4 {
                let hp: f64 = (0..4).map(|k| h[i][j][k] * q[k]).sum();
                assert!((jac[i][j] - hp).abs() < 1e-14, "dA s/dp [{i}][{j}] = {} vs H p {hp}", jac[i][j]);
            }
        }
        // Shepperd's method inverts A(p), also for rotations near 180 degrees.
        for r in [p, [0.01, 0.99, -0.1, 0.05], [0.0, 0.0, 0.6, 0.8]] {
            let n = r.iter().map(|x| x * x).sum::<f64>().sqrt();
            let r = r.map(|x| x / n);
            let back = from_rotation(&rotation(&r));
            let sign = if r[0] < 0.0 { -1.0 } else { 1.0 };
            for k in 0..4 {
                assert!((back[k] - sign * r[k]).abs() < 1e-14, "{back:?} vs {r:?}");
            }
        }
        // A(r p) = A(r) A(p), for unit r and p.
        let r = from_axis_angle([0.6, 0.0, 0.8], 0.7);
        let (ar, ap, arp) = (rotation(&r), rotation(&p), rotation(&compose(r, &p)));
        for i in 0..3 {
            for j in 0..3 {
                let product: f64 = (0..3).map(|k| ar[i][k] * ap[k][j]).sum();
                assert!((arp[i][j] - product).abs() < 1e-15, "A(r p)[{i}][{j}] = {} vs {product}", arp[i][j]);
            }
        }
        // G^T w = Lambda(w) p
        let w = [0.3, -0.7, 1.9];
        let g = g_matrix(&q);
        let l = lambda_matrix(w);
        for r in 0..4 {
            let lhs: f64 = (0..3).map(|i| g[i][r] * w[i]).sum();
            let rhs: f64 = (0..4).map(|k| l[r][k] * q[k]).sum();
            assert!((lhs - rhs).abs() < 1e-15);
        }
    }
}
