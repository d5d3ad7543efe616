//! The repository stands on its own: every relative link in README.md and docs/*.md resolves
//! to a file or directory of the repository, and nothing points outside it.

use std::path::{Path, PathBuf};

fn markdown_files(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![root.join("README.md")];
    let mut dirs = vec![root.join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "md") {
                files.push(p);
            }
        }
    }
    files
}

/// Targets of inline links `[text](target)` and images `![alt](target)`, outside code spans.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        // Drop inline code spans.
        let line: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = line.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let end = after.find(')').unwrap_or(after.len());
            out.push(after[..end].split_whitespace().next().unwrap_or("").to_string());
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn every_relative_link_in_readme_and_docs_resolves_inside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).canonicalize().unwrap();
    let mut checked = 0;
    let mut broken = Vec::new();
    for file in markdown_files(&root) {
        let text = std::fs::read_to_string(&file).unwrap();
        for target in link_targets(&text) {
            if target.is_empty() || target.starts_with('#') || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let path = target.split('#').next().unwrap();
            let resolved = file.parent().unwrap().join(path);
            checked += 1;
            match resolved.canonicalize() {
                Ok(p) if p.starts_with(&root) => {}
                Ok(p) => broken.push(format!("{}: {target} leaves the repository ({})", file.display(), p.display())),
                Err(_) => broken.push(format!("{}: {target} does not exist", file.display())),
            }
        }
        for needle in ["../shared", "DESIGN.md", "the project's issues"] {
            if text.contains(needle) {
                broken.push(format!("{}: mentions {needle:?}, which a clone does not have", file.display()));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
    assert!(checked > 0, "no relative links found: the parser is broken");
}

#[test]
fn the_link_parser_finds_links_and_skips_code() {
    let text =
        "see [a](docs/a.md) and ![img](img/x.png#frag)\n`[no](skip.md)`\n```\n[no](skip2.md)\n```\n[u](https://x.y)";
    assert_eq!(link_targets(text), ["docs/a.md", "img/x.png#frag", "https://x.y"]);
}
