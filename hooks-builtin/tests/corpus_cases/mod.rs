//! Reading the corpus files of `tests/corpus/` (shared by the corpus test and the bench).

use std::path::{Path, PathBuf};

use hookrail_core::Verdict;
use serde::Deserialize;

/// The project root of every case; it need not exist.
pub const ROOT: &str = "/work/project";

/// The answer a case expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Expect {
    Deny,
    Ask,
    Allow,
}

/// One command and its expected answer.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub command: String,
    pub expect: Expect,
    #[serde(default)]
    pub rule: Option<String>,
    #[serde(default)]
    pub pack: Option<String>,
    #[serde(default)]
    #[allow(dead_code)]
    pub why: Option<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    /// A hole not closed yet: the answer the guard gives today (`allow` where `expect` says
    /// `deny`). The case checks that answer, so closing the hole fails it until this field
    /// is removed, and the closing note counts them.
    #[serde(default)]
    pub known_hole: Option<Expect>,
    /// `file.toml#index`, for failure messages.
    #[serde(skip)]
    pub place: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    case: Vec<Case>,
}

/// The directory of the corpus files, from hookrail-builtin or a sibling crate of the workspace.
pub fn dir() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let own = manifest.join("tests/corpus");
    if own.is_dir() {
        own
    } else {
        manifest.join("../hooks-builtin/tests/corpus")
    }
}

/// Every case of every corpus file, in file-name order; a malformed file or case panics
/// naming it.
pub fn load() -> Vec<Case> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir())
        .expect("tests/corpus")
        .map(|e| e.expect("corpus entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for path in files {
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let file: File = toml::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (i, mut case) in file.case.into_iter().enumerate() {
            case.place = format!("{name}#{i}");
            let needs_rule = case.expect != Expect::Allow;
            assert_eq!(
                case.rule.is_some(),
                needs_rule,
                "{}: `rule` is required for deny and ask, and only for them",
                case.place
            );
            cases.push(case);
        }
    }
    cases
}

/// The rule a reason names: `command-guard rule ID: …`, or `rule "ID"` / `rule ID:` anywhere.
pub fn names_rule(reason: &str, rule: &str) -> bool {
    if let Some(rest) = reason.strip_prefix("command-guard rule ") {
        return rest.split(':').next() == Some(rule);
    }
    reason.contains(&format!("rule \"{rule}\"")) || reason.contains(&format!("rule {rule}:"))
}

impl Case {
    /// `Ok` when `got` is the expected answer (or, for a known hole, today's answer), else
    /// what differs.
    pub fn judge(&self, got: &Verdict) -> Result<(), String> {
        if let Some(today) = self.known_hole {
            let answer = match got {
                Verdict::Deny(_) => Expect::Deny,
                Verdict::Ask(_) => Expect::Ask,
                _ => Expect::Allow,
            };
            return if answer == today {
                Ok(())
            } else if answer == self.expect {
                Err("the known hole is closed: remove `known_hole`".into())
            } else {
                Err(format!("known hole: expected {today:?} today, got {got:?}"))
            };
        }
        let (expected, reason) = match (self.expect, got) {
            (Expect::Deny, Verdict::Deny(r)) | (Expect::Ask, Verdict::Ask(r)) => (true, Some(r)),
            (Expect::Allow, v) if v.reason().is_none() => (true, None),
            _ => (false, None),
        };
        if !expected {
            return Err(format!("expected {:?}, got {got:?}", self.expect));
        }
        match (&self.rule, reason) {
            (Some(rule), Some(reason)) if !names_rule(reason, rule) => {
                Err(format!("expected rule {rule}, got {reason:?}"))
            }
            _ => Ok(()),
        }
    }
}
