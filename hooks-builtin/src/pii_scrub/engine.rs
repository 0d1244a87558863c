//! The scrubbing pass over one string: collect the candidates of every rule, keep those that
//! pass their checks and the allow list, settle the ones whose neighbours were redacted,
//! merge overlaps, write the marks.
//!
//! # Why the result is a fixed point
//!
//! Some checks look at a candidate's neighbours: `415 555 0100` followed by ` 4111 …` is a
//! piece of a longer run of numbers, `+44 20 7946 0958` glued to a word is not a number of
//! its own. When those neighbours are redacted, the candidate stands next to a mark instead,
//! and a second scrub would take it. So candidates dropped for their context are kept aside
//! and judged again with every redacted byte masked as it will read next to a mark (a byte
//! that is no letter, digit or separator, like a mark's brackets), until no more are taken:
//! the result of one scrub is what any number of scrubs gives. Marks must start and end
//! with such a byte ([`check_mark`](super::check_mark)); hits never end next to a word byte
//! on a side where the hit's own edge is a word byte, so `\b` reads the same next to a mark.

use std::borrow::Cow;
use std::collections::BTreeMap;

use regex::Regex;

use super::checks::{self, AFTER_REACH, CONTEXT_REACH, Verdict};
use super::rules::{Check, Find, Rule, features};
use super::scan;

/// A category or custom pattern: its name in marks and reports, and its rendered mark.
#[derive(Debug, Clone)]
pub(super) struct Label {
    pub name: String,
    pub mark: String,
}

/// A span to redact, with the label it reports.
#[derive(Debug, Clone, Copy)]
struct Hit {
    start: usize,
    end: usize,
    label: usize,
}

/// A candidate dropped in a way a redaction next to it (or inside it) may change.
#[derive(Debug, Clone, Copy)]
struct Deferred {
    start: usize,
    end: usize,
    rule: usize,
}

/// Texts up to this length are checked for the bytes each rule needs before any regex runs:
/// a short JSON value costs one table pass instead of one search per rule. Longer texts
/// hold every byte anyway.
const GATE_MAX: usize = 16 * 1024;

/// What redacted bytes read as when a deferred candidate is judged again: not a letter,
/// digit, separator or anything else a check looks for, like the brackets of a mark.
const MASK: u8 = b'#';

/// How many passes a text gets at most when a pass cannot tell that its result is settled.
/// Each pass only has less left to find; two are the norm, the rest is a bound.
const MAX_ROUNDS: usize = 8;

/// The compiled rules of one policy.
#[derive(Debug, Clone)]
pub(super) struct Engine {
    /// Labels in priority order: of two overlapping spans of equal length, the union is
    /// reported under the lower index.
    pub labels: Vec<Label>,
    pub rules: Vec<Rule>,
    /// Allow-list entries, as configured (compared ASCII case-insensitively).
    pub allow: Vec<String>,
    /// The e-mail label, for domain entries of the allow list.
    pub email_label: Option<usize>,
    pub private_ips: bool,
    /// Finds rendered marks already in a text, when a custom pattern or a custom mark could
    /// match one: a span inside a mark is dropped, one that overlaps a mark swallows it.
    pub marks: Option<Regex>,
    /// Scrub every result again until it no longer changes: custom patterns may depend on
    /// their surroundings in ways the settling of built-in checks does not model.
    pub verify: bool,
    /// The literals of the token rules, searched for all at once.
    pub triggers: Option<Triggers>,
    /// `-----END`, the start of a private-key block's footer (a literal regex: a vectorized
    /// substring search).
    pub footer: Regex,
}

/// One search for the prefixes of every token rule (`AKIA`, `ghp_`, `sk-`…): a text
/// without any of them skips those rules.
#[derive(Debug, Clone)]
pub(super) struct Triggers {
    /// An alternation of the literals, longest first.
    pub regex: Regex,
    /// Each literal and the bits of the rules ([`Rule::bit`]) it fires.
    pub literals: Vec<(String, u64)>,
    /// Every bit.
    pub all: u64,
}

/// What one pass over a text found.
#[derive(Default)]
struct Scan {
    hits: Vec<Hit>,
    deferred: Vec<Deferred>,
    /// Candidates dropped whatever their context: if a redaction overlaps one, what is left
    /// of it may match differently.
    dropped: Vec<(usize, usize)>,
    /// Where `-----END` occurs, for private-key blocks (found once, when a header is).
    footers: Vec<usize>,
}

impl Engine {
    /// `text` with every detected value replaced by its label's mark, `Cow::Borrowed` when
    /// nothing was found. Adds the number of marks written per label to `counts`.
    ///
    /// The result is a fixed point: scrubbing it again changes nothing (see the module
    /// docs). In the rare case the settling cannot decide (a dropped candidate that a
    /// redaction cuts: `ghp_…alice@corp.io`), and with custom patterns or marks, the result
    /// is scrubbed again until it no longer changes.
    pub fn scrub<'t>(&self, text: &'t str, counts: &mut [usize]) -> Cow<'t, str> {
        let Some((mut out, mut settled)) = self.pass(text, counts) else {
            return Cow::Borrowed(text);
        };
        let mut rounds = 1;
        while (!settled || self.verify) && rounds < MAX_ROUNDS {
            match self.pass(&out, counts) {
                Some((next, s)) => {
                    out = next;
                    settled = s;
                }
                None => break,
            }
            rounds += 1;
        }
        Cow::Owned(out)
    }

    /// One pass: the scrubbed text (`None` when nothing was found), and whether it is known
    /// to be settled.
    fn pass(&self, text: &str, counts: &mut [usize]) -> Option<(String, bool)> {
        let mut scan = Scan::default();
        self.collect(text, &mut scan);
        if let Some(marks) = &self.marks {
            protect(marks, text, &mut scan.hits);
        }
        if scan.hits.is_empty() {
            return None;
        }
        let mut settled = self.settle(text, &mut scan);
        if let Some(marks) = &self.marks {
            protect(marks, text, &mut scan.hits);
        }
        let merged = merge(scan.hits);
        settled &= !overlaps(&scan.dropped, &merged);
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for h in &merged {
            out.push_str(&text[last..h.start]);
            out.push_str(&self.labels[h.label].mark);
            last = h.end;
            if let Some(c) = counts.get_mut(h.label) {
                *c += 1;
            }
        }
        out.push_str(&text[last..]);
        Some((out, settled))
    }

    fn collect(&self, text: &str, scan: &mut Scan) {
        let bytes = text.as_bytes();
        let have = if text.len() <= GATE_MAX {
            features(bytes)
        } else {
            u16::MAX
        };
        let fired = self.fire(text);
        let mut runs = false;
        for (index, rule) in self.rules.iter().enumerate() {
            if have & rule.needs != rule.needs {
                continue;
            }
            match rule.find {
                Find::Numeric | Find::Hex => {
                    runs = true;
                    continue;
                }
                Find::Trigger(_) if fired & rule.bit == 0 => continue,
                Find::Trigger(_) | Find::Everywhere => {}
            }
            match rule.check {
                Check::Keyed { .. } => self.collect_group(index, 1, text, scan),
                Check::Custom { group: Some(g) } => self.collect_group(index, g, text, scan),
                _ => {
                    if rule.check == Check::PrivateKey {
                        scan.footers = self.footer.find_iter(text).map(|m| m.start()).collect();
                    }
                    // A candidate inside the rule's previous span adds nothing (a header
                    // inside a cut-off block it already swallowed).
                    let mut covered = 0;
                    for m in rule.regex.find_iter(text) {
                        if m.start() < covered {
                            continue;
                        }
                        let before = scan.hits.len();
                        self.judge(index, bytes, 0, m.start(), m.end(), scan);
                        if let Some(h) = scan.hits.get(before..).and_then(<[Hit]>::last) {
                            covered = h.end;
                        }
                    }
                }
            }
        }
        if runs {
            self.collect_runs(text, have, scan);
        }
    }

    /// The trigger bits of the token rules whose literals occur in `text`.
    pub(super) fn fire(&self, text: &str) -> u64 {
        let Some(triggers) = &self.triggers else {
            return 0;
        };
        let mut fired = 0;
        for m in triggers.regex.find_iter(text) {
            for (literal, bits) in &triggers.literals {
                // `sk-ant-` also fires the rules of `sk-`.
                if m.as_str().starts_with(literal.as_str()) {
                    fired |= bits;
                }
            }
            if fired == triggers.all {
                break;
            }
        }
        fired
    }

    /// The digit and IP rules, inside the runs that can hold their shapes. Cards, SSNs and
    /// IPv4 addresses are read off the run's digit groups directly (exactly what their
    /// regexes would find, a unit test checks); phone numbers, whose shapes have more
    /// variants, go through their regexes in the runs whose groups could form one.
    fn collect_runs(&self, text: &str, have: u16, scan: &mut Scan) {
        let bytes = text.as_bytes();
        let mut nums = Vec::new();
        let mut hexes = Vec::new();
        scan::runs(bytes, |r| nums.push(r), |s, e| hexes.push((s, e)));
        if nums.is_empty() && hexes.is_empty() {
            return;
        }
        let active = || {
            (0..self.rules.len()).filter(move |&i| {
                let r = &self.rules[i];
                have & r.needs == r.needs && matches!(r.find, Find::Numeric | Find::Hex)
            })
        };
        let mut groups = Vec::new();
        let mut found = Vec::new();
        for r in &nums {
            if !(r.card() || r.ssn() || r.ipv4() || r.phone_us() || r.phone_intl()) {
                continue;
            }
            scan::groups(bytes, r.start, r.end, &mut groups);
            let len = |n: usize| groups.iter().filter(|g| g.1 - g.0 == n).count();
            for index in active() {
                let rule = &self.rules[index];
                found.clear();
                match rule.check {
                    Check::Card if r.card() => {
                        scan::card_candidates(bytes, &groups, |s, e| found.push((s, e)));
                    }
                    Check::Ssn if r.ssn() => {
                        scan::ssn_candidates(bytes, &groups, |s, e| found.push((s, e)));
                    }
                    Check::Ipv4 if r.ipv4() => {
                        scan::ipv4_candidates(bytes, &groups, |s, e| found.push((s, e)));
                    }
                    Check::PhoneUs if r.phone_us() && len(3) >= 2 && len(4) >= 1 => {
                        self.find_in(index, text, r.start, r.end, scan);
                    }
                    Check::PhoneIntl if r.phone_intl() => {
                        self.find_in(index, text, r.start, r.end, scan);
                    }
                    _ => {}
                }
                for &(s, e) in &found {
                    self.judge(index, bytes, 0, s, e, scan);
                }
            }
        }
        for index in active() {
            if self.rules[index].find == Find::Hex {
                for &(s, e) in &hexes {
                    self.find_in(index, text, s, e, scan);
                }
            }
        }
    }

    /// Every match of rule `index` that starts in `[start, end)`. The regex sees the whole
    /// text before `start` and one character after `end`, so its word boundaries read as
    /// they would over the whole text; its matches cannot leave the run.
    fn find_in(&self, index: usize, text: &str, start: usize, end: usize, scan: &mut Scan) {
        let rule = &self.rules[index];
        let hay = &text[..ceil_char(text, end + 1)];
        let mut at = start;
        while at < end {
            let Some(m) = rule.regex.find_at(hay, at) else {
                break;
            };
            if m.start() >= end || m.end() == m.start() {
                break;
            }
            self.judge(index, text.as_bytes(), 0, m.start(), m.end(), scan);
            at = m.end();
        }
    }

    /// Candidates of a rule whose capture group `group` is the value (the key name before it
    /// stays).
    fn collect_group(&self, index: usize, group: usize, text: &str, scan: &mut Scan) {
        let rule = &self.rules[index];
        let mut locs = rule.regex.capture_locations();
        let mut at = 0;
        while at <= text.len() {
            let Some(m) = rule.regex.captures_read_at(&mut locs, text, at) else {
                break;
            };
            if let Some((s, e)) = locs.get(group) {
                self.judge(index, text.as_bytes(), 0, s, e, scan);
            }
            at = if m.end() > m.start() {
                m.end()
            } else {
                // An empty match: step over one character to make progress.
                match text[m.end()..].chars().next() {
                    Some(c) => m.end() + c.len_utf8(),
                    None => break,
                }
            };
        }
    }

    /// Judge the candidate `[s, e)` of rule `index` in `text` (whose byte 0 is byte `base` of
    /// the scrubbed string): keep it (or the spans its check cuts from it) when it passes the
    /// check and the allow list, defer it when its neighbours decided against it.
    fn judge(&self, index: usize, text: &[u8], base: usize, s: usize, e: usize, scan: &mut Scan) {
        let rule = &self.rules[index];
        let label = rule.label;
        let hits = &mut scan.hits;
        let mut push = |s: usize, e: usize| {
            if e > s && !self.allowed(label, &text[s..e]) {
                hits.push(Hit {
                    start: base + s,
                    end: base + e,
                    label,
                });
            }
        };
        let verdict = match rule.check {
            Check::Email => checks::email(text, s, e),
            Check::PhoneIntl => checks::phone_intl(text, s, e),
            Check::PhoneUs => checks::phone_us(text, s, e),
            // The check hands over each valid window itself.
            Check::Card => match checks::card_spans(text, s, e, &mut push) {
                Verdict::Keep(_) | Verdict::Drop => return,
                v => v,
            },
            Check::Ssn => checks::ssn(text, s, e),
            Check::Ipv4 => checks::ipv4(text, s, e, self.private_ips),
            Check::Ipv6 => checks::ipv6(text, s, e, self.private_ips),
            Check::Token { prefix, shape } => checks::token(text, s, e, prefix, shape),
            Check::Jwt => checks::jwt(text, s, e),
            Check::PrivateKey => checks::private_key(text, e, &scan.footers),
            Check::Keyed { min, max } => checks::keyed_value(text, s, e, min, max),
            Check::Whole | Check::Custom { .. } => Verdict::Keep(e),
        };
        match verdict {
            Verdict::Keep(end) => push(s, end),
            // A cut card run only has fewer windows, all judged already.
            Verdict::Drop => scan.dropped.push((base + s, base + e)),
            Verdict::Context => scan.deferred.push(Deferred {
                start: base + s,
                end: base + e,
                rule: index,
            }),
        }
    }

    /// Judge deferred candidates again, with redacted bytes masked, wherever a redaction
    /// landed in their reach; repeat with the spans that this takes, until none is taken.
    /// Returns false when a candidate overlaps a redaction, which this cannot settle.
    fn settle(&self, text: &str, scan: &mut Scan) -> bool {
        let mut deferred = std::mem::take(&mut scan.deferred);
        let mut settled = true;
        if deferred.is_empty() {
            return settled;
        }
        deferred.sort_unstable_by_key(|d| d.start);
        let longest = deferred.iter().map(|d| d.end - d.start).max().unwrap_or(0);
        let mut done = vec![false; deferred.len()];
        // Built in one go from the sorted spans.
        let mut mask = Mask {
            spans: merge(scan.hits.clone())
                .iter()
                .map(|h| (h.start, h.end))
                .collect(),
        };
        let mut fresh: Vec<Hit> = scan.hits.clone();
        let mut todo = Vec::new();
        while !fresh.is_empty() {
            todo.clear();
            for h in &fresh {
                // Deferred `d` is in reach of `h` when `d.start - CONTEXT_REACH < h.end` and
                // `d.end + AFTER_REACH > h.start`.
                let lo = h.start.saturating_sub(AFTER_REACH + longest);
                let hi = h.end + CONTEXT_REACH;
                let first = deferred.partition_point(|d| d.start < lo);
                for (i, d) in deferred.iter().enumerate().skip(first) {
                    if d.start >= hi {
                        break;
                    }
                    if !done[i] && d.end + AFTER_REACH > h.start {
                        todo.push(i);
                    }
                }
            }
            todo.sort_unstable();
            todo.dedup();
            let mut round = Scan::default();
            let mut found = Vec::new();
            for &i in &todo {
                if !self.rejudge(text, deferred[i], &mask, &mut round) {
                    settled = false;
                    done[i] = true;
                    continue;
                }
                // Judged for good unless it was deferred again.
                done[i] = round.deferred.is_empty();
                round.deferred.clear();
                found.append(&mut round.hits);
            }
            // Only spans that cover something new can change another verdict; the rest were
            // found before (a card window judged again).
            fresh.clear();
            for h in found {
                if mask.cover_end(h.start).is_none_or(|end| end < h.end) {
                    mask.insert(h.start, h.end);
                    fresh.push(h);
                }
                scan.hits.push(h);
            }
        }
        settled
    }

    /// Judge `d` as it reads with the redactions of `mask` in place: its neighbours masked.
    /// Returns false, judging nothing, when a redaction covers part of it: what the rule's
    /// regex finds in what is left depends on text at any distance, so the caller scrubs
    /// the result again instead. Candidates deferred again are left in `round.deferred`.
    fn rejudge(&self, text: &str, d: Deferred, mask: &Mask, round: &mut Scan) -> bool {
        if mask.cover_end(d.start).is_some() || mask.first_start_in(d.start, d.end).is_some() {
            return false;
        }
        let lo = floor_char(text, d.start.saturating_sub(CONTEXT_REACH + 4));
        let hi = ceil_char(text, d.end.saturating_add(AFTER_REACH + 4));
        let mut window = text.as_bytes()[lo..hi].to_vec();
        mask.paint(lo, &mut window);
        self.judge(d.rule, &window, lo, d.start - lo, d.end - lo, round);
        true
    }

    /// The allow list keeps `m`: it equals an entry, or it is an e-mail address at an entry's
    /// domain or a subdomain of it.
    fn allowed(&self, label: usize, m: &[u8]) -> bool {
        if self.allow.is_empty() {
            return false;
        }
        let domain = (Some(label) == self.email_label)
            .then(|| m.iter().rposition(|&b| b == b'@').map(|at| &m[at + 1..]))
            .flatten();
        self.allow.iter().any(|entry| {
            let entry = entry.as_bytes();
            m.eq_ignore_ascii_case(entry)
                || domain.is_some_and(|d| {
                    d.eq_ignore_ascii_case(entry)
                        || (d.len() > entry.len()
                            && d[d.len() - entry.len() - 1] == b'.'
                            && d[d.len() - entry.len()..].eq_ignore_ascii_case(entry))
                })
        })
    }
}

/// The largest char boundary of `text` at or below `i`.
fn floor_char(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest char boundary of `text` at or above `i` (at most its length).
fn ceil_char(text: &str, i: usize) -> usize {
    let mut i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// The redacted spans so far, merged: start → end.
#[derive(Default)]
struct Mask {
    spans: BTreeMap<usize, usize>,
}

impl Mask {
    fn insert(&mut self, mut start: usize, mut end: usize) {
        if let Some((&s, &e)) = self.spans.range(..=start).next_back()
            && e >= start
        {
            start = s;
            end = end.max(e);
        }
        let inside: Vec<usize> = self.spans.range(start..=end).map(|(&s, _)| s).collect();
        for s in inside {
            if let Some(e) = self.spans.remove(&s) {
                end = end.max(e);
            }
        }
        self.spans.insert(start, end);
    }

    /// The end of the span that covers `at`, if one does.
    fn cover_end(&self, at: usize) -> Option<usize> {
        self.spans
            .range(..=at)
            .next_back()
            .and_then(|(_, &e)| (e > at).then_some(e))
    }

    /// The start of the first span beginning inside `(start, end)`.
    fn first_start_in(&self, start: usize, end: usize) -> Option<usize> {
        self.spans.range(start + 1..end).next().map(|(&s, _)| s)
    }

    /// Overwrite the masked bytes of `window`, which starts at byte `base`.
    fn paint(&self, base: usize, window: &mut [u8]) {
        let end = base + window.len();
        let from = self
            .spans
            .range(..=base)
            .next_back()
            .map_or(base, |(&s, _)| s);
        for (&s, &e) in self.spans.range(from..end) {
            let a = s.max(base) - base;
            let b = e.min(end).saturating_sub(base);
            if a < b {
                window[a..b].fill(MASK);
            }
        }
    }
}

/// Sorted, non-overlapping spans: overlapping hits become their union, reported under the
/// label of the longest of them (ties: the lower label), so a card number inside an e-mail
/// address reports as `email` and an `sk-ant-` key as `anthropic_key`.
fn merge(mut hits: Vec<Hit>) -> Vec<Hit> {
    // Stable sort: hits come in sorted runs (rule by rule), which it merges in linear time.
    hits.sort_by_key(|h| (h.start, h.label));
    let mut merged: Vec<Hit> = Vec::with_capacity(hits.len());
    let mut best = (0, usize::MAX);
    for h in hits {
        let len = h.end - h.start;
        match merged.last_mut() {
            Some(cur) if h.start < cur.end => {
                cur.end = cur.end.max(h.end);
                if len > best.0 || (len == best.0 && h.label < best.1) {
                    best = (len, h.label);
                    cur.label = h.label;
                }
            }
            _ => {
                best = (len, h.label);
                merged.push(h);
            }
        }
    }
    merged
}

/// True when a span of `spans` overlaps a hit of `merged` (sorted, non-overlapping).
fn overlaps(spans: &[(usize, usize)], merged: &[Hit]) -> bool {
    spans.iter().any(|&(lo, hi)| {
        let i = merged.partition_point(|h| h.end <= lo);
        merged.get(i).is_some_and(|h| h.start < hi)
    })
}

/// Keeps marks intact: a hit inside a mark already written is dropped (scrubbing is
/// idempotent), a hit overlapping one is widened to swallow it (a value is never half
/// redacted).
fn protect(marks: &Regex, text: &str, hits: &mut Vec<Hit>) {
    if hits.is_empty() {
        return;
    }
    let spans: Vec<(usize, usize)> = marks
        .find_iter(text)
        .map(|m| (m.start(), m.end()))
        .collect();
    if spans.is_empty() {
        return;
    }
    hits.retain_mut(|h| {
        let first = spans.partition_point(|&(_, e)| e <= h.start);
        for &(ms, me) in &spans[first..] {
            if ms >= h.end {
                break;
            }
            if ms <= h.start && h.end <= me {
                return false;
            }
            h.start = h.start.min(ms);
            h.end = h.end.max(me);
        }
        true
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_merges_spans_and_answers_coverage() {
        let mut m = Mask::default();
        m.insert(10, 20);
        m.insert(30, 40);
        m.insert(18, 32);
        assert_eq!(m.spans.len(), 1);
        assert_eq!(m.cover_end(10), Some(40));
        assert_eq!(m.cover_end(39), Some(40));
        assert_eq!(m.cover_end(40), None);
        assert_eq!(m.cover_end(9), None);
        assert_eq!(m.first_start_in(5, 15), Some(10));
        assert_eq!(
            m.first_start_in(10, 15),
            None,
            "a span starting at the start is a cover"
        );
        let mut w = b"abcdefghij".to_vec();
        m.paint(5, &mut w);
        assert_eq!(&w, b"abcde#####");
    }

    #[test]
    fn merge_reports_the_longest_overlapping_span() {
        let hits = vec![
            Hit {
                start: 0,
                end: 16,
                label: 3,
            },
            Hit {
                start: 0,
                end: 24,
                label: 7,
            },
            Hit {
                start: 30,
                end: 35,
                label: 1,
            },
        ];
        let m = merge(hits);
        assert_eq!(m.len(), 2);
        assert_eq!((m[0].start, m[0].end, m[0].label), (0, 24, 7));
        assert_eq!((m[1].start, m[1].end, m[1].label), (30, 35, 1));
    }
}
