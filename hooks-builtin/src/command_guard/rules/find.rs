//! `find`: when its `-delete` or `-exec rm` takes a whole tree.

use super::*;

/// `find` tests that select some files, so a `-delete` does not take the whole tree (`-type`
/// does not: `find . -type f -delete` empties the tree).
#[rustfmt::skip]
const FIND_TESTS: &[&str] = &[
    "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
    "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-newer",
    "-size", "-empty", "-user", "-group", "-uid", "-gid", "-perm", "-links", "-inum", "-lname",
    "-samefile", "-nouser", "-nogroup", "-used",
];

/// `find PATH -delete` or `find PATH -exec rm … {}`: with no test that selects files, the
/// whole tree goes.
pub(super) fn find_delete(args: &[String], dir: Option<&str>, env: &Env<'_>) -> Vec<Hit> {
    let mut rest = args.iter().map(String::as_str).peekable();
    let mut follows = false;
    while let Some(option) =
        rest.next_if(|a| matches!(*a, "-H" | "-L" | "-P" | "-D") || a.starts_with("-O"))
    {
        match option {
            "-D" => {
                rest.next();
            }
            "-H" | "-L" => follows = true,
            "-P" => follows = false,
            _ => {}
        }
    }
    // `find -- / …`: the start paths follow the end of the options.
    rest.next_if(|a| *a == "--");
    let mut starts: Vec<&str> = Vec::new();
    while let Some(path) = rest.next_if(|a| !a.starts_with(['-', '(', '!', ')', ','])) {
        starts.push(path);
    }
    // bfs's `-exclude EXPR` keeps what EXPR matches out: for what is deleted, a `!`.
    let expression: Vec<&str> = rest
        .map(|a| if a == "-exclude" { "!" } else { a })
        .collect();
    let Some(filtered) = find_deletes(&expression) else {
        return Vec::new();
    };
    if starts.is_empty() {
        starts.push(".");
    }
    // `-L`, `-H`, `-follow`: a start path that is a link the script makes is the tree it
    // reaches (`ln -s / r; find -L r -delete`).
    let reached: Vec<String> = if follows || expression.contains(&"-follow") {
        (starts.iter())
            .flat_map(|start| env.readings(start, true))
            .collect()
    } else {
        Vec::new()
    };
    starts.extend(reached.iter().map(String::as_str));
    starts
        .into_iter()
        .filter_map(|start| {
            if !filtered {
                return env.delete_hit(start, dir, "recursive delete (find)");
            }
            if let Some(hit) =
                crate::command_guard::opaque::unknown_variable(start, "find deletes files")
            {
                return Some(hit);
            }
            let (place, path) = env.place(start, dir);
            if place == Place::Unknown {
                env.cannot_decide(start, &path);
                return None;
            }
            (!matches!(place, Place::Inside | Place::Project)).then(|| {
                hit(
                    RM_OUTSIDE_PROJECT,
                    format!(
                        "find deletes files outside the project root ({})",
                        path.display()
                    ),
                )
            })
        })
        .collect()
}

/// What a `find` expression deletes: `None` when it has no `-delete` and no
/// `-exec`/`-execdir`/`-ok`/`-okdir` command that deletes (see [`exec_deletes`]);
/// `Some(true)` when every deleting action runs only on files a test before it selects
/// (`-name '*.pyc' -delete`, `-name .git -prune -o -name '*.pyc' -delete`); `Some(false)`
/// when one runs on every file (`-type f -delete`, `-name '*' -delete`) or on every file
/// another branch did not take (`-name x -o -delete`, `! -name x -delete`).
///
/// One pass, with a stack of the open groups: each knows whether the `-a` chain it sits in
/// selected before it opened, whether its own chain selects so far, and whether every branch
/// it closed selected.
pub(super) fn find_deletes(expression: &[&str]) -> Option<bool> {
    let mut groups = vec![FindGroup::default()];
    let mut negate = false;
    let mut deletes: Option<bool> = None;
    let mut words = expression.iter().copied();
    while let Some(word) = words.next() {
        let Some(top) = groups.last_mut() else {
            break;
        };
        let selects = match word {
            "(" => {
                let outer = top.outer || top.chain;
                groups.push(FindGroup::open(outer, negate));
                negate = false;
                continue;
            }
            ")" => {
                if groups.len() > 1
                    && let Some(group) = groups.pop()
                    && let Some(top) = groups.last_mut()
                {
                    top.chain |= group.selects();
                }
                negate = false;
                continue;
            }
            "-o" | "-or" | "," => {
                top.every &= top.chain;
                top.chain = false;
                negate = false;
                continue;
            }
            "!" | "-not" => {
                negate = !negate;
                continue;
            }
            "-a" | "-and" => continue,
            "-delete" => None,
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let command: Vec<&str> = words
                    .by_ref()
                    .take_while(|w| !matches!(*w, ";" | "+"))
                    .collect();
                (!exec_deletes(&command)).then_some(false)
            }
            test => Some(find_test_selects(test, &mut words)),
        };
        match selects {
            // A negated test selects what it does not match: most files.
            Some(selects) => top.chain |= selects && !negate,
            None => {
                let guarded = top.outer || top.chain;
                deletes = Some(deletes.unwrap_or(true) && guarded);
            }
        }
        negate = false;
    }
    deletes
}

/// A parenthesised group of a `find` expression, as [`find_deletes`] reads it.
#[derive(Default)]
struct FindGroup {
    /// The chain the group is in selected files before it opened.
    outer: bool,
    /// The group is negated (`! ( … )`).
    negated: bool,
    /// The current `-a` chain of the group has a test that selects.
    chain: bool,
    /// Every branch closed so far (before an `-o` or `,`) selected.
    every: bool,
}

impl FindGroup {
    fn open(outer: bool, negated: bool) -> Self {
        FindGroup {
            outer,
            negated,
            chain: false,
            every: true,
        }
    }

    /// The closed group selects files: each of its branches does, and it is not negated.
    fn selects(&self) -> bool {
        !self.negated && self.every && self.chain
    }
}

/// Primaries of a `find` expression that take a value and select nothing by it.
#[rustfmt::skip]
const FIND_WITH_VALUE: &[&str] = &[
    "-type", "-xtype", "-maxdepth", "-mindepth", "-fstype", "-printf", "-fprint", "-fprint0",
    "-fls", "-context", "-files0-from", "-regextype",
];

/// True when the primary `test` of a `find` expression selects some files and not others;
/// the words it takes are taken from `words`. `-name '*'`, `-path '*'`, `-regex '.*'` match
/// every file, and `-type`, `-maxdepth`, `-true`, `-print` select nothing by name.
fn find_test_selects<'a>(test: &str, words: &mut impl Iterator<Item = &'a str>) -> bool {
    if matches!(test, "-empty" | "-nouser" | "-nogroup") {
        return true;
    }
    if FIND_TESTS.contains(&test) || test.starts_with("-newer") {
        return words
            .next()
            .is_none_or(|value| !matches_every_file(test, value));
    }
    let takes = match test {
        "-fprintf" => 2,
        t if FIND_WITH_VALUE.contains(&t) => 1,
        _ => 0,
    };
    words.take(takes).for_each(drop);
    false
}

/// True when the name or path test `test` with pattern `value` matches every file: a
/// pattern of `*` (and one `?`), for paths with `/` and a leading `./` too; `.*` for a
/// regular expression.
fn matches_every_file(test: &str, value: &str) -> bool {
    let wildcards = |pattern: &str, also: &[char]| {
        pattern.contains('*')
            && pattern.matches('?').count() <= 1
            && pattern
                .chars()
                .all(|c| c == '*' || c == '?' || also.contains(&c))
    };
    match test {
        "-name" | "-iname" => wildcards(value, &[]),
        "-path" | "-ipath" | "-wholename" | "-iwholename" => {
            wildcards(value.strip_prefix("./").unwrap_or(value), &['/'])
        }
        "-regex" | "-iregex" => {
            let body = value.strip_prefix('^').unwrap_or(value);
            let body = body.strip_suffix('$').unwrap_or(body);
            !body.is_empty() && body.trim_start_matches(".*").is_empty()
        }
        _ => false,
    }
}

/// True when the command of a `find -exec` (`-execdir`, `-ok`, `-okdir`) deletes what find
/// gives it: it is `rm` as written (`-exec rm …`), or, read as a command line with wrappers
/// stripped and `sh -c` scripts parsed, it runs `rm` on `{}`: `env rm -rf {}`,
/// `command rm {}`, `sh -c 'rm -rf "$1"' _ {}` (the script's `$1` is `{}`). `{}` is every
/// path find visits, the start path first, so such a command deletes the tree.
pub(super) fn exec_deletes(command: &[&str]) -> bool {
    if command.first().and_then(|p| p.rsplit('/').next()) == Some("rm") {
        return true;
    }
    let line: Vec<_> = command.iter().map(|w| shell::quote(w)).collect();
    match shell::parse(&line.join(" ")) {
        Ok(script) => script
            .commands()
            .any(|c| c.program == "rm" && c.args.iter().any(|a| a.contains("{}"))),
        // It parsed as part of the whole line; a command that does not alone is not known
        // not to delete.
        Err(_) => true,
    }
}
