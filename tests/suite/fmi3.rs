//! The FMI 3.0 FMU through a real importer (the `fmi` crate's FMI 3 support): stepping the
//! mass-spring example over its default experiment gives the rows of `flexfmu simulate`, bit
//! for bit (the same core behind both); modelDescription.xml as the importer reads it.

use std::path::Path;

use flexfmu::export::FmiVersion;
use flexfmu::export::package::{build_fmu_version, find_binary};
use flexfmu::export::variables::Variables;
use flexfmu::fmi3::time_value_reference;
use flexfmu::model::Model;
use fmi::fmi3::import::Fmi3Import;
use fmi::fmi3::{CoSimulation, Common, Fmi3Model, GetSet};
use fmi::traits::{FmiImport, FmiInstance};

fn build(model: &Model, dir: &Path) -> Fmi3Import {
    let path = dir.join("model.fmu");
    let binary = find_binary().expect("libflexfmu.so next to the test executable's directory (cargo build --release)");
    build_fmu_version(model, &std::fs::read(&binary).unwrap(), &path, FmiVersion::V3).unwrap();
    fmi::import::from_path(&path).unwrap()
}

/// `flexfmu simulate` of `model_file`: the CSV rows as numbers (written with 17 significant
/// digits, so they read back to the same doubles).
fn flexfmu_simulate(model_file: &Path, dir: &Path) -> Vec<Vec<f64>> {
    let csv = dir.join("out.csv");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_flexfmu"))
        .arg("simulate")
        .arg(model_file)
        .arg("-o")
        .arg(&csv)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&csv).unwrap();
    text.lines().skip(1).map(|l| l.split(',').map(|x| x.parse::<f64>().unwrap()).collect()).collect()
}

#[test]
fn fmi3_fmu_steps_like_flexfmu_simulate_bit_for_bit() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml");
    let model = Model::load(&file).unwrap();
    let vars = Variables::new(&model).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let import = build(&model, dir.path());
    let md = import.model_description();
    assert_eq!(md.fmi_version, "3.0");
    assert_eq!(md.instantiation_token, flexfmu::export::variables::guid(&model.source));

    let mut inst = import.instantiate_cs("a", false, false, false, false, &[]).unwrap();
    assert_eq!(Common::get_version(&inst), "3.0");
    let ex = vars.experiment;
    let interval = ex.output_interval.unwrap();
    FmiInstance::enter_initialization_mode(&mut inst, None, ex.start_time, Some(ex.stop_time)).unwrap();
    FmiInstance::exit_initialization_mode(&mut inst).unwrap();

    // time first, then the outputs: the columns of the CSV.
    let mut vrs = vec![time_value_reference(&vars)];
    vrs.extend(vars.outputs().map(|v| v.vr));
    let read = |inst: &mut fmi::fmi3::instance::InstanceCS| {
        let mut v = vec![0.0; vrs.len()];
        inst.get_float64(&vrs, &mut v).unwrap();
        v
    };
    let mut rows = vec![read(&mut inst)];
    // The communication points of `flexfmu simulate`: start + k interval, the last at stop.
    let count = ((ex.stop_time - ex.start_time) / interval * (1.0 - 1e-12)).ceil() as u64;
    let mut tc = ex.start_time;
    for k in 1..=count {
        let t = if k == count { ex.stop_time } else { ex.start_time + k as f64 * interval };
        let (mut event, mut terminate, mut early, mut last) = (true, true, true, f64::NAN);
        inst.do_step(tc, t - tc, true, &mut event, &mut terminate, &mut early, &mut last).unwrap();
        assert!(!event && !terminate && !early);
        assert_eq!(last, t);
        tc = t;
        rows.push(read(&mut inst));
    }
    FmiInstance::terminate(&mut inst).unwrap();

    let reference = flexfmu_simulate(&file, dir.path());
    assert_eq!(rows.len(), reference.len());
    assert!(rows.len() > 100, "{} rows", rows.len());
    for (k, (a, b)) in rows.iter().zip(&reference).enumerate() {
        let bits = |r: &[f64]| r.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(a), bits(b), "row {k}: FMU {a:?} vs flexfmu simulate {b:?}");
    }
}
