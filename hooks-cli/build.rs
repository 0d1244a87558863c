//! Link choices that make the `hooks` binary start faster on Linux (GNU).
//!
//! `hooks claude` is started once per agent event, so its start-up is on every event's path.
//! Figures: BENCHMARKS.md, command hooks (reference VM, `hooks --version`).
//!
//! - **`-no-pie`, only when asked** (`HOOKS_CLI_NO_PIE=1` at build time; the `hooks` binary
//!   only). As a position-independent executable (rustc's default), the dynamic loader applies
//!   ~30 000 relative relocations at every start, which writes, and so copies, every page of
//!   `.data.rel.ro` and `.got` (~500 KiB: vtables, string tables, SQLite's and aws-lc's
//!   tables): ~140 more page faults, ~0.3 ms. Linked with `-no-pie`, those addresses are
//!   fixed at link time and the pages are mapped from the file untouched. The cost is
//!   address-space randomization of the executable's own image (its code and static data;
//!   the stack, heap and shared libraries stay randomized). The binary guards agents against
//!   untrusted input, so the hardened link stays the default; the trade is yours to make.
//! - **The unwinder linked in** (`libgcc_eh.a`, what `-static-libgcc` links). Otherwise the
//!   binary loads `libgcc_s.so.1` for the unwinder alone, and that library's constructor
//!   (`__cpu_indicator_init`) runs ~13 `cpuid` instructions, each a trap to the hypervisor on
//!   a VM (~10 µs apiece on the reference VM): ~0.1 ms with the loading. Panics unwind as
//!   before (`catch_unwind` isolates panicking hooks). This applies to everything that
//!   links this crate (its tests, a `hooks` binary of your own); it is only done when the
//!   C compiler that links finds `libgcc_eh.a` and the build is not a cross build.
//!
//! Set `HOOKS_CLI_PLAIN_LINK=1` when building to link as rustc does by default (it overrides
//! `HOOKS_CLI_NO_PIE`).

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=HOOKS_CLI_PLAIN_LINK");
    println!("cargo:rerun-if-env-changed=HOOKS_CLI_NO_PIE");
    println!("cargo:rerun-if-env-changed=CC");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    if !matches!(var("HOOKS_CLI_PLAIN_LINK").as_str(), "" | "0") {
        return;
    }
    // Static builds (`crt-static`, musl) link neither way; other systems have their own
    // loaders.
    let crt_static = var("CARGO_CFG_TARGET_FEATURE")
        .split(',')
        .any(|f| f == "crt-static");
    if var("CARGO_CFG_TARGET_OS") != "linux" || var("CARGO_CFG_TARGET_ENV") != "gnu" || crt_static {
        return;
    }
    // The C compiler drivers rustc links with on these targets (gcc, clang) take `-no-pie`
    // after rustc's own `-pie`, the last one winning.
    if matches!(var("HOOKS_CLI_NO_PIE").as_str(), "1" | "true") {
        println!("cargo:rustc-link-arg-bin=hooks=-no-pie");
    }

    if var("TARGET") != var("HOST") {
        return;
    }
    if let Some(dir) = gcc_eh_dir(&var("CC")) {
        // Not bundled into the rlib: passed to the final link, ahead of std's `-lgcc_s`, which
        // `--as-needed` then drops as nothing is left for it to provide.
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-lib=static:-bundle=gcc_eh");
    }
}

/// The directory of the C compiler's `libgcc_eh.a`, when it has one.
fn gcc_eh_dir(cc: &str) -> Option<PathBuf> {
    let cc = if cc.is_empty() { "cc" } else { cc };
    let out = Command::new(cc)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    // A compiler without the file prints its name back, unqualified.
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    if !path.is_absolute() || !path.is_file() {
        return None;
    }
    path.parent().map(PathBuf::from)
}
