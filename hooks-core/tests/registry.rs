//! Introspection and startup checks: listing linked hooks, requiring hooks, and reporting two
//! hooks registered under one name at one point.

use hookrail_core::registry::{self, RegistryError};
use hookrail_core::{HookPoint, KindId, Verdict, hook};

#[derive(Default)]
pub struct Ctx {
    pub ran: Vec<&'static str>,
}

pub mod points {
    use super::Ctx;
    hookrail_core::hook_points! {
        /// Two hooks share a name here.
        pub guard clash: Ctx;
        /// An async observer, for the listing.
        pub observe listed: Ctx;
    }
}

#[hook(crate::points::clash, name = "same", order = 1)]
fn first_same(ctx: &mut Ctx) -> Verdict {
    ctx.ran.push("first");
    Verdict::Continue
}

// Same name, later order: this one is dropped, with an error log and a report.
#[hook(crate::points::clash, name = "same", order = 2)]
fn second_same(ctx: &mut Ctx) -> Verdict {
    ctx.ran.push("second");
    Verdict::Continue
}

#[hook(crate::points::listed, order = 5)]
async fn listed_observer(_: &Ctx) {}

#[test]
fn a_duplicate_name_runs_once_and_is_reported() {
    let mut ctx = Ctx::default();
    let _ = points::clash::dispatch(&mut ctx);
    assert_eq!(ctx.ran, ["first"], "the same name never runs twice");

    let dups = <points::clash::Point as HookPoint>::registry().duplicates();
    assert_eq!(dups.len(), 1);
    assert_eq!(dups[0].order(), 2);

    let err = registry::check().unwrap_err();
    match &err {
        RegistryError::Duplicates { duplicates } => {
            assert_eq!(duplicates.len(), 1);
            assert_eq!(duplicates[0].point, "clash");
            assert_eq!(duplicates[0].name.as_str(), "same");
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(err.to_string().contains("`same` at `clash`"), "{err}");
}

#[test]
fn linked_lists_every_hook_with_point_kind_order_and_location() {
    let all = registry::linked();
    let listed = all
        .iter()
        .find(|h| h.name.as_str() == "registry::listed_observer")
        .expect("listed");
    assert_eq!(listed.point, "listed");
    assert_eq!(listed.kind, KindId::Observe);
    assert_eq!(listed.order, 5);
    assert!(listed.is_async);
    assert!(listed.file.ends_with("registry.rs"), "{}", listed.file);
    assert!(listed.line > 0);
}

#[test]
fn points_lists_standard_and_custom_points() {
    let names: Vec<&str> = registry::points().iter().map(|p| p.name()).collect();
    for standard in hookrail_core::points::NAMES {
        assert!(
            names.contains(&standard),
            "{standard} missing from {names:?}"
        );
    }
    assert!(names.contains(&"clash") && names.contains(&"listed"));
    assert_eq!(names.len(), hookrail_core::points::NAMES.len() + 2);
}

#[test]
fn require_passes_for_linked_hooks_and_names_the_missing_ones() {
    registry::require(["registry::listed_observer", "same"]).expect("both linked");
    let err = registry::require([
        "registry::listed_observer",
        "elsewhere::guard",
        "other::audit",
    ])
    .unwrap_err();
    match &err {
        RegistryError::Missing { missing } => {
            assert_eq!(missing, &["elsewhere::guard", "other::audit"]);
        }
        other => panic!("unexpected {other:?}"),
    }
    let msg = err.to_string();
    assert!(
        msg.contains("elsewhere::guard") && msg.contains("use <crate> as _;"),
        "{msg}"
    );
}

/// `fn main() -> Result<(), Box<dyn Error>>` prints an error returned through `?` as
/// `Error: {:?}`: that must be the message with the fix, not the enum's fields.
#[test]
fn a_missing_hook_reads_well_through_main_question_mark() {
    let err = registry::require(["elsewhere::guard"]).unwrap_err();
    let boxed: Box<dyn std::error::Error> = err.into();
    let printed = format!("Error: {boxed:?}");
    assert_eq!(printed, format!("Error: {boxed}"));
    assert!(
        printed.contains("required hooks are not linked: elsewhere::guard")
            && printed.contains("use <crate> as _;")
            && !printed.contains("Missing {"),
        "{printed}"
    );
    // The fields are still there for whoever asks for them.
    let err = registry::require(["elsewhere::guard"]).unwrap_err();
    assert!(format!("{err:#?}").contains("Missing {"), "{err:#?}");
}

#[test]
fn the_backend_is_the_one_the_cargo_feature_selects() {
    let expected = if cfg!(feature = "inventory") {
        "inventory"
    } else {
        "linkme"
    };
    assert_eq!(registry::BACKEND, expected);
}
