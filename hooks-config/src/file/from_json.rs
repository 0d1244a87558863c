//! JSON into a [`Node`] tree.
//!
//! serde_json has no positions for nested values, so the text is first checked by
//! `serde_json` (which gives syntax errors with their line and column), then walked by the
//! small scanner below, which records where each value and key starts and hands strings and
//! numbers back to serde_json to decode. Duplicate keys are kept for the validator.

use super::node::{Key, LineIndex, Node, Pos, Value};

/// Deeper documents are refused (serde_json's own limit is 128).
const MAX_DEPTH: usize = 128;

/// Parses a JSON document.
pub(crate) fn parse(text: &str) -> Result<Node, (Pos, String)> {
    if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        let pos = Pos {
            line: u32::try_from(e.line()).unwrap_or(u32::MAX),
            column: u32::try_from(e.column()).unwrap_or(u32::MAX),
        };
        let message = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        let message = message.strip_suffix(&suffix).unwrap_or(&message).to_owned();
        return Err((pos, message));
    }
    let lines = LineIndex::new(text);
    let mut scanner = Scanner {
        text,
        at: 0,
        lines: &lines,
    };
    let node = scanner.value(0)?;
    scanner.skip_ws();
    if scanner.at < text.len() {
        return Err((lines.pos(scanner.at), "trailing characters".to_owned()));
    }
    Ok(node)
}

struct Scanner<'a> {
    text: &'a str,
    at: usize,
    lines: &'a LineIndex<'a>,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn fail<T>(&self, message: &str) -> Result<T, (Pos, String)> {
        Err((self.lines.pos(self.at), message.to_owned()))
    }

    fn expect(&mut self, byte: u8) -> Result<(), (Pos, String)> {
        self.skip_ws();
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            self.fail(&format!("expected `{}`", byte as char))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, (Pos, String)> {
        if depth > MAX_DEPTH {
            return self.fail("nested too deeply");
        }
        self.skip_ws();
        let pos = self.lines.pos(self.at);
        let value = match self.peek() {
            Some(b'{') => self.object(depth)?,
            Some(b'[') => self.array(depth)?,
            Some(b'"') => Value::Str(self.string()?),
            Some(b't') => self.literal("true", Value::Bool(true))?,
            Some(b'f') => self.literal("false", Value::Bool(false))?,
            Some(b'n') => self.literal("null", Value::Null)?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            _ => return self.fail("expected a value"),
        };
        Ok(Node { value, pos })
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Value, (Pos, String)> {
        if self
            .text
            .get(self.at..)
            .is_some_and(|t| t.starts_with(word))
        {
            self.at += word.len();
            Ok(value)
        } else {
            self.fail("expected a value")
        }
    }

    fn number(&mut self) -> Result<Value, (Pos, String)> {
        let start = self.at;
        while matches!(
            self.peek(),
            Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
        ) {
            self.at += 1;
        }
        let token = self.text.get(start..self.at).unwrap_or("");
        match serde_json::from_str::<serde_json::Number>(token) {
            Ok(n) => Ok(if let Some(i) = n.as_i64() {
                Value::Int(i.into())
            } else if let Some(u) = n.as_u64() {
                Value::Int(u.into())
            } else {
                Value::Float(n.as_f64().unwrap_or(f64::NAN))
            }),
            Err(_) => self.fail("invalid number"),
        }
    }

    fn string(&mut self) -> Result<String, (Pos, String)> {
        let start = self.at;
        self.at += 1;
        loop {
            match self.peek() {
                Some(b'"') => break,
                Some(b'\\') => self.at += 2,
                Some(_) => self.at += 1,
                None => return self.fail("unterminated string"),
            }
        }
        self.at += 1;
        match self
            .text
            .get(start..self.at)
            .map(serde_json::from_str::<String>)
        {
            Some(Ok(s)) => Ok(s),
            _ => Err((self.lines.pos(start), "invalid string".to_owned())),
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, (Pos, String)> {
        self.at += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Value::Seq(items));
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Value::Seq(items));
                }
                _ => return self.fail("expected `,` or `]`"),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, (Pos, String)> {
        self.at += 1;
        let mut entries = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Value::Map(entries));
        }
        loop {
            self.skip_ws();
            let pos = self.lines.pos(self.at);
            if self.peek() != Some(b'"') {
                return self.fail("expected a key");
            }
            let name = self.string()?;
            self.expect(b':')?;
            let value = self.value(depth + 1)?;
            entries.push((Key { name, pos }, value));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Value::Map(entries));
                }
                _ => return self.fail("expected `,` or `}`"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_values_carry_their_positions() {
        let text = "{\n  \"hooks\": {\n    \"Stop\": [ {\"a\": \"x\\\"y\"} ]\n  }\n}";
        let node = parse(text).unwrap();
        assert_eq!(node.pos, Pos { line: 1, column: 1 });
        let Value::Map(top) = &node.value else {
            panic!()
        };
        assert_eq!(top[0].0.pos, Pos { line: 2, column: 3 });
        let Value::Map(hooks) = &top[0].1.value else {
            panic!()
        };
        assert_eq!(hooks[0].0.name, "Stop");
        let Value::Seq(groups) = &hooks[0].1.value else {
            panic!()
        };
        assert_eq!(
            groups[0].pos,
            Pos {
                line: 3,
                column: 15
            }
        );
        let Value::Map(group) = &groups[0].value else {
            panic!()
        };
        assert_eq!(group[0].1.value, Value::Str("x\"y".into()));
    }

    #[test]
    fn numbers_keep_integer_and_float_apart() {
        let node = parse("[1, -2, 18446744073709551615, 2.5, 1e3]").unwrap();
        let Value::Seq(items) = node.value else {
            panic!()
        };
        let values: Vec<Value> = items.into_iter().map(|n| n.value).collect();
        assert_eq!(
            values,
            vec![
                Value::Int(1),
                Value::Int(-2),
                Value::Int(u64::MAX.into()),
                Value::Float(2.5),
                Value::Float(1000.0)
            ]
        );
    }

    #[test]
    fn duplicate_keys_are_kept() {
        let Value::Map(m) = parse(r#"{"a": 1, "a": 2}"#).unwrap().value else {
            panic!()
        };
        assert_eq!(m.len(), 2);
    }

    #[test]
    fn syntax_errors_have_a_position_and_a_bare_message() {
        let (pos, message) = parse("{\n  \"a\": [1,\n}").unwrap_err();
        assert_eq!(pos.line, 3);
        assert!(!message.contains("line"), "{message}");
    }
}
