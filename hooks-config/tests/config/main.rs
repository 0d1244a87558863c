//! hookrail-config's integration tests: configuration files, layers, trust, matchers,
//! command, HTTP and webhook hooks, and reloads, through the public API. They are one test
//! binary, not one per file, so that it is compiled and linked once; pick a part with a module
//! filter: `cargo test -p hookrail-config --test config -- trust::`. `command_run` stays a
//! binary of its own: its tests count this process's descriptors and children and change its
//! environment, which no other test may do beside them.

mod command_hooks;
mod command_reap;
mod config_files;
mod config_fuzz;
mod fire;
mod fire_root;
mod handlers;
mod hook_results;
mod http;
mod http_hooks;
mod layers;
mod matcher;
mod reload;
mod trust;
mod trust_forms;
mod trust_transitive;
mod unapproved;
mod webhooks;
