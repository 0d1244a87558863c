//! Text an agent sent, as a reason shows it: on one line, with no bidi override, so that a
//! crafted file name or argument cannot forge lines in logs or in the agent's transcript, nor
//! reorder what a person reads.

use std::path::Path;

/// A path: lossy UTF-8, then [`one_line`].
pub(crate) fn show(p: &Path) -> String {
    one_line(&p.to_string_lossy())
}

/// `s` with control characters (`\n`) and bidi-override characters (`\u{202e}`) escaped.
pub(crate) fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else if matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}') {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_overrides_are_escaped_and_the_rest_kept() {
        assert_eq!(one_line("a\nb\tc"), "a\\nb\\tc");
        assert_eq!(one_line("x\u{202e}y\u{2066}z"), "x\\u{202e}y\\u{2066}z");
        assert_eq!(one_line("über .env"), "über .env");
        assert_eq!(show(Path::new("src/a\nb.rs")), "src/a\\nb.rs");
    }
}
