//! The guard as a provider: the `pre_tool_use` hook, and the tools whose input it judges.

use std::borrow::Cow;

use hookrail_core::context::PreToolUse;
use hookrail_core::runtime::{HooksProvider, PointSet};
use hookrail_core::{HookResult, Verdict};
use serde_json::Value;

use super::CommandGuard;
use crate::shell;

impl HooksProvider for CommandGuard {
    fn name(&self) -> &str {
        "builtin.command_guard"
    }

    /// The points of the methods below: the provider is not entered anywhere else.
    fn points(&self) -> PointSet {
        PointSet::PRE_TOOL_USE
    }

    fn pre_tool_use(&self, ctx: &mut PreToolUse) -> HookResult<Verdict> {
        if !self.config.shell_tools.contains(&ctx.tool_name) {
            return Ok(self.other_tool(ctx));
        }
        let verdict = match command_text(ctx.tool_input.get()) {
            Some(command) => self.check_in(&command, ctx.meta.project_root(), &ctx.meta.cwd),
            None => Verdict::deny(format!(
                "command-guard rule parse-error: no command found in the input of {}, so it is denied",
                ctx.tool_name
            )),
        };
        if let Some(reason) = verdict.reason() {
            tracing::debug!(tool = %ctx.tool_name, %reason, "command-guard");
        }
        Ok(verdict)
    }
}

impl CommandGuard {
    /// A tool no list knows is still judged by what its input says (DESIGN §10): a `command`
    /// or `cmd` string or argv array (an MCP server's `exec`, a shell tool of an agent the lists do not know
    /// yet) is judged as a shell command, and the reason says why a tool of that name was. A
    /// tool the lists name is left as configured: a shell tool taken out of `shell_tools`
    /// stays out, and the file tools' inputs hold no command.
    fn other_tool(&self, ctx: &PreToolUse) -> Verdict {
        let input = ctx.tool_input.get();
        let tool = ctx.tool_name.as_str();
        let Some(mut command) = command_text(input) else {
            return Verdict::Continue;
        };
        // The usual shape of an MCP server's exec tool: `{"command": "rm", "args": [...]}`.
        if let Some(Value::Array(args)) = input.get("args") {
            let words: Option<Vec<_>> = args.iter().map(|a| a.as_str().map(shell::quote)).collect();
            if let Some(words) = words.filter(|w| !w.is_empty()) {
                command = Cow::Owned(format!("{command} {}", words.join(" ")));
            }
        }
        let known = [
            crate::tools::SHELL_TOOLS,
            crate::tools::WRITE_TOOLS,
            crate::tools::READ_TOOLS,
        ];
        if known.iter().any(|list| list.contains(&tool)) {
            return Verdict::Continue;
        }
        let why = |reason: &str| {
            format!(
                "{reason} (tool `{}` is not one of the guard's shell tools; its `command` was judged as a shell command)",
                tool.escape_debug()
            )
        };
        match self.check_in(&command, ctx.meta.project_root(), &ctx.meta.cwd) {
            // Text that is not shell (a query, a slash command) says nothing about a shell.
            Verdict::Deny(reason) | Verdict::Ask(reason)
                if reason.starts_with("command-guard rule parse-error") =>
            {
                Verdict::Continue
            }
            Verdict::Deny(reason) => Verdict::deny(why(&reason)),
            Verdict::Ask(reason) => Verdict::ask(why(&reason)),
            other => other,
        }
    }
}

/// The command of a shell tool's input: a `command` or `cmd` string, or an argv array
/// (Codex's `shell` tool: `["bash", "-lc", "…"]`), quoted back into a command line.
fn command_text(input: &Value) -> Option<Cow<'_, str>> {
    match input.get("command").or_else(|| input.get("cmd"))? {
        Value::String(command) => Some(Cow::Borrowed(command)),
        Value::Array(argv) => {
            let words: Option<Vec<_>> = argv.iter().map(|w| w.as_str().map(shell::quote)).collect();
            Some(Cow::Owned(words?.join(" ")))
        }
        _ => None,
    }
}
