//! `pii-scrub` throughput on a deterministic 1 MiB mixed document: prose, code, JSON and log
//! lines, with a realistic sprinkle of personal data, credentials and look-alikes (order ids
//! that fail Luhn, dates, versions, UUIDs, git SHAs, private IPs, floats).
//!
//! Group `pii_scrub`, all with `Throughput::Bytes` (criterion prints MiB/s):
//!
//! - `scrub_str/mixed`: [`PiiScrub::scrub_str`] on the mixed document (the figure of record).
//! - `scrub_str/clean`: the same document with every value replaced by a look-alike that is
//!   not redacted (nothing found: returns `Cow::Borrowed`).
//! - `scrub_value/json`: [`PiiScrub::scrub_value`] on a tool response of ~1 MiB of small
//!   JSON strings (the clone each iteration needs is made outside the timing).
//! - `baseline/to_lowercase`: `str::to_lowercase` of the mixed document, one allocating pass
//!   over every character.
//! - `baseline/regex_email`: counting one simple regex's matches (`\w+@\w+\.\w+`) over the
//!   mixed document, the cost of a single pattern.
//!
//! Run: `cargo bench -p hookrail-builtin --no-default-features --features pii-scrub --bench
//! pii_scrub` (figures of record: the bench executable pinned with `taskset -c 1`, see
//! BENCHMARKS.md).

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use hookrail_builtin::pii_scrub::PiiScrub;
use regex::Regex;
use serde_json::{Value, json};

/// The document's size.
const SIZE: usize = 1 << 20;

/// A small deterministic generator (xorshift64*), so every run scrubs the same bytes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// True with probability `percent` / 100.
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// Values that are redacted, and look-alikes of the same shape that are not.
struct Values {
    pii: bool,
}

impl Values {
    fn email(&self, r: &mut Rng) -> String {
        let user = r.pick(&["alice", "bob.smith", "c.jones+ci", "dana_k", "eve"]);
        let host = r.pick(&["corp.io", "mail.example.org", "gmail.com", "acme.co.uk"]);
        if self.pii {
            format!("{user}@{host}")
        } else {
            format!("{user} at {host}")
        }
    }

    fn phone(&self, r: &mut Rng) -> String {
        if self.pii {
            r.pick(&[
                "+44 20 7946 0958",
                "(415) 555-0100",
                "+1 212-555-0147",
                "+49 30 12345678",
            ])
            .to_owned()
        } else {
            r.pick(&["2024-05-14", "ext. 4471", "v10.4.1", "12:30:45"])
                .to_owned()
        }
    }

    fn card(&self, r: &mut Rng) -> String {
        if self.pii {
            r.pick(&[
                "4111 1111 1111 1111",
                "5555555555554444",
                "3782 822463 10005",
            ])
            .to_owned()
        } else {
            // Luhn fails.
            r.pick(&[
                "4111 1111 1111 1112",
                "5555555555554445",
                "1234567812345678",
            ])
            .to_owned()
        }
    }

    fn ip(&self, r: &mut Rng) -> String {
        if self.pii {
            format!(
                "{}.{}.{}.{}",
                20 + r.below(150),
                r.below(256),
                r.below(256),
                1 + r.below(254)
            )
        } else {
            format!("10.{}.{}.{}", r.below(256), r.below(256), 1 + r.below(254))
        }
    }

    fn secret(&self, r: &mut Rng) -> String {
        if self.pii {
            r.pick(&[
                "AKIAIOSFODNN7EXAMPLE",
                "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
                "sk-proj-Ab3dE_fGh1-jKlMnOp2qRsTuVwXyZ0123456789",
                "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
            ])
            .to_owned()
        } else {
            r.pick(&[
                "AKIA-placeholder",
                "9fceb02d0ae598e95dc970b74767f19372d61af8",
                "sk-learn-pipeline",
                "550e8400-e29b-41d4-a716-446655440000",
                "SGVsbG8gd29ybGQgaGVsbG8=",
            ])
            .to_owned()
        }
    }
}

const WORDS: &[&str] = &[
    "the",
    "agent",
    "runs",
    "a",
    "tool",
    "and",
    "reads",
    "its",
    "output",
    "before",
    "the",
    "model",
    "sees",
    "it",
    "so",
    "that",
    "nothing",
    "private",
    "leaks",
    "into",
    "context",
    "review",
    "build",
    "deploy",
    "customer",
    "invoice",
    "ticket",
    "status",
    "update",
    "with",
    "version",
    "report",
    "meeting",
    "notes",
    "from",
    "yesterday",
    "about",
    "migration",
];

fn prose(r: &mut Rng, v: &Values, out: &mut String) {
    for _ in 0..3 + r.below(4) {
        for i in 0..8 + r.below(14) {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(r.pick(WORDS));
        }
        if r.chance(12) {
            let _ = write!(out, ", contact {}", v.email(r));
        }
        if r.chance(6) {
            let _ = write!(out, " or call {}", v.phone(r));
        }
        if r.chance(3) {
            let _ = write!(out, " (card {})", v.card(r));
        }
        out.push_str(". ");
    }
    out.push_str("\n\n");
}

fn code(r: &mut Rng, v: &Values, out: &mut String) {
    let _ = write!(
        out,
        "use std::collections::HashMap;\n\
         fn handler(req: &Request) -> Result<Response, Error> {{\n    \
         let id = \"{}\";\n    \
         let retries: u64 = {};\n    \
         let ratio = {:.16};\n    \
         tracing::info!(?id, retries, \"dispatch v1.2.{} to {{}}\", req.path);\n    \
         Vec::<u8>::with_capacity(4096);\n",
        r.pick(&[
            "550e8400-e29b-41d4-a716-446655440000",
            "9fceb02d0ae598e95dc970b74767f19372d61af8"
        ]),
        r.next() % 1_000_000_000_000,
        (r.next() % 10_000) as f64 / 10_001.0,
        r.below(40),
    );
    if r.chance(8) {
        let _ = writeln!(out, "    let token = \"{}\";", v.secret(r));
    }
    out.push_str("    Ok(Response::ok())\n}\n\n");
}

fn json_blob(r: &mut Rng, v: &Values, out: &mut String) {
    let mut users = Vec::new();
    for i in 0..2 + r.below(4) {
        users.push(json!({
            "id": 100_000 + r.below(900_000),
            "order": order_id(r),
            "email": v.email(r),
            "created_at": format!("2024-0{}-1{}T10:2{}:00Z", 1 + r.below(9), r.below(10), r.below(10)),
            "score": (r.next() % 1000) as f64 / 7.0,
            "ip": if i % 2 == 0 { v.ip(r) } else { "127.0.0.1".to_owned() },
            "card": if r.chance(10) { Value::from(v.card(r)) } else { Value::Null },
            "ssn": if r.chance(5) && v.pii { Value::from("078-05-1120") } else { Value::from("n/a") },
        }));
    }
    let _ = serde_json::to_writer_pretty(
        string_writer(out),
        &json!({"status": "ok", "page": r.below(50), "users": users}),
    );
    out.push('\n');
}

/// A 16-digit order id starting with 4 that fails Luhn (as nine in ten such ids do).
fn order_id(r: &mut Rng) -> String {
    let mut id = 4_000_000_000_000_000u64 + r.next() % 999_999_999_999_999;
    let luhn = |n: u64| {
        let digits: Vec<u32> = n.to_string().bytes().map(|b| u32::from(b - b'0')).collect();
        let sum: u32 = digits
            .iter()
            .rev()
            .enumerate()
            .map(|(i, &d)| {
                if i % 2 == 1 {
                    if d * 2 > 9 { d * 2 - 9 } else { d * 2 }
                } else {
                    d
                }
            })
            .sum();
        sum.is_multiple_of(10)
    };
    if luhn(id) {
        id = if id % 10 == 9 { id - 1 } else { id + 1 };
    }
    id.to_string()
}

/// A `std::io::Write` that appends UTF-8 (serde_json writes only UTF-8) to a `String`.
fn string_writer(out: &mut String) -> impl std::io::Write + '_ {
    struct W<'a>(&'a mut String);
    impl std::io::Write for W<'_> {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let s = std::str::from_utf8(buf).map_err(std::io::Error::other)?;
            self.0.push_str(s);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    W(out)
}

fn log_lines(r: &mut Rng, v: &Values, out: &mut String) {
    for _ in 0..4 + r.below(8) {
        let _ = write!(
            out,
            "2024-06-{:02}T{:02}:{:02}:{:02}.{:03}Z {} req={:016x} client={} upstream=10.0.{}.{}:8080 \
             status={} took={}ms",
            1 + r.below(28),
            r.below(24),
            r.below(60),
            r.below(60),
            r.below(1000),
            r.pick(&["INFO", "INFO", "INFO", "WARN", "DEBUG", "ERROR"]),
            r.next(),
            v.ip(r),
            r.below(256),
            r.below(256),
            r.pick(&["200", "200", "201", "404", "500"]),
            r.below(5000),
        );
        if r.chance(10) {
            let _ = write!(out, " user={}", v.email(r));
        }
        if r.chance(3) {
            let _ = write!(out, " auth=\"Bearer {}\"", v.secret(r));
        }
        if r.chance(4) {
            let peer = if v.pii {
                "2001:db8:85a3::8a2e:370:7334"
            } else {
                "fe80::1ff:fe23:4567:890a"
            };
            let _ = write!(out, " peer={peer} local=::1");
        }
        out.push('\n');
    }
    out.push('\n');
}

/// The 1 MiB document, with values to redact (`pii`) or only look-alikes.
fn document(pii: bool) -> String {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let v = Values { pii };
    let mut out = String::with_capacity(SIZE + 4096);
    while out.len() < SIZE {
        match r.below(10) {
            0..=2 => prose(&mut r, &v, &mut out),
            3..=4 => code(&mut r, &v, &mut out),
            5..=6 => json_blob(&mut r, &v, &mut out),
            _ => log_lines(&mut r, &v, &mut out),
        }
        if pii && r.chance(1) {
            out.push_str(
                "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7\n\
                 MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7\n-----END RSA PRIVATE KEY-----\n",
            );
        }
    }
    let mut cut = SIZE;
    while !out.is_char_boundary(cut) {
        cut -= 1;
    }
    out.truncate(cut);
    out
}

/// A tool response of many small strings, ~1 MiB serialized.
fn tool_response(doc: &str) -> Value {
    let lines: Vec<Value> = doc.lines().map(Value::from).collect();
    json!({"stdout_lines": lines, "exit_code": 0, "truncated": false})
}

fn bench(c: &mut Criterion) {
    let scrub = PiiScrub::default();
    let mixed = document(true);
    let clean = document(false);
    if let (std::borrow::Cow::Owned(out), report) = scrub.scrub_str_report(&clean) {
        let at = out.find("[REDACTED").unwrap_or(0);
        let near = &out[at.saturating_sub(80)..(at + 80).min(out.len())];
        panic!("the clean document must have nothing to redact; redacted {report}, e.g. {near:?}");
    }
    let (_, report) = scrub.scrub_str_report(&mixed);
    eprintln!("mixed document: {} bytes, redacted {report}", mixed.len());

    let mut g = c.benchmark_group("pii_scrub");
    g.sample_size(30)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(8));

    g.throughput(Throughput::Bytes(mixed.len() as u64));
    g.bench_function("scrub_str/mixed", |b| {
        b.iter(|| black_box(scrub.scrub_str(black_box(&mixed))).len())
    });
    g.throughput(Throughput::Bytes(clean.len() as u64));
    g.bench_function("scrub_str/clean", |b| {
        b.iter(|| black_box(scrub.scrub_str(black_box(&clean))).len())
    });

    let value = tool_response(&mixed);
    let json_len = serde_json::to_string(&value).map_or(0, |s| s.len());
    g.throughput(Throughput::Bytes(json_len as u64));
    g.bench_function("scrub_value/json", |b| {
        b.iter_batched(
            || value.clone(),
            |mut v| black_box(scrub.scrub_value(&mut v)),
            BatchSize::LargeInput,
        )
    });

    g.throughput(Throughput::Bytes(mixed.len() as u64));
    g.bench_function("baseline/to_lowercase", |b| {
        b.iter(|| black_box(black_box(&mixed).to_lowercase()).len())
    });
    let email = Regex::new(r"\w+@\w+\.\w+").expect("a valid pattern");
    g.bench_function("baseline/regex_email", |b| {
        b.iter(|| email.find_iter(black_box(&mixed)).count())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
