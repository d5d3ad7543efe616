//! Analyses of a system at a fixed state (linearisation, natural frequencies).

pub mod modes;
