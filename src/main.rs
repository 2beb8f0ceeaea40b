//! The `millbase` command: parse arguments, dispatch, map errors to exit codes.

mod cli;

fn main() {
    #[cfg(target_os = "linux")]
    // SAFETY: runs first, before any other thread exists. It restores the
    // default action for SIGPIPE (Rust ignores it), so output cut short by
    // a closed pipe (`millbase verify | head`) ends the program quietly, as
    // for any Unix tool, instead of a panic inside `println!`.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    std::process::exit(cli::run());
}
