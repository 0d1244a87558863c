//! Cost per tool call of the path guards: `write-guard`, `secrets-guard`, `reviewer-lockout`.
//!
//! `cargo bench -p hookrail-builtin --no-default-features --features write-guard,secrets-guard,reviewer-lockout --bench path_guards`

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use hookrail_builtin::reviewer_lockout::ReviewerLockout;
use hookrail_builtin::secrets_guard::{SecretsGuard, SecretsGuardConfig};
use hookrail_builtin::write_guard::{WriteGuard, WriteGuardConfig};
use serde_json::json;

fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir_all(root.join("src/deep/er")).unwrap();
    std::fs::write(root.join(".env"), "x").unwrap();
    (dir, root)
}

fn bench(c: &mut Criterion) {
    let (_dir, root) = project();

    let write = WriteGuard::new(WriteGuardConfig {
        allow: vec!["src/**".into(), "tests/**".into()],
        ..WriteGuardConfig::default()
    })
    .unwrap();
    let ok = json!({"file_path": "src/deep/er/lib.rs"});
    let bad = json!({"file_path": "src/../../escape.rs"});
    c.bench_function("write_guard/allowed", |b| {
        b.iter(|| black_box(write.check("Write", black_box(&ok), &root)))
    });
    c.bench_function("write_guard/denied", |b| {
        b.iter(|| black_box(write.check("Write", black_box(&bad), &root)))
    });

    let secrets = SecretsGuard::new(SecretsGuardConfig::default()).unwrap();
    let read = json!({"file_path": "src/deep/er/lib.rs"});
    let grep = json!({"command": "grep -rn TODO src | head -n 20 && cargo test --workspace"});
    let cat = json!({"command": "bash -c 'cat .env'"});
    c.bench_function("secrets_guard/read_allowed", |b| {
        b.iter(|| black_box(secrets.check("Read", black_box(&read), &root)))
    });
    c.bench_function("secrets_guard/shell_allowed", |b| {
        b.iter(|| black_box(secrets.check("Bash", black_box(&grep), &root)))
    });
    c.bench_function("secrets_guard/shell_denied", |b| {
        b.iter(|| black_box(secrets.check("Bash", black_box(&cat), &root)))
    });

    let lockout = ReviewerLockout::default();
    let target = json!({"file_path": "src/deep/er/lib.rs"});
    c.bench_function("reviewer_lockout/no_locks", |b| {
        b.iter(|| black_box(lockout.check("coder", "Write", black_box(&target), &root)))
    });
    lockout
        .reject(root.join("src/deep/er/lib.rs"), "coder", "reviewer")
        .unwrap();
    c.bench_function("reviewer_lockout/locked_denied", |b| {
        b.iter(|| black_box(lockout.check("coder", "Write", black_box(&target), &root)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
