//! The discrete flexible plate of paper 001 (`models/plate_discrete.toml`, benchmarks.md
//! section 9): 6 x 6 rigid bodies and one Guyan-condensed multi-point force element.
//!
//! Reference: the full MITC4 plate model (tests/suite/plate_fe.rs: converged first mode 5.307 Hz on
//! 24 x 20; here 24 x 24 is recomputed). Paper 001's Table 2 (0.12351 ... 1.65890 Hz) is not
//! physical for the stated data and is not used; its claim reproduced here is the agreement of
//! the discrete model with the full FE model within a few per cent (paper: -2.2 ... +2.5 %).

use crate::common;

use flexfmu::mechanics::discrete_plate::{PlateSpec, discrete_plate};
use flexfmu::mechanics::forces::MultiPointForce;
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};
use flexfmu::structural::{EdgeSupport, PlateMaterial, RectangularPlate, natural_frequencies_hz};

fn model() -> Model {
    common::sim::example("plate_discrete")
}

fn params(model: &Model, set: &[(&str, f64)]) -> Vec<f64> {
    let mut p = model.default_parameters();
    for (name, value) in set {
        p[model.parameter_index(name).unwrap()] = *value;
    }
    p
}

fn simulation(model: &Model, set: &[(&str, f64)]) -> Simulation {
    let p = params(model, set);
    Simulation::new(model, &p, SolverSettings::from_model(model, &p).unwrap(), 0.0).unwrap()
}

/// Measured (Hz):
///   order  full FE 24x24   discrete, mesh 12x12  diff %   discrete, mesh 24x24  diff %
///     1        5.3067          5.3190            +0.23        5.3115            +0.09
///     2       14.7541         14.7578            +0.02       14.7280            -0.18
///     3       32.8763         32.6526            -0.68       32.3880            -1.49
///     4       51.9791         51.2485            -1.41       50.9659            -1.95
///     5       55.9477         55.0582            -1.59       54.8856            -1.90
/// Target (issue 8): within 3 %. On the finer mesh the remaining difference is the discrete
/// model's own (rigid patches with lumped inertia instead of the condensed mass); on 12x12 the
/// coarser mesh's stiffer K partly offsets it.
#[test]
fn first_five_frequencies_match_the_full_plate_model() {
    let m = model();
    // Full (uncondensed) FE plate, 24 x 24 MITC4, 1800 DOFs.
    let fe =
        RectangularPlate::cantilever(1.8, 1.5, 0.02, PlateMaterial::aluminium_paper001(), 24, 24).assemble().unwrap();
    let full = natural_frequencies_hz(&fe.m, &fe.k, 5).unwrap();
    let mut rows = Vec::new();
    for refine in [1.0, 2.0] {
        let sim = simulation(&m, &[("refine", refine)]);
        let f = sim.natural_frequencies().unwrap();
        // The constrained 3D system (Euler parameters, normalisation rows) has exactly the
        // frequencies of the discrete plate's 108-DOF bending problem (condensed K, patch
        // inertias), computed directly: checks the modes path and the DOF mapping.
        let spec = PlateSpec {
            a: 1.8,
            b: 1.5,
            t: 0.02,
            material: PlateMaterial::aluminium_paper001(),
            mesh: [12 * refine as usize; 2],
            bodies: [6, 6],
            edges: [EdgeSupport::Clamped, EdgeSupport::Free, EdgeSupport::Free, EdgeSupport::Free],
            damping_ratio: 0.0,
        };
        let direct = discrete_plate(&spec).unwrap().frequencies;
        for r in 0..10 {
            assert!(
                ((f[r] - direct[r]) / direct[r]).abs() < 1e-8,
                "mode {}: system {} vs direct {}",
                r + 1,
                f[r],
                direct[r]
            );
        }
        rows.push(f);
    }
    println!("Cantilever plate 1.8 x 1.5 x 0.02 m, 6 x 6 rigid bodies (paper 001 Table 2 with physical values)");
    println!(
        "order   full FE 24x24 (Hz)   discrete, mesh 12x12 (Hz)   diff (%)   discrete, mesh 24x24 (Hz)   diff (%)"
    );
    let mut worst: f64 = 0.0;
    for r in 0..5 {
        let d1 = 100.0 * (rows[0][r] - full[r]) / full[r];
        let d2 = 100.0 * (rows[1][r] - full[r]) / full[r];
        worst = worst.max(d1.abs()).max(d2.abs());
        println!("{:>5} {:>20.4} {:>27.4} {:>10.2} {:>27.4} {:>10.2}", r + 1, full[r], rows[0][r], d1, rows[1][r], d2);
    }
    assert!((full[0] - 5.307).abs() < 0.005, "full FE f1 {}", full[0]);
    assert!(worst < 3.0, "largest difference {worst} %");
}

/// Released flat under gravity: the FMU (through the `fmi` importer) and `Simulation` give
/// bit-identical outputs; the free corner swings between 0 and about twice its static
/// deflection (q L^4 / (8 D) = 13.1 mm for a beam strip).
#[test]
fn released_plate_fmu_equals_simulation() {
    use fmi::fmi2::instance::CoSimulation;
    let m = model();
    let fmu = common::fmu::Fmu::build(&m);
    let out = fmu.outputs();
    let mut inst = fmu.start("plate", None, |_| {});
    let mut sim = simulation(&m, &[]);
    let (h, mut t, mut worst, mut lowest) = (0.01, 0.0, 0.0f64, 0.0f64);
    for _ in 0..30 {
        inst.do_step(t, h, true).unwrap();
        t += h;
        let v = common::fmu::read(&mut inst, &out);
        sim.step_to(t).unwrap();
        let d = sim.output_values().unwrap();
        for (a, b) in v.iter().zip(d) {
            worst = worst.max((a - b).abs());
        }
        lowest = lowest.min(v[0]);
    }
    let mat = PlateMaterial::aluminium_paper001();
    let static_tip = mat.rho * 0.02 * 9.81 * 1.8f64.powi(4) / (8.0 * mat.flexural_rigidity(0.02));
    println!(
        "plate FMU vs Simulation, 30 steps of 0.01 s: max |difference| = {worst:e}; lowest corner z {lowest:.5} m (2 x beam static {:.5})",
        2.0 * static_tip
    );
    assert_eq!(worst, 0.0);
    assert!(lowest < -1.7 * static_tip && lowest > -2.3 * static_tip, "{lowest}");
}

/// Without damping (zeta = 0) the total energy (kinetic + gravity + elastic) is conserved to
/// the integrator's accuracy. Measured, max |E(t) - E(0)| / max kinetic energy over 0.5 s:
/// TTBIF rho_inf = 0.5: 5.7e-6 (h = 1e-3), 2.0e-6 (h = 5e-4); rho_inf = 1 (no numerical
/// dissipation): 2.7e-10 (h = 1e-3). With rho_inf < 1 the loss is TTBIF's intended damping of
/// the unresolved high modes (the discrete plate's bending spectrum reaches the kHz range, the
/// in-plane penalty modes about 3 kHz) that the sudden gravity load excites, so it shrinks
/// only by about h^1.5, not at the method's order.
#[test]
fn undamped_plate_conserves_energy() {
    let m = model();
    let mut drift = Vec::new();
    for (step, rho_inf) in [(1e-3, 0.5), (5e-4, 0.5), (1e-3, 1.0)] {
        let p = params(&m, &[("zeta", 0.0)]);
        let mut settings = SolverSettings::from_model(&m, &p).unwrap();
        settings.step = step;
        settings.rho_inf = rho_inf;
        let mut sim = Simulation::new(&m, &p, settings, 0.0).unwrap();
        let (mut worst, mut kinetic) = (0.0f64, 0.0f64);
        for k in 1..=100 {
            sim.step_to(0.005 * k as f64).unwrap();
            let v = sim.output_values().unwrap();
            worst = worst.max(v[3].abs());
            kinetic = kinetic.max(v[4]);
            assert_eq!(v[6], 0.0);
        }
        println!(
            "zeta = 0, step {step:e}, rho_inf {rho_inf}: max |E(t) - E(0)| = {worst:.3e} J, max kinetic energy {kinetic:.3} J, ratio {:.2e}",
            worst / kinetic
        );
        drift.push(worst / kinetic);
    }
    assert!(drift[0] < 1e-4, "{drift:?}");
    assert!(drift[1] < drift[0] / 2.0, "{drift:?}");
    assert!(drift[2] < 1e-8, "{drift:?}");
}

/// With damping the energy lost equals the dissipated energy (balance), and the plate settles
/// towards its static deflection.
#[test]
fn damped_plate_energy_balance() {
    let m = model();
    let mut sim = simulation(&m, &[]);
    sim.step_to(0.5).unwrap();
    let v = sim.output_values().unwrap().to_vec();
    let balance = v[3] + v[6];
    println!(
        "zeta = 0.02 at 0.5 s: E - E0 = {:.4} J, dissipated {:.4} J, E - E0 + dissipated = {balance:.2e} J",
        v[3], v[6]
    );
    assert!(v[6] > 0.1 && balance.abs() < 1e-3 * v[6], "{v:?}");
}

/// Static deflection under gravity: the discrete model (Newton statics on the 3D system) vs
/// the full FE plate (24 x 24 MITC4, consistent uniform load rho t g) at the patch centres.
/// Guyan's K_r is exact for loads at the masters (001 eq. 9 adds the slave loads through T);
/// the discrete model lumps each patch's weight at its centre, so the difference measured here
/// is that load lumping. Measured: free edge -12.125 vs -12.177 mm (-0.43 %), 4 Newton iterations.
#[test]
fn static_deflection_under_gravity_matches_the_full_plate() {
    use flexfmu::analysis::statics::static_equilibrium;
    use flexfmu::structural::plate::PlateDof;
    let m = model();
    let sim = simulation(&m, &[("refine", 2.0)]);
    let sys = sim.system();
    let (mut q, mut lambda) = (sim.state().q.clone(), sim.state().lambda.clone());
    let iterations = static_equilibrium(sys, &mut q, &mut lambda, 0.0, 1e-12).unwrap();
    // Full FE: nodal loads q_load hx hy / 4 per element corner on w.
    let mat = PlateMaterial::aluminium_paper001();
    let fe = RectangularPlate::cantilever(1.8, 1.5, 0.02, mat, 24, 24).assemble().unwrap();
    let (hx, hy) = (1.8 / 24.0, 1.5 / 24.0);
    let pressure = -mat.rho * 0.02 * 9.81;
    let mut f = nalgebra::DVector::zeros(fe.len());
    for j in 0..=24 {
        for i in 0..=24 {
            let corners = (if i == 0 || i == 24 { 1.0 } else { 2.0 }) * (if j == 0 || j == 24 { 1.0 } else { 2.0 });
            if let Some(d) = fe.dof(i, j, PlateDof::W) {
                f[d] = pressure * hx * hy / 4.0 * corners;
            }
        }
    }
    let u = fe.k.clone().cholesky().unwrap().solve(&f);
    let (mut worst, mut tip_fe, mut tip_discrete) = (0.0f64, 0.0, 0.0);
    println!("static deflection under gravity (mm), patch centres along y = 0.125 (j = 0) and y = 0.875 (j = 3):");
    for j in [0usize, 3] {
        let mut line = String::new();
        for i in 0..6 {
            let body = sys.body(&format!("plate.body[{i}][{j}]")).unwrap();
            let z = q[body.x + 2];
            let w = u[fe.dof(2 + 4 * i, 2 + 4 * j, PlateDof::W).unwrap()];
            line += &format!("  {:.3}/{:.3}", 1e3 * z, 1e3 * w);
            if i == 5 {
                worst = worst.max(((z - w) / w).abs());
                if j == 3 {
                    (tip_discrete, tip_fe) = (z, w);
                }
            }
        }
        println!("  j = {j} (discrete/FE):{line}");
    }
    println!(
        "Newton iterations {iterations}; free-edge patch centre: discrete {:.4} mm, FE {:.4} mm ({:+.2} %)",
        1e3 * tip_discrete,
        1e3 * tip_fe,
        100.0 * (tip_discrete - tip_fe) / tip_fe
    );
    // Eq. 13: the element's force on its reference (the clamp) carries the whole weight.
    let support = sys.elements::<MultiPointForce>()[0].reference_force(&q, &vec![0.0; q.len()]);
    let weight = mat.rho * 0.02 * 1.8 * 1.5 * 9.81;
    println!("support force {support:?} N, plate weight {weight:.6} N");
    assert!(
        (support[2] + weight).abs() < 1e-9 * weight
            && support[0].abs() < 1e-9 * weight
            && support[1].abs() < 1e-9 * weight
    );
    assert!(worst < 0.01, "largest relative difference at the free edge {worst}");
}

/// C = beta K with beta = 2 zeta / omega_1: the free decay of the released plate (mode 1
/// dominates once the higher, more strongly damped modes have died out) has the logarithmic
/// decrement of zeta = 0.02 and the period of the first mode. Measured: zeta 0.02000, period
/// 0.18800 s vs 1/f1 = 0.18800 s.
#[test]
fn free_decay_has_the_damping_ratio_at_the_first_frequency() {
    let m = model();
    let mut sim = simulation(&m, &[]);
    let f1 = sim.natural_frequencies().unwrap()[0];
    let dt = 1e-3; // the model's step; about 188 samples per period
    let mut z = Vec::new();
    for k in 1..=2000 {
        sim.step_to(dt * k as f64).unwrap();
        z.push(sim.output_values().unwrap()[0]);
    }
    // Extrema of z after 0.6 s (the static deflection drops out of peak-to-peak amplitudes).
    let ext: Vec<(f64, f64)> = (1..z.len() - 1)
        .filter(|&k| {
            k as f64 * dt > 0.6 && ((z[k] > z[k - 1] && z[k] >= z[k + 1]) || (z[k] < z[k - 1] && z[k] <= z[k + 1]))
        })
        .map(|k| ((k + 1) as f64 * dt, z[k]))
        .collect();
    // Amplitudes from consecutive extremes (peak to peak / 2), decrement over half periods.
    let amp: Vec<f64> = ext.windows(2).map(|w| 0.5 * (w[1].1 - w[0].1).abs()).collect();
    let n = amp.len() - 1;
    let delta = 2.0 * (amp[0] / amp[n]).ln() / n as f64; // per full period
    let zeta = delta / (4.0 * std::f64::consts::PI.powi(2) + delta * delta).sqrt();
    let period = 2.0 * (ext[ext.len() - 1].0 - ext[0].0) / (ext.len() - 1) as f64;
    println!(
        "free decay 0.6-2 s: {} extremes, damping ratio {zeta:.5} (model 0.02), period {period:.5} s vs 1/f1 = {:.5} s (damped {:.5})",
        ext.len(),
        1.0 / f1,
        1.0 / (f1 * (1.0 - 0.02f64.powi(2)).sqrt())
    );
    assert!((zeta - 0.02).abs() < 0.001, "zeta {zeta}");
    assert!((period * f1 - 1.0).abs() < 0.01, "period {period}");
}

/// A free plate (no clamped edge) is referred to a floating reference body (paper 001 section
/// 2.2; body [3][3] here) with eq. 13's reactions on it.
const FREE_PLATE: &str = r#"[model]
name = "free_plate"
dimension = 3
gravity = [0.0, 0.0, -9.81]

[solver]
step = 1e-3
rho_inf = 0.5

[[plates]]
name = "plate"
size = [1.8, 1.5]
thickness = 0.02
material = { E = 71.75e9, nu = 0.33, rho = 2740.0 }
mesh = [12, 12]
bodies = [6, 6]

[[outputs]]
name = "corner_z"
quantity = "z"
body = "plate.body[5][0]"
point = [1.8, 0.0, 0.0]

[[outputs]]
name = "energy_potential"
quantity = "energy_potential"

[[outputs]]
name = "energy_kinetic"
quantity = "energy_kinetic"
"#;

/// Free-free plate: the 3D system has six rigid-body modes and then exactly the elastic
/// frequencies of the discrete plate's direct 108-DOF problem (whose condensed K keeps the
/// three bending rigid modes): the floating reference loses nothing. Against the full free FE
/// plate (24 x 24) the first five elastic modes are printed and must agree within 3 %.
/// Falling freely under gravity, the plate does not deform: corner z = -g t^2 / 2 and the
/// element's strain energy stays at round-off. Measured (Hz), full FE / discrete: 24.294 /
/// 24.234 (-0.25 %), 32.176 / 31.846 (-1.02 %), 49.921 / 49.281 (-1.28 %), 59.527 / 58.371
/// (-1.94 %), 67.949 / 66.709 (-1.83 %); system = direct to 1e-6; free fall 0.3 s: corner z
/// exact to 1e-12, strain energy 1e-11 J against 641 J kinetic.
#[test]
fn free_plate_with_a_floating_reference_body() {
    let m = Model::parse(FREE_PLATE, "free_plate.toml").unwrap();
    let mut sim = simulation(&m, &[]);
    let f = sim.natural_frequencies().unwrap();
    let spec = PlateSpec {
        a: 1.8,
        b: 1.5,
        t: 0.02,
        material: PlateMaterial::aluminium_paper001(),
        mesh: [12, 12],
        bodies: [6, 6],
        edges: [EdgeSupport::Free; 4],
        damping_ratio: 0.0,
    };
    let direct = discrete_plate(&spec).unwrap().frequencies;
    let fe = RectangularPlate::new(1.8, 1.5, 0.02, PlateMaterial::aluminium_paper001(), 24, 24).assemble().unwrap();
    let full = natural_frequencies_hz(&fe.m, &fe.k, 8).unwrap();
    println!("free plate: system rigid-body modes (Hz) {:?}", &f[..6]);
    println!("order   full FE 24x24 (Hz)   discrete (Hz)   diff (%)   direct 108-DOF (Hz)");
    let mut worst: f64 = 0.0;
    for r in 0..5 {
        let (fs, fd, ff) = (f[6 + r], direct[3 + r], full[3 + r]);
        println!("{:>5} {:>20.4} {:>15.4} {:>10.2} {:>21.4}", r + 1, ff, fs, 100.0 * (fs - ff) / ff, fd);
        assert!(((fs - fd) / fd).abs() < 1e-6, "mode {}: system {fs} vs direct {fd}", r + 1);
        worst = worst.max(((fs - ff) / ff).abs());
    }
    assert!(f[..6].iter().all(|&x| x < 1e-3 * f[6]), "{:?}", &f[..6]);
    assert!(worst < 0.03, "{worst}");

    let t_end = 0.3;
    sim.step_to(t_end).unwrap();
    let v = sim.output_values().unwrap().to_vec();
    let exact = -0.5 * 9.81 * t_end * t_end;
    let strain = v[1] + v[2]; // potential (gravity + strain) + kinetic = strain energy here
    println!(
        "free fall {t_end} s: corner z {:.12} (exact {exact:.12}), strain energy {strain:.2e} J (kinetic {:.3} J)",
        v[0], v[2]
    );
    assert!((v[0] - exact).abs() < 1e-9 && strain.abs() < 1e-9 * v[2]);
}

/// The discrete plate is geometrically linear: a cantilever plate whose tip patch turns
/// beyond 0.3 rad is told to have left its element's range (a probe's plate under a tip line
/// load deflected 51 % beyond the elastica without a word); at a small load it is not.
#[test]
fn a_plate_turned_beyond_small_rotations_is_told() {
    let text = r#"
[model]
name = "cantilever_plate"
dimension = 3
gravity = [0.0, 0.0, 0.0]
[parameters]
P = { value = 100.0 }
[[plates]]
name = "plate"
size = [1.0, 0.2]
thickness = 0.01
material = { E = 7e10, nu = 0.0, rho = 2700.0 }
mesh = [8, 2]
bodies = [4, 1]
clamped = ["x_min"]
[[loads]]
type = "force"
body = "plate.body[3][0]"
point = [0.875, 0.1, 0.0]
direction = [0.0, 0.0, -1.0]
value = "P"
[[outputs]]
name = "tip_z"
quantity = "z"
body = "plate.body[3][0]"
"#;
    let model = Model::parse(text, "cantilever_plate.toml").unwrap();
    // Tip rotation P a^2 / (2 EI) at a = 0.875 m, EI = 1166.7 N m^2: 0.033 rad at 100 N,
    // 0.66 rad at 2 kN.
    for (load, told) in [(100.0, false), (2000.0, true)] {
        let mut sim = simulation(&model, &[("P", load)]);
        sim.settle_static(0.0).unwrap();
        let why = sim.outside_formulation();
        assert_eq!(why.is_some(), told, "P = {load}: {why:?}");
        if let Some(why) = why {
            assert!(
                why.contains("geometrically linear") && why.contains("plate.body[0][0] ... plate.body[3][0]"),
                "{why}"
            );
        }
    }
}

/// A plate clamped on all four edges under a central load (3 x 3 patches, steel, 1 m, 10 mm):
/// the linear element's deflection 0.00560 P a^2 / D (Timoshenko & Woinowsky-Krieger) is the
/// plate's while it stays small against the thickness; beyond 0.3 thicknesses the membrane
/// force of the stretched mid-surface (left out) stiffens it, and the state is told to be
/// outside the element's range (a probe's plate at 6.6 thicknesses passed silently). A
/// cantilever plate (one clamped edge: nothing holds it in its plane) at the same deflection
/// is not told.
#[test]
fn a_plate_clamped_on_opposite_edges_deflected_beyond_its_thickness_is_told() {
    let text = |clamped: &str| {
        format!(
            "[model]\nname = \"cccc\"\ndimension = 3\n[parameters]\nP = 1000.0\n\
             [[plates]]\nname = \"pl\"\nsize = [1.0, 1.0]\nthickness = 0.01\n\
             material = {{ E = 2.1e11, nu = 0.3, rho = 7850.0 }}\nmesh = [6, 6]\nbodies = [3, 3]\nclamped = {clamped}\n\
             [[loads]]\ntype = \"force\"\nbody = \"pl.body[1][1]\"\ndirection = [0.0, 0.0, -1.0]\nvalue = \"P\"\n\
             [[outputs]]\nname = \"w\"\nquantity = \"z\"\nbody = \"pl.body[1][1]\"\n"
        )
    };
    let settled = |clamped: &str, p: f64| {
        let model = Model::parse(&text(clamped), "cccc.toml").unwrap();
        let mut sim = simulation(&model, &[("P", p)]);
        sim.settle_static(0.0).unwrap();
        (-common::sim::output(&mut sim, "w"), sim.outside_formulation())
    };
    let all = "[\"x_min\", \"x_max\", \"y_min\", \"y_max\"]";
    let d = 2.1e11 * 0.01f64.powi(3) / (12.0 * (1.0 - 0.09));
    let (small, told) = settled(all, 1000.0);
    println!("P = 1 kN: w = {small:.4e} m (thin-plate theory {:.4e} m), {told:?}", 0.0056 * 1000.0 / d);
    assert!(told.is_none(), "{told:?}");
    assert!((small / (0.0056 * 1000.0 / d) - 1.0).abs() < 0.1, "{small}");
    // Linear: w proportional to P, so P = 2e4 N deflects 20 times as far (5.5 mm, 0.55 h).
    let (large, told) = settled(all, 2e4);
    let told = told.expect("told");
    println!("P = 20 kN: w = {large:.4e} m: {told}");
    assert!((large / small / 20.0 - 1.0).abs() < 1e-9 && large > 0.3 * 0.01, "{large}");
    assert!(told.contains("times its thickness: held in its plane by clamps on opposite edges"), "{told}");
    let (cantilever, told) = settled("[\"x_min\"]", 2e3);
    assert!(cantilever > 0.3 * 0.01 && told.is_none(), "{cantilever}: {told:?}");
}

/// A plate's thickness is between 1e-6 and 1/2 of its smaller side (a probe's 1e-9 m plate
/// failed in the condensation's words, K_ss singular; 2 m on a 1 m plate passed), and an edge
/// clamped twice is a located error.
#[test]
fn a_plate_thinner_than_a_foil_or_thicker_than_a_block_is_refused() {
    let text = std::fs::read_to_string(common::sim::model_path("plate_discrete")).unwrap();
    let thickness = text.lines().find(|l| l.starts_with("thickness = ")).unwrap().to_string();
    for (to, message) in [
        ("thickness = 1e-9", "a plate's thickness is between 1e-6 and 1/2 of its sides"),
        ("thickness = 100.0", "a plate's thickness is between 1e-6 and 1/2 of its sides"),
    ] {
        let (err, line) = common::sim::refused(&text, "plate.toml", &thickness, to);
        assert!(err.to_string().contains(message) && err.line == line, "{err}");
    }
    let clamped = text.lines().find(|l| l.starts_with("clamped = ")).unwrap().to_string();
    let (err, _) = common::sim::refused(&text, "plate.toml", &clamped, "clamped = [\"x_min\", \"x_min\"]");
    assert!(err.to_string().contains("edge 'x_min' is clamped twice"), "{err}");
}

/// A misspelt patch name on a fine plate is told with the patches summarised (a probe's 16 x
/// 16 plate listed all 257 bodies) and before the plate is condensed (it waited 34 s for the
/// message): the patch bodies are laid out first and the multi-point element built once every
/// name has been resolved.
#[test]
fn a_misspelt_patch_of_a_fine_plate_is_told_with_the_patches_summarised() {
    let text = std::fs::read_to_string(common::sim::model_path("plate_discrete")).unwrap();
    let fine = text
        .replace("bodies = [6, 6]", "bodies = [16, 16]")
        .replace("mesh = [\"12*refine\", \"12*refine\"]", "mesh = [32, 32]");
    let (err, line) =
        common::sim::refused(&fine, "plate.toml", "body = \"plate.body[5][0]\"", "body = \"plate.body[16][0]\"");
    assert_eq!(err.line, line, "{err}");
    assert!(err.message == "unknown body 'plate.body[16][0]' (known: ground, plate.body[0..=15][0..=15])", "{err}");
}
