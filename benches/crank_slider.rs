//! Crank-slider throughput: simulated steps per second for TTBIF and HHT-alpha at the same
//! step. Run with `cargo bench --bench crank_slider`; compare the two in one run (shared
//! machines are noisy, ratios are what carries over).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use flexfmu::integrators::Method;
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};
use std::path::Path;

const STEP: f64 = 1e-3;
const SPAN: f64 = 0.1;

fn crank_slider(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/crank_slider.toml");
    let model = Model::load(&path).expect("models/crank_slider.toml");
    let params = model.default_parameters();
    let mut group = c.benchmark_group("crank_slider");
    group.throughput(Throughput::Elements((SPAN / STEP).round() as u64));
    for (method, rho_inf) in [(Method::Ttbif, 0.5), (Method::Hht, 0.5)] {
        let settings =
            SolverSettings { method, rho_inf, step: STEP, ..SolverSettings::from_model(&model, &params).unwrap() };
        group.bench_function(format!("{method} dt={STEP}"), |b| {
            b.iter(|| {
                let mut sim = Simulation::new(&model, &params, settings, 0.0).unwrap();
                sim.step_to(SPAN).unwrap();
                sim.state().q[0]
            })
        });
    }
    group.finish();
}

criterion_group!(benches, crank_slider);
criterion_main!(benches);
