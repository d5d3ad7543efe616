//! Shared by the test files: example models and simulations through the facade (`sim`), the
//! ball-drop impact harness, model text for beams, the beam theories' frequencies
//! (`beam_theory`), and FMUs through the `fmi` importer.

#![allow(dead_code)] // each test file uses part of it

pub mod ball_drop;
pub mod beam_theory;
pub mod c_logger;
pub mod cli;
pub mod fmu;
pub mod fractional;
pub mod hooke;
pub mod reference;
pub mod sim;

/// A clamped beam along x with a constant tip force P along global +y, with outputs
/// `tip_y` and `tip_angle`; `formulation` as in `[[beams]]`.
pub fn cantilever(
    elements: usize,
    formulation: &str,
    (l, b, h, e, nu, rho): (f64, f64, f64, f64, f64, f64),
    p: f64,
) -> String {
    format!(
        r#"[model]
name = "cantilever"

[parameters]
P = {p:e}
elements = {{ value = {elements}, type = "integer" }}

[[beams]]
name = "beam"
start = [0.0, 0.0]
end = [{l:e}, 0.0]
elements = "elements"
section = {{ width = {b:e}, height = {h:e} }}
material = {{ E = {e:e}, nu = {nu}, rho = {rho:e} }}
formulation = "{formulation}"

[[joints]]
name = "clamp"
type = "fixed"
body2 = "beam.start"

[[loads]]
type = "force"
body = "beam.end"
direction = [0.0, 1.0]
value = "P"

[[outputs]]
name = "tip_y"
quantity = "y"
body = "beam.end"

[[outputs]]
name = "tip_angle"
quantity = "angle"
body = "beam.end"
"#
    )
}
