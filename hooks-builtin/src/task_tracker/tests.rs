use super::*;
use hookrail_core::context::SessionEndReason;

fn tracker(config: TaskTrackerConfig) -> TaskTracker {
    TaskTracker::new(config).unwrap()
}

fn meta(agent: &str) -> Meta {
    Meta::new("s1").with_agent(agent).with_cwd("/nonexistent")
}

fn actions(cmds: &[Cmd]) -> Vec<Action> {
    cmds.iter().map(|c| c.action).collect()
}

fn step(agent: &str, id: &str, status: StepStatus, summary: Option<&str>) -> StepEnd {
    let mut s = StepEnd::new(meta(agent), id, status);
    s.output_summary = summary.map(str::to_owned);
    s
}

fn end(agent: &str, success: bool, files: usize) -> SessionEnd {
    let reason = if success {
        SessionEndReason::Completed
    } else {
        SessionEndReason::Error
    };
    let mut e = SessionEnd::new(meta(agent), reason, success);
    e.files_modified = (0..files).map(|i| format!("f{i}")).collect();
    e
}

#[test]
fn the_default_config_is_valid_and_round_trips_through_json() {
    let config = TaskTrackerConfig::default();
    assert!(TaskTracker::new(config.clone()).is_ok());
    let back: TaskTrackerConfig =
        serde_json::from_value(serde_json::to_value(&config).unwrap()).unwrap();
    assert_eq!(back, config);
    assert!(
        serde_json::from_value::<TaskTrackerConfig>(serde_json::json!({"programme": "bd"}))
            .is_err()
    );
}

#[test]
fn bad_settings_are_refused_with_the_field_named() {
    let field = |c: TaskTrackerConfig| TaskTracker::new(c).unwrap_err().field.into_owned();
    let d = TaskTrackerConfig::default;
    assert_eq!(
        field(TaskTrackerConfig {
            program: " ".into(),
            ..d()
        }),
        "program"
    );
    assert_eq!(
        field(TaskTrackerConfig {
            create_args: vec![],
            ..d()
        }),
        "create_args"
    );
    assert_eq!(
        field(TaskTrackerConfig {
            timeout_ms: 0,
            ..d()
        }),
        "timeout_ms"
    );
    assert_eq!(
        field(TaskTrackerConfig {
            queue_capacity: 0,
            ..d()
        }),
        "queue_capacity"
    );
    assert_eq!(
        field(TaskTrackerConfig {
            title: "{id}".into(),
            ..d()
        }),
        "title"
    );
    assert_eq!(
        field(TaskTrackerConfig {
            close_args: strings(&["close", "{ID}", "{idd}"]),
            ..d()
        }),
        "close_args[2]"
    );
    assert_eq!(
        field(TaskTrackerConfig {
            deferred_markers: strings(&["TODO", ""]),
            ..d()
        }),
        "deferred_markers[1]"
    );
}

#[test]
fn a_simple_completion_creates_nothing() {
    let t = tracker(TaskTrackerConfig::default());
    assert!(t.plan_start(&meta("coder")).is_empty());
    assert!(
        t.plan_step(&step("coder", "1", StepStatus::Completed, Some("done")))
            .is_empty()
    );
    let (cmds, tracked) = t.plan_end(&end("coder", true, 1));
    assert!(cmds.is_empty() && !tracked);
}

#[test]
fn an_eager_agent_is_tracked_from_the_start_and_closed_at_the_end() {
    let t = tracker(TaskTrackerConfig::default());
    let cmds = t.plan_start(&meta("AutoPilot"));
    assert_eq!(actions(&cmds), [Action::Create]);
    assert_eq!(cmds[0].vars.title, "AutoPilot: session s1");
    assert_eq!(cmds[0].vars.priority, "1");
    let (cmds, tracked) = t.plan_end(&end("AutoPilot", true, 0));
    assert!(tracked);
    assert_eq!(actions(&cmds), [Action::Close]);
    assert!(
        cmds[0]
            .vars
            .reason
            .starts_with("session completed (completed): 0 steps"),
        "{}",
        cmds[0].vars.reason
    );
}

#[test]
fn reaching_the_complexity_threshold_creates_and_starts_the_task_once() {
    let t = tracker(TaskTrackerConfig::default());
    t.plan_start(&meta("coder"));
    assert!(
        t.plan_step(&step("coder", "1", StepStatus::Completed, None))
            .is_empty()
    );
    assert!(
        t.plan_step(&step("coder", "2", StepStatus::Completed, None))
            .is_empty()
    );
    let cmds = t.plan_step(&step("coder", "3", StepStatus::Completed, None));
    assert_eq!(actions(&cmds), [Action::Create, Action::Start]);
    assert!(cmds[1].vars.reason.contains("complexity reached 3"));
    assert!(
        t.plan_step(&step("coder", "4", StepStatus::Completed, None))
            .is_empty()
    );
    assert_eq!(
        actions(&t.plan_end(&end("coder", true, 0)).0),
        [Action::Close]
    );
}

#[test]
fn tool_calls_count_toward_complexity() {
    let t = tracker(TaskTrackerConfig::default());
    let mut s = step("coder", "1", StepStatus::Completed, None);
    s.tool_calls = 25;
    assert_eq!(actions(&t.plan_step(&s)), [Action::Create, Action::Start]);
    let t = tracker(TaskTrackerConfig {
        tool_calls_per_point: 0,
        ..Default::default()
    });
    assert!(t.plan_step(&s).is_empty());
}

#[test]
fn an_eager_task_is_started_when_the_threshold_is_reached_without_a_second_create() {
    let t = tracker(TaskTrackerConfig {
        complexity_threshold: 1,
        ..Default::default()
    });
    assert_eq!(actions(&t.plan_start(&meta("resolve"))), [Action::Create]);
    let cmds = t.plan_step(&step("resolve", "1", StepStatus::Completed, None));
    assert_eq!(actions(&cmds), [Action::Start]);
}

#[test]
fn a_failed_step_blocks_the_task_and_a_later_success_unblocks_it() {
    let t = tracker(TaskTrackerConfig::default());
    t.plan_start(&meta("coder"));
    let cmds = t.plan_step(&step(
        "coder",
        "build",
        StepStatus::Failed,
        Some("linker error"),
    ));
    assert_eq!(actions(&cmds), [Action::Create, Action::Block]);
    assert_eq!(cmds[1].vars.reason, "step `build` failed: linker error");
    let cmds = t.plan_step(&step("coder", "build-2", StepStatus::Failed, None));
    assert_eq!(actions(&cmds), [Action::Block]);
    let cmds = t.plan_step(&step("coder", "build-3", StepStatus::Completed, None));
    assert_eq!(actions(&cmds), [Action::Start]);
    assert_eq!(
        actions(&t.plan_end(&end("coder", true, 0)).0),
        [Action::Close]
    );
}

#[test]
fn a_failed_session_without_a_task_gets_one_created_and_blocked() {
    let t = tracker(TaskTrackerConfig::default());
    t.plan_start(&meta("coder"));
    let (cmds, tracked) = t.plan_end(&end("coder", false, 0));
    assert!(tracked);
    assert_eq!(actions(&cmds), [Action::Create, Action::Block]);
    assert!(
        cmds[1]
            .vars
            .reason
            .starts_with("session ended (error) without success")
    );
    let t = tracker(TaskTrackerConfig {
        track_failures: false,
        ..Default::default()
    });
    assert!(!t.plan_end(&end("coder", false, 0)).1);
    assert!(
        t.plan_step(&step("coder", "x", StepStatus::Failed, None))
            .is_empty()
    );
}

#[test]
fn a_successful_session_that_changed_enough_files_is_recorded_and_closed() {
    let t = tracker(TaskTrackerConfig::default());
    let (cmds, _) = t.plan_end(&end("coder", true, 3));
    assert_eq!(actions(&cmds), [Action::Create, Action::Close]);
    assert!(cmds[0].vars.description.contains("complexity 3"));
}

#[test]
fn partial_steps_and_deferred_work_create_follow_ups_once() {
    let t = tracker(TaskTrackerConfig {
        complexity_threshold: 100,
        ..Default::default()
    });
    let cmds = t.plan_step(&step(
        "coder",
        "3",
        StepStatus::Partial,
        Some("migrated 4 of 6 crates"),
    ));
    assert_eq!(actions(&cmds), [Action::FollowUp]);
    assert_eq!(
        cmds[0].vars.title,
        "Follow-up from coder: migrated 4 of 6 crates"
    );
    assert_eq!(cmds[0].vars.priority, "2");
    let cmds = t.plan_step(&step(
        "coder",
        "4",
        StepStatus::Completed,
        Some("Done; TODO: docs for the new flag"),
    ));
    assert_eq!(actions(&cmds), [Action::FollowUp]);
    assert!(
        t.plan_step(&step(
            "coder",
            "5",
            StepStatus::Completed,
            Some("done; todo: docs for the new flag")
        ))
        .is_empty()
    );
    // Markers are whole words: "mastodon" holds "todo".
    assert!(
        t.plan_step(&step(
            "coder",
            "6",
            StepStatus::Completed,
            Some("posted to mastodon")
        ))
        .is_empty()
    );
    let t = tracker(TaskTrackerConfig {
        follow_ups: false,
        ..Default::default()
    });
    assert!(
        t.plan_step(&step("coder", "3", StepStatus::Partial, Some("x")))
            .is_empty()
    );
}

#[test]
fn disabled_actions_are_not_planned() {
    let t = tracker(TaskTrackerConfig {
        start_args: vec![],
        close_args: vec![],
        ..Default::default()
    });
    let mut s = step("coder", "1", StepStatus::Completed, None);
    s.tool_calls = 100;
    assert_eq!(actions(&t.plan_step(&s)), [Action::Create]);
    let (cmds, tracked) = t.plan_end(&end("coder", true, 0));
    assert!(tracked && cmds.is_empty());
}

#[test]
fn titles_and_reasons_are_single_line_and_capped() {
    let t = tracker(TaskTrackerConfig::default());
    let cmds = t.plan_start(&meta("autopilot\n--evil"));
    assert!(
        cmds.is_empty(),
        "the name with a newline is not an eager agent"
    );
    let mut m = meta("resolve");
    m.session_id = "a\nb".repeat(200).into();
    let cmds = t.plan_start(&m);
    let title = &cmds[0].vars.title;
    assert!(
        !title.contains('\n') && title.chars().count() <= MAX_TITLE_CHARS + 1,
        "{title}"
    );
}

#[test]
fn contains_word_needs_boundaries() {
    assert!(contains_word("a todo: b", "todo"));
    assert!(contains_word("todo", "todo"));
    assert!(!contains_word("mastodon", "todo"));
    assert!(contains_word("needs a follow-up.", "follow-up"));
    assert!(!contains_word("todos", "todo"));
}

#[test]
fn nothing_queued_means_no_worker_and_flush_returns() {
    let t = tracker(TaskTrackerConfig::default());
    t.flush();
    t.close();
    t.close();
    assert_eq!(t.stats(), TaskTrackerStats::default());
}
