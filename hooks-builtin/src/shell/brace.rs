//! Brace expansion, as bash and zsh do it: `a{b,c}d` is `abd acd`, `{1..3}` is `1 2 3`.
//!
//! `sh` does not expand braces, so the parser keeps a word as written and adds the expanded
//! command as another reading. The work is charged to a budget: `{a,b}` written twenty times
//! is a million words, which is an error and not a result.

use super::MAX_DEPTH;
use super::ShellError;
use super::parser::Result;

/// The work charged for each word produced, on top of its bytes.
const WORD_COST: usize = 16;

/// One byte of a word, and whether it is unquoted brace syntax (`{`, `,`, `.`, `}`).
#[derive(Clone, Copy)]
struct Tok {
    byte: u8,
    active: bool,
}

/// The expansion of `word`, whose unquoted brace characters are at the offsets `active`, or
/// `None` when it has no brace expression. Every byte produced costs a unit of `budget`;
/// `TooComplex` when it runs out, `TooDeep` for braces nested deeper than [`MAX_DEPTH`].
pub(super) fn expand(
    word: &str,
    active: &[usize],
    budget: &mut usize,
) -> Result<Option<Vec<String>>> {
    let mut toks: Vec<Tok> = word
        .bytes()
        .map(|byte| Tok {
            byte,
            active: false,
        })
        .collect();
    for &i in active {
        if let Some(t) = toks.get_mut(i) {
            t.active = true;
        }
    }
    let pairs = pairs(&toks);
    if !pairs.iter().any(|p| p.is_some()) {
        return Ok(None);
    }
    let words = expand_range(&toks, 0, toks.len(), &pairs, budget, 0)?;
    if words.len() == 1 && words[0] == word.as_bytes() {
        return Ok(None);
    }
    Ok(Some(
        words
            .into_iter()
            .map(|w| String::from_utf8_lossy(&w).into_owned())
            .collect(),
    ))
}

/// For each active `{`, the offset of its `}` when the pair is a brace expression: it holds a
/// comma at its own level, or is a sequence (`{1..5}`, `{a..e..2}`).
fn pairs(toks: &[Tok]) -> Vec<Option<usize>> {
    let mut pairs = vec![None; toks.len()];
    // Open braces: offset and whether a comma was seen at their level.
    let mut open: Vec<(usize, bool)> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if !t.active {
            continue;
        }
        match t.byte {
            b'{' => open.push((i, false)),
            b',' => {
                if let Some(top) = open.last_mut() {
                    top.1 = true;
                }
            }
            b'}' => {
                if let Some((at, comma)) = open.pop()
                    && (comma || sequence(&toks[at + 1..i]).is_some())
                {
                    pairs[at] = Some(i);
                }
            }
            _ => {}
        }
    }
    pairs
}

/// A sequence expression's parts: integers or single letters, with an optional increment.
enum Sequence {
    Numbers {
        from: i64,
        to: i64,
        step: i64,
        width: usize,
    },
    Letters {
        from: u8,
        to: u8,
        step: i64,
    },
}

impl Sequence {
    fn len(&self) -> u64 {
        let (from, to, step) = match *self {
            Sequence::Numbers { from, to, step, .. } => (from, to, step),
            Sequence::Letters { from, to, step } => (i64::from(from), i64::from(to), step),
        };
        (from.abs_diff(to) / step.unsigned_abs()).saturating_add(1)
    }
}

/// The sequence between `{` and `}`, if `inner` is one (`1..10`, `a..z`, `01..10..2`).
fn sequence(inner: &[Tok]) -> Option<Sequence> {
    // Sequences are short; anything longer than this is not one.
    if inner.len() > 64 || inner.iter().any(|t| t.byte == b'{' || t.byte == b',') {
        return None;
    }
    let text: Vec<u8> = inner.iter().map(|t| t.byte).collect();
    let text = std::str::from_utf8(&text).ok()?;
    let parts: Vec<&str> = text.split("..").collect();
    let (from, to, step) = match parts.as_slice() {
        [from, to] => (*from, *to, None),
        [from, to, step] => (*from, *to, Some(step.parse::<i64>().ok()?)),
        _ => return None,
    };
    let step = match step {
        Some(0) | None => 1,
        Some(s) => s.checked_abs()?,
    };
    let number = |s: &str| {
        let digits = s.strip_prefix('-').unwrap_or(s);
        (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<i64>().ok())
            .flatten()
    };
    if let (Some(a), Some(b)) = (number(from), number(to)) {
        let padded = |s: &str| {
            s.trim_start_matches('-').len() > 1 && s.trim_start_matches('-').starts_with('0')
        };
        let width = if padded(from) || padded(to) {
            from.len().max(to.len())
        } else {
            0
        };
        return Some(Sequence::Numbers {
            from: a,
            to: b,
            step,
            width,
        });
    }
    match (from.as_bytes(), to.as_bytes()) {
        ([a], [b]) if a.is_ascii_alphabetic() && b.is_ascii_alphabetic() => {
            Some(Sequence::Letters {
                from: *a,
                to: *b,
                step,
            })
        }
        _ => None,
    }
}

/// The values of a sequence, charging `budget`.
fn sequence_values(seq: &Sequence, budget: &mut usize) -> Result<Vec<Vec<u8>>> {
    let len = seq.len();
    let count = usize::try_from(len).map_err(|_| ShellError::TooComplex)?;
    spend(budget, count.saturating_mul(WORD_COST))?;
    let mut values = Vec::with_capacity(count);
    match *seq {
        Sequence::Numbers {
            from,
            to,
            step,
            width,
        } => {
            let step = if from <= to { step } else { -step };
            let mut n = from;
            for _ in 0..count {
                let text = if n < 0 {
                    format!("-{:0>w$}", n.unsigned_abs(), w = width.saturating_sub(1))
                } else {
                    format!("{n:0>width$}")
                };
                spend(budget, text.len())?;
                values.push(text.into_bytes());
                n = n.saturating_add(step);
            }
        }
        Sequence::Letters { from, to, step } => {
            let step = if from <= to { step } else { -step };
            let mut c = i64::from(from);
            for _ in 0..count {
                values.push(vec![u8::try_from(c).unwrap_or(b'?')]);
                c += step;
            }
        }
    }
    Ok(values)
}

fn spend(budget: &mut usize, cost: usize) -> Result<()> {
    *budget = budget.checked_sub(cost).ok_or(ShellError::TooComplex)?;
    Ok(())
}

/// The expansion of `toks[start..end]`: its literal parts and brace expressions, left to
/// right, each expression multiplying the words so far by its alternatives.
fn expand_range(
    toks: &[Tok],
    start: usize,
    end: usize,
    pairs: &[Option<usize>],
    budget: &mut usize,
    depth: usize,
) -> Result<Vec<Vec<u8>>> {
    if depth > MAX_DEPTH {
        return Err(ShellError::TooDeep);
    }
    let mut words: Vec<Vec<u8>> = vec![Vec::new()];
    let mut i = start;
    while i < end {
        let close = pairs.get(i).copied().flatten().filter(|&c| c < end);
        let Some(close) = close else {
            spend(budget, words.len())?;
            for w in &mut words {
                w.push(toks[i].byte);
            }
            i += 1;
            continue;
        };
        let alternatives = alternatives(toks, i, close, pairs, budget, depth)?;
        let mut next = Vec::new();
        for w in &words {
            for a in &alternatives {
                spend(budget, w.len() + a.len() + WORD_COST)?;
                let mut word = w.clone();
                word.extend_from_slice(a);
                next.push(word);
            }
        }
        words = next;
        i = close + 1;
    }
    Ok(words)
}

/// The alternatives of the brace expression from `open` to `close`.
fn alternatives(
    toks: &[Tok],
    open: usize,
    close: usize,
    pairs: &[Option<usize>],
    budget: &mut usize,
    depth: usize,
) -> Result<Vec<Vec<u8>>> {
    let inner = &toks[open + 1..close];
    if let Some(seq) = sequence(inner) {
        return sequence_values(&seq, budget);
    }
    let mut alternatives = Vec::new();
    let mut level = 0usize;
    let mut from = open + 1;
    for i in open + 1..=close {
        let t = toks[i];
        if i == close || (t.active && t.byte == b',' && level == 0) {
            alternatives.extend(expand_range(toks, from, i, pairs, budget, depth + 1)?);
            from = i + 1;
        } else if t.active && t.byte == b'{' {
            level += 1;
        } else if t.active && t.byte == b'}' {
            level = level.saturating_sub(1);
        }
    }
    Ok(alternatives)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand_all(word: &str) -> Option<Vec<String>> {
        let active: Vec<usize> = word
            .bytes()
            .enumerate()
            .filter(|(_, b)| b"{,.}".contains(b))
            .map(|(i, _)| i)
            .collect();
        expand(word, &active, &mut 1_000_000).unwrap()
    }

    #[test]
    fn braces_expand_like_bash() {
        let cases: &[(&str, &[&str])] = &[
            ("{rm,-rf,/}", &["rm", "-rf", "/"]),
            ("a{b,c}d", &["abd", "acd"]),
            ("/{e,u}{tc,sr}", &["/etc", "/esr", "/utc", "/usr"]),
            ("{a,{b,c}}", &["a", "b", "c"]),
            ("{a}{b,c}", &["{a}b", "{a}c"]),
            ("x{,y}", &["x", "xy"]),
            ("{1..3}", &["1", "2", "3"]),
            ("{3..1}", &["3", "2", "1"]),
            ("{01..3}", &["01", "02", "03"]),
            ("{-1..1}", &["-1", "0", "1"]),
            ("{1..7..3}", &["1", "4", "7"]),
            ("{a..c}", &["a", "b", "c"]),
            ("{/,x}", &["/", "x"]),
        ];
        for (word, expected) in cases {
            let expanded = expand_all(word).unwrap_or_else(|| panic!("{word}: no expansion"));
            assert_eq!(expanded, *expected, "{word}");
        }
        for word in [
            "{}", "{a}", "{a..}", "{.../}", "a,b", "{a,b", "a}b{", "${x}",
        ] {
            assert_eq!(expand_all(word), None, "{word}");
        }
    }

    #[test]
    fn quoted_braces_do_not_expand() {
        assert_eq!(expand("{a,b}", &[], &mut 1000).unwrap(), None);
        assert_eq!(expand("{a,b}", &[0, 2], &mut 1000).unwrap(), None);
    }

    #[test]
    fn expansion_is_bounded() {
        let word = "{a,b}".repeat(40);
        let active: Vec<usize> = (0..word.len())
            .filter(|i| i % 5 != 1 && i % 5 != 3)
            .collect();
        assert_eq!(
            expand(&word, &active, &mut 1_000_000),
            Err(ShellError::TooComplex)
        );
        assert_eq!(
            expand("{1..99999999999}", &[0, 2, 3, 15], &mut 1_000_000),
            Err(ShellError::TooComplex)
        );
        let deep = format!("{}y{}", "{x,".repeat(100), "}".repeat(100));
        let active: Vec<usize> = (0..deep.len())
            .filter(|&i| b"{,}".contains(&deep.as_bytes()[i]))
            .collect();
        assert_eq!(
            expand(&deep, &active, &mut 1_000_000),
            Err(ShellError::TooDeep)
        );
    }
}
