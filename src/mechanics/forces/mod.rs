//! Force elements: spring-dampers along kinematic measures, multi-point stiffness/damping
//! elements (paper 001), contacts and applied loads.

pub mod contact;
pub mod fractional_damper;
pub mod impact_duration;
pub mod line_load;
pub mod load;
pub mod multi_point_force;
pub mod spatial_load;
pub mod spring_damper;

pub use contact::{Contact, ContactMemory, DampingModel};
pub use fractional_damper::FractionalSpringDamper;
pub use load::{Load, TimeFunction};
pub use multi_point_force::{Member, MultiPointForce};
pub use spatial_load::SpatialLoad;
pub use spring_damper::SpringDamper;
