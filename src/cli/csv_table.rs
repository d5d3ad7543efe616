//! A CSV written by `flexfmu simulate` (or by an importer: FMPy quotes its header, RFC 4180)
//! read back: the header's column names and the rows of numbers, with errors located by file
//! and line.

use std::borrow::Cow;
use std::path::Path;

use anyhow::{Context, Result, bail};

/// The columns of a results file: `time` first, then one per output.
pub struct CsvTable {
    /// Column names from the header, `time` included.
    pub names: Vec<String>,
    /// One vector per column, all of the same length.
    pub columns: Vec<Vec<f64>>,
}

/// The fields of one CSV line, trimmed, a quoted field ("a,b", "say ""x""") without its quotes
/// (RFC 4180): FMPy's `write_csv` quotes every name of its header, which was read as a
/// header without a 'time' column (a probe). A line without quotes is split in place.
fn fields(line: &str) -> Vec<Cow<'_, str>> {
    if !line.contains('"') {
        return line.split(',').map(|c| Cow::Borrowed(c.trim())).collect();
    }
    let (mut fields, mut field, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            '"' if quoted || field.trim().is_empty() => quoted = !quoted,
            ',' if !quoted => fields.push(Cow::Owned(std::mem::take(&mut field).trim().to_string())),
            c => field.push(c),
        }
    }
    fields.push(Cow::Owned(field.trim().to_string()));
    fields
}

impl CsvTable {
    /// Read `path`; every cell after the header must be a number, and the first column's
    /// (time) must not decrease.
    pub fn read(path: &Path) -> Result<CsvTable> {
        let text = flexfmu::limits::read_text_bounded(path, flexfmu::limits::MAX_DATA_FILE_BYTES, "CSV file")
            .map_err(anyhow::Error::msg)?;
        // A byte-order mark (Excel's UTF-8 CSV) is no part of the first name.
        let mut lines = text.strip_prefix('\u{feff}').unwrap_or(&text).lines();
        let header = lines.next().with_context(|| format!("{}: empty file, expected a header", path.display()))?;
        let names: Vec<String> = fields(header).into_iter().map(Cow::into_owned).collect();
        let mut columns = vec![Vec::<f64>::new(); names.len()];
        for (i, line) in lines.enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let cells = fields(line);
            if cells.len() != names.len() {
                bail!("{}:{}: {} cells, the header has {}", path.display(), i + 2, cells.len(), names.len());
            }
            for (k, (column, (cell, name))) in columns.iter_mut().zip(cells.iter().zip(&names)).enumerate() {
                let value = cell.trim().parse::<f64>().with_context(|| {
                    format!("{}:{}: column '{name}': '{}' is not a number", path.display(), i + 2, cell.trim())
                })?;
                // The first column is time (a probe's file whose times go back was plotted);
                // non-finite cells are left out of the curves (`plot`).
                let finite_before = || column.iter().rev().find(|b| b.is_finite());
                if let Some(&before) = (k == 0).then(finite_before).flatten().filter(|&&before| value < before) {
                    bail!(
                        "{}:{}: time {} is before the row above's {before}: times must not decrease",
                        path.display(),
                        i + 2,
                        cell.trim()
                    );
                }
                column.push(value);
            }
        }
        Ok(CsvTable { names, columns })
    }

    /// The column called `name`.
    pub fn column(&self, name: &str) -> Option<&[f64]> {
        self.names.iter().position(|n| n == name).map(|i| self.columns[i].as_slice())
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, Vec::len)
    }
}
