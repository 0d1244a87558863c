//! One pass over a text's bytes that finds where digit and IP rules can match at all.
//!
//! Card numbers, SSNs, phone numbers and IPv4 addresses are made of digits and
//! `( ) . + -` and spaces only, so each match lies inside one maximal run of such bytes;
//! IPv6 addresses lie inside one run of hex digits, `:` and `.`. Logs and JSON are dense
//! with digits, and a regex automaton over every byte of them, once per shape, cost more than
//! everything else together. This pass reads eight bytes at a time (SWAR bit tricks, no
//! `unsafe`), skips runs too short for any shape with bitmasks, and reports the rest with
//! counts of their digits, dots and joins; cards, SSNs and IPv4 addresses are then read off
//! the runs' digit groups (what their regexes would find, a test checks), phone numbers and
//! IPv6 addresses matched by their regexes inside the runs that can hold them.

/// A run of numeric bytes ([`num_mask`]: digits, `( ) * + , - . /` and spaces) that starts
/// with a digit, `(` or `+`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct NumRun {
    pub start: usize,
    pub end: usize,
    pub digits: u32,
    pub dots: u32,
    /// Dashes and spaces.
    pub joins: u32,
    pub plus: bool,
}

impl NumRun {
    fn len(&self) -> usize {
        self.end - self.start
    }

    /// Long enough for a card number (13 digits).
    pub fn card(&self) -> bool {
        self.digits >= 13
    }

    /// Long enough for an SSN (`078-05-1120`).
    pub fn ssn(&self) -> bool {
        self.digits >= 9 && self.joins >= 2 && self.len() >= 11
    }

    /// Long enough for a North American number (`415-555-0100`).
    pub fn phone_us(&self) -> bool {
        self.digits >= 10 && self.len() >= 12
    }

    /// Long enough for an international number (`+` and 8 digits).
    pub fn phone_intl(&self) -> bool {
        self.plus && self.digits >= 8
    }

    /// Long enough for a dotted quad.
    pub fn ipv4(&self) -> bool {
        self.dots >= 3 && self.digits >= 4 && self.len() >= 7
    }

    /// Long enough for any of them.
    fn any(&self) -> bool {
        self.digits >= 4 && self.len() >= 7
    }
}

/// Bytes of hex runs: hex digits, `:` and `.`.
fn is_hex_run(b: u8) -> bool {
    b.is_ascii_hexdigit() || b == b':' || b == b'.'
}

// Eight bytes at a time: each helper sets bit 7 of every byte of the word that matches.
const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

#[inline(always)]
fn splat(b: u8) -> u64 {
    LO * u64::from(b)
}

/// Bit 7 set in each zero byte of `v` (exact: no false positives).
#[inline(always)]
fn zero_bytes(v: u64) -> u64 {
    !(((v & !HI).wrapping_add(!HI)) | v | !HI)
}

#[inline(always)]
fn eq(w: u64, b: u8) -> u64 {
    zero_bytes(w ^ splat(b))
}

/// ASCII digits. Bytes above 0x7f are masked first, so the additions never carry.
#[inline(always)]
fn digits(w: u64) -> u64 {
    let x = w & !HI;
    x.wrapping_add(splat(0x80 - b'0')) & !x.wrapping_add(splat(0x80 - b':')) & !w & HI
}

#[inline(always)]
fn load(text: &[u8], i: usize) -> Option<u64> {
    let bytes: [u8; 8] = text.get(i..i + 8)?.try_into().ok()?;
    Some(u64::from_le_bytes(bytes))
}

/// Bytes of a numeric run: `(` through `9` (digits and `( ) * + , - . /`) and spaces, given
/// the spaces. A little wider than the shapes need (`,` `*` `/` join runs too), so that one
/// range test does: the runs only narrow where the matchers look.
#[inline(always)]
fn num_mask(w: u64, space: u64) -> u64 {
    let x = w & !HI;
    let range = x.wrapping_add(splat(0x80 - b'(')) & !x.wrapping_add(splat(0x80 - b':')) & !w & HI;
    range | space
}

/// The masks of a word: digits, dots, joins (space, `-`), `+`, and every byte of a numeric
/// run.
#[inline(always)]
fn classify(w: u64) -> (u64, u64, u64, u64, u64) {
    let d = digits(w);
    let dot = eq(w, b'.');
    let space = eq(w, b' ');
    let join = space | eq(w, b'-');
    let plus = eq(w, b'+');
    (d, dot, join, plus, num_mask(w, space))
}

/// The first index at or after `i` of a `:`.
fn next_colon(text: &[u8], mut i: usize) -> usize {
    while let Some(w) = load(text, i) {
        let m = eq(w, b':');
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < text.len() && text[i] != b':' {
        i += 1;
    }
    i
}

/// Calls `num` with every numeric run long enough for some shape, and `hex` with the span of
/// every hex run that could hold an IPv6 address.
pub(super) fn runs(text: &[u8], mut num: impl FnMut(NumRun), mut hex: impl FnMut(usize, usize)) {
    numeric_runs(text, &mut num);
    hex_runs(text, &mut hex);
}

/// Bit `i` set when byte `base + i` is part of a numeric run ([`num_mask`]), for the 64
/// bytes from `base` (bytes past the end are not).
fn num_bits(text: &[u8], base: usize) -> u64 {
    let mut bits = 0;
    for k in 0..8 {
        let at = base + 8 * k;
        let m = match load(text, at) {
            Some(w) => num_mask(w, eq(w, b' ')),
            None => {
                let mut m = 0;
                for (j, &b) in text
                    .get(at..)
                    .unwrap_or_default()
                    .iter()
                    .take(8)
                    .enumerate()
                {
                    m |= (classify(u64::from(b)).4 & 0x80) << (8 * j);
                }
                m
            }
        };
        // Gather bit 7 of each byte into 8 consecutive bits.
        let packed = ((m >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56;
        bits |= packed << (8 * k);
    }
    bits
}

/// Runs are read 64 bytes at a time as bitmasks: most runs of digits in logs and JSON are
/// short (`200`, `12:30`, `v1.2`), and a run shorter than 7 bytes holds no shape, so only the
/// stretches of 7 run bytes or more (and one that reaches the end of a block) are looked at.
fn numeric_runs(text: &[u8], num: &mut impl FnMut(NumRun)) {
    let mut base = 0;
    // Where the last run read ended.
    let mut from = 0;
    while base < text.len() {
        let bits = num_bits(text, base);
        let mut long = bits;
        for k in 1..7 {
            long &= bits >> k;
        }
        // A stretch that reaches the end of the block may go on in the next one.
        let tail = if bits >> 63 == 1 {
            1u64 << (64 - (!bits).leading_zeros())
        } else {
            0
        };
        let mut seeds = long | tail;
        while seeds != 0 {
            let p = seeds.trailing_zeros();
            // The stretch's first byte: after the last non-run byte below `p`.
            let below = !bits & ((1u64 << p) - 1);
            let first = if below == 0 {
                0
            } else {
                64 - below.leading_zeros()
            };
            let end = read_run(text, base + first as usize, num);
            from = end;
            if end >= base + 64 {
                break;
            }
            // Seeds of the same stretch are done.
            let done = (end - base) as u32;
            seeds &= u64::MAX.checked_shl(done).unwrap_or(0);
        }
        // A run that went on past this block: the next block starts where it ended.
        base = (base + 64).max(from);
    }
}

/// Read the stretch of run bytes from `start`: the run begins at its first digit, `+` or
/// `(`, and is handed to `num` if long enough for some shape. Returns where the stretch
/// ends.
fn read_run(text: &[u8], start: usize, num: &mut impl FnMut(NumRun)) -> usize {
    let mut i = start;
    while let Some(&b) = text.get(i) {
        if b.is_ascii_digit() || b == b'+' || b == b'(' {
            break;
        }
        if classify(u64::from(b)).4 == 0 {
            return i;
        }
        i += 1;
    }
    let mut r = NumRun {
        start: i,
        ..NumRun::default()
    };
    loop {
        // The last bytes of the text are read one at a time, as words of one byte.
        let (w, width) = match load(text, i) {
            Some(w) => (w, 8),
            None => match text.get(i) {
                Some(&b) => (u64::from(b), 1),
                None => break,
            },
        };
        let (d, dot, join, plus, n) = classify(w);
        let outside = !n & HI & (u64::MAX >> (64 - 8 * width));
        // The bytes of this word that are still in the run.
        let keep = if outside == 0 {
            u64::MAX
        } else {
            (1u64 << (outside.trailing_zeros() - 7)) - 1
        };
        r.digits += (d & keep).count_ones();
        r.dots += (dot & keep).count_ones();
        r.joins += (join & keep).count_ones();
        r.plus |= plus & keep != 0;
        if outside == 0 {
            i += width;
        } else {
            i += (outside.trailing_zeros() / 8) as usize;
            break;
        }
    }
    r.end = i;
    if r.any() {
        num(r);
    }
    i
}

/// Hex runs that could hold an IPv6 address: around a `::`, or a chain of six colons or
/// more each at most five bytes (four hex digits) from the next. Most colons (`"key": `,
/// `12:30:45`, `https:`) are dismissed after a look at the bytes that follow them.
fn hex_runs(text: &[u8], hex: &mut impl FnMut(usize, usize)) {
    let mut i = 0;
    // The end of the previous run: the next one cannot start before it.
    let mut floor = 0;
    loop {
        i = next_colon(text, i);
        if i >= text.len() {
            return;
        }
        // Walk the chain of colons that starts here.
        let mut at = i;
        let mut colons = 1;
        let mut double = false;
        while !double && colons < 7 {
            let gap = text[at + 1..]
                .iter()
                .take(5)
                .position(|&b| !b.is_ascii_hexdigit());
            match gap {
                Some(0) if text.get(at + 1) == Some(&b':') => double = true,
                Some(n) if n > 0 && text[at + 1 + n] == b':' => {
                    colons += 1;
                    at += 1 + n;
                }
                _ => break,
            }
        }
        if !double && colons < 6 {
            i = at + 1;
            continue;
        }
        let mut start = i;
        while start > floor && is_hex_run(text[start - 1]) {
            start -= 1;
        }
        let mut end = start;
        let mut digit = false;
        while let Some(&b) = text.get(end) {
            if !is_hex_run(b) {
                break;
            }
            digit |= b.is_ascii_digit();
            end += 1;
        }
        if digit {
            hex(start, end);
        }
        floor = end;
        i = end;
    }
}

/// The maximal digit sequences of `[start, end)`, in order.
pub(super) fn groups(text: &[u8], start: usize, end: usize, out: &mut Vec<(usize, usize)>) {
    out.clear();
    let mut i = start;
    while i < end {
        while i < end && !text[i].is_ascii_digit() {
            i += 1;
        }
        let g = i;
        while i < end && text[i].is_ascii_digit() {
            i += 1;
        }
        if i > g {
            out.push((g, i));
        }
    }
}

fn word_at(text: &[u8], i: usize) -> bool {
    text.get(i).copied().is_some_and(super::checks::is_word)
}

fn word_before(text: &[u8], i: usize) -> bool {
    i > 0 && word_at(text, i - 1)
}

/// Groups `a` and `b = a + 1` are joined by exactly one byte of `seps`.
fn joined(text: &[u8], g: &[(usize, usize)], a: usize, seps: &[u8]) -> bool {
    g.get(a + 1)
        .is_some_and(|&(next, _)| next == g[a].1 + 1 && seps.contains(&text[g[a].1]))
}

/// What `\b[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\b` finds, left to right, among
/// the digit groups `g` of a run.
pub(super) fn ipv4_candidates(text: &[u8], g: &[(usize, usize)], mut f: impl FnMut(usize, usize)) {
    let small = |i: usize| g[i].1 - g[i].0 <= 3;
    let mut i = 0;
    while i + 3 < g.len() {
        let fits = !word_before(text, g[i].0)
            && (i..i + 4).all(small)
            && (i..i + 3).all(|k| joined(text, g, k, b"."))
            && !word_at(text, g[i + 3].1);
        if fits {
            f(g[i].0, g[i + 3].1);
            i += 4;
        } else {
            i += 1;
        }
    }
}

/// What `\b[0-9]{3}-[0-9]{2}-[0-9]{4}\b|\b[0-9]{3} [0-9]{2} [0-9]{4}\b` finds, left to
/// right, among the digit groups `g` of a run.
pub(super) fn ssn_candidates(text: &[u8], g: &[(usize, usize)], mut f: impl FnMut(usize, usize)) {
    let len = |i: usize| g[i].1 - g[i].0;
    let mut i = 0;
    while i + 2 < g.len() {
        let fits = len(i) == 3
            && len(i + 1) == 2
            && len(i + 2) == 4
            && joined(text, g, i, b"- ")
            && joined(text, g, i + 1, b"- ")
            && text[g[i].1] == text[g[i + 1].1]
            && !word_before(text, g[i].0)
            && !word_at(text, g[i + 2].1);
        if fits {
            f(g[i].0, g[i + 2].1);
            i += 3;
        } else {
            i += 1;
        }
    }
}

/// What `\b[0-9](?:[ -]?[0-9]){12,}\b` finds, left to right, among the digit groups `g` of
/// a run: a stretch of groups joined by single spaces or dashes, from the first group that
/// starts at a word boundary to the last that ends at one, with 13 digits or more.
pub(super) fn card_candidates(text: &[u8], g: &[(usize, usize)], mut f: impl FnMut(usize, usize)) {
    let mut a = 0;
    while a < g.len() {
        // The stretch of joined groups that `a` starts.
        let mut z = a;
        while joined(text, g, z, b" -") {
            z += 1;
        }
        let mut matched = None;
        let mut first = a;
        while first <= z {
            if word_before(text, g[first].0) {
                first += 1;
                continue;
            }
            // Greedy: the last group of the stretch that ends at a word boundary.
            let mut last = z;
            while last > first && word_at(text, g[last].1) {
                last -= 1;
            }
            let digits: usize = (first..=last).map(|k| g[k].1 - g[k].0).sum();
            if !word_at(text, g[last].1) && digits >= 13 {
                matched = Some((first, last));
                break;
            }
            first += 1;
        }
        match matched {
            Some((first, last)) => {
                f(g[first].0, g[last].1);
                a = last + 1;
            }
            None => a = z + 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Category;
    use super::*;

    fn collect(text: &str) -> (Vec<(String, NumRun)>, Vec<String>) {
        let mut nums = Vec::new();
        let mut hexes = Vec::new();
        runs(
            text.as_bytes(),
            |r| nums.push((text[r.start..r.end].to_owned(), r)),
            |s, e| hexes.push(text[s..e].to_owned()),
        );
        (nums, hexes)
    }

    #[test]
    fn numeric_runs_start_at_a_digit_paren_or_plus_and_count_their_bytes() {
        let (nums, _) = collect("call +1 (415) 555-0100 now, ip 10.0.0.1; x 12 y");
        let spans: Vec<&str> = nums.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(spans, ["+1 (415) 555-0100 ", "10.0.0.1"]);
        let phone = nums[0].1;
        assert!(phone.plus && phone.digits == 11 && phone.phone_intl() && phone.phone_us());
        assert!(!phone.card() && !phone.ipv4());
        assert!(nums[1].1.ipv4());
    }

    #[test]
    fn hex_runs_need_a_digit_and_the_colons_of_an_address() {
        let (_, hexes) = collect(
            "peer 2001:db8::1, time 10:30:00, std::io, dead::beef, a:b, 1:2:3:4:5:6:7:8, ::ffff:1.2.3.4",
        );
        assert_eq!(hexes, ["2001:db8::1", "1:2:3:4:5:6:7:8", "::ffff:1.2.3.4"]);
    }

    type Spans = Vec<(usize, usize)>;
    type Matcher = fn(&[u8], &[(usize, usize)], &mut dyn FnMut(usize, usize));
    type Gate = fn(&NumRun) -> bool;

    /// Each hand-matched shape: its category, the gate of its runs, the matcher.
    fn shapes() -> [(Category, Gate, Matcher); 3] {
        [
            (Category::CreditCard, NumRun::card, |t, g, f| {
                card_candidates(t, g, f)
            }),
            (Category::Ssn, NumRun::ssn, |t, g, f| {
                ssn_candidates(t, g, f)
            }),
            (Category::Ipv4, NumRun::ipv4, |t, g, f| {
                ipv4_candidates(t, g, f)
            }),
        ]
    }

    /// Every match of `category`'s built-in regex in `text`, and what the hand matcher finds
    /// in the runs that pass `gate`.
    fn both(category: Category, text: &str, gate: Gate, matcher: Matcher) -> (Spans, Spans) {
        let pattern = super::super::rules::builtin(category)[0].pattern;
        let re = super::super::rules::compile_builtin(pattern).expect("compiles");
        let want: Spans = re.find_iter(text).map(|m| (m.start(), m.end())).collect();
        let mut got = Vec::new();
        let mut groups_buf = Vec::new();
        let mut nums = Vec::new();
        runs(text.as_bytes(), |r| nums.push(r), |_, _| {});
        for r in nums.iter().filter(|r| gate(r)) {
            groups(text.as_bytes(), r.start, r.end, &mut groups_buf);
            matcher(text.as_bytes(), &groups_buf, &mut |s, e| got.push((s, e)));
        }
        (want, got)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        #[test]
        fn hand_matchers_in_gated_runs_find_what_the_regexes_find(
            text in "[0-9 .\\-a_+(x]{0,60}",
        ) {
            for (category, gate, matcher) in shapes() {
                let (want, got) = both(category, &text, gate, matcher);
                proptest::prop_assert_eq!(want, got, "{} in {:?}", category, text);
            }
        }
    }

    #[test]
    fn hand_matchers_agree_with_the_regexes_on_known_shapes() {
        for text in [
            "4111 1111 1111 1111 2024",
            "x4111 1111 1111 1111 1111",
            "4111 1111 1111 1111 1111a",
            "1.2.3.4.5 v1.2.3.4 10.0.0.1-8.8.4.4",
            "123-45-6789-12-3456 078 05 1120",
            "2024-415-555-0100",
        ] {
            for (category, gate, matcher) in shapes() {
                let (want, got) = both(category, text, gate, matcher);
                assert_eq!(want, got, "{category} in {text:?}");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn swar_runs_count_like_a_byte_loop(text in "[0-9 .()+\\-a:é,/*]{0,300}") {
            let b = text.as_bytes();
            let mut got = Vec::new();
            runs(b, |r| got.push(r), |_, _| {});
            let mut want = Vec::new();
            let mut i = 0;
            while i < b.len() {
                if !(b[i].is_ascii_digit() || b[i] == b'+' || b[i] == b'(') {
                    i += 1;
                    continue;
                }
                let mut r = NumRun { start: i, ..NumRun::default() };
                while i < b.len() && (b[i] == b' ' || (b'('..=b'9').contains(&b[i])) {
                    r.digits += u32::from(b[i].is_ascii_digit());
                    r.dots += u32::from(b[i] == b'.');
                    r.joins += u32::from(b[i] == b' ' || b[i] == b'-');
                    r.plus |= b[i] == b'+';
                    i += 1;
                }
                r.end = i;
                if r.any() {
                    want.push(r);
                }
            }
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn runs_at_the_end_of_the_text_are_closed() {
        let (nums, hexes) = collect("4111 1111 1111 1111");
        assert_eq!(nums.len(), 1);
        assert!(nums[0].1.card());
        let (_, hexes2) = collect("fe80::1");
        assert!(hexes.is_empty());
        assert_eq!(hexes2, ["fe80::1"]);
    }
}
