//! A fractional damper's history is FMU state: through the `fmi` importer, a state saved
//! after 1000 communication steps and restored reproduces the continuation bit for bit.

use std::path::Path;

use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::instance::{CoSimulation, Common, InstanceCS};
use fmi::traits::{FmiInstance, FmiStatus};
use flexfmu::export::package::{build_fmu, find_binary};
use flexfmu::export::variables::Variables;
use flexfmu::model::Model;

const H: f64 = 1e-3;

fn run(inst: &mut InstanceCS, out: &[u32], t: &mut f64, n: usize) -> Vec<u64> {
    let mut bits = Vec::new();
    for _ in 0..n {
        inst.do_step(*t, H, true).unwrap();
        *t += H;
        let mut v = vec![0.0; out.len()];
        inst.get_real(out, &mut v).unwrap();
        bits.extend(v.iter().map(|x| x.to_bits()));
    }
    bits
}

#[test]
fn fractional_history_is_part_of_the_fmu_state() {
    let dir = tempfile::tempdir().unwrap();
    let model = Model::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("models/oscillator_fractional.toml")).unwrap();
    let fmu = dir.path().join("osc.fmu");
    build_fmu(&model, &find_binary().expect("libflexfmu.so"), &fmu).unwrap();
    let import: Fmi2Import = fmi::import::from_path(&fmu).unwrap();
    let vars = Variables::new(&model).unwrap();
    let out: Vec<u32> = vars.outputs().map(|v| v.vr).collect();
    let mut inst = import.instantiate_cs("osc", false, false).unwrap();
    assert_eq!(Common::get_version(&inst), "2.0");
    FmiInstance::enter_initialization_mode(&mut inst, None, 0.0, None).unwrap();
    FmiInstance::exit_initialization_mode(&mut inst).unwrap();
    let mut t = 0.0;
    run(&mut inst, &out, &mut t, 1000);
    let t1 = t;
    let state = inst.get_fmu_state().unwrap();
    let bytes = inst.serialize_fmu_state(&state).unwrap();
    let first = run(&mut inst, &out, &mut t, 200);
    // A second instance restored from the bytes continues identically.
    let mut other = import.instantiate_cs("other", false, false).unwrap();
    FmiInstance::enter_initialization_mode(&mut other, None, 0.0, None).unwrap();
    FmiInstance::exit_initialization_mode(&mut other).unwrap();
    let restored = other.deserialize_fmu_state(&bytes).unwrap();
    other.set_fmu_state(&restored).ok().unwrap();
    let mut t = t1;
    assert_eq!(run(&mut other, &out, &mut t, 200), first);
    // And so does the first instance after going back.
    inst.set_fmu_state(&state).ok().unwrap();
    let mut t = t1;
    assert_eq!(run(&mut inst, &out, &mut t, 200), first);
}
