//! Paper 002 section 3.2: the crank-slider whose connecting rod strikes a fixed cylinder
//! (models/crank_slider_contact.toml; issue 6). Checked: the energy balance to integrator
//! accuracy (second order) with the purely elastic contact of the paper and with a dissipative
//! one, every contact lying on the rod (the contact plane is the rod's infinite axis line),
//! Bathe and TTBIF agreeing on the impacts (the paper compares Bathe with Adams), and the
//! impacts independent of the communication interval.

use crate::common;

use flexfmu::integrators::Method;
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};

fn model() -> Model {
    common::sim::example("crank_slider_contact")
}

use common::sim::output;

fn param(model: &Model, params: &[f64], name: &str) -> f64 {
    params[model.parameter_index(name).unwrap()]
}

/// One run sampled every `dt`: (time, crank angle, contact state, energy_total + energy_dissipated).
struct Run {
    samples: Vec<[f64; 4]>,
    /// Contact onset and end times (first sample in / out of contact).
    contacts: Vec<(f64, f64)>,
}

fn run(model: &Model, e: f64, method: Method, step: f64, dt: f64, t_end: f64) -> Run {
    let mut params = model.default_parameters();
    params[model.parameter_index("e").unwrap()] = e;
    let settings = SolverSettings { method, step, ..SolverSettings::from_model(model, &params).unwrap() };
    let mut sim = Simulation::new(model, &params, settings, 0.0).unwrap();
    // Runs at fixed steps (convergence order studies): contacts do not refine the step.
    sim.set_contact_step_limit(false);
    let mut samples = Vec::new();
    let mut contacts = Vec::new();
    let mut t = 0.0;
    loop {
        let state = output(&mut sim, "contact_state");
        let balance = output(&mut sim, "energy_total") + output(&mut sim, "energy_dissipated");
        samples.push([t, output(&mut sim, "crank_angle"), state, balance]);
        if let [.., a, b] = samples.as_slice() {
            if a[2] < 0.5 && b[2] > 0.5 {
                contacts.push((b[0], f64::NAN));
            } else if a[2] > 0.5 && b[2] < 0.5 {
                contacts.last_mut().unwrap().1 = b[0];
            }
        }
        if t >= t_end - 1e-12 {
            break;
        }
        t = (t + dt).min(t_end);
        sim.step_to(t).unwrap();
    }
    Run { samples, contacts }
}

fn energy_error(r: &Run) -> f64 {
    let e0 = r.samples[0][3];
    r.samples.iter().map(|s| (s[3] - e0).abs()).fold(0.0, f64::max) / e0
}

#[test]
fn energy_balance_is_second_order_and_contacts_lie_on_the_rod() {
    let model = model();
    let params = model.default_parameters();
    let (r, l, xc, yc) = (
        param(&model, &params, "r"),
        param(&model, &params, "l"),
        param(&model, &params, "x_c"),
        param(&model, &params, "y_c"),
    );
    for e in [1.0, 0.5] {
        let runs: Vec<Run> = [2e-4, 1e-4, 5e-5].iter().map(|&h| run(&model, e, Method::Bathe, h, 1e-3, 2.0)).collect();
        let errors: Vec<f64> = runs.iter().map(energy_error).collect();
        println!(
            "e = {e}: max |E + D - E0| / E0 for h = 2e-4, 1e-4, 5e-5: {errors:?}; contacts (onset, end) at h = 1e-4: {:?}",
            runs[1].contacts
        );
        assert!(runs[1].contacts.len() >= 2, "the rod must strike the cylinder repeatedly: {:?}", runs[1].contacts);
        assert!(errors[1] < 2e-4, "e = {e}: energy balance {:e}", errors[1]);
        for w in errors.windows(2) {
            assert!(w[0] / w[1] > 3.0, "e = {e}: energy error ratio {} per halving (second order: 4)", w[0] / w[1]);
        }
        // Where along the rod the contact is: the foot of the cylinder's centre on the rod's
        // axis, as a fraction of the rod from the crank pin; the contact plane is that axis
        // line, so the fraction must lie inside (0, 1).
        for s in runs[1].samples.iter().filter(|s| s[2] > 0.5) {
            let (ax, ay) = (r * s[1].cos(), r * s[1].sin());
            let bx = ax + (l * l - ay * ay).sqrt();
            let fraction = ((xc - ax) * (bx - ax) + (yc - ay) * (-ay)) / (l * l);
            assert!(fraction > 0.05 && fraction < 0.95, "contact at {fraction} of the rod at t = {}", s[0]);
        }
    }
}

#[test]
fn bathe_and_ttbif_agree_on_the_impacts() {
    let model = model();
    let bathe = run(&model, 1.0, Method::Bathe, 2.5e-5, 1e-4, 2.0);
    let ttbif = run(&model, 1.0, Method::Ttbif, 2.5e-5, 1e-4, 2.0);
    assert_eq!(bathe.contacts.len(), ttbif.contacts.len());
    let mut worst = 0.0f64;
    for (a, b) in bathe.contacts.iter().zip(&ttbif.contacts) {
        worst = worst.max((a.0 - b.0).abs()).max((a.1 - b.1).abs());
    }
    let angle = bathe.samples.iter().zip(&ttbif.samples).map(|(a, b)| (a[1] - b[1]).abs()).fold(0.0, f64::max);
    println!(
        "Bathe vs TTBIF at h = 2.5e-5: contacts {:?} vs {:?}; worst onset/end difference {worst:.1e} s (sampling 1e-4 s); max crank angle difference {angle:.2e} rad",
        bathe.contacts, ttbif.contacts
    );
    // Onsets and ends are read at 1e-4 s samples: equal or one sample apart.
    assert!(worst <= 1.0001e-4, "impact times differ by {worst} s");
    assert!(angle < 1e-4, "crank angles differ by {angle} rad");
}

#[test]
fn impacts_do_not_depend_on_the_communication_interval() {
    let model = model();
    // Each communication interval is divided into equal steps <= 1e-4 s, and a step that
    // crosses a contact onset is cut at the located event; so the step grids differ after
    // each impact and the runs differ by integration error only. That difference must stay
    // far below the integration error itself (the 1e-4 s run against the 5e-5 s run).
    let fine = run(&model, 0.5, Method::Bathe, 1e-4, 1e-3, 2.0);
    let half = run(&model, 0.5, Method::Bathe, 5e-5, 1e-3, 2.0);
    let integration = fine.samples.iter().zip(&half.samples).map(|(a, b)| (a[1] - b[1]).abs()).fold(0.0, f64::max);
    println!("crank angle: h = 1e-4 vs 5e-5 (integration error scale): {integration:.2e} rad");
    for dt in [1e-2, 0.03, 0.1] {
        let coarse = run(&model, 0.5, Method::Bathe, 1e-4, dt, 2.0);
        // Sample times of the coarse run that are also 1e-3 s sample times.
        let worst = coarse
            .samples
            .iter()
            .filter_map(|s| {
                let k = (s[0] / 1e-3).round();
                ((s[0] - k * 1e-3).abs() < 1e-9).then(|| (s[1] - fine.samples[k as usize][1]).abs())
            })
            .fold(0.0, f64::max);
        println!("communication interval {dt}: max crank angle difference to the 1e-3 s run {worst:.2e} rad");
        assert!(worst < 0.05 * integration, "interval {dt}: {worst} rad, integration error scale {integration} rad");
    }
}
