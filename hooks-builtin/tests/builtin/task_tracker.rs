#![cfg(all(feature = "task-tracker", unix))]
//! `task-tracker` through a real `Hooks` value and `Session`s, against a fake `bd` (a shell
//! script that logs its argv and prints a JSON id), a missing command, a failing one and a
//! hanging one.
//!
//! The fake is run as `sh <script> …` rather than exec'd directly: a script written by one
//! test while another test forks can fail to exec with ETXTBSY.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use hookrail_builtin::task_tracker::{TaskTracker, TaskTrackerConfig};
use hookrail_core::context::{Meta, SessionEndReason, StepEnd, StepStatus};
use hookrail_core::points::step_end;
use hookrail_core::runtime::{Hooks, Session};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

const LOGGER: &str = r#"dir=$(dirname "$0")
for a in "$@"; do printf '%s\037' "$a"; done >> "$dir/argv.log"
printf '\036' >> "$dir/argv.log"
pwd > "$dir/cwd"
"#;

const ANSWER: &str = r#"case "$1" in
  create)
    n=$(cat "$dir/n" 2>/dev/null || echo 0); n=$((n+1)); echo "$n" > "$dir/n"
    printf '{"id":"bd-%s","title":"t","status":"open"}\n' "$n";;
  *) printf '{"ok":true}\n';;
esac
"#;

/// A fake `bd` in a temporary directory, and a project root to run sessions in.
struct Fake {
    _dir: tempfile::TempDir,
    dir: PathBuf,
    script: PathBuf,
    root: PathBuf,
}

impl Fake {
    /// `behaviour` runs after the argv is logged and before the answer (`exit 3`, `sleep 30`).
    fn new(behaviour: &str) -> Fake {
        let tmp = tempfile::tempdir().unwrap();
        let dir = fs::canonicalize(tmp.path()).unwrap();
        let script = dir.join("bd");
        fs::write(&script, format!("{LOGGER}{behaviour}\n{ANSWER}")).unwrap();
        let root = dir.join("project");
        fs::create_dir(&root).unwrap();
        Fake {
            _dir: tmp,
            dir,
            script,
            root,
        }
    }

    /// The default config, with every template run through the fake.
    fn config(&self) -> TaskTrackerConfig {
        let d = TaskTrackerConfig::default();
        let through = |args: Vec<String>| {
            let mut v = vec![self.script.display().to_string()];
            v.extend(args);
            v
        };
        TaskTrackerConfig {
            program: "sh".into(),
            create_args: through(d.create_args),
            start_args: through(d.start_args),
            block_args: through(d.block_args),
            close_args: through(d.close_args),
            ..d
        }
    }

    /// Every call's argv (without the program), in order.
    fn calls(&self) -> Vec<Vec<String>> {
        let log = fs::read_to_string(self.dir.join("argv.log")).unwrap_or_default();
        log.split('\u{1e}')
            .filter(|r| !r.is_empty())
            .map(|r| {
                r.split('\u{1f}')
                    .filter(|a| !a.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .collect()
    }

    fn meta(&self, session: &str, agent: &str) -> Meta {
        Meta::new(session).with_agent(agent).with_cwd(&self.root)
    }
}

fn hooks(tracker: &TaskTracker) -> Hooks {
    Hooks::builder()
        .ignore_env()
        .provider_at(100, tracker.clone())
        .build()
        .unwrap()
}

fn step(meta: Meta, id: &str, status: StepStatus, summary: &str) -> StepEnd {
    let mut s = StepEnd::new(meta, id, status);
    s.output_summary = Some(summary.into());
    s
}

#[tokio::test(flavor = "current_thread")]
async fn a_tracked_run_creates_blocks_restarts_and_closes_one_task_in_order() {
    let fake = Fake::new("");
    let tracker = TaskTracker::new(fake.config()).unwrap();
    let mut s = Session::start(hooks(&tracker), fake.meta("run-1", "autopilot"), "m")
        .await
        .unwrap();
    s.step_end("build", StepStatus::Failed).await;
    s.step_end("build-again", StepStatus::Completed).await;
    s.end(SessionEndReason::Completed, true).await;
    tracker.flush();

    let calls = fake.calls();
    assert_eq!(calls.len(), 4, "{calls:?}");
    assert_eq!(
        calls[0][..7],
        [
            "create",
            "autopilot: session run-1",
            "-t",
            "task",
            "-p",
            "1",
            "--description"
        ]
    );
    assert!(calls[0][7].contains("agent `autopilot`, session `run-1`"));
    assert_eq!(calls[0][8], "--json");
    assert_eq!(
        calls[1],
        [
            "update",
            "bd-1",
            "--status",
            "blocked",
            "--notes",
            "step `build` failed",
            "--json"
        ]
    );
    assert_eq!(calls[2][..4], ["update", "bd-1", "--status", "in_progress"]);
    assert_eq!(calls[3][..3], ["close", "bd-1", "--reason"]);
    assert!(calls[3][3].starts_with("session completed (completed): 2 steps"));
    let stats = tracker.stats();
    assert_eq!((stats.queued, stats.succeeded, stats.created), (4, 4, 1));
    assert_eq!(
        stats.failed + stats.timed_out + stats.skipped + stats.dropped,
        0
    );
    tracker.close();
}

#[tokio::test(flavor = "current_thread")]
async fn a_simple_completion_runs_no_command() {
    let fake = Fake::new("");
    let tracker = TaskTracker::new(fake.config()).unwrap();
    let mut s = Session::start(hooks(&tracker), fake.meta("s1", "coder"), "m")
        .await
        .unwrap();
    s.step_end("1", StepStatus::Completed).await;
    s.end(SessionEndReason::Completed, true).await;
    tracker.close();
    assert!(fake.calls().is_empty());
    assert_eq!(tracker.stats().untracked_sessions, 1);
    assert_eq!(tracker.stats().queued, 0);
}

#[tokio::test(flavor = "current_thread")]
async fn partial_steps_and_deferred_work_create_follow_ups_that_are_not_closed() {
    let fake = Fake::new("");
    let tracker = TaskTracker::new(fake.config()).unwrap();
    let hooks = hooks(&tracker);
    let s = Session::start(hooks.clone(), fake.meta("s1", "coder"), "m")
        .await
        .unwrap();
    let m = fake.meta("s1", "coder");
    let _ = hooks.dispatch::<step_end::Point>(&mut step(
        m.clone(),
        "migrate",
        StepStatus::Partial,
        "migrated 4 of 6 crates",
    ));
    let _ = hooks.dispatch::<step_end::Point>(&mut step(
        m,
        "docs",
        StepStatus::Completed,
        "done, docs are out of scope for now",
    ));
    s.end(SessionEndReason::Completed, true).await;
    tracker.close();
    let calls = fake.calls();
    let titles: Vec<&str> = calls.iter().map(|c| c[1].as_str()).collect();
    assert_eq!(
        titles,
        [
            "Follow-up from coder: migrated 4 of 6 crates",
            "Follow-up from coder: done, docs are out of scope for now",
        ]
    );
    assert!(calls.iter().all(|c| c[0] == "create" && c[5] == "2"));
    assert_eq!(
        tracker.stats().untracked_sessions,
        1,
        "follow-ups alone do not track the session"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn interleaved_sessions_keep_their_own_task_ids() {
    let fake = Fake::new("");
    let tracker = TaskTracker::new(fake.config()).unwrap();
    let hooks = hooks(&tracker);
    let a = Session::start(hooks.clone(), fake.meta("a", "resolve"), "m")
        .await
        .unwrap();
    let b = Session::start(hooks.clone(), fake.meta("b", "resolve"), "m")
        .await
        .unwrap();
    b.end(SessionEndReason::Error, false).await;
    a.end(SessionEndReason::Completed, true).await;
    tracker.close();
    let calls = fake.calls();
    assert_eq!(calls[0][1], "resolve: session a");
    assert_eq!(calls[1][1], "resolve: session b");
    assert_eq!(calls[2][..4], ["update", "bd-2", "--status", "blocked"]);
    assert_eq!(calls[3][..2], ["close", "bd-1"]);
}

#[tokio::test(flavor = "current_thread")]
async fn commands_run_in_the_project_root() {
    let fake = Fake::new("");
    let tracker = TaskTracker::new(fake.config()).unwrap();
    Session::start(hooks(&tracker), fake.meta("s", "autopilot"), "m")
        .await
        .unwrap();
    tracker.close();
    let cwd = fs::read_to_string(fake.dir.join("cwd")).unwrap();
    assert_eq!(Path::new(cwd.trim()), fake.root);
}

#[tokio::test(flavor = "current_thread")]
async fn commands_run_in_the_project_root_not_the_events_cwd() {
    let fake = Fake::new("");
    let elsewhere = tempfile::tempdir().unwrap();
    let tracker = TaskTracker::new(fake.config()).unwrap();
    let meta = fake
        .meta("s", "autopilot")
        .with_cwd(elsewhere.path())
        .with_project_dir(&fake.root);
    Session::start(hooks(&tracker), meta, "m").await.unwrap();
    tracker.close();
    let cwd = fs::read_to_string(fake.dir.join("cwd")).unwrap();
    assert_eq!(Path::new(cwd.trim()), fake.root);
}

#[tokio::test(flavor = "current_thread")]
async fn a_failing_command_is_counted_and_the_commands_after_it_still_run() {
    let fake = Fake::new(r#"if [ "$1" = update ]; then echo "no such issue" >&2; exit 3; fi"#);
    let tracker = TaskTracker::new(fake.config()).unwrap();
    let mut s = Session::start(hooks(&tracker), fake.meta("s", "autopilot"), "m")
        .await
        .unwrap();
    s.step_end("x", StepStatus::Failed).await;
    let end = s.end(SessionEndReason::Completed, true).await;
    assert!(end.success, "the run is not failed by the tracker");
    tracker.close();
    let stats = tracker.stats();
    assert_eq!((stats.ran, stats.succeeded, stats.failed), (3, 2, 1));
    assert_eq!(fake.calls()[2][..2], ["close", "bd-1"]);
}

#[tokio::test(flavor = "current_thread")]
async fn a_hanging_create_is_killed_at_the_timeout_and_its_updates_are_skipped() {
    let fake = Fake::new(r#"if [ "$1" = create ]; then sleep 30; fi"#);
    let tracker = TaskTracker::new(TaskTrackerConfig {
        timeout_ms: 300,
        ..fake.config()
    })
    .unwrap();
    let s = Session::start(hooks(&tracker), fake.meta("s", "autopilot"), "m")
        .await
        .unwrap();
    s.end(SessionEndReason::Completed, true).await;
    tracker.close();
    let stats = tracker.stats();
    assert_eq!(stats.timed_out, 1);
    assert_eq!(
        stats.skipped, 1,
        "close needs the id the create never printed"
    );
    assert_eq!(stats.created, 0);
}

#[tokio::test(flavor = "current_thread")]
async fn adversarial_names_and_summaries_stay_single_arguments_and_never_options() {
    let fake = Fake::new("");
    let evil_agents = [
        "x\"; touch pwned1; echo \"",
        "$(touch pwned2)",
        "`touch pwned3`",
        "--db=/tmp/evil",
        "-p 0 --force",
        "a\nb\r\n\u{0}c",
    ];
    let tracker = TaskTracker::new(TaskTrackerConfig {
        eager_agents: evil_agents.iter().map(|a| (*a).to_owned()).collect(),
        ..fake.config()
    })
    .unwrap();
    let hooks = hooks(&tracker);
    for (i, agent) in evil_agents.iter().enumerate() {
        let s = Session::start(hooks.clone(), fake.meta(&format!("s{i}"), agent), "m")
            .await
            .unwrap();
        let _ = hooks.dispatch::<step_end::Point>(&mut step(
            fake.meta(&format!("s{i}"), agent),
            "; rm -rf ~",
            StepStatus::Partial,
            "--force\n$(touch pwned4); `touch pwned5` 'quoted' \"dq\"",
        ));
        s.end(SessionEndReason::Completed, true).await;
    }
    tracker.close();
    let calls = fake.calls();
    assert_eq!(calls.len(), evil_agents.len() * 3, "{calls:?}");
    for call in &calls {
        match call[0].as_str() {
            "create" => {
                assert_eq!(call.len(), 9, "{call:?}");
                assert!(
                    !call[1].starts_with('-'),
                    "title became an option: {call:?}"
                );
                assert!(
                    !call[7].starts_with('-'),
                    "description became an option: {call:?}"
                );
            }
            "close" => assert_eq!(call.len(), 5, "{call:?}"),
            other => panic!("unexpected command {other}: {call:?}"),
        }
        assert!(
            call.iter().all(|a| !a.contains('\n') && !a.contains('\0')),
            "{call:?}"
        );
    }
    assert_eq!(calls[0][1], "x\"; touch pwned1; echo \": session s0");
    assert_eq!(calls[3][1], "$(touch pwned2): session s1");
    assert_eq!(calls[9][1], "db=/tmp/evil: session s3");
    assert_eq!(calls[15][1], "a b c: session s5");
    assert!(calls[1][1].starts_with("Follow-up from x\"; touch pwned1"));
    for n in 1..=5 {
        for dir in [&fake.dir, &fake.root] {
            assert!(
                !dir.join(format!("pwned{n}")).exists(),
                "pwned{n} was created"
            );
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_full_queue_drops_commands_and_counts_them() {
    let fake = Fake::new(r#"if [ "$1" = create ]; then sleep 30; fi"#);
    let tracker = TaskTracker::new(TaskTrackerConfig {
        queue_capacity: 1,
        timeout_ms: 200,
        ..fake.config()
    })
    .unwrap();
    let hooks = hooks(&tracker);
    for i in 0..10 {
        Session::start(hooks.clone(), fake.meta(&format!("s{i}"), "autopilot"), "m")
            .await
            .unwrap();
    }
    tracker.close();
    let stats = tracker.stats();
    assert_eq!(stats.queued + stats.dropped, 10);
    // At most one command runs and one waits; the rest found the queue full.
    assert!(stats.dropped >= 8, "{stats:?}");
}

#[tokio::test(flavor = "current_thread")]
async fn after_close_commands_are_dropped_and_counted() {
    let fake = Fake::new("");
    let tracker = TaskTracker::new(fake.config()).unwrap();
    let hooks = hooks(&tracker);
    Session::start(hooks.clone(), fake.meta("s1", "autopilot"), "m")
        .await
        .unwrap();
    tracker.close();
    Session::start(hooks, fake.meta("s2", "autopilot"), "m")
        .await
        .unwrap();
    tracker.flush();
    let stats = tracker.stats();
    assert_eq!((stats.queued, stats.dropped), (1, 1));
    assert_eq!(fake.calls().len(), 1);
}

/// A subscriber that keeps every event's level and fields.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<(Level, String)>>>);

struct Fields(String);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, "{}={value:?} ", field.name());
    }
}

impl Subscriber for Capture {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut fields = Fields(String::new());
        event.record(&mut fields);
        self.0
            .lock()
            .unwrap()
            .push((*event.metadata().level(), fields.0));
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

#[tokio::test(flavor = "current_thread")]
async fn a_missing_command_gives_one_warning_and_the_runs_succeed() {
    let capture = Capture::default();
    let tracker = tracing::subscriber::with_default(capture.clone(), || {
        TaskTracker::new(TaskTrackerConfig {
            program: "hooks-builtin-test-no-such-bd-7f3a".into(),
            ..TaskTrackerConfig::default()
        })
        .unwrap()
    });
    let hooks = hooks(&tracker);
    let root = tempfile::tempdir().unwrap();
    for i in 0..3 {
        let meta = Meta::new(format!("s{i}"))
            .with_agent("autopilot")
            .with_cwd(root.path());
        let mut s = Session::start(hooks.clone(), meta, "m").await.unwrap();
        s.step_end("1", StepStatus::Failed).await;
        let end = s.end(SessionEndReason::Completed, true).await;
        assert!(end.success);
    }
    tracker.close();
    let stats = tracker.stats();
    assert_eq!(stats.queued, 9);
    assert_eq!(stats.unavailable, 9);
    assert_eq!(stats.ran + stats.failed + stats.skipped, 0);
    let warnings: Vec<String> = capture
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|(level, _)| *level == Level::WARN)
        .map(|(_, text)| text.clone())
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("not found"), "{}", warnings[0]);
    assert!(warnings[0].contains("hooks-builtin-test-no-such-bd-7f3a"));
}
