//! `bench-machine`.

use super::{CliError, use_threads};
use clap::Args;
use std::time::Duration;

/// Arguments of `bench-machine`.
#[derive(Args)]
pub struct BenchMachineArgs {
    /// Seconds to measure for (after filling the array).
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `bench-machine`.
pub fn bench_machine(a: &BenchMachineArgs) -> Result<(), CliError> {
    if !(a.seconds > 0.0 && a.seconds <= 600.0) {
        return Err(CliError::input(format!(
            "--seconds {}: give a number of seconds above 0 and at most 600",
            a.seconds
        )));
    }
    use_threads(a.threads)?;
    let f = millbase::measure_machine(Duration::from_secs_f64(a.seconds));
    if a.json {
        println!("{}", serde_json::to_string(&f).expect("serialisable"));
        return Ok(());
    }
    println!("processor: {}", f.cpu_model.as_deref().unwrap_or("unknown"));
    println!("caches: {}", f.caches.as_deref().unwrap_or("unknown"));
    println!(
        "measured: {} updates in {:.2} s on {} threads over {} MiB",
        (f.updates_per_second * f.seconds).round(),
        f.seconds,
        f.threads,
        f.array_bytes >> 20
    );
    println!(
        "machine figure: {:.1} M random byte updates/s",
        f.updates_per_second / 1e6
    );
    Ok(())
}
