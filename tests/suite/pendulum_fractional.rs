//! Benchmark 7, `models/pendulum_fractional.toml` (paper 003, example 1): an ANCF pendulum
//! with a torsional fractional spring-damper T = k theta + c D^alpha theta at the pivot.
//! alpha = 0 conserves energy, alpha = 1 is the viscous torsional damper, the Grünwald history
//! is FMU state, and the rigid pivot section (paper 003 eq. 23) holds.

use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};
use fmi::traits::FmiStatus;

use crate::common;
use common::fmu::{Fmu, step_bits};

fn text() -> String {
    std::fs::read_to_string(common::sim::model_path("pendulum_fractional")).unwrap()
}

/// Parameters with `alpha` set.
fn params(m: &Model, alpha: f64) -> Vec<f64> {
    let mut p = m.default_parameters();
    p[m.parameter_index("alpha").unwrap()] = alpha;
    p
}

/// Samples of all outputs every `interval` up to `t_end`.
fn run(m: &Model, p: &[f64], settings: SolverSettings, t_end: f64, interval: f64) -> Vec<Vec<f64>> {
    let mut sim = Simulation::new(m, p, settings, 0.0).unwrap();
    let mut out = vec![sim.output_values().unwrap().to_vec()];
    for k in 1..=(t_end / interval).round() as usize {
        sim.step_to(k as f64 * interval).unwrap();
        out.push(sim.output_values().unwrap().to_vec());
    }
    out
}

// Outputs: tip_x, tip_y, pivot_angle, energy_total, energy_dissipated.
const SCALE: f64 = 6000.0 * 0.02 * 0.02 * 1.0 * 9.81 * 0.5; // m g L/2 = 11.77 J

#[test]
fn energy_balance_with_alpha_0_and_alpha_half() {
    let m = Model::parse(&text(), "pendulum_fractional.toml").unwrap();
    for alpha in [0.0, 0.5] {
        let p = params(&m, alpha);
        let settings = SolverSettings::from_model(&m, &p).unwrap();
        let samples = run(&m, &p, settings, 1.0, 0.01);
        let e0 = samples[0][3] + samples[0][4];
        let drift = samples.iter().map(|s| (s[3] + s[4] - e0).abs()).fold(0.0, f64::max);
        let last = samples.last().unwrap();
        println!(
            "alpha = {alpha}: after 1 s tip ({:.4}, {:.4}), pivot angle {:.4} rad, E = {:.5} J, dissipated {:.5} J; max |E + D - E0| = {drift:.2e} J = {:.1e} of m g L/2",
            last[0],
            last[1],
            last[2],
            last[3],
            last[4],
            drift / SCALE
        );
        assert!(drift < 1e-5 * SCALE, "alpha = {alpha}: {drift:e}");
        if alpha == 0.0 {
            // Nothing is dissipated by a pure spring.
            assert!(last[4].abs() < 1e-12, "{}", last[4]);
        } else {
            // The damper has taken a good part of the energy by now.
            assert!(last[4] > 0.05 * SCALE, "{}", last[4]);
        }
    }
}

#[test]
fn alpha_1_is_the_viscous_torsional_damper() {
    // The same model with an ordinary (viscous) torsional spring-damper k, c.
    let frac = Model::parse(&text(), "pendulum_fractional.toml").unwrap();
    let viscous_text = text().replace("fractional_order = \"alpha\"\n", "");
    assert_ne!(viscous_text, text());
    let visc = Model::parse(&viscous_text, "pendulum_viscous.toml").unwrap();
    let t_end = 0.5;
    let mut diffs = Vec::new();
    for step in [4e-4, 2e-4, 1e-4] {
        let settings = |m: &Model, p: &[f64]| SolverSettings { step, ..SolverSettings::from_model(m, p).unwrap() };
        let pf = params(&frac, 1.0);
        let pv = visc.default_parameters();
        let a = run(&frac, &pf, settings(&frac, &pf), t_end, t_end);
        let b = run(&visc, &pv, settings(&visc, &pv), t_end, t_end);
        let (a, b) = (a.last().unwrap(), b.last().unwrap());
        let d = ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
        let dd = (a[4] - b[4]).abs();
        println!(
            "dt = {step:.0e}: tip at {t_end} s fractional alpha = 1 ({:.6}, {:.6}), viscous ({:.6}, {:.6}), distance {d:.3e} m; dissipated {:.5} vs {:.5} J",
            a[0], a[1], b[0], b[1], a[4], b[4]
        );
        diffs.push((d, dd));
    }
    // The Grünwald series with alpha = 1 is the backward difference (A_1 = 1, A_2 = -1, the
    // rest 0; paper 003 eq. 9): first order in dt, so the difference halves with the step.
    for w in diffs.windows(2) {
        let ratio = w[0].0 / w[1].0;
        assert!(ratio > 1.6 && ratio < 2.5, "ratio {ratio}: {diffs:?}");
    }
    assert!(diffs[2].0 < 5e-3 && diffs[2].1 < 1e-2 * SCALE, "{diffs:?}");
}

#[test]
fn pivot_section_stays_rigid() {
    // Paper 003 eq. 23 at the pivot: the slope d of the first node stays normal to the axis
    // tangent r_x there, while the section shears elsewhere (at element ends the shear of the
    // reduced-integrated element is extrapolated from its Gauss points, so it is larger there
    // than the beam's mean shear; only its being non-zero matters here).
    let m = Model::parse(&text(), "pendulum_fractional.toml").unwrap();
    let p = m.default_parameters();
    let mut sim = Simulation::new(&m, &p, SolverSettings::from_model(&m, &p).unwrap(), 0.0).unwrap();
    sim.step_to(0.5).unwrap();
    let sys = sim.system();
    let q = &sim.state().q;
    let l = 1.0 / 5.0;
    let shear_at = |node: &str, mid: &str, next: &str| {
        // sin(shear angle) = d . r_x / (|d| |r_x|), r_x = (-3 r_node + 4 r_mid - r_next)/l
        let at = |n: &str| sys.body(&format!("arm.{n}")).unwrap().x;
        let (x, m, nx) = (at(node), at(mid), at(next));
        let t = [(-3.0 * q[x] + 4.0 * q[m] - q[nx]) / l, (-3.0 * q[x + 1] + 4.0 * q[m + 1] - q[nx + 1]) / l];
        let d = [q[x + 2], q[x + 3]];
        (d[0] * t[0] + d[1] * t[1]) / ((d[0] * d[0] + d[1] * d[1]).sqrt() * (t[0] * t[0] + t[1] * t[1]).sqrt())
    };
    let pivot = shear_at("node[0]", "mid[0]", "node[1]");
    let second = shear_at("node[1]", "mid[1]", "node[2]");
    println!("at 0.5 s: sin(shear angle) at the pivot {pivot:.2e}, at node[1] (start of element 2) {second:.2e}");
    assert!(pivot.abs() < 1e-10, "{pivot:e}");
    assert!(second.abs() > 1e-5, "{second:e}");
}

const H: f64 = 1e-3;

#[test]
fn fmu_state_restore_is_bit_identical() {
    let model = Model::parse(&text(), "pendulum_fractional.toml").unwrap();
    let fmu = Fmu::build(&model);
    let out = fmu.outputs();
    let mut inst = fmu.start("a", None, |_| {});
    let mut t = 0.0;
    step_bits(&mut inst, &out, &mut t, H, 200);
    let t1 = t;
    let state = inst.get_fmu_state().unwrap();
    let bytes = inst.serialize_fmu_state(&state).unwrap();
    let first = step_bits(&mut inst, &out, &mut t, H, 100);
    let mut other = fmu.start("b", None, |_| {});
    let restored = other.deserialize_fmu_state(&bytes).unwrap();
    other.set_fmu_state(&restored).ok().unwrap();
    let mut t = t1;
    let second = step_bits(&mut other, &out, &mut t, H, 100);
    inst.set_fmu_state(&state).ok().unwrap();
    let mut t = t1;
    let third = step_bits(&mut inst, &out, &mut t, H, 100);
    let tip = [f64::from_bits(first[first.len() - 5]), f64::from_bits(first[first.len() - 4])];
    println!(
        "state saved at t = {t1:.3} s ({} bytes); 100 further steps to t = {:.3} s, tip {tip:?}: restored instance identical: {}, rewound instance identical: {}",
        bytes.len(),
        t1 + 0.1,
        second == first,
        third == first
    );
    assert_eq!(second, first);
    assert_eq!(third, first);
}

/// Paper 003 Figs. 9-12: a larger fractional order gives a smaller tip deformation and a faster
/// decay of the mechanical energy. Tip deformation: distance of the tip from where a rigid beam
/// along the pivot section (angle `pivot_angle`, paper 003 eq. 23 keeps the section rigid
/// there) would put it, |r_tip - L (cos phi, sin phi)|; it contains the bending the figures show.
#[test]
fn larger_alpha_gives_smaller_deformation_and_faster_energy_decay() {
    let m = Model::parse(&text(), "pendulum_fractional.toml").unwrap();
    let length = 1.0;
    let mut rows = Vec::new();
    println!("alpha | max tip deformation (m) | energy_total at 2 s (J) | energy_dissipated at 2 s (J)");
    for alpha in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let p = params(&m, alpha);
        let samples = run(&m, &p, SolverSettings::from_model(&m, &p).unwrap(), 2.0, 0.01);
        let deformation =
            samples.iter().map(|s| (s[0] - length * s[2].cos()).hypot(s[1] - length * s[2].sin())).fold(0.0, f64::max);
        let last = samples.last().unwrap();
        println!("{alpha:5} | {deformation:.4} | {:.4} | {:.4}", last[3], last[4]);
        rows.push((deformation, last[3], last[4]));
    }
    for (w, alphas) in rows.windows(2).zip([0.0, 0.25, 0.5, 0.75].iter()) {
        let ((d0, e0, diss0), (d1, e1, diss1)) = (w[0], w[1]);
        assert!(d1 < d0, "deformation does not decrease after alpha = {alphas}: {rows:?}");
        assert!(e1 < e0 && diss1 > diss0, "energy decay is not faster after alpha = {alphas}: {rows:?}");
    }
}
