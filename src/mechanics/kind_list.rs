//! How the unknown-type messages of the kind tables (`SPRING_TYPES`, `CONTACT_TYPES`,
//! `JOINT_TYPES`, `LOAD_TYPES`) list the known names: "a, b or c".

/// "a", "a or b", "a, b or c" with `last_word` ("or", "and") before the last name.
pub fn listing<S: AsRef<str>>(names: &[S], last_word: &str) -> String {
    match names.split_last() {
        Some((last, [])) => last.as_ref().to_string(),
        Some((last, rest)) => {
            let rest: Vec<&str> = rest.iter().map(AsRef::as_ref).collect();
            format!("{} {last_word} {}", rest.join(", "), last.as_ref())
        }
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn lists_like_prose() {
        assert_eq!(super::listing::<&str>(&[], "or"), "");
        assert_eq!(super::listing(&["force"], "or"), "force");
        assert_eq!(super::listing(&["force", "torque"], "or"), "force or torque");
        assert_eq!(super::listing(&["a", "b", "c"], "and"), "a, b and c");
    }
}
