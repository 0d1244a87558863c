//! The transport of `type: http` hooks: POST the hook's JSON input to the configured URL and
//! read the response body, which carries the same decision JSON as a command hook's stdout
//! (Claude Code's HTTP hooks).
//!
//! This module only moves bytes. It does not interpret the answer: a non-2xx status is
//! returned in [`HttpOutput::status`] like any other, and the protocol layer decides that it
//! is a hook failure. What it guarantees:
//!
//! - The request is a `POST` with `Content-Type: application/json`, the input as body, and the
//!   handler's headers, whose `${VAR}` references are expanded ([`expand_env`]) when the
//!   request is sent. Only `http://` and `https://` URLs are accepted; TLS is rustls.
//! - [`HttpRequest::timeout`] bounds the whole exchange, connection and body included; running
//!   out of it is [`HttpError::Timeout`], so the caller can apply the hook's failure policy (a
//!   timed-out hook renders no decision).
//! - The body is read up to a bound: [`HttpRequest::output_cap`] characters are kept, and
//!   reading stops, closing the connection, once more bytes have come than that many
//!   characters can take (4 each): an endless or huge answer costs neither memory nor time.
//! - Header values are secrets: they appear in no `Debug` or `Display` output, no error and
//!   no log. Errors name the header and the variable instead, and URLs are shown without
//!   user info, query or fragment.
//! - Redirects are not followed (a `3xx` is returned as is): following one would send the
//!   configured headers, credentials among them, to wherever the redirect points.
//!
//! # Example
//!
//! ```no_run
//! use std::collections::BTreeMap;
//! use std::time::Duration;
//!
//! use hookrail_config::http::{HttpClient, HttpRequest};
//! use hookrail_config::spec::HttpHandler;
//!
//! # async fn run() -> Result<(), hookrail_config::http::HttpError> {
//! let handler = HttpHandler {
//!     url: "https://audit.example.com/hooks".into(),
//!     headers: BTreeMap::from([("Authorization".into(), "Bearer ${AUDIT_TOKEN}".into())]),
//!     plugin_root: None,
//! };
//! // Once, shared by every HTTP hook: it keeps connections open between calls.
//! let client = HttpClient::new()?;
//! let output = client
//!     .post(&HttpRequest {
//!         handler: &handler,
//!         body: br#"{"hook_event_name":"SessionEnd","reason":"other"}"#,
//!         timeout: Duration::from_secs(600),
//!         output_cap: 10_000,
//!         env: &|name| std::env::var(name).ok(),
//!     })
//!     .await?;
//! if (200..300).contains(&output.status) {
//!     // `output.body` is the decision JSON (or plain text), as a command hook's stdout.
//! }
//! # Ok(())
//! # }
//! ```

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::error::Error as _;
use std::fmt;
use std::time::{Duration, Instant};

use reqwest::header::{
    CONTENT_LENGTH, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue, TRANSFER_ENCODING,
};
use reqwest::{Url, redirect};

use crate::spec::HttpHandler;

/// The `User-Agent` of hook requests.
const USER_AGENT: &str = concat!("hooks-config/", env!("CARGO_PKG_VERSION"));

/// One call of an HTTP hook: where to, what to send, and the bounds of the exchange.
#[derive(Clone, Copy)]
pub struct HttpRequest<'a> {
    /// The hook's endpoint and headers (header values are templates: see [`expand_env`]).
    pub handler: &'a HttpHandler,
    /// The body: the hook's JSON input, sent as is.
    pub body: &'a [u8],
    /// How long the whole exchange may take: connecting, sending, and reading the body.
    pub timeout: Duration,
    /// How many characters of the response body to keep (callers pass 10 000, Claude Code's
    /// cap on hook output). Past that the body is cut and [`HttpOutput::truncated`] is set.
    pub output_cap: usize,
    /// Looks up the variables that header values reference: usually
    /// `&|name| std::env::var(name).ok()`. Restrict it to implement an allow-list such as
    /// Claude Code's `allowedEnvVars` (the config loader already rejects headers that use
    /// unlisted variables).
    pub env: &'a (dyn Fn(&str) -> Option<String> + Sync),
}

impl fmt::Debug for HttpRequest<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpRequest")
            .field("url", &display_url(&self.handler.url))
            .field("headers", &RedactedHeaders(&self.handler.headers))
            .field("body_len", &self.body.len())
            .field("timeout", &self.timeout)
            .field("output_cap", &self.output_cap)
            .finish_non_exhaustive()
    }
}

/// Header names, with every value shown as `<redacted>`.
struct RedactedHeaders<'a>(&'a BTreeMap<String, String>);

impl fmt::Debug for RedactedHeaders<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.0.keys().map(|name| (name, format_args!("<redacted>"))))
            .finish()
    }
}

/// What the endpoint answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpOutput {
    /// The HTTP status, whatever it is: a non-2xx status is for the caller to judge.
    pub status: u16,
    /// The body, decoded as UTF-8 (invalid sequences become `U+FFFD`), at most
    /// [`HttpRequest::output_cap`] characters.
    pub body: String,
    /// Whether the body was longer than the cap (and was cut, or not read to its end).
    pub truncated: bool,
    /// How long the exchange took, from sending the request to the end of the body.
    pub duration: Duration,
}

/// Why an HTTP hook produced no answer. No variant carries a header value; URLs are shown
/// without user info, query or fragment.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HttpError {
    /// The HTTP client could not be set up (TLS initialisation).
    #[error("cannot build the HTTP client: {}", Chain(.error))]
    Client {
        /// What the HTTP library reported.
        error: reqwest::Error,
    },
    /// The URL is not an `http://` or `https://` URL.
    #[error("http hook URL `{url}` is not usable: {reason}")]
    InvalidUrl {
        /// The URL, as configured (without user info, query or fragment).
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A `${VAR}` reference names a variable that the lookup does not know (with
    /// `std::env::var`: not set, or not unicode).
    #[error("environment variable `{var}`{} is not set", used_by(.header))]
    MissingEnvVar {
        /// The variable.
        var: String,
        /// The header whose value references it (`None` from [`expand_env`] alone).
        header: Option<String>,
    },
    /// A header value has a malformed reference: `${` without `}`, or something other than a
    /// variable name between them (`${VAR:-default}`).
    #[error("malformed `${{VAR}}` reference{} at byte {position}: {reason}", used_by(.header))]
    BadTemplate {
        /// The header (`None` from [`expand_env`] alone).
        header: Option<String>,
        /// Byte offset of the `${` in the value.
        position: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// A header cannot be sent: its name is not a valid header name, its value (after
    /// expansion) has bytes a header cannot carry, or it is one the transport sets itself.
    #[error("header `{header}` cannot be sent: {reason}")]
    InvalidHeader {
        /// The header's name.
        header: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// The exchange did not finish within [`HttpRequest::timeout`].
    #[error("http hook {url} timed out after {timeout:?}")]
    Timeout {
        /// The URL (without user info, query or fragment).
        url: String,
        /// The timeout that ran out.
        timeout: Duration,
    },
    /// The endpoint could not be reached: name resolution, connection or TLS handshake failed.
    #[error("http hook {url}: cannot connect: {}", Chain(.error))]
    Connect {
        /// The URL (without user info, query or fragment).
        url: String,
        /// What the HTTP library reported (the cause is shown in this message, so it is not
        /// repeated as `source()`).
        error: reqwest::Error,
    },
    /// The connection was made but the exchange failed: sending the request or reading the
    /// answer broke off.
    #[error("http hook {url}: the request failed: {}", Chain(.error))]
    Transport {
        /// The URL (without user info, query or fragment).
        url: String,
        /// What the HTTP library reported (the cause is shown in this message, so it is not
        /// repeated as `source()`).
        error: reqwest::Error,
    },
}

/// ` (used by header `X`)`, or nothing.
fn used_by(header: &Option<String>) -> String {
    header
        .as_ref()
        .map(|h| format!(" (used by header `{h}`)"))
        .unwrap_or_default()
}

/// An error and its sources, joined by `: ` (repeated messages skipped).
struct Chain<'a>(&'a reqwest::Error);

impl fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut last = self.0.to_string();
        let mut source = self.0.source();
        while let Some(err) = source {
            let message = err.to_string();
            if !last.contains(&message) {
                write!(f, ": {message}")?;
            }
            last = message;
            source = err.source();
        }
        Ok(())
    }
}

impl HttpError {
    /// Names the header a template error comes from.
    fn in_header(self, name: &str) -> Self {
        match self {
            HttpError::MissingEnvVar { var, .. } => HttpError::MissingEnvVar {
                var,
                header: Some(name.to_owned()),
            },
            HttpError::BadTemplate {
                position, reason, ..
            } => HttpError::BadTemplate {
                header: Some(name.to_owned()),
                position,
                reason,
            },
            other => other,
        }
    }
}

/// A client to share between calls: it keeps connections open (build once, clone freely).
/// Calls must run inside a Tokio runtime with the time driver enabled.
#[derive(Clone)]
pub struct HttpClient {
    inner: reqwest::Client,
}

impl fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpClient").finish_non_exhaustive()
    }
}

impl HttpClient {
    /// A client with rustls, the platform's certificate verifier, no redirects, and proxies
    /// from the usual environment variables (`HTTPS_PROXY`, `NO_PROXY`, …).
    pub fn new() -> Result<Self, HttpError> {
        let inner = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .redirect(redirect::Policy::none())
            .build()
            .map_err(|error| HttpError::Client { error })?;
        Ok(HttpClient { inner })
    }

    /// Sends one request and reads the answer (see the [module docs](self) for the rules).
    ///
    /// A non-2xx status is an `Ok`; an error means no answer: bad configuration (URL, header
    /// template, missing variable), no connection, a broken exchange, or the timeout.
    pub async fn post(&self, req: &HttpRequest<'_>) -> Result<HttpOutput, HttpError> {
        let url_text = display_url(&req.handler.url);
        let url = parse_url(&req.handler.url, &url_text)?;
        let headers = request_headers(&req.handler.headers, req.env)?;
        let started = Instant::now();
        let exchange = self.exchange(url, headers, req.body, req.output_cap, &url_text);
        let Ok(answer) = tokio::time::timeout(req.timeout, exchange).await else {
            tracing::debug!(url = %url_text, timeout = ?req.timeout, "http hook timed out");
            return Err(HttpError::Timeout {
                url: url_text,
                timeout: req.timeout,
            });
        };
        let (status, body, truncated) = answer?;
        let duration = started.elapsed();
        tracing::debug!(
            url = %url_text,
            status,
            bytes = body.len(),
            truncated,
            ?duration,
            "http hook answered"
        );
        Ok(HttpOutput {
            status,
            body,
            truncated,
            duration,
        })
    }

    /// The request and the bounded read of the answer, without the timeout.
    async fn exchange(
        &self,
        url: Url,
        headers: HeaderMap,
        body: &[u8],
        cap: usize,
        url_text: &str,
    ) -> Result<(u16, String, bool), HttpError> {
        let mut response = self
            .inner
            .post(url)
            .headers(headers)
            .body(body.to_vec())
            .send()
            .await
            .map_err(|e| transport_error(e, url_text))?;
        let status = response.status().as_u16();

        // `cap` characters take at most 4 bytes each; one more character's worth tells that
        // there was more. Past that, stop reading: dropping the response closes the
        // connection instead of draining it.
        let limit = cap.saturating_add(1).saturating_mul(4);
        let expected = response
            .content_length()
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0);
        let mut bytes = Vec::with_capacity(expected.min(limit).min(64 * 1024));
        let mut cut_short = false;
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| transport_error(e, url_text))?
        {
            let room = limit - bytes.len();
            if chunk.len() > room {
                bytes.extend_from_slice(&chunk[..room]);
                cut_short = true;
                break;
            }
            bytes.extend_from_slice(&chunk);
        }
        drop(response);

        let (body, cut) = keep_chars(String::from_utf8_lossy(&bytes), cap);
        Ok((status, body, cut || cut_short))
    }
}

/// The first `cap` characters of `text`, and whether anything was cut.
fn keep_chars(text: Cow<'_, str>, cap: usize) -> (String, bool) {
    match text.char_indices().nth(cap) {
        Some((end, _)) => (text[..end].to_owned(), true),
        None => (text.into_owned(), false),
    }
}

fn transport_error(error: reqwest::Error, url: &str) -> HttpError {
    // reqwest errors carry the full URL, query included: drop it, ours is redacted.
    let error = error.without_url();
    let url = url.to_owned();
    if error.is_connect() {
        HttpError::Connect { url, error }
    } else {
        HttpError::Transport { url, error }
    }
}

/// An `http://` or `https://` URL with a host.
fn parse_url(raw: &str, shown: &str) -> Result<Url, HttpError> {
    let invalid = |reason: String| HttpError::InvalidUrl {
        url: shown.to_owned(),
        reason,
    };
    let url = Url::parse(raw.trim()).map_err(|e| invalid(e.to_string()))?;
    match url.scheme() {
        "http" | "https" => {}
        other => {
            return Err(invalid(format!(
                "the scheme must be http or https, not `{other}`"
            )));
        }
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(invalid("it has no host".to_owned()));
    }
    Ok(url)
}

/// A URL as it may be shown: without user info, query and fragment, which may hold secrets.
fn display_url(raw: &str) -> String {
    let raw = raw.trim();
    let raw = &raw[..raw.find(['?', '#']).unwrap_or(raw.len())];
    let Some(scheme_end) = raw.find("://") else {
        return raw.to_owned();
    };
    let authority_start = scheme_end + 3;
    let authority_end = raw[authority_start..]
        .find('/')
        .map_or(raw.len(), |i| authority_start + i);
    match raw[authority_start..authority_end].rfind('@') {
        Some(at) => format!(
            "{}{}",
            &raw[..authority_start],
            &raw[authority_start + at + 1..]
        ),
        None => raw.to_owned(),
    }
}

/// `Content-Type: application/json`, then the configured headers, expanded. A configured
/// `Content-Type` replaces the default; the framing headers (`Content-Length`,
/// `Transfer-Encoding`) are the transport's and are refused.
fn request_headers(
    configured: &BTreeMap<String, String>,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
) -> Result<HeaderMap, HttpError> {
    let mut headers = HeaderMap::with_capacity(configured.len() + 1);
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    for (name, template) in configured {
        let invalid = |reason| HttpError::InvalidHeader {
            header: name.clone(),
            reason,
        };
        let key = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| invalid("not a valid header name"))?;
        if key == CONTENT_LENGTH || key == TRANSFER_ENCODING {
            return Err(invalid("it is set by the transport"));
        }
        let value = expand_env(template, env).map_err(|e| e.in_header(name))?;
        let mut value = HeaderValue::from_bytes(value.as_bytes())
            .map_err(|_| invalid("its value (after `${VAR}` expansion) has a control character"))?;
        value.set_sensitive(true);
        if key == CONTENT_TYPE {
            headers.insert(key, value);
        } else {
            headers.append(key, value);
        }
    }
    Ok(headers)
}

/// Expands the `${NAME}` references of a header value.
///
/// - `${NAME}` is replaced by `lookup(NAME)`; `NAME` is a variable name (`[A-Za-z_][A-Za-z0-9_]*`).
///   Substituted values are not expanded again.
/// - A variable the lookup does not know is [`HttpError::MissingEnvVar`], naming the variable:
///   an empty value is never sent in its place.
/// - A `$` not followed by `{` is an ordinary character: `$HOME`, `$$` and a trailing `$` are
///   sent as written. There is no escape, so a value cannot contain a literal `${`.
/// - `${` without a closing `}`, and `${…}` around anything other than a variable name
///   (`${}`, `${VAR:-default}`), are [`HttpError::BadTemplate`].
///
/// Errors name the variable and the position, never a value.
///
/// ```
/// use hookrail_config::http::{HttpError, expand_env};
///
/// let env = |name: &str| (name == "TOKEN").then(|| "abc".to_owned());
/// assert_eq!(expand_env("Bearer ${TOKEN}", env).unwrap(), "Bearer abc");
/// assert_eq!(expand_env("pa$$word $TOKEN", env).unwrap(), "pa$$word $TOKEN");
/// let err = expand_env("${NOPE}", env).unwrap_err();
/// assert!(matches!(err, HttpError::MissingEnvVar { ref var, .. } if var == "NOPE"));
/// ```
pub fn expand_env(
    template: &str,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<String, HttpError> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    let mut offset = 0;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let bad = |reason| HttpError::BadTemplate {
            header: None,
            position: offset + start,
            reason,
        };
        let after = &rest[start + 2..];
        let end = after.find('}').ok_or_else(|| bad("`${` is not closed"))?;
        let name = &after[..end];
        if !is_var_name(name) {
            return Err(bad(
                "not a variable name (only `${NAME}` is supported, no defaults or other shell forms)",
            ));
        }
        let value = lookup(name).ok_or_else(|| HttpError::MissingEnvVar {
            var: name.to_owned(),
            header: None,
        })?;
        out.push_str(&value);
        let consumed = start + 2 + end + 1;
        offset += consumed;
        rest = &rest[consumed..];
    }
    out.push_str(rest);
    Ok(out)
}

fn is_var_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_url_drops_user_info_query_and_fragment() {
        assert_eq!(
            display_url("https://user:pw@h.test:8443/a/b?token=x#frag"),
            "https://h.test:8443/a/b"
        );
        assert_eq!(display_url("http://h.test"), "http://h.test");
        assert_eq!(display_url(" http://a@b@h.test?q "), "http://h.test");
        assert_eq!(display_url("not a url?secret"), "not a url");
    }

    #[test]
    fn keep_chars_counts_characters_not_bytes() {
        assert_eq!(keep_chars("héllo".into(), 2), ("hé".to_owned(), true));
        assert_eq!(keep_chars("héllo".into(), 5), ("héllo".to_owned(), false));
        assert_eq!(keep_chars("".into(), 0), (String::new(), false));
        assert_eq!(keep_chars("x".into(), 0), (String::new(), true));
    }

    #[test]
    fn var_names() {
        for ok in ["A", "_", "a_1", "TOKEN"] {
            assert!(is_var_name(ok), "{ok}");
        }
        for bad in ["", "1A", "A-B", "A:-x", "A B", "é"] {
            assert!(!is_var_name(bad), "{bad}");
        }
    }
}
