use std::path::PathBuf;

use hookrail_config::file::Problem;

/// Why a command could not do its job.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// Config files that could not be read at all.
    #[error("cannot load the configured hooks:\n{}", list(.0))]
    Config(Vec<Problem>),
    /// The `builtin:` settings are refused.
    #[error("{location}: builtin settings: {message}")]
    Builtin {
        /// Where the section is.
        location: String,
        /// What is wrong.
        message: String,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The event input is not valid.
    #[error("{0}")]
    Input(String),
    /// Anything else, with its message.
    #[error("{0}")]
    Other(String),
}

impl CliError {
    /// The process exit code for this error (2: the command could not run).
    pub fn exit_code(&self) -> u8 {
        2
    }

    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> CliError {
        let path = path.into();
        move |source| CliError::Io { path, source }
    }
}

fn list(problems: &[Problem]) -> String {
    problems
        .iter()
        .map(|p| format!("  {p}"))
        .collect::<Vec<_>>()
        .join("\n")
}
