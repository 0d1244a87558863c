//! The command-hook runner against spawning the same script by hand (DESIGN §7: within 1.2×).
//!
//! Group `command_hook`, each iteration one event with one trivial hook that reads its stdin:
//!
//! - `by_hand/sh`: `std::process::Command` runs `sh -c ./trivial.sh`, writes the event JSON
//!   to its stdin and waits: the floor.
//! - `runner/sh`: `Hooks::dispatch_async` of a `pre_tool_use` event whose one configured hook
//!   is that script: serializing the context, matching, the gate (allow-list), spawning in its
//!   own process group with the protocol's environment (on Linux under a reaper of its own,
//!   which costs a `fork` instead of std's `posix_spawn`, and a second `fork`), reading capped
//!   output, parsing the answer, the event to subscribers and merging the verdict.
//! - `runner/sh_approved`: the same admitted by a hash approval instead of an allow entry (the
//!   script is read and hashed on every run, so an edit is caught).
//!
//! Run: `cargo bench -p hookrail-config --bench command`.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use hookrail_config::file::{Format, parse_project};
use hookrail_config::runner::ConfigHooks;
use hookrail_config::trust::{TrustStore, fingerprint};
use hookrail_core::context::{Meta, PreToolUse};
use hookrail_core::points::pre_tool_use;
use hookrail_core::runtime::Hooks;
use serde_json::json;

fn script(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("trivial.sh");
    std::fs::write(&path, "#!/bin/sh\ncat > /dev/null\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn hooks_with(dir: &Path, approved: bool) -> Hooks {
    let yaml = "enabled: true\nhooks:\n  - { id: trivial, event_type: PreToolUse, handler: { command: ./trivial.sh } }\n";
    let config = parse_project(yaml, Format::Yaml, &dir.join("hooks.yaml")).unwrap();
    let mut builder = ConfigHooks::builder(dir);
    if approved {
        let mut store = TrustStore::load(&dir.join("trust.json")).unwrap();
        store.approve(&fingerprint(&config.hooks[0].handler, dir).unwrap(), None);
        builder = builder.trust_store(store);
    } else {
        builder = builder.allow("./trivial.sh");
    }
    let configured = builder.build(config).unwrap();
    let hooks = Hooks::builder().ignore_env().build().unwrap();
    configured.attach(&hooks).unwrap();
    hooks
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    script(p);
    let ctx = PreToolUse::new(
        Meta::new("bench").with_cwd(p),
        "Bash",
        json!({"command": "cargo test"}),
    );
    let payload =
        serde_json::to_vec(&hookrail_config::protocol::input("pre_tool_use", &ctx).unwrap())
            .unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();

    let mut group = c.benchmark_group("command_hook");
    group
        .sample_size(60)
        .measurement_time(Duration::from_secs(8));
    group.bench_function("by_hand/sh", |b| {
        b.iter(|| {
            let mut child = Command::new("sh")
                .args(["-c", "./trivial.sh"])
                .current_dir(p)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            child.stdin.take().unwrap().write_all(&payload).unwrap();
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success());
        })
    });
    for (id, approved) in [("runner/sh", false), ("runner/sh_approved", true)] {
        let hooks = hooks_with(p, approved);
        group.bench_function(id, |b| {
            b.iter(|| {
                let mut ctx = ctx.clone();
                let outcome = rt.block_on(hooks.dispatch_async::<pre_tool_use::Point>(&mut ctx));
                assert!(outcome.failures.is_empty());
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
