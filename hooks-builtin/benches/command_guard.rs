//! Cost per tool call of `command-guard`: parsing the command and checking every rule, over
//! the whole corpus (`tests/corpus/*.toml`), with the parse alone as the baseline.
//!
//! `cargo bench -p hookrail-builtin --no-default-features --features command-guard --bench command_guard`
//!
//! Besides criterion's figures for the whole corpus, it prints the median and p99 of the time
//! of one decision across the corpus' commands (each command timed as the median of many runs).

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use hookrail_builtin::command_guard::CommandGuard;
use hookrail_builtin::shell;

#[path = "../tests/corpus_cases/mod.rs"]
#[allow(dead_code)]
mod corpus_cases;

/// The time of one call of `f`: the median of `RUNS` timed runs of `BATCH` calls.
fn per_call(mut f: impl FnMut()) -> Duration {
    const RUNS: usize = 15;
    const BATCH: u32 = 20;
    let mut runs: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..BATCH {
                f();
            }
            start.elapsed() / BATCH
        })
        .collect();
    runs.sort_unstable();
    runs[RUNS / 2]
}

/// Median and p99 of `times`.
fn spread(mut times: Vec<Duration>) -> (Duration, Duration) {
    times.sort_unstable();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.99))
}

fn bench(c: &mut Criterion) {
    let guard = CommandGuard::default();
    let root = Path::new(corpus_cases::ROOT);
    let cases = corpus_cases::load();
    let commands: Vec<(&str, &Path)> = cases
        .iter()
        .map(|c| (c.command.as_str(), c.cwd.as_deref().map_or(root, Path::new)))
        .collect();

    let parse: Vec<Duration> = commands
        .iter()
        .map(|(cmd, _)| per_call(|| drop(black_box(shell::parse(black_box(cmd))))))
        .collect();
    let check: Vec<Duration> = commands
        .iter()
        .map(|(cmd, cwd)| per_call(|| drop(black_box(guard.check_in(black_box(cmd), root, cwd)))))
        .collect();
    let (parse_median, parse_p99) = spread(parse);
    let (check_median, check_p99) = spread(check);
    println!(
        "corpus of {} commands, per decision: shell::parse median {parse_median:?} p99 {parse_p99:?}; \
         CommandGuard::check_in median {check_median:?} p99 {check_p99:?}",
        commands.len()
    );

    c.bench_function("shell::parse/corpus", |b| {
        b.iter(|| {
            for (cmd, _) in &commands {
                drop(black_box(shell::parse(black_box(cmd))));
            }
        })
    });
    c.bench_function("command_guard::check/corpus", |b| {
        b.iter(|| {
            for (cmd, cwd) in &commands {
                drop(black_box(guard.check_in(black_box(cmd), root, cwd)));
            }
        })
    });
    c.bench_function("command_guard::new/default", |b| {
        b.iter(|| black_box(CommandGuard::default()))
    });
    let big = "echo 'line of a generated script' && ls -la src/ | grep -v target\n".repeat(4096);
    c.bench_function("command_guard::check/256KiB", |b| {
        b.iter(|| black_box(guard.check(black_box(&big), root)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
