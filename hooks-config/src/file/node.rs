//! A format-neutral parsed document: every value and key with its 1-based line and column.
//!
//! YAML, TOML and JSON are each read into a [`Node`] tree first, so one validator serves all
//! formats and every problem it finds can name the exact position.

/// A 1-based line and column (columns count characters); 0 when unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub(crate) struct Pos {
    pub line: u32,
    pub column: u32,
}

/// A value and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    pub value: Value,
    pub pos: Pos,
}

/// A map key and where it starts. Non-string scalar keys are kept as their text; complex
/// keys (lists, maps) get a placeholder that no schema accepts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Key {
    pub name: String,
    pub pos: Pos,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    /// A TOML date-time, as written.
    Datetime(String),
    Seq(Vec<Node>),
    /// Entries in file order; duplicate keys are kept (the validator reports them).
    Map(Vec<(Key, Node)>),
}

impl Value {
    /// What the value is, for messages: "a string", "a list", …
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "nothing (null)",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a number",
            Value::Str(_) => "a string",
            Value::Datetime(_) => "a date-time",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a map",
        }
    }

    /// The text of a scalar, for use as a map key.
    pub fn key_text(&self) -> String {
        match self {
            Value::Null => "null".to_owned(),
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => f.to_string(),
            Value::Str(s) | Value::Datetime(s) => s.clone(),
            Value::Seq(_) => "<list key>".to_owned(),
            Value::Map(_) => "<map key>".to_owned(),
        }
    }
}

impl Node {
    /// The node as JSON (for settings carried through to other modules).
    pub fn to_json(&self) -> Result<serde_json::Value, (Pos, String)> {
        use serde_json::Value as J;
        Ok(match &self.value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => {
                if let Ok(v) = i64::try_from(*i) {
                    J::from(v)
                } else if let Ok(v) = u64::try_from(*i) {
                    J::from(v)
                } else {
                    return Err((self.pos, format!("integer {i} is out of range")));
                }
            }
            Value::Float(f) => serde_json::Number::from_f64(*f)
                .map(J::Number)
                .ok_or_else(|| (self.pos, format!("{f} is not a finite number")))?,
            Value::Str(s) | Value::Datetime(s) => J::String(s.clone()),
            Value::Seq(items) => {
                J::Array(items.iter().map(Node::to_json).collect::<Result<_, _>>()?)
            }
            Value::Map(entries) => {
                let mut map = serde_json::Map::new();
                for (key, value) in entries {
                    map.insert(key.name.clone(), value.to_json()?);
                }
                J::Object(map)
            }
        })
    }
}

/// Byte offsets to lines and columns.
pub(crate) struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { text, starts }
    }

    /// The position of a byte offset (clamped to the text; mid-character offsets count the
    /// character they fall in).
    pub fn pos(&self, offset: usize) -> Pos {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|s| *s <= offset).max(1);
        let start = self.starts.get(line - 1).copied().unwrap_or(0);
        let column = self
            .text
            .get(start..)
            .unwrap_or("")
            .char_indices()
            .take_while(|(i, _)| start + i < offset)
            .count()
            + 1;
        Pos {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(column).unwrap_or(u32::MAX),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_index_counts_lines_and_characters() {
        let idx = LineIndex::new("ab\nçd\n\nx");
        assert_eq!(idx.pos(0), Pos { line: 1, column: 1 });
        assert_eq!(idx.pos(2), Pos { line: 1, column: 3 });
        assert_eq!(idx.pos(3), Pos { line: 2, column: 1 });
        // `d` follows the two-byte `ç`: column 2.
        assert_eq!(idx.pos(5), Pos { line: 2, column: 2 });
        assert_eq!(idx.pos(7), Pos { line: 3, column: 1 });
        assert_eq!(idx.pos(8), Pos { line: 4, column: 1 });
        assert_eq!(idx.pos(1000), Pos { line: 4, column: 2 });
    }
}
