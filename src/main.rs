//! The `millbase` command: parse arguments, dispatch, map errors to exit codes.

mod cli;

fn main() {
    std::process::exit(cli::run());
}
