//! Import of matrices written by another finite-element code in the Matrix Market exchange
//! format (coordinate or array, real or integer, general or symmetric — the forms FE codes
//! export M, C, K in), for users who condense or assemble outside flexfmu (issue 8). Parsing is
//! nalgebra-sparse's; this module only turns the result into the dense matrices the structural
//! layer works with, summing duplicate entries and checking what the caller expects.

use std::path::Path;

use nalgebra::DMatrix;
use nalgebra_sparse::CooMatrix;
use nalgebra_sparse::io::{load_coo_from_matrix_market_file, load_coo_from_matrix_market_str};

use super::StructuralError;

/// A square matrix from Matrix Market text; `name` appears in errors.
pub fn parse_square(text: &str, name: &str) -> Result<DMatrix<f64>, StructuralError> {
    let coo = load_coo_from_matrix_market_str::<f64>(text)
        .map_err(|e| StructuralError::InvalidParameter(format!("{name}: {e}")))?;
    square(&coo, name)
}

/// A square matrix from a Matrix Market file.
pub fn read_square(path: &Path) -> Result<DMatrix<f64>, StructuralError> {
    let name = path.display().to_string();
    let coo = load_coo_from_matrix_market_file::<f64, _>(path)
        .map_err(|e| StructuralError::InvalidParameter(format!("{name}: {e}")))?;
    square(&coo, &name)
}

fn square(coo: &CooMatrix<f64>, name: &str) -> Result<DMatrix<f64>, StructuralError> {
    if coo.nrows() != coo.ncols() {
        return Err(StructuralError::InvalidParameter(format!(
            "{name}: matrix is {}x{}, expected a square matrix",
            coo.nrows(),
            coo.ncols()
        )));
    }
    let mut dense = DMatrix::zeros(coo.nrows(), coo.ncols());
    for (i, j, &v) in coo.triplet_iter() {
        if !v.is_finite() {
            return Err(StructuralError::InvalidParameter(format!("{name}: entry ({}, {}) is {v}", i + 1, j + 1)));
        }
        dense[(i, j)] += v;
    }
    Ok(dense)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::structural::beam_fe;

    /// Writes a dense matrix in the symmetric coordinate form (lower triangle), as FE codes do.
    fn write_symmetric(m: &DMatrix<f64>) -> String {
        let entries: Vec<_> = (0..m.ncols())
            .flat_map(|j| (j..m.nrows()).map(move |i| (i, j)))
            .filter(|&(i, j)| m[(i, j)] != 0.0)
            .collect();
        let mut text = format!(
            "%%MatrixMarket matrix coordinate real symmetric\n% written by a test\n{} {} {}\n",
            m.nrows(),
            m.ncols(),
            entries.len()
        );
        for (i, j) in entries {
            text += &format!("{} {} {:e}\n", i + 1, j + 1, m[(i, j)]);
        }
        text
    }

    #[test]
    fn symmetric_coordinate_file_round_trips_a_beam_stiffness() {
        let (m, k) = beam_fe::cantilever_beam(1e7, 0.015 * 0.01f64.powi(3) / 12.0, 5540.0 * 0.015 * 0.01, 1.2, 6);
        for (name, a) in [("M", &m), ("K", &k)] {
            let text = write_symmetric(a);
            let back = parse_square(&text, name).unwrap();
            let err = (&back - a).amax() / a.amax();
            println!("{name}: {}x{}, max relative round-trip error {err:.1e}", a.nrows(), a.ncols());
            assert!(err < 1e-15, "{name}: {err}");
            // Symmetric storage mirrors the lower triangle.
            assert_eq!(back, back.transpose());
        }
    }

    #[test]
    fn general_array_and_duplicates() {
        let array = "%%MatrixMarket matrix array real general\n2 2\n1\n3\n2\n4\n";
        assert_eq!(parse_square(array, "A").unwrap(), DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 3.0, 4.0]));
        // Duplicate coordinate entries are summed (element contributions written unassembled).
        let dup = "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1.5\n1 1 2.5\n2 1 -1\n";
        assert_eq!(parse_square(dup, "B").unwrap(), DMatrix::from_row_slice(2, 2, &[4.0, 0.0, -1.0, 0.0]));
    }

    #[test]
    fn bad_files_are_errors() {
        let cases = [
            ("%%MatrixMarket matrix coordinate real general\n2 3 1\n1 1 1\n", "expected a square matrix"),
            ("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n", "A:"),
            ("not a matrix market file\n", "A:"),
            ("%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n", "A:"),
        ];
        for (text, expected) in cases {
            let err = parse_square(text, "A").unwrap_err().to_string();
            println!("{err}");
            assert!(err.contains(expected), "{err}");
        }
        assert!(read_square(Path::new("/nonexistent/K.mtx")).unwrap_err().to_string().contains("/nonexistent/K.mtx"));
    }
}
