//! Where the extractors other than tar and unzip put an archive's entries, read once for both
//! guards: the command guard judges the place (`7z x x.7z -o/etc`), the secrets guard the
//! settings directory it may fill (`cd .claude && cpio -idm < x.cpio`).

use super::Command;
use super::getopt::{self, Style};

/// The programs [`extracted_into`] reads.
pub(crate) const EXTRACTORS: &[&str] = &[
    "7z",
    "7za",
    "7zz",
    "unrar",
    "unar",
    "cpio",
    "pax",
    "cabextract",
];

/// Where an extraction puts what it writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Extracted {
    /// Its directory option, its destination operand, or `.` (where it runs).
    pub(crate) into: String,
    /// It copies files named on its input (`cpio -p`, `pax -rw`), whose names the command
    /// line does not show, rather than an archive's entries.
    pub(crate) copies: bool,
}

/// Where one of the [`EXTRACTORS`] writes the entries of an archive (or, passing files
/// through, the files its input names); `None` when it lists, tests or makes an archive, or is
/// not one of them.
pub(crate) fn extracted_into(command: &Command) -> Option<Extracted> {
    if !EXTRACTORS.contains(&command.program.as_str()) {
        return None;
    }
    let (style, valued, into): (Style, &[&str], &[&str]) = match command.program.as_str() {
        "7z" | "7za" | "7zz" => (Style::Switches, &["-o"], &["-o"]),
        "unar" => (
            Style::Gnu,
            &[
                "-o",
                "--output-directory",
                "-p",
                "--password",
                "-e",
                "--encoding",
            ],
            &["-o", "--output-directory"],
        ),
        "cabextract" => (
            Style::Gnu,
            &["-d", "--directory", "-F", "--filter", "-e", "--encoding"],
            &["-d", "--directory"],
        ),
        "cpio" => (
            Style::Gnu,
            &[
                "-D",
                "--directory",
                "-F",
                "--file",
                "-E",
                "--pattern-file",
                "-H",
                "--format",
                "-I",
                "-O",
                "-R",
                "--owner",
                "-M",
                "--message",
            ],
            &["-D", "--directory"],
        ),
        "pax" => (
            Style::Gnu,
            &["-f", "-s", "-o", "-p", "-x", "-b", "-B", "-U", "-G", "-T"],
            &[],
        ),
        "unrar" => (Style::Gnu, &[], &[]),
        _ => return None,
    };
    let words = getopt::read(&command.args, style, valued, |given| {
        valued.iter().any(|v| getopt::is(given, v))
    });
    let named = words.values(into).last().map(str::to_owned);
    let first = words.operands.first().map(String::as_str);
    let here = |named: Option<String>| named.unwrap_or_else(|| ".".to_owned());
    let archive = |into: String| Extracted {
        into,
        copies: false,
    };
    let copy = |into: String| Extracted { into, copies: true };
    match command.program.as_str() {
        "7z" | "7za" | "7zz" => matches!(first, Some("x" | "e")).then(|| archive(here(named))),
        // unrar's destination is an operand that ends with a slash.
        "unrar" => matches!(first, Some("x" | "e")).then(|| {
            archive(here(
                words.operands.last().filter(|o| o.ends_with('/')).cloned(),
            ))
        }),
        "cpio" if words.has("-p", true) || words.has("--pass-through", false) => {
            named.or_else(|| words.operands.last().cloned()).map(copy)
        }
        "cpio" if words.has("-i", true) || words.has("--extract", false) => {
            Some(archive(here(named)))
        }
        "pax" if words.has("-r", true) && words.has("-w", true) => {
            words.operands.last().cloned().map(copy)
        }
        "pax" if words.has("-r", true) => Some(archive(".".to_owned())),
        "unar" | "cabextract" => Some(archive(here(named))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn into(line: &str) -> Option<(String, bool)> {
        let script = crate::shell::parse(line).expect("parses");
        let command = script.commands().next().expect("a command");
        extracted_into(command).map(|e| (e.into, e.copies))
    }

    #[test]
    fn each_extractor_writes_where_its_options_say() {
        let archive = |dir: &str| Some((dir.to_owned(), false));
        let copy = |dir: &str| Some((dir.to_owned(), true));
        assert_eq!(into("7z x a.7z -o/etc"), archive("/etc"));
        assert_eq!(into("7z -o.claude x a.7z"), archive(".claude"));
        assert_eq!(into("7z e a.7z"), archive("."));
        assert_eq!(into("7z l a.7z"), None);
        assert_eq!(into("unrar x a.rar out/"), archive("out/"));
        assert_eq!(into("unrar x a.rar"), archive("."));
        assert_eq!(into("unar -e utf8 -o dir a.zip"), archive("dir"));
        assert_eq!(into("unar --output-dir dir a.zip"), archive("dir"));
        assert_eq!(into("cabextract -F '*.x' -d /etc a.cab"), archive("/etc"));
        assert_eq!(into("cpio -idm -D /etc"), archive("/etc"));
        assert_eq!(into("cpio -i -H newc"), archive("."));
        assert_eq!(into("cpio -pdm -M hi /srv"), copy("/srv"));
        assert_eq!(into("cpio -o -H newc"), None);
        assert_eq!(into("pax -rw x /etc"), copy("/etc"));
        assert_eq!(into("pax -r -f a.pax"), archive("."));
        assert_eq!(into("pax -w -f a.pax x"), None);
        assert_eq!(into("tar -xf a.tar"), None);
    }
}
