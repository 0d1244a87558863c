//! `hooks scaffold`: a new hook's YAML and handler stub (seed 003 §5).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use crate::CliError;

/// Options of `hooks scaffold`.
#[derive(Debug, Args)]
pub struct ScaffoldArgs {
    /// The hook's id: letters, digits, `_` and `-`.
    pub id: String,
    /// The point (`pre_tool_use`) or an event name that maps to one (`PreToolUse`).
    #[arg(long)]
    pub event: String,
    /// The handler's language.
    #[arg(long, value_enum, default_value_t = Lang::Sh)]
    pub lang: Lang,
    /// The project root to write into (`.hooks/<id>.yaml`, `scripts/hooks/<id>.<ext>`).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
}

/// A handler language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Lang {
    /// POSIX sh.
    Sh,
    /// Python 3.
    Py,
}

pub fn run(args: ScaffoldArgs) -> Result<ExitCode, CliError> {
    if args.id.is_empty()
        || !args
            .id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(CliError::Input(format!(
            "invalid id `{}`: use letters, digits, `_` and `-`",
            args.id
        )));
    }
    let point = hookrail_config::events::resolve(&args.event)
        .map_err(|e| CliError::Input(e.to_string()))?;
    let ext = match args.lang {
        Lang::Sh => "sh",
        Lang::Py => "py",
    };
    let script_rel = format!("scripts/hooks/{}.{ext}", args.id);
    let yaml_path = args.dir.join(".hooks").join(format!("{}.yaml", args.id));
    let script_path = args.dir.join(&script_rel);
    for path in [&yaml_path, &script_path] {
        if path.exists() {
            return Err(CliError::Input(format!(
                "{} exists; not overwriting it",
                path.display()
            )));
        }
    }
    // Guards and transforms apply what a blocking hook answers; observe and recover points
    // take no answer from a command.
    let blocking = matches!(
        hookrail_config::events::kind_of(point),
        Some(hookrail_core::KindId::Guard | hookrail_core::KindId::Transform)
    );
    let matcher = if hookrail_config::matcher::target_of(point).is_some() {
        "match:\n  matcher: \"*\"            # Claude Code matcher: \"*\", exact names (A|B), or a regex\n"
    } else {
        ""
    };
    let command = match args.lang {
        Lang::Sh => format!("./{script_rel}"),
        Lang::Py => format!("python3 ./{script_rel}"),
    };
    let yaml = format!(
        "# Declared by `hooks scaffold`. The project file (hooks.yaml) must say `enabled: true`,\n\
         # and the command must be allow-listed or approved (`hooks trust`) before it runs.\n\
         id: {id}\n\
         event_type: {point}\n\
         enabled: true\n\
         blocking: {blocking}\n\
         summary: TODO say what this hook is for\n\
         {matcher}\
         handler:\n  command: {command}\n\
         timeout_ms: 5000\n",
        id = args.id,
    );
    let script = match args.lang {
        Lang::Sh => sh_stub(point),
        Lang::Py => py_stub(point),
    };
    write_new(&yaml_path, &yaml, false)?;
    write_new(&script_path, &script, true)?;
    println!("wrote {}", yaml_path.display());
    println!("wrote {}", script_path.display());
    println!("check it with: hooks validate {}", yaml_path.display());
    Ok(ExitCode::SUCCESS)
}

fn write_new(path: &Path, text: &str, executable: bool) -> Result<(), CliError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(CliError::io(parent))?;
    }
    std::fs::write(path, text).map_err(CliError::io(path))?;
    #[cfg(unix)]
    if executable {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .map_err(CliError::io(path))?;
    }
    #[cfg(not(unix))]
    let _ = executable;
    Ok(())
}

fn sh_stub(point: &str) -> String {
    format!(
        r#"#!/bin/sh
# A `{point}` hook. It reads the event as JSON on stdin (Claude Code's field names) and
# answers on stdout:
#   exit 0, no output                     no opinion
#   exit 0, {{"decision": "block", "reason": "..."}}   block (guard points)
#   exit 2, reason on stderr              block
#   any other exit code                   a hook failure (guards fail closed by default)
event=$(cat)
# Example: deny when the event mentions "forbidden".
case "$event" in
  *forbidden*) echo "forbidden is forbidden" >&2; exit 2 ;;
esac
exit 0
"#
    )
}

fn py_stub(point: &str) -> String {
    format!(
        r#"#!/usr/bin/env python3
"""A `{point}` hook: reads the event as JSON on stdin, answers with JSON on stdout.

exit 0 and no output: no opinion; {{"decision": "block", "reason": "..."}}: block;
exit 2 with a reason on stderr: block; any other exit code: a hook failure.
"""
import json
import sys

event = json.load(sys.stdin)
# Example: deny when the event mentions "forbidden".
if "forbidden" in json.dumps(event):
    print(json.dumps({{"decision": "block", "reason": "forbidden is forbidden"}}))
sys.exit(0)
"#
    )
}
