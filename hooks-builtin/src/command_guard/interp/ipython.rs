//! IPython's shell escapes: the lines it runs as shell commands, and the API calls that run
//! one.

use super::*;

/// The shell command lines of IPython code, each with whether IPython runs it as one for
/// certain (`false`: it is read as one, and judged only if it parses).
///
/// For certain: a line's `!cmd` or `!!cmd` (also after any assignment: `x = !cmd`, `a, b =
/// !cmd`), a line magic that runs its text (`%sx`, `%system`, `%time`, `%timeit`, `%prun`,
/// `%sc`, `%alias NAME`; also without `%`, as automagic runs them), and the lines of a cell
/// magic that runs them (`%%bash`, `%%sh`, `%%script`, `%%sx`, `%%system`, `%%!`). Not for
/// certain: a line that starts with one of IPython's shell aliases (`rm -rf /` runs `rm`).
/// Lines in a triple-quoted string or a text cell (`%%writefile`) run nothing.
pub(super) fn ipython_shell(code: &str) -> Vec<(&str, bool)> {
    const MAGICS: &[&str] = &["sx", "system", "time", "timeit", "prun", "sc", "alias"];
    const ALIASES: &[&str] = &[
        "cat", "clear", "cp", "ldir", "less", "lf", "lk", "ll", "ls", "lx", "man", "mkdir", "more",
        "mv", "rm", "rmdir",
    ];
    const TEXT_CELLS: &[&str] = &[
        "writefile",
        "file",
        "html",
        "javascript",
        "js",
        "latex",
        "markdown",
        "svg",
    ];
    // A word used as Python, not as a command (`ls = 5`, `time(…)`, `cat.x`).
    let python_use = |after: &str| {
        after
            .trim_start()
            .starts_with(['=', '(', '.', '[', ',', ':'])
    };
    let mut lines = Vec::new();
    let (mut shell_cell, mut text_cell, mut in_string) = (false, false, false);
    for line in code.lines() {
        let mut rest = line.trim_start();
        if let Some(magic) = rest.strip_prefix("%%") {
            // A cell magic's line runs nothing itself; the lines after it are the cell.
            let name = magic.split_whitespace().next().unwrap_or_default();
            shell_cell = matches!(name, "bash" | "sh" | "script" | "sx" | "system" | "!");
            text_cell = TEXT_CELLS.contains(&name);
            continue;
        }
        let quotes = line.matches("\"\"\"").count() + line.matches("'''").count();
        let was_in_string = in_string;
        in_string ^= quotes % 2 == 1;
        if text_cell || (was_in_string && in_string) {
            continue;
        }
        let mut certain = shell_cell;
        // An assignment of a shell escape or a magic, whatever its targets (`x = !cmd`,
        // `a, b = !cmd`, `a = b = %sx cmd`); not a comparison (`x != y`, `a == !b`).
        let assigned = rest.match_indices('=').find_map(|(at, _)| {
            let before = rest[..at].chars().next_back();
            let value = rest[at + 1..].trim_start();
            (!matches!(before, Some('!' | '<' | '>' | '='))
                && !rest[at + 1..].starts_with('=')
                && value.starts_with(['!', '%']))
            .then_some(value)
        });
        if let Some(value) = assigned {
            rest = value;
        }
        loop {
            let before = rest;
            if let Some(r) = rest.strip_prefix(['!', '%']) {
                certain = true;
                rest = r.trim_start();
            }
            let word = rest.split_whitespace().next().unwrap_or_default();
            if MAGICS.contains(&word) && !python_use(&rest[word.len()..]) {
                certain = true;
                rest = rest[word.len()..].trim_start();
                // The magic's options, a `%sc` target (`-l x=`), an alias's name.
                while let Some(w) = rest.split_whitespace().next()
                    && (w.starts_with('-') || w.ends_with('=') || word == "alias")
                {
                    rest = rest[w.len()..].trim_start();
                    if word == "alias" {
                        break;
                    }
                }
                if let Some((name, value)) = rest.split_once('=')
                    && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                {
                    rest = value;
                }
            }
            if rest == before {
                break;
            }
        }
        let word = rest.split_whitespace().next().unwrap_or_default();
        let alias = ALIASES.contains(&word) && !python_use(&rest[word.len()..]);
        if !rest.is_empty() && (certain || alias) {
            lines.push((rest, certain));
        }
    }
    lines
}

/// The command an IPython API call runs: `get_ipython().system("CMD")`, `.getoutput("CMD")`,
/// `.run_line_magic("sx", "CMD")` (also `system`), `.run_cell_magic("bash", "", "CMD")` (also
/// `sh`, `script`, `sx`, `system`). A command that is not a literal is [`Arg::Opaque`].
pub(super) fn ipython_call(toks: &[Tok], i: usize, name: &str) -> Option<Arg> {
    let method = name.rsplit('.').next()?;
    if !name.contains('.') {
        return None;
    }
    let args = call_args(Lang::Python, toks, i + 1)?;
    let magic = |a: &Arg, names: &[&str]| matches!(a, Arg::Str(m) if names.contains(&m.as_str()));
    match method {
        "system" | "getoutput" => args.into_iter().next(),
        "run_line_magic" if args.first().is_some_and(|a| magic(a, &["sx", "system"])) => {
            args.into_iter().nth(1)
        }
        "run_cell_magic"
            if args
                .first()
                .is_some_and(|a| magic(a, &["bash", "sh", "script", "sx", "system"])) =>
        {
            args.into_iter().nth(2)
        }
        _ => None,
    }
}
