//! Every relative link in the repository's Markdown points at a file that exists, and a link to a
//! heading (`#each-presets-defaults`, in the same file or another Markdown file) at a heading that
//! exists, named as GitHub names it. A moved file or a renamed heading fails here instead of
//! leaving a reader at a dead end.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate is in the workspace")
        .to_path_buf()
}

/// Every Markdown file of the repository, but what builds and installs leave (target,
/// node_modules) and hidden folders.
fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if !name.starts_with('.') && name != "target" && name != "node_modules" {
                markdown_files(&path, out);
            }
        } else if name.ends_with(".md") {
            out.push(path);
        }
    }
}

/// The text outside fenced code blocks and code spans, line by line: a link in code is not a link.
fn prose_lines(text: &str) -> Vec<(usize, String)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Code spans: every other piece between backticks.
        let prose: String = line
            .split('`')
            .enumerate()
            .filter(|(n, _)| n % 2 == 0)
            .map(|(_, piece)| piece)
            .collect::<Vec<_>>()
            .join("");
        out.push((i + 1, prose));
    }
    out
}

/// The destinations of a line's links: `[text](dest)`, `![alt](dest)`, and `[label]: dest`.
fn destinations(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else { break };
        out.push(after[..end].to_owned());
        rest = &after[end..];
    }
    let trimmed = line.trim_start();
    if trimmed.starts_with('[') {
        if let Some((_, dest)) = trimmed.split_once("]: ") {
            out.push(dest.to_owned());
        }
    }
    out.into_iter()
        .map(|dest| {
            // Angle brackets around the destination (which may then hold spaces), or a title after
            // it, are not the path.
            match dest.strip_prefix('<') {
                Some(bracketed) => bracketed.split('>').next().unwrap_or("").to_owned(),
                None => dest.split_whitespace().next().unwrap_or("").to_owned(),
            }
        })
        .filter(|dest| !dest.is_empty())
        .collect()
}

/// GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown file's headings (a repeated one also as `-1`, `-2`, …).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let base = anchor(line.trim_start_matches('#').replace('`', "").as_str());
        let mut name = base.clone();
        let mut n = 0;
        while out.contains(&name) {
            n += 1;
            name = format!("{base}-{n}");
        }
        out.insert(name);
    }
    out
}

/// What is wrong with one destination written in `file`, if anything.
fn check(root: &Path, file: &Path, text: &str, dest: &str) -> Option<String> {
    if dest.contains("://") || dest.starts_with("mailto:") {
        return None;
    }
    let (path, fragment) = match dest.split_once('#') {
        Some((path, fragment)) => (path, Some(fragment)),
        None => (dest, None),
    };
    let path = path.split('?').next().unwrap_or("");
    let target = if path.is_empty() {
        file.to_path_buf()
    } else if let Some(from_root) = path.strip_prefix('/') {
        root.join(from_root)
    } else {
        file.parent().expect("a file has a folder").join(path)
    };
    let Ok(target) = target.canonicalize() else {
        return Some(format!("{dest}: no such file"));
    };
    if !target.starts_with(root) {
        return Some(format!("{dest}: outside the repository"));
    }
    let fragment = fragment.filter(|f| !f.is_empty())?;
    if target.extension().and_then(|e| e.to_str()) != Some("md") {
        // A line of a source file (`#L10`) is not checked.
        return None;
    }
    let heads = if target == file.canonicalize().ok()? {
        anchors(text)
    } else {
        anchors(&std::fs::read_to_string(&target).ok()?)
    };
    (!heads.contains(fragment)).then(|| format!("{dest}: no heading #{fragment} there"))
}

#[test]
fn every_relative_link_in_the_markdown_points_at_something_that_exists() {
    let root = root().canonicalize().unwrap();
    let mut files = Vec::new();
    markdown_files(&root, &mut files);
    for known in ["README.md", "protocol/README.md", "server/README.md"] {
        assert!(
            files.contains(&root.join(known)),
            "{known} is among {files:?}"
        );
    }
    let mut broken = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (line, prose) in prose_lines(&text) {
            for dest in destinations(&prose) {
                if let Some(why) = check(&root, file, &text, &dest) {
                    let name = file.strip_prefix(&root).unwrap_or(file).display();
                    broken.push(format!("{name}:{line}: {why}"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_checks_catch_what_they_should() {
    assert_eq!(anchor("Each preset's defaults"), "each-presets-defaults");
    assert_eq!(
        anchor("`GET /api/rooms/<id>`: a room's public state"),
        "get-apiroomsid-a-rooms-public-state"
    );
    let prose = prose_lines("see [a](x.md#y) and ![b](<p q.png>) or `[c](no.md)` and [d](z \"t\")");
    assert_eq!(destinations(&prose[0].1), vec!["x.md#y", "p q.png", "z"]);
    assert!(prose_lines("```\n[e](no.md)\n```\n").is_empty());
    let heads = anchors("# A\n## A\n```\n# not a heading\n```\n### B c\n");
    assert_eq!(
        heads,
        BTreeSet::from(["a".into(), "a-1".into(), "b-c".into()])
    );
    let root = root().canonicalize().unwrap();
    let readme = root.join("README.md");
    assert!(check(&root, &readme, "", "missing.md").is_some());
    assert!(check(&root, &readme, "", "../outside.md").is_some());
    assert!(check(&root, &readme, "# Here\n", "#here").is_none());
    assert!(check(&root, &readme, "# Here\n", "#there").is_some());
    assert!(check(&root, &readme, "", "https://example.org/x.md").is_none());
}
