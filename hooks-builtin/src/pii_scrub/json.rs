//! Scrubbing every string of a JSON value: values at any depth, and object keys.

use std::borrow::Cow;
use std::collections::HashSet;

use serde_json::{Map, Value};

use super::engine::Engine;

/// Scrub every string in `value` in place (and object keys when `keys`), adding the marks
/// written to `counts`. Numbers, booleans and nulls are left alone, and so is the structure.
///
/// Walks with an explicit stack: a value built in code can nest deeper than the thread's
/// stack would allow a recursive walk.
pub(super) fn walk(engine: &Engine, value: &mut Value, keys: bool, counts: &mut [usize]) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => {
                if let Cow::Owned(new) = engine.scrub(s, counts) {
                    *s = new;
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => {
                if keys {
                    scrub_keys(engine, map, counts);
                }
                stack.extend(map.values_mut());
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

/// Rename the keys that hold something to redact, keeping the map's order. Two keys that
/// redact to the same text (two e-mail addresses) must not overwrite each other, so later ones
/// get a `#2`, `#3`… suffix; keys that were not redacted keep their names.
fn scrub_keys(engine: &Engine, map: &mut Map<String, Value>, counts: &mut [usize]) {
    let renamed: Vec<Option<String>> = map
        .keys()
        .map(|k| match engine.scrub(k, counts) {
            Cow::Owned(new) => Some(new),
            Cow::Borrowed(_) => None,
        })
        .collect();
    if renamed.iter().all(Option::is_none) {
        return;
    }
    let kept: HashSet<String> = map
        .keys()
        .zip(&renamed)
        .filter(|(_, r)| r.is_none())
        .map(|(k, _)| k.clone())
        .collect();
    let old = std::mem::take(map);
    for ((key, value), new) in old.into_iter().zip(renamed) {
        let key = match new {
            None => key,
            Some(new) => unique(new, |k| kept.contains(k) || map.contains_key(k)),
        };
        map.insert(key, value);
    }
}

/// `name`, or `name#2`, `name#3`… whichever is not `taken`.
fn unique(name: String, taken: impl Fn(&str) -> bool) -> String {
    if !taken(&name) {
        return name;
    }
    (2u64..)
        .map(|n| format!("{name}#{n}"))
        .find(|k| !taken(k))
        .unwrap_or(name)
}
