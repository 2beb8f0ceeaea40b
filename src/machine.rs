//! The machine figure: how fast this machine does random read-modify-writes
//! of single bytes spread over far more memory than any cache, with every
//! thread. Retrograde analysis is bound by exactly this (every predecessor
//! visit updates a byte or two somewhere in gigabytes), so a build's rate
//! divided by this figure compares runs on different machines.

use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// Bytes of the array the figure is measured on (1 GiB).
pub const ARRAY_BYTES: usize = 1 << 30;

/// The measured figure and what it was measured on.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MachineFigure {
    /// Random 1-byte read-modify-writes per second, all threads together.
    pub updates_per_second: f64,
    /// Threads used.
    pub threads: usize,
    /// Bytes of the array.
    pub array_bytes: usize,
    /// Seconds of measuring (after filling the array).
    pub seconds: f64,
    /// The processor (`model name` of /proc/cpuinfo), if known.
    pub cpu_model: Option<String>,
    /// The caches, e.g. `L1d 32 KiB, L2 1 MiB, L3 32 MiB`, if known.
    pub caches: Option<String>,
}

impl MachineFigure {
    /// A one-line description: the rate, then the processor and caches.
    pub fn describe(&self) -> String {
        format!(
            "{:.1} M random byte updates/s ({} threads, {} GiB); {}; {}",
            self.updates_per_second / 1e6,
            self.threads,
            self.array_bytes >> 30,
            self.cpu_model.as_deref().unwrap_or("unknown processor"),
            self.caches.as_deref().unwrap_or("caches unknown"),
        )
    }
}

/// Updates a thread issues between two looks at the clock.
const ROUND: usize = 1 << 16;
/// How far ahead of its update each address is asked into cache: enough
/// misses in flight to reach the memory system's limit.
const AHEAD: usize = 16;

/// Measures the figure for about `duration` on rayon's pool (all its
/// threads), on a fresh array of 1 GiB.
pub fn measure(duration: Duration) -> MachineFigure {
    let threads = rayon::current_num_threads();
    let array: Vec<AtomicU8> = crate::memory::huge_vec_with(ARRAY_BYTES, || AtomicU8::new(0));
    // Touch every page first: page faults are not what is measured.
    array.par_chunks(1 << 20).for_each(|c| {
        for cell in c.iter().step_by(4096) {
            cell.store(1, Relaxed);
        }
    });
    let mask = (ARRAY_BYTES - 1) as u64;
    let start = Instant::now();
    let done: u64 = (0..threads)
        .into_par_iter()
        .map(|t| {
            let mut rng =
                0x9E37_79B9_7F4A_7C15u64 ^ (t as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03);
            let mut next = || {
                // xorshift64*: cheap, and its low bits are good enough here.
                rng ^= rng >> 12;
                rng ^= rng << 25;
                rng ^= rng >> 27;
                (rng.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 20) & mask
            };
            let mut ring = [0u64; AHEAD];
            for r in ring.iter_mut() {
                *r = next();
            }
            let mut n = 0u64;
            let mut k = 0;
            while start.elapsed() < duration {
                for _ in 0..ROUND {
                    let i = ring[k] as usize;
                    let j = next();
                    crate::memory::prefetch(&array[j as usize]);
                    ring[k] = j;
                    k = (k + 1) % AHEAD;
                    let cell = &array[i];
                    cell.store(cell.load(Relaxed).wrapping_add(1), Relaxed);
                }
                n += ROUND as u64;
            }
            n
        })
        .sum();
    let seconds = start.elapsed().as_secs_f64();
    // Keep the updates observable so that none is optimised away.
    std::hint::black_box(&array);
    MachineFigure {
        updates_per_second: done as f64 / seconds,
        threads,
        array_bytes: ARRAY_BYTES,
        seconds,
        cpu_model: cpu_model(),
        caches: caches(),
    }
}

/// `model name` of the first processor in /proc/cpuinfo.
pub fn cpu_model() -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    text.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}

/// The caches of processor 0 from sysfs, e.g. `L1d 32K, L1i 32K, L2 1024K, L3 32768K`.
pub fn caches() -> Option<String> {
    let dir = std::path::Path::new("/sys/devices/system/cpu/cpu0/cache");
    let mut rows = Vec::new();
    for k in 0..8 {
        let d = dir.join(format!("index{k}"));
        let read = |f: &str| {
            std::fs::read_to_string(d.join(f))
                .ok()
                .map(|s| s.trim().to_string())
        };
        let (Some(level), Some(kind), Some(size)) = (read("level"), read("type"), read("size"))
        else {
            continue;
        };
        let suffix = match kind.as_str() {
            "Data" => "d",
            "Instruction" => "i",
            _ => "",
        };
        let shared = read("shared_cpu_list")
            .map(|s| format!(" (cpus {s})"))
            .unwrap_or_default();
        rows.push(format!("L{level}{suffix} {size}{shared}"));
    }
    (!rows.is_empty()).then(|| rows.join(", "))
}
