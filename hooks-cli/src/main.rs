//! The `hooks` binary. Everything is in the library, so that a crate can build its own
//! `hooks` with its policies linked in (see the crate docs).

fn main() -> std::process::ExitCode {
    hookrail_cli::main()
}
