//! Follower loads (`[[loads]]` with `follower = true`): a force or (3D) torque whose direction
//! is fixed in the body (src/mechanics/forces/load.rs, spatial_load.rs). References:
//! - the generalized force is the virtual work f u(q) . dP (central differences of the point
//!   P), and the load's tangent is -dQ/dq (central differences of Q), for a rigid body with an
//!   offset point, a corotational and an ANCF beam node, and a spatial body (force at a point,
//!   torque);
//! - a free body spinning at omega under a follower force f through its centre (no moment):
//!   the force turns with it, so the centre accelerates by (f/m)(cos wt, sin wt) from rest,
//!   r = f/(m w^2) (1 - cos wt, wt - sin wt), and the work is the kinetic energy of the centre
//!   f^2 (1 - cos wt)/(m w^2); planar and spatial (spin about the principal axis z);
//! - a follower force at an offset point has a constant moment s x f u, so the angle grows as
//!   w t + M t^2/(2 J) (a force of fixed direction would not);
//! - a spatial follower torque about the spin axis: w = w0 + T t / J3;
//! - Beck's column (Beck 1952; Timoshenko & Gere, Theory of elastic stability, 1961,
//!   sec. 2.21): a cantilever under a tangential follower force at its tip loses stability by
//!   flutter at P_cr = 20.05 EI/L^2: with 8 elements a small disturbance stays small at
//!   0.97 P_cr and grows at 1.03 P_cr (measured: the largest deflection per period stays at
//!   3.4e-5 to 3.7e-5 m, resp. grows from 1.8e-4 m to 8.9e-2 m in 9 periods).

use flexfmu::integrators::{Method, TangentCoefficients};
use flexfmu::mechanics::assemble::assemble;
use flexfmu::mechanics::elements::{Element, Kin};
use flexfmu::mechanics::forces::{Load, SpatialLoad};
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};

/// Checks the element's generalized force against the virtual work of `work` (the force's
/// power along a direction: f u(q) . dP, by central differences of the caller's point) and its
/// tangent against central differences of the force, at a perturbed configuration.
fn check_force_and_tangent<E: Element>(
    load: &E,
    q: &[f64],
    directions: &[Vec<f64>],
    virtual_work: impl Fn(&[f64], &[f64]) -> f64,
) -> (f64, f64) {
    let t = 0.0;
    let n = q.len();
    let zeros = vec![0.0; n];
    let force = |q: &[f64]| {
        let kin = Kin::without_inputs(q, &zeros, &zeros, t);
        let (mut inertial, mut g) = (vec![0.0; n], vec![0.0; n]);
        load.add_forces(&kin, &mut inertial, &mut g);
        g.iter().map(|v| -v).collect::<Vec<f64>>()
    };
    let qf = force(q);
    let scale = qf.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let mut work_error = 0.0f64;
    for dir in directions {
        let exact: f64 = qf.iter().zip(dir).map(|(a, b)| a * b).sum();
        work_error = work_error.max((exact - virtual_work(q, dir)).abs() / scale);
    }
    let dofs = load.dofs();
    let c = TangentCoefficients { mass: 0.0, damping: 0.0, stiffness: 1.0, lambda: 0.0 };
    let kin = Kin::without_inputs(q, &zeros, &zeros, t);
    let mut block = vec![0.0; dofs.len() * dofs.len()];
    load.add_tangent(&kin, &c, &mut block);
    let eps = 1e-6;
    let mut tangent_error = 0.0f64;
    for (j, &dj) in dofs.iter().enumerate() {
        let (mut plus, mut minus) = (q.to_vec(), q.to_vec());
        plus[dj] += eps;
        minus[dj] -= eps;
        let (fp, fm) = (force(&plus), force(&minus));
        for (i, &di) in dofs.iter().enumerate() {
            let fd = -(fp[di] - fm[di]) / (2.0 * eps);
            tangent_error = tangent_error.max((block[i * dofs.len() + j] - fd).abs() / scale);
        }
    }
    (work_error, tangent_error)
}

/// Central difference of f u(q) . P(q) along `dir` with u frozen at q: the virtual work.
fn virtual_work_2d(
    f: f64,
    direction: impl Fn(&[f64]) -> [f64; 2],
    point: impl Fn(&[f64]) -> [f64; 2],
) -> impl Fn(&[f64], &[f64]) -> f64 {
    move |q, dir| {
        let eps = 1e-6;
        let shifted = |s: f64| -> Vec<f64> { q.iter().zip(dir).map(|(a, d)| a + s * eps * d).collect() };
        let (p, m) = (point(&shifted(1.0)), point(&shifted(-1.0)));
        let u = direction(q);
        f * (u[0] * (p[0] - m[0]) + u[1] * (p[1] - m[1])) / (2.0 * eps)
    }
}

fn perturbed(q0: &[f64]) -> Vec<f64> {
    q0.iter().enumerate().map(|(i, v)| v + 0.05 * ((i as f64) * 1.3).sin()).collect()
}

/// Four directions in the space of n coordinates.
fn directions(n: usize) -> Vec<Vec<f64>> {
    (0..4).map(|k| (0..n).map(|i| ((i * 7 + k * 3) as f64 * 0.91).cos()).collect()).collect()
}

#[test]
fn planar_follower_forces_are_virtual_work_with_exact_tangents() {
    // A rigid body (force at an offset point), a corotational and an ANCF beam end node.
    let text = r#"[model]
name = "followers"
[[rigid_bodies]]
name = "b"
mass = 2.0
inertia = 0.1
position = [1.0, 2.0]
angle = 0.3
[[beams]]
name = "c"
start = [0.0, 0.0]
end = [1.0, 0.0]
elements = 2
section = { width = 0.02, height = 0.02 }
material = { E = 2.1e11, nu = 0.3, rho = 7850.0 }
[[beams]]
name = "a"
start = [0.0, 1.0]
end = [0.0, 2.0]
elements = 2
formulation = "ancf"
section = { width = 0.02, height = 0.02 }
material = { E = 2.1e11, nu = 0.3, rho = 7850.0 }
[[loads]]
type = "force"
body = "b"
point = [1.2, 2.5]
direction = [0.6, -0.8]
value = 3.0
follower = true
[[loads]]
type = "force"
body = "c.end"
direction = [0.0, 1.0]
value = 3.0
follower = true
[[loads]]
type = "force"
body = "a.end"
direction = [1.0, 0.0]
value = 3.0
follower = true
"#;
    let model = Model::parse(text, "followers.toml").unwrap();
    let asm = assemble(&model, &model.default_parameters()).unwrap();
    let sys = &asm.system;
    let q0 = &asm.initial.q;
    let q = perturbed(q0);
    let loads = sys.elements::<Load>();
    assert_eq!(loads.len(), 3);
    let rot = |a: f64, u: [f64; 2]| [a.cos() * u[0] - a.sin() * u[1], a.sin() * u[0] + a.cos() * u[1]];
    // Rigid body: P = r + R(theta) s, u = R(theta - theta0) u0.
    let b = sys.body("b").unwrap().x;
    let s0 = rot(-0.3, [0.2, 0.5]);
    let rigid = virtual_work_2d(
        3.0,
        move |q| rot(q[b + 2] - 0.3, [0.6, -0.8]),
        move |q| {
            let a = rot(q[b + 2], s0);
            [q[b] + a[0], q[b + 1] + a[1]]
        },
    );
    // Corotational node: P = (x, y), u turns with the section angle from its initial 0.
    let c = sys.body("c.end").unwrap().x;
    let corotational = virtual_work_2d(3.0, move |q| rot(q[c + 2], [0.0, 1.0]), move |q| [q[c], q[c + 1]]);
    // ANCF node: P = (x, y), u turns with the slope angle (initially pi/2... of d = (0, 1) for a
    // beam along +y: theta = atan2(-d1, d2) = 0 there).
    let a = sys.body("a.end").unwrap().x;
    let slope = move |q: &[f64]| (-q[a + 2]).atan2(q[a + 3]) - (-q0_slope(q0, a).0).atan2(q0_slope(q0, a).1);
    let ancf = virtual_work_2d(3.0, move |q| rot(slope(q), [1.0, 0.0]), move |q| [q[a], q[a + 1]]);
    for (name, load, work) in [
        ("rigid body", &loads[0], &rigid as &dyn Fn(&[f64], &[f64]) -> f64),
        ("corotational node", &loads[1], &corotational),
        ("ANCF node", &loads[2], &ancf),
    ] {
        let (work_error, tangent_error) = check_force_and_tangent(load, &q, &directions(q.len()), work);
        eprintln!("{name}: virtual work error {work_error:.2e}, tangent error {tangent_error:.2e} (relative to |Q|)");
        assert!(work_error < 1e-8, "{name}: Q is not the virtual work of the follower force ({work_error:.2e})");
        assert!(tangent_error < 1e-7, "{name}: tangent off -dQ/dq by {tangent_error:.2e}");
    }
}

/// The initial slope (d1, d2) of the ANCF node whose coordinates start at x.
fn q0_slope(q0: &[f64], x: usize) -> (f64, f64) {
    (q0[x + 2], q0[x + 3])
}

#[test]
fn spatial_follower_loads_are_virtual_work_with_exact_tangents() {
    let text = r#"[model]
name = "followers3"
dimension = 3
[[rigid_bodies]]
name = "b"
mass = 2.0
inertia = [0.3, 0.4, 0.5]
position = [1.0, 2.0, 3.0]
[[loads]]
type = "force"
body = "b"
point = [1.2, 2.5, 2.9]
direction = [0.6, 0.0, -0.8]
value = 3.0
follower = true
[[loads]]
type = "torque"
body = "b"
direction = [0.0, 0.6, 0.8]
value = 3.0
follower = true
"#;
    let model = Model::parse(text, "followers3.toml").unwrap();
    let asm = assemble(&model, &model.default_parameters()).unwrap();
    let sys = &asm.system;
    let mut q = perturbed(&asm.initial.q);
    let loads = sys.elements::<SpatialLoad>();
    assert_eq!(loads.len(), 2);
    let x = sys.body("b").unwrap().x;
    // Unit Euler parameters, and directions tangent to p.p = 1: there A(p) is a rotation to
    // first order, and Q is only defined up to a multiple of p (taken by the normalisation
    // constraint's multiplier).
    let norm = q[x + 3..x + 7].iter().map(|v| v * v).sum::<f64>().sqrt();
    q[x + 3..x + 7].iter_mut().for_each(|v| *v /= norm);
    let tangent: Vec<Vec<f64>> = directions(q.len())
        .into_iter()
        .map(|mut d| {
            let along: f64 = (0..4).map(|k| d[x + 3 + k] * q[x + 3 + k]).sum();
            (0..4).for_each(|k| d[x + 3 + k] -= along * q[x + 3 + k]);
            d
        })
        .collect();
    // Body-frame vectors: the body starts unrotated, so the global data are body data.
    let a = |q: &[f64], s: [f64; 3]| -> [f64; 3] {
        let r = flexfmu::mechanics::euler_parameters::rotation(&q[x + 3..x + 7]);
        std::array::from_fn(|i| (0..3).map(|j| r[i][j] * s[j]).sum())
    };
    let (s, u, axis) = ([0.2, 0.5, -0.1], [0.6, 0.0, -0.8], [0.0, 0.6, 0.8]);
    let eps = 1e-6;
    let shifted = |q: &[f64], dir: &[f64], h: f64| -> Vec<f64> { q.iter().zip(dir).map(|(a, d)| a + h * d).collect() };
    // Force: f A u . d(r + A s).
    let force_work = |q: &[f64], dir: &[f64]| {
        let (p, m) = (shifted(q, dir, eps), shifted(q, dir, -eps));
        let (ap, am) = (a(&p, s), a(&m, s));
        let f = a(q, u);
        3.0 * (0..3).map(|i| f[i] * ((p[x + i] + ap[i]) - (m[x + i] + am[i]))).sum::<f64>() / (2.0 * eps)
    };
    // Torque: f (A axis) . dpi with dpi the global virtual rotation, (dA) A^T = dpi~: the
    // rotation of a body vector e_k gives dpi x (A e_k); dpi_i = 1/2 sum_k (A e_k x d(A e_k))_i.
    let torque_work = |q: &[f64], dir: &[f64]| {
        let (p, m) = (shifted(q, dir, eps), shifted(q, dir, -eps));
        let mut dpi = [0.0; 3];
        for k in 0..3 {
            let e: [f64; 3] = std::array::from_fn(|i| f64::from(u8::from(i == k)));
            let (ek, dp, dm) = (a(q, e), a(&p, e), a(&m, e));
            let d: [f64; 3] = std::array::from_fn(|i| (dp[i] - dm[i]) / (2.0 * eps));
            let c = flexfmu::mechanics::euler_parameters::cross(ek, d);
            for i in 0..3 {
                dpi[i] += 0.5 * c[i];
            }
        }
        let w = a(q, axis);
        3.0 * (0..3).map(|i| w[i] * dpi[i]).sum::<f64>()
    };
    for (name, load, work) in
        [("force", &loads[0], &force_work as &dyn Fn(&[f64], &[f64]) -> f64), ("torque", &loads[1], &torque_work)]
    {
        let (work_error, tangent_error) = check_force_and_tangent(load, &q, &tangent, work);
        eprintln!("{name}: virtual work error {work_error:.2e}, tangent error {tangent_error:.2e} (relative to |Q|)");
        assert!(work_error < 1e-8, "{name}: Q is not the virtual work of the follower load ({work_error:.2e})");
        assert!(tangent_error < 1e-7, "{name}: tangent off -dQ/dq by {tangent_error:.2e}");
    }
}

fn settings(h: f64) -> SolverSettings {
    SolverSettings { method: Method::Ttbif, rho_inf: 0.8, step: h, tolerance: 1e-12, ..Default::default() }
}

fn run(text: &str, h: f64, t_end: f64) -> Simulation {
    let model = Model::parse(text, "follower.toml").unwrap();
    let mut sim = Simulation::new(&model, &model.default_parameters(), settings(h), 0.0).unwrap();
    sim.step_to(t_end).unwrap();
    sim
}

#[test]
fn a_spinning_body_under_a_follower_force_moves_on_the_analytic_path() {
    let (f, m, w, t): (f64, f64, f64, f64) = (3.0, 2.0, 2.0, 1.5);
    let planar = format!(
        "[model]\nname = \"spin\"\n[[rigid_bodies]]\nname = \"b\"\nmass = {m}\ninertia = 0.1\nposition = [0.0, 0.0]\n\
         velocity = [0.0, 0.0]\nangular_velocity = {w}\n"
    );
    let spatial = format!(
        "[model]\nname = \"spin\"\ndimension = 3\n[[rigid_bodies]]\nname = \"b\"\nmass = {m}\n\
         inertia = [0.3, 0.4, 0.5]\nposition = [0.0, 0.0, 0.0]\nvelocity = [0.0, 0.0, 0.0]\n\
         angular_velocity = [0.0, 0.0, {w}]\n"
    );
    let load = |d: &str| {
        format!(
            "[[loads]]\ntype = \"force\"\nbody = \"b\"\ndirection = {d}\nvalue = {f}\nfollower = true\n\
             [[outputs]]\nname = \"x\"\nquantity = \"x\"\nbody = \"b\"\n[[outputs]]\nname = \"y\"\nquantity = \"y\"\nbody = \"b\"\n\
             [[outputs]]\nname = \"W\"\nquantity = \"energy_supplied\"\n[[outputs]]\nname = \"E\"\nquantity = \"energy_total\"\n"
        )
    };
    let exact = [f / (m * w * w) * (1.0 - (w * t).cos()), f / (m * w * w) * (w * t - (w * t).sin())];
    let work = f * f * (1.0 - (w * t).cos()) / (m * w * w);
    for (name, text) in [("planar", planar + &load("[1.0, 0.0]")), ("spatial", spatial + &load("[1.0, 0.0, 0.0]"))] {
        let mut errors = Vec::new();
        for h in [2e-3, 1e-3] {
            let mut sim = run(&text, h, t);
            let o = sim.output_values().unwrap();
            let e0 = 0.5 * if name == "planar" { 0.1 } else { 0.5 } * w * w;
            let error = (o[0] - exact[0]).abs().max((o[1] - exact[1]).abs());
            eprintln!(
                "{name}, h = {h:.0e}: centre ({:.9}, {:.9}) against ({:.9}, {:.9}), error {error:.2e}; \
                 energy_supplied {:.9} J, energy gained {:.9} J, work {work:.9} J",
                o[0],
                o[1],
                exact[0],
                exact[1],
                o[2],
                o[3] - e0
            );
            assert!((o[2] - (o[3] - e0)).abs() < 1e-6 * work, "{name}: energy balance off");
            assert!((o[2] - work).abs() < 1e-3 * work, "{name}: energy_supplied {} against the work {work}", o[2]);
            errors.push(error);
        }
        assert!(errors[1] < 1e-4, "{name}: centre off the analytic path by {:.2e}", errors[1]);
        assert!(errors[1] < errors[0] / 3.0, "{name}: not second order: {errors:?}");
    }
}

#[test]
fn follower_moments_are_constant_and_follower_torques_turn_with_the_body() {
    // Planar: a follower force f along body x at the body point (0, d) has the moment -d f
    // whatever the angle; a spatial follower torque about the body's spin axis z likewise.
    let (f, d, j, w, t) = (3.0, 0.2, 0.1, 2.0, 1.5);
    let planar = format!(
        "[model]\nname = \"spin\"\n[[rigid_bodies]]\nname = \"b\"\nmass = 2.0\ninertia = {j}\nposition = [0.0, 0.0]\n\
         velocity = [0.0, 0.0]\nangular_velocity = {w}\n[[loads]]\ntype = \"force\"\nbody = \"b\"\npoint = [0.0, {d}]\n\
         direction = [1.0, 0.0]\nvalue = {f}\nfollower = true\n\
         [[outputs]]\nname = \"angle\"\nquantity = \"angle\"\nbody = \"b\"\n"
    );
    let mut sim = run(&planar, 1e-3, t);
    let angle = sim.output_values().unwrap()[0];
    let exact = w * t - d * f * t * t / (2.0 * j);
    eprintln!("planar: angle {angle:.12} against {exact:.12}");
    assert!((angle - exact).abs() < 1e-9, "angle off w t + M t^2/2J by {:.2e}", angle - exact);
    // Spatial: spin about z (axis of the largest inertia), a follower torque along body z.
    let (torque, j3) = (0.4, 0.5);
    let spatial = format!(
        "[model]\nname = \"spin\"\ndimension = 3\n[[rigid_bodies]]\nname = \"b\"\nmass = 2.0\n\
         inertia = [0.3, 0.4, {j3}]\nposition = [0.0, 0.0, 0.0]\nvelocity = [0.0, 0.0, 0.0]\n\
         angular_velocity = [0.0, 0.0, {w}]\n[[loads]]\ntype = \"torque\"\nbody = \"b\"\n\
         direction = [0.0, 0.0, 1.0]\nvalue = {torque}\nfollower = true\n\
         [[outputs]]\nname = \"wz\"\nquantity = \"wz\"\nbody = \"b\"\n"
    );
    let exact = w + torque * t / j3;
    let mut errors = Vec::new();
    for h in [2e-3, 1e-3] {
        let wz = run(&spatial, h, t).output_values().unwrap()[0];
        eprintln!("spatial, h = {h:.0e}: spin rate {wz:.12} against {exact:.12}");
        errors.push((wz - exact).abs());
    }
    // The Euler parameters are not linear in the angle: a second-order error, no more.
    assert!(errors[1] < 1e-5, "spin rate off w0 + T t/J3 by {:.2e}", errors[1]);
    assert!(errors[1] < errors[0] / 3.0, "not second order: {errors:?}");
}

/// Beck's column: a cantilever (EI, rho A, L; 8 Euler-Bernoulli elements) under a
/// tangential follower force P = `ratio` P_cr at its tip, disturbed by a short transverse
/// force pulse; the largest tip deflection in each of 30 periods of the unloaded first mode.
fn beck_column(ratio: f64) -> Vec<f64> {
    let (e, b, h, rho, l) = (2.1e11, 0.02, 0.02, 7850.0, 1.0);
    let ei = e * b * h * h * h / 12.0;
    let p = ratio * 20.05 * ei / (l * l);
    let period = 2.0 * std::f64::consts::PI / (3.516 * (ei / (rho * b * h * l.powi(4))).sqrt());
    let t_end = 30.0 * period;
    let pulse = period / 20.0;
    let text = format!(
        r#"[model]
name = "beck"
[solver]
rho_inf = 1.0
step = {step:e}
[[beams]]
name = "col"
start = [0.0, 0.0]
end = [{l}, 0.0]
elements = 8
formulation = "euler_bernoulli"
section = {{ width = {b}, height = {h} }}
material = {{ E = {e}, nu = 0.3, rho = {rho} }}
[[joints]]
name = "clamp"
type = "fixed"
body1 = "ground"
body2 = "col.start"
[[loads]]
type = "force"
body = "col.end"
direction = [-1.0, 0.0]
value = {p}
follower = true
[[loads]]
type = "force"
body = "col.end"
direction = [0.0, 1.0]
table = [[0.0, 1.0], [{pulse:e}, 1.0], [{pulse2:e}, 0.0]]
[[outputs]]
name = "tip_y"
quantity = "y"
body = "col.end"
"#,
        step = period / 200.0,
        pulse2 = pulse * 1.01,
    );
    let model = Model::parse(&text, "beck.toml").unwrap();
    let settings = SolverSettings::from_model(&model, &model.default_parameters()).unwrap();
    let mut sim = Simulation::new(&model, &model.default_parameters(), settings, 0.0).unwrap();
    // The largest deflection in each period.
    let per_period = 30;
    let mut peaks = vec![0.0f64; 30];
    for k in 1..=30 * per_period {
        sim.step_to(t_end * k as f64 / (30 * per_period) as f64).unwrap();
        let y = sim.output_values().unwrap()[0].abs();
        peaks[(k - 1) / per_period] = peaks[(k - 1) / per_period].max(y);
    }
    peaks
}

#[test]
fn becks_column_flutters_above_its_critical_follower_load() {
    for (ratio, stable) in [(0.97, true), (1.03, false)] {
        let peaks = beck_column(ratio);
        let listed: Vec<String> = peaks.iter().map(|p| format!("{p:.2e}")).collect();
        eprintln!("P = {ratio} P_cr: largest tip deflection per period [{}]", listed.join(", "));
        // The first period holds the response to the pulse.
        let (first, largest) = (peaks[0], peaks.iter().fold(0.0f64, |m, p| m.max(*p)));
        if stable {
            assert!(largest < 3.0 * first, "P = {ratio} P_cr should be stable: {first:.3e} -> {largest:.3e}");
        } else {
            assert!(largest > 100.0 * first, "P = {ratio} P_cr should flutter: {first:.3e} -> {largest:.3e}");
        }
    }
}

#[test]
fn a_follower_force_on_a_point_mass_is_a_located_error() {
    let text = "[model]\nname = \"bad\"\n[[point_masses]]\nname = \"p\"\nmass = 1.0\nposition = [0.0, 0.0]\n\
                [[loads]]\ntype = \"force\"\nbody = \"p\"\ndirection = [1.0, 0.0]\nvalue = 1.0\nfollower = true\n";
    let model = Model::parse(text, "bad.toml").unwrap();
    let Err(e) = assemble(&model, &model.default_parameters()) else {
        panic!("a follower force on a point mass must be refused");
    };
    let message = e.to_string();
    eprintln!("{message}");
    assert!(message.contains("bad.toml:9") && message.contains("point mass has no orientation"), "{message}");
}
