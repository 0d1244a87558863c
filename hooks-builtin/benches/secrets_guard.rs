//! Cost per tool call of `secrets-guard` on ordinary calls (the ones an agent makes all day),
//! with the parse of the same command and one `lstat` as baselines measured in the same run.
//!
//! `cargo bench -p hookrail-builtin --no-default-features --features secrets-guard --bench secrets_guard`
//!
//! The project sits four directories deep (`<tmp>/src/app`), as a checkout under a home
//! directory does, because the guard's cost grows with the depth of the paths it resolves.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use hookrail_builtin::secrets_guard::{SecretsGuard, SecretsGuardConfig};
use hookrail_builtin::shell;
use serde_json::json;

/// Commands an agent runs all day; none of them names a secrets file.
const ORDINARY: &[(&str, &str)] = &[
    ("cargo_test", "cargo test --workspace"),
    ("git_status", "git status --short"),
    (
        "grep_pipe",
        "grep -rn TODO src | head -n 20 && cargo test --workspace",
    ),
    (
        "npm_build",
        "cd web && npm run build -- --mode production 2>&1 | tail -n 50",
    ),
    ("ls_glob", "ls -la src/*.rs"),
];

fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = std::fs::canonicalize(dir.path())
        .expect("canonical tempdir")
        .join("src/app");
    std::fs::create_dir_all(root.join("src/deep/er")).expect("project dirs");
    std::fs::create_dir_all(root.join("web")).expect("web dir");
    for file in ["src/main.rs", "src/lib.rs", "src/deep/er/lib.rs", ".env"] {
        std::fs::write(root.join(file), "x").expect("project file");
    }
    (dir, root)
}

fn bench(c: &mut Criterion) {
    let (_dir, root) = project();
    let guard = SecretsGuard::default();

    for (name, command) in ORDINARY {
        let input = json!({ "command": command });
        assert!(
            !guard.check("Bash", &input, &root).is_deny(),
            "{command} is ordinary"
        );
        c.bench_function(&format!("secrets_guard/bash/{name}"), |b| {
            b.iter(|| black_box(guard.check("Bash", black_box(&input), &root)))
        });
        c.bench_function(&format!("baseline/parse/{name}"), |b| {
            b.iter(|| black_box(shell::parse(black_box(command))))
        });
    }

    // The usual layout: the project inside the home directory (here the temporary directory
    // stands in for the home).
    let home = root.ancestors().nth(2).map(PathBuf::from);
    let in_home = SecretsGuard::with_home(SecretsGuardConfig::default(), home).expect("guard");
    let input = json!({ "command": ORDINARY[0].1 });
    c.bench_function("secrets_guard/bash/cargo_test_root_in_home", |b| {
        b.iter(|| black_box(in_home.check("Bash", black_box(&input), &root)))
    });

    let read = json!({ "file_path": "src/deep/er/lib.rs" });
    c.bench_function("secrets_guard/read/allowed", |b| {
        b.iter(|| black_box(guard.check("Read", black_box(&read), &root)))
    });
    let denied = json!({ "command": "cat .env" });
    assert!(guard.check("Bash", &denied, &root).is_deny());
    c.bench_function("secrets_guard/bash/denied_cat_env", |b| {
        b.iter(|| black_box(guard.check("Bash", black_box(&denied), &root)))
    });

    // The unit of the guard's file-system work: one `lstat` of the project root.
    c.bench_function("baseline/lstat_root", |b| {
        b.iter(|| black_box(std::fs::symlink_metadata(black_box(&root)).is_ok()))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
