//! What a sed script does besides editing its input: the files its commands write (`w`) and
//! read into the output (`r`), which the command guard and the secrets guard judge.

use std::sync::LazyLock;

/// sed's `w FILE` command, and the `w FILE` flag of `s///`.
static W: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"(?m)(?:^|[;{}]|[0-9$/][gpiImMe0-9]*)\s*[wW]\s+([^;\n}]+)")
        .expect("the sed write expression compiles")
});

/// The files a sed script writes: its `w FILE` commands and the `w FILE` flag of `s///`
/// (`sed -n '/x/w /etc/cron.d/x' f`, `sed 's/a/b/w /etc/passwd' f`). The script is the
/// first operand, or the values of `-e`.
pub(crate) fn writes(args: &[String]) -> Vec<String> {
    // GNU sed takes the file name right after the command too (`w/etc/passwd`), where the
    // command stands alone: after a `;`, a brace, a line number or `$`.
    static W_JOINED: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"(?m)(?:^|[;{}]|[0-9$])\s*[wW]([^\s;}][^;\n}]*)")
            .expect("the sed write expression compiles")
    });
    let mut files = files_after(args, &W);
    files.extend(files_after(args, &W_JOINED));
    files
}

// Only the secrets guard judges what a script reads.
#[cfg_attr(not(feature = "secrets-guard"), allow(dead_code))]
/// The files a sed script reads into its output: its `r FILE` and `R FILE` commands (`sed 'r
/// .env' /dev/null` prints `.env`). The script is the first operand, or the values of `-e`.
pub(crate) fn reads(args: &[String]) -> Vec<String> {
    static R: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"(?m)(?:^|[;{}]|[0-9$/][gpiImMe0-9]*)\s*[rR]\s+([^;\n}]+)")
            .expect("the sed read expression compiles")
    });
    static R_JOINED: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"(?m)(?:^|[;{}]|[0-9$])\s*[rR]([^\s;}][^;\n}]*)")
            .expect("the sed read expression compiles")
    });
    let mut files = files_after(args, &R);
    files.extend(files_after(args, &R_JOINED));
    files
}

/// The files named after the commands `expression` finds in `args`' scripts.
fn files_after(args: &[String], expression: &regex::Regex) -> Vec<String> {
    let scripts = scripts(args);
    let mut files = Vec::new();
    for script in scripts {
        for caps in expression.captures_iter(script) {
            if let Some(file) = caps.get(1) {
                let file = file.as_str().trim();
                if !file.is_empty() && !matches!(file, "/dev/stdout" | "/dev/stderr") {
                    files.push(file.to_owned());
                }
            }
        }
    }
    files
}

/// The script texts of a sed command: `-e`/`--expression` values, or the first operand.
fn scripts(args: &[String]) -> Vec<&str> {
    let mut scripts = Vec::new();
    let mut words = args.iter().map(String::as_str);
    let mut first = None;
    while let Some(word) = words.next() {
        match word {
            "-e" | "--expression" => scripts.extend(words.next()),
            "-f" | "--file" | "-l" | "--line-length" => {
                words.next();
            }
            w if w.starts_with("--expression=") => scripts.push(&w["--expression=".len()..]),
            w if w.starts_with("-e") && w.len() > 2 && !w.starts_with("--") => {
                scripts.push(&w[2..])
            }
            w if w.starts_with('-') => {}
            w if first.is_none() => first = Some(w),
            _ => {}
        }
    }
    if scripts.is_empty() {
        scripts.extend(first);
    }
    scripts
}

#[cfg(test)]
mod tests {
    use super::{reads, writes};

    fn words(line: &str) -> Vec<String> {
        line.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn scripts_name_the_files_they_write_and_read() {
        let sed = vec!["s/x/y/w /etc/passwd".to_owned(), "f".to_owned()];
        assert_eq!(writes(&sed), ["/etc/passwd"]);
        assert!(writes(&words("-n s/x/y/p f")).is_empty());
        let sed = vec!["-e".to_owned(), "$r .env".to_owned(), "f".to_owned()];
        assert_eq!(reads(&sed), [".env"]);
        let sed = vec!["1R ~/.npmrc".to_owned(), "f".to_owned()];
        assert_eq!(reads(&sed), ["~/.npmrc"]);
        assert!(reads(&words("-n /error/p app.log")).is_empty());
        assert_eq!(reads(&words("r.env x")), [".env"]);
        assert_eq!(writes(&words("1w/etc/passwd x")), ["/etc/passwd"]);
        assert!(writes(&words("s/a/w/ x")).is_empty());
    }
}
