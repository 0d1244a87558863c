//! Selects the registry backend from the environment: `HOOKS_BACKEND=inventory` has the same
//! effect as the `inventory` feature. It exists for builds that cannot set a feature of
//! hookrail-core (trybuild's generated crates, or a dependency graph you do not control).

fn main() {
    println!("cargo::rustc-check-cfg=cfg(hooks_backend, values(\"inventory\"))");
    println!("cargo::rerun-if-env-changed=HOOKS_BACKEND");
    match std::env::var("HOOKS_BACKEND") {
        Ok(v) if v == "inventory" => println!("cargo::rustc-cfg=hooks_backend=\"inventory\""),
        Ok(v) if v.is_empty() || v == "linkme" => {}
        Ok(other) => panic!("HOOKS_BACKEND must be `linkme` or `inventory`, not `{other}`"),
        Err(_) => {}
    }
}
