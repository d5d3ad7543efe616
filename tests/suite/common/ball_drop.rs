//! The ball dropped on a floor (models/ball_drop.toml and ball_drop_constraint.toml: radius
//! 0.05 m, g = 9.81 m/s^2). Free flight under constant gravity is a parabola, so a state sampled
//! in free flight gives the previous and next impact times exactly.

use flexfmu::model::Model;
use flexfmu::simulation::Simulation;

use super::fmu::{Fmu, read};
use super::sim::output;

pub const G: f64 = 9.81;
pub const R: f64 = 0.05;

/// How a sampled state is known to be in free flight: an output and the test on its value.
pub struct FreeFlight {
    pub output: &'static str,
    pub holds: fn(f64) -> bool,
}

/// From a free-flight sample (t, y, vy): the previous and the next time the parabola through it
/// crosses y = r (the last separation, or an instantaneous impact, and the next impact).
pub fn flight_times(t: f64, y: f64, vy: f64) -> (f64, f64) {
    let vs = (vy * vy + 2.0 * G * (y - R)).sqrt();
    (t - (vs - vy) / G, t + (vy + vs) / G)
}

/// Step `sim` at communication interval `dt` and return the impact times seen from each sample
/// time (each must be in free flight).
pub fn impact_times_at(sim: &mut Simulation, dt: f64, samples: &[f64], flight: &FreeFlight) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    let mut t = sim.time();
    for &ts in samples {
        while t < ts - 1e-12 {
            t = (t + dt).min(ts);
            sim.step_to(t).unwrap();
        }
        assert!((flight.holds)(output(sim, flight.output)), "sample time {ts} must be in free flight");
        out.push(flight_times(ts, output(sim, "y"), output(sim, "vy")));
    }
    out
}

/// The largest difference between two lists of (impact, separation) times.
pub fn worst_difference(a: &[(f64, f64)], b: &[(f64, f64)]) -> f64 {
    a.iter().zip(b).map(|(a, b)| (a.0 - b.0).abs().max((a.1 - b.1).abs())).fold(0.0, f64::max)
}

/// The FMU of `model` through a real importer (the `fmi` crate), stepped to 1 s at
/// communication steps 1e-4 s and 0.1 s: both give the impact times `direct` (from the facade)
/// within 1 ms. Returns the largest difference between the two communication steps.
pub fn assert_fmu_impact_times_independent_of_the_communication_step(
    model: &Model,
    flight: &FreeFlight,
    samples: &[f64],
    direct: &[(f64, f64)],
) -> f64 {
    use fmi::fmi2::instance::CoSimulation;
    use fmi::traits::FmiInstance;

    let fmu = Fmu::build(model);
    let vrs = [fmu.vr("y"), fmu.vr("vy"), fmu.vr(flight.output)];
    let run = |dt: f64| {
        let mut inst = fmu.start("ball", None, |_| {});
        let steps = (1.0 / dt).round() as usize;
        let mut times = Vec::new();
        for k in 0..steps {
            let (t0, t1) = (k as f64 * dt, (k + 1) as f64 * dt);
            inst.do_step(t0, t1 - t0, true).unwrap();
            if let Some(&ts) = samples.iter().find(|&&s| (s - t1).abs() < 1e-9) {
                let v = read(&mut inst, &vrs);
                assert!((flight.holds)(v[2]), "free flight at {ts}");
                times.push(flight_times(ts, v[0], v[1]));
            }
        }
        FmiInstance::terminate(&mut inst).unwrap();
        times
    };
    let fine = run(1e-4);
    let coarse = run(0.1);
    println!("FMU dt 1e-4: {fine:?}\nFMU dt 0.1:  {coarse:?}\nfacade:      {direct:?}");
    for ((a, b), c) in fine.iter().zip(&coarse).zip(direct) {
        for (x, y, z) in [(a.0, b.0, c.0), (a.1, b.1, c.1)] {
            assert!((x - y).abs() < 1e-3 && (x - z).abs() < 1e-3, "{x} {y} {z}");
        }
    }
    worst_difference(&fine, &coarse)
}
