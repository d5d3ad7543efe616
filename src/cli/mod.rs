pub mod build;
pub mod simulate;
