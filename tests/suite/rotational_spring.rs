//! Rotational spring-dampers (`[[springs]] type = "rotational"`, src/mechanics/springs/rotational.rs)
//! against the torsional oscillator J phi'' + k phi = 0: phi(t) = (w0/omega) sin(omega t),
//! omega = sqrt(k/J), period 2 pi sqrt(J/k); between two free bodies the relative angle
//! oscillates at omega = sqrt(k (1/J1 + 1/J2)) and J1 w1 + J2 w2 is conserved. Energy
//! (kinetic + k s^2/2) is conserved: TTBIF with rho_inf = 1 has no numerical dissipation,
//! so the drift is at the Newton tolerance. In 3D the spring acts on s = sin phi (the
//! documented small-angle choice), about any axis; with an isotropic body or a principal
//! axis the motion stays a rotation about the spring's axis and the small-amplitude period is
//! 2 pi sqrt(J/k) up to a relative O(amplitude^2) = 1e-5 (checked at 2e-4).

use flexfmu::integrators::{ConstraintTreatment, Method};
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};
use std::f64::consts::PI;

fn settings(h: f64, constraints: ConstraintTreatment) -> SolverSettings {
    SolverSettings { method: Method::Ttbif, rho_inf: 1.0, step: h, tolerance: 1e-12, constraints, ..Default::default() }
}

fn energy(sim: &Simulation) -> f64 {
    let e = sim.system().energy(&sim.state().q, &sim.state().v, sim.time());
    e.kinetic + e.potential
}

/// The times of the upward zero crossings of `f` sampled every `h` from t = h (linear
/// interpolation).
fn upward_crossings(f: &[f64], h: f64) -> Vec<f64> {
    f.windows(2)
        .enumerate()
        .filter(|(_, w)| w[0] < 0.0 && w[1] >= 0.0)
        .map(|(k, w)| h * (k as f64 + 1.0 + w[0] / (w[0] - w[1])))
        .collect()
}

/// Runs `steps` steps of `h`, recording `angle(q)` and the largest relative energy drift.
fn run(model: &Model, s: SolverSettings, steps: usize, angle: impl Fn(&[f64]) -> f64) -> (Vec<f64>, f64) {
    let h = s.step;
    let mut sim = Simulation::new(model, &model.default_parameters(), s, 0.0).unwrap();
    let e0 = energy(&sim);
    let mut angles = vec![angle(&sim.state().q)];
    let mut drift = 0.0f64;
    for k in 1..=steps {
        sim.step_to(k as f64 * h).unwrap();
        angles.push(angle(&sim.state().q));
        drift = drift.max((energy(&sim) - e0).abs() / e0);
    }
    (angles, drift)
}

const J: f64 = 0.02;
const K: f64 = 2.0;
const W0: f64 = 0.5;

#[test]
fn planar_body_on_a_rotational_spring_to_ground_is_the_torsional_oscillator() {
    let text = format!(
        "[model]\nname = \"rot\"\n[[rigid_bodies]]\nname = \"disk\"\nmass = 1.0\ninertia = {J}\nposition = [0.3, 0.2]\n\
         angle = 0.4\nangular_velocity = {W0}\n[[springs]]\nname = \"twist\"\ntype = \"rotational\"\nbody1 = \"ground\"\n\
         body2 = \"disk\"\nstiffness = {K}\n"
    );
    let model = Model::parse(&text, "rot.toml").unwrap();
    let h = 1e-3;
    let omega = (K / J).sqrt();
    let steps = (4.0 * PI / omega / h).round() as usize;
    let (theta, drift) = run(&model, settings(h, ConstraintTreatment::Index3), steps, |q| q[2] - 0.4);
    // phi(t) = (w0/omega) sin(omega t); the trapezoidal phase error is (h omega)^2/12 per radian.
    let amplitude = W0 / omega;
    let worst = theta
        .iter()
        .enumerate()
        .map(|(k, th)| (th - amplitude * (omega * k as f64 * h).sin()).abs())
        .fold(0.0, f64::max);
    assert!(worst < 1e-4 * amplitude, "max |theta - exact| = {worst:e} (amplitude {amplitude})");
    let up = upward_crossings(&theta[1..], h);
    let period = 2.0 * PI * (J / K).sqrt();
    assert!(!up.is_empty());
    // theta starts at 0 going up (sample 0, skipped): the next upward crossing is one period later.
    let measured = up[0];
    assert!((measured - period).abs() < 1e-5 * period, "period {measured} vs {period}");
    assert!(drift < 1e-9, "energy drift {drift:e}");
}

#[test]
fn two_free_bodies_oscillate_at_the_reduced_inertia_frequency() {
    let (j1, j2) = (0.02, 0.05);
    let text = format!(
        "[model]\nname = \"rot2\"\n[[rigid_bodies]]\nname = \"a\"\nmass = 1.0\ninertia = {j1}\nposition = [0.0, 0.0]\n\
         angular_velocity = {W0}\n[[rigid_bodies]]\nname = \"b\"\nmass = 2.0\ninertia = {j2}\nposition = [1.0, 0.0]\n\
         angle = 0.3\n[[springs]]\nname = \"twist\"\ntype = \"rotational\"\nbody1 = \"a\"\nbody2 = \"b\"\nstiffness = {K}\n\
         damping = 0.0\n"
    );
    let model = Model::parse(&text, "rot2.toml").unwrap();
    let h = 1e-3;
    let omega = (K * (1.0 / j1 + 1.0 / j2)).sqrt();
    let steps = (4.0 * PI / omega / h).round() as usize;
    // Relative angle theta_b - theta_a - 0.3 = -(w0/omega) sin(omega t).
    let (rel, drift) = run(&model, settings(h, ConstraintTreatment::Index3), steps, |q| q[5] - q[2] - 0.3);
    let amplitude = W0 / omega;
    let worst =
        rel.iter().enumerate().map(|(k, r)| (r + amplitude * (omega * k as f64 * h).sin()).abs()).fold(0.0, f64::max);
    assert!(worst < 1e-4 * amplitude, "max |rel - exact| = {worst:e}");
    assert!(drift < 1e-9, "energy drift {drift:e}");
    // Angular momentum j1 w_a + j2 w_b = j1 w0 holds (no external torque).
    let mut sim =
        Simulation::new(&model, &model.default_parameters(), settings(h, ConstraintTreatment::Index3), 0.0).unwrap();
    sim.step_to(0.37).unwrap();
    let v = &sim.state().v;
    assert!((j1 * v[2] + j2 * v[5] - j1 * W0).abs() < 1e-10 * j1 * W0, "momentum {}", j1 * v[2] + j2 * v[5]);
}

/// The rotation angle about the unit axis `a` of a body whose Euler parameters are q[3..7]
/// (a rotation about `a` by phi has p = (cos phi/2, a sin phi/2)).
fn angle_about(q: &[f64], a: [f64; 3]) -> f64 {
    let p = &q[3..7];
    2.0 * (a[0] * p[1] + a[1] * p[2] + a[2] * p[3]).atan2(p[0])
}

fn spatial_period(inertia: &str, j: f64, axis: [f64; 3]) {
    let w = W0 / 100.0; // amplitude 5e-4 rad: sin phi = phi (1 - 4e-8)
    let text = format!(
        "[model]\nname = \"rot3\"\ndimension = 3\n[[rigid_bodies]]\nname = \"b\"\nmass = 1.0\ninertia = {inertia}\n\
         position = [0.0, 0.0, 0.0]\nangular_velocity = [{}, {}, {}]\n[[springs]]\nname = \"twist\"\ntype = \"rotational\"\n\
         body1 = \"ground\"\nbody2 = \"b\"\naxis = [{}, {}, {}]\nstiffness = {K}\n",
        w * axis[0],
        w * axis[1],
        w * axis[2],
        axis[0],
        axis[1],
        axis[2]
    );
    let model = Model::parse(&text, "rot3.toml").unwrap();
    let h = 1e-3;
    let omega = (K / j).sqrt();
    let steps = (4.0 * PI / omega / h).round() as usize;
    let (phi, drift) = run(&model, settings(h, ConstraintTreatment::Ggl), steps, |q| angle_about(q, axis));
    let amplitude = w / omega;
    let worst =
        phi.iter().enumerate().map(|(k, p)| (p - amplitude * (omega * k as f64 * h).sin()).abs()).fold(0.0, f64::max);
    assert!(worst < 2e-4 * amplitude, "max |phi - exact| = {worst:e} (amplitude {amplitude:e})");
    let up = upward_crossings(&phi[1..], h);
    let period = 2.0 * PI * (j / K).sqrt();
    assert!((up[0] - period).abs() < 2e-4 * period, "period {} vs {period}", up[0]);
    assert!(drift < 1e-8, "energy drift {drift:e}");
}

#[test]
fn spatial_body_about_a_principal_axis_has_the_torsional_period() {
    spatial_period("[0.03, 0.04, 0.02]", 0.02, [0.0, 0.0, 1.0]);
}

#[test]
fn spatial_spring_about_an_oblique_axis_has_the_torsional_period() {
    spatial_period("[0.02, 0.02, 0.02]", 0.02, [1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0]);
}

#[test]
fn bad_rotational_springs_are_located_errors() {
    let planar = "[model]\nname = \"r\"\n[[point_masses]]\nname = \"p\"\nmass = 1.0\nposition = [0.0, 0.0]\n\
                  [[rigid_bodies]]\nname = \"b\"\nmass = 1.0\ninertia = 0.1\nposition = [1.0, 0.0]\n";
    let cases = [
        (format!("{planar}[[springs]]\nname = \"s\"\ntype = \"rotational\"\nbody1 = \"p\"\nbody2 = \"b\"\n"), 15, "is a point mass"),
        (
            format!("{planar}[[springs]]\nname = \"s\"\ntype = \"rotational\"\nbody1 = \"ground\"\nbody2 = \"b\"\naxis = [0.0, 0.0, 1.0]\n"),
            17,
            "`axis` applies only to rotational springs in spatial models",
        ),
        (
            format!("{planar}[[springs]]\nname = \"s\"\ntype = \"rotational\"\nbody1 = \"b\"\nbody2 = \"b\"\n"),
            16,
            "two different bodies",
        ),
        (
            format!("{planar}[[springs]]\nname = \"s\"\ntype = \"rotational\"\nbody2 = \"b\"\npoint2 = [1.0, 0.0]\n"),
            13,
            "needs body1 and body2",
        ),
        (
            format!("{planar}[[springs]]\nname = \"s\"\ntype = \"spiral\"\nbody1 = \"ground\"\nbody2 = \"b\"\n"),
            14,
            "unknown spring type 'spiral', expected point_to_point, prismatic, torsional or rotational",
        ),
        (
            "[model]\nname = \"r\"\ndimension = 3\n[[rigid_bodies]]\nname = \"b\"\nmass = 1.0\ninertia = [1.0, 1.0, 1.0]\n\
             position = [0.0, 0.0, 0.0]\n[[springs]]\nname = \"s\"\ntype = \"rotational\"\nbody1 = \"ground\"\nbody2 = \"b\"\n"
                .to_string(),
            10,
            "needs `axis = [x, y, z]`",
        ),
        (
            "[model]\nname = \"r\"\ndimension = 3\n[[rigid_bodies]]\nname = \"b\"\nmass = 1.0\ninertia = [1.0, 1.0, 1.0]\n\
             position = [0.0, 0.0, 0.0]\n[[springs]]\nname = \"s\"\ntype = \"rotational\"\nbody1 = \"ground\"\nbody2 = \"b\"\n\
             axis = [0.0, 0.0, 0.0]\n"
                .to_string(),
            14,
            "axis must not be zero",
        ),
    ];
    for (text, line, message) in cases {
        let model = Model::parse(&text, "bad.toml").unwrap();
        let err = flexfmu::mechanics::assemble::assemble(&model, &[]).map(|_| ()).unwrap_err();
        assert!(err.message.contains(message), "{err}");
        assert_eq!(err.line, line, "{err}");
    }
}
