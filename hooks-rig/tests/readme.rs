//! The README's rig snippet is marked `ignore` there (the workspace's doctests leave rig out)
//! and compiled as this crate's example: the two copies must stay the same.

use std::path::Path;

/// The body of the first fenced block opening with `fence` after `heading` in `text`.
fn block<'a>(text: &'a str, heading: &str, fence: &str) -> Option<&'a str> {
    let from = text.find(heading)?;
    let start = text[from..].find(fence)? + from + fence.len();
    let end = text[start..].find("```")? + start;
    Some(&text[start..end])
}

#[test]
fn the_readme_snippet_is_the_crate_example() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(dir.join("README.md")).expect("README.md");
    let lib = std::fs::read_to_string(dir.join("src/lib.rs")).expect("src/lib.rs");
    let docs: String = lib
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n");
    let in_readme = block(
        &readme,
        "## rig agents (`hookrail-rig`)",
        "```rust,ignore\n",
    )
    .expect("the README's rig section has a rust,ignore snippet");
    let in_docs =
        block(&docs, "# Example", "```no_run\n").expect("the crate docs have a no_run example");
    assert_eq!(in_readme.trim_end(), in_docs.trim_end());
}
