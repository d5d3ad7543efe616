//! The value, gradient and Hessian of a scalar kinematic measure over the coordinates it
//! couples: what planar (`kinematics.rs`) and spatial (`spatial_kinematics.rs`) measures,
//! contact gaps and constraint rows all return, so neither measure module depends on the
//! other's internals.

/// Maximum coordinates one measure couples (two spatial rigid bodies, 7 each).
pub const MAX_DOFS: usize = 14;

/// A measure's value with room for `G` gradient and `H` Hessian entries over
/// `Measure::dofs()` (Hessian row-major, dofs x dofs). The sizes choose what is computed: a
/// constraint residual needs the value only, C_q^T lambda the gradient, the Newton matrix both;
/// the zero-sized arrays of the cheaper orders cost nothing to fill or to skip.
#[derive(Debug, Clone, Copy)]
pub struct Jet<const G: usize, const H: usize> {
    pub value: f64,
    pub gradient: [f64; G],
    pub hessian: [f64; H],
}

impl<const G: usize, const H: usize> Jet<G, H> {
    pub fn zero() -> Self {
        Jet { value: 0.0, gradient: [0.0; G], hessian: [0.0; H] }
    }
}

/// Value, gradient and Hessian.
pub type Derivatives = Jet<MAX_DOFS, { MAX_DOFS * MAX_DOFS }>;
/// Value and gradient.
pub type Gradient = Jet<MAX_DOFS, 0>;

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
