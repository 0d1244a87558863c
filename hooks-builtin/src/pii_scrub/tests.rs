//! Unit tests of how a policy is assembled from its settings.

use super::rules::{Check, Find};
use super::*;

#[test]
fn every_category_compiles_and_each_token_rule_has_its_own_trigger_bit() {
    let p = PiiScrub::default();
    assert_eq!(p.engine.labels.len(), Category::ALL.len());
    for (label, category) in p.engine.labels.iter().zip(Category::ALL) {
        assert_eq!(label.name, category.as_str());
        assert_eq!(label.mark, format!("[REDACTED:{category}]"));
        assert!(!rules::builtin(category).is_empty(), "{category} has rules");
    }
    let mut bits = 0u64;
    for rule in &p.engine.rules {
        match rule.find {
            Find::Trigger(words) => {
                assert!(!words.is_empty());
                assert_eq!(rule.bit.count_ones(), 1);
                assert_eq!(bits & rule.bit, 0, "bits are distinct");
                bits |= rule.bit;
            }
            _ => assert_eq!(rule.bit, 0),
        }
    }
    let triggers = p.engine.triggers.as_ref().expect("token rules");
    assert_eq!(triggers.all, bits);
}

#[test]
fn a_literal_that_extends_another_fires_both_rules() {
    let p = PiiScrub::default();
    let bit = |c: Category| {
        let label = p.engine.labels.iter().position(|l| l.name == c.as_str());
        p.engine
            .rules
            .iter()
            .find(|r| Some(r.label) == label)
            .map_or(0, |r| r.bit)
    };
    let fired = p.engine.fire("key sk-ant-api03-x");
    assert_ne!(fired & bit(Category::AnthropicKey), 0);
    assert_ne!(
        fired & bit(Category::OpenaiKey),
        0,
        "`sk-ant-` also starts with `sk-`"
    );
    assert_eq!(fired & bit(Category::GithubToken), 0);
    assert_eq!(p.engine.fire("nothing to see"), 0);
}

#[test]
fn the_default_policy_needs_no_mark_protection_or_second_pass() {
    let p = PiiScrub::default();
    assert!(p.engine.marks.is_none());
    assert!(!p.engine.verify);
    // No built-in rule matches a default mark, which is why none is needed.
    for label in &p.engine.labels {
        assert_eq!(p.scrub_str(&label.mark), label.mark.as_str());
    }
}

#[test]
fn custom_patterns_and_custom_marks_turn_on_mark_protection() {
    let custom = PiiScrub::new(PiiScrubConfig {
        custom: vec![CustomPattern::new("ticket", r"TICKET-[0-9]+")],
        ..PiiScrubConfig::default()
    })
    .expect("valid");
    assert!(custom.engine.marks.is_some() && custom.engine.verify);
    let rule = custom.engine.rules.last().expect("a rule");
    assert_eq!(rule.check, Check::Custom { group: None });
    assert_eq!(custom.engine.labels[rule.label].name, "ticket");

    let marked = PiiScrub::new(PiiScrubConfig {
        mark: "<{category}>".into(),
        ..PiiScrubConfig::default()
    })
    .expect("valid");
    assert!(marked.engine.marks.is_some());
}

#[test]
fn a_custom_pattern_named_like_a_category_counts_under_it() {
    let p = PiiScrub::new(PiiScrubConfig {
        custom: vec![CustomPattern::new("email", r"\bmailbox-[0-9]+\b")],
        ..PiiScrubConfig::default()
    })
    .expect("valid");
    assert_eq!(p.engine.labels.len(), Category::ALL.len());
    let (out, report) = p.scrub_str_report("mailbox-7 and a@b.io");
    assert_eq!(out, "[REDACTED:email] and [REDACTED:email]");
    assert_eq!(report.get("email"), 2);
}

#[test]
fn a_custom_value_group_is_found_by_name() {
    let p = PiiScrub::new(PiiScrubConfig {
        custom: vec![CustomPattern::new("pin", r"(pin)=(?P<value>[0-9]{4})")],
        ..PiiScrubConfig::default()
    })
    .expect("valid");
    let rule = p.engine.rules.last().expect("a rule");
    assert_eq!(rule.check, Check::Custom { group: Some(2) });
    assert_eq!(p.scrub_str("pin=1234"), "pin=[REDACTED:pin]");
}

#[test]
fn disabling_every_category_leaves_nothing_to_find() {
    let p = PiiScrub::new(PiiScrubConfig {
        disabled: Category::ALL.to_vec(),
        ..PiiScrubConfig::default()
    })
    .expect("valid");
    assert!(p.engine.rules.is_empty() && p.engine.triggers.is_none());
    assert!(matches!(p.scrub_str("a@b.io 8.8.8.8"), Cow::Borrowed(_)));
}
