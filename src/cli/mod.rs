pub mod build;
pub mod simulate;
pub mod modes;
pub mod info;
pub mod compare;
