//! The output quantities of `[[outputs]]`: one table, `OUTPUT_QUANTITIES`, giving for each
//! `quantity` name what it measures and in which dimensions it exists. Both assemblers look
//! names up here (`lookup`) and build the `OutputKind` of the quantity found; the
//! unknown-quantity messages list the table for the model's dimension, and a test checks the
//! table against docs/model-file.md.

/// What a quantity name stands for, independent of the dimension it is read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    /// Position (order 0), velocity (1) or acceleration (2) of a body point; component 0..3 =
    /// x, y, z (global, or in `frame`'s body axes for a position).
    Point {
        component: usize,
        order: usize,
    },
    /// Planar rotation: angle (order 0), angular velocity (1) or acceleration (2).
    Rotation {
        order: usize,
    },
    /// Euler parameter e0..e3 of a spatial body.
    EulerParameter {
        index: usize,
    },
    /// Tait-Bryan angle of a spatial body: 0 yaw, 1 pitch, 2 roll.
    TaitBryan {
        component: usize,
    },
    /// Angular velocity (order 0) or acceleration (order 1) of a spatial body, global axes.
    AngularVelocity {
        component: usize,
        order: usize,
    },
    /// The same in the body's own axes (the body-frame components and their rates).
    BodyAngularVelocity {
        component: usize,
        order: usize,
    },
    /// Force of body1 on body2 of a joint, global component 0..3 (planar: 2 is the torque).
    Reaction {
        component: usize,
    },
    /// Moment of body1 on body2 of a spatial joint about the joint point, global component.
    ReactionTorque {
        component: usize,
    },
    /// Angular momentum about the global origin (of a rigid body, or the whole model), global
    /// component.
    AngularMomentum {
        component: usize,
    },
    /// Joint coordinate (order 0) or its rate (1).
    JointCoordinate {
        order: usize,
    },
    /// Force or torque of a joint's drive.
    DriveForce,
    /// Tension of a distance joint (the force along its link, positive pulling the points
    /// together).
    LinkForce,
    /// Force of a plate's multi-point element on its reference, global component.
    SupportForce {
        component: usize,
    },
    /// Contact force (0), penetration (1), state (2), impact time (3).
    Contact {
        quantity: usize,
    },
    /// Distance of a body point from a chord.
    TransverseDeflection,
    /// A stress resultant of a beam at a node, component 0..6 of (N, Vy, Vz, T, My, Mz).
    SectionForce {
        component: usize,
    },
    EnergyTotal,
    EnergyKinetic,
    EnergyPotential,
    EnergyDissipated,
    EnergySupplied,
}

/// The dimensions a quantity exists in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dimensions {
    Planar,
    Spatial,
    Both,
}

impl Dimensions {
    fn include(self, dimension: usize) -> bool {
        match self {
            Dimensions::Both => true,
            Dimensions::Planar => dimension == 2,
            Dimensions::Spatial => dimension == 3,
        }
    }
}

/// One row of the table.
pub struct OutputQuantity {
    pub name: &'static str,
    pub quantity: Quantity,
    pub dimensions: Dimensions,
    /// What it measures, in one line.
    pub measures: &'static str,
}

const fn row(name: &'static str, quantity: Quantity, dimensions: Dimensions, measures: &'static str) -> OutputQuantity {
    OutputQuantity { name, quantity, dimensions, measures }
}

use Dimensions::{Both, Planar, Spatial};
use Quantity as Q;

/// Every output quantity, in the order the unknown-quantity messages list them.
pub const OUTPUT_QUANTITIES: &[OutputQuantity] = &[
    row("x", Q::Point { component: 0, order: 0 }, Both, "position of a body point, x"),
    row("y", Q::Point { component: 1, order: 0 }, Both, "position of a body point, y"),
    row("z", Q::Point { component: 2, order: 0 }, Spatial, "position of a body point, z"),
    row("vx", Q::Point { component: 0, order: 1 }, Both, "velocity of a body point, x"),
    row("vy", Q::Point { component: 1, order: 1 }, Both, "velocity of a body point, y"),
    row("vz", Q::Point { component: 2, order: 1 }, Spatial, "velocity of a body point, z"),
    row("ax", Q::Point { component: 0, order: 2 }, Both, "acceleration of a body point, x"),
    row("ay", Q::Point { component: 1, order: 2 }, Both, "acceleration of a body point, y"),
    row("az", Q::Point { component: 2, order: 2 }, Spatial, "acceleration of a body point, z"),
    row("angle", Q::Rotation { order: 0 }, Planar, "rotation of a body or section angle"),
    row("angular_velocity", Q::Rotation { order: 1 }, Planar, "its rate"),
    row("angular_acceleration", Q::Rotation { order: 2 }, Planar, "its second derivative"),
    row("e0", Q::EulerParameter { index: 0 }, Spatial, "Euler parameter e0"),
    row("e1", Q::EulerParameter { index: 1 }, Spatial, "Euler parameter e1"),
    row("e2", Q::EulerParameter { index: 2 }, Spatial, "Euler parameter e2"),
    row("e3", Q::EulerParameter { index: 3 }, Spatial, "Euler parameter e3"),
    row("yaw", Q::TaitBryan { component: 0 }, Spatial, "Tait-Bryan yaw"),
    row("pitch", Q::TaitBryan { component: 1 }, Spatial, "Tait-Bryan pitch"),
    row("roll", Q::TaitBryan { component: 2 }, Spatial, "Tait-Bryan roll"),
    row("wx", Q::AngularVelocity { component: 0, order: 0 }, Spatial, "angular velocity, global x"),
    row("wy", Q::AngularVelocity { component: 1, order: 0 }, Spatial, "angular velocity, global y"),
    row("wz", Q::AngularVelocity { component: 2, order: 0 }, Spatial, "angular velocity, global z"),
    row("wx_body", Q::BodyAngularVelocity { component: 0, order: 0 }, Spatial, "angular velocity, body x"),
    row("wy_body", Q::BodyAngularVelocity { component: 1, order: 0 }, Spatial, "angular velocity, body y"),
    row("wz_body", Q::BodyAngularVelocity { component: 2, order: 0 }, Spatial, "angular velocity, body z"),
    row("alpha_x", Q::AngularVelocity { component: 0, order: 1 }, Spatial, "angular acceleration, global x"),
    row("alpha_y", Q::AngularVelocity { component: 1, order: 1 }, Spatial, "angular acceleration, global y"),
    row("alpha_z", Q::AngularVelocity { component: 2, order: 1 }, Spatial, "angular acceleration, global z"),
    row("alpha_x_body", Q::BodyAngularVelocity { component: 0, order: 1 }, Spatial, "rate of wx_body"),
    row("alpha_y_body", Q::BodyAngularVelocity { component: 1, order: 1 }, Spatial, "rate of wy_body"),
    row("alpha_z_body", Q::BodyAngularVelocity { component: 2, order: 1 }, Spatial, "rate of wz_body"),
    row("reaction_x", Q::Reaction { component: 0 }, Both, "joint force on body2, x"),
    row("reaction_y", Q::Reaction { component: 1 }, Both, "joint force on body2, y"),
    row("reaction_z", Q::Reaction { component: 2 }, Spatial, "joint force on body2, z"),
    row("reaction_torque", Q::Reaction { component: 2 }, Planar, "joint torque on body2"),
    row("reaction_torque_x", Q::ReactionTorque { component: 0 }, Spatial, "joint moment on body2, x"),
    row("reaction_torque_y", Q::ReactionTorque { component: 1 }, Spatial, "joint moment on body2, y"),
    row("reaction_torque_z", Q::ReactionTorque { component: 2 }, Spatial, "joint moment on body2, z"),
    row("joint_position", Q::JointCoordinate { order: 0 }, Both, "joint coordinate"),
    row("joint_velocity", Q::JointCoordinate { order: 1 }, Both, "its rate"),
    row("drive_force", Q::DriveForce, Both, "force or torque of a joint's drive"),
    row("link_force", Q::LinkForce, Both, "tension of a distance joint"),
    row("support_force_x", Q::SupportForce { component: 0 }, Spatial, "plate support force, x"),
    row("support_force_y", Q::SupportForce { component: 1 }, Spatial, "plate support force, y"),
    row("support_force_z", Q::SupportForce { component: 2 }, Spatial, "plate support force, z"),
    row("contact_force", Q::Contact { quantity: 0 }, Both, "normal force of a contact"),
    row("penetration", Q::Contact { quantity: 1 }, Both, "penetration of a contact"),
    row("contact_state", Q::Contact { quantity: 2 }, Both, "1 in contact, else 0"),
    row("impact_time", Q::Contact { quantity: 3 }, Both, "time of the latest contact onset"),
    row("transverse_deflection", Q::TransverseDeflection, Planar, "distance of a point from a chord"),
    row("axial_force", Q::SectionForce { component: 0 }, Both, "beam section: axial force"),
    row("shear_force", Q::SectionForce { component: 1 }, Planar, "beam section: shear force"),
    row("bending_moment", Q::SectionForce { component: 5 }, Planar, "beam section: bending moment"),
    row("shear_force_y", Q::SectionForce { component: 1 }, Spatial, "beam section: shear force, y"),
    row("shear_force_z", Q::SectionForce { component: 2 }, Spatial, "beam section: shear force, z"),
    row("torsional_moment", Q::SectionForce { component: 3 }, Spatial, "beam section: torsional moment"),
    row("bending_moment_y", Q::SectionForce { component: 4 }, Spatial, "beam section: bending moment, y"),
    row("bending_moment_z", Q::SectionForce { component: 5 }, Spatial, "beam section: bending moment, z"),
    row("angular_momentum_x", Q::AngularMomentum { component: 0 }, Spatial, "angular momentum about the origin, x"),
    row("angular_momentum_y", Q::AngularMomentum { component: 1 }, Spatial, "angular momentum about the origin, y"),
    row("angular_momentum_z", Q::AngularMomentum { component: 2 }, Spatial, "angular momentum about the origin, z"),
    row("energy_total", Q::EnergyTotal, Both, "kinetic + potential energy"),
    row("energy_kinetic", Q::EnergyKinetic, Both, "kinetic energy"),
    row("energy_potential", Q::EnergyPotential, Both, "potential energy"),
    row("energy_dissipated", Q::EnergyDissipated, Both, "dissipated energy"),
    row("energy_supplied", Q::EnergySupplied, Both, "work of loads, drives, inputs"),
];

/// The quantity named `name` in a model of `dimension` (2 or 3).
pub fn lookup(name: &str, dimension: usize) -> Option<Quantity> {
    OUTPUT_QUANTITIES.iter().find(|r| r.name == name && r.dimensions.include(dimension)).map(|r| r.quantity)
}

/// The names available in a model of `dimension`, in table order.
pub fn names(dimension: usize) -> impl Iterator<Item = &'static str> {
    OUTPUT_QUANTITIES.iter().filter(move |r| r.dimensions.include(dimension)).map(|r| r.name)
}

/// The message for a quantity name the table does not have in `dimension`.
pub fn unknown(name: &str, dimension: usize) -> String {
    let known = names(dimension).collect::<Vec<_>>().join(", ");
    match dimension {
        3 => format!("unknown output quantity '{name}' in a spatial model, expected one of: {known}"),
        _ => format!("unknown output quantity '{name}', expected one of: {known}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The backticked names in the first column of the quantity table that follows `heading`
    /// in docs/model-file.md.
    fn documented(doc: &str, heading: &str) -> Vec<String> {
        let section = doc.split(heading).nth(1).expect("heading in docs/model-file.md");
        let mut names = Vec::new();
        for line in section.lines().skip_while(|l| !l.starts_with('|')).take_while(|l| l.starts_with('|')) {
            let first = line.split('|').nth(1).unwrap_or("");
            names.extend(first.split('`').skip(1).step_by(2).map(str::to_string));
        }
        names
    }

    #[test]
    fn names_are_unique_per_dimension() {
        for dimension in [2, 3] {
            let all: Vec<_> = names(dimension).collect();
            let mut sorted = all.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), all.len(), "dimension {dimension}");
        }
    }

    #[test]
    fn table_matches_the_model_file_reference() {
        let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/model-file.md")).unwrap();
        for (dimension, heading) in [(2, "Planar quantities"), (3, "Spatial quantities")] {
            let mut documented = documented(&doc, heading);
            let mut table: Vec<String> = names(dimension).map(str::to_string).collect();
            documented.sort();
            table.sort();
            assert_eq!(documented, table, "docs/model-file.md, {heading}");
        }
    }

    #[test]
    fn unknown_lists_the_dimension() {
        assert!(lookup("z", 2).is_none());
        assert_eq!(lookup("z", 3), Some(Quantity::Point { component: 2, order: 0 }));
        assert_eq!(lookup("reaction_torque", 2), Some(Quantity::Reaction { component: 2 }));
        let m = unknown("height", 2);
        assert!(m.contains("drive_force") && !m.contains("wx_body"), "{m}");
        assert!(unknown("angle", 3).contains("alpha_z_body, reaction_x"));
        assert!(lookup("alpha_x", 2).is_none());
    }
}
