//! Properties of the shell parser on text nobody wrote on purpose: random strings of shell
//! syntax and mutations (bytes inserted, deleted, duplicated) of the corpus commands.
//!
//! [`shell::parse`] must never panic, and its work must stay bounded. The bound is checked
//! through the parser's own accounting rather than a clock: a parse that succeeds has a result
//! no bigger than its budget allows, and inputs built to be slow (quadratic rewriting,
//! exponential expansion, re-parsing nested many times) fail with `TooComplex`, `TooDeep` or
//! `TooLong` instead of succeeding slowly. The guard that judges every command
//! (`CommandGuard::check`) must not panic on any of it either.
#![cfg(any(feature = "command-guard", feature = "secrets-guard"))]

use std::path::Path;
use std::sync::OnceLock;

use hookrail_builtin::shell::{self, MAX_LEN, ShellError};
use proptest::prelude::*;

/// Fragments of shell syntax, old and new constructs, so random strings reach the corners.
const ATOMS: &[&str] = &[
    "a",
    "rm",
    "-rf",
    "/",
    " ",
    "\n",
    ";",
    "&",
    "&&",
    "|",
    "||",
    "(",
    ")",
    "((",
    "))",
    "$((",
    "{",
    "}",
    ",",
    "..",
    "[[",
    "]]",
    "$(",
    "`",
    "'",
    "\"",
    "\\",
    "$'",
    "${",
    "$1",
    "$@",
    "<<",
    "<<-",
    "EOF",
    "'EOF'",
    "<",
    ">",
    "2>&1",
    "<<<",
    "#",
    "=",
    "é",
    "bash -c ",
    "sh -c ",
    "eval ",
    "trap ",
    "sudo ",
    "env -S ",
    "env -C ",
    "env - ",
    "time ",
    "coproc ",
    "case ",
    " in ",
    "esac",
    "for ",
    "do ",
    "done",
    "xargs ",
    "xargs -I{} ",
    "find . -exec ",
    " {} ",
    "\\;",
    " + ",
    "parallel ",
    " ::: ",
    "ssh h ",
    "watch -x ",
    "flock f -c ",
    "script -c ",
    "alias a=",
    "cd ",
    "echo ",
    "printf ",
    "at now ",
];

/// Shell-ish text: up to 64 fragments.
fn shellish() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(ATOMS), 0..64).prop_map(|v| v.concat())
}

/// The commands of every corpus file, and a few of our own.
fn seeds() -> &'static [String] {
    static SEEDS: OnceLock<Vec<String>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
        let mut seeds: Vec<String> = [
            "sh -c '((rm -rf /))'",
            "echo $((1 + $(id -u)))",
            "[[ -f x && -d y ]] || rm -rf {a,b}/c",
            "cat <<EOF | ssh host\nrm -rf $(pwd)\nEOF",
            "trap 'rm -rf \"$tmp\"' EXIT; tmp=$(mktemp -d)",
            "echo a b | xargs -I{} parallel 'rm {}' ::: {}",
            "sh -c 'rm -rf \"$1\"' _ /{etc,usr}",
        ]
        .map(str::to_owned)
        .to_vec();
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.sort();
        for path in files
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            let Ok(file) = text.parse::<toml::Table>() else {
                continue;
            };
            let cases = file.get("case").and_then(toml::Value::as_array);
            for case in cases.into_iter().flatten() {
                if let Some(command) = case.get("command").and_then(toml::Value::as_str) {
                    seeds.push(command.to_owned());
                }
            }
        }
        seeds
    })
}

/// One change to a command's bytes.
#[derive(Debug, Clone)]
enum Mutation {
    Insert(prop::sample::Index, u8),
    Delete(prop::sample::Index, usize),
    Duplicate(prop::sample::Index, usize),
    InsertAtom(prop::sample::Index, &'static str),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let byte = prop::sample::select(b" \t\n;&|()<>{}$`'\"\\#=*?[]!,.-/0a\xc3\xa9".to_vec());
    prop_oneof![
        (any::<prop::sample::Index>(), byte).prop_map(|(i, b)| Mutation::Insert(i, b)),
        (any::<prop::sample::Index>(), 1..8usize).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<prop::sample::Index>(), 1..16usize).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
        (any::<prop::sample::Index>(), prop::sample::select(ATOMS))
            .prop_map(|(i, a)| Mutation::InsertAtom(i, a)),
    ]
}

/// A corpus command with a few mutations applied, as bytes made text (lossily).
fn mutated() -> impl Strategy<Value = String> {
    (
        any::<prop::sample::Index>(),
        prop::collection::vec(mutation(), 1..8),
    )
        .prop_map(|(which, mutations)| {
            let seeds = seeds();
            let mut bytes = seeds[which.index(seeds.len())].clone().into_bytes();
            for m in mutations {
                let at = |i: &prop::sample::Index, len: usize| i.index(len + 1);
                match m {
                    Mutation::Insert(i, b) => bytes.insert(at(&i, bytes.len()), b),
                    Mutation::InsertAtom(i, a) => {
                        let at = at(&i, bytes.len());
                        bytes.splice(at..at, a.bytes());
                    }
                    Mutation::Delete(i, n) => {
                        let at = at(&i, bytes.len());
                        bytes.drain(at..(at + n).min(bytes.len()));
                    }
                    Mutation::Duplicate(i, n) => {
                        let at = at(&i, bytes.len());
                        let copy = bytes[at..(at + n).min(bytes.len())].to_vec();
                        bytes.splice(at..at, copy);
                    }
                }
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
}

/// The most a successful parse of `src` may hold: the parser charges 64 units of work for each
/// command and 16 for each argument, out of 8 units a byte and a fixed allowance of 2^18.
fn within_budget(src: &str, script: &shell::Script) -> Result<(), TestCaseError> {
    let budget = 8 * src.len() + (1 << 18);
    let commands = script.commands().count();
    let args: usize = script.commands().map(|c| c.args.len()).sum();
    prop_assert!(
        64 * commands + 16 * args <= budget,
        "{commands} commands and {args} arguments from {} bytes",
        src.len()
    );
    Ok(())
}

fn is_bound(e: &ShellError) -> bool {
    matches!(
        e,
        ShellError::TooComplex | ShellError::TooDeep | ShellError::TooLong(_)
    )
}

#[cfg(feature = "command-guard")]
fn guard_check(src: &str) {
    use hookrail_builtin::command_guard::CommandGuard;
    static GUARD: OnceLock<CommandGuard> = OnceLock::new();
    let guard = GUARD.get_or_init(CommandGuard::default);
    let verdict = guard.check(src, Path::new("/work/project"));
    // What does not parse is denied, or asked when no word names a program a rule is about;
    // never let through.
    match shell::parse(src) {
        Err(e) if is_bound(&e) => assert!(verdict.is_deny(), "{src:?}: {e}, yet {verdict:?}"),
        Err(_) => assert!(
            verdict.reason().is_some() && !matches!(verdict, hookrail_core::Verdict::Allow),
            "{src:?} does not parse, yet {verdict:?}"
        ),
        Ok(_) => {}
    }
}

#[cfg(not(feature = "command-guard"))]
fn guard_check(_: &str) {}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn shell_like_text_parses_or_fails_within_its_budget(src in shellish()) {
        if let Ok(script) = shell::parse(&src) {
            within_budget(&src, &script)?;
        }
        guard_check(&src);
    }

    #[test]
    fn mutated_corpus_commands_parse_or_fail_within_their_budget(src in mutated()) {
        if let Ok(script) = shell::parse(&src) {
            within_budget(&src, &script)?;
        }
        guard_check(&src);
    }

}

proptest! {
    // Large inputs: few cases, so the test stays quick in a debug build.
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// A fragment repeated into a large input (64 KiB to 256 KiB): a parse that succeeds
    /// stays within its budget.
    #[test]
    fn repeated_fragments_stay_within_their_budget(
        unit in shellish().prop_filter("not empty", |s| !s.is_empty()),
        size in (1usize << 16)..(1 << 18),
    ) {
        let src = unit.repeat(size / unit.len() + 1);
        if let Ok(script) = shell::parse(&src) {
            within_budget(&src, &script)?;
        }
    }
}

/// Inputs built to make the parser or the guard slow (each took seconds, or gigabytes, before
/// its work was charged) fail on a bound instead of succeeding slowly.
#[test]
fn pathological_inputs_fail_on_a_bound() {
    let kib = |n: usize, unit: &str, prefix: &str, suffix: &str| {
        format!("{prefix}{}{suffix}", unit.repeat(n * 1024 / unit.len()))
    };
    let cases = [
        kib(256, "env -S ", "", "ls"),
        kib(256, "cd aaaaaaaa;", "", "ls"),
        kib(256, "env -C aaaaaaaa ", "", "ls"),
        kib(256, "sudo -D aaaaaaaa ", "", "ls"),
        kib(64, "eval ", "", "ls"),
        kib(64, "watch ", "", "ls"),
        kib(64, "ssh h ", "", "ls"),
        kib(64, "xargs ", "", "ls"),
        kib(64, "find . -exec ", "", "ls"),
        kib(256, "ls;", "", ""),
        kib(256, "ls|", "", "ls"),
        kib(256, "((", "", ""),
        kib(256, "(", "", ""),
        kib(256, "$(", "echo ", ""),
        kib(256, "$((", "echo ", ""),
        kib(256, "[[ a ]];", "", ""),
        kib(256, "((a));", "", ""),
        kib(
            256,
            " a",
            "echo",
            " | xargs -I{} rm {} {} {} {} {} {} {} {}",
        ),
        kib(256, " a", "parallel 'echo {}' :::", ""),
        kib(1, "{a,b}", "echo ", ""),
        kib(256, "{1..99} ", "echo ", ""),
        "echo {1..999999999}".to_owned(),
        "x".repeat(MAX_LEN + 1),
    ];
    for src in &cases {
        match shell::parse(src) {
            Err(e) if is_bound(&e) => {}
            other => panic!(
                "{}… ({} bytes): {:?}",
                &src[..src.len().min(40)],
                src.len(),
                other.map(|s| s.commands().count())
            ),
        }
    }
}

/// Large honest inputs are not refused: a long here-document, a big script fed to a shell, and
/// a long list of files.
#[test]
fn large_ordinary_inputs_parse() {
    let lines: String = (0..5000)
        .map(|i| format!("line {i} of the file\n"))
        .collect();
    let heredoc = format!("cat > notes.txt <<'EOF'\n{lines}EOF\n");
    let script: String = (0..2000)
        .map(|i| format!("mkdir -p build/dir{i} && touch build/dir{i}/file\n"))
        .collect();
    let files: String = (0..5000)
        .map(|i| format!(" src/module{i}/mod.rs"))
        .collect();
    for src in [
        heredoc,
        format!("bash <<'EOF'\n{script}EOF\n"),
        format!("bash -c '{script}'"),
        format!("git add{files}"),
        "echo {1..2000}".to_owned(),
    ] {
        if let Err(e) = shell::parse(&src) {
            panic!("{}… ({} bytes): {e}", &src[..40], src.len());
        }
    }
}
