//! `DriveDecl`'s deserialization: `drive = expression` (a number or a string) as
//! `DriveDecl::One`, or a table `drive = { name = expression, ... }` by coordinate name as
//! `DriveDecl::Each`, each key and value with its span (the joint's assembler checks the names
//! against its type's coordinates, src/mechanics/joints/mod.rs).

use super::schema::{DriveDecl, Name, Num, Number};
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use std::fmt;
use toml::Spanned;

enum Value {
    One(Number),
    Each(Vec<(Name, Num)>),
}

impl<'de> Deserialize<'de> for DriveDecl {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Spanned::<Value>::deserialize(d)?;
        let span = value.span();
        Ok(match value.into_inner() {
            Value::One(n) => DriveDecl::One(Spanned::new(span, n)),
            Value::Each(e) => DriveDecl::Each(Spanned::new(span, e)),
        })
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number, an expression, or a table of them by coordinate name")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::One(Number::Value(v as f64)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::One(Number::Value(v as f64)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::One(Number::Value(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::One(Number::Expr(v.to_string())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::One(Number::Expr(v)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut each = Vec::new();
        while let Some(entry) = map.next_entry::<Name, Num>()? {
            each.push(entry);
        }
        Ok(Value::Each(each))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    struct Joint {
        drive: DriveDecl,
    }

    /// An expression, a number and a table keep their spans; another value is refused.
    #[test]
    fn one_expression_or_a_table_by_coordinate() {
        let text = "drive = \"2*t\"";
        let j: Joint = toml::from_str(text).unwrap();
        assert_eq!(j.drive, DriveDecl::One(Spanned::new(8..13, Number::Expr("2*t".into()))));
        let j: Joint = toml::from_str("drive = 3").unwrap();
        assert!(matches!(j.drive, DriveDecl::One(n) if *n.get_ref() == Number::Value(3.0)));
        let text = "drive = { slide = \"0.1*t\", angle = 2.5 }";
        let j: Joint = toml::from_str(text).unwrap();
        let DriveDecl::Each(e) = &j.drive else { panic!("{:?}", j.drive) };
        assert_eq!(&text[e.span()], "{ slide = \"0.1*t\", angle = 2.5 }");
        let names: Vec<_> = e.get_ref().iter().map(|(k, v)| (&text[k.span()], &text[v.span()])).collect();
        assert_eq!(names, [("slide", "\"0.1*t\""), ("angle", "2.5")]);
        let err = toml::from_str::<Joint>("drive = true").err().unwrap().to_string();
        assert!(err.contains("a table of them by coordinate name"), "{err}");
    }
}
