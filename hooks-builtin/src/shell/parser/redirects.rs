//! Redirections and here-documents: a here-document's body comes after the end of its
//! line, so it is read at the next newline and put in the redirection that named it.

use super::{Parser, Result, Slot};
use crate::shell::{Redirect, RedirectOp, ShellError};

pub(super) struct HereDoc {
    delimiter: String,
    strip_tabs: bool,
    /// The delimiter is unquoted, so the body's substitutions run (`$(…)`, backquotes).
    expands: bool,
    slot: Slot,
}

impl<'a> Parser<'a, '_> {
    pub(super) fn read_heredocs(&mut self) -> Result<()> {
        for doc in std::mem::take(&mut self.heredocs) {
            let start = self.pos;
            let (body, end) = self.heredoc_body(&doc);
            if doc.expands {
                let after = self.pos;
                self.pos = start;
                self.heredoc_substitutions(end)?;
                self.pos = after;
            }
            let redirect = self
                .sink
                .redirect_mut(doc.slot)
                .ok_or(ShellError::Unsupported(
                    "a here-document whose body starts inside its own command",
                ))?;
            redirect.target = body;
        }
        for xargs in std::mem::take(&mut self.xargs_heredocs) {
            let input = (self.sink.redirect_mut(xargs.input))
                .map(|r| r.target.clone())
                .unwrap_or_default();
            self.xargs_runs_of(&xargs, &input)?;
        }
        Ok(())
    }

    /// The body of `doc`, which starts at the cursor, and where it ends; the cursor moves past
    /// the delimiter line.
    fn heredoc_body(&mut self, doc: &HereDoc) -> (String, usize) {
        let mut body = String::new();
        while let Some(rest) = self.src.get(self.pos..).filter(|r| !r.is_empty()) {
            let end = self.pos;
            let line = rest.split('\n').next().unwrap_or_default();
            self.pos += (line.len() + 1).min(rest.len());
            let line = if doc.strip_tabs {
                line.trim_start_matches('\t')
            } else {
                line
            };
            if line.trim_end_matches('\r') == doc.delimiter {
                return (body, end);
            }
            body.push_str(line);
            body.push('\n');
        }
        (body, self.pos)
    }

    /// Parses the substitutions of an expanding here-document body, from the cursor to `end`
    /// (`cat <<EOF` runs the `$(…)` and backquotes in its body, as in a double-quoted string).
    fn heredoc_substitutions(&mut self, end: usize) -> Result<()> {
        let mut scratch = Vec::new();
        while self.pos < end {
            match self.peek() {
                Some(b'\\') => self.pos = (self.pos + 2).min(end),
                Some(b'$') => self.dollar(&mut scratch, true)?,
                Some(b'`') => self.backtick(&mut scratch, true)?,
                _ => self.pos += 1,
            }
            scratch.clear();
        }
        if self.pos > end {
            return Err(ShellError::Unterminated("substitution in a here-document"));
        }
        Ok(())
    }

    /// A redirection at the cursor, if there is one. `slot` is where it will be stored, for a
    /// here-document's body.
    pub(super) fn redirect(&mut self, slot: Slot) -> Result<Option<Redirect>> {
        const OPS: &[(&str, RedirectOp)] = &[
            ("<<<", RedirectOp::HereString),
            ("<<-", RedirectOp::HereDoc),
            ("<<", RedirectOp::HereDoc),
            ("<>", RedirectOp::ReadWrite),
            ("<&", RedirectOp::DupIn),
            (">>", RedirectOp::Append),
            (">|", RedirectOp::Out),
            (">&", RedirectOp::DupOut),
            ("&>>", RedirectOp::AppendErr),
            ("&>", RedirectOp::OutErr),
            ("<", RedirectOp::In),
            (">", RedirectOp::Out),
        ];
        let rest = self.rest();
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let after = rest.get(digits..).unwrap_or_default();
        let Some(&(text, op)) = OPS.iter().find(|(t, _)| after.starts_with(t.as_bytes())) else {
            return Ok(None);
        };
        let process_substitution = text.len() == 1 && after.get(1) == Some(&b'(');
        if process_substitution || (digits > 0 && text.starts_with('&')) {
            return Ok(None);
        }
        let fd = match digits {
            0 => None,
            _ => Some(
                self.since_len(digits)
                    .parse()
                    .map_err(|_| ShellError::Unsupported("a file descriptor out of range"))?,
            ),
        };
        self.pos += digits + text.len();
        self.skip_blank();
        let start = self.pos;
        let target = self.word()?.ok_or_else(|| self.unexpected())?.text;
        if op == RedirectOp::HereDoc {
            let expands = !self.since(start).contains(['\'', '"', '\\']);
            self.heredocs.push(HereDoc {
                delimiter: target,
                strip_tabs: text == "<<-",
                expands,
                slot,
            });
            return Ok(Some(Redirect {
                fd,
                op,
                target: String::new(),
            }));
        }
        Ok(Some(Redirect { fd, op, target }))
    }

    /// The `len` bytes at the cursor, as text.
    fn since_len(&self, len: usize) -> &'a str {
        self.src.get(self.pos..self.pos + len).unwrap_or_default()
    }
}
