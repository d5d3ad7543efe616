//! Distributed forces on planar beams (`[[loads]]` with `type = "distributed_force"`,
//! src/mechanics/forces/line_load.rs). References:
//! - a cantilever under a small uniform load q: deflection q x^2 (6 L^2 - 4 L x + x^2) / (24 EI)
//!   plus the shear part q (L x - x^2 / 2) / (k G A), tip rotation q L^3 / (6 EI) (linear beam
//!   theory; the consistent nodal load makes the corotational elements exact at the nodes);
//! - the same cantilever under a large dead load, q L^3 / EI = 10: the inextensible elastica
//!   EI theta'' = q (L - s) cos(theta), theta(0) = 0, theta'(L) = 0, solved here by shooting
//!   (RK4 and bisection), the problem whose tables Holden (1972, "On the finite deflections of
//!   thin beams", Int. J. Solids Struct. 8) gives; the element converges to it at second order;
//! - a pendulum without gravity under the distributed force rho A g moves as the same pendulum
//!   under gravity, and the work of the force (energy_supplied) is the weight's;
//! - located errors for what a distributed force cannot be.

use crate::common::sim::{output, parse_and_assemble, simulation_with};
use flexfmu::model::Model;

/// A clamped beam along x (length 2, EI = 1e5, GA = 1e7, EA = `ea`) with `n` elements of
/// `formulation` under the distributed force `value` along -y, with outputs at the tip and at
/// the node at x = 1 (n even).
fn cantilever(formulation: &str, n: usize, ea: f64, value: &str) -> String {
    format!(
        r#"[model]
name = "cantilever_udl"

[parameters]
q = 10.0
n = {{ value = {n}, type = "integer" }}
u = 0.0

[[inputs]]
name = "extra"
start = 0.0

[[beams]]
name = "arm"
start = [0.0, 0.0]
end = [2.0, 0.0]
elements = "n"
section = {{ EA = {ea:e}, GA = 1e7, EI = 1e5, mass_per_length = 1.0 }}
formulation = "{formulation}"

[[joints]]
name = "clamp"
type = "fixed"
body2 = "arm.start"

[[loads]]
type = "distributed_force"
body = "arm"
direction = [0.0, -1.0]
value = "{value}"

[[outputs]]
name = "tip_x"
quantity = "x"
body = "arm.end"

[[outputs]]
name = "tip_y"
quantity = "y"
body = "arm.end"

[[outputs]]
name = "tip_angle"
quantity = "angle"
body = "arm.end"

[[outputs]]
name = "middle_y"
quantity = "y"
body = "arm.node[n/2]"
"#
    )
}

#[test]
fn a_cantilever_under_a_small_uniform_load_deflects_as_beam_theory() {
    let (l, ei, ga) = (2.0, 1e5, 1e7);
    for (formulation, shear) in [("euler_bernoulli", false), ("timoshenko", true), ("ancf", true)] {
        // The input adds to q: 10 N/m from the model and 5 N/m set through the input.
        let model = Model::parse(&cantilever(formulation, 4, 1e12, "q + extra"), "c.toml").unwrap();
        let mut sim = simulation_with(&model, &[], |_| {});
        sim.set_input(0, 5.0).unwrap();
        sim.settle_static(0.0).unwrap();
        let q = 15.0;
        let deflection = |x: f64| {
            let bending = q * x * x * (6.0 * l * l - 4.0 * l * x + x * x) / (24.0 * ei);
            bending + if shear { q * (l * x - 0.5 * x * x) / ga } else { 0.0 }
        };
        let (tip, middle, angle) =
            (output(&mut sim, "tip_y"), output(&mut sim, "middle_y"), output(&mut sim, "tip_angle"));
        println!(
            "{formulation}: tip {tip:.9e} (theory {:.9e}), middle {middle:.9e} ({:.9e}), angle {angle:.9e}",
            -deflection(l),
            -deflection(1.0)
        );
        // Geometric nonlinearity at a deflection of 1e-4 L changes these by ~2e-8; the ANCF
        // element (quadratic positions) is not exact at its nodes: 1.0e-6 at 4 elements.
        let tol = if formulation == "ancf" { 1e-5 } else { 1e-7 };
        assert!((tip + deflection(l)).abs() < tol * deflection(l), "{formulation}: tip {tip}");
        assert!((middle + deflection(1.0)).abs() < tol * deflection(1.0), "{formulation}: middle {middle}");
        let rotation = q * l * l * l / (6.0 * ei);
        assert!((angle + rotation).abs() < tol * rotation, "{formulation}: tip angle {angle}");
    }
}

/// Tip (x, y) / L and angle of the inextensible elastica under a uniform dead load along -y,
/// alpha = q L^3 / EI: theta'' = alpha (1 - s) cos(theta) in s = arc length / L, theta(0) = 0,
/// theta'(1) = 0, by RK4 (4000 steps) and bisection on theta'(0).
fn elastica_under_uniform_load(alpha: f64) -> [f64; 3] {
    let shoot = |k0: f64| {
        let f = |s: f64, y: [f64; 4]| [y[1], alpha * (1.0 - s) * y[0].cos(), y[0].cos(), y[0].sin()];
        let (steps, mut y, mut s) = (4000, [0.0, k0, 0.0, 0.0], 0.0);
        let h = 1.0 / steps as f64;
        let add = |y: [f64; 4], k: [f64; 4], c: f64| std::array::from_fn::<f64, 4, _>(|i| y[i] + c * k[i]);
        for _ in 0..steps {
            let k1 = f(s, y);
            let k2 = f(s + 0.5 * h, add(y, k1, 0.5 * h));
            let k3 = f(s + 0.5 * h, add(y, k2, 0.5 * h));
            let k4 = f(s + h, add(y, k3, h));
            y = std::array::from_fn(|i| y[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]));
            s += h;
        }
        y
    };
    // theta'(1) goes from negative (k0 = -alpha, bent too much) to positive (k0 = 0).
    let (mut lo, mut hi) = (-alpha, 0.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if shoot(mid)[1] < 0.0 { lo = mid } else { hi = mid }
    }
    let y = shoot(0.5 * (lo + hi));
    [y[2], y[3], y[0]]
}

#[test]
fn a_cantilever_under_a_large_uniform_load_converges_to_the_elastica() {
    let (l, alpha) = (2.0, 10.0);
    let q = alpha * 1e5 / (l * l * l);
    let [x_ref, y_ref, angle_ref] = elastica_under_uniform_load(alpha);
    println!("elastica q L^3/EI = {alpha}: tip ({:.6}, {:.6}) L, angle {angle_ref:.6}", x_ref, y_ref);
    let mut errors = Vec::new();
    for n in [16, 32] {
        // Euler-Bernoulli, nearly inextensible; the load grows with t (increments of 0.1).
        let model = Model::parse(&cantilever("euler_bernoulli", n, 1e12, &format!("{q:e} * t")), "c.toml").unwrap();
        let mut sim = simulation_with(&model, &[], |_| {});
        for k in 1..=10 {
            sim.settle_static(0.1 * k as f64).unwrap();
        }
        let (x, y, angle) =
            (output(&mut sim, "tip_x") / l, output(&mut sim, "tip_y") / l, output(&mut sim, "tip_angle"));
        let error = (x - x_ref).hypot(y - y_ref);
        println!("{n} elements: tip ({x:.6}, {y:.6}) L, angle {angle:.6}: distance {error:.2e} L");
        assert!((angle - angle_ref).abs() < 2e-3, "{n} elements: tip angle {angle} against {angle_ref}");
        errors.push(error);
    }
    // Measured: 4.7e-4 and 1.2e-4 L.
    assert!(errors[1] < 2.5e-4, "32 elements: tip {} L from the elastica's", errors[1]);
    assert!(errors[0] / errors[1] > 3.5, "second order: errors {errors:?}");
}

/// The model text `gravity` (with gravity) and `loaded` (without, under the distributed force
/// rho A g) run side by side for `steps` hundredths of a second: the largest difference of the
/// outputs `compared`, the energy the first's motion gained (its energy_total's change), the
/// second's (energy_total - energy_supplied, which is the same if the force's work is the
/// weight's) and the energy the force supplied.
fn weight_against_gravity(gravity: &str, loaded: &str, compared: &[&str], steps: usize) -> (f64, f64, f64, f64) {
    let (gravity, loaded) = (Model::parse(gravity, "g.toml").unwrap(), Model::parse(loaded, "w.toml").unwrap());
    let (mut a, mut b) = (simulation_with(&gravity, &[], |_| {}), simulation_with(&loaded, &[], |_| {}));
    let e0 = output(&mut a, "energy_total");
    let mut worst = 0.0f64;
    for k in 1..=steps {
        let t = 0.01 * k as f64;
        a.step_to(t).unwrap();
        b.step_to(t).unwrap();
        for name in compared {
            worst = worst.max((output(&mut a, name) - output(&mut b, name)).abs());
        }
    }
    let supplied = output(&mut b, "energy_supplied");
    (worst, output(&mut a, "energy_total") - e0, output(&mut b, "energy_total") - supplied, supplied)
}

/// A pinned beam released horizontal: the same motion under gravity and, without gravity,
/// under the distributed force rho A g along -y; the force's work is the weight's.
#[test]
fn a_distributed_weight_moves_a_pendulum_as_gravity_does() {
    let text = |gravity: &str, load: &str| {
        format!(
            r#"[model]
name = "pendulum"
{gravity}

[[beams]]
name = "arm"
start = [0.0, 0.0]
end = [1.2, 0.0]
elements = 4
section = {{ EA = 1.5e6, GA = 5e5, EI = 12.5, mass_per_length = 0.831 }}
formulation = "timoshenko"

[[joints]]
name = "pin"
type = "revolute"
body2 = "arm.start"
{load}
[[outputs]]
name = "tip_x"
quantity = "x"
body = "arm.end"

[[outputs]]
name = "tip_y"
quantity = "y"
body = "arm.end"

[[outputs]]
name = "energy_total"
quantity = "energy_total"

[[outputs]]
name = "energy_supplied"
quantity = "energy_supplied"
"#
        )
    };
    let weight =
        "[[loads]]\ntype = \"distributed_force\"\nbody = \"arm\"\ndirection = [0.0, -1.0]\nvalue = \"0.831 * 9.81\"\n";
    let (worst, gravity_motion, load_motion, supplied) =
        weight_against_gravity(&text("gravity = [0.0, -9.81]", ""), &text("", weight), &["tip_x", "tip_y"], 50);
    println!(
        "tip positions differ by at most {worst:.1e} m; energy balance {gravity_motion:.6e} vs {load_motion:.6e} J"
    );
    assert!(worst < 1e-9, "tip positions differ by {worst} m");
    assert!(supplied > 1.0, "the load did no work");
    // The method's dissipation over 0.5 s, -6.755e-6 J both ways: the force's work is the
    // change of its potential (with Q . dq it was -6.767e-6 J).
    assert!((gravity_motion - load_motion).abs() < 1e-10, "{gravity_motion} against {load_motion}");
}

#[test]
fn what_a_distributed_force_cannot_be_is_a_located_error() {
    let base = cantilever("euler_bernoulli", 4, 1e9, "q");
    let cases = [
        (
            "body = \"arm\"",
            "body = \"arm.end\"",
            "a distributed force acts on a whole beam, named as in [[beams]]; 'arm.end' is none (beams: arm)",
        ),
        (
            "value = \"q\"",
            "value = \"q\"\npoint = [1.0, 0.0]",
            "a distributed force acts along the whole beam; remove `point`",
        ),
        ("value = \"q\"", "value = \"q\"\nfollower = true", "a distributed force keeps its global direction"),
        ("direction = [0.0, -1.0]\n", "", "a distributed force needs `direction = [x, y]`"),
        ("direction = [0.0, -1.0]", "direction = [0.0, 0.0]", "direction must not be zero"),
        // The type is read first (it was "unknown body 'arm'").
        (
            "type = \"distributed_force\"",
            "type = \"distributed_load\"",
            "unknown load type 'distributed_load', expected force, torque or distributed_force",
        ),
    ];
    for (old, new, message) in cases {
        assert!(base.contains(old));
        let err = parse_and_assemble(&base.replacen(old, new, 1), "c.toml").unwrap_err().to_string();
        assert!(err.starts_with("c.toml:") && err.contains(message), "{err}");
    }
    // A floating-frame beam takes forces at its points only.
    let floating = "[model]\nname = \"f\"\n\n[[beams]]\nname = \"arm\"\nformulation = \"floating_frame\"\nmodes = 2\n\
        start = [0.0, 0.0]\nend = [1.0, 0.0]\nsection = { EA = 1e9, EI = 1e5, mass_per_length = 1.0 }\n\n\
        [[loads]]\ntype = \"distributed_force\"\nbody = \"arm\"\ndirection = [0.0, -1.0]\nvalue = 1.0\n";
    let err = parse_and_assemble(floating, "f.toml").unwrap_err().to_string();
    assert!(err.contains("'arm' is a floating_frame beam, which takes forces at its points only"), "{err}");
    // In a spatial model, a body that is no beam.
    let spatial = "[model]\nname = \"s\"\ndimension = 3\n\n[[point_masses]]\nname = \"m\"\nmass = 1.0\nposition = [0.0, 0.0, 0.0]\n\n[[loads]]\ntype = \"distributed_force\"\nbody = \"m\"\ndirection = [0.0, 0.0, 1.0]\nvalue = 1.0\n";
    let err = parse_and_assemble(spatial, "s.toml").unwrap_err().to_string();
    assert!(
        err.contains(
            "a distributed force acts on a whole beam, named as in [[beams]]; 'm' is none (beams: the model has none)"
        ),
        "{err}"
    );
}

/// A spatial clamped beam along x (length 2, EIy = 1e5, EIz = 2e5, GA = 1e7) of `n`
/// `formulation` elements under distributed forces `value_z` along -z and `value_y` along +y.
fn spatial_cantilever(formulation: &str, n: usize, value_z: &str, value_y: &str) -> String {
    format!(
        r#"[model]
name = "spatial_cantilever_udl"
dimension = 3

[[beams]]
name = "arm"
start = [0.0, 0.0, 0.0]
end = [2.0, 0.0, 0.0]
elements = {n}
section = {{ EA = 1e12, GA = 1e7, EIy = 1e5, EIz = 2e5, GJ = 1e5, mass_per_length = 1.0 }}
formulation = "{formulation}"

[[joints]]
name = "clamp"
type = "fixed"
body2 = "arm.start"

[[loads]]
type = "distributed_force"
body = "arm"
direction = [0.0, 0.0, -1.0]
value = "{value_z}"

[[loads]]
type = "distributed_force"
body = "arm"
direction = [0.0, 1.0, 0.0]
value = "{value_y}"

[[outputs]]
name = "tip_x"
quantity = "x"
body = "arm.end"

[[outputs]]
name = "tip_y"
quantity = "y"
body = "arm.end"

[[outputs]]
name = "tip_z"
quantity = "z"
body = "arm.end"
"#
    )
}

/// Spatial beams: small uniform loads in both bending planes (EIy against z, EIz against y)
/// deflect the tip by q L^4 / (8 EI) (+ q L^2 / (2 k G A) with shear), and a large one in one
/// plane, q L^3 / EIy = 10, converges to the planar elastica as the planar element does.
#[test]
fn a_spatial_cantilever_under_uniform_loads_deflects_as_beam_theory_and_the_elastica() {
    let (l, ga): (f64, f64) = (2.0, 1e7);
    for (formulation, shear) in [("euler_bernoulli", false), ("timoshenko", true)] {
        let model = Model::parse(&spatial_cantilever(formulation, 4, "10", "10"), "s.toml").unwrap();
        let mut sim = simulation_with(&model, &[], |_| {});
        sim.settle_static(0.0).unwrap();
        let theory = |ei: f64| 10.0 * l.powi(4) / (8.0 * ei) + if shear { 10.0 * l * l / (2.0 * ga) } else { 0.0 };
        let (y, z) = (output(&mut sim, "tip_y"), output(&mut sim, "tip_z"));
        println!("{formulation}: tip y {y:.9e} ({:.9e}), z {z:.9e} ({:.9e})", theory(2e5), -theory(1e5));
        assert!((y - theory(2e5)).abs() < 1e-7 * theory(2e5), "{formulation}: tip y {y}");
        assert!((z + theory(1e5)).abs() < 1e-7 * theory(1e5), "{formulation}: tip z {z}");
    }
    let alpha = 10.0;
    let q = alpha * 1e5 / (l * l * l);
    let [x_ref, z_ref, _] = elastica_under_uniform_load(alpha);
    let model = Model::parse(&spatial_cantilever("euler_bernoulli", 32, &format!("{q:e} * t"), "0"), "s.toml").unwrap();
    let mut sim = simulation_with(&model, &[], |_| {});
    for k in 1..=10 {
        sim.settle_static(0.1 * k as f64).unwrap();
    }
    let (x, y, z) = (output(&mut sim, "tip_x") / l, output(&mut sim, "tip_y") / l, output(&mut sim, "tip_z") / l);
    let error = (x - x_ref).hypot(z - z_ref);
    // The planar element on the same mesh and load steps.
    let planar = Model::parse(&cantilever("euler_bernoulli", 32, 1e12, &format!("{q:e} * t")), "c.toml").unwrap();
    let mut twin = simulation_with(&planar, &[], |_| {});
    for k in 1..=10 {
        twin.settle_static(0.1 * k as f64).unwrap();
    }
    let apart = (x - output(&mut twin, "tip_x") / l).hypot(z - output(&mut twin, "tip_y") / l);
    println!(
        "spatial, 32 elements: tip ({x:.6}, {y:.1e}, {z:.6}) L: {error:.2e} L from the elastica, {apart:.1e} L from the planar"
    );
    assert!(error < 2.5e-4 && y.abs() < 1e-12, "tip {x}, {y}, {z}");
    assert!(apart < 1e-9, "the spatial tip is {apart} L from the planar one");
}

/// The spatial element's distributed force is minus the gradient of its potential
/// -f . int r dx (central differences of the centre line's integral), and its tangent the
/// derivative of the force (central differences), at a bent and twisted element.
#[test]
fn the_spatial_line_load_is_the_gradient_of_its_potential_and_its_tangent_the_load_derivative() {
    use crate::beam3d::{compose, element, unit};
    use flexfmu::integrators::TangentCoefficients;
    use flexfmu::mechanics::elements::{Element, Kin};
    use flexfmu::mechanics::euler_parameters::from_axis_angle;
    use flexfmu::mechanics::forces::{SpatialLoad, TimeFunction};
    let (beam, rest) = element(Some(0.85));
    let mut q = rest;
    q[7] += 0.02;
    q[9] -= 0.03;
    let p2 = compose([q[10], q[11], q[12], q[13]], from_axis_angle(unit([1.0, 0.2, -0.4]), 0.15));
    q[10..].copy_from_slice(&p2);
    let f: [f64; 3] = [3.0, -2.0, 5.0];
    let size = (f[0] * f[0] + f[1] * f[1] + f[2] * f[2]).sqrt();
    let load = SpatialLoad::line(beam.clone(), unit(f), TimeFunction::Table(vec![[0.0, size]]));
    let zeros = [0.0; 14];
    let force = |q: &[f64]| {
        let (mut inertial, mut g) = ([0.0; 14], [0.0; 14]);
        load.add_forces(&Kin::without_inputs(q, &zeros, &zeros, 0.0), &mut inertial, &mut g);
        g
    };
    let potential = |q: &[f64]| {
        let r = beam.center_line_integral(q);
        -(f[0] * r[0] + f[1] * r[1] + f[2] * r[2])
    };
    let g = force(&q);
    let scale = g.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let mut block = [0.0; 196];
    let c = TangentCoefficients { mass: 0.0, damping: 0.0, stiffness: 1.0, lambda: 0.0 };
    load.add_tangent(&Kin::without_inputs(&q, &zeros, &zeros, 0.0), &c, &mut block);
    let h = 1e-6;
    let (mut worst_force, mut worst_tangent) = (0.0f64, 0.0f64);
    for j in 0..14 {
        let (mut plus, mut minus) = (q, q);
        plus[j] += h;
        minus[j] -= h;
        // g = -Q = dV/dq.
        worst_force = worst_force.max((g[j] - (potential(&plus) - potential(&minus)) / (2.0 * h)).abs() / scale);
        let (gp, gm) = (force(&plus), force(&minus));
        for i in 0..14 {
            worst_tangent = worst_tangent.max((block[i * 14 + j] - (gp[i] - gm[i]) / (2.0 * h)).abs() / scale);
        }
    }
    println!(
        "force against the potential {worst_force:.1e}, tangent against differences {worst_tangent:.1e} (of {scale:.3})"
    );
    assert!(worst_force < 1e-8 && worst_tangent < 1e-5, "{worst_force} {worst_tangent}");
}

/// The spatial twin of `a_distributed_weight_moves_a_pendulum_as_gravity_does`: a beam on a
/// spherical joint released horizontal, under gravity and, without it, under rho A g.
#[test]
fn a_distributed_weight_moves_a_spatial_pendulum_as_gravity_does() {
    let text = |gravity: &str, load: &str| {
        format!(
            r#"[model]
name = "pendulum"
dimension = 3
{gravity}

[[beams]]
name = "arm"
start = [0.0, 0.0, 0.0]
end = [1.2, 0.0, 0.0]
elements = 4
section = {{ EA = 1.5e6, GA = 5e5, EIy = 12.5, EIz = 20.0, GJ = 10.0, mass_per_length = 0.831 }}
formulation = "timoshenko"

[[joints]]
name = "pin"
type = "spherical"
body2 = "arm.start"
{load}
[[outputs]]
name = "tip_x"
quantity = "x"
body = "arm.end"

[[outputs]]
name = "tip_z"
quantity = "z"
body = "arm.end"

[[outputs]]
name = "energy_total"
quantity = "energy_total"

[[outputs]]
name = "energy_supplied"
quantity = "energy_supplied"
"#
        )
    };
    let weight = "[[loads]]\ntype = \"distributed_force\"\nbody = \"arm\"\ndirection = [0.0, 0.0, -1.0]\nvalue = \"0.831 * 9.81\"\n";
    let (worst, gravity_motion, load_motion, supplied) =
        weight_against_gravity(&text("gravity = [0.0, 0.0, -9.81]", ""), &text("", weight), &["tip_x", "tip_z"], 30);
    println!(
        "spatial: tips differ by at most {worst:.1e} m; energy balance {gravity_motion:.6e} vs {load_motion:.6e} J"
    );
    assert!(worst < 1e-9, "tip positions differ by {worst} m");
    assert!(supplied > 1.0, "the load did no work");
    assert!((gravity_motion - load_motion).abs() < 1e-9, "{gravity_motion} against {load_motion}");
}

/// A direction of any representable size is its unit vector (a planar [1e200, 1e200] overflowed
/// its plain length and gave no load at all, [0, 1e-170] underflowed and was refused): the
/// cantilever's deflection is the same for [0, -1], [0, -1e200] and [0, -1e-170].
#[test]
fn a_direction_of_any_size_gives_the_same_load() {
    let tips: Vec<f64> = ["[0.0, -1.0]", "[0.0, -1e200]", "[0.0, -1e-170]"]
        .iter()
        .map(|dir| {
            let text = cantilever("euler_bernoulli", 4, 1e12, "q")
                .replace("direction = [0.0, -1.0]", &format!("direction = {dir}"));
            let model = Model::parse(&text, "c.toml").unwrap();
            let mut sim = simulation_with(&model, &[], |_| {});
            sim.settle_static(0.0).unwrap();
            output(&mut sim, "tip_y")
        })
        .collect();
    assert!(tips[0] < -1e-5 && tips.iter().all(|&t| t == tips[0]), "{tips:?}");
}
