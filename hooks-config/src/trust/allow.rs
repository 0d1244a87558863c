//! Allow entries: which handler texts an `allow:` entry admits.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::{MAX_MATCHED_CHARS, MAX_PATTERN_CHARS, TrustError};
use crate::file::AllowEntry;
use crate::spec::{CommandHandler, Handler, HttpHandler};

/// The compiled allow-list: entries that admit handlers by their text (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct AllowList {
    patterns: Vec<Pattern>,
}

impl AllowList {
    /// Compiles entries, failing on the first one that is refused (the error names it). For
    /// entries read from config files, [`from_entries`](AllowList::from_entries) keeps the
    /// good ones instead.
    ///
    /// ```
    /// use hookrail_config::trust::AllowList;
    /// assert!(AllowList::new(["./scripts/hooks/*", "https://audit.example.com/hooks"]).is_ok());
    /// let err = AllowList::new(["./ok.sh", "*"]).unwrap_err();
    /// assert!(err.to_string().starts_with("invalid allow entry `*`: "), "{err}");
    /// ```
    pub fn new<'a>(patterns: impl IntoIterator<Item = &'a str>) -> Result<Self, TrustError> {
        let patterns = patterns
            .into_iter()
            .map(|text| {
                Pattern::parse(text).map_err(|reason| TrustError::Pattern {
                    pattern: text.to_owned(),
                    location: None,
                    reason,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(AllowList { patterns })
    }

    /// Compiles the `allow:` entries of loaded config files. A refused entry is left out and
    /// reported with its location, and the others are kept: leaving an entry out only ever
    /// admits less.
    pub fn from_entries(entries: &[AllowEntry]) -> (Self, Vec<TrustError>) {
        let mut patterns = Vec::with_capacity(entries.len());
        let mut errors = Vec::new();
        for entry in entries {
            match Pattern::parse(&entry.pattern) {
                Ok(p) => patterns.push(p),
                Err(reason) => errors.push(TrustError::Pattern {
                    pattern: entry.pattern.clone(),
                    location: Some(entry.location.clone()),
                    reason,
                }),
            }
        }
        (AllowList { patterns }, errors)
    }

    /// The first entry that admits `handler`, as written; `None` when none does.
    ///
    /// ```
    /// use hookrail_config::spec::{CommandHandler, CommandLine, Handler};
    /// use hookrail_config::trust::AllowList;
    ///
    /// let allow = AllowList::new(["./scripts/hooks/*"]).unwrap();
    /// let shell = |text: &str| Handler::Command(CommandHandler {
    ///     line: CommandLine::Shell(text.into()), env: Default::default(), plugin_root: None,
    /// });
    /// assert_eq!(allow.matching(&shell("./scripts/hooks/a.sh --flag")), Some("./scripts/hooks/*"));
    /// assert_eq!(allow.matching(&shell("./scripts/hooks/a.sh && curl x")), None);
    /// ```
    pub fn matching(&self, handler: &Handler) -> Option<&str> {
        match self.find(handler) {
            Found::Admitted(pattern) => Some(pattern),
            Found::NeedsExact(_) | Found::Nothing => None,
        }
    }

    /// Whether the list has no entries (it then admits nothing).
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    pub(super) fn find(&self, handler: &Handler) -> Found<'_> {
        let (kind, text, expands) = match handler {
            Handler::Command(c) => (Kind::Command, Cow::Owned(command_text(c)), false),
            Handler::Http(h) => (
                Kind::Url,
                Cow::Borrowed(h.url.as_str()),
                h.headers.values().any(|v| v.contains('$')),
            ),
        };
        let subject = Subject::new(&text, kind);
        let mut needs_exact = None;
        for pattern in self.patterns.iter().filter(|p| p.kind == kind) {
            if pattern.text == *text {
                return Found::Admitted(&pattern.text);
            }
            if pattern.wildcard && subject.as_ref().is_some_and(|s| pattern.matches(s)) {
                if !expands {
                    return Found::Admitted(&pattern.text);
                }
                needs_exact.get_or_insert(pattern.text.as_str());
            }
        }
        needs_exact.map_or(Found::Nothing, Found::NeedsExact)
    }
}

/// What the allow-list says about one handler.
pub(super) enum Found<'a> {
    Admitted(&'a str),
    /// A wildcard entry matches an HTTP hook whose headers expand variables.
    NeedsExact(&'a str),
    Nothing,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Command,
    Url,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Char(char),
    /// `*`: plain text without `/`.
    Star,
    /// `**`: plain text, `/` included.
    Globstar,
}

#[derive(Debug, Clone)]
struct Pattern {
    text: String,
    kind: Kind,
    tokens: Vec<Token>,
    wildcard: bool,
}

impl Pattern {
    fn parse(text: &str) -> Result<Pattern, String> {
        if text.trim().is_empty() {
            return Err("it is empty".to_owned());
        }
        if text.chars().count() > MAX_PATTERN_CHARS {
            return Err(format!("longer than {MAX_PATTERN_CHARS} characters"));
        }
        let mut tokens = Vec::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '*' {
                tokens.push(Token::Char(c));
                continue;
            }
            let mut stars = 1;
            while chars.next_if_eq(&'*').is_some() {
                stars += 1;
            }
            tokens.push(if stars == 1 {
                Token::Star
            } else {
                Token::Globstar
            });
        }
        let wildcard = tokens.iter().any(|t| !matches!(t, Token::Char(_)));
        let lower = text.to_ascii_lowercase();
        let kind = if lower.starts_with("http://") || lower.starts_with("https://") {
            check_url_pattern(text)?;
            Kind::Url
        } else {
            if matches!(tokens.first(), Some(Token::Star | Token::Globstar)) {
                return Err(
                    "it starts with a wildcard, so it would admit any program; name the program (`./scripts/hooks/*`)"
                        .to_owned(),
                );
            }
            Kind::Command
        };
        Ok(Pattern {
            text: text.to_owned(),
            kind,
            tokens,
            wildcard,
        })
    }

    /// Whether the wildcards can be filled with plain text to give the subject.
    fn matches(&self, subject: &Subject) -> bool {
        let n = subject.chars.len();
        // reach[i]: the tokens so far can produce exactly subject[..i].
        let mut reach = vec![false; n + 1];
        reach[0] = true;
        let mut next = vec![false; n + 1];
        for token in &self.tokens {
            next.fill(false);
            match *token {
                Token::Char(c) => {
                    for i in 0..n {
                        if reach[i] && subject.chars[i] == c {
                            next[i + 1] = true;
                        }
                    }
                }
                Token::Star | Token::Globstar => {
                    let mut open = false;
                    for i in 0..=n {
                        open |= reach[i];
                        next[i] = open;
                        if i < n
                            && !(subject.plain[i]
                                && (*token == Token::Globstar || subject.chars[i] != '/'))
                        {
                            open = false;
                        }
                    }
                }
            }
            if !next.contains(&true) {
                return false;
            }
            std::mem::swap(&mut reach, &mut next);
        }
        reach[n]
    }
}

/// A host wildcard only as the whole first label of a name with two more labels.
fn check_url_pattern(text: &str) -> Result<(), String> {
    let rest = text
        .split_once("://")
        .map(|(_, rest)| rest)
        .unwrap_or_default();
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.is_empty() {
        return Err("it names no host".to_owned());
    }
    if !authority.contains('*') {
        return Ok(());
    }
    let ok = authority
        .strip_prefix("*.")
        .is_some_and(|name| !name.contains('*') && name.contains('.'));
    if ok {
        Ok(())
    } else {
        Err(
            "a wildcard in the host may only be a whole first label of a name with at least two more (`https://*.example.com/`)"
                .to_owned(),
        )
    }
}

/// A handler text, with what a wildcard may stand for at each character.
struct Subject {
    chars: Vec<char>,
    plain: Vec<bool>,
}

impl Subject {
    fn new(text: &str, kind: Kind) -> Option<Subject> {
        let chars: Vec<char> = text.chars().collect();
        if chars.len() > MAX_MATCHED_CHARS {
            return None;
        }
        let plain = (0..chars.len())
            .map(|i| {
                let c = chars[i];
                let dot_run =
                    c == '.' && ((i > 0 && chars[i - 1] == '.') || chars.get(i + 1) == Some(&'.'));
                let allowed = match kind {
                    Kind::Command => {
                        c.is_alphanumeric()
                            || matches!(
                                c,
                                ' ' | '\t'
                                    | '-'
                                    | '_'
                                    | '.'
                                    | ','
                                    | '+'
                                    | '='
                                    | ':'
                                    | '@'
                                    | '%'
                                    | '/'
                            )
                    }
                    Kind::Url => {
                        c.is_ascii_alphanumeric()
                            || matches!(
                                c,
                                '-' | '_' | '.' | '~' | '+' | '=' | '&' | ',' | ';' | '/'
                            )
                    }
                };
                allowed && !dot_run
            })
            .collect();
        Some(Subject { chars, plain })
    }
}

/// A command handler's text: `env` as shell assignments, then the command line.
pub(super) fn command_text(c: &CommandHandler) -> String {
    let mut text = String::new();
    for (name, value) in &c.env {
        let _ = write!(text, "{name}={} ", quote(value));
    }
    let _ = write!(text, "{}", c.line);
    text
}

/// An HTTP handler's text for people and the approvals file: URL and header templates.
pub(super) fn http_text(h: &HttpHandler) -> String {
    let mut text = h.url.clone();
    for (name, value) in &h.headers {
        let _ = write!(text, " -H {}", quote(&format!("{name}: {value}")));
    }
    text
}

/// Single-quotes a value unless it is plain.
fn quote(value: &str) -> Cow<'_, str> {
    let plain = !value.is_empty()
        && value.chars().all(|c| {
            c.is_alphanumeric()
                || matches!(c, '-' | '_' | '.' | ',' | '+' | '=' | ':' | '@' | '%' | '/')
        });
    if plain {
        Cow::Borrowed(value)
    } else {
        Cow::Owned(format!("'{}'", value.replace('\'', r"'\''")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_patterns_accept_only_a_whole_leading_host_wildcard() {
        for ok in [
            "https://example.com",
            "https://example.com/*",
            "https://*.example.com/hooks",
            "http://localhost:8080/**",
        ] {
            assert!(Pattern::parse(ok).is_ok(), "{ok}");
        }
        for bad in [
            "https://*",
            "https://*/",
            "https://**/x",
            "https://*.com/",
            "https://example.com*",
            "https://ex*ample.com/",
            "https:///x",
            "https://a.*.example.com/",
        ] {
            assert!(Pattern::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn stars_group_into_one_or_two() {
        let p = Pattern::parse("a*b***c").unwrap();
        assert_eq!(
            p.tokens,
            [
                Token::Char('a'),
                Token::Star,
                Token::Char('b'),
                Token::Globstar,
                Token::Char('c')
            ]
        );
        assert!(p.wildcard);
        assert!(!Pattern::parse("./a.sh").unwrap().wildcard);
    }
}
