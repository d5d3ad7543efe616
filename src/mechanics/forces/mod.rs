//! Force elements: spring-dampers along kinematic measures, contacts and applied loads.

pub mod contact;
pub mod fractional_damper;
pub mod load;
pub mod spring_damper;

pub use contact::{Contact, ContactMemory, DampingModel};
pub use fractional_damper::FractionalSpringDamper;
pub use load::{Load, TimeFunction};
pub use spring_damper::SpringDamper;
