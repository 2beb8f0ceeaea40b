//! `uci`.

use super::CliError;
use clap::Args;
use millbase::Rules;
use std::path::PathBuf;

/// Arguments of `uci`.
#[derive(Args)]
pub struct UciArgs {
    /// Table folder (the rule sets' tables are read from it on demand).
    #[arg(long, default_value = "db")]
    db: PathBuf,
    /// Play from a table pack (`millbase pack`) instead of the tables.
    #[arg(long, value_name = "DIR")]
    pack: Option<PathBuf>,
}

/// `millbase uci`: the engine over standard input and output.
pub fn uci_cmd(rules: &Rules, args: &UciArgs) -> Result<(), CliError> {
    super::db_folder(&args.db)?;
    if rules.board().size != 24 {
        return Err(CliError::input(format!(
            "rules {}: Sanmill's protocol describes 24-point boards",
            rules.short_name()
        )));
    }
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    millbase::run_engine(
        args.db.clone(),
        args.pack.clone(),
        *rules,
        stdin.lock(),
        &mut stdout,
    )
    .map_err(|e| CliError {
        code: 1,
        message: format!("the engine's input or output failed: {e}"),
    })
}
