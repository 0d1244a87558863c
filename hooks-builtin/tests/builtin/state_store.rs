#![cfg(all(
    feature = "state-store",
    feature = "rate-limit",
    feature = "budget",
    feature = "reviewer-lockout"
))]
//! [`StateStore`] through a real file: the three stateful policies of a [`Builtins`] are saved
//! and restored into a new set built from the same settings, `save_changed` writes only what
//! changed, the file is private, and files that are not ours, or rows a policy refuses, are
//! errors naming the file and the policy.

use std::path::Path;
use std::sync::Arc;

use hookrail_builtin::state::{PersistentState, StateError, StateStore};
use hookrail_builtin::{BuiltinConfig, Builtins};
use hookrail_core::Verdict;
use hookrail_core::context::{Meta, PostModelCall, PreModelCall, PreToolUse, TokenUsage};
use hookrail_core::runtime::HooksProvider;
use serde_json::{Value, json};

const ROOT: &str = "/nonexistent/hooks-builtin-state-store/project";

fn builtins() -> Builtins {
    let config: BuiltinConfig = serde_json::from_value(json!({
        "command_guard": {},
        "rate_limit": {
            "tool_calls": [{ "calls": 1, "window_ms": 3600000, "key": ["agent"] }],
            "model_calls": []
        },
        "budget": {
            "prices": { "big": { "input_usd_per_mtok": 3.0, "output_usd_per_mtok": 15.0 } },
            "session": { "hard_usd": 1.0 }
        },
        "reviewer_lockout": {}
    }))
    .unwrap();
    Builtins::new(config).unwrap()
}

fn read(b: &Builtins) -> Verdict {
    let mut ctx = PreToolUse::new(Meta::new("s1").with_agent("coder"), "Read", json!({}));
    b.rate_limit().unwrap().pre_tool_use(&mut ctx).unwrap()
}

fn model_call(b: &Builtins) -> Verdict {
    let mut ctx = PreModelCall::new(Meta::new("s1"), "big", Vec::new());
    b.budget().unwrap().pre_model_call(&mut ctx).unwrap()
}

fn edit(b: &Builtins) -> Verdict {
    let input = json!({ "file_path": "src/auth.rs" });
    b.reviewer_lockout()
        .unwrap()
        .check("coder", "Edit", &input, Path::new(ROOT))
}

/// One call admitted, $1.50 spent in s1, coder locked out of src/auth.rs.
fn fill(b: &Builtins) {
    assert_eq!(read(b), Verdict::Continue);
    let usage = TokenUsage::new(500_000, 0);
    let mut post = PostModelCall::new(Meta::new("s1"), "big", "", usage, 1);
    b.budget().unwrap().post_model_call(&mut post).unwrap();
    b.reviewer_lockout()
        .unwrap()
        .reject(format!("{ROOT}/src/auth.rs"), "coder", "reviewer")
        .unwrap();
}

#[test]
fn persistent_lists_the_stateful_policies_that_are_on_sharing_their_state() {
    let b = builtins();
    let persistent = b.persistent();
    let mut names: Vec<&str> = persistent.iter().map(|p| p.state_name()).collect();
    names.sort_unstable();
    assert_eq!(names, ["budget", "rate_limit", "reviewer_lockout"]);
    let rate_limit = persistent
        .iter()
        .find(|p| p.state_name() == "rate_limit")
        .unwrap();
    let before = rate_limit.state_revision();
    read(&b);
    assert_ne!(
        rate_limit.state_revision(),
        before,
        "the handle shares state"
    );
    assert!(Builtins::default().persistent().is_empty());
}

#[test]
fn state_round_trips_through_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.db");
    let first = builtins();
    fill(&first);
    let denied = (read(&first), model_call(&first), edit(&first));
    assert!(denied.0.is_deny() && denied.1.is_deny() && denied.2.is_deny());
    let mut store = StateStore::open(&path).unwrap();
    assert_eq!(store.path(), path);
    assert_eq!(store.save_all(&first.persistent()).unwrap(), 3);
    drop(store);

    let second = builtins();
    let store = StateStore::open(&path).unwrap();
    let mut restored = store.restore(&second.persistent()).unwrap();
    restored.sort_by_key(|(name, _)| *name);
    let kept: Vec<(&str, usize)> = restored.iter().map(|(n, r)| (*n, r.kept)).collect();
    assert_eq!(
        kept,
        [("budget", 1), ("rate_limit", 1), ("reviewer_lockout", 1)]
    );
    assert_eq!((read(&second), model_call(&second), edit(&second)), denied);
}

#[test]
fn save_changed_writes_only_the_policies_that_changed() {
    let dir = tempfile::tempdir().unwrap();
    let b = builtins();
    let policies = b.persistent();
    let mut store = StateStore::open(dir.path().join("state.db")).unwrap();
    assert_eq!(store.save_changed(&policies).unwrap(), 3, "never saved yet");
    assert_eq!(store.save_changed(&policies).unwrap(), 0);
    assert_eq!(read(&b), Verdict::Continue);
    assert_eq!(store.save_changed(&policies).unwrap(), 1);
    assert!(read(&b).is_deny());
    assert_eq!(
        store.save_changed(&policies).unwrap(),
        0,
        "a refused call changes nothing"
    );
    assert_eq!(store.save_all(&policies).unwrap(), 3);

    // The row written last is the one restored.
    let fresh = builtins();
    store.restore(&fresh.persistent()).unwrap();
    assert!(read(&fresh).is_deny());
}

#[test]
fn a_policy_without_a_row_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let store = StateStore::open(dir.path().join("state.db")).unwrap();
    let b = builtins();
    assert!(store.restore(&b.persistent()).unwrap().is_empty());
    assert_eq!(read(&b), Verdict::Continue);
}

#[cfg(unix)]
#[test]
fn the_file_is_private_and_one_others_can_write_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.db");
    let mut store = StateStore::open(&path).unwrap();
    store.save_all(&builtins().persistent()).unwrap();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    drop(store);

    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o620)).unwrap();
    let err = StateStore::open(&path).unwrap_err();
    assert!(
        matches!(&err, StateError::Store { path: p, policy: None, message }
            if p == &path && message.contains("writable by its group or others")),
        "{err}"
    );
}

#[test]
fn files_that_are_not_state_files_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.db");
    std::fs::write(&garbage, vec![b'x'; 4096]).unwrap();
    let err = StateStore::open(&garbage).unwrap_err();
    let text = err.to_string();
    assert!(text.contains(&garbage.display().to_string()), "{text}");
    assert!(text.contains("not an SQLite database"), "{text}");

    // Another application's database (the audit trail's, say).
    let other = dir.path().join("other.db");
    let conn = rusqlite::Connection::open(&other).unwrap();
    conn.execute_batch("CREATE TABLE t (x); PRAGMA application_id = 42;")
        .unwrap();
    drop(conn);
    let text = StateStore::open(&other).unwrap_err().to_string();
    assert!(text.contains("not a hookrail state file"), "{text}");

    // Ours, from a newer build.
    let newer = dir.path().join("newer.db");
    drop(StateStore::open(&newer).unwrap());
    let conn = rusqlite::Connection::open(&newer).unwrap();
    conn.execute_batch("PRAGMA user_version = 99;").unwrap();
    drop(conn);
    let text = StateStore::open(&newer).unwrap_err().to_string();
    assert!(text.contains("schema version 99 is newer"), "{text}");
}

/// Saves a fixed value under a policy's name: a row another build (or a damaged disk) wrote.
struct Row(&'static str, Value);

impl PersistentState for Row {
    fn state_name(&self) -> &'static str {
        self.0
    }
    fn state_revision(&self) -> u64 {
        0
    }
    fn save_state_at(&self, _: u64) -> Value {
        self.1.clone()
    }
    fn restore_state_at(
        &self,
        _: &Value,
        _: u64,
    ) -> Result<hookrail_builtin::state::Restored, StateError> {
        unreachable!("only saved")
    }
}

#[test]
fn a_row_a_policy_refuses_is_an_error_naming_the_file_and_the_policy() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.db");
    let mut store = StateStore::open(&path).unwrap();
    let newer = json!({ "format": 7, "policy": "rate_limit", "saved_at_ms": 0 });
    let rows: Vec<Arc<dyn PersistentState>> = vec![Arc::new(Row("rate_limit", newer))];
    store.save_all(&rows).unwrap();

    let b = builtins();
    let err = store.restore(&b.persistent()).unwrap_err();
    assert_eq!(err.policy(), Some("rate_limit"));
    assert_eq!(
        err.to_string(),
        format!(
            "state store {}: rate_limit: the saved state is in format 7; this build reads \
             format 1 and older",
            path.display()
        )
    );
    assert!(matches!(
        &err,
        StateError::InStore { source, .. }
            if matches!(**source, StateError::UnsupportedFormat { found: 7, .. })
    ));
    assert_eq!(read(&b), Verdict::Continue, "nothing of it applied");
}
