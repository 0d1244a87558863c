//! Programs that write the files an option or an operand names, as data, and editors that
//! rewrite the files they edit: `sort -o F`, `curl -o F`, `sponge F`, `patch F`, `gzip F`
//! (which replaces it), `sed -i`, `perl -pi`, `gawk -i inplace`, and the files a sed or awk
//! script writes (`w F`, `print > "F"`). The write rules judge each by place.

use std::sync::LazyLock;

use crate::command_guard::packs::operands;

/// No option names.
const NONE: &[&str] = &[];

/// How a program says what it writes.
#[derive(Clone, Copy)]
enum Writes {
    /// Every operand (`sponge F`, `dos2unix F…`). (`truncate` is the packs'.)
    Operands,
    /// The operand at this position (`uniq IN OUT`, `xxd IN OUT`, `patch FILE PATCH`).
    Nth(usize),
    /// Only the values of these options (`sort -o F`, `curl -o F`).
    Nothing,
}

/// A program that writes files, as a table row.
#[derive(Clone, Copy)]
struct Writer {
    name: &'static str,
    /// What its operands are.
    writes: Writes,
    /// Options whose value is a file it writes (`-o` of `sort -o F`).
    targets: &'static [&'static str],
    /// Its other options that take a value.
    values: &'static [&'static str],
    /// Options after which it writes nothing (`gzip -c` prints to the output).
    unless: &'static [&'static str],
}

/// A writer row with no options; the builders below add them.
const fn writer(name: &'static str, writes: Writes) -> Writer {
    Writer {
        name,
        writes,
        targets: NONE,
        values: NONE,
        unless: NONE,
    }
}

impl Writer {
    const fn targets(self, targets: &'static [&'static str]) -> Self {
        Writer { targets, ..self }
    }

    const fn values(self, values: &'static [&'static str]) -> Self {
        Writer { values, ..self }
    }

    const fn unless(self, unless: &'static [&'static str]) -> Self {
        Writer { unless, ..self }
    }
}

use Writes::{Nothing, Nth, Operands};

/// The options after which gzip and xz write nothing (they print, list or test).
const TO_STDOUT: &[&str] = &[
    "-c",
    "--stdout",
    "--to-stdout",
    "-l",
    "--list",
    "-t",
    "--test",
];

#[rustfmt::skip]
const WRITERS: &[Writer] = &[
    writer("sponge", Operands),
    writer("dos2unix", Operands),
    writer("unix2dos", Operands),
    writer("mac2unix", Operands),
    writer("ed", Operands).values(&["-p", "--prompt"]),
    writer("red", Operands).values(&["-p", "--prompt"]),
    writer("mkfifo", Operands).values(&["-m", "--mode", "-Z", "--context"]),
    writer("mknod", Nth(0)).values(&["-m", "--mode", "-Z", "--context"]),
    writer("sort", Nothing).targets(&["-o", "--output"]).values(&["-k", "--key", "-t", "--field-separator", "-S", "--buffer-size", "-T", "--temporary-directory", "--batch-size", "--parallel", "--files0-from", "--compress-program", "--random-source", "--sort"]),
    writer("shuf", Nothing).targets(&["-o", "--output"]).values(&["-n", "--head-count", "-i", "--input-range", "--random-source"]),
    writer("iconv", Nothing).targets(&["-o", "--output"]).values(&["-f", "--from-code", "-t", "--to-code"]),
    writer("curl", Nothing).targets(&["-o", "--output"]),
    writer("wget", Nothing).targets(&["-O", "--output-document", "-a", "--append-output", "-o", "--output-file"]),
    writer("openssl", Nothing).targets(&["-out", "--out"]),
    writer("uniq", Nth(1)).values(&["-f", "--skip-fields", "-s", "--skip-chars", "-w", "--check-chars"]),
    writer("xxd", Nth(1)).values(&["-c", "-cols", "-g", "-groupsize", "-l", "-len", "-s", "-seek", "-o", "-offset", "-n", "-name"]),
    writer("patch", Nth(0)).targets(&["-o", "--output", "-r", "--reject-file"]).values(&["-i", "--input", "-d", "--directory", "-D", "--ifdef", "-F", "--fuzz", "-z", "--suffix", "-B", "--prefix", "-Y", "--basename-prefix", "-V", "--version-control", "-g", "--get", "--quoting-style"]).unless(&["--dry-run"]),
    writer("gzip", Operands).values(&["-S", "--suffix"]).unless(TO_STDOUT),
    writer("gunzip", Operands).values(&["-S", "--suffix"]).unless(TO_STDOUT),
    writer("bzip2", Operands).unless(&["-c", "--stdout", "-t", "--test"]),
    writer("bunzip2", Operands).unless(&["-c", "--stdout", "-t", "--test"]),
    writer("xz", Operands).values(&["-S", "--suffix", "-T", "--threads", "-F", "--format", "-C", "--check", "-M", "--memlimit"]).unless(TO_STDOUT),
    writer("unxz", Operands).values(&["-S", "--suffix", "-T", "--threads"]).unless(TO_STDOUT),
];

/// What `program` with `args` writes: the files it names (`sort -o F`), and places for what
/// it writes under a name it makes (`split x /etc/pass` writes `/etc/pass<pieces>`, `patch
/// -d DIR` writes the patch's files under DIR).
pub(super) fn written<'a>(program: &str, args: &'a [String]) -> (Vec<&'a str>, Vec<String>) {
    let mut files = in_place_files(program, args);
    let mut places = Vec::new();
    match program {
        "sed" | "gsed" => places.extend(crate::shell::sed::writes(args)),
        "awk" | "gawk" | "mawk" | "nawk" => places.extend(awk_writes(args)),
        // `split FILE PREFIX`, `csplit -f PREFIX FILE …`: pieces named from the prefix.
        "split" => {
            let split = operands::split(args, SPLIT_VALUES, NONE);
            if let Some(prefix) = split.operands.get(1) {
                places.push(format!("{prefix}<pieces>"));
            }
        }
        "csplit" => {
            let split = operands::split(
                args,
                &["-b", "--suffix-format", "-n", "--digits"],
                &["-f", "--prefix"],
            );
            places.extend(split.targets.iter().map(|p| format!("{p}<pieces>")));
        }
        // `patch -d DIR` (`--directory`) writes the files the patch names under DIR.
        "patch" => {
            let split = operands::split(
                args,
                &["-i", "--input", "-o", "--output"],
                &["-d", "--directory"],
            );
            places.extend(
                split
                    .targets
                    .iter()
                    .map(|d| format!("{}/<patched files>", d.trim_end_matches('/'))),
            );
        }
        // find's `-fprint FILE`, `-fprint0 FILE`, `-fprintf FILE FORMAT`, `-fls FILE`.
        "find" => files.extend(args.windows(2).filter_map(|w| {
            matches!(w[0].as_str(), "-fprint" | "-fprint0" | "-fprintf" | "-fls")
                .then_some(w[1].as_str())
        })),
        "zstd" if args.iter().any(|a| a == "--rm") => {
            let split = operands::split(args, &["-o", "-D", "-T", "--memory"], &["-o"]);
            files.extend(split.operands.iter().chain(&split.targets));
        }
        _ => {}
    }
    if let Some(&Writer {
        writes,
        targets,
        values,
        unless,
        ..
    }) = WRITERS.iter().find(|w| w.name == program)
    {
        let all_values: Vec<&str> = values.iter().chain(targets.iter()).copied().collect();
        let split = operands::split(args, &all_values, targets);
        if !split
            .flags
            .iter()
            .any(|f| unless.contains(f) || short_in(f, unless))
        {
            files.extend(split.targets.iter().copied());
            match writes {
                Writes::Operands => files.extend(split.operands.iter().copied()),
                Writes::Nth(n) => files.extend(split.operands.get(n).copied()),
                Writes::Nothing => {}
            }
        }
    }
    (files, places)
}

/// split's options that take a value.
const SPLIT_VALUES: &[&str] = &[
    "-a",
    "--suffix-length",
    "-b",
    "--bytes",
    "-C",
    "--line-bytes",
    "-l",
    "--lines",
    "-n",
    "--number",
    "-t",
    "--separator",
    "--additional-suffix",
    "--filter",
];

/// Whether a cluster of short flags (`-kc`) holds one of `unless`'s short options.
fn short_in(flag: &str, unless: &[&str]) -> bool {
    !flag.starts_with("--")
        && (flag[1..].chars()).any(|c| {
            unless
                .iter()
                .any(|u| u.len() == 2 && u.ends_with(c) && u.starts_with('-'))
        })
}

/// The files an awk program prints into (`print > "/etc/passwd"`, `printf … >> "f"`): the
/// program is the first operand, or `-e`'s value.
fn awk_writes(args: &[String]) -> Vec<String> {
    static TO: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r#"\bprintf?\b[^;{}\n]*?>>?\s*"([^"]+)""#)
            .expect("the awk output expression compiles")
    });
    let mut program = None;
    let mut words = args.iter().map(String::as_str);
    while let Some(word) = words.next() {
        match word {
            "-e" | "--source" => program = words.next().or(program),
            "-f" | "--file" | "-v" | "--assign" | "-F" | "--field-separator" | "-i"
            | "--include" | "-l" | "--load" => {
                words.next();
            }
            w if w.starts_with('-') => {}
            w if program.is_none() => program = Some(w),
            _ => {}
        }
    }
    program
        .map(|p| {
            TO.captures_iter(p)
                .filter_map(|c| c.get(1))
                .map(|m| m.as_str().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The files an in-place editor rewrites: `sed -i` (`-i.bak`, `-Ei`, `--in-place`; BSD's
/// `-i ''`), `perl -pi -e` and `ruby -pi -e` (`-i.bak`; `-pie` is `-i` with the suffix
/// `e`), `gawk -i inplace` (`--include=inplace`). They are the operands after the program
/// text (the first operand, when no `-e`/`-f` gives it); none without in-place editing.
fn in_place_files<'a>(program: &str, args: &'a [String]) -> Vec<&'a str> {
    // Per program: the short options whose value is the program text, the other short
    // options that take a value, and whether `-i` takes a value word (gawk's `-i inplace`)
    // or only the rest of its cluster (a backup suffix).
    let (text, values, i_takes_word) = match program {
        "sed" | "gsed" => ("ef", "l", false),
        "perl" | "ruby" => ("eE", "IMm", false),
        _ => ("ef", "vFil", true),
    };
    let mut in_place = false;
    let mut given_text = false;
    let mut operands = Vec::new();
    let mut words = args.iter().map(String::as_str);
    while let Some(word) = words.next() {
        if word == "--" {
            operands.extend(words.by_ref());
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, value) = long
                .split_once('=')
                .map_or((long, None), |(n, v)| (n, Some(v)));
            // GNU takes a long option by any unambiguous prefix (`--in`, `--expr`).
            let name = ["in-place", "expression", "file", "source", "include"]
                .into_iter()
                .find(|full| name.len() >= 2 && full.starts_with(name))
                .unwrap_or(name);
            match name {
                "in-place" => in_place = true,
                "expression" | "file" | "source" => {
                    given_text = true;
                    if value.is_none() {
                        words.next();
                    }
                }
                "include" => {
                    let value = value.or_else(|| words.next());
                    in_place |= value.is_some_and(|v| v.trim_end_matches(".awk") == "inplace");
                }
                "assign" | "field-separator" | "load" | "line-length" if value.is_none() => {
                    words.next();
                }
                _ => {}
            }
            continue;
        }
        let Some(cluster) = word.strip_prefix('-').filter(|c| !c.is_empty()) else {
            operands.push(word);
            continue;
        };
        for (at, c) in cluster.char_indices() {
            let rest = &cluster[at + c.len_utf8()..];
            if c == 'i' && !i_takes_word {
                in_place = true;
                break; // the rest is the backup suffix
            }
            if c == 'i' || text.contains(c) || values.contains(c) {
                let value = if rest.is_empty() {
                    words.next()
                } else {
                    Some(rest)
                };
                if c == 'i' {
                    in_place |= value.is_some_and(|v| v.trim_end_matches(".awk") == "inplace");
                } else if text.contains(c) {
                    given_text = true;
                }
                break;
            }
        }
    }
    if !in_place {
        return Vec::new();
    }
    let files = if given_text {
        &operands[..]
    } else {
        operands.get(1..).unwrap_or_default()
    };
    files.to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn scripts_name_the_files_they_write() {
        let awk = vec![
            "{print > \"/etc/passwd\"}".to_owned(),
            "README.md".to_owned(),
        ];
        assert_eq!(awk_writes(&awk), ["/etc/passwd"]);
        assert_eq!(
            written("sort", &words("-o /etc/passwd x")).0,
            ["/etc/passwd"]
        );
        assert!(written("gzip", &words("-c /etc/passwd")).0.is_empty());
    }
}
