//! Counting `tracing` events in a test, without touching the global subscriber: the capture
//! is the current thread's default subscriber until its guard drops (use it in sync tests and
//! in `#[tokio::test]`s on the default current-thread runtime).
//!
//! Include it with `#[path = "support/logs.rs"] mod logs;` (or from another crate's tests with
//! a relative `#[path]`); it needs `tracing` and `tracing-subscriber` as dev-dependencies.

#![allow(dead_code)]

use std::fmt::Write as _;
use std::sync::{Arc, Mutex, PoisonError};

use tracing::field::{Field, Visit};
use tracing::subscriber::DefaultGuard;
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};

/// One captured event.
#[derive(Debug, Clone)]
pub struct Logged {
    pub level: Level,
    pub target: String,
    pub message: String,
    /// The other fields, as `name=value` separated by spaces.
    pub fields: String,
}

impl Logged {
    /// The message and the fields, for `contains` checks.
    pub fn text(&self) -> String {
        format!("{} {}", self.message, self.fields)
    }
}

/// The events captured since [`Logs::capture`].
#[derive(Clone, Default)]
pub struct Logs {
    events: Arc<Mutex<Vec<Logged>>>,
}

impl Logs {
    /// Start capturing every event of this thread (all levels) until the guard drops.
    pub fn capture() -> (Logs, DefaultGuard) {
        let logs = Logs::default();
        let subscriber = tracing_subscriber::registry().with(Capture(logs.clone()));
        let guard = tracing::subscriber::set_default(subscriber);
        (logs, guard)
    }

    /// Every event so far.
    pub fn all(&self) -> Vec<Logged> {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The events at `level` whose message or fields contain every one of `needles`.
    pub fn matching(&self, level: Level, needles: &[&str]) -> Vec<Logged> {
        self.all()
            .into_iter()
            .filter(|e| e.level == level)
            .filter(|e| {
                let text = e.text();
                needles.iter().all(|n| text.contains(n))
            })
            .collect()
    }

    /// How many events at `level` contain every one of `needles`.
    pub fn count(&self, level: Level, needles: &[&str]) -> usize {
        self.matching(level, needles).len()
    }
}

struct Capture(Logs);

impl<S: Subscriber> Layer<S> for Capture {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let mut visitor = Fields::default();
        event.record(&mut visitor);
        let logged = Logged {
            level: *event.metadata().level(),
            target: event.metadata().target().to_owned(),
            message: visitor.message,
            fields: visitor.fields,
        };
        self.0
            .events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(logged);
    }
}

#[derive(Default)]
struct Fields {
    message: String,
    fields: String,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message = value.to_owned();
        } else {
            let _ = write!(self.fields, "{}={} ", field.name(), value);
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.message = format!("{value:?}");
        } else {
            let _ = write!(self.fields, "{}={:?} ", field.name(), value);
        }
    }
}
