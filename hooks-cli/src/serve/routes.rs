//! The routes of `hooks serve` and the token check in front of them.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::Poll;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Extension, Request, State as Shared};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Json, Response};
use axum::routing::{get, post};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use serde_json::{Value, json};

use super::{Counts, State};
use crate::reply::{self, Reply, can_block};
use hookrail_config::fire::FireOptions;

const WHO: &str = "hooks serve";

pub(super) fn router(state: Arc<State>) -> Router {
    Router::new()
        .route("/claude", post(claude))
        .route("/health", get(health))
        .route("/hooks", get(hooks))
        .layer(middleware::from_fn_with_state(
            Arc::clone(&state),
            authorize,
        ))
        .with_state(state)
}

/// Every route needs the bearer token; a request without it is refused and logged.
async fn authorize(Shared(state): Shared<Arc<State>>, request: Request, next: Next) -> Response {
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .map(axum::http::HeaderValue::as_bytes);
    if state.token.admits(given) {
        return next.run(request).await;
    }
    Counts::add(&state.counts.unauthorized);
    tracing::warn!(
        method = %request.method(),
        path = %request.uri().path(),
        "refused a request without the token ({})",
        if given.is_some() { "wrong token" } else { "no Authorization header" }
    );
    // Where the token lives is for the log, not for whoever knocked; the connection is closed
    // so that a caller without the token cannot hold it open.
    let body = json!({ "error": "this daemon needs `Authorization: Bearer <token>`" });
    (
        StatusCode::UNAUTHORIZED,
        [(header::CONNECTION, "close")],
        Json(body),
    )
        .into_response()
}

/// A Claude Code hook payload in, Claude Code's answer out: always status 200 with the answer
/// as the body, a payload it refused to read included. Claude Code takes a non-2xx status as
/// a non-blocking error unless the hook says `onFailure: "block"`, so a refusal sent as 413
/// would let the call through for a user who left that out.
///
/// A forwarding client (`hooks claude`, `hooks-forward`) asks for the command form
/// ([`hookrail_forward::FORM_HEADER`]): what `hooks claude` would print and its exit code,
/// which it writes as it came. The request's [`ENV_FILE_HEADER`](super::ENV_FILE_HEADER) (see
/// [`env_file`]) is the `CLAUDE_ENV_FILE` of its command hooks.
async fn claude(
    Shared(state): Shared<Arc<State>>,
    over_socket: Option<Extension<OverSocket>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    Counts::add(&state.counts.requests);
    let command_form = headers
        .get(hookrail_forward::FORM_HEADER)
        .is_some_and(|v| v.as_bytes() == hookrail_forward::COMMAND_FORM.as_bytes());
    let env_file = env_file(&headers, over_socket.is_some());
    if let Err(why) = &env_file {
        tracing::warn!("{why}");
    }
    let reply = match read(&state, body).await {
        Ok(bytes) => {
            let shared = Arc::clone(&state);
            isolated(async move { decide(&shared, &bytes, env_file).await }).await
        }
        Err(message) => Reply::refuse(None, None, &message),
    };
    if reply.code != 0 {
        Counts::add(&state.counts.refused);
        for line in &reply.said {
            tracing::warn!("{line}");
        }
    }
    if reply.blocks() {
        Counts::add(&state.counts.blocked);
    }
    let identity = [(super::IDENTITY_HEADER, state.identity.clone())];
    if command_form {
        return (
            StatusCode::OK,
            identity,
            Json(reply.command_form("hooks claude")),
        )
            .into_response();
    }
    (StatusCode::OK, identity, Json(reply.http_body())).into_response()
}

/// Runs a decision so that a panic anywhere in it is an answer that blocks, not a dropped
/// connection (which Claude Code would take as "proceed"), and so that once it waits on
/// something (a command hook, an HTTP hook) it runs to the end even if the client goes away,
/// as the hooks it started expect.
///
/// It is polled here first: the builtin and compiled policies decide without waiting, and a
/// task of its own for them cost a hop through the scheduler (often to the other worker
/// thread) on every request. Only a decision that is still pending after that poll moves to a
/// task of its own.
async fn isolated<F>(decision: F) -> Reply
where
    F: Future<Output = Reply> + Send + 'static,
{
    let mut decision = Box::pin(decision);
    let first = std::future::poll_fn(|cx| {
        // The future is never polled again after a panic: either way this poll is the last one
        // here, and a pending decision moves to its task below.
        let polled = std::panic::catch_unwind(AssertUnwindSafe(|| decision.as_mut().poll(cx)));
        Poll::Ready(polled)
    })
    .await;
    match first {
        Ok(Poll::Ready(reply)) => reply,
        Ok(Poll::Pending) => match tokio::spawn(decision).await {
            Ok(reply) => reply,
            Err(e) => Reply::refuse(None, None, &format!("the decision failed ({e}); blocked")),
        },
        Err(panic) => Reply::refuse(
            None,
            None,
            &format!(
                "the decision failed (it panicked: {}); blocked",
                panic_text(panic.as_ref())
            ),
        ),
    }
}

/// A panic's message, when it has one.
fn panic_text(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("no message")
}

/// The body, at most `max_bytes` and within the payload timeout.
async fn read(state: &State, body: Body) -> Result<Bytes, String> {
    let max = state.limits.max_bytes;
    let limited = Limited::new(body, max);
    match tokio::time::timeout(state.limits.timeout, limited.collect()).await {
        Err(_) => Err(format!(
            "the payload did not arrive within {} ms (--payload-timeout); blocked",
            state.limits.timeout.as_millis()
        )),
        Ok(Err(e)) if e.is::<LengthLimitError>() => Err(format!(
            "the payload is over {max} bytes (--max-payload); blocked"
        )),
        Ok(Err(e)) => Err(format!("the payload could not be read: {e}; blocked")),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
    }
}

/// Marks the requests that came over the Unix socket (a layer of that listener's router): only
/// theirs is [`ENV_FILE_HEADER`](super::ENV_FILE_HEADER) honoured.
#[derive(Debug, Clone, Copy)]
pub(super) struct OverSocket;

/// The `CLAUDE_ENV_FILE` that `hooks claude` forwarded with the request
/// ([`ENV_FILE_HEADER`](super::ENV_FILE_HEADER)): `Ok(None)` without the header (Claude Code's
/// own HTTP hooks never send it). A header that is given but cannot be honoured is `Err`,
/// saying why: given twice, over TCP (where a token holder on another host could otherwise
/// have this user's hooks append to any file), not UTF-8, or not an absolute path. The hooks
/// then run without `CLAUDE_ENV_FILE`, which the answer says (never a silent drop); no event
/// that has it can block, and what blocks does not depend on it.
fn env_file(headers: &HeaderMap, over_socket: bool) -> Result<Option<String>, String> {
    let mut given = headers.get_all(super::ENV_FILE_HEADER).iter();
    let Some(value) = given.next() else {
        return Ok(None);
    };
    let refused = |why: String| {
        Err(format!(
            "the `{}` header {why}, so this event's hooks ran without `{}`",
            super::ENV_FILE_HEADER,
            super::ENV_FILE_VAR
        ))
    };
    if given.next().is_some() {
        return refused("is given more than once".to_owned());
    }
    if !over_socket {
        return refused(
            "is honoured only from `hooks claude` over the daemon's Unix socket, not over TCP"
                .to_owned(),
        );
    }
    let Ok(path) = std::str::from_utf8(value.as_bytes()) else {
        return refused("is not UTF-8".to_owned());
    };
    if !std::path::Path::new(path).is_absolute() {
        return refused(format!("is not an absolute path ({path:?})"));
    }
    Ok(Some(path.to_owned()))
}

/// The same steps as `hooks claude`, on the loaded hooks; the hooks' run has the request's
/// deadline, past which the event is refused (blocked where it can be). Its command hooks get
/// `env_file` as `CLAUDE_ENV_FILE` (see [`env_file`]), and never one this daemon inherited.
async fn decide(state: &State, bytes: &[u8], env_file: Result<Option<String>, String>) -> Reply {
    let payload = match hookrail_config::payload::parse(bytes) {
        Ok(payload) => payload,
        Err(e) => return Reply::refuse(None, None, &e.to_string()),
    };
    let (point, event) = match reply::point_of(&payload) {
        Ok(found) => found,
        Err(refused) => return *refused,
    };
    let mut notes = state.missing.clone();
    // One daemon serves one project: an event from another project's session would be judged
    // against this one's configuration and root.
    if let Some(elsewhere) = outside_project(&payload, &state.canonical_root) {
        // Without a `cwd` nothing is known of the event's project: no hook of this one runs.
        if can_block(Some(point)) || payload.get("cwd").and_then(Value::as_str).is_none() {
            return Reply::refuse(Some(point), Some(&event), &elsewhere);
        }
        notes.push(elsewhere);
    }
    let problems = state
        .problems
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    if let Some(problems) = problems {
        if can_block(Some(point)) {
            return Reply::refuse(Some(point), Some(&event), &problems);
        }
        notes.push(problems);
    }
    if state.builtin_stale.load(Ordering::SeqCst) && can_block(Some(point)) {
        notes.push(
            "the `builtin:` section changed since `hooks serve` started and is not applied yet: restart it".to_owned(),
        );
    }
    let config = state.pipeline.configured.config();
    notes.extend(reply::event_notes(&config, point));
    let options = FireOptions::new().project_dir(&state.root);
    let options = match env_file {
        Ok(Some(path)) => options.env(super::ENV_FILE_VAR, path),
        // Another session's (this daemon was started from one): not this request's.
        Ok(None) if state.inherited_env_file => options.env_remove(super::ENV_FILE_VAR),
        Ok(None) => options,
        Err(why) => {
            notes.push(why);
            options.env_remove(super::ENV_FILE_VAR)
        }
    };
    let run = reply::fire(&state.pipeline.hooks, point, payload, options);
    match tokio::time::timeout(state.deadline, run).await {
        Ok(fired) => reply::answer(fired, point, &event, notes, WHO),
        Err(_) => Reply::refuse(
            Some(point),
            Some(&event),
            &format!(
                "no decision within {} ms (--request-timeout)",
                state.deadline.as_millis()
            ),
        ),
    }
}

/// Why the payload's session is not this daemon's project, if its `cwd` lies outside the
/// canonical `root`, or if it has no `cwd` string (older Claude Code versions send none; a
/// daemon runs in a directory of its own, so it cannot tell whose event that is, and never
/// takes it as its own: `hooks claude` fills the `cwd` in before it forwards).
fn outside_project(payload: &Value, root: &std::path::Path) -> Option<String> {
    let Some(cwd) = payload.get("cwd").and_then(Value::as_str) else {
        return Some(format!(
            "the payload has no `cwd` string, so this daemon (serving {}) cannot tell which project the event comes from; send it through `hooks claude`, which fills in its working directory",
            root.display()
        ));
    };
    let cwd = std::path::Path::new(cwd);
    // A plain `cwd` under the root as given needs no file-system call; otherwise (`..`,
    // links) it is resolved first.
    let plain = !cwd
        .components()
        .any(|c| matches!(c, std::path::Component::ParentDir));
    if plain && cwd.starts_with(root) {
        return None;
    }
    let cwd = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_owned());
    (!cwd.starts_with(root)).then(|| {
        format!(
            "this daemon serves the project {}, and the event comes from {} (another project): start a `hooks serve` for that project, on another --listen address",
            root.display(),
            cwd.display()
        )
    })
}

/// Readiness, the configuration's generation and the counts.
async fn health(Shared(state): Shared<Arc<State>>) -> Json<Value> {
    let counts = &state.counts;
    let load = |c: &std::sync::atomic::AtomicU64| c.load(Ordering::Relaxed);
    Json(json!({
        "ready": true,
        "version": env!("CARGO_PKG_VERSION"),
        "generation": state.generation.load(Ordering::SeqCst),
        "project": state.root.display().to_string(),
        "hooks": state.pipeline.hooks.list().len(),
        "requests": load(&counts.requests),
        "blocked": load(&counts.blocked),
        "refused": load(&counts.refused),
        "unauthorized": load(&counts.unauthorized),
        "audit": state.audit_health(),
    }))
}

/// What `hooks list --json` shows.
async fn hooks(Shared(state): Shared<Arc<State>>) -> Response {
    match crate::list::rows(&state.pipeline, &state.args) {
        Ok(rows) => Json(rows).into_response(),
        Err(e) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(json!({ "error": e.to_string() })),
        )
            .into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_decision_that_panics_blocks_whether_it_waited_or_not() {
        let at_once = isolated(async { panic!("boom") }).await;
        assert!(at_once.blocks(), "{at_once:?}");
        assert!(at_once.said[0].contains("it panicked: boom"), "{at_once:?}");
        let later = isolated(async {
            tokio::task::yield_now().await;
            panic!("later")
        })
        .await;
        assert!(later.blocks(), "{later:?}");
        assert!(later.said[0].contains("the decision failed"), "{later:?}");
    }

    #[tokio::test]
    async fn a_pending_decision_runs_to_its_answer() {
        let reply = isolated(async {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            Reply::refuse(Some("session_end"), Some("SessionEnd"), "after a wait")
        })
        .await;
        assert_eq!(reply.code, 1);
        assert_eq!(reply.said, ["after a wait"]);
    }

    #[test]
    fn the_env_file_header_is_an_absolute_path_over_the_socket_or_is_refused_saying_why() {
        use axum::http::HeaderValue;
        let headers = |values: &[&[u8]]| {
            let mut map = HeaderMap::new();
            for value in values {
                map.append(
                    super::super::ENV_FILE_HEADER,
                    HeaderValue::from_bytes(value).unwrap(),
                );
            }
            map
        };
        assert_eq!(env_file(&headers(&[]), true), Ok(None));
        assert_eq!(env_file(&headers(&[]), false), Ok(None));
        assert_eq!(
            env_file(&headers(&[b"/tmp/s/env.sh"]), true),
            Ok(Some("/tmp/s/env.sh".to_owned()))
        );
        let refused = |values: &[&[u8]], over_socket: bool| {
            let why = env_file(&headers(values), over_socket).unwrap_err();
            assert!(why.contains("ran without `CLAUDE_ENV_FILE`"), "{why}");
            why
        };
        assert!(refused(&[b"/tmp/s/env.sh"], false).contains("not over TCP"));
        assert!(refused(&[b"env.sh"], true).contains("not an absolute path"));
        assert!(refused(&[b""], true).contains("not an absolute path"));
        assert!(refused(&[b"/tmp/\xff"], true).contains("not UTF-8"));
        assert!(refused(&[b"/a", b"/b"], true).contains("more than once"));
    }

    #[test]
    fn an_event_from_outside_the_root_is_another_project() {
        let root = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(root.path()).unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        let at = |cwd: &std::path::Path| outside_project(&json!({ "cwd": cwd }), &root);
        assert_eq!(at(&root), None);
        assert_eq!(at(&root.join("sub")), None);
        assert!(at(std::path::Path::new("/etc")).is_some());
        // Lexically under the root, really outside it.
        let escaped = at(&root.join("sub").join("..").join("..")).unwrap();
        assert!(escaped.contains("another project"), "{escaped}");
        // No cwd (older Claude Code): not taken as this project's.
        let unknown = outside_project(&json!({}), &root).unwrap();
        assert!(unknown.contains("no `cwd`"), "{unknown}");
    }
}
