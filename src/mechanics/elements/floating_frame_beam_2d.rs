//! Planar Euler-Bernoulli beam in a floating reference frame with assumed modes (paper 004,
//! section 2).
//!
//! * Coordinates: the frame (x0, y0, theta) at the clamped end (origin of the frame, the
//!   frame's x-axis along the undeformed beam), then the axial modal coordinates A (N of them)
//!   and the transverse modal coordinates B (N of them): paper 004 eq. 1 uses A, B in R^N with
//!   the same truncation number N, so `modes = N` gives 2N modal coordinates.
//! * Deformation (004 eq. 1): u_x = Phi_x(x) A + w_c, u_y = Phi_y(x) B with the second-order
//!   axial shortening w_c = -1/2 B^T H(x) B, H(x) = int_0^x Phi_y'^T Phi_y' dxi (the
//!   foreshortening that makes the rotating beam stiffen). Axial modes of the clamped-free rod
//!   sin((2n-1) pi x / 2L); transverse modes the clamped-free Euler-Bernoulli eigenfunctions
//!   cosh bx - cos bx - s (sinh bx - sin bx), s = (cosh bL + cos bL)/(sinh bL + sin bL), with
//!   bL the roots of cos(bL) cosh(bL) = -1 (computed by bisection, not tabulated), evaluated
//!   in a form without the cancellation of cosh - s sinh.
//! * A material point is at r(x) = r0 + R(theta) p(x), p = (x + u_x, u_y). Instead of
//!   transcribing the closed-form blocks of 004 eqs. 3-4 (whose printed M_33 and M_31 lack
//!   rho S factors and whose Q terms are hard to read in the OCR), the element evaluates the
//!   same Lagrange equations from T = 1/2 int rho S |r_dot|^2 dx by quadrature: with the local
//!   acceleration of a material point
//!   `w = R^T (r0_ddot - g) + theta_ddot J p - theta_dot^2 p + 2 theta_dot J p_dot + p_ddot`
//!   (J the +90 degree rotation), the generalized inertia + gravity force is int rho S L^T w dx,
//!   L = dp_global/dq expressed locally = [R^T, J p, dp/de]. Its acceleration part is
//!   M(q) q_ddot with M = int rho S L^T L (004 eq. 3, configuration dependent through p and H),
//!   the rest is the quadratic-velocity force and gravity of 004 eq. 4 (Q_theta, Q_A, Q_B with
//!   the underlined w_c terms) with the opposite sign. Rotary inertia of the section is
//!   neglected, as in the paper's Euler-Bernoulli model.
//! * Elastic energy (004 eq. 4, K1 A and K2 B): U = 1/2 A^T K1 A + 1/2 B^T K2 B with
//!   K1 = int EA Phi_x'^T Phi_x', K2 = int EI Phi_y''^T Phi_y''. The axial strain
//!   u_x' + u_y'^2/2 = Phi_x' A because w_c' = -(Phi_y' B)^2/2, so U is exactly quadratic.
//! * Material damping (Kelvin-Voigt, sigma = E (eps + b eps'), b = `damping` in s): the
//!   axial strain Phi_x' A and the curvature Phi_y'' B are linear in the modal coordinates, so
//!   the stresses' damping part gives exactly the modal forces b K1 A_dot, b K2 B_dot (C = b
//!   diag(K1, K2), constant; dissipated power b (A_dot^T K1 A_dot + B_dot^T K2 B_dot)). The
//!   frame's rigid motion (x0, y0, theta) is not damped.
//! * Integrals over x: composite Gauss-Legendre, 16 segments x 8 points; H(x) at each point by
//!   the same rule over [0, x]. The rule runs once per beam type, into the Gram matrix of the
//!   shape features (1, x, Phi_x, Phi_y, H): the inertia shape integrals
//!   (`floating_frame_integrals`), from which every evaluation forms the forces, the tangent
//!   and the energies. The tangent (mass, gyroscopic damping, stiffness incl. the inertia and
//!   gravity terms) is the exact derivative of the same sums (checked against central
//!   differences in the tests, and the forces against Lagrange's equations of the energies).

use super::floating_frame_integrals::{Features, MAX_FEATURES, ONE, SMALL_FEATURES, ShapeGram, X};
use super::{BeamProperties, Element, Energy, Kin};
use crate::integrators::{EnergyFlow, Stride, TangentCoefficients};
use nalgebra::{DMatrix, DVector};
use std::sync::Arc;

/// Segments and points per segment of the composite Gauss-Legendre rule over the beam.
const SEGMENTS: usize = 16;
const POINTS: usize = 8;

/// Gauss-Legendre nodes and weights on [-1, 1] (Newton on the Legendre polynomial).
pub fn gauss_legendre(n: usize) -> Vec<(f64, f64)> {
    (0..n)
        .map(|i| {
            let mut x = (std::f64::consts::PI * (i as f64 + 0.75) / (n as f64 + 0.5)).cos();
            let mut dp = 1.0;
            for _ in 0..100 {
                let (mut p0, mut p1) = (1.0, x);
                for k in 2..=n {
                    let p2 = ((2 * k - 1) as f64 * x * p1 - (k - 1) as f64 * p0) / k as f64;
                    p0 = p1;
                    p1 = p2;
                }
                dp = n as f64 * (x * p1 - p0) / (x * x - 1.0);
                let dx = p1 / dp;
                x -= dx;
                if dx.abs() < 1e-16 {
                    break;
                }
            }
            (x, 2.0 / ((1.0 - x * x) * dp * dp))
        })
        .collect()
}

/// The n-th root (n = 1, 2, ...) of cos(bL) cosh(bL) = -1 (clamped-free beam), by bisection
/// of cos x + 1/cosh x on [(n-1) pi, n pi] (one sign change there).
pub fn clamped_free_root(n: usize) -> f64 {
    let f = |x: f64| x.cos() + 1.0 / x.cosh();
    let pi = std::f64::consts::PI;
    let (mut lo, mut hi) = (((n - 1) as f64 * pi).max(0.1), n as f64 * pi);
    let flo = f(lo);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if (f(mid) > 0.0) == (flo > 0.0) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// A clamped-free Euler-Bernoulli eigenfunction: value, first and second derivative in x.
#[derive(Debug, Clone, Copy, PartialEq)]
struct TransverseMode {
    beta: f64,
    lambda: f64,
    /// (1 - s) e^lambda / 2, computed without cancellation.
    a: f64,
    s: f64,
}

impl TransverseMode {
    fn new(n: usize, length: f64) -> Self {
        let lambda = clamped_free_root(n);
        let em = (-lambda).exp();
        // (sinh l + sin l) 2 e^-l and (1 - s)(sinh l + sin l) = sin l - cos l - e^-l
        let den = 1.0 - em * em + 2.0 * lambda.sin() * em;
        let a = (lambda.sin() - lambda.cos() - em) / den;
        TransverseMode { beta: lambda / length, lambda, a, s: 1.0 - 2.0 * a * em }
    }

    fn eval(&self, x: f64) -> [f64; 3] {
        let z = self.beta * x;
        let grow = self.a * (z - self.lambda).exp();
        let decay = 0.5 * (1.0 + self.s) * (-z).exp();
        let (sz, cz) = z.sin_cos();
        let b = self.beta;
        [
            grow + decay - cz + self.s * sz,
            b * (grow - decay + sz + self.s * cz),
            b * b * (grow + decay + cz - self.s * sz),
        ]
    }
}

/// Mode values and H at one abscissa (the tip, x = L, or any material point).
#[derive(Debug, Clone, PartialEq)]
pub struct TipShape {
    pub phi_x: DVector<f64>,
    pub phi_y: DVector<f64>,
    pub slope_y: DVector<f64>,
    pub h: DMatrix<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FloatingFrameBeam2d {
    dofs: Vec<usize>,
    pub length: f64,
    /// Modes per direction (N axial + N transverse).
    pub modes: usize,
    pub gravity: [f64; 2],
    /// The modal integrals, shared by the beams built alike (`moved_to`).
    modal: Arc<ModalIntegrals>,
    /// Kelvin-Voigt material damping b (s): modal forces b K1 A_dot, b K2 B_dot; 0 = none.
    pub damping: f64,
}

/// What the modes give a beam of one length, section, material and number of modes: the
/// quadrature points with their mode values and H (004 eq. 1), the modal stiffness (004
/// eq. 4), the tip's shape, and the transverse eigenfunctions (for `material_point`).
#[derive(Debug, PartialEq)]
struct ModalIntegrals {
    /// The inertia shape integrals (`floating_frame_integrals`).
    gram: ShapeGram,
    /// Modal stiffness K1 (axial), K2 (transverse).
    k1: DMatrix<f64>,
    k2: DMatrix<f64>,
    tip: TipShape,
    transverse: Vec<TransverseMode>,
}

/// Largest number of modes per direction (the model file allows `modes` in 1..=20).
pub const MAX_MODES: usize = 20;
/// Most coordinates of a floating-frame beam (3 + 2N).
pub const MAX_COORDINATES: usize = 3 + 2 * MAX_MODES;

/// y = H x in the order of nalgebra's `&h * &x` (column by column: y = H[:, 0] x_0, then
/// y += H[:, j] x_j), so that the sums are bit for bit those of the allocating product.
#[inline(always)]
fn mat_vec(h: &DMatrix<f64>, x: &[f64], y: &mut [f64]) {
    let n = y.len();
    let h = &h.as_slice()[..n * n];
    let x = &x[..n];
    for (yi, hi0) in y.iter_mut().zip(&h[..n]) {
        *yi = hi0 * x[0];
    }
    for (col, &xj) in h.chunks_exact(n).zip(x).skip(1) {
        for (yi, hij) in y.iter_mut().zip(col) {
            *yi += hij * xj;
        }
    }
}

/// Dot product in the order of nalgebra's `dot` for dynamic vectors (eight partial sums over
/// blocks of eight, combined as (s0 + s4) + (s1 + s5) + ..., then the rest in order), on
/// slices without allocating.
#[inline(always)]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len();
    let b = &b[..n];
    let blocks = n / 8;
    let mut acc = [0.0; 8];
    for (ca, cb) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        for k in 0..8 {
            acc[k] += ca[k] * cb[k];
        }
    }
    let mut res = 0.0;
    res += acc[0] + acc[4];
    res += acc[1] + acc[5];
    res += acc[2] + acc[6];
    res += acc[3] + acc[7];
    for (x, y) in a[8 * blocks..].iter().zip(&b[8 * blocks..]) {
        res += x * y;
    }
    res
}

fn perp(v: [f64; 2]) -> [f64; 2] {
    [-v[1], v[0]]
}

impl FloatingFrameBeam2d {
    /// `x`: first of the 3 + 2N consecutive coordinates (x0, y0, theta, A, B).
    /// Uses E, S, I and rho of `p` (Euler-Bernoulli: no shear, no rotary inertia).
    pub fn new(x: usize, length: f64, modes: usize, p: &BeamProperties, gravity: [f64; 2]) -> Self {
        assert!((1..=MAX_MODES).contains(&modes), "floating-frame beam: {modes} modes outside 1..={MAX_MODES}");
        let (young, area, inertia, density) = (p.young, p.area, p.inertia, p.density);
        let n = modes;
        let pi = std::f64::consts::PI;
        let kx: Vec<f64> = (1..=n).map(|i| (2 * i - 1) as f64 * pi / (2.0 * length)).collect();
        let ty: Vec<TransverseMode> = (1..=n).map(|i| TransverseMode::new(i, length)).collect();
        let gl = gauss_legendre(POINTS);
        let seg = length / SEGMENTS as f64;
        // Composite rule over [a, b] with `parts` segments.
        let rule = |a: f64, b: f64, parts: usize| -> Vec<(f64, f64)> {
            let h = (b - a) / parts as f64;
            (0..parts)
                .flat_map(|s| gl.iter().map(move |&(t, w)| (a + h * (s as f64 + 0.5 * (t + 1.0)), 0.5 * h * w)))
                .collect()
        };
        let slope_product = |a: f64, b: f64, parts: usize| {
            let mut h = DMatrix::zeros(n, n);
            for (x, w) in rule(a, b, parts) {
                let d = DVector::from_iterator(n, ty.iter().map(|m| m.eval(x)[1]));
                h += d.clone() * d.transpose() * w;
            }
            h
        };
        let mut gram = ShapeGram::new(n);
        let mut k1 = DMatrix::zeros(n, n);
        let mut k2 = DMatrix::zeros(n, n);
        let mut h_before = DMatrix::zeros(n, n);
        for s in 0..SEGMENTS {
            let a = s as f64 * seg;
            for (x, w) in rule(a, a + seg, 1) {
                let h = &h_before + slope_product(a, x, 1);
                let phi_x = DVector::from_iterator(n, kx.iter().map(|k| (k * x).sin()));
                let dphi_x = DVector::from_iterator(n, kx.iter().map(|k| k * (k * x).cos()));
                let ev: Vec<[f64; 3]> = ty.iter().map(|m| m.eval(x)).collect();
                let phi_y = DVector::from_iterator(n, ev.iter().map(|e| e[0]));
                let curv = DVector::from_iterator(n, ev.iter().map(|e| e[2]));
                k1 += dphi_x.clone() * dphi_x.transpose() * (w * young * area);
                k2 += curv.clone() * curv.transpose() * (w * young * inertia);
                gram.add_point(density * area * w, x, &phi_x, &phi_y, &h);
            }
            h_before += slope_product(a, a + seg, 1);
        }
        let tip = TipShape {
            phi_x: DVector::from_iterator(n, kx.iter().map(|k| (k * length).sin())),
            phi_y: DVector::from_iterator(n, ty.iter().map(|m| m.eval(length)[0])),
            slope_y: DVector::from_iterator(n, ty.iter().map(|m| m.eval(length)[1])),
            h: h_before,
        };
        let modal = Arc::new(ModalIntegrals { gram, k1, k2, tip, transverse: ty });
        FloatingFrameBeam2d { dofs: (x..x + 3 + 2 * n).collect(), length, modes: n, gravity, modal, damping: 0.0 }
    }

    /// The beam with Kelvin-Voigt material damping `beta` (s, >= 0).
    pub fn with_damping(mut self, beta: f64) -> Self {
        self.damping = beta;
        self
    }

    /// The power the material damping dissipates over the step `stride` (`Element::power`),
    /// b (dA^T K1 A_dot + dB^T K2 B_dot) with the modal coordinates' mean rates dA, dB.
    pub fn damping_power(&self, v: &[f64], stride: &Stride) -> f64 {
        let n = self.modes;
        let ed = self.local_slice(v);
        let (ad, bd) = (&ed[3..3 + n], &ed[3 + n..]);
        let (mut ka, mut kb) = ([0.0; MAX_MODES], [0.0; MAX_MODES]);
        mat_vec(&self.modal.k1, ad, &mut ka[..n]);
        mat_vec(&self.modal.k2, bd, &mut kb[..n]);
        let (start, end) = (self.local_slice(stride.start), self.local_slice(stride.end));
        let work: f64 =
            ka[..n].iter().chain(&kb[..n]).zip(&end[3..]).zip(&start[3..]).map(|((f, b), a)| f * (b - a)).sum();
        self.damping * work / stride.h
    }

    /// The same beam (length, modes, section, material, gravity) on the coordinates from `x`:
    /// its modal integrals shared rather than computed again.
    pub fn moved_to(&self, x: usize) -> Self {
        FloatingFrameBeam2d { dofs: (x..x + self.coordinates()).collect(), modal: Arc::clone(&self.modal), ..*self }
    }

    pub fn coordinates(&self) -> usize {
        3 + 2 * self.modes
    }

    /// The element's coordinates (consecutive from the first) in a global vector.
    fn local_slice<'a>(&self, v: &'a [f64]) -> &'a [f64] {
        &v[self.dofs[0]..self.dofs[0] + self.dofs.len()]
    }

    /// Modal stiffness blocks (K1 axial, K2 transverse), 004 eq. 4.
    pub fn modal_stiffness(&self) -> (&DMatrix<f64>, &DMatrix<f64>) {
        (&self.modal.k1, &self.modal.k2)
    }

    /// Global position of the tip (x = L) and the rotation of its section
    /// theta + Phi_y'(L) B (the modal slope).
    pub fn tip_pose(&self, q: &[f64]) -> ([f64; 2], f64) {
        let e = self.local_slice(q);
        let n = self.modes;
        let (a, b) = (&e[3..3 + n], &e[3 + n..]);
        let mut hb = [0.0; MAX_MODES];
        mat_vec(&self.modal.tip.h, b, &mut hb[..n]);
        let px = self.length + dot(self.modal.tip.phi_x.as_slice(), a) - 0.5 * dot(b, &hb[..n]);
        let py = dot(self.modal.tip.phi_y.as_slice(), b);
        let (s, c) = e[2].sin_cos();
        ([e[0] + c * px - s * py, e[1] + s * px + c * py], e[2] + dot(self.modal.tip.slope_y.as_slice(), b))
    }

    /// The beam's tip as a material point with its derivatives (for contacts at the tip).
    pub fn tip_point(&self) -> FloatingFramePoint {
        FloatingFramePoint {
            first: self.dofs[0],
            modes: self.modes,
            abscissa: self.length,
            shape: self.modal.tip.clone(),
        }
    }

    /// The material point at abscissa x (0 <= x <= L) of the undeformed axis: the mode
    /// values there and H(x) = int_0^x Phi_y'^T Phi_y' (004 eq. 1) by the same composite
    /// Gauss rule as the element (16 segments x 8 points over [0, x]).
    pub fn material_point(&self, x: f64) -> FloatingFramePoint {
        if x == self.length {
            return self.tip_point();
        }
        let n = self.modes;
        let pi = std::f64::consts::PI;
        let kx: Vec<f64> = (1..=n).map(|i| (2 * i - 1) as f64 * pi / (2.0 * self.length)).collect();
        let ty = &self.modal.transverse;
        let gl = gauss_legendre(POINTS);
        let seg = x / SEGMENTS as f64;
        // h += d d^T (seg w / 2) entry by entry, the sums of nalgebra's outer product in order.
        let mut h = DMatrix::zeros(n, n);
        let mut d = [0.0; MAX_MODES];
        for sgm in 0..SEGMENTS {
            for &(t, w) in &gl {
                let xi = seg * (sgm as f64 + 0.5 * (t + 1.0));
                for (di, m) in d.iter_mut().zip(ty) {
                    *di = m.eval(xi)[1];
                }
                let c = 0.5 * seg * w;
                for j in 0..n {
                    for i in 0..n {
                        h[(i, j)] += d[i] * d[j] * c;
                    }
                }
            }
        }
        let shape = TipShape {
            phi_x: DVector::from_iterator(n, kx.iter().map(|k| (k * x).sin())),
            phi_y: DVector::from_iterator(n, ty.iter().map(|m| m.eval(x)[0])),
            slope_y: DVector::from_iterator(n, ty.iter().map(|m| m.eval(x)[1])),
            h,
        };
        FloatingFramePoint { first: self.dofs[0], modes: n, abscissa: x, shape }
    }

    /// The generalized inertia + gravity force int rho S L^T w, split into the acceleration
    /// part M q_ddot (added to `inertial`) and the rest (added to `rest`), and, with `c`, the
    /// tangent blocks c_m M + c_d dF/dq_dot + c_k dF/dq (added to `tangent`, row-major
    /// nd x nd). All three start from zero in the caller. The integrals are products with the
    /// Gram matrix of the shape features (`floating_frame_integrals`): w and every column of
    /// L, dw/dq_dot and dw/dq are linear forms in the features, so int rho S L_k . w is
    /// `l_dot(k, G c_w0, G c_w1)`. The work is on the stack (no heap allocation in a step).
    fn evaluate_into(
        &self,
        kin: (&[f64], &[f64], &[f64]),
        c: Option<&TangentCoefficients>,
        inertial: &mut [f64],
        rest: &mut [f64],
        tangent: &mut [f64],
    ) {
        // the forms on the stack sized for the model's modes: zeroing them for 20 modes would
        // cost more than the products for 5
        if self.modal.gram.features.len() <= SMALL_FEATURES {
            self.evaluate_in::<SMALL_FEATURES>(kin, c, inertial, rest, tangent)
        } else {
            self.evaluate_in::<MAX_FEATURES>(kin, c, inertial, rest, tangent)
        }
    }

    /// `evaluate_into` with linear forms of capacity `F`.
    fn evaluate_in<const F: usize>(
        &self,
        (q, v, acc): (&[f64], &[f64], &[f64]),
        c: Option<&TangentCoefficients>,
        inertial: &mut [f64],
        rest: &mut [f64],
        tangent: &mut [f64],
    ) {
        let n = self.modes;
        let nd = self.coordinates();
        let gram = &self.modal.gram;
        let m = gram.features.len();
        let (e, ed, edd) = (self.local_slice(q), self.local_slice(v), self.local_slice(acc));
        let (om, al) = (ed[2], edd[2]);
        let x = LocalForms::new(gram.features, e, ed, edd);
        let (s, co) = (x.sin, x.cos);
        let rt = |u: [f64; 2]| [co * u[0] + s * u[1], -s * u[0] + co * u[1]];
        let a0 = rt([edd[0], edd[1]]);
        let g_loc = rt(self.gravity);
        // w = wa + wr: the acceleration part wa = R^T r0_ddot + al J p + p_ddot (without the
        // B_dot^T H B_dot of p_ddot) and the rest wr = -R^T g - om^2 p + 2 om J p_dot
        // - (B_dot^T H B_dot, 0), each component a linear form in the features.
        let mut cw = [[0.0; F]; 4];
        cw[0][ONE] = a0[0];
        x.add_py(&mut cw[0], -al);
        x.add_pddx(&mut cw[0], 1.0);
        cw[1][ONE] = a0[1];
        x.add_px(&mut cw[1], al);
        x.add_pddy(&mut cw[1], 1.0);
        cw[2][ONE] = -g_loc[0];
        x.add_px(&mut cw[2], -om * om);
        x.add_pdy(&mut cw[2], -2.0 * om);
        x.features.add_quadratic(&mut cw[2], -1.0, x.bd, x.bd);
        cw[3][ONE] = -g_loc[1];
        x.add_py(&mut cw[3], -om * om);
        x.add_pdx(&mut cw[3], 2.0 * om);
        let (mut wa0, mut wa1, mut wr0, mut wr1) = ([0.0; F], [0.0; F], [0.0; F], [0.0; F]);
        gram.apply([&cw[0], &cw[1], &cw[2], &cw[3]], [&mut wa0, &mut wa1, &mut wr0, &mut wr1]);
        for k in 0..nd {
            inertial[k] += x.l_dot(k, &wa0, &wa1);
            rest[k] += x.l_dot(k, &wr0, &wr1);
        }
        // elastic forces K1 A, K2 B
        let mut fa = [0.0; MAX_MODES];
        let mut fb = [0.0; MAX_MODES];
        mat_vec(&self.modal.k1, x.a, &mut fa[..n]);
        mat_vec(&self.modal.k2, x.b, &mut fb[..n]);
        for i in 0..n {
            rest[3 + i] += fa[i];
            rest[3 + n + i] += fb[i];
        }
        if self.damping != 0.0 {
            // material damping b K1 A_dot, b K2 B_dot
            mat_vec(&self.modal.k1, &ed[3..3 + n], &mut fa[..n]);
            mat_vec(&self.modal.k2, &ed[3 + n..], &mut fb[..n]);
            for i in 0..n {
                rest[3 + i] += self.damping * fa[i];
                rest[3 + n + i] += self.damping * fb[i];
            }
        }
        let Some(c) = c else { return };
        // t_ik = int rho S L_i . (c_m L_k + c_d dw/dq_dot_k + c_k dw/dq_k), column by column,
        // plus the terms of d(L^T)/dq w: rows x0, y0 / column theta: R J int w; row theta /
        // columns e: int w^T J P; rows B / columns B: -int w_x H.
        let (mut r0, mut r1) = ([0.0; F], [0.0; F]);
        let (mut e0, mut e1) = ([0.0; F], [0.0; F]);
        let a_g = rt([edd[0] - self.gravity[0], edd[1] - self.gravity[1]]);
        // for the modal columns, c_m L + c_d 2 om J L + c_k (al J - om^2) L
        let (diag, skew) = (c.mass - c.stiffness * om * om, 2.0 * om * c.damping + al * c.stiffness);
        for k in 0..nd {
            r0[..m].fill(0.0);
            r1[..m].fill(0.0);
            if k < 3 {
                x.add_l(k, [[c.mass, 0.0], [0.0, c.mass]], &mut r0, &mut r1);
            } else {
                x.add_l(k, [[diag, -skew], [skew, diag]], &mut r0, &mut r1);
            }
            if k == 2 {
                // dw/dtheta_dot = -2 om p + 2 J p_dot; dw/dtheta = -J R^T (r0_ddot - g)
                x.add_px(&mut r0, -2.0 * om * c.damping);
                x.add_pdy(&mut r0, -2.0 * c.damping);
                x.add_py(&mut r1, -2.0 * om * c.damping);
                x.add_pdx(&mut r1, 2.0 * c.damping);
                r0[ONE] += c.stiffness * a_g[1];
                r1[ONE] -= c.stiffness * a_g[0];
            }
            if k >= 3 + n {
                // the x row's -(H B)^T: -2 H B_dot in dw/dq_dot, -H B_ddot and
                // 2 om J (-(H B_dot), 0) in dw/dq
                let i = k - 3 - n;
                x.features.add_h_row(&mut r0, -2.0 * c.damping, i, x.bd);
                x.features.add_h_row(&mut r0, -c.stiffness, i, x.bdd);
                x.features.add_h_row(&mut r1, -2.0 * om * c.stiffness, i, x.bd);
            }
            gram.apply([&r0, &r1], [&mut e0, &mut e1]);
            for i in 0..nd {
                tangent[i * nd + k] += x.l_dot(i, &e0, &e1);
            }
        }
        // w = wa + wr integrated: W0 = G c_w0, W1 = G c_w1
        let (mut w0, mut w1) = ([0.0; F], [0.0; F]);
        let mut minus_w0 = [0.0; F];
        for j in 0..m {
            w0[j] = wa0[j] + wr0[j];
            w1[j] = wa1[j] + wr1[j];
            minus_w0[j] = -w0[j];
        }
        let jw = [-w1[ONE], w0[ONE]];
        tangent[2] += c.stiffness * (co * jw[0] - s * jw[1]);
        tangent[nd + 2] += c.stiffness * (s * jw[0] + co * jw[1]);
        for j in 3..nd {
            tangent[2 * nd + j] += c.stiffness * x.l_dot(j, &w1, &minus_w0);
        }
        for i in 0..n {
            for l in 0..n {
                tangent[(3 + n + i) * nd + 3 + n + l] -= c.stiffness * w0[x.features.h(i, l)];
                tangent[(3 + i) * nd + 3 + l] += c.stiffness * self.modal.k1[(i, l)];
                tangent[(3 + n + i) * nd + 3 + n + l] += c.stiffness * self.modal.k2[(i, l)];
            }
        }
        if self.damping != 0.0 {
            let cd = c.damping * self.damping;
            for i in 0..n {
                for l in 0..n {
                    tangent[(3 + i) * nd + 3 + l] += cd * self.modal.k1[(i, l)];
                    tangent[(3 + n + i) * nd + 3 + n + l] += cd * self.modal.k2[(i, l)];
                }
            }
        }
    }

    /// `evaluate_into` with the results returned (tests and the local API).
    fn evaluate(
        &self,
        q: &[f64],
        v: &[f64],
        acc: &[f64],
        c: Option<&TangentCoefficients>,
    ) -> (DVector<f64>, DVector<f64>, DMatrix<f64>) {
        let nd = self.coordinates();
        let (mut inertial, mut rest) = (DVector::zeros(nd), DVector::zeros(nd));
        let m = if c.is_some() { nd } else { 0 };
        let mut tangent = vec![0.0; m * m];
        self.evaluate_into((q, v, acc), c, inertial.as_mut_slice(), rest.as_mut_slice(), &mut tangent);
        (inertial, rest, DMatrix::from_row_slice(m, m, &tangent))
    }

    /// M(q) q_ddot and the other forces (quadratic velocity, gravity, elastic), over the
    /// element's coordinates.
    pub fn local_forces(&self, q: &[f64], v: &[f64], a: &[f64]) -> (DVector<f64>, DVector<f64>) {
        let (i, r, _) = self.evaluate(q, v, a, None);
        (i, r)
    }

    /// c.mass M + c.damping dF/dq_dot + c.stiffness dF/dq over the element's coordinates.
    pub fn local_tangent(&self, q: &[f64], v: &[f64], a: &[f64], c: &TangentCoefficients) -> DMatrix<f64> {
        self.evaluate(q, v, a, Some(c)).2
    }

    /// T = 1/2 int rho S |r_dot|^2 with the local velocity u = R^T r0_dot + theta_dot J p + p_dot.
    pub fn kinetic_energy(&self, q: &[f64], v: &[f64]) -> f64 {
        let (e, ed) = (self.local_slice(q), self.local_slice(v));
        let x = LocalForms::new(self.modal.gram.features, e, ed, ed);
        let (s, co) = (x.sin, x.cos);
        let (mut u0, mut u1) = ([0.0; MAX_FEATURES], [0.0; MAX_FEATURES]);
        u0[ONE] = co * ed[0] + s * ed[1];
        x.add_py(&mut u0, -ed[2]);
        x.add_pdx(&mut u0, 1.0);
        u1[ONE] = -s * ed[0] + co * ed[1];
        x.add_px(&mut u1, ed[2]);
        x.add_pdy(&mut u1, 1.0);
        0.5 * (self.modal.gram.inner(&u0, &u0) + self.modal.gram.inner(&u1, &u1))
    }

    /// Gravitational + elastic potential.
    pub fn potential_energy(&self, q: &[f64]) -> f64 {
        let n = self.modes;
        let e = self.local_slice(q);
        let x = LocalForms::new(self.modal.gram.features, e, e, e);
        let (s, co) = (x.sin, x.cos);
        let (mut one, mut px, mut py) = ([0.0; MAX_FEATURES], [0.0; MAX_FEATURES], [0.0; MAX_FEATURES]);
        one[ONE] = 1.0;
        x.add_px(&mut px, 1.0);
        x.add_py(&mut py, 1.0);
        let gram = &self.modal.gram;
        // int rho S p, then int rho S r = m r0 + R int rho S p
        let (sx, sy) = (gram.inner(&one, &px), gram.inner(&one, &py));
        let r = [gram.mass() * e[0] + co * sx - s * sy, gram.mass() * e[1] + s * sx + co * sy];
        let (a, b) = (x.a, x.b);
        let (mut ka, mut kb) = ([0.0; MAX_MODES], [0.0; MAX_MODES]);
        mat_vec(&self.modal.k1, a, &mut ka[..n]);
        mat_vec(&self.modal.k2, b, &mut kb[..n]);
        -(self.gravity[0] * r[0] + self.gravity[1] * r[1]) + 0.5 * dot(a, &ka[..n]) + 0.5 * dot(b, &kb[..n])
    }

    pub fn mass(&self) -> f64 {
        self.modal.gram.mass()
    }
}

/// A state's linear forms (`floating_frame_integrals`) of a material point's local position
/// p = (x + Phi_x A - B^T H B / 2, Phi_y B) (004 eq. 1), its rate p_dot = (Phi_x A_dot -
/// B^T H B_dot, Phi_y B_dot), the acceleration terms p_ddot = (Phi_x A_ddot - B^T H B_ddot,
/// Phi_y B_ddot) (without B_dot^T H B_dot), and of the columns of L = [R^T, J p, P],
/// P = [[Phi_x, -(H B)^T], [0, Phi_y]].
struct LocalForms<'a> {
    features: Features,
    sin: f64,
    cos: f64,
    a: &'a [f64],
    b: &'a [f64],
    ad: &'a [f64],
    bd: &'a [f64],
    add: &'a [f64],
    bdd: &'a [f64],
}

impl<'a> LocalForms<'a> {
    /// From the element's coordinates, velocities and accelerations (x0, y0, theta, A, B).
    fn new(features: Features, e: &'a [f64], ed: &'a [f64], edd: &'a [f64]) -> Self {
        let n = features.modes;
        let (sin, cos) = e[2].sin_cos();
        LocalForms {
            features,
            sin,
            cos,
            a: &e[3..3 + n],
            b: &e[3 + n..3 + 2 * n],
            ad: &ed[3..3 + n],
            bd: &ed[3 + n..3 + 2 * n],
            add: &edd[3..3 + n],
            bdd: &edd[3 + n..3 + 2 * n],
        }
    }

    fn add_px(&self, c: &mut [f64], k: f64) {
        c[X] += k;
        self.features.add_phi_x(c, k, self.a);
        self.features.add_quadratic(c, -0.5 * k, self.b, self.b);
    }

    fn add_py(&self, c: &mut [f64], k: f64) {
        self.features.add_phi_y(c, k, self.b);
    }

    fn add_pdx(&self, c: &mut [f64], k: f64) {
        self.features.add_phi_x(c, k, self.ad);
        self.features.add_quadratic(c, -k, self.b, self.bd);
    }

    fn add_pdy(&self, c: &mut [f64], k: f64) {
        self.features.add_phi_y(c, k, self.bd);
    }

    fn add_pddx(&self, c: &mut [f64], k: f64) {
        self.features.add_phi_x(c, k, self.add);
        self.features.add_quadratic(c, -k, self.b, self.bdd);
    }

    fn add_pddy(&self, c: &mut [f64], k: f64) {
        self.features.add_phi_y(c, k, self.bdd);
    }

    /// Adds k times row `row` (0: local x, 1: local y) of L's column `col` to `c`.
    fn add_l_row(&self, col: usize, row: usize, k: f64, c: &mut [f64]) {
        let n = self.features.modes;
        let (s, co) = (self.sin, self.cos);
        match (col, row) {
            (0, 0) => c[ONE] += k * co,
            (0, _) => c[ONE] -= k * s,
            (1, 0) => c[ONE] += k * s,
            (1, _) => c[ONE] += k * co,
            (2, 0) => self.add_py(c, -k),
            (2, _) => self.add_px(c, k),
            (j, 0) if j < 3 + n => c[self.features.phi_x(j - 3)] += k,
            (j, _) if j < 3 + n => {}
            (j, 0) => self.features.add_h_row(c, -k, j - 3 - n, self.b),
            (j, _) => c[self.features.phi_y(j - 3 - n)] += k,
        }
    }

    /// (r0, r1) += t (l0, l1) for L's column `col` = (l0, l1) and the 2 x 2 matrix t.
    fn add_l(&self, col: usize, t: [[f64; 2]; 2], r0: &mut [f64], r1: &mut [f64]) {
        for (row, r) in [(0, r0), (1, r1)] {
            for (l, k) in t[row].into_iter().enumerate() {
                if k != 0.0 {
                    self.add_l_row(col, l, k, r);
                }
            }
        }
    }

    /// int rho S L_k . u for L's column k, given d0 = G c_u0 and d1 = G c_u1.
    fn l_dot(&self, k: usize, d0: &[f64], d1: &[f64]) -> f64 {
        let f = &self.features;
        let n = f.modes;
        let (s, co) = (self.sin, self.cos);
        match k {
            0 => co * d0[ONE] - s * d1[ONE],
            1 => s * d0[ONE] + co * d1[ONE],
            2 => {
                let py: f64 = self.b.iter().enumerate().map(|(i, bi)| bi * d0[f.phi_y(i)]).sum();
                let px: f64 = d1[X] + self.a.iter().enumerate().map(|(i, ai)| ai * d1[f.phi_x(i)]).sum::<f64>()
                    - 0.5 * f.quadratic_dot(d1, self.b, self.b);
                px - py
            }
            k if k < 3 + n => d0[f.phi_x(k - 3)],
            k => d1[f.phi_y(k - 3 - n)] - f.h_row_dot(d0, k - 3 - n, self.b),
        }
    }
}

/// A material point of a floating-frame beam (abscissa x of the undeformed axis; the tip is
/// x = L) as a function of the beam's coordinates e = (x0, y0, theta, A, B) (paper 004 eq. 1):
///   r(e) = r0 + R(theta) p,   p = (x + Phi_x(x) A - B^T H(x) B / 2,  Phi_y(x) B),
/// with the Jacobian dr/de (the columns R^T-free form below) and the second derivatives
/// contracted with a vector w, w . d2r/de2:
///   dr/dx0 = (1, 0), dr/dy0 = (0, 1), dr/dtheta = J R p, dr/dA_i = R (Phi_x,i, 0),
///   dr/dB_i = R (-(H B)_i, Phi_y,i)   (the -(H B) term is the axial-shortening coupling);
///   w . d2r/dtheta2 = -w_l . p, w . d2r/dtheta de_k = w_l . J dp/de_k,
///   w . d2r/dB_i dB_j = -w_l,x H_ij, all other second derivatives zero (w_l = R^T w).
#[derive(Debug, Clone, PartialEq)]
pub struct FloatingFramePoint {
    /// First of the beam's 3 + 2N coordinates.
    pub first: usize,
    pub modes: usize,
    /// x along the undeformed axis from the frame origin.
    pub abscissa: f64,
    /// Mode values and H at x.
    pub shape: TipShape,
}

impl FloatingFramePoint {
    pub fn coordinates(&self) -> usize {
        3 + 2 * self.modes
    }

    /// Local position p; H B into `hb` (the columns dp/de_k over the 2N modal coordinates
    /// are (Phi_x,k, 0) and (-(H B)_k, Phi_y,k), `column`).
    fn local(&self, q: &[f64], hb: &mut [f64]) -> [f64; 2] {
        let (n, x) = (self.modes, self.first);
        let a = &q[x + 3..x + 3 + n];
        let b = &q[x + 3 + n..x + 3 + 2 * n];
        mat_vec(&self.shape.h, b, hb);
        let px = self.abscissa + self.shape.phi_x.iter().zip(a).map(|(p, a)| p * a).sum::<f64>() - 0.5 * dot(b, hb);
        let py = dot(self.shape.phi_y.as_slice(), b);
        [px, py]
    }

    /// dp/de_k for modal coordinate k (0..2N), given H B.
    fn column(&self, k: usize, hb: &[f64]) -> [f64; 2] {
        let n = self.modes;
        if k < n { [self.shape.phi_x[k], 0.0] } else { [-hb[k - n], self.shape.phi_y[k - n]] }
    }

    /// Global position of the point.
    pub fn position(&self, q: &[f64]) -> [f64; 2] {
        let mut hb = [0.0; MAX_MODES];
        let p = self.local(q, &mut hb[..self.modes]);
        let x = self.first;
        let (s, c) = q[x + 2].sin_cos();
        [q[x] + c * p[0] - s * p[1], q[x + 1] + s * p[0] + c * p[1]]
    }

    /// The Jacobian columns dr/de into `jac` (3 + 2N of them); returns the position.
    pub fn jacobian_into(&self, q: &[f64], jac: &mut [[f64; 2]]) -> [f64; 2] {
        let mut hb = [0.0; MAX_MODES];
        let hb = &mut hb[..self.modes];
        let p = self.local(q, hb);
        let x = self.first;
        let (s, c) = q[x + 2].sin_cos();
        let rot = |u: [f64; 2]| [c * u[0] - s * u[1], s * u[0] + c * u[1]];
        let rp = rot(p);
        jac[..3].copy_from_slice(&[[1.0, 0.0], [0.0, 1.0], perp(rp)]);
        for k in 0..self.coordinates() - 3 {
            jac[3 + k] = rot(self.column(k, hb));
        }
        [q[x] + rp[0], q[x + 1] + rp[1]]
    }

    /// w . d2r/de2 into `hess` ((3 + 2N)^2, row-major, zero on entry).
    pub fn weighted_hessian_into(&self, q: &[f64], w: [f64; 2], hess: &mut [f64]) {
        let mut hb = [0.0; MAX_MODES];
        let hb = &mut hb[..self.modes];
        let p = self.local(q, hb);
        let nd = self.coordinates();
        let (s, c) = q[self.first + 2].sin_cos();
        let wl = [c * w[0] + s * w[1], -s * w[0] + c * w[1]];
        hess[2 * nd + 2] = -(wl[0] * p[0] + wl[1] * p[1]);
        for k in 0..nd - 3 {
            let ju = perp(self.column(k, hb));
            let v = wl[0] * ju[0] + wl[1] * ju[1];
            hess[2 * nd + 3 + k] = v;
            hess[(3 + k) * nd + 2] = v;
        }
        let n = self.modes;
        for i in 0..n {
            for j in 0..n {
                hess[(3 + n + i) * nd + 3 + n + j] = -wl[0] * self.shape.h[(i, j)];
            }
        }
    }
}

impl Element for FloatingFrameBeam2d {
    /// Its nodes are one piece of the structure (`Element::TIES`).
    const TIES: bool = true;

    fn dofs(&self) -> &[usize] {
        &self.dofs
    }

    fn add_forces(&self, x: &Kin, inertial: &mut [f64], forces: &mut [f64]) {
        let nd = self.dofs.len();
        let (mut i, mut r) = ([0.0; MAX_COORDINATES], [0.0; MAX_COORDINATES]);
        self.evaluate_into((x.q, x.v, x.a), None, &mut i[..nd], &mut r[..nd], &mut []);
        for (k, &d) in self.dofs.iter().enumerate() {
            inertial[d] += i[k];
            forces[d] += r[k];
        }
    }

    /// The modal stiffness alone (004 eq. 4; the tangent's other stiffness terms are the
    /// rotating frame's inertia and the weight's).
    fn add_strain_stiffness(&self, _x: &Kin, block: &mut [f64]) {
        let (nd, n) = (self.dofs.len(), self.modal.k1.nrows());
        for i in 0..n {
            for l in 0..n {
                block[(3 + i) * nd + 3 + l] += self.modal.k1[(i, l)];
                block[(3 + n + i) * nd + 3 + n + l] += self.modal.k2[(i, l)];
            }
        }
    }

    fn add_tangent(&self, x: &Kin, c: &TangentCoefficients, block: &mut [f64]) {
        let nd = self.dofs.len();
        let (mut i, mut r) = ([0.0; MAX_COORDINATES], [0.0; MAX_COORDINATES]);
        let mut t = [0.0; MAX_COORDINATES * MAX_COORDINATES];
        self.evaluate_into((x.q, x.v, x.a), Some(c), &mut i[..nd], &mut r[..nd], &mut t[..nd * nd]);
        for (b, t) in block[..nd * nd].iter_mut().zip(&t[..nd * nd]) {
            *b += t;
        }
    }

    fn energy(&self, x: &Kin) -> Energy {
        Energy { kinetic: self.kinetic_energy(x.q, x.v), potential: self.potential_energy(x.q) }
    }

    /// Material damping dissipates (when `damping` > 0).
    const NON_CONSERVATIVE: bool = true;

    fn exchanges_energy(&self) -> bool {
        self.damping != 0.0
    }

    fn power(&self, x: &Kin, stride: &Stride) -> EnergyFlow {
        if self.damping == 0.0 {
            return EnergyFlow::default();
        }
        EnergyFlow { dissipated: self.damping_power(x.v, stride), supplied: 0.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(young: f64) -> BeamProperties {
        BeamProperties {
            young,
            shear: young / 2.6,
            area: 3.14e-4,
            inertia: 7.85e-9,
            shear_factor: None,
            density: 2766.7,
            rotary_inertia: None,
        }
    }

    fn beam(g: [f64; 2]) -> FloatingFrameBeam2d {
        FloatingFrameBeam2d::new(0, 1.0, 4, &props(6.8952e10), g)
    }

    #[test]
    fn a_moved_beam_equals_one_built_on_its_coordinates() {
        let g = [0.0, -9.81];
        let moved = beam(g).moved_to(17);
        assert_eq!(moved, FloatingFrameBeam2d::new(17, 1.0, 4, &props(6.8952e10), g));
        assert_eq!(moved.dofs, (17..17 + 11).collect::<Vec<_>>());
    }

    #[test]
    fn clamped_free_roots_and_mode_orthogonality() {
        let r: Vec<f64> = (1..=4).map(clamped_free_root).collect();
        println!("clamped-free beta L: {r:?}");
        for (x, want) in r.iter().zip([1.875104068711961, 4.694091132974175, 7.854757438237613, 10.995540734875467]) {
            assert!((x - want).abs() < 1e-12, "{x} vs {want}");
        }
        for (x, &r) in r.iter().enumerate() {
            assert!((r.cos() * r.cosh() + 1.0).abs() < 1e-9 * r.cosh(), "root {x}");
        }
        // K2 diagonal with entries EI beta^4 int phi^2 (orthogonality of the eigenfunctions);
        // for this normalisation int_0^L phi^2 = L, so K2_nn = EI beta_n^4 L.
        let b = beam([0.0, 0.0]);
        let (_, k2) = b.modal_stiffness();
        let ei = 6.8952e10 * 7.85e-9;
        for i in 0..4 {
            for j in 0..4 {
                let want = if i == j { ei * r[i].powi(4) } else { 0.0 };
                println!("K2[{i}][{j}] = {:.6e} (want {want:.6e})", k2[(i, j)]);
                assert!((k2[(i, j)] - want).abs() < 1e-9 * ei * r[3].powi(4), "K2 {i} {j}");
            }
        }
    }

    #[test]
    fn tangent_matches_central_differences() {
        // A soft beam (E = 1 kPa) so that the constant modal stiffness does not hide the
        // configuration-dependent inertia and gravity terms in the comparison.
        let b = FloatingFrameBeam2d::new(0, 1.0, 4, &props(1e3), [0.3, -9.81]);
        let nd = b.coordinates();
        let q: Vec<f64> =
            (0..nd).map(|i| [0.1, -0.2, 0.7, 1e-4, -2e-5, 3e-6, 1e-6, 0.02, -0.01, 4e-3, -1e-3, 2e-4][i]).collect();
        let v: Vec<f64> =
            (0..nd).map(|i| [0.5, -0.3, 2.0, 0.01, -0.02, 0.003, 1e-3, 0.5, -0.4, 0.2, 0.1, -0.05][i]).collect();
        let a: Vec<f64> =
            (0..nd).map(|i| [1.0, 2.0, -3.0, 0.5, 0.2, -0.1, 0.05, 10.0, -5.0, 3.0, -2.0, 1.0][i]).collect();
        for (which, c) in [
            (0, TangentCoefficients { mass: 1.0, damping: 0.0, stiffness: 0.0, lambda: 0.0 }),
            (1, TangentCoefficients { mass: 0.0, damping: 1.0, stiffness: 0.0, lambda: 0.0 }),
            (2, TangentCoefficients { mass: 0.0, damping: 0.0, stiffness: 1.0, lambda: 0.0 }),
        ] {
            let t = b.local_tangent(&q, &v, &a, &c);
            let total = |q: &[f64], v: &[f64], a: &[f64]| {
                let (i, r) = b.local_forces(q, v, a);
                i + r
            };
            let mut worst: f64 = 0.0;
            let scale = t.amax().max(1.0);
            for j in 0..nd {
                // forces are linear in a and quadratic in v: central differences are exact there
                let h = if which < 2 {
                    1e-2
                } else if j >= 3 {
                    1e-7
                } else {
                    1e-6
                };
                let (mut p, mut m) = ([q.clone(), v.clone(), a.clone()], [q.clone(), v.clone(), a.clone()]);
                p[2 - which][j] += h;
                m[2 - which][j] -= h;
                let fd = (total(&p[0], &p[1], &p[2]) - total(&m[0], &m[1], &m[2])) / (2.0 * h);
                for i in 0..nd {
                    worst = worst.max((fd[i] - t[(i, j)]).abs() / scale);
                }
            }
            println!("tangent block {which}: max |fd - analytic| / max|block| = {worst:.3e} (max |block| {scale:.3e})");
            assert!(worst < 1e-6, "block {which}: {worst}");
        }
    }

    /// A deformed, moving state of the 4-mode test beam (coordinates, velocities, accelerations).
    fn moving_state(nd: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let q = (0..nd).map(|i| [0.1, -0.2, 0.7, 1e-3, -2e-4, 3e-5, 1e-5, 0.05, -0.02, 4e-3, -1e-3, 2e-4][i]).collect();
        let v = (0..nd).map(|i| [0.5, -0.3, 2.0, 0.01, -0.02, 0.003, 1e-3, 0.5, -0.4, 0.2, 0.1, -0.05][i]).collect();
        let a = (0..nd).map(|i| [1.0, 2.0, -3.0, 0.5, 0.2, -0.1, 0.05, 10.0, -5.0, 3.0, -2.0, 1.0][i]).collect();
        (q, v, a)
    }

    #[test]
    fn kinetic_energy_equals_the_quadrature_over_material_points() {
        // The Gram form against 1/2 sum rho S w |r_dot|^2 over 32 x 8 Gauss points, each
        // material point's velocity from its own Jacobian (mode values and H(x) computed there).
        let b = beam([0.0, -9.81]);
        let nd = b.coordinates();
        let (q, v, _) = moving_state(nd);
        let (mut t, mut vg) = (0.0, 0.0);
        let rho_s = 2766.7 * 3.14e-4;
        let gl = gauss_legendre(8);
        let mut jac = vec![[0.0; 2]; nd];
        for seg in 0..32 {
            for &(xi, w) in &gl {
                let x = (seg as f64 + 0.5 * (xi + 1.0)) / 32.0;
                let r = b.material_point(x).jacobian_into(&q, &mut jac);
                let u = (0..nd).fold([0.0; 2], |u, k| [u[0] + jac[k][0] * v[k], u[1] + jac[k][1] * v[k]]);
                t += 0.5 * rho_s * w / 64.0 * (u[0] * u[0] + u[1] * u[1]);
                vg += rho_s * w / 64.0 * 9.81 * r[1];
            }
        }
        let gram = b.kinetic_energy(&q, &v);
        let (ka, kb) = b.modal_stiffness();
        let (av, bv) = (DVector::from_column_slice(&q[3..7]), DVector::from_column_slice(&q[7..11]));
        let elastic = 0.5 * av.dot(&(ka * &av)) + 0.5 * bv.dot(&(kb * &bv));
        let v_gram = b.potential_energy(&q) - elastic;
        println!("T: Gram {gram}, quadrature {t}; V_g: Gram {v_gram}, quadrature {vg}");
        assert!((gram - t).abs() < 1e-11 * t, "T {gram} vs {t}");
        assert!((v_gram - vg).abs() < 1e-11 * vg.abs(), "V {v_gram} vs {vg}");
    }

    #[test]
    fn forces_are_lagrange_equations_of_the_energies() {
        // inertial + rest = d/dt dT/dv - dT/dq + dV/dq: T quadratic in v, so its v-differences
        // are exact; the q-derivatives are central differences.
        let b = beam([0.3, -9.81]);
        let nd = b.coordinates();
        let (q, v, a) = moving_state(nd);
        let shift = |x: &[f64], j: usize, h: f64| {
            let mut y = x.to_vec();
            y[j] += h;
            y
        };
        let momentum = |q: &[f64], v: &[f64]| -> Vec<f64> {
            (0..nd)
                .map(|j| (b.kinetic_energy(q, &shift(v, j, 1.0)) - b.kinetic_energy(q, &shift(v, j, -1.0))) / 2.0)
                .collect()
        };
        let vpa: Vec<f64> = v.iter().zip(&a).map(|(v, a)| v + a).collect();
        let (pa, p0) = (momentum(&q, &vpa), momentum(&q, &v));
        let (inertial, rest) = b.local_forces(&q, &v, &a);
        let total = inertial + rest;
        let mut worst: f64 = 0.0;
        for i in 0..nd {
            let hq = if i < 3 { 1e-6 } else { 1e-7 };
            let mut lagrange = pa[i] - p0[i];
            for j in 0..nd {
                let h = if j < 3 { 1e-6 } else { 1e-7 };
                let dp = (momentum(&shift(&q, j, h), &v)[i] - momentum(&shift(&q, j, -h), &v)[i]) / (2.0 * h);
                lagrange += dp * v[j];
            }
            let l = |q: &[f64]| b.potential_energy(q) - b.kinetic_energy(q, &v);
            lagrange += (l(&shift(&q, i, hq)) - l(&shift(&q, i, -hq))) / (2.0 * hq);
            worst = worst.max((total[i] - lagrange).abs());
        }
        println!("max |F - Lagrange| / max |F| = {:.1e}", worst / total.amax());
        assert!(worst < 1e-6 * total.amax(), "{worst}");
    }

    #[test]
    fn mass_matrix_is_the_kinetic_energy_hessian_and_rigid_at_rest() {
        // Undeformed beam: M_theta_theta = rho S L^3 / 3, total mass rho S L.
        let b = beam([0.0, 0.0]);
        let nd = b.coordinates();
        let z = vec![0.0; nd];
        let m =
            b.local_tangent(&z, &z, &z, &TangentCoefficients { mass: 1.0, damping: 0.0, stiffness: 0.0, lambda: 0.0 });
        let rsl = 2766.7 * 3.14e-4;
        println!("M00 {} (rho S L {rsl}), M22 {} (rho S L^3/3 {})", m[(0, 0)], m[(2, 2)], rsl / 3.0);
        assert!((m[(0, 0)] - rsl).abs() < 1e-12 * rsl);
        assert!((m[(2, 2)] - rsl / 3.0).abs() < 1e-12 * rsl);
        // 2 T = v^T M v at a deformed state
        let q: Vec<f64> = (0..nd).map(|i| 1e-3 * (i as f64 + 1.0).sin()).collect();
        let v: Vec<f64> = (0..nd).map(|i| (i as f64 * 0.7).cos()).collect();
        let m =
            b.local_tangent(&q, &z, &z, &TangentCoefficients { mass: 1.0, damping: 0.0, stiffness: 0.0, lambda: 0.0 });
        let vv = DVector::from_column_slice(&v);
        let t2 = vv.dot(&(&m * &vv));
        let t = b.kinetic_energy(&q, &v);
        println!("v^T M v = {t2}, 2 T = {}", 2.0 * t);
        assert!((t2 - 2.0 * t).abs() < 1e-12 * t2.abs());
    }

    #[test]
    fn rotating_beam_stiffens_through_the_axial_shortening_term() {
        // In-plane bending of a cantilever spinning at Omega about its clamped end: the
        // linearised modal stiffness K2 + Omega^2 (int rho S x H dx - int rho S Phi_y^T Phi_y dx)
        // gives omega_1^2 = omega_0^2 + (S - 1) Omega^2 with Southwell's coefficient S = 1.193
        // of the uniform cantilever (zero hub radius). The "- 1" is the centrifugal softening of
        // the in-plane motion; without the shortening term w_c of 004 eq. 1 (H = 0) the
        // coefficient would be -1, the spurious softening the paper's second-order coupling
        // removes.
        let b = beam([0.0, 0.0]);
        let n = b.modes;
        let nd = b.coordinates();
        let z = vec![0.0; nd];
        let omega0 = {
            let kb = b.modal.k2.clone();
            let m = b.local_tangent(
                &z,
                &z,
                &z,
                &TangentCoefficients { mass: 1.0, damping: 0.0, stiffness: 0.0, lambda: 0.0 },
            );
            lowest(&m.view((3 + n, 3 + n), (n, n)).into_owned(), &kb)
        };
        for spin in [10.0, 50.0] {
            let mut v = z.clone();
            v[2] = spin;
            let k = b.local_tangent(
                &z,
                &v,
                &z,
                &TangentCoefficients { mass: 0.0, damping: 0.0, stiffness: 1.0, lambda: 0.0 },
            );
            let m = b.local_tangent(
                &z,
                &v,
                &z,
                &TangentCoefficients { mass: 1.0, damping: 0.0, stiffness: 0.0, lambda: 0.0 },
            );
            let w2 = lowest(&m.view((3 + n, 3 + n), (n, n)).into_owned(), &k.view((3 + n, 3 + n), (n, n)).into_owned());
            let coefficient = (w2 - omega0) / (spin * spin) + 1.0;
            println!(
                "Omega = {spin} rad/s: omega_1^2 - omega_0^2 = {:.4} Omega^2, Southwell coefficient {coefficient:.4} (theory 1.193)",
                coefficient - 1.0
            );
            assert!((coefficient - 1.193).abs() < 5e-3, "{coefficient}");
        }
    }

    /// Lowest eigenvalue of K x = lambda M x (M symmetric positive definite).
    fn lowest(m: &DMatrix<f64>, k: &DMatrix<f64>) -> f64 {
        let l = m.clone().cholesky().unwrap().l();
        let li = l.clone().try_inverse().unwrap();
        let a = &li * k * li.transpose();
        let a = (&a + a.transpose()) * 0.5;
        a.symmetric_eigen().eigenvalues.min()
    }
}
