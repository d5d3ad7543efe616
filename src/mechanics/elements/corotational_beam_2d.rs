//! Corotational planar beam element (paper 000, section 1).
//!
//! Global coordinates q = (x1, y1, th1, x2, y2, th2): absolute nodal positions and absolute
//! section rotations, the same layout as a rigid body so joints attach to nodes unchanged.
//! Local coordinates q_L = (u_bar, th_bar1, th_bar2) (eq. 3) with u_bar = l - l0 and
//! th_bar_i = th_i - beta, beta the chord angle (eq. 6). The straight initial configuration
//! has th_i = beta_0, so no initial-rotation offset is stored.
//!
//! * Elastic forces: F_E = B^T F_EL (eqs. 5-9), F_EL = (N, M1, M2) from a linear
//!   Timoshenko element (Euler-Bernoulli when phi = 0). Exact tangent
//!   K_E = B^T K_L B + N z z^T / l + (M1 + M2)(r z^T + z r^T) / l^2, with r = b1 and
//!   z = (s, -c, 0, -s, c, 0) (the terms from dB/dq).
//! * Inertia: K = 1/2 qdot^T M_g(q) qdot, M_g = T^T M_L T (eqs. 11-16). M_g depends on q only
//!   through p = (beta, th1, th2); with g_j = dp_j/dq and M_j = dM_g/dp_j, Lagrange's equation
//!   (eq. 17) gives F_I = M_g a + sum_j pdot_j M_j qdot - 1/2 sum_j (qdot^T M_j qdot) g_j, and
//!   its derivatives give the tangents M (eq. 18), C (eq. 19) and K_I (eq. 20).
//! * Both, and their tangents, are evaluated in the chord frame (T x, without forming M_g or
//!   its derivatives): `local_inertia_force`, `local_elastic_force`, `local_tangent`.
//! * Mass of the Timoshenko element (phi > 0): paper 000's M_L is that of the Euler-Bernoulli
//!   cubic (the transverse field w and the rotary inertia on w'). With shear the element's own
//!   fields are the interdependent interpolation that makes its stiffness exact (Przemieniecki
//!   1968; Friedman & Kosmatka 1993): w = N (w1, th1, w2, th2) with N2 = l0 (xi (1 - xi)^2 +
//!   phi/2 xi (1 - xi)) / (1 + phi), N4 = -l0 (xi^2 (1 - xi) + phi/2 xi (1 - xi)) / (1 + phi),
//!   and the section rotation th = P (..) (P = N' at phi = 0). M_L is built from those fields
//!   (translational rho A int N N^T, rotary rho I int P P^T, and the coupling of eq. 16 from
//!   int N_axial w), so the element converges to Timoshenko's beam: a simply supported steel
//!   beam with L/h = 5 had its third bending frequency 8.9 % low with the cubic's mass (the
//!   limit of rotary inertia on w'), within 0.1 % with these (tests/suite/beam_benchmarks.rs). At
//!   phi = 0 nothing changes. The consistent load of gravity (end moments rho A g l0^2/12) is
//!   the same for both fields.
//! * Gravity: lumped to the translations, rho A l0 / 2 at each node, no nodal moments
//!   (potential -sum_i (m/2) g . x_i, exactly consistent with the forces).
//! * Material damping (Kelvin-Voigt, sigma = E (eps + b eps'), b = `damping` in s; the
//!   stiffness-proportional "Rayleigh beta" damping of linear structural dynamics, Clough &
//!   Penzien, Dynamics of Structures, ch. 12: modal damping ratio b omega / 2):
//!   local damping forces F_DL = b K_L d' on the rates of the local deformations
//!   d = (u_bar, th_bar1, th_bar2), d' = B v, added to F_EL, so F_D = B^T F_DL (eq. 8 with
//!   F_DL for F_EL). d' vanishes for every rigid motion (u_bar and th_bar are the
//!   corotational frame's deformational measures, Crisfield, Non-linear Finite Element
//!   Analysis of Solids and Structures, vol. 1, ch. 7), so translation and rotation of the
//!   whole element are not damped. Exact tangents: C = b B^T K_L B, and dF_D/dq = the terms of
//!   dB/dq with F_DL (as in K_E) + B^T b K_L d(B v)/dq with, in the chord frame,
//!   d(u_bar')/dq = betadot l e_b and d(th_bar_i')/dq = -d(betadot)/dq = (u_bar'/l) e_b +
//!   (betadot/l) b1 (betadot = z . v / l, z turns with beta, dz/dbeta = -r). Dissipated
//!   power F_DL . d' = b d'^T K_L d' >= 0.
//!
//! Note on eq. 15: the printed entry (5, 4) reads m2; symmetry of the kinetic energy (and
//! the derivation: the axial velocity field contains -betadot w(x), whose products with the
//! linear axial interpolation give int N1 w = l^2 m1/420, int N2 w = l^2 m2/420) requires -m2.

use super::{Element, Energy, Kin, scatter};
use crate::integrators::{EnergyFlow, Stride, TangentCoefficients};
use nalgebra::{SMatrix, SVector};

type M6 = SMatrix<f64, 6, 6>;
pub(crate) type V6 = SVector<f64, 6>;

/// Section, material and formulation of a beam.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BeamProperties {
    /// Young's modulus (Pa).
    pub young: f64,
    /// Shear modulus (Pa).
    pub shear: f64,
    /// Cross-section area (m^2).
    pub area: f64,
    /// Second moment of area about the out-of-plane axis (m^4).
    pub inertia: f64,
    /// Shear correction factor k; `None` = Euler-Bernoulli (phi = 0).
    pub shear_factor: Option<f64>,
    /// Density (kg/m^3).
    pub density: f64,
    /// Mass moment of inertia per unit length about the out-of-plane axis (kg m), given apart
    /// from the stiffness; `None` = rho I of the homogeneous section (`rho_i`). The
    /// floating-frame beam has no rotary inertia and takes none.
    pub rotary_inertia: Option<f64>,
}

impl BeamProperties {
    /// A section given by its stress resultants: axial stiffness `ea` = E A (N), effective shear
    /// stiffness `ga` = k G A (N; `None`: Euler-Bernoulli), bending stiffness `ei` = E I (N m^2),
    /// mass per unit length (kg/m) and rotary inertia per unit length (kg m; `None`: that of a
    /// homogeneous section, m EI / EA = rho I). Carried as unit moduli, E = G = 1, so that A, I
    /// and rho A hold the resultants and every element forms E A = EA, E I = EI exactly; the
    /// shear factor k = GA / EA makes k G A = GA and the density m / EA makes rho A = m (each to
    /// round-off).
    pub fn resultants(ea: f64, ga: Option<f64>, ei: f64, mass_per_length: f64, rotary_inertia: Option<f64>) -> Self {
        BeamProperties {
            young: 1.0,
            shear: 1.0,
            area: ea,
            inertia: ei,
            shear_factor: ga.map(|ga| ga / ea),
            density: mass_per_length / ea,
            rotary_inertia,
        }
    }

    /// The rotary inertia per unit length I_rho (kg m): `rotary_inertia`, else rho I.
    pub fn rho_i(&self) -> f64 {
        self.rotary_inertia.unwrap_or(self.density * self.inertia)
    }

    /// Shear correction factor of a rectangle, 10(1+nu)/(12+11nu).
    pub fn rectangle_shear_factor(nu: f64) -> f64 {
        10.0 * (1.0 + nu) / (12.0 + 11.0 * nu)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct CorotationalBeam2d {
    dofs: [usize; 6],
    /// Initial (undeformed) length.
    l0: f64,
    ea: f64,
    /// Shear parameter phi = 12 EI / (k G A l0^2); 0 for Euler-Bernoulli.
    phi: f64,
    /// Mass per unit length A_rho.
    rho_a: f64,
    /// Rotary inertia per unit length I_rho.
    rho_i: f64,
    pub gravity: [f64; 2],
    /// The th_bar-independent part of M_L (eqs. 13-16), built once, by blocks: the axial dofs
    /// (u1, u2: rows/columns 0, 3) couple only with each other (A_rho l0/420 [[140, 70],
    /// [70, 140]], M_L2 alone) and the transverse dofs (w1, th1, w2, th2: 1, 2, 4, 5) form a
    /// dense symmetric block (M_L1 + M_L2); only the coupling of eq. 16 joins the two.
    mass_axial: [[f64; 2]; 2],
    mass_transverse: [[f64; 4]; 4],
    /// The transverse block in the even and odd parts of the element's mirror symmetry
    /// (`local_mass_times`): halves of the 2 x 2 blocks P, Q (symmetric: (p00, p01, p11)).
    mass_even: [f64; 3],
    mass_odd: [f64; 3],
    /// A_rho l0/420, the factor of M_L2 and of its th_bar coupling (eqs. 15-16).
    coupling_scale: f64,
    /// (A, B) of eq. 16's coupling m1 = A th_bar1 - B th_bar2, m2 = B th_bar1 - A th_bar2 (times
    /// `coupling_scale`): the integrals 420/l0^2 int N1 w, int N2 w of the linear axial shapes
    /// against the transverse field w of the end rotations th_bar, (21, 14) for the cubic of
    /// paper 000, ((21 + 17.5 phi), (14 + 17.5 phi)) / (1 + phi) for the Timoshenko field
    /// (module documentation).
    coupling_weights: [f64; 2],
    /// Kelvin-Voigt material damping b (s): F_DL = b K_L d' (module documentation); 0 = none.
    pub damping: f64,
    /// EA / l0 and the local bending stiffness Kb (Timoshenko, w1 = w2 = 0: [M1, M2] = Kb
    /// [thb1, thb2], `bending_stiffness`), fixed with the element.
    axial_stiffness: f64,
    bending: [[f64; 2]; 2],
    /// rho A l0^2 / 12, the factor of the consistent gravity load's end moments (`cubic_gravity`).
    gravity_moment: f64,
}

/// Rows/columns of M_L's axial and transverse blocks.
const AXIAL: [usize; 2] = [0, 3];
const TRANSVERSE: [usize; 4] = [1, 2, 4, 5];

/// Current geometry of the chord.
struct Geometry {
    l: f64,
    /// 1 / l.
    inv_l: f64,
    c: f64,
    s: f64,
    thb: [f64; 2],
}

impl CorotationalBeam2d {
    /// `node1`, `node2`: first coordinate (x) of each node.
    pub fn new(node1: usize, node2: usize, l0: f64, p: &BeamProperties, gravity: [f64; 2]) -> Self {
        let ei = p.young * p.inertia;
        let phi = match p.shear_factor {
            Some(k) => 12.0 * ei / (k * p.shear * p.area * l0 * l0),
            None => 0.0,
        };
        CorotationalBeam2d {
            dofs: [node1, node1 + 1, node1 + 2, node2, node2 + 1, node2 + 2],
            l0,
            ea: p.young * p.area,
            phi,
            rho_a: p.density * p.area,
            rho_i: p.rho_i(),
            gravity,
            mass_axial: [[0.0; 2]; 2],
            mass_transverse: [[0.0; 4]; 4],
            mass_even: [0.0; 3],
            mass_odd: [0.0; 3],
            coupling_scale: p.density * p.area * l0 / 420.0,
            coupling_weights: [(21.0 + 17.5 * phi) / (1.0 + phi), (14.0 + 17.5 * phi) / (1.0 + phi)],
            damping: 0.0,
            axial_stiffness: p.young * p.area / l0,
            bending: bending_stiffness(ei, l0, phi),
            gravity_moment: p.density * p.area * l0 * l0 / 12.0,
        }
        .with_local_mass_constant()
    }

    /// Initial (undeformed) length l0 (m).
    pub fn initial_length(&self) -> f64 {
        self.l0
    }

    /// Mass per unit length A_rho (kg/m).
    pub fn mass_per_length(&self) -> f64 {
        self.rho_a
    }

    /// The same element without elastic stiffness (EA = EI = 0): its inertia and gravity
    /// alone, for checks of the inertial tangent and the gravity potential.
    pub fn without_stiffness(&self) -> Self {
        CorotationalBeam2d { ea: 0.0, axial_stiffness: 0.0, bending: [[0.0; 2]; 2], ..self.clone() }
    }

    /// The element with Kelvin-Voigt material damping `beta` (s, >= 0).
    pub fn with_damping(mut self, beta: f64) -> Self {
        self.damping = beta;
        self
    }

    /// Local consistent mass without its th_bar coupling: M_L1 + M_L2 at th_bar = 0 (eqs. 13-16),
    /// kept as its axial and transverse blocks (all its other entries are zero). With shear
    /// (phi > 0) the transverse block is that of the Timoshenko element's own fields (module
    /// documentation): the translational part rho A int N N^T and the rotary part
    /// rho I int P P^T of the section rotation (Przemieniecki 1968, Theory of Matrix Structural
    /// Analysis, sec. 11.5; Friedman & Kosmatka 1993, "An improved two-node Timoshenko beam
    /// finite element", Computers & Structures 47, eqs. 21-22); at phi = 0 they are paper 000's
    /// M_L2 and M_L1.
    fn with_local_mass_constant(mut self) -> Self {
        let (l, f) = (self.l0, self.phi);
        let d = (1.0 + f) * (1.0 + f);
        // Rotary inertia rho I int P P^T dx (M_L1 at phi = 0: rho I / (30 l) [36, 3 l, ...]).
        let a = self.rho_i / (d * l);
        let (r11, r12, r22, r24) = (
            1.2,
            (0.1 - 0.5 * f) * l,
            (2.0 / 15.0 + f / 6.0 + f * f / 3.0) * l * l,
            (-1.0 / 30.0 - f / 6.0 + f * f / 6.0) * l * l,
        );
        #[rustfmt::skip]
        let m1 = M6::from_row_slice(&[
            0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, r11, r12, 0.0, -r11, r12,
            0.0, r12, r22, 0.0, -r12, r24,
            0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, -r11, -r12, 0.0, r11, -r12,
            0.0, r12, r24, 0.0, -r12, r22,
        ]) * a;
        // Translations rho A int N N^T dx (M_L2 at phi = 0: rho A l / 420 [156, 22 l, ...]); the
        // axial part of the linear shapes.
        let b = self.coupling_scale;
        let t = 420.0 / d;
        let (t11, t12, t13, t14) = (
            t * (13.0 / 35.0 + 0.7 * f + f * f / 3.0),
            t * (11.0 / 210.0 + 11.0 * f / 120.0 + f * f / 24.0) * l,
            t * (9.0 / 70.0 + 0.3 * f + f * f / 6.0),
            t * (13.0 / 420.0 + 0.075 * f + f * f / 24.0) * l,
        );
        let (t22, t24) = (
            t * (1.0 / 105.0 + f / 60.0 + f * f / 120.0) * l * l,
            t * (1.0 / 140.0 + f / 60.0 + f * f / 120.0) * l * l,
        );
        #[rustfmt::skip]
        let m2 = M6::from_row_slice(&[
            140.0, 0.0, 0.0, 70.0, 0.0, 0.0,
            0.0, t11, t12, 0.0, t13, -t14,
            0.0, t12, t22, 0.0, t14, -t24,
            70.0, 0.0, 0.0, 140.0, 0.0, 0.0,
            0.0, t13, t14, 0.0, t11, -t12,
            0.0, -t14, -t24, 0.0, -t12, t22,
        ]) * b;
        let m = m1 + m2;
        self.mass_axial = AXIAL.map(|i| AXIAL.map(|j| m[(i, j)]));
        self.mass_transverse = TRANSVERSE.map(|i| TRANSVERSE.map(|j| m[(i, j)]));
        // The mirror (w1, th1, w2, th2) -> (w2, -th2, w1, -th1) maps the element onto itself,
        // so the transverse block T = [[A, B, C, D], [B, E, -D, F], [C, -D, A, -B], [D, F, -B, E]]
        // commutes with it and acts on the even part (w1 + w2, th1 - th2) by
        // P = [[A + C, B - D], [B - D, E - F]] and on the odd part (w1 - w2, th1 + th2) by
        // Q = [[A - C, B + D], [B + D, E + F]]: 8 products instead of 16.
        let t = &self.mass_transverse;
        let (a, b, c, d, e, f) = (t[0][0], t[0][1], t[0][2], t[0][3], t[1][1], t[1][3]);
        self.mass_even = [0.5 * (a + c), 0.5 * (b - d), 0.5 * (e - f)];
        self.mass_odd = [0.5 * (a - c), 0.5 * (b + d), 0.5 * (e + f)];
        self
    }

    /// The element's six values of a global vector: each node's (x, y, th) are consecutive.
    fn gather(&self, v: &[f64]) -> V6 {
        let (n1, n2) = (&v[self.dofs[0]..][..3], &v[self.dofs[3]..][..3]);
        V6::from([n1[0], n1[1], n1[2], n2[0], n2[1], n2[2]])
    }

    fn geometry(&self, q: &V6) -> Geometry {
        let (dx, dy) = (q[3] - q[0], q[4] - q[1]);
        let l = (dx * dx + dy * dy).sqrt();
        let inv_l = 1.0 / l;
        let (c, s) = (dx * inv_l, dy * inv_l);
        // beta continuous: the branch of atan2 nearest the mean section rotation (the branch
        // itself while within half a turn of it, without the call to round(), which is not
        // inlined on baseline x86_64: 2 % of a beam model's run).
        // libm's (the Rust port of musl's) atan2: within an ulp of the system's, and 30 % faster
        // than glibc's, which was 12 % of a 256-element pendulum's run (perf).
        let a = libm::atan2(dy, dx);
        let (tau, turn) = (std::f64::consts::TAU, 0.5 * (q[2] + q[5]) - a);
        let beta = if turn.abs() < std::f64::consts::PI { a } else { a + tau * (turn / tau).round() };
        Geometry { l, inv_l, c, s, thb: [q[2] - beta, q[5] - beta] }
    }

    /// The coefficients A_rho l0/420 (m1, m2) of eq. 16's coupling at th_bar:
    /// m1 = A th_bar1 - B th_bar2, m2 = B th_bar1 - A th_bar2 ((A, B) = (21, 14) in paper 000,
    /// `coupling_weights`). Linear, so at th_bar's
    /// rate they give dM_L/dt.
    fn coupling_coefficients(&self, thb: [f64; 2]) -> (f64, f64) {
        let (b, [wa, wb]) = (self.coupling_scale, self.coupling_weights);
        ((wa * thb[0] - wb * thb[1]) * b, (wb * thb[0] - wa * thb[1]) * b)
    }

    /// The coupling's (m1, m2) of dM_L/dth_bar1 and dM_L/dth_bar2 (eq. 16), without
    /// A_rho l0/420.
    fn coupling_derivatives(&self) -> [(f64, f64); 2] {
        let [wa, wb] = self.coupling_weights;
        [(wa, wb), (-wb, -wa)]
    }

    /// Local consistent mass M_L = M_L1 + M_L2 (eqs. 13-16) at th_bar (the tangent path).
    fn local_mass(&self, thb: [f64; 2]) -> M6 {
        let (m1, m2) = self.coupling_coefficients(thb);
        let mut m = Self::coupling(m1, m2);
        for (a, &i) in AXIAL.iter().enumerate() {
            for (b, &j) in AXIAL.iter().enumerate() {
                m[(i, j)] += self.mass_axial[a][b];
            }
        }
        for (a, &i) in TRANSVERSE.iter().enumerate() {
            for (b, &j) in TRANSVERSE.iter().enumerate() {
                m[(i, j)] += self.mass_transverse[a][b];
            }
        }
        m
    }

    /// M_L(th_bar) x (eqs. 13-16) without forming M_L: the axial 2 x 2 block and the
    /// transverse 4 x 4 block of the constant part, the latter by its even and odd parts
    /// (`mass_even`, `mass_odd`), plus the th_bar coupling of eq. 16 (8 non-zeros).
    #[inline(always)]
    fn local_mass_times(&self, thb: [f64; 2], x: &V6) -> V6 {
        let (m1, m2) = self.coupling_coefficients(thb);
        self.coupled_mass_times(m1, m2, x)
    }

    /// `local_mass_times` with the coupling's (m1, m2) (`coupling_coefficients`) given.
    #[inline(always)]
    fn coupled_mass_times(&self, m1: f64, m2: f64, x: &V6) -> V6 {
        let c = coupling_times(m1, m2, x);
        let a = &self.mass_axial;
        let ([p0, p1, p2], [q0, q1, q2]) = (self.mass_even, self.mass_odd);
        let (e0, e1) = (x[1] + x[4], x[2] - x[5]);
        let (o0, o1) = (x[1] - x[4], x[2] + x[5]);
        let (pe0, pe1) = (p0 * e0 + p1 * e1, p1 * e0 + p2 * e1);
        let (qo0, qo1) = (q0 * o0 + q1 * o1, q1 * o0 + q2 * o1);
        V6::from([
            c[0] + (a[0][0] * x[0] + a[0][1] * x[3]),
            c[1] + (pe0 + qo0),
            c[2] + (pe1 + qo1),
            c[3] + (a[1][0] * x[0] + a[1][1] * x[3]),
            c[4] + (pe0 - qo0),
            c[5] + (qo1 - pe1),
        ])
    }

    /// The th_bar-dependent part of eq. 15 for given (m1, m2) (eq. 16), without A_rho l0/420.
    fn coupling(m1: f64, m2: f64) -> M6 {
        let mut m = M6::zeros();
        m[(0, 1)] = m1;
        m[(0, 4)] = -m1;
        m[(3, 1)] = m2;
        m[(3, 4)] = -m2;
        m[(1, 0)] = m1;
        m[(4, 0)] = -m1;
        m[(1, 3)] = m2;
        m[(4, 3)] = -m2;
        m
    }

    /// Local elastic forces F_EL = (N, M1, M2).
    fn section_forces(&self, g: &Geometry) -> [f64; 3] {
        let kb = self.bending;
        let n = self.axial_stiffness * (g.l - self.l0);
        let m1 = kb[0][0] * g.thb[0] + kb[0][1] * g.thb[1];
        let m2 = kb[1][0] * g.thb[0] + kb[1][1] * g.thb[1];
        [n, m1, m2]
    }

    /// The rates of the local deformations d' = B v = (u_bar', th_bar1', th_bar2') from the
    /// chord-frame velocities T v (B's local rows b1, e_th_i - e_b, eq. 5).
    fn deformation_rates(g: &Geometry, tv: &V6) -> [f64; 3] {
        let betadot = (tv[4] - tv[1]) * g.inv_l;
        [tv[3] - tv[0], tv[2] - betadot, tv[5] - betadot]
    }

    /// Local damping forces F_DL = b K_L d' (Kelvin-Voigt).
    fn damping_forces(&self, rates: [f64; 3]) -> [f64; 3] {
        let kb = self.bending;
        let b = self.damping;
        [
            b * self.axial_stiffness * rates[0],
            b * (kb[0][0] * rates[1] + kb[0][1] * rates[2]),
            b * (kb[1][0] * rates[1] + kb[1][1] * rates[2]),
        ]
    }

    /// The power F_DL . d' of the material damping at (q, v), with the local deformations'
    /// rates d' over the step `stride` (`Element::power`; d = (l - l0, th_bar1, th_bar2)).
    pub fn damping_power(&self, q: &[f64], v: &[f64], stride: &Stride) -> f64 {
        let g = self.geometry(&self.gather(q));
        let f = self.damping_forces(Self::deformation_rates(&g, &rotate(g.c, g.s, &self.gather(v))));
        let rates = stride.rates(|q| {
            let g = self.geometry(&self.gather(q));
            [g.l, g.thb[0], g.thb[1]]
        });
        f[0] * rates[0] + f[1] * rates[1] + f[2] * rates[2]
    }

    /// Elastic force F_E = B^T F_EL (eq. 8) alone (the residual path: no tangent).
    pub fn elastic_force(&self, q: &[f64]) -> V6 {
        let g = self.geometry(&self.gather(q));
        rotate_transposed(g.c, g.s, &self.local_elastic_force(&g))
    }

    /// T F_E. The rows of B (eq. 5) are T^T times local rows: b1 = r = T^T (-1, 0, 0, 1, 0, 0),
    /// b2, b3 = e_th1, e_th2 - z/l with z = T^T (0, -1, 0, 0, 1, 0), so F_E = B^T F_EL =
    /// T^T (-N, (M1 + M2)/l, M1, N, -(M1 + M2)/l, M2).
    fn local_elastic_force(&self, g: &Geometry) -> V6 {
        local_force(self.section_forces(g), g.inv_l)
    }

    /// T (F_E + F_D): B^T of the elastic and damping section forces F_EL + F_DL, from the
    /// chord-frame velocities T v; F_E alone without damping.
    fn local_internal_force(&self, g: &Geometry, tv: &V6) -> V6 {
        if self.damping == 0.0 {
            return self.local_elastic_force(g);
        }
        let [n, m1, m2] = self.section_forces(g);
        let [nd, m1d, m2d] = self.damping_forces(Self::deformation_rates(g, tv));
        local_force([n + nd, m1 + m1d, m2 + m2d], g.inv_l)
    }

    /// The stress resultants (N, V, M) at the element's first and second node
    /// (src/mechanics/section_forces.rs): what the beam beyond the node exerts on the beam
    /// before it, in the chord axes. The node holds the element's end with the element's whole
    /// share of the equations of motion there, M_g a + F_I's quadratic part + F_E (+ damping) -
    /// its weight (`nodal_forces`) - `loads` (the generalized force of distributed loads on
    /// it): the end forces of beam theory (k u less the fixed-end loads), so a free end with no
    /// point load carries nothing, in motion too. At the second node that force is the
    /// section force; at the first node its negative (the element is then the part beyond).
    /// Without loads and inertia the chord components are (-N, (M1 + M2)/l, M1) and (N, -(M1 +
    /// M2)/l, M2) (`local_elastic_force`), so V = -(M1 + M2)/l and M = -M1, M2: under a
    /// constant moment th_bar = (-1, 1) kappa l/2, M1 = -EI kappa, M2 = EI kappa, and M = EI
    /// kappa at both ends.
    pub fn end_resultants(&self, x: &Kin, loads: &V6) -> [[f64; 3]; 2] {
        let (inertial, forces) = self.nodal_forces(x);
        let g = self.geometry(&self.gather(x.q));
        let local = rotate(g.c, g.s, &(inertial + forces - loads));
        [[-local[0], -local[1], -local[2]], [local[3], local[4], local[5]]]
    }

    /// Inertia force F_I (eq. 17) split into M_g a and the quadratic-velocity part, by
    /// products with vectors only (the residual path, evaluated every Newton iteration; see
    /// `local_inertia_force`). Equals `inertia(..).0, .1` (tested in tests/suite/beam_element.rs).
    pub fn inertia_force(&self, q: &[f64], v: &[f64], a: &[f64]) -> (V6, V6) {
        let g = self.geometry(&self.gather(q));
        let (tv, ta) = (rotate(g.c, g.s, &self.gather(v)), rotate(g.c, g.s, &self.gather(a)));
        let (ma, quad) = self.local_inertia_force(&g, &tv, &ta);
        (rotate_transposed(g.c, g.s, &ma), rotate_transposed(g.c, g.s, &quad))
    }

    /// T F_I (eq. 17), as T M_g a and T times the quadratic-velocity part, from T v and T a,
    /// without forming a matrix. With T, T' = dT/dbeta = J T (eq. 12) and M_L(th_bar)
    /// (eqs. 13-16), every M_j = dM_g/dp_j, p = (beta, th1, th2), is T^T (local) T:
    /// M_beta = T^T (J^T M_L + M_L J + dM_L/dbeta) T, M_i = T^T dM_L/dth_i T, and
    /// dM_L/dbeta = -(dM_L/dth1 + dM_L/dth2) since th_bar_i = th_i - beta. The gradients
    /// g_j = dp_j/dq are T^T of local ones too: g_beta = z/l = T^T (0, -1, 0, 0, 1, 0)/l, and T
    /// leaves the rotations, g_thi = e_thi. So in the local frame:
    /// * M_g a = T^T M_L (T a);
    /// * sum_j pdot_j M_j v = dM_g/dt v = T^T (betadot (J^T M_L + M_L J) + dM_L/dt) T v, with
    ///   dM_L/dt the coupling of eq. 16 at th_bar's rate;
    /// * v^T M_j v = (T v)^T (local M_j) (T v): (T v)^T (J^T M_L + M_L J) (T v) = 2 (J T v) . (M_L T v).
    fn local_inertia_force(&self, g: &Geometry, tv: &V6, ta: &V6) -> (V6, V6) {
        // pdot: betadot = z . v = ((T v)_w2 - (T v)_w1)/l (transverse velocities in the chord
        // frame), th_bar's rate = thdot - betadot.
        let betadot = (tv[4] - tv[1]) * g.inv_l;
        let thb_rate = [tv[2] - betadot, tv[5] - betadot];
        let (m1, m2) = self.coupling_coefficients(g.thb);
        let mtv = self.coupled_mass_times(m1, m2, tv);
        let jtv = turn(tv);
        let (m1_rate, m2_rate) = self.coupling_coefficients(thb_rate);
        let mut quad =
            (turn_back(&mtv) + self.coupled_mass_times(m1, m2, &jtv)) * betadot + coupling_times(m1_rate, m2_rate, tv);
        // (T v)^T dM_L/dth_i (T v) (eq. 16 differentiated) and (T v)^T (local M_beta) (T v).
        let (b, [d1, d2]) = (self.coupling_scale, self.coupling_derivatives());
        let vmv1 = coupling_form(d1.0, d1.1, tv) * b;
        let vmv2 = coupling_form(d2.0, d2.1, tv) * b;
        let vmvb = 2.0 * jtv.dot(&mtv) - (vmv1 + vmv2);
        // - 1/2 sum_j (v^T M_j v) g_j, local g_j.
        let vmvb_l = 0.5 * vmvb * g.inv_l;
        quad[1] += vmvb_l;
        quad[4] -= vmvb_l;
        quad[2] -= 0.5 * vmv1;
        quad[5] -= 0.5 * vmv2;
        (self.coupled_mass_times(m1, m2, ta), quad)
    }

    /// The tangent c_m M + c_d C + c_k K (eqs. 18-20 and the elastic tangent) in the chord
    /// frame: the element's block is T^T A T. Everything F = F_I + F_E depends on is local:
    /// F = T^T phi(T v, T a, l, th_bar), with phi = M_L(th_bar) (T a) + quad (T v) + T F_E and
    /// quad as in `local_inertia_force`. So with x = T v, y = T a (local), M = T^T M_L T,
    /// C = T^T (d quad/dx) T, and K = sum_p dF/dp (dp/dq)^T over p = (beta, l, th1, th2), whose
    /// gradients are T^T of local ones (e_b = (0, -1/l, 0, 0, 1/l, 0) for beta,
    /// b1 = (-1, 0, 0, 1, 0, 0) for l; T leaves e_th1, e_th2), with
    /// dF/dbeta = T^T (J^T phi + (d phi/dx) J x + M_L J y - d phi/dth_bar1 - d phi/dth_bar2)
    /// (dT/dbeta = J T; th_bar_i = th_i - beta). Linear in th_bar, M_L = M_0 + th_bar1 C_1 +
    /// th_bar2 C_2 (eq. 16), and written with S = J^T M_L + M_L J, the quadratic-velocity part is
    ///   quad = betadot S x + (rho1 C_1 + rho2 C_2) x - 1/2 (x^T S x - x^T C_1 x - x^T C_2 x) e_b
    ///          - 1/2 (x^T C_1 x) e_th1 - 1/2 (x^T C_2 x) e_th2,
    /// betadot = e_b . x, rho_i = x_thi - betadot (th_bar's rate); its derivatives below are
    /// those of this polynomial. About a tenth of the work of forming M_g's derivatives (the
    /// Newton matrix of a beam refreshed every few steps spent most of its time there).
    fn local_tangent(&self, g: &Geometry, x: &V6, y: &V6, k: &TangentCoefficients) -> M6 {
        let l = g.l;
        let ml = self.local_mass(g.thb);
        let b = self.coupling_scale;
        let cm = self.coupling_derivatives().map(|(m1, m2)| Self::coupling(m1, m2) * b); // dM_L/dth_bar_i
        let unit = |i: usize| V6::from_fn(|r, _| if r == i { 1.0 } else { 0.0 });
        let (e_th, b1) = ([unit(2), unit(5)], unit(3) - unit(0));
        let e_b = (unit(4) - unit(1)) / l;
        let betadot = e_b.dot(x);
        let rho = [x[2] - betadot, x[5] - betadot];
        // S = P + P^T with P = J^T M_L (turn_back of each column; M_L is symmetric).
        let mut p_mat = M6::zeros();
        for j in 0..6 {
            p_mat.set_column(j, &turn_back(&ml.column(j).into_owned()));
        }
        let s_mat = p_mat + p_mat.transpose();
        let jx = turn(x);
        let sx = s_mat * x;
        let p = [cm[0] * x, cm[1] * x];
        // d quad/dx.
        let mut d = s_mat * betadot + cm[0] * rho[0] + cm[1] * rho[1] + sx * e_b.transpose()
            - e_b * (sx - p[0] - p[1]).transpose();
        for i in 0..2 {
            d += p[i] * (e_th[i] - e_b).transpose() - e_th[i] * p[i].transpose();
        }
        // d phi/dth_bar_i (S_i = J^T C_i + C_i J; x^T S_i x = 2 (J x) . C_i x) and d phi/dl.
        let d_th: [V6; 2] =
            std::array::from_fn(|i| cm[i] * y + (turn_back(&p[i]) + cm[i] * jx) * betadot - e_b * jx.dot(&p[i]));
        let vmvb = x.dot(&sx) - x.dot(&p[0]) - x.dot(&p[1]);
        let d_l = ((p[0] + p[1] - sx) * betadot + e_b * (0.5 * vmvb)) / l;
        let (ma, quad) = self.local_inertia_force(g, x, y);
        let d_beta = turn_back(&(ma + quad)) + d * jx + ml * turn(y) - d_th[0] - d_th[1];
        let mut stiffness = d_beta * e_b.transpose() + d_l * b1.transpose();
        for i in 0..2 {
            stiffness += d_th[i] * e_th[i].transpose();
        }
        // The elastic part: B = (b1, e_th1 - e_b, e_th2 - e_b) locally (eq. 5), K_L, and the
        // terms of dB/dq: N l e_b e_b^T + (M1 + M2)/l (b1 e_b^T + e_b b1^T).
        let [n, m1, m2] = self.section_forces(g);
        let kb = self.bending;
        let bb = [e_th[0] - e_b, e_th[1] - e_b];
        stiffness += b1 * b1.transpose() * self.axial_stiffness
            + e_b * e_b.transpose() * (n * l)
            + (b1 * e_b.transpose() + e_b * b1.transpose()) * ((m1 + m2) / l);
        for i in 0..2 {
            for j in 0..2 {
                stiffness += bb[i] * bb[j].transpose() * kb[i][j];
            }
        }
        if self.damping != 0.0 {
            // Material damping (module documentation): C = b B^T K_L B, and dF_D/dq = the dB/dq
            // terms with F_DL + B^T b K_L d(d')/dq; B's and d(d')/dq's rows locally.
            let rates = Self::deformation_rates(g, x);
            let [nd, m1d, m2d] = self.damping_forces(rates);
            let b = self.damping;
            let rows = [b1, bb[0], bb[1]];
            let rate_th = e_b * (rates[0] / l) + b1 * (betadot / l);
            let rate_rows = [e_b * (betadot * l), rate_th, rate_th];
            let kl = [[self.axial_stiffness, 0.0, 0.0], [0.0, kb[0][0], kb[0][1]], [0.0, kb[1][0], kb[1][1]]];
            for i in 0..3 {
                for j in 0..3 {
                    if kl[i][j] != 0.0 {
                        d += rows[i] * rows[j].transpose() * (b * kl[i][j]);
                        stiffness += rows[i] * rate_rows[j].transpose() * (b * kl[i][j]);
                    }
                }
            }
            stiffness +=
                e_b * e_b.transpose() * (nd * l) + (b1 * e_b.transpose() + e_b * b1.transpose()) * ((m1d + m2d) / l);
        }
        ml * k.mass + d * k.damping + stiffness * k.stiffness
    }

    /// Strain energy 1/2 EA u_bar^2/l0 + 1/2 th_bar^T Kb th_bar.
    pub fn strain_energy(&self, q: &[f64]) -> f64 {
        self.strain_energy_at(&self.geometry(&self.gather(q)))
    }

    pub fn kinetic_energy(&self, q: &[f64], v: &[f64]) -> f64 {
        self.kinetic_energy_at(&self.geometry(&self.gather(q)), v)
    }

    fn strain_energy_at(&self, g: &Geometry) -> f64 {
        let kb = self.bending;
        let u = g.l - self.l0;
        let t = g.thb;
        0.5 * self.ea * u * u / self.l0
            + 0.5 * (kb[0][0] * t[0] * t[0] + 2.0 * kb[0][1] * t[0] * t[1] + kb[1][1] * t[1] * t[1])
    }

    /// 1/2 v^T M v with the consistent mass in the chord frame (eq. 12's T v).
    fn kinetic_energy_at(&self, g: &Geometry, v: &[f64]) -> f64 {
        let tv = rotate(g.c, g.s, &self.gather(v));
        0.5 * tv.dot(&self.local_mass_times(g.thb, &tv))
    }

    fn half_mass(&self) -> f64 {
        0.5 * self.rho_a * self.l0
    }

    /// The part of the gravity potential the cubic transverse field adds to the nodes' share
    /// -rho A l0 g . (x1 + x2) / 2 (`chord_load_potential` with the load rho A g): the end
    /// moments the consistent mass needs for a free fall without bending (with the nodal
    /// forces alone a falling free beam bent and a cantilever under its weight sagged
    /// 1/(3 n^2) too far; a probe written from the docs).
    fn cubic_gravity(&self, q: &V6, inv_l: f64) -> (f64, [f64; 2], f64) {
        chord_load_potential(self.gravity_moment, self.gravity, q, inv_l)
    }

    /// The Hessian of `cubic_gravity` over (x1, y1, th1, x2, y2, th2), added times `scale`.
    fn add_cubic_gravity_hessian(&self, q: &V6, scale: f64, block: &mut [f64]) {
        add_chord_load_hessian(self.gravity_moment, self.gravity, q, scale, block);
    }
}

/// The potential a uniform load mu f per unit length adds, through the element's cubic
/// transverse field, to its nodal share -mu l0 f . (x1 + x2) / 2, with c0 = mu l0^2 / 12
/// (gravity: mu = rho A, f = g; a distributed force: mu = 1, f in N/m): the load element at
/// x1 + xi d + w(xi) n, with the field of
/// the consistent mass, w = l0 (xi (1 - xi)^2 th_bar1 - xi^2 (1 - xi) th_bar2) along the chord
/// normal n = J d / l (eqs. 13-16), gives
///   V_c = -c0 (th1 - th2) (f . n) = -c0 D s / l,  s = a . d, a = J^T f
/// (th_bar1 - th_bar2 = th1 - th2). Its gradient is the consistent load: the end moments
/// +-c0 (f . n) of a uniform load. Returns V_c, dV_c/dd (d = x2 - x1) and dV_c/dth1
/// (= -dV_c/dth2), given the chord's 1 / l. Element coordinates q = (x1, y1, th1, x2, y2, th2).
pub(crate) fn chord_load_potential(c0: f64, f: [f64; 2], q: &V6, inv_l: f64) -> (f64, [f64; 2], f64) {
    let (d, dth) = ([q[3] - q[0], q[4] - q[1]], q[2] - q[5]);
    let a = [f[1], -f[0]];
    let s = a[0] * d[0] + a[1] * d[1];
    let inv_l3 = inv_l * inv_l * inv_l;
    let grad_d = [0, 1].map(|k| -c0 * dth * (a[k] * inv_l - s * d[k] * inv_l3));
    (-c0 * dth * s * inv_l, grad_d, -c0 * s * inv_l)
}

/// The Hessian of `chord_load_potential` over (x1, y1, th1, x2, y2, th2), added times `scale`
/// to the row-major 6 x 6 `block`.
pub(crate) fn add_chord_load_hessian(c0: f64, f: [f64; 2], q: &V6, scale: f64, block: &mut [f64]) {
    let (d, dth) = ([q[3] - q[0], q[4] - q[1]], q[2] - q[5]);
    let a = [f[1], -f[0]];
    let l = (d[0] * d[0] + d[1] * d[1]).sqrt();
    let s = a[0] * d[0] + a[1] * d[1];
    let (l3, l5) = (l * l * l, l * l * l * l * l);
    // d2V/dd2 = c0 D ((a d^T + d a^T + s I) / l^3 - 3 s d d^T / l^5); d2V/dd dth1 = -c0 (a / l - s d / l^3).
    let mut hdd = [[0.0; 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            let identity = if i == j { s } else { 0.0 };
            hdd[i][j] = c0 * dth * ((a[i] * d[j] + d[i] * a[j] + identity) / l3 - 3.0 * s * d[i] * d[j] / l5);
        }
    }
    let hdt = [0, 1].map(|k| -c0 * (a[k] / l - s * d[k] / l3));
    // d = x2 - x1: the x1 rows and columns take the sign -1; th2 takes -1 against th1.
    let position = [(0usize, -1.0), (3usize, 1.0)];
    let rotation = [(2usize, 1.0), (5usize, -1.0)];
    for &(p, sp) in &position {
        for &(r, sr) in &position {
            for i in 0..2 {
                for j in 0..2 {
                    block[6 * (p + i) + r + j] += scale * sp * sr * hdd[i][j];
                }
            }
        }
        for &(t, st) in &rotation {
            for i in 0..2 {
                block[6 * (p + i) + t] += scale * sp * st * hdt[i];
                block[6 * t + p + i] += scale * sp * st * hdt[i];
            }
        }
    }
}

impl CorotationalBeam2d {
    /// The tangent of everything but the weight's end moments (`add_cubic_gravity_hessian`):
    /// inertia, material damping and the elastic forces, T^T (local tangent) T.
    fn add_tangent_of(&self, x: &Kin, c: &TangentCoefficients, block: &mut [f64]) {
        let q = self.gather(x.q);
        let g = self.geometry(&q);
        let (tv, ta) = (rotate(g.c, g.s, &self.gather(x.v)), rotate(g.c, g.s, &self.gather(x.a)));
        let local = self.local_tangent(&g, &tv, &ta, c);
        // T^T A T: T^T on each column, then on each row.
        let mut left = M6::zeros();
        for j in 0..6 {
            left.set_column(j, &rotate_transposed(g.c, g.s, &local.column(j).into_owned()));
        }
        for i in 0..6 {
            let row = rotate_transposed(g.c, g.s, &left.row(i).transpose());
            for (b, r) in block[6 * i..][..6].iter_mut().zip(row.iter()) {
                *b += r;
            }
        }
    }
}

impl CorotationalBeam2d {
    /// The element's share of the equations of motion at its coordinates (x1, y1, th1, x2, y2,
    /// th2): M_g a, and the quadratic-velocity, elastic (and damping) forces less its weight
    /// (the nodes' shares and the cubic field's end moments).
    fn nodal_forces(&self, x: &Kin) -> (V6, V6) {
        let q = self.gather(x.q);
        let g = self.geometry(&q);
        let (c, s) = (g.c, g.s);
        let (tv, ta) = (rotate(c, s, &self.gather(x.v)), rotate(c, s, &self.gather(x.a)));
        let (ma, quad) = self.local_inertia_force(&g, &tv, &ta);
        // Quadratic-velocity and elastic forces summed in the chord frame, rotated once.
        let (ma, mut f) =
            (rotate_transposed(c, s, &ma), rotate_transposed(c, s, &(quad + self.local_internal_force(&g, &tv))));
        let m = self.half_mass();
        for k in [0, 3] {
            f[k] -= m * self.gravity[0];
            f[k + 1] -= m * self.gravity[1];
        }
        if self.gravity != [0.0; 2] {
            let (_, grad_d, grad_th) = self.cubic_gravity(&q, g.inv_l);
            for k in 0..2 {
                f[k] -= grad_d[k];
                f[3 + k] += grad_d[k];
            }
            f[2] += grad_th;
            f[5] -= grad_th;
        }
        (ma, f)
    }
}

impl Element for CorotationalBeam2d {
    /// Its nodes are one piece of the structure (`Element::TIES`).
    const TIES: bool = true;

    fn dofs(&self) -> &[usize] {
        &self.dofs
    }

    fn add_forces(&self, x: &Kin, inertial: &mut [f64], forces: &mut [f64]) {
        let (ma, f) = self.nodal_forces(x);
        scatter::<3>(&[self.dofs[0], self.dofs[3]], ma.as_slice(), f.as_slice(), inertial, forces);
    }

    fn add_tangent(&self, x: &Kin, c: &TangentCoefficients, block: &mut [f64]) {
        self.add_tangent_of(x, c, block);
        if self.gravity != [0.0; 2] && c.stiffness != 0.0 {
            self.add_cubic_gravity_hessian(&self.gather(x.q), c.stiffness, block);
        }
    }

    /// The tangent without the weight's load stiffness.
    fn add_strain_stiffness(&self, x: &Kin, block: &mut [f64]) {
        self.add_tangent_of(x, &TangentCoefficients { mass: 0.0, damping: 0.0, stiffness: 1.0, lambda: 0.0 }, block);
    }

    fn energy(&self, x: &Kin) -> Energy {
        let m = self.half_mass();
        let mut gravity = 0.0;
        for node in [0, 3] {
            gravity -= m * (self.gravity[0] * x.q[self.dofs[node]] + self.gravity[1] * x.q[self.dofs[node + 1]]);
        }
        let q = self.gather(x.q);
        let g = self.geometry(&q);
        if self.gravity != [0.0; 2] {
            gravity += self.cubic_gravity(&q, g.inv_l).0;
        }
        Energy { kinetic: self.kinetic_energy_at(&g, x.v), potential: self.strain_energy_at(&g) + gravity }
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
        EnergyFlow { dissipated: self.damping_power(x.q, x.v, stride), supplied: 0.0 }
    }

    /// The local mass M_L(th_bar) (eqs. 13-16) is exact to first order in the local section
    /// rotations th_bar: its coupling grows linearly with them while the rest stays, and
    /// beyond about a radian (depending on the section) M_L is no longer positive definite,
    /// the kinetic energy of some motion negative. Every method then fails within a few steps
    /// (a 4-element soft pendulum whipping at t = 2.79 s, th_bar = (1.5, -2.0) rad).
    fn outside_formulation(&self, q: &[f64]) -> Option<String> {
        let thb = self.geometry(&self.gather(q)).thb;
        if self.local_mass(thb).cholesky().is_some() {
            return None;
        }
        Some(format!(
            "its sections are turned {:.2} and {:.2} rad against its chord, beyond the small local rotations the \
             corotational element is written for (its local bending is linear in them, which only a constant \
             moment keeps exact, and its consistent mass, Ji et al. 2025, eqs. 13-16, is no longer positive \
             definite there); more elements keep them small",
            thb[0], thb[1]
        ))
    }
}

/// The local bending stiffness of the Timoshenko element (w1 = w2 = 0), [M1, M2] = Kb
/// [thb1, thb2], for EI, l0 and the shear parameter phi.
fn bending_stiffness(ei: f64, l0: f64, phi: f64) -> [[f64; 2]; 2] {
    let f = ei / (l0 * (1.0 + phi));
    let (d, o) = (f * (4.0 + phi), f * (2.0 - phi));
    [[d, o], [o, d]]
}

/// B^T F_L in the chord frame for section forces F_L = (N, M1, M2) (eq. 8): see
/// `local_elastic_force`.
/// `inv_l` = 1 / l.
fn local_force([n, m1, m2]: [f64; 3], inv_l: f64) -> V6 {
    let shear = (m1 + m2) * inv_l;
    V6::from([-n, shear, m1, n, -shear, m2])
}

// T (eq. 12) rotates each node's translation into the chord frame and leaves its rotation:
// its products written out, the zeros of the 6 x 6 matrices skipped (same sums, same order).

/// T x.
fn rotate(c: f64, s: f64, x: &V6) -> V6 {
    V6::from([c * x[0] + s * x[1], c * x[1] - s * x[0], x[2], c * x[3] + s * x[4], c * x[4] - s * x[3], x[5]])
}

/// T^T x.
fn rotate_transposed(c: f64, s: f64, x: &V6) -> V6 {
    V6::from([c * x[0] - s * x[1], s * x[0] + c * x[1], x[2], c * x[3] - s * x[4], s * x[3] + c * x[4], x[5]])
}

/// J x, with dT/dbeta = J T (eq. 12 differentiated): J = diag(W, 0, W, 0), W = [[0, 1], [-1, 0]].
fn turn(x: &V6) -> V6 {
    V6::from([x[1], -x[0], 0.0, x[4], -x[3], 0.0])
}

/// J^T x, so that (dT/dbeta)^T x = T^T J^T x.
fn turn_back(x: &V6) -> V6 {
    V6::from([-x[1], x[0], 0.0, -x[4], x[3], 0.0])
}

/// `CorotationalBeam2d::coupling(m1, m2) x` without the matrix.
fn coupling_times(m1: f64, m2: f64, x: &V6) -> V6 {
    V6::from([m1 * x[1] - m1 * x[4], m1 * x[0] + m2 * x[3], 0.0, m2 * x[1] - m2 * x[4], -(m1 * x[0] + m2 * x[3]), 0.0])
}

/// x^T `CorotationalBeam2d::coupling(m1, m2)` x = 2 (m1 x[0] + m2 x[3]) (x[1] - x[4]).
fn coupling_form(m1: f64, m2: f64, x: &V6) -> f64 {
    2.0 * (m1 * x[0] + m2 * x[3]) * (x[1] - x[4])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mass products of the residual (`local_mass_times`: the transverse block by its even
    /// and odd parts) equal the formed local mass M_L(th_bar) times the vector to round-off,
    /// for Euler-Bernoulli and Timoshenko elements and a rotary inertia given apart.
    #[test]
    fn the_mass_product_by_mirror_parts_equals_the_formed_local_mass() {
        let base = BeamProperties {
            young: 2.1e11,
            shear: 8.1e10,
            area: 0.01,
            inertia: 2e-5,
            shear_factor: Some(0.85),
            density: 7850.0,
            rotary_inertia: None,
        };
        let variants =
            [base, BeamProperties { shear_factor: None, ..base }, BeamProperties { rotary_inertia: Some(3.0), ..base }];
        for p in variants {
            let e = CorotationalBeam2d::new(0, 3, 0.37, &p, [0.0, -9.81]);
            for k in 0..5 {
                let f = k as f64;
                let thb = [0.1 * f - 0.2, 0.3 - 0.13 * f];
                let x = V6::from_fn(|i, _| ((i as f64 + 1.0) * (f + 0.7)).sin());
                let (fast, formed) = (e.local_mass_times(thb, &x), e.local_mass(thb) * x);
                let scale = formed.amax();
                assert!((fast - formed).amax() <= 1e-14 * scale, "{fast} against {formed}");
            }
        }
    }

    /// `outside_formulation` says the local mass has left positive definiteness exactly where
    /// its smallest eigenvalue turns negative: over a grid of local rotations for the soft
    /// pendulum's element (models/pendulum_corotational.toml, 4 elements: l = 0.3 m) and a
    /// slender Euler-Bernoulli one. Straight (th_bar = 0) it holds.
    #[test]
    fn the_formulation_ends_where_the_local_mass_loses_positive_definiteness() {
        let (e, nu, b, h) = (1.0e7, 0.3, 0.015, 0.01);
        let soft = BeamProperties {
            young: e,
            shear: e / (2.0 * (1.0 + nu)),
            area: b * h,
            inertia: b * h * h * h / 12.0,
            shear_factor: Some(BeamProperties::rectangle_shear_factor(nu)),
            density: 5540.0,
            rotary_inertia: None,
        };
        let slender = BeamProperties { shear_factor: None, inertia: 1e-3 * soft.inertia, ..soft };
        let (mut inside, mut outside) = (0, 0);
        for (p, l) in [(soft, 0.3), (slender, 1.0)] {
            let element = CorotationalBeam2d::new(0, 3, l, &p, [0.0, 0.0]);
            let at = |t1: f64, t2: f64| {
                let q = [0.0, 0.0, t1, l, 0.0, t2];
                (element.outside_formulation(&q), element.local_mass([t1, t2]).symmetric_eigenvalues().min())
            };
            assert!(at(0.0, 0.0).0.is_none());
            for i in -12..=12 {
                for j in -12..=12 {
                    let (t1, t2) = (0.2 * i as f64, 0.2 * j as f64);
                    let (why, smallest) = at(t1, t2);
                    assert_eq!(
                        why.is_some(),
                        smallest < 0.0,
                        "th_bar = ({t1}, {t2}): smallest eigenvalue {smallest:e}"
                    );
                    if why.is_some() { outside += 1 } else { inside += 1 }
                }
            }
        }
        // Both sides of the boundary are on the grid.
        assert!(inside > 50 && outside > 50, "{inside} inside, {outside} outside");
    }
}
