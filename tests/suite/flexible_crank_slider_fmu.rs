//! `models/flexible_crank_slider.toml` as an FMU through a real importer (the `fmi` crate):
//! its outputs at every communication point equal `flexfmu simulate`'s CSV rows, with the
//! default model and with the fractional slider damper switched on through a parameter.

use std::path::Path;
use std::process::Command;

use flexfmu::model::Model;
use fmi::fmi2::instance::{CoSimulation, Common};
use fmi::traits::FmiInstance;

use crate::common;
use common::fmu::{Fmu, read};

const INTERVAL: f64 = 2e-3;
const STOP: f64 = 0.4;

fn model_path() -> std::path::PathBuf {
    common::sim::model_path("flexible_crank_slider")
}

/// `flexfmu simulate` rows (time first, then the outputs in file order).
fn cli(dir: &Path, set: &[(&str, f64)]) -> (Vec<String>, Vec<Vec<f64>>) {
    let csv = dir.join("out.csv");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_flexfmu"));
    cmd.arg("simulate").arg(model_path()).arg("-o").arg(&csv);
    cmd.args(["--stop-time", &STOP.to_string(), "--output-interval", &INTERVAL.to_string()]);
    for (name, value) in set {
        cmd.args(["--set", &format!("{name}={value:e}")]);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines.map(|l| l.split(',').map(|x| x.parse::<f64>().unwrap()).collect()).collect();
    (header, rows)
}

/// The FMU driven at the CLI's output times t_k = k * INTERVAL (do_step from t_{k-1} by
/// t_k - t_{k-1}, which lands exactly on t_k).
fn run_fmu(fmu: &Fmu, names: &[String], set: &[(&str, f64)]) -> Vec<Vec<f64>> {
    let out: Vec<u32> = names.iter().map(|n| fmu.vr(n)).collect();
    let mut inst = fmu.start("fcs", None, |inst| {
        for (name, value) in set {
            inst.set_real(&[fmu.vr(name)], &[*value]).unwrap();
        }
    });
    let row = |inst: &mut _, t: f64| std::iter::once(t).chain(read(inst, &out)).collect::<Vec<f64>>();
    let mut rows = vec![row(&mut inst, 0.0)];
    let count = (STOP / INTERVAL * (1.0 - 1e-12)).ceil() as usize;
    let mut t = 0.0;
    for k in 1..=count {
        let next = if k == count { STOP } else { k as f64 * INTERVAL };
        inst.do_step(t, next - t, true).unwrap();
        t = next;
        rows.push(row(&mut inst, t));
    }
    FmiInstance::terminate(&mut inst).unwrap();
    rows
}

#[test]
fn fmu_equals_flexfmu_simulate() {
    let dir = tempfile::tempdir().unwrap();
    let model = Model::load(&model_path()).unwrap();
    let fmu = Fmu::build(&model);
    for set in [vec![], vec![("c_slider", 2.0), ("alpha", 0.5)]] {
        let (header, expected) = cli(dir.path(), &set);
        let got = run_fmu(&fmu, &header[1..], &set);
        assert_eq!(got.len(), expected.len());
        let (mut identical, mut total, mut worst) = (0usize, 0usize, 0.0f64);
        for (g, e) in got.iter().zip(&expected) {
            assert_eq!(g[0].to_bits(), e[0].to_bits(), "time {} vs {}", g[0], e[0]);
            for (a, b) in g[1..].iter().zip(&e[1..]) {
                total += 1;
                if a.to_bits() == b.to_bits() {
                    identical += 1;
                } else {
                    worst = worst.max((a - b).abs() / b.abs().max(1e-300));
                }
            }
        }
        let last = expected.last().unwrap();
        println!(
            "set {set:?}: {identical}/{total} FMU outputs bit-identical to the CSV, worst relative difference {worst:.1e}; at t = {STOP}: slider x = {:.9} m, P deflection = {:.3e} m",
            last[header.iter().position(|h| h == "slider_x").unwrap()],
            last[header.iter().position(|h| h == "P_deflection").unwrap()]
        );
        assert_eq!(identical, total, "worst relative difference {worst:e}");
        // The run is not trivial: the crank has turned and the slider moved.
        assert!((last[header.iter().position(|h| h == "slider_x").unwrap()] - 0.45).abs() > 0.05);
    }
}
