//! `flexfmu plot` on a CSV from `flexfmu simulate models/mass_spring.toml`: the PNG decodes, has
//! the documented size (1200 wide, 40 + 260 per panel high), is not blank, and shows x = x0 cos(2 pi t)
//! going from the top of its panel to the bottom and back; unknown outputs are refused by name.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const EXE: &str = env!("CARGO_BIN_EXE_flexfmu");
/// The first series colour (matplotlib's tab:blue), used by every single-output panel.
const CURVE: [u8; 3] = [31, 119, 180];

fn model() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml")
}

fn flexfmu(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(EXE).args(args).output().unwrap()
}

/// Simulate mass_spring over one period (t = 0..1 s) into `dir/out.csv`.
fn simulated_csv(dir: &Path) -> PathBuf {
    let csv = dir.join("out.csv");
    let o = flexfmu(&[
        "simulate".as_ref(),
        model().as_os_str(),
        "--stop-time".as_ref(),
        "1".as_ref(),
        "-o".as_ref(),
        csv.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    csv
}

/// Decoded RGB(A) image: (width, height, bytes per pixel, pixels).
fn decode(path: &Path) -> (u32, u32, usize, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let channels = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        other => panic!("unexpected colour type {other:?}"),
    };
    (info.width, info.height, channels, buf)
}

#[test]
fn plot_of_mass_spring_shows_one_period_of_x() {
    let dir = tempfile::tempdir().unwrap();
    let csv = simulated_csv(dir.path());
    let png_path = dir.path().join("plot.png");
    let o = flexfmu(&[
        "plot".as_ref(),
        csv.as_os_str(),
        "--model".as_ref(),
        model().as_os_str(),
        "-o".as_ref(),
        png_path.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let (width, height, channels, pixels) = decode(&png_path);
    // Four outputs (x, v, a, energy_total): four panels under the title.
    assert_eq!((width, height), (1200, 40 + 4 * 260));
    let at = |x: u32, y: u32| -> [u8; 3] {
        let i = (y as usize * width as usize + x as usize) * channels;
        [pixels[i], pixels[i + 1], pixels[i + 2]]
    };
    let mut colours = std::collections::HashSet::new();
    for y in 0..height {
        for x in 0..width {
            colours.insert(at(x, y));
        }
    }
    // White background, grid greys, the curve and anti-aliased text: many distinct colours.
    assert!(colours.len() > 30, "only {} distinct colours: blank plot?", colours.len());

    // The first panel (rows 40..300) holds x(t) = 0.1 cos(2 pi t): its curve pixels start at the
    // top of the panel, reach the bottom at mid-period and return to the top at t = 1 s.
    let (top, bottom) = (40, 40 + 260);
    let curve_rows = |x: u32| -> Vec<u32> { (top..bottom).filter(|&y| at(x, y) == CURVE).collect() };
    let columns: Vec<u32> = (0..width).filter(|&x| !curve_rows(x).is_empty()).collect();
    assert!(columns.len() > 900, "the curve spans only {} columns of the first panel", columns.len());
    let (first, last) = (columns[0], *columns.last().unwrap());
    let mean_row = |x: u32| {
        let rows = curve_rows(x);
        rows.iter().sum::<u32>() as f64 / rows.len() as f64
    };
    let mid = (first + last) / 2;
    let (start, middle, end) = (mean_row(first), mean_row(mid), mean_row(last));
    assert!(middle - start > 150.0, "x(0) at row {start}, x(0.5) at row {middle}: not top to bottom");
    assert!(middle - end > 150.0, "x(1) at row {end}, x(0.5) at row {middle}: not back to the top");
}

#[test]
fn chosen_outputs_get_one_panel_each() {
    let dir = tempfile::tempdir().unwrap();
    let csv = simulated_csv(dir.path());
    let png_path = dir.path().join("xv.png");
    let o = flexfmu(&[
        "plot".as_ref(),
        csv.as_os_str(),
        "-y".as_ref(),
        "x,v".as_ref(),
        "-o".as_ref(),
        png_path.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (width, height, _, _) = decode(&png_path);
    assert_eq!((width, height), (1200, 40 + 2 * 260));
}

#[test]
fn unknown_output_is_refused_with_the_known_ones() {
    let dir = tempfile::tempdir().unwrap();
    let csv = simulated_csv(dir.path());
    let png_path = dir.path().join("none.png");
    let o = flexfmu(&[
        "plot".as_ref(),
        csv.as_os_str(),
        "-y".as_ref(),
        "x".as_ref(),
        "-y".as_ref(),
        "displacement".as_ref(),
        "-o".as_ref(),
        png_path.as_os_str(),
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("-y displacement"), "{stderr}");
    assert!(stderr.contains(&csv.display().to_string()), "{stderr}");
    assert!(stderr.contains("x, v, a, energy_total"), "{stderr}");
    assert!(!png_path.exists(), "no plot is written for a refused request");
}

/// A table of many columns: with no rows it is refused at once, with rows it is refused above
/// 100 curves, and a few chosen with -y are plotted (a probe's header of two million columns
/// and no rows took 45 minutes to say "no rows", and 160,000 curves a minute to draw).
#[test]
fn a_table_of_many_columns_is_refused_quickly_or_plotted_by_choice() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, png) = (dir.path().join("wide.csv"), dir.path().join("wide.png"));
    let names: Vec<String> = (0..200_000).map(|i| format!("x{i}")).collect();
    let plot = |rows: &str, y: &[&str]| {
        std::fs::write(&csv, format!("time,{}\n{rows}", names.join(","))).unwrap();
        let mut args: Vec<&std::ffi::OsStr> = vec!["plot".as_ref(), csv.as_os_str(), "-o".as_ref(), png.as_os_str()];
        for name in y {
            args.extend::<[&std::ffi::OsStr; 2]>(["-y".as_ref(), name.as_ref()]);
        }
        let o = flexfmu(&args);
        (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let (code, stderr) = plot("", &[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("no rows to plot"), "{stderr}");
    let row = |t: f64| format!("{t},{}\n", vec!["1"; names.len()].join(","));
    let rows = row(0.0) + &row(1.0);
    let (code, stderr) = plot(&rows, &[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("200000 columns to plot, more than the 100 one picture shows"), "{stderr}");
    let (code, stderr) = plot(&rows, &["x7", "x199999"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(png.exists());
    // Into a directory that does not exist: said so (it was the drawing library's debug text).
    let nowhere = dir.path().join("no/such/dir/p.png");
    let o =
        flexfmu(&["plot".as_ref(), csv.as_os_str(), "-y".as_ref(), "x7".as_ref(), "-o".as_ref(), nowhere.as_os_str()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("there is no directory"), "{stderr}");
}

/// Values near the float maximum, tiny ones, equal ones and non-finite cells are drawn: a
/// column of 1e308 on both rows, one from -1e308 to 1e308 and times from -1e308 to 1e308
/// (probe 14: plotters' tick search never ended on them), a subnormal constant, rows at one
/// time. Each panel shows its curve across the plot (a rising line rises), and the axes'
/// labels are in scientific notation.
#[test]
fn extreme_ranges_are_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("dblmax", "time,a\n0,1e308\n1,1e308\n", false),
        ("plus_minus_dblmax", "time,a\n0,-1e308\n1,1e308\n", true),
        ("timespan_inf", "time,a\n-1e308,1\n1e308,2\n", true),
        (
            "beyond_range_and_not_finite",
            "time,a\n0,-1.7976931348623157e308\n0.5,inf\n1,1.7976931348623157e308\nnan,0\n",
            true,
        ),
        ("subnormal", "time,a\n0,5e-324\n1,5e-324\n", false),
    ];
    for (name, text, rising) in cases {
        let csv = dir.path().join(format!("{name}.csv"));
        std::fs::write(&csv, text).unwrap();
        let png_path = dir.path().join(format!("{name}.png"));
        let o = flexfmu(&["plot".as_ref(), csv.as_os_str(), "-o".as_ref(), png_path.as_os_str()]);
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
        let (width, height, channels, pixels) = decode(&png_path);
        let at = |x: u32, y: u32| -> [u8; 3] {
            let i = (y as usize * width as usize + x as usize) * channels;
            [pixels[i], pixels[i + 1], pixels[i + 2]]
        };
        let curve_rows = |x: u32| -> Vec<u32> { (0..height).filter(|&y| at(x, y) == CURVE).collect() };
        let columns: Vec<u32> = (0..width).filter(|&x| !curve_rows(x).is_empty()).collect();
        assert!(columns.len() > 900, "{name}: the curve spans only {} columns", columns.len());
        let (first, last) = (curve_rows(columns[0])[0], curve_rows(*columns.last().unwrap())[0]);
        if rising {
            assert!(first > last + 150, "{name}: from row {first} to row {last}: not rising");
        } else {
            assert!(first.abs_diff(last) <= 2, "{name}: from row {first} to row {last}: not flat");
        }
    }
}

/// A results file whose times go back (two runs' rows in one file) is refused at its line
/// (a probe's was plotted without a word); non-finite cells are not (`extreme_ranges_are_drawn`).
#[test]
fn times_that_go_back_are_refused_at_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("back.csv");
    std::fs::write(&csv, "time,x\n0,1\n0.2,nan\n0.1,3\n").unwrap();
    let png_path = dir.path().join("back.png");
    let o = flexfmu(&["plot".as_ref(), csv.as_os_str(), "-o".as_ref(), png_path.as_os_str()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("back.csv:4: time 0.1 is before the row above's 0.2"), "{stderr}");
    assert!(!png_path.exists());
}

/// A plot is a PNG named so: another extension is a usage error before anything is run or
/// written (a probe's `-o pl.csv` printed the drawing library's debug text, `-o x.jpg` wrote a
/// JPEG), from `plot` and from `simulate --plot`.
#[test]
fn a_plot_not_named_png_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let csv = simulated_csv(dir.path());
    for name in ["pl.csv", "x.jpg", "noextension"] {
        let out = dir.path().join(name);
        let o = flexfmu(&["plot".as_ref(), csv.as_os_str(), "-o".as_ref(), out.as_os_str()]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("must be a .png file") && !out.exists(), "{stderr}");
    }
    let model = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml");
    let (rows, jpg) = (dir.path().join("rows.csv"), dir.path().join("p.jpg"));
    let o = flexfmu(&[
        "simulate".as_ref(),
        model.as_os_str(),
        "-o".as_ref(),
        rows.as_os_str(),
        "--plot".as_ref(),
        jpg.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!rows.exists() && !jpg.exists());
}

/// An importer's CSV quotes its names (FMPy's `write_csv`: `"time","x"`, RFC 4180): it plots
/// as the same file unquoted does, and a quoted name with a comma is one column. A probe's
/// FMPy result was refused with "the header has no 'time' column".
#[test]
fn a_csv_with_a_quoted_header_plots_as_the_plain_one() {
    let dir = tempfile::tempdir().unwrap();
    let rows = "0.0,0.1,1\n0.5,-0.1,2\n1.0,0.1,3\n";
    let mut pngs = Vec::new();
    for (name, header) in [("plain", "time,x,y\n"), ("quoted", "\"time\",\"x\" , \"y\"\n")] {
        // The same file names (a plot may show them), in a directory each.
        std::fs::create_dir(dir.path().join(name)).unwrap();
        let (csv, png_path) = (dir.path().join(name).join("out.csv"), dir.path().join(name).join("out.png"));
        std::fs::write(&csv, format!("{header}{rows}")).unwrap();
        let o = flexfmu(&["plot".as_ref(), csv.as_os_str(), "-o".as_ref(), png_path.as_os_str()]);
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
        pngs.push(std::fs::read(&png_path).unwrap());
    }
    assert!(pngs[0] == pngs[1], "the quoted header's plot differs from the plain one's");
    let csv = dir.path().join("array.csv");
    std::fs::write(&csv, format!("\"time\",\"a[1,2]\",\"say \"\"x\"\"\"\n{}", "0,1,2\n1,2,3\n")).unwrap();
    let png_path = dir.path().join("array.png");
    // The columns as an unknown -y lists them (-y takes a comma-separated list itself).
    let o =
        flexfmu(&["plot".as_ref(), csv.as_os_str(), "-y".as_ref(), "b".as_ref(), "-o".as_ref(), png_path.as_os_str()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("(its outputs: a[1,2], say \"x\")"), "{stderr}");
    let o = flexfmu(&[
        "plot".as_ref(),
        csv.as_os_str(),
        "-y".as_ref(),
        "say \"x\"".as_ref(),
        "-o".as_ref(),
        png_path.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A CSV that starts with a UTF-8 byte-order mark (as Excel writes one) plots as the same file
/// without it (a probe's was refused: its first name was read with the mark).
#[test]
fn a_csv_with_a_byte_order_mark_plots() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("bom.csv");
    std::fs::write(&csv, "\u{feff}time,x\n0,1\n1,2\n").unwrap();
    let png_path = dir.path().join("bom.png");
    let o = flexfmu(&["plot".as_ref(), csv.as_os_str(), "-o".as_ref(), png_path.as_os_str()]);
    assert!(o.status.success() && png_path.exists(), "{}", String::from_utf8_lossy(&o.stderr));
}
