//! Compile-time verification of `#[hook]` and `hook_points!`: each case under `tests/ui` must
//! fail with exactly the diagnostic in its `.stderr` file; each case under `tests/ui-pass` must
//! compile and run.
//!
//! The expected output is rustc's, so it is tied to the toolchain (stable 1.95). After a
//! toolchain update, refresh with `TRYBUILD=overwrite cargo test -p hookrail-macros --test
//! compiletest` and review the diff.

#[test]
fn ui() {
    // trybuild builds the cases as a crate of its own, where a feature of hookrail-core cannot be
    // set; hookrail-core's build script reads HOOKS_BACKEND instead. `every_form.rs` checks that
    // the cases really ran on the backend this test was built for.
    let backend = if cfg!(feature = "inventory") {
        "inventory"
    } else {
        "linkme"
    };
    // SAFETY: this test binary has this one test; no other thread reads the environment.
    unsafe {
        std::env::set_var("HOOKS_BACKEND", backend);
        std::env::set_var("HOOKS_EXPECT_BACKEND", backend);
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui-pass/*.rs");
}
