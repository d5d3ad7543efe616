//! `Number`'s deserialization: what `#[serde(untagged)]` on `enum Number { Value(f64),
//! Expr(String) }` does, with the same results, errors and error locations, without
//! buffering each value into serde's `Content` and trying it against each variant (a model
//! holds a number for nearly every key).
//!
//! The derive reads the value with a visitor that accepts anything ("any value"; 128-bit
//! integers are its only refusal, here with a message of our own) and then takes an integer
//! or float as `Value` (`as f64`), a string as `Expr`, and reports anything else as matching
//! no variant. The error is made after the deserializer returns, so the deserializer of the
//! enclosing value locates it.

use super::schema::Number;
use serde::de::{self, Deserialize, Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// The error for a value that is neither a number nor a string; the derive said "data did not
/// match any variant of untagged enum Number" (a probe's `mass = true`).
const NOT_A_NUMBER: &str = "expected a number or an expression in quotes (such as \"2*L\")";

/// The error for an integer beyond TOML's 64-bit range (which the toml crate reads as 128-bit);
/// the derive said "invalid type: integer `...` as i128, expected any value" (a probe's
/// 24-digit mass).
pub(super) fn too_large(v: impl fmt::Display) -> String {
    format!("the integer {v} is beyond TOML's 64-bit integer range; write it as a float (such as 1e23)")
}

/// What the value was, as far as `Number` cares.
enum Raw {
    Value(f64),
    Expr(String),
    Other,
}

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match d.deserialize_any(RawVisitor)? {
            Raw::Value(v) => Ok(Number::Value(v)),
            Raw::Expr(s) => Ok(Number::Expr(s)),
            Raw::Other => Err(de::Error::custom(NOT_A_NUMBER)),
        }
    }
}

/// "any value", as serde's content visitor: it accepts what that accepts (and refuses
/// 128-bit integers, which it does not take); lists and tables are read through, their
/// elements by the same visitor, and match no variant.
struct RawVisitor;

impl<'de> de::DeserializeSeed<'de> for RawVisitor {
    type Value = Raw;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Raw, D::Error> {
        d.deserialize_any(RawVisitor)
    }
}

impl<'de> Visitor<'de> for RawVisitor {
    type Value = Raw;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Raw, E> {
        Ok(Raw::Other)
    }
    fn visit_i8<E: de::Error>(self, v: i8) -> Result<Raw, E> {
        Ok(Raw::Value(v as f64))
    }
    fn visit_i16<E: de::Error>(self, v: i16) -> Result<Raw, E> {
        Ok(Raw::Value(v as f64))
    }
    fn visit_i32<E: de::Error>(self, v: i32) -> Result<Raw, E> {
        Ok(Raw::Value(v as f64))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Raw, E> {
        Ok(Raw::Value(v as f64))
    }
    fn visit_u8<E: de::Error>(self, v: u8) -> Result<Raw, E> {
        Ok(Raw::Value(v as f64))
    }
    fn visit_u16<E: de::Error>(self, v: u16) -> Result<Raw, E> {
        Ok(Raw::Value(v as f64))
    }
    fn visit_u32<E: de::Error>(self, v: u32) -> Result<Raw, E> {
        Ok(Raw::Value(v as f64))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Raw, E> {
        Ok(Raw::Value(v as f64))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Raw, E> {
        Err(E::custom(too_large(v)))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Raw, E> {
        Err(E::custom(too_large(v)))
    }
    fn visit_f32<E: de::Error>(self, v: f32) -> Result<Raw, E> {
        Ok(Raw::Value(v as f64))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Raw, E> {
        Ok(Raw::Value(v))
    }
    fn visit_char<E: de::Error>(self, v: char) -> Result<Raw, E> {
        Ok(Raw::Expr(v.to_string()))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Raw, E> {
        Ok(Raw::Expr(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Raw, E> {
        Ok(Raw::Expr(v))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Raw, E> {
        Ok(std::str::from_utf8(v).map_or(Raw::Other, |s| Raw::Expr(s.to_string())))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Raw, E> {
        Ok(Raw::Other)
    }
    fn visit_none<E: de::Error>(self) -> Result<Raw, E> {
        Ok(Raw::Other)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Raw, D::Error> {
        d.deserialize_any(RawVisitor)?;
        Ok(Raw::Other)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Raw, D::Error> {
        d.deserialize_any(RawVisitor)?;
        Ok(Raw::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Raw, A::Error> {
        while seq.next_element_seed(RawVisitor)?.is_some() {}
        Ok(Raw::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Raw, A::Error> {
        while map.next_entry_seed(RawVisitor, RawVisitor)?.is_some() {}
        Ok(Raw::Other)
    }
    fn visit_enum<A: EnumAccess<'de>>(self, _: A) -> Result<Raw, A::Error> {
        Err(de::Error::custom("untagged and internally tagged enums do not support enum input"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use toml::Spanned;

    /// The derive this replaces (named alike: its errors name it).
    mod derived {
        #[derive(Debug, serde::Deserialize)]
        #[serde(untagged)]
        pub enum Number {
            Value(f64),
            Expr(String),
        }
    }
    use derived::Number as Untagged;

    fn same(a: &Untagged, b: &Number) -> bool {
        match (a, b) {
            (Untagged::Value(x), Number::Value(y)) => x.to_bits() == y.to_bits(),
            (Untagged::Expr(x), Number::Expr(y)) => x == y,
            _ => false,
        }
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct With<N> {
        a: Spanned<N>,
        b: Option<Spanned<N>>,
        v: Option<Spanned<Vec<N>>>,
        w: Option<Vec<N>>,
        m: Option<Vec<Vec<N>>>,
    }

    fn outcome<N: for<'de> Deserialize<'de> + fmt::Debug>(
        text: &str,
    ) -> Result<With<N>, (String, Option<std::ops::Range<usize>>)> {
        toml::from_str::<With<N>>(text).map_err(|e| (e.message().to_string(), e.span()))
    }

    #[test]
    fn matches_the_untagged_derive_in_values_errors_and_locations() {
        let values = [
            "1.5",
            "-2",
            "0",
            "1e300",
            "inf",
            "-nan",
            "0x10",
            "0o17",
            "0b101",
            "9223372036854775807",
            "-9223372036854775808",
            "99999999999999999999",
            "340282366920938463463374607431768211456",
            "\"a + b\"",
            "'lit'",
            "\"\"",
            "\"\"\"multi\nline\"\"\"",
            "true",
            "false",
            "1979-05-27T07:32:00Z",
            "1979-05-27",
            "07:32:00",
            "[]",
            "[1, 2]",
            "[\"x\", 2.5]",
            "[true]",
            "[[1], [2, 3]]",
            "[99999999999999999999]",
            "[340282366920938463463374607431768211456]",
            "{}",
            "{ x = 1 }",
            "{ x = [1, { y = true }] }",
            "{ x = 99999999999999999999 }",
            "[1979-05-27]",
        ];
        let mut checked = 0;
        for v in values {
            for text in [
                format!("a = {v}\n"),
                format!("a = 1\nb = {v}\n"),
                format!("a = 1\nv = [1, {v}]\n"),
                format!("a = 1\nw = [{v}, 2]\n"),
                format!("a = 1\nm = [[1], [{v}]]\n"),
                format!("[a]\nx = {v}\n"),
                format!("a = {v}\nzz = 1\n"),
            ] {
                let old = outcome::<Untagged>(&text);
                let new = outcome::<Number>(&text);
                match (&old, &new) {
                    (Ok(o), Ok(n)) => {
                        assert_eq!(o.a.span(), n.a.span(), "{text}");
                        assert!(same(o.a.get_ref(), n.a.get_ref()), "{text}: {o:?} vs {n:?}");
                        let (ob, nb) = (
                            o.b.as_ref().map(|b| (b.span(), b.get_ref())),
                            n.b.as_ref().map(|b| (b.span(), b.get_ref())),
                        );
                        assert_eq!(ob.is_some(), nb.is_some(), "{text}");
                        if let (Some((os, ov)), Some((ns, nv))) = (ob, nb) {
                            assert_eq!(os, ns, "{text}");
                            assert!(same(ov, nv), "{text}");
                        }
                        let ov: Vec<&Untagged> =
                            o.v.iter()
                                .flat_map(|v| v.get_ref())
                                .chain(o.w.iter().flatten())
                                .chain(o.m.iter().flatten().flatten())
                                .collect();
                        let nv: Vec<&Number> =
                            n.v.iter()
                                .flat_map(|v| v.get_ref())
                                .chain(n.w.iter().flatten())
                                .chain(n.m.iter().flatten().flatten())
                                .collect();
                        assert_eq!(ov.len(), nv.len(), "{text}");
                        assert!(ov.iter().zip(&nv).all(|(a, b)| same(a, b)), "{text}");
                    }
                    (Err(o), Err(n)) => {
                        let mut derived =
                            o.0.replace("data did not match any variant of untagged enum Number", NOT_A_NUMBER);
                        if let Some(i) = derived.strip_prefix("invalid type: integer `") {
                            derived = too_large(i.trim_end_matches("` as i128, expected any value"));
                        }
                        assert_eq!((derived, o.1.clone()), n.clone(), "{text}")
                    }
                    _ => panic!("{text}: {old:?} vs {new:?}"),
                }
                checked += 1;
            }
        }
        assert_eq!(checked, values.len() * 7);
    }
}
