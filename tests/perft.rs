//! Perft counts pinned in tests/data/perft.txt (computed by the independent
//! reference tools/perft_ref.py), and a live comparison with that script
//! on cheap cases.

use millbase::Rules;
use millbase::parse_position;
use millbase::perft;
use std::process::Command;

fn cases() -> Vec<(String, String, u32, u64)> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/perft.txt"))
            .unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('|').map(str::trim).collect();
            (
                f[0].to_string(),
                f[1].to_string(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
            )
        })
        .collect()
}

/// Counts above this take seconds each: they run with `--ignored`.
const LARGE: u64 = 50_000_000;

#[test]
fn pinned_counts() {
    let cases: Vec<_> = cases().into_iter().filter(|c| c.3 <= LARGE).collect();
    assert!(cases.len() >= 20);
    pinned(cases);
}

/// The deep counts (minutes: `cargo test --release --test perft --
/// --ignored`).
#[test]
#[ignore]
fn pinned_large_counts() {
    pinned(cases().into_iter().filter(|c| c.3 > LARGE).collect());
}

fn pinned(cases: Vec<(String, String, u32, u64)>) {
    for (spec, pos, depth, expected) in cases {
        let rules: Rules = spec.parse().unwrap();
        let p = parse_position(&pos, &rules).unwrap().position;
        assert_eq!(
            perft(&p, &rules, depth),
            expected,
            "{spec} | {pos} | {depth}"
        );
    }
}

#[test]
fn reference_script_agrees_live() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tools/perft_ref.py");
    for (spec, pos, depth, expected) in cases().into_iter().filter(|c| c.3 < 20_000) {
        let mut cmd = Command::new("python3");
        cmd.arg(script)
            .args(["--depth", &depth.to_string(), "--rules", &spec]);
        if pos != "start" {
            cmd.arg(&pos);
        }
        let out = cmd.output().expect("python3 runs the reference perft");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let last = String::from_utf8_lossy(&out.stdout)
            .lines()
            .last()
            .unwrap_or("")
            .to_string();
        assert_eq!(
            last,
            expected.to_string(),
            "reference: {spec} | {pos} | {depth}"
        );
    }
}
