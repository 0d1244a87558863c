//! Command lines inside a program's own script language: sed's `e` command and `s///e` flag,
//! make's recipes and `$(shell …)` in `--eval`, and its `SHELL=` on the command line, and the
//! shell escapes of database clients (`psql -c '\! CMD'`, `mysql -e 'system CMD'`, `sqlite3 db
//! '.shell CMD'`). Each is judged as a script run where the command runs
//! ([`option_commands`](super::options)).

/// The scripts of a sed command line: each `-e`/`--expression` value (a short option cluster
/// ending in `e` takes the next word: `-ne`), or the first operand when there is none. None
/// for a script read from a file (`-f`), which is not known here.
pub(super) fn sed_scripts(args: &[String]) -> Vec<&str> {
    let mut scripts = Vec::new();
    let mut first_operand = None;
    let mut words = args.iter().map(String::as_str);
    while let Some(word) = words.next() {
        if word == "--" {
            first_operand = first_operand.or_else(|| words.next());
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, value) = long
                .split_once('=')
                .map_or((long, None), |(n, v)| (n, Some(v)));
            // Long options by any prefix that names them alone (`--expr`).
            if name.len() >= 2 && "expression".starts_with(name) {
                scripts.extend(value.or_else(|| words.next()));
            } else if name.len() >= 2 && "line-length".starts_with(name) && value.is_none() {
                words.next();
            }
            continue;
        }
        if let Some(cluster) = word.strip_prefix('-').filter(|c| !c.is_empty()) {
            for (at, letter) in cluster.char_indices() {
                match letter {
                    // `-i` and `-E`… take no value but `-i` takes the rest as its suffix.
                    'i' => break,
                    'e' => {
                        let rest = &cluster[at + 1..];
                        scripts.extend(if rest.is_empty() {
                            words.next()
                        } else {
                            Some(rest)
                        });
                        break;
                    }
                    'l' => {
                        if cluster[at + 1..].is_empty() {
                            words.next();
                        }
                        break;
                    }
                    _ => {}
                }
            }
            continue;
        }
        first_operand = first_operand.or(Some(word));
    }
    if scripts.is_empty() && !args.iter().any(|a| is_sed_file_option(a)) {
        scripts.extend(first_operand);
    }
    scripts
}

/// `-f FILE`, `-fFILE`, a cluster ending in it (`-nf`), `--file`.
fn is_sed_file_option(arg: &str) -> bool {
    if let Some(long) = arg.strip_prefix("--") {
        let name = long.split('=').next().unwrap_or(long);
        return name.len() >= 2 && "file".starts_with(name);
    }
    arg.strip_prefix('-').is_some_and(|c| {
        c.chars()
            .take_while(|&l| l != 'e' && l != 'i' && l != 'l')
            .any(|l| l == 'f')
    })
}

/// The command lines a sed script runs (GNU sed): `e CMD` (to the end of its line) and the
/// replacement of an `s` command with the `e` flag, which runs as a command once it replaced
/// the line (`s/.*/CMD/e`; `\/` read as `/`).
pub(super) fn sed_commands(script: &str) -> Vec<String> {
    let b = script.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    // The end of the line `from` is on.
    let line_end = |from: usize| {
        b[from..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(b.len(), |p| from + p)
    };
    while i < b.len() {
        if b[i].is_ascii_whitespace() || matches!(b[i], b';' | b'{' | b'}') {
            i += 1;
            continue;
        }
        i = sed_address(b, i);
        if i < b.len() && b[i] == b',' {
            i = sed_address(b, i + 1);
        }
        while i < b.len() && (b[i] == b'!' || b[i] == b' ' || b[i] == b'\t') {
            i += 1;
        }
        let Some(&command) = b.get(i) else { break };
        i += 1;
        match command {
            b'e' => {
                let end = line_end(i);
                let text = script[i..end].trim();
                if !text.is_empty() {
                    out.push(text.to_owned());
                }
                i = end;
            }
            b's' | b'y' => {
                let Some(&delim) = b.get(i) else { break };
                if delim == b'\n' || delim == b'\\' {
                    break;
                }
                let (_, after_pattern) = sed_part(b, i + 1, delim);
                let (replacement, after) = sed_part(b, after_pattern, delim);
                i = after;
                // The flags, to the end of the command; `w FILE` takes the rest of the line.
                let mut runs = false;
                while i < b.len() && !matches!(b[i], b';' | b'\n' | b'}') {
                    if b[i] == b'w' {
                        i = line_end(i);
                        break;
                    }
                    runs |= b[i] == b'e';
                    i += 1;
                }
                if command == b's' && runs && !replacement.trim().is_empty() {
                    out.push(replacement);
                }
            }
            // Text, file names and comments run to the end of the line.
            b'a' | b'i' | b'c' | b'r' | b'R' | b'w' | b'W' | b'#' | b':' => i = line_end(i),
            // Anything else (`p`, `d`, `q 1`, `b label`) runs to the next `;`.
            _ => {
                while i < b.len() && !matches!(b[i], b';' | b'\n' | b'}') {
                    i += 1;
                }
            }
        }
    }
    out
}

/// Past a sed address at `i`: a line number, `$`, `/re/`, `\cREc`, `first~step`, `+N`.
fn sed_address(b: &[u8], mut i: usize) -> usize {
    match b.get(i) {
        Some(b'/') => sed_part(b, i + 1, b'/').1,
        Some(b'\\') => match b.get(i + 1) {
            Some(&delim) => sed_part(b, i + 2, delim).1,
            None => i + 1,
        },
        Some(b'$') => i + 1,
        Some(c) if c.is_ascii_digit() || *c == b'+' || *c == b'~' => {
            i += 1;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'~') {
                i += 1;
            }
            i
        }
        _ => i,
    }
}

/// The text up to the next unescaped `delim` from `i` (an escaped `delim` read as itself),
/// and the index past it.
fn sed_part(b: &[u8], mut i: usize, delim: u8) -> (String, usize) {
    let mut text = Vec::new();
    while i < b.len() && b[i] != delim {
        if b[i] == b'\\' && i + 1 < b.len() {
            if b[i + 1] != delim {
                text.push(b'\\');
            }
            text.push(b[i + 1]);
            i += 2;
        } else {
            text.push(b[i]);
            i += 1;
        }
    }
    let past = if i < b.len() { i + 1 } else { b.len() };
    (String::from_utf8_lossy(&text).into_owned(), past)
}

/// The command lines a make command line runs before and besides its makefile's: the value of
/// `SHELL=` (every recipe runs through it), and the recipes and `$(shell …)` calls of the
/// makefile text given by `--eval`/`-E`.
pub(super) fn make_commands(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut words = args.iter().map(String::as_str);
    while let Some(word) = words.next() {
        if let Some(shell) = word.strip_prefix("SHELL=") {
            out.push(shell.to_owned());
        } else if let Some(text) = word.strip_prefix("--eval=") {
            out.extend(makefile_commands(text));
        } else if word == "--eval" || word == "-E" {
            out.extend(words.next().map(makefile_commands).unwrap_or_default());
        } else if let Some(text) = word.strip_prefix("-E") {
            out.extend(makefile_commands(text));
        }
    }
    out
}

/// The command lines makefile `text` runs: recipe lines (a tab first, or after `;` on a rule's
/// line) and `$(shell CMD)`, with make's `$$` read as `$`.
fn makefile_commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let recipe = if let Some(recipe) = line.strip_prefix('\t') {
            Some(recipe)
        } else {
            line.split_once(':')
                .and_then(|(_, rest)| rest.split_once(';'))
                .map(|(_, recipe)| recipe)
        };
        if let Some(recipe) = recipe {
            let recipe = recipe.trim_start().trim_start_matches(['@', '-', '+']);
            out.push(recipe.replace("$$", "$"));
        }
    }
    for (at, _) in text.match_indices("$(shell ") {
        let rest = &text[at + "$(shell ".len()..];
        let mut depth = 1;
        let end = rest.char_indices().find_map(|(k, c)| {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(k)
        });
        out.push(rest[..end.unwrap_or(rest.len())].replace("$$", "$"));
    }
    out
}

/// The command lines a database client runs through its shell escapes, in the statements on
/// its command line:
/// - psql (every argument): `\! CMD`, output sent to a pipe (`\o |CMD`, `\g |CMD`, `\w
///   |CMD`), and `COPY`/`\copy … PROGRAM 'CMD'`;
/// - mysql and mariadb (`-e`/`--execute`): `system CMD`, `\! CMD`, and a pager (`pager CMD`,
///   `\P CMD`), at the start of a statement;
/// - sqlite3 and duckdb (every argument): `.shell CMD`, `.system CMD`, and output sent to a
///   pipe (`.once |CMD`, `.output |CMD`).
///
/// Statements in files, here-documents or piped in are not read here; the `databases` pack
/// asks about a shell escape wherever it reads the text.
pub(super) fn db_client_commands(program: &str, args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    match program {
        "psql" | "pgcli" => {
            for text in args {
                for line in text.lines() {
                    out.extend(psql_line(line));
                }
                out.extend(copy_programs(text));
            }
        }
        "mysql" | "mariadb" => {
            let mut words = args.iter().map(String::as_str);
            while let Some(word) = words.next() {
                // `-e SQL`, `-eSQL`, `--execute=SQL`, and a cluster that ends in `e` (`-Be`)
                // or holds it before the statement (`-BeSQL`).
                let value = match word {
                    "--execute" => words.next(),
                    w if w.starts_with("--") => w.strip_prefix("--execute="),
                    w => match w
                        .strip_prefix('-')
                        .and_then(|c| c.find('e').map(|at| &c[at + 1..]))
                    {
                        Some("") => words.next(),
                        Some(rest) => Some(rest),
                        None => None,
                    },
                };
                for statement in value.into_iter().flat_map(|v| v.split(['\n', ';'])) {
                    let statement = statement.trim_start();
                    let command = ["system ", "\\! ", "\\!", "pager ", "\\P "]
                        .iter()
                        .find_map(|p| crate::shell::strip_prefix_ignore_case(statement, p));
                    out.extend(command.map(str::to_owned));
                }
            }
        }
        "sqlite3" | "sqlite" | "duckdb" => {
            for line in args.iter().flat_map(|a| a.split(['\n', ';'])) {
                out.extend(sqlite_line(line.trim_start()));
            }
        }
        _ => {}
    }
    out
}

/// The command of one sqlite3 or duckdb line: `.shell CMD`, `.system CMD`, or `|CMD` given
/// to `.once`, `.output`, `.read` or `.import`. A dot command may be shortened to any prefix
/// of two letters or more (`.sh`, `.sys`, `.out`), which is read as each command it starts.
fn sqlite_line(line: &str) -> Option<String> {
    let rest = line.strip_prefix('.')?;
    let (name, arg) = rest.split_once([' ', '\t'])?;
    let is = |full: &str| name.len() >= 2 && full.starts_with(name);
    if is("shell") || is("system") {
        return Some(arg.to_owned());
    }
    if is("once") || is("output") || is("read") || is("import") {
        let arg = arg.trim_start().trim_start_matches(['\'', '"']);
        let command = arg.strip_prefix('|')?;
        // `.import '|cmd' table`: the command is the quoted argument.
        let command = match command.find(['\'', '"']) {
            Some(end) => &command[..end],
            None => command,
        };
        return Some(command.to_owned());
    }
    None
}

/// The command of one psql line: `\! CMD`, or the pipe of `\o`, `\g`, `\gx`, `\w` (and
/// their long names) to `|CMD`; meta-commands can follow each other on a line.
fn psql_line(line: &str) -> Option<String> {
    if let Some(at) = line.find("\\!") {
        return Some(line[at + 2..].to_owned());
    }
    // psql runs the backquoted text in a meta-command's arguments through the shell
    // (`\echo `cmd``, `\set x `cmd``).
    if let Some(meta) = line.find('\\') {
        let mut parts = line[meta..].split('`');
        parts.next();
        if let Some(command) = parts.next().filter(|_| parts.next().is_some()) {
            return Some(command.to_owned());
        }
    }
    for meta in ["\\out", "\\o", "\\gx", "\\g", "\\write", "\\w"] {
        for (at, _) in line.match_indices(meta) {
            let rest = line[at + meta.len()..].trim_start();
            if let Some(command) = rest.strip_prefix('|') {
                return Some(command.to_owned());
            }
        }
    }
    None
}

/// The commands of `COPY … PROGRAM 'CMD'` (run by the server) and psql's `\copy … program
/// 'CMD'` (run here): SQL strings, `''` read as `'`.
fn copy_programs(text: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    let mut out = Vec::new();
    if !lower.contains("copy") {
        return out;
    }
    for (at, _) in lower.match_indices("program") {
        let mut rest = text[at + "program".len()..].trim_start();
        // Comments between the keyword and the string (`PROGRAM/**/'cmd'`).
        while let Some(after) = rest.strip_prefix("/*") {
            rest = after.split_once("*/").map_or("", |(_, r)| r).trim_start();
        }
        // A dollar-quoted string (`$$cmd$$`, `$q$cmd$q$`) is read as it is.
        if let Some(tag_end) = rest.strip_prefix('$').and_then(|r| r.find('$')) {
            let tag = &rest[..tag_end + 2];
            if let Some((command, _)) = rest[tag.len()..].split_once(tag) {
                out.push(command.to_owned());
            }
            continue;
        }
        // An escape string (`E'cmd'`) reads like a plain one here.
        let rest = rest.strip_prefix(['E', 'e']).unwrap_or(rest);
        let Some(rest) = rest.strip_prefix('\'') else {
            continue;
        };
        let mut command = String::new();
        let mut chars = rest.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\'' {
                if chars.peek() == Some(&'\'') {
                    chars.next();
                } else {
                    break;
                }
            }
            command.push(c);
        }
        out.push(command);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn database_clients_run_their_shell_escapes() {
        let args = |list: &[&str]| list.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>();
        let run = |program: &str, list: &[&str]| db_client_commands(program, &args(list));
        assert_eq!(run("psql", &["-c", "\\! rm -rf ~"]), [" rm -rf ~"]);
        assert_eq!(run("psql", &["-c", "select 1 \\g |sh"]), ["sh"]);
        assert_eq!(run("psql", &["-c", "\\o | tee x"]), [" tee x"]);
        assert_eq!(
            run("psql", &["-c", "COPY t FROM PROGRAM 'echo ''a b'''"]),
            ["echo 'a b'"]
        );
        assert_eq!(run("mysql", &["-e", "SELECT 1; SYSTEM id"]), ["id"]);
        assert_eq!(run("mysql", &["--execute=\\! id"]), ["id"]);
        assert_eq!(run("mysql", &["-epager less"]), ["less"]);
        assert!(run("mysql", &["system", "-e", "select 1"]).is_empty());
        assert_eq!(run("sqlite3", &["db", ".shell id"]), ["id"]);
        assert_eq!(run("sqlite3", &["db", ".once '|sh'"]), ["sh"]);
        assert!(run("sqlite3", &["db", ".output out.csv"]).is_empty());
        assert!(run("psql", &["-c", "select 'program'"]).is_empty());
    }

    #[test]
    fn sed_scripts_are_found_where_sed_reads_them() {
        assert_eq!(sed_scripts(&words("-n 1p f")), ["1p"]);
        assert_eq!(sed_scripts(&words("-ne 1p f")), ["1p"]);
        assert_eq!(sed_scripts(&words("-e s/a/b/ -e 2d f")), ["s/a/b/", "2d"]);
        assert_eq!(sed_scripts(&words("--expression=1d f")), ["1d"]);
        assert_eq!(sed_scripts(&words("--expr 1d f")), ["1d"]);
        // `-ie` is `-i` with the suffix `e`: the script is the operand.
        assert_eq!(sed_scripts(&words("-ie s/a/b/ f")), ["s/a/b/"]);
        assert_eq!(sed_scripts(&words("-l 80 l f")), ["l"]);
        assert!(sed_scripts(&words("-f script.sed f")).is_empty());
        assert!(sed_scripts(&words("-nf script.sed f")).is_empty());
        assert_eq!(sed_scripts(&words("-- 1d f")), ["1d"]);
    }

    #[test]
    fn sed_runs_the_e_command_and_the_e_flag() {
        let run = |script: &str| sed_commands(script);
        assert_eq!(run("1e rm -rf /"), ["rm -rf /"]);
        assert_eq!(
            run("$e id; date"),
            ["id; date"],
            "e takes the rest of its line"
        );
        assert_eq!(run("/x/!e touch y\np"), ["touch y"]);
        assert_eq!(run("\\,x,e id"), ["id"]);
        assert_eq!(run("1,/end/e id"), ["id"]);
        assert_eq!(run("s/.*/rm -rf \\//e"), ["rm -rf /"]);
        assert_eq!(run("s|.*|rm -rf /|ge"), ["rm -rf /"]);
        assert_eq!(run("s/a/b/;1e id"), ["id"]);
        assert_eq!(run("{s/x/date/e}"), ["date"]);
        for quiet in [
            "s/e/E/g",
            "s/(e)x/\\1e/g",
            "y/abc/xyz/",
            "/e/d",
            "a text e id",
            "# e id",
            "s/x/y/w out.txt",
            "b end;:end",
            "1,5p;/^#/d",
            "e",
            "s/x",
        ] {
            assert!(run(quiet).is_empty(), "{quiet}: {:?}", run(quiet));
        }
    }

    #[test]
    fn make_runs_its_shell_its_eval_recipes_and_shell_calls() {
        let args = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(make_commands(&args(&["SHELL=rm -rf /"])), ["rm -rf /"]);
        assert_eq!(
            make_commands(&args(&["--eval=x: ; rm -rf /", "x"])),
            ["rm -rf /"]
        );
        assert_eq!(
            make_commands(&args(&["-E", "x:\n\t@rm -rf $$HOME"])),
            ["rm -rf $HOME"]
        );
        assert_eq!(make_commands(&args(&["-Ex: ; id"])), ["id"]);
        assert_eq!(
            make_commands(&args(&["--eval", "X := $(shell rm -rf / (x))"])),
            ["rm -rf / (x)"]
        );
        assert!(make_commands(&args(&["-j4", "test", "CC=clang"])).is_empty());
        assert!(make_commands(&args(&["--eval=X := 1"])).is_empty());
    }
}
