//! Config-declared hooks for [`hookrail_core`]: Claude-Code-compatible command and HTTP hooks
//! declared in `hooks.yaml` (or `.toml`, `.json`), `.hooks/*.yaml`, or Claude Code's
//! `settings.json` and plugin `hooks/hooks.json`, run as entries of a
//! [`Hooks`](hookrail_core::runtime::Hooks) value next to compiled hooks.
//!
//! | module | holds |
//! |---|---|
//! | [`file`](mod@file) | reading config files into validated [`spec::HookSpec`]s, one bad entry never costing the others; [`file::Sources`] |
//! | [`events`] | event names of every dialect (ours, Claude Code's, the seeds') mapped to points |
//! | [`claude_events`] | Claude Code's 33 events as data: point, matcher field, how a block is said |
//! | [`generic`] | the generic Claude-event points (`config_change`, `instructions_loaded`, …) over the payload as JSON |
//! | [`matcher`] | Claude Code's `matcher`, seed 003's `ability_scope`, `min_duration_ms`, `only_if_changed_paths` |
//! | [`payload`] | reading an agent's hook payload with a size cap, a deadline and no duplicate keys |
//! | [`protocol`] | Claude Code's wire protocol: the input JSON, reading answers from exit codes and output |
//! | [`hook_result`] | seed 003's `HookResult` answer (`logs`, `usage_recorded`, `hook_signals`, `error`) and the rule that tells it from Claude Code's |
//! | [`command`] | running one command: stdin, environment, timeout, process-group kill, output caps |
//! | [`http`] | `type: http` hooks (feature `http`, on by default) |
//! | [`trust`] | which handlers may run: the allow-list and approvals by hash |
//! | [`runner`] | [`runner::ConfigHooks`]: the hooks as entries of a `Hooks` value, parallel or sequential, events |
//! | [`reload`] | watching the files; good edits swap the set atomically, bad ones keep the last good set |
//! | [`fire`] | firing a point from JSON, and answering as a Claude Code hook (`hooks claude`) |
//!
//! ```
//! use hookrail_config::file::Sources;
//! use hookrail_config::runner::ConfigHooks;
//! use hookrail_core::context::{Meta, PreToolUse};
//! use hookrail_core::points::pre_tool_use;
//! use hookrail_core::runtime::Hooks;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let project = tempfile::tempdir()?;
//! std::fs::write(project.path().join("hooks.yaml"), r#"
//! enabled: true
//! allow: ["./guard.sh"]
//! hooks:
//!   - { id: guard, event_type: PreToolUse, match: { matcher: Bash }, handler: { command: ./guard.sh } }
//! "#)?;
//! let guard = project.path().join("guard.sh");
//! std::fs::write(&guard, "#!/bin/sh\necho 'not today' >&2\nexit 2\n")?;
//! # #[cfg(unix)] {
//! use std::os::unix::fs::PermissionsExt;
//! std::fs::set_permissions(&guard, std::fs::Permissions::from_mode(0o755))?;
//!
//! let config = Sources::new().project(project.path()).load().unwrap();
//! let configured = ConfigHooks::builder(project.path()).build(config)?;
//! let hooks = Hooks::builder().ignore_env().build()?;
//! configured.attach(&hooks)?;
//!
//! let mut ctx = PreToolUse::new(Meta::new("s1").with_cwd(project.path()), "Bash", serde_json::json!({"command": "ls"}));
//! let outcome = hooks.dispatch_async::<pre_tool_use::Point>(&mut ctx).await;
//! assert_eq!(outcome.verdict().reason(), Some("not today"));
//! # }
//! # Ok(())
//! # }
//! ```

pub mod claude_events;
pub mod command;
pub mod events;
pub mod file;
pub mod fire;
pub mod forward;
pub mod generic;
pub mod hook_result;
#[cfg(feature = "http")]
pub mod http;
pub mod matcher;
pub mod payload;
pub mod permission_rule;
pub mod protocol;
pub mod reload;
pub mod runner;
pub mod spec;
pub mod trust;
