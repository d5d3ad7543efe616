//! Discrete (finite-segment) flexible plate of paper 001: a rectangular plate split into n x m
//! equal rectangular patches, each a rigid body, held by one multi-point stiffness/damping
//! element (eqs. 12-13) whose matrices come from a Guyan condensation (eqs. 2-11) of a MITC4
//! plate finite-element model built here (`structural::plate`).
//!
//! - Bodies: patch (i, j) has the patch's mass rho t dx dy and its inertia about its centre
//!   (thin rectangular plate: J_xx = m (dy^2 + t^2)/12, J_yy = m (dx^2 + t^2)/12,
//!   J_zz = m (dx^2 + dy^2)/12), centre of mass at the patch centre, axes along the global ones.
//!   Paper 001 section 4 item 3 takes these "mass and inertia properties of each rigid body"
//!   from a static analysis; for a uniform plate they are these closed forms.
//! - Masters: the FE node at each patch centre (so the mesh must have 2n x 2m divisions at
//!   least, in multiples), DOFs w, psi_x, psi_y (3 per body). The plate element is bending-only
//!   (w, psi_x, psi_y with u = z psi_x, v = z psi_y), so these map to the body's measures
//!   z = w, theta_y = psi_x, theta_x = -psi_y.
//! - In-plane motion (x, y and the drilling rotation theta_z), which a bending element does not
//!   resist, is held by a membrane-like penalty stiffness on each body relative to the reference:
//!   E t on x and y and E t (dx^2 + dy^2)/12 on theta_z (a patch's in-plane stiffness scale; it
//!   puts these modes far above the bending ones, e.g. near 3 kHz for the benchmark plate
//!   against 5-60 Hz). This is not a membrane model: in-plane dynamics is not represented.
//! - Reference: ground (the clamped edges) when an edge is clamped. A free plate (no clamped
//!   edge) is referred to a floating reference body, body [n/2][m/2], as paper 001 section 2.2
//!   does: "remove the stiffness and damping terms of the reference body's master DOFs" — the
//!   free plate's K_r has the three bending rigid modes (w = c0 + c1 x + c2 y) in its null
//!   space, so 1/2 u^T K_r u = 1/2 x^T K' x with x = u minus the rigid motion that follows the
//!   reference (zero at its DOFs) and K' = K_r without the reference's rows and columns. The
//!   element then has the other N - 1 bodies as members.
//! - Damping: C = beta K (stiffness-proportional, paper 001's "coordinated damping"), beta =
//!   2 zeta / omega_1 with omega_1 the first (elastic) natural frequency of the discrete plate (condensed
//!   stiffness, patch masses and inertias): the damping ratio is zeta at omega_1 and grows in
//!   proportion to the frequency above it.

use nalgebra::DMatrix;

use super::euler_parameters::Mat3;
use crate::structural::plate::PlateDof;
use crate::structural::{
    EdgeSupport, PlateMaterial, RectangularPlate, StructuralError, condense, natural_frequencies_hz,
};

/// Largest full FE model condensed (dense matrices: memory ~ 8 n^2 bytes, time ~ n^3).
pub const MAX_FE_DOFS: usize = 4000;

#[derive(Debug, Clone, PartialEq)]
pub struct PlateSpec {
    /// Lengths along x and y (m), thickness (m).
    pub a: f64,
    pub b: f64,
    pub t: f64,
    pub material: PlateMaterial,
    /// FE mesh divisions along x, y.
    pub mesh: [usize; 2],
    /// Rigid bodies along x, y.
    pub bodies: [usize; 2],
    /// Supports of the edges x = 0, x = a, y = 0, y = b (free or clamped).
    pub edges: [EdgeSupport; 4],
    pub damping_ratio: f64,
}

/// One patch body: centre (plate coordinates, z = 0), mass, principal inertia.
#[derive(Debug, Clone, PartialEq)]
pub struct PatchBody {
    pub i: usize,
    pub j: usize,
    pub centre: [f64; 2],
    pub mass: f64,
    pub inertia: Mat3,
}

#[derive(Debug, Clone)]
pub struct DiscretePlate {
    /// Bodies, j outer, i inner (the order of the measures in `stiffness`).
    pub bodies: Vec<PatchBody>,
    /// Condensed bending stiffness over (w, psi_x, psi_y) per body (3N x 3N).
    pub condensed: DMatrix<f64>,
    /// The floating reference body (index into `bodies`) of a free plate; None: ground.
    pub reference: Option<usize>,
    /// K of the multi-point element over (x, y, z, theta_x, theta_y, theta_z) per member body
    /// (every body but the reference, in order), 6N x 6N (N members).
    pub stiffness: DMatrix<f64>,
    /// C = beta K.
    pub damping: DMatrix<f64>,
    pub beta: f64,
    /// Natural frequencies of the discrete plate's bending problem (Hz, ascending).
    pub frequencies: Vec<f64>,
}

impl PlateSpec {
    /// The FE plate model this spec condenses.
    pub fn finite_elements(&self) -> RectangularPlate {
        RectangularPlate::new(self.a, self.b, self.t, self.material, self.mesh[0], self.mesh[1]).with_edges(self.edges)
    }

    pub fn patch(&self) -> (f64, f64) {
        (self.a / self.bodies[0] as f64, self.b / self.bodies[1] as f64)
    }

    /// Checks the mesh and body grid (messages name what is wrong).
    pub fn validate(&self) -> Result<(), String> {
        let [nx, ny] = self.mesh;
        let [n, m] = self.bodies;
        if n == 0 || m == 0 {
            return Err(format!("bodies must be at least [1, 1], got [{n}, {m}]"));
        }
        if nx == 0 || ny == 0 || nx % (2 * n) != 0 || ny % (2 * m) != 0 {
            return Err(format!(
                "mesh [{nx}, {ny}] must be positive multiples of [2n, 2m] = [{}, {}] so that every patch centre is a node",
                2 * n,
                2 * m
            ));
        }
        let dofs = 3 * (nx + 1) * (ny + 1);
        if dofs > MAX_FE_DOFS {
            return Err(format!(
                "mesh [{nx}, {ny}] has {dofs} DOFs, more than the {MAX_FE_DOFS} the dense condensation handles"
            ));
        }
        if !self.edges.contains(&EdgeSupport::Clamped) && n * m < 2 {
            return Err("a free plate (no clamped edge) needs at least 2 bodies: one is the floating reference".into());
        }
        if !(self.damping_ratio.is_finite() && self.damping_ratio >= 0.0) {
            return Err(format!("damping_ratio must be >= 0, got {}", self.damping_ratio));
        }
        Ok(())
    }
}

/// The patch bodies (j outer, i inner) and the floating reference of a free plate (None:
/// ground): what the plate's bodies are, without the condensation.
pub fn patch_bodies(spec: &PlateSpec) -> (Vec<PatchBody>, Option<usize>) {
    let [n, m] = spec.bodies;
    let (dx, dy) = spec.patch();
    let t = spec.t;
    let mass = spec.material.rho * t * dx * dy;
    let bodies = (0..m)
        .flat_map(|j| (0..n).map(move |i| (i, j)))
        .map(|(i, j)| {
            let mut inertia = [[0.0; 3]; 3];
            inertia[0][0] = mass * (dy * dy + t * t) / 12.0;
            inertia[1][1] = mass * (dx * dx + t * t) / 12.0;
            inertia[2][2] = mass * (dx * dx + dy * dy) / 12.0;
            PatchBody { i, j, centre: [(i as f64 + 0.5) * dx, (j as f64 + 0.5) * dy], mass, inertia }
        })
        .collect();
    let reference = (!spec.edges.contains(&EdgeSupport::Clamped)).then(|| (m / 2) * n + n / 2);
    (bodies, reference)
}

/// Builds the patch bodies and the multi-point element's matrices (see the module documentation).
pub fn discrete_plate(spec: &PlateSpec) -> Result<DiscretePlate, StructuralError> {
    spec.validate().map_err(StructuralError::InvalidParameter)?;
    let fe = spec.finite_elements().assemble()?;
    let [n, m] = spec.bodies;
    let (sx, sy) = (spec.mesh[0] / n, spec.mesh[1] / m);
    // Patch centres are the nodes (sx/2 + i sx, sy/2 + j sy).
    let is: Vec<usize> = (0..n).map(|i| sx / 2 + i * sx).collect();
    let js: Vec<usize> = (0..m).map(|j| sy / 2 + j * sy).collect();
    let masters = fe.grid_dofs(&is, &js, &[PlateDof::W, PlateDof::PsiX, PlateDof::PsiY])?;
    let count = n * m;
    if masters.len() != 3 * count {
        return Err(StructuralError::InvalidParameter("a patch centre lies on a supported edge".into()));
    }
    // 001 eq. 8: K_r = K_mm - K_ms K_ss^-1 K_sm (M is condensed too but the bodies carry the mass).
    let red = condense(&fe.m, None, &fe.k, &masters)?;
    let (bodies, reference) = patch_bodies(spec);
    // (w, psi_x, psi_y) -> measures (z, theta_y, theta_x) with signs (+, +, -).
    let map = [(2usize, 1.0), (4, 1.0), (3, -1.0)];
    let members: Vec<usize> = (0..count).filter(|&a| Some(a) != reference).collect();
    let nm = members.len();
    let mut k6 = DMatrix::zeros(6 * nm, 6 * nm);
    for (ma, &a) in members.iter().enumerate() {
        for (mb, &b) in members.iter().enumerate() {
            for (da, &(ra, sa)) in map.iter().enumerate() {
                for (db, &(rb, sb)) in map.iter().enumerate() {
                    k6[(6 * ma + ra, 6 * mb + rb)] = sa * sb * red.k[(3 * a + da, 3 * b + db)];
                }
            }
        }
    }
    let (dx, dy) = spec.patch();
    let membrane = spec.material.e * spec.t;
    for a in 0..nm {
        k6[(6 * a, 6 * a)] += membrane;
        k6[(6 * a + 1, 6 * a + 1)] += membrane;
        k6[(6 * a + 5, 6 * a + 5)] += membrane * (dx * dx + dy * dy) / 12.0;
    }
    // Discrete plate bending frequencies: condensed K with the lumped patch inertia
    // diag(m, J_yy, J_xx) on (w, psi_x, psi_y).
    let lumped = DMatrix::from_fn(3 * count, 3 * count, |r, c| {
        if r != c {
            return 0.0;
        }
        let body = &bodies[r / 3];
        [body.mass, body.inertia[1][1], body.inertia[0][0]][r % 3]
    });
    let frequencies = natural_frequencies_hz(&lumped, &red.k, 3 * count)?;
    // First elastic frequency (a free plate has three zero ones).
    let top = frequencies.last().copied().unwrap_or(0.0);
    let f1 = frequencies.iter().copied().find(|&f| f > 1e-6 * top).unwrap_or(top);
    let omega1 = 2.0 * std::f64::consts::PI * f1;
    let beta = if spec.damping_ratio > 0.0 { 2.0 * spec.damping_ratio / omega1 } else { 0.0 };
    let damping = &k6 * beta;
    Ok(DiscretePlate { bodies, condensed: red.k, reference, stiffness: k6, damping, beta, frequencies })
}
