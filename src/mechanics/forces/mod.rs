//! Force elements: spring-dampers along kinematic measures and applied loads.

pub mod fractional_damper;
pub mod load;
pub mod spring_damper;

pub use fractional_damper::FractionalSpringDamper;
pub use load::{Load, TimeFunction};
pub use spring_damper::SpringDamper;
