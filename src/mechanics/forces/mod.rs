//! Force elements: spring-dampers along kinematic measures and applied loads.

pub mod load;
pub mod spring_damper;

pub use load::{Load, TimeFunction};
pub use spring_damper::SpringDamper;
