//! Every reachable position of small games against tools/values_ref.py,
//! an independent value solver written from docs/RULES.md alone (explicit state
//! graph, plain retrograde analysis): value, plies and every move's value,
//! at every counter under the N-move rule.

use std::process::Command;

fn agree(rules: &str, extra: &[&str]) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tools/values_ref.py");
    let scratch = std::env::temp_dir().join(format!(
        "millbase-values-ref-{}-{}",
        std::process::id(),
        rules.replace([',', '=', '/'], "_")
    ));
    let db = scratch.join("db");
    let out = Command::new("python3")
        .arg(script)
        .args([
            "--rules",
            rules,
            "--compare",
            "--bin",
            env!("CARGO_BIN_EXE_millbase"),
        ])
        .arg("--db")
        .arg(&db)
        .arg("--scratch")
        .arg(&scratch)
        .args(extra)
        .output()
        .expect("python3 runs the reference solver");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(out.status.success(), "{rules}:\n{text}");
    assert!(text.contains("reachable states"), "{rules}:\n{text}");
}

#[test]
fn three_mens_morris_and_its_options() {
    for rules in [
        "three",
        "three,stones=5/4,full-board=draw",
        "three,flying=3",
        "three,lasker=on",
        "three,stones=4,mill=removes,protection=none",
    ] {
        agree(rules, &[]);
    }
}

#[test]
fn three_mens_morris_under_the_n_move_rule() {
    agree("three,nmove=6", &["--all-counters"]);
    agree("three,stones=4,mill=removes,nmove=6", &["--all-counters"]);
}
