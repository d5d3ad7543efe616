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
pub fn print_warnings(warnings: &[flexfmu::model::ModelError]) {
    for w in warnings {
        eprintln!("{}", w.warning());
    }
}
