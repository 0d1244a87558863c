use super::*;

#[test]
fn default_config_is_valid_and_round_trips_through_json() {
    let cfg = AuditConfig::default();
    cfg.validate().unwrap();
    let text = serde_json::to_string(&cfg).unwrap();
    let back: AuditConfig = serde_json::from_str(&text).unwrap();
    assert_eq!(back, cfg);
    let partial: AuditConfig =
        serde_json::from_str(r#"{"path": "x.jsonl", "format": "jsonl"}"#).unwrap();
    assert_eq!(partial.format, AuditFormat::Jsonl);
    assert_eq!(partial.queue_capacity, 8192);
}

#[test]
fn unknown_config_fields_are_refused() {
    let err = serde_json::from_str::<AuditConfig>(r#"{"pth": "x"}"#).unwrap_err();
    assert!(err.to_string().contains("pth"), "{err}");
}

#[test]
fn bad_settings_name_the_field() {
    let bad = |f: fn(&mut AuditConfig)| {
        let mut c = AuditConfig::default();
        f(&mut c);
        c.validate().unwrap_err().field.into_owned()
    };
    assert_eq!(bad(|c| c.queue_capacity = 0), "queue_capacity");
    assert_eq!(bad(|c| c.batch_size = 0), "batch_size");
    assert_eq!(
        bad(|c| c.enqueue_timeout_ms = 120_000),
        "enqueue_timeout_ms"
    );
    assert_eq!(bad(|c| c.flush_timeout_ms = 0), "flush_timeout_ms");
    assert_eq!(bad(|c| c.path = PathBuf::new()), "path");
    assert_eq!(
        bad(|c| c.skip_points = vec!["step_end".into(), " ".into()]),
        "skip_points[1]"
    );
}

#[test]
fn describe_names_each_kind_of_result() {
    let deny = Verdict::deny("no");
    assert_eq!(
        describe(&RunResult::Verdict(&deny)),
        ("deny", Some("no".to_owned()))
    );
    assert_eq!(describe(&RunResult::Done), ("done", None));
    assert_eq!(describe(&RunResult::Recovery(None)), ("no_recovery", None));
    let r = hookrail_core::Recovery::GiveUp { reason: "x".into() };
    let (word, detail) = describe(&RunResult::Recovery(Some(&r)));
    assert_eq!(word, "recovery");
    assert!(detail.unwrap().contains("give_up"));
}
