//! Interpreter code that reads the whole environment (`print(os.environ)`) or a variable
//! whose name says it holds a secret (`os.environ["GITHUB_TOKEN"]`): how each language names
//! the environment is a table, so that a new one is a line.

use super::super::{ENV_DUMP, ENV_SECRET};
use super::env::secret_name;

/// How code names the whole environment, and what follows it when one variable is read
/// instead (`os.environ["HOME"]`, `process.env.HOME`): the variable is then judged by its
/// name ([`ONE_VARIABLE`]).
struct Environment {
    /// The text that names it (`os.environ`), matched where no name character comes before.
    names: &'static str,
    /// What after it (blanks skipped) reads one variable, or only the names
    /// (`os.environ.keys()`), or writes one.
    one: &'static [After],
    /// Program names (a prefix: `ruby3.3`) whose code names it so; empty for any language,
    /// for names no other language or shell text uses.
    languages: &'static [&'static str],
}

/// What follows a whole-environment object when one variable is read or written instead, or
/// when only part of it is given.
#[derive(Clone, Copy)]
enum After {
    /// This text, unless it goes on as a longer name (`ENV.delete_if` is not `ENV.delete`) or
    /// is a method of the environment itself (`process.env.valueOf()`).
    Text(&'static str),
    /// A name (`env:HOME`, not `env:` alone).
    Name,
    /// An argument (`getenv("HOME")`, not `getenv()`).
    Argument,
    /// An assignment (`ENV = {}`), not a comparison (`ENV == {}`).
    Assignment,
    /// Flags that start with one of `first`, none of `whole` among them before the `)`
    /// (`phpinfo(INFO_MODULES)`, not `phpinfo(INFO_ALL)`).
    Flags {
        first: &'static [&'static str],
        whole: &'static [&'static str],
    },
}

impl After {
    /// Whether `rest`, the code after the environment's name with blanks skipped, is this.
    fn starts(self, rest: &str) -> bool {
        match self {
            After::Name => rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'),
            After::Argument => !rest.starts_with(')'),
            After::Assignment => rest.starts_with('=') && !rest.starts_with("=="),
            After::Flags { first, whole } => {
                let flags = rest.split(')').next().unwrap_or(rest);
                first.iter().any(|f| rest.starts_with(f))
                    && !whole.iter().any(|f| flags.contains(f))
            }
            After::Text(text) => {
                rest.starts_with(text) && {
                    let tail = &rest[text.len()..];
                    let word = tail
                        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .unwrap_or(tail.len());
                    let method = text.ends_with('.') && tail[word..].starts_with('(');
                    let longer = text.ends_with(|c: char| c.is_alphanumeric()) && word > 0;
                    !method && !longer
                }
            }
        }
    }
}

/// The languages whose `.environ` is Python's `os.environ` under another name.
const PYTHONS: &[&str] = &["python", "pypy", "ipython", "micropython", "py"];

/// What follows Python's environment when one variable is read or written.
const PYTHON_ONE: &[After] = &[
    After::Text("["),
    After::Text(".get("),
    After::Text(".setdefault("),
    After::Text(".pop("),
    After::Text(".__getitem__("),
    After::Text(".__contains__("),
    After::Text(".keys("),
    After::Text(".update("),
    After::Text(".clear("),
    After::Text(".__setitem__("),
];

/// What follows JavaScript's environment when one variable is read or written.
const JS_ONE: &[After] = &[After::Text("."), After::Text("["), After::Text("?.")];

/// What follows an environment when one variable is read by an index (`$_ENV["HOME"]`).
const INDEX: &[After] = &[After::Text("[")];

/// Whole-environment objects of the languages the guard reads code of, as data.
#[rustfmt::skip]
const ENVIRONMENTS: &[Environment] = &[
    // Python.
    Environment { names: "os.environ", one: PYTHON_ONE, languages: &[] },
    Environment { names: "os.environb", one: PYTHON_ONE, languages: &[] },
    Environment { names: "posix.environ", one: PYTHON_ONE, languages: &[] },
    // Any module's `environ` (`(os).environ`, `__import__("os").environ`, `o.environ`).
    Environment { names: ".environ", one: PYTHON_ONE, languages: PYTHONS },
    // JavaScript: Node, Bun, Deno, Vite.
    Environment { names: "process.env", one: JS_ONE, languages: &[] },
    Environment { names: "process[\"env\"]", one: JS_ONE, languages: &[] },
    Environment { names: "process['env']", one: JS_ONE, languages: &[] },
    Environment { names: "process?.env", one: JS_ONE, languages: &[] },
    Environment { names: "require(\"process\").env", one: JS_ONE, languages: &[] },
    Environment { names: "require('process').env", one: JS_ONE, languages: &[] },
    Environment { names: "Bun.env", one: JS_ONE, languages: &[] },
    Environment { names: "import.meta.env", one: JS_ONE, languages: &[] },
    Environment { names: "Deno.env.toObject", one: &[], languages: &[] },
    // Perl: `%ENV` is the hash (`$ENV{X}` one value, not this text); `@ENV{…}` a slice.
    Environment { names: "%ENV", one: &[], languages: &[] },
    Environment { names: "%::ENV", one: &[], languages: &[] },
    Environment { names: "%main::ENV", one: &[], languages: &[] },
    Environment { names: "@ENV{", one: &[], languages: &[] },
    Environment { names: "%{ENV}", one: &[], languages: &[] },
    Environment { names: "%{*ENV}", one: &[], languages: &[] },
    Environment { names: "%{\"main::ENV\"}", one: &[], languages: &[] },
    Environment { names: "% ENV", one: &[], languages: &[] },
    // Ruby and Julia: `ENV` alone is the whole environment; `ENV["X"]` and `ENV.fetch` read one.
    Environment {
        names: "ENV",
        one: &[
            After::Text("["), After::Text(".fetch"), After::Text(".key?"), After::Text(".has_key?"),
            After::Text(".include?"), After::Text(".member?"), After::Text(".keys"),
            After::Text(".delete"), After::Text(".store"), After::Assignment,
        ],
        languages: &["ruby", "irb", "jruby", "truffleruby", "julia"],
    },
    // PHP.
    Environment { names: "$_ENV", one: INDEX, languages: &[] },
    Environment { names: "$_SERVER", one: INDEX, languages: &[] },
    // `phpinfo(INFO_MODULES)` leaves the environment out; `INFO_ENVIRONMENT`,
    // `INFO_VARIABLES`, `INFO_ALL` or `-1` among its flags put it in.
    Environment {
        names: "phpinfo(",
        one: &[After::Flags {
            first: &["INFO_GENERAL", "INFO_CREDITS", "INFO_CONFIGURATION", "INFO_MODULES", "INFO_LICENSE"],
            whole: &["ENVIRONMENT", "VARIABLES", "ALL", "-1"],
        }],
        languages: &[],
    },
    // awk.
    Environment { names: "ENVIRON", one: INDEX, languages: &[] },
    // PowerShell and .NET: the `env:` drive (`Get-ChildItem env:`), all variables.
    Environment { names: "env:", one: &[After::Name], languages: &["pwsh", "powershell"] },
    Environment { names: "Env:", one: &[After::Name], languages: &["pwsh", "powershell"] },
    Environment { names: "GetEnvironmentVariables(", one: &[], languages: &[] },
    // Tcl.
    Environment { names: "array get env", one: &[], languages: &[] },
    // `getenv()` with no argument: PHP's, and R's `Sys.getenv()`, give every variable; with
    // one, [`ONE_VARIABLE`] reads it.
    Environment { names: "getenv(", one: &[After::Argument], languages: &[] },
];

/// Wrappers a whole environment may sit in when it is passed to a child's `env`:
/// `env={**os.environ, …}`, `env=dict(os.environ, …)`, `env: {...process.env, …}`.
const ENV_WRAPPERS: &[&str] = &["**", "...", "{", "dict(", "("];

/// Calls before a whole environment that give only its names or its size.
const NAMES_ONLY: &[&str] = &["Object.keys(", "len(", "list(", "sorted(", "set(", "keys "];

/// Whether the whole environment after `head` (the code before it) and before `rest` (the
/// code after it, blanks skipped) is passed on rather than printed:
/// - assigned in a statement of its own (`env = os.environ.copy()`, `const { HOME } =
///   process.env`), not a keyword argument (`pprint(object=os.environ)`) or an expression
///   (`print(e := os.environ)`);
/// - a child's environment (`env=`, `env:`, through [`ENV_WRAPPERS`]) or a test's patch
///   (`mock.patch.dict(os.environ, …)`);
/// - its names only ([`NAMES_ONLY`]), or a membership test (`"CI" in os.environ`), not a
///   loop over it (`for k, v in ENV`, `for e in os.environ,:`).
fn passed_on(head: &str, rest: &str) -> bool {
    let head = head.trim_end();
    let statement = head.rsplit([';', '\n']).next().unwrap_or(head).trim_start();
    if let Some(target) = statement.strip_suffix('=').map(str::trim_end)
        && !target.ends_with(['=', '!', '<', '>', ':'])
    {
        // The blank before a pattern may be gone (`const{ HOME }`: see [`tightened`]).
        let target = ["const", "let", "var", "export"]
            .iter()
            .find_map(|k| target.strip_prefix(k))
            .unwrap_or(target)
            .trim();
        let name = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || c == '_');
        let pattern = |t: &str| {
            (t.starts_with('{') && t.ends_with('}') || t.starts_with('[') && t.ends_with(']'))
                && t.chars()
                    .all(|c| c.is_alphanumeric() || " \t_,:{}[].".contains(c))
        };
        if name(target) || pattern(target) {
            return true;
        }
    }
    if head.ends_with("patch.dict(") {
        return true;
    }
    let mut inner = head;
    while let Some(w) = ENV_WRAPPERS.iter().find(|w| inner.ends_with(*w)) {
        inner = inner[..inner.len() - w.len()].trim_end();
    }
    let inner: String = inner.chars().filter(|c| !c.is_whitespace()).collect();
    if inner.ends_with("env=") || inner.ends_with("env:") {
        return true;
    }
    if NAMES_ONLY.iter().any(|n| head.ends_with(n.trim_end())) {
        return true;
    }
    let in_test = head.ends_with(" in") || head.ends_with("\tin");
    let clause = head
        .rsplit([';', '\n', '('])
        .next()
        .unwrap_or(head)
        .trim_start();
    in_test && !rest.starts_with('.') && !clause.starts_with("for ") && !clause.starts_with("for(")
}

/// The reason to ask about interpreter `code` (an argument of an interpreter, a here-document
/// it reads, or what is piped into it) when it reads the whole environment, or one variable
/// whose name says it holds a secret or is computed (`os.environ["GITHUB_TOKEN"]`,
/// `process.env.API_KEY`, `os.getenv("AWS_SECRET_ACCESS_KEY")`, `$ENV{GITHUB_TOKEN}`,
/// `os.environ[k]`).
pub(super) fn env_in_code(code: &str, program: &str, shown: impl Fn() -> String) -> Option<String> {
    let code = &tightened(code);
    for env in ENVIRONMENTS {
        if !env.languages.is_empty() && !env.languages.iter().any(|l| program.starts_with(l)) {
            continue;
        }
        for (at, _) in code.match_indices(env.names) {
            let before = code[..at].chars().next_back();
            let name_char = |c: char| c.is_alphanumeric() || c == '_';
            // A single name (`ENV`, `env:`), which another object or sigil can own.
            let bare =
                env.names.starts_with(|c: char| c.is_alphabetic()) && !env.names.contains('.');
            // Another object's member (`x.process.env`), a variable (`$ENV`), but a spread
            // (`...process.env`) is this one, and so is a function called through its module
            // (`os.getenv(`, `Sys.getenv(`, `[Environment]::GetEnvironmentVariables(`).
            let spread = code[..at].ends_with("...") || env.names.ends_with('(');
            if !env.names.starts_with('.')
                && before.is_some_and(|c| {
                    name_char(c) || (bare && !spread && matches!(c, '$' | '%' | '.' | '@' | '-'))
                })
            {
                continue;
            }
            let after = &code[at + env.names.len()..];
            // A longer name (`process.envelope`, `ENVIRONMENT`).
            if env.names.ends_with(name_char) && after.starts_with(name_char) {
                continue;
            }
            let rest = after.trim_start();
            let one = env.one.iter().any(|after| after.starts(rest));
            // The code before it, without the module a `.environ` is read from (`env = os`).
            let head = if env.names.starts_with('.') {
                code[..at].trim_end_matches(name_char)
            } else {
                &code[..at]
            };
            if one || passed_on(head, rest) {
                continue;
            }
            return Some(format!(
                "secrets-guard: rule {ENV_DUMP}: `{}` reads the whole environment (`{}`), secrets included",
                shown(),
                env.names.trim_end_matches(['(', '{'])
            ));
        }
    }
    if SHELL_OUTS.iter().any(|call| code.contains(call))
        && let Some(program) = DUMPING_PROGRAMS.iter().find(|p| {
            // `"env"`, `'/usr/bin/env'`, `` `printenv` ``, Perl's `qx(env)`, Ruby's `%x(env)`.
            let quoted = ["\"", "'", "`", "/"].iter().any(|q| {
                ["\"", "'", "`"]
                    .iter()
                    .any(|e| code.contains(&format!("{q}{p}{e}")))
            });
            quoted
                || ["qx(", "qx{", "%x(", "%x{"]
                    .iter()
                    .any(|o| code.contains(&format!("{o}{p}")))
        })
    {
        return Some(format!(
            "secrets-guard: rule {ENV_DUMP}: `{}` runs `{program}`, which prints the environment, secrets included",
            shown()
        ));
    }
    let name = named_variables(code).find(|n| n.is_none_or(secret_name))?;
    Some(match name {
        Some(name) => format!(
            "secrets-guard: rule {ENV_SECRET}: `{}` reads the variable {name}, whose name says it holds a secret",
            shown()
        ),
        None => format!(
            "secrets-guard: rule {ENV_SECRET}: `{}` reads environment variables whose names it computes, which may hold secrets",
            shown()
        ),
    })
}

/// Calls that run a command line from code: with one of them, a quoted `"env"` in the code is
/// that command (`execSync("env")`, `` `printenv` ``, `qx(env)` aside).
const SHELL_OUTS: &[&str] = &[
    "qx",
    "%x",
    "system",
    "popen",
    "exec",
    "spawn",
    "subprocess",
    "child_process",
    "`",
    "shell_exec",
    "passthru",
    "Popen",
    "run(",
];

/// Programs that print the whole environment with no argument.
const DUMPING_PROGRAMS: &[&str] = &["env", "printenv"];

/// `code` without the blanks around a `.` and before a `(`, `[` or `{` after a name (`os .
/// environ`, `getenv ()`, `$ENV {X}`, a line break before `.environ`), which the languages
/// allow and the tables do not spell. Linear: each run of blanks is looked at once.
fn tightened(code: &str) -> std::borrow::Cow<'_, str> {
    let blank = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r');
    if !code.contains(blank) {
        return std::borrow::Cow::Borrowed(code);
    }
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find(blank) {
        out.push_str(&rest[..at]);
        let run_end = rest[at..]
            .find(|c: char| !blank(c))
            .map_or(rest.len(), |e| at + e);
        let prev = out.chars().next_back();
        let next = rest[run_end..].chars().next();
        let after_name = prev.is_some_and(|p| p.is_alphanumeric() || matches!(p, '_' | ')' | ']'));
        let drop = prev == Some('.') || (after_name && matches!(next, Some('.' | '(' | '[' | '{')));
        if !drop {
            out.push_str(&rest[at..run_end]);
        }
        rest = &rest[run_end..];
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// The texts after which code names one environment variable: `os.environ["X"]`,
/// `os.getenv("X")`, `process.env.X`, `ENV["X"]`, `ENV.fetch("X")`, `$ENV{X}`,
/// `Sys.getenv("X")`, `getenv('X')`, `$_ENV['X']`, `$env:X`, `ENVIRON["X"]`. Those that end in
/// `.`, `{` or `:` take a bare name; the others a quoted one, and anything else there is a
/// name the code computes.
const ONE_VARIABLE: &[&str] = &[
    "environ[",
    "environ.get(",
    "environ.pop(",
    "environ.setdefault(",
    "environ.__getitem__(",
    "environb[",
    "environb.get(",
    "ENV.fetch ",
    "${ENV}{",
    "env:",
    "Env:",
    "${env:",
    "GetEnvironmentVariable(",
    "getenv(",
    "getenvb(",
    "process.env.",
    "process.env[",
    "process.env?.",
    "process.env?.[",
    "Bun.env.",
    "Bun.env[",
    "import.meta.env.",
    "import.meta.env[",
    "Deno.env.get(",
    "ENV[",
    "ENV.fetch(",
    "ENV.delete(",
    "$ENV{",
    "$::ENV{",
    "$main::ENV{",
    "$_ENV[",
    "$_SERVER[",
    "ENVIRON[",
    "$env:",
    "$Env:",
    "$env(",
];

/// The names of the variables `code` reads one by one ([`ONE_VARIABLE`]): `None` for a name
/// it computes (`os.environ[k]`, `"GITHUB_" + "TOKEN"`). Writes (`os.environ["X"] = "1"`)
/// are left out.
fn named_variables(code: &str) -> impl Iterator<Item = Option<&str>> {
    ONE_VARIABLE.iter().flat_map(move |prefix| {
        code.match_indices(prefix).filter_map(move |(at, _)| {
            let bare = prefix.ends_with(['.', '{', ':']);
            // A bare name follows at once (`env:GITHUB_TOKEN`, not `{env: process.env}`).
            let rest = &code[at + prefix.len()..];
            let rest = if bare { rest } else { rest.trim_start() };
            let quote = rest
                .chars()
                .next()
                .filter(|c| matches!(c, '"' | '\'' | '`'));
            let name_end = |text: &str| {
                text.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(text.len())
            };
            let (name, after) = match quote {
                Some(q) => {
                    let inner = &rest[1..];
                    let end = inner.find(q)?;
                    let name = &inner[..end];
                    if name_end(name) != name.len() {
                        // An escape or another character: not a name as written.
                        return Some(None);
                    }
                    (name, inner[end + 1..].trim_start())
                }
                None if bare => {
                    let end = name_end(rest);
                    // `gci env:G*`: every variable the pattern matches.
                    if rest[end..].starts_with(['*', '?']) {
                        return Some(None);
                    }
                    // `$ENV{$k}` is a name computed; `{env: …}` is no read at all.
                    if end == 0 {
                        return prefix.ends_with('{').then_some(None);
                    }
                    (&rest[..end], rest[end..].trim_start())
                }
                // `getenv()`: the whole environment, judged above.
                None if rest.starts_with(')') => return None,
                None => return Some(None),
            };
            if name.is_empty() {
                return Some(None);
            }
            // A name pieced together (`"GITHUB_" + "TOKEN"`, `"A" . "B"`).
            if quote.is_some() && !after.starts_with([']', ')', '}', ',']) {
                return Some(None);
            }
            let after = after.trim_start_matches([']', ')', '}']).trim_start();
            let written = after.starts_with('=') && !after.starts_with("==");
            (!written).then_some(Some(name))
        })
    })
}

/// The reason to ask about a word that expands a variable named by another (`${!v}`), as
/// `compgen -v | while read v; do echo "$v=${!v}"; done` prints every variable: which one
/// it prints is not known until it runs. `${!prefix*}`, `${!prefix@}` and `${!array[@]}`
/// give names and indices, not values.
pub(super) fn indirect(word: &str, shown: impl Fn() -> String) -> Option<String> {
    let found = word.match_indices("${!").any(|(at, _)| {
        let rest = &word[at + 3..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        end > 0 && !rest[end..].starts_with(['*', '@', '['])
    });
    found.then(|| {
        format!(
            "secrets-guard: rule {ENV_SECRET}: `{}` expands a variable whose name another one holds (`${{!…}}`), which may hold a secret",
            shown()
        )
    })
}
