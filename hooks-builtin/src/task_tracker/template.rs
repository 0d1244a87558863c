//! Command-argument and title templates: `{name}` placeholders, parsed once, filled per
//! command with values that cannot smuggle options or control characters.

/// A value a template can refer to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Var {
    Title,
    Description,
    Priority,
    Id,
    Session,
    Agent,
    Tenant,
    Reason,
}

impl Var {
    /// Every placeholder, for command arguments.
    pub(super) const ALL: &'static [Var] = &[
        Var::Title,
        Var::Description,
        Var::Priority,
        Var::Id,
        Var::Session,
        Var::Agent,
        Var::Tenant,
        Var::Reason,
    ];

    /// The placeholders of titles.
    pub(super) const TITLE: &'static [Var] = &[Var::Agent, Var::Session, Var::Tenant, Var::Reason];

    fn name(self) -> &'static str {
        match self {
            Var::Title => "title",
            Var::Description => "description",
            Var::Priority => "priority",
            Var::Id => "id",
            Var::Session => "session",
            Var::Agent => "agent",
            Var::Tenant => "tenant",
            Var::Reason => "reason",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Lit(String),
    Var(Var),
}

/// A parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Template {
    pieces: Vec<Piece>,
}

impl Template {
    /// Parses `text`; `{name}` with a lowercase name is a placeholder and must be one of
    /// `allowed`. Other braces (`{}`, `{"a":1}`) are literal.
    pub(super) fn parse(text: &str, allowed: &[Var]) -> Result<Template, String> {
        let mut pieces = Vec::new();
        let mut lit = String::new();
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            lit.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let name_len = after
                .find(|c: char| !(c.is_ascii_lowercase() || c == '_'))
                .unwrap_or(after.len());
            if name_len > 0 && after[name_len..].starts_with('}') {
                let name = &after[..name_len];
                let Some(var) = allowed.iter().copied().find(|v| v.name() == name) else {
                    let known: Vec<String> = allowed
                        .iter()
                        .map(|v| format!("{{{}}}", v.name()))
                        .collect();
                    return Err(format!(
                        "unknown placeholder `{{{name}}}` (known: {})",
                        known.join(", ")
                    ));
                };
                if !lit.is_empty() {
                    pieces.push(Piece::Lit(std::mem::take(&mut lit)));
                }
                pieces.push(Piece::Var(var));
                rest = &after[name_len + 1..];
            } else {
                lit.push('{');
                rest = after;
            }
        }
        lit.push_str(rest);
        if !lit.is_empty() {
            pieces.push(Piece::Lit(lit));
        }
        Ok(Template { pieces })
    }

    /// Whether the template refers to `var`.
    pub(super) fn uses(&self, var: Var) -> bool {
        self.pieces.contains(&Piece::Var(var))
    }

    /// The template filled with `value(var)`. A value that starts the result loses its
    /// leading dashes, so that no value can become an option of the command (`--db=…`).
    pub(super) fn render<'a>(&self, value: impl Fn(Var) -> &'a str) -> String {
        let mut out = String::new();
        for piece in &self.pieces {
            match piece {
                Piece::Lit(s) => out.push_str(s),
                Piece::Var(v) => {
                    let val = value(*v);
                    if out.is_empty() {
                        out.push_str(
                            val.trim_start_matches(|c: char| c == '-' || c.is_whitespace()),
                        );
                    } else {
                        out.push_str(val);
                    }
                }
            }
        }
        out
    }
}

/// `raw` made safe as one argument or title: control characters (newlines included) become
/// spaces, runs of whitespace one space, no leading or trailing space, and at most
/// `max_chars` characters (cut with `…`).
pub(super) fn clean(raw: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(raw.len().min(max_chars * 4));
    let mut count = 0;
    let mut pending_space = false;
    for c in raw.chars() {
        if c.is_whitespace() || c.is_control() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            count += 1;
            pending_space = false;
        }
        if count + 1 > max_chars {
            out.push('…');
            return out;
        }
        out.push(c);
        count += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill(v: Var) -> &'static str {
        match v {
            Var::Title => "--db=/tmp/evil",
            Var::Id => "bd-7",
            Var::Agent => "coder",
            _ => "x",
        }
    }

    #[test]
    fn placeholders_are_filled_and_literals_kept() {
        let t = Template::parse("GWI: {agent} run {id}", Var::ALL).unwrap();
        assert_eq!(t.render(fill), "GWI: coder run bd-7");
        assert!(t.uses(Var::Id) && !t.uses(Var::Title));
        let t = Template::parse("{\"json\": 1} {} {", Var::ALL).unwrap();
        assert_eq!(t.render(fill), "{\"json\": 1} {} {");
    }

    #[test]
    fn unknown_or_disallowed_placeholders_are_refused() {
        let err = Template::parse("{titel}", Var::ALL).unwrap_err();
        assert!(err.contains("{titel}") && err.contains("{title}"), "{err}");
        assert!(Template::parse("{id}", Var::TITLE).is_err());
    }

    #[test]
    fn a_value_at_the_start_of_an_argument_cannot_become_an_option() {
        let t = Template::parse("{title}", Var::ALL).unwrap();
        assert_eq!(t.render(fill), "db=/tmp/evil");
        // Inside an argument a dash is harmless and kept.
        let t = Template::parse("--title={title}", Var::ALL).unwrap();
        assert_eq!(t.render(fill), "--title=--db=/tmp/evil");
    }

    #[test]
    fn clean_removes_control_characters_and_caps_length() {
        assert_eq!(clean("  a\nb\r\n\tc\u{0}d  ", 100), "a b c d");
        assert_eq!(clean("abcdef", 3), "abc…");
        assert_eq!(clean("ééé", 3), "ééé");
        assert_eq!(clean("\n\n", 10), "");
    }
}
