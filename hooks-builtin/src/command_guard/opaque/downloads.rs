//! `download-then-run`: a file a downloader writes, then runs as code in the same line.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::shell::getopt::{self, Style};

use super::*;

/// `download-then-run`.
pub(super) fn download_then_run(script: &Script) -> Option<Hit> {
    let mut downloaded: HashMap<String, &str> = HashMap::new();
    for pipeline in &script.pipelines {
        for (i, c) in pipeline.commands.iter().enumerate() {
            if !DOWNLOADERS.contains(&c.program.as_str()) {
                continue;
            }
            let mut files = download_files(c);
            for later in &pipeline.commands[i..] {
                if later.program == "tee" {
                    files.extend(later.args.iter().filter(|a| !a.starts_with('-')).cloned());
                }
                files.extend(
                    later
                        .redirects
                        .iter()
                        .filter(|r| r.writes_file() && r.fd.is_none_or(|fd| fd == 1))
                        .map(|r| r.target.clone()),
                );
            }
            for file in files.iter().filter_map(|f| file_name(f)) {
                downloaded
                    .entry(file.to_owned())
                    .or_insert(c.program.as_str());
            }
        }
    }
    // Any other file the command line writes (`echo … > x.sh`, `cat > x.sh <<EOF`, `tee x.sh`):
    // its content is whatever that stage printed, which the guard does not follow.
    // On any descriptor: `test "$x" 2> x.sh` writes what it complains about.
    let mut written: HashMap<String, &str> = HashMap::new();
    for c in script.commands() {
        let targets = c
            .redirects
            .iter()
            .filter(|r| r.writes_file())
            .map(|r| r.target.as_str());
        let tee = (c.program == "tee")
            .then(|| {
                c.args
                    .iter()
                    .filter(|a| !a.starts_with('-'))
                    .map(String::as_str)
            })
            .into_iter()
            .flatten();
        for file in targets.chain(tee).filter_map(file_name) {
            let by = if c.program.is_empty() {
                "a redirection"
            } else {
                c.program.as_str()
            };
            written.entry(file.to_owned()).or_insert(by);
        }
    }
    if downloaded.is_empty() && written.is_empty() {
        return None;
    }
    for c in script.commands() {
        for run in runs(c) {
            let Some(name) = file_name(&run) else {
                continue;
            };
            if let Some(downloader) = downloaded.get(name) {
                return Some(hit(
                    DOWNLOAD_THEN_RUN,
                    format!("runs {run}, which {downloader} downloads in the same command"),
                ));
            }
            // A file whose content the line spells out was judged as that content (the
            // parser read it: `Script::known_files`).
            if let Some(writer) = written.get(name)
                && !script.known_files.iter().any(|k| k == name)
            {
                return Some(hit(
                    WRITE_THEN_RUN,
                    format!(
                        "runs {run}, which {writer} writes in the same command; the guard does not read what it wrote"
                    ),
                ));
            }
        }
    }
    None
}

/// The last part of a path, or `None` for standard output, a device or nothing.
pub(super) fn file_name(path: &str) -> Option<&str> {
    let path = path.trim();
    if path.is_empty() || path == "-" || path.starts_with("/dev/") {
        return None;
    }
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|n| !n.is_empty() && *n != "." && *n != "..")
}

/// The name a URL is saved under by `curl -O` or `wget`: its last path segment.
pub(super) fn url_name(url: &str) -> Option<String> {
    let url = url.split(['?', '#']).next().unwrap_or_default();
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let (_, path) = rest.split_once('/')?;
    path.rsplit('/')
        .next()
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
}

/// The files a downloader writes (not counting redirections).
fn download_files(command: &Command) -> Vec<String> {
    // Short options that take a value, and the one that names the output file.
    let (short, out, remote_by_default): (&str, char, bool) = match command.program.as_str() {
        "curl" => ("HdXuAebcFmwxTrzCKEUYytQPo", 'o', false),
        "wget" => ("OoaPtTweiBUQlARDXIY", 'O', true),
        "aria2c" => ("odsxkjiU", 'o', true),
        "fetch" => ("oNTSa", 'o', true),
        _ => ("ov", 'o', false), // http, https, xh
    };
    const LONG_VALUES: &[&str] = &[
        "header",
        "data",
        "data-raw",
        "data-binary",
        "data-urlencode",
        "request",
        "user",
        "user-agent",
        "referer",
        "cookie",
        "cookie-jar",
        "form",
        "max-time",
        "write-out",
        "proxy",
        "upload-file",
        "range",
        "connect-timeout",
        "retry",
        "config",
        "cert",
        "key",
        "cacert",
        "output-dir",
        "resolve",
        "connect-to",
        "limit-rate",
        "directory-prefix",
        "dir",
        "tries",
        "timeout",
        "auth",
    ];
    let mut files = Vec::new();
    let mut operands = Vec::new();
    let mut remote = remote_by_default;
    let mut args = command.args.iter();
    while let Some(arg) = args.next() {
        if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (long, None),
            };
            match name {
                "output" | "output-document" | "out" => {
                    files.extend(value.or_else(|| args.next().cloned()));
                    remote = false;
                }
                "remote-name" | "remote-name-all" | "download" => remote = true,
                "url" => operands.extend(value.or_else(|| args.next().cloned())),
                n if value.is_none() && LONG_VALUES.contains(&n) => {
                    args.next();
                }
                _ => {}
            }
        } else if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) {
            for (at, c) in cluster.char_indices() {
                if c == 'O' && command.program == "curl" {
                    remote = true;
                }
                if c == 'd' && matches!(command.program.as_str(), "http" | "https" | "xh") {
                    remote = true;
                }
                if short.contains(c) {
                    let attached = &cluster[at + c.len_utf8()..];
                    let value = if attached.is_empty() {
                        args.next().cloned()
                    } else {
                        Some(attached.to_owned())
                    };
                    if c == out {
                        files.extend(value);
                        remote = false;
                    }
                    break;
                }
            }
        } else {
            operands.push(arg.clone());
        }
    }
    if remote {
        files.extend(operands.iter().filter_map(|u| url_name(u)));
    }
    files
}

/// Programs that run the code of a file an option names (`make -f x.mk`, `psql -f x.sql`,
/// `awk -f x.awk`, `sed -f x.sed`: sed's `e` runs commands, `at -f x`, `nft -f x`).
const CODE_FILE_OPTIONS: &[(&str, &[&str])] = &[
    ("make", &["-f", "--file", "--makefile"]),
    ("gmake", &["-f", "--file", "--makefile"]),
    ("psql", &["-f", "--file"]),
    ("awk", &["-f", "--file"]),
    ("gawk", &["-f", "--file"]),
    ("mawk", &["-f"]),
    ("nawk", &["-f"]),
    ("sed", &["-f", "--file"]),
    ("gsed", &["-f", "--file"]),
    ("at", &["-f"]),
    ("batch", &["-f"]),
    ("nft", &["-f", "--file"]),
];

/// SQL clients that run the statements they read on standard input (`psql < x.sql`).
const SQL_ON_STDIN: &[&str] = &[
    "psql",
    "mysql",
    "mariadb",
    "sqlite3",
    "sqlite",
    "duckdb",
    "sqlcmd",
    "clickhouse-client",
];

/// The files `command` runs as code: a script operand of a shell or interpreter, a script on
/// standard input from a file, a sourced file, a file of code an option names (`make -f`,
/// `psql -f`), SQL on standard input, or the program itself.
fn runs(command: &Command) -> Vec<Cow<'_, str>> {
    let mut files = vec![Cow::Borrowed(command.program.as_str())];
    if matches!(command.program.as_str(), "source" | ".") {
        files.extend(command.args.first().map(|a| Cow::Borrowed(a.as_str())));
    }
    if let Some((_, options)) = (CODE_FILE_OPTIONS.iter()).find(|(p, _)| *p == command.program) {
        let words = getopt::read(&command.args, Style::Gnu, &[], |given| {
            options.iter().any(|o| getopt::is(given, o))
        });
        files.extend(words.values(options).map(|v| Cow::Owned(v.to_owned())));
    }
    if let Some(ShellScript::File(f)) = command.shell_script() {
        files.push(Cow::Borrowed(f));
    }
    files.extend(interp::script_file(command).map(Cow::Borrowed));
    if command.shell_script() == Some(ShellScript::Stdin)
        || interp::reads_code_from_stdin(command)
        || SQL_ON_STDIN.contains(&command.program.as_str())
    {
        files.extend(
            command
                .redirects
                .iter()
                .filter(|r| r.op == RedirectOp::In && r.fd.is_none_or(|fd| fd == 0))
                .map(|r| Cow::Borrowed(r.target.as_str())),
        );
    }
    files
}
