//! Finding standing directives ("always …", "never …", "from now on …") in a prompt.
//!
//! The heuristic is documented on [`detect_directives`](super::detect_directives); this module
//! implements it in four passes: mask what the user quotes, split into sentences and clauses,
//! match a trigger at the start of a clause, and cut the directive's text out of the original.

/// Triggers, as lowercase words. A directive starts with one of them at the start of a clause.
pub(super) const TRIGGERS: &[&[&str]] = &[
    &["always"],
    &["never"],
    &["from", "now", "on"],
    &["going", "forward"],
    &["in", "the", "future"],
    &["in", "future"],
    &["don't", "ever"],
    &["dont", "ever"],
    &["do", "not", "ever"],
];

/// Phrases that may come before a trigger at the start of a clause ("please always …",
/// "you must never …", "remember to always …"), at most [`MAX_LEAD_INS`] of them.
const LEAD_INS: &[&[&str]] = &[
    &["please"],
    &["and"],
    &["also"],
    &["but"],
    &["so"],
    &["ok"],
    &["okay"],
    &["note"],
    &["important"],
    &["rule"],
    &["nb"],
    &["remember", "to"],
    &["remember"],
    &["make", "sure", "to"],
    &["make", "sure", "you"],
    &["make", "sure", "we"],
    &["be", "sure", "to"],
    &["you", "should"],
    &["you", "must"],
    &["you", "need", "to"],
    &["we", "should"],
    &["we", "must"],
    &["we", "need", "to"],
    &["i", "want", "you", "to"],
];

/// Lead-ins that only frame the directive and are dropped from its recorded text; the others
/// ("you must", "we should") are part of what the user said and are kept.
const DROPPED_LEAD_INS: &[&str] = &[
    "please",
    "and",
    "also",
    "but",
    "so",
    "ok",
    "okay",
    "note",
    "important",
    "rule",
    "nb",
    "remember",
    "make",
    "be",
];

const MAX_LEAD_INS: usize = 3;

/// Words enough to match the lead-ins, a trigger and its first word at a clause start.
const CLAUSE_HEAD_WORDS: usize = MAX_LEAD_INS * 4 + 3 + 1;

/// Words that, right after the trigger, show the sentence describes rather than instructs:
/// "never mind", "always the same error", "never again", "I have never been …".
const NOT_A_DIRECTIVE: &[&str] = &[
    "mind", "minded", "again", "the", "a", "an", "this", "that", "these", "those", "is", "was",
    "were", "are", "am", "been", "had", "has", "did", "does", "said", "knew", "thought", "i",
    "i'm", "i'll", "i've", "i'd", "me", "my", "he", "she", "it", "it's", "its", "they", "their",
    "his", "her", "there", "here", "before", "once", "too", "enough", "seen", "heard",
];

/// Words that open a subordinate clause kept in front of a directive ("if CI is red, never
/// merge"): without them the directive would lose its condition.
const SUBORDINATORS: &[&str] = &[
    "if", "when", "whenever", "before", "after", "unless", "once", "while", "until", "for", "on",
    "in", "during", "within", "outside", "inside", "except",
];

/// Longest directive text kept, in bytes; longer text is cut on a word boundary.
pub(super) const MAX_DIRECTIVE_BYTES: usize = 280;

/// Most directives taken from one prompt.
pub(super) const MAX_DIRECTIVES: usize = 16;

/// The directives in `prompt`, in order, without duplicates.
pub(super) fn detect(prompt: &str) -> Vec<String> {
    let masked = mask(prompt);
    let mut out: Vec<String> = Vec::new();
    for sentence in sentences(&masked) {
        if sentence.question {
            continue;
        }
        for text in directives_in(prompt, &masked, sentence.start, sentence.end) {
            if out.len() == MAX_DIRECTIVES {
                return out;
            }
            if !out.iter().any(|d| key(d) == key(&text)) {
                out.push(text);
            }
        }
    }
    out
}

/// The comparison key of a directive: lowercase words, punctuation and spacing ignored, so
/// "Never push to main." and "never push to  main" are the same directive.
pub(super) fn key(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
    out
}

/// `text` with everything the user quotes replaced by `x` bytes of the same length: fenced
/// code blocks, block-quote lines, inline code, and text in double, curly or single quotes
/// (the quote marks too). Offsets into the result are offsets into `text`.
fn mask(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len());
    let mut in_fence = false;
    for line in text.split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        let trimmed = body.trim_start();
        let fence = trimmed.starts_with("```") || trimmed.starts_with("~~~");
        if in_fence || fence || trimmed.starts_with('>') {
            if fence {
                in_fence = !in_fence;
            }
            out.extend(std::iter::repeat_n(b'x', body.len()));
        } else {
            mask_inline(body, &mut out);
        }
        if body.len() < line.len() {
            out.push(b'\n');
        }
    }
    // Only ASCII `x` replaced whole characters, so the bytes are UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// Masks quoted spans of one line into `out`; an unclosed quote masks to the end of the line.
fn mask_inline(line: &str, out: &mut Vec<u8>) {
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        let prev = i.checked_sub(1).map(|p| chars[p].1);
        let close = match c {
            '`' => Some(find_close(&chars, i, |c, _| c == '`')),
            '"' => Some(find_close(&chars, i, |c, _| c == '"')),
            '\u{201C}' => Some(find_close(&chars, i, |c, _| c == '\u{201D}')),
            '\'' | '\u{2018}' if prev.is_none_or(|p| p.is_whitespace() || "([{".contains(p)) => {
                Some(find_close(&chars, i, |c, next| {
                    (c == '\'' || c == '\u{2019}') && next.is_none_or(|n| !n.is_alphanumeric())
                }))
            }
            _ => None,
        };
        match close {
            Some(end) => {
                let stop = chars.get(end + 1).map_or(line.len(), |&(b, _)| b);
                out.extend(std::iter::repeat_n(b'x', stop - at));
                i = end + 1;
            }
            None => {
                let stop = chars.get(i + 1).map_or(line.len(), |&(b, _)| b);
                out.extend_from_slice(&line.as_bytes()[at..stop]);
                i += 1;
            }
        }
    }
}

/// The index of the char closing the quote opened at `open` (`is_close(char, next char)`), or
/// the last char of the line when it is never closed.
fn find_close(
    chars: &[(usize, char)],
    open: usize,
    is_close: impl Fn(char, Option<char>) -> bool,
) -> usize {
    (open + 1..chars.len())
        .find(|&j| is_close(chars[j].1, chars.get(j + 1).map(|&(_, c)| c)))
        .unwrap_or(chars.len() - 1)
}

struct Sentence {
    start: usize,
    end: usize,
    question: bool,
}

/// Sentences of the masked text: ended by a newline, a `;`, or `.`/`!`/`?` followed by
/// whitespace or the end (so `Cargo.lock` and `v1.2` do not end one).
fn sentences(masked: &str) -> Vec<Sentence> {
    let bytes = masked.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let ends = match b {
            b'\n' | b';' => true,
            b'.' | b'!' | b'?' => bytes.get(i + 1).is_none_or(u8::is_ascii_whitespace),
            _ => false,
        };
        if ends {
            out.push(Sentence {
                start,
                end: i,
                question: b == b'?',
            });
            start = i + 1;
        }
    }
    out.push(Sentence {
        start,
        end: bytes.len(),
        question: false,
    });
    out
}

/// A word of the masked text: where it starts and its lowercase form without surrounding
/// punctuation (curly apostrophes read as straight ones).
struct Word {
    start: usize,
    norm: String,
}

/// The first `limit` words of `masked[start..end]`.
fn words(masked: &str, start: usize, end: usize, limit: usize) -> Vec<Word> {
    let mut out = Vec::new();
    let text = &masked[start..end];
    let mut offset = 0;
    for raw in text.split_inclusive(char::is_whitespace) {
        let w = raw.trim_end();
        let at = start + offset;
        offset += raw.len();
        if w.is_empty() {
            continue;
        }
        if out.len() == limit {
            break;
        }
        let norm: String = w
            .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '\u{2019}')
            .trim_matches(|c: char| c == '\'' || c == '\u{2019}')
            .chars()
            .map(|c| if c == '\u{2019}' { '\'' } else { c })
            .flat_map(char::to_lowercase)
            .collect();
        out.push(Word { start: at, norm });
    }
    out
}

/// Where clauses of a sentence start: the sentence start and after `,` `:` or a dash
/// surrounded by spaces.
fn clause_starts(masked: &str, start: usize, end: usize) -> Vec<usize> {
    let bytes = masked.as_bytes();
    let mut out = vec![start];
    for i in start..end {
        let boundary = match bytes[i] {
            b',' | b':' => true,
            b'-' => i > start && bytes[i - 1] == b' ' && bytes.get(i + 1) == Some(&b' '),
            _ => false,
        };
        if boundary {
            out.push(i + 1);
        }
    }
    out
}

/// The length of the phrase of `phrases` that `words` starts with, if any.
fn starts_with_phrase(words: &[Word], phrases: &[&[&str]]) -> Option<usize> {
    phrases
        .iter()
        .filter(|p| p.len() <= words.len() && p.iter().zip(words).all(|(a, w)| *a == w.norm))
        .map(|p| p.len())
        .max()
}

/// A trigger found at the start of a clause.
struct Hit {
    /// The first word kept in the directive's text (after dropped lead-ins).
    text_start: usize,
    /// The first word after the trigger.
    body_start: usize,
}

/// Matches lead-ins, a trigger and an acceptable first word at the start of `words`.
fn match_clause(words: &[Word]) -> Option<Hit> {
    let mut i = 0;
    let mut text_start = words.first()?.start;
    for _ in 0..=MAX_LEAD_INS {
        if let Some(n) = starts_with_phrase(&words[i..], TRIGGERS) {
            let body = words.get(i + n)?;
            // "from now on, always …": a trigger may follow a trigger.
            let chained = starts_with_phrase(&words[i + n..], TRIGGERS).is_some();
            if !chained && !is_instruction_word(&body.norm) {
                return None;
            }
            return Some(Hit {
                text_start,
                body_start: body.start,
            });
        }
        let n = starts_with_phrase(&words[i..], LEAD_INS)?;
        if DROPPED_LEAD_INS.contains(&words[i].norm.as_str()) {
            text_start = words.get(i + n)?.start;
        }
        i += n;
    }
    None
}

/// Whether `word`, right after a trigger, reads as the start of an instruction ("never push")
/// rather than a description ("never mind", "always the same", "never pushed", "always
/// fails").
fn is_instruction_word(word: &str) -> bool {
    if !word.chars().any(char::is_alphabetic) || NOT_A_DIRECTIVE.contains(&word) {
        return false;
    }
    // Past tense: "we never tested that". Imperatives ending in -ed are nearly all -eed.
    let past = word.ends_with("ed")
        && !word.ends_with("eed")
        && !["embed", "shed", "shred"].contains(&word)
        && word.len() > 3;
    // Third person: "it always fails". Keep -ss, -us, -is, -as ("access", "focus").
    let third_person = word.len() > 3
        && word.ends_with('s')
        && !["ss", "us", "is", "as"].iter().any(|e| word.ends_with(e));
    !past && !third_person
}

/// The directives of one sentence `[start, end)`, cut from the original `text`.
fn directives_in(text: &str, masked: &str, start: usize, end: usize) -> Vec<String> {
    let starts = clause_starts(masked, start, end);
    // Each directive found: the clause its text begins in (a leading condition's clause, or
    // the trigger's), where the text begins, and where the trigger's body begins.
    let mut found: Vec<(usize, usize, usize)> = Vec::new();
    for (ci, &cs) in starts.iter().enumerate() {
        // A clause that begins inside the previous directive's trigger belongs to it ("from
        // now on, always …").
        if found.last().is_some_and(|&(_, _, body)| cs <= body) {
            continue;
        }
        // The trigger must start this clause, but its body may run on past a comma.
        let Some(hit) = match_clause(&words(masked, cs, end, CLAUSE_HEAD_WORDS)) else {
            continue;
        };
        // A condition never reaches back into the previous directive.
        let floor = floor_after_trigger(&starts, &found);
        let (clause, from) =
            with_condition(masked, &starts, ci, end, floor).unwrap_or((ci, hit.text_start));
        found.push((clause, from, hit.body_start));
    }
    let mut out = Vec::new();
    for (n, &(_, from, _)) in found.iter().enumerate() {
        let to = found
            .get(n + 1)
            .map_or(end, |&(clause, _, _)| starts[clause].saturating_sub(1));
        if let Some(d) = clean(&text[from..to.max(from)]) {
            out.push(d);
        }
    }
    out
}

/// The first clause after the one holding the last directive's trigger body.
fn floor_after_trigger(starts: &[usize], found: &[(usize, usize, usize)]) -> usize {
    found.last().map_or(0, |&(_, _, body)| {
        starts.iter().take_while(|&&s| s <= body).count()
    })
}

/// The clause index and text start of the subordinate clauses ("if CI is red,") right before
/// clause `ci`, if any, looking back no further than clause `floor`.
fn with_condition(
    masked: &str,
    starts: &[usize],
    ci: usize,
    end: usize,
    floor: usize,
) -> Option<(usize, usize)> {
    let mut from = None;
    let mut k = ci;
    while k > floor {
        k -= 1;
        let clause_end = starts.get(k + 1).map_or(end, |&n| n - 1);
        let ws = words(masked, starts[k], clause_end, MAX_LEAD_INS + 1);
        let Some(first) = ws
            .iter()
            .find(|w| !DROPPED_LEAD_INS.contains(&w.norm.as_str()))
        else {
            break;
        };
        if !SUBORDINATORS.contains(&first.norm.as_str()) {
            break;
        }
        from = Some((k, first.start));
    }
    from
}

/// Trims whitespace and trailing punctuation and collapses runs of whitespace; cuts text
/// longer than [`MAX_DIRECTIVE_BYTES`] on a word boundary with `…`.
fn clean(raw: &str) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    for word in raw.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    let trimmed = out.trim_end_matches(|c: char| ",;:.!-\u{2014}".contains(c) || c.is_whitespace());
    if !trimmed.chars().any(char::is_alphabetic) {
        return None;
    }
    if trimmed.len() <= MAX_DIRECTIVE_BYTES {
        return Some(trimmed.to_owned());
    }
    let mut cut = MAX_DIRECTIVE_BYTES;
    while !trimmed.is_char_boundary(cut) {
        cut -= 1;
    }
    let head = &trimmed[..cut];
    let head = head.rfind(' ').map_or(head, |sp| &head[..sp]);
    Some(format!("{head}…"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(prompt: &str) -> String {
        let found = detect(prompt);
        assert_eq!(found.len(), 1, "{prompt:?} gave {found:?}");
        found.into_iter().next().unwrap_or_default()
    }

    fn none(prompt: &str) {
        let found = detect(prompt);
        assert!(
            found.is_empty(),
            "{prompt:?} should give nothing, gave {found:?}"
        );
    }

    #[test]
    fn each_documented_trigger_is_captured_at_the_start_of_a_sentence() {
        assert_eq!(
            one("Always run cargo fmt before committing."),
            "Always run cargo fmt before committing"
        );
        assert_eq!(one("never push to main"), "never push to main");
        assert_eq!(
            one("From now on, use pnpm instead of npm."),
            "From now on, use pnpm instead of npm"
        );
        assert_eq!(
            one("Going forward, write commit messages in English"),
            "Going forward, write commit messages in English"
        );
        assert_eq!(
            one("In the future ask before deleting files."),
            "In the future ask before deleting files"
        );
        assert_eq!(
            one("Don't ever use unwrap in library code."),
            "Don't ever use unwrap in library code"
        );
        assert_eq!(
            one("Don\u{2019}t ever use unwrap"),
            "Don\u{2019}t ever use unwrap"
        );
        assert_eq!(
            one("do not ever commit .env files"),
            "do not ever commit .env files"
        );
    }

    #[test]
    fn triggers_match_case_insensitively() {
        assert_eq!(one("ALWAYS USE TABS"), "ALWAYS USE TABS");
        assert_eq!(one("NeVeR force-push"), "NeVeR force-push");
    }

    #[test]
    fn look_alikes_are_not_captured() {
        none("never mind");
        none("Never mind, let's fix the parser instead.");
        none("nevermind, do the other thing");
        none("I never said that");
        none("I always forget the flags, can you add them");
        none("\"always\" is a keyword in this DSL");
        none("'never' is reserved");
        none("\u{201C}always\u{201D} appears in the docs");
        none("`never` is Rust's bottom type");
        none("It's always the same error.");
        none("Always the same error.");
        none("Never again.");
        none("We never tested that path.");
        none("it always works on my machine");
        none("Always fails on CI, no idea why");
        none("not always, only on Mondays");
        none("Does it always fail?");
        none("Always use tabs?");
        none("He wrote 'never push to main' in the README yesterday");
        none("> never use unwrap\nwhat did the reviewer mean?");
        none("```\n// always inline this\nfn f() {}\n```");
        none("the word never appears twice");
        none("");
        none("always");
        none("never!");
    }

    #[test]
    fn a_directive_after_another_clause_is_cut_from_its_clause() {
        assert_eq!(
            one("fix the tests, and never push to main"),
            "never push to main"
        );
        assert_eq!(
            one("Fix the parser; always add a regression test."),
            "always add a regression test"
        );
    }

    #[test]
    fn a_leading_condition_stays_with_the_directive() {
        assert_eq!(
            one("If the build is red, never merge."),
            "If the build is red, never merge"
        );
        assert_eq!(
            one("For the API crate, always use thiserror"),
            "For the API crate, always use thiserror"
        );
    }

    #[test]
    fn framing_lead_ins_are_dropped_and_modal_ones_kept() {
        assert_eq!(one("Please always add a test"), "always add a test");
        assert_eq!(one("Remember to always run clippy"), "always run clippy");
        assert_eq!(
            one("Remember: never commit secrets"),
            "never commit secrets"
        );
        assert_eq!(
            one("You must never commit secrets"),
            "You must never commit secrets"
        );
        assert_eq!(
            one("we should always squash merge"),
            "we should always squash merge"
        );
        assert_eq!(
            one("Please make sure to always run the linter."),
            "always run the linter"
        );
    }

    #[test]
    fn two_directives_in_one_sentence_are_split() {
        assert_eq!(
            detect("From now on, always run clippy, and never push to main."),
            ["From now on, always run clippy", "never push to main"]
        );
    }

    #[test]
    fn a_condition_between_two_directives_goes_with_the_second() {
        assert_eq!(
            detect("always run clippy, if CI is red, never merge"),
            ["always run clippy", "if CI is red, never merge"]
        );
    }

    #[test]
    fn several_sentences_and_lines_give_several_directives_in_order() {
        let found =
            detect("Thanks!\nAlways use tabs.\nThen fix #12. Never log tokens!\nalways use tabs");
        assert_eq!(found, ["Always use tabs", "Never log tokens"]);
    }

    #[test]
    fn quoted_code_inside_a_directive_is_kept_verbatim_and_does_not_split_it() {
        assert_eq!(
            one("never run `rm -rf .` in CI. Thanks."),
            "never run `rm -rf .` in CI"
        );
        assert_eq!(
            one("Always say \"hi. there\" first"),
            "Always say \"hi. there\" first"
        );
        assert_eq!(
            one("never edit Cargo.lock by hand"),
            "never edit Cargo.lock by hand"
        );
    }

    #[test]
    fn imperatives_that_look_like_past_or_third_person_are_kept() {
        assert_eq!(one("always embed the version"), "always embed the version");
        assert_eq!(
            one("never proceed without tests"),
            "never proceed without tests"
        );
        assert_eq!(
            one("always focus on one thing"),
            "always focus on one thing"
        );
        assert_eq!(
            one("never access the network in tests"),
            "never access the network in tests"
        );
    }

    #[test]
    fn long_directives_are_cut_on_a_word_boundary() {
        let long = format!("always {}", "déjà vu ".repeat(60));
        let d = one(&long);
        assert!(
            d.len() <= MAX_DIRECTIVE_BYTES + '…'.len_utf8(),
            "{}",
            d.len()
        );
        assert!(d.ends_with("vu…") || d.ends_with("déjà…"), "{d}");
    }

    #[test]
    fn duplicates_within_a_prompt_are_kept_once_and_the_count_is_bounded() {
        assert_eq!(detect("Never push. never push!"), ["Never push"]);
        let many: String = (0..40).map(|i| format!("Always do task{i}. ")).collect();
        assert_eq!(detect(&many).len(), MAX_DIRECTIVES);
    }

    #[test]
    fn adversarial_text_does_not_panic() {
        for s in [
            "\"",
            "'",
            "`",
            "\u{201C}",
            "''",
            "always \"",
            "never `x",
            ",,,;;;...",
            "always\u{0}\u{7}",
            "never ",
            " - always - ",
            "a,always",
            "\u{2019}always",
            "always, , ,",
            ": never :",
            "ßnever ÿalways",
            "🙂 always 🙂 use emoji",
        ] {
            let _ = detect(s);
        }
        let mut big = String::new();
        for _ in 0..2000 {
            big.push_str("\"never\" 'always' `x` ");
        }
        assert!(detect(&big).is_empty());
    }

    #[test]
    fn key_ignores_case_spacing_and_punctuation() {
        assert_eq!(key("Never push to  main."), key("never push to main"));
        assert_ne!(key("never push to main"), key("never push to dev"));
    }
}
