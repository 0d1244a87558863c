//! Which tools run shell commands, write files or read files, and where their inputs say so.
//!
//! Agent runtimes name the same tools differently (Claude Code's `Bash` and `Write`, Codex's
//! `shell` and `apply_patch`, Gemini CLI's `run_shell_command` and `write_file`). The lists
//! here are the defaults of every policy that looks at tools; each policy's settings can
//! replace them.

use serde_json::Value;

/// Tools whose `command` input is a shell command line.
pub const SHELL_TOOLS: &[&str] = &[
    "Bash",
    "bash",
    "shell",
    "Shell",
    "exec_command",
    "run_shell_command",
    "local_shell",
    "terminal",
];

/// Tools that create, change or delete files.
pub const WRITE_TOOLS: &[&str] = &[
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "write_file",
    "replace",
    "edit_file",
    "apply_patch",
];

/// Tools that read files or list their contents.
pub const READ_TOOLS: &[&str] = &[
    "Read",
    "Grep",
    "Glob",
    "LS",
    "NotebookRead",
    "read_file",
    "read_many_files",
    "search_file_content",
    "glob",
    "list_directory",
];

/// Owned copies of a default list, for a policy's settings.
pub fn owned(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

/// Every file path a tool input names: `file_path`, `path`, `notebook_path`, each string of
/// `paths`, and the files an `apply_patch` patch adds, updates, deletes or moves to
/// (`*** Update File: src/a.rs`, in `input` or `patch`).
///
/// ```
/// use serde_json::json;
///
/// let input = json!({"file_path": "src/main.rs", "paths": ["a", "b"]});
/// assert_eq!(hookrail_builtin::tools::paths_in(&input), ["src/main.rs", "a", "b"]);
///
/// let patch = json!({"input": "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n*** End Patch"});
/// assert_eq!(hookrail_builtin::tools::paths_in(&patch), ["src/lib.rs"]);
/// ```
pub fn paths_in(input: &Value) -> Vec<&str> {
    let mut out = Vec::new();
    for key in ["file_path", "path", "notebook_path"] {
        if let Some(p) = input.get(key).and_then(Value::as_str) {
            out.push(p);
        }
    }
    if let Some(list) = input.get("paths").and_then(Value::as_array) {
        out.extend(list.iter().filter_map(Value::as_str));
    }
    for key in ["input", "patch"] {
        if let Some(patch) = input.get(key).and_then(Value::as_str) {
            out.extend(patch_paths(patch));
        }
    }
    out
}

/// The name of a path field of `input` ([`paths_in`]'s `file_path`, `path`, `notebook_path`,
/// `paths`) whose value is neither a string (`paths`: a list of strings) nor absent or null.
/// [`paths_in`] skips such a value, yet the tool may still act on some path: a guard that
/// cannot tell which refuses the call.
///
/// ```
/// use serde_json::json;
/// use hookrail_builtin::tools::malformed_path_field;
///
/// assert_eq!(malformed_path_field(&json!({"file_path": [".env"]})), Some("file_path"));
/// assert_eq!(malformed_path_field(&json!({"paths": ["a", 3]})), Some("paths"));
/// assert_eq!(malformed_path_field(&json!({"file_path": "a", "paths": null})), None);
/// ```
pub fn malformed_path_field(input: &Value) -> Option<&'static str> {
    for key in ["file_path", "path", "notebook_path"] {
        match input.get(key) {
            None | Some(Value::Null | Value::String(_)) => {}
            Some(_) => return Some(key),
        }
    }
    match input.get("paths") {
        None | Some(Value::Null) => None,
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => None,
        Some(_) => Some("paths"),
    }
}

/// The files an `apply_patch` patch touches.
fn patch_paths(patch: &str) -> impl Iterator<Item = &str> {
    const HEADERS: [&str; 4] = [
        "*** Add File: ",
        "*** Update File: ",
        "*** Delete File: ",
        "*** Move to: ",
    ];
    patch.lines().filter_map(|line| {
        HEADERS
            .iter()
            .find_map(|h| line.trim_start().strip_prefix(h))
            .map(str::trim)
            .filter(|p| !p.is_empty())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_path_field_is_found() {
        let input = json!({"notebook_path": "n.ipynb", "path": "dir"});
        assert_eq!(paths_in(&input), ["dir", "n.ipynb"]);
    }

    #[test]
    fn patch_headers_of_every_kind_are_found_and_others_ignored() {
        let patch = "*** Begin Patch\n*** Add File: a\n+x\n*** Delete File: b\n\
                     *** Update File: c\n*** Move to: d\n@@ *** Update File: not-a-header\n";
        assert_eq!(paths_in(&json!({ "patch": patch })), ["a", "b", "c", "d"]);
    }

    #[test]
    fn non_string_fields_are_ignored() {
        assert!(paths_in(&json!({"file_path": 3, "paths": [1, null]})).is_empty());
    }
}
