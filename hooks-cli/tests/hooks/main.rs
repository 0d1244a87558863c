//! The `hooks` binary's integration tests, run through the real binary as an agent CLI runs
//! it. They are one test binary, not one per file: it is linked once, and its tests (the
//! corpus and adversarial suites among them) run side by side instead of one file after
//! another. Pick a part with a module filter:
//! `cargo test -p hookrail-cli --test hooks -- adversarial::`.

mod common;

mod adversarial;
mod answer_fields;
mod claude_events;
mod claude_settings;
mod cli;
mod corpus_claude;
mod fail_closed;
mod fail_closed_process;
mod forwarder;
mod hook_results;
mod original_payload;
mod serve;
mod serve_long_lived;
mod serve_reliability;
mod trust_cli;
