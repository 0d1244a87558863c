//! `pii-scrub`: redact personal data and credentials from tool output and model replies
//! before the model (or a later hook, or a log) sees them.
//!
//! A transform at two points:
//!
//! - **`post_tool_use`**: every string of `tool_response`, at any depth (object keys too, by
//!   default), the tool's `error`, and the `additional_context` earlier hooks added. Strings
//!   that hold JSON text are scrubbed as text, which keeps them valid JSON (marks hold no
//!   quote or backslash). `tool_input` is left as the model wrote it: the model already
//!   knows it, and audit records must show what ran.
//! - **`post_model_call`**: the `response` text.
//!
//! Each value found is replaced by a mark naming its category, `[REDACTED:email]` by default
//! ([`PiiScrubConfig::mark`]). Scrubbing is idempotent: marks are never redacted again, and
//! a value that only stands alone once its neighbour is redacted (`415 555 0100` glued to a
//! card number) is taken in the same scrub, so scrubbing the result again changes nothing.
//!
//! Object keys are scrubbed like values ([`scrub_keys`](PiiScrubConfig::scrub_keys), on by
//! default): tools return maps keyed by e-mail address or IP as often as lists of them. Two
//! keys that redact to the same mark keep both values, the later under `[REDACTED:email]#2`.
//!
//! It is not hooked at `model_stream_chunk`: a chunk boundary can fall inside a value
//! (`sk-ant-api03-…` split over two chunks, a private key over dozens), so scrubbing chunks
//! one by one misses what straddles them, and buffering would have to hold text back
//! across chunks with no end-of-stream signal at that point to flush it. The
//! [`Session`](hookrail_core::runtime::Session) joins the chunks and runs `post_model_call` on
//! the whole reply, which this policy scrubs; show that text, not the raw chunks, when
//! redaction matters.
//!
//! # What it finds
//!
//! | category | what | not redacted |
//! |---|---|---|
//! | `email` | `name@host.tld`, Unicode letters included (`jürgen@bücher.de`) | `git@github.com`-style service accounts; allow-listed domains; `@scope/pkg`, `pkg@1.2.3`, `user@localhost` |
//! | `phone` | `+` and 8–15 digits in groups (`+44 20 7946 0958`); North American `(415) 555-0100`, `415-555-0100`, `415.555.0100`, `+1 415 555 0100` | dates, versions, times, plain digit runs (`4155550100`, timestamps), pieces of longer dotted or dashed runs; national formats other than NANP |
//! | `credit_card` | 13–19 digits, optionally grouped by spaces or dashes, that pass Luhn and start like a card brand of that length | Luhn-failing numbers (order ids), numbers no brand issues, fractions of floats, digit runs inside words or hex |
//! | `ssn` | `AAA-GG-SSSS` / `AAA GG SSSS`, area 001–899 but not 666, group and serial not zero | plain 9-digit numbers, pieces of longer runs |
//! | `ipv4` | dotted quads with octets ≤ 255, no leading zeros | versions (`1.2.3.4.5`, `version 1.2.3.4`, `==1.2.3.4`, `1.2.3.4-rc1`, `v1.2.3.4`); private, loopback, link-local, CGNAT, `0.0.0.0` and broadcast unless [`redact_private_ips`](PiiScrubConfig::redact_private_ips) |
//! | `ipv6` | addresses `std::net::Ipv6Addr` parses, including `::ffff:1.2.3.4` | loopback, unspecified, link-local, unique-local (same switch); MACs, times, `a::b` paths, digit-less words |
//! | `aws_access_key` | `AKIA`/`ASIA`/`ABIA`/`ACCA` + 16 | |
//! | `aws_secret_key` | the 40-character value after `aws_secret_access_key`, `SecretAccessKey`… (`=` or `:`, quoted or not; `secret` spelled in lower, upper or capitalized case) | a 40-character string with no key name before it |
//! | `aws_session_token` | the value (≥ 100 characters) after `aws_session_token`, `aws_security_token`, `SessionToken` | |
//! | `github_token` | `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` + ≥ 36, `github_pat_` | |
//! | `openai_key` | `sk-…`, `sk-proj-…`, `sk-svcacct-…`, `sk-admin-…`: ≥ 20 characters mixing digits and both cases | `sk-` in words and kebab-case names |
//! | `anthropic_key` | `sk-ant-…` | |
//! | `slack_token` | `xoxb-`, `xoxp-`, `xoxa-`, `xoxr-`, `xoxs-`, `xoxe-`, `xoxo-`, `xapp-` with digits | |
//! | `slack_webhook` | `https://hooks.slack.com/services/…` (and `workflows/`, `triggers/`) | |
//! | `stripe_key` | `sk_live_`, `sk_test_`, `rk_live_`, `rk_test_` | publishable `pk_` keys |
//! | `google_api_key` | `AIza` + 35 | |
//! | `jwt` | three base64url segments whose first decodes to a JSON object (`eyJ…`) | other base64 |
//! | `private_key` | `-----BEGIN … PRIVATE KEY-----` through its `END` line (RSA, EC, DSA, OpenSSH, encrypted PKCS#8, PGP), or, cut off (`head id_rsa`, or no footer within 64 KiB), through the base64 and header lines that follow | public keys, certificates |
//!
//! When spans overlap (an e-mail address whose local part is a card number), their union is
//! redacted once, under the category of the longest span (of equal spans, the one listed
//! first above).
//! [`custom`](PiiScrubConfig::custom) patterns add categories of your own, ranked after
//! the built-in ones.
//!
//! It is pattern matching, not a classifier: it does not find names, postal addresses,
//! secrets with no recognisable shape or key name (a password in prose), values split by
//! escapes (`a\u0040b.com`) or encodings (base64 of an e-mail), phone numbers in national
//! formats other than North America's (`020 7946 0958`) or without area code (`555-0100`).
//! A Luhn-valid number with a card brand's prefix and length is redacted even when it is an
//! order id: nothing tells them apart. Add `custom` patterns for your own identifiers.
//!
//! # Throughput
//!
//! Each category is searched on its own (a candidate that fails its check never hides
//! another category's match at the same place), yet a text is read only a few times: one
//! literal search finds which token rules can match at all (`AKIA`, `ghp_`, `sk-`…); one
//! pass over the bytes, eight at a time, finds the runs of digits and of hex and colons
//! where cards, SSNs, phone numbers and IP addresses can lie, and those are read off the
//! runs' digit groups or matched inside them only; e-mail addresses are found from their
//! `@`. A short string (most JSON values) is first checked for the bytes each rule needs.
//! A text with nothing to redact comes back borrowed, with no allocation. About 250 MiB/s
//! on a 1 MiB mix of logs, JSON, code and prose dense with values, 280 MiB/s when it holds
//! none (`benches/pii_scrub.rs`, BENCHMARKS.md).
//!
//! # Reporting
//!
//! Each scrub that redacted something logs the counts per category (never the values) at
//! `debug` through `tracing`. [`report_to_model`](PiiScrubConfig::report_to_model) adds the
//! same summary to `post_tool_use`'s `additional_context`; it is off by default because the
//! marks already tell the model what was removed, and a note on every call costs tokens.
//! Without hooks, [`PiiScrub::scrub_str_report`] and [`PiiScrub::scrub_value_report`]
//! return a [`ScrubReport`].
//!
//! Suggested order: late (`100`), after guards and other rewriters and before audit, so that
//! what is recorded and shown is already scrubbed.
//!
//! # Example
//!
//! ```
//! use hookrail_builtin::pii_scrub::{PiiScrub, PiiScrubConfig};
//! use hookrail_core::context::{Meta, PostModelCall, PostToolUse, TokenUsage};
//! use hookrail_core::points::{post_model_call, post_tool_use};
//! use hookrail_core::runtime::Hooks;
//! use serde_json::json;
//!
//! let scrub = PiiScrub::new(PiiScrubConfig {
//!     allow: vec!["example.com".into()],
//!     ..PiiScrubConfig::default()
//! })?;
//! let hooks = Hooks::builder().ignore_env().provider_at(100, scrub).build()?;
//!
//! let mut post = PostToolUse::new(
//!     Meta::new("s1"),
//!     "Bash",
//!     json!({"command": "cat users.json"}),
//!     json!({"stdout": "alice@corp.io paid with 4111 1111 1111 1111; docs@example.com"}),
//!     3,
//! );
//! hooks.dispatch::<post_tool_use::Point>(&mut post);
//! assert_eq!(
//!     post.tool_response["stdout"],
//!     "[REDACTED:email] paid with [REDACTED:credit_card]; docs@example.com"
//! );
//!
//! let mut reply = PostModelCall::new(
//!     Meta::new("s1"),
//!     "model",
//!     "Use the key AKIAIOSFODNN7EXAMPLE.",
//!     TokenUsage::default(),
//!     10,
//! );
//! hooks.dispatch::<post_model_call::Point>(&mut reply);
//! assert_eq!(reply.response, "Use the key [REDACTED:aws_access_key].");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod checks;
mod engine;
mod json;
mod rules;
mod scan;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use hookrail_core::HookResult;
use hookrail_core::context::{PostModelCall, PostToolUse};
use hookrail_core::runtime::{HooksProvider, PointSet};
use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ConfigError;
use engine::{Engine, Label, Triggers};
use rules::{Check, Find, Rule};

/// The policy's name in config files and errors.
const POLICY: &str = "pii_scrub";

/// What a mark may start with.
const MARK_OPENERS: &str = "[({<*#";
/// What a mark may end with.
const MARK_CLOSERS: &str = "])}>*#";

/// The default mark: `[REDACTED:email]`.
pub const DEFAULT_MARK: &str = "[REDACTED:{category}]";

/// A built-in category of values to redact. Its name (`credit_card`) is what marks, reports
/// and config files use.
///
/// Variants are in priority order: when overlapping spans are equally long, their union is
/// reported under the earlier category (otherwise under the longest span's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Category {
    /// `-----BEGIN … PRIVATE KEY-----` blocks.
    PrivateKey,
    /// JSON web tokens.
    Jwt,
    /// AWS secret access keys after their key name.
    AwsSecretKey,
    /// AWS session tokens after their key name.
    AwsSessionToken,
    /// AWS access key ids (`AKIA…`, `ASIA…`).
    AwsAccessKey,
    /// Anthropic API keys (`sk-ant-…`).
    AnthropicKey,
    /// OpenAI API keys (`sk-…`, `sk-proj-…`).
    OpenaiKey,
    /// GitHub tokens (`ghp_…`, `github_pat_…`).
    GithubToken,
    /// Slack incoming-webhook URLs.
    SlackWebhook,
    /// Slack tokens (`xoxb-…`).
    SlackToken,
    /// Stripe secret and restricted keys (`sk_live_…`).
    StripeKey,
    /// Google API keys (`AIza…`).
    GoogleApiKey,
    /// Payment card numbers (Luhn-checked).
    CreditCard,
    /// US social security numbers.
    Ssn,
    /// E-mail addresses.
    Email,
    /// Phone numbers (international with `+`, North American).
    Phone,
    /// IPv6 addresses.
    Ipv6,
    /// IPv4 addresses.
    Ipv4,
}

impl Category {
    /// Every built-in category, in priority order.
    pub const ALL: [Category; 18] = [
        Category::PrivateKey,
        Category::Jwt,
        Category::AwsSecretKey,
        Category::AwsSessionToken,
        Category::AwsAccessKey,
        Category::AnthropicKey,
        Category::OpenaiKey,
        Category::GithubToken,
        Category::SlackWebhook,
        Category::SlackToken,
        Category::StripeKey,
        Category::GoogleApiKey,
        Category::CreditCard,
        Category::Ssn,
        Category::Email,
        Category::Phone,
        Category::Ipv6,
        Category::Ipv4,
    ];

    /// The category's name: `credit_card`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Category::PrivateKey => "private_key",
            Category::Jwt => "jwt",
            Category::AwsSecretKey => "aws_secret_key",
            Category::AwsSessionToken => "aws_session_token",
            Category::AwsAccessKey => "aws_access_key",
            Category::AnthropicKey => "anthropic_key",
            Category::OpenaiKey => "openai_key",
            Category::GithubToken => "github_token",
            Category::SlackWebhook => "slack_webhook",
            Category::SlackToken => "slack_token",
            Category::StripeKey => "stripe_key",
            Category::GoogleApiKey => "google_api_key",
            Category::CreditCard => "credit_card",
            Category::Ssn => "ssn",
            Category::Email => "email",
            Category::Phone => "phone",
            Category::Ipv6 => "ipv6",
            Category::Ipv4 => "ipv4",
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A pattern of your own: values it matches are redacted under `name`.
///
/// If the regex has a capture group named `value`, only that group is redacted, so a pattern
/// can name the context it needs: `(?i)password\s*[:=]\s*(?P<value>\S+)` keeps `password=`
/// and redacts what follows.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CustomPattern {
    /// The name in marks and reports: letters, digits, `_`, `-` and `.`.
    pub name: String,
    /// The pattern (`regex` crate syntax).
    pub regex: String,
}

impl CustomPattern {
    /// A pattern named `name`.
    pub fn new(name: impl Into<String>, regex: impl Into<String>) -> Self {
        CustomPattern {
            name: name.into(),
            regex: regex.into(),
        }
    }
}

/// Settings of [`PiiScrub`].
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct PiiScrubConfig {
    /// Built-in categories not to redact. Default: none (every category is on).
    pub disabled: Vec<Category>,
    /// Also redact addresses that do not identify anyone on the internet: loopback, private
    /// (RFC 1918, unique-local), link-local, carrier-grade NAT, unspecified, broadcast.
    /// Default: `false`, so `127.0.0.1:8080` and `10.0.0.5` in build and server logs stay
    /// readable.
    pub redact_private_ips: bool,
    /// Patterns of your own, compiled when the policy is built. Default: none.
    pub custom: Vec<CustomPattern>,
    /// Values never redacted, compared ASCII case-insensitively with the whole match; an entry
    /// without `@` also allows every e-mail address at that domain or its subdomains
    /// (`example.com` keeps `docs@example.com` and `a@mail.example.com`). Default: none.
    pub allow: Vec<String>,
    /// The mark that replaces a value; `{category}` becomes the category's (or custom
    /// pattern's) name. It must start with one of `[ ( { < * #` and end with one of
    /// `] ) } > * #`, so that it never reads as part of a word, number or address next to
    /// it, and hold no `"`, `\` or control character, so that marks keep JSON text valid.
    /// Default: `"[REDACTED:{category}]"`.
    pub mark: String,
    /// Redact object keys as well as values in `tool_response` (a key that is an e-mail
    /// address, say); keys that redact to the same text get `#2`, `#3`… suffixes. Default:
    /// `true`.
    pub scrub_keys: bool,
    /// Scrub at `post_tool_use`. Default: `true`.
    pub tool_output: bool,
    /// Scrub at `post_model_call`. Default: `true`.
    pub model_output: bool,
    /// Add a summary of what was redacted (`pii_scrub redacted 2 email, 1 credit_card from
    /// the Bash result`) to `post_tool_use`'s `additional_context`. Default: `false`.
    pub report_to_model: bool,
}

impl Default for PiiScrubConfig {
    fn default() -> Self {
        PiiScrubConfig {
            disabled: Vec::new(),
            redact_private_ips: false,
            custom: Vec::new(),
            allow: Vec::new(),
            mark: DEFAULT_MARK.to_owned(),
            scrub_keys: true,
            tool_output: true,
            model_output: true,
            report_to_model: false,
        }
    }
}

/// What one scrub redacted: the number of marks written per category (or custom pattern).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScrubReport {
    counts: BTreeMap<String, usize>,
}

impl ScrubReport {
    /// Marks written in all.
    pub fn total(&self) -> usize {
        self.counts.values().sum()
    }

    /// True when nothing was redacted.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Marks written for `category` (a [`Category::as_str`] or a custom pattern's name).
    pub fn get(&self, category: &str) -> usize {
        self.counts.get(category).copied().unwrap_or(0)
    }

    /// `(category, count)` pairs, by name, counts above zero only.
    pub fn iter(&self) -> impl Iterator<Item = (&str, usize)> {
        self.counts.iter().map(|(k, &v)| (k.as_str(), v))
    }

    fn add(&mut self, labels: &[Label], counts: &[usize]) {
        for (label, &n) in labels.iter().zip(counts) {
            if n > 0 {
                *self.counts.entry(label.name.clone()).or_default() += n;
            }
        }
    }
}

/// `2 email, 1 credit_card`, or `nothing`.
impl fmt::Display for ScrubReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.counts.is_empty() {
            return f.write_str("nothing");
        }
        for (i, (name, n)) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{n} {name}")?;
        }
        Ok(())
    }
}

/// The `pii-scrub` policy: see the [module docs](self).
///
/// Cheap to clone (the compiled patterns are shared).
#[derive(Clone)]
pub struct PiiScrub {
    config: PiiScrubConfig,
    engine: Engine,
}

impl fmt::Debug for PiiScrub {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PiiScrub")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Default for PiiScrub {
    fn default() -> Self {
        match PiiScrub::new(PiiScrubConfig::default()) {
            Ok(p) => p,
            Err(e) => unreachable!("the default pii_scrub settings are valid: {e}"),
        }
    }
}

impl PiiScrub {
    /// Check `config` and compile its patterns.
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] naming the field: a `custom[i].regex` that does not compile or
    /// matches the empty string, a `custom[i].name` with other characters than letters,
    /// digits, `_`, `-`, `.`, an empty `allow[i]`, or a `mark` that breaks the rules given
    /// at [`PiiScrubConfig::mark`].
    pub fn new(config: PiiScrubConfig) -> Result<Self, ConfigError> {
        check_mark(&config.mark)?;
        for (i, entry) in config.allow.iter().enumerate() {
            if entry.trim().is_empty() {
                return Err(ConfigError::new(
                    POLICY,
                    format!("allow[{i}]"),
                    "an empty entry would allow nothing; remove it",
                ));
            }
        }

        let mut labels = Vec::new();
        let mut rules = Vec::new();
        let mut email_label = None;
        for category in Category::ALL {
            if config.disabled.contains(&category) {
                continue;
            }
            let label = labels.len();
            labels.push(Label {
                name: category.as_str().to_owned(),
                mark: render(&config.mark, category.as_str()),
            });
            if category == Category::Email {
                email_label = Some(label);
            }
            for b in rules::builtin(category) {
                let regex = rules::compile_builtin(b.pattern).map_err(|e| {
                    ConfigError::new(POLICY, "disabled", format!("built-in `{category}`: {e}"))
                })?;
                rules.push(Rule {
                    label,
                    regex,
                    check: b.check,
                    needs: b.needs,
                    find: b.find,
                    bit: 0,
                });
            }
        }
        for (i, custom) in config.custom.iter().enumerate() {
            let (regex, group) = compile_custom(i, custom)?;
            // A custom name may repeat a built-in one: it then counts under that label.
            let label = match labels.iter().position(|l| l.name == custom.name) {
                Some(existing) => existing,
                None => {
                    labels.push(Label {
                        name: custom.name.clone(),
                        mark: render(&config.mark, &custom.name),
                    });
                    labels.len() - 1
                }
            };
            rules.push(Rule {
                label,
                regex,
                check: Check::Custom { group },
                needs: 0,
                find: Find::Everywhere,
                bit: 0,
            });
        }
        let triggers = triggers(&mut rules)?;

        // Built-in patterns cannot match the default marks (brackets, letters, `_`, `:`);
        // custom patterns and custom marks might.
        let marks = if config.custom.is_empty() && config.mark == DEFAULT_MARK {
            None
        } else {
            let mut rendered: Vec<&str> = labels.iter().map(|l| l.mark.as_str()).collect();
            rendered.sort_by_key(|m| std::cmp::Reverse(m.len()));
            rendered.dedup();
            let alternation = rendered
                .iter()
                .map(|m| regex::escape(m))
                .collect::<Vec<_>>()
                .join("|");
            Some(
                Regex::new(&alternation)
                    .map_err(|e| ConfigError::new(POLICY, "mark", e.to_string()))?,
            )
        };

        let engine = Engine {
            labels,
            rules,
            allow: config.allow.clone(),
            email_label,
            private_ips: config.redact_private_ips,
            verify: marks.is_some(),
            marks,
            triggers,
            footer: Regex::new("-----END").map_err(|e| {
                ConfigError::new(POLICY, "disabled", format!("built-in literal: {e}"))
            })?,
        };
        Ok(PiiScrub { config, engine })
    }

    /// The settings it was built from.
    pub fn config(&self) -> &PiiScrubConfig {
        &self.config
    }

    /// `text` with every value found replaced by its mark; borrowed (no allocation) when
    /// nothing was found.
    ///
    /// ```
    /// use hookrail_builtin::pii_scrub::PiiScrub;
    /// use std::borrow::Cow;
    ///
    /// let scrub = PiiScrub::default();
    /// assert_eq!(scrub.scrub_str("call +1 415 555 0100"), "call [REDACTED:phone]");
    /// assert!(matches!(scrub.scrub_str("build 2024-05-01 ok"), Cow::Borrowed(_)));
    /// ```
    pub fn scrub_str<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let mut counts = vec![0; self.engine.labels.len()];
        self.engine.scrub(text, &mut counts)
    }

    /// [`scrub_str`](Self::scrub_str), with what was redacted.
    pub fn scrub_str_report<'t>(&self, text: &'t str) -> (Cow<'t, str>, ScrubReport) {
        let mut counts = vec![0; self.engine.labels.len()];
        let out = self.engine.scrub(text, &mut counts);
        let mut report = ScrubReport::default();
        report.add(&self.engine.labels, &counts);
        (out, report)
    }

    /// Scrub every string in `value` in place (object keys too when
    /// [`scrub_keys`](PiiScrubConfig::scrub_keys)); returns the number of marks written.
    /// Numbers, booleans, nulls and the structure are left alone.
    ///
    /// ```
    /// use hookrail_builtin::pii_scrub::PiiScrub;
    /// use serde_json::json;
    ///
    /// let mut v = json!({"user": {"mail": "bob@corp.io", "age": 41}, "ips": ["8.8.8.8", "127.0.0.1"]});
    /// assert_eq!(PiiScrub::default().scrub_value(&mut v), 2);
    /// assert_eq!(
    ///     v,
    ///     json!({"user": {"mail": "[REDACTED:email]", "age": 41}, "ips": ["[REDACTED:ipv4]", "127.0.0.1"]})
    /// );
    /// ```
    pub fn scrub_value(&self, value: &mut Value) -> usize {
        let mut counts = vec![0; self.engine.labels.len()];
        json::walk(&self.engine, value, self.config.scrub_keys, &mut counts);
        counts.iter().sum()
    }

    /// [`scrub_value`](Self::scrub_value), with what was redacted.
    pub fn scrub_value_report(&self, value: &mut Value) -> ScrubReport {
        let mut counts = vec![0; self.engine.labels.len()];
        json::walk(&self.engine, value, self.config.scrub_keys, &mut counts);
        let mut report = ScrubReport::default();
        report.add(&self.engine.labels, &counts);
        report
    }
}

/// Give each token rule its bit and build the one search for their literals.
fn triggers(rules: &mut [Rule]) -> Result<Option<Triggers>, ConfigError> {
    let mut literals: Vec<(String, u64)> = Vec::new();
    let mut next = 0;
    for rule in rules.iter_mut() {
        let Find::Trigger(words) = rule.find else {
            continue;
        };
        rule.bit = 1 << next;
        next += 1;
        for &w in words {
            match literals.iter_mut().find(|(l, _)| l == w) {
                Some((_, bits)) => *bits |= rule.bit,
                None => literals.push((w.to_owned(), rule.bit)),
            }
        }
    }
    if literals.is_empty() {
        return Ok(None);
    }
    let mut sorted: Vec<&str> = literals.iter().map(|(l, _)| l.as_str()).collect();
    sorted.sort_by_key(|l| std::cmp::Reverse(l.len()));
    let alternation: Vec<String> = sorted.iter().map(|l| regex::escape(l)).collect();
    let regex = Regex::new(&alternation.join("|"))
        .map_err(|e| ConfigError::new(POLICY, "disabled", format!("built-in literals: {e}")))?;
    let all = literals.iter().fold(0, |acc, (_, b)| acc | b);
    Ok(Some(Triggers {
        regex,
        literals,
        all,
    }))
}

/// `mark` with `{category}` replaced by `name`.
fn render(mark: &str, name: &str) -> String {
    mark.replace("{category}", name)
}

fn check_mark(mark: &str) -> Result<(), ConfigError> {
    let bad = |why: &str| Err(ConfigError::new(POLICY, "mark", format!("`{mark}`: {why}")));
    let (Some(first), Some(last)) = (mark.chars().next(), mark.chars().last()) else {
        return bad("must not be empty");
    };
    if !MARK_OPENERS.contains(first) || !MARK_CLOSERS.contains(last) {
        return bad(&format!(
            "must start with one of `{MARK_OPENERS}` and end with one of `{MARK_CLOSERS}`, so that \
             it never reads as part of a word, number or address next to it"
        ));
    }
    if mark
        .chars()
        .any(|c| c == '"' || c == '\\' || c.is_control())
    {
        return bad("must not hold `\"`, `\\` or control characters");
    }
    if mark.len() > 200 {
        return bad("is longer than 200 bytes");
    }
    Ok(())
}

/// The regex of `custom[i]`, and the index of its `value` group if it has one.
fn compile_custom(i: usize, custom: &CustomPattern) -> Result<(Regex, Option<usize>), ConfigError> {
    let name_ok = !custom.name.is_empty()
        && custom
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !name_ok {
        return Err(ConfigError::new(
            POLICY,
            format!("custom[{i}].name"),
            format!(
                "`{}`: use letters, digits, `_`, `-` and `.` only (it appears in marks)",
                custom.name
            ),
        ));
    }
    let field = || format!("custom[{i}].regex");
    let regex = Regex::new(&custom.regex).map_err(|e| {
        ConfigError::new(
            POLICY,
            field(),
            format!("`{}` ({}): {e}", custom.regex, custom.name),
        )
    })?;
    if regex.is_match("") {
        return Err(ConfigError::new(
            POLICY,
            field(),
            format!(
                "`{}` ({}) matches the empty string, so it would redact nothing",
                custom.regex, custom.name
            ),
        ));
    }
    let group = regex.capture_names().position(|n| n == Some("value"));
    Ok((regex, group))
}

impl HooksProvider for PiiScrub {
    fn name(&self) -> &str {
        "builtin.pii_scrub"
    }

    /// The points of the methods below: the provider is not entered anywhere else.
    fn points(&self) -> PointSet {
        PointSet::POST_TOOL_USE | PointSet::POST_MODEL_CALL
    }

    fn post_tool_use(&self, ctx: &mut PostToolUse) -> HookResult<()> {
        if !self.config.tool_output {
            return Ok(());
        }
        let labels = &self.engine.labels;
        let mut counts = vec![0; labels.len()];
        json::walk(
            &self.engine,
            &mut ctx.tool_response,
            self.config.scrub_keys,
            &mut counts,
        );
        let texts = ctx
            .error
            .iter_mut()
            .chain(ctx.additional_context.iter_mut());
        for text in texts {
            if let Cow::Owned(new) = self.engine.scrub(text, &mut counts) {
                *text = new;
            }
        }
        if counts.iter().any(|&n| n > 0) {
            let mut report = ScrubReport::default();
            report.add(labels, &counts);
            tracing::debug!(
                policy = POLICY,
                point = "post_tool_use",
                tool = %ctx.tool_name,
                redacted = %report,
                "redacted tool output"
            );
            if self.config.report_to_model {
                let note = format!(
                    "pii_scrub redacted {report} from the {} result; the marks stand for values withheld on purpose",
                    ctx.tool_name
                );
                ctx.add_context(note);
            }
        }
        Ok(())
    }

    fn post_model_call(&self, ctx: &mut PostModelCall) -> HookResult<()> {
        if !self.config.model_output {
            return Ok(());
        }
        let mut counts = vec![0; self.engine.labels.len()];
        if let Cow::Owned(new) = self.engine.scrub(&ctx.response, &mut counts) {
            ctx.response = new;
            let mut report = ScrubReport::default();
            report.add(&self.engine.labels, &counts);
            tracing::debug!(
                policy = POLICY,
                point = "post_model_call",
                model = %ctx.model,
                redacted = %report,
                "redacted model response"
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
