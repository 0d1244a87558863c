//! TOML into a [`Node`] tree, with `toml`'s span-preserving [`DeTable`] parser.
//!
//! TOML itself rejects duplicate keys, so those are syntax errors of the whole file. Table
//! entries come back in key order; they are re-sorted by position to keep file order.

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::node::{Key, LineIndex, Node, Pos, Value};

/// Parses a TOML document.
pub(crate) fn parse(text: &str) -> Result<Node, (Pos, String)> {
    let lines = LineIndex::new(text);
    match DeTable::parse(text) {
        Ok(table) => {
            let span = table.span();
            Ok(Node {
                value: table_value(table.into_inner(), &lines),
                pos: lines.pos(span.start),
            })
        }
        Err(e) => {
            let pos = e.span().map(|s| lines.pos(s.start)).unwrap_or_default();
            Err((pos, e.message().trim().to_owned()))
        }
    }
}

fn node(value: Spanned<DeValue<'_>>, lines: &LineIndex<'_>) -> Node {
    let pos = lines.pos(value.span().start);
    let value = match value.into_inner() {
        DeValue::String(s) => Value::Str(s.into_owned()),
        DeValue::Integer(i) => i128::from_str_radix(i.as_str(), i.radix())
            .map(Value::Int)
            .unwrap_or_else(|_| Value::Str(i.to_string())),
        DeValue::Float(f) => f
            .as_str()
            .parse::<f64>()
            .map(Value::Float)
            .unwrap_or_else(|_| Value::Str(f.as_str().to_owned())),
        DeValue::Boolean(b) => Value::Bool(b),
        DeValue::Datetime(d) => Value::Datetime(d.to_string()),
        DeValue::Array(items) => Value::Seq(items.into_iter().map(|v| node(v, lines)).collect()),
        DeValue::Table(table) => table_value(table, lines),
    };
    Node { value, pos }
}

fn table_value(table: DeTable<'_>, lines: &LineIndex<'_>) -> Value {
    let mut entries: Vec<(Key, Node, usize)> = table
        .into_iter()
        .map(|(key, value)| {
            let start = key.span().start;
            let key = Key {
                name: key.into_inner().into_owned(),
                pos: lines.pos(start),
            };
            (key, node(value, lines), start)
        })
        .collect();
    entries.sort_by_key(|(_, _, start)| *start);
    Value::Map(entries.into_iter().map(|(k, v, _)| (k, v)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_of_tables_entries_start_at_their_header() {
        let node =
            parse("enabled = true\n\n[[hooks]]\nid = \"a\"\n\n[[hooks]]\nid = \"b\"\n").unwrap();
        let Value::Map(top) = &node.value else {
            panic!()
        };
        assert_eq!(top[0].0.name, "enabled");
        let Value::Seq(hooks) = &top[1].1.value else {
            panic!("{top:?}")
        };
        assert_eq!(hooks[0].pos, Pos { line: 3, column: 1 });
        assert_eq!(hooks[1].pos, Pos { line: 6, column: 1 });
    }

    #[test]
    fn integers_of_any_radix_and_floats_convert() {
        let node = parse("a = 0x10\nb = 1_000\nc = 2.5\nd = nan\n").unwrap();
        let Value::Map(top) = &node.value else {
            panic!()
        };
        assert_eq!(top[0].1.value, Value::Int(16));
        assert_eq!(top[1].1.value, Value::Int(1000));
        assert_eq!(top[2].1.value, Value::Float(2.5));
        assert!(matches!(top[3].1.value, Value::Float(f) if f.is_nan()));
    }

    #[test]
    fn syntax_errors_have_a_position() {
        let (pos, message) = parse("a = 1\na = 2\n").unwrap_err();
        assert_eq!(pos, Pos { line: 2, column: 1 });
        assert_eq!(message, "duplicate key");
    }
}
