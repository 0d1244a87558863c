//! `hooks serve`: one long-lived process that answers Claude Code's `http` hooks.
//!
//! It loads the project's hooks once (project file, `.hooks/`, `--settings`, `--plugin-root`,
//! builtin policies, the `#[hook]` fns linked into the binary), keeps them loaded, reloads
//! the configured hooks when their files change (a bad edit keeps the last good set) and
//! answers each `POST /claude` with the decision `hooks claude` gives for the same payload
//! ([`crate::reply`] is shared), without a process per event.
//!
//! | route | answer |
//! |---|---|
//! | `POST /claude` | a Claude Code hook payload in, Claude Code's answer out (always a JSON body) |
//! | `GET /health` | readiness, the configuration's generation, request and decision counts |
//! | `GET /hooks` | what `hooks list --json` shows |
//!
//! # Secure by default
//!
//! - It listens on `127.0.0.1:8717` (`--listen`) for Claude Code's `http` hooks, and on a Unix
//!   socket of mode 0600 (`--socket`, by default next to its state file) for `hooks claude`
//!   to forward to. A non-loopback address is refused unless `--allow-remote` is given.
//! - Every request carries `Authorization: Bearer <token>` ([`token`]); one without it gets
//!   401, logged at `warn`.
//! - A body over `--max-payload` (16 MiB), one not received within `--payload-timeout`
//!   (10 s) and a payload with a key given twice are refused: answered "block", with status
//!   200 (Claude Code ignores the body of any other status).
//! - Each request has a deadline (`--request-timeout`, 120 s: above the default timeout of a
//!   command hook). A request the daemon cannot decide — a payload it cannot read, a deadline
//!   passed, a configuration whose entries have problems — is answered "block" at a point that
//!   can block ([`Reply::http_body`](crate::reply::Reply::http_body)), and the documented
//!   settings snippet sets `onFailure: "block"`, so an unreachable daemon fails closed too.
//!
//! # What stays the same as `hooks claude`, and what does not (yet)
//!
//! The decision for a payload is the same (tested over a payload set), and the command hooks of
//! a request forwarded by `hooks claude` get its `CLAUDE_ENV_FILE` ([`ENV_FILE_HEADER`]; Claude
//! Code's own `http` hooks have none to send). Differences: nested
//! `hooks claude` detection does not apply (the daemon is not a child of a hook); a change of
//! the `builtin:` section needs a restart (configured hooks reload, builtin policies are built
//! once: the reload says so); stateful builtin policies keep their state between events, and
//! across restarts in an SQLite file (`--policy-state`; written once a second and at a clean
//! stop). On SIGTERM or SIGINT it stops accepting,
//! finishes the requests in flight, flushes the webhooks for `--webhook-flush` and the
//! OpenTelemetry export (on when an OTLP endpoint is configured: `--otlp-endpoint`), closes the audit
//! and exits 0.

pub(crate) mod forward;
pub(crate) mod found;
mod otel;
mod routes;
#[cfg(feature = "builtin")]
mod saved;
mod slow_clients;
#[cfg(test)]
mod tests;
pub mod token;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::serve::ListenerExt;
use clap::Args;
use hookrail_config::payload::Limits;
use hookrail_config::reload::{ReloadOutcome, Reloader};

use crate::CliError;
use crate::limits::{LimitArgs, parse_duration};
use crate::load::{ConfigArgs, Pipeline, build, load_present};
use crate::nested::NESTED_ENV;

pub use hookrail_forward::IDENTITY_HEADER;

pub use hookrail_forward::{ENV_FILE_HEADER, ENV_FILE_VAR};

/// The most connections served at once, per listener, so a local client cannot exhaust the
/// daemon's descriptors. At the cap, a new connection is served in place of the one that has
/// waited longest for a request's headers (an idle or slow client): anyone on the machine can
/// open connections without the token, and they must not keep an agent's hooks waiting.
pub const MAX_CONNECTIONS: usize = 1024;

/// The address `hooks serve` listens on by default.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8717";

/// Options of `hooks serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address Claude Code's `http` hooks post to (loopback unless --allow-remote).
    #[arg(long, value_name = "ADDR:PORT", default_value = DEFAULT_LISTEN)]
    pub listen: SocketAddr,
    /// The Unix socket (made with mode 0600) that `hooks claude` forwards to. Default:
    /// $XDG_STATE_HOME/hookrail/daemons/<project key>.sock.
    #[arg(long, value_name = "PATH")]
    pub socket: Option<PathBuf>,
    /// Allow a non-loopback --listen address (every request still needs the token).
    #[arg(long)]
    pub allow_remote: bool,
    /// The token file. Default: $HOOKS_TOKEN if set, else $XDG_STATE_HOME/hookrail/token
    /// (made with mode 0600 on first start).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// How long a client may take to send a request's headers before the connection is
    /// closed (slowloris), counted from the connection's start or its last answer; it is
    /// closed within a quarter of this (at most 1 s) after it runs out.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "10s")]
    pub header_timeout: Duration,
    /// How long one request may take before it is answered "block" (`120s`, `500ms`).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "120s")]
    pub request_timeout: Duration,
    /// Export every hook run as OpenTelemetry spans and metrics to this OTLP/HTTP receiver
    /// (`http://collector:4318`). Default: $OTEL_EXPORTER_OTLP_ENDPOINT (or the per-signal
    /// variables) when set; otherwise nothing is exported.
    #[arg(long, value_name = "URL")]
    pub otlp_endpoint: Option<String>,
    /// The SQLite file that keeps the state of the stateful builtin policies (rate limits,
    /// budget spend, reviewer locks) across restarts. Default:
    /// $XDG_STATE_HOME/hookrail/daemons/<project key>.policies.db.
    #[arg(long, value_name = "FILE")]
    pub policy_state: Option<PathBuf>,
    #[command(flatten)]
    pub config: ConfigArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// What every request reads: the hooks, the configuration and the counters.
pub(crate) struct State {
    pipeline: Pipeline,
    /// Kept for its watcher: dropping it stops the reloads.
    _reloader: Option<Reloader>,
    /// Problems of the configuration on disk (entries left out at start, or an edit the reload
    /// rejected): blocking at guard points, as `hooks claude` does for the same files, until a
    /// good edit is loaded.
    problems: Arc<std::sync::Mutex<Option<String>>>,
    /// Set when the `builtin:` section on disk is no longer the one running (said in answers).
    builtin_stale: Arc<std::sync::atomic::AtomicBool>,
    /// Said in every answer: files named by options that do not exist.
    missing: Vec<String>,
    root: PathBuf,
    /// `root`, canonical (computed once: every request compares the payload's `cwd` with it).
    canonical_root: PathBuf,
    limits: Limits,
    deadline: Duration,
    token: token::Token,
    args: ConfigArgs,
    generation: Arc<AtomicU64>,
    counts: Counts,
    /// What this daemon serves ([`found::identity`]), sent with every answer.
    identity: String,
    /// Whether this process inherited a [`ENV_FILE_VAR`] (started from a session's hook): it is
    /// that session's, so a request that names none keeps it from its hooks.
    inherited_env_file: bool,
}

impl State {
    /// The audit's counters for `/health`, or `null` without an audit. A record counted in
    /// `written` is *acknowledged*: the writer has committed the transaction that holds it, so
    /// it survives the daemon being killed (SQLite WAL; with `synchronous: full` also a power
    /// loss). A decision answered but not yet counted here can still be lost to a SIGKILL.
    fn audit_health(&self) -> serde_json::Value {
        #[cfg(feature = "builtin")]
        if let Some(audit) = self.pipeline.builtins.audit() {
            let stats = audit.stats();
            return serde_json::json!({
                "written": stats.written,
                "queued": stats.queued,
                "dropped": stats.dropped,
                "failed": stats.failed,
                "last_error": stats.last_error,
            });
        }
        serde_json::Value::Null
    }
}

/// Request and decision counts for `/health`.
#[derive(Debug, Default)]
pub(crate) struct Counts {
    requests: AtomicU64,
    blocked: AtomicU64,
    refused: AtomicU64,
    unauthorized: AtomicU64,
}

impl Counts {
    fn add(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// Runs the daemon until SIGTERM or SIGINT.
///
/// # Errors
///
/// [`CliError`] when it cannot start: a refused address or project root, a configuration or
/// token that cannot be read, a socket that cannot be bound.
pub async fn run(args: ServeArgs) -> Result<ExitCode, CliError> {
    if !args.listen.ip().is_loopback() && !args.allow_remote {
        return Err(CliError::Input(format!(
            "{} is not a loopback address: anyone who can reach it could ask for decisions; give --allow-remote to listen there anyway (every request still needs the token)",
            args.listen
        )));
    }
    let token = token::Token::load(args.token_file.as_deref())?;
    let limits = args.limits.payload()?;
    let flush = args.limits.webhook_flush()?;
    let root = args.config.project_dir();
    crate::load::check_root(&root)?;
    let root_for_identity = root.clone();
    let (config, missing) = load_present(&args.config)?;
    let missing: Vec<String> = missing.iter().map(ToString::to_string).collect();
    for line in &missing {
        tracing::warn!("{line}");
    }
    // Said once, at load: they change nothing that runs (`hooks validate` lists them too).
    for note in &config.notes {
        tracing::info!("{note}");
    }
    let problems = Arc::new(std::sync::Mutex::new(
        (!config.problems.is_empty()).then(|| crate::claude::problems_text(&config)),
    ));
    let builtin_stale = Arc::new(std::sync::atomic::AtomicBool::new(false));
    // A hook the daemon runs that runs `hooks claude` is nested: that one decides in its own
    // process (where recursion is caught) instead of asking the daemon again.
    let pipeline = build(&args.config, config, &[(NESTED_ENV, "1:1:".to_owned())])?;
    let (delivery, not_started) = crate::deliver::Delivery::start(&pipeline, flush);
    for line in &not_started {
        tracing::warn!("{line}");
    }
    let export = otel::Export::start(args.otlp_endpoint.as_deref(), &pipeline.hooks, &root)?;
    let generation = Arc::new(AtomicU64::new(1));
    let reloader = watch(
        &args.config,
        &pipeline,
        &generation,
        &problems,
        &builtin_stale,
    );
    let state = Arc::new(State {
        pipeline,
        _reloader: reloader,
        problems,
        builtin_stale,
        missing,
        canonical_root: std::fs::canonicalize(&root).unwrap_or_else(|_| root.clone()),
        root,
        limits,
        deadline: args.request_timeout,
        token,
        args: args.config.clone(),
        generation,
        counts: Counts::default(),
        identity: found::identity(&root_for_identity, &found::sources_of(&args.config)),
        inherited_env_file: std::env::var_os(ENV_FILE_VAR).is_some(),
    });
    let app = routes::router(Arc::clone(&state));
    let tcp = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| CliError::Input(format!("cannot listen on {}: {e}", args.listen)))?;
    let local = tcp
        .local_addr()
        .map_err(|e| CliError::Other(e.to_string()))?;
    let socket = match &args.socket {
        Some(path) => path.clone(),
        None => found::default_socket(&state.root).ok_or_else(|| {
            CliError::Input(
                "no state directory for the socket ($XDG_STATE_HOME and $HOME are unset): give --socket PATH".to_owned(),
            )
        })?,
    };
    let unix = bind_socket(&socket)?;
    // Restored before the first request is answered, and only once this daemon holds the
    // project's socket: a second daemon for the project must not write over the first one's
    // state.
    #[cfg(feature = "builtin")]
    let saver = {
        let path = match &args.policy_state {
            Some(path) => Some(path.clone()),
            None => saved::default_path(&state.root),
        };
        match path {
            Some(path) => saved::Saver::start(&path, &state.pipeline.builtins)?,
            None if state.pipeline.builtins.persistent().is_empty() => None,
            None => {
                return Err(CliError::Input(
                    "no state directory for the policies' state ($XDG_STATE_HOME and $HOME are unset): give --policy-state FILE".to_owned(),
                ));
            }
        }
    };
    let me = found::Found {
        pid: std::process::id(),
        socket: socket.clone(),
        project: std::fs::canonicalize(&state.root).unwrap_or_else(|_| state.root.clone()),
        sources: found::sources_of(&args.config),
        request_timeout_ms: u64::try_from(args.request_timeout.as_millis()).unwrap_or(u64::MAX),
    };
    let announced = match found::announce(&me) {
        Ok(path) => Some(path),
        Err(e) => {
            tracing::warn!("`hooks claude` will not find this daemon: {e}");
            None
        }
    };
    let shutdown = shutdown_signal();
    // The lines a supervisor or a test reads to find the port (with `:0`) and the socket.
    eprintln!("hooks serve: listening on unix:{}", socket.display());
    eprintln!("hooks serve: listening on http://{local}");
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let until = |mut stopped: tokio::sync::watch::Receiver<bool>| async move {
        let _ = stopped.wait_for(|stop| *stop).await;
    };
    let signals = tokio::spawn(async move {
        shutdown.await;
        let _ = stop.send(true);
    });
    // Each accept loop is a task of its own, on a worker thread: awaited here, it would run on
    // the thread that called `block_on`, and every new connection would wake that thread from
    // the worker that saw it arrive, and then a worker for the connection (two wake-ups of
    // idle CPUs before a forwarded event is read).
    let tcp = tokio::spawn(serve_until(
        // Answers are small and latency is the point: no Nagle delay on them.
        tcp.tap_io(|stream| {
            if let Err(e) = stream.set_nodelay(true) {
                tracing::debug!("TCP_NODELAY: {e}");
            }
        }),
        app.clone(),
        args.header_timeout,
        MAX_CONNECTIONS,
        until(stopped.clone()),
    ));
    // Only what comes over the socket (this user's `hooks claude`) may name a
    // `CLAUDE_ENV_FILE` for its hooks.
    let unix = tokio::spawn(serve_until(
        unix,
        app.layer(axum::Extension(routes::OverSocket)),
        args.header_timeout,
        MAX_CONNECTIONS,
        until(stopped),
    ));
    let aborts = [tcp.abort_handle(), unix.abort_handle()];
    let served = match tokio::try_join!(tcp, unix) {
        Ok((tcp, unix)) => tcp.and(unix),
        Err(e) => {
            // The other listener must not go on serving while the daemon shuts down.
            for listener in &aborts {
                listener.abort();
            }
            Err(CliError::Other(format!(
                "a listener stopped abnormally: {e}"
            )))
        }
    };
    signals.abort();
    let _ = std::fs::remove_file(&socket);
    // The record goes only if it is still this daemon's (another may have replaced it).
    if let Some(path) = announced
        && std::fs::read(&path)
            .ok()
            .and_then(|text| serde_json::from_slice::<found::Found>(&text).ok())
            .is_some_and(|f| f.pid == std::process::id())
    {
        let _ = std::fs::remove_file(path);
    }
    served?;
    for line in delivery.finish().await {
        tracing::warn!("{line}");
    }
    if let Some(export) = export
        && let Some(line) = export.finish().await
    {
        tracing::warn!("{line}");
    }
    #[cfg(feature = "builtin")]
    if let Some(saver) = saver
        && let Some(line) = saver.finish().await
    {
        tracing::warn!("{line}");
    }
    // The last handle of the hook set: dropping it closes the builtin policies, and the audit
    // stores every record it queued before the process exits.
    drop(state);
    tracing::info!("stopped");
    Ok(ExitCode::SUCCESS)
}

/// Serves `app` on `listener` (HTTP/1.1, keep-alive) until `stop` resolves, then stops
/// accepting, lets the requests in flight finish and closes idle connections. A client that
/// takes longer than `header_timeout` to send a request's headers (slowloris) is cut off
/// instead of holding its connection open forever ([`slow_clients`]: no timer per request).
/// At most `max_connections` are served at once; at the cap, a new one takes the place of the
/// connection that has waited longest for its request's headers, and waits only while every
/// connection is answering a request.
async fn serve_until<L>(
    mut listener: L,
    app: axum::Router,
    header_timeout: Duration,
    max_connections: usize,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), CliError>
where
    L: axum::serve::Listener,
{
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.keep_alive(true);
    let sweeper = slow_clients::Sweeper::new(header_timeout);
    let sweeping = tokio::spawn(Arc::clone(&sweeper).run());
    let slots = Arc::new(tokio::sync::Semaphore::new(max_connections));
    tokio::pin!(stop);
    loop {
        let io = tokio::select! {
            (io, _) = listener.accept() => io,
            () = &mut stop => break,
        };
        let slot = match Arc::clone(&slots).try_acquire_owned() {
            Ok(slot) => slot,
            Err(tokio::sync::TryAcquireError::Closed) => break,
            Err(tokio::sync::TryAcquireError::NoPermits) => {
                // Connections cost nothing to open and need no token: at the cap, one that
                // is not answering a request makes room (its client may reconnect), or the
                // token-less could keep every agent's hooks waiting for `--header-timeout`.
                if sweeper.evict_longest_waiting() {
                    tracing::debug!(
                        "{max_connections} connections open: the one waiting longest for a request was closed for a new one"
                    );
                }
                tokio::select! {
                    slot = Arc::clone(&slots).acquire_owned() => match slot {
                        Ok(slot) => slot,
                        Err(_) => break,
                    },
                    () = &mut stop => break,
                }
            }
        };
        let clock = sweeper.clock();
        let service = clocked(app.clone(), Arc::clone(&clock));
        let connection =
            graceful.watch(http.serve_connection(hyper_util::rt::TokioIo::new(io), service));
        tokio::spawn(async move {
            {
                tokio::pin!(connection);
                loop {
                    tokio::select! {
                        biased;
                        closed = &mut connection => {
                            if let Err(e) = closed {
                                tracing::debug!("connection closed: {e}");
                            }
                            break;
                        }
                        () = clock.cut_off() => {
                            // The sweeper read the clock just before a request's headers
                            // arrived: that request is answered, not cut off.
                            if clock.answering() {
                                continue;
                            }
                            if !clock.evicted() {
                                tracing::debug!(
                                    "a client sent no complete request headers within {} ms (--header-timeout): connection closed",
                                    header_timeout.as_millis()
                                );
                            }
                            break;
                        }
                    }
                }
            }
            // Last: the connection and its service (a handle on the daemon's state)
            // are gone once its slot is back (see the end of this function).
            drop(slot);
        });
    }
    drop(listener);
    // Still sweeping: a slow client would otherwise hold the shutdown open.
    graceful.shutdown().await;
    // Every connection's task has ended once every slot is back: none holds the daemon's
    // state any more, so the caller's handle is the last and dropping it stores the audit
    // before the process exits.
    let all = u32::try_from(max_connections).unwrap_or(u32::MAX);
    let _ = slots.acquire_many(all).await;
    sweeping.abort();
    Ok(())
}

/// `app` as one connection's service, keeping that connection's [`slow_clients::Clock`]: no
/// deadline while a request is answered, a fresh one once its answer is ready.
fn clocked(
    app: axum::Router,
    clock: Arc<slow_clients::Clock>,
) -> impl hyper::service::Service<
    hyper::Request<hyper::body::Incoming>,
    Response = axum::response::Response,
    Error = std::convert::Infallible,
    Future = impl Future<Output = Result<axum::response::Response, std::convert::Infallible>> + Send,
> + Clone {
    let app = hyper_util::service::TowerToHyperService::new(app);
    hyper::service::service_fn(move |request| {
        clock.headers_arrived();
        let answer = hyper::service::Service::call(&app, request);
        let clock = Arc::clone(&clock);
        async move {
            let answered = answer.await;
            clock.waiting();
            answered
        }
    })
}

/// Watches the configuration's files; each good edit bumps the generation. Without a watcher
/// (a directory that cannot be watched) the daemon runs on what it loaded, and says so.
fn watch(
    args: &ConfigArgs,
    pipeline: &Pipeline,
    generation: &Arc<AtomicU64>,
    problems: &Arc<std::sync::Mutex<Option<String>>>,
    builtin_stale: &Arc<std::sync::atomic::AtomicBool>,
) -> Option<Reloader> {
    let generation = Arc::clone(generation);
    let problems = Arc::clone(problems);
    let builtin_stale = Arc::clone(builtin_stale);
    let set_problems = move |text: Option<String>| {
        *problems
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = text;
    };
    let builtin_at_start = format!("{:?}", pipeline.config.builtin);
    let (sources, _) = args.present_sources(true);
    let configured = pipeline.configured.clone();
    let reloads = configured.clone();
    let on_reload = move |outcome: &ReloadOutcome| match outcome {
        ReloadOutcome::Applied { hooks } => {
            let now = generation.fetch_add(1, Ordering::SeqCst) + 1;
            tracing::info!("configuration reloaded: generation {now}, {hooks} configured hook(s)");
            set_problems(None);
            let stale = format!("{:?}", reloads.config().builtin) != builtin_at_start;
            builtin_stale.store(stale, Ordering::SeqCst);
            if stale {
                tracing::warn!(
                    "the `builtin:` section changed: builtin policies are built at start; restart `hooks serve` to apply it"
                );
            }
        }
        ReloadOutcome::Rejected { problems, error } => {
            let mut listed: Vec<String> = problems.iter().map(ToString::to_string).collect();
            listed.extend(error.as_ref().map(ToString::to_string));
            let text = format!(
                "the configuration has {} problem(s), so a hook it declares may not run: {}; fix them (`hooks validate` lists them)",
                listed.len(),
                listed.join("; ")
            );
            tracing::warn!("configuration edit rejected, the last good set keeps running: {text}");
            set_problems(Some(text));
        }
        _ => {}
    };
    match Reloader::watch(configured, sources, on_reload) {
        Ok(reloader) => Some(reloader),
        Err(e) => {
            tracing::warn!("configuration changes will not be reloaded: {e}");
            None
        }
    }
}

/// Binds a Unix socket that only this user can connect to (its directory made 0700 when
/// missing). A stale socket file (nobody
/// listening) is replaced; a live one is an error.
#[cfg(unix)]
fn bind_socket(path: &std::path::Path) -> Result<tokio::net::UnixListener, CliError> {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        use std::os::unix::fs::FileTypeExt;
        if !meta.file_type().is_socket() {
            return Err(CliError::Input(format!(
                "{} exists and is not a socket; give another --socket",
                path.display()
            )));
        }
        if std::os::unix::net::UnixStream::connect(path).is_ok() {
            return Err(CliError::Input(format!(
                "{} is in use by a running daemon",
                path.display()
            )));
        }
        std::fs::remove_file(path)
            .map_err(|e| CliError::Input(format!("cannot replace {}: {e}", path.display())))?;
    }
    if let Some(dir) = path.parent() {
        found::private_dir(dir)
            .map_err(|e| CliError::Input(format!("cannot make {}: {e}", dir.display())))?;
    }
    let listener = tokio::net::UnixListener::bind(path)
        .map_err(|e| CliError::Input(format!("cannot listen on {}: {e}", path.display())))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| CliError::Input(format!("cannot make {} private: {e}", path.display())))?;
    Ok(listener)
}

/// Listens for SIGTERM and SIGINT (Ctrl-C) at once, and resolves on the first. Called before
/// the daemon says it listens: a signal sent once a supervisor (or a test) has read that is a
/// clean shutdown, never the signal's default action of killing the process.
#[cfg(unix)]
fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    use tokio::signal::unix::{Signal, SignalKind, signal};
    let listen = |kind: SignalKind, name: &str| match signal(kind) {
        Ok(listening) => Some(listening),
        Err(e) => {
            tracing::warn!("cannot listen for {name}: {e}");
            None
        }
    };
    let terminate = listen(SignalKind::terminate(), "SIGTERM");
    let interrupt = listen(SignalKind::interrupt(), "SIGINT");
    async fn received(signal: Option<Signal>) {
        match signal {
            Some(mut signal) => {
                signal.recv().await;
            }
            None => std::future::pending().await,
        }
    }
    async move {
        tokio::select! {
            () = received(terminate) => {}
            () = received(interrupt) => {}
        }
        tracing::info!("shutting down: finishing the requests in flight");
    }
}

/// Resolves on Ctrl-C.
#[cfg(not(unix))]
fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    async {
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutting down: finishing the requests in flight");
    }
}
