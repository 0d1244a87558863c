//! Words: quoting, escapes, and the expansions whose commands run (`$(…)`, backquotes,
//! `<(…)`), kept as text in the word.

use super::ShellError;
use super::parser::{Parser, Result, Source};

/// A word of a command, with quotes removed.
pub(super) struct Word {
    pub(super) text: String,
    /// Written as `NAME=value` (unquoted name), so a variable assignment before a command.
    pub(super) assign: bool,
    /// Holds a `$(` or a backquote that a quote or a backslash may have kept from running
    /// (`x='$(cmd)'`): it runs if the text is expanded again.
    pub(super) deferred: bool,
    /// An assignment whose quoted value keeps a leading `~` (or, single-quoted, a `$`) as
    /// text (`X='~'`, `X='$HOME'`): the value is not what a reader would expand it to.
    pub(super) unexpanded: bool,
    /// The offsets in `text` of the unquoted `{`, `,`, `.` and `}`, which brace expansion
    /// reads; empty when there is no unquoted `{`.
    pub(super) braces: Vec<usize>,
    /// The elements of the array it assigns (`a=(-rf /)`), quotes removed.
    pub(super) array: Option<Vec<String>>,
    /// Written as a variable alone and unquoted (`$s`, `${s}`): the shell splits its value
    /// into words.
    pub(super) bare: bool,
}

/// True when `raw`, as written, is a variable alone and unquoted: `$s`, `${s}`.
fn is_bare_variable(raw: &str) -> bool {
    let name = raw
        .strip_prefix("${")
        .and_then(|r| r.strip_suffix('}'))
        .or_else(|| raw.strip_prefix('$'))
        .unwrap_or_default();
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// True when `raw`, as written, starts with an assignment: `X=1`, `X+=1`, `a[0]=1`.
pub(super) fn is_assignment(raw: &str) -> bool {
    let name = raw
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    let rest = raw.get(name..).unwrap_or_default();
    name > 0
        && !raw.starts_with(|c: char| c.is_ascii_digit())
        && (rest.starts_with('=')
            || rest.starts_with("+=")
            || (rest.starts_with('[') && rest.contains("]=")))
}

impl Parser<'_, '_> {
    pub(super) fn word(&mut self) -> Result<Option<Word>> {
        self.word_in(false)
    }

    /// The word at the cursor, if any. In a `[[ … ]]` test (`cond`), only blanks end it.
    pub(super) fn word_in(&mut self, cond: bool) -> Result<Option<Word>> {
        let start = self.pos;
        let mut buf = Vec::new();
        let mut braces = Vec::new();
        while let Some(b) = self.peek() {
            let prev = self
                .pos
                .checked_sub(1)
                .and_then(|i| self.src.as_bytes().get(i));
            match b {
                b' ' | b'\t' | b'\r' | b'\n' => break,
                _ if cond => self.unquoted(b, &mut buf)?,
                b'<' | b'>' if self.peek_at(1) == Some(b'(') => {
                    self.process_substitution(&mut buf)?;
                }
                b'(' if self.pos > start
                    && self.since(start).ends_with('=')
                    && is_assignment(self.since(start)) =>
                {
                    self.array(&mut buf)?;
                }
                b'(' if self.pos > start && prev.is_some_and(|p| b"?*+@!".contains(p)) => {
                    self.extglob(&mut buf)?;
                }
                b'|' | b'&' | b';' | b'<' | b'>' | b'(' | b')' => break,
                b'{' | b',' | b'.' | b'}' => {
                    braces.push(buf.len());
                    self.pos += 1;
                    buf.push(b);
                }
                _ => self.unquoted(b, &mut buf)?,
            }
        }
        if self.pos == start {
            return Ok(None);
        }
        if !braces.iter().any(|&i| buf.get(i) == Some(&b'{')) {
            braces.clear();
        }
        let text = String::from_utf8_lossy(&buf).into_owned();
        if text.len() != buf.len() {
            braces.clear(); // invalid UTF-8 was replaced, so the offsets moved
        }
        let raw = self.since(start);
        let deferred = raw.contains(['\'', '\\']) && (text.contains("$(") || text.contains('`'));
        let assign = is_assignment(raw);
        let unexpanded = assign && {
            let raw_value = raw.split_once('=').map_or("", |(_, v)| v);
            let value = text.split_once('=').map_or("", |(_, v)| v);
            (raw_value.starts_with('\'') && (value.starts_with('~') || value.contains('$')))
                || (raw_value.starts_with('"') && value.starts_with('~'))
        };
        Ok(Some(Word {
            text,
            assign,
            deferred,
            unexpanded,
            braces,
            array: self.array.take(),
            bare: is_bare_variable(raw),
        }))
    }

    /// One unquoted element of a word, starting with `b`.
    fn unquoted(&mut self, b: u8, buf: &mut Vec<u8>) -> Result<()> {
        match b {
            b'\\' => self.escape(buf),
            b'\'' => self.single_quoted(buf)?,
            b'"' => self.double_quoted(buf)?,
            b'$' => self.dollar(buf, false)?,
            b'`' => self.backtick(buf, false)?,
            _ => self.literal(buf),
        }
        Ok(())
    }

    /// Copies the character at the cursor.
    pub(super) fn literal(&mut self, buf: &mut Vec<u8>) {
        let len = self
            .src
            .get(self.pos..)
            .and_then(|s| s.chars().next())
            .map_or(1, char::len_utf8);
        buf.extend_from_slice(self.rest().get(..len).unwrap_or_default());
        self.pos += len;
    }

    fn escape(&mut self, buf: &mut Vec<u8>) {
        match self.peek_at(1) {
            Some(b'\n') => self.pos += 2,
            Some(_) => {
                self.pos += 1;
                self.literal(buf);
            }
            None => {
                buf.push(b'\\');
                self.pos += 1;
            }
        }
    }

    fn single_quoted(&mut self, buf: &mut Vec<u8>) -> Result<()> {
        let body = self.rest().get(1..).unwrap_or_default();
        let end = body
            .iter()
            .position(|&b| b == b'\'')
            .ok_or(ShellError::Unterminated("single quote"))?;
        buf.extend_from_slice(&body[..end]);
        self.pos += end + 2;
        Ok(())
    }

    fn double_quoted(&mut self, buf: &mut Vec<u8>) -> Result<()> {
        self.pos += 1;
        loop {
            match self.peek() {
                None => return Err(ShellError::Unterminated("double quote")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => match self.peek_at(1) {
                    Some(b'\n') => self.pos += 2,
                    Some(b'$' | b'`' | b'"' | b'\\') => {
                        self.pos += 1;
                        self.literal(buf);
                    }
                    _ => {
                        buf.push(b'\\');
                        self.pos += 1;
                    }
                },
                Some(b'$') => self.dollar(buf, true)?,
                Some(b'`') => self.backtick(buf, true)?,
                Some(_) => self.literal(buf),
            }
        }
    }

    /// `$'…'`, `$"…"`, `$(…)`, `$((…))`, `${…}`, `$NAME` or a lone `$`. Expansions are kept
    /// as written; the commands in them are parsed.
    pub(super) fn dollar(&mut self, buf: &mut Vec<u8>, quoted: bool) -> Result<()> {
        let start = self.pos;
        match self.peek_at(1) {
            Some(b'\'') if !quoted => return self.ansi_c(buf),
            Some(b'"') if !quoted => {
                self.pos += 1;
                return self.double_quoted(buf);
            }
            Some(b'(') => {
                self.pos += 1;
                if self.starts("((") && self.arith_ahead()? {
                    // `$((…))` is arithmetic, or a substitution of a subshell where a shell
                    // reads it so: both readings are parsed.
                    let inner = self.pos + 2;
                    self.arith()?;
                    let inner = self.src.get(inner..self.pos - 2).unwrap_or_default();
                    self.queue_reading(format!("({inner})"))?;
                } else {
                    self.pos += 1;
                    self.subshell_scope(|p| p.list_to_paren())?;
                    self.pos += 1;
                }
            }
            Some(b'{') => {
                self.pos += 2;
                self.nested(|p| p.braced(quoted))?;
            }
            Some(b) if b == b'_' || b.is_ascii_alphabetic() => {
                self.pos += 1;
                let name = self.rest().iter();
                self.pos += name
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                    .count();
            }
            Some(b) if b.is_ascii_digit() || b"@*#?-$!".contains(&b) => self.pos += 2,
            _ => self.pos += 1,
        }
        buf.extend_from_slice(self.since(start).as_bytes());
        Ok(())
    }

    /// The rest of `${…}`, up to and including its `}`.
    fn braced(&mut self, quoted: bool) -> Result<()> {
        let mut scratch = Vec::new();
        loop {
            match self.peek() {
                None => return Err(ShellError::Unterminated("`${`")),
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\'') if quoted => self.literal(&mut scratch),
                Some(b'$') => self.dollar(&mut scratch, quoted)?,
                Some(b) => self.unquoted(b, &mut scratch)?,
            }
        }
    }

    /// A backquoted command: its text, unescaped, is queued as a script.
    pub(super) fn backtick(&mut self, buf: &mut Vec<u8>, quoted: bool) -> Result<()> {
        let start = self.pos;
        self.pos += 1;
        let mut inner = Vec::new();
        loop {
            match self.peek() {
                None => return Err(ShellError::Unterminated("backquote")),
                Some(b'`') => break,
                Some(b'\\')
                    if matches!(self.peek_at(1), Some(b'`' | b'\\' | b'$'))
                        || (quoted && self.peek_at(1) == Some(b'"')) =>
                {
                    self.pos += 1;
                    self.literal(&mut inner);
                }
                Some(_) => self.literal(&mut inner),
            }
        }
        self.pos += 1;
        buf.extend_from_slice(self.since(start).as_bytes());
        let text = String::from_utf8_lossy(&inner).into_owned();
        self.queue(Source::Text(text), self.privileged)
    }

    /// `<(…)` or `>(…)`.
    fn process_substitution(&mut self, buf: &mut Vec<u8>) -> Result<()> {
        let start = self.pos;
        self.pos += 2;
        self.subshell_scope(|p| p.list_to_paren())?;
        self.pos += 1;
        buf.extend_from_slice(self.since(start).as_bytes());
        Ok(())
    }

    /// A pattern group of an extended glob (`!(*.rs)`), kept as text.
    fn extglob(&mut self, buf: &mut Vec<u8>) -> Result<()> {
        let start = self.pos;
        let mut level = 0usize;
        let mut scratch = Vec::new();
        loop {
            match self.peek() {
                None => return Err(ShellError::Unterminated("pattern group")),
                Some(b'(') => {
                    level += 1;
                    self.pos += 1;
                }
                Some(b')') => {
                    self.pos += 1;
                    level = level.saturating_sub(1);
                    if level == 0 {
                        break;
                    }
                }
                Some(b) => self.unquoted(b, &mut scratch)?,
            }
        }
        buf.extend_from_slice(self.since(start).as_bytes());
        Ok(())
    }

    /// The value of an array assignment, `(a b c)`, kept as text.
    fn array(&mut self, buf: &mut Vec<u8>) -> Result<()> {
        let start = self.pos;
        self.pos += 1;
        let mut elements = Vec::new();
        loop {
            self.skip_space()?;
            if self.peek() == Some(b')') {
                self.pos += 1;
                break;
            }
            match self.word()? {
                Some(word) => elements.push(word.text),
                None => {
                    return Err(match self.peek() {
                        None => ShellError::Unterminated("array"),
                        Some(_) => self.unexpected(),
                    });
                }
            }
        }
        buf.extend_from_slice(self.since(start).as_bytes());
        // Kept for the word being read (an element `[i]=x` is kept as written).
        self.array = Some(elements);
        Ok(())
    }

    /// ANSI-C quoting, `$'…'`, with its escapes decoded.
    fn ansi_c(&mut self, buf: &mut Vec<u8>) -> Result<()> {
        self.pos += 2;
        loop {
            match self.peek() {
                None => return Err(ShellError::Unterminated("`$'`")),
                Some(b'\'') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.pos += 1;
                    self.ansi_escape(buf);
                }
                Some(_) => self.literal(buf),
            }
        }
    }

    fn ansi_escape(&mut self, buf: &mut Vec<u8>) {
        let Some(c) = self.peek() else {
            buf.push(b'\\');
            return;
        };
        let simple = match c {
            b'n' => Some(b'\n'),
            b't' => Some(b'\t'),
            b'r' => Some(b'\r'),
            b'a' => Some(7),
            b'b' => Some(8),
            b'e' | b'E' => Some(27),
            b'f' => Some(12),
            b'v' => Some(11),
            b'\\' | b'\'' | b'"' | b'?' => Some(c),
            _ => None,
        };
        if let Some(byte) = simple {
            self.pos += 1;
            buf.push(byte);
            return;
        }
        let decoded = match c {
            b'x' => self.code(1, 16, 2).map(|v| vec![(v & 0xff) as u8]),
            b'u' => self.code(1, 16, 4).and_then(char_bytes),
            b'U' => self.code(1, 16, 8).and_then(char_bytes),
            b'0'..=b'7' => self.code(0, 8, 3).map(|v| vec![(v & 0xff) as u8]),
            b'c' => self.peek_at(1).map(|x| {
                self.pos += 2;
                vec![x & 0x1f]
            }),
            _ => None,
        };
        match decoded {
            Some(bytes) => buf.extend(bytes),
            None => buf.push(b'\\'),
        }
    }

    /// Up to `max` digits in `radix`, `skip` bytes after the cursor; consumes them and the
    /// skipped bytes when there is at least one.
    fn code(&mut self, skip: usize, radix: u32, max: usize) -> Option<u32> {
        let digits = self.rest().get(skip..)?;
        let len = digits
            .iter()
            .take(max)
            .take_while(|b| char::from(**b).is_digit(radix))
            .count();
        let value = std::str::from_utf8(&digits[..len]).ok()?;
        let value = u32::from_str_radix(value, radix).ok()?;
        self.pos += skip + len;
        Some(value)
    }
}

fn char_bytes(code: u32) -> Option<Vec<u8>> {
    char::from_u32(code).map(|c| c.to_string().into_bytes())
}
