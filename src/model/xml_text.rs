//! Text that modelDescription.xml can carry. Names, descriptions, units and string-parameter
//! choices are written into XML attributes, and XML 1.0 has no way to write most control
//! characters (not even as `&#1;`): a file with one is refused by every importer. TOML
//! escapes (`"\u0001"`) can produce them, so every string and key of a model file is checked
//! here, and the error points at it.

use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// Whether XML 1.0 can carry `c` (production `Char`: tab, newline, carriage return, and
/// everything from U+0020 except U+FFFE and U+FFFF; Rust strings hold no surrogates).
pub fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || (c >= ' ' && c != '\u{FFFE}' && c != '\u{FFFF}')
}

/// The first string or key of the TOML document `source` holding a character XML 1.0
/// cannot carry: its span and the character. None if there is none (or if `source` is not
/// TOML; its parser reports that).
pub fn first_non_xml_text(source: &str) -> Option<(Range<usize>, char)> {
    if !may_hold_non_xml_text(source) {
        return None;
    }
    let document = DeTable::parse(source).ok()?;
    in_table(document.get_ref())
}

/// Whether a string or key of `source` can hold a character XML 1.0 cannot carry: a parsed
/// string holds the source's own characters and those of its escapes, and only the escapes
/// `\b`, `\f`, `\e`, `\x`, `\u` and `\U` (TOML 1.0 and 1.1) can stand for such a character.
/// So a source whose characters are all XML characters and that has none of these escapes
/// (nor a backslash followed by them, which may be an escaped backslash: then the document is
/// parsed and looked at) holds none, and is not parsed a second time.
///
/// One pass over the UTF-8 bytes: the characters below U+0020 are single bytes, and U+FFFE
/// and U+FFFF are the only other non-XML characters, encoded EF BF BE and EF BF BF.
fn may_hold_non_xml_text(source: &str) -> bool {
    let bytes = source.as_bytes();
    let suspect = |b: u8| (b < b' ' && b != b'\n' && b != b'\t' && b != b'\r') || b == b'\\' || b == 0xEF;
    let hit = |i: usize| match bytes[i] {
        b'\\' => matches!(bytes.get(i + 1), Some(b'b' | b'f' | b'e' | b'x' | b'u' | b'U')),
        0xEF => bytes.get(i + 1) == Some(&0xBF) && matches!(bytes.get(i + 2), Some(0xBE | 0xBF)),
        b'\t' | b'\n' | b'\r' => false,
        b => b < b' ',
    };
    // Blocks without a suspect byte (most of a model file) are passed over by a branch-free
    // test per block.
    const BLOCK: usize = 64;
    bytes.chunks(BLOCK).enumerate().any(|(k, block)| {
        block.iter().fold(false, |any, &b| any | suspect(b))
            && (0..block.len()).any(|j| suspect(block[j]) && hit(k * BLOCK + j))
    })
}

fn in_table(table: &DeTable<'_>) -> Option<(Range<usize>, char)> {
    table.iter().find_map(|(key, value)| in_text(key.get_ref(), key.span()).or_else(|| in_value(value)))
}

/// The nesting of the document is bounded by the TOML parser's own recursion limit.
fn in_value(value: &Spanned<DeValue<'_>>) -> Option<(Range<usize>, char)> {
    match value.get_ref() {
        DeValue::String(s) => in_text(s, value.span()),
        DeValue::Array(items) => items.iter().find_map(in_value),
        DeValue::Table(table) => in_table(table),
        _ => None,
    }
}

fn in_text(text: &str, span: Range<usize>) -> Option<(Range<usize>, char)> {
    text.chars().find(|c| !is_xml_char(*c)).map(|c| (span, c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_found_with_their_place() {
        assert_eq!(first_non_xml_text("a = \"tab\\tnewline\\n\"\nb = [\"\\r\"]"), None);
        let source = "[model]\nname = \"x\"\n[p]\nq = { unit = \"m\", description = \"a\\u0001b\" }\n";
        let (span, c) = first_non_xml_text(source).unwrap();
        assert_eq!(c, '\u{1}');
        assert_eq!(&source[span], "\"a\\u0001b\"");
        let (span, c) = first_non_xml_text("x = [[\"ok\", \"\\u0000\"]]").unwrap();
        assert_eq!((span.start, c), (12, '\0'));
        assert!(first_non_xml_text("\"k\\u001f\" = 1").is_some());
        assert!(first_non_xml_text("k = \"\\uFFFF\"").is_some());
        assert!(!is_xml_char('\u{FFFE}') && is_xml_char('\u{7F}') && is_xml_char('é'));
        // Escapes that stand for control characters, and raw ones, are looked at.
        assert_eq!(first_non_xml_text("k = \"a\\bc\"").map(|(_, c)| c), Some('\u{8}'));
        assert_eq!(first_non_xml_text("k = \"a\\fc\"").map(|(_, c)| c), Some('\u{c}'));
        assert!(first_non_xml_text("k = \"\u{FFFF}\"").is_some());
        assert!(first_non_xml_text("k = 'C:\\path\\b'").is_none());
        assert!(!may_hold_non_xml_text("k = \"tab\\t\\n\\r\\\"\\\\\""));
        // The byte scan agrees with the characters: U+FFFD (EF BF BD) and U+FEFF are XML text.
        assert!(!may_hold_non_xml_text("k = \"\u{FFFD}\u{FEFF}\u{7F}\t\""));
        assert!(may_hold_non_xml_text("k = \"\u{FFFE}\"") && may_hold_non_xml_text("k = \"\u{1F}\""));
    }
}
