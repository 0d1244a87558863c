//! What a command writes under a name its words do not give as written: a decompressor's
//! output, named for its input (`gunzip ~/.bashrc.gz` writes `~/.bashrc`).

use super::Command;

/// Compressed files' suffixes and what a decompressor makes of them.
const COMPRESSED: &[(&str, &str)] = &[
    (".gz", ""),
    (".tgz", ".tar"),
    (".xz", ""),
    (".txz", ".tar"),
    (".bz2", ""),
    (".zst", ""),
    (".lz4", ""),
    (".lzma", ""),
    (".Z", ""),
];

/// What a decompressor writes: each operand without its suffix (`gunzip
/// .claude/settings.json.gz` writes `.claude/settings.json`).
pub(crate) fn decompressed(cmd: &Command) -> Vec<String> {
    let decompresses = match cmd.program.as_str() {
        "gunzip" | "unxz" | "bunzip2" | "unzstd" | "unlzma" | "uncompress" | "unlz4" => true,
        "gzip" | "xz" | "bzip2" | "zstd" | "lzma" | "lz4" => (cmd.args.iter()).any(|a| {
            a == "--decompress"
                || a == "--uncompress"
                || (a.starts_with('-') && !a.starts_with("--") && a.contains('d'))
        }),
        _ => false,
    };
    if !decompresses || (cmd.args.iter()).any(|a| a == "-c" || a == "--stdout") {
        return Vec::new();
    }
    (cmd.args.iter())
        .filter(|a| !a.starts_with('-'))
        .filter_map(|a| {
            let (suffix, into) = COMPRESSED.iter().find(|(s, _)| a.ends_with(s))?;
            Some(format!("{}{into}", &a[..a.len() - suffix.len()]))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::decompressed;
    use crate::shell::parse;

    fn out(src: &str) -> Vec<String> {
        decompressed(parse(src).unwrap().commands().next().unwrap())
    }

    #[test]
    fn a_decompressor_writes_its_input_without_the_suffix() {
        assert_eq!(out("gunzip ~/.bashrc.gz"), ["~/.bashrc"]);
        assert_eq!(out("gzip -d a.tgz b.zst"), ["a.tar", "b"]);
        assert_eq!(out("xz --decompress /etc/x.xz"), ["/etc/x"]);
        // To standard output, or compressing: nothing of that name.
        assert!(out("gunzip -c ~/.bashrc.gz").is_empty());
        assert!(out("gzip ~/.bashrc").is_empty());
    }
}
