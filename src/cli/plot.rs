//! `flexfmu plot`: PNG plots of the outputs in a results CSV against time, one panel per output.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use plotters::prelude::*;

use flexfmu::model::Model;

use super::csv_table::CsvTable;
use super::model_outputs::output_columns;
use super::plot_font::{self, FAMILY};

/// Image width (pixels).
pub const WIDTH: u32 = 1200;
/// Height of one panel (pixels).
pub const PANEL_HEIGHT: u32 = 260;
/// Height of the title above the panels (pixels).
pub const TITLE_HEIGHT: u32 = 40;
/// At most this many panels; more outputs share panels (consecutive ones, with a legend).
pub const MAX_PANELS: usize = 8;
/// At most this many curves in one picture.
pub const MAX_SERIES: usize = 100;
/// Series colours in order (matplotlib's tab10); a single-output panel uses the first.
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

#[derive(Debug, clap::Args)]
pub struct PlotArgs {
    /// Results CSV written by `flexfmu simulate` (header `time` then outputs).
    pub csv: PathBuf,
    /// Outputs to plot (repeatable or comma-separated); default: every column but time.
    #[arg(short = 'y', value_name = "NAME", value_delimiter = ',')]
    pub outputs: Vec<String>,
    /// The model that produced the CSV: its output units label the axes.
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Output PNG file.
    #[arg(short = 'o', long)]
    pub output: PathBuf,
}

/// Unit of each output of the model at `path`, by output name.
pub fn model_units(path: &Path) -> Result<HashMap<String, String>> {
    let model = Model::load(path)?;
    Ok(output_columns(&model)?.into_iter().map(|o| (o.name, o.unit)).collect())
}

/// Split `count` series into at most [`MAX_PANELS`] panels of consecutive series.
pub fn panels(count: usize) -> Vec<std::ops::Range<usize>> {
    let per_panel = count.div_ceil(MAX_PANELS).max(1);
    (0..count).step_by(per_panel).map(|start| start..(start + per_panel).min(count)).collect()
}

/// Image height for `panels` panels.
pub fn height(panels: usize) -> u32 {
    TITLE_HEIGHT + PANEL_HEIGHT * panels.max(1) as u32
}

/// `name [unit]`, or `name` when the unit is unknown or empty.
fn label(name: &str, units: &HashMap<String, String>) -> String {
    match units.get(name) {
        Some(unit) if !unit.is_empty() => format!("{name} [{unit}]"),
        _ => name.to_string(),
    }
}

/// The smallest vertical span of a panel relative to its values' magnitude: values that vary
/// less (round-off in a conserved energy, say) are drawn as a flat line.
pub const MIN_RELATIVE_SPAN: f64 = 1e-6;

/// One axis as plotters sees it: the values divided by `scale`, a power of ten, so that the
/// drawn coordinates are below 10 in magnitude whatever the data's (plotters' search for tick
/// positions never ended on values near the float maximum: a column of 1e308, times from
/// -1e308 to 1e308). Tick labels multiply back.
struct Axis {
    range: std::ops::Range<f64>,
    scale: f64,
}

impl Axis {
    /// The axis around the finite `values`, padded by 5 % if `pad`, at least
    /// [`MIN_RELATIVE_SPAN`] of their magnitude wide (a unit band if they are all zero or
    /// none is finite).
    fn around(values: impl Iterator<Item = f64>, pad: bool) -> Axis {
        let (lo, hi) = values
            .filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
        if !lo.is_finite() {
            return Axis { range: -1.0..1.0, scale: 1.0 };
        }
        let magnitude = lo.abs().max(hi.abs());
        // Subnormal magnitudes keep a normal scale (10^-324 is 0).
        let exponent = if magnitude == 0.0 { 0 } else { (magnitude.log10().floor() as i32).clamp(-300, 308) };
        let scale = 10f64.powi(exponent);
        let (lo, hi) = (lo / scale, hi / scale);
        let magnitude = lo.abs().max(hi.abs());
        let min_span = if magnitude == 0.0 { 2.0 } else { MIN_RELATIVE_SPAN * magnitude };
        let range = if hi - lo < min_span {
            let centre = 0.5 * (lo + hi);
            centre - 0.5 * min_span..centre + 0.5 * min_span
        } else {
            let margin = if pad { 0.05 * (hi - lo) } else { 0.0 };
            lo - margin..hi + margin
        };
        // The padding stays within what a label can show (f64::MAX).
        let limit = f64::MAX / scale;
        Axis { range: range.start.max(-limit)..range.end.min(limit), scale }
    }

    /// A value's drawn coordinate.
    fn coordinate(&self, value: f64) -> f64 {
        value / self.scale
    }

    /// Tick labels: as many decimals as the tick spacing needs, scientific notation for very
    /// large or small magnitudes, no `-0`. (Logarithms of the scaled values and the scale's
    /// exponent: the spacing and magnitude themselves may be beyond f64.)
    fn tick_format(&self) -> impl Fn(&f64) -> String + use<> {
        let (range, scale) = (self.range.clone(), self.scale);
        let step = (range.end - range.start) / 8.0;
        let exponent = scale.log10();
        let magnitude_log = range.start.abs().max(range.end.abs()).log10() + exponent;
        let step_log = step.log10() + exponent;
        let scientific = !(-3.0..5.0).contains(&magnitude_log);
        let decimals = (-step_log.floor()).clamp(0.0, 12.0) as usize;
        let significant = (magnitude_log - step_log).ceil().clamp(1.0, 12.0) as usize;
        move |u: &f64| {
            let v = if u.abs() < 1e-3 * step { 0.0 } else { u * scale };
            if scientific && v != 0.0 { format!("{v:.significant$e}") } else { format!("{v:.decimals$}") }
        }
    }
}

/// Render `series` (column names of `table`) against its `time` column into the PNG `path`.
pub fn render(
    table: &CsvTable,
    series: &[String],
    units: &HashMap<String, String>,
    title: &str,
    path: &Path,
) -> Result<()> {
    plot_font::register();
    let time = table.column("time").context("the CSV has no 'time' column")?;
    let groups = panels(series.len());
    let root = BitMapBackend::new(path, (WIDTH, height(groups.len()))).into_drawing_area();
    let draw_error = |e: DrawingAreaErrorKind<_>| anyhow!("drawing {}: {e}", path.display());
    root.fill(&WHITE).map_err(draw_error)?;
    let root = root.titled(title, (FAMILY, 22)).map_err(draw_error)?;
    let areas = root.split_evenly((groups.len(), 1));
    let time_axis = Axis::around(time.iter().copied(), false);
    let value_axes: Vec<_> = groups
        .iter()
        .map(|group| {
            let columns = series[group.clone()].iter().map(|n| table.column(n).expect("checked by the caller"));
            Axis::around(columns.flat_map(|c| c.iter().copied()), true)
        })
        .collect();
    // The same room in every panel, so that their time axes line up: the longest tick label
    // (about 9 px per character at 15 px) and the axis title.
    let longest = value_axes
        .iter()
        .flat_map(|a| [a.range.start, a.range.end].map(|u| a.tick_format()(&u).len()))
        .max()
        .unwrap_or(4);
    let y_label_width = (9 * longest as u32 + 45).max(80);
    for ((area, group), value_axis) in areas.iter().zip(&groups).zip(&value_axes) {
        let names = &series[group.clone()];
        let columns: Vec<&[f64]> = names.iter().map(|n| table.column(n).expect("checked by the caller")).collect();
        let (x_format, y_format) = (time_axis.tick_format(), value_axis.tick_format());
        let mut chart = ChartBuilder::on(area)
            .margin_left(10)
            .margin_right(25)
            .margin_top(8)
            .margin_bottom(4)
            .x_label_area_size(42)
            .y_label_area_size(y_label_width)
            .build_cartesian_2d(time_axis.range.clone(), value_axis.range.clone())
            .map_err(draw_error)?;
        let y_desc = names.iter().map(|n| label(n, units)).collect::<Vec<_>>().join(", ");
        chart
            .configure_mesh()
            .x_desc("time [s]")
            .y_desc(y_desc)
            .x_label_formatter(&x_format)
            .y_label_formatter(&y_format)
            .x_max_light_lines(4)
            .y_max_light_lines(4)
            .label_style((FAMILY, 15))
            .axis_desc_style((FAMILY, 17))
            .light_line_style(RGBColor(235, 235, 235))
            .bold_line_style(RGBColor(205, 205, 205))
            .draw()
            .map_err(draw_error)?;
        for (k, (name, column)) in names.iter().zip(&columns).enumerate() {
            let colour = PALETTE[k % PALETTE.len()];
            let points = time
                .iter()
                .zip(column.iter())
                .filter(|(t, v)| t.is_finite() && v.is_finite())
                .map(|(t, v)| (time_axis.coordinate(*t), value_axis.coordinate(*v)));
            chart
                .draw_series(LineSeries::new(points, colour.stroke_width(2)))
                .map_err(draw_error)?
                .label(label(name, units))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
        }
        if names.len() > 1 {
            chart
                .configure_series_labels()
                .label_font((FAMILY, 15))
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(draw_error)?;
        }
    }
    root.present().map_err(draw_error)?;
    Ok(())
}

/// A plot is a PNG, named so (`-o pl.csv` printed the drawing library's debug text, `-o x.jpg`
/// wrote a JPEG: a probe); checked before any run.
pub fn png_name(png: &Path) -> Result<()> {
    if !png.extension().is_some_and(|e| e.eq_ignore_ascii_case("png")) {
        bail!(super::option_values::UsageError(format!("the plot {} must be a .png file", png.display())));
    }
    Ok(())
}

/// Plot the chosen outputs of the results file `csv` into `png`, units from `model` if given.
pub fn plot_file(csv: &Path, outputs: &[String], model: Option<&Path>, png: &Path) -> Result<()> {
    png_name(png)?;
    super::output_directory_exists(png)?;
    let table = CsvTable::read(csv)?;
    if table.column("time").is_none() {
        bail!("{}: the header has no 'time' column", csv.display());
    }
    let available: Vec<String> = table.names.iter().filter(|n| *n != "time").cloned().collect();
    if table.rows() == 0 {
        bail!("{}: no rows to plot", csv.display());
    }
    // The names asked for, looked up in a set: a linear search per column of all the columns
    // took 45 minutes for a header of two million (a probe).
    let known: std::collections::HashSet<&String> = available.iter().collect();
    if let Some(name) = outputs.iter().find(|name| !known.contains(name)) {
        bail!("-y {name}: no column '{name}' in {} (its outputs: {})", csv.display(), available.join(", "));
    }
    let series = if outputs.is_empty() { available.clone() } else { outputs.to_vec() };
    if series.is_empty() {
        bail!("{}: no output columns to plot", csv.display());
    }
    // A picture of more curves shows none of them (160,000 took a minute; a probe).
    if series.len() > MAX_SERIES {
        bail!(
            "{}: {} columns to plot, more than the {MAX_SERIES} one picture shows; choose some with -y NAME,...",
            csv.display(),
            series.len()
        );
    }
    let units = model.map(model_units).transpose()?.unwrap_or_default();
    let title = csv.file_name().map_or_else(|| csv.display().to_string(), |f| f.to_string_lossy().into_owned());
    render(&table, &series, &units, &title, png)
}

pub fn run(args: PlotArgs) -> Result<()> {
    super::readable_input(&args.csv, "results CSV")?;
    plot_file(&args.csv, &args.outputs, args.model.as_deref(), &args.output)?;
    println!("{}: plot of {} written", args.output.display(), args.csv.display());
    Ok(())
}
