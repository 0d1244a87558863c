//! The HTTP hook transport against local servers (loopback only): wiremock for ordinary
//! answers, raw sockets for answers wiremock cannot give (a stalled or endless body).

#![cfg(feature = "http")]

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use hookrail_config::http::{HttpClient, HttpError, HttpRequest, expand_env};
use hookrail_config::spec::HttpHandler;
use wiremock::matchers::{body_bytes, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// A generous bound for things that should take milliseconds.
const SANITY: Duration = Duration::from_secs(20);

async fn server() -> MockServer {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    MockServer::builder().listener(listener).start().await
}

fn handler(url: impl Into<String>, headers: &[(&str, &str)]) -> HttpHandler {
    HttpHandler {
        url: url.into(),
        headers: headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        plugin_root: None,
    }
}

fn no_env(_: &str) -> Option<String> {
    None
}

fn request<'a>(handler: &'a HttpHandler, body: &'a [u8]) -> HttpRequest<'a> {
    HttpRequest {
        handler,
        body,
        timeout: SANITY,
        output_cap: 10_000,
        env: &no_env,
    }
}

/// A loopback port nothing listens on (bound, then released).
fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    listener.local_addr().expect("local address").port()
}

/// Reads a request head (up to the blank line) from a raw socket.
fn read_head(stream: &mut std::net::TcpStream) {
    let mut seen = Vec::new();
    let mut buf = [0; 4096];
    while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    }
}

const INPUT: &[u8] =
    "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"echo ünïcode\\n\"}}"
        .as_bytes();

#[tokio::test]
async fn posts_the_exact_body_as_json() {
    let server = server().await;
    let decision = r#"{"decision":"block","reason":"no"}"#;
    Mock::given(method("POST"))
        .and(path("/hook"))
        .and(header("content-type", "application/json"))
        .and(body_bytes(INPUT))
        .respond_with(ResponseTemplate::new(200).set_body_string(decision))
        .expect(1)
        .mount(&server)
        .await;
    let handler = handler(format!("{}/hook", server.uri()), &[]);
    let client = HttpClient::new().expect("client");

    let output = client
        .post(&request(&handler, INPUT))
        .await
        .expect("answer");

    assert_eq!(output.status, 200);
    assert_eq!(output.body, decision);
    assert!(!output.truncated);
    assert!(output.duration < SANITY);
    let received = server.received_requests().await.expect("recording on");
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].body, INPUT);
    let content_types: Vec<_> = received[0].headers.get_all("content-type").iter().collect();
    assert_eq!(content_types, ["application/json"]);
}

#[tokio::test]
async fn header_variables_are_expanded_when_sent() {
    let server = server().await;
    Mock::given(method("POST"))
        .and(header("authorization", "Bearer tok-123"))
        .and(header("x-static", "pa$$word $HOME"))
        .respond_with(ResponseTemplate::new(200))
        .expect(1)
        .mount(&server)
        .await;
    let handler = handler(
        server.uri(),
        &[
            ("Authorization", "Bearer ${HOOK_TOKEN}"),
            ("X-Static", "pa$$word $HOME"),
        ],
    );
    let env = |name: &str| (name == "HOOK_TOKEN").then(|| "tok-123".to_owned());
    let client = HttpClient::new().expect("client");

    let output = client
        .post(&HttpRequest {
            env: &env,
            ..request(&handler, b"{}")
        })
        .await
        .expect("answer");

    // wiremock answers 404 when no mock matches: 200 means the headers arrived expanded.
    assert_eq!(output.status, 200);
}

#[tokio::test]
async fn a_configured_content_type_replaces_the_default() {
    let server = server().await;
    Mock::given(method("POST"))
        .and(header("content-type", "application/json; charset=utf-8"))
        .respond_with(ResponseTemplate::new(204))
        .expect(1)
        .mount(&server)
        .await;
    let handler = handler(
        server.uri(),
        &[("Content-Type", "application/json; charset=utf-8")],
    );
    let client = HttpClient::new().expect("client");

    let output = client
        .post(&request(&handler, b"{}"))
        .await
        .expect("answer");

    assert_eq!(output.status, 204);
    let received = server.received_requests().await.expect("recording on");
    assert_eq!(
        received[0].headers.get_all("content-type").iter().count(),
        1
    );
}

#[tokio::test]
async fn a_missing_variable_is_an_error_and_nothing_is_sent() {
    let server = server().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .expect(0)
        .mount(&server)
        .await;
    let handler = handler(server.uri(), &[("Authorization", "Bearer ${HOOK_TOKEN}")]);
    let client = HttpClient::new().expect("client");

    let err = client
        .post(&request(&handler, b"{}"))
        .await
        .expect_err("HOOK_TOKEN is not set");

    match &err {
        HttpError::MissingEnvVar { var, header } => {
            assert_eq!(var, "HOOK_TOKEN");
            assert_eq!(header.as_deref(), Some("Authorization"));
        }
        other => panic!("expected MissingEnvVar, got {other:?}"),
    }
    let message = err.to_string();
    assert!(message.contains("`HOOK_TOKEN`"), "{message}");
    assert!(message.contains("`Authorization`"), "{message}");
}

#[tokio::test]
async fn malformed_references_and_unsendable_headers_are_errors() {
    let client = HttpClient::new().expect("client");
    let url = format!("http://127.0.0.1:{}/", closed_port());
    let env = |_: &str| Some("line\nbreak".to_owned());
    let cases: &[(&str, &str, &str)] = &[
        ("X-A", "Bearer ${TOKEN", "malformed"),
        ("X-A", "${TOKEN:-default}", "malformed"),
        ("X-A", "${TOKEN}", "control character"),
        ("Content-Length", "12", "set by the transport"),
        ("Bad Name", "x", "not a valid header name"),
    ];
    for (name, value, expected) in cases {
        let handler = handler(url.clone(), &[(name, value)]);
        let err = client
            .post(&HttpRequest {
                env: &env,
                ..request(&handler, b"{}")
            })
            .await
            .expect_err("the header cannot be sent");
        assert!(
            matches!(
                err,
                HttpError::BadTemplate { .. } | HttpError::InvalidHeader { .. }
            ),
            "{name}: {value}: {err:?}"
        );
        let message = err.to_string();
        assert!(message.contains(expected), "{message}");
        assert!(message.contains(&format!("`{name}`")), "{message}");
    }
}

#[tokio::test]
async fn a_server_error_is_an_answer_not_an_error() {
    let server = server().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500).set_body_string("boom"))
        .expect(1)
        .mount(&server)
        .await;
    let handler = handler(server.uri(), &[]);
    let client = HttpClient::new().expect("client");

    let output = client
        .post(&request(&handler, b"{}"))
        .await
        .expect("answer");

    assert_eq!((output.status, output.body.as_str()), (500, "boom"));
    assert!(!output.truncated);
}

#[tokio::test]
async fn redirects_are_not_followed() {
    let server = server().await;
    Mock::given(method("POST"))
        .and(path("/hook"))
        .respond_with(ResponseTemplate::new(307).insert_header("location", "/elsewhere"))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(path("/elsewhere"))
        .respond_with(ResponseTemplate::new(200))
        .expect(0)
        .mount(&server)
        .await;
    let handler = handler(format!("{}/hook", server.uri()), &[("X-Key", "k")]);
    let client = HttpClient::new().expect("client");

    let output = client
        .post(&request(&handler, b"{}"))
        .await
        .expect("answer");

    assert_eq!(output.status, 307);
}

#[tokio::test]
async fn a_slow_server_times_out() {
    let server = server().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(60)))
        .mount(&server)
        .await;
    let handler = handler(format!("{}/slow", server.uri()), &[]);
    let client = HttpClient::new().expect("client");
    let timeout = Duration::from_millis(200);
    let started = Instant::now();

    let err = client
        .post(&HttpRequest {
            timeout,
            ..request(&handler, b"{}")
        })
        .await
        .expect_err("the server answers after a minute");

    assert!(started.elapsed() < SANITY);
    match &err {
        HttpError::Timeout { url, timeout: t } => {
            assert_eq!(url, &format!("{}/slow", server.uri()));
            assert_eq!(*t, timeout);
        }
        other => panic!("expected Timeout, got {other:?}"),
    }
    assert!(err.to_string().contains("timed out"), "{err}");
}

#[tokio::test]
async fn the_timeout_covers_reading_the_body() {
    // Headers at once, then a body that never ends.
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    let port = listener.local_addr().expect("local address").port();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let server = thread::spawn(move || {
        let (mut stream, _) = listener.accept().expect("accept");
        read_head(&mut stream);
        stream
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"partial\":")
            .expect("write");
        // Hold the connection open until the test is over.
        let _ = done_rx.recv_timeout(SANITY);
    });
    let handler = handler(format!("http://127.0.0.1:{port}/"), &[]);
    let client = HttpClient::new().expect("client");

    let err = client
        .post(&HttpRequest {
            timeout: Duration::from_millis(300),
            ..request(&handler, b"{}")
        })
        .await
        .expect_err("the body never completes");

    assert!(matches!(err, HttpError::Timeout { .. }), "{err:?}");
    drop(done_tx);
    server.join().expect("server thread");
}

#[tokio::test]
async fn a_huge_body_is_truncated_on_a_character_boundary() {
    let server = server().await;
    // 5 MB of two-byte characters.
    let huge = "é".repeat(5 * 1024 * 1024 / 2);
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_string(huge))
        .mount(&server)
        .await;
    let handler = handler(server.uri(), &[]);
    let client = HttpClient::new().expect("client");

    let output = client
        .post(&request(&handler, b"{}"))
        .await
        .expect("answer");

    assert_eq!(output.status, 200);
    assert!(output.truncated);
    assert_eq!(output.body.chars().count(), 10_000);
    assert!(output.body.chars().all(|c| c == 'é'));
}

#[tokio::test]
async fn the_cap_counts_characters() {
    let server = server().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_string("ab€de"))
        .mount(&server)
        .await;
    let handler = handler(server.uri(), &[]);
    let client = HttpClient::new().expect("client");
    let with_cap = |output_cap| HttpRequest {
        output_cap,
        ..request(&handler, b"{}")
    };

    let exact = client.post(&with_cap(5)).await.expect("answer");
    let short = client.post(&with_cap(3)).await.expect("answer");
    let none = client.post(&with_cap(0)).await.expect("answer");

    assert_eq!((exact.body.as_str(), exact.truncated), ("ab€de", false));
    assert_eq!((short.body.as_str(), short.truncated), ("ab€", true));
    assert_eq!((none.body.as_str(), none.truncated), ("", true));
}

#[tokio::test]
async fn an_endless_body_is_cut_short_and_the_connection_dropped() {
    // A body that ends only when the client goes away; the server counts what it wrote.
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    let port = listener.local_addr().expect("local address").port();
    let (written_tx, written_rx) = mpsc::channel();
    thread::spawn(move || {
        let (mut stream, _) = listener.accept().expect("accept");
        read_head(&mut stream);
        let head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n";
        let chunk = vec![b'x'; 64 * 1024];
        let mut written = 0usize;
        let result = stream.write_all(head).and_then(|()| {
            loop {
                stream.write_all(&chunk)?;
                written += chunk.len();
                if written > 1 << 30 {
                    break Ok(());
                }
            }
        });
        let _ = written_tx.send((written, result.is_err()));
    });
    let handler = handler(format!("http://127.0.0.1:{port}/"), &[]);
    let client = HttpClient::new().expect("client");

    let output = client
        .post(&HttpRequest {
            output_cap: 1_000,
            ..request(&handler, b"{}")
        })
        .await
        .expect("answer");

    assert!(output.truncated);
    assert_eq!(output.body, "x".repeat(1_000));
    // Wait off the runtime thread: the connection's task must run to close the socket.
    let (written, broken) = tokio::task::spawn_blocking(move || written_rx.recv_timeout(SANITY))
        .await
        .expect("waiting thread")
        .expect("the server stops writing once the client hangs up");
    assert!(broken, "the client read the whole gigabyte");
    // What the socket buffers absorbed, far below the gigabyte on offer.
    assert!(written < 256 << 20, "{written} bytes written");
}

#[tokio::test]
async fn a_refused_connection_names_the_url_without_its_secrets() {
    let port = closed_port();
    let handler = handler(
        format!("http://user:pw-secret@127.0.0.1:{port}/hook?key=query-secret"),
        &[],
    );
    let client = HttpClient::new().expect("client");

    let err = client
        .post(&request(&handler, b"{}"))
        .await
        .expect_err("nothing listens");

    match &err {
        HttpError::Connect { url, .. } => assert_eq!(url, &format!("http://127.0.0.1:{port}/hook")),
        other => panic!("expected Connect, got {other:?}"),
    }
    let (display, debug) = (err.to_string(), format!("{err:?}"));
    assert!(
        display.contains(&format!("http://127.0.0.1:{port}/hook")),
        "{display}"
    );
    for text in [&display, &debug] {
        assert!(!text.contains("pw-secret"), "{text}");
        assert!(!text.contains("query-secret"), "{text}");
    }
}

#[tokio::test]
async fn only_http_and_https_urls_are_accepted() {
    let client = HttpClient::new().expect("client");
    for url in [
        "file:///etc/passwd",
        "ftp://127.0.0.1/hook",
        "unix:/run/hook.sock",
        "127.0.0.1:8080/hook",
        "not a url",
    ] {
        let handler = handler(url, &[]);
        let err = client
            .post(&request(&handler, b"{}"))
            .await
            .expect_err("not an http URL");
        assert!(
            matches!(err, HttpError::InvalidUrl { .. }),
            "{url}: {err:?}"
        );
    }
    let err = client
        .post(&request(&handler("file:///etc/passwd", &[]), b"{}"))
        .await
        .expect_err("not an http URL");
    assert!(
        err.to_string()
            .contains("scheme must be http or https, not `file`"),
        "{err}"
    );
}

#[test]
fn expand_env_rules() {
    let env = |name: &str| match name {
        "A" => Some("1".to_owned()),
        "B_2" => Some("${A}".to_owned()),
        "EMPTY" => Some(String::new()),
        _ => None,
    };
    for (template, expected) in [
        ("", ""),
        ("plain", "plain"),
        ("${A}", "1"),
        ("x${A}y${A}z", "x1y1z"),
        ("${A}${B_2}", "1${A}"), // values are not expanded again
        ("[${EMPTY}]", "[]"),
        ("$A $$ $", "$A $$ $"),
        ("$${A}", "$1"), // no escape: `$$` is two dollars
        ("é${A}ü", "é1ü"),
    ] {
        assert_eq!(
            expand_env(template, env).expect(template),
            expected,
            "{template}"
        );
    }
    for (template, position) in [("${A", 0), ("ok ${}", 3), ("${A} ${A:-x}", 5), ("${1A}", 0)] {
        match expand_env(template, env) {
            Err(HttpError::BadTemplate {
                position: p,
                header: None,
                ..
            }) => assert_eq!(p, position, "{template}"),
            other => panic!("{template}: {other:?}"),
        }
    }
    match expand_env("${A}${MISSING}", env) {
        Err(HttpError::MissingEnvVar { var, header: None }) => assert_eq!(var, "MISSING"),
        other => panic!("{other:?}"),
    }
}

/// Collects every field of every event and span into one string.
struct Capture(Arc<Mutex<String>>);

struct Collect<'a>(&'a mut String);

impl tracing::field::Visit for Collect<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        use std::fmt::Write as _;
        let _ = write!(self.0, "{}={value:?} ", field.name());
    }
}

impl tracing::Subscriber for Capture {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        span.record(&mut Collect(&mut self.0.lock().expect("lock")));
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        values.record(&mut Collect(&mut self.0.lock().expect("lock")));
    }
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        event.record(&mut Collect(&mut self.0.lock().expect("lock")));
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[tokio::test(flavor = "current_thread")]
async fn header_values_appear_in_no_debug_display_error_or_log() {
    const LITERAL: &str = "literal-secret-123";
    const FROM_ENV: &str = "env-secret-456";
    let logs = Arc::new(Mutex::new(String::new()));
    let _guard = tracing::subscriber::set_default(Capture(logs.clone()));
    let server = server().await;
    Mock::given(method("POST"))
        .and(header("x-api-key", LITERAL))
        .and(header(
            "authorization",
            format!("Bearer {FROM_ENV}").as_str(),
        ))
        .respond_with(ResponseTemplate::new(200).set_body_string("{}"))
        .expect(1)
        .mount(&server)
        .await;
    let headers = [("Authorization", "Bearer ${TOKEN}"), ("X-Api-Key", LITERAL)];
    let env = |name: &str| match name {
        "TOKEN" => Some(FROM_ENV.to_owned()),
        "BROKEN" => Some(format!("{FROM_ENV}\r\nX-Injected: 1")),
        _ => None,
    };
    let client = HttpClient::new().expect("client");
    let mut texts = vec![format!("{client:?}")];

    // Sent (the server checks that the secrets did arrive), logged, debugged.
    let ok = handler(server.uri(), &headers);
    let req = HttpRequest {
        env: &env,
        ..request(&ok, b"{}")
    };
    let output = client.post(&req).await.expect("answer");
    assert_eq!(output.status, 200);
    let debug = format!("{req:?}");
    assert!(
        debug.contains("Authorization") && debug.contains("<redacted>"),
        "{debug}"
    );
    texts.extend([debug, format!("{output:?}")]);

    // Every kind of failure, with the secrets in the headers.
    let refused = handler(format!("http://127.0.0.1:{}/", closed_port()), &headers);
    let broken = handler(server.uri(), &[("X-Api-Key", "${BROKEN}")]);
    let missing = handler(server.uri(), &[("X-Api-Key", "${NOT_SET}")]);
    let bad_url = handler(format!("ftp://{LITERAL}@127.0.0.1/"), &headers);
    for failing in [&refused, &broken, &missing, &bad_url] {
        let req = HttpRequest {
            env: &env,
            ..request(failing, b"{}")
        };
        let err = client.post(&req).await.expect_err("fails");
        texts.extend([err.to_string(), format!("{err:?}"), format!("{req:?}")]);
    }

    let logs = logs.lock().expect("lock").clone();
    assert!(
        logs.contains("http hook answered"),
        "nothing was logged: {logs}"
    );
    texts.push(logs);
    for text in &texts {
        assert!(!text.contains(LITERAL), "{text}");
        assert!(!text.contains(FROM_ENV), "{text}");
    }
}
