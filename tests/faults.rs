//! Faults during a build and in the tables: a build killed (SIGKILL) at
//! random moments of each kind of phase resumes to the bytes of an
//! uninterrupted build; a write error (a file size limit, as a full disk
//! does) gives a clear error, leaves no partial table as a real one, and
//! the rerun resumes; every flipped bit and every truncation of a table is
//! refused, or changes no value.

use crate::common;

use millbase::TableFile;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn millbase() -> Command {
    Command::new(env!("CARGO_BIN_EXE_millbase"))
}

/// Every table file under `db` (all folders), by relative name, with its
/// bytes; and whether any temporary file is left.
fn tables(db: &Path) -> (Vec<(String, Vec<u8>)>, Vec<String>) {
    let mut out = Vec::new();
    let mut temporary = Vec::new();
    for folder in std::fs::read_dir(db).unwrap() {
        let folder = folder.unwrap().path();
        if !folder.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&folder).unwrap() {
            let p = f.unwrap().path();
            let name = p.strip_prefix(db).unwrap().display().to_string();
            match p.extension().and_then(|e| e.to_str()) {
                Some("mbt") => out.push((name, std::fs::read(&p).unwrap())),
                Some("tmp") => temporary.push(name),
                _ => {}
            }
        }
    }
    out.sort();
    (out, temporary)
}

fn build(db: &Path, rules: &str) -> std::process::Output {
    millbase()
        .args(["build", "--rules", rules, "--db", db.to_str().unwrap()])
        .output()
        .unwrap()
}

/// Builds killed at random moments, 20 times for each kind of phase, then
/// run again: the same bytes as an uninterrupted build.
#[test]
fn builds_killed_at_random_moments_resume_to_the_same_bytes() {
    let mut rng = common::Rng(0x6b69_6c6c);
    // The moving and placing phases, Lasker's cyclic placing phase, the
    // N-move rule's pass (with the pure pass before it): small games, so
    // that 20 kills each stay quick.
    for rules in [
        "standard,stones=3",
        "lasker,stones=3",
        "six,stones=4,nmove=10",
    ] {
        let reference = common::TempDir::new(&format!("faults-ref-{rules}"));
        let start = Instant::now();
        assert!(build(&reference, rules).status.success());
        let whole = start.elapsed();
        let (want, _) = tables(&reference);
        assert!(!want.is_empty());
        for i in 0..20 {
            let db = common::TempDir::new(&format!("faults-{rules}-{i}"));
            let mut child = millbase()
                .args(["build", "--rules", rules, "--db", db.to_str().unwrap()])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            // Anywhere in the build (a few kills land after its end).
            let at = whole.mul_f64(rng.below(1100) as f64 / 1000.0);
            std::thread::sleep(at);
            let _ = child.kill();
            child.wait().unwrap();
            let again = build(&db, rules);
            assert!(
                again.status.success(),
                "{rules}, killed after {at:?}: {}",
                String::from_utf8_lossy(&again.stderr)
            );
            let (got, temporary) = tables(&db);
            assert!(temporary.is_empty(), "{rules}: {temporary:?} left");
            assert_eq!(got.len(), want.len(), "{rules}, killed after {at:?}");
            for ((n1, b1), (n2, b2)) in got.iter().zip(&want) {
                assert_eq!(n1, n2);
                assert!(b1 == b2, "{rules}: {n1} differs after a kill at {at:?}");
            }
        }
    }
}

/// A file size limit makes every write past it fail, as a full disk does.
#[test]
fn a_write_error_is_clear_and_the_rerun_resumes() {
    let rules = "standard,stones=4";
    let reference = common::shared_db(rules);
    let db = common::TempDir::new("faults-full");
    // Past 8 KB a write fails (EFBIG): the small tables are written, the
    // large ones cannot be.
    let limit = 8_000u64;
    let mut cmd = millbase();
    cmd.args(["build", "--rules", rules, "--db", db.to_str().unwrap()]);
    // SAFETY: between fork and exec only async-signal-safe calls are made
    // (setrlimit and signal).
    unsafe {
        cmd.pre_exec(move || {
            let r = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &r) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("table") && err.contains(".mbt"),
        "names the table: {err}"
    );
    assert!(
        err.contains("File too large") || err.contains("os error 27"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    // Every table left is whole: it opens and passes its checksums.
    let (left, temporary) = tables(&db);
    assert!(
        temporary.is_empty(),
        "no temporary file left: {temporary:?}"
    );
    for (name, _) in &left {
        let t = TableFile::open_any(&db.join(name)).unwrap();
        t.verify().unwrap();
    }
    // The rerun (no limit) finishes with the bytes of an uninterrupted build.
    let again = build(&db, rules);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let (got, temporary) = tables(&db);
    assert!(temporary.is_empty(), "{temporary:?}");
    let (want, _) = tables(reference);
    let want: Vec<_> = want
        .into_iter()
        .filter(|(n, _)| n.starts_with("standard/"))
        .collect();
    assert_eq!(got.len(), want.len());
    assert!(got == want, "the same bytes as an uninterrupted build");
}

/// A copy of `three`'s tables in a folder of its own.
fn three_copy(tag: &str) -> (common::TempDir, Vec<PathBuf>) {
    let src = common::shared_db("three");
    let db = common::TempDir::new(tag);
    std::fs::create_dir_all(db.join("three")).unwrap();
    let mut files = Vec::new();
    for f in std::fs::read_dir(src.join("three")).unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_some_and(|e| e == "mbt") {
            let to = db.join("three").join(p.file_name().unwrap());
            std::fs::copy(&p, &to).unwrap();
            files.push(to);
        }
    }
    files.sort();
    (db, files)
}

/// Every single bit of every table of three men's morris flipped, and every
/// truncation: the reader refuses the file, naming it, or (for the few bits
/// no value depends on) reads exactly the values of the sound table.
#[test]
fn every_flipped_bit_and_every_truncation_is_refused() {
    let (db, files) = three_copy("faults-bits");
    let mut refused = 0;
    let mut harmless = 0;
    // The smallest and the largest table (every bit of each).
    let by_size = |p: &PathBuf| std::fs::metadata(p).unwrap().len();
    let small = files.iter().min_by_key(|p| by_size(p)).unwrap().clone();
    let large = files.iter().max_by_key(|p| by_size(p)).unwrap().clone();
    for path in [&small, &large] {
        let sound = std::fs::read(path).unwrap();
        let values = TableFile::open_any(path).unwrap().decode().unwrap();
        let name = path.file_name().unwrap().to_str().unwrap();
        let check = |bytes: &[u8], what: &str| -> bool {
            std::fs::write(path, bytes).unwrap();
            let result = TableFile::open_any(path).and_then(|t| {
                t.verify()?;
                t.decode()
            });
            match result {
                Err(e) => {
                    assert!(e.to_string().contains(name), "{what}: {e}");
                    true
                }
                Ok(t) => {
                    for slot in 0..values.len() {
                        assert_eq!(t.value(slot), values.value(slot), "{name}, {what}");
                    }
                    false
                }
            }
        };
        for bit in 0..sound.len() * 8 {
            let mut b = sound.clone();
            b[bit / 8] ^= 1 << (bit % 8);
            if check(&b, &format!("bit {bit}")) {
                refused += 1;
            } else {
                harmless += 1;
            }
        }
        for len in 0..sound.len() {
            assert!(
                check(&sound[..len], &format!("{len} bytes")),
                "{name} cut to {len}"
            );
        }
        std::fs::write(path, &sound).unwrap();
    }
    // The harmless bits are the block index's padding, 8 bytes a block.
    assert!(
        refused > 20 * harmless,
        "{refused} refused, {harmless} harmless"
    );
    // Through the command line and the server: the file named, exit 1 and
    // HTTP 500, never a value.
    let path = &files[files.len() - 1];
    let mut b = std::fs::read(path).unwrap();
    let at = b.len() - 3;
    b[at] ^= 0x10;
    std::fs::write(path, &b).unwrap();
    let name = path.file_name().unwrap().to_str().unwrap();
    let d = db.to_str().unwrap();
    let out = millbase()
        .args(["check", "--rules", "three", "--db", d])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(name)
            || String::from_utf8_lossy(&out.stdout).contains(name)
    );
    let server = millbase::spawn(
        millbase::ServeOptions::new(&db),
        "127.0.0.1:0".parse().unwrap(),
    )
    .unwrap();
    // Positions of that table's stone counts: query every reachable one
    // until the damaged block is read.
    let mut saw_500 = false;
    let deadline = Instant::now() + Duration::from_secs(60);
    let rules: millbase::Rules = "three".parse().unwrap();
    let mut rng = common::Rng(3);
    while !saw_500 && Instant::now() < deadline {
        let p = common::random_position(&mut rng, &rules);
        let r = http_get(server.addr, &p.board_string(&rules));
        assert!(r.0 == 200 || r.0 == 400 || r.0 == 500, "{}", r.1);
        if r.0 == 500 {
            assert!(r.1.contains(name), "{}", r.1);
            saw_500 = true;
        }
    }
    assert!(saw_500, "no query read the damaged block");
    server.stop().unwrap();
}

fn http_get(addr: std::net::SocketAddr, position: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    let q: String = position
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    write!(
        s,
        "GET /api/v1/query?rules=three&position={q} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let status = text[9..12].parse().unwrap();
    (status, text)
}

/// A header that claims blocks of billions of slots is refused at once,
/// before a reader allocates a block.
#[test]
fn a_header_claiming_huge_blocks_is_refused() {
    let (_db, files) = three_copy("faults-huge");
    let path = &files[0];
    let mut b = std::fs::read(path).unwrap();
    // Slots (a u64 at byte 24) and slots a block (a u32 at 32): one block
    // of 2^31 slots, checksums made to match.
    b[24..32].copy_from_slice(&(1u64 << 31).to_le_bytes());
    b[32..36].copy_from_slice(&(1u32 << 31).to_le_bytes());
    assert!(millbase::reseal(&mut b));
    std::fs::write(path, &b).unwrap();
    let Err(e) = TableFile::open_any(path) else {
        panic!("a block of 2^31 slots was accepted");
    };
    let e = e.to_string();
    assert!(e.contains("block count") && e.contains(".mbt"), "{e}");
}
