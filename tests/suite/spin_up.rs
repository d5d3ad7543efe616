//! Spin-up of a flexible beam (Simo and Vu-Quoc 1986, Part II): models/spin_up.toml, a beam
//! of length L = 10 m (EA = 2.8e7 N, EI = 1.4e4 N m^2, rho A = 1.2 kg/m, 10 Euler-Bernoulli
//! corotational elements) clamped to a hub driven along
//! theta(t) = (w_s/T_s)(t^2/2 + (T_s/2 pi)^2 (cos(2 pi t/T_s) - 1)) for t < T_s and
//! w_s (t - T_s/2) after (w_s = 4 rad/s, T_s = 15 s), 0..30 s. References:
//! - the hub follows theta(t) and theta'(t) to the Newton tolerance (the piecewise drive is
//!   written with min/max, whose time jets are exact on each side);
//! - energy: without gravity and damping the drive's work int tau theta' dt equals the
//!   kinetic + strain energy of hub and beam at every time (within 1e-3 relative);
//! - converged reference: 20 elements and a quarter of the step give the same tip deflection
//!   history (within 2 mm, 0.5 % of its extreme);
//! - physics: the hub accelerates slowly (T_s = 15 s against the first bending period
//!   2 pi / 3.80 rad/s = 1.65 s), so the tip deflection in the hub frame is nearly the
//!   quasi-static cantilever deflection under the inertial load q(x) = -rho A alpha(t) x,
//!   w_tip = -11 q0 L^4 / (120 EI) with q0 = rho A alpha L (linear load rising to q0 at the tip,
//!   e.g. Roark's Formulas for Stress and Strain, table 8.1 case 2c, with a = 0), divided by the
//!   centrifugal stiffening 1 + (K1 - 1) Omega^2 / w1^2 of the first mode (in-plane bending:
//!   w^2 = w1^2 + (K1 - 1) Omega^2, Southwell coefficient K1 = 1.193 of a uniform cantilever
//!   with no hub offset, Wright, Smith, Thresher and Wang 1982; w1 = 1.8751^2 sqrt(EI/(rho A L^4))).
//!   The simulated deflection stays within 1 cm of that estimate over the whole run (the
//!   difference is the free vibration the spin-up leaves, +-4 mm after T_s), and its extreme,
//!   about -0.40 m near t = 7 s, within 1.5 %.

use flexfmu::integrators::Method;
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};
use std::f64::consts::PI;

const L: f64 = 10.0;
const EI: f64 = 1.4e4;
const RHO_A: f64 = 1.2;
const W_S: f64 = 4.0;
const T_S: f64 = 15.0;
const T_END: f64 = 30.0;

/// Hub angle, speed and angular acceleration of the spin-up law.
fn hub(t: f64) -> [f64; 3] {
    if t < T_S {
        let c = T_S / (2.0 * PI);
        let phase = 2.0 * PI * t / T_S;
        [
            W_S / T_S * (t * t / 2.0 + c * c * (phase.cos() - 1.0)),
            W_S / T_S * (t - c * phase.sin()),
            W_S / T_S * (1.0 - phase.cos()),
        ]
    } else {
        [W_S * (t - T_S / 2.0), W_S, 0.0]
    }
}

/// The quasi-static tip deflection with first-mode centrifugal stiffening (module comment).
fn quasi_static_deflection(t: f64) -> f64 {
    let [_, omega, alpha] = hub(t);
    let w1_sq = 1.875_104_068_7_f64.powi(4) * EI / (RHO_A * L.powi(4));
    let k1 = 1.193;
    -11.0 * RHO_A * alpha * L.powi(5) / (120.0 * EI) / (1.0 + (k1 - 1.0) * omega * omega / w1_sq)
}

fn output(sim: &mut Simulation, name: &str) -> f64 {
    let k = sim.outputs().iter().position(|o| o.name == name).unwrap_or_else(|| panic!("no output {name}"));
    sim.output_values().unwrap()[k]
}

struct Run {
    /// (t, tip deflection in the hub frame) at every step.
    deflection: Vec<(f64, f64)>,
    /// Largest |hub angle - theta(t)| and |hub speed - theta'(t)|.
    hub_error: [f64; 2],
    /// Largest |drive work - (kinetic + strain energy)| over the run, and the final energy.
    balance_error: f64,
    energy_end: f64,
}

fn run(elements: usize, h: f64) -> Run {
    let model = Model::load(std::path::Path::new("models/spin_up.toml")).unwrap();
    let mut p = model.default_parameters();
    p[model.parameter_index("elements").unwrap()] = elements as f64;
    let settings =
        SolverSettings { method: Method::Ttbif, rho_inf: 0.8, step: h, tolerance: 1e-10, ..Default::default() };
    let mut sim = Simulation::new(&model, &p, settings, 0.0).unwrap();
    let steps = (T_END / h).round() as usize;
    let (mut work, mut power) = (0.0, output(&mut sim, "drive_torque") * hub(0.0)[1]);
    let mut r = Run { deflection: vec![(0.0, 0.0)], hub_error: [0.0; 2], balance_error: 0.0, energy_end: 0.0 };
    for k in 1..=steps {
        let t = k as f64 * h;
        sim.step_to(t).unwrap();
        let exact = hub(t);
        r.hub_error[0] = r.hub_error[0].max((output(&mut sim, "hub_angle") - exact[0]).abs());
        r.hub_error[1] = r.hub_error[1].max((output(&mut sim, "hub_speed") - exact[1]).abs());
        let next = output(&mut sim, "drive_torque") * exact[1];
        work += 0.5 * h * (power + next);
        power = next;
        let energy = output(&mut sim, "energy_total");
        r.balance_error = r.balance_error.max((work - energy).abs());
        r.energy_end = energy;
        r.deflection.push((t, output(&mut sim, "tip_deflection")));
    }
    r
}

fn extreme(d: &[(f64, f64)]) -> (f64, f64) {
    d.iter().fold((0.0, 0.0), |m, &(t, w)| if w < m.1 { (t, w) } else { m })
}

#[test]
fn spin_up_follows_the_drive_balances_energy_and_lags_quasi_statically() {
    let coarse = run(10, 1e-2);
    let (t_min, w_min) = extreme(&coarse.deflection);
    let qs_min = (0..=3000).map(|k| quasi_static_deflection(k as f64 * 1e-2)).fold(0.0, f64::min);
    let worst_qs = coarse.deflection.iter().map(|&(t, w)| (w - quasi_static_deflection(t)).abs()).fold(0.0, f64::max);
    let after = coarse.deflection.iter().filter(|(t, _)| *t > T_S).map(|(_, w)| w.abs()).fold(0.0, f64::max);
    // Rigid rotation at w_s: (1/2)(rho A L^3 / 3) w_s^2 = 3200 J (hub and stretching add ~0.01 %).
    let rigid = 0.5 * RHO_A * L.powi(3) / 3.0 * W_S * W_S;
    eprintln!(
        "10 elements, h = 1e-2: extreme tip deflection {w_min:.4} m at t = {t_min:.2} s (quasi-static {qs_min:.4} m); \
         largest |w - w_qs| {worst_qs:.2e} m; |w| after T_s <= {after:.2e} m; hub errors {:.1e} rad, {:.1e} rad/s; \
         energy {:.2} J (rigid {rigid:.1} J), largest |work - energy| {:.2e} J",
        coarse.hub_error[0], coarse.hub_error[1], coarse.energy_end, coarse.balance_error
    );
    assert!(coarse.hub_error[0] < 1e-8 && coarse.hub_error[1] < 1e-6, "hub off the drive: {:?}", coarse.hub_error);
    assert!(
        coarse.balance_error < 1e-3 * coarse.energy_end,
        "drive work vs kinetic + strain energy: {:.3e} J of {:.1} J",
        coarse.balance_error,
        coarse.energy_end
    );
    assert!((coarse.energy_end - rigid).abs() < 1e-2 * rigid, "{} J vs rigid rotation {rigid} J", coarse.energy_end);
    assert!(worst_qs < 0.01, "tip deflection departs from the quasi-static estimate by {worst_qs:.3e} m");
    assert!((w_min - qs_min).abs() < 0.015 * qs_min.abs(), "extreme {w_min} m vs quasi-static {qs_min} m");
    assert!((6.0..8.0).contains(&t_min), "extreme at t = {t_min} s (largest hub acceleration at T_s/2 = 7.5 s)");
    assert!(after < 0.01, "residual vibration after T_s {after:.3e} m");

    // Converged reference: twice the elements, a quarter of the step.
    let fine = run(20, 2.5e-3);
    let (t_fine, w_fine) = extreme(&fine.deflection);
    let worst = coarse
        .deflection
        .iter()
        .map(|&(t, w)| {
            let k = (t / 2.5e-3).round() as usize;
            assert!((fine.deflection[k].0 - t).abs() < 1e-9);
            (w - fine.deflection[k].1).abs()
        })
        .fold(0.0, f64::max);
    eprintln!(
        "20 elements, h = 2.5e-3: extreme {w_fine:.4} m at t = {t_fine:.2} s; largest difference from the coarse run \
         {worst:.2e} m; largest |work - energy| {:.2e} J",
        fine.balance_error
    );
    assert!(worst < 2e-3, "coarse vs converged tip deflection differ by {worst:.3e} m");
    assert!(fine.balance_error < 1e-3 * fine.energy_end);
}

/// The kept Newton matrix of a spinning beam is stale within a step (its tangent turns with
/// the beam): after a stage abandoned it, the next ones refresh it at once (`STALE_BACKOFF`,
/// src/integrators/newton.rs) instead of each spending two iterations finding that out. The
/// model as it is, 0..30 s: at most 7.5 Newton iterations and 3.5 factorizations a step (11.9
/// and 4.6 before; measured 6.6 and 2.7), and the tip deflection of full Newton (a fresh
/// matrix at every iteration) to 1e-7 m: both converge to the same stage solutions.
#[test]
fn a_spinning_beam_refreshes_its_stale_matrix_at_once() {
    let model = Model::load(std::path::Path::new("models/spin_up.toml")).unwrap();
    let p = model.default_parameters();
    let run = |strategy| {
        let mut settings = SolverSettings::from_model(&model, &p).unwrap();
        settings.strategy = strategy;
        let mut sim = Simulation::new(&model, &p, settings, 0.0).unwrap();
        let mut deflection = Vec::new();
        for k in 1..=300 {
            sim.step_to(k as f64 * 0.1).unwrap();
            deflection.push(output(&mut sim, "tip_deflection"));
        }
        (deflection, sim.statistics())
    };
    let (modified, st) = run(flexfmu::integrators::NewtonStrategy::Modified);
    let (full, _) = run(flexfmu::integrators::NewtonStrategy::Full);
    let per_step = |x: u64| x as f64 / st.steps as f64;
    let worst = modified.iter().zip(&full).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    println!(
        "modified Newton: {:.2} iterations and {:.2} factorizations a step; tip deflection within {worst:.1e} m of full Newton",
        per_step(st.newton_iterations),
        per_step(st.factorizations)
    );
    assert!(per_step(st.newton_iterations) <= 7.5 && per_step(st.factorizations) <= 3.5);
    assert!(worst < 1e-7, "{worst}");
}

/// The spin-up with a floating-frame beam (4 modes): its tip's position in the hub's frame
/// (`frame = "hub"` on `arm.end`) equals that in the beam's own frame (`frame = "arm.start"`,
/// clamped to the hub), and over 20 s its deflection follows the corotational beam's (10
/// elements) within 0.5 % of the largest deflection (0.40 m; measured 0.2 %).
#[test]
fn a_floating_frame_tip_is_given_in_the_hub_frame() {
    let text = std::fs::read_to_string("models/spin_up.toml")
        .unwrap()
        .replace("formulation = \"euler_bernoulli\"", "formulation = \"floating_frame\"\nmodes = 4")
        .replace("elements = \"elements\"\n", "")
        + "\n[[outputs]]\nname = \"tip_own\"\nquantity = \"y\"\nbody = \"arm.end\"\nframe = \"arm.start\"\n";
    let floating = Model::parse(&text, "spin_up_floating.toml").unwrap();
    let corotational = Model::load(std::path::Path::new("models/spin_up.toml")).unwrap();
    let start = |model: &Model| {
        let p = model.default_parameters();
        Simulation::new(model, &p, SolverSettings::from_model(model, &p).unwrap(), 0.0).unwrap()
    };
    let (mut ff, mut cr) = (start(&floating), start(&corotational));
    let (mut largest, mut apart) = (0.0f64, 0.0f64);
    for k in 1..=400 {
        let t = 0.05 * k as f64;
        ff.step_to(t).unwrap();
        cr.step_to(t).unwrap();
        let (d, own) = (output(&mut ff, "tip_deflection"), output(&mut ff, "tip_own"));
        assert!((d - own).abs() <= 1e-12, "t = {t}: hub frame {d}, own frame {own}");
        largest = largest.max(d.abs());
        apart = apart.max((d - output(&mut cr, "tip_deflection")).abs());
    }
    println!("largest deflection {largest:.4} m, floating frame against corotational {apart:.2e} m");
    assert!(largest > 0.3 && apart < 5e-3 * largest, "{largest} {apart}");
}
