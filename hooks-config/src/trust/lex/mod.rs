//! A shell lexer, just enough to find what a command runs: simple commands of words (kept as
//! parts, so the scan can tell a literal from a variable or a substitution), their
//! redirections with heredoc bodies, and which command a pipe feeds from. Not a shell: it
//! never expands or runs anything.

/// One piece of a word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Part {
    /// Text, quoted or not, with quotes and escapes removed.
    Lit(String),
    /// An unquoted glob or brace expansion character (`*`, `?`, `[…]`, `{a,b}`).
    Glob(char),
    /// `$NAME`, `${NAME}`, `$1`, `$@`…
    Var(String),
    /// `${…}` with an operator (`${X:-y}`): decided at run time.
    Param(String),
    /// `$(…)` or `` `…` ``: the body, run as a command; the word gets its output.
    Subst(String),
    /// `<(…)` or `>(…)`: the body, run as a command; the word names a pipe to it.
    Proc(String),
    /// `$((…))`.
    Arith(String),
    /// A leading unquoted `~` (empty) or `~user`.
    Tilde(String),
}

/// A word: its parts, and its text as written (for messages).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct Word {
    pub parts: Vec<Part>,
    pub raw: String,
}

impl Word {
    /// The text when the word is literal (no variable, substitution or glob).
    pub fn literal(&self) -> Option<String> {
        let mut text = String::new();
        for part in &self.parts {
            match part {
                Part::Lit(s) => text.push_str(s),
                _ => return None,
            }
        }
        Some(text)
    }

    /// The body when the word is exactly one command or process substitution (`"$(cat f)"`).
    pub fn only_substitution(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [Part::Subst(body) | Part::Proc(body)] => Some(body),
            _ => None,
        }
    }
}

/// What a redirection does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Op {
    /// `<` or `<>`: reads the target file.
    In,
    /// `>`, `>>`, `>|`, `&>`: writes; ignored by the scan.
    Out,
    /// `<&N`: reads what descriptor N reads.
    DupIn,
    /// `>&N`: ignored.
    DupOut,
    /// `<<DELIM`: reads `body`; `quoted` when the delimiter was quoted (no expansion).
    HereDoc { quoted: bool, body: String },
    /// `<<<word`: reads the word.
    HereString,
}

/// A redirection: `[fd]op target`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Redirect {
    pub fd: Option<u32>,
    pub op: Op,
    pub target: Word,
}

/// Where a command's stdin comes from through a pipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PipeIn {
    None,
    /// The simple command at this index of the list.
    From(usize),
    /// A compound command (`( … )`, `{ …; }`, a loop): its output is not followed.
    Group,
}

/// A simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Simple {
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
    pub pipe_in: PipeIn,
    /// The command as written, for messages.
    pub raw: String,
    /// The patterns of a `case` arm (`a|*.sh)`): words matched against, never run; their
    /// substitutions still run.
    pub pattern: bool,
}

/// Splits shell text into simple commands, in the order they appear.
pub(super) fn lex(text: &str) -> Vec<Simple> {
    let mut lx = Lexer {
        text,
        pos: 0,
        commands: Vec::new(),
        words: Vec::new(),
        redirects: Vec::new(),
        word: None,
        word_start: 0,
        cmd_start: None,
        pending: None,
        heredocs: Vec::new(),
        pipe_next: false,
        group_closed: false,
        in_pattern: false,
    };
    lx.run();
    lx.commands
}

/// Reads heredoc text that undergoes expansion (unquoted delimiter) as one word.
pub(super) fn lex_expanding(text: &str) -> Word {
    let mut lx = Lexer {
        text,
        pos: 0,
        commands: Vec::new(),
        words: Vec::new(),
        redirects: Vec::new(),
        word: Some(Vec::new()),
        word_start: 0,
        cmd_start: None,
        pending: None,
        heredocs: Vec::new(),
        pipe_next: false,
        group_closed: false,
        in_pattern: false,
    };
    lx.quoted_text(None);
    Word {
        parts: merge(lx.word.take().unwrap_or_default()),
        raw: text.to_owned(),
    }
}

struct Lexer<'a> {
    text: &'a str,
    pos: usize,
    commands: Vec<Simple>,
    words: Vec<Word>,
    redirects: Vec<Redirect>,
    word: Option<Vec<Part>>,
    word_start: usize,
    cmd_start: Option<usize>,
    /// A redirection waiting for its target word.
    pending: Option<(Option<u32>, Op)>,
    /// Heredocs whose bodies start at the next newline: (command index, redirect index,
    /// delimiter, strip leading tabs).
    heredocs: Vec<(usize, usize, String, bool)>,
    pipe_next: bool,
    group_closed: bool,
    /// Inside `case … in`, where a pattern is read up to its `)`.
    in_pattern: bool,
}

fn merge(parts: Vec<Part>) -> Vec<Part> {
    let mut out: Vec<Part> = Vec::with_capacity(parts.len());
    let only = parts.len() == 1;
    for part in parts {
        if !only && part == Part::Lit(String::new()) {
            continue;
        }
        match (out.last_mut(), part) {
            (Some(Part::Lit(a)), Part::Lit(b)) => a.push_str(&b),
            (_, part) => out.push(part),
        }
    }
    out
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_name(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

impl Lexer<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.text[self.pos..].chars().nth(n)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn start_word(&mut self) -> &mut Vec<Part> {
        if self.word.is_none() {
            self.word_start = self.pos;
            self.cmd_start.get_or_insert(self.pos);
        }
        self.word.get_or_insert_with(Vec::new)
    }

    fn lit(&mut self, c: char) {
        self.start_word().push(Part::Lit(c.to_string()));
    }

    fn part(&mut self, part: Part) {
        self.start_word().push(part);
    }

    fn end_word(&mut self) {
        let Some(parts) = self.word.take() else {
            return;
        };
        let word = Word {
            parts: merge(parts),
            raw: self.text[self.word_start..self.pos].to_owned(),
        };
        match self.pending.take() {
            Some((fd, op)) => self.redirects.push(Redirect {
                fd,
                op,
                target: word,
            }),
            None => {
                let literal = word.literal();
                if self.in_pattern && self.words.is_empty() && literal.as_deref() == Some("esac") {
                    self.in_pattern = false;
                }
                self.words.push(word);
                let case_in = self.words.len() == 3
                    && self.words[0].literal().as_deref() == Some("case")
                    && literal.as_deref() == Some("in");
                if case_in && !self.in_pattern {
                    self.end_command(false);
                    self.in_pattern = true;
                }
            }
        }
    }

    /// The patterns of a `case` arm, ended by its `)`.
    fn end_pattern(&mut self) {
        self.in_pattern = false;
        if !self.words.is_empty() {
            let start = self.cmd_start.unwrap_or(self.pos);
            let raw = self.text[start..self.pos]
                .trim_end_matches(')')
                .trim()
                .to_owned();
            self.commands.push(Simple {
                words: std::mem::take(&mut self.words),
                redirects: std::mem::take(&mut self.redirects),
                pipe_in: PipeIn::None,
                raw,
                pattern: true,
            });
        }
        self.cmd_start = None;
    }

    fn end_command(&mut self, pipe: bool) {
        self.end_word();
        self.pending = None;
        let mut pushed = None;
        if !self.words.is_empty() || !self.redirects.is_empty() {
            let start = self.cmd_start.unwrap_or(self.pos);
            let raw = self.text[start..self.pos]
                .trim_end_matches([';', '|', '&', '\n', ' ', '\t', ')'])
                .trim()
                .to_owned();
            let index = self.commands.len();
            for (r, redirect) in self.redirects.iter().enumerate() {
                if matches!(redirect.op, Op::HereDoc { .. }) {
                    let delim: String = redirect
                        .target
                        .parts
                        .iter()
                        .map(|p| match p {
                            Part::Lit(s) => s.clone(),
                            other => format!("{other:?}"),
                        })
                        .collect();
                    let strip = redirect.target.raw.starts_with('-');
                    self.heredocs.push((index, r, delim, strip));
                }
            }
            let closer = self
                .words
                .first()
                .and_then(Word::literal)
                .is_some_and(|w| matches!(w.as_str(), "}" | "done" | "fi" | "esac"));
            self.commands.push(Simple {
                words: std::mem::take(&mut self.words),
                redirects: std::mem::take(&mut self.redirects),
                pipe_in: if self.pipe_next {
                    if self.group_closed {
                        PipeIn::Group
                    } else {
                        PipeIn::From(index.saturating_sub(1))
                    }
                } else {
                    PipeIn::None
                },
                raw,
                pattern: false,
            });
            pushed = Some(closer);
            self.group_closed = false;
        }
        self.cmd_start = None;
        if let Some(closer) = pushed {
            self.group_closed = closer;
        }
        self.pipe_next = pipe;
        if !pipe {
            self.group_closed = false;
        }
    }

    fn run(&mut self) {
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' => {
                    self.end_word();
                    self.bump();
                }
                '\n' => {
                    self.end_word();
                    self.bump();
                    self.end_command(false);
                    self.read_heredocs();
                }
                ';' => {
                    self.end_word();
                    self.bump();
                    // `;;`, `;&`, `;;&` end a `case` arm: a pattern comes next.
                    let arm_end = matches!(self.peek(), Some(';' | '&'));
                    while matches!(self.peek(), Some(';' | '&')) {
                        self.bump();
                    }
                    self.end_command(false);
                    if arm_end {
                        self.in_pattern = true;
                    }
                }
                '|' if self.in_pattern => {
                    self.end_word();
                    self.bump();
                }
                '(' if self.in_pattern && self.words.is_empty() && self.word.is_none() => {
                    self.bump();
                }
                ')' if self.in_pattern => {
                    self.end_word();
                    self.bump();
                    self.end_pattern();
                }
                '&' if self.peek_at(1) == Some('>') => {
                    self.end_word();
                    self.bump();
                    self.redirect(None);
                }
                '&' => {
                    self.end_word();
                    self.bump();
                    if self.peek() == Some('&') {
                        self.bump();
                    }
                    self.end_command(false);
                }
                '|' => {
                    self.end_word();
                    self.bump();
                    let pipe = match self.peek() {
                        Some('|') => {
                            self.bump();
                            false
                        }
                        Some('&') => {
                            self.bump();
                            true
                        }
                        _ => true,
                    };
                    let closed = self.group_closed;
                    self.end_command(pipe);
                    self.group_closed |= closed && pipe;
                }
                '(' => {
                    self.end_word();
                    self.bump();
                    self.end_command(false);
                }
                ')' => {
                    self.end_word();
                    self.bump();
                    self.end_command(false);
                    self.group_closed = true;
                }
                '<' | '>' if self.peek_at(1) == Some('(') => {
                    self.bump();
                    self.bump();
                    let body = self.until_paren();
                    self.part(Part::Proc(body));
                }
                '<' | '>' => {
                    // `2>file`: the digits are the redirection's descriptor, not a word.
                    let fd = match &self.word {
                        Some(parts) => match merge(parts.clone()).as_slice() {
                            [Part::Lit(d)] if d.bytes().all(|b| b.is_ascii_digit()) => {
                                let fd = d.parse().ok();
                                self.word = None;
                                fd
                            }
                            _ => {
                                self.end_word();
                                None
                            }
                        },
                        None => None,
                    };
                    self.redirect(fd);
                }
                '#' if self.word.is_none() => {
                    while self.peek().is_some_and(|d| d != '\n') {
                        self.bump();
                    }
                }
                '~' if self.word.is_none() => {
                    self.start_word();
                    self.bump();
                    let mut user = String::new();
                    while let Some(d) = self.peek().filter(|d| is_name(*d) || *d == '-') {
                        user.push(d);
                        self.bump();
                    }
                    let ends = self
                        .peek()
                        .is_none_or(|d| d == '/' || d == ':' || " \t\n;&|()<>".contains(d));
                    if ends {
                        self.part(Part::Tilde(user));
                    } else {
                        self.part(Part::Lit(format!("~{user}")));
                    }
                }
                '*' | '?' => {
                    self.start_word();
                    self.bump();
                    self.part(Part::Glob(c));
                }
                '[' | '{' => {
                    self.start_word();
                    self.bump();
                    let rest = &self.text[self.pos..];
                    let end = rest
                        .find(|d: char| " \t\n;&|()<>".contains(d))
                        .unwrap_or(rest.len());
                    let rest = &rest[..end];
                    let glob = if c == '[' {
                        rest.contains(']')
                    } else {
                        rest.find('}')
                            .is_some_and(|e| rest[..e].contains(',') || rest[..e].contains(".."))
                    };
                    self.part(if glob {
                        Part::Glob(c)
                    } else {
                        Part::Lit(c.into())
                    });
                }
                '\'' => {
                    self.start_word();
                    self.bump();
                    let rest = &self.text[self.pos..];
                    let end = rest.find('\'').unwrap_or(rest.len());
                    let s = rest[..end].to_owned();
                    self.pos = (self.pos + end + 1).min(self.text.len());
                    self.part(Part::Lit(s));
                }
                '"' => {
                    self.start_word().push(Part::Lit(String::new()));
                    self.bump();
                    self.quoted_text(Some('"'));
                }
                '\\' => {
                    self.start_word();
                    self.bump();
                    match self.bump() {
                        Some('\n') | None => {}
                        Some(e) => self.lit(e),
                    }
                }
                '$' => {
                    self.start_word();
                    self.bump();
                    self.dollar(false);
                }
                '`' => {
                    self.start_word();
                    self.bump();
                    let body = self.until_backtick();
                    self.part(Part::Subst(body));
                }
                other => {
                    self.start_word();
                    self.bump();
                    self.lit(other);
                }
            }
        }
        self.end_command(false);
    }

    /// `<`, `>` and friends, with `pos` on the operator.
    fn redirect(&mut self, fd: Option<u32>) {
        let rest = &self.text[self.pos..];
        let (op, len) = if rest.starts_with("<<<") {
            (Op::HereString, 3)
        } else if rest.starts_with("<<") {
            (
                Op::HereDoc {
                    quoted: false,
                    body: String::new(),
                },
                if rest.starts_with("<<-") { 3 } else { 2 },
            )
        } else if rest.starts_with("<&") {
            (Op::DupIn, 2)
        } else if rest.starts_with("<>") {
            (Op::In, 2)
        } else if rest.starts_with('<') {
            (Op::In, 1)
        } else if rest.starts_with(">&") {
            (Op::DupOut, 2)
        } else {
            let n = rest
                .find(|d: char| !matches!(d, '>' | '|'))
                .unwrap_or(rest.len());
            (Op::Out, n.max(1))
        };
        let strip = rest.starts_with("<<-");
        self.cmd_start.get_or_insert(self.pos);
        self.pos += len;
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.bump();
        }
        if let Op::HereDoc { .. } = op {
            // The delimiter: a word whose quoting says whether the body is expanded.
            let start = self.pos;
            let mut delim = String::new();
            let mut quoted = false;
            while let Some(d) = self.peek() {
                if " \t\n;&|()<>".contains(d) {
                    break;
                }
                self.bump();
                match d {
                    '\'' | '"' => quoted = true,
                    '\\' => {
                        quoted = true;
                        if let Some(e) = self.bump() {
                            delim.push(e);
                        }
                    }
                    other => delim.push(other),
                }
            }
            self.redirects.push(Redirect {
                fd,
                op: Op::HereDoc {
                    quoted,
                    body: String::new(),
                },
                target: Word {
                    parts: vec![Part::Lit(delim)],
                    raw: format!(
                        "{}{}",
                        if strip { "-" } else { "" },
                        &self.text[start..self.pos]
                    ),
                },
            });
            return;
        }
        self.pending = Some((fd, op));
    }

    fn read_heredocs(&mut self) {
        for (cmd, r, delim, strip) in std::mem::take(&mut self.heredocs) {
            let mut body = String::new();
            loop {
                let rest = &self.text[self.pos..];
                if rest.is_empty() {
                    break;
                }
                let end = rest.find('\n').map_or(rest.len(), |e| e + 1);
                let line = &rest[..end];
                self.pos += end;
                let bare = line.trim_end_matches('\n');
                let bare = if strip {
                    bare.trim_start_matches('\t')
                } else {
                    bare
                };
                if bare == delim {
                    break;
                }
                body.push_str(line);
            }
            if let Some(Op::HereDoc { body: b, .. }) = self
                .commands
                .get_mut(cmd)
                .and_then(|c| c.redirects.get_mut(r))
                .map(|r| &mut r.op)
            {
                *b = body;
            }
        }
    }

    /// Double-quoted text (up to `close`, or the end of the text for a heredoc body).
    fn quoted_text(&mut self, close: Option<char>) {
        while let Some(d) = self.bump() {
            match d {
                d if Some(d) == close => return,
                '\\' => match self.peek() {
                    Some(e @ ('$' | '`' | '"' | '\\')) => {
                        self.bump();
                        self.lit(e);
                    }
                    Some('\n') => {
                        self.bump();
                    }
                    _ => self.lit('\\'),
                },
                '$' => self.dollar(true),
                '`' => {
                    let body = self.until_backtick();
                    self.part(Part::Subst(body));
                }
                other => self.lit(other),
            }
        }
    }

    /// After a `$`.
    fn dollar(&mut self, quoted: bool) {
        match self.peek() {
            Some('(') if self.peek_at(1) == Some('(') => {
                self.bump();
                self.bump();
                let body = self.until_paren();
                if self.peek() == Some(')') {
                    self.bump();
                }
                self.part(Part::Arith(body));
            }
            Some('(') => {
                self.bump();
                let body = self.until_paren();
                self.part(Part::Subst(body));
            }
            Some('{') => {
                self.bump();
                let rest = &self.text[self.pos..];
                let mut depth = 0usize;
                let mut end = rest.len();
                for (i, d) in rest.char_indices() {
                    match d {
                        '{' => depth += 1,
                        '}' if depth == 0 => {
                            end = i;
                            break;
                        }
                        '}' => depth -= 1,
                        _ => {}
                    }
                }
                let inner = rest[..end].to_owned();
                self.pos = (self.pos + end + 1).min(self.text.len());
                let plain = inner.starts_with(is_name_start) && inner.chars().all(is_name)
                    || (inner.len() == 1 && inner.chars().all(|c| "@*#?$!-0123456789".contains(c)));
                self.part(if plain {
                    Part::Var(inner)
                } else {
                    Part::Param(inner)
                });
            }
            Some('\'') if !quoted => {
                self.bump();
                let mut s = String::new();
                while let Some(d) = self.bump() {
                    match d {
                        '\'' => break,
                        '\\' => match self.bump() {
                            Some('n') => s.push('\n'),
                            Some('t') => s.push('\t'),
                            Some(e) => s.push(e),
                            None => {}
                        },
                        other => s.push(other),
                    }
                }
                self.part(Part::Lit(s));
            }
            Some('"') if !quoted => {
                self.bump();
                self.quoted_text(Some('"'));
            }
            Some(d) if is_name_start(d) => {
                let mut name = String::new();
                while let Some(e) = self.peek().filter(|e| is_name(*e)) {
                    name.push(e);
                    self.bump();
                }
                self.part(Part::Var(name));
            }
            Some(d) if "@*#?$!-0123456789".contains(d) => {
                self.bump();
                self.part(Part::Var(d.to_string()));
            }
            _ => self.lit('$'),
        }
    }

    /// The body of `$(…)` or `<(…)`, with `pos` after the `(`; leaves `pos` after the `)`.
    fn until_paren(&mut self) -> String {
        let start = self.pos;
        let mut depth = 0usize;
        while let Some(d) = self.bump() {
            match d {
                '\\' => {
                    self.bump();
                }
                '\'' => while self.bump().is_some_and(|e| e != '\'') {},
                '"' => {
                    while let Some(e) = self.bump() {
                        match e {
                            '\\' => {
                                self.bump();
                            }
                            '"' => break,
                            _ => {}
                        }
                    }
                }
                '(' => depth += 1,
                ')' if depth == 0 => return self.text[start..self.pos - 1].to_owned(),
                ')' => depth -= 1,
                _ => {}
            }
        }
        self.text[start..].to_owned()
    }

    /// The body of `` `…` ``, with `pos` after the opening backtick.
    fn until_backtick(&mut self) -> String {
        let mut body = String::new();
        while let Some(d) = self.bump() {
            match d {
                '`' => break,
                '\\' => match self.bump() {
                    Some(e @ ('`' | '\\' | '$')) => body.push(e),
                    Some(e) => {
                        body.push('\\');
                        body.push(e);
                    }
                    None => {}
                },
                other => body.push(other),
            }
        }
        body
    }
}

#[cfg(test)]
mod tests;
