//! `PlainNumber`: a value the model file takes as a number only, not as an expression (an
//! input's `start`, the rows of a load's `table`). Anything else is refused in the model file's
//! own words at its place: a string `"1+1"` had been "invalid type: string "1+1", expected
//! f64", the words of serde.

use serde::de::{self, Deserialize, Deserializer, Visitor};
use std::fmt;

/// A number written as a number (an integer is taken as the float it is).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PlainNumber(pub f64);

impl<'de> Deserialize<'de> for PlainNumber {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(PlainVisitor)
    }
}

struct PlainVisitor;

impl<'de> Visitor<'de> for PlainVisitor {
    type Value = PlainNumber;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<PlainNumber, E> {
        Ok(PlainNumber(v as f64))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<PlainNumber, E> {
        Ok(PlainNumber(v as f64))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<PlainNumber, E> {
        Ok(PlainNumber(v))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<PlainNumber, E> {
        Err(E::custom(super::number::too_large(v)))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<PlainNumber, E> {
        Err(E::custom(super::number::too_large(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<PlainNumber, E> {
        Err(E::custom(format!("expected a number, got the string \"{v}\": this value takes no expression")))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<PlainNumber, E> {
        Err(E::custom(format!("expected a number, got {v}")))
    }
}

/// An integer written as an integer (`dimension`, `max_iterations`): `2.0` and `"2"` are
/// refused in the model file's words (they read "invalid type: floating point `2.0`, expected
/// i64", serde's words).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlainInteger(pub i64);

impl<'de> Deserialize<'de> for PlainInteger {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(IntegerVisitor)
    }
}

struct IntegerVisitor;

impl<'de> Visitor<'de> for IntegerVisitor {
    type Value = PlainInteger;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an integer")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<PlainInteger, E> {
        Ok(PlainInteger(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<PlainInteger, E> {
        i64::try_from(v).map(PlainInteger).map_err(|_| E::custom(super::number::too_large(v)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<PlainInteger, E> {
        Err(E::custom(format!("expected an integer (no decimal point or exponent), got {v:?}")))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<PlainInteger, E> {
        Err(E::custom(super::number::too_large(v)))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<PlainInteger, E> {
        Err(E::custom(super::number::too_large(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<PlainInteger, E> {
        Err(E::custom(format!("expected an integer, got the string \"{v}\": this value takes no expression")))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<PlainInteger, E> {
        Err(E::custom(format!("expected an integer, got {v}")))
    }
}

#[cfg(test)]
mod tests {
    use super::{PlainInteger, PlainNumber};

    #[derive(Debug, serde::Deserialize)]
    struct With {
        a: PlainNumber,
    }

    fn message(text: &str) -> String {
        toml::from_str::<With>(text).unwrap_err().message().to_string()
    }

    #[test]
    fn numbers_are_taken_and_anything_else_is_refused_in_our_words() {
        assert_eq!(toml::from_str::<With>("a = 2").unwrap().a, PlainNumber(2.0));
        assert_eq!(toml::from_str::<With>("a = -1.5e3").unwrap().a, PlainNumber(-1500.0));
        assert!(toml::from_str::<With>("a = nan").unwrap().a.0.is_nan());
        assert_eq!(message("a = \"1+1\""), "expected a number, got the string \"1+1\": this value takes no expression");
        assert_eq!(message("a = true"), "expected a number, got true");
        assert!(message("a = 99999999999999999999").contains("beyond TOML's 64-bit integer range"));
        assert_eq!(message("a = [1]"), "invalid type: sequence, expected a number");
    }

    #[derive(Debug, serde::Deserialize)]
    struct WithInteger {
        k: PlainInteger,
    }

    fn integer_message(text: &str) -> String {
        toml::from_str::<WithInteger>(text).unwrap_err().message().to_string()
    }

    #[test]
    fn integers_are_taken_and_anything_else_is_refused_in_our_words() {
        assert_eq!(toml::from_str::<WithInteger>("k = 3").unwrap().k, PlainInteger(3));
        assert_eq!(toml::from_str::<WithInteger>("k = -2").unwrap().k, PlainInteger(-2));
        assert_eq!(integer_message("k = 2.5"), "expected an integer (no decimal point or exponent), got 2.5");
        assert_eq!(integer_message("k = 2.0"), "expected an integer (no decimal point or exponent), got 2.0");
        assert_eq!(
            integer_message("k = \"x\""),
            "expected an integer, got the string \"x\": this value takes no expression"
        );
        assert_eq!(integer_message("k = true"), "expected an integer, got true");
        assert!(integer_message("k = 99999999999999999999").contains("beyond TOML's 64-bit integer range"));
    }
}
