//! Compile-time verification of `#[hook]` and `hook_points!`: each case under `tests/ui` must
//! fail with exactly the diagnostic in its `.stderr` file; each case under `tests/ui-pass` must
//! compile and run.
//!
//! The expected output is rustc's, so it is tied to the toolchain (stable 1.95). After a
//! toolchain update, refresh with `TRYBUILD=overwrite cargo test -p hooks-macros --test
//! compiletest` and review the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui-pass/*.rs");
}
