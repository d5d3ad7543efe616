//! How the commands write a number into a CSV file (`simulate` and `statics` results, the
//! `sweep` table): 17 significant digits in exponent form, so that it reads back to the same
//! double, and a zero without a sign (a negative zero had been written `-0.00000000000000000e0`,
//! such as the angular velocity of a pendulum released at rest).

/// `v` as a CSV cell.
pub fn csv_number(v: f64) -> String {
    // -0.0 == 0.0: both are written as the zero they are.
    let v = if v == 0.0 { 0.0 } else { v };
    format!("{v:.17e}")
}

#[cfg(test)]
mod tests {
    use super::csv_number;

    #[test]
    fn zeros_have_no_sign_and_other_numbers_read_back_exactly() {
        assert_eq!(csv_number(-0.0), "0.00000000000000000e0");
        assert_eq!(csv_number(0.0), "0.00000000000000000e0");
        for v in [-0.127_419_996_813_190_88, 1e-300, -5e-324, f64::MAX, 0.1 + 0.2] {
            assert_eq!(csv_number(v).parse::<f64>().unwrap().to_bits(), v.to_bits(), "{v}");
        }
        assert_eq!(csv_number(-1.5), "-1.50000000000000000e0");
    }
}
