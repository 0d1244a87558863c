//! Loading the hook pipeline every command shares.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use hookrail_builtin::{BuiltinConfig, Builtins};
use hookrail_config::file::{LoadedConfig, Sources};
use hookrail_config::runner::ConfigHooks;
use hookrail_config::trust::TrustStore;
use hookrail_core::runtime::Hooks;

use crate::CliError;

/// Where hooks are read from.
#[derive(Debug, Clone, Default, Args)]
pub struct ConfigArgs {
    /// The project root: its hooks.yaml (or .yml/.toml/.json) and .hooks/ directory.
    /// Default: $CLAUDE_PROJECT_DIR, else the directory of the first `--config` file, else
    /// the current directory.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// A config file of our schema, read instead of the project's (repeatable).
    #[arg(long = "config", value_name = "FILE")]
    pub configs: Vec<PathBuf>,
    /// A Claude Code settings.json whose hooks to run (repeatable).
    #[arg(long = "settings", value_name = "FILE")]
    pub settings: Vec<PathBuf>,
    /// A Claude Code managed settings file (managed-settings.json) whose hooks to run first; when
    /// it sets `allowManagedHooksOnly`, the hooks of every other file do not run (the builtin
    /// policies stay on).
    #[arg(long = "managed-settings", value_name = "FILE")]
    pub managed_settings: Vec<PathBuf>,
    /// A Claude Code plugin root whose hooks/hooks.json to run (repeatable).
    #[arg(long = "plugin-root", value_name = "DIR")]
    pub plugins: Vec<PathBuf>,
    /// The user layer's hook directory, read before the project's .hooks/ (a file of the
    /// same name in .hooks/ replaces the user's). Default:
    /// $XDG_CONFIG_HOME/hookrail/hooks (~/.config/hookrail/hooks).
    #[arg(long, value_name = "DIR", conflicts_with = "no_user_hooks")]
    pub user_hooks: Option<PathBuf>,
    /// Do not read the user layer's hook directory.
    #[arg(long)]
    pub no_user_hooks: bool,
    /// The approvals file. Default: $HOOKS_TRUST_FILE, else
    /// $XDG_CONFIG_HOME/agent-hooks/trust.json (~/.config/agent-hooks/trust.json).
    #[arg(long, value_name = "FILE")]
    pub trust_file: Option<PathBuf>,
}

impl ConfigArgs {
    /// The project directory: `--project`, else `$CLAUDE_PROJECT_DIR`, else the directory
    /// of the project file (the first `--config`), else the current directory. The one place
    /// every command takes the project root from.
    pub fn project_dir(&self) -> PathBuf {
        self.project_dir_from(
            std::env::var_os("CLAUDE_PROJECT_DIR").map(PathBuf::from),
            std::env::current_dir().ok(),
        )
    }

    /// [`Self::project_dir`] with the environment and the current directory given. A
    /// relative `--config` is taken from the current directory, so the root does not depend
    /// on how the file was named.
    fn project_dir_from(&self, env_dir: Option<PathBuf>, cwd: Option<PathBuf>) -> PathBuf {
        // One rule for every command and for `hooks-forward`, which finds the daemon by it.
        hookrail_forward::daemon::Selection {
            project: self.project.clone(),
            configs: self.configs.clone(),
            env_project: env_dir.filter(|d| !d.as_os_str().is_empty()),
            cwd,
            ..Default::default()
        }
        .project_dir()
    }

    /// The user layer's hook directory: `--user-hooks`, else
    /// [`Sources::default_user_dir`]; `None` with `--no-user-hooks`.
    pub fn user_hooks_dir(&self) -> Option<PathBuf> {
        if self.no_user_hooks {
            return None;
        }
        self.user_hooks.clone().or_else(Sources::default_user_dir)
    }

    /// The files to read (every one named, whether it exists or not).
    pub fn sources(&self) -> Sources {
        self.present_sources(false).0
    }

    /// The files to read, and the ones named by an option that do not exist. With
    /// `drop_missing`, those are left out of the sources (the rest is read); otherwise they
    /// stay in (and loading them fails).
    pub fn present_sources(&self, drop_missing: bool) -> (Sources, Vec<MissingSource>) {
        let mut sources = Sources::new();
        let mut missing = Vec::new();
        let mut keep = |found: Option<MissingSource>| match found {
            Some(m) => {
                missing.push(m);
                !drop_missing
            }
            None => true,
        };
        if self.configs.is_empty() {
            sources = sources.project(self.project_dir());
        }
        for file in &self.configs {
            if keep(MissingSource::check("--config", file, file)) {
                sources = sources.file(file);
            }
        }
        // A named directory that is not there is said; the default one may be absent.
        if let Some(dir) = &self.user_hooks {
            if !self.no_user_hooks && keep(MissingSource::check_dir("--user-hooks", dir)) {
                sources = sources.user_dir(dir);
            }
        } else if let Some(dir) = self.user_hooks_dir() {
            sources = sources.user_dir(dir);
        }
        // A managed file that is missing is never left out: it may be what keeps the other
        // files' hooks from running, so loading fails (and `hooks claude` blocks where it can).
        for file in &self.managed_settings {
            sources = sources.managed_settings(file);
        }
        for file in &self.settings {
            if keep(MissingSource::check("--settings", file, file)) {
                sources = sources.claude_settings(file);
            }
        }
        for dir in &self.plugins {
            let file = dir.join("hooks").join("hooks.json");
            if keep(MissingSource::check("--plugin-root", dir, &file)) {
                sources = sources.plugin(dir);
            }
        }
        (sources, missing)
    }

    /// The command that approves the hooks these options load, as a person would type it
    /// (named in the denial of a guard the gate refused): `hooks trust --approve` with the
    /// same `--project`, `--config`, `--settings`, `--plugin-root`, `--user-hooks`,
    /// `--trust-file` and `--no-user-hooks`.
    pub fn approve_command(&self) -> String {
        let mut command = "hooks trust --approve".to_owned();
        let mut add = |option: &str, path: &Path| {
            command.push_str(&format!(" {option} {}", shell_quote(path)));
        };
        if let Some(project) = &self.project {
            add("--project", project);
        }
        for file in &self.configs {
            add("--config", file);
        }
        for file in &self.managed_settings {
            add("--managed-settings", file);
        }
        for file in &self.settings {
            add("--settings", file);
        }
        for dir in &self.plugins {
            add("--plugin-root", dir);
        }
        if let Some(dir) = self.user_hooks.as_ref().filter(|_| !self.no_user_hooks) {
            add("--user-hooks", dir);
        }
        if let Some(file) = &self.trust_file {
            add("--trust-file", file);
        }
        if self.no_user_hooks {
            command.push_str(" --no-user-hooks");
        }
        command
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

/// `path` as one shell word: as is when it is plain, else in single quotes.
fn shell_quote(path: &Path) -> String {
    let text = path.to_string_lossy();
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./-+=:,@%".contains(&b));
    if plain {
        text.into_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// A file or directory named by an option that does not exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingSource {
    /// The option: `--settings`, `--plugin-root`, `--config` or `--user-hooks`.
    pub option: &'static str,
    /// What the option named.
    pub given: PathBuf,
    /// The file that is missing (for `--plugin-root`, its `hooks/hooks.json`).
    pub file: PathBuf,
}

impl MissingSource {
    fn check_dir(option: &'static str, dir: &Path) -> Option<Self> {
        (!dir.is_dir()).then(|| MissingSource {
            option,
            given: dir.to_path_buf(),
            file: dir.to_path_buf(),
        })
    }

    fn check(option: &'static str, given: &Path, file: &Path) -> Option<Self> {
        (!file.is_file()).then(|| MissingSource {
            option,
            given: given.to_path_buf(),
            file: file.to_path_buf(),
        })
    }
}

impl std::fmt::Display for MissingSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let given = self.given.display();
        if self.option == "--user-hooks" {
            return write!(
                f,
                "{} {given}: no such directory; create it or remove the option",
                self.option
            );
        }
        let what = if self.file == self.given {
            format!("{} {given}: no such file", self.option)
        } else if !self.given.is_dir() {
            format!("{} {given}: no such directory", self.option)
        } else {
            format!(
                "{} {given}: {}: no such file",
                self.option,
                self.file.display()
            )
        };
        let create = match self.option {
            "--config" => "create it (`enabled: true` and `hooks: []`)",
            _ => "create it with {\"hooks\": {}}",
        };
        write!(f, "{what}; {create} or remove the option")
    }
}

/// Everything loaded: the hook set and what it was built from.
pub struct Pipeline {
    /// Linked hooks, builtin policies and the configured hooks' entries.
    pub hooks: Hooks,
    /// The configured hooks, attached to `hooks` (for its webhooks).
    pub configured: ConfigHooks,
    /// The loaded configuration.
    pub config: Arc<LoadedConfig>,
    /// The builtin policies on whose state lives in memory only
    /// ([`Builtins::memory_only_state`]): in a process per event it lasts one event.
    pub memory_only: Vec<&'static str>,
    /// Handles on the builtin policies installed in `hooks` (they share state with them): the
    /// daemon reads the audit's counters and saves the stateful policies' state through them.
    pub builtins: Builtins,
}

/// Loads the configuration and builds the pipeline. Problems of single entries are logged to
/// stderr (the rest loads); files that do not parse, or that an option names and do not
/// exist, are an error.
pub fn pipeline(args: &ConfigArgs) -> Result<Pipeline, CliError> {
    let (_, missing) = args.present_sources(false);
    if !missing.is_empty() {
        let lines: Vec<String> = missing.iter().map(ToString::to_string).collect();
        return Err(CliError::Other(lines.join("\n")));
    }
    build(args, load(args)?, &[])
}

/// Builds the pipeline from a loaded configuration: the builtin policies its `builtin:`
/// section turns on, the policies linked into the binary, and its configured hooks, each
/// command hook getting `env` on top of its own environment. The one place every command
/// builds its pipeline.
pub fn build(
    args: &ConfigArgs,
    config: LoadedConfig,
    env: &[(&str, String)],
) -> Result<Pipeline, CliError> {
    for problem in &config.problems {
        tracing::warn!("{problem}");
    }
    let builtins = builtins(&config)?;
    let memory_only = builtins.memory_only_state();
    // `HOOKS_DISABLE` is not read here: the agent a guard watches can set the environment of
    // the commands it starts, and an environment switch must never turn a guard off silently
    // (DESIGN §8). Disable a hook in the project's configuration instead.
    let hooks = builtins
        .install(Hooks::builder().ignore_env())
        .map_err(|e| CliError::Other(e.to_string()))?;
    let mut builder = ConfigHooks::builder(args.project_dir());
    if let Some(store) = args.trust_store()? {
        builder = builder.trust_store(store);
    }
    for (name, value) in env {
        builder = builder.env(*name, value.clone());
    }
    builder = builder.approve_command(args.approve_command());
    let configured = builder
        .build(config)
        .map_err(|e| CliError::Other(e.to_string()))?;
    configured
        .attach(&hooks)
        .map_err(|e| CliError::Other(e.to_string()))?;
    Ok(Pipeline {
        hooks,
        config: configured.config(),
        configured,
        memory_only,
        builtins,
    })
}

/// Refuses a project root that is `/`, the home directory or a system directory
/// ([`hookrail_builtin::check_project_root`]): the guards judge paths against the root, and such a
/// root would make the whole machine "the project". The message says how to fix it.
pub fn check_root(root: &Path) -> Result<(), CliError> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    hookrail_builtin::check_project_root(root, home.as_deref()).map_err(|e| {
        CliError::Input(format!(
            "{e}; run from the project's directory, or name it with --project DIR or $CLAUDE_PROJECT_DIR"
        ))
    })
}

/// Reads the sources.
pub fn load(args: &ConfigArgs) -> Result<LoadedConfig, CliError> {
    args.sources().load().map_err(CliError::Config)
}

/// Reads the sources that exist; the ones an option names and that do not exist are left out
/// and returned, for the caller to say so.
pub fn load_present(args: &ConfigArgs) -> Result<(LoadedConfig, Vec<MissingSource>), CliError> {
    let (sources, missing) = args.present_sources(true);
    let config = sources.load().map_err(CliError::Config)?;
    Ok((config, missing))
}

/// The builtin policies the `builtin:` section turns on.
///
/// Without a `builtin:` section the default guard set runs
/// ([`BuiltinConfig::default_guards`]: the command, secrets and write guards with their
/// defaults), so a setup with no project file still protects something; a `builtin:` section
/// replaces it (`builtin: {}` turns every builtin policy off, which `hooks validate` reports).
pub fn builtins(config: &LoadedConfig) -> Result<Builtins, CliError> {
    let Some(section) = &config.builtin else {
        return Builtins::new(BuiltinConfig::default_guards())
            .map_err(|e| CliError::Other(format!("the default guard set: {e}")));
    };
    let refused = |message: String| CliError::Builtin {
        location: section.location.to_string(),
        message,
    };
    let settings: BuiltinConfig = serde_json::from_value(with_defaults_for_nulls(&section.value))
        .map_err(|e| refused(e.to_string()))?;
    Builtins::new(settings).map_err(|e| refused(e.to_string()))
}

/// A policy named with no settings (`command_guard:` in YAML is null) is on with its
/// defaults, as `command_guard: {}` is: listing a guard must never turn it off.
fn with_defaults_for_nulls(section: &serde_json::Value) -> serde_json::Value {
    match section {
        serde_json::Value::Object(map) => serde_json::Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = if v.is_null() {
                        serde_json::json!({})
                    } else {
                        v.clone()
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The guards of the default set ([`BuiltinConfig::default_guards`]) when a `builtin:` section
/// leaves every one of them out, and where that section is: the answer says the setup has no
/// guard left. (A section that keeps one of them is a choice, not a setup that protects
/// nothing, and is not repeated on every answer.)
pub fn default_guards_off(config: &LoadedConfig) -> Option<(Vec<&'static str>, String)> {
    let section = config.builtin.as_ref()?;
    let off: Vec<&'static str> = ["command_guard", "secrets_guard", "write_guard"]
        .into_iter()
        .filter(|name| section.value.get(*name).is_none())
        .collect();
    (off.len() == 3).then(|| (off, section.location.to_string()))
}

/// What each guard of the default set protects, said when a `builtin:` section leaves it out.
pub const DEFAULT_GUARD_DUTIES: [(&str, &str); 3] = [
    (
        "command_guard",
        "destructive shell commands (`rm -rf /`, force pushes, `curl | sh`, …) are not checked",
    ),
    (
        "secrets_guard",
        "secrets files are not protected, nor the hooks' own configuration (hooks.yaml, .hooks/, \
         the user layer, agent settings, the approvals file): the agent may change or delete it",
    ),
    (
        "write_guard",
        "writes outside the project and into .git/ are not checked",
    ),
];

/// The guards of the default set that a `builtin:` section leaves out, each with what is
/// then unprotected, and where the section is. `hooks validate` notes each one.
pub fn default_guards_left_out(config: &LoadedConfig) -> Vec<(&'static str, &'static str, String)> {
    let Some(section) = config.builtin.as_ref() else {
        return Vec::new();
    };
    DEFAULT_GUARD_DUTIES
        .into_iter()
        .filter(|(name, _)| section.value.get(*name).is_none())
        .map(|(name, duty)| (name, duty, section.location.to_string()))
        .collect()
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
pub fn table<'a>(header: impl IntoIterator<Item = &'a str>) -> comfy_table::Table {
    let mut table = comfy_table::Table::new();
    table
        .load_preset(comfy_table::presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(comfy_table::ContentArrangement::Dynamic)
        .set_header(header);
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_project_root_comes_from_the_option_the_environment_the_project_file_then_cwd() {
        let cwd = Some(PathBuf::from("/work/here"));
        let env = Some(PathBuf::from("/work/env"));
        let file = ConfigArgs {
            configs: vec![
                PathBuf::from("/work/app/hooks.yaml"),
                PathBuf::from("/x/y.yaml"),
            ],
            ..ConfigArgs::default()
        };
        assert_eq!(
            file.project_dir_from(None, cwd.clone()),
            Path::new("/work/app")
        );
        assert_eq!(
            file.project_dir_from(env.clone(), cwd.clone()),
            Path::new("/work/env")
        );
        // An empty variable is not a root.
        assert_eq!(
            file.project_dir_from(Some(PathBuf::new()), cwd.clone()),
            Path::new("/work/app")
        );
        let relative = ConfigArgs {
            configs: vec![PathBuf::from("sub/hooks.yaml")],
            ..ConfigArgs::default()
        };
        assert_eq!(
            relative.project_dir_from(None, cwd.clone()),
            Path::new("/work/here/sub")
        );
        let bare = ConfigArgs {
            configs: vec![PathBuf::from("hooks.yaml")],
            ..ConfigArgs::default()
        };
        assert_eq!(
            bare.project_dir_from(None, cwd.clone()),
            Path::new("/work/here")
        );
        let option = ConfigArgs {
            project: Some(PathBuf::from("/work/opt")),
            ..file.clone()
        };
        assert_eq!(
            option.project_dir_from(env, cwd.clone()),
            Path::new("/work/opt")
        );
        assert_eq!(
            ConfigArgs::default().project_dir_from(None, cwd),
            Path::new("/work/here")
        );
    }

    #[test]
    fn the_approve_command_repeats_the_sources() {
        assert_eq!(
            ConfigArgs::default().approve_command(),
            "hooks trust --approve"
        );
        let args = ConfigArgs {
            settings: vec![".claude/hooks.scripts.json".into()],
            plugins: vec!["my plugin".into()],
            ..ConfigArgs::default()
        };
        assert_eq!(
            args.approve_command(),
            "hooks trust --approve --settings .claude/hooks.scripts.json --plugin-root 'my plugin'"
        );
        assert_eq!(shell_quote(Path::new("it's")), "'it'\\''s'");
    }
}
