//! Saying what a hook changed: for a trace of hook runs, the run after which a tool's input, a
//! prompt or a model differs from what it was, and by whom.
//!
//! Values that hooks may rewrite are [`Rewritable`](hookrail_core::context::Rewritable)s, which
//! keep their original; each [`HookRun`] carries the context as that hook left it. Comparing
//! each run's value with the one the previous run left gives the hook that made each change.

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

use hookrail_core::Verdict;
use hookrail_core::context::{PreModelCall, PreToolUse, SubagentStart, UserPromptSubmit};
use hookrail_core::runtime::{HookRun, RunResult};

/// One change a hook made to what the agent is about to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The hook that made it.
    pub hook: String,
    /// What changed: `command`, `tool input`, `prompt`, `model` or `subagent's model`.
    pub what: &'static str,
    /// The value before the hook ran.
    pub before: String,
    /// The value the hook left.
    pub after: String,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} changed the {}: {} -> {}",
            self.hook, self.what, self.before, self.after
        )
    }
}

/// Follows the runs of one dispatch after another and reports each change once.
///
/// Feed it every [`HookRun`] (from [`Hooks::subscribe`](hookrail_core::runtime::Hooks::subscribe))
/// in the order they come. A change that repeats (the same hook making the same change at
/// every model call) is reported the first time only.
#[derive(Debug, Default)]
pub struct Changes {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Per point, the value the last run left, while it differs from the original.
    last: Vec<(&'static str, String)>,
    reported: HashSet<(&'static str, String, String, String)>,
}

impl Changes {
    /// A tracker that has seen nothing yet.
    pub fn new() -> Self {
        Changes::default()
    }

    /// The change `run` made, if it made one not reported before.
    pub fn observe(&self, run: &HookRun<'_>) -> Option<Change> {
        let (what, original, current) = watched(run)?;
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let slot = state.last.iter().position(|(p, _)| *p == run.point);
        if original == current {
            // Not rewritten (so far) in this dispatch.
            if let Some(i) = slot {
                state.last.remove(i);
            }
            return None;
        }
        let before = match slot {
            Some(i) if state.last[i].1 == current => return None,
            Some(i) => std::mem::replace(&mut state.last[i].1, current.clone()),
            None => {
                state.last.push((run.point, current.clone()));
                original
            }
        };
        let key = (
            run.point,
            run.hook.to_string(),
            before.clone(),
            current.clone(),
        );
        if !state.reported.insert(key) {
            return None;
        }
        Some(Change {
            hook: run.hook.to_string(),
            what,
            before,
            after: current,
        })
    }
}

/// The lines of a trace for each hook run: what it decided, unless it had no opinion, and what
/// it changed ([`Changes`]); it counts the changes by kind.
#[derive(Debug)]
pub struct Narrator {
    skip: &'static str,
    changes: Changes,
    rewrites: AtomicU32,
    model_switches: AtomicU32,
}

impl Narrator {
    /// A narrator that says nothing of the decisions of the hook named `skip` (a tracer whose
    /// runs are the trace itself).
    pub fn new(skip: &'static str) -> Self {
        Narrator {
            skip,
            changes: Changes::new(),
            rewrites: AtomicU32::new(0),
            model_switches: AtomicU32::new(0),
        }
    }

    /// `hook -> result (N µs)` when the run decided something, then `hook changed the …` for a
    /// change not reported before (with why, for the budget's model switch).
    pub fn lines(&self, run: &HookRun<'_>) -> Vec<String> {
        let mut lines = Vec::new();
        let quiet = matches!(
            run.result,
            RunResult::Done | RunResult::Recovery(None) | RunResult::Verdict(Verdict::Continue)
        );
        if run.hook != self.skip && !quiet {
            lines.push(format!(
                "{} -> {} ({} µs)",
                run.hook,
                run.result,
                run.duration.as_micros()
            ));
        }
        if let Some(change) = self.changes.observe(run) {
            let model = change.what.ends_with("model");
            let why = if model && change.hook == "builtin.budget" {
                " (the session passed the budget's soft limit: every model call from now on)"
            } else {
                ""
            };
            let counter = if model {
                &self.model_switches
            } else {
                &self.rewrites
            };
            counter.fetch_add(1, Ordering::Relaxed);
            lines.push(format!("{change}{why}"));
        }
        lines
    }

    /// How many distinct rewrites of a command, tool input or prompt were reported.
    pub fn rewrites(&self) -> u32 {
        self.rewrites.load(Ordering::Relaxed)
    }

    /// How many distinct model switches were reported.
    pub fn model_switches(&self) -> u32 {
        self.model_switches.load(Ordering::Relaxed)
    }
}

/// What is watched at `run`'s point: its name, the original and the current value.
fn watched(run: &HookRun<'_>) -> Option<(&'static str, String, String)> {
    let ctx = run.context;
    if let Some(c) = ctx.downcast_ref::<PreToolUse>() {
        let text = |v: &serde_json::Value| match v.get("command").and_then(|c| c.as_str()) {
            Some(command) if v.as_object().is_some_and(|o| o.len() == 1) => {
                format!("`{command}`")
            }
            _ => v.to_string(),
        };
        let what = if c.command().is_some() {
            "command"
        } else {
            "tool input"
        };
        return Some((
            what,
            text(c.tool_input.original()),
            text(c.tool_input.get()),
        ));
    }
    if let Some(c) = ctx.downcast_ref::<PreModelCall>() {
        return Some(("model", c.model.original().clone(), c.model.get().clone()));
    }
    if let Some(c) = ctx.downcast_ref::<SubagentStart>() {
        return Some((
            "subagent's model",
            c.model.original().clone(),
            c.model.get().clone(),
        ));
    }
    if let Some(c) = ctx.downcast_ref::<UserPromptSubmit>() {
        return Some((
            "prompt",
            c.prompt.original().clone(),
            c.prompt.get().clone(),
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use hookrail_core::Verdict;
    use hookrail_core::context::{Meta, PreModelCall, PreToolUse};
    use hookrail_core::points::{pre_model_call, pre_tool_use};
    use hookrail_core::runtime::{Hook, Hooks};
    use serde_json::json;

    use super::*;

    fn recorded(hooks: &Hooks) -> Arc<Mutex<Vec<String>>> {
        let changes = Changes::new();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let out = lines.clone();
        hooks.subscribe(move |run| {
            if let Some(change) = changes.observe(run) {
                out.lock().unwrap().push(change.to_string());
            }
        });
        lines
    }

    #[test]
    fn a_rewritten_command_is_reported_with_the_hook_that_rewrote_it() {
        let hooks = Hooks::builder()
            .ignore_env()
            .hook(Hook::<pre_tool_use::Point>::new("a_first", |_| {
                Verdict::Continue
            }))
            .hook(Hook::<pre_tool_use::Point>::new("b_rewrite", |ctx| {
                if ctx.command() == Some("ls") {
                    ctx.tool_input.set(json!({ "command": "ls -1" }));
                }
                Verdict::Continue
            }))
            .hook(Hook::<pre_tool_use::Point>::new("c_after", |_| {
                Verdict::Continue
            }))
            .build()
            .unwrap();
        let lines = recorded(&hooks);
        for command in ["ls", "pwd", "ls"] {
            let mut ctx = PreToolUse::new(Meta::new("s"), "Bash", json!({ "command": command }));
            let _ = hooks.dispatch::<pre_tool_use::Point>(&mut ctx);
        }
        assert_eq!(
            *lines.lock().unwrap(),
            ["b_rewrite changed the command: `ls` -> `ls -1`"]
        );
    }

    /// Decisions are shown, "no opinion" is not, and the budget's switch says why.
    #[test]
    fn the_narrator_shows_decisions_and_changes_and_counts_them() {
        let hooks = Hooks::builder()
            .ignore_env()
            .hook(Hook::<pre_model_call::Point>::new(
                "builtin.budget",
                |ctx| {
                    ctx.model.set("small".to_owned());
                    Verdict::Continue
                },
            ))
            .hook(Hook::<pre_tool_use::Point>::new("guard", |ctx| {
                if ctx.command() == Some("rm -rf /") {
                    Verdict::deny("not the root")
                } else {
                    Verdict::Continue
                }
            }))
            .build()
            .unwrap();
        let narrator = Arc::new(Narrator::new("trace"));
        let lines = Arc::new(Mutex::new(Vec::new()));
        let (n, out) = (narrator.clone(), lines.clone());
        hooks.subscribe(move |run| out.lock().unwrap().extend(n.lines(run)));
        for command in ["ls", "rm -rf /"] {
            let mut ctx = PreToolUse::new(Meta::new("s"), "Bash", json!({ "command": command }));
            let _ = hooks.dispatch::<pre_tool_use::Point>(&mut ctx);
        }
        let mut ctx = PreModelCall::new(Meta::new("s"), "large", Vec::new());
        let _ = hooks.dispatch::<pre_model_call::Point>(&mut ctx);
        let lines = lines.lock().unwrap().clone();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(
            lines[0].starts_with("guard -> deny: not the root ("),
            "{lines:?}"
        );
        assert_eq!(
            lines[1],
            "builtin.budget changed the model: large -> small (the session passed the budget's \
             soft limit: every model call from now on)"
        );
        assert_eq!((narrator.rewrites(), narrator.model_switches()), (0, 1));
    }

    #[test]
    fn a_model_switch_is_reported_once_and_a_second_switch_again() {
        let hooks = Hooks::builder()
            .ignore_env()
            .hook(Hook::<pre_model_call::Point>::new("budget", |ctx| {
                if ctx.model.get() == "large" {
                    ctx.model.set("small".to_owned());
                }
                Verdict::Continue
            }))
            .hook(Hook::<pre_model_call::Point>::new("z_pin", |ctx| {
                if ctx.meta.session_id.as_ref() == "pinned" {
                    ctx.model.set("pinned-model".to_owned());
                }
                Verdict::Continue
            }))
            .build()
            .unwrap();
        let lines = recorded(&hooks);
        for session in ["s", "s", "pinned"] {
            let mut ctx = PreModelCall::new(Meta::new(session), "large", Vec::new());
            let _ = hooks.dispatch::<pre_model_call::Point>(&mut ctx);
        }
        assert_eq!(
            *lines.lock().unwrap(),
            [
                "budget changed the model: large -> small",
                "z_pin changed the model: small -> pinned-model",
            ]
        );
    }
}
