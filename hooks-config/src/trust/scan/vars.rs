//! The values the text gives its variables, read before the commands are scanned.

use super::*;

/// The value part of `NAME=value`.
pub(super) fn word_after_equals(word: &Word) -> Word {
    let mut parts = word.parts.clone();
    if let Some(Part::Lit(first)) = parts.first_mut() {
        *first = first
            .split_once('=')
            .map(|(_, v)| v.to_owned())
            .unwrap_or_default();
    }
    Word {
        parts,
        raw: word
            .raw
            .split_once('=')
            .map(|(_, v)| v.to_owned())
            .unwrap_or_default(),
    }
}

/// The value each variable is given in the text: `Ok` when every assignment gives the same
/// literal, `Err(why)` when it may differ or is decided at run time.
pub(super) fn prepass(
    commands: &[Simple],
    scan: &Scan<'_>,
    sh: &Shell,
) -> HashMap<String, Result<String, String>> {
    let mut out: HashMap<String, Result<String, String>> = HashMap::new();
    let mut set = |name: &str, value: Result<String, String>| {
        let value = match (out.get(name), value) {
            (None, v) => v,
            (Some(Ok(a)), Ok(b)) if *a == b => Ok(b),
            (Some(Err(why)), _) => Err(why.clone()),
            (_, Err(why)) => Err(why),
            (Some(Ok(_)), Ok(_)) => {
                Err(format!("`{name}` is given different values in the command"))
            }
        };
        out.insert(name.to_owned(), value);
    };
    for cmd in commands {
        let literal: Vec<Option<String>> = cmd.words.iter().map(Word::literal).collect();
        let (prefix, at) = split_prefix(&cmd.words);
        let first_program = (at < cmd.words.len()).then_some(at);
        let program = first_program.and_then(|i| literal[i].clone());
        let assigns = |range: &[Word]| -> Vec<(String, Result<String, String>)> {
            range
                .iter()
                .filter_map(|w| {
                    let Some(Part::Lit(first)) = w.parts.first() else {
                        return None;
                    };
                    let (name, _) = first.split_once('=')?;
                    if !is_assignment(first) {
                        return None;
                    }
                    if name.ends_with('+') {
                        let name = name.trim_end_matches('+').to_owned();
                        return Some((name.clone(), Err(format!("`{name}` is appended to"))));
                    }
                    let value = scan
                        .resolve(&word_after_equals(w), sh)
                        .map_err(|why| format!("`{name}` is set from a run-time value: {why}"));
                    Some((name.to_owned(), value))
                })
                .collect()
        };
        match (first_program, program.as_deref()) {
            (None, _) => {
                for (n, v) in assigns(&prefix.into_iter().cloned().collect::<Vec<_>>()) {
                    set(&n, v);
                }
            }
            (Some(i), Some("export" | "readonly" | "declare" | "typeset" | "local")) => {
                for (n, v) in assigns(&cmd.words[i + 1..]) {
                    set(&n, v);
                }
            }
            (
                Some(i),
                Some(
                    binder @ ("for" | "select" | "read" | "getopts" | "mapfile" | "readarray"
                    | "printf" | "unset"),
                ),
            ) => {
                let names: Vec<String> = literal[i + 1..]
                    .iter()
                    .flatten()
                    .filter(|w| {
                        !w.starts_with('-')
                            && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    })
                    .cloned()
                    .collect();
                let names = match binder {
                    "for" | "select" => names.into_iter().take(1).collect(),
                    "printf" => {
                        let at = literal.iter().position(|w| w.as_deref() == Some("-v"));
                        at.and_then(|a| literal.get(a + 1).cloned().flatten())
                            .into_iter()
                            .collect()
                    }
                    _ => names,
                };
                for n in names {
                    set(&n, Err(format!("`{n}` is set by `{binder}` at run time")));
                }
            }
            _ => {}
        }
    }
    out
}
