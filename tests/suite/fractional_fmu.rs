//! A fractional damper's history is FMU state: through the `fmi` importer, a state saved
//! after 1000 communication steps and restored reproduces the continuation bit for bit.

use std::path::Path;

use flexfmu::model::Model;
use fmi::traits::FmiStatus;

use crate::common;
use common::fmu::{Fmu, step_bits};

const H: f64 = 1e-3;

#[test]
fn fractional_history_is_part_of_the_fmu_state() {
    let model = Model::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("models/oscillator_fractional.toml")).unwrap();
    let fmu = Fmu::build(&model);
    let out = fmu.outputs();
    let mut inst = fmu.start("osc", None, |_| {});
    let mut t = 0.0;
    step_bits(&mut inst, &out, &mut t, H, 1000);
    let t1 = t;
    let state = inst.get_fmu_state().unwrap();
    let bytes = inst.serialize_fmu_state(&state).unwrap();
    let first = step_bits(&mut inst, &out, &mut t, H, 200);
    // A second instance restored from the bytes continues identically.
    let mut other = fmu.start("other", None, |_| {});
    let restored = other.deserialize_fmu_state(&bytes).unwrap();
    other.set_fmu_state(&restored).ok().unwrap();
    let mut t = t1;
    assert_eq!(step_bits(&mut other, &out, &mut t, H, 200), first);
    // And so does the first instance after going back.
    inst.set_fmu_state(&state).ok().unwrap();
    let mut t = t1;
    assert_eq!(step_bits(&mut inst, &out, &mut t, H, 200), first);
}
