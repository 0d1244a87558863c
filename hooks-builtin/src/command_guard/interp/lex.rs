//! The lexer: interpreter code as tokens (strings, names, punctuation), enough to find
//! calls and their literal arguments.

use super::*;

/// A token of interpreter code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Tok {
    /// An identifier with its qualifiers (`os.system`, `File::Path::rmtree` as
    /// `File.Path.rmtree`); a method called on an expression starts with a dot (`.unlink`).
    Name(String),
    /// A string literal, decoded; `interp` when it interpolates (f-strings, `"$x"`, `#{}`,
    /// `${}`); `template` for a JavaScript template literal.
    Str {
        text: String,
        interp: bool,
        template: bool,
    },
    /// A command literal: backquotes, `qx(…)`, `%x(…)`.
    Cmd {
        text: String,
        interp: bool,
    },
    /// A word list: `qw(…)`, `%w(…)`.
    Words(Vec<String>),
    Num,
    Punct(char),
    /// Variables, regexes and what else does not matter.
    Other,
    /// The last token when the lexer stopped reading delimited bodies past its work bound
    /// (`q( q( q( …` unclosed, each read to the end): what follows is unread.
    Exhausted,
}

pub(super) struct Lexer<'a> {
    pub(super) lang: Lang,
    pub(super) s: &'a [char],
    pub(super) i: usize,
    pub(super) toks: Vec<Tok>,
    /// Characters delimited bodies may still be read for, so that unclosed ones repeated
    /// cost linear time.
    pub(super) budget: usize,
}

pub(super) fn lex(lang: Lang, code: &str) -> Vec<Tok> {
    let chars: Vec<char> = code.chars().collect();
    let mut lexer = Lexer {
        lang,
        budget: 8 * chars.len() + 10_000,
        s: &chars,
        i: 0,
        toks: Vec::new(),
    };
    lexer.run();
    if lexer.budget == 0 {
        lexer.toks.push(Tok::Exhausted);
    }
    lexer.toks
}

pub(super) fn ident_start(lang: Lang, c: char) -> bool {
    c.is_alphabetic() || c == '_' || (lang == Lang::Js && c == '$')
}

pub(super) fn ident_char(lang: Lang, c: char) -> bool {
    c.is_alphanumeric() || c == '_' || (lang == Lang::Js && c == '$')
}

/// The closing delimiter of a quote-like operator opened by `open`.
pub(super) fn closing(open: char) -> char {
    match open {
        '(' => ')',
        '[' => ']',
        '{' => '}',
        '<' => '>',
        c => c,
    }
}

impl Lexer<'_> {
    fn peek(&self, n: usize) -> Option<char> {
        self.s.get(self.i + n).copied()
    }

    fn run(&mut self) {
        let lang = self.lang;
        while let Some(c) = self.peek(0) {
            let next = self.peek(1);
            match c {
                '\n' | ';' => {
                    self.toks.push(Tok::Punct(c));
                    self.i += 1;
                }
                c if c.is_whitespace() => self.i += 1,
                // Lua's `#` is the length operator; its comments start `--`.
                '#' if !matches!(lang, Lang::Js | Lang::Lua) => self.skip_line(),
                '-' if lang == Lang::Lua && next == Some('-') => {
                    // A long comment (`--[[ … ]]`, `--[==[ … ]==]`) may end on the same line
                    // with code after it; a short one runs to the end of the line.
                    self.i += 2;
                    if self.lua_long_bracket().is_none() {
                        self.skip_line();
                    }
                }
                '[' if lang == Lang::Lua && matches!(next, Some('[' | '=')) => {
                    let start = self.i;
                    match self.lua_long_bracket() {
                        Some(text) => self.toks.push(Tok::Str {
                            text,
                            interp: false,
                            template: false,
                        }),
                        None => {
                            self.i = start + 1;
                            self.toks.push(Tok::Punct('['));
                        }
                    }
                }
                '/' if matches!(lang, Lang::Js | Lang::Php) && next == Some('/') => {
                    self.skip_line();
                }
                '/' if matches!(lang, Lang::Js | Lang::Php) && next == Some('*') => {
                    self.i += 2;
                    while self.i < self.s.len()
                        && !(self.peek(0) == Some('*') && self.peek(1) == Some('/'))
                    {
                        self.i += 1;
                    }
                    self.i += 2;
                }
                '\'' | '"' => self.string(c, false, false),
                '`' => self.backquote(),
                '$' if !matches!(lang, Lang::Js | Lang::Lua | Lang::R) => self.variable(),
                '@' if matches!(lang, Lang::Perl | Lang::Ruby) => {
                    self.i += 1;
                    while self
                        .peek(0)
                        .is_some_and(|c| c == '@' || ident_char(lang, c))
                    {
                        self.i += 1;
                    }
                    self.toks.push(Tok::Other);
                }
                '%' if lang == Lang::Ruby && self.ruby_percent() => {}
                '%' if lang == Lang::Perl && next.is_some_and(|c| ident_start(lang, c)) => {
                    self.i += 1;
                    self.variable_name();
                }
                c if ident_start(lang, c) => self.name(),
                '-' if matches!(lang, Lang::Perl | Lang::Php)
                    && next == Some('>')
                    && self.peek(2).is_some_and(|c| ident_start(lang, c)) =>
                {
                    self.i += 2;
                    self.name();
                    if let Some(Tok::Name(name)) = self.toks.last_mut() {
                        name.insert(0, '.');
                    }
                }
                '.' if next.is_some_and(|c| ident_start(lang, c)) => {
                    self.i += 1;
                    self.name();
                    if let Some(Tok::Name(name)) = self.toks.last_mut() {
                        name.insert(0, '.');
                    }
                }
                c if c.is_ascii_digit() => {
                    while self
                        .peek(0)
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
                    {
                        self.i += 1;
                    }
                    self.toks.push(Tok::Num);
                }
                c => {
                    self.toks.push(Tok::Punct(c));
                    self.i += 1;
                }
            }
        }
    }

    /// A Lua long bracket at the cursor (`[[ … ]]`, `[==[ … ]==]`): its text, the cursor
    /// after it. `None`, the cursor unmoved, when none opens here. An unclosed one runs to
    /// the end of the code, as Lua reads it (an error there: nothing runs).
    fn lua_long_bracket(&mut self) -> Option<String> {
        if self.peek(0) != Some('[') {
            return None;
        }
        let level = (1..).take_while(|&n| self.peek(n) == Some('=')).count();
        if self.peek(level + 1) != Some('[') {
            return None;
        }
        let start = self.i + level + 2;
        let mut j = start;
        while j < self.s.len() {
            if self.s[j] == ']'
                && self.s.get(j + level + 1) == Some(&']')
                && (1..=level).all(|n| self.s.get(j + n) == Some(&'='))
            {
                self.i = j + level + 2;
                return Some(self.s[start..j].iter().collect());
            }
            j += 1;
        }
        self.i = self.s.len();
        Some(self.s[start..].iter().collect())
    }

    fn skip_line(&mut self) {
        while self.peek(0).is_some_and(|c| c != '\n') {
            self.i += 1;
        }
    }

    fn variable_name(&mut self) {
        let lang = self.lang;
        while self.peek(0).is_some_and(|c| ident_char(lang, c)) {
            self.i += 1;
        }
        self.toks.push(Tok::Other);
    }

    /// `$x`, `$_`, `$0`, `$#x`, `${`: a variable, never a string or a call.
    fn variable(&mut self) {
        self.i += 1;
        match self.peek(0) {
            Some('#') if self.lang == Lang::Perl => {
                self.i += 1;
                self.variable_name();
            }
            Some(c) if ident_char(self.lang, c) => self.variable_name(),
            Some(c) if "&!@/\\,.?^$~:".contains(c) => {
                self.i += 1;
                self.toks.push(Tok::Other);
            }
            _ => self.toks.push(Tok::Other),
        }
    }

    /// An identifier and its qualifiers, or a string with a prefix (`r'…'`, `f"…"`), or a
    /// Perl quote-like operator (`q(…)`, `qx{…}`, `s/a/b/`).
    fn name(&mut self) {
        let lang = self.lang;
        let start = self.i;
        while self.peek(0).is_some_and(|c| ident_char(lang, c)) {
            self.i += 1;
        }
        let word: String = self.s[start..self.i].iter().collect();
        let quote = self.peek(0).filter(|c| *c == '\'' || *c == '"');
        if lang == Lang::Python
            && word.len() <= 2
            && word.chars().all(|c| "rRbBuUfF".contains(c))
            && let Some(q) = quote
        {
            let raw = word.contains(['r', 'R']);
            let fstring = word.contains(['f', 'F']);
            self.string(q, raw, fstring);
            return;
        }
        if lang == Lang::Perl && self.perl_quote(&word) {
            return;
        }
        if lang == Lang::R && matches!(word.as_str(), "r" | "R") && quote.is_some() {
            self.r_raw_string();
            return;
        }
        let mut name = word;
        loop {
            // Blanks may stand around the separator (`os . system (…)`, `os.⏎execute`).
            let blank = |from: usize| {
                (from..)
                    .take_while(|&k| self.s.get(k).is_some_and(|c| c.is_whitespace()))
                    .count()
            };
            let at = self.i + blank(self.i);
            let sep = match (self.s.get(at), self.s.get(at + 1)) {
                (Some('.'), Some(c)) if *c != '.' => at + 1,
                (Some(':'), Some(':')) => at + 2,
                (Some('-'), Some('>')) if lang != Lang::Js => at + 2,
                _ => break,
            };
            let next = sep + blank(sep);
            if !self.s.get(next).is_some_and(|&c| ident_start(lang, c)) {
                break;
            }
            self.i = next;
            name.push('.');
            let part = self.i;
            while self.peek(0).is_some_and(|c| ident_char(lang, c)) {
                self.i += 1;
            }
            name.extend(&self.s[part..self.i]);
        }
        self.toks.push(Tok::Name(name));
    }

    /// Reads a delimited body starting at the opening delimiter at the cursor; `None` when
    /// it is not closed.
    fn delimited(&mut self) -> Option<String> {
        let open = self.peek(0)?;
        let close = closing(open);
        let mut depth = 0usize;
        let mut j = self.i + 1;
        let mut body = String::new();
        while let Some(&c) = self.s.get(j) {
            if self.budget == 0 {
                return None;
            }
            self.budget -= 1;
            if c == '\\' {
                if let Some(&n) = self.s.get(j + 1) {
                    if n != close && n != open && n != '\\' {
                        body.push('\\');
                    }
                    body.push(n);
                }
                j += 2;
                continue;
            }
            if c == close && depth == 0 {
                self.i = j + 1;
                return Some(body);
            }
            if open != close && c == open {
                depth += 1;
            } else if open != close && c == close {
                depth -= 1;
            }
            body.push(c);
            j += 1;
        }
        None
    }

    fn perl_quote(&mut self, word: &str) -> bool {
        let parts = match word {
            "q" | "qq" | "qw" | "qx" | "m" | "qr" => 1,
            "s" | "tr" | "y" => 2,
            _ => return false,
        };
        let Some(open) = self.peek(0) else {
            return false;
        };
        if open.is_alphanumeric() || open.is_whitespace() || "_,;=)".contains(open) {
            return false;
        }
        if open == '=' && self.peek(1) == Some('>') {
            return false;
        }
        let save = self.i;
        let Some(body) = self.delimited() else {
            self.i = save;
            return false;
        };
        if parts == 2 {
            if open != closing(open) {
                while self.peek(0).is_some_and(char::is_whitespace) {
                    self.i += 1;
                }
                self.delimited();
            } else {
                self.i -= 1; // the closing delimiter opens the second part
                self.delimited();
            }
        }
        while self.peek(0).is_some_and(|c| c.is_ascii_alphabetic()) {
            self.i += 1;
        }
        self.toks.push(match word {
            "q" => Tok::Str {
                text: body,
                interp: false,
                template: false,
            },
            "qq" => Tok::Str {
                interp: perl_interpolates(&body),
                text: body,
                template: false,
            },
            "qw" => Tok::Words(body.split_whitespace().map(str::to_owned).collect()),
            "qx" => Tok::Cmd {
                interp: perl_interpolates(&body),
                text: body,
            },
            _ => Tok::Other,
        });
        true
    }

    /// Ruby's `%w(…)`, `%x(…)`, `%q(…)`, `%Q(…)`, `%(…)`, `%i(…)`, `%r{…}`.
    fn ruby_percent(&mut self) -> bool {
        let (kind, at) = match self.peek(1) {
            Some(c) if "qQwWiIxrs".contains(c) => (Some(c), 2),
            _ => (None, 1),
        };
        let Some(open) = self.peek(at) else {
            return false;
        };
        if !"([{<|!/".contains(open) {
            return false;
        }
        let save = self.i;
        self.i += at;
        let Some(body) = self.delimited() else {
            self.i = save;
            return false;
        };
        if kind == Some('r') {
            while self.peek(0).is_some_and(|c| c.is_ascii_alphabetic()) {
                self.i += 1;
            }
        }
        self.toks.push(match kind {
            Some('w' | 'W' | 'i' | 'I') => {
                Tok::Words(body.split_whitespace().map(str::to_owned).collect())
            }
            Some('x') => Tok::Cmd {
                interp: body.contains("#{"),
                text: body,
            },
            Some('q') => Tok::Str {
                text: body,
                interp: false,
                template: false,
            },
            Some('r' | 's') => Tok::Other,
            _ => Tok::Str {
                interp: body.contains("#{"),
                text: body,
                template: false,
            },
        });
        true
    }

    /// Backquotes: a command in Perl, Ruby and PHP, a template literal in JavaScript, a name
    /// in R (`` `system`("…") ``).
    fn backquote(&mut self) {
        if self.lang == Lang::Js {
            self.string('`', false, false);
            return;
        }
        if self.lang == Lang::R {
            self.string('`', true, false);
            if let Some(Tok::Str { text, .. }) = self.toks.pop() {
                self.toks.push(Tok::Name(text));
            }
            return;
        }
        self.string('`', false, false);
        if let Some(Tok::Str { text, interp, .. }) = self.toks.pop() {
            self.toks.push(Tok::Cmd { text, interp });
        } else {
            self.toks.push(Tok::Punct('`'));
        }
    }

    /// R's raw string at the cursor (after its `r`): `r"(…)"`, `r"[…]"`, `r"{…}"`, with
    /// dashes between the quote and the bracket (`r"--(…)--"`). Not one: the quote is read as
    /// an ordinary string.
    fn r_raw_string(&mut self) {
        let Some(quote) = self.peek(0) else { return };
        let dashes = (1..).take_while(|&n| self.peek(n) == Some('-')).count();
        let Some(open) = self
            .peek(dashes + 1)
            .filter(|c| matches!(c, '(' | '[' | '{'))
        else {
            self.string(quote, false, false);
            return;
        };
        let close: Vec<char> = std::iter::once(closing(open))
            .chain(std::iter::repeat_n('-', dashes))
            .chain(std::iter::once(quote))
            .collect();
        let start = self.i + dashes + 2;
        let end = (start..=self.s.len().saturating_sub(close.len()))
            .find(|&j| self.s[j..].starts_with(&close));
        match end {
            Some(end) => {
                self.toks.push(Tok::Str {
                    text: self.s[start..end].iter().collect(),
                    interp: false,
                    template: false,
                });
                self.i = end + close.len();
            }
            // Unclosed: R refuses the code, so it runs nothing.
            None => self.i = self.s.len(),
        }
    }

    /// A string closed by `quote` (tripled in Python when it opens tripled); an unclosed
    /// one is read as punctuation, and the scan goes on after it.
    fn string(&mut self, quote: char, raw: bool, fstring: bool) {
        let lang = self.lang;
        let triple =
            lang == Lang::Python && self.peek(1) == Some(quote) && self.peek(2) == Some(quote);
        let open = if triple { 3 } else { 1 };
        // Single quotes in Perl, Ruby and PHP know only `\\` and `\'`.
        let plain = quote == '\'' && matches!(lang, Lang::Perl | Lang::Ruby | Lang::Php);
        let mut j = self.i + open;
        let mut text = String::new();
        let closed = loop {
            let Some(&c) = self.s.get(j) else {
                break false;
            };
            if c == quote
                && (!triple
                    || (self.s.get(j + 1) == Some(&quote) && self.s.get(j + 2) == Some(&quote)))
            {
                break true;
            }
            if c == '\\' && !raw {
                let Some(&n) = self.s.get(j + 1) else {
                    break false;
                };
                j += 2;
                if plain {
                    if n != '\\' && n != quote {
                        text.push('\\');
                    }
                    text.push(n);
                    continue;
                }
                match n {
                    // Lua: `\ddd` is decimal, `\z` skips the blanks after it, and a
                    // backslash before a line break keeps the line break.
                    '0'..='9' if lang == Lang::Lua => {
                        let digits: String = std::iter::once(n)
                            .chain(
                                self.s[j..]
                                    .iter()
                                    .take(2)
                                    .take_while(|c| c.is_ascii_digit())
                                    .copied(),
                            )
                            .collect();
                        j += digits.len() - 1;
                        match digits.parse::<u32>().ok().and_then(char::from_u32) {
                            Some(c) => text.push(c),
                            None => text.push('\u{fffd}'),
                        }
                    }
                    'z' if lang == Lang::Lua => {
                        while self.s.get(j).is_some_and(|c| c.is_whitespace()) {
                            j += 1;
                        }
                    }
                    '\n' if lang == Lang::Lua => text.push('\n'),
                    'n' => text.push('\n'),
                    't' => text.push('\t'),
                    'r' => text.push('\r'),
                    '\n' => {}
                    // Code points by number hide a name as well as `\x72m` does (`\u0072m`,
                    // `\x{72}m`, `\162m`).
                    'x' | 'u' | 'U' | '0'..='7' => match code_point(n, &self.s[j..]) {
                        Some((c, used)) => {
                            text.push(c);
                            j += used;
                        }
                        None => {
                            text.push('\\');
                            text.push(n);
                        }
                    },
                    '$' | '@' | '{' | '#'
                        if matches!(lang, Lang::Perl | Lang::Php | Lang::Ruby | Lang::Js) =>
                    {
                        // An escaped sigil does not interpolate: kept as a stand-in until
                        // interpolation is decided.
                        text.push(ESCAPED[SIGILS.find(n).unwrap_or_default()]);
                    }
                    n if n == quote || n == '\\' || n == '\'' || n == '"' || n == '`' => {
                        text.push(n);
                    }
                    n => {
                        text.push('\\');
                        text.push(n);
                    }
                }
                continue;
            }
            if c == '\\' && raw && self.s.get(j + 1) == Some(&quote) {
                text.push('\\');
                text.push(quote);
                j += 2;
                continue;
            }
            text.push(c);
            j += 1;
        };
        if !closed {
            self.toks.push(Tok::Punct(quote));
            self.i += 1;
            return;
        }
        self.i = j + open;
        let interp = match (lang, quote) {
            _ if fstring => text.replace("{{", "").contains('{'),
            (Lang::Js, '`') => text.contains("${"),
            (Lang::Perl, '"' | '`') => perl_interpolates(&text),
            (Lang::Php, '"' | '`') => text.contains('$'),
            (Lang::Ruby, '"' | '`') => text.contains("#{"),
            _ => false,
        };
        let text: String = text
            .chars()
            .map(|c| match ESCAPED.iter().position(|e| *e == c) {
                Some(at) => char::from(SIGILS.as_bytes()[at]),
                None => c,
            })
            .collect();
        self.toks.push(Tok::Str {
            text,
            interp,
            template: quote == '`',
        });
    }
}

/// Sigils whose escaped form (`\$`) does not interpolate, and their stand-ins while a
/// string is read.
pub(super) const SIGILS: &str = "$@{#";
pub(super) const ESCAPED: [char; 4] = ['\u{1}', '\u{2}', '\u{3}', '\u{4}'];

/// True when a Perl double-quoted body interpolates a variable.
pub(super) fn perl_interpolates(body: &str) -> bool {
    let b = body.as_bytes();
    b.windows(2).any(|w| {
        matches!(w[0], b'$' | b'@') && (w[1].is_ascii_alphanumeric() || b"_{:".contains(&w[1]))
    })
}

/// The character an escape `\{kind}…` stands for and how many characters after `kind` it
/// spans: `\x72` (two hex digits), `\x{72}`, `\u0072`, `\u{72}`, `\U00000072`, octal `\162`
/// (`kind` is its first digit; `\0` alone is NUL). `None` when it is not such an escape.
fn code_point(kind: char, rest: &[char]) -> Option<(char, usize)> {
    let hex = |digits: &[char]| {
        if digits.is_empty() || !digits.iter().all(char::is_ascii_hexdigit) {
            return None;
        }
        let text: String = digits.iter().collect();
        u32::from_str_radix(&text, 16).ok().and_then(char::from_u32)
    };
    match kind {
        'x' | 'u' if rest.first() == Some(&'{') => {
            let end = rest.iter().take(9).position(|c| *c == '}')?;
            Some((hex(&rest[1..end])?, end + 1))
        }
        'x' => Some((hex(rest.get(..2)?)?, 2)),
        'u' => Some((hex(rest.get(..4)?)?, 4)),
        'U' => Some((hex(rest.get(..8)?)?, 8)),
        _ => {
            let digits = rest
                .iter()
                .take(2)
                .take_while(|c| ('0'..='7').contains(*c))
                .count();
            let text: String = std::iter::once(kind)
                .chain(rest[..digits].iter().copied())
                .collect();
            let value = u32::from_str_radix(&text, 8).ok()?;
            Some((char::from_u32(value)?, digits))
        }
    }
}
