pub mod animate;
pub mod build;
pub mod compare;
pub mod csv_number;
pub mod csv_table;
pub mod fmu_archive;
pub mod info;
pub mod interrupt;
pub mod metric;
pub mod model_outputs;
pub mod modes;
pub mod option_values;
pub mod outputs_csv;
pub mod plot;
pub mod plot_font;
pub mod progress;
pub mod scratch_dir;
pub mod simulate;
pub mod states;
pub mod statics;
pub mod sweep;
pub mod sweep_grid;

/// "the model declares: a, b" for a list of names a command line may give, or "the model
/// declares none" (an unknown input on a model without inputs had read "declares: ").
pub fn declared<S: AsRef<str>>(names: &[S]) -> String {
    if names.is_empty() {
        return "the model declares none".into();
    }
    let names: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
    format!("the model declares: {}", names.join(", "))
}

/// Refuse output files that are the model file or one another (a probe's `simulate m.toml -o
/// m.toml` replaced the model by the results without a word). Paths that exist are compared as
/// files (through links and `..`); the others by their text.
pub fn distinct_outputs(model: &std::path::Path, outputs: &[(&str, Option<&std::path::Path>)]) -> anyhow::Result<()> {
    outputs_apart_from(&[("the model file", model)], outputs)
}

/// `distinct_outputs` for a command that reads the files `inputs` (what each is, its path): no
/// output may be one of them (a probe's `build m.toml -o m.toml`, `simulate -o in.csv --input
/// u=in.csv`, `animate s.json -o s.json` overwrote what they read).
pub fn outputs_apart_from(
    inputs: &[(&str, &std::path::Path)],
    outputs: &[(&str, Option<&std::path::Path>)],
) -> anyhow::Result<()> {
    let same = |a: &std::path::Path, b: &std::path::Path| match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    let given: Vec<(&str, &std::path::Path)> = outputs.iter().filter_map(|(o, p)| p.map(|p| (*o, p))).collect();
    for (k, (option, path)) in given.iter().enumerate() {
        if let Some((what, _)) = inputs.iter().find(|(_, input)| same(path, input)) {
            anyhow::bail!(option_values::UsageError(format!(
                "{option} {} is {what}: it would be overwritten",
                path.display()
            )));
        }
        if let Some((other, _)) = given[..k].iter().find(|(_, p)| same(p, path)) {
            anyhow::bail!(option_values::UsageError(format!(
                "{option} {} is also given to {other}: each output needs a file of its own",
                path.display()
            )));
        }
    }
    Ok(())
}

/// An output file's directory must exist before any work is done for it (a probe's `compare
/// -o /nonexistent/c.json` ran the whole comparison first; `--plot` into one printed the
/// drawing library's debug text).
pub fn output_directory_exists(path: &std::path::Path) -> anyhow::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    if !dir.is_dir() {
        anyhow::bail!("cannot write {}: there is no directory {}", path.display(), dir.display());
    }
    Ok(())
}

/// A file named on the command line to be read (an FMU, a results CSV, a states file, a
/// binary) must be readable before anything is done with it: one that is missing, a directory or
/// not readable is a command line that cannot run, a usage error (exit code 2) as a missing
/// model file is (a missing FMU given to `check` exited 1). What is wrong inside a file that
/// can be read is found by its reader.
pub fn readable_input(path: &std::path::Path, what: &str) -> anyhow::Result<()> {
    let cannot = |why: String| option_values::UsageError(format!("cannot read {what} {}: {why}", path.display()));
    match std::fs::File::open(path).and_then(|f| f.metadata()) {
        Ok(meta) if meta.is_dir() => Err(cannot("it is a directory".into()).into()),
        Ok(_) => Ok(()),
        Err(e) => Err(cannot(e.to_string()).into()),
    }
}

/// Print assembly's located warnings (`Simulation::warnings`) to standard error.
pub fn print_warnings(warnings: &[flexfmu::model::ModelError]) {
    for w in warnings {
        eprintln!("{}", w.warning());
    }
}
