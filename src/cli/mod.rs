pub mod animate;
pub mod build;
pub mod compare;
pub mod csv_table;
pub mod info;
pub mod metric;
pub mod model_outputs;
pub mod modes;
pub mod option_values;
pub mod outputs_csv;
pub mod plot;
pub mod plot_font;
pub mod progress;
pub mod simulate;
pub mod states;
pub mod statics;
pub mod sweep;
pub mod sweep_grid;

/// Print assembly's located warnings (`Simulation::warnings`) to standard error.
/// "the model declares: a, b" for a list of names a command line may give, or "the model
/// declares none" (an unknown input on a model without inputs had read "declares: ").
pub fn declared<S: AsRef<str>>(names: &[S]) -> String {
    if names.is_empty() {
        return "the model declares none".into();
    }
    let names: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
    format!("the model declares: {}", names.join(", "))
}

pub fn print_warnings(warnings: &[flexfmu::model::ModelError]) {
    for w in warnings {
        eprintln!("{}", w.warning());
    }
}
