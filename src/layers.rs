//! The modules' layers, bottom first, and a test that every module imports
//! only from layers below its own: data flows one way, and the checker
//! (`verify`) stays independent of the builders.

use std::path::Path;

/// The library's top-level modules, each above the ones before it.
const LAYERS: &[&str] = &[
    "color", "geometry", "memory", "error", "rules", "value", "position", "moves", "notation",
    "index", "cache", "table", "pack", "solve", "placing", "build", "query", "play", "answer",
    "verify", "engine", "render", "machine", "serve",
];

/// Modules the checker must not read: it checks what they made.
const BUILDERS: &[&str] = &["solve", "placing", "build"];

/// The imports of `module` (the top-level module of a source file, given
/// its text) that break the layers: a module above it, one not in
/// [`LAYERS`], or a builder imported by `verify`.
fn wrong_imports(module: &str, text: &str) -> Vec<String> {
    let rank = |m: &str| LAYERS.iter().position(|l| *l == m);
    let Some(own) = rank(module) else {
        return vec![format!("{module} is not in LAYERS")];
    };
    let mut wrong = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        for (at, _) in code.match_indices("crate::") {
            let rest = &code[at + "crate::".len()..];
            // `crate::{a::X, b}`: every path in the braces.
            let names: Vec<&str> = match rest.strip_prefix('{') {
                Some(list) => list
                    .split(',')
                    .map(|p| p.trim().split("::").next().unwrap_or(""))
                    .collect(),
                None => vec![
                    rest.split(|c: char| !c.is_alphanumeric() && c != '_')
                        .next()
                        .unwrap_or(""),
                ],
            };
            for name in names.into_iter().filter(|n| !n.is_empty() && *n != module) {
                let bad = match rank(name) {
                    None => true,
                    Some(r) => r > own || (module == "verify" && BUILDERS.contains(&name)),
                };
                if bad {
                    wrong.push(format!("{module} imports crate::{name}: {}", line.trim()));
                }
            }
        }
    }
    wrong
}

/// Every `.rs` file under `dir` with its top-level module.
fn sources(dir: &Path, module: Option<&str>, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let top = module.map_or(name.clone(), str::to_owned);
        if path.is_dir() {
            sources(&path, Some(&top), out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((top, std::fs::read_to_string(&path).unwrap()));
        }
    }
}

#[test]
fn modules_import_only_from_lower_layers() {
    let mut files = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        None,
        &mut files,
    );
    // `lib` declares the modules and `main` with `cli` is the binary,
    // which reads the library from outside.
    let wrong: Vec<String> = files
        .iter()
        .filter(|(m, _)| !["lib", "main", "cli", "layers"].contains(&m.as_str()))
        .flat_map(|(m, text)| wrong_imports(m, text))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(files.len() > 50, "{} files read", files.len());
}

#[test]
fn upward_and_unknown_imports_are_found() {
    assert!(wrong_imports("table", "use crate::index::Subspace;").is_empty());
    assert_eq!(
        wrong_imports("table", "use crate::solve::Progress;").len(),
        1
    );
    assert_eq!(
        wrong_imports("rules", "use crate::{geometry::Board, query::X};").len(),
        1
    );
    assert_eq!(
        wrong_imports("verify", "use crate::placing::solve_subspace;").len(),
        1
    );
    assert_eq!(
        wrong_imports("verify", "let v = crate::build::plan();").len(),
        1
    );
    assert_eq!(wrong_imports("serve", "use crate::Rules;").len(), 1);
    assert!(wrong_imports("serve", "// see crate::cli").is_empty());
    assert_eq!(wrong_imports("nowhere", "").len(), 1);
}
