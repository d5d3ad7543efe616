//! The value, gradient and Hessian of a scalar kinematic measure over the coordinates it
//! couples: what planar (`kinematics.rs`) and spatial (`spatial_kinematics.rs`) measures,
//! contact gaps and constraint rows all return, so neither measure module depends on the
//! other's internals.

/// Maximum coordinates one measure couples (two spatial rigid bodies, 7 each).
pub const MAX_DOFS: usize = 14;

/// Value, gradient and Hessian over `Measure::dofs()` (row-major, dofs x dofs).
#[derive(Debug, Clone, Copy)]
pub struct Derivatives {
    pub value: f64,
    pub gradient: [f64; MAX_DOFS],
    pub hessian: [f64; MAX_DOFS * MAX_DOFS],
}

/// v^T H v over `dofs`, with H row-major dofs x dofs (the velocity-squared part of s'').
pub fn quadratic_form(dofs: &[usize], hessian: &[f64], v: &[f64]) -> f64 {
    let n = dofs.len();
    let mut s = 0.0;
    for (a, &i) in dofs.iter().enumerate() {
        for (b, &j) in dofs.iter().enumerate() {
            s += hessian[a * n + b] * v[i] * v[j];
        }
    }
    s
}
