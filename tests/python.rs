//! The Python bindings (`python/`, `pyproject.toml`): installs the package
//! into a folder of `target/` with pip (PyO3 through maturin, without
//! touching the Python environment) and runs the pytest tests of
//! `tests/python/` against this build's `millbase` binary. Without Python,
//! maturin or pytest it says "skipped" unless `MILLBASE_REQUIRE_PYTHON` is
//! set (`.ci/run` sets it and installs them).

use std::path::Path;
use std::process::Command;

/// Whether `python3 -c "import MODULE"` works.
fn has_module(module: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn the_python_package_passes_its_tests() {
    let missing: Vec<&str> = ["maturin", "pytest", "numpy"]
        .into_iter()
        .filter(|m| !has_module(m))
        .collect();
    if !missing.is_empty() {
        assert!(
            std::env::var_os("MILLBASE_REQUIRE_PYTHON").is_none(),
            "python3 with {missing:?} is required (pip install maturin pytest numpy)"
        );
        eprintln!("skipped: python3 with {missing:?} not found");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let site = root.join("target").join("python-site");
    let _ = std::fs::remove_dir_all(&site);
    let install = Command::new("python3")
        .args(["-m", "pip", "install", "--quiet", "--no-deps"])
        .args(["--no-build-isolation", "--target"])
        .arg(&site)
        .arg(root)
        .output()
        .unwrap();
    assert!(
        install.status.success(),
        "pip install failed:\n{}\n{}",
        String::from_utf8_lossy(&install.stdout),
        String::from_utf8_lossy(&install.stderr)
    );
    let pytest = Command::new("python3")
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(root.join("tests").join("python"))
        .env("PYTHONPATH", &site)
        .env("MILLBASE_BIN", env!("CARGO_BIN_EXE_millbase"))
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&pytest.stdout);
    println!("{out}");
    assert!(
        pytest.status.success(),
        "pytest failed:\n{out}\n{}",
        String::from_utf8_lossy(&pytest.stderr)
    );
}

/// The Python crate's lock file pins the crates it shares with the main
/// crate at the same versions, so that both compile the same library (the
/// same zstd above all: tables built from Python must be the command
/// line's bytes).
#[test]
fn the_python_crate_uses_the_main_crate_s_versions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let versions = |path: &Path| -> std::collections::HashMap<String, String> {
        let text = std::fs::read_to_string(path).unwrap();
        let mut out = std::collections::HashMap::new();
        let mut name = None;
        for line in text.lines() {
            if let Some(n) = line.strip_prefix("name = ") {
                name = Some(n.trim_matches('"').to_string());
            } else if let (Some(v), Some(n)) = (line.strip_prefix("version = "), name.take()) {
                out.insert(n, v.trim_matches('"').to_string());
            }
        }
        out
    };
    let main = versions(&root.join("Cargo.lock"));
    let python = versions(&root.join("python").join("Cargo.lock"));
    let differ: Vec<String> = python
        .iter()
        .filter_map(|(n, v)| {
            let m = main.get(n)?;
            (m != v).then(|| format!("{n} {m} (main) / {v} (python)"))
        })
        .collect();
    assert!(
        differ.is_empty(),
        "copy Cargo.lock into python/ and build there again: {differ:?}"
    );
}
