//! Reading typed fields out of [`Node`] maps, collecting every problem with its position.
//!
//! The validators never stop at the first problem of an entry: each field is read on its
//! own, problems are collected as [`Issues`], and the entry is kept only if there were none.

use std::collections::BTreeMap;

use super::node::{Key, Node, Pos, Value};
use crate::events::{closest, did_you_mean};

/// Problems found in one entry (or file), each at its position.
#[derive(Debug, Default)]
pub(crate) struct Issues(pub Vec<(Pos, String)>);

impl Issues {
    pub fn push(&mut self, pos: Pos, message: impl Into<String>) {
        self.0.push((pos, message.into()));
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The fields of a map, each taken at most once; what is never taken is reported as unknown.
pub(crate) struct Fields<'a> {
    pub pos: Pos,
    entries: &'a [(Key, Node)],
    taken: Vec<bool>,
}

impl<'a> Fields<'a> {
    /// The map's fields, or an issue when the node is no map. Duplicate keys are reported;
    /// the first occurrence is the one read.
    pub fn of(node: &'a Node, what: &str, issues: &mut Issues) -> Option<Self> {
        let Value::Map(entries) = &node.value else {
            issues.push(
                node.pos,
                format!("expected {what} (a map), found {}", node.value.kind()),
            );
            return None;
        };
        let mut taken = vec![false; entries.len()];
        for (i, (key, _)) in entries.iter().enumerate() {
            if let Some(first) = entries[..i].iter().find(|(k, _)| k.name == key.name) {
                issues.push(
                    key.pos,
                    format!(
                        "duplicate key `{}` (first at line {})",
                        key.name, first.0.pos.line
                    ),
                );
                // Reported here; not again as unknown.
                taken[i] = true;
            }
        }
        Some(Fields {
            pos: node.pos,
            entries,
            taken,
        })
    }

    /// The value of a field, if present.
    pub fn take(&mut self, name: &str) -> Option<&'a Node> {
        let i = self.entries.iter().position(|(k, _)| k.name == name)?;
        self.taken[i] = true;
        self.entries.get(i).map(|(_, v)| v)
    }

    /// Reports every field never taken, with the closest known name as suggestion or the
    /// hint `elsewhere` gives for it (a field that belongs in another block).
    pub fn finish(
        self,
        what: &str,
        known: &[&str],
        elsewhere: impl Fn(&str) -> Option<String>,
        issues: &mut Issues,
    ) {
        for ((key, _), taken) in self.entries.iter().zip(&self.taken) {
            if *taken {
                continue;
            }
            let hint = elsewhere(&key.name)
                .unwrap_or_else(|| did_you_mean(closest(&key.name, known.iter().copied())));
            issues.push(
                key.pos,
                format!("unknown field `{}` in {what}{hint}", key.name),
            );
        }
    }
}

/// A boolean: only `true` and `false`.
pub(crate) fn boolean(node: &Node, field: &str, issues: &mut Issues) -> Option<bool> {
    match &node.value {
        Value::Bool(b) => Some(*b),
        Value::Str(s) => {
            issues.push(
                node.pos,
                format!(
                    "`{field}`: expected true or false, found the string \"{s}\" (yes/no/on/off are not booleans here)"
                ),
            );
            None
        }
        other => {
            issues.push(
                node.pos,
                format!("`{field}`: expected true or false, found {}", other.kind()),
            );
            None
        }
    }
}

/// A string.
pub(crate) fn string<'a>(node: &'a Node, field: &str, issues: &mut Issues) -> Option<&'a str> {
    match &node.value {
        Value::Str(s) => Some(s),
        other => {
            issues.push(
                node.pos,
                format!("`{field}`: expected a string, found {}", other.kind()),
            );
            None
        }
    }
}

/// A string with something other than whitespace in it.
pub(crate) fn non_empty<'a>(node: &'a Node, field: &str, issues: &mut Issues) -> Option<&'a str> {
    let s = string(node, field, issues)?;
    if s.trim().is_empty() {
        issues.push(node.pos, format!("`{field}` is empty"));
        return None;
    }
    Some(s)
}

/// An integer within `min..=max`.
pub(crate) fn integer(
    node: &Node,
    field: &str,
    min: i128,
    max: i128,
    issues: &mut Issues,
) -> Option<i128> {
    match &node.value {
        Value::Int(i) if (min..=max).contains(i) => Some(*i),
        Value::Int(i) => {
            issues.push(
                node.pos,
                format!("`{field}`: {i} is out of range ({min} to {max})"),
            );
            None
        }
        other => {
            issues.push(
                node.pos,
                format!("`{field}`: expected an integer, found {}", other.kind()),
            );
            None
        }
    }
}

/// A number (integer or not).
pub(crate) fn number(node: &Node, field: &str, issues: &mut Issues) -> Option<f64> {
    match &node.value {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        other => {
            issues.push(
                node.pos,
                format!("`{field}`: expected a number, found {}", other.kind()),
            );
            None
        }
    }
}

/// A list of strings; with `single`, one string stands for a list of one.
pub(crate) fn strings(
    node: &Node,
    field: &str,
    single: bool,
    issues: &mut Issues,
) -> Option<Vec<String>> {
    match &node.value {
        Value::Str(s) if single => Some(vec![s.clone()]),
        Value::Seq(items) => {
            let before = issues.0.len();
            let list: Vec<String> = items
                .iter()
                .filter_map(|item| string(item, field, issues).map(str::to_owned))
                .collect();
            (issues.0.len() == before).then_some(list)
        }
        other => {
            let expected = if single {
                "a string or a list of strings"
            } else {
                "a list of strings"
            };
            issues.push(
                node.pos,
                format!("`{field}`: expected {expected}, found {}", other.kind()),
            );
            None
        }
    }
}

/// A map of strings to strings; with `scalars`, integers and booleans are taken as their
/// text (`PORT: 8080` in an environment). Other numbers are refused: `1.10` would become
/// `1.1`, so they must be quoted.
pub(crate) fn string_map(
    node: &Node,
    field: &str,
    scalars: bool,
    issues: &mut Issues,
) -> Option<BTreeMap<String, String>> {
    let Value::Map(entries) = &node.value else {
        issues.push(
            node.pos,
            format!(
                "`{field}`: expected a map of names to strings, found {}",
                node.value.kind()
            ),
        );
        return None;
    };
    let before = issues.0.len();
    let mut map = BTreeMap::new();
    for (key, value) in entries {
        let text = match &value.value {
            Value::Str(s) => s.clone(),
            Value::Int(_) | Value::Bool(_) if scalars => value.value.key_text(),
            Value::Float(_) if scalars => {
                issues.push(
                    value.pos,
                    format!(
                        "`{field}.{}`: write this number as a string (quote it), so it is passed exactly as written",
                        key.name
                    ),
                );
                continue;
            }
            other => {
                issues.push(
                    value.pos,
                    format!(
                        "`{field}.{}`: expected a string, found {}",
                        key.name,
                        other.kind()
                    ),
                );
                continue;
            }
        };
        if map.insert(key.name.clone(), text).is_some() {
            issues.push(key.pos, format!("`{field}`: duplicate key `{}`", key.name));
        }
    }
    (issues.0.len() == before).then_some(map)
}
