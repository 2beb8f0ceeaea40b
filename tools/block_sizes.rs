//! Experiment for issue 15 (probe speed against table size): for one
//! moving-phase table of the standard board, the compressed size of its
//! win/draw/loss fields and of its decisive slots' halved depths (format
//! 3, layout 2) at two block sizes and several zstd levels, and the time
//! to decompress a block of each (the part of a probe that grows with the
//! block).
//!
//! It also times the compression of the win/draw/loss fields at several
//! levels (the part of a build's table writing that grows with the level).
//!
//! `cargo run --release --example block_sizes -- DB SUBSPACE [RULES]`

use millbase::Rules;
use millbase::index::Subspace;
use millbase::solve::value::{DRAW, UNUSED};
use millbase::table::TableFolder;
use std::time::Instant;

/// The 2-bit field of a code and, for a win or loss, its halved depth.
fn split(code: u16) -> (u8, Option<u8>) {
    match code {
        DRAW => (0, None),
        UNUSED => (3, None),
        c => (if c % 2 == 0 { 1 } else { 2 }, Some(((c - 1) / 2) as u8)),
    }
}

/// Microseconds per decompression of `frames` (compressed, raw length).
fn decompress_time(frames: &[(Vec<u8>, usize)]) -> f64 {
    let mut d = zstd::bulk::Decompressor::new().expect("zstd");
    let t = Instant::now();
    for (f, n) in frames {
        d.decompress(f, *n).expect("decompresses");
    }
    t.elapsed().as_secs_f64() * 1e6 / frames.len().max(1) as f64
}

/// The 2-bit fields of a block of codes, four to a byte.
fn pack_fields(block: &[u16]) -> Vec<u8> {
    let mut f = vec![0u8; block.len().div_ceil(4)];
    for (i, &c) in block.iter().enumerate() {
        f[i / 4] |= split(c).0 << (2 * (i % 4));
    }
    f
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !(2..=3).contains(&args.len()) {
        eprintln!("usage: block_sizes DB SUBSPACE [RULES]");
        std::process::exit(2);
    }
    let rules: Rules = match args.get(2) {
        Some(r) => r.parse().unwrap_or_else(|e| panic!("{e}")),
        None => Rules::STANDARD,
    };
    let folder = TableFolder::new(std::path::Path::new(&args[0]), &rules);
    let s: Subspace = args[1].parse().unwrap_or_else(|e| panic!("{e}"));
    let table = folder.load(s).unwrap_or_else(|e| panic!("{e}"));
    let codes: Vec<u16> = (0..table.len()).map(|i| table.code(i)).collect();
    for bits in [13u32, 14] {
        for (wdl_level, halves_level) in [(3, 3), (3, 1), (15, 1)] {
            let (mut wdl_bytes, mut halves_bytes) = (0, 0);
            let (mut wdl_frames, mut halves_frames) = (Vec::new(), Vec::new());
            for block in codes.chunks(1 << bits) {
                let fields = pack_fields(block);
                let halves: Vec<u8> = block.iter().filter_map(|&c| split(c).1).collect();
                let w = zstd::bulk::compress(&fields, wdl_level).expect("zstd");
                let h = zstd::bulk::compress(&halves, halves_level).expect("zstd");
                wdl_bytes += w.len();
                halves_bytes += h.len();
                // Enough blocks to time, few enough to stay in memory.
                if wdl_frames.len() < 20_000 {
                    wdl_frames.push((w, fields.len()));
                    halves_frames.push((h, halves.len()));
                }
            }
            println!(
                "{s}, {} slots a block: fields at level {wdl_level} {wdl_bytes} bytes \
                 ({:.1} us a block), halved depths at level {halves_level} {halves_bytes} bytes \
                 ({:.1} us a block)",
                1u32 << bits,
                decompress_time(&wdl_frames),
                decompress_time(&halves_frames)
            );
        }
    }
    // Writing: the win/draw/loss fields of 8,192-slot blocks, one reused
    // context (`table::format::write` makes one a block, a little slower).
    let fields: Vec<Vec<u8>> = codes.chunks(1 << 13).map(pack_fields).collect();
    let raw: usize = fields.iter().map(Vec::len).sum();
    for level in [3, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15] {
        let mut c = zstd::bulk::Compressor::new(level).expect("zstd");
        let t = Instant::now();
        let bytes: usize = fields
            .iter()
            .map(|f| c.compress(f).expect("zstd").len())
            .sum();
        let secs = t.elapsed().as_secs_f64();
        println!(
            "{s}, fields at level {level}: {bytes} bytes, compressed at {:.1} MB/s of raw fields",
            raw as f64 / secs / 1e6
        );
    }
}
