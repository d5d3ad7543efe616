pub mod simulate;
pub mod modes;
