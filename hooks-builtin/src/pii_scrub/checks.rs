//! The checks a regex candidate must pass to be redacted: Luhn and card brands, SSN ranges,
//! IP octets and scopes, phone digit counts, JWT headers, token shapes, and the neighbours of a
//! match (the `regex` crate has no look-around, so "not part of a longer number" is decided
//! here).

use std::net::{Ipv4Addr, Ipv6Addr};

use super::rules::Shape;

/// The outcome of a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Redact the candidate up to this end (a check may trim a trailing `:` or group).
    Keep(usize),
    /// Not a value, whatever surrounds it (a Luhn failure, an octet above 255).
    Drop,
    /// Not a value because of the bytes around it, at most [`CONTEXT_REACH`] before or
    /// [`AFTER_REACH`] after the candidate (`2024-` before `123-45-6789`). If those bytes are
    /// redacted themselves, the verdict may change: the engine then scrubs the result again.
    Context,
}

/// How far before a candidate a check may look: the longest is the version word before an
/// IPv4 address (separators and a word of up to 16 letters).
pub(super) const CONTEXT_REACH: usize = 26;
/// How far after a candidate a check may look.
pub(super) const AFTER_REACH: usize = 2;

use Verdict::{Context, Drop, Keep};

/// An ASCII word byte, as `(?-u:\b)` sees it.
pub(super) fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The byte `back` places before `at`, if any.
fn byte_before(text: &[u8], at: usize, back: usize) -> Option<u8> {
    at.checked_sub(back).and_then(|i| text.get(i).copied())
}

/// The character that starts at byte `at`, if `at` starts one.
fn char_at(text: &[u8], at: usize) -> Option<char> {
    let len = match *text.get(at)? {
        b if b < 0x80 => 1,
        b if b >= 0xF0 => 4,
        b if b >= 0xE0 => 3,
        _ => 2,
    };
    let bytes = text.get(at..at + len)?;
    std::str::from_utf8(bytes).ok()?.chars().next()
}

/// The character that ends at byte `at`, if any.
fn char_before(text: &[u8], at: usize) -> Option<char> {
    let mut i = at.checked_sub(1)?;
    while i > 0 && at - i < 4 && (0x80..0xC0).contains(&text[i]) {
        i -= 1;
    }
    let c = char_at(text, i)?;
    (i + c.len_utf8() == at).then_some(c)
}

/// True when the match `[start, end)` continues a longer run of digit groups joined by one of
/// `seps` on either side (`2024-123-45-6789`, `1.2.3.4.5`): then it is a piece of something
/// else (a date, a version, an id), not a value of its own.
fn in_longer_run(text: &[u8], start: usize, end: usize, seps: &[u8]) -> bool {
    let joined_before = byte_before(text, start, 1).is_some_and(|b| seps.contains(&b))
        && byte_before(text, start, 2).is_some_and(|b| b.is_ascii_digit());
    let joined_after = text.get(end).is_some_and(|b| seps.contains(b))
        && text.get(end + 1).is_some_and(|b| b.is_ascii_digit());
    joined_before || joined_after
}

/// The separators a match uses (`-` in `123-45-6789`): only a run continued with the same
/// separator is a longer run.
fn separators(m: &[u8]) -> [u8; 3] {
    let mut out = [0u8; 3];
    let mut n = 0;
    for &b in m {
        if matches!(b, b' ' | b'-' | b'.') && !out.contains(&b) && n < 3 {
            out[n] = b;
            n += 1;
        }
    }
    out
}

/// No word byte touches the match on either side.
fn word_bounded(text: &[u8], start: usize, end: usize) -> bool {
    !byte_before(text, start, 1).is_some_and(is_word)
        && !text.get(end).copied().is_some_and(is_word)
}

/// The Luhn checksum of `digits` (values 0–9) is valid.
pub(super) fn luhn(digits: &[u8]) -> bool {
    let mut sum = 0u32;
    for (i, &d) in digits.iter().rev().enumerate() {
        let d = u32::from(d);
        sum += if i % 2 == 1 {
            let x = d * 2;
            if x > 9 { x - 9 } else { x }
        } else {
            d
        };
    }
    sum.is_multiple_of(10)
}

/// The number `digits` starts like a card of a brand that issues numbers of its length
/// (Visa, Mastercard, Amex, Discover, Diners, JCB, UnionPay, Maestro). Luhn alone passes one
/// random number in ten; the brand prefixes cut that further, so a Luhn-valid order id
/// starting with `1`, `7`, `8`, `9` or `0` is kept.
pub(super) fn card_brand(digits: &[u8]) -> bool {
    let len = digits.len();
    let prefix = |n: usize| {
        digits
            .iter()
            .take(n)
            .fold(0u32, |acc, &d| acc * 10 + u32::from(d))
    };
    let (p2, p3, p4) = (prefix(2), prefix(3), prefix(4));
    match prefix(1) {
        4 => matches!(len, 13 | 16 | 19),
        2 => (2221..=2720).contains(&p4) && len == 16,
        5 => match p2 {
            51..=55 => len == 16,
            50 | 56..=58 => (13..=19).contains(&len),
            _ => false,
        },
        3 => match p2 {
            34 | 37 => len == 15,
            36 | 38 | 39 => (14..=19).contains(&len),
            30 => (300..=305).contains(&p3) && (14..=19).contains(&len),
            35 => (3528..=3589).contains(&p4) && (16..=19).contains(&len),
            _ => false,
        },
        6 => (13..=19).contains(&len),
        _ => false,
    }
}

/// Every window of consecutive digit groups of a card candidate (`4111 1111-1111 1111`) with
/// 13–19 digits that passes the brand and Luhn checks, as byte spans given to `out`. A window
/// never splits a group, so an order id printed as one run of digits is judged as a whole,
/// and a card next to more groups (`4111 1111 1111 1111 2024`) is still found. A group that
/// is the fraction of a float (`0.4111111111111111`, `3.5 4111…`) takes no part.
///
/// Returns [`Context`] when a group was left out for its neighbours, [`Keep`] when a window
/// was found, else [`Drop`].
pub(super) fn card_spans(
    text: &[u8],
    start: usize,
    end: usize,
    out: &mut impl FnMut(usize, usize),
) -> Verdict {
    let mut groups: Vec<(usize, usize)> = Vec::new();
    let mut i = start;
    while i < end {
        let g = i;
        while i < end && text[i].is_ascii_digit() {
            i += 1;
        }
        groups.push((g, i));
        i += 1; // the separator
    }
    let fraction_before = byte_before(text, start, 1) == Some(b'.')
        && byte_before(text, start, 2).is_some_and(|b| b.is_ascii_digit());
    let fraction_after =
        text.get(end) == Some(&b'.') && text.get(end + 1).is_some_and(|b| b.is_ascii_digit());
    let first = usize::from(fraction_before);
    let last = groups.len() - usize::from(fraction_after);
    let mut digits = [0u8; 19];
    let mut found = false;
    for a in first..last {
        let mut n = 0;
        for (b, &(gs, ge)) in groups.iter().enumerate().take(last).skip(a) {
            if n + (ge - gs) > 19 {
                break;
            }
            for &d in &text[gs..ge] {
                digits[n] = d - b'0';
                n += 1;
            }
            if n >= 13 && card_brand(&digits[..n]) && luhn(&digits[..n]) {
                out(groups[a].0, groups[b].1);
                found = true;
            }
        }
    }
    if fraction_before || fraction_after {
        Context
    } else if found {
        Keep(end)
    } else {
        Drop
    }
}

/// A US social security number `AAA-GG-SSSS` (or with spaces) in the ranges the SSA issues:
/// area 001–899 except 666, group 01–99, serial 0001–9999; not a piece of a longer run joined
/// by the same separator.
pub(super) fn ssn(text: &[u8], start: usize, end: usize) -> Verdict {
    let m = &text[start..end];
    if m.len() != 11 {
        return Drop;
    }
    let num = |r: std::ops::Range<usize>| {
        m[r].iter()
            .fold(0u32, |acc, &d| acc * 10 + u32::from(d.wrapping_sub(b'0')))
    };
    let (area, group, serial) = (num(0..3), num(4..6), num(7..11));
    if area == 0 || area == 666 || area >= 900 || group == 0 || serial == 0 {
        return Drop;
    }
    if in_longer_run(text, start, end, &[m[3]]) {
        return Context;
    }
    Keep(end)
}

/// An international number (`+44 20 7946 0958`): 8–15 digits in all (E.164), standing
/// alone. Trailing groups past the 15th digit are left out (a number followed by a year).
pub(super) fn phone_intl(text: &[u8], start: usize, end: usize) -> Verdict {
    if byte_before(text, start, 1).is_some_and(|b| is_word(b) || b == b'+')
        || text.get(end).copied().is_some_and(is_word)
        || in_longer_run(text, start, end, b".-")
    {
        return Context;
    }
    let mut count = text[start..end]
        .iter()
        .filter(|b| b.is_ascii_digit())
        .count();
    let mut cut = end;
    while count > 15 {
        let mut i = cut;
        while i > start && text[i - 1].is_ascii_digit() {
            i -= 1;
            count -= 1;
        }
        while i > start && !text[i - 1].is_ascii_digit() {
            i -= 1;
        }
        cut = i;
    }
    if count >= 8 && cut > start {
        Keep(cut)
    } else {
        Drop
    }
}

/// A North American number (`(415) 555-0100`, `415-555-0100`, `+1 415.555.0100`): the regex
/// holds area code and exchange to 2–9 (NANP); here the match must stand alone, not be a
/// piece of a longer run of groups joined the same way (`2024-415-555-0100`,
/// `415 555 0100 12` in a table of numbers).
pub(super) fn phone_us(text: &[u8], start: usize, end: usize) -> Verdict {
    let m = &text[start..end];
    if byte_before(text, start, 1).is_some_and(|b| is_word(b) || b == b'+')
        || !word_bounded(text, start, end)
        || in_longer_run(text, start, end, &separators(m))
    {
        return Context;
    }
    Keep(end)
}

/// An IPv4 candidate is kept when it is a valid dotted quad in canonical form (octets up to
/// 255, no leading zeros), public unless private addresses are redacted too, not a piece of a
/// longer dotted run, and not a version (`version 1.2.3.4`, `==1.2.3.4`, `1.2.3.4-beta`).
pub(super) fn ipv4(text: &[u8], start: usize, end: usize, private_too: bool) -> Verdict {
    let Some(addr) = dotted_quad(&text[start..end]) else {
        return Drop;
    };
    if !private_too && !public_v4(addr) {
        return Drop;
    }
    let suffixed = matches!(text.get(end), Some(b'-' | b'+'))
        && text.get(end + 1).is_some_and(u8::is_ascii_alphabetic);
    if in_longer_run(text, start, end, b".") || suffixed || version_context(text, start) {
        return Context;
    }
    Keep(end)
}

/// `a.b.c.d` with octets up to 255 and no leading zeros (`01.02.03.04` is not canonical and
/// reads as octal to some parsers), as `Ipv4Addr::from_str` takes it, without its UTF-8 and
/// error plumbing.
fn dotted_quad(m: &[u8]) -> Option<Ipv4Addr> {
    let mut octets = [0u8; 4];
    let mut parts = m.split(|&b| b == b'.');
    for octet in &mut octets {
        let part = parts.next()?;
        if part.is_empty() || part.len() > 3 || (part.len() > 1 && part[0] == b'0') {
            return None;
        }
        let mut n = 0u32;
        for &d in part {
            if !d.is_ascii_digit() {
                return None;
            }
            n = n * 10 + u32::from(d - b'0');
        }
        *octet = u8::try_from(n).ok()?;
    }
    if parts.next().is_some() {
        return None;
    }
    Some(Ipv4Addr::from(octets))
}

/// The words before a dotted number say it is a version: `version 1.2.3.4`, `Version: …`,
/// `release=…`, `pkg==1.2.3.4`, `>=1.2.3.4`. Looks back at most [`CONTEXT_REACH`] bytes.
fn version_context(text: &[u8], start: usize) -> bool {
    if start >= 2
        && matches!(
            &text[start - 2..start],
            b"==" | b">=" | b"<=" | b"~=" | b"!="
        )
    {
        return true;
    }
    let floor = start.saturating_sub(CONTEXT_REACH);
    let mut i = start;
    while i > floor && start - i < 8 && matches!(text[i - 1], b' ' | b'\t' | b':' | b'=') {
        i -= 1;
    }
    let word_end = i;
    while i > floor && text[i - 1].is_ascii_alphabetic() {
        i -= 1;
    }
    let word = &text[i..word_end];
    const VERSION_WORDS: [&[u8]; 6] = [
        b"version",
        b"ver",
        b"release",
        b"build",
        b"revision",
        b"rev",
    ];
    word_end < start
        && !byte_before(text, i, 1).is_some_and(is_word)
        && VERSION_WORDS.iter().any(|w| w.eq_ignore_ascii_case(word))
}

fn public_v4(a: Ipv4Addr) -> bool {
    let [o1, o2, ..] = a.octets();
    let shared = o1 == 100 && (64..128).contains(&o2); // RFC 6598 carrier-grade NAT
    !(a.is_private()
        || a.is_loopback()
        || a.is_link_local()
        || a.is_unspecified()
        || a.is_broadcast()
        || o1 == 0
        || shared)
}

fn public_v6(a: Ipv6Addr) -> bool {
    if let Some(v4) = a.to_ipv4_mapped() {
        return public_v4(v4);
    }
    let first = a.segments()[0];
    let unique_local = first & 0xfe00 == 0xfc00;
    let link_local = first & 0xffc0 == 0xfe80;
    !(a.is_loopback() || a.is_unspecified() || unique_local || link_local)
}

/// An IPv6 candidate (hex groups and colons, maybe a dotted IPv4 tail) that stands alone
/// (not `std::io`), parses as an address (MACs and times do not), holds at least one decimal
/// digit (so `dead::beef`-like code is left alone) and is public unless private addresses
/// are redacted too. A trailing `:` of the sentence is not part of it.
pub(super) fn ipv6(text: &[u8], start: usize, end: usize, private_too: bool) -> Verdict {
    if byte_before(text, start, 1).is_some_and(|b| is_word(b) || b == b':' || b == b'.')
        || text
            .get(end)
            .copied()
            .is_some_and(|b| is_word(b) || b == b':')
    {
        return Context;
    }
    let mut end = end;
    if text[start..end].ends_with(b":") && !text[start..end].ends_with(b"::") {
        end -= 1;
    }
    let m = &text[start..end];
    if !m.iter().any(u8::is_ascii_digit) {
        return Drop;
    }
    match std::str::from_utf8(m)
        .ok()
        .and_then(|s| s.parse::<Ipv6Addr>().ok())
    {
        Some(addr) if private_too || public_v6(addr) => Keep(end),
        _ => Drop,
    }
}

/// An e-mail candidate is kept when it ends at the end of a word (`a@b.com4` is not an
/// address) and is not a git host's service account (`git@github.com:owner/repo`), which
/// names no person.
pub(super) fn email(text: &[u8], start: usize, end: usize) -> Verdict {
    if char_at(text, end).is_some_and(|c| c.is_alphanumeric() || c == '_')
        || char_before(text, start).is_some_and(|c| c.is_alphanumeric() || c == '_')
    {
        return Context;
    }
    if text[start..end].starts_with(b"git@") {
        return Drop;
    }
    Keep(end)
}

/// A prefixed token's random part has the shape of its kind: keys made of random base62
/// mix digits with upper- and lower-case letters, which keeps `sk-` in kebab-case words
/// (`sk-learn-style-api-wrapper-module`) from being redacted; Slack tokens hold digits.
fn token_shape(tail: &[u8], shape: Shape) -> bool {
    let digit = || tail.iter().any(u8::is_ascii_digit);
    match shape {
        Shape::Any => true,
        Shape::Digit => digit(),
        Shape::Mixed => {
            digit()
                && tail.iter().any(u8::is_ascii_uppercase)
                && tail.iter().any(u8::is_ascii_lowercase)
        }
    }
}

/// A prefixed token that does not start or end inside a longer word, and whose part after
/// `prefix` bytes has `shape`.
pub(super) fn token(text: &[u8], start: usize, end: usize, prefix: usize, shape: Shape) -> Verdict {
    if !token_shape(&text[(start + prefix).min(end)..end], shape) {
        return Drop;
    }
    let before = byte_before(text, start, 1);
    if before.is_some_and(|b| is_word(b) || b == b'-')
        || text.get(end).copied().is_some_and(is_word)
    {
        return Context;
    }
    Keep(end)
}

/// A JWT: its first segment decodes (base64url) to a JSON object (`{"alg":…}`), and it does
/// not start inside a longer word.
pub(super) fn jwt(text: &[u8], start: usize, end: usize) -> Verdict {
    let m = &text[start..end];
    let header = m.split(|&b| b == b'.').next().unwrap_or_default();
    let mut first = None;
    let mut last = None;
    let mut acc = 0u32;
    let mut bits = 0;
    for &c in header {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return Drop,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            let byte = (acc >> bits) as u8;
            acc &= (1 << bits) - 1;
            first.get_or_insert(byte);
            last = Some(byte);
        }
    }
    if first != Some(b'{') || last != Some(b'}') {
        return Drop;
    }
    if byte_before(text, start, 1).is_some_and(|b| is_word(b) || b == b'-') {
        return Context;
    }
    Keep(end)
}

/// A block longer than this is no key: its header is taken for a cut-off block.
const MAX_PEM: usize = 64 * 1024;

/// A private-key block from its header (`[start, end)`): through the first footer
/// `-----END … PRIVATE KEY-----` after it (`footers` holds the positions of every `-----END`
/// of the text, in order), or, for a block cut short (`head key.pem`), through the base64
/// and header lines (`Proc-Type: 4,ENCRYPTED`) that follow, escaped newlines of JSON text
/// included.
pub(super) fn private_key(text: &[u8], end: usize, footers: &[usize]) -> Verdict {
    let first = footers.partition_point(|&f| f < end);
    for &footer in &footers[first..] {
        if footer - end > MAX_PEM {
            break;
        }
        if let Some(footer_end) = pem_footer(text, footer) {
            return Keep(footer_end);
        }
    }
    let body = text[end..]
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || b"+/=_\t\r\n :,.\\-".contains(&b)))
        .map_or(text.len(), |n| end + n);
    Keep(body)
}

/// The end of `-----END[ A-Z0-9]*PRIVATE KEY( BLOCK)?-----` starting at `at`, if it is one.
fn pem_footer(text: &[u8], at: usize) -> Option<usize> {
    let mut i = at + b"-----END".len();
    while text
        .get(i)
        .is_some_and(|&b| b == b' ' || b.is_ascii_uppercase() || b.is_ascii_digit())
    {
        // `PRIVATE KEY` ends the run of words; stop at it.
        if text[..i].ends_with(b"PRIVATE KEY") {
            break;
        }
        i += 1;
    }
    if !text[..i].ends_with(b"PRIVATE KEY") {
        return None;
    }
    if text[i..].starts_with(b" BLOCK") {
        i += b" BLOCK".len();
    }
    text[i..].starts_with(b"-----").then_some(i + 5)
}

/// A value captured after a key name (`aws_secret_access_key = …`) has the length of its
/// kind and does not run on into more key characters.
pub(super) fn keyed_value(
    text: &[u8],
    start: usize,
    end: usize,
    min: usize,
    max: usize,
) -> Verdict {
    if !(min..=max).contains(&(end - start)) {
        return Drop;
    }
    let runs_on = text
        .get(end)
        .is_some_and(|&b| is_word(b) || b == b'/' || b == b'+');
    if runs_on { Context } else { Keep(end) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digits(s: &str) -> Vec<u8> {
        s.bytes()
            .filter(u8::is_ascii_digit)
            .map(|b| b - b'0')
            .collect()
    }

    #[test]
    fn luhn_accepts_test_cards_and_refuses_a_changed_digit() {
        for card in [
            "4111111111111111",
            "5555555555554444",
            "378282246310005",
            "6011111111111117",
            "3530111333300000",
            "30569309025904",
        ] {
            assert!(luhn(&digits(card)), "{card}");
            assert!(card_brand(&digits(card)), "{card}");
        }
        assert!(!luhn(&digits("4111111111111112")));
    }

    #[test]
    fn luhn_valid_numbers_without_a_card_prefix_are_not_cards() {
        // 1234567812345670 passes Luhn but no brand issues numbers starting with 1.
        assert!(luhn(&digits("1234567812345670")));
        assert!(!card_brand(&digits("1234567812345670")));
        // Amex is 15 digits only.
        assert!(!card_brand(&digits("3782822463100051")));
    }

    #[test]
    fn chars_around_a_byte_offset_decode_across_utf8() {
        let t = "aé日x".as_bytes();
        assert_eq!(char_at(t, 1), Some('é'));
        assert_eq!(char_before(t, 3), Some('é'));
        assert_eq!(char_before(t, 6), Some('日'));
        assert_eq!(char_before(t, 0), None);
        assert_eq!(char_at(t, 2), None, "inside a character");
    }

    #[test]
    fn jwt_header_must_decode_to_a_json_object() {
        let t = b"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig";
        assert_eq!(jwt(t, 0, t.len()), Keep(t.len()));
        let not = b"eyJhbGciOiJIUzI1NiJ.eyJzdWIiOiIxIn0.sig";
        assert_eq!(jwt(not, 0, not.len()), Drop);
    }

    #[test]
    fn dotted_quads_parse_like_the_standard_library() {
        for s in [
            "1.2.3.4",
            "0.0.0.0",
            "255.255.255.255",
            "256.1.1.1",
            "01.2.3.4",
            "1.2.3",
            "1.2.3.4.5",
            "1..2.3",
            "1.2.3.a",
            "000.1.1.1",
            "10.0.0.10",
        ] {
            assert_eq!(dotted_quad(s.as_bytes()), s.parse::<Ipv4Addr>().ok(), "{s}");
        }
    }

    #[test]
    fn version_words_before_a_dotted_quad_make_it_a_version() {
        let t = b"version 1.2.3.4";
        assert!(version_context(t, 8));
        let t = b"Version:\t1.2.3.4";
        assert!(version_context(t, 9));
        let t = b"pkg==1.2.3.4";
        assert!(version_context(t, 5));
        let t = b"host 1.2.3.4";
        assert!(!version_context(t, 5));
        // A version word that ends a longer word is not one.
        let t = b"subversion 1.2.3.4";
        assert!(!version_context(t, 11));
    }
}
