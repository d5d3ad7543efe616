//! Euler-Bernoulli beam elements in bending (2 DOF per node: deflection w, rotation theta =
//! dw/dx), cubic Hermite interpolation. Nodal statics are exact for end loads; consistent mass.
//! Used to verify the Guyan condensation against beam theory.

use nalgebra::{DMatrix, SMatrix};

/// Element stiffness of a beam of length `l` and bending stiffness `ei`; DOFs [w1, th1, w2, th2].
pub fn beam_stiffness(ei: f64, l: f64) -> SMatrix<f64, 4, 4> {
    let c = ei / l.powi(3);
    let l2 = l * l;
    SMatrix::<f64, 4, 4>::from_row_slice(&[
        12.0,
        6.0 * l,
        -12.0,
        6.0 * l,
        6.0 * l,
        4.0 * l2,
        -6.0 * l,
        2.0 * l2,
        -12.0,
        -6.0 * l,
        12.0,
        -6.0 * l,
        6.0 * l,
        2.0 * l2,
        -6.0 * l,
        4.0 * l2,
    ]) * c
}

/// Consistent element mass of a beam with mass per length `rho_a`; DOFs [w1, th1, w2, th2].
pub fn beam_mass(rho_a: f64, l: f64) -> SMatrix<f64, 4, 4> {
    let c = rho_a * l / 420.0;
    let l2 = l * l;
    SMatrix::<f64, 4, 4>::from_row_slice(&[
        156.0,
        22.0 * l,
        54.0,
        -13.0 * l,
        22.0 * l,
        4.0 * l2,
        13.0 * l,
        -3.0 * l2,
        54.0,
        13.0 * l,
        156.0,
        -22.0 * l,
        -13.0 * l,
        -3.0 * l2,
        -22.0 * l,
        4.0 * l2,
    ]) * c
}

/// Uniform cantilever (Young's modulus `e`, second moment of area `i`, mass per length `rho_a`)
/// of length `l` in `ne` equal elements, clamped at x = 0 (node 0 removed).
/// Returns (M, K) of size 2 ne; node j = 1..=ne has w at 2(j-1) and theta at 2(j-1)+1.
pub fn cantilever_beam(e: f64, i: f64, rho_a: f64, l: f64, ne: usize) -> (DMatrix<f64>, DMatrix<f64>) {
    let le = l / ne as f64;
    let ke = beam_stiffness(e * i, le);
    let me = beam_mass(rho_a, le);
    let n = 2 * ne;
    let mut m = DMatrix::zeros(n, n);
    let mut k = DMatrix::zeros(n, n);
    for el in 0..ne {
        // Element el joins node el and el+1; global DOF of node j, local d: 2(j-1)+d.
        let dofs: [Option<usize>; 4] = std::array::from_fn(|a| {
            let node = el + a / 2;
            (node > 0).then(|| 2 * (node - 1) + a % 2)
        });
        for a in 0..4 {
            let Some(ga) = dofs[a] else { continue };
            for b in 0..4 {
                let Some(gb) = dofs[b] else { continue };
                k[(ga, gb)] += ke[(a, b)];
                m[(ga, gb)] += me[(a, b)];
            }
        }
    }
    (m, k)
}
