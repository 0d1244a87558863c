//! Errors building a [`Webhooks`](super::Webhooks) sender.

/// Why a [`Webhooks`](super::Webhooks) sender could not start. Never contains a secret; URLs
/// appear without credentials, query or fragment.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WebhookError {
    /// An endpoint's URL does not parse.
    #[error("webhook endpoint #{index}: invalid URL: {reason}")]
    InvalidUrl {
        /// Position of the endpoint in the configuration.
        index: usize,
        /// What the URL parser said (the URL itself is not repeated).
        reason: String,
    },
    /// An endpoint's URL is neither `http` nor `https`.
    #[error("webhook endpoint #{index} ({url}): unsupported scheme `{scheme}` (use http or https)")]
    UnsupportedScheme {
        /// Position of the endpoint in the configuration.
        index: usize,
        /// The URL, redacted.
        url: String,
        /// The scheme found.
        scheme: String,
    },
    /// The HTTP client could not be built (TLS setup).
    #[error("webhooks: cannot build the HTTP client: {0}")]
    Client(String),
    /// The background runtime or thread could not be started.
    #[error("webhooks: cannot start the delivery thread: {0}")]
    Start(#[source] std::io::Error),
}
