//! The `angular_momentum_x`, `_y`, `_z` outputs of spatial models (src/mechanics/momentum.rs):
//! the angular momentum about the global origin of a rigid body (m r x r' + A J' omega') or of
//! the whole model. Checks: the whole-model sum misses no kind of element (a rigid rotation
//! omega of a model with a rigid body, a plate and a beam has omega . L = 2 T, T the kinetic
//! energy every element reports); a torque-free tumbling body conserves L over a long run; a
//! heavy top conserves the vertical component and the component along its symmetry axis;
//! under a known torque and gravity, L changes by the moment impulse (dL/dt = T + r x m g);
//! the quantity is refused where it has no meaning.

use flexfmu::integrators::{ConstraintTreatment, EnergyFlow, Method};
use flexfmu::mechanics::assemble::assemble;
use flexfmu::mechanics::euler_parameters::{cross, e_matrix, rotation};
use flexfmu::mechanics::outputs::OutputState;
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};

use crate::common;
use common::sim::output;

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn norm(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// The outputs `angular_momentum_x`, `_y`, `_z` of `body` (the whole model for `None`), named
/// `<prefix>x`, `<prefix>y`, `<prefix>z`.
fn momentum_outputs(prefix: &str, body: Option<&str>) -> String {
    let body = body.map_or(String::new(), |b| format!("body = \"{b}\"\n"));
    ["x", "y", "z"]
        .iter()
        .map(|c| format!("[[outputs]]\nname = \"{prefix}{c}\"\nquantity = \"angular_momentum_{c}\"\n{body}"))
        .collect()
}

fn momentum(sim: &mut Simulation, prefix: &str) -> [f64; 3] {
    ["x", "y", "z"].map(|c| output(sim, &format!("{prefix}{c}")))
}

fn conservative(text: &str, step: f64) -> Simulation {
    let model = Model::parse(text, "m.toml").unwrap_or_else(|e| panic!("{e}"));
    let settings = SolverSettings {
        method: Method::Ttbif,
        rho_inf: 1.0,
        step,
        tolerance: 1e-12,
        constraints: ConstraintTreatment::Ggl,
        ..SolverSettings::default()
    };
    Simulation::new(&model, &model.default_parameters(), settings, 0.0).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_whole_model_sum_misses_no_kind() {
    // A rigid body, a clamped plate's patches and a curved spatial beam, none at the origin,
    // given the rigid rotation omega about the origin (r' = omega x r, p' = 1/2 E^T omega on
    // every body and node): every element's kinetic energy is then 1/2 omega . L_element, so
    // omega . L = 2 T holds for the sum exactly when it has every element with mass.
    let text = r#"[model]
name = "all"
dimension = 3
[[rigid_bodies]]
name = "b"
mass = 2.0
inertia = [[0.05, 0.01, -0.005], [0.01, 0.08, 0.002], [-0.005, 0.002, 0.06]]
position = [0.5, 0.1, -0.2]
axis = [1.0, 0.0, 1.0]
angle = 0.4
[[plates]]
name = "plate"
size = [1.0, 0.8]
thickness = 0.01
material = { E = 7e10, nu = 0.3, rho = 2700.0 }
origin = [0.2, -1.0, 0.3]
mesh = [4, 4]
bodies = [2, 2]
clamped = ["x_min"]
[[beams]]
name = "arc"
start = [1.0, 0.0, 0.5]
end = [1.0, 1.0, 0.5]
center = [1.0, 0.5, 0.2]
elements = 4
section = { width = 0.03, height = 0.01 }
material = { E = 2.1e11, nu = 0.3, rho = 7850.0 }
"#
    .to_string()
        + &momentum_outputs("l", None);
    let model = Model::parse(&text, "all.toml").unwrap();
    let a = assemble(&model, &model.default_parameters()).unwrap();
    let (sys, q) = (&a.system, &a.initial.q);
    let omega = [0.7, -1.3, 2.1];
    let mut v = vec![0.0; q.len()];
    for body in &sys.bodies {
        let x = body.x;
        let vr = cross(omega, [q[x], q[x + 1], q[x + 2]]);
        let e = e_matrix(&q[x + 3..x + 7]);
        v[x..x + 3].copy_from_slice(&vr);
        for k in 0..4 {
            v[x + 3 + k] = 0.5 * (0..3).map(|i| e[i][k] * omega[i]).sum::<f64>();
        }
    }
    assert_eq!(7 * sys.bodies.len(), q.len(), "every coordinate is a body's or a node's");
    let state = OutputState {
        q,
        v: &v,
        a: &v,
        lambda: &a.initial.lambda,
        t: 0.0,
        exchanged: EnergyFlow::default(),
        drive_inputs: &sys.inputs,
    };
    let l: [f64; 3] = std::array::from_fn(|k| a.outputs[k].eval(sys, &state));
    let kinetic = sys.energy(q, &v, 0.0).kinetic;
    let bodies = sys.bodies.len();
    println!(
        "rigid rotation of {bodies} bodies and nodes: L = {l:?}, omega . L = {:.15}, 2 T = {:.15}, relative difference {:.1e}",
        dot(omega, l),
        2.0 * kinetic,
        (dot(omega, l) - 2.0 * kinetic).abs() / (2.0 * kinetic)
    );
    assert!((dot(omega, l) - 2.0 * kinetic).abs() < 1e-13 * kinetic);
}

#[test]
fn a_torque_free_body_conserves_its_angular_momentum() {
    // An asymmetric body with products of inertia, away from the origin and drifting, spun
    // mostly about its intermediate axis: it tumbles (flips every few seconds), yet L about
    // the origin (orbital r x m v and spin) stays: 60 s with TTBIF rho_inf = 1, GGL; the
    // drift is the method's error, second order in h.
    let text = "[model]\nname = \"free\"\ndimension = 3\n\
                [[rigid_bodies]]\nname = \"b\"\nmass = 1.5\n\
                inertia = [[1.5, 0.1, 0.0], [0.1, 2.0, 0.05], [0.0, 0.05, 3.0]]\n\
                position = [0.3, -0.2, 0.5]\nvelocity = [0.1, 0.2, -0.05]\nangular_velocity = [0.02, 2.0, 0.03]\n"
        .to_string()
        + &momentum_outputs("l", Some("b"))
        + &momentum_outputs("total_", None)
        + "[[outputs]]\nname = \"wy_body\"\nquantity = \"wy_body\"\nbody = \"b\"\n";
    let mut drifts = Vec::new();
    for h in [1e-3, 5e-4] {
        let mut sim = conservative(&text, h);
        let l0 = momentum(&mut sim, "l");
        let (mut drift, mut flips, mut sign) = (0.0f64, 0, 1.0);
        for k in 1..=600 {
            sim.step_to(k as f64 * 0.1).unwrap();
            let l = momentum(&mut sim, "l");
            assert_eq!(l, momentum(&mut sim, "total_"), "one body: the total is the body's");
            drift = drift.max(norm(sub(l, l0)));
            let s = output(&mut sim, "wy_body").signum();
            flips += usize::from(s != sign);
            sign = s;
        }
        println!(
            "torque-free tumbling body, h = {h:.0e}, 60 s: L0 = {l0:?} (|L0| = {:.6}), largest |L - L0| = {drift:.2e} (relative {:.1e}); {flips} flips",
            norm(l0),
            drift / norm(l0)
        );
        assert!(flips >= 4, "the intermediate-axis spin flips");
        drifts.push(drift / norm(l0));
    }
    println!("order {:.2}", (drifts[0] / drifts[1]).log2());
    assert!(drifts[1] < 1e-8 && drifts[0] / drifts[1] > 3.0, "{drifts:?}");
}

/// A heavy top (models/heavy_top.toml's m, l, J) tilted by 30 degrees, spinning at 40 rad/s
/// about its own axis, released without precession: it nutates.
fn nutating_top() -> String {
    let theta: f64 = 30f64.to_radians();
    format!(
        "[model]\nname = \"top\"\ndimension = 3\ngravity = [0.0, 0.0, -9.81]\n\
         [[rigid_bodies]]\nname = \"top\"\nmass = 0.5\ninertia = [2.5e-3, 2.5e-3, 4e-3]\n\
         position = [{:e}, 0.0, {:e}]\naxis = [0.0, 1.0, 0.0]\nangle = {theta:e}\n\
         angular_velocity = [{:e}, 0.0, {:e}]\n\
         [[joints]]\nname = \"tip\"\ntype = \"spherical\"\nbody2 = \"top\"\npoint = [0.0, 0.0, 0.0]\n",
        0.1 * theta.sin(),
        0.1 * theta.cos(),
        40.0 * theta.sin(),
        40.0 * theta.cos()
    ) + &momentum_outputs("l", Some("top"))
        + &["e0", "e1", "e2", "e3"]
            .map(|e| format!("[[outputs]]\nname = \"{e}\"\nquantity = \"{e}\"\nbody = \"top\"\n"))
            .concat()
}

#[test]
fn a_heavy_top_conserves_the_vertical_and_the_axial_component() {
    // Gravity's moment about the tip, r x m g, is horizontal and normal to the symmetry axis k
    // (r is along k): L_z and L . k = J3 omega3 are conserved (Goldstein sec. 5.7), while the
    // horizontal components change. Second order in h.
    let mut errors = Vec::new();
    for h in [1e-3, 5e-4] {
        let mut sim = conservative(&nutating_top(), h);
        let axial = |sim: &mut Simulation| {
            let p = ["e0", "e1", "e2", "e3"].map(|e| output(sim, e));
            let a = rotation(&p);
            dot(momentum(sim, "l"), [a[0][2], a[1][2], a[2][2]])
        };
        let (l0, k0) = (momentum(&mut sim, "l"), axial(&mut sim));
        let (mut dz, mut dk, mut horizontal) = (0.0f64, 0.0f64, 0.0f64);
        for k in 1..=(1.2 / h).round() as usize {
            sim.step_to(k as f64 * h).unwrap();
            let l = momentum(&mut sim, "l");
            dz = dz.max((l[2] - l0[2]).abs());
            dk = dk.max((axial(&mut sim) - k0).abs());
            horizontal = horizontal.max(norm([l[0] - l0[0], l[1] - l0[1], 0.0]));
        }
        println!(
            "nutating top h = {h:.0e} over 1.2 s: L0 = {l0:.6?}, L.k = {k0:.6} (J3 omega3 = {:.6}); largest |dL_z| {dz:.2e}, |d(L.k)| {dk:.2e}; horizontal change up to {horizontal:.4}",
            4e-3 * 40.0
        );
        assert!((k0 - 4e-3 * 40.0).abs() < 1e-12);
        assert!(horizontal > 0.01, "gravity turns the horizontal part");
        errors.push((dz / k0, dk / k0));
    }
    let (z, k) = errors[1];
    println!("orders: L_z {:.2}, L.k {:.2}", (errors[0].0 / z).log2(), (errors[0].1 / k).log2());
    assert!(z < 1e-5 && k < 1e-5, "{errors:?}");
    assert!(errors[0].0 / z > 3.0 && errors[0].1 / k > 3.0, "second order: {errors:?}");
}

#[test]
fn a_known_torque_and_gravity_change_it_by_their_impulse() {
    // A tumbling body thrown under gravity with a torque 2 t N m about the fixed direction u:
    // the centre of mass moves as c(t) = c0 + v0 t + g t^2 / 2, so the moment impulse about the
    // origin is exact: Delta L = u t^2 + (c0 t + v0 t^2 / 2) x m g (g x g = 0).
    let (m, c0, v0) = (1.5, [0.3, -0.2, 0.5], [1.0, 0.5, 3.0]);
    let u = [0.0, 0.6, 0.8];
    let text = format!(
        "[model]\nname = \"thrown\"\ndimension = 3\ngravity = [0.0, 0.0, -9.81]\n\
         [[rigid_bodies]]\nname = \"b\"\nmass = {m}\ninertia = [[1.5, 0.1, 0.0], [0.1, 2.0, 0.05], [0.0, 0.05, 3.0]]\n\
         position = [{}, {}, {}]\nvelocity = [{}, {}, {}]\nangular_velocity = [1.0, -0.5, 2.0]\n\
         [[loads]]\ntype = \"torque\"\nbody = \"b\"\ndirection = [{}, {}, {}]\nvalue = \"2*t\"\n",
        c0[0], c0[1], c0[2], v0[0], v0[1], v0[2], u[0], u[1], u[2]
    ) + &momentum_outputs("l", Some("b"));
    let mut errors = Vec::new();
    for h in [2e-3, 1e-3] {
        let mut sim = conservative(&text, h);
        let l0 = momentum(&mut sim, "l");
        let mut worst = 0.0f64;
        for t in [0.5, 1.0, 1.5] {
            sim.step_to(t).unwrap();
            let dl = sub(momentum(&mut sim, "l"), l0);
            let arm: [f64; 3] = std::array::from_fn(|k| c0[k] * t + v0[k] * t * t / 2.0);
            let gravity = cross(arm, [0.0, 0.0, -9.81 * m]);
            let impulse: [f64; 3] = std::array::from_fn(|k| u[k] * t * t + gravity[k]);
            let err = norm(sub(dl, impulse)) / norm(impulse);
            println!(
                "thrown body h = {h:.0e}, t = {t}: Delta L {dl:.9?}, moment impulse {impulse:.9?}, relative error {err:.2e}"
            );
            worst = worst.max(err);
        }
        errors.push(worst);
    }
    println!("order {:.2}", (errors[0] / errors[1]).log2());
    assert!(errors[1] < 1e-6, "{errors:?}");
    assert!(errors[1] < 1e-12 || errors[0] / errors[1] > 3.0, "second order: {errors:?}");
}

#[test]
fn angular_momentum_is_refused_where_it_has_no_meaning() {
    let beam = "[model]\nname = \"m\"\ndimension = 3\n[[beams]]\nname = \"arm\"\nstart = [0.0, 0.0, 0.0]\n\
                end = [1.0, 0.0, 0.0]\nelements = 2\nsection = { width = 0.03, height = 0.01 }\n\
                material = { E = 2.1e11, nu = 0.3, rho = 7850.0 }\n[[rigid_bodies]]\nname = \"b\"\nmass = 1.0\n\
                inertia = [1.0, 1.0, 1.0]\nposition = [0.0, 0.0, 1.0]\n[[outputs]]\nname = \"l\"\n\
                quantity = \"angular_momentum_z\"\n";
    let cases = [
        (format!("{beam}body = \"arm.end\"\n"), "is a beam node"),
        (format!("{beam}body = \"b\"\npoint = [1.0, 0.0, 0.0]\n"), "`point` does not apply"),
        (
            "[model]\nname = \"m\"\n[[point_masses]]\nname = \"p\"\nmass = 1.0\nposition = [0.0, 0.0]\n\
             [[outputs]]\nname = \"l\"\nquantity = \"angular_momentum_z\"\n"
                .to_string(),
            "unknown output quantity 'angular_momentum_z'",
        ),
    ];
    for (text, message) in cases {
        let model = Model::parse(&text, "m.toml").unwrap();
        let err = assemble(&model, &model.default_parameters()).expect_err(message).to_string();
        println!("{err}");
        assert!(err.contains(message), "{err}");
        assert!(err.starts_with("m.toml:"), "located: {err}");
    }
    // Without `body` a model with beams is fine: their elements are in the sum.
    let model = Model::parse(beam, "m.toml").unwrap();
    assert!(assemble(&model, &model.default_parameters()).is_ok());
}
