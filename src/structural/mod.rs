//! Structural finite-element layer the discrete flexible plate of paper 001 starts from.
//!
//! - [`guyan`]: Guyan static condensation of dense M, C, K onto master DOFs (paper 001
//!   eqs. 2-11) and proportional ("coordinated") damping.
//! - [`plate`]: MITC4 Mindlin-Reissner plate element on rectangular meshes and the assembly of
//!   a rectangular plate with selectable edge conditions.
//! - [`beam_fe`]: Euler-Bernoulli beam elements (2 DOF per node), used to check the condensation.
//! - [`eigen`]: dense generalized symmetric eigen-solver (frequencies in Hz).
//! - [`matrix_market`]: import of M, C, K written by another FE code (Matrix Market format).
//!
//! Everything here is dense (nalgebra) and meant for models of up to a few thousand DOFs.

pub mod beam_fe;
pub mod eigen;
pub mod guyan;
pub mod matrix_market;
pub mod plate;

pub use eigen::{Modes, generalized_eigen, natural_frequencies_hz};
pub use guyan::{Condensation, condense, proportional_damping, rayleigh_coefficients};
pub use plate::{EdgeSupport, PlateMaterial, PlateModel, RectangularPlate};

/// Errors of the structural layer (never panics on bad input).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StructuralError {
    #[error("matrix {name} is {rows}x{cols}, expected {expected}x{expected}")]
    Dimension { name: &'static str, rows: usize, cols: usize, expected: usize },
    #[error("DOF index {index} out of range (model has {n} DOFs)")]
    IndexOutOfRange { index: usize, n: usize },
    #[error("DOF index {0} listed twice among the masters")]
    DuplicateIndex(usize),
    #[error("no master DOFs given")]
    NoMasters,
    #[error(
        "the stiffness condensed onto the patch bodies is singular: mesh degree of freedom {0} is held by nothing \
         once the patches are (Guyan's K_ss is singular; for a plate, its mesh and patches do not fit, or it is too \
         thin for its bending stiffness to count beside the rest)"
    )]
    SingularSlaveStiffness(usize),
    #[error("the mass matrix is not positive definite")]
    MassNotPositive,
    #[error("the symmetric eigenvalue iteration failed (a matrix entry is NaN or infinite)")]
    Eigen,
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
}
