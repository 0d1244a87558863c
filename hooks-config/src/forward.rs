//! Answer fields that go back to Claude Code as the hooks gave them.
//!
//! Most of a hook's answer decides something here (a decision, a rewrite, context: see
//! [`crate::protocol`]); the fields of [`FORWARDED`] decide nothing a Rust agent has, so they
//! are only read (their type checked: a wrong type is a failure naming the field, as for any
//! other field), merged across the hooks of one event by the rule of their row, and put back
//! into the answer `hooks claude` and `hooks serve` give Claude Code, at the same place.
//!
//! ```
//! use hookrail_config::forward::Forwarded;
//! use serde_json::json;
//!
//! let first = Forwarded::read(&json!({"hookSpecificOutput": {"sessionTitle": "a", "watchPaths": ["x"]}})).unwrap();
//! let second = Forwarded::read(&json!({"hookSpecificOutput": {"sessionTitle": "b", "watchPaths": ["y", "x"]}})).unwrap();
//! let mut merged = first;
//! merged.merge(second);
//! let mut answer = serde_json::Map::new();
//! merged.write(&mut answer);
//! assert_eq!(serde_json::Value::Object(answer), json!({"hookSpecificOutput": {"sessionTitle": "a", "watchPaths": ["x", "y"]}}));
//! ```

use serde_json::{Map, Value};

/// How the values of several hooks become one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Merge {
    /// The first hook's value, in `(order, id)` order.
    First,
    /// `true` when any hook says `true`.
    Any,
    /// The strings joined in order with this separator.
    Join(&'static str),
    /// The arrays' items in order, each once.
    Union,
    /// The value latest in this list (the most restrictive); values not in it are kept only
    /// when nothing else is.
    Rank(&'static [&'static str]),
}

/// The JSON type a field must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    /// `true` or `false`.
    Bool,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
    /// Any JSON value (a tool's output, whose shape is the tool's).
    Any,
}

/// One forwarded field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// Where it is in the answer: `["hookSpecificOutput", "sessionTitle"]`.
    pub path: &'static [&'static str],
    /// Its type.
    pub ty: Type,
    /// How several hooks' values merge.
    pub merge: Merge,
    /// The events Claude Code reads it at (for the docs; it is forwarded at every event).
    pub events: &'static str,
}

const fn field(
    path: &'static [&'static str],
    ty: Type,
    merge: Merge,
    events: &'static str,
) -> Field {
    Field {
        path,
        ty,
        merge,
        events,
    }
}

const HSO: &str = "hookSpecificOutput";

/// Every forwarded field. A field under `hookSpecificOutput.decision` is written only where
/// the answer has that object (a `PermissionRequest` decision was made), since it qualifies
/// that decision.
pub const FORWARDED: &[Field] = &[
    field(&["suppressOutput"], Type::Bool, Merge::Any, "every event"),
    field(
        &["terminalSequence"],
        Type::String,
        Merge::Join(""),
        "every event (`Notification`, `StopFailure`: the only output read)",
    ),
    field(
        &[HSO, "initialUserMessage"],
        Type::String,
        Merge::First,
        "`SessionStart`",
    ),
    field(
        &[HSO, "sessionTitle"],
        Type::String,
        Merge::First,
        "`SessionStart`, `UserPromptSubmit`",
    ),
    field(
        &[HSO, "watchPaths"],
        Type::Array,
        Merge::Union,
        "`SessionStart`, `CwdChanged`, `FileChanged`",
    ),
    field(
        &[HSO, "reloadSkills"],
        Type::Bool,
        Merge::Any,
        "`SessionStart`",
    ),
    field(
        &[HSO, "suppressOriginalPrompt"],
        Type::Bool,
        Merge::Any,
        "`UserPromptSubmit`",
    ),
    field(
        &[HSO, "retry"],
        Type::Bool,
        Merge::Any,
        "`PermissionDenied`",
    ),
    field(
        &[HSO, "worktreePath"],
        Type::String,
        Merge::First,
        "`WorktreeCreate` (a command hook's last stdout line is read as it)",
    ),
    field(
        &[HSO, "updatedMCPToolOutput"],
        Type::Any,
        Merge::First,
        "`PostToolUse` of an MCP tool",
    ),
    field(
        &[HSO, "classifierContext"],
        Type::String,
        Merge::Join("\n\n"),
        "`PostToolUse`",
    ),
    field(
        &[HSO, "action"],
        Type::String,
        Merge::Rank(&["accept", "cancel", "decline"]),
        "`Elicitation`, `ElicitationResult` (a block here is answered as `decline` first)",
    ),
    field(
        &[HSO, "content"],
        Type::Object,
        Merge::First,
        "`Elicitation`, `ElicitationResult`",
    ),
    field(
        &[HSO, "displayContent"],
        Type::String,
        Merge::First,
        "`MessageDisplay`",
    ),
    field(
        &[HSO, "decision", "updatedInput"],
        Type::Object,
        Merge::First,
        "`PermissionRequest` (with `behavior: \"allow\"`)",
    ),
    field(
        &[HSO, "decision", "updatedPermissions"],
        Type::Array,
        Merge::Union,
        "`PermissionRequest` (with `behavior: \"allow\"`)",
    ),
    field(
        &[HSO, "decision", "interrupt"],
        Type::Bool,
        Merge::Any,
        "`PermissionRequest` (with `behavior: \"deny\"`)",
    ),
];

/// The forwarded fields of one answer, or of several merged: each field's value, by its
/// index in [`FORWARDED`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Forwarded {
    values: Vec<(usize, Value)>,
}

impl Forwarded {
    /// The forwarded fields of a hook's JSON answer.
    ///
    /// # Errors
    ///
    /// A field of the wrong type: the message names it and the type it must have.
    pub fn read(answer: &Value) -> Result<Forwarded, String> {
        let mut values = Vec::new();
        for (i, field) in FORWARDED.iter().enumerate() {
            let Some(value) = lookup(answer, field.path) else {
                continue;
            };
            let fits = match field.ty {
                Type::Bool => value.is_boolean(),
                Type::String => value.is_string(),
                Type::Array => value.is_array(),
                Type::Object => value.is_object(),
                Type::Any => true,
            };
            if !fits {
                return Err(format!(
                    "`{}` must be {}, not {value}",
                    field.path.join("."),
                    match field.ty {
                        Type::Bool => "true or false",
                        Type::String => "a string",
                        Type::Array => "an array",
                        Type::Object => "an object",
                        Type::Any => "a JSON value",
                    }
                ));
            }
            values.push((i, crate::protocol::cap_strings(value.clone())));
        }
        Ok(Forwarded { values })
    }

    /// Whether no field is set.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The value of the field at `path`, if set.
    pub fn get(&self, path: &[&str]) -> Option<&Value> {
        self.values
            .iter()
            .find(|(i, _)| FORWARDED[*i].path == path)
            .map(|(_, v)| v)
    }

    /// Sets the field at `path` when it is unset (a path not in [`FORWARDED`] is ignored).
    pub fn set_default(&mut self, path: &[&str], value: Value) {
        if let Some(i) = FORWARDED.iter().position(|f| f.path == path)
            && !self.values.iter().any(|(j, _)| *j == i)
        {
            self.values.push((i, value));
        }
    }

    /// Merges `later` (the answers of hooks after these ones) in, each field by its rule.
    pub fn merge(&mut self, later: Forwarded) {
        for (i, value) in later.values {
            let Some(slot) = self.values.iter_mut().find(|(j, _)| *j == i) else {
                self.values.push((i, value));
                continue;
            };
            let kept = &mut slot.1;
            match FORWARDED[i].merge {
                Merge::First => {}
                Merge::Any => {
                    if value == Value::Bool(true) {
                        *kept = value;
                    }
                }
                Merge::Join(separator) => {
                    if let (Some(a), Some(b)) = (kept.as_str(), value.as_str()) {
                        *kept = Value::String(format!("{a}{separator}{b}"));
                    }
                }
                Merge::Rank(order) => {
                    let rank =
                        |v: &Value| v.as_str().and_then(|s| order.iter().position(|o| *o == s));
                    if rank(&value) > rank(kept) {
                        *kept = value;
                    }
                }
                Merge::Union => {
                    if let (Some(a), Value::Array(b)) = (kept.as_array_mut(), value) {
                        for item in b {
                            if !a.contains(&item) {
                                a.push(item);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Writes the fields into `answer` (a JSON answer object), each at its path, never over
    /// a value already there. A field under `hookSpecificOutput.decision` needs that object.
    pub fn write(&self, answer: &mut Map<String, Value>) {
        let mut sorted: Vec<&(usize, Value)> = self.values.iter().collect();
        sorted.sort_by_key(|(i, _)| *i);
        for (i, value) in sorted {
            let path = FORWARDED[*i].path;
            let Some((last, parents)) = path.split_last() else {
                continue;
            };
            // Below the first level, the parent must already be there (it is the decision
            // the field qualifies).
            let deeper = parents.get(1..).unwrap_or_default();
            let parent_there = parents.first().is_none_or(|first| {
                deeper.is_empty()
                    || answer
                        .get(*first)
                        .and_then(|v| lookup(v, deeper))
                        .is_some_and(Value::is_object)
            });
            if !parent_there {
                continue;
            }
            insert_at(answer, parents, last, value);
        }
    }
}

/// Inserts `value` as `last` in the object at `parents` (made where missing), unless there
/// is a value there already or a parent is not an object.
fn insert_at(object: &mut Map<String, Value>, parents: &[&str], last: &str, value: &Value) {
    match parents.split_first() {
        None => {
            if !object.contains_key(last) {
                object.insert(last.to_owned(), value.clone());
            }
        }
        Some((first, rest)) => {
            let next = object
                .entry(*first)
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(next) = next.as_object_mut() {
                insert_at(next, rest, last, value);
            }
        }
    }
}

fn lookup<'a>(value: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter()
        .try_fold(value, |v, key| v.get(*key))
        .filter(|v| !v.is_null())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(v: Value) -> Forwarded {
        Forwarded::read(&v).unwrap()
    }

    #[test]
    fn each_merge_rule() {
        let mut a = read(json!({"suppressOutput": false, "terminalSequence": "\u{7}",
            "hookSpecificOutput": {"sessionTitle": "first", "classifierContext": "c1",
            "watchPaths": ["a", "b"]}}));
        a.merge(read(
            json!({"suppressOutput": true, "terminalSequence": "\u{1b}]9;x\u{7}",
            "hookSpecificOutput": {"sessionTitle": "second", "classifierContext": "c2",
            "watchPaths": ["b", "c"], "retry": false}}),
        ));
        let mut out = Map::new();
        a.write(&mut out);
        assert_eq!(
            Value::Object(out),
            json!({"suppressOutput": true, "terminalSequence": "\u{7}\u{1b}]9;x\u{7}",
                "hookSpecificOutput": {"sessionTitle": "first", "watchPaths": ["a", "b", "c"],
                "retry": false, "classifierContext": "c1\n\nc2"}})
        );
    }

    #[test]
    fn the_most_restrictive_action_wins() {
        let mut a = read(json!({"hookSpecificOutput": {"action": "accept", "content": {"a": 1}}}));
        a.merge(read(json!({"hookSpecificOutput": {"action": "decline"}})));
        a.merge(read(json!({"hookSpecificOutput": {"action": "cancel"}})));
        assert_eq!(
            a.get(&["hookSpecificOutput", "action"]),
            Some(&json!("decline"))
        );
    }

    #[test]
    fn a_wrong_type_names_the_field() {
        let err = Forwarded::read(&json!({"hookSpecificOutput": {"retry": "yes"}})).unwrap_err();
        assert_eq!(
            err,
            "`hookSpecificOutput.retry` must be true or false, not \"yes\""
        );
    }

    #[test]
    fn decision_fields_need_a_decision() {
        let f = read(
            json!({"hookSpecificOutput": {"decision": {"behavior": "allow", "updatedPermissions": [{"type": "setMode"}]}}}),
        );
        let mut bare = Map::new();
        f.write(&mut bare);
        assert!(bare.is_empty(), "{bare:?}");
        let mut decided = json!({"hookSpecificOutput": {"decision": {"behavior": "allow"}}});
        f.write(decided.as_object_mut().unwrap());
        assert_eq!(
            decided["hookSpecificOutput"]["decision"]["updatedPermissions"],
            json!([{"type": "setMode"}])
        );
    }

    #[test]
    fn the_docs_name_every_forwarded_field() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/claude-events.md");
        let docs = std::fs::read_to_string(path).unwrap();
        for field in FORWARDED {
            let name = field.path.join(".");
            assert!(
                docs.contains(&format!("| `{name}` |")),
                "docs/claude-events.md has no row for `{name}`"
            );
        }
    }

    #[test]
    fn a_value_already_in_the_answer_stays() {
        let f = read(json!({"suppressOutput": true}));
        let mut out = json!({"suppressOutput": false});
        f.write(out.as_object_mut().unwrap());
        assert_eq!(out["suppressOutput"], false);
    }
}
