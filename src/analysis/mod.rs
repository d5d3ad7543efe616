//! Analyses of a system at a fixed state (linearisation, natural frequencies, statics).

pub mod modes;
pub mod statics;
