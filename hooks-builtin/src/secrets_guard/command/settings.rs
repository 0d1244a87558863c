//! Commands that reach an agent's settings by another way than naming the file: a settings
//! directory removed or moved away, and links the same line makes to it.

use std::path::{Path, PathBuf};

use super::super::rules::{self, SETTINGS_DIRS};
use super::substitute;
use crate::shell::Command;

/// Programs that remove, or move away, what they are given.
const REMOVERS: &[&str] = &["rm", "rmdir", "mv", "unlink", "shred", "trash", "trash-put"];

/// The operand of a [`REMOVERS`] command that is an agent's [`SETTINGS_DIRS`] directory, as
/// written and resolved (lexically). An agent reads its settings from the project root and
/// the home directory, so only a settings directory there (or in a parent of the root) counts:
/// a fixture's or a package's `.claude` is the agent's to change. `mv`'s destination is not
/// removed (`mv notes.md .claude/`); the settings files moved onto are judged as written.
pub(super) fn removed_settings_dir(
    cmd: &Command,
    cwd: &Path,
    root: &Path,
    home: Option<&Path>,
) -> Option<(String, PathBuf)> {
    let base = match &cmd.dir {
        Some(dir) => rules::lexical(&substitute(dir), cwd, home),
        None => cwd.to_path_buf(),
    };
    if cmd.program == "find" {
        return find_removes_settings(cmd, &base, root, home);
    }
    if !REMOVERS.contains(&cmd.program.as_str()) {
        return None;
    }
    let mut operands: Vec<&String> = Vec::new();
    let mut target_given = false;
    let mut args = cmd.args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--" => operands.extend(args.by_ref()),
            "-t" | "--target-directory" => {
                target_given = true;
                args.next();
            }
            a if a.starts_with("--target-directory=") => target_given = true,
            a if a.starts_with('-') && a.len() > 1 => {}
            _ => operands.push(arg),
        }
    }
    if cmd.program == "mv" && !target_given {
        operands.pop();
    }
    operands.into_iter().find_map(|arg| {
        let path = rules::lexical(&substitute(arg), &base, home);
        let name = path.file_name()?.to_str()?;
        let parent = path.parent()?;
        let read_there = root.starts_with(parent) || home.is_some_and(|h| h == parent);
        (read_there && SETTINGS_DIRS.iter().any(|d| d.eq_ignore_ascii_case(name)))
            .then(|| (arg.clone(), path))
    })
}

/// `find` that removes what it finds (`-delete`, or `-exec rm`/`-execdir mv`/… of a
/// [`REMOVERS`] program) by a name filter that matches a settings directory (`-name .claude`,
/// `-iname '.gem*'`), from a start directory above where the agent reads one (the project
/// root, a parent, the home directory): the start directory as written, and where the
/// settings directory it reaches is.
fn find_removes_settings(
    cmd: &Command,
    base: &Path,
    root: &Path,
    home: Option<&Path>,
) -> Option<(String, PathBuf)> {
    let args = &cmd.args;
    let removes = args.iter().zip(args.iter().skip(1)).any(|(a, next)| {
        a == "-delete"
            || (matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")
                && (Path::new(next).file_name().and_then(|n| n.to_str()))
                    .is_some_and(|n| REMOVERS.contains(&n)))
    }) || args.last().is_some_and(|a| a == "-delete");
    if !removes {
        return None;
    }
    // A name followed by `-prune` is kept out (`-name .claude -prune -o … -delete`).
    let names = args.windows(3).filter_map(|w| {
        (matches!(w[0].as_str(), "-name" | "-iname" | "-path" | "-ipath") && w[2] != "-prune")
            .then_some(&w[1])
    });
    let names = names.chain(
        args.len()
            .checked_sub(2)
            .map(|at| &args[at..])
            .filter(|w| matches!(w[0].as_str(), "-name" | "-iname" | "-path" | "-ipath"))
            .map(|w| &w[1]),
    );
    let settings = names.filter_map(|pattern| {
        let glob = globset::GlobBuilder::new(pattern.trim_start_matches("*/"))
            .case_insensitive(true)
            .build()
            .ok()?
            .compile_matcher();
        SETTINGS_DIRS.iter().find(|d| glob.is_match(d))
    });
    let dir = settings.into_iter().next()?;
    let starts: Vec<&String> = args
        .iter()
        .take_while(|a| !a.starts_with(['-', '(', '!']))
        .collect();
    let dot = String::from(".");
    let starts = if starts.is_empty() {
        vec![&dot]
    } else {
        starts
    };
    starts.into_iter().find_map(|start| {
        let path = rules::lexical(&substitute(start), base, home);
        let reaches = |place: &Path| place.starts_with(&path);
        if reaches(root) {
            Some((start.clone(), root.join(dir)))
        } else {
            home.filter(|h| reaches(h))
                .map(|h| (start.clone(), h.join(dir)))
        }
    })
}
