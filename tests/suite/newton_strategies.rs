//! Newton strategies (src/integrators/newton.rs): full Newton, modified Newton and Broyden's
//! quasi-Newton method (paper 002) reach the same solution, the cheaper ones with fewer
//! Jacobian evaluations; the strategy is selectable in the model file and on the command line.

use flexfmu::integrators::{Method, NewtonStrategy};
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};

use crate::common;

fn crank_slider() -> Model {
    common::sim::example("crank_slider")
}

#[test]
fn strategies_agree_and_save_jacobians() {
    let model = crank_slider();
    let names = ["crank_angle", "rod_angle", "slider_x", "slider_v"];
    for (method, rho_inf) in
        [(Method::Ttbif, 0.5), (Method::Hht, 0.8), (Method::GeneralizedAlpha, 0.5), (Method::Bathe, 0.0)]
    {
        let mut results = Vec::new();
        for strategy in NewtonStrategy::ALL {
            let settings = SolverSettings { method, rho_inf, step: 1e-3, strategy, ..SolverSettings::default() };
            let mut sim = Simulation::new(&model, &model.default_parameters(), settings, 0.0).unwrap();
            for k in 1..=100 {
                sim.step_to(0.01 * k as f64).unwrap();
            }
            let all: Vec<String> = sim.outputs().iter().map(|o| o.name.clone()).collect();
            let out = sim.output_values().unwrap().to_vec();
            let values: Vec<f64> = names.iter().map(|n| out[all.iter().position(|m| m == n).unwrap()]).collect();
            let st = sim.statistics();
            eprintln!(
                "crank_slider {method} rho_inf={rho_inf} h=1e-3, 1 s, {strategy}: {} steps, {:.2} Newton iterations/step, {} Jacobian evaluations, {} factorizations",
                st.steps,
                st.newton_iterations as f64 / st.steps as f64,
                st.jacobian_evaluations,
                st.factorizations
            );
            results.push((strategy, values, st));
        }
        let (_, full, full_stats) = &results[0];
        for (strategy, values, st) in &results[1..] {
            // Same solution to the Newton tolerance (1e-10 relative per step, over 1000 steps).
            let gap = values.iter().zip(full).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            eprintln!("crank_slider {method} {strategy}: max difference from full Newton {gap:.2e}");
            assert!(gap < 1e-7, "{method} {strategy}: differs from full Newton by {gap:e}");
            assert!(
                st.jacobian_evaluations < full_stats.jacobian_evaluations,
                "{method} {strategy}: {} Jacobian evaluations, full Newton {}",
                st.jacobian_evaluations,
                full_stats.jacobian_evaluations
            );
        }
    }
}

#[test]
fn strategy_from_model_file_and_cli() {
    let source = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/models/crank_slider.toml")).unwrap();
    assert!(source.contains("[solver]\n"));
    for strategy in NewtonStrategy::ALL {
        let text = source.replacen("[solver]\n", &format!("[solver]\nnewton = \"{strategy}\"\n"), 1);
        let model = Model::parse(&text, "crank.toml").unwrap();
        let s = SolverSettings::from_model(&model, &model.default_parameters()).unwrap();
        assert_eq!(s.strategy, strategy);
        assert_eq!(strategy.name().parse::<NewtonStrategy>(), Ok(strategy));
    }
    // Default: modified Newton.
    let model = Model::parse(&source, "crank.toml").unwrap();
    assert_eq!(
        SolverSettings::from_model(&model, &model.default_parameters()).unwrap().strategy,
        NewtonStrategy::Modified
    );
    // An unknown value: a located error naming the choices.
    let text = source.replacen("[solver]\n", "[solver]\nnewton = \"secant\"\n", 1);
    let line = text.lines().position(|l| l.starts_with("newton =")).unwrap() + 1;
    let model = Model::parse(&text, "crank.toml").unwrap();
    let err = SolverSettings::from_model(&model, &model.default_parameters()).unwrap_err().to_string();
    eprintln!("{err}");
    assert!(err.contains(&format!("crank.toml:{line}:")), "not located at line {line}: {err}");
    assert!(err.contains("secant") && err.contains("full, modified, broyden"), "{err}");

    // The CLI flag.
    let dir = tempfile::tempdir().unwrap();
    for strategy in ["full", "broyden"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_flexfmu"))
            .args([
                "simulate",
                concat!(env!("CARGO_MANIFEST_DIR"), "/models/crank_slider.toml"),
                "--stop-time",
                "0.05",
                "--newton",
                strategy,
                "-o",
            ])
            .arg(dir.path().join("out.csv"))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        // Full Newton: one Jacobian per iteration.
        let count = |what: &str| -> u64 {
            let i = stdout.find(what).unwrap_or_else(|| panic!("{what} in {stdout}"));
            stdout[..i].trim_end().rsplit([' ', ',']).next().unwrap().parse().unwrap()
        };
        let (iterations, jacobians) = (count("Newton iterations"), count("Jacobian evaluations"));
        if strategy == "full" {
            assert_eq!(iterations, jacobians, "{stdout}");
        } else {
            assert!(jacobians < iterations, "{stdout}");
        }
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_flexfmu"))
        .args([
            "simulate",
            concat!(env!("CARGO_MANIFEST_DIR"), "/models/crank_slider.toml"),
            "--newton",
            "secant",
            "-o",
        ])
        .arg(dir.path().join("out.csv"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("full, modified, broyden"));
}

/// A linear system is solved by one Newton step per stage, which `max_iterations = 1` (the
/// documented least value) must accept: the last iterate's residual is checked before a
/// stage fails. Without that check every step of the linear oscillator failed and was halved
/// (HHT: 47,688 rejected steps over 1 s, Newmark and Bathe alike; a probe).
#[test]
fn one_iteration_solves_a_linear_system() {
    let model = common::sim::example("mass_spring");
    for method in Method::ALL {
        let mut sim = common::sim::simulation_with(&model, &[], |s| {
            s.method = method;
            s.rho_inf = method.default_rho_inf(s.rho_inf);
            s.max_iterations = 1;
        });
        sim.step_to(0.5).unwrap();
        let stats = sim.statistics();
        assert_eq!(stats.rejected_steps, 0, "{method}: {stats:?}");
        assert_eq!(stats.steps, 500, "{method}: {stats:?}");
    }
    // A nonlinear system cannot be solved in one iteration a stage: the failure says so
    // without a contraction rate, which one iteration does not have ("rate NaN"; a probe).
    let mut sim = common::sim::simulation_with(&crank_slider(), &[], |s| s.max_iterations = 1);
    let message = sim.step_to(0.2).expect_err("the crank-slider needs more than one iteration").to_string();
    assert!(message.contains("did not converge in 1 iteration (") && !message.contains("NaN"), "{message}");
}
