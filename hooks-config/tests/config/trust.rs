//! Which configured handlers may run: allow entries against look-alikes, fingerprints of the
//! scripts a command runs, the approvals file on disk, and the gate's reasons.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use hookrail_config::file::{Format, parse_project};
use hookrail_config::spec::{CommandHandler, CommandLine, Handler};
use hookrail_config::trust::{
    Admission, AllowList, AllowedBy, Gate, TrustError, TrustStore, fingerprint,
};
use proptest::prelude::*;

use super::handlers::{exec, http, shell, spec, with_env, write};

fn allow(patterns: &[&str]) -> AllowList {
    AllowList::new(patterns.iter().copied()).unwrap()
}

fn reason(admission: Admission) -> String {
    match admission {
        Admission::Skipped { reason } => reason,
        allowed => panic!("expected a skip, got {allowed:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Allow entries
// ---------------------------------------------------------------------------------------------

#[test]
fn allow_entries_admit_plain_arguments_and_refuse_look_alikes() {
    const HOOKS: &str = "./scripts/hooks/*";
    const DEEP: &str = "./scripts/hooks/**";
    // (case, entry, shell command, admitted)
    let cases: &[(&str, &str, &str, bool)] = &[
        (
            "script in the directory",
            HOOKS,
            "./scripts/hooks/a.sh",
            true,
        ),
        ("with a flag", HOOKS, "./scripts/hooks/a.sh --flag", true),
        (
            "flag with a value",
            HOOKS,
            "./scripts/hooks/a.sh --mode=strict -n 3",
            true,
        ),
        ("non-ASCII name", HOOKS, "./scripts/hooks/résumé.sh", true),
        (
            "chained with ;",
            HOOKS,
            "./scripts/hooks/a.sh; rm -rf x",
            false,
        ),
        (
            "chained with ; and no space",
            HOOKS,
            "./scripts/hooks/a.sh;rm -rf x",
            false,
        ),
        (
            "chained with &&",
            HOOKS,
            "./scripts/hooks/a.sh && curl x",
            false,
        ),
        (
            "chained with ||",
            HOOKS,
            "./scripts/hooks/a.sh || curl x",
            false,
        ),
        ("piped", HOOKS, "./scripts/hooks/a.sh | sh", false),
        (
            "backgrounded",
            HOOKS,
            "./scripts/hooks/a.sh & curl x",
            false,
        ),
        (
            "command substitution",
            HOOKS,
            "./scripts/hooks/a.sh $(curl x)",
            false,
        ),
        ("backticks", HOOKS, "./scripts/hooks/a.sh `curl x`", false),
        ("variable", HOOKS, "./scripts/hooks/a.sh $EVIL", false),
        ("redirection", HOOKS, "./scripts/hooks/a.sh >.bashrc", false),
        (
            "input redirection",
            HOOKS,
            "./scripts/hooks/a.sh <id_rsa",
            false,
        ),
        ("second line", HOOKS, "./scripts/hooks/a.sh\ncurl x", false),
        (
            "parent directory",
            HOOKS,
            "./scripts/hooks/../../evil.sh",
            false,
        ),
        (
            "parent directory, deep entry",
            DEEP,
            "./scripts/hooks/../../evil.sh",
            false,
        ),
        (
            "parent directory as argument",
            HOOKS,
            "./scripts/hooks/a.sh ..",
            false,
        ),
        (
            "quotes joining dots",
            DEEP,
            "./scripts/hooks/.'.'/evil.sh",
            false,
        ),
        (
            "backslashes joining dots",
            DEEP,
            r"./scripts/hooks/\.\./evil.sh",
            false,
        ),
        ("glob making ..", DEEP, "./scripts/hooks/.?/evil.sh", false),
        (
            "class making ..",
            DEEP,
            "./scripts/hooks/.[.]/evil.sh",
            false,
        ),
        (
            "brace expansion",
            DEEP,
            "./scripts/hooks/{.,x}./evil.sh",
            false,
        ),
        (
            "quoted argument",
            HOOKS,
            "./scripts/hooks/a.sh 'x y'",
            false,
        ),
        ("tilde argument", HOOKS, "./scripts/hooks/a.sh ~", false),
        (
            "subdirectory under *",
            HOOKS,
            "./scripts/hooks/sub/a.sh",
            false,
        ),
        (
            "subdirectory under **",
            DEEP,
            "./scripts/hooks/sub/a.sh",
            true,
        ),
        (
            "argument with a path under *",
            HOOKS,
            "./scripts/hooks/a.sh --out=/tmp/x",
            false,
        ),
        (
            "argument with a path under **",
            DEEP,
            "./scripts/hooks/a.sh --out=/tmp/x",
            true,
        ),
        (
            "sibling directory",
            HOOKS,
            "./scripts/hooks-evil/a.sh",
            false,
        ),
        (
            "longer directory name",
            "./scripts/hook*",
            "./scripts/hooks/a.sh",
            false,
        ),
        (
            "same path elsewhere",
            HOOKS,
            "/tmp/scripts/hooks/a.sh",
            false,
        ),
        ("prefixed", HOOKS, "sh ./scripts/hooks/a.sh", false),
        ("leading space", HOOKS, " ./scripts/hooks/a.sh", false),
        (
            "exact entry",
            "./lint.sh | tee lint.log",
            "./lint.sh | tee lint.log",
            true,
        ),
        (
            "exact entry, more after",
            "./lint.sh | tee lint.log",
            "./lint.sh | tee lint.log; curl x",
            false,
        ),
        (
            "literal pipe, plain wildcard",
            "./lint.sh | tee *",
            "./lint.sh | tee lint.log",
            true,
        ),
        (
            "literal pipe, second pipe",
            "./lint.sh | tee *",
            "./lint.sh | tee lint.log | sh",
            false,
        ),
        (
            "literal ..",
            "../shared/hooks/*",
            "../shared/hooks/a.sh",
            true,
        ),
        (
            "a broad entry admits what it says",
            "node **",
            "node --require=/tmp/x.js",
            true,
        ),
        ("? is literal", "./a.sh ?", "./a.sh x", false),
        ("[ is literal", "jq '.[0]' *", "jq '.0' in.json", false),
        (
            "[ is literal, exact text",
            "jq '.[0]' *",
            "jq '.[0]' in.json",
            true,
        ),
        ("a * in the text needs an exact entry", "ls *", "ls *", true),
        ("a * in the text is not plain", "ls -l *", "ls -l *", true),
        ("a * in the text under a wildcard", "ls *", "ls -l *", false),
        (
            "interpreter entry",
            "python3 ./scripts/hooks/*",
            "python3 ./scripts/hooks/a.py",
            true,
        ),
        (
            "interpreter entry, inline code",
            "python3 ./scripts/hooks/*",
            "python3 -c 'import os' ./scripts/hooks/a.py",
            false,
        ),
        (
            "$CLAUDE_PROJECT_DIR as written",
            "$CLAUDE_PROJECT_DIR/.claude/hooks/*",
            "$CLAUDE_PROJECT_DIR/.claude/hooks/fmt.sh",
            true,
        ),
        (
            "$CLAUDE_PROJECT_DIR quoted differently",
            "$CLAUDE_PROJECT_DIR/.claude/hooks/*",
            "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/fmt.sh",
            false,
        ),
        (
            "$CLAUDE_PROJECT_DIR expanded",
            "$CLAUDE_PROJECT_DIR/.claude/hooks/*",
            "/home/me/p/.claude/hooks/fmt.sh",
            false,
        ),
        (
            "${CLAUDE_PROJECT_DIR} braces are literal",
            "${CLAUDE_PROJECT_DIR}/.claude/hooks/*",
            "${CLAUDE_PROJECT_DIR}/.claude/hooks/fmt.sh",
            true,
        ),
        (
            "${CLAUDE_PROJECT_DIR} is not an alternation",
            "${CLAUDE_PROJECT_DIR}/.claude/hooks/*",
            "$CLAUDE_PROJECT_DIR/.claude/hooks/fmt.sh",
            false,
        ),
        (
            "quoted ${CLAUDE_PLUGIN_ROOT}",
            "\"${CLAUDE_PLUGIN_ROOT}\"/hooks/*",
            "\"${CLAUDE_PLUGIN_ROOT}\"/hooks/x.sh --y",
            true,
        ),
    ];
    assert!(cases.len() >= 20);
    let mut wrong = Vec::new();
    for (case, entry, command, admitted) in cases {
        let got = allow(&[entry]).matching(&shell(command)).is_some();
        if got != *admitted {
            wrong.push(format!("{case}: `{entry}` vs `{command}`: admitted {got}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn matching_names_the_first_entry_that_admits() {
    let list = allow(&["./other/*", "./scripts/hooks/*", "./scripts/**"]);
    assert_eq!(
        list.matching(&shell("./scripts/hooks/a.sh")),
        Some("./scripts/hooks/*")
    );
    assert_eq!(
        list.matching(&shell("./scripts/x/a.sh")),
        Some("./scripts/**")
    );
    assert_eq!(list.matching(&shell("./elsewhere.sh")), None);
    assert_eq!(AllowList::default().matching(&shell("./a.sh")), None);
    assert!(AllowList::default().is_empty());
}

#[test]
fn exec_forms_are_matched_as_displayed_under_the_same_rules() {
    let list = allow(&["./scripts/hooks/*"]);
    let cases: &[(&[&str], bool)] = &[
        (&["./scripts/hooks/track.py", "--slow"], true),
        (&["./scripts/hooks/track.py"], true),
        // An argument with a space is shown quoted: quotes are not plain text.
        (&["./scripts/hooks/track.py", "two words"], false),
        // No shell runs it, but `bash -c` could: the same rule for both forms.
        (&["./scripts/hooks/track.py", "x;y"], false),
        (&["./scripts/hooks/../evil.py"], false),
        (&["bash", "-c", "./scripts/hooks/a.sh"], false),
        (&["./scripts/hooks/a b.sh"], false),
    ];
    for (args, admitted) in cases {
        assert_eq!(list.matching(&exec(args)).is_some(), *admitted, "{args:?}");
    }
    // Shell and exec forms with the same text are admitted by the same exact entry.
    let exact = allow(&["bash -c ./scripts/hooks/a.sh"]);
    assert!(
        exact
            .matching(&exec(&["bash", "-c", "./scripts/hooks/a.sh"]))
            .is_some()
    );
    assert!(
        exact
            .matching(&shell("bash -c ./scripts/hooks/a.sh"))
            .is_some()
    );
}

#[test]
fn a_commands_env_is_part_of_the_text_entries_match() {
    let list = allow(&["./scripts/hooks/*"]);
    // BASH_ENV makes bash source a file first: the entry for the script does not cover it.
    let sneaky = with_env("./scripts/hooks/a.sh", &[("BASH_ENV", "./evil.sh")]);
    assert_eq!(list.matching(&sneaky), None);
    let strict = with_env("./scripts/hooks/guard.py", &[("GUARD_MODE", "strict")]);
    assert_eq!(list.matching(&strict), None);
    let with_mode = allow(&["GUARD_MODE=strict ./scripts/hooks/*"]);
    assert!(with_mode.matching(&strict).is_some());
    assert_eq!(with_mode.matching(&sneaky), None);
    // Values that are not plain are shown single-quoted, as a shell would need them.
    let spaced = with_env("./x.sh", &[("A", "1"), ("MSG", "a b"), ("Q", "it's")]);
    assert!(
        allow(&[r"A=1 MSG='a b' Q='it'\''s' ./x.sh"])
            .matching(&spaced)
            .is_some()
    );
}

#[test]
fn url_entries_admit_the_url_and_refuse_look_alikes() {
    let cases: &[(&str, &str, bool)] = &[
        (
            "https://audit.example.com/*",
            "https://audit.example.com/hooks",
            true,
        ),
        (
            "https://audit.example.com/*",
            "https://audit.example.com/",
            true,
        ),
        (
            "https://audit.example.com/*",
            "https://audit.example.com/hooks/x",
            false,
        ),
        (
            "https://audit.example.com/**",
            "https://audit.example.com/hooks/x",
            true,
        ),
        (
            "https://audit.example.com/**",
            "https://audit.example.com/../x",
            false,
        ),
        (
            "https://audit.example.com/*",
            "https://audit.example.com.evil.com/hooks",
            false,
        ),
        (
            "https://audit.example.com/*",
            "https://audit.example.com@evil.com/",
            false,
        ),
        (
            "https://audit.example.com/*",
            "https://audit.example.com/h?to=evil.com",
            false,
        ),
        (
            "https://audit.example.com/*",
            "https://audit.example.com/h#x",
            false,
        ),
        (
            "https://audit.example.com/*",
            "https://audit.example.com/h%2F..%2Fx",
            false,
        ),
        (
            "https://audit.example.com/*",
            "http://audit.example.com/hooks",
            false,
        ),
        (
            "https://audit.example.com/h?*",
            "https://audit.example.com/h?a=1&b=2",
            true,
        ),
        (
            "https://*.example.com/hooks",
            "https://a.b.example.com/hooks",
            true,
        ),
        (
            "https://*.example.com/hooks",
            "https://example.com/hooks",
            false,
        ),
        (
            "https://*.example.com/hooks",
            "https://evil.com?.example.com/hooks",
            false,
        ),
        (
            "https://*.example.com/hooks",
            "https://evil.com#.example.com/hooks",
            false,
        ),
        (
            "https://*.example.com/hooks",
            "https://evil.com/.example.com/hooks",
            false,
        ),
        (
            "https://*.example.com/hooks",
            "https://evil.com:1.example.com/hooks",
            false,
        ),
        (
            "https://*.example.com/hooks",
            "https://u@evil.com\\.example.com/hooks",
            false,
        ),
        (
            "https://audit.example.com/hooks",
            "https://audit.example.com/hooks",
            true,
        ),
    ];
    for (entry, url, admitted) in cases {
        assert_eq!(
            allow(&[entry]).matching(&http(url, &[])).is_some(),
            *admitted,
            "`{entry}` vs {url}"
        );
    }
    // URL entries never match commands, and command entries never match URLs.
    assert_eq!(
        allow(&["https://audit.example.com/*"]).matching(&shell("https://audit.example.com/x")),
        None
    );
    assert_eq!(
        allow(&["curl https://audit.example.com/*"])
            .matching(&http("https://audit.example.com/x", &[])),
        None
    );
}

#[test]
fn headers_that_expand_variables_need_an_exact_url_entry_or_an_approval() {
    let hook = http(
        "https://audit.example.com/hooks",
        &[
            ("Authorization", "Bearer ${AUDIT_TOKEN}"),
            ("X-Source", "agent"),
        ],
    );
    let wildcard = allow(&["https://audit.example.com/*"]);
    assert_eq!(wildcard.matching(&hook), None);
    let why = reason(Gate::new(wildcard, None).check(&spec(hook.clone()), Path::new(".")));
    assert!(
        why.starts_with(
            "HTTP hook `https://audit.example.com/hooks` matches allow entry `https://audit.example.com/*`, but its headers (Authorization) expand environment variables"
        ),
        "{why}"
    );
    assert!(
        why.contains("add its exact URL as an `allow:` entry"),
        "{why}"
    );
    let exact = allow(&[
        "https://audit.example.com/*",
        "https://audit.example.com/hooks",
    ]);
    assert_eq!(
        exact.matching(&hook),
        Some("https://audit.example.com/hooks")
    );
    // Without variables, a wildcard entry is enough.
    let plain = http("https://audit.example.com/hooks", &[("X-Source", "agent")]);
    assert_eq!(
        allow(&["https://audit.example.com/*"]).matching(&plain),
        Some("https://audit.example.com/*")
    );
}

#[test]
fn refused_entries_name_themselves_and_where_they_are() {
    for (entry, why) in [
        ("*", "starts with a wildcard"),
        ("** ./x.sh", "starts with a wildcard"),
        ("  ", "empty"),
        ("https://*/", "wildcard in the host"),
        ("https://*.com/", "wildcard in the host"),
        ("https://example.com*", "wildcard in the host"),
        ("https:///hooks", "names no host"),
    ] {
        let err = AllowList::new(["./fine.sh", entry]).unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with(&format!("invalid allow entry `{entry}`: ")) && text.contains(why),
            "{entry}: {text}"
        );
    }
    let long = format!("./{}", "x".repeat(5000));
    assert!(AllowList::new([long.as_str()]).is_err());

    let yaml =
        "enabled: true\nallow:\n  - ./scripts/hooks/*\n  - '*'\n  - https://h.example.com/*\n";
    let config = parse_project(yaml, Format::Yaml, Path::new("hooks.yaml")).unwrap();
    // The loader already reports a refused entry, with its position, and leaves it out.
    let problems: Vec<String> = config.problems.iter().map(ToString::to_string).collect();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0]
            .starts_with("hooks.yaml:4:5: allow entry `*` left out: it starts with a wildcard"),
        "{problems:?}"
    );
    // Entries no loader checked: `from_entries` leaves the refused one out, naming where.
    let mut entries = config.allow.clone();
    let mut refused = entries[0].clone();
    refused.pattern = "*".into();
    entries.push(refused);
    let (list, errors) = AllowList::from_entries(&entries);
    let errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("hooks.yaml:3:5: invalid allow entry `*`: "),
        "{errors:?}"
    );
    // The good entries are kept.
    assert!(list.matching(&shell("./scripts/hooks/a.sh")).is_some());
    assert!(
        list.matching(&http("https://h.example.com/x", &[]))
            .is_some()
    );
}

proptest! {
    /// A wildcard stands for plain text only: whatever follows the literal part, the entry
    /// admits it exactly when every character is plain and no two dots touch.
    #[test]
    fn wildcards_never_stand_for_shell_syntax(
        tail in proptest::collection::vec(
            prop_oneof![
                8 => proptest::char::ranges(vec!['a'..='z', '0'..='9'].into()),
                1 => Just(' '), 1 => Just('-'), 1 => Just('.'), 1 => Just('/'), 1 => Just('='),
                1 => Just('é'), 1 => Just(';'), 1 => Just('&'), 1 => Just('|'), 1 => Just('$'),
                1 => Just('('), 1 => Just('`'), 1 => Just('\''), 1 => Just('"'),
                1 => Just('\\'), 1 => Just('\n'), 1 => Just('>'), 1 => Just('<'),
                1 => Just('{'), 1 => Just('*'), 1 => Just('?'), 1 => Just('['), 1 => Just('~'),
            ],
            0..24,
        ),
    ) {
        let tail: String = tail.into_iter().collect();
        let plain = tail.chars().all(|c| c.is_alphanumeric() || " -./=é".contains(c))
            && !tail.contains("..");
        let command = shell(&format!("./scripts/hooks/{tail}"));
        // (An entry equal to the text admits it: `./scripts/hooks/*` admits itself.)
        prop_assert_eq!(
            allow(&["./scripts/hooks/**"]).matching(&command).is_some(),
            plain || tail == "**"
        );
        prop_assert_eq!(
            allow(&["./scripts/hooks/*"]).matching(&command).is_some(),
            (plain && !tail.contains('/')) || tail == "*"
        );
    }

    /// Any text is admitted by itself written as an entry (when it is an acceptable entry).
    #[test]
    fn an_entry_admits_its_own_text(text in "\\./[ -~]{0,40}") {
        let list = allow(&[text.as_str()]);
        prop_assert!(list.matching(&shell(&text)).is_some());
    }
}

// ---------------------------------------------------------------------------------------------
// Fingerprints
// ---------------------------------------------------------------------------------------------

#[test]
fn scripts_are_found_behind_interpreters_wrappers_and_operators() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for name in [
        "hook.py",
        "hook.sh",
        "other.sh",
        "hook.js",
        "setup.js",
        "hook.ts",
        "hook.php",
        "hook.rb",
        "plugin/scripts/x.sh",
    ] {
        write(root, name, name);
    }
    write(root, "bin/python3", "#!/bin/sh\n");
    fs::create_dir_all(root.join("dir")).unwrap();
    let cases: &[(Handler, &[&str])] = &[
        (shell("./hook.sh"), &["hook.sh"]),
        (shell("python3 ./hook.py"), &["hook.py"]),
        (shell("python3 hook.py"), &["hook.py"]),
        (
            shell("/usr/bin/python3.12 -u -W ignore hook.py --x"),
            &["hook.py"],
        ),
        // A project file a word names is hashed whatever the program does with it.
        (shell("python3 -m pkg.mod hook.py"), &["hook.py"]),
        (shell("python3 -c 'print(1)' hook.py"), &["hook.py"]),
        (
            shell("env -u X FOO=1 nice -n 5 python3 hook.py"),
            &["hook.py"],
        ),
        (shell("/usr/bin/env python3 hook.py"), &["hook.py"]),
        (shell("env - PATH=/bin ./hook.sh"), &["hook.sh"]),
        (shell("timeout 5 ./hook.sh"), &["hook.sh"]),
        (shell("FOO=1 BAR='x y' ./hook.sh"), &["hook.sh"]),
        (
            shell("bash -c './hook.sh && ./other.sh'"),
            &["hook.sh", "other.sh"],
        ),
        (shell("sh -ec \"python3 hook.py\""), &["hook.py"]),
        (shell("bash -o pipefail ./hook.sh"), &["hook.sh"]),
        (shell("uv run --with requests hook.py"), &["hook.py"]),
        (shell("uv run python hook.py"), &["hook.py"]),
        (shell("uv pip install hook.py"), &["hook.py"]),
        (
            shell("node --require ./setup.js hook.js"),
            &["setup.js", "hook.js"],
        ),
        // Inline code's relative `require` is followed.
        (shell("node -e 'require(\"./hook.js\")'"), &["hook.js"]),
        // Inline code that happens to name a file is still code, but the file is hashed.
        (shell("node -e hook.js"), &["hook.js"]),
        (shell("python3 -c hook.py"), &["hook.py"]),
        (shell("deno run --allow-read hook.ts"), &["hook.ts"]),
        (shell("bun run hook.ts"), &["hook.ts"]),
        (shell("php -f hook.php"), &["hook.php"]),
        (shell("ruby -I lib hook.rb"), &["hook.rb"]),
        (
            shell("cat in.json | python3 hook.py 2>/dev/null > out.log"),
            &["hook.py"],
        ),
        (shell("jq . | ./hook.sh"), &["hook.sh"]),
        (
            shell("if ./hook.sh; then ./other.sh; fi"),
            &["hook.sh", "other.sh"],
        ),
        (shell("./hook.sh; ./hook.sh"), &["hook.sh"]),
        // A substitution runs first.
        (shell("./hook.sh $(./other.sh)"), &["other.sh", "hook.sh"]),
        (shell("./hook.sh # ./other.sh"), &["hook.sh"]),
        (shell("jq ."), &[]),
        (shell("hook.sh"), &["hook.sh"]),
        (shell("./missing.sh"), &[]),
        (shell("./dir"), &[]),
        (shell("${CLAUDE_PROJECT_DIR}/hook.sh"), &["hook.sh"]),
        (shell("\"$CLAUDE_PROJECT_DIR/hook.sh\""), &["hook.sh"]),
        (shell("'$CLAUDE_PROJECT_DIR/hook.sh'"), &[]),
        (shell("./bin/python3 hook.py"), &["bin/python3", "hook.py"]),
        (exec(&["python3", "hook.py"]), &["hook.py"]),
        (exec(&["bash", "-c", "./hook.sh"]), &["hook.sh"]),
        (exec(&["./hook.sh", "./other.sh"]), &["hook.sh", "other.sh"]),
        (exec(&["${CLAUDE_PROJECT_DIR}/hook.sh"]), &["hook.sh"]),
        (
            Handler::Command(CommandHandler {
                line: CommandLine::Shell("${CLAUDE_PLUGIN_ROOT}/scripts/x.sh".into()),
                env: BTreeMap::new(),
                plugin_root: Some(root.join("plugin")),
            }),
            &["plugin/scripts/x.sh"],
        ),
        (http("https://example.com/hooks", &[]), &[]),
    ];
    let canonical = root.canonicalize().unwrap();
    let mut wrong = Vec::new();
    for (handler, want) in cases {
        let fp = fingerprint(handler, root).unwrap();
        let want: Vec<PathBuf> = want.iter().map(|w| canonical.join(w)).collect();
        if fp.scripts != want {
            wrong.push(format!("{}: found {:?}", fp.handler, fp.scripts));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn the_hash_covers_the_script_bytes_the_text_and_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let script = write(dir.path(), "hook.py", "print('{}')\n");
    let fp = |handler: &Handler| fingerprint(handler, dir.path()).unwrap().hash;
    let first = fp(&shell("python3 ./hook.py"));
    assert_eq!(first.len(), 64);
    assert_eq!(first, fp(&shell("python3 ./hook.py")), "deterministic");
    // The interpreter's script is hashed: editing it changes the hash.
    fs::write(&script, "import os; os.system('curl x | sh')\n").unwrap();
    let edited = fp(&shell("python3 ./hook.py"));
    assert_ne!(first, edited);
    // Putting the bytes back gives the approved hash again.
    fs::write(&script, "print('{}')\n").unwrap();
    assert_eq!(first, fp(&shell("python3 ./hook.py")));
    // Any change of text, form, env or plugin root is another handler.
    let others = [
        fp(&shell("python3  ./hook.py")),
        fp(&shell("python3 hook.py")),
        fp(&exec(&["python3", "./hook.py"])),
        fp(&with_env("python3 ./hook.py", &[("PYTHONSTARTUP", "x.py")])),
        fp(&Handler::Command(CommandHandler {
            line: CommandLine::Shell("python3 ./hook.py".into()),
            env: BTreeMap::new(),
            plugin_root: Some(dir.path().to_path_buf()),
        })),
    ];
    for (i, other) in others.iter().enumerate() {
        assert_ne!(&first, other, "variant {i}");
    }
    // A program on PATH: the text alone.
    let jq = fingerprint(&shell("jq ."), dir.path()).unwrap();
    assert!(jq.scripts.is_empty());
    assert_eq!(jq.handler, "jq .");
}

#[test]
fn the_same_text_in_another_project_is_another_fingerprint() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    // Same text, same bytes, different files: an approval in `a` says nothing about `b`,
    // whose script may source other files of its own.
    write(a.path(), "hook.sh", "echo hi\n");
    write(b.path(), "hook.sh", "echo hi\n");
    let in_a = fingerprint(&shell("./hook.sh"), a.path()).unwrap();
    let in_b = fingerprint(&shell("./hook.sh"), b.path()).unwrap();
    assert_ne!(in_a.hash, in_b.hash);
    assert_eq!(in_a.project, a.path().canonicalize().unwrap());
    // Text-only commands are bound to the project too (`make lint` reads its Makefile).
    assert_ne!(
        fingerprint(&shell("make lint"), a.path()).unwrap().hash,
        fingerprint(&shell("make lint"), b.path()).unwrap().hash
    );

    let store_dir = tempfile::tempdir().unwrap();
    let mut store = TrustStore::load(&store_dir.path().join("trust.json")).unwrap();
    store.approve(&in_a, None);
    let gate = Gate::new(AllowList::default(), Some(store));
    assert!(gate.check(&spec(shell("./hook.sh")), a.path()).is_allowed());
    assert!(!gate.check(&spec(shell("./hook.sh")), b.path()).is_allowed());
}

#[test]
fn a_script_over_16_mib_is_an_error_and_the_hook_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let big = fs::File::create(dir.path().join("big.sh")).unwrap();
    big.set_len(16 * 1024 * 1024 + 1).unwrap();
    let err = fingerprint(&shell("./big.sh"), dir.path()).unwrap_err();
    assert!(matches!(err, TrustError::TooLarge { .. }), "{err:?}");
    let store = TrustStore::load(&dir.path().join("trust.json")).unwrap();
    let why = reason(
        Gate::new(AllowList::default(), Some(store)).check(&spec(shell("./big.sh")), dir.path()),
    );
    assert!(why.contains("its approval cannot be checked"), "{why}");
    assert!(why.contains("too large"), "{why}");
    // Exactly 16 MiB is fine.
    big.set_len(16 * 1024 * 1024).unwrap();
    assert!(fingerprint(&shell("./big.sh"), dir.path()).is_ok());
}

// ---------------------------------------------------------------------------------------------
// The approvals file
// ---------------------------------------------------------------------------------------------

#[test]
fn approvals_survive_save_and_load() {
    let project = tempfile::tempdir().unwrap();
    write(project.path(), "hook.sh", "echo hi\n");
    let state = tempfile::tempdir().unwrap();
    let path = state.path().join("trust.json");
    let fp = fingerprint(&shell("./hook.sh --x"), project.path()).unwrap();

    let mut store = TrustStore::load(&path).unwrap();
    assert!(!store.is_approved(&fp));
    let approval = store.approve(&fp, Some("reviewed by me".into())).clone();
    assert_eq!(approval.hash, fp.hash);
    assert_eq!(approval.handler, "./hook.sh --x");
    assert_eq!(approval.scripts, fp.scripts);
    assert_eq!(approval.note.as_deref(), Some("reviewed by me"));
    let at = &approval.approved_at;
    assert!(
        at.len() == 20 && at.starts_with("20") && at.as_bytes()[10] == b'T' && at.ends_with('Z'),
        "{at}"
    );
    store.save().unwrap();

    let loaded = TrustStore::load(&path).unwrap();
    assert!(loaded.is_approved(&fp));
    assert_eq!(loaded.entries(), store.entries());
    assert_eq!(loaded.path(), path);

    // Approving again replaces the entry; revoking removes it, for good once saved.
    let mut loaded = loaded;
    loaded.approve(&fp, None);
    assert_eq!(loaded.entries().len(), 1);
    assert_eq!(
        loaded.revoke(&fp.hash).map(|a| a.hash),
        Some(fp.hash.clone())
    );
    assert_eq!(loaded.revoke(&fp.hash), None);
    loaded.save().unwrap();
    assert!(!TrustStore::load(&path).unwrap().is_approved(&fp));
}

#[test]
fn an_edited_script_is_no_longer_approved() {
    let project = tempfile::tempdir().unwrap();
    let script = write(project.path(), "hooks/notify.py", "print('{}')\n");
    let state = tempfile::tempdir().unwrap();
    let path = state.path().join("trust.json");
    let hook = spec(shell("python3 hooks/notify.py"));

    let mut store = TrustStore::load(&path).unwrap();
    let fp = fingerprint(&hook.handler, project.path()).unwrap();
    store.approve(&fp, None);
    store.save().unwrap();
    let gate = Gate::new(AllowList::default(), Some(TrustStore::load(&path).unwrap()));
    assert_eq!(
        gate.check(&hook, project.path()),
        Admission::Allowed {
            by: AllowedBy::Approval {
                hash: fp.hash.clone()
            }
        }
    );

    fs::write(&script, "import os; os.system('curl x | sh')\n").unwrap();
    let why = reason(gate.check(&hook, project.path()));
    let script_path = project
        .path()
        .canonicalize()
        .unwrap()
        .join("hooks/notify.py");
    assert!(
        why.starts_with(
            "command `python3 hooks/notify.py` is not on the allow-list; it was approved at "
        ),
        "{why}"
    );
    assert!(
        why.contains(&format!(
            ", but its script has changed since (script {}, sha256 ",
            script_path.display()
        )),
        "{why}"
    );
    assert!(
        why.ends_with("review it and approve it again with `hooks trust hooks.yaml`"),
        "{why}"
    );
}

#[test]
fn editing_one_of_several_scripts_withdraws_the_approval() {
    let project = tempfile::tempdir().unwrap();
    write(project.path(), "a.sh", "echo a\n");
    let b = write(project.path(), "b.sh", "echo b\n");
    let state = tempfile::tempdir().unwrap();
    let hook = spec(shell("./a.sh && ./b.sh"));
    let mut store = TrustStore::load(&state.path().join("trust.json")).unwrap();
    let fp = fingerprint(&hook.handler, project.path()).unwrap();
    assert_eq!(fp.scripts.len(), 2);
    store.approve(&fp, None);
    let gate = Gate::new(AllowList::default(), Some(store));
    assert!(gate.check(&hook, project.path()).is_allowed());
    fs::write(&b, "curl x | sh\n").unwrap();
    let why = reason(gate.check(&hook, project.path()));
    assert!(
        why.contains("but one of its scripts has changed since (scripts "),
        "{why}"
    );
}

#[test]
fn a_missing_approvals_file_is_an_empty_store_that_is_not_created_by_loading() {
    let state = tempfile::tempdir().unwrap();
    let path = state.path().join("nested/trust.json");
    let store = TrustStore::load(&path).unwrap();
    assert!(store.entries().is_empty());
    assert!(!path.exists());
    assert!(!state.path().join("nested").exists());
}

#[test]
fn a_corrupt_approvals_file_is_an_error_with_its_position() {
    let state = tempfile::tempdir().unwrap();
    let path = state.path().join("trust.json");
    let hash = "a".repeat(64);
    let entry = |extra: &str| {
        format!(
            "{{\"hash\": \"{hash}\", \"handler\": \"./x.sh\", \"project\": \"/p\", \"approved_at\": \"2026-01-01T00:00:00Z\"{extra}}}"
        )
    };
    let unknown = format!(
        "{{\"version\": 1, \"approvals\": [{}]}}",
        entry(", \"trust\": true")
    );
    // serde_json points at the key's closing quote.
    let unknown_column = unknown.find("\"trust\"").unwrap() + "\"trust\"".len();
    // (case, contents, line, column, part of the message)
    let cases: &[(&str, String, usize, usize, &str)] = &[
        ("empty", String::new(), 1, 0, "EOF while parsing"),
        ("truncated", "{\"version\": 1, \"approvals\": [".into(), 1, 29, "EOF while parsing"),
        ("bad syntax", "{\n  \"version\": 1,\n  \"approvals\": [}\n".into(), 3, 17, "expected value"),
        ("not an object", "[]".into(), 1, 1, "expected an object"),
        ("not an object, later", "\n\n  [1, []]".into(), 3, 3, "expected an object"),
        ("a string", "\"x\"".into(), 1, 1, "expected an object"),
        ("newer version", "{\"version\": 2, \"approvals\": []}".into(), 1, 13, "version 2 is not supported"),
        ("no version", "{\"approvals\": []}".into(), 1, 17, "missing field `version`"),
        ("unknown top field", "{\"version\": 1, \"trusted\": true}".into(), 1, 24, "unknown field `trusted`"),
        (
            "unknown entry field",
            unknown.clone(),
            1,
            unknown_column,
            "unknown field `trust`",
        ),
        (
            "bad hash",
            "{\"version\": 1,\n\"approvals\": [{\"hash\": \"XYZ\", \"handler\": \"x\", \"project\": \"/p\", \"approved_at\": \"\"}]}".into(),
            2,
            28, // the value's closing quote
            "`hash` must be 64 lower-case hex digits",
        ),
    ];
    for (case, contents, line, column, message) in cases {
        fs::write(&path, contents).unwrap();
        let err = TrustStore::load(&path).unwrap_err();
        let TrustError::Corrupt {
            line: l,
            column: c,
            message: m,
            path: p,
        } = &err
        else {
            panic!("{case}: {err:?}")
        };
        assert_eq!((l, c), (line, column), "{case}: {err}");
        assert!(m.contains(message), "{case}: {err}");
        assert_eq!(p, &path);
        let shown = err.to_string();
        let want = if *column == 0 {
            format!("{}:{line}: invalid approvals file: ", path.display())
        } else {
            format!(
                "{}:{line}:{column}: invalid approvals file: ",
                path.display()
            )
        };
        assert!(shown.starts_with(&want), "{case}: {shown}");
        assert!(!shown.contains(" at line "), "position said twice: {shown}");
    }
    // The well-formed version of the same entry loads.
    fs::write(
        &path,
        format!("{{\"version\": 1, \"approvals\": [{}]}}", entry("")),
    )
    .unwrap();
    assert_eq!(TrustStore::load(&path).unwrap().entries().len(), 1);
}

#[test]
fn an_unreadable_approvals_file_is_an_error_not_an_empty_store() {
    let state = tempfile::tempdir().unwrap();
    // A directory where the file should be.
    let err = TrustStore::load(state.path()).unwrap_err();
    assert!(matches!(err, TrustError::Read { .. }), "{err:?}");
    let big = fs::File::create(state.path().join("big.json")).unwrap();
    big.set_len(16 * 1024 * 1024 + 1).unwrap();
    let err = TrustStore::load(&state.path().join("big.json")).unwrap_err();
    assert!(matches!(err, TrustError::TooLarge { .. }), "{err:?}");
}

#[test]
fn saving_replaces_the_file_atomically_and_creates_directories() {
    let project = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let path = state.path().join("config/agent-hooks/trust.json");
    let mut store = TrustStore::load(&path).unwrap();
    for n in 0..3 {
        store.approve(
            &fingerprint(&shell(&format!("./h{n}.sh")), project.path()).unwrap(),
            None,
        );
        store.save().unwrap();
    }
    let names: Vec<String> = fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["trust.json"], "no temporary files are left");
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(json["version"], 1);
    assert_eq!(json["approvals"].as_array().map(Vec::len), Some(3));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    // A failed save reports the path and leaves nothing behind.
    let blocker = state.path().join("not-a-dir");
    let bad = TrustStore::load(&blocker.join("trust.json")).unwrap();
    fs::write(&blocker, "").unwrap();
    let err = bad.save().unwrap_err();
    assert!(matches!(err, TrustError::Write { .. }), "{err:?}");
    assert!(err.to_string().contains("not-a-dir"), "{err}");
    let names: Vec<String> = fs::read_dir(state.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[cfg(unix)]
#[test]
fn saving_through_a_symbolic_link_replaces_its_target() {
    let state = tempfile::tempdir().unwrap();
    let real = state.path().join("dotfiles/trust.json");
    fs::create_dir_all(real.parent().unwrap()).unwrap();
    fs::write(&real, "{\"version\": 1, \"approvals\": []}").unwrap();
    let link = state.path().join("trust.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let project = tempfile::tempdir().unwrap();
    let mut store = TrustStore::load(&link).unwrap();
    store.approve(
        &fingerprint(&shell("./a.sh"), project.path()).unwrap(),
        None,
    );
    store.save().unwrap();
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(TrustStore::load(&real).unwrap().entries().len(), 1);
}

#[test]
fn the_approvals_file_keeps_header_templates_never_their_values() {
    let project = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let path = state.path().join("trust.json");
    // $HOME is set in the test environment: a value that must not appear.
    let home = std::env::var("HOME").unwrap_or_default();
    let hook = http(
        "https://audit.example.com/hooks",
        &[("Authorization", "Bearer ${HOME}"), ("X-Home", "$HOME")],
    );
    let fp = fingerprint(&hook, project.path()).unwrap();
    assert_eq!(
        fp.handler,
        "https://audit.example.com/hooks -H 'Authorization: Bearer ${HOME}' -H 'X-Home: $HOME'"
    );
    let mut store = TrustStore::load(&path).unwrap();
    store.approve(&fp, None);
    store.save().unwrap();
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.contains("Bearer ${HOME}"), "{text}");
    if home.len() > 3 {
        assert!(!text.contains(&home), "{text}");
    }
}

// ---------------------------------------------------------------------------------------------
// The gate
// ---------------------------------------------------------------------------------------------

#[test]
fn http_hooks_are_admitted_by_a_url_entry_or_by_approval() {
    let project = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let listed = spec(http("https://hooks.example.com/in", &[]));
    let approved = spec(http(
        "https://audit.example.com/hooks",
        &[("Authorization", "Bearer ${AUDIT_TOKEN}")],
    ));
    let mut store = TrustStore::load(&state.path().join("trust.json")).unwrap();
    store.approve(
        &fingerprint(&approved.handler, project.path()).unwrap(),
        None,
    );
    let gate = Gate::new(allow(&["https://hooks.example.com/*"]), Some(store));

    assert_eq!(
        gate.check(&listed, project.path()),
        Admission::Allowed {
            by: AllowedBy::Pattern("https://hooks.example.com/*".into())
        }
    );
    assert!(matches!(
        gate.check(&approved, project.path()),
        Admission::Allowed {
            by: AllowedBy::Approval { .. }
        }
    ));
    // Another header template, or another URL, is another hook.
    let retargeted = spec(http(
        "https://audit.example.com/hooks",
        &[("Authorization", "Bearer ${GITHUB_TOKEN}")],
    ));
    let why = reason(gate.check(&retargeted, project.path()));
    assert!(
        why.starts_with("HTTP hook `https://audit.example.com/hooks` is not on the allow-list"),
        "{why}"
    );
    assert!(
        !gate
            .check(
                &spec(http("https://evil.example.net/", &[])),
                project.path()
            )
            .is_allowed()
    );
}

#[test]
fn skip_reasons_say_what_why_and_how_to_allow_it() {
    let project = tempfile::tempdir().unwrap();
    write(project.path(), "x.sh", "echo\n");
    let state = tempfile::tempdir().unwrap();
    let store = TrustStore::load(&state.path().join("trust.json")).unwrap();
    let gate = Gate::new(allow(&["./scripts/hooks/*"]), Some(store));
    let hook = spec(shell("./x.sh"));
    let fp = fingerprint(&hook.handler, project.path()).unwrap();
    assert_eq!(
        reason(gate.check(&hook, project.path())),
        format!(
            "command `./x.sh` is not on the allow-list and not approved (script {}, sha256 {}…); approve it with `hooks trust hooks.yaml` or add an `allow:` entry",
            fp.scripts[0].display(),
            &fp.hash[..12]
        )
    );
    // A text-only command has no script to name.
    let jq = spec(shell("jq ."));
    let why = reason(gate.check(&jq, project.path()));
    assert!(why.contains("and not approved (sha256 "), "{why}");
    // Long and multi-line commands are shortened to their first line.
    let long = spec(shell("./x.sh\n./y.sh"));
    let why = reason(gate.check(&long, project.path()));
    assert!(
        why.starts_with("command `./x.sh…` is not on the allow-list"),
        "{why}"
    );
}

#[test]
fn without_an_approvals_file_only_the_allow_list_admits() {
    let project = tempfile::tempdir().unwrap();
    let gate = Gate::new(allow(&["./scripts/hooks/*"]), None);
    assert!(
        gate.check(&spec(shell("./scripts/hooks/a.sh")), project.path())
            .is_allowed()
    );
    let why = reason(gate.check(&spec(shell("./x.sh")), project.path()));
    assert_eq!(
        why,
        "command `./x.sh` is not on the allow-list, and no approvals file is available (set HOOKS_TRUST_FILE or HOME); add an `allow:` entry"
    );
}

#[test]
fn allowed_by_says_which_rule_admitted() {
    assert_eq!(
        AllowedBy::Pattern("./a/*".into()).to_string(),
        "allow entry `./a/*`"
    );
    assert_eq!(
        AllowedBy::Approval {
            hash: "0123456789abcdef".into()
        }
        .to_string(),
        "approval 0123456789ab…"
    );
}
