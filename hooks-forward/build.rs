//! Links the unwinder in (`libgcc_eh.a`, what `-static-libgcc` links) on Linux (GNU), as the
//! `hooks` binary does (see hooks-cli's build.rs for the measurements): otherwise the
//! executable loads `libgcc_s.so.1` for the unwinder alone, whose constructor runs `cpuid`
//! instructions that each trap to the hypervisor on a VM, ~0.15 ms of a start that is the whole
//! point of this executable. Not for static builds (they link it already), cross builds, or
//! with `HOOKS_FORWARD_PLAIN_LINK=1`.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=HOOKS_FORWARD_PLAIN_LINK");
    println!("cargo:rerun-if-env-changed=CC");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let crt_static = var("CARGO_CFG_TARGET_FEATURE")
        .split(',')
        .any(|f| f == "crt-static");
    if !matches!(var("HOOKS_FORWARD_PLAIN_LINK").as_str(), "" | "0")
        || var("CARGO_CFG_TARGET_OS") != "linux"
        || var("CARGO_CFG_TARGET_ENV") != "gnu"
        || crt_static
        || var("TARGET") != var("HOST")
    {
        return;
    }
    let cc = var("CC");
    let cc = if cc.is_empty() { "cc".to_owned() } else { cc };
    let Ok(out) = Command::new(cc)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
    else {
        return;
    };
    // A compiler without the file prints its name back, unqualified.
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    if out.status.success()
        && path.is_absolute()
        && path.is_file()
        && let Some(dir) = path.parent()
    {
        // Passed to the final link ahead of std's `-lgcc_s`, which `--as-needed` then drops.
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-lib=static:-bundle=gcc_eh");
    }
}
