use super::*;

fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    (dir, root)
}

fn meta(root: &Path, agent: &str) -> Meta {
    let mut m = Meta::new("s1").with_agent(agent).with_cwd(root);
    m.timestamp_ms = 1_717_200_000_000; // 2024-06-01
    m
}

#[test]
fn utc_dates_are_civil_dates() {
    assert_eq!(utc_date(0), "1970-01-01");
    assert_eq!(utc_date(951_782_400_000), "2000-02-29");
    assert_eq!(utc_date(1_717_200_000_000), "2024-06-01");
    assert_eq!(utc_date(4_102_444_800_000), "2100-01-01");
    let _ = utc_date(u64::MAX);
}

#[test]
fn bad_settings_are_refused_with_the_field_named() {
    let bad = |c: ContextInjectConfig| ContextInject::new(c).unwrap_err().field.into_owned();
    let c = ContextInjectConfig {
        max_total_bytes: 0,
        ..Default::default()
    };
    assert_eq!(bad(c), "max_total_bytes");
    let c = ContextInjectConfig {
        files: vec![InjectFile::new("ok.md"), InjectFile::new("  ")],
        ..Default::default()
    };
    assert_eq!(bad(c), "files[1].path");
    let c = ContextInjectConfig {
        files: vec![InjectFile::new(".agents/{agent_name}/h.md")],
        ..Default::default()
    };
    let err = ContextInject::new(c).unwrap_err();
    assert!(err.message.contains("{agent_name}"), "{err}");
    let c = ContextInjectConfig {
        files: vec![InjectFile::new("a.md").max_bytes(0, Keep::Start)],
        ..Default::default()
    };
    assert_eq!(bad(c), "files[0].max_bytes");
    let c = ContextInjectConfig {
        decisions_file: "a\0b".into(),
        ..Default::default()
    };
    assert_eq!(bad(c), "decisions_file");
    // Braces that are not placeholders are fine.
    let c = ContextInjectConfig {
        files: vec![
            InjectFile::new("notes/{a,b}.md"),
            InjectFile::new("x/{}.md"),
        ],
        ..Default::default()
    };
    assert!(ContextInject::new(c).is_ok());
}

#[test]
fn config_reads_from_json_with_defaults_and_refuses_unknown_fields() {
    let c: ContextInjectConfig = serde_json::from_value(serde_json::json!({
        "files": [{"path": "NOTES.md", "label": "Team notes", "max_bytes": 100, "keep": "end"}],
        "max_total_bytes": 1000
    }))
    .unwrap();
    assert_eq!(c.files[0].keep, Keep::End);
    assert_eq!(c.decisions_file, ".agents/decisions.md");
    assert!(c.capture_directives);
    assert!(
        serde_json::from_value::<ContextInjectConfig>(serde_json::json!({"file": []})).is_err()
    );
    assert!(serde_json::from_value::<InjectFile>(serde_json::json!({"label": "x"})).is_err());
    let back: ContextInjectConfig =
        serde_json::from_value(serde_json::to_value(ContextInjectConfig::default()).unwrap())
            .unwrap();
    assert_eq!(back, ContextInjectConfig::default());
}

#[test]
fn decisions_come_first_then_files_in_order_with_labels() {
    let (_d, root) = project();
    fs::create_dir_all(root.join(".agents/coder")).unwrap();
    fs::write(root.join(".agents/decisions.md"), "- use tabs\n").unwrap();
    fs::write(root.join(".agents/coder/history.md"), "did X\n").unwrap();
    fs::write(root.join("NOTES.md"), "team notes").unwrap();
    let mut config = ContextInjectConfig::default();
    config.files.push(InjectFile::new("NOTES.md"));
    let policy = ContextInject::new(config).unwrap();
    let ctx = policy.context_for("coder", &root);
    assert_eq!(
        ctx,
        [
            "Decisions (.agents/decisions.md):\n- use tabs",
            "History of coder (.agents/coder/history.md):\ndid X",
            "NOTES.md:\nteam notes",
        ]
    );
}

#[test]
fn a_files_entry_for_the_decisions_file_replaces_the_implicit_one() {
    let (_d, root) = project();
    fs::create_dir_all(root.join(".agents")).unwrap();
    fs::write(root.join(".agents/decisions.md"), "- a\n- b\n").unwrap();
    let config = ContextInjectConfig {
        files: vec![InjectFile::new(".agents/decisions.md").label("Rules")],
        ..Default::default()
    };
    let ctx = ContextInject::new(config).unwrap().context_for("x", &root);
    assert_eq!(ctx, ["Rules (.agents/decisions.md):\n- a\n- b"]);
}

#[test]
fn the_same_file_reached_by_two_paths_is_injected_once() {
    let (_d, root) = project();
    fs::write(root.join("n.md"), "once").unwrap();
    let config = ContextInjectConfig {
        files: vec![
            InjectFile::new("n.md"),
            InjectFile::new("./sub/../n.md"),
            InjectFile::new(root.join("n.md").to_string_lossy()),
        ],
        inject_decisions: false,
        ..Default::default()
    };
    assert_eq!(
        ContextInject::new(config)
            .unwrap()
            .context_for("a", &root)
            .len(),
        1
    );
}

#[test]
fn the_total_cap_truncates_with_a_visible_note_and_later_files_get_only_the_note() {
    let (_d, root) = project();
    fs::write(root.join("a.md"), "aaaaaaaaaa").unwrap();
    fs::write(root.join("b.md"), "bbbbbbbbbb").unwrap();
    fs::write(root.join("c.md"), "cccccccccc").unwrap();
    let config = ContextInjectConfig {
        files: vec![
            InjectFile::new("a.md"),
            InjectFile::new("b.md"),
            InjectFile::new("c.md"),
        ],
        max_total_bytes: 14,
        inject_decisions: false,
        ..Default::default()
    };
    let ctx = ContextInject::new(config).unwrap().context_for("a", &root);
    assert_eq!(
        ctx,
        [
            "a.md:\naaaaaaaaaa",
            "b.md:\nbbbb\n[… truncated 6 bytes]",
            "c.md:\n[… truncated 10 bytes]",
        ]
    );
}

#[test]
fn keep_end_puts_the_note_first_and_keeps_the_newest_lines() {
    let (_d, root) = project();
    fs::write(root.join("h.md"), "old\nnew\n").unwrap();
    let config = ContextInjectConfig {
        files: vec![InjectFile::new("h.md").max_bytes(4, Keep::End)],
        inject_decisions: false,
        ..Default::default()
    };
    let ctx = ContextInject::new(config).unwrap().context_for("a", &root);
    assert_eq!(ctx, ["h.md:\n[… truncated 4 bytes]\nnew"]);
}

#[test]
fn missing_empty_and_directory_entries_are_skipped() {
    let (_d, root) = project();
    fs::write(root.join("empty.md"), "\n\n").unwrap();
    fs::create_dir(root.join("dir.md")).unwrap();
    fs::write(root.join("ok.md"), "ok").unwrap();
    let config = ContextInjectConfig {
        files: vec![
            InjectFile::new("missing.md"),
            InjectFile::new("empty.md"),
            InjectFile::new("dir.md"),
            InjectFile::new("~nobody/x.md"),
            InjectFile::new("ok.md"),
        ],
        ..Default::default()
    };
    assert_eq!(
        ContextInject::new(config).unwrap().context_for("a", &root),
        ["ok.md:\nok"]
    );
}

#[test]
fn an_agent_name_cannot_read_outside_its_directory() {
    let (_d, base) = project();
    let root = base.join("proj");
    fs::create_dir_all(root.join(".agents")).unwrap();
    fs::create_dir_all(root.join("notes")).unwrap();
    fs::write(base.join("history.md"), "SECRET-1").unwrap();
    fs::write(root.join("secret.md"), "SECRET-2").unwrap();
    let config = ContextInjectConfig {
        files: vec![
            InjectFile::new(".agents/{agent}/history.md"),
            InjectFile::new("notes/{agent}.md"),
        ],
        inject_decisions: false,
        ..Default::default()
    };
    let policy = ContextInject::new(config).unwrap();
    for agent in [
        "../..",
        "../../",
        "../secret",
        "..",
        "/",
        "../../history",
        "..\\..",
        "notes/../../secret",
    ] {
        let ctx = policy.context_for(agent, &root);
        assert!(
            ctx.iter().all(|c| !c.contains("SECRET")),
            "{agent:?}: {ctx:?}"
        );
    }
}

#[test]
fn files_are_read_and_written_under_the_project_root_not_the_events_cwd() {
    let (_d, root) = project();
    let (_e, elsewhere) = project();
    fs::create_dir_all(root.join(".agents")).unwrap();
    fs::write(root.join("NOTES.md"), "the root's notes").unwrap();
    fs::write(elsewhere.join("NOTES.md"), "planted notes").unwrap();
    let policy = ContextInject::new(ContextInjectConfig {
        files: vec![InjectFile::new("NOTES.md")],
        ..ContextInjectConfig::default()
    })
    .unwrap();
    let m = meta(&elsewhere, "coder").with_project_dir(&root);
    let mut start = SessionStart::new(m.clone(), "model");
    policy.session_start(&mut start).unwrap();
    let injected = start.additional_context.join("\n");
    assert!(injected.contains("the root's notes"), "{injected}");
    assert!(!injected.contains("planted"), "{injected}");
    policy
        .record_directives(&m, &["never push to main".into()])
        .unwrap();
    assert!(root.join(".agents/decisions.md").is_file());
    assert!(!elsewhere.join(".agents").exists());
}

#[test]
fn recording_creates_the_file_with_a_header_and_dedupes_against_it() {
    let (_d, root) = project();
    let policy = ContextInject::new(ContextInjectConfig::default()).unwrap();
    let m = meta(&root, "coder");
    let n = policy
        .record_directives(&m, &["never push to main".into(), "Always use tabs".into()])
        .unwrap();
    assert_eq!(n, 2);
    let n = policy
        .record_directives(
            &m,
            &[
                "Never push to main.".into(),
                "always  use tabs".into(),
                "always add tests".into(),
            ],
        )
        .unwrap();
    assert_eq!(n, 1);
    let text = fs::read_to_string(root.join(".agents/decisions.md")).unwrap();
    assert!(text.starts_with("# Decisions\n"));
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("- ")).collect();
    assert_eq!(
        lines,
        [
            "- 2024-06-01 (coder): never push to main",
            "- 2024-06-01 (coder): Always use tabs",
            "- 2024-06-01 (coder): always add tests",
        ]
    );
}

#[test]
fn hand_written_lines_count_as_known_and_a_missing_final_newline_is_added() {
    let (_d, root) = project();
    fs::create_dir_all(root.join(".agents")).unwrap();
    fs::write(
        root.join(".agents/decisions.md"),
        "* Never push to main\nno newline at end",
    )
    .unwrap();
    let policy = ContextInject::new(ContextInjectConfig::default()).unwrap();
    let n = policy
        .record_directives(
            &meta(&root, "a/b"),
            &["never push to main".into(), "always rebase".into()],
        )
        .unwrap();
    assert_eq!(n, 1);
    let text = fs::read_to_string(root.join(".agents/decisions.md")).unwrap();
    assert_eq!(
        text,
        "* Never push to main\nno newline at end\n- 2024-06-01 (a_b): always rebase\n"
    );
}

#[test]
fn a_decisions_file_that_cannot_be_written_is_an_error_not_a_panic() {
    let (_d, root) = project();
    fs::write(root.join("blocker"), "a file where a directory should be").unwrap();
    let config = ContextInjectConfig {
        decisions_file: "blocker/decisions.md".into(),
        ..Default::default()
    };
    let policy = ContextInject::new(config).unwrap();
    let err = policy
        .record_directives(&meta(&root, "a"), &["always x".into()])
        .unwrap_err();
    assert!(matches!(err, RecordError::Io { .. }), "{err}");
}

#[test]
fn render_labels_expand_the_agent_placeholder() {
    let e = InjectFile::new("x").label("Notes for {agent}");
    assert_eq!(render(&e, "x", "../r", "t\n", 0), "Notes for ___r (x):\nt");
}
