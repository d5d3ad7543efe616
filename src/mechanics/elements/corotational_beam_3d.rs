//! Corotational spatial beam element (Crisfield 1990, "A consistent co-rotational formulation
//! for non-linear, three-dimensional, beam-elements", CMAME 81; element frame of Battini &
//! Pacoste 2002, "Co-rotational beam elements with warping effects in instability problems",
//! CMAME 191, sec. 3.1).
//!
//! Coordinates: per node its position r (3) and Euler parameters p (4), the layout of a
//! spatial rigid body, so joints, loads, springs and outputs attach to nodes unchanged (a
//! node is a frame; its p carries the normalisation row p.p = 1 like a body's). Euler
//! parameters are additive coordinates, which the integrators require; a rotation vector
//! would need multiplicative updates.
//!
//! Kinematics. T_i = R(p_i) C_i is node i's triad carried into the element: R(p) =
//! A(p)/(p.p) (the rotation of p, exact also off p.p = 1, so the energy does not depend on
//! |p|), C_i = R(p_i0)^T E_0 constant, so T_i = E_0 at rest. The element frame E = [e1 e2 e3]
//! (Battini & Pacoste eqs. 12-14): e1 = (x2 - x1)/l, q = (T_1 + T_2) e_y / 2,
//! e3 = e1 x q / |e1 x q|, e2 = e3 x e1. The local deformational rotations are the rotation
//! vectors theta_i = log(E^T T_i) (zero for every rigid motion), and u = l - l0.
//!
//! Strain energy: a linear element in the frame (Crisfield 1990 sec. 2),
//!   U = EA u^2 / (2 l0) + GJ (theta_2x - theta_1x)^2 / (2 l0)
//!     + sum over (y, z) of 1/2 [theta_1, theta_2] K_b [theta_1, theta_2]^T,
//!   K_b = EI / (l0 (1 + phi)) [[4 + phi, 2 - phi], [2 - phi, 4 + phi]],
//! phi = 12 EI / (k G A l0^2) (Timoshenko, Przemieniecki 1968 ch. 5) or 0 (Euler-Bernoulli):
//! in a plane this is exactly the planar element of `corotational_beam_2d.rs` (there
//! theta_i = th_i - beta). So U = 1/2 d^T K d over d = (u, theta_1, theta_2) with the constant
//! local stiffness K (7 x 7), the local forces are f = K d, and the internal force and tangent
//! are the gradient and Hessian of U in closed form (`corotational_derivatives_3d.rs`): exact to
//! rounding (checked there against automatic differentiation of `strain_energy`, and against
//! central differences in tests/suite/beam3d.rs).
//!
//! Mass: the translational inertia and the gravity of the centre line interpolated with the
//! cubics of the local linear element (`corotational_center_line_3d.rs`; Le, Battini &
//! Hjiaj 2014), so the bending frequencies converge as O(h^4) in the element size, and the
//! section rotary inertia lumped at the nodes: each node gets l0/2 of rho diag(Iy + Iz, Iy, Iz)
//! (element axes, turned into the node frame by C_i), with the exact Euler-parameter inertia
//! terms of a spatial rigid body (`RigidBody3d` with zero mass: 4 G^T J' G p'' - 8 G(p')^T
//! J' G(p') p).
//!
//! Material damping (Kelvin-Voigt, sigma = E (eps + b eps'), b = `damping` in s, the
//! stiffness-proportional "Rayleigh beta" damping with modal damping ratio b omega / 2): the
//! local forces become f = K (d + b d') with d' = B q' the rates of the deformations
//! (B = dd/dq), so the internal force is B^T K (d + b d') (`elastic_force` is B^T of any local
//! forces). d is invariant under rigid motions (Crisfield 1990; Battini & Pacoste 2002), so
//! d' = 0 for any translation and rotation of the element and rigid motion is not damped. d'
//! comes from one evaluation of d on dual numbers along q'. The tangents: C = b B^T K B and
//! dF/dq = (the closed-form Hessian terms of `elastic_stiffness` with the local forces
//! K (d + b d')) + B^T b K B', B' = d(B q')/dq = d2d/dq2 [q', .], exact from 14 hyper-dual
//! evaluations of d seeded with q' and each coordinate (the element's whole tangent took 17 us
//! instead of 5.4 us undamped, its force 1.05 us instead of 0.58 us; only damped beams pay
//! it). Dissipated power b d'^T K d' >= 0.

use super::corotational_center_line_3d::CenterLine;
use super::corotational_derivatives_3d::{elastic_force, elastic_stiffness};
use super::{Element, Energy, Kin, RigidBody3d, scatter};
use crate::integrators::{EnergyFlow, Stride, TangentCoefficients};
use crate::mechanics::dual::Dual;
use crate::mechanics::euler_parameters::{Mat3, e_matrix, rotation};
use crate::mechanics::hyper_dual::{HyperDual, Real};
use crate::mechanics::motion_jet::MotionJet;

/// Section, material and formulation of a spatial beam (element axes x along the beam, y, z).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpatialBeamProperties {
    /// Young's modulus (Pa).
    pub young: f64,
    /// Shear modulus (Pa).
    pub shear: f64,
    /// Cross-section area (m^2).
    pub area: f64,
    /// Second moment of area about the section's y axis (bending in the x-z plane) (m^4).
    pub iy: f64,
    /// Second moment of area about the section's z axis (bending in the x-y plane) (m^4).
    pub iz: f64,
    /// Torsion constant J (Saint-Venant) (m^4).
    pub torsion: f64,
    /// Shear correction factors [k_y, k_z] for shear along the section's y axis (bending about
    /// z, with Iz) and along its z axis (bending about y, with Iy); equal for a section given by
    /// its geometry. `None` = Euler-Bernoulli (phi = 0).
    pub shear_factor: Option<[f64; 2]>,
    /// Mass per unit length rho A (kg/m).
    pub mass_per_length: f64,
    /// Mass moments of inertia per unit length about the section's x (polar), y and z axes
    /// (kg m): rho (Iy + Iz, Iy, Iz) for a homogeneous section.
    pub rotary_inertia: [f64; 3],
}

impl SpatialBeamProperties {
    /// A section given by its stress resultants: axial stiffness `ea` = E A (N), effective shear
    /// stiffnesses `ga` = [k G A along y, along z] (N; `None`: Euler-Bernoulli), bending
    /// stiffnesses `ei` = [E Iy, E Iz] (N m^2), torsional stiffness `gj` = G J (N m^2), mass and
    /// rotary inertia per unit length (kg/m; kg m about the section's x, y, z axes). Carried as
    /// unit moduli, E = G = 1, so that A, Iy, Iz and J hold the resultants exactly; the shear
    /// factors k = GA / EA make k G A = GA (to round-off).
    pub fn resultants(
        ea: f64,
        ga: Option<[f64; 2]>,
        ei: [f64; 2],
        gj: f64,
        mass_per_length: f64,
        rotary_inertia: [f64; 3],
    ) -> Self {
        SpatialBeamProperties {
            young: 1.0,
            shear: 1.0,
            area: ea,
            iy: ei[0],
            iz: ei[1],
            torsion: gj,
            shear_factor: ga.map(|ga| ga.map(|g| g / ea)),
            mass_per_length,
            rotary_inertia,
        }
    }

    /// The mass properties of a homogeneous section of density `rho` (kg/m^3).
    pub fn with_density(self, rho: f64) -> Self {
        SpatialBeamProperties {
            mass_per_length: rho * self.area,
            rotary_inertia: [rho * (self.iy + self.iz), rho * self.iy, rho * self.iz],
            ..self
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct CorotationalBeam3d {
    dofs: [usize; 14],
    /// Initial (undeformed) length.
    pub l0: f64,
    /// C_i = R(p_i0)^T E_0 of both nodes.
    c: [Mat3; 2],
    /// K over d = (u, theta_1, theta_2): EA/l0, GJ/l0 and K_b of both bending planes.
    stiffness: [[f64; 7]; 7],
    /// The centre line's inertia and gravity (element mass rho A l0).
    center_line: CenterLine,
    /// Rotary inertia of each node's half (zero mass).
    rotary: [RigidBody3d; 2],
    gravity: [f64; 3],
    /// Kelvin-Voigt material damping b (s): local damping forces b K d'; 0 = none.
    pub damping: f64,
}

pub(super) type V3<S = f64> = [S; 3];

fn sub<S: Real>(a: V3<S>, b: V3<S>) -> V3<S> {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline]
pub(super) fn dot<S: Real>(a: V3<S>, b: V3<S>) -> S {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline]
pub(super) fn cross<S: Real>(a: V3<S>, b: V3<S>) -> V3<S> {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

fn scale<S: Real>(a: V3<S>, s: S) -> V3<S> {
    [a[0] * s, a[1] * s, a[2] * s]
}

/// Columns of R(p) C = A(p) C / (p.p), A(p) = (e0^2 - e.e) I + 2 e e^T + 2 e0 e~.
fn triad<S: Real>(p: &[S], c: &Mat3) -> [V3<S>; 3] {
    let (e0, e) = (p[0], [p[1], p[2], p[3]]);
    let n = e0 * e0 + dot(e, e);
    let d = (e0 * e0 - dot(e, e)) / n;
    let inv = S::constant(2.0) / n;
    // Only the nonzero terms (adding or multiplying the zeros would cost a dual number's
    // work each and change nothing).
    let a: [[S; 3]; 3] = std::array::from_fn(|i| {
        std::array::from_fn(|j| {
            let sym = e[i] * e[j];
            match (i, j) {
                (0, 1) => (sym - e0 * e[2]) * inv,
                (1, 0) => (sym + e0 * e[2]) * inv,
                (0, 2) => (sym + e0 * e[1]) * inv,
                (2, 0) => (sym - e0 * e[1]) * inv,
                (1, 2) => (sym - e0 * e[0]) * inv,
                (2, 1) => (sym + e0 * e[0]) * inv,
                _ => d + sym * inv,
            }
        })
    });
    std::array::from_fn(|col| std::array::from_fn(|i| a[i][0] * c[0][col] + a[i][1] * c[1][col] + a[i][2] * c[2][col]))
}

/// The rotation vector of the rotation with columns `r` (angle below pi/2, as deformational
/// rotations are): theta = (angle / sin angle) v, v = axial(R - R^T)/2 = sin(angle) n. Near 0
/// the factor is the series of asin(s)/s in s^2 = v.v (smooth, so derivatives stay exact).
fn rotation_vector<S: Real>(r: &[[S; 3]; 3]) -> V3<S> {
    // r[col][row]
    let at = |i: usize, j: usize| r[j][i];
    let v = [(at(2, 1) - at(1, 2)) * 0.5, (at(0, 2) - at(2, 0)) * 0.5, (at(1, 0) - at(0, 1)) * 0.5];
    let c = (at(0, 0) + at(1, 1) + at(2, 2) + -1.0) * 0.5;
    let s2 = dot(v, v);
    let factor = if s2.value() < 1e-4 && c.value() > 0.0 {
        let s4 = s2 * s2;
        S::constant(1.0) + s2 * (1.0 / 6.0) + s4 * (3.0 / 40.0) + s4 * s2 * (5.0 / 112.0) + s4 * s4 * (35.0 / 1152.0)
    } else {
        let s = s2.sqrt();
        s.atan2(c) / s
    };
    scale(v, factor)
}

/// The element at its coordinates: node triads T_i (columns), the element frame E (rows e1,
/// e2, e3), the chord length l, q = (T_1 + T_2) e_y / 2 with |e1 x q|, and the local rotations.
pub(super) struct Configuration<S> {
    pub t: [[V3<S>; 3]; 2],
    pub e: [V3<S>; 3],
    pub l: S,
    pub q: V3<S>,
    pub normal: S,
    pub theta: [V3<S>; 2],
}

impl<S: Real> Configuration<S> {
    /// The values (the configuration on f64, bit for bit as if computed on f64).
    pub(super) fn values(&self) -> Configuration<f64> {
        let v3 = |x: &V3<S>| x.map(|c| c.value());
        Configuration {
            t: self.t.map(|t| t.map(|c| v3(&c))),
            e: self.e.map(|e| v3(&e)),
            l: self.l.value(),
            q: v3(&self.q),
            normal: self.normal.value(),
            theta: self.theta.map(|t| v3(&t)),
        }
    }
}

impl CorotationalBeam3d {
    /// An element between the nodes whose first coordinates are `node1`, `node2`, at rest at
    /// positions `x1`, `x2` with Euler parameters `p1`, `p2` (each node's frame: its x axis
    /// along the beam, y and z the section's axes).
    pub fn new(
        node1: usize,
        node2: usize,
        rest: ([f64; 3], [f64; 4], [f64; 3], [f64; 4]),
        props: &SpatialBeamProperties,
        gravity: [f64; 3],
    ) -> Self {
        let (x1, p1, x2, p2) = rest;
        let d = sub(x2, x1);
        let l0 = dot(d, d).sqrt();
        let (r1, r2) = (rotation(&p1), rotation(&p2));
        // E_0 by the rule of the element frame with T_i = R(p_i0).
        let e1 = scale(d, 1.0 / l0);
        let q = [0.5 * (r1[0][1] + r2[0][1]), 0.5 * (r1[1][1] + r2[1][1]), 0.5 * (r1[2][1] + r2[2][1])];
        let e3 = cross(e1, q);
        let e3 = scale(e3, 1.0 / dot(e3, e3).sqrt());
        let e2 = cross(e3, e1);
        let e0: Mat3 = std::array::from_fn(|i| [e1[i], e2[i], e3[i]]);
        let c = |r: &Mat3| -> Mat3 {
            std::array::from_fn(|i| std::array::from_fn(|j| (0..3).map(|k| r[k][i] * e0[k][j]).sum()))
        };
        let (c1, c2) = (c(&r1), c(&r2));
        let e = props.young;
        // phi of bending about y (Iy) takes the shear along z, about z (Iz) the shear along y.
        let phi = |i: f64, along: usize| {
            props.shear_factor.map_or(0.0, |k| 12.0 * e * i / (k[along] * props.shear * props.area * l0 * l0))
        };
        let mut stiffness = [[0.0; 7]; 7];
        stiffness[0][0] = e * props.area / l0;
        let gj = props.shear * props.torsion / l0;
        for (a, b, k) in [(1, 1, gj), (4, 4, gj), (1, 4, -gj), (4, 1, -gj)] {
            stiffness[a][b] = k;
        }
        // Bending about the element's y (theta_y: rows 2, 5) and z (rows 3, 6) axes.
        for (axis, i, along) in [(2, props.iy, 1), (3, props.iz, 0)] {
            let (ei, phi) = (e * i, phi(i, along));
            let k = ei / (l0 * (1.0 + phi));
            let (a, b) = (axis, axis + 3);
            stiffness[a][a] = k * (4.0 + phi);
            stiffness[b][b] = k * (4.0 + phi);
            stiffness[a][b] = k * (2.0 - phi);
            stiffness[b][a] = k * (2.0 - phi);
        }
        let local = props.rotary_inertia.map(|j| 0.5 * l0 * j);
        // J' = C D C^T in the node frame.
        let inertia = |c: &Mat3| -> Mat3 {
            std::array::from_fn(|i| std::array::from_fn(|j| (0..3).map(|k| c[i][k] * local[k] * c[j][k]).sum()))
        };
        CorotationalBeam3d {
            dofs: std::array::from_fn(|k| if k < 7 { node1 + k } else { node2 + k - 7 }),
            l0,
            c: [c1, c2],
            stiffness,
            center_line: CenterLine::new(l0, props.mass_per_length * l0),
            rotary: [
                RigidBody3d::new(node1, 0.0, inertia(&c1), [0.0; 3]),
                RigidBody3d::new(node2, 0.0, inertia(&c2), [0.0; 3]),
            ],
            gravity,
            damping: 0.0,
        }
    }

    /// The element with Kelvin-Voigt material damping `beta` (s, >= 0).
    pub fn with_damping(mut self, beta: f64) -> Self {
        self.damping = beta;
        self
    }

    /// Triads, frame and local rotations at the element's coordinates `q`.
    pub(super) fn configuration<S: Real>(&self, q: &[S; 14]) -> Configuration<S> {
        let (x1, x2) = ([q[0], q[1], q[2]], [q[7], q[8], q[9]]);
        let t = [triad(&q[3..7], &self.c[0]), triad(&q[10..14], &self.c[1])];
        let d = sub(x2, x1);
        let l = dot(d, d).sqrt();
        let e1 = scale(d, S::constant(1.0) / l);
        let qv = scale([t[0][1][0] + t[1][1][0], t[0][1][1] + t[1][1][1], t[0][1][2] + t[1][1][2]], S::constant(0.5));
        let e3 = cross(e1, qv);
        let normal = dot(e3, e3).sqrt();
        let e3 = scale(e3, S::constant(1.0) / normal);
        let e2 = cross(e3, e1);
        let frame = [e1, e2, e3];
        let theta = t.map(|ti| {
            // (E^T T_i) column b, row a = e_a . t_b
            let r: [[S; 3]; 3] = std::array::from_fn(|b| std::array::from_fn(|a| dot(frame[a], ti[b])));
            rotation_vector(&r)
        });
        Configuration { t, e: frame, l, q: qv, normal, theta }
    }

    /// Local deformations: u = l - l0 and the rotation vectors theta_1, theta_2 in the
    /// element frame.
    pub fn deformations<S: Real>(&self, q: &[S; 14]) -> (S, [V3<S>; 2]) {
        let c = self.configuration(q);
        (c.l + -self.l0, c.theta)
    }

    /// d = (u, theta_1, theta_2) of a configuration.
    fn deformation_vector<S: Real>(&self, c: &Configuration<S>) -> [S; 7] {
        let [t1, t2] = c.theta;
        [c.l + -self.l0, t1[0], t1[1], t1[2], t2[0], t2[1], t2[2]]
    }

    /// The strain energy U(q) = 1/2 d^T K d over the element's 14 coordinates.
    pub fn strain_energy<S: Real>(&self, q: &[S; 14]) -> S {
        let d = self.deformation_vector(&self.configuration(q));
        let mut energy = S::constant(0.0);
        for (a, row) in self.stiffness.iter().enumerate() {
            for (b, &k) in row.iter().enumerate() {
                if k != 0.0 {
                    energy = energy + d[a] * d[b] * (0.5 * k);
                }
            }
        }
        energy
    }

    /// The rates of the deformations d' = B q' at the element's coordinates `q` and rates `v`
    /// (d on dual numbers seeded with v: exact to rounding).
    pub fn deformation_rates(&self, q: &[f64; 14], v: &[f64; 14]) -> [f64; 7] {
        let x: [Dual<1>; 14] = std::array::from_fn(|k| Dual { x0: q[k], d: [v[k]] });
        self.deformation_vector(&self.configuration(&x)).map(|d| d.d[0])
    }

    /// B = dd/dq (7 x 14), d' = B q' and B' = d(B q')/dq (7 x 14): column j of B and of B'
    /// from one hyper-dual evaluation of d seeded with coordinate j (e1) and q' (e2).
    #[allow(clippy::type_complexity)]
    fn deformation_jacobians(&self, q: &[f64; 14], v: &[f64; 14]) -> ([[f64; 14]; 7], [f64; 7], [[f64; 14]; 7]) {
        let (mut b, mut rates, mut b_dot) = ([[0.0; 14]; 7], [0.0; 7], [[0.0; 14]; 7]);
        for j in 0..14 {
            let x: [HyperDual; 14] =
                std::array::from_fn(|k| HyperDual { x0: q[k], x1: f64::from(u8::from(k == j)), x2: v[k], x12: 0.0 });
            let d = self.deformation_vector(&self.configuration(&x));
            for r in 0..7 {
                b[r][j] = d[r].x1;
                b_dot[r][j] = d[r].x12;
                rates[r] = d[r].x2;
            }
        }
        (b, rates, b_dot)
    }

    /// The local damping forces b K d'.
    fn damping_forces(&self, rates: &[f64; 7]) -> [f64; 7] {
        self.stiffness.map(|row| self.damping * (0..7).map(|b| row[b] * rates[b]).sum::<f64>())
    }

    /// The internal force's tangents at (q, v): dF/dq (elastic and damping) and C = dF/dq'.
    pub fn internal_tangents(&self, q: &[f64], v: &[f64]) -> ([[f64; 14]; 14], [[f64; 14]; 14]) {
        let (c, qe, f) = self.local_forces(q);
        let (b, rates, b_dot) = self.deformation_jacobians(&qe, &self.gather(v));
        let fd = self.damping_forces(&rates);
        let mut k = elastic_stiffness(&c, &qe, &std::array::from_fn(|r| f[r] + fd[r]), &self.stiffness);
        // b K B and b K B', then B^T times each.
        let scaled = |m: &[[f64; 14]; 7]| -> [[f64; 14]; 7] {
            std::array::from_fn(|r| {
                std::array::from_fn(|j| self.damping * (0..7).map(|s| self.stiffness[r][s] * m[s][j]).sum::<f64>())
            })
        };
        let (kb, kb_dot) = (scaled(&b), scaled(&b_dot));
        let mut damping = [[0.0; 14]; 14];
        for i in 0..14 {
            for j in 0..14 {
                let (mut kij, mut cij) = (0.0, 0.0);
                for r in 0..7 {
                    kij += b[r][i] * kb_dot[r][j];
                    cij += b[r][i] * kb[r][j];
                }
                k[i][j] += kij;
                damping[i][j] = cij;
            }
        }
        (k, damping)
    }

    /// The power the material damping dissipates, b d'(v)^T K times the local deformations'
    /// rates over the step `stride` (`Element::power`).
    pub fn damping_power(&self, q: &[f64], v: &[f64], stride: &Stride) -> f64 {
        let fd = self.damping_forces(&self.deformation_rates(&self.gather(q), &self.gather(v)));
        let rates = stride.rates(|q| self.deformation_vector(&self.configuration(&self.gather(q))));
        (0..7).map(|r| fd[r] * rates[r]).sum()
    }

    fn gather(&self, v: &[f64]) -> [f64; 14] {
        std::array::from_fn(|k| v[self.dofs[k]])
    }

    /// The configuration at the global coordinates `q`, the element's coordinates and the
    /// local forces f = K d.
    fn local_forces(&self, q: &[f64]) -> (Configuration<f64>, [f64; 14], [f64; 7]) {
        let q = self.gather(q);
        let (c, f) = self.local_forces_at(&q);
        (c, q, f)
    }

    /// The configuration at the element's coordinates `q` and the local forces f = K d.
    fn local_forces_at(&self, q: &[f64; 14]) -> (Configuration<f64>, [f64; 7]) {
        let c = self.configuration(q);
        let d = self.deformation_vector(&c);
        let f = self.stiffness.map(|row| (0..7).map(|b| row[b] * d[b]).sum());
        (c, f)
    }

    /// The stress resultants (N, Vy, Vz, T, My, Mz) at the element's first and second node
    /// (src/mechanics/section_forces.rs): what the beam beyond the node exerts on the beam
    /// before it, in the element axes (e1, e2, e3). The node holds the element's end with the
    /// element's share of the equations of motion there: the centre line's inertia, the
    /// elastic (and damping) forces less its weight (`forces_at`), its nodes' rotary inertia,
    /// less `loads` (distributed loads on it). Per node that is a force F on the position and
    /// a generalized force Q_p on the Euler parameters, whose moment is M = E(p) Q_p / 2 (the
    /// work Q_p . dp of a turn dpi, dp = E(p)^T dpi / 2 for a unit p): at the second node
    /// (F, M) are the section's, at the first their negatives.
    pub fn end_resultants(&self, x: &Kin, loads: &[f64; 14]) -> [[f64; 6]; 2] {
        let (q, v, a) = (self.gather(x.q), self.gather(x.v), self.gather(x.a));
        let (ma, rest) = self.forces_at(&q, &v, &a, true);
        let mut f: [f64; 14] = std::array::from_fn(|k| ma[k] + rest[k] - loads[k]);
        for (node, r) in self.rotary.iter().enumerate() {
            let (inertial, forces) = r.local_forces(x);
            for k in 0..7 {
                f[7 * node + k] += inertial[k] + forces[k];
            }
        }
        let axes = self.configuration(&q).e;
        let at = |node: usize, sign: f64| {
            let (force, p) = (&f[7 * node..7 * node + 3], &q[7 * node + 3..7 * node + 7]);
            let e = e_matrix(p);
            let moment: [f64; 3] =
                std::array::from_fn(|i| 0.5 * (0..4).map(|k| e[i][k] * f[7 * node + 3 + k]).sum::<f64>());
            let along = |u: &V3<f64>, w: &[f64]| sign * (0..3).map(|i| u[i] * w[i]).sum::<f64>();
            [
                along(&axes[0], force),
                along(&axes[1], force),
                along(&axes[2], force),
                along(&axes[0], &moment),
                along(&axes[1], &moment),
                along(&axes[2], &moment),
            ]
        };
        [at(0, -1.0), at(1, 1.0)]
    }

    /// The elastic force dU/dq.
    pub fn elastic_force(&self, q: &[f64]) -> [f64; 14] {
        let (c, q, f) = self.local_forces(q);
        elastic_force(&c, &q, &f)
    }

    /// The elastic stiffness d2U/dq2.
    pub fn elastic_stiffness(&self, q: &[f64]) -> [[f64; 14]; 14] {
        let (c, q, f) = self.local_forces(q);
        elastic_stiffness(&c, &q, &f, &self.stiffness)
    }

    /// Linear momentum and angular momentum about the origin (the quantities conserved by a
    /// free beam: U is invariant under rigid motions, T under global rotations): the centre
    /// line's sum over its Gauss points of m_g r_t and r x m_g r_t, plus the nodes' spin.
    pub fn momentum(&self, q: &[f64], v: &[f64]) -> ([f64; 3], [f64; 3]) {
        let r = self.center_line_velocities(&self.gather(q), &self.gather(v));
        let (mut lin, mut ang) = ([0.0; 3], [0.0; 3]);
        for (m, r) in self.center_line.masses().iter().zip(&r) {
            let (x, rt) = (r.map(|c| c.x0), r.map(|c| m * c.d[0]));
            let c = cross(x, rt);
            for k in 0..3 {
                lin[k] += rt[k];
                ang[k] += c[k];
            }
        }
        for rotary in &self.rotary {
            let l_rot = rotary.angular_momentum(q, v);
            for k in 0..3 {
                ang[k] += l_rot[k];
            }
        }
        (lin, ang)
    }

    /// The centre line's quadrature points at the global coordinates `q` with the masses they
    /// carry (the element's inertia and weight act there).
    pub fn mass_points(&self, q: &[f64]) -> [([f64; 3], f64); 4] {
        let q = self.gather(q);
        let (r, m) = (self.center_line.points(&q, &self.configuration(&q)), self.center_line.masses());
        std::array::from_fn(|g| (r[g], m[g]))
    }

    /// The centre line's Gauss points r_g with their velocities r_t (dual parts).
    fn center_line_velocities(&self, q: &[f64; 14], v: &[f64; 14]) -> [V3<Dual<1>>; 4] {
        let x: [Dual<1>; 14] = std::array::from_fn(|k| Dual { x0: q[k], d: [v[k]] });
        self.center_line.points(&x, &self.configuration(&x))
    }

    /// The element's forces at its coordinates `q`, rates `v` and accelerations `a`: M a =
    /// sum_g m_g J_g^T J_g a (the centre line's; `corotational_center_line_3d.rs`) and the
    /// rest, sum_g m_g J_g^T ((dJ_g/dt) v - g) plus, if `elastic`, the internal force
    /// B^T K (d + b d'). One evaluation of the configuration on motion jets gives the centre
    /// line's rates and accelerations, the deformation rates d' and (its values) the
    /// configuration; the centre line's and the elastic forces go to the nodes in one closed
    /// form.
    fn forces_at(&self, q: &[f64; 14], v: &[f64; 14], a: &[f64; 14], elastic: bool) -> ([f64; 14], [f64; 14]) {
        let x: [MotionJet; 14] = std::array::from_fn(|k| MotionJet { x0: q[k], v: v[k], a: a[k], vv: 0.0 });
        let jets = self.configuration(&x);
        let c = jets.values();
        let r = self.center_line.points(&x, &jets);
        let inertia = self.center_line.pull_back(&c, &r.map(|r| r.map(|x| x.a)));
        let rest = self.center_line.pull_back(&c, &r.map(|r| std::array::from_fn(|k| r[k].vv - self.gravity[k])));
        let mut f = [0.0; 7];
        if elastic {
            let d = self.deformation_vector(&jets);
            f = self.stiffness.map(|row| (0..7).map(|b| row[b] * (d[b].x0 + self.damping * d[b].v)).sum());
        }
        (inertia.on_nodes(&c, q, &[0.0; 7]), rest.on_nodes(&c, q, &f))
    }

    /// k.mass M + k.damping C + k.stiffness K of the centre line's forces F: M = sum_g m_g
    /// J_g^T J_g and C = 2 sum_g m_g J_g^T d2r_g[v, .] from hyper-dual evaluations seeded with
    /// each coordinate and v; K = dF/dq by forward differences of F (steps near sqrt(eps):
    /// 2e-8 of the element length for positions, 2e-8 for Euler parameters; relative error
    /// ~1e-8; K enters the Newton matrix times beta' ~ h^2, and the modes' at rest only through
    /// gravity). F is invariant under a common translation of the nodes, so node 1's position
    /// columns are minus node 2's.
    /// The generalized force Q = int (dr/dq)^T f dx of a uniform force `f` per unit length
    /// (N/m, global) on the centre line, at the global coordinates `q`: a distributed force
    /// (src/mechanics/forces/line_load.rs), taken to the nodes as the element takes its own
    /// weight (`CenterLine::pull_back` at its Gauss points, here with unit mass per length).
    pub fn line_load_force(&self, q: &[f64], f: [f64; 3]) -> [f64; 14] {
        self.line_load_force_at(&self.gather(q), f)
    }

    /// `line_load_force` at the element's coordinates `q`.
    fn line_load_force_at(&self, q: &[f64; 14], f: [f64; 3]) -> [f64; 14] {
        let c = self.configuration(q);
        CenterLine::new(self.l0, self.l0).pull_back(&c, &[f; 4]).on_nodes(&c, q, &[0.0; 7])
    }

    /// int r dx over the centre line at the global coordinates `q` (4-point Gauss, exact for
    /// its cubic): a uniform force f per unit length has the potential -f . int r dx.
    pub fn center_line_integral(&self, q: &[f64]) -> [f64; 3] {
        let q = self.gather(q);
        let line = CenterLine::new(self.l0, self.l0);
        let (points, weights) = (line.points(&q, &self.configuration(&q)), line.masses());
        std::array::from_fn(|k| points.iter().zip(&weights).map(|(r, w)| w * r[k]).sum())
    }

    /// -dQ/dq of `line_load_force` times `scale`, added to the element's 14 x 14 `block`: by
    /// forward differences of Q, as the centre line's dF/dq (`add_center_line_tangent`); Q
    /// does not change when both nodes translate together.
    pub fn add_line_load_tangent(&self, q: &[f64], f: [f64; 3], scale: f64, block: &mut [f64]) {
        let q0 = self.gather(q);
        let base = self.line_load_force_at(&q0, f);
        for j in 3..14 {
            let h = if j % 7 < 3 { 2e-8 * self.l0 } else { 2e-8 };
            let mut shifted = q0;
            shifted[j] += h;
            let plus = self.line_load_force_at(&shifted, f);
            let factor = scale / (shifted[j] - q0[j]);
            for i in 0..14 {
                let d = factor * (plus[i] - base[i]);
                block[i * 14 + j] -= d;
                if (7..10).contains(&j) {
                    block[i * 14 + j - 7] += d;
                }
            }
        }
    }

    fn add_center_line_tangent(
        &self,
        q: &[f64; 14],
        v: &[f64; 14],
        a: &[f64; 14],
        k: &TangentCoefficients,
        block: &mut [f64],
    ) {
        // J_g and d2r_g[v, .], [point][component][coordinate]: one pass on dual numbers for J
        // alone (no damping coefficient: the index-1 matrix of consistent accelerations).
        let (mut jac, mut jdot) = ([[[0.0; 14]; 3]; 4], [[[0.0; 14]; 3]; 4]);
        if k.damping == 0.0 {
            let x: [Dual<14>; 14] = std::array::from_fn(|i| {
                let mut d = [0.0; 14];
                d[i] = 1.0;
                Dual { x0: q[i], d }
            });
            let r = self.center_line.points(&x, &self.configuration(&x));
            for (g, r) in r.iter().enumerate() {
                for (row, x) in r.iter().enumerate() {
                    jac[g][row] = x.d;
                }
            }
        } else {
            for j in 0..14 {
                let x: [HyperDual; 14] = std::array::from_fn(|i| HyperDual {
                    x0: q[i],
                    x1: f64::from(u8::from(i == j)),
                    x2: v[i],
                    x12: 0.0,
                });
                let r = self.center_line.points(&x, &self.configuration(&x));
                for (g, r) in r.iter().enumerate() {
                    for (row, x) in r.iter().enumerate() {
                        jac[g][row][j] = x.x1;
                        jdot[g][row][j] = x.x12;
                    }
                }
            }
        }
        for (g, m) in self.center_line.masses().iter().enumerate() {
            for i in 0..14 {
                for j in 0..14 {
                    let e: f64 =
                        (0..3).map(|r| jac[g][r][i] * (k.mass * jac[g][r][j] + 2.0 * k.damping * jdot[g][r][j])).sum();
                    block[i * 14 + j] += m * e;
                }
            }
        }
        if k.stiffness != 0.0 {
            // F does not change when both nodes translate together, so the columns of node 1's
            // position are minus those of node 2's.
            let (i0, f0) = self.forces_at(q, v, a, false);
            for j in 3..14 {
                let h = if j % 7 < 3 { 2e-8 * self.l0 } else { 2e-8 };
                let mut plus = *q;
                plus[j] += h;
                let (ip, fp) = self.forces_at(&plus, v, a, false);
                let scale = k.stiffness / (plus[j] - q[j]);
                for i in 0..14 {
                    let d = scale * ((ip[i] + fp[i]) - (i0[i] + f0[i]));
                    block[i * 14 + j] += d;
                    if (7..10).contains(&j) {
                        block[i * 14 + j - 7] -= d;
                    }
                }
            }
        }
    }
}

impl Element for CorotationalBeam3d {
    /// Its nodes are one piece of the structure (`Element::TIES`).
    const TIES: bool = true;

    fn dofs(&self) -> &[usize] {
        &self.dofs
    }

    fn add_forces(&self, x: &Kin, inertial: &mut [f64], forces: &mut [f64]) {
        let (ma, rest) = self.forces_at(&self.gather(x.q), &self.gather(x.v), &self.gather(x.a), true);
        scatter::<7>(&[self.dofs[0], self.dofs[7]], &ma, &rest, inertial, forces);
        for r in &self.rotary {
            r.add_forces(x, inertial, forces);
        }
    }

    fn add_tangent(&self, x: &Kin, c: &TangentCoefficients, block: &mut [f64]) {
        let (q, v, a) = (self.gather(x.q), self.gather(x.v), self.gather(x.a));
        self.add_center_line_tangent(&q, &v, &a, c, block);
        for (node, r) in self.rotary.iter().enumerate() {
            let mut local = [0.0; 49];
            r.add_tangent(x, c, &mut local);
            for i in 0..7 {
                for j in 0..7 {
                    block[(7 * node + i) * 14 + 7 * node + j] += local[i * 7 + j];
                }
            }
        }
        if self.damping != 0.0 && (c.stiffness != 0.0 || c.damping != 0.0) {
            let (k, damping) = self.internal_tangents(x.q, x.v);
            for i in 0..14 {
                for j in 0..14 {
                    block[i * 14 + j] += c.stiffness * k[i][j] + c.damping * damping[i][j];
                }
            }
        } else if c.stiffness != 0.0 {
            let k = self.elastic_stiffness(x.q);
            for i in 0..14 {
                for j in 0..14 {
                    block[i * 14 + j] += c.stiffness * k[i][j];
                }
            }
        }
    }

    /// The elastic stiffness alone (the centre line's tangent holds the weight's).
    fn add_strain_stiffness(&self, x: &Kin, block: &mut [f64]) {
        let k = self.elastic_stiffness(x.q);
        for i in 0..14 {
            for j in 0..14 {
                block[i * 14 + j] += k[i][j];
            }
        }
    }

    fn energy(&self, x: &Kin) -> Energy {
        let (q, v) = (self.gather(x.q), self.gather(x.v));
        let mut e = Energy { kinetic: 0.0, potential: self.strain_energy(&q) };
        for (m, r) in self.center_line.masses().iter().zip(&self.center_line_velocities(&q, &v)) {
            e.kinetic += 0.5 * m * r.iter().map(|x| x.d[0] * x.d[0]).sum::<f64>();
            e.potential -= m * (0..3).map(|k| self.gravity[k] * r[k].x0).sum::<f64>();
        }
        for r in &self.rotary {
            e += r.energy(x);
        }
        e
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

    /// The element frame takes e2, e3 from the mean q of the nodes' section axes (Battini &
    /// Pacoste 2002): with local rotations of pi/2 (both nodes turned a quarter turn against
    /// the chord, or turned opposite ways) q lies along the chord and the frame is undefined,
    /// beyond it flipped; the local rotation vectors are taken for angles below pi/2
    /// (`rotation_vector`). A 4-element soft pendulum (the planar benchmark's data) failed
    /// there at t = 1.60 s.
    fn outside_formulation(&self, q: &[f64]) -> Option<String> {
        let theta = self.configuration(&self.gather(q)).theta;
        let [a1, a2] = theta.map(|t| dot(t, t).sqrt());
        if a1.max(a2) < std::f64::consts::FRAC_PI_2 {
            return None;
        }
        Some(format!(
            "its nodes are turned {a1:.2} and {a2:.2} rad against its frame, not below pi/2 as the spatial \
             corotational element's frame (Battini & Pacoste 2002) and local rotations are defined for; more \
             elements keep them small"
        ))
    }
}
