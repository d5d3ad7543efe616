//! Three-node shear-deformable planar ANCF beam element (paper 003, section 1, after
//! García-Vallejo et al.).
//!
//! * Kinematics (003 eqs. 1-3): r(x, y) = S(x, y) e with the incomplete quadratic-in-x,
//!   linear-in-y polynomial, i.e. r = sum_m N_m(xi) (r_m + y d_m), xi = x/l, with
//!   N_1 = 1 - 3 xi + 2 xi^2 (start), N_2 = 4 (xi - xi^2) (middle), N_3 = -xi + 2 xi^2 (end).
//!   Each node carries e_m = (r_m, d_m), d_m = dr/dy the slope across the section ("director"),
//!   12 coordinates per element, ordered start, middle, end as in eq. 3 (eq. 23 confirms that
//!   e5..e8 is the middle node: dr/dx(0) = (-3 r_i + 4 r_j - r_k)/l).
//!   The section angle follows from the slope (eq. 4): d = |d| (-sin theta, cos theta).
//! * Mass (eq. 5): M_e = int rho S^T S dV is constant: rho A int N N^T dx on the positions and
//!   I_rho int N N^T dx on the slopes (int y dA = 0), I_rho = int rho y^2 dA the section's
//!   rotary inertia per length (rho I, or `BeamProperties::rotary_inertia` when given apart
//!   from the stiffness). Hence no quadratic-velocity forces.
//! * Elastic forces (eq. 5, "from continuum mechanics"): the Green-Lagrange strains of the
//!   field r(x, y) split into the structural measures at the axis y = 0
//!   axial      eps   = (r_x . r_x - 1)/2          (E_xx at y = 0)
//!   shear      gamma = r_x . d                    (2 E_xy at y = 0)
//!   bending    kappa = -r_x . d_x                 (dE_xx/dy at y = 0)
//!   thickness  eps_y = (d . d - 1)/2              (E_yy)
//!   with U = int 1/2 (EA eps^2 + k G A gamma^2 + EI kappa^2 + EA eps_y^2) dx (the y^2 terms of
//!   E_xx^2 dropped, Poisson coupling between E_xx and E_yy dropped: that coupling is what
//!   causes Poisson/thickness locking of the plain continuum element; the shear correction
//!   factor k restores Timoshenko's shear stiffness). Paper 003 only names the element as
//!   "locking-free" (after García-Vallejo) without printing its strain energy; this is the
//!   locking-free structural split of the same Green-Lagrange strains (as in Nachbagauer,
//!   Pechstein, Irschik, Gerstmayr 2011 for this element): axial and shear terms are
//!   integrated with 2 Gauss points (reduced, selective integration: removes shear and
//!   membrane locking of the quadratic interpolation), bending and thickness terms with 3
//!   (full; 2 points would leave a zero-energy director-stretch mode). The 2-point shear
//!   rule leaves no spurious mode: gamma ~ w' - theta with w' linear and theta constant
//!   (kappa = 0) vanishing at two points vanishes everywhere.
//!   Every measure is a quadratic form s = 1/2 e^T H e + c with constant H, so the force is
//!   sum w k s H e and the exact tangent sum w k ((H e)(H e)^T + s H). The invariant-matrix
//!   idea of 003 eqs. 18-21 (constant matrices, quadratic dependence on q) is the same
//!   structure: here the invariant matrices are the H of each measure and Gauss point.
//! * Gravity: distributed, Q = int rho S^T g dV = rho A l (1/6, 2/3, 1/6) g on the positions;
//!   potential -Q . r, exact.
//! * Material damping (Kelvin-Voigt, sigma = E (eps + b eps'), b = `damping` in s): every
//!   measure's stress resultant k s becomes k (s + b s'), s' = (H e) . e', so the damping force
//!   is sum w k b s' H e, with the exact tangents C = sum w k b (H e)(H e)^T and
//!   dF_D/de = sum w k b ((H e)(H e')^T + s' H), and the dissipated power sum w k b s'^2 >= 0.
//!   The Green-Lagrange measures are invariant under rigid motions, so s' = 0 for any
//!   translation and rotation of the element: rigid motion is not damped.

use super::{BeamProperties, Element, Energy, Kin, scatter};
use crate::integrators::{EnergyFlow, Stride, TangentCoefficients};
use nalgebra::{SMatrix, SVector};

pub type M12 = SMatrix<f64, 12, 12>;
pub type V12 = SVector<f64, 12>;

/// Quadratic shape functions N_m(xi) (start, middle, end) and dN_m/dxi.
fn shape(xi: f64) -> ([f64; 3], [f64; 3]) {
    (
        [1.0 - 3.0 * xi + 2.0 * xi * xi, 4.0 * (xi - xi * xi), -xi + 2.0 * xi * xi],
        [-3.0 + 4.0 * xi, 4.0 - 8.0 * xi, -1.0 + 4.0 * xi],
    )
}

/// Gauss-Legendre points and weights on [0, 1].
fn gauss(points: usize) -> Vec<(f64, f64)> {
    match points {
        2 => {
            let a = 0.5 / 3f64.sqrt();
            vec![(0.5 - a, 0.5), (0.5 + a, 0.5)]
        }
        _ => {
            let a = 0.5 * 0.6f64.sqrt();
            vec![(0.5 - a, 5.0 / 18.0), (0.5, 8.0 / 18.0), (0.5 + a, 5.0 / 18.0)]
        }
    }
}

/// One strain measure at one integration point: s = 1/2 e^T H e + c, energy 1/2 k s^2, kept in
/// the factored form s = alpha (A e) . (B e) + c, H = alpha (A^T B + B^T A), with A, B the 2 x 12
/// interpolations of r_x, d or d_x. Formed as a 12 x 12 matrix, H e summed terms of the size
/// |e| / l^2 (absolute coordinates over a short element) down to |r_x| / l, and e . H e lost
/// digits to about eps |e|^2 / l^2: on a probe's 200-element steel cantilever the forces
/// wandered by 2e-3 N from one Newton iteration to the next at increments of 1e-14 (10 N at
/// the tip), and no step converged. A e = r_x loses only eps |e| / l.
#[derive(Debug, Clone, PartialEq)]
struct StrainPoint {
    /// Gauss weight x element length x section stiffness.
    k: f64,
    alpha: f64,
    a: SMatrix<f64, 2, 12>,
    b: SMatrix<f64, 2, 12>,
    c: f64,
}

impl StrainPoint {
    /// s and its gradient H e.
    fn value(&self, e: &V12) -> (f64, V12) {
        let (ae, be) = (self.a * e, self.b * e);
        (self.alpha * ae.dot(&be) + self.c, (self.a.transpose() * be + self.b.transpose() * ae) * self.alpha)
    }

    /// H x.
    fn times(&self, x: &V12) -> V12 {
        (self.a.transpose() * (self.b * x) + self.b.transpose() * (self.a * x)) * self.alpha
    }

    /// The constant Hessian H.
    fn hessian(&self) -> M12 {
        (self.a.transpose() * self.b + self.b.transpose() * self.a) * self.alpha
    }
}

/// 2 x 12 interpolation of the axis tangent r_x, the slope d or its derivative d_x.
fn interpolation(weights: [f64; 3], slope: bool) -> SMatrix<f64, 2, 12> {
    let mut s = SMatrix::<f64, 2, 12>::zeros();
    let off = if slope { 2 } else { 0 };
    for (m, w) in weights.iter().enumerate() {
        s[(0, 4 * m + off)] = *w;
        s[(1, 4 * m + off + 1)] = *w;
    }
    s
}

#[derive(Debug, Clone, PartialEq)]
pub struct AncfBeam2d {
    /// Start node (r, d), middle node, end node: 4 consecutive coordinates each.
    dofs: [usize; 12],
    /// Undeformed length.
    pub l0: f64,
    pub rho_a: f64,
    pub rho_i: f64,
    pub gravity: [f64; 2],
    strains: Vec<StrainPoint>,
    mass: M12,
    /// Kelvin-Voigt material damping b (s) on every strain measure; 0 = none.
    pub damping: f64,
}

impl AncfBeam2d {
    /// `nodes`: first coordinate of the start, middle and end node. The element is always
    /// shear deformable: `shear_factor = None` means k = 1.
    pub fn new(nodes: [usize; 3], l0: f64, p: &BeamProperties, gravity: [f64; 2]) -> Self {
        let ea = p.young * p.area;
        let kga = p.shear_factor.unwrap_or(1.0) * p.shear * p.area;
        let ei = p.young * p.inertia;
        let (rho_a, rho_i) = (p.density * p.area, p.rho_i());
        let dofs = std::array::from_fn(|i| nodes[i / 4] + i % 4);
        let mut strains = Vec::new();
        for (xi, w) in gauss(2) {
            let (n, dn) = shape(xi);
            let sx = interpolation(dn.map(|v| v / l0), false);
            let sd = interpolation(n, true);
            // eps = (r_x.r_x - 1)/2, gamma = r_x.d
            strains.push(StrainPoint { k: w * l0 * ea, alpha: 0.5, a: sx, b: sx, c: -0.5 });
            strains.push(StrainPoint { k: w * l0 * kga, alpha: 1.0, a: sx, b: sd, c: 0.0 });
        }
        for (xi, w) in gauss(3) {
            let (n, dn) = shape(xi);
            let sx = interpolation(dn.map(|v| v / l0), false);
            let sd = interpolation(n, true);
            let sdx = interpolation(dn.map(|v| v / l0), true);
            // kappa = -r_x.d_x, eps_y = (d.d - 1)/2
            strains.push(StrainPoint { k: w * l0 * ei, alpha: -1.0, a: sx, b: sdx, c: 0.0 });
            strains.push(StrainPoint { k: w * l0 * ea, alpha: 0.5, a: sd, b: sd, c: -0.5 });
        }
        // int_0^1 N_m N_n dxi = [[4, 2, -1], [2, 16, 2], [-1, 2, 4]] / 30 (003 eq. 5)
        let nn = [[4.0, 2.0, -1.0], [2.0, 16.0, 2.0], [-1.0, 2.0, 4.0]];
        let mut mass = M12::zeros();
        for a in 0..3 {
            for b in 0..3 {
                let f = nn[a][b] * l0 / 30.0;
                for k in 0..2 {
                    mass[(4 * a + k, 4 * b + k)] = rho_a * f;
                    mass[(4 * a + 2 + k, 4 * b + 2 + k)] = rho_i * f;
                }
            }
        }
        AncfBeam2d { dofs, l0, rho_a, rho_i, gravity, strains, mass, damping: 0.0 }
    }

    /// The element with Kelvin-Voigt material damping `beta` (s, >= 0).
    pub fn with_damping(mut self, beta: f64) -> Self {
        self.damping = beta;
        self
    }

    fn gather(&self, v: &[f64]) -> V12 {
        V12::from_fn(|i, _| v[self.dofs[i]])
    }

    /// The constant mass matrix (003 eq. 5).
    pub fn mass_matrix(&self) -> &M12 {
        &self.mass
    }

    /// Elastic force F_e = dU/de (003 eq. 5) and its exact tangent dF_e/de.
    pub fn elastic_force_and_tangent(&self, q: &[f64]) -> (V12, M12) {
        let e = self.gather(q);
        let mut f = V12::zeros();
        let mut k = M12::zeros();
        for p in &self.strains {
            let (s, he) = p.value(&e);
            f += he * (p.k * s);
            k += (he * he.transpose()) * p.k + p.hessian() * (p.k * s);
        }
        (f, k)
    }

    pub fn elastic_force(&self, q: &[f64]) -> V12 {
        let e = self.gather(q);
        let mut f = V12::zeros();
        for p in &self.strains {
            let (s, he) = p.value(&e);
            f += he * (p.k * s);
        }
        f
    }

    /// Elastic and damping force sum w k (s + b s') H e at the coordinates `q` and rates `v`.
    pub fn internal_force(&self, q: &[f64], v: &[f64]) -> V12 {
        let (e, ed) = (self.gather(q), self.gather(v));
        let mut f = V12::zeros();
        for p in &self.strains {
            let (s, he) = p.value(&e);
            f += he * (p.k * (s + self.damping * he.dot(&ed)));
        }
        f
    }

    /// The stress resultants (N, V, M) at the element's start and end node
    /// (src/mechanics/section_forces.rs): what the beam beyond the node exerts on the beam
    /// before it. The node holds the element's end with the element's share of the equations
    /// of motion there (`nodal_forces`: M a + the internal forces - its weight) less `loads`
    /// (distributed loads on it): at the end node the force Q_r and the moment (d x Q_d)_z (the
    /// work of Q_d on a turn of the slope, delta d = delta theta z x d), at the start node their
    /// negatives. The force is resolved along the section's axes at the node, t = (d_y,
    /// -d_x)/|d| (along the axis of an unsheared section) and n = d/|d|.
    pub fn end_resultants(&self, x: &Kin, loads: &V12) -> [[f64; 3]; 2] {
        let (ma, f) = self.nodal_forces(x);
        let f = ma + f - loads;
        let e = self.gather(x.q);
        let at = |node: usize, sign: f64| {
            let (r, d) = (4 * node, 4 * node + 2);
            let (force, turn) = ([f[r], f[r + 1]], [f[d], f[d + 1]]);
            let slope = [e[d], e[d + 1]];
            let size = slope[0].hypot(slope[1]);
            let (t, n) = ([slope[1] / size, -slope[0] / size], [slope[0] / size, slope[1] / size]);
            [
                sign * (force[0] * t[0] + force[1] * t[1]),
                sign * (force[0] * n[0] + force[1] * n[1]),
                sign * (slope[0] * turn[1] - slope[1] * turn[0]),
            ]
        };
        [at(0, -1.0), at(2, 1.0)]
    }

    /// The element's share of the equations of motion at its 12 coordinates: M a, and the
    /// internal (elastic and damping) forces less its weight.
    fn nodal_forces(&self, x: &Kin) -> (V12, V12) {
        let mut f = if self.damping == 0.0 { self.elastic_force(x.q) } else { self.internal_force(x.q, x.v) };
        for (m, w) in self.weight_share().iter().enumerate() {
            f[4 * m] -= w * self.gravity[0];
            f[4 * m + 1] -= w * self.gravity[1];
        }
        (self.mass * self.gather(x.a), f)
    }

    /// The damping tangents at (q, v): dF_D/de and C = dF_D/de' (module documentation).
    pub fn damping_tangents(&self, q: &[f64], v: &[f64]) -> (M12, M12) {
        let (e, ed) = (self.gather(q), self.gather(v));
        let (mut k, mut c) = (M12::zeros(), M12::zeros());
        for p in &self.strains {
            let (he, hed) = (p.times(&e), p.times(&ed));
            let kb = p.k * self.damping;
            k += (he * hed.transpose()) * kb + p.hessian() * (kb * he.dot(&ed));
            c += (he * he.transpose()) * kb;
        }
        (k, c)
    }

    /// The power the material damping dissipates, sum w k b s'(v) times each strain's rate
    /// over the step `stride` (`Element::power`).
    pub fn damping_power(&self, q: &[f64], v: &[f64], stride: &Stride) -> f64 {
        let (e, ed) = (self.gather(q), self.gather(v));
        let (e0, e1) = (self.gather(stride.start), self.gather(stride.end));
        let rate = |p: &StrainPoint| (p.value(&e1).0 - p.value(&e0).0) / stride.h;
        self.strains.iter().map(|p| p.k * self.damping * p.times(&e).dot(&ed) * rate(p)).sum()
    }

    pub fn strain_energy(&self, q: &[f64]) -> f64 {
        let e = self.gather(q);
        self.strains.iter().map(|p| 0.5 * p.k * p.value(&e).0.powi(2)).sum()
    }

    pub fn kinetic_energy(&self, v: &[f64]) -> f64 {
        let v = self.gather(v);
        0.5 * v.dot(&(self.mass * v))
    }

    /// Consistent nodal weights of the distributed weight: rho A l (1/6, 2/3, 1/6).
    fn weight_share(&self) -> [f64; 3] {
        let m = self.rho_a * self.l0;
        [m / 6.0, 2.0 * m / 3.0, m / 6.0]
    }
}

impl Element for AncfBeam2d {
    /// Its nodes are one piece of the structure (`Element::TIES`).
    const TIES: bool = true;

    fn dofs(&self) -> &[usize] {
        &self.dofs
    }

    fn add_forces(&self, x: &Kin, inertial: &mut [f64], forces: &mut [f64]) {
        let (ma, f) = self.nodal_forces(x);
        scatter::<4>(&[self.dofs[0], self.dofs[4], self.dofs[8]], ma.as_slice(), f.as_slice(), inertial, forces);
    }

    fn add_tangent(&self, x: &Kin, c: &TangentCoefficients, block: &mut [f64]) {
        let (_, ke) = self.elastic_force_and_tangent(x.q);
        let mut total = self.mass * c.mass + ke * c.stiffness;
        if self.damping != 0.0 {
            let (kd, cd) = self.damping_tangents(x.q, x.v);
            total += kd * c.stiffness + cd * c.damping;
        }
        for i in 0..12 {
            for j in 0..12 {
                block[12 * i + j] += total[(i, j)];
            }
        }
    }

    fn energy(&self, x: &Kin) -> Energy {
        let mut gravity = 0.0;
        for (m, w) in self.weight_share().iter().enumerate() {
            gravity -= w * (self.gravity[0] * x.q[self.dofs[4 * m]] + self.gravity[1] * x.q[self.dofs[4 * m + 1]]);
        }
        Energy { kinetic: self.kinetic_energy(x.v), potential: self.strain_energy(x.q) + gravity }
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
}
