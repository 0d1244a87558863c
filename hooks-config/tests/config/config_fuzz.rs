//! The loaders never panic: arbitrary text, arbitrary bytes and mutated valid files of every
//! format (ours and Claude Code's) give either a config (maybe with problems) or one
//! file-level problem, and what loads is consistent.

use std::path::Path;

use hookrail_config::file::{Format, LoadedConfig, Problem, parse_claude, parse_project};
use proptest::prelude::*;

const YAML: &str = r#"enabled: true
sequential: false
allow: ["./hooks/*", "cargo fmt"]
builtin: { secrets: { enabled: true } }
hooks:
  - id: guard
    event_type: PreToolUse
    match: { matcher: "Edit|Write", ability_scope: ["*"] }
    handler: { kind: command, command: ./guard.sh, env: { A: b } }
    timeout_ms: 500
    on_error: deny
    order: -1
    effects: [x, { y: z }]
  - id: hook2
    event_type: session_end
    match: { only_if_changed_paths: ["src/**"], min_duration_ms: 3 }
    handler: { kind: http, url: "https://x.test/h", headers: { A: "b" } }
    timeout: 5
"#;

const TOML: &str = r#"enabled = true
allow = ["./hooks/*"]

[[hooks]]
id = "guard"
event_type = "PreToolUse"
timeout_ms = 500
match = { matcher = "Bash", ability_scope = ["*"] }
handler = { kind = "command", args = ["./guard", "-x"] }

[[hooks]]
id = "end"
event_type = "SessionStop"
handler = { url = "http://127.0.0.1:1/x" }
"#;

const JSON: &str = r#"{"enabled": true, "hooks": [
  {"id": "guard", "event_type": "pre_tool_use", "match": {"matcher": "mcp__.*"},
   "handler": {"command": "./g.sh"}, "timeout": 2.5, "on_error": "ignore"},
  {"id": "n", "event_type": "Notification", "handler": {"args": ["notify-send", "hi"]}}
]}"#;

const CLAUDE: &str = r#"{"model": "x", "hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "./a.sh", "timeout": 30},
    {"type": "http", "url": "https://h.test", "headers": {"A": "${T}"}, "allowedEnvVars": ["T"]}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "./s.sh", "args": ["x"], "async": true}]}],
  "PermissionRequest": [{"hooks": [{"type": "command", "command": "x"}]}]
}}"#;

/// What a load must look like whatever the input: problems name the file, loaded ids are
/// unique, and a file-level problem has a message.
fn check(result: Result<LoadedConfig, Problem>, file: &Path) {
    match result {
        Ok(config) => {
            for problem in &config.problems {
                assert_eq!(problem.location.file.as_path(), file);
                assert!(!problem.message.is_empty());
            }
            let mut ids: Vec<&str> = config
                .hooks
                .iter()
                .chain(&config.dormant)
                .map(|h| h.id.as_str())
                .collect();
            let count = ids.len();
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(ids.len(), count, "duplicate ids loaded");
            if !config.enabled {
                assert!(config.hooks.is_empty());
            }
        }
        Err(problem) => {
            assert_eq!(problem.location.file.as_path(), file);
            assert!(!problem.message.is_empty());
        }
    }
}

fn load_all(text: &str) {
    for format in [Format::Yaml, Format::Toml, Format::Json] {
        let file = Path::new("hooks.any");
        check(parse_project(text, format, file), file);
    }
    let file = Path::new("settings.json");
    check(parse_claude(text, file, None), file);
}

/// An edit of a valid file: delete, insert syntax-heavy text, duplicate or swap.
#[derive(Debug, Clone)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, String),
    DuplicateLine(usize),
    Swap(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 1usize..8).prop_map(|(at, len)| Edit::Delete(at, len)),
        (
            any::<usize>(),
            "[-:\\[\\]{}\"',#&*!|>\\\\ \n\tA-Za-z0-9.]{1,6}"
        )
            .prop_map(|(at, s)| Edit::Insert(at, s)),
        any::<usize>().prop_map(Edit::DuplicateLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Swap(a, b)),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in edits {
        let n = chars.len().max(1);
        match e {
            Edit::Delete(at, len) => {
                let at = at % n;
                let end = (at + len).min(chars.len());
                if at < end {
                    chars.drain(at..end);
                }
            }
            Edit::Insert(at, s) => {
                let at = at % (chars.len() + 1);
                chars.splice(at..at, s.chars());
            }
            Edit::DuplicateLine(line) => {
                let text: String = chars.iter().collect();
                let lines: Vec<&str> = text.lines().collect();
                if !lines.is_empty() {
                    let i = line % lines.len();
                    let mut out = lines.clone();
                    out.insert(i, lines[i]);
                    chars = out.join("\n").chars().collect();
                }
            }
            Edit::Swap(a, b) => {
                if !chars.is_empty() {
                    let (a, b) = (a % chars.len(), b % chars.len());
                    chars.swap(a, b);
                }
            }
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        load_all(&text);
    }

    #[test]
    fn syntax_soup_never_panics(text in "[-:\\[\\]{}\"',#&*!|>@%=\\\\ \n\tA-Za-z0-9_.]{0,120}") {
        load_all(&text);
    }

    #[test]
    fn mutated_yaml_never_panics(edits in prop::collection::vec(edit(), 1..6)) {
        let text = apply(YAML, &edits);
        let file = Path::new("hooks.yaml");
        check(parse_project(&text, Format::Yaml, file), file);
    }

    #[test]
    fn mutated_toml_never_panics(edits in prop::collection::vec(edit(), 1..6)) {
        let text = apply(TOML, &edits);
        let file = Path::new("hooks.toml");
        check(parse_project(&text, Format::Toml, file), file);
    }

    #[test]
    fn mutated_json_never_panics(edits in prop::collection::vec(edit(), 1..6)) {
        let text = apply(JSON, &edits);
        let file = Path::new("hooks.json");
        check(parse_project(&text, Format::Json, file), file);
    }

    #[test]
    fn mutated_claude_settings_never_panic(edits in prop::collection::vec(edit(), 1..6)) {
        let text = apply(CLAUDE, &edits);
        let file = Path::new("settings.json");
        check(parse_claude(&text, file, None), file);
    }
}

proptest! {
    // Files on disk: fewer cases, since each writes a file.
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_in_files_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let dir = tempfile::tempdir().unwrap();
        for name in ["hooks.yaml", "hooks.toml", "hooks.json"] {
            let path = dir.path().join(name);
            std::fs::write(&path, &bytes).unwrap();
            check(hookrail_config::file::load_project_file(&path), &path);
        }
        let path = dir.path().join("settings.json");
        std::fs::write(&path, &bytes).unwrap();
        check(hookrail_config::file::load_claude_settings(&path), &path);
        std::fs::create_dir_all(dir.path().join(".hooks")).unwrap();
        std::fs::write(dir.path().join(".hooks/a.yaml"), &bytes).unwrap();
        let loaded = hookrail_config::file::load_hooks_dir(&dir.path().join(".hooks"), true);
        prop_assert!(loaded.is_ok());
    }
}

#[test]
fn the_seed_files_are_valid_before_mutation() {
    for (text, format) in [
        (YAML, Format::Yaml),
        (TOML, Format::Toml),
        (JSON, Format::Json),
    ] {
        let config = parse_project(text, format, Path::new("f")).unwrap();
        assert!(
            config.problems.is_empty(),
            "{format}: {:?}",
            config.problems
        );
        assert_eq!(config.hooks.len(), 2, "{format}");
    }
    let claude = parse_claude(CLAUDE, Path::new("s"), None).unwrap();
    // Every event is supported, PermissionRequest included.
    assert!(claude.problems.is_empty(), "{:?}", claude.problems);
    assert_eq!(claude.hooks.len(), 4);
}

#[test]
fn hostile_nesting_and_aliases_are_problems_not_crashes() {
    let deep_flow = "[".repeat(100_000);
    let deep_block: String = (0..2000)
        .map(|i| format!("{}a:\n", "  ".repeat(i)))
        .collect();
    let deep_json = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    // Within serde_json's limit: walked by the position scanner.
    let deepest_json = format!("{}{}", "[".repeat(127), "]".repeat(127));
    let deep_toml = format!("a = {}{}", "[".repeat(500), "]".repeat(500));
    let bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n";
    for text in [
        &deep_flow,
        &deep_block,
        &deep_json,
        &deepest_json,
        &deep_toml,
        &bomb.to_owned(),
    ] {
        load_all(text);
    }
}
