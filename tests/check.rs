//! `check` (forward verification), `info`, and tables of other format versions.

use crate::common;

use millbase::Rules;
use millbase::Subspace;
use millbase::TableFolder;
use millbase::{UNUSED, Value};
use std::path::Path;
use std::process::Output;

use common::run as millbase;

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn fresh_db(name: &str, rules: &str, subspaces: &str) -> common::TempDir {
    let dir = common::TempDir::new(&format!("check-{name}"));
    let out = millbase(&[
        "build",
        "--rules",
        rules,
        "--db",
        dir.to_str().unwrap(),
        "--subspaces",
        subspaces,
    ]);
    assert!(out.status.success(), "{}", text(&out));
    dir
}

fn check(db: &Path, rules: &str) -> Output {
    millbase(&["check", "--rules", rules, "--db", db.to_str().unwrap()])
}

#[test]
fn check_passes_on_sound_tables_of_several_rule_sets() {
    for rules in [
        "standard,stones=4",
        "standard,stones=4,flying=off",
        "standard,stones=4,removals=2",
    ] {
        let db = fresh_db(&rules.replace([',', '='], "-"), rules, "4-4");
        let out = check(&db, rules);
        assert!(out.status.success(), "{rules}: {}", text(&out));
        let t = text(&out);
        assert!(
            t.contains("checked 4 tables") && t.contains("all consistent"),
            "{t}"
        );
    }
}

/// Rewrites one table with one slot's value changed (checksums stay valid,
/// so only the forward check can notice).
fn tamper(db: &Path, rules: &Rules, s: Subspace, pick: impl Fn(Value) -> Option<Value>) -> u64 {
    tamper_code(db, rules, s, 0, |c| {
        (c != UNUSED)
            .then(|| pick(Value::from_code(c).unwrap()))
            .flatten()
            .map(|v| v.code())
    })
}

/// Rewrites one table with the code of its first slot from `first` on
/// that `change` changes; that slot.
fn tamper_code(
    db: &Path,
    rules: &Rules,
    s: Subspace,
    first: u64,
    change: impl Fn(u16) -> Option<u16>,
) -> u64 {
    let table = common::load_table(db, rules, s);
    let mut codes: Vec<u16> = (0..table.len()).map(|i| table.code(i)).collect();
    let slot = (first..table.len())
        .find(|&i| change(codes[i as usize]).is_some())
        .expect("a slot to tamper with");
    codes[slot as usize] = change(codes[slot as usize]).unwrap();
    common::rewrite_table(db, rules, s, &codes);
    slot
}

/// A change of one stored value (`None`: not this slot).
type Change = Box<dyn Fn(Value) -> Option<Value>>;

/// A change of one slot's code (`None`: not this slot).
type CodeChange = fn(u16) -> Option<u16>;

/// `check` finds the tables inconsistent and names `slot`.
fn check_names(db: &Path, rules: &str, slot: u64, what: &str) {
    let out = check(db, rules);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{what}: {t}");
    assert!(t.contains("INCONSISTENT"), "{what}: {t}");
    assert!(t.contains(&format!("slot {slot} ")), "{what}: {t}");
}

#[test]
fn check_finds_a_wrong_value_a_wrong_depth_and_a_wrong_draw() {
    let rules: Rules = "standard,stones=4".parse().unwrap();
    let changes: Vec<(&str, Change)> = vec![
        (
            "win made a draw",
            Box::new(|v| matches!(v, Value::Win(_)).then_some(Value::Draw)),
        ),
        (
            "loss two plies longer",
            Box::new(|v| match v {
                Value::Loss(d) if d > 0 => Some(Value::Loss(d + 2)),
                _ => None,
            }),
        ),
        (
            "draw made a win",
            Box::new(|v| (v == Value::Draw).then_some(Value::Win(7))),
        ),
    ];
    for (what, change) in changes {
        let db = fresh_db("tamper", "standard,stones=4", "4-3");
        let slot = tamper(&db, &rules, Subspace::moving(4, 3), change);
        check_names(&db, "standard,stones=4", slot, what);
    }
}

#[test]
fn check_finds_a_value_in_an_unused_slot_and_a_position_marked_unused() {
    let rules: Rules = "standard,stones=4".parse().unwrap();
    let s = Subspace::moving(4, 3);
    let changes: [(&str, CodeChange); 2] = [
        ("a duplicate slot given a value", |c| {
            (c == UNUSED).then(|| Value::Draw.code())
        }),
        ("a position marked unused", |c| {
            (c != UNUSED).then_some(UNUSED)
        }),
    ];
    for (what, change) in changes {
        let db = fresh_db("unused", "standard,stones=4", "4-3");
        // A slot in the second half of the table, past its first blocks.
        let half = common::load_table(&db, &rules, s).len() / 2;
        let slot = tamper_code(&db, &rules, s, half, change);
        check_names(&db, "standard,stones=4", slot, what);
    }
}

#[test]
fn tables_checked_from_the_other_side_s_blocks_find_what_slot_order_finds() {
    // Rules whose moves capture differently (one or two removals a mill, a
    // removal per mill closed), moves on the board while placing, no
    // flying, and the N-move rule's cursed draws.
    let mut found = 0;
    for spec in [
        "standard,stones=4",
        "twelve,stones=4",
        "standard,stones=4,lasker=on",
        "standard,stones=4,removals=2",
        "twelve,stones=4,double-mill=per-mill",
        "standard,stones=4,flying=off",
        "standard,stones=4,nmove=20",
    ] {
        let rules: Rules = spec.parse().unwrap();
        let db = common::TempDir::new(&format!("orders-{}", spec.replace([',', '='], "-")));
        let out = millbase(&["build", "--rules", spec, "--db", db.to_str().unwrap()]);
        assert!(out.status.success(), "{}", text(&out));
        let folder = TableFolder::new(&db, &rules);
        let mut all = millbase::moving_subspaces(&rules);
        all.extend(millbase::placing_subspaces(&rules));
        // Damage at slots spread over each table, checked against sound
        // children: a value changed, a position marked unused, a
        // duplicate slot given a value.
        for (i, &s) in all.iter().enumerate() {
            let sound = common::load_table(&db, &rules, s);
            let codes: Vec<u16> = (0..sound.len())
                .map(|slot| {
                    let c = sound.code(slot);
                    match (slot % 47 == (i % 47) as u64, c == UNUSED, slot % 2 == 0) {
                        (false, _, _) => c,
                        (true, true, _) => 0,
                        (true, false, true) => UNUSED,
                        (true, false, false) => c ^ 1,
                    }
                })
                .collect();
            common::rewrite_table(&db, &rules, s, &codes);
            let by_them = millbase::check_subspaces(&folder, &[s], |_| {}).unwrap();
            let in_order = millbase::check_subspaces_in_slot_order(&folder, &[s], |_| {}).unwrap();
            let bad = |c: &[millbase::SubspaceCheck]| {
                let slots: Vec<u64> = c[0].first_bad.iter().map(|b| b.slot).collect();
                (c[0].bad, slots)
            };
            assert_eq!(bad(&by_them), bad(&in_order), "{spec} {s}");
            found += by_them[0].bad;
            let sound: Vec<u16> = (0..sound.len()).map(|slot| sound.code(slot)).collect();
            common::rewrite_table(&db, &rules, s, &sound);
        }
        // Sound again: both find nothing.
        let checks = millbase::check_subspaces(&folder, &all, |_| {}).unwrap();
        assert!(checks.iter().all(|c| c.bad == 0), "{spec}");
    }
    assert!(found > 1000, "{found}");
}

#[test]
fn check_and_info_report_a_damaged_block() {
    let db = fresh_db("damaged", "standard", "4-3");
    let info = millbase(&["info", "--db", db.to_str().unwrap()]);
    let t = text(&info);
    assert!(info.status.success(), "{t}");
    assert!(t.contains("3 tables, all checksums OK"), "{t}");
    assert!(t.contains("rules: board=standard,stones=9"), "{t}");

    // Flip a byte near the end of 3-4's file (the last code block).
    let path = db.join("standard").join("3-4.mbt");
    let mut bytes = std::fs::read(&path).unwrap();
    let i = bytes.len() - 10;
    bytes[i] ^= 0x10;
    std::fs::write(&path, bytes).unwrap();

    let info = millbase(&["info", "--db", db.to_str().unwrap()]);
    let t = text(&info);
    assert_eq!(info.status.code(), Some(1), "{t}");
    assert!(
        t.contains("DAMAGED") && t.contains("fails its checksum"),
        "{t}"
    );
    let out = check(&db, "standard");
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("3-4.mbt is corrupt"), "{t}");
    assert!(!t.contains("panicked"), "{t}");
}

#[test]
fn tables_of_another_format_version_are_refused_and_rebuilt() {
    let db = fresh_db("version", "standard", "4-3");
    let rules = Rules::STANDARD;
    let folder = TableFolder::new(&db, &rules);
    let s: Subspace = "4-3".parse().unwrap();
    let path = folder.path(s);
    let before = std::fs::read(&path).unwrap();
    // Format 1 (development only, never published): the version field says 1.
    let mut old = before.clone();
    old[8..12].copy_from_slice(&1u32.to_le_bytes());
    std::fs::write(&path, &old).unwrap();
    let q = millbase(&[
        "query",
        "--db",
        db.to_str().unwrap(),
        "WWWW..../......../.BBB.... w 0 0",
    ]);
    assert_eq!(q.status.code(), Some(1));
    assert!(text(&q).contains("format version 1"), "{}", text(&q));
    let out = millbase(&["build", "--db", db.to_str().unwrap(), "--subspaces", "4-3"]);
    let t = text(&out);
    assert!(out.status.success() && t.contains("built 1 pairs"), "{t}");
    assert!(
        std::fs::read(&path).unwrap() == before,
        "rebuilt bytes differ"
    );
}

/// `tests/data/format2/three`: the whole of three men's morris, built by
/// millbase 0.1, which wrote format 2.
#[test]
fn format_2_tables_read_as_the_same_values_as_format_3() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/format2");
    let db = common::TempDir::new("check-format3");
    let out = millbase(&["build", "--rules", "three", "--db", db.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let rules: Rules = "three".parse().unwrap();
    let (old, new) = (
        TableFolder::new(&fixture, &rules),
        TableFolder::new(&db, &rules),
    );
    let mut tables = 0;
    for entry in std::fs::read_dir(fixture.join("three")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(s) = name.strip_suffix(".mbt") else {
            continue;
        };
        let s: Subspace = s.parse().unwrap();
        let (a, b) = (old.open(s).unwrap(), new.open(s).unwrap());
        assert_eq!((a.info().version, b.info().version), (2, 3));
        let (a, b) = (old.load(s).unwrap(), new.load(s).unwrap());
        assert!(!a.is_empty() && a.len() == b.len());
        for slot in 0..a.len() {
            assert_eq!(a.code(slot), b.code(slot), "{s} slot {slot}");
        }
        tables += 1;
    }
    assert_eq!(tables, 7);
    let out = check(&fixture, "three");
    assert!(
        out.status.success() && text(&out).contains("all consistent"),
        "{}",
        text(&out)
    );
    let q = millbase(&[
        "query",
        "--rules",
        "three",
        "--db",
        fixture.to_str().unwrap(),
        "start",
    ]);
    assert!(text(&q).contains("win in 9"), "{}", text(&q));
    for (db, says) in [
        (fixture.as_path(), "format 2, every slot's code: 7 tables"),
        (
            db.path(),
            "format 3, decisive slots' halved depths: 7 tables",
        ),
    ] {
        let info = millbase(&["info", "--db", db.to_str().unwrap()]);
        assert!(text(&info).contains(says), "{}", text(&info));
    }
}

/// The line of `check`'s output about table `name`.
fn line_of<'t>(t: &'t str, name: &str) -> &'t str {
    t.lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no line for {name}: {t}"))
}

#[test]
fn a_resumed_check_skips_only_tables_found_consistent_against_the_same_tables() {
    let rules: Rules = "standard,stones=4".parse().unwrap();
    let db = fresh_db("resume", "standard,stones=4", "4-4");
    let d = db.to_str().unwrap();
    let resume = || {
        millbase(&[
            "check",
            "--rules",
            "standard,stones=4",
            "--db",
            d,
            "--resume",
        ])
    };

    let first = resume();
    let t = text(&first);
    assert!(first.status.success(), "{t}");
    assert!(
        t.contains("checked 4 tables") && !t.contains("earlier"),
        "{t}"
    );
    assert!(db.join("standard").join("checked.json").exists());

    let second = resume();
    let t = text(&second);
    assert!(second.status.success(), "{t}");
    assert!(t.contains("(4 tables in an earlier run)"), "{t}");
    for name in ["3-3", "4-3", "3-4", "4-4"] {
        assert!(line_of(&t, name).contains("consistent earlier"), "{t}");
    }
    // Without --resume the record is not read.
    let t = text(&check(&db, "standard,stones=4"));
    assert!(
        !t.contains("earlier") && t.contains("all consistent"),
        "{t}"
    );

    // 4-3 changed (its checksums valid): it and 3-4, whose quiet children
    // it holds, are checked again; 3-3, which reads neither, is not.
    tamper(&db, &rules, Subspace::moving(4, 3), |v| {
        matches!(v, Value::Win(_)).then_some(Value::Draw)
    });
    let third = resume();
    let t = text(&third);
    assert_eq!(third.status.code(), Some(1), "{t}");
    assert!(line_of(&t, "3-3").contains("consistent earlier"), "{t}");
    assert!(line_of(&t, "4-3").contains("INCONSISTENT"), "{t}");
    assert!(!line_of(&t, "3-4").contains("earlier"), "{t}");
    // The inconsistent table was not recorded.
    let t = text(&resume());
    assert!(line_of(&t, "4-3").contains("INCONSISTENT"), "{t}");

    // A record that is not one: a clear error, not a silent full check.
    std::fs::write(db.join("standard").join("checked.json"), "not json").unwrap();
    let out = resume();
    let t = text(&out);
    assert!(!out.status.success(), "{t}");
    assert!(
        t.contains("checked.json") && t.contains("remove it") && !t.contains("panicked"),
        "{t}"
    );
}
