//! A Cardan (Hooke) shaft for the tests of universal joints: an input shaft along x, driven at
//! OMEGA rad/s on a revolute joint whose bearing sits on a three-axis cross-slide (so that
//! every row of the universal joint counts), and an output shaft bent by BETA in the x-y
//! plane on a revolute joint to ground, joined at the origin by a universal joint `cross`
//! (body1's pin along y, body2's along z). No gravity, GGL rows. The test files add outputs.

pub const BETA: f64 = 0.5;
pub const OMEGA: f64 = 3.0;

/// The model text without outputs, named `name`.
pub fn mechanism(name: &str) -> String {
    let (c, s) = (BETA.cos(), BETA.sin());
    let mut text = format!(
        "[model]\nname = \"{name}\"\ndimension = 3\ngravity = [0.0, 0.0, 0.0]\n[solver]\nconstraints = \"ggl\"\n\
         [[rigid_bodies]]\nname = \"in\"\nmass = 1.0\ninertia = [0.02, 0.05, 0.05]\nposition = [-0.5, 0.0, 0.0]\n\
         [[rigid_bodies]]\nname = \"out\"\nmass = 1.2\ninertia = [0.03, 0.06, 0.07]\nposition = [{}, {}, 0.0]\n\
         axis = [0.0, 0.0, 1.0]\nangle = {BETA}\n",
        0.5 * c,
        0.5 * s
    );
    // The cross-slide carrying the input shaft's bearing.
    let mut previous = "ground".to_string();
    for (k, axis) in ["[1.0, 0.0, 0.0]", "[0.0, 1.0, 0.0]", "[0.0, 0.0, 1.0]"].iter().enumerate() {
        text += &format!(
            "[[rigid_bodies]]\nname = \"slide{k}\"\nmass = 0.2\ninertia = [0.01, 0.01, 0.01]\nposition = [-0.5, 0.0, 0.0]\n\
             [[joints]]\nname = \"rail{k}\"\ntype = \"prismatic\"\nbody1 = \"{previous}\"\nbody2 = \"slide{k}\"\naxis = {axis}\n"
        );
        previous = format!("slide{k}");
    }
    text += &format!(
        "[[joints]]\nname = \"input\"\ntype = \"revolute\"\nbody1 = \"slide2\"\nbody2 = \"in\"\npoint = [-0.5, 0.0, 0.0]\n\
         axis = [1.0, 0.0, 0.0]\ndrive = \"{OMEGA}*t\"\n\
         [[joints]]\nname = \"output\"\ntype = \"revolute\"\nbody2 = \"out\"\npoint = [{}, {}, 0.0]\naxis = [{c}, {s}, 0.0]\n\
         [[joints]]\nname = \"cross\"\ntype = \"universal\"\nbody1 = \"in\"\nbody2 = \"out\"\npoint = [0.0, 0.0, 0.0]\n\
         axis = [0.0, 1.0, 0.0]\naxis2 = [0.0, 0.0, 1.0]\n",
        0.5 * c,
        0.5 * s
    );
    text
}
