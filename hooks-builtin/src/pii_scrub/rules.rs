//! The built-in detection rules: one regex per shape, each with the check a candidate must
//! pass ([`checks`](super::checks)).
//!
//! Every category has its own regexes, searched separately: a candidate that fails its check
//! (a Luhn-failing card) never hides a match of another category at the same place, which one
//! combined alternation would. Where each runs is its [`Find`]: token rules only when one
//! literal search over the text saw their prefix, digit and IP rules only inside the runs
//! of digits (or hex and colons) that can hold their shape, the rest over the whole text
//! with the `regex` crate's own prefilter. Word boundaries are ASCII (`(?-u:\b)`): the lazy
//! DFA gives up on Unicode boundaries when it meets non-ASCII text.

use regex::Regex;

use super::Category;

/// What a candidate must pass, and how much of it is redacted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Check {
    Email,
    PhoneIntl,
    PhoneUs,
    /// Windows of digit groups, Luhn and brand checked.
    Card,
    Ssn,
    Ipv4,
    Ipv6,
    /// A prefixed token, bounded by non-word bytes, whose part after `prefix` bytes has
    /// `shape`.
    Token {
        prefix: usize,
        shape: Shape,
    },
    Jwt,
    /// Capture group 1 after a key name, `min..=max` bytes long.
    Keyed {
        min: usize,
        max: usize,
    },
    /// A private-key header, redacted through its footer.
    PrivateKey,
    /// The whole match (webhook URLs).
    Whole,
    /// The named `value` group of a custom pattern, or the whole match without one.
    Custom {
        group: Option<usize>,
    },
}

/// What the random part of a token must hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    /// Anything the regex allows.
    Any,
    /// At least one digit.
    Digit,
    /// Digits, upper- and lower-case letters.
    Mixed,
}

/// Bits of [`features`]: a rule is only searched in a short text that has all its bits.
pub(super) mod feat {
    pub const DIGIT: u16 = 1;
    pub const AT: u16 = 1 << 1;
    pub const COLON: u16 = 1 << 2;
    pub const DASH: u16 = 1 << 3;
    pub const UNDERSCORE: u16 = 1 << 4;
    pub const DOT: u16 = 1 << 5;
    pub const SLASH: u16 = 1 << 6;
    pub const ASSIGN: u16 = 1 << 7; // `:` or `=`
    pub const UPPER_A: u16 = 1 << 8;
    pub const UPPER_J: u16 = 1 << 9;
    pub const PLUS: u16 = 1 << 10;
}

const fn feature_table() -> [u16; 256] {
    let mut t = [0u16; 256];
    let mut d = b'0';
    while d <= b'9' {
        t[d as usize] = feat::DIGIT;
        d += 1;
    }
    t[b'@' as usize] = feat::AT;
    t[b':' as usize] = feat::COLON | feat::ASSIGN;
    t[b'=' as usize] = feat::ASSIGN;
    t[b'-' as usize] = feat::DASH;
    t[b'_' as usize] = feat::UNDERSCORE;
    t[b'.' as usize] = feat::DOT;
    t[b'/' as usize] = feat::SLASH;
    t[b'A' as usize] = feat::UPPER_A;
    t[b'J' as usize] = feat::UPPER_J;
    t[b'+' as usize] = feat::PLUS;
    t
}

static FEATURES: [u16; 256] = feature_table();

/// The [`feat`] bits present in `text`: one table lookup per byte, so that a short string
/// (most JSON values) skips the regexes that cannot match it.
pub(super) fn features(text: &[u8]) -> u16 {
    text.iter().fold(0, |acc, &b| acc | FEATURES[b as usize])
}

/// Where a rule's regex is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Find {
    /// Over the whole text (its own prefilter makes that cheap: `@` for e-mail, the key
    /// names of keyed values; custom patterns).
    Everywhere,
    /// Over the whole text, only when one of these literals occurs in it (found for all
    /// token rules at once by one literal search). Keyed values trigger on the usual
    /// spellings of their key names (`secret`, `Secret`, `SECRET`): a key name in another
    /// mix of cases (`sEcReT_access_key`) is not looked for.
    Trigger(&'static [&'static str]),
    /// Only inside runs of digits and `( ) . + -` and spaces that can hold the shape (see
    /// [`scan`](super::scan)): a DFA over every byte of a digit-dense log costs more than all
    /// the rest. Cards, SSNs and IPv4 addresses are read off the runs' digit groups; this
    /// regex states what is found.
    Numeric,
    /// Only inside runs of hex digits, `:` and `.` around a `::` or a chain of six colons.
    Hex,
}

/// A built-in rule before compiling.
pub(super) struct Builtin {
    pub pattern: &'static str,
    pub check: Check,
    /// [`feat`] bits a short text must have for the rule to be searched.
    pub needs: u16,
    pub find: Find,
}

/// One compiled rule.
#[derive(Debug, Clone)]
pub(super) struct Rule {
    /// Index of the label (category or custom name) it reports; of equal overlapping spans
    /// the lower wins.
    pub label: usize,
    pub regex: Regex,
    pub check: Check,
    pub needs: u16,
    pub find: Find,
    /// The rule's bit among the token rules ([`Find::Trigger`]); 0 for the others.
    pub bit: u64,
}

fn rule(pattern: &'static str, check: Check, needs: u16, find: Find) -> Builtin {
    Builtin {
        pattern,
        check,
        needs,
        find,
    }
}

fn token(prefix: usize, shape: Shape) -> Check {
    Check::Token { prefix, shape }
}

/// The rules of a built-in category.
pub(super) fn builtin(category: Category) -> Vec<Builtin> {
    use Find::{Everywhere, Hex, Numeric, Trigger};
    use feat::*;
    match category {
        // The header; the check finds the footer (a lazy `.*?` up to it would make the
        // regex scan back over everything before each block to find where it starts).
        Category::PrivateKey => vec![rule(
            r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----",
            Check::PrivateKey,
            DASH,
            Trigger(&["-----BEGIN"]),
        )],
        Category::Jwt => vec![rule(
            r"eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*",
            Check::Jwt,
            DOT | UPPER_J,
            Trigger(&["eyJ"]),
        )],
        Category::AwsSecretKey => vec![rule(
            r#"(?i:aws_?secret_?access_?key|secret_?access_?key|aws_?secret_?key)["']?[ \t]*[:=][ \t]*["']?([A-Za-z0-9/+]{40})"#,
            Check::Keyed { min: 40, max: 40 },
            ASSIGN,
            Trigger(&["secret", "Secret", "SECRET"]),
        )],
        Category::AwsSessionToken => vec![rule(
            r#"(?i:aws_?session_?token|aws_?security_?token|sessiontoken)["']?[ \t]*[:=][ \t]*["']?([A-Za-z0-9/+=]{16,})"#,
            Check::Keyed {
                min: 100,
                max: usize::MAX,
            },
            ASSIGN,
            Trigger(&[
                "session", "Session", "SESSION", "security", "Security", "SECURITY",
            ]),
        )],
        Category::AwsAccessKey => vec![rule(
            r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
            token(4, Shape::Any),
            UPPER_A,
            Trigger(&["AKIA", "ASIA", "ABIA", "ACCA"]),
        )],
        Category::AnthropicKey => vec![rule(
            r"\bsk-ant-[A-Za-z0-9_-]{20,}",
            token(7, Shape::Mixed),
            DASH,
            Trigger(&["sk-ant-"]),
        )],
        Category::OpenaiKey => vec![rule(
            r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
            token(3, Shape::Mixed),
            DASH,
            Trigger(&["sk-"]),
        )],
        Category::GithubToken => vec![rule(
            r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b",
            token(0, Shape::Any),
            UNDERSCORE,
            Trigger(&["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"]),
        )],
        Category::SlackWebhook => vec![rule(
            r"\bhttps?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+",
            Check::Whole,
            SLASH | DOT | COLON,
            Trigger(&["https://hooks.slack.com", "http://hooks.slack.com"]),
        )],
        Category::SlackToken => vec![rule(
            r"\b(?:xox[abeoprs]|xapp)-[A-Za-z0-9-]{10,}",
            token(5, Shape::Digit),
            DASH | DIGIT,
            Trigger(&[
                "xoxa-", "xoxb-", "xoxe-", "xoxo-", "xoxp-", "xoxr-", "xoxs-", "xapp-",
            ]),
        )],
        Category::StripeKey => vec![rule(
            r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b",
            token(8, Shape::Any),
            UNDERSCORE,
            Trigger(&["sk_live_", "sk_test_", "rk_live_", "rk_test_"]),
        )],
        Category::GoogleApiKey => vec![rule(
            r"\bAIza[0-9A-Za-z_-]{35}",
            token(4, Shape::Any),
            UPPER_A,
            Trigger(&["AIza"]),
        )],
        Category::CreditCard => vec![rule(
            r"\b[0-9](?:[ -]?[0-9]){12,}\b",
            Check::Card,
            DIGIT,
            Numeric,
        )],
        Category::Ssn => vec![rule(
            r"\b[0-9]{3}-[0-9]{2}-[0-9]{4}\b|\b[0-9]{3} [0-9]{2} [0-9]{4}\b",
            Check::Ssn,
            DIGIT,
            Numeric,
        )],
        // Unicode letters too (`jürgen@bücher.de`); the end of the word is checked in code.
        Category::Email => vec![rule(
            r"[\p{L}\p{M}\p{N}_%+-][\p{L}\p{M}\p{N}._%+-]*@(?:[\p{L}\p{M}\p{N}-]+\.)+[\p{L}\p{M}]{2,}",
            Check::Email,
            AT | DOT,
            Everywhere,
        )],
        Category::Phone => vec![
            rule(
                r"\+[1-9][0-9]{0,2}(?:[ .-]?(?:\([0-9]{1,4}\)|[0-9]{1,5}))+",
                Check::PhoneIntl,
                DIGIT | PLUS,
                Numeric,
            ),
            rule(
                r"(?:\+?1[ .-]?)?(?:\([2-9][0-9]{2}\)[ .-]?|[2-9][0-9]{2}[ .-])[2-9][0-9]{2}[ .-][0-9]{4}",
                Check::PhoneUs,
                DIGIT,
                Numeric,
            ),
        ],
        Category::Ipv6 => vec![rule(
            r"[0-9A-Fa-f]*:[0-9A-Fa-f]*:[0-9A-Fa-f:]*(?:\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3})?",
            Check::Ipv6,
            COLON,
            Hex,
        )],
        Category::Ipv4 => vec![rule(
            r"\b[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\b",
            Check::Ipv4,
            DIGIT | DOT,
            Numeric,
        )],
    }
}

/// A built-in pattern with ASCII word boundaries.
pub(super) fn compile_builtin(pattern: &str) -> Result<Regex, regex::Error> {
    Regex::new(&pattern.replace(r"\b", r"(?-u:\b)"))
}
