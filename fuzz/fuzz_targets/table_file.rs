//! Any bytes as a table file: an error naming the file or a table, never a
//! panic, a hang or a huge allocation. With the first byte odd, every
//! checksum is recomputed first, so that the changes reach the decoder.
#![no_main]
use libfuzzer_sys::fuzz_target;
use millbase::{TableFile, reseal};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut bytes = rest.to_vec();
    if mode & 1 == 1 {
        reseal(&mut bytes);
    }
    let path = std::env::temp_dir().join(format!("millbase-fuzz-{}.mbt", std::process::id()));
    std::fs::write(&path, &bytes).unwrap();
    if let Ok(t) = TableFile::open_any(&path) {
        let _ = t.verify();
        let info = t.info();
        // A whole decode allocates the slots; a real table may be large,
        // a fuzzed header is not allowed to make that the fuzzer's problem.
        if info.slots <= 1 << 22 {
            if let Ok(table) = t.decode() {
                for slot in 0..table.len().min(4096) {
                    let _ = table.value(slot);
                }
            }
        }
        for block in 0..info.blocks.min(64) {
            if let Ok(w) = t.wdl_block(block) {
                let _ = w.wdl(0);
            }
            let _ = t.code_block(block);
        }
    }
});
