//! `models/flexible_crank_slider.toml` as an FMU through a real importer (the `fmi` crate):
//! its outputs at every communication point equal `flexfmu simulate`'s CSV rows, with the
//! default model and with the fractional slider damper switched on through a parameter.

use std::path::Path;
use std::process::Command;

use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::instance::{CoSimulation, Common, InstanceCS};
use fmi::traits::FmiInstance;
use flexfmu::export::package::{build_fmu, find_binary};
use flexfmu::export::variables::Variables;
use flexfmu::model::Model;

const INTERVAL: f64 = 2e-3;
const STOP: f64 = 0.4;

fn model_path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models/flexible_crank_slider.toml")
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
fn fmu(import: &Fmi2Import, vars: &Variables, names: &[String], set: &[(&str, f64)]) -> Vec<Vec<f64>> {
    let vr = |name: &str| vars.list.iter().find(|v| v.name == name).unwrap_or_else(|| panic!("no variable {name}")).vr;
    let out: Vec<u32> = names.iter().map(|n| vr(n)).collect();
    let mut inst: InstanceCS = import.instantiate_cs("fcs", false, false).unwrap();
    for (name, value) in set {
        inst.set_real(&[vr(name)], &[*value]).unwrap();
    }
    FmiInstance::enter_initialization_mode(&mut inst, None, 0.0, None).unwrap();
    FmiInstance::exit_initialization_mode(&mut inst).unwrap();
    let read = |inst: &mut InstanceCS, t: f64| {
        let mut v = vec![0.0; out.len()];
        inst.get_real(&out, &mut v).unwrap();
        std::iter::once(t).chain(v).collect::<Vec<f64>>()
    };
    let mut rows = vec![read(&mut inst, 0.0)];
    let count = (STOP / INTERVAL * (1.0 - 1e-12)).ceil() as usize;
    let mut t = 0.0;
    for k in 1..=count {
        let next = if k == count { STOP } else { k as f64 * INTERVAL };
        inst.do_step(t, next - t, true).unwrap();
        t = next;
        rows.push(read(&mut inst, t));
    }
    FmiInstance::terminate(&mut inst).unwrap();
    rows
}

#[test]
fn fmu_equals_flexfmu_simulate() {
    let dir = tempfile::tempdir().unwrap();
    let model = Model::load(&model_path()).unwrap();
    let path = dir.path().join("flexible_crank_slider.fmu");
    build_fmu(&model, &find_binary().expect("libflexfmu.so (cargo build --release first)"), &path).unwrap();
    let import: Fmi2Import = fmi::import::from_path(&path).unwrap();
    let vars = Variables::new(&model).unwrap();
    for set in [vec![], vec![("c_slider", 2.0), ("alpha", 0.5)]] {
        let (header, expected) = cli(dir.path(), &set);
        let got = fmu(&import, &vars, &header[1..], &set);
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
