//! Backslash escapes as printf and programming languages read them (`\t`, `\0`, `\x2e`,
//! octal `\056`, `\u{2e}`): one reader for the shell's printf and xargs delimiters and the
//! secrets guard's string literals.

use std::borrow::Cow;
use std::iter::Peekable;
use std::str::Chars;

/// Whose escapes: the two differ in `\u` and in what an escape they do not know gives.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Escapes {
    /// printf's format: an escape it does not know is kept as written (`\q` stays `\q`),
    /// and so is a number escape without digits.
    Printf,
    /// A language's string literal: `\u{…}` and `\uHHHH` too, any other escaped character is
    /// itself (`\"`, `\q`), and a number escape without digits is U+FFFD.
    Literal,
}

/// `text` with its backslash escapes read as `style` reads them: `\n`, `\t`, `\r`, `\a`,
/// `\b`, `\f`, `\v`, `\\`, `\xHH`, octal `\NNN` (`\0` among them), and for
/// [`Escapes::Literal`] `\u`.
pub(crate) fn read_escapes(text: &str, style: Escapes) -> Cow<'_, str> {
    if !text.contains('\\') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let read = match e {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'f' => Some('\u{c}'),
            'v' => Some('\u{b}'),
            '\\' => Some('\\'),
            'x' => number(&mut chars, 16, 2, None),
            'u' if style == Escapes::Literal => {
                let braced = chars.next_if_eq(&'{').is_some();
                let c = number(&mut chars, 16, if braced { 6 } else { 4 }, None);
                if braced {
                    chars.next_if_eq(&'}');
                }
                c
            }
            '0'..='7' => number(&mut chars, 8, 3, Some(e)),
            _ if style == Escapes::Literal => Some(e),
            _ => None,
        };
        match (read, style) {
            (Some(c), _) => out.push(c),
            (None, Escapes::Literal) => out.push('\u{fffd}'),
            (None, Escapes::Printf) => {
                out.push('\\');
                out.push(e);
            }
        }
    }
    Cow::Owned(out)
}

/// The character a number escape gives: up to `max` digits in `radix` (after `first`).
fn number(
    chars: &mut Peekable<Chars<'_>>,
    radix: u32,
    max: usize,
    first: Option<char>,
) -> Option<char> {
    let mut digits: String = first.into_iter().collect();
    while digits.len() < max
        && let Some(d) = chars.next_if(|d| d.is_digit(radix))
    {
        digits.push(d);
    }
    u32::from_str_radix(&digits, radix)
        .ok()
        .and_then(char::from_u32)
}

#[cfg(test)]
mod tests {
    use super::{Escapes, read_escapes};

    #[test]
    fn printf_keeps_what_it_does_not_know_and_literals_read_it_as_the_character() {
        let printf = |t| read_escapes(t, Escapes::Printf).into_owned();
        let literal = |t| read_escapes(t, Escapes::Literal).into_owned();
        assert_eq!(printf(r"a\tb\0c\x2e\056\\"), "a\tb\0c..\\");
        assert_eq!(printf(r"\q\x\u0041"), r"\q\x\u0041");
        assert_eq!(literal(r"\x2eenv\u{2e}\u002e\q\x"), ".env..q\u{fffd}");
        assert_eq!(literal("plain"), "plain");
    }
}
