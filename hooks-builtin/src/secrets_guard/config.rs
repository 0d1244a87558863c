//! The settings of the secrets guard.

use serde::{Deserialize, Serialize};

use crate::tools::{READ_TOOLS, SHELL_TOOLS, WRITE_TOOLS, owned};

/// Settings of [`SecretsGuard`](super::SecretsGuard).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct SecretsGuardConfig {
    /// Tools that read files; their path fields and `glob`/`include` filters are checked.
    /// Default: [`READ_TOOLS`].
    pub read_tools: Vec<String>,
    /// Tools that write files; their path fields are checked. Default: [`WRITE_TOOLS`].
    pub write_tools: Vec<String>,
    /// Tools whose `command` is a shell command line. Default: [`SHELL_TOOLS`].
    pub shell_tools: Vec<String>,
    /// Also check the path fields of every other (non-shell) tool. Default: `true`.
    pub any_tool_paths: bool,
    /// Use the builtin rules and exceptions (see the module docs). Default: `true`.
    pub builtin_rules: bool,
    /// More secrets globs. Default: none.
    pub deny: Vec<String>,
    /// Exceptions: paths matching one of these globs are never secrets. Default: none.
    pub allow: Vec<String>,
    /// The answer to a command that prints environment variables or a stored credential
    /// (rules `env-dump`, `env-secret` and `credential-print`: `env`, `printenv`, `echo
    /// $GITHUB_TOKEN`, `/proc/self/environ`, `print(os.environ)`, `gh auth token`): `ask` (the
    /// default), `deny`, or `allow` (not looked at).
    pub env_dumps: EnvDumps,
}

/// The answer of [`SecretsGuard`](super::SecretsGuard) to a command that prints environment variables
/// ([`SecretsGuardConfig::env_dumps`]). A secrets file in the same command is denied whatever
/// this says.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EnvDumps {
    /// A human confirms first ([`Verdict::Ask`](hookrail_core::Verdict::Ask)): printing the environment is often
    /// legitimate debugging, and as often a leak of every token the agent runs with.
    #[default]
    Ask,
    /// Denied.
    Deny,
    /// Not looked at.
    Allow,
}

impl EnvDumps {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            EnvDumps::Ask => "ask",
            EnvDumps::Deny => "deny",
            EnvDumps::Allow => "allow",
        }
    }
}

impl Default for SecretsGuardConfig {
    fn default() -> Self {
        SecretsGuardConfig {
            read_tools: owned(READ_TOOLS),
            write_tools: owned(WRITE_TOOLS),
            shell_tools: owned(SHELL_TOOLS),
            any_tool_paths: true,
            builtin_rules: true,
            deny: Vec::new(),
            allow: Vec::new(),
            env_dumps: EnvDumps::Ask,
        }
    }
}
