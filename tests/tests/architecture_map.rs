//! The map of the server's paths (`server/ARCHITECTURE.md`) names only files and functions that
//! exist: a rename or a removal that leaves the map behind fails here.

use std::path::{Path, PathBuf};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the repository")
        .to_path_buf()
}

/// The numbered steps of the map, each as one string, and the section each is in.
fn steps(map: &str) -> Vec<(String, String)> {
    let mut steps = Vec::new();
    let mut section = String::new();
    for line in map.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            section = title.to_owned();
            continue;
        }
        let starts_step = line
            .split_once(". ")
            .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if starts_step && !section.is_empty() {
            steps.push((section.clone(), line.to_owned()));
        } else if line.starts_with("   ") {
            if let Some((_, step)) = steps.last_mut() {
                step.push(' ');
                step.push_str(line.trim());
            }
        }
    }
    steps
}

/// Whether `name` is defined in `source`, a file of the kind `extension` names: a Rust `fn`, or a
/// JavaScript function, method or function-valued property.
fn defines(source: &str, extension: &str, name: &str) -> bool {
    match extension {
        "rs" => [format!("fn {name}("), format!("fn {name}<")]
            .iter()
            .any(|pattern| source.contains(pattern.as_str())),
        "js" | "mjs" => source.lines().map(str::trim).any(|line| {
            line.contains(&format!("function {name}("))
                || line.starts_with(&format!("{name}("))
                || line.starts_with(&format!("async {name}("))
                || line.starts_with(&format!("{name}: "))
        }),
        _ => source.contains(name),
    }
}

/// What is wrong with the names of one step, given the file the step before ended in.
fn check_step(step: &str, file: &mut Option<PathBuf>, names: &mut usize) -> Vec<String> {
    let mut problems = Vec::new();
    for (i, token) in step.split('`').enumerate() {
        // Odd pieces are inside backticks; commands and examples (with spaces) are not names.
        if i % 2 == 0 || token.is_empty() || token.contains(' ') {
            continue;
        }
        *names += 1;
        if token.contains('/') {
            let path = root().join(token);
            if token.ends_with('/') {
                if !path.is_dir() {
                    problems.push(format!("no folder {token}"));
                }
            } else if path.is_file() {
                *file = Some(path);
            } else {
                problems.push(format!("no file {token}"));
                *file = None;
            }
            continue;
        }
        let Some(path) = file.as_ref() else {
            problems.push(format!("{token} is named before any file"));
            continue;
        };
        let source = std::fs::read_to_string(path).unwrap();
        let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        // Types, variants and field paths are looked for as written; functions as defined.
        let is_function = token.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && token.starts_with(|c: char| c.is_ascii_lowercase());
        let found = if is_function {
            defines(&source, extension, token)
        } else {
            source.contains(token)
        };
        if !found {
            problems.push(format!("{token} is not in {}", path.display()));
        }
    }
    problems
}

#[test]
fn every_file_and_function_the_map_names_exists() {
    let map = std::fs::read_to_string(root().join("server/ARCHITECTURE.md")).unwrap();
    let steps = steps(&map);
    let mut sections: Vec<&str> = steps.iter().map(|(s, _)| s.as_str()).collect();
    sections.dedup();
    assert_eq!(sections.len(), 6, "six paths: {sections:?}");
    let mut names = 0;
    let mut problems = Vec::new();
    let mut file = None;
    let mut section = "";
    for (step_section, step) in &steps {
        if step_section != section {
            section = step_section;
            file = None;
        }
        for problem in check_step(step, &mut file, &mut names) {
            problems.push(format!("{section}: {problem}"));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(names > 100, "the map names {names} things");
}

#[test]
fn a_name_that_is_gone_is_caught() {
    let mut names = 0;
    let mut file = None;
    let problems = check_step(
        "`server/src/room/task/play.rs` `play_move` `play_moves_backwards` `server/src/nowhere.rs`",
        &mut file,
        &mut names,
    );
    assert_eq!(names, 4);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains("play_moves_backwards"));
    assert!(problems[1].contains("nowhere.rs"));
    // A JavaScript method is found by its definition, not by a call.
    let js = "class A {\n  request(msg) {\n    this.send(msg);\n  }\n}\n";
    assert!(defines(js, "js", "request"));
    assert!(!defines(js, "js", "send"));
}
