//! YAML into a [`Node`] tree, with serde-saphyr.
//!
//! Options: strict booleans (only `true`/`false` are booleans; `yes`, `no`, `on`, `off` are
//! strings, so `enabled: yes` is reported instead of silently meaning true), duplicate keys
//! passed through (the validator reports them at their position instead of failing the whole
//! file), non-finite floats kept as strings, and serde-saphyr's budget against hostile input
//! (alias expansion limits, and nesting at most [`MAX_DEPTH`] levels: each level costs tens of
//! kilobytes of stack in debug builds, and configs need about ten). One document per file.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use super::node::{Key, Node, Pos, Value};

/// How deeply collections may nest.
pub(crate) const MAX_DEPTH: usize = 24;

/// Parses one YAML document; an empty document is [`Value::Null`].
pub(crate) fn parse(text: &str) -> Result<Node, (Pos, String)> {
    let options = serde_saphyr::options! {
        budget: serde_saphyr::budget! { max_depth: MAX_DEPTH },
        strict_booleans: true,
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::LastWins,
        reject_non_finite_typeless_float: false,
        with_snippet: false,
    };
    match serde_saphyr::from_str_with_options::<Spanned<YamlNode>>(text, options) {
        Ok(node) => Ok(into_node(node)),
        Err(e) => {
            let e = e.without_snippet();
            let pos = e.location().map(pos_of).unwrap_or_default();
            let message = strip_position(e.to_string(), pos);
            if message.starts_with("budget breached: Depth") {
                return Err((pos, format!("nested deeper than {MAX_DEPTH} levels")));
            }
            Err((pos, message))
        }
    }
}

fn pos_of(l: serde_saphyr::Location) -> Pos {
    Pos {
        line: u32::try_from(l.line()).unwrap_or(u32::MAX),
        column: u32::try_from(l.column()).unwrap_or(u32::MAX),
    }
}

/// The message without the " at line L, column C" the position already says.
fn strip_position(message: String, pos: Pos) -> String {
    let suffix = format!(" at line {}, column {}", pos.line, pos.column);
    match message.strip_suffix(&suffix) {
        Some(m) => m.to_owned(),
        None => message,
    }
}

fn into_node(spanned: Spanned<YamlNode>) -> Node {
    Node {
        value: spanned.value.0,
        pos: pos_of(spanned.referenced),
    }
}

/// A value whose children carry their positions (serde-saphyr fills [`Spanned`] for each).
struct YamlNode(Value);

impl<'de> Deserialize<'de> for YamlNode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(YamlVisitor).map(YamlNode)
    }
}

struct YamlVisitor;

impl<'de> Visitor<'de> for YamlVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Int(v.into()))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        Ok(Value::Int(v))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        Ok(i128::try_from(v).map_or(Value::Float(v as f64), Value::Int))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }

    fn visit_char<E: de::Error>(self, v: char) -> Result<Value, E> {
        Ok(Value::Str(v.to_string()))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::Str(String::from_utf8_lossy(v).into_owned()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(YamlVisitor)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(YamlVisitor)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Spanned<YamlNode>>()? {
            items.push(into_node(item));
        }
        Ok(Value::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<YamlNode>>()? {
            let value = map.next_value::<Spanned<YamlNode>>()?;
            let key = into_node(key);
            entries.push((
                Key {
                    name: key.value.key_text(),
                    pos: key.pos,
                },
                into_node(value),
            ));
        }
        Ok(Value::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(node: &Node) -> &[(Key, Node)] {
        match &node.value {
            Value::Map(m) => m,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn values_carry_their_line_and_column() {
        let node = parse("a: 1\nlist:\n  - x: true\n").unwrap();
        let top = map(&node);
        assert_eq!(top[0].0.name, "a");
        assert_eq!(top[0].1.pos, Pos { line: 1, column: 4 });
        let Value::Seq(items) = &top[1].1.value else {
            panic!()
        };
        assert_eq!(items[0].pos, Pos { line: 3, column: 5 });
        assert_eq!(map(&items[0])[0].1.value, Value::Bool(true));
    }

    #[test]
    fn yaml_1_1_booleans_are_strings() {
        let node = parse("a: yes\nb: on\nc: false\n").unwrap();
        let top = map(&node);
        assert_eq!(top[0].1.value, Value::Str("yes".into()));
        assert_eq!(top[1].1.value, Value::Str("on".into()));
        assert_eq!(top[2].1.value, Value::Bool(false));
    }

    #[test]
    fn duplicate_keys_are_kept_for_the_validator() {
        let node = parse("a: 1\na: 2\n").unwrap();
        assert_eq!(map(&node).len(), 2);
    }

    #[test]
    fn syntax_errors_have_a_position_and_a_bare_message() {
        let (pos, message) = parse("a: b: c\n").unwrap_err();
        assert_eq!(pos, Pos { line: 1, column: 5 });
        assert!(!message.contains("line"), "{message}");
    }

    #[test]
    fn deep_nesting_is_refused_with_a_clear_message() {
        let text: String = (0..40).map(|i| format!("{}a:\n", "  ".repeat(i))).collect();
        let (pos, message) = parse(&text).unwrap_err();
        assert_eq!(message, "nested deeper than 24 levels");
        assert_eq!(pos.line, 25);
    }

    #[test]
    fn empty_documents_are_null() {
        assert_eq!(parse("").unwrap().value, Value::Null);
        assert_eq!(parse("# just a comment\n").unwrap().value, Value::Null);
    }
}
