//! The model-file schema: plain serde data, every user-supplied value kept with its span so
//! that errors found later (unknown names, negative masses...) still point at file:line:col.

use serde::Deserialize;
use toml::Spanned;

pub use super::plain_number::{PlainInteger, PlainNumber};

/// A number, or an expression over the model's parameters (and, for loads, `t` and inputs).
/// Deserialized as `#[serde(untagged)]` would (src/model/number.rs), without buffering
/// every number first.
#[derive(Debug, Clone, PartialEq)]
pub enum Number {
    Value(f64),
    Expr(String),
}

pub type Num = Spanned<Number>;
pub type Name = Spanned<String>;
/// A list of numbers: [x, y] in planar models, [x, y, z] in spatial ones (the length is
/// checked where it is used, so that the error points at the list).
pub type Vec2 = Spanned<Vec<Number>>;

/// A number, a list of numbers or a matrix (rows): inertia (a moment of inertia in 2D;
/// principal values [J1, J2, J3] or a 3x3 tensor in 3D), angular velocity (scalar in 2D,
/// vector in 3D).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Tensor {
    Scalar(Number),
    Vector(Vec<Number>),
    Matrix(Vec<Vec<Number>>),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Definition {
    pub model: ModelInfo,
    #[serde(default)]
    pub parameters: indexmap_like::OrderedTable<ParameterDecl>,
    #[serde(default)]
    pub solver: SolverDecl,
    #[serde(default)]
    pub inputs: Vec<InputDecl>,
    #[serde(default)]
    pub point_masses: Vec<PointMassDecl>,
    #[serde(default)]
    pub rigid_bodies: Vec<RigidBodyDecl>,
    #[serde(default)]
    pub beams: Vec<BeamDecl>,
    #[serde(default)]
    pub plates: Vec<PlateDecl>,
    #[serde(default)]
    pub joints: Vec<JointDecl>,
    #[serde(default)]
    pub springs: Vec<SpringDecl>,
    #[serde(default)]
    pub loads: Vec<LoadDecl>,
    #[serde(default)]
    pub contacts: Vec<ContactDecl>,
    #[serde(default)]
    pub outputs: Vec<OutputDecl>,
    /// `[visualization]`: optional outputs for viewers of the FMU.
    #[serde(default)]
    pub visualization: Option<VisualizationDecl>,
}

/// `[visualization] outputs = true` adds every body's and beam node's position and
/// orientation to the outputs (docs/model-file.md, "Visualization outputs"); off by default.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VisualizationDecl {
    pub outputs: Option<Spanned<bool>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelInfo {
    /// Model name; also the FMU's modelIdentifier, so a C identifier.
    pub name: Name,
    #[serde(default)]
    pub description: String,
    /// Gravitational acceleration vector (m/s^2); none by default. Length 2 or 3 (`dimension`).
    pub gravity: Option<Vec2>,
    /// 2 (planar, default) or 3 (spatial rigid bodies with Euler parameters).
    pub dimension: Option<Spanned<PlainInteger>>,
}

/// `name = 1.0` or `name = { value = 1.0, unit = "kg", description = "...", type = "integer", min = 0, max = 10 }`;
/// interpreted in `Model::parse` so that errors point at the entry.
pub type ParameterDecl = Spanned<toml::Value>;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolverDecl {
    pub integrator: Option<Name>,
    pub rho_inf: Option<Num>,
    pub step: Option<Num>,
    pub tolerance: Option<Num>,
    pub max_iterations: Option<Spanned<PlainInteger>>,
    /// Newton strategy: "full", "modified" (default) or "broyden".
    pub newton: Option<Name>,
    /// Constraint treatment: "index3" (default), "ggl" or "baumgarte".
    pub constraints: Option<Name>,
    /// Baumgarte's constants (1/s): Phi'' + 2 alpha Phi' + beta^2 Phi = 0.
    pub baumgarte_alpha: Option<Num>,
    pub baumgarte_beta: Option<Num>,
    /// Error-controlled internal steps (src/integrators/error_control.rs), off by default.
    pub error_control: Option<Spanned<bool>>,
    /// Relative and absolute tolerances of the error-controlled step.
    pub rtol: Option<Num>,
    pub atol: Option<Num>,
    pub start_time: Option<Num>,
    pub stop_time: Option<Num>,
    pub output_interval: Option<Num>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputDecl {
    pub name: Name,
    #[serde(default)]
    pub unit: String,
    #[serde(default)]
    pub description: String,
    /// A number, not an expression (src/model/plain_number.rs).
    #[serde(default)]
    pub start: PlainNumber,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointMassDecl {
    pub name: Name,
    pub mass: Num,
    pub position: Vec2,
    pub velocity: Option<Vec2>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RigidBodyDecl {
    pub name: Name,
    pub mass: Num,
    /// Moment of inertia about the centre of mass (kg m^2); in 3D the inertia tensor about the
    /// centre of mass in the body frame: principal values [J1, J2, J3] or a symmetric 3x3 matrix.
    pub inertia: Spanned<Tensor>,
    /// Centre of mass in the global frame.
    pub position: Vec2,
    /// Rotation angle (2D); in 3D the angle of the initial rotation about `axis`.
    #[serde(default)]
    pub angle: Option<Num>,
    /// 3D: axis of the initial rotation (global; normalised), with `angle`.
    pub axis: Option<Vec2>,
    /// 3D: initial orientation as Euler parameters [e0, e1, e2, e3] (normalised).
    pub euler_parameters: Option<Vec2>,
    pub velocity: Option<Vec2>,
    /// rad/s; in 3D a vector in the global frame.
    pub angular_velocity: Option<Spanned<Tensor>>,
}

/// A straight flexible beam of corotational elements (paper 000, section 1). Its nodes are
/// bodies named `<name>.start`, `<name>.end` and `<name>.node[k]`, k = 0..=elements.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BeamDecl {
    pub name: Name,
    pub start: Vec2,
    pub end: Vec2,
    /// Number of elements (a positive integer; number or expression); required except for
    /// `formulation = "floating_frame"`.
    #[serde(default)]
    pub elements: Option<Num>,
    /// `floating_frame` only: modes per direction N (N axial + N transverse, paper 004 eq. 1).
    #[serde(default)]
    pub modes: Option<Num>,
    pub section: Spanned<SectionDecl>,
    /// `{ E, nu, rho }` and optionally `damping`; with a section given by its stress
    /// resultants only `damping` (or no table at all).
    pub material: Option<Spanned<BeamMaterialDecl>>,
    /// "timoshenko" (default), "euler_bernoulli", "ancf" or "floating_frame".
    pub formulation: Option<Name>,
    /// Spatial models: the centre of a circular arc from `start` to `end` (curved beam).
    #[serde(default)]
    pub center: Option<Vec2>,
    /// Spatial models: a direction in the section's local x-y plane (local y is its part
    /// normal to the axis); default: local z is the global z normal to the axis.
    #[serde(default)]
    pub y_axis: Option<Vec2>,
    /// Initial rigid motion: velocity of `start` and angular velocity (rad/s; in 3D a vector in
    /// the global frame). Given, every velocity of the beam is kept by the initial state.
    #[serde(default)]
    pub velocity: Option<Vec2>,
    #[serde(default)]
    pub angular_velocity: Option<Spanned<Tensor>>,
}

/// `{ width, height }` (rectangle, height in the plane of motion) or `{ area, inertia }`;
/// `shear_factor` defaults to 10(1+nu)/(12+11nu) (rectangle). Or the section's stress
/// resultants (`EA`, `GA`, `EI`; spatial `EA`, `GA` or `GAy` and `GAz`, `EIy`, `EIz`, `GJ`) with
/// `mass_per_length`, in place of the geometry and the material's E, nu and rho
/// (src/mechanics/beam_section.rs).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SectionDecl {
    pub width: Option<Num>,
    pub height: Option<Num>,
    pub area: Option<Num>,
    pub inertia: Option<Num>,
    pub shear_factor: Option<Num>,
    /// Spatial models: "rectangle" (`width`, `height`) or "circle" (`radius`), or none with
    /// `area`, `iy`, `iz`, `j`.
    pub shape: Option<Name>,
    pub radius: Option<Num>,
    /// Spatial models: second moments of area about the section's y and z axes, torsion constant.
    pub iy: Option<Num>,
    pub iz: Option<Num>,
    pub j: Option<Num>,
    /// Mass per unit length (kg/m) and mass moments of inertia per unit length (kg m), instead
    /// of those of `rho` and the section: the rotary inertia is a number in planar models (about
    /// the out-of-plane axis), [Jx, Jy, Jz] about the section's x, y, z axes in spatial ones.
    pub mass_per_length: Option<Num>,
    pub rotary_inertia: Option<Spanned<Tensor>>,
    /// Stress resultants (benchmark data): axial stiffness EA (N), shear stiffness GA (N; the
    /// effective k G A, both section axes in spatial models) or, spatial, GAy and GAz (shear
    /// along the section's y and z axes), bending stiffness EI (N m^2, planar) or EIy and EIz
    /// (about the section's y and z axes), torsional stiffness GJ (N m^2, spatial).
    #[serde(rename = "EA")]
    pub ea: Option<Num>,
    #[serde(rename = "GA")]
    pub ga: Option<Num>,
    #[serde(rename = "GAy")]
    pub ga_y: Option<Num>,
    #[serde(rename = "GAz")]
    pub ga_z: Option<Num>,
    #[serde(rename = "EI")]
    pub ei: Option<Num>,
    #[serde(rename = "EIy")]
    pub ei_y: Option<Num>,
    #[serde(rename = "EIz")]
    pub ei_z: Option<Num>,
    #[serde(rename = "GJ")]
    pub gj: Option<Num>,
}

/// A beam's material: `{ E, nu, rho }`, optionally `damping`. A section given by its stress
/// resultants takes only `damping` here (E, nu and rho would contradict it); each key's
/// presence is checked where the section is known (src/mechanics/beam_section.rs).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BeamMaterialDecl {
    /// Young's modulus (Pa).
    #[serde(rename = "E")]
    pub young: Option<Num>,
    /// Poisson's ratio, in (-1, 0.5).
    pub nu: Option<Num>,
    /// Density (kg/m^3).
    pub rho: Option<Num>,
    /// Kelvin-Voigt material damping beta (s), sigma = E (eps + beta eps'), the
    /// stiffness-proportional (Rayleigh beta) damping of the element's deformations; default 0.
    pub damping: Option<Num>,
}

/// A plate's material.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialDecl {
    /// Young's modulus (Pa).
    #[serde(rename = "E")]
    pub young: Num,
    /// Poisson's ratio, in (-1, 0.5).
    pub nu: Num,
    /// Density (kg/m^3).
    pub rho: Num,
    /// Refused with a located error (a plate's damping is `damping_ratio`); kept so that the
    /// error names it.
    pub damping: Option<Num>,
}

/// A flat rectangular plate discretised as in paper 001 (spatial models only): a MITC4 finite-
/// element mesh condensed (Guyan) onto the centres of `bodies` = [n, m] equal rectangular
/// patches, each patch a rigid body, joined to the clamped edge(s) by one multi-point
/// stiffness/damping element. Its bodies are named `<name>.body[i][j]` (i along x, j along y).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlateDecl {
    pub name: Name,
    /// [a, b]: lengths along the global x and y axes (m).
    pub size: Vec2,
    /// Thickness (m).
    pub thickness: Num,
    pub material: Spanned<MaterialDecl>,
    /// Global position of the corner (x, y) = (0, 0); the plate lies in the plane z = const.
    pub origin: Option<Vec2>,
    /// [nx, ny]: finite elements along x and y; multiples of 2n and 2m.
    pub mesh: Vec2,
    /// [n, m]: rigid bodies along x and y.
    pub bodies: Vec2,
    /// Clamped edges, any of "x_min", "x_max", "y_min", "y_max"; none (default): a free plate
    /// referred to its body [n/2][m/2].
    #[serde(default)]
    pub clamped: Option<Spanned<Vec<Name>>>,
    /// Damping ratio of the stiffness-proportional damping C = beta K, reached at the first
    /// natural frequency of the discrete plate (default 0).
    pub damping_ratio: Option<Num>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointDecl {
    pub name: Name,
    #[serde(rename = "type")]
    pub kind: Name,
    /// Defaults to "ground".
    pub body1: Option<Name>,
    pub body2: Name,
    /// Joint location, global coordinates in the initial configuration.
    pub point: Option<Vec2>,
    /// Distance joints: the linked points on body1 and body2 (global, initial configuration;
    /// default each body's reference point), instead of `point`.
    pub point1: Option<Vec2>,
    pub point2: Option<Vec2>,
    /// Distance joints: the distance held, |P2 - P1| = length (default: the initial distance).
    pub length: Option<Num>,
    /// Sliding direction of a prismatic joint, global, initial configuration.
    pub axis: Option<Vec2>,
    /// Body 2's pin of a spatial universal joint (`axis` is body 1's), global, initial
    /// configuration.
    pub axis2: Option<Vec2>,
    /// Revolute joint on an ANCF beam's end node: also keep that section rigid, i.e. the
    /// slope dr/dy normal to the axis tangent dr/dx (paper 003 eq. 23).
    pub rigid_section: Option<Spanned<bool>>,
    /// Driven joint: the joint coordinate (relative angle of a revolute joint, displacement of
    /// a prismatic one, length of a distance joint) prescribed as an expression of `t`,
    /// parameters and inputs; on a joint with two coordinates a table of such expressions
    /// keyed by coordinate name (`{ slide = ..., angle = ... }`, either or both).
    pub drive: Option<DriveDecl>,
}

/// `drive = expression`, or `drive = { name = expression, ... }` by coordinate name
/// (src/model/drive.rs reads it, keeping every span).
#[derive(Debug, Clone, PartialEq)]
pub enum DriveDecl {
    One(Num),
    Each(Spanned<Vec<(Name, Num)>>),
}

impl DriveDecl {
    /// Where the whole value is.
    pub fn span(&self) -> std::ops::Range<usize> {
        match self {
            DriveDecl::One(n) => n.span(),
            DriveDecl::Each(e) => e.span(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpringDecl {
    pub name: Name,
    /// "point_to_point" (default), "prismatic" (along a prismatic joint), "torsional" (across a
    /// revolute joint), "rotational" (relative rotation of two bodies); see src/mechanics/springs/.
    #[serde(rename = "type")]
    pub kind: Option<Name>,
    pub body1: Option<Name>,
    pub point1: Option<Vec2>,
    pub body2: Option<Name>,
    pub point2: Option<Vec2>,
    pub joint: Option<Name>,
    /// Which coordinate of a joint with two (`slide` or `angle` of a cylindrical joint,
    /// `angle1` or `angle2` of a universal joint) a prismatic or torsional spring acts on.
    pub coordinate: Option<Name>,
    /// Rotational springs in spatial models: the global axis of the relative rotation.
    pub axis: Option<Vec2>,
    #[serde(default)]
    pub stiffness: Option<Num>,
    #[serde(default)]
    pub damping: Option<Num>,
    /// Unstretched length (point_to_point), joint coordinate (prismatic) or angle (torsional)
    /// at which the spring force vanishes. Default: the initial value.
    pub free_length: Option<Num>,
    /// Fractional order alpha in [0, 1]: the damping term becomes c D^alpha q (paper 003).
    pub fractional_order: Option<Num>,
    /// Fractional dampers: history span kept in the Grünwald series (s); default the whole run.
    pub memory: Option<Num>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadDecl {
    pub name: Option<Name>,
    /// "force" or "torque".
    #[serde(rename = "type")]
    pub kind: Name,
    pub body: Name,
    /// Point of application, global in the initial configuration; default the body's reference point.
    pub point: Option<Vec2>,
    /// Direction of a force, fixed in the global frame (normalised).
    pub direction: Option<Vec2>,
    /// The direction turns with the body (a follower load); given in the initial configuration.
    pub follower: Option<Spanned<bool>>,
    /// Magnitude: number or expression in parameters, `t` and inputs.
    pub value: Option<Num>,
    /// Magnitude as a piecewise-linear table of [time, value] rows (held constant outside).
    pub table: Option<Spanned<Vec<Vec<PlainNumber>>>>,
}

/// A contact between a plane or circle on body1 and a point or circle on body2: a continuous
/// force (paper 004 eqs. 6-10) or a unilateral constraint (paper 004 sec. 2.3.1).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactDecl {
    pub name: Name,
    /// "point_plane", "circle_plane" or "circle_circle".
    #[serde(rename = "type")]
    pub kind: Name,
    /// The plane's body (or circle 1's); default ground.
    pub body1: Option<Name>,
    /// A point of the plane / circle 1's centre (global, initial configuration).
    pub point1: Option<Vec2>,
    /// Plane normal pointing to the free side (global, initial configuration).
    pub normal: Option<Vec2>,
    pub radius1: Option<Num>,
    pub body2: Name,
    /// The contact point / circle 2's centre; default body2's reference point.
    pub point2: Option<Vec2>,
    pub radius2: Option<Num>,
    /// "force" (default) or "constraint".
    pub method: Option<Name>,
    /// Hertz stiffness K (N/m^1.5); force method only.
    pub stiffness: Option<Num>,
    /// Restitution coefficient e in (0, 1] (force) or [0, 1] (constraint).
    pub restitution: Num,
    /// "exact" (default) or "lankarani_nikravesh" (paper 004 eq. 10).
    pub damping_model: Option<Name>,
    /// Force: lower bound of the impact speed in the damping factor; constraint: impacts
    /// slower than this end in resting contact (m/s); default 1e-3.
    pub min_impact_speed: Option<Num>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputDecl {
    pub name: Name,
    pub quantity: Name,
    pub body: Option<Name>,
    /// Point on the body, global in the initial configuration; default the reference point.
    pub point: Option<Vec2>,
    pub joint: Option<Name>,
    /// `joint_position`, `joint_velocity`, `drive_force` of a joint with two coordinates:
    /// which one (`slide` or `angle` of a cylindrical joint, `angle1` or `angle2` of a
    /// universal joint).
    pub coordinate: Option<Name>,
    pub contact: Option<Name>,
    /// `transverse_deflection`: the two bodies whose reference points span the chord.
    pub chord: Option<Spanned<Vec<Name>>>,
    /// `support_force_x|y|z`: the plate whose support force is output.
    pub plate: Option<Name>,
    /// `x`, `y` (3D also `z`): the body in whose frame the point's position is given
    /// (default: the global frame).
    pub frame: Option<Name>,
    #[serde(default)]
    pub description: String,
}

/// `[parameters]` keeps the file's order (parameter order is the FMU variable order).
pub mod indexmap_like {
    use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
    use std::fmt;
    use toml::Spanned;

    #[derive(Debug, Clone)]
    pub struct OrderedTable<T>(pub Vec<(Spanned<String>, T)>);

    impl<T> Default for OrderedTable<T> {
        fn default() -> Self {
            OrderedTable(Vec::new())
        }
    }

    impl<'de, T: Deserialize<'de>> Deserialize<'de> for OrderedTable<T> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V<T>(std::marker::PhantomData<T>);
            impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
                type Value = OrderedTable<T>;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("a table of parameters")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                    let mut out = Vec::new();
                    while let Some((k, v)) = map.next_entry::<Spanned<String>, T>()? {
                        out.push((k, v));
                    }
                    Ok(OrderedTable(out))
                }
            }
            d.deserialize_map(V(std::marker::PhantomData))
        }
    }
}

impl From<f64> for Number {
    fn from(v: f64) -> Self {
        Number::Value(v)
    }
}
