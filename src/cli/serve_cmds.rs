//! `serve`.

use super::CliError;
use clap::Args;
use millbase::Rules;
use millbase::{Limits, ServeOptions, serve_until_interrupted};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `serve`.
#[derive(Args)]
pub struct ServeArgs {
    /// Table folder: every rule set found under it is served.
    #[arg(long, default_value = "db")]
    db: PathBuf,
    /// Address to listen on (port 0: any free port).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Send `Access-Control-Allow-Origin: ORIGIN` with API answers, so that
    /// pages of that origin may call the API (default: no CORS headers).
    #[arg(long, value_name = "ORIGIN")]
    cors: Option<String>,
    /// Positions in one POST batch, at most (1 to 100000).
    #[arg(long, default_value_t = Limits::default().batch_lines,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=100_000))]
    max_batch: usize,
    /// Seconds a query or batch may take before it is answered with 503
    /// (1 to 3600).
    #[arg(long, default_value_t = Limits::default().request_time.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    timeout: u64,
    /// Seconds a client has to send a request's head; also how long an
    /// idle connection is kept open (1 to 3600).
    #[arg(long, default_value_t = Limits::default().header_time.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    header_timeout: u64,
    /// Seconds a client has to send a request's body, after its head; past
    /// it the answer is 408 (1 to 3600).
    #[arg(long, default_value_t = Limits::default().body_time.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    body_timeout: u64,
    /// Connections open at once, at most (1 to 65536); lowered to half the
    /// open-file limit. Past it, new connections wait until one closes.
    #[arg(long, default_value_t = Limits::default().connections,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=65_536))]
    max_connections: usize,
    /// Decompressed table blocks kept in memory per rule set (1 to
    /// 1048576; a block takes 3 to 16 KiB).
    #[arg(long, default_value_t = millbase::DEFAULT_CACHE_BLOCKS,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1 << 20))]
    cache_blocks: usize,
    /// Worker threads for batches (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

/// `millbase serve`.
pub fn serve_cmd(_rules: &Rules, args: &ServeArgs) -> Result<(), CliError> {
    super::db_folder(&args.db)?;
    super::use_threads(args.threads)?;
    if !args.db.is_dir() {
        return Err(CliError::input(format!(
            "table folder {} does not exist (make tables with `millbase build`)",
            args.db.display()
        )));
    }
    // An origin that is no header value would quietly become `null`,
    // which some browsers treat as an origin of its own.
    if let Some(origin) = &args.cors
        && (origin.is_empty() || !origin.bytes().all(|b| b.is_ascii_graphic()))
    {
        return Err(CliError::input(format!(
            "--cors {origin:?}: expected an origin such as https://example.org or *"
        )));
    }
    let options = ServeOptions {
        db: args.db.clone(),
        cors: args.cors.clone(),
        limits: Limits {
            batch_lines: args.max_batch,
            // Room for the batch's positions at a typical 256 bytes each.
            body_bytes: Limits::default().body_bytes.max(256 * args.max_batch),
            request_time: Duration::from_secs(args.timeout),
            header_time: Duration::from_secs(args.header_timeout),
            body_time: Duration::from_secs(args.body_timeout),
            connections: args.max_connections,
            ..Limits::default()
        },
        cache_blocks: args.cache_blocks,
    };
    serve_until_interrupted(options, args.addr, |addr, catalog| {
        eprintln!(
            "millbase: serving {} rule sets from {} at http://{addr}/ (Ctrl-C stops)",
            catalog.rule_sets.len(),
            args.db.display()
        );
        for r in &catalog.rule_sets {
            eprintln!(
                "  {:<28} {}",
                r.rules,
                if r.phases.placing {
                    "whole game"
                } else {
                    "moving phase only"
                }
            );
        }
    })
    .map_err(|e| CliError {
        code: 1,
        message: format!("serve on {}: {e}", args.addr),
    })
}
