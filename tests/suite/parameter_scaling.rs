//! Models with many parameters: names are looked up in a map and the tunability of a
//! parameter no expression names needs no assembly, so 20,000 parameters read, check and
//! export in time linear in their number (a search of the list per name and one assembly per
//! parameter took 4 s for 25,000 and grew as the square). The test checks the counts, not the
//! time.

use std::process::Command;

use flexfmu::fmu::variables::Variables;
use flexfmu::model::Model;
use flexfmu::simulation::Simulation;

/// A point mass on a spring with `n` parameters `p0`..: the load reads three of them, a
/// comment names a fourth.
fn many_parameters(n: usize) -> String {
    let mut text = String::from("[model]\nname = \"many\"\n\n[parameters]\n");
    for k in 0..n {
        text += &format!("p{k} = {k}.5\n");
    }
    let last = n - 1;
    text += &format!(
        "\n[solver]\nstop_time = 0.01\n\n[[point_masses]]\nname = \"mass\"\nmass = 1.0\nposition = [0.0, 0.0]\n\n\
         [[joints]]\nname = \"slide\"\ntype = \"prismatic\"\nbody2 = \"mass\"\npoint = [0.0, 0.0]\naxis = [1.0, 0.0]\n\n\
         [[springs]]\nname = \"spring\"\ntype = \"prismatic\"\njoint = \"slide\"\nstiffness = 10.0\n\n\
         # p3 only appears in this comment\n\
         [[loads]]\ntype = \"force\"\nbody = \"mass\"\ndirection = [1.0, 0.0]\nvalue = \"p0 + p7*sin(t) - p{last}\"\n\n\
         [[outputs]]\nname = \"x\"\nquantity = \"x\"\nbody = \"mass\"\n"
    );
    text
}

#[test]
fn twenty_thousand_parameters_resolve_in_one_pass() {
    let n = 20_000;
    let text = many_parameters(n);
    let model = Model::parse(&text, "many.toml").unwrap();
    assert_eq!(model.parameters.len(), n);
    assert_eq!(model.parameter_index("p19999"), Some(19_999));
    assert_eq!(model.parameter_index("p20000"), None);
    // Tunability re-assembles the model only for the parameters the text names beyond their
    // declaration: the three the load reads and the one in the comment.
    let mentioned = model.mentioned_parameters();
    let mentioned: Vec<usize> = (0..n).filter(|&i| mentioned[i]).collect();
    assert_eq!(mentioned, [0, 3, 7, n - 1]);
    // Every one is tunable (a load magnitude, or nothing at all).
    let tunable = Simulation::tunable_parameters(&model, &model.default_parameters());
    assert_eq!(tunable.iter().filter(|t| **t).count(), n);
    let vars = Variables::new(&model).unwrap();
    // The export's table: the parameters first, in file order, each tunable.
    assert!(vars.list[..n].iter().enumerate().all(|(k, v)| v.name == format!("p{k}") && v.tunable));
    // The command line: check reads, assembles and builds the variable table.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.toml");
    std::fs::write(&path, &text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_flexfmu")).arg("check").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(&format!("ok, {} variables", vars.list.len())), "{stdout}");
}
