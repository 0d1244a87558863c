#![cfg(feature = "pii-scrub")]
//! `pii-scrub`: true positives and look-alikes per category, JSON walking, idempotence,
//! configuration, properties, and dispatch through a real `Hooks` and `Session`.

use std::borrow::Cow;
use std::sync::{Arc, LazyLock, Mutex};

use hookrail_builtin::pii_scrub::{Category, CustomPattern, PiiScrub, PiiScrubConfig, ScrubReport};
use hookrail_core::context::{Meta, PostModelCall, PostToolUse, TokenUsage, ToolCall};
use hookrail_core::points::{post_model_call, post_tool_use};
use hookrail_core::runtime::{Hooks, ModelReply, Session, ToolRun};
use proptest::prelude::*;
use serde_json::{Value, json};

/// The default policy, compiled once: building one compiles every pattern.
fn default() -> &'static PiiScrub {
    static P: LazyLock<PiiScrub> = LazyLock::new(PiiScrub::default);
    &P
}

fn scrub(text: &str) -> String {
    default().scrub_str(text).into_owned()
}

fn with(config: PiiScrubConfig) -> PiiScrub {
    match PiiScrub::new(config) {
        Ok(p) => p,
        Err(e) => panic!("config refused: {e}"),
    }
}

/// Each `(input, expected)` pair scrubs to `expected`; a failure lists every mismatch.
fn table(cases: &[(&str, &str)]) {
    let p = default();
    let bad: Vec<String> = cases
        .iter()
        .filter_map(|&(input, want)| {
            let got = p.scrub_str(input);
            (got != want)
                .then(|| format!("\n  input: {input:?}\n   want: {want:?}\n    got: {got:?}"))
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{} case(s) wrong:{}",
        bad.len(),
        bad.concat()
    );
}

/// Each text comes back unchanged, and borrowed.
fn untouched(texts: &[&str]) {
    let p = default();
    let bad: Vec<String> = texts
        .iter()
        .filter_map(|&t| match p.scrub_str(t) {
            Cow::Borrowed(_) => None,
            Cow::Owned(o) => Some(format!("\n  {t:?}\n  -> {o:?}")),
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{} look-alike(s) redacted:{}",
        bad.len(),
        bad.concat()
    );
}

// ---------------------------------------------------------------------------------------------
// E-mail

#[test]
fn email_addresses_are_redacted_in_prose_code_and_markup() {
    table(&[
        ("mail alice@corp.io now", "mail [REDACTED:email] now"),
        (
            "Alice.Smith+news@sub.mail.example.co.uk.",
            "[REDACTED:email].",
        ),
        ("<bob_99@corp.io>", "<[REDACTED:email]>"),
        (
            "mailto:carol-x@corp.io?subject=hi",
            "mailto:[REDACTED:email]?subject=hi",
        ),
        (
            "\"user\":\"dave%ops@corp.io\"",
            "\"user\":\"[REDACTED:email]\"",
        ),
        ("a@b.io,c@d.io", "[REDACTED:email],[REDACTED:email]"),
        (
            "Author: Eve <eve@corp.io>",
            "Author: Eve <[REDACTED:email]>",
        ),
        ("(frank@corp.io)", "([REDACTED:email])"),
        ("ssh admin@host.corp.io", "ssh [REDACTED:email]"),
        ("UPPER@CORP.IO", "[REDACTED:email]"),
    ]);
}

#[test]
fn email_look_alikes_are_left_alone() {
    untouched(&[
        "@decorator def f(): pass",
        "npm i @babel/core@7.24.0",
        "image@sha256:abcdef0123",
        "user@localhost",
        "git@github.com:owner/repo.git",
        "git clone git@gitlab.com:group/project.git",
        "lodash@4.17.21",
        "a @ b.com",
        "x@y",
        "me@host.c",
    ]);
}

// ---------------------------------------------------------------------------------------------
// Phone

#[test]
fn phone_numbers_in_international_and_us_formats_are_redacted() {
    table(&[
        ("call +44 20 7946 0958 today", "call [REDACTED:phone] today"),
        ("+1 (415) 555-0100", "[REDACTED:phone]"),
        ("+14155550100", "[REDACTED:phone]"),
        ("+49 30 12345678", "[REDACTED:phone]"),
        ("+33 1 23 45 67 89.", "[REDACTED:phone]."),
        ("tel: +81-3-1234-5678", "tel: [REDACTED:phone]"),
        ("(415) 555-0100", "[REDACTED:phone]"),
        ("415-555-0100", "[REDACTED:phone]"),
        ("415.555.0100", "[REDACTED:phone]"),
        ("415 555 0100", "[REDACTED:phone]"),
        ("1-800-555-0199", "[REDACTED:phone]"),
        ("phone=212-555-0147;", "phone=[REDACTED:phone];"),
    ]);
}

#[test]
fn dates_versions_times_and_plain_integers_are_not_phone_numbers() {
    untouched(&[
        "2024-01-15",
        "2024-01-15 10:30:00",
        "2024-01-15T10:30:00+05:30",
        "12:30:45.123",
        "v1.2.3",
        "1.22.333",
        "4155550100",
        "1700000000",
        "1700000000123",
        "count 12345678",
        "+5 points",
        "1 + 100",
        "+1.5",
        "555-0100",
        "100-200-3000",
        "2024-415-555-0100",
        "415-555-0100-2",
        "ports 8080 8443 9090",
    ]);
}

// ---------------------------------------------------------------------------------------------
// Cards

#[test]
fn luhn_valid_card_numbers_of_every_brand_are_redacted() {
    table(&[
        ("visa 4111111111111111", "visa [REDACTED:credit_card]"),
        ("4111 1111 1111 1111", "[REDACTED:credit_card]"),
        ("4111-1111-1111-1111", "[REDACTED:credit_card]"),
        ("mc 5555555555554444.", "mc [REDACTED:credit_card]."),
        ("mc2 2223003122003222", "mc2 [REDACTED:credit_card]"),
        ("amex 3782 822463 10005", "amex [REDACTED:credit_card]"),
        (
            "discover 6011111111111117",
            "discover [REDACTED:credit_card]",
        ),
        ("jcb 3530111333300000", "jcb [REDACTED:credit_card]"),
        ("diners 30569309025904", "diners [REDACTED:credit_card]"),
        (
            "unionpay 6200000000000005",
            "unionpay [REDACTED:credit_card]",
        ),
        ("visa13 4222222222222", "visa13 [REDACTED:credit_card]"),
        (
            "\"card\":\"4012888888881881\"",
            "\"card\":\"[REDACTED:credit_card]\"",
        ),
        // A card next to more digit groups: the card's groups are still found.
        ("4111 1111 1111 1111 2024", "[REDACTED:credit_card] 2024"),
        (
            "version 1.2.3.4 4111 1111 1111 1111",
            "version 1.2.3.4 [REDACTED:credit_card]",
        ),
        (
            "took 3.5 4111111111111111",
            "took 3.5 [REDACTED:credit_card]",
        ),
    ]);
}

#[test]
fn order_ids_and_other_digit_runs_are_not_cards() {
    untouched(&[
        // Luhn fails.
        "order 4111111111111112",
        "order 5555555555554445",
        "4111 1111 1111 1112",
        // Luhn passes, but no brand issues numbers starting with 1, 7, 8, 9 or 0.
        "order 1234567812345670",
        "id 7992739871300000",
        // Too short, too long.
        "411111111111",
        "41111111111111111111",
        // Timestamps in ms and ns.
        "1700000000000",
        "1700000000000000000",
        // Floats.
        "0.4111111111111111",
        "score=0.5555555555554444",
        "1.4111111111111111e-05",
        // Inside words and hex.
        "id4111111111111111",
        "sha 4111111111111111abc",
        "deadbeef4111111111111111",
    ]);
}

// ---------------------------------------------------------------------------------------------
// SSN

#[test]
fn ssns_in_issued_ranges_are_redacted() {
    table(&[
        ("ssn 078-05-1120", "ssn [REDACTED:ssn]"),
        ("SSN: 123-45-6789.", "SSN: [REDACTED:ssn]."),
        ("899 99 9999", "[REDACTED:ssn]"),
        ("\"ssn\":\"219-09-9999\"", "\"ssn\":\"[REDACTED:ssn]\""),
    ]);
}

#[test]
fn ssns_outside_issued_ranges_and_look_alikes_are_left_alone() {
    untouched(&[
        "000-12-3456",
        "666-12-3456",
        "900-12-3456",
        "123-00-4567",
        "123-45-0000",
        "123456789",
        "2024-123-45-6789",
        "123-45-6789-1",
        "12-345-6789",
    ]);
}

// ---------------------------------------------------------------------------------------------
// IP addresses

#[test]
fn public_ip_addresses_are_redacted() {
    table(&[
        ("from 8.8.8.8 port 53", "from [REDACTED:ipv4] port 53"),
        ("1.2.3.4:8080", "[REDACTED:ipv4]:8080"),
        ("net 203.0.113.0/24", "net [REDACTED:ipv4]/24"),
        ("ip=52.94.76.1,", "ip=[REDACTED:ipv4],"),
        ("10.0.0.1-8.8.4.4", "10.0.0.1-[REDACTED:ipv4]"),
        ("ssh user@1.2.3.4", "ssh user@[REDACTED:ipv4]"),
        ("v6 2001:db8::1 here", "v6 [REDACTED:ipv6] here"),
        ("[2606:4700:4700::1111]:443", "[[REDACTED:ipv6]]:443"),
        ("2001:0db8:85a3:0000:0000:8a2e:0370:7334", "[REDACTED:ipv6]"),
        ("mapped ::ffff:8.8.8.8", "mapped [REDACTED:ipv6]"),
        ("addr 2a00:1450:4001:81b::200e:", "addr [REDACTED:ipv6]:"),
    ]);
}

#[test]
fn private_addresses_versions_and_ip_look_alikes_are_left_alone_by_default() {
    untouched(&[
        "127.0.0.1:3000",
        "listening on 0.0.0.0:8080",
        "10.1.2.3",
        "192.168.1.10",
        "172.16.5.4",
        "169.254.169.254",
        "100.64.0.1",
        "255.255.255.255",
        "::1",
        "fe80::1ff:fe23:4567:890a",
        "fd12:3456:789a::1",
        "::",
        // Versions and dotted numbers.
        "version 1.2.3.4",
        "Version: 1.2.3.4",
        "requests==2.31.0.1",
        "v1.2.3.4",
        "1.2.3.4-beta",
        "1.2.3.4.5",
        "OID 1.3.6.1.4.1.311",
        "999.1.1.1",
        "01.02.03.04",
        "1.2.3",
        // IPv6 look-alikes.
        "std::io::Result",
        "Vec::<u8>::new()",
        "10:30:45",
        "00:1a:2b:3c:4d:5e",
        "dead::beef",
        "a::b::c",
    ]);
}

#[test]
fn private_addresses_are_redacted_when_configured() {
    let p = with(PiiScrubConfig {
        redact_private_ips: true,
        ..PiiScrubConfig::default()
    });
    assert_eq!(
        p.scrub_str("127.0.0.1 and 10.0.0.1"),
        "[REDACTED:ipv4] and [REDACTED:ipv4]"
    );
    assert_eq!(
        p.scrub_str("::1 fe80::1"),
        "[REDACTED:ipv6] [REDACTED:ipv6]"
    );
    // Versions stay versions.
    assert_eq!(p.scrub_str("version 10.0.0.1"), "version 10.0.0.1");
}

#[test]
fn ip_categories_can_be_switched_off() {
    let p = with(PiiScrubConfig {
        disabled: vec![Category::Ipv4, Category::Ipv6],
        ..PiiScrubConfig::default()
    });
    assert_eq!(
        p.scrub_str("8.8.8.8 2001:db8::1 a@b.io"),
        "8.8.8.8 2001:db8::1 [REDACTED:email]"
    );
}

// ---------------------------------------------------------------------------------------------
// Secrets and tokens

const GHP: &str = "ghp_16C7e42F292c6912E7710c838347Ae178B4a";
const JWT: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

#[test]
fn aws_access_key_ids_and_keyed_secrets_are_redacted() {
    table(&[
        ("key AKIAIOSFODNN7EXAMPLE", "key [REDACTED:aws_access_key]"),
        ("ASIAY34FZKBOKMUTVV7A,", "[REDACTED:aws_access_key],"),
        (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "aws_secret_access_key = [REDACTED:aws_secret_key]",
        ),
        (
            "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
            "AWS_SECRET_ACCESS_KEY=[REDACTED:aws_secret_key]\n",
        ),
        (
            "\"SecretAccessKey\": \"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\"",
            "\"SecretAccessKey\": \"[REDACTED:aws_secret_key]\"",
        ),
        (
            "aws_secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'",
            "aws_secret_access_key: '[REDACTED:aws_secret_key]'",
        ),
    ]);
    let token = "FwoGZXIvYXdzEBYaDH".repeat(8);
    assert_eq!(
        scrub(&format!("aws_session_token={token}")),
        "aws_session_token=[REDACTED:aws_session_token]"
    );
}

#[test]
fn aws_look_alikes_are_left_alone() {
    untouched(&[
        "AKIA1234",
        "AKIAIOSFODNN7EXAMPLEX",
        "XAKIAIOSFODNN7EXAMPLE",
        // 40 characters without their key name.
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        // A key name with a value of the wrong length.
        "aws_secret_access_key = short",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEYTOOLONG",
        "aws_session_token=short",
    ]);
}

#[test]
fn github_openai_anthropic_slack_stripe_and_google_keys_are_redacted() {
    let pat = format!("github_pat_11ABCDEFG0{}", "aB3_".repeat(15));
    let cases = [
        (format!("token {GHP}"), "token [REDACTED:github_token]".to_owned()),
        (format!("gho_{}", &GHP[4..]), "[REDACTED:github_token]".to_owned()),
        (format!("ghs_{}", &GHP[4..]), "[REDACTED:github_token]".to_owned()),
        (format!("x={pat};"), "x=[REDACTED:github_token];".to_owned()),
        (
            "OPENAI_API_KEY=sk-abcdefghij1234567890ABCDEFGHIJ1234567890abcdefgh".to_owned(),
            "OPENAI_API_KEY=[REDACTED:openai_key]".to_owned(),
        ),
        (
            "sk-proj-Ab3dE_fGh1-jKlMnOp2qRsTuVwXyZ0123456789".to_owned(),
            "[REDACTED:openai_key]".to_owned(),
        ),
        (
            "key: sk-ant-api03-AbCdEf123456_GhIjKl-789012MnOpQr".to_owned(),
            "key: [REDACTED:anthropic_key]".to_owned(),
        ),
        (
            "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy".to_owned(),
            "[REDACTED:slack_token]".to_owned(),
        ),
        (
            "xoxp-1234-5678-9012-abcdef0123456789abcdef0123456789".to_owned(),
            "[REDACTED:slack_token]".to_owned(),
        ),
        (
            "post to https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX now"
                .to_owned(),
            "post to [REDACTED:slack_webhook] now".to_owned(),
        ),
        (
            "stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc".to_owned(),
            "stripe [REDACTED:stripe_key]".to_owned(),
        ),
        (
            "AIzaSyA-1234567890abcdefghijklmnopqrstu".to_owned(),
            "[REDACTED:google_api_key]".to_owned(),
        ),
    ];
    let p = default();
    for (input, want) in cases {
        assert_eq!(p.scrub_str(&input), want, "{input}");
    }
}

#[test]
fn sk_in_ordinary_words_and_short_prefixes_are_not_keys() {
    untouched(&[
        "task-force risk-management desk-lamp",
        "sk-learn",
        "sk-this-is-a-very-long-kebab-case-identifier",
        "pip install sk-video-processing-toolkit-extra",
        "ghp_short",
        "gh_16C7e42F292c6912E7710c838347Ae178B4a",
        "xoxb-not-a-real-token",
        "pk_live_4eC39HqLyjWDarjtT1zdp7dc",
        "https://hooks.slack.com/",
        "https://api.slack.com/services/T000/B000/XXX",
    ]);
}

#[test]
fn jwts_are_redacted_and_other_base64_is_not() {
    table(&[
        (
            &format!("Authorization: Bearer {JWT}"),
            "Authorization: Bearer [REDACTED:jwt]",
        ),
        (&format!("token={JWT}&x=1"), "token=[REDACTED:jwt]&x=1"),
        // alg none: empty signature.
        ("eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.", "[REDACTED:jwt]"),
    ]);
    untouched(&[
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
        "SGVsbG8gd29ybGQ=",
        "dGhpcyBpcyBub3QgYSBqd3Q.aGVsbG8.d29ybGQ",
        "eyJub3QganNvbg.eyJzdWIiOiIxIn0.sig",
        "file.eyJ.ext",
    ]);
}

#[test]
fn private_key_blocks_are_redacted_whole_and_public_blocks_are_not() {
    let block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq\nQ2x0b3Vk+/=\n-----END RSA PRIVATE KEY-----";
    assert_eq!(
        scrub(&format!("key:\n{block}\ndone")),
        "key:\n[REDACTED:private_key]\ndone"
    );
    for kind in ["", "EC ", "OPENSSH ", "ENCRYPTED ", "DSA "] {
        let b = format!("-----BEGIN {kind}PRIVATE KEY-----\nAAAA\n-----END {kind}PRIVATE KEY-----");
        assert_eq!(scrub(&b), "[REDACTED:private_key]", "{kind}");
    }
    let pgp =
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----";
    assert_eq!(scrub(pgp), "[REDACTED:private_key]");
    // Escaped inside JSON text.
    let escaped = r#"{"key":"-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n"}"#;
    assert_eq!(scrub(escaped), r#"{"key":"[REDACTED:private_key]\n"}"#);
    untouched(&[
        "-----BEGIN PUBLIC KEY-----\nMIIBIjAN\n-----END PUBLIC KEY-----",
        "-----BEGIN CERTIFICATE-----\nMIIDdz\n-----END CERTIFICATE-----",
    ]);
}

#[test]
fn a_private_key_cut_short_is_redacted_to_where_its_lines_end() {
    let cut = "$ head -3 id_rsa\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQyNTUxOQAAACB";
    assert_eq!(scrub(cut), "$ head -3 id_rsa\n[REDACTED:private_key]");
    let in_json = r#"{"out":"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\nIB","code":1}"#;
    let got = scrub(in_json);
    assert_eq!(got, r#"{"out":"[REDACTED:private_key]","code":1}"#);
}

// ---------------------------------------------------------------------------------------------
// UUIDs, hashes, mixed documents

#[test]
fn uuids_git_shas_and_hashes_are_left_alone() {
    untouched(&[
        "550e8400-e29b-41d4-a716-446655440000",
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
        "md5 d41d8cd98f00b204e9800998ecf8427e",
        "trace_id=4bf92f3577b34da6a3ce929d0e0e4736",
        "build #4711 took 12.5s at 2024-06-01T12:00:00Z",
        "let x: u64 = 18446744073709551615;",
    ]);
}

#[test]
fn overlapping_matches_are_redacted_as_one_span_under_the_first_category() {
    // A card number as an e-mail's local part: the whole address goes, once.
    assert_eq!(scrub("4111111111111111@corp.io"), "[REDACTED:email]");
    // An Anthropic key is also shaped like an OpenAI one: it reports as anthropic.
    let (out, report) = default().scrub_str_report("sk-ant-api03-AbCdEf123456_GhIjKl-789012MnOpQr");
    assert_eq!(out, "[REDACTED:anthropic_key]");
    assert_eq!(report.get("anthropic_key"), 1);
    assert_eq!(report.get("openai_key"), 0);
}

#[test]
fn a_mixed_log_line_loses_every_value_and_keeps_everything_else() {
    let line = format!(
        "2024-06-01T12:00:00Z INFO user=alice@corp.io ip=8.8.4.4 local=127.0.0.1 card=4111-1111-1111-1111 \
         order=4111111111111112 ssn=078-05-1120 tel=+44 20 7946 0958 token={GHP} version 1.2.3.4 took 1.234s"
    );
    assert_eq!(
        scrub(&line),
        "2024-06-01T12:00:00Z INFO user=[REDACTED:email] ip=[REDACTED:ipv4] local=127.0.0.1 \
         card=[REDACTED:credit_card] order=4111111111111112 ssn=[REDACTED:ssn] tel=[REDACTED:phone] \
         token=[REDACTED:github_token] version 1.2.3.4 took 1.234s"
    );
}

#[test]
fn non_ascii_text_around_values_is_kept_intact() {
    assert_eq!(
        scrub("Grüße an jürgen@firma.de — Tel. +49 30 12345678 ✓"),
        "Grüße an [REDACTED:email] — Tel. [REDACTED:phone] ✓"
    );
    assert_eq!(
        scrub("日本 alice@corp.io 日本"),
        "日本 [REDACTED:email] 日本"
    );
    assert_eq!(scrub("mail: info@bücher.de."), "mail: [REDACTED:email].");
}

// ---------------------------------------------------------------------------------------------
// Borrowing, idempotence, marks

#[test]
fn clean_text_is_returned_borrowed() {
    let p = default();
    let text = "fn main() { println!(\"hello 2024-01-01 v1.2.3\"); }";
    assert!(matches!(p.scrub_str(text), Cow::Borrowed(t) if std::ptr::eq(t, text)));
    assert!(matches!(p.scrub_str(""), Cow::Borrowed("")));
}

#[test]
fn scrubbing_twice_gives_the_same_text_and_marks_are_not_redacted_again() {
    let p = default();
    let text = format!(
        "a@b.io 4111111111111111 078-05-1120 8.8.8.8 2001:db8::1 +1 415 555 0100 {GHP} {JWT} \
         AKIAIOSFODNN7EXAMPLE [REDACTED:email] [REDACTED:credit_card]"
    );
    let once = p.scrub_str(&text).into_owned();
    let twice = p.scrub_str(&once);
    assert_eq!(twice, once);
    assert!(matches!(twice, Cow::Borrowed(_)));
    assert!(once.contains("[REDACTED:email] [REDACTED:credit_card]"));
}

#[test]
fn custom_marks_are_used_and_not_redacted_again() {
    let p = with(PiiScrubConfig {
        mark: "<{category}@redacted.invalid>".into(),
        ..PiiScrubConfig::default()
    });
    let once = p.scrub_str("mail bob@corp.io").into_owned();
    assert_eq!(once, "mail <email@redacted.invalid>");
    assert_eq!(p.scrub_str(&once), once);
    let plain = with(PiiScrubConfig {
        mark: "***".into(),
        ..PiiScrubConfig::default()
    });
    assert_eq!(plain.scrub_str("8.8.8.8 and a@b.io"), "*** and ***");
}

#[test]
fn marks_that_could_break_json_or_join_their_neighbours_are_refused() {
    for (mark, needle) in [
        ("", "empty"),
        ("REDACTED", "must start with one of"),
        ("[x]y", "must start with one of"),
        ("-{category}-", "must start with one of"),
        ("[\"{category}\"]", "must not hold"),
        ("[\\{category}]", "must not hold"),
        ("[\n]", "must not hold"),
    ] {
        let err = PiiScrub::new(PiiScrubConfig {
            mark: mark.into(),
            ..PiiScrubConfig::default()
        })
        .expect_err(mark);
        assert_eq!(err.field, "mark");
        assert!(err.to_string().contains(needle), "{mark:?}: {err}");
    }
}

// ---------------------------------------------------------------------------------------------
// Configuration: categories, custom patterns, allow list

#[test]
fn disabled_categories_are_not_redacted() {
    let p = with(PiiScrubConfig {
        disabled: vec![Category::Email, Category::Phone],
        ..PiiScrubConfig::default()
    });
    assert_eq!(
        p.scrub_str("a@b.io +44 20 7946 0958 4111111111111111"),
        "a@b.io +44 20 7946 0958 [REDACTED:credit_card]"
    );
}

#[test]
fn custom_patterns_redact_under_their_name_and_a_value_group_keeps_its_context() {
    let p = with(PiiScrubConfig {
        custom: vec![
            CustomPattern::new("employee_id", r"\bEMP-[0-9]{6}\b"),
            CustomPattern::new("password", r"(?i)password\s*[:=]\s*(?P<value>\S+)"),
        ],
        ..PiiScrubConfig::default()
    });
    let (out, report) =
        p.scrub_str_report("EMP-123456 logged in with password=hunter2 from a@b.io");
    assert_eq!(
        out,
        "[REDACTED:employee_id] logged in with password=[REDACTED:password] from [REDACTED:email]"
    );
    assert_eq!(report.get("employee_id"), 1);
    assert_eq!(report.get("password"), 1);
    assert_eq!(report.total(), 3);
    assert_eq!(p.scrub_str(&out), out, "custom scrubbing is idempotent");
}

#[test]
fn a_custom_pattern_that_matches_marks_does_not_redact_them_again() {
    let p = with(PiiScrubConfig {
        custom: vec![CustomPattern::new("shout", r"[A-Z]{5,}")],
        ..PiiScrubConfig::default()
    });
    let once = p.scrub_str("HELLO a@b.io").into_owned();
    assert_eq!(once, "[REDACTED:shout] [REDACTED:email]");
    assert_eq!(p.scrub_str(&once), once);
}

#[test]
fn a_bad_custom_regex_is_a_config_error_naming_the_entry() {
    let err = PiiScrub::new(PiiScrubConfig {
        custom: vec![
            CustomPattern::new("ok", "abc"),
            CustomPattern::new("broken", "(unclosed"),
        ],
        ..PiiScrubConfig::default()
    })
    .expect_err("unclosed group");
    assert_eq!(err.policy, "pii_scrub");
    assert_eq!(err.field, "custom[1].regex");
    assert!(err.message.contains("broken"), "{err}");

    let err = PiiScrub::new(PiiScrubConfig {
        custom: vec![CustomPattern::new("empty", "x*")],
        ..PiiScrubConfig::default()
    })
    .expect_err("matches empty");
    assert_eq!(err.field, "custom[0].regex");
    assert!(err.message.contains("empty string"), "{err}");

    let err = PiiScrub::new(PiiScrubConfig {
        custom: vec![CustomPattern::new("has space", "x")],
        ..PiiScrubConfig::default()
    })
    .expect_err("bad name");
    assert_eq!(err.field, "custom[0].name");
}

#[test]
fn allow_list_keeps_literal_values_and_email_domains() {
    let p = with(PiiScrubConfig {
        allow: vec![
            "example.com".into(),
            "8.8.8.8".into(),
            "Support@Corp.io".into(),
        ],
        ..PiiScrubConfig::default()
    });
    assert_eq!(
        p.scrub_str("docs@example.com a@mail.example.com b@notexample.com 8.8.8.8 8.8.4.4 support@corp.io x@corp.io"),
        "docs@example.com a@mail.example.com [REDACTED:email] 8.8.8.8 [REDACTED:ipv4] support@corp.io [REDACTED:email]"
    );
    let err = PiiScrub::new(PiiScrubConfig {
        allow: vec!["ok".into(), " ".into()],
        ..PiiScrubConfig::default()
    })
    .expect_err("empty entry");
    assert_eq!(err.field, "allow[1]");
}

#[test]
fn config_deserializes_from_snake_case_and_refuses_unknown_fields() {
    let cfg: PiiScrubConfig = serde_json::from_value(json!({
        "disabled": ["ipv4", "credit_card", "aws_secret_key"],
        "allow": ["example.com"],
        "custom": [{"name": "ticket", "regex": "TICKET-[0-9]+"}],
        "mark": "<{category}>",
        "report_to_model": true
    }))
    .expect("valid config");
    assert_eq!(
        cfg.disabled,
        [Category::Ipv4, Category::CreditCard, Category::AwsSecretKey]
    );
    assert!(
        cfg.scrub_keys && cfg.tool_output && cfg.model_output,
        "defaults kept"
    );
    assert!(serde_json::from_value::<PiiScrubConfig>(json!({"disabeld": []})).is_err());
    assert!(serde_json::from_value::<PiiScrubConfig>(json!({"disabled": ["names"]})).is_err());
    // Every category's serde name is its `as_str`.
    for c in Category::ALL {
        assert_eq!(
            serde_json::to_value(c).expect("serializes"),
            json!(c.as_str())
        );
    }
    assert_eq!(PiiScrubConfig::default().mark, "[REDACTED:{category}]");
}

// ---------------------------------------------------------------------------------------------
// JSON

#[test]
fn every_string_in_nested_json_is_scrubbed_and_other_values_are_untouched() {
    let mut v = json!({
        "users": [
            {"email": "a@corp.io", "age": 31, "active": true, "phone": null},
            {"email": "b@corp.io", "tags": ["x", "+44 20 7946 0958", ["deep 8.8.8.8"]]}
        ],
        "count": 4111111111111111u64,
        "ratio": 0.5,
        "note": "nothing here"
    });
    let n = default().scrub_value(&mut v);
    assert_eq!(n, 4);
    assert_eq!(
        v,
        json!({
            "users": [
                {"email": "[REDACTED:email]", "age": 31, "active": true, "phone": null},
                {"email": "[REDACTED:email]", "tags": ["x", "[REDACTED:phone]", ["deep [REDACTED:ipv4]"]]}
            ],
            "count": 4111111111111111u64,
            "ratio": 0.5,
            "note": "nothing here"
        })
    );
}

#[test]
fn object_keys_are_scrubbed_and_colliding_keys_keep_both_values() {
    let mut v = json!({
        "a@corp.io": {"role": "admin"},
        "b@corp.io": {"role": "dev"},
        "[REDACTED:email]": "already there",
        "plain": 1
    });
    let report = default().scrub_value_report(&mut v);
    assert_eq!(report.get("email"), 2);
    let obj = v.as_object().expect("object");
    assert_eq!(obj.len(), 4, "no value lost: {v}");
    assert_eq!(
        obj["[REDACTED:email]"], "already there",
        "unredacted keys keep their name"
    );
    let roles: Vec<&Value> = ["[REDACTED:email]#2", "[REDACTED:email]#3"]
        .iter()
        .map(|k| &obj[*k]["role"])
        .collect();
    assert_eq!(roles.len(), 2);
    assert!(
        roles.contains(&&json!("admin")) && roles.contains(&&json!("dev")),
        "{v}"
    );
    // Idempotent on keys too.
    let before = v.clone();
    assert_eq!(default().scrub_value(&mut v), 0);
    assert_eq!(v, before);
}

#[test]
fn keys_are_kept_when_key_scrubbing_is_off() {
    let p = with(PiiScrubConfig {
        scrub_keys: false,
        ..PiiScrubConfig::default()
    });
    let mut v = json!({"a@corp.io": "b@corp.io"});
    assert_eq!(p.scrub_value(&mut v), 1);
    assert_eq!(v, json!({"a@corp.io": "[REDACTED:email]"}));
}

#[test]
fn strings_holding_json_stay_valid_json_after_scrubbing() {
    let inner = json!({
        "user": {"email": "a@corp.io", "ip": "8.8.8.8"},
        "nested": serde_json::to_string(&json!({"card": "4111 1111 1111 1111"})).expect("json"),
        "key": "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----"
    });
    let mut v = json!({"stdout": serde_json::to_string_pretty(&inner).expect("json")});
    assert_eq!(default().scrub_value(&mut v), 4);
    let text = v["stdout"].as_str().expect("string");
    let parsed: Value = serde_json::from_str(text).expect("still valid JSON");
    assert_eq!(parsed["user"]["email"], "[REDACTED:email]");
    assert_eq!(parsed["user"]["ip"], "[REDACTED:ipv4]");
    assert_eq!(parsed["key"], "[REDACTED:private_key]");
    let nested: Value =
        serde_json::from_str(parsed["nested"].as_str().expect("string")).expect("valid JSON");
    assert_eq!(nested["card"], "[REDACTED:credit_card]");
}

#[test]
fn very_deep_json_is_walked_without_overflowing_the_stack() {
    let mut v = json!("a@corp.io");
    for _ in 0..100_000 {
        v = Value::Array(vec![v]);
    }
    assert_eq!(default().scrub_value(&mut v), 1);
    let mut inner = &v;
    while let Value::Array(items) = inner {
        inner = &items[0];
    }
    assert_eq!(inner, "[REDACTED:email]");
    // Drop iteratively too: serde_json's recursive drop would overflow on 100 000 levels.
    let mut cur = v;
    while let Value::Array(mut items) = cur {
        cur = items.pop().unwrap_or(Value::Null);
    }
}

#[test]
fn report_counts_per_category_and_displays_them() {
    let (_, report) = default().scrub_str_report("a@b.io c@d.io 8.8.8.8");
    assert_eq!(report.get("email"), 2);
    assert_eq!(report.get("ipv4"), 1);
    assert_eq!(report.total(), 3);
    assert_eq!(report.to_string(), "2 email, 1 ipv4");
    assert_eq!(ScrubReport::default().to_string(), "nothing");
    assert!(ScrubReport::default().is_empty());
}

// ---------------------------------------------------------------------------------------------
// Properties

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("alice@corp.io".to_owned()),
        Just("4111 1111 1111 1111".to_owned()),
        Just("4111111111111112".to_owned()),
        Just("078-05-1120".to_owned()),
        Just("8.8.8.8".to_owned()),
        Just("2001:db8::1".to_owned()),
        Just("+44 20 7946 0958".to_owned()),
        Just("(415) 555-0100".to_owned()),
        Just("AKIAIOSFODNN7EXAMPLE".to_owned()),
        Just(GHP.to_owned()),
        Just(JWT.to_owned()),
        Just("sk-ant-api03-AbCdEf123456_GhIjKl-789012MnOpQr".to_owned()),
        Just("-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----".to_owned()),
        Just("[REDACTED:email]".to_owned()),
        Just("version 1.2.3.4".to_owned()),
        Just("2024-01-15".to_owned()),
        "[ \\n.,:;@\"'()\\[\\]{}<>/=_+-]{0,3}",
        "[a-zA-Z0-9]{0,12}",
        "\\PC{0,8}",
    ]
}

fn glued() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => fragment(),
        1 => Just("415-555-0100".to_owned()),
        1 => Just("aws_secret_access_key=".to_owned()),
        1 => Just("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".to_owned()),
        1 => Just("::".to_owned()),
        1 => Just("https://hooks.slack.com/services/T0/B0/XX".to_owned()),
        2 => "[0-9]{1,5}",
        2 => "[ .:@+()=_/-]{1,2}",
        1 => "[a-fA-F0-9]{1,6}",
    ]
}

/// A policy with custom patterns, a custom mark, private addresses and an allow list.
static CUSTOM: LazyLock<PiiScrub> = LazyLock::new(|| {
    with(PiiScrubConfig {
        redact_private_ips: true,
        mark: "<{category}>".into(),
        custom: vec![
            CustomPattern::new("emp", r"\bEMP-[0-9]{3}\b"),
            CustomPattern::new("pw", r"password=(?P<value>\S+)"),
        ],
        allow: vec!["example.com".into()],
        ..PiiScrubConfig::default()
    })
});

/// Values the fragments plant that must never survive a scrub.
const PLANTED: &[&str] = &[
    "alice@corp.io",
    "4111 1111 1111 1111",
    "078-05-1120",
    "AKIAIOSFODNN7EXAMPLE",
    GHP,
    JWT,
    "sk-ant-api03-AbCdEf123456_GhIjKl-789012MnOpQr",
    "MIIB",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn scrubbing_arbitrary_text_never_panics_and_is_idempotent(s in "\\PC{0,200}") {
        let p = default();
        let once = p.scrub_str(&s).into_owned();
        prop_assert_eq!(p.scrub_str(&once), once.as_str());
    }

    #[test]
    fn planted_secrets_never_survive_and_a_second_scrub_changes_nothing(
        parts in proptest::collection::vec(fragment(), 0..12),
        seps in proptest::collection::vec(prop_oneof![Just(" "), Just("\n"), Just(", "), Just(" | ")], 12),
    ) {
        let text: String = parts.iter().zip(&seps).map(|(p, s)| format!("{p}{s}")).collect();
        let p = default();
        let once = p.scrub_str(&text).into_owned();
        for secret in PLANTED {
            prop_assert!(!once.contains(secret), "{secret:?} survived in {once:?}");
        }
        prop_assert_eq!(p.scrub_str(&once), once.as_str());
    }

    /// Fragments glued with no separator: values next to values, inside words, cut by
    /// others (`…0958+44 20…`, `ghp_…alice@corp.io415-…`). Neighbours decide some verdicts,
    /// and a redaction changes the neighbours; the result must still be settled.
    #[test]
    fn glued_values_scrub_to_a_fixed_point(parts in proptest::collection::vec(glued(), 0..14)) {
        let text = parts.concat();
        let p = default();
        let once = p.scrub_str(&text).into_owned();
        prop_assert_eq!(p.scrub_str(&once), once.as_str(), "input {:?}", text);
    }

    #[test]
    fn custom_patterns_and_marks_scrub_to_a_fixed_point(
        parts in proptest::collection::vec(prop_oneof![
            glued(),
            Just("EMP-123".to_owned()),
            Just("password=".to_owned()),
            Just("<email>".to_owned()),
            Just("10.0.0.1".to_owned()),
            Just("a@example.com".to_owned()),
        ], 0..14),
    ) {
        let text = parts.concat();
        let once = CUSTOM.scrub_str(&text).into_owned();
        prop_assert_eq!(CUSTOM.scrub_str(&once), once.as_str(), "input {:?}", text);
    }

    #[test]
    fn a_scrubbed_json_value_keeps_its_shape(
        emails in proptest::collection::vec("[a-z]{4,8}@[a-z]{1,8}\\.(io|com|org)", 0..6),
        nums in proptest::collection::vec(any::<i64>(), 0..6),
    ) {
        let mut v = json!({"emails": emails, "nums": nums, "nested": {"list": [emails.clone()]}});
        let n = default().scrub_value(&mut v);
        prop_assert_eq!(n, emails.len() * 2);
        prop_assert_eq!(&v["nums"], &json!(nums));
        prop_assert_eq!(v["emails"].as_array().map(Vec::len), Some(emails.len()));
        for e in v["emails"].as_array().into_iter().flatten() {
            prop_assert_eq!(e, "[REDACTED:email]");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Through the runtime

fn hooks_with(p: PiiScrub) -> Hooks {
    match Hooks::builder().ignore_env().provider_at(100, p).build() {
        Ok(h) => h,
        Err(e) => panic!("hooks: {e}"),
    }
}

#[test]
fn post_tool_use_dispatch_scrubs_response_error_and_added_context_but_not_the_input() {
    let hooks = hooks_with(PiiScrub::default());
    let mut ctx = PostToolUse::new(
        Meta::new("s1"),
        "Bash",
        json!({"command": "grep alice@corp.io users.csv"}),
        json!({"stdout": "alice@corp.io,4111111111111111", "exit_code": 0}),
        5,
    );
    ctx.error = Some("connect to 8.8.8.8 refused".into());
    ctx.add_context("earlier hook saw bob@corp.io");
    let out = hooks.dispatch::<post_tool_use::Point>(&mut ctx);
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    assert_eq!(
        ctx.tool_response,
        json!({"stdout": "[REDACTED:email],[REDACTED:credit_card]", "exit_code": 0})
    );
    assert_eq!(
        ctx.error.as_deref(),
        Some("connect to [REDACTED:ipv4] refused")
    );
    assert_eq!(
        ctx.additional_context,
        ["earlier hook saw [REDACTED:email]"]
    );
    assert_eq!(ctx.tool_input["command"], "grep alice@corp.io users.csv");
}

#[test]
fn post_tool_use_reports_to_the_model_only_when_configured() {
    let quiet = hooks_with(PiiScrub::default());
    let loud = hooks_with(with(PiiScrubConfig {
        report_to_model: true,
        ..PiiScrubConfig::default()
    }));
    for (hooks, notes) in [(quiet, 0), (loud, 1)] {
        let mut ctx = PostToolUse::new(
            Meta::new("s1"),
            "Read",
            json!({}),
            json!("a@b.io c@d.io"),
            1,
        );
        hooks.dispatch::<post_tool_use::Point>(&mut ctx);
        assert_eq!(ctx.additional_context.len(), notes);
        if notes == 1 {
            assert_eq!(
                ctx.additional_context[0],
                "pii_scrub redacted 2 email from the Read result; the marks stand for values withheld on purpose"
            );
        }
    }
}

#[test]
fn post_model_call_dispatch_scrubs_the_response() {
    let hooks = hooks_with(PiiScrub::default());
    let mut ctx = PostModelCall::new(
        Meta::new("s1"),
        "m",
        format!("Here is the token: {GHP}. Mail bob@corp.io."),
        TokenUsage::new(1, 1),
        7,
    );
    let out = hooks.dispatch::<post_model_call::Point>(&mut ctx);
    assert!(out.failures.is_empty());
    assert_eq!(
        ctx.response,
        "Here is the token: [REDACTED:github_token]. Mail [REDACTED:email]."
    );
}

#[test]
fn points_can_be_switched_off() {
    let hooks = hooks_with(with(PiiScrubConfig {
        tool_output: false,
        model_output: false,
        ..PiiScrubConfig::default()
    }));
    let mut post = PostToolUse::new(Meta::new("s"), "Bash", json!({}), json!("a@b.io"), 1);
    hooks.dispatch::<post_tool_use::Point>(&mut post);
    assert_eq!(post.tool_response, "a@b.io");
    let mut reply = PostModelCall::new(Meta::new("s"), "m", "a@b.io", TokenUsage::default(), 1);
    hooks.dispatch::<post_model_call::Point>(&mut reply);
    assert_eq!(reply.response, "a@b.io");
}

#[test]
fn the_provider_is_listed_under_its_builtin_name() {
    let hooks = hooks_with(PiiScrub::default());
    assert!(hooks.list().iter().any(|h| h.name == "builtin.pii_scrub"));
}

#[tokio::test(start_paused = true)]
async fn a_session_hands_back_scrubbed_tool_results_and_model_replies() {
    let hooks = hooks_with(PiiScrub::default());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut session = Session::start(hooks, Meta::new("s1"), "m")
        .await
        .expect("start");

    let run = session
        .tool_call(
            ToolCall::new("toolu_1", "Bash", json!({"command": "cat .aws/credentials"})),
            async |_| {
                Ok(json!({"stdout": "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"}))
            },
        )
        .await
        .expect("tool");
    let ToolRun::Ran(post) = run else {
        panic!("denied")
    };
    assert_eq!(
        post.tool_response["stdout"],
        "[default]\naws_access_key_id = [REDACTED:aws_access_key]\naws_secret_access_key = [REDACTED:aws_secret_key]\n"
    );

    let seen2 = Arc::clone(&seen);
    let reply = session
        .call_model(Vec::new(), move |_| {
            let seen = Arc::clone(&seen2);
            async move {
                seen.lock().expect("lock").push(());
                // The key is split over two chunks: only the joined reply can be scrubbed.
                Ok(ModelReply::new([
                    "your key is sk-ant-api03-AbCdEf12",
                    "3456_GhIjKl-789012MnOpQr ok",
                ]))
            }
        })
        .await
        .expect("model");
    assert_eq!(reply.response, "your key is [REDACTED:anthropic_key] ok");
    assert_eq!(seen.lock().expect("lock").len(), 1);
}
