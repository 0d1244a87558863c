//! The standard catalog: every point can be named in `#[hook(...)]` (this file registers one hook
//! at each, which only compiles if the `#[hook]` gate knows every point and only catalog points),
//! and each point has the kind DESIGN.md §3 assigns it.

use hookrail_core::context::*;
use hookrail_core::{KindId, Recovery, Verdict, hook};

#[hook(session_start)]
fn h01(_: &mut SessionStart) {}
#[hook(session_end)]
fn h02(_: &SessionEnd) {}
#[hook(user_prompt_submit)]
fn h03(_: &mut UserPromptSubmit) -> Verdict {
    Verdict::Continue
}
#[hook(pre_model_call)]
fn h04(_: &mut PreModelCall) -> Verdict {
    Verdict::Continue
}
#[hook(model_stream_chunk)]
fn h05(_: &mut ModelStreamChunk) {}
#[hook(post_model_call)]
fn h06(_: &mut PostModelCall) {}
#[hook(pre_tool_use)]
fn h07(_: &mut PreToolUse) -> Verdict {
    Verdict::Continue
}
#[hook(post_tool_use)]
fn h08(_: &mut PostToolUse) {}
#[hook(step_end)]
fn h09(_: &StepEnd) {}
#[hook(stop)]
fn h10(_: &mut Stop) -> Verdict {
    Verdict::Continue
}
#[hook(pre_compact)]
fn h11(_: &mut PreCompact) {}
#[hook(subagent_start)]
fn h12(_: &mut SubagentStart) -> Verdict {
    Verdict::Continue
}
#[hook(subagent_stop)]
fn h13(_: &SubagentStop) {}
#[hook(error_occurred)]
fn h14(_: &ErrorOccurred) -> Option<Recovery> {
    None
}
#[hook(notification)]
fn h15(_: &Notification) {}
#[hook(pre_queue_drain)]
fn h16(_: &PreQueueDrain) {}
#[hook(post_queue_drain)]
fn h17(_: &PostQueueDrain) {}
#[hook(permission_request)]
fn h18(_: &mut PermissionRequest) -> Verdict {
    Verdict::Continue
}
#[hook(post_tool_batch)]
fn h19(_: &mut PostToolBatch) -> Verdict {
    Verdict::Continue
}
#[hook(pre_model_switch)]
fn h20(_: &mut PreModelSwitch) -> Verdict {
    Verdict::Continue
}

#[test]
fn every_standard_point_has_the_kind_of_the_design_table() {
    use KindId::*;
    let expected = [
        ("session_start", Transform),
        ("session_end", Observe),
        ("user_prompt_submit", Guard),
        ("pre_model_call", Guard),
        ("model_stream_chunk", Transform),
        ("post_model_call", Transform),
        ("pre_tool_use", Guard),
        ("post_tool_use", Transform),
        ("step_end", Observe),
        ("stop", Guard),
        ("pre_compact", Transform),
        ("subagent_start", Guard),
        ("subagent_stop", Observe),
        ("error_occurred", Recover),
        ("notification", Observe),
        ("pre_queue_drain", Observe),
        ("post_queue_drain", Observe),
        ("permission_request", Guard),
        ("post_tool_batch", Guard),
        ("pre_model_switch", Guard),
    ];
    assert_eq!(hookrail_core::points::NAMES.len(), expected.len());
    let points = hookrail_core::registry::points();
    for (name, kind) in expected {
        assert!(hookrail_core::points::NAMES.contains(&name));
        let p = points.iter().find(|p| p.name() == name).expect(name);
        assert_eq!(p.kind(), kind, "{name}");
        assert_eq!(p.hooks().len(), 1, "{name} has this file's hook");
    }
}
