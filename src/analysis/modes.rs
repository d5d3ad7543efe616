//! Natural frequencies of a constrained system linearised about a state.
//!
//! With M = dR/da, K = dR/dq + (Phi_q^T lambda)_q at the state (the Newton-matrix blocks of
//! the `Dynamics` contract) and N an orthonormal basis of the null space of Phi_q (admissible
//! motions), the reduced problem is  N^T K N phi = omega^2 N^T M N phi.  K is symmetrised
//! (about a non-equilibrium state, or with follower loads, it need not be symmetric).
//! Dense: meant for models of up to a few thousand coordinates. The same reduced problem
//! tells whether a static equilibrium is stable (`unstable_directions`).

use crate::linalg::symmetric_eigen;
use faer::linalg::triangular_solve::{solve_lower_triangular_in_place, solve_upper_triangular_in_place};
use nalgebra::DMatrix;

use crate::integrators::{Dynamics, TangentCoefficients, stiffest_ratio};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModesError {
    #[error(
        "the mass matrix restricted to the admissible motions is not positive definite (a coordinate without mass?)"
    )]
    MassNotPositive,
    #[error("the system has no degrees of freedom left by its constraints")]
    NoFreedom,
    #[error(
        "the model has {0} coordinates; natural frequencies are computed densely, for at most {MAX_COORDINATES} \
         (about 1000 planar beam elements): use fewer elements"
    )]
    TooLarge(usize),
    #[error(
        "the symmetric eigenvalue iteration failed (a matrix entry is NaN or infinite: check the model's values at \
         this state)"
    )]
    Eigen,
}

/// The most coordinates of a model whose modes are computed: the problem is dense, its
/// matrices (n + m)^2 and its eigensolver O(n^3) (3000 coordinates: about a minute). A probe's
/// 250,000-coordinate beam aborted asking for 500 GB.
pub const MAX_COORDINATES: usize = 3100;

/// Newton-matrix block (n x n) for the given coefficients.
fn block(
    sys: &dyn Dynamics,
    x: (&[f64], &[f64], &[f64], &[f64]),
    t: f64,
    c: TangentCoefficients,
) -> (DMatrix<f64>, DMatrix<f64>) {
    let (q, v, a, lambda) = x;
    let n = sys.coordinates();
    let m = sys.constraints();
    let mut mat = sys.newton_pattern();
    sys.newton_matrix(q, v, a, lambda, t, c, &mut mat);
    let dense = mat.to_dense();
    let size = n + m;
    let top = DMatrix::from_fn(n, n, |i, j| dense[i * size + j]);
    let jac = DMatrix::from_fn(m, n, |i, j| dense[(n + i) * size + j]);
    (top, jac)
}

/// A basis N (n x (n - rank)) of the null space of the constraint Jacobian `jac` (m x n) by
/// coordinate partitioning (Wehage & Haug, J. Mech. Des. 104, 1982): Gauss-Jordan elimination
/// with complete pivoting picks the dependent coordinates, and each column of N is an
/// independent coordinate's unit vector with the dependent ones following it (-J_d^-1 J_i).
/// Unlike an orthonormal basis (eigenvectors of J^T J, used before), N does not mix unrelated
/// coordinates: a clamped coordinate is left out exactly, so the soft bending directions of a
/// fine beam mesh do not pick up round-off times its axial stiffness (a 400-element steel
/// cantilever's first frequency came out 14 % low, its first three ω² off by about 1e3 1/s²).
/// Rows whose pivot falls below 1e-12 of the largest entry are redundant.
fn null_space_basis(jac: &DMatrix<f64>) -> Result<DMatrix<f64>, ModesError> {
    let (m, n) = jac.shape();
    let mut r = jac.clone();
    let scale = r.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    let (mut dependent, mut used) = (Vec::new(), vec![false; n]);
    for row in 0..m {
        let mut best = (0.0f64, row, 0);
        for i in row..m {
            for j in (0..n).filter(|&j| !used[j]) {
                if r[(i, j)].abs() > best.0 {
                    best = (r[(i, j)].abs(), i, j);
                }
            }
        }
        let independent = best.0 > 1e-12 * scale;
        if !independent {
            break;
        }
        let (_, pi, pj) = best;
        r.swap_rows(row, pi);
        let p = r[(row, pj)];
        for j in 0..n {
            r[(row, j)] /= p;
        }
        for i in (0..m).filter(|&i| i != row) {
            let f = r[(i, pj)];
            if f != 0.0 {
                for j in 0..n {
                    let x = r[(row, j)];
                    r[(i, j)] -= f * x;
                }
            }
        }
        used[pj] = true;
        dependent.push(pj);
    }
    let free: Vec<usize> = (0..n).filter(|&j| !used[j]).collect();
    if free.is_empty() {
        return Err(ModesError::NoFreedom);
    }
    let mut basis = DMatrix::zeros(n, free.len());
    for (c, &j) in free.iter().enumerate() {
        basis[(j, c)] = 1.0;
        for (k, &d) in dependent.iter().enumerate() {
            basis[(d, c)] = -r[(k, j)];
        }
    }
    Ok(basis)
}

/// `x` as a faer matrix, for its blocked solvers.
fn to_faer(x: &DMatrix<f64>) -> faer::Mat<f64> {
    faer::Mat::from_fn(x.nrows(), x.ncols(), |i, j| x[(i, j)])
}

/// The direct problem A = L^-1 K_r L^-T with M_r = L L^T (M_r symmetrised), and L. A by two
/// blocked triangular solves in faer (forming L^-1 by nalgebra's unblocked inverse was half of
/// a 1000-element beam's `modes`): Y = L^-1 (L^-1 K_r)^T = A^T.
fn direct_problem(m_r: &DMatrix<f64>, k_r: &DMatrix<f64>) -> Result<(DMatrix<f64>, faer::Mat<f64>), ModesError> {
    let m_sym = to_faer(&(0.5 * (m_r + m_r.transpose())));
    let llt = m_sym.llt(faer::Side::Lower).map_err(|_| ModesError::MassNotPositive)?;
    Ok((similar(llt.L(), k_r), llt.L().to_owned()))
}

/// L^-1 X L^-T (X square, L lower triangular).
fn similar(l: faer::MatRef<'_, f64>, x: &DMatrix<f64>) -> DMatrix<f64> {
    let mut x = to_faer(x);
    solve_lower_triangular_in_place(l, x.as_mut(), faer::Par::Seq);
    let mut y = x.transpose().to_owned();
    solve_lower_triangular_in_place(l, y.as_mut(), faer::Par::Seq);
    DMatrix::from_fn(y.ncols(), y.nrows(), |i, j| y[(j, i)])
}

/// The reduced mass and stiffness N^T M N, N^T K N and the basis N of the admissible motions.
fn reduced_matrices(
    sys: &dyn Dynamics,
    q: &[f64],
    v: &[f64],
    a: &[f64],
    lambda: &[f64],
    t: f64,
) -> Result<[DMatrix<f64>; 3], ModesError> {
    let n = sys.coordinates();
    if n > MAX_COORDINATES {
        return Err(ModesError::TooLarge(n));
    }
    let x = (q, v, a, lambda);
    let (mass, jac) = block(sys, x, t, TangentCoefficients { mass: 1.0, damping: 0.0, stiffness: 0.0, lambda: 0.0 });
    let (stiff, _) = block(sys, x, t, TangentCoefficients { mass: 0.0, damping: 0.0, stiffness: 1.0, lambda: 0.0 });
    let basis = if jac.nrows() == 0 { DMatrix::identity(n, n) } else { null_space_basis(&jac)? };
    let m_r = basis.transpose() * &mass * &basis;
    let k_r = basis.transpose() * &stiff * &basis;
    Ok([m_r, k_r, basis])
}

/// The Cholesky factor of the symmetrised K_r if it is positive definite beyond round-off
/// (`resolved_lowest`).
fn positive_definite(k_r: &DMatrix<f64>) -> Option<faer::linalg::solvers::Llt<f64>> {
    const PIVOT_ROUNDOFF: f64 = 10.0;
    let k_sym = to_faer(&(0.5 * (k_r + k_r.transpose())));
    let llt = k_sym.llt(faer::Side::Lower).ok()?;
    let (l, n) = (llt.L(), k_r.nrows() as f64);
    let pivot_above_roundoff =
        |i: usize| l[(i, i)] * l[(i, i)] > PIVOT_ROUNDOFF * n * f64::EPSILON * k_sym[(i, i)].abs();
    (0..l.nrows()).all(pivot_above_roundoff).then_some(llt)
}

/// The inverse problem, for the lowest omega^2 where the direct one cannot resolve them:
/// with K_r = L_K L_K^T (positive definite: no rigid-body mode, no instability), the
/// eigenvalues mu = 1/omega^2 of L_K^-1 M_r L_K^-T are found to round-off of the largest mu,
/// 1/omega_1^2, so the lowest frequencies keep their digits however stiff the highest modes
/// are. The direct problem's eigenvalues are known to n ulps of the largest omega^2 only: a
/// slender shear-deformable ANCF strip (1 m x 10 mm x 1 mm) has cross-section modes 1e17 times
/// its fundamental's omega^2, which printed 0.15 % off at 40 elements and 0 Hz at 80 (probe
/// 39b). The k-th lowest omega^2 of the direct problem is replaced by its inverse twin where
/// that one is the better resolved (`Inverse::takes`). None if K_r is not positive definite
/// beyond round-off: a
/// Cholesky pivot L_ii^2 within `PIVOT_ROUNDOFF` n ulps of its diagonal entry K_ii is the
/// cancellation of a rigid-body mode or a mechanism (a free beam's K_r factorizes, with such
/// pivots, into round-off eigenvalues); then the direct problem's values stand, with its
/// round-off taken as 0 (`hertz`). A real soft direction keeps its pivot far above that: an
/// ANCF cantilever with GA = 1e12 against EI = 100 has pivots down to 2.6e-11 of their
/// diagonal, 70 times its 20-element mesh's 10 n ulps.
struct Inverse {
    /// Eigenvalues mu and eigenvectors z of L_K^-1 M_r L_K^-T.
    eig: nalgebra::SymmetricEigen<f64, nalgebra::Dyn>,
    /// The eigenvalues' indices by decreasing mu (increasing omega^2).
    order: Vec<usize>,
    /// L_K.
    l: faer::Mat<f64>,
    /// The largest mu, and the largest |omega^2| of the direct problem.
    largest_mu: f64,
    largest_w2: f64,
}

impl Inverse {
    fn new(m_r: &DMatrix<f64>, k_r: &DMatrix<f64>, direct_w2: impl Iterator<Item = f64>) -> Option<Self> {
        let llt = positive_definite(k_r)?;
        let b = similar(llt.L(), &(0.5 * (m_r + m_r.transpose())));
        let eig = symmetric_eigen(0.5 * (&b + b.transpose()))?;
        let mut order: Vec<usize> = (0..eig.eigenvalues.len()).collect();
        order.sort_by(|&i, &j| eig.eigenvalues[j].total_cmp(&eig.eigenvalues[i]));
        let largest_mu = order.first().map(|&i| eig.eigenvalues[i])?;
        let largest_w2 = direct_w2.fold(0.0f64, |m, x| m.max(x.abs()));
        (largest_mu > 0.0).then(|| Inverse { eig, order, l: llt.L().to_owned(), largest_mu, largest_w2 })
    }

    /// Whether omega^2 = 1/mu is better resolved here than by the direct problem: each resolves
    /// omega^2 to about n eps of its own largest value, so here where 1/mu is below the
    /// geometric mean of the extremes, and mu is above this problem's round-off.
    fn takes(&self, mu: f64) -> bool {
        let n = self.order.len() as f64;
        mu > n * f64::EPSILON * self.largest_mu && 1.0 / mu <= (self.largest_w2 / self.largest_mu).sqrt()
    }
}

/// The direct problem's omega^2 (ascending, `direct`) with the lowest taken from the inverse
/// problem where it resolves them better; None (`direct` unchanged) without one.
fn resolved_lowest(m_r: &DMatrix<f64>, k_r: &DMatrix<f64>, direct: &mut [f64]) -> Option<()> {
    let inverse = Inverse::new(m_r, k_r, direct.iter().copied()).filter(|i| i.order.len() == direct.len())?;
    for (w2, &i) in direct.iter_mut().zip(&inverse.order) {
        let mu = inverse.eig.eigenvalues[i];
        if inverse.takes(mu) {
            *w2 = 1.0 / mu;
        }
    }
    Some(())
}

/// omega^2 (1/s^2) and the shape phi over the coordinates.
pub type Mode = (f64, Vec<f64>);

/// The modes of the reduced problem at the state, ascending in omega^2: each omega^2 (1/s^2)
/// with its shape phi over the coordinates, an admissible motion (Phi_q phi = 0) normalized
/// to unit modal mass, phi^T M phi = 1 (K symmetrised as in `squared_frequencies`); and
/// whether the lowest were resolved by the inverse problem (as in `squared_frequencies`).
pub fn mode_shapes(
    sys: &dyn Dynamics,
    q: &[f64],
    v: &[f64],
    a: &[f64],
    lambda: &[f64],
    t: f64,
) -> Result<(Vec<Mode>, bool), ModesError> {
    let [m_r, k_r, basis] = reduced_matrices(sys, q, v, a, lambda, t)?;
    let (a, l) = direct_problem(&m_r, &k_r)?;
    let eig = symmetric_eigen(0.5 * (&a + a.transpose())).ok_or(ModesError::Eigen)?;
    // y = L^-T z for every eigenvector z at once, then phi = N y.
    let phi = &basis * back_substituted(l.as_ref(), &eig.eigenvectors);
    let mut modes: Vec<Mode> =
        eig.eigenvalues.iter().enumerate().map(|(k, &w2)| (w2, phi.column(k).iter().copied().collect())).collect();
    modes.sort_by(|x, y| x.0.total_cmp(&y.0));
    // The lowest from the inverse problem where it resolves them better (`resolved_lowest`):
    // its eigenvector z of L_K^-1 M_r L_K^-T gives y = L_K^-T z with y^T M_r y = mu, so
    // phi = N y / sqrt(mu) has unit modal mass.
    let inverse = Inverse::new(&m_r, &k_r, modes.iter().map(|m| m.0)).filter(|i| i.order.len() == modes.len());
    let Some(inverse) = inverse else { return Ok((modes, false)) };
    let y = basis * back_substituted(inverse.l.as_ref(), &inverse.eig.eigenvectors);
    for (mode, &i) in modes.iter_mut().zip(&inverse.order) {
        let mu = inverse.eig.eigenvalues[i];
        if inverse.takes(mu) {
            *mode = (1.0 / mu, y.column(i).iter().map(|x| x / mu.sqrt()).collect());
        }
    }
    Ok((modes, true))
}

/// L^-T Z (L lower triangular).
fn back_substituted(l: faer::MatRef<'_, f64>, z: &DMatrix<f64>) -> DMatrix<f64> {
    let mut y = faer::Mat::from_fn(z.nrows(), z.ncols(), |i, j| z[(i, j)]);
    solve_upper_triangular_in_place(l.transpose(), y.as_mut(), faer::Par::Seq);
    DMatrix::from_fn(y.nrows(), y.ncols(), |i, j| y[(i, j)])
}

/// The squared circular frequencies omega^2 (1/s^2, ascending) of the reduced problem
/// N^T K N phi = omega^2 N^T M N phi at the state, K symmetrised (about a non-equilibrium
/// state, or with follower loads, it need not be symmetric), and whether the lowest were
/// resolved by the inverse problem (`resolved_lowest`: K_r positive definite).
pub fn squared_frequencies(
    sys: &dyn Dynamics,
    q: &[f64],
    v: &[f64],
    a: &[f64],
    lambda: &[f64],
    t: f64,
) -> Result<(Vec<f64>, bool), ModesError> {
    let [m_r, k_r, _] = reduced_matrices(sys, q, v, a, lambda, t)?;
    let (a, _) = direct_problem(&m_r, &k_r)?;
    let eig = symmetric_eigen(0.5 * (&a + a.transpose())).ok_or(ModesError::Eigen)?;
    let mut w2: Vec<f64> = eig.eigenvalues.iter().copied().collect();
    w2.sort_by(f64::total_cmp);
    let resolved = resolved_lowest(&m_r, &k_r, &mut w2).is_some();
    Ok((w2, resolved))
}

/// omega^2 at or below n ulps of the largest |omega^2| (n the number of admissible
/// directions) is round-off, taken as 0: the symmetric eigensolver's absolute error is bounded
/// by the norm of its backward error, about n ulps of the largest eigenvalue for Householder
/// tridiagonalization (Weyl's inequality |d lambda| <= ||E||_2: Golub & Van Loan, Matrix
/// computations, 2013, ch. 8). A free-free beam's rigid-body modes come out at 1e-16 of the
/// largest omega^2 and print as 0 (they printed as 2.47e-4 and 3.51e-4 Hz in a probe). The
/// fixed 1e-12 used before hid a fine mesh's real low modes: a strip 5 % below its lateral
/// buckling load, 0.2 Hz against a largest 2.5e5 Hz with 40 elements, printed 0 (a probe).
pub fn roundoff_frequency_squared(n: usize, largest: f64) -> f64 {
    n as f64 * f64::EPSILON * largest
}

/// Natural frequencies in Hz, ascending; rigid-body modes, and any omega^2 within round-off
/// of 0 (`roundoff_frequency_squared`), give 0. An unstable direction (omega^2 < 0, beyond that
/// round-off) gives a negative number, -sqrt(-omega^2) / (2 pi): its rate of divergence
/// over 2 pi, so that it cannot be mistaken for a rigid-body mode (a probe's inverted 3D
/// pendulum printed 0, 0, 0).
pub fn natural_frequencies(
    sys: &dyn Dynamics,
    q: &[f64],
    v: &[f64],
    a: &[f64],
    lambda: &[f64],
    t: f64,
) -> Result<Vec<f64>, ModesError> {
    let (w2, resolved) = squared_frequencies(sys, q, v, a, lambda, t)?;
    Ok(hertz(&w2, resolved))
}

/// The frequencies (Hz) of the squared circular frequencies `w2` of one eigenproblem, as
/// `natural_frequencies` gives them; `resolved` by the inverse problem (K_r positive definite),
/// no omega^2 is round-off of 0.
pub fn hertz(w2: &[f64], resolved: bool) -> Vec<f64> {
    let largest = w2.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let roundoff = if resolved { 0.0 } else { roundoff_frequency_squared(w2.len(), largest) };
    w2.iter()
        .map(
            |&w2| if w2.abs() <= roundoff { 0.0 } else { w2.signum() * w2.abs().sqrt() / (2.0 * std::f64::consts::PI) },
        )
        .collect()
}

/// Equilibria of more coordinates than this are not checked for stability (the check is a
/// dense eigenproblem, O(n^3), at every static equilibrium written).
pub const STABILITY_CHECK_COORDINATES: usize = 400;

/// The number of admissible directions in which the equilibrium (q, lambda) at t is unstable:
/// eigenvalues omega^2 of the reduced problem (`direct_problem`, K as it is, not
/// symmetrised) that are real and negative, below -100 n ulps of the largest |omega^2|, the
/// eigensolver's round-off (see `roundoff_frequency_squared`): divergence, the stiffness
/// N^T K N negative in that direction. The symmetric part alone is not the test: a 3D
/// cantilever rolled by an end moment of fixed axis (a probe's `roll3d.toml`) has an
/// indefinite symmetric part from half a turn on while every omega^2 is real and positive.
/// Flutter (complex omega^2 from unsymmetric load stiffness: that same model has a complex
/// pair from M = 0.8 * 2 pi EI / L, its real part negative at M = 2 pi EI / L) is not counted. None if not determined (more than
/// STABILITY_CHECK_COORDINATES coordinates, or a mass matrix that is not positive definite).
pub fn unstable_directions(sys: &dyn Dynamics, q: &[f64], lambda: &[f64], t: f64) -> Option<usize> {
    stability(sys, q, lambda, t).map(|s| s.unstable)
}

/// How an equilibrium responds to a disturbance, counted in admissible directions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stability {
    /// Of negative stiffness (`unstable_directions`).
    pub unstable: usize,
    /// Of no stiffness: omega^2 within the round-off `natural_frequencies` prints as 0 (a free
    /// body's rigid motions, a mechanism its loads do not move). The static Newton iteration
    /// finds such a tangent singular only where it is exactly so (a ball on a frictionless
    /// floor); a free flexible beam's rigid motions leave round-off pivots.
    pub neutral: usize,
}

/// `unstable_directions` and the neutral directions, from one eigenproblem. None where
/// `unstable_directions` is.
pub fn stability(sys: &dyn Dynamics, q: &[f64], lambda: &[f64], t: f64) -> Option<Stability> {
    let n = sys.coordinates();
    if n > STABILITY_CHECK_COORDINATES {
        return None;
    }
    let zeros = vec![0.0; n];
    // A symmetric stiffness positive definite beyond round-off has no unstable and no neutral
    // direction, however far its spectrum spreads (a slender ANCF cantilever, clamped and
    // unloaded, was called neutral: its fundamental's omega^2 lay within the direct problem's
    // round-off, probe 39b).
    let [m_r, k_r, _] = reduced_matrices(sys, q, &zeros, &zeros, lambda, t).ok()?;
    let skew = (&k_r - k_r.transpose()).amax();
    if skew <= 1e-12 * k_r.amax() && positive_definite(&k_r).is_some() {
        return Some(Stability { unstable: 0, neutral: 0 });
    }
    // The reduced problem A = L^-1 K_r L^-T (M_r = L L^T): its eigenvalues are omega^2. K_r
    // includes (Phi_q^T lambda)_q and the load stiffness; not symmetrised (follower loads and
    // loads of fixed direction on rotations make it unsymmetric).
    let (a, _) = direct_problem(&m_r, &k_r).ok()?;
    // faer's eigenvalues (a bounded QR iteration that reports non-convergence): nalgebra's
    // `complex_eigenvalues` did not return on the discrete plate's reduced problem (147
    // coordinates; `flexfmu modes models/plate_discrete.toml` hung).
    let w2 = to_faer(&a).eigenvalues().ok()?;
    // The scale of omega^2 whose round-off the test must not count: the largest eigenvalue, or
    // the stiffest coordinate's K_ii / M_ii where the admissible directions are all neutral
    // (their omega^2 is all round-off, the largest too: a bar resting on two supports, free
    // sideways, flickered between unstable and stable from row to row).
    let largest = w2.iter().fold(0.0f64, |m, x| m.max(x.re.hypot(x.im))).max(stiffest_ratio(
        sys,
        (q, lambda, t),
        &mut sys.newton_pattern(),
    ));
    let bound = 100.0 * roundoff_frequency_squared(w2.len(), largest);
    let beyond = w2.iter().filter(|x| x.re < -bound && x.im.abs() <= bound).count();
    // Within the bound, the worst case of the whole spectrum's round-off, a negative omega^2
    // counts where an eigenvector shows it with a residual below a tenth of it: the bound hid
    // a strip's lateral-torsional buckling mode (-0.76 1/s^2 against a largest omega^2 of
    // about 1e12) until 3.5 % past its load (a probe), while `modes` showed it.
    let within = w2.iter().filter(|x| x.re < 0.0 && x.re >= -bound && x.im.abs() <= bound);
    let floor = roundoff_frequency_squared(w2.len(), largest);
    let unstable = beyond + within.filter(|x| shows_negative(&a, x.re, floor)).count();
    let neutral = w2.iter().filter(|x| x.re.hypot(x.im) <= floor).count();
    Some(Stability { unstable, neutral })
}

/// Whether inverse iteration on A shifted by `shift` (an eigenvalue estimate) finds an
/// eigenvector whose Rayleigh quotient is negative beyond `floor` (the round-off `modes` prints
/// as 0: a neutral direction's quotient is its noise, and a bar resting on two supports was
/// "unstable" at one row and stable at the next) with a residual |A x - rho x| below a tenth
/// of |rho|.
fn shows_negative(a: &DMatrix<f64>, shift: f64, floor: f64) -> bool {
    let n = a.nrows();
    let lu = (a - DMatrix::<f64>::identity(n, n) * shift).lu();
    let mut x = nalgebra::DVector::from_element(n, 1.0 / (n as f64).sqrt());
    for _ in 0..3 {
        let Some(y) = lu.solve(&x) else { return false };
        let norm = y.norm();
        if !(norm.is_finite() && norm > 0.0) {
            return false;
        }
        x = y / norm;
    }
    let ax = a * &x;
    let rho = x.dot(&ax);
    rho < -floor && (ax - &x * rho).norm() <= 0.1 * rho.abs()
}
