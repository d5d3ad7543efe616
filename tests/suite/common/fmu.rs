//! A model's FMU, built with the cdylib of this test run (`cargo build --release` first) and
//! loaded through a real importer: the `fmi` crate (FMI 2.0 Co-Simulation).

use flexfmu::export::package::{build_fmu, find_binary};
use flexfmu::export::variables::Variables;
use flexfmu::model::Model;
use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::instance::{CoSimulation, Common, InstanceCS};
use fmi::traits::FmiInstance;

pub struct Fmu {
    _dir: tempfile::TempDir,
    pub import: Fmi2Import,
    pub vars: Variables,
}

impl Fmu {
    pub fn build(model: &Model) -> Fmu {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.fmu");
        let binary =
            find_binary().expect("libflexfmu.so next to the test executable's directory (cargo build --release)");
        build_fmu(model, &std::fs::read(&binary).unwrap(), &path).unwrap();
        let import: Fmi2Import = fmi::import::from_path(&path).unwrap();
        Fmu { _dir: dir, import, vars: Variables::new(model).unwrap() }
    }

    pub fn vr(&self, name: &str) -> u32 {
        self.vars.list.iter().find(|v| v.name == name).unwrap_or_else(|| panic!("no variable {name}")).vr
    }

    /// Value references of every output, in model-file order.
    pub fn outputs(&self) -> Vec<u32> {
        self.vars.outputs().map(|v| v.vr).collect()
    }

    /// Instantiate as `name`, let `setup` set start values, initialize at t = 0 with the
    /// experiment `tolerance`.
    pub fn start(&self, name: &str, tolerance: Option<f64>, setup: impl FnOnce(&mut InstanceCS)) -> InstanceCS {
        let mut inst = self.import.instantiate_cs(name, false, false).unwrap();
        assert_eq!(Common::get_version(&inst), "2.0");
        setup(&mut inst);
        FmiInstance::enter_initialization_mode(&mut inst, tolerance, 0.0, None).unwrap();
        FmiInstance::exit_initialization_mode(&mut inst).unwrap();
        inst
    }
}

pub fn read(inst: &mut InstanceCS, vrs: &[u32]) -> Vec<f64> {
    let mut v = vec![0.0; vrs.len()];
    inst.get_real(vrs, &mut v).unwrap();
    v
}

/// `n` communication steps of `h` from `*t`; the bits of the `out` values after each.
pub fn step_bits(inst: &mut InstanceCS, out: &[u32], t: &mut f64, h: f64, n: usize) -> Vec<u64> {
    let mut bits = Vec::new();
    for _ in 0..n {
        inst.do_step(*t, h, true).unwrap();
        *t += h;
        bits.extend(read(inst, out).iter().map(|x| x.to_bits()));
    }
    bits
}

/// An unpacked FMU's `resources` folder for the example model `models/<name>.toml`: creates
/// `resources` (and its parents), copies the model there as `model.toml` and parses it.
pub fn example_resources(resources: &std::path::Path, name: &str) -> Model {
    std::fs::create_dir_all(resources).unwrap();
    let text = std::fs::read_to_string(super::sim::model_path(name)).unwrap();
    std::fs::write(resources.join("model.toml"), &text).unwrap();
    Model::parse(&text, "model.toml").unwrap()
}
