//! `fmuResourceLocation` of fmi2Instantiate: a `file:` URI (`file:///abs`, `file:/abs`,
//! `file://localhost/abs`, with or without a trailing slash, percent-encoded). The text is
//! the importer's and may hold any characters: it is split at matched prefixes and
//! separators only, never at computed byte positions.

use std::path::PathBuf;

pub fn resource_path(uri: &str) -> Result<PathBuf, String> {
    let bad = || format!("unsupported resource location '{uri}' (expected a file: URI with an absolute path)");
    let scheme = uri.get(..5).filter(|s| s.eq_ignore_ascii_case("file:")).ok_or_else(bad)?;
    let rest = uri.strip_prefix(scheme).ok_or_else(bad)?;
    let path = match rest.strip_prefix("//") {
        Some(after) => {
            let (authority, _) = after.split_once('/').ok_or_else(bad)?;
            if !(authority.is_empty() || authority.eq_ignore_ascii_case("localhost")) {
                return Err(format!("resource location '{uri}' names a remote host '{authority}'"));
            }
            after.strip_prefix(authority).ok_or_else(bad)?
        }
        None => rest,
    };
    if !path.starts_with('/') {
        return Err(bad());
    }
    let decoded = percent_encoding::percent_decode_str(path).decode_utf8().map_err(|_| bad())?;
    Ok(PathBuf::from(decoded.into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_uris() {
        let p = |s: &str| resource_path(s).map(|p| p.display().to_string());
        assert_eq!(p("file:///tmp/a b/resources").unwrap(), "/tmp/a b/resources");
        assert_eq!(p("file:///tmp/a%20b/resources/").unwrap(), "/tmp/a b/resources/");
        assert_eq!(p("file:/tmp/x").unwrap(), "/tmp/x");
        assert_eq!(p("file://localhost/tmp/x").unwrap(), "/tmp/x");
        assert_eq!(p("FILE:///tmp/x").unwrap(), "/tmp/x");
        assert!(p("file://host/tmp/x").is_err());
        assert!(p("http://x/y").is_err());
        assert!(p("file:relative").is_err());
        assert!(p("").is_err());
    }

    #[test]
    fn non_ascii_text_is_refused_not_split() {
        for uri in ["abcdé", "é", "fileé", "filé:///x", "file://hé/x", "file:///tmp/é"] {
            let _ = resource_path(uri);
        }
        assert!(resource_path("abcdé").is_err());
        assert_eq!(resource_path("file:///tmp/é").unwrap().display().to_string(), "/tmp/é");
    }
}
