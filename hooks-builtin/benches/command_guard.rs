//! Cost per tool call of `command-guard`: parsing the command and checking every rule.
//!
//! `cargo bench -p hooks-builtin --no-default-features --features command-guard --bench command_guard`

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use hooks_builtin::command_guard::CommandGuard;
use hooks_builtin::shell;

fn bench(c: &mut Criterion) {
    let guard = CommandGuard::default();
    let root = Path::new("/work/project");
    let cases = [
        ("short", "cargo test --workspace 2>&1 | tail -n 20"),
        ("denied", "cd /tmp && bash -c 'eval \"rm -rf ~\"'"),
        (
            "long",
            "set -euo pipefail; for f in $(git ls-files '*.rs'); do rustfmt --check \"$f\" || \
             echo \"$f\" >> bad.txt; done; if [ -s bad.txt ]; then cat bad.txt | xargs -n1 \
             echo unformatted:; exit 1; fi; find . -name '*.orig' -delete && git status --short",
        ),
    ];
    for (name, command) in cases {
        c.bench_function(&format!("shell::parse/{name}"), |b| {
            b.iter(|| black_box(shell::parse(black_box(command))))
        });
        c.bench_function(&format!("command_guard::check/{name}"), |b| {
            b.iter(|| black_box(guard.check(black_box(command), root)))
        });
    }
    let big = "echo 'line of a generated script' && ls -la src/ | grep -v target\n".repeat(4096);
    c.bench_function("shell::parse/256KiB", |b| {
        b.iter(|| black_box(shell::parse(black_box(&big))))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
