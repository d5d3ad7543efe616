//! The font of plot text, embedded so that plots render the same with no system fonts:
//! DejaVu Sans (Bitstream Vera licence, DejaVu changes public domain; assets/fonts/LICENSE-DejaVu.txt),
//! taken from Debian's fonts-dejavu-core 2.37.

use std::sync::Once;

use plotters::style::FontStyle;

/// The family name plot text asks for.
pub const FAMILY: &str = "sans-serif";

const DEJAVU_SANS: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// Make [`FAMILY`] available to plotters (once per process).
pub fn register() {
    static REGISTERED: Once = Once::new();
    REGISTERED.call_once(|| {
        if plotters::style::register_font(FAMILY, FontStyle::Normal, DEJAVU_SANS).is_err() {
            panic!("the embedded DejaVu Sans font does not parse");
        }
    });
}
