//! Plate bending finite element: MITC4 Mindlin-Reissner quadrilateral on rectangular meshes.
//!
//! # Kinematics and conventions
//! Each node carries three DOFs, in this order: the transverse deflection `w` and two section
//! rotations `psi_x`, `psi_y`, with in-plane displacements u = z psi_x, v = z psi_y. Hence
//!  - curvatures  kappa = [psi_x,x ; psi_y,y ; psi_x,y + psi_y,x],
//!  - transverse shear strains  gamma_xz = w,x + psi_x,  gamma_yz = w,y + psi_y
//!    (a thin plate has psi_x -> -w,x, psi_y -> -w,y).
//!
//! Energies: bending  1/2 int kappa^T D_b kappa dA with D_b = D [[1, nu, 0], [nu, 1, 0],
//! [0, 0, (1-nu)/2]], D = E t^3 / (12 (1 - nu^2)); shear  1/2 int k_s G t |gamma|^2 dA with
//! G = E / (2 (1 + nu)), shear correction k_s = 5/6.
//!
//! # Element
//! Bilinear interpolation of w, psi_x, psi_y on a rectangle (natural coordinates xi, eta in
//! [-1, 1], nodes 1..4 at (-1,-1), (1,-1), (1,1), (-1,1)). Bending: exact 2x2 Gauss. Shear:
//! MITC4 (Bathe & Dvorkin 1985) assumed strains, which on a rectangle read
//!   gamma_xz(xi, eta) = (1-eta)/2 gamma_xz(0,-1) + (1+eta)/2 gamma_xz(0,1),
//!   gamma_yz(xi, eta) = (1-xi)/2  gamma_yz(-1,0) + (1+xi)/2  gamma_yz(1,0),
//! i.e. each shear strain is tied at the mid-points of the edges along which it is tangential.
//! This removes shear locking for thin plates and, unlike one-point reduced shear integration,
//! introduces no spurious zero-energy modes (a free element has exactly the 3 rigid modes).
//!
//! Mass: consistent, int N^T diag(rho t, rho t^3/12, rho t^3/12) N dA (translational inertia
//! and rotary inertia), 2x2 Gauss (exact for the bilinear products).
//!
//! # Plate
//! [`RectangularPlate`] meshes 0 <= x <= a, 0 <= y <= b with nx x ny equal rectangles; node
//! (i, j) at (i a/nx, j b/ny) has number j (nx+1) + i and full DOFs 3 node + {0: w, 1: psi_x,
//! 2: psi_y}. Each edge is free, clamped (all three DOFs zero) or simply supported ("hard":
//! w = 0 and the rotation about the edge normal zero, i.e. psi_y = 0 on x = const, psi_x = 0 on
//! y = const). The assembled [`PlateModel`] holds M, K over the unconstrained DOFs.

use nalgebra::{DMatrix, SMatrix};

use super::StructuralError;

/// Isotropic linear elastic plate material.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlateMaterial {
    /// Young's modulus (Pa).
    pub e: f64,
    /// Poisson's ratio.
    pub nu: f64,
    /// Density (kg/m^3).
    pub rho: f64,
    /// Transverse shear correction factor (5/6 for a homogeneous plate).
    pub shear_correction: f64,
}

impl PlateMaterial {
    pub fn new(e: f64, nu: f64, rho: f64) -> Self {
        PlateMaterial { e, nu, rho, shear_correction: 5.0 / 6.0 }
    }

    /// The aluminium of paper 001 / benchmarks.md section 9: E = 71.75 GPa, nu = 0.33, rho = 2740.
    pub fn aluminium_paper001() -> Self {
        Self::new(71.75e9, 0.33, 2740.0)
    }

    /// Flexural rigidity D = E t^3 / (12 (1 - nu^2)).
    pub fn flexural_rigidity(&self, t: f64) -> f64 {
        self.e * t.powi(3) / (12.0 * (1.0 - self.nu * self.nu))
    }

    fn validate(&self) -> Result<(), StructuralError> {
        let ok = self.e > 0.0 && self.rho > 0.0 && self.nu > -1.0 && self.nu < 0.5 && self.shear_correction > 0.0;
        let finite = [self.e, self.nu, self.rho, self.shear_correction].iter().all(|x| x.is_finite());
        if ok && finite { Ok(()) } else { Err(StructuralError::InvalidParameter(format!("plate material {self:?}"))) }
    }
}

/// Nodal DOF of the plate element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlateDof {
    W = 0,
    PsiX = 1,
    PsiY = 2,
}

/// Support of one plate edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeSupport {
    Free,
    /// w = psi_x = psi_y = 0.
    Clamped,
    /// "Hard" simple support: w = 0 and the rotation about the edge normal zero.
    SimplySupported,
}

/// Gauss points of the 2-point rule.
const G2: [f64; 2] = [-0.577_350_269_189_625_8, 0.577_350_269_189_625_8];
const NODES: [(f64, f64); 4] = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];

/// Shape functions and their x, y derivatives on a rectangle of half-sizes (ax, by).
fn shape(xi: f64, eta: f64, ax: f64, by: f64) -> ([f64; 4], [f64; 4], [f64; 4]) {
    let mut n = [0.0; 4];
    let mut nx = [0.0; 4];
    let mut ny = [0.0; 4];
    for (k, &(xk, ek)) in NODES.iter().enumerate() {
        n[k] = 0.25 * (1.0 + xi * xk) * (1.0 + eta * ek);
        nx[k] = 0.25 * xk * (1.0 + eta * ek) / ax;
        ny[k] = 0.25 * ek * (1.0 + xi * xk) / by;
    }
    (n, nx, ny)
}

/// gamma_xz row of the displacement-based shear strain at (xi, eta).
fn shear_xz(xi: f64, eta: f64, ax: f64, by: f64) -> SMatrix<f64, 1, 12> {
    let (n, nx, _) = shape(xi, eta, ax, by);
    let mut b = SMatrix::<f64, 1, 12>::zeros();
    for k in 0..4 {
        b[3 * k] = nx[k];
        b[3 * k + 1] = n[k];
    }
    b
}

/// gamma_yz row of the displacement-based shear strain at (xi, eta).
fn shear_yz(xi: f64, eta: f64, ax: f64, by: f64) -> SMatrix<f64, 1, 12> {
    let (n, _, ny) = shape(xi, eta, ax, by);
    let mut b = SMatrix::<f64, 1, 12>::zeros();
    for k in 0..4 {
        b[3 * k] = ny[k];
        b[3 * k + 2] = n[k];
    }
    b
}

/// MITC4 stiffness and consistent mass of a `hx` x `hy` rectangular element of thickness `t`.
/// Element DOFs: [w, psi_x, psi_y] at nodes (0,0), (hx,0), (hx,hy), (0,hy) (local coordinates).
pub fn mitc4_rectangle(hx: f64, hy: f64, t: f64, mat: &PlateMaterial) -> (SMatrix<f64, 12, 12>, SMatrix<f64, 12, 12>) {
    let (ax, by) = (0.5 * hx, 0.5 * hy);
    let d = mat.flexural_rigidity(t);
    let nu = mat.nu;
    let db = SMatrix::<f64, 3, 3>::new(d, nu * d, 0.0, nu * d, d, 0.0, 0.0, 0.0, 0.5 * (1.0 - nu) * d);
    let g = mat.e / (2.0 * (1.0 + nu));
    let ds = mat.shear_correction * g * t;
    let inertia = [mat.rho * t, mat.rho * t.powi(3) / 12.0, mat.rho * t.powi(3) / 12.0];
    // MITC4 tying points: gamma_xz at (0, -1), (0, 1); gamma_yz at (-1, 0), (1, 0).
    let (xz_b, xz_t) = (shear_xz(0.0, -1.0, ax, by), shear_xz(0.0, 1.0, ax, by));
    let (yz_l, yz_r) = (shear_yz(-1.0, 0.0, ax, by), shear_yz(1.0, 0.0, ax, by));

    let mut k = SMatrix::<f64, 12, 12>::zeros();
    let mut m = SMatrix::<f64, 12, 12>::zeros();
    let det = ax * by; // Jacobian, Gauss weights are 1
    for &xi in &G2 {
        for &eta in &G2 {
            let (n, nx, ny) = shape(xi, eta, ax, by);
            let mut bb = SMatrix::<f64, 3, 12>::zeros();
            let mut nn = SMatrix::<f64, 3, 12>::zeros();
            for a in 0..4 {
                bb[(0, 3 * a + 1)] = nx[a];
                bb[(1, 3 * a + 2)] = ny[a];
                bb[(2, 3 * a + 1)] = ny[a];
                bb[(2, 3 * a + 2)] = nx[a];
                for r in 0..3 {
                    nn[(r, 3 * a + r)] = n[a];
                }
            }
            let mut bs = SMatrix::<f64, 2, 12>::zeros();
            bs.row_mut(0).copy_from(&(xz_b * (0.5 * (1.0 - eta)) + xz_t * (0.5 * (1.0 + eta))));
            bs.row_mut(1).copy_from(&(yz_l * (0.5 * (1.0 - xi)) + yz_r * (0.5 * (1.0 + xi))));
            k += (bb.transpose() * db * bb + bs.transpose() * bs * ds) * det;
            let mut rho_n = nn;
            for (r, &mass) in inertia.iter().enumerate() {
                let mut row = rho_n.row_mut(r);
                row *= mass;
            }
            m += nn.transpose() * rho_n * det;
        }
    }
    (k, m)
}

/// A rectangular plate 0 <= x <= a, 0 <= y <= b, thickness t, meshed nx x ny.
#[derive(Debug, Clone, PartialEq)]
pub struct RectangularPlate {
    /// Length along x (m).
    pub a: f64,
    /// Width along y (m).
    pub b: f64,
    /// Thickness (m).
    pub t: f64,
    pub material: PlateMaterial,
    pub nx: usize,
    pub ny: usize,
    /// Supports of the edges x = 0, x = a, y = 0, y = b.
    pub edges: [EdgeSupport; 4],
}

impl RectangularPlate {
    /// Plate with all edges free.
    pub fn new(a: f64, b: f64, t: f64, material: PlateMaterial, nx: usize, ny: usize) -> Self {
        RectangularPlate { a, b, t, material, nx, ny, edges: [EdgeSupport::Free; 4] }
    }

    /// Cantilever plate: clamped along x = 0, the other edges free.
    pub fn cantilever(a: f64, b: f64, t: f64, material: PlateMaterial, nx: usize, ny: usize) -> Self {
        Self::new(a, b, t, material, nx, ny).with_edges([
            EdgeSupport::Clamped,
            EdgeSupport::Free,
            EdgeSupport::Free,
            EdgeSupport::Free,
        ])
    }

    /// Sets the supports of the edges x = 0, x = a, y = 0, y = b.
    pub fn with_edges(mut self, edges: [EdgeSupport; 4]) -> Self {
        self.edges = edges;
        self
    }

    /// Assembles M and K and removes the supported DOFs.
    pub fn assemble(&self) -> Result<PlateModel, StructuralError> {
        self.material.validate()?;
        let dims_ok = [self.a, self.b, self.t].iter().all(|x| *x > 0.0 && x.is_finite());
        if !dims_ok || self.nx == 0 || self.ny == 0 {
            return Err(StructuralError::InvalidParameter(format!(
                "plate {} x {} x {} with mesh {} x {}",
                self.a, self.b, self.t, self.nx, self.ny
            )));
        }
        let (nx, ny) = (self.nx, self.ny);
        let nodes = (nx + 1) * (ny + 1);
        let ndof = 3 * nodes;
        let (hx, hy) = (self.a / nx as f64, self.b / ny as f64);
        let (ke, me) = mitc4_rectangle(hx, hy, self.t, &self.material);
        let mut k = DMatrix::zeros(ndof, ndof);
        let mut m = DMatrix::zeros(ndof, ndof);
        for ej in 0..ny {
            for ei in 0..nx {
                let en = [(ei, ej), (ei + 1, ej), (ei + 1, ej + 1), (ei, ej + 1)];
                let dofs: [usize; 12] = std::array::from_fn(|l| 3 * (en[l / 3].1 * (nx + 1) + en[l / 3].0) + l % 3);
                for p in 0..12 {
                    for q in 0..12 {
                        k[(dofs[p], dofs[q])] += ke[(p, q)];
                        m[(dofs[p], dofs[q])] += me[(p, q)];
                    }
                }
            }
        }
        // Supports.
        let mut fixed = vec![false; ndof];
        for j in 0..=ny {
            for i in 0..=nx {
                let node = j * (nx + 1) + i;
                let on = [i == 0, i == nx, j == 0, j == ny];
                for (e, &support) in self.edges.iter().enumerate() {
                    if !on[e] {
                        continue;
                    }
                    let x_edge = e < 2;
                    let dofs: &[usize] = match (support, x_edge) {
                        (EdgeSupport::Free, _) => &[],
                        (EdgeSupport::Clamped, _) => &[0, 1, 2],
                        (EdgeSupport::SimplySupported, true) => &[0, 2],
                        (EdgeSupport::SimplySupported, false) => &[0, 1],
                    };
                    for &d in dofs {
                        fixed[3 * node + d] = true;
                    }
                }
            }
        }
        let free: Vec<usize> = (0..ndof).filter(|&g| !fixed[g]).collect();
        let mut reduced_index = vec![None; ndof];
        for (r, &g) in free.iter().enumerate() {
            reduced_index[g] = Some(r);
        }
        let k_free = DMatrix::from_fn(free.len(), free.len(), |r, c| k[(free[r], free[c])]);
        let m_free = DMatrix::from_fn(free.len(), free.len(), |r, c| m[(free[r], free[c])]);
        Ok(PlateModel { plate: self.clone(), k: k_free, m: m_free, free_dofs: free, reduced_index })
    }
}

/// Assembled plate model over the unconstrained DOFs.
#[derive(Debug, Clone)]
pub struct PlateModel {
    pub plate: RectangularPlate,
    /// Stiffness over the free DOFs.
    pub k: DMatrix<f64>,
    /// Consistent mass over the free DOFs.
    pub m: DMatrix<f64>,
    /// Full DOF number (3 node + local) of each free DOF, ascending.
    pub free_dofs: Vec<usize>,
    reduced_index: Vec<Option<usize>>,
}

impl PlateModel {
    /// Number of free DOFs.
    pub fn len(&self) -> usize {
        self.free_dofs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.free_dofs.is_empty()
    }

    /// Node number of grid point (i, j), 0 <= i <= nx, 0 <= j <= ny.
    pub fn node(&self, i: usize, j: usize) -> usize {
        j * (self.plate.nx + 1) + i
    }

    /// Coordinates (x, y) of grid point (i, j).
    pub fn position(&self, i: usize, j: usize) -> (f64, f64) {
        (self.plate.a * i as f64 / self.plate.nx as f64, self.plate.b * j as f64 / self.plate.ny as f64)
    }

    /// Index into M, K of DOF `dof` at grid point (i, j); None if supported (removed) or
    /// outside the mesh.
    pub fn dof(&self, i: usize, j: usize, dof: PlateDof) -> Option<usize> {
        if i > self.plate.nx || j > self.plate.ny {
            return None;
        }
        self.reduced_index[3 * self.node(i, j) + dof as usize]
    }

    /// Indices into M, K of the DOFs `dofs` at the grid points (i, j) for i in `is`, j in `js`
    /// (j outer, i inner, DOFs innermost), skipping supported DOFs: a master set for
    /// [`condense`](super::guyan::condense). Errors if a grid index is outside the mesh.
    pub fn grid_dofs(&self, is: &[usize], js: &[usize], dofs: &[PlateDof]) -> Result<Vec<usize>, StructuralError> {
        let mut out = Vec::with_capacity(is.len() * js.len() * dofs.len());
        for &j in js {
            for &i in is {
                if i > self.plate.nx || j > self.plate.ny {
                    return Err(StructuralError::InvalidParameter(format!(
                        "grid point ({i}, {j}) outside the {} x {} mesh",
                        self.plate.nx, self.plate.ny
                    )));
                }
                out.extend(dofs.iter().filter_map(|&d| self.dof(i, j, d)));
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DVector, SymmetricEigen};

    fn mat() -> PlateMaterial {
        PlateMaterial::aluminium_paper001()
    }

    #[test]
    fn free_element_has_exactly_three_rigid_modes() {
        for &(hx, hy, t) in &[(0.3, 0.3, 0.02), (0.2, 0.5, 0.01), (1.0, 0.4, 0.2)] {
            let (k, m) = mitc4_rectangle(hx, hy, t, &mat());
            assert!((k - k.transpose()).amax() < 1e-9 * k.amax());
            let mut ev: Vec<f64> = SymmetricEigen::new(k).eigenvalues.iter().copied().collect();
            ev.sort_by(f64::total_cmp);
            let big = ev[11];
            assert!(ev[..3].iter().all(|x| x.abs() < 1e-10 * big), "{ev:?}");
            assert!(ev[3] > 1e-7 * big, "spurious zero-energy mode: {ev:?}");
            // Rigid modes: translation w = 1, rotations w = x (psi_x = -1), w = y (psi_y = -1).
            let xy = [(0.0, 0.0), (hx, 0.0), (hx, hy), (0.0, hy)];
            for mode in 0..3 {
                let u = DVector::from_fn(12, |p, _| {
                    let (x, y) = xy[p / 3];
                    match (mode, p % 3) {
                        (0, 0) => 1.0,
                        (1, 0) => x,
                        (1, 1) => -1.0,
                        (2, 0) => y,
                        (2, 2) => -1.0,
                        _ => 0.0,
                    }
                });
                assert!((k * &u).amax() < 1e-9 * big);
            }
            // Mass: total translational mass rho t A and rotary inertia rho t^3/12 A.
            let one = |d: usize| DVector::from_fn(12, |p, _| if p % 3 == d { 1.0 } else { 0.0 });
            let area = hx * hy;
            let mt = (one(0).transpose() * m * one(0))[0];
            let mr = (one(1).transpose() * m * one(1))[0];
            assert!((mt - mat().rho * t * area).abs() < 1e-12 * mt);
            assert!((mr - mat().rho * t.powi(3) / 12.0 * area).abs() < 1e-12 * mr);
        }
    }

    #[test]
    fn constant_curvature_patch() {
        // Pure bending w = -x^2/2 (psi_x = x, kappa_x = 1, no shear): element energy = D A / 2.
        let (hx, hy, t) = (0.4, 0.25, 0.02);
        let (k, _) = mitc4_rectangle(hx, hy, t, &mat());
        let xy = [(0.0, 0.0), (hx, 0.0), (hx, hy), (0.0, hy)];
        let u = DVector::from_fn(12, |p, _| {
            let (x, _) = xy[p / 3];
            match p % 3 {
                0 => -0.5 * x * x,
                1 => x,
                _ => 0.0,
            }
        });
        let energy = 0.5 * (u.transpose() * k * &u)[0];
        // Bilinear w cannot represent x^2 exactly; MITC4 samples gamma_xz at the edge mid-points
        // where w,x (chord slope) equals -x_mid = -psi_x, so the shear strain vanishes there.
        let d = mat().flexural_rigidity(t);
        let exact = 0.5 * d * hx * hy;
        assert!((energy - exact).abs() < 1e-10 * exact, "{energy} vs {exact}");
    }

    #[test]
    fn assembly_bookkeeping_and_errors() {
        let p = RectangularPlate::cantilever(1.8, 1.5, 0.02, mat(), 3, 2);
        let model = p.assemble().unwrap();
        assert_eq!(model.len(), 3 * (4 * 3) - 3 * 3);
        assert_eq!(model.dof(0, 1, PlateDof::W), None);
        assert_eq!(model.dof(1, 0, PlateDof::W), Some(0));
        assert_eq!(model.dof(3, 2, PlateDof::PsiY), Some(model.len() - 1));
        assert_eq!(model.dof(4, 0, PlateDof::W), None);
        let grid = model.grid_dofs(&[0, 2], &[0, 2], &[PlateDof::W, PlateDof::PsiX]).unwrap();
        assert_eq!(
            grid,
            vec![
                model.dof(2, 0, PlateDof::W).unwrap(),
                model.dof(2, 0, PlateDof::PsiX).unwrap(),
                model.dof(2, 2, PlateDof::W).unwrap(),
                model.dof(2, 2, PlateDof::PsiX).unwrap()
            ]
        );
        assert!(model.grid_dofs(&[4], &[0], &[PlateDof::W]).is_err());
        let mass = model.m.clone();
        assert!(mass.clone().cholesky().is_some());
        assert!(model.k.clone().cholesky().is_some(), "cantilever stiffness must be positive definite");
        let ss = RectangularPlate::new(1.0, 1.0, 0.01, mat(), 2, 2)
            .with_edges([EdgeSupport::SimplySupported; 4])
            .assemble()
            .unwrap();
        // 9 nodes; 8 boundary nodes lose w; corner nodes lose both rotations, mid-edge nodes one.
        assert_eq!(ss.len(), 27 - 8 - 4 * 2 - 4);
        assert!(RectangularPlate::new(1.0, 1.0, 0.01, mat(), 0, 2).assemble().is_err());
        assert!(RectangularPlate::new(1.0, -1.0, 0.01, mat(), 2, 2).assemble().is_err());
        assert!(RectangularPlate::new(1.0, 1.0, 0.01, PlateMaterial::new(1.0, 0.6, 1.0), 2, 2).assemble().is_err());
    }
}
