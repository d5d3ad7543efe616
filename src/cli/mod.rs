pub mod build;
pub mod compare;
pub mod info;
pub mod modes;
pub mod simulate;
