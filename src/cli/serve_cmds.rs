//! `serve`.

use super::CliError;
use clap::Args;
use millbase::Rules;
use millbase::serve::{Limits, ServeOptions, serve_until_interrupted};
use std::net::SocketAddr;
use std::path::PathBuf;

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
    /// Positions in one POST batch, at most (1 or more).
    #[arg(long, default_value_t = Limits::default().batch_lines,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    max_batch: usize,
    /// Seconds a query or batch may take before it is answered with 503
    /// (1 or more).
    #[arg(long, default_value_t = Limits::default().request_time.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,
    /// Worker threads for batches (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

/// `millbase serve`.
pub fn serve_cmd(_rules: &Rules, args: &ServeArgs) -> Result<(), CliError> {
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
            request_time: std::time::Duration::from_secs(args.timeout),
            ..Limits::default()
        },
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
