//! The `hooks` command.
//!
//! ```text
//! hooks list      [--json]                     every hook: linked, builtin and configured
//! hooks validate  [PATH…]                      exit 0 when valid, 1 with every problem; what will not run
//! hooks fire      <point> [--input FILE|-]     run the whole pipeline for one event
//! hooks claude                                 act as a Claude Code hook command
//! hooks scaffold  <id> --event <point>         write a hook's YAML and a script stub
//! hooks trust     [PATH…] [--approve]          show and approve command hashes
//! ```
//!
//! Every command that loads hooks takes the same options: `--project DIR` (default
//! `$CLAUDE_PROJECT_DIR`, else the directory of the first `--config` file, else the current
//! directory; its `hooks.yaml` and `.hooks/`),
//! `--config FILE` (files of our schema, instead of the project's), `--settings FILE`
//! (Claude Code settings), `--plugin-root DIR` (Claude Code plugins) and `--trust-file FILE`.
//! `hooks claude` and `hooks fire` also take these limits:
//!
//! # Limits
//!
//! | option | variable | default |
//! |---|---|---|
//! | `--max-payload SIZE` (`16M`, `512K`, bytes): a larger payload is refused | `HOOKS_MAX_PAYLOAD` | 16 MiB |
//! | `--payload-timeout DURATION` (`10s`, `500ms`): a payload not closed by then is refused | `HOOKS_PAYLOAD_TIMEOUT` | 10 s |
//! | `--webhook-flush DURATION`: how long configured webhooks may deliver before exit | `HOOKS_WEBHOOK_FLUSH` | 2 s |
//!
//! A payload with a key twice (at any depth) is refused too. In `hooks claude`, every refusal
//! blocks (exit 2) where the event could be one that can block; see its answers in the
//! `claude` module docs, and [`nested`] for how a `hooks claude` started by one of its own
//! hooks still runs every compiled and builtin policy.
//!
//! # Your own `hooks` binary
//!
//! `hooks claude` runs the policies compiled into the binary: the builtin policies (configured
//! by the project file's `builtin:` section) and every `#[hook]` fn linked into it. To run
//! policies of your own, build a binary that links them and calls [`main`]:
//!
//! ```no_run
//! // src/bin/hooks.rs of your crate
//! use my_policies as _; // linked, so its #[hook] fns register
//! # mod my_policies {}
//!
//! fn main() -> std::process::ExitCode {
//!     hookrail_cli::main()
//! }
//! ```

mod claude;
mod deliver;
mod error;
mod fire;
mod install;
mod limits;
mod list;
mod load;
pub mod nested;
mod reply;
mod scaffold;
mod serve;
mod status;
mod trust;
mod validate;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use error::CliError;

/// The command line.
#[derive(Debug, Parser)]
#[command(
    name = "hooks",
    version,
    about = "Hooks for AI agent runtimes: list, validate, fire, trust and scaffold them; run compiled policies as a Claude Code hook"
)]
pub struct Cli {
    /// Log more (-v: info, -vv: debug) to stderr. `RUST_LOG` overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List every hook: linked (`#[hook]` fns), builtin policies and configured hooks.
    List(list::ListArgs),
    /// Check config files; exit 0 when valid, 1 listing every problem.
    Validate(validate::ValidateArgs),
    /// Run the whole pipeline for one event and print the merged result.
    Fire(fire::FireArgs),
    /// Act as a Claude Code hook command: read its hook payload on stdin, run the compiled
    /// policies and the configured hooks, answer in Claude Code's protocol.
    Claude(claude::ClaudeArgs),
    /// Write a hook's YAML (in .hooks/) and a handler stub that passes `hooks validate`.
    Scaffold(scaffold::ScaffoldArgs),
    /// Show the command hashes of configured hooks and approve them.
    Trust(trust::TrustArgs),
    /// Serve Claude Code's `http` hooks from one long-lived process (POST /claude, GET
    /// /health, GET /hooks), on loopback with a bearer token.
    Serve(serve::ServeArgs),
    /// Write the hook entries that send an agent's events to `hooks serve` (or `hooks claude`)
    /// into its settings file, keeping everything else.
    Install(install::InstallArgs),
}

/// Parses the process's arguments, runs the command and returns its exit code. Errors are
/// printed to stderr (exit code 2).
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.verbose);
    // One thread for a command that answers one event: hooks run as child processes (in
    // parallel all the same), and a short-lived command should not pay for starting a thread
    // pool. The daemon serves many clients at once: a thread per core.
    let runtime = if matches!(cli.command, Command::Serve(_)) {
        tokio::runtime::Builder::new_multi_thread()
    } else {
        tokio::runtime::Builder::new_current_thread()
    }
    .enable_all()
    .build();
    let runtime = match runtime {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("hooks: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let claude = matches!(cli.command, Command::Claude(_));
    // A panic of `hooks claude` would exit 101, which Claude Code takes as "proceed": it is
    // answered like any other failure to decide (`claude::panicked`).
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| runtime.block_on(run(cli))));
    match ran {
        Ok(Ok(code)) => code,
        Ok(Err(e)) => {
            eprintln!("hooks: {e}");
            ExitCode::from(e.exit_code())
        }
        Err(cause) if claude => claude::panicked(cause.as_ref()),
        Err(cause) => std::panic::resume_unwind(cause),
    }
}

/// Runs a parsed command line.
///
/// # Errors
///
/// [`CliError`] when the command could not do its job (unreadable config, bad input, …).
pub async fn run(cli: Cli) -> Result<ExitCode, CliError> {
    match cli.command {
        Command::List(args) => list::run(args).await,
        Command::Validate(args) => validate::run(args),
        Command::Fire(args) => fire::run(args).await,
        Command::Claude(args) => claude::run(args).await,
        Command::Scaffold(args) => scaffold::run(args),
        Command::Trust(args) => trust::run(args),
        Command::Serve(args) => serve::run(args).await,
        Command::Install(args) => install::run(args),
    }
}

fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    // Logs go to stderr: stdout carries the command's answer (JSON for `hooks claude`).
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}
