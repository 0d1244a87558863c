//! The command corpus: every file in `tests/corpus/` is a list of shell commands with the
//! answer the default guard set (`command-guard`, `secrets-guard` and `write-guard` with their
//! defaults, as `hooks claude` runs them) must give, run through a real dispatch.
//!
//! ```toml
//! [[case]]
//! command = "sh -c '((rm -rf /))'"
//! expect = "deny"          # deny | ask | allow (allow: no guard objects)
//! rule = "rm-root"         # deny and ask: the rule the reason names
//! pack = "core.filesystem" # optional: the pack the rule belongs to
//! why = "dash runs ((…)) as nested subshells"  # optional
//! cwd = "/work/project/sub"  # optional: where it runs (default: the project root)
//! ```
//!
//! A `command-guard` reason names its rule as `command-guard rule ID: …`; a `secrets-guard`
//! reason as `… rule "ID" …` or `… rule ID: …`. `CORPUS_CASE=<substring>` runs only the cases
//! whose command contains it; `CORPUS_COUNTS=1` prints the counts per expected answer.
#![cfg(all(
    feature = "command-guard",
    feature = "secrets-guard",
    feature = "write-guard"
))]

mod corpus_cases;

use corpus_cases::{Case, Expect, load};
use hookrail_builtin::{BuiltinConfig, Builtins};
use hookrail_core::Verdict;
use hookrail_core::context::{Meta, PreToolUse};
use hookrail_core::points::pre_tool_use;
use hookrail_core::runtime::Hooks;
use serde_json::json;

fn hooks() -> Hooks {
    let builtins = Builtins::new(BuiltinConfig::default_guards()).expect("default guards");
    builtins
        .install(Hooks::builder().ignore_env())
        .expect("hooks")
}

fn verdict(hooks: &Hooks, case: &Case) -> Verdict {
    let meta = Meta::new("corpus")
        .with_project_dir(corpus_cases::ROOT)
        .with_cwd(case.cwd.as_deref().unwrap_or(corpus_cases::ROOT));
    let mut ctx = PreToolUse::new(meta, "Bash", json!({ "command": case.command }));
    hooks
        .dispatch::<pre_tool_use::Point>(&mut ctx)
        .verdict()
        .clone()
}

#[test]
fn every_corpus_case_gets_its_expected_answer() {
    let cases = load();
    let hooks = hooks();
    let filter = std::env::var("CORPUS_CASE").ok();
    let mut failures = Vec::new();
    let mut ran = 0;
    for case in &cases {
        if filter
            .as_ref()
            .is_some_and(|f| !case.command.contains(f.as_str()))
        {
            continue;
        }
        ran += 1;
        let got = verdict(&hooks, case);
        if let Err(problem) = case.judge(&got) {
            failures.push(format!("{}: {:?}: {problem}", case.place, case.command));
        }
    }
    assert!(ran > 0, "no case ran (CORPUS_CASE={filter:?})");
    assert!(
        failures.is_empty(),
        "{} of {ran} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    if std::env::var_os("CORPUS_COUNTS").is_some() {
        let count = |e: Expect| cases.iter().filter(|c| c.expect == e).count();
        eprintln!(
            "corpus: {} cases: {} deny, {} ask, {} allow",
            cases.len(),
            count(Expect::Deny),
            count(Expect::Ask),
            count(Expect::Allow)
        );
    }
}

/// A pack with a corpus file (`pack-<name>.toml`) has every rule hit by at least two of its
/// cases, and at least eight ordinary commands of its domain that must pass.
#[test]
fn every_rule_of_a_pack_with_a_corpus_file_is_hit_twice() {
    let cases = load();
    let mut problems = Vec::new();
    for pack in hookrail_builtin::command_guard::builtin_packs() {
        let prefix = format!("pack-{}.toml#", pack.name);
        let of_file: Vec<&Case> = cases
            .iter()
            .filter(|c| c.place.starts_with(&prefix))
            .collect();
        if of_file.is_empty() {
            continue;
        }
        let allows = of_file.iter().filter(|c| c.expect == Expect::Allow).count();
        if allows < 8 {
            problems.push(format!(
                "pack-{}.toml: {allows} allow cases, fewer than 8",
                pack.name
            ));
        }
        for rule in &pack.rules {
            let hits = of_file
                .iter()
                .filter(|c| c.rule.as_deref() == Some(rule.id.as_str()))
                .count();
            if hits < 2 {
                problems.push(format!(
                    "pack-{}.toml: rule {} hit by {hits} cases, fewer than 2",
                    pack.name, rule.id
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The corpus is as large as issue 14 asks, every builtin rule is hit by a case, and a case's
/// `pack` is its rule's pack.
#[test]
fn the_corpus_covers_every_rule_and_names_packs_right() {
    use hookrail_builtin::command_guard::{builtin_packs, code_rules};
    let cases = load();
    let allow = cases.iter().filter(|c| c.expect == Expect::Allow).count();
    assert!(cases.len() >= 600, "{} cases, fewer than 600", cases.len());
    assert!(allow >= 150, "{allow} ordinary commands, fewer than 150");
    let packs = builtin_packs();
    let rules: Vec<(String, String)> = code_rules()
        .map(|(id, pack)| (id.to_owned(), pack.to_owned()))
        .chain(
            packs
                .iter()
                .flat_map(|p| p.rules.iter().map(|r| (r.id.clone(), p.name.clone()))),
        )
        .collect();
    let mut problems = Vec::new();
    for (id, _) in &rules {
        if !cases.iter().any(|c| c.rule.as_deref() == Some(id.as_str())) {
            problems.push(format!("rule {id}: no case"));
        }
    }
    for case in &cases {
        let (Some(rule), Some(pack)) = (&case.rule, &case.pack) else {
            continue;
        };
        if let Some((_, own)) = rules.iter().find(|(id, _)| id == rule)
            && own != pack
        {
            problems.push(format!(
                "{}: rule {rule} is in pack {own}, not {pack}",
                case.place
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
