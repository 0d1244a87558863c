//! Loading the hook pipeline every command shares.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use hooks_builtin::{BuiltinConfig, Builtins};
use hooks_config::file::{LoadedConfig, Sources};
use hooks_config::runner::ConfigHooks;
use hooks_config::trust::TrustStore;
use hooks_core::runtime::Hooks;

use crate::CliError;

/// Where hooks are read from.
#[derive(Debug, Clone, Args)]
pub struct ConfigArgs {
    /// The project root: its hooks.yaml (or .yml/.toml/.json) and .hooks/ directory.
    /// Default: $CLAUDE_PROJECT_DIR, else the current directory.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// A config file of our schema, read instead of the project's (repeatable).
    #[arg(long = "config", value_name = "FILE")]
    pub configs: Vec<PathBuf>,
    /// A Claude Code settings.json whose hooks to run (repeatable).
    #[arg(long = "settings", value_name = "FILE")]
    pub settings: Vec<PathBuf>,
    /// A Claude Code plugin root whose hooks/hooks.json to run (repeatable).
    #[arg(long = "plugin-root", value_name = "DIR")]
    pub plugins: Vec<PathBuf>,
    /// The approvals file. Default: $HOOKS_TRUST_FILE, else
    /// $XDG_CONFIG_HOME/agent-hooks/trust.json (~/.config/agent-hooks/trust.json).
    #[arg(long, value_name = "FILE")]
    pub trust_file: Option<PathBuf>,
}

impl ConfigArgs {
    /// The project directory.
    pub fn project_dir(&self) -> PathBuf {
        self.project
            .clone()
            .or_else(|| std::env::var_os("CLAUDE_PROJECT_DIR").map(PathBuf::from))
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("."))
    }

    /// The files to read.
    pub fn sources(&self) -> Sources {
        let mut sources = Sources::new();
        if self.configs.is_empty() {
            sources = sources.project(self.project_dir());
        }
        for file in &self.configs {
            sources = sources.file(file);
        }
        for file in &self.settings {
            sources = sources.claude_settings(file);
        }
        for dir in &self.plugins {
            sources = sources.plugin(dir);
        }
        sources
    }

    /// The approvals file's path, when one can be named.
    pub fn trust_path(&self) -> Option<PathBuf> {
        self.trust_file.clone().or_else(TrustStore::default_path)
    }

    /// The approvals (an absent file is an empty store; a broken one is an error).
    pub fn trust_store(&self) -> Result<Option<TrustStore>, CliError> {
        match self.trust_path() {
            Some(path) => TrustStore::load(&path)
                .map(Some)
                .map_err(|e| CliError::Other(e.to_string())),
            None => Ok(None),
        }
    }
}

/// Everything loaded: the hook set and what it was built from.
pub struct Pipeline {
    /// Linked hooks, builtin policies and the configured hooks' entries.
    pub hooks: Hooks,
    /// The loaded configuration.
    pub config: Arc<LoadedConfig>,
}

/// Loads the configuration and builds the pipeline. Problems of single entries are logged to
/// stderr (the rest loads); files that do not parse are an error.
pub fn pipeline(args: &ConfigArgs) -> Result<Pipeline, CliError> {
    pipeline_with(args, |builder| builder)
}

/// [`pipeline`], with a last say on the configured hooks' builder.
pub fn pipeline_with(
    args: &ConfigArgs,
    adjust: impl FnOnce(
        hooks_config::runner::ConfigHooksBuilder,
    ) -> hooks_config::runner::ConfigHooksBuilder,
) -> Result<Pipeline, CliError> {
    let config = load(args)?;
    for problem in &config.problems {
        tracing::warn!("{problem}");
    }
    let builtins = builtins(&config)?;
    let hooks = builtins
        .install(Hooks::builder())
        .map_err(|e| CliError::Other(e.to_string()))?;
    let mut builder = ConfigHooks::builder(args.project_dir());
    if let Some(store) = args.trust_store()? {
        builder = builder.trust_store(store);
    }
    let configured = adjust(builder)
        .build(config)
        .map_err(|e| CliError::Other(e.to_string()))?;
    configured
        .attach(&hooks)
        .map_err(|e| CliError::Other(e.to_string()))?;
    Ok(Pipeline {
        hooks,
        config: configured.config(),
    })
}

/// Reads the sources.
pub fn load(args: &ConfigArgs) -> Result<LoadedConfig, CliError> {
    args.sources().load().map_err(CliError::Config)
}

/// The builtin policies the `builtin:` section turns on.
pub fn builtins(config: &LoadedConfig) -> Result<Builtins, CliError> {
    let Some(section) = &config.builtin else {
        return Ok(Builtins::default());
    };
    let refused = |message: String| CliError::Builtin {
        location: section.location.to_string(),
        message,
    };
    let settings: BuiltinConfig =
        serde_json::from_value(section.value.clone()).map_err(|e| refused(e.to_string()))?;
    Builtins::new(settings).map_err(|e| refused(e.to_string()))
}

/// `path` relative to `base` when it is under it, for shorter listings.
pub fn short(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Prints `rows` as pretty JSON.
pub fn print_json(rows: &impl serde::Serialize) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(rows).map_err(|e| CliError::Other(e.to_string()))?;
    println!("{text}");
    Ok(())
}

/// A table with our look and `header`.
pub fn table<const N: usize>(header: [&str; N]) -> comfy_table::Table {
    let mut table = comfy_table::Table::new();
    table
        .load_preset(comfy_table::presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(comfy_table::ContentArrangement::Dynamic)
        .set_header(header);
    table
}
