//! What the scan knows about programs: interpreters and their options, wrappers that run
//! another program, tools that run project code they find themselves, environment variables
//! that load code, and the words that make inline code load or run more code.

/// How an interpreter takes its program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lang {
    Shell,
    Python,
    Node,
    Ruby,
    Perl,
    Php,
    Lua,
    Deno,
    Bun,
    Awk,
    /// `uv run [options] <command>`: the rest is a command in turn.
    Uv,
}

pub(super) struct Interpreter {
    pub names: &'static [&'static str],
    pub lang: Lang,
    /// A subcommand skipped before the options (`deno run`); required for [`Lang::Uv`].
    pub subcommand: Option<&'static str>,
    /// Options whose value is the next argument (or attached: `-Wignore`, `--opt=value`).
    pub value_options: &'static [&'static str],
    /// Options whose value is a file that runs or configures what runs: hashed.
    pub file_options: &'static [&'static str],
    /// Options whose value is a directory modules are loaded from: reported unhashed.
    pub dir_options: &'static [&'static str],
    /// Options giving code inline (`-c`, `-e`).
    pub inline_options: &'static [&'static str],
    /// Options whose value is the script (`php -f`, `awk -f`).
    pub script_options: &'static [&'static str],
    /// Options whose value is a module to run (`python -m`).
    pub module_options: &'static [&'static str],
    /// Options that take the rest of their word as value, never the next word (`perl -Mstrict`).
    pub attached_options: &'static [&'static str],
}

const fn interp(names: &'static [&'static str], lang: Lang) -> Interpreter {
    Interpreter {
        names,
        lang,
        subcommand: None,
        value_options: &[],
        file_options: &[],
        dir_options: &[],
        inline_options: &[],
        script_options: &[],
        module_options: &[],
        attached_options: &[],
    }
}

pub(super) const INTERPRETERS: &[Interpreter] = &[
    Interpreter {
        value_options: &["-o", "+o", "-O", "+O"],
        file_options: &["--rcfile", "--init-file"],
        ..interp(
            &[
                "sh", "bash", "rbash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "yash", "posh",
                "csh", "tcsh",
            ],
            Lang::Shell,
        )
    },
    Interpreter {
        value_options: &["-W", "-X", "-Q", "--check-hash-based-pycs"],
        inline_options: &["-c"],
        module_options: &["-m"],
        ..interp(&["python", "pypy"], Lang::Python)
    },
    Interpreter {
        value_options: &[
            "-C",
            "--conditions",
            "--input-type",
            "--title",
            "--stack-size",
            "--env-file",
            "--env-file-if-exists",
        ],
        file_options: &[
            "-r",
            "--require",
            "--import",
            "--loader",
            "--experimental-loader",
        ],
        inline_options: &["-e", "--eval", "-p", "--print"],
        ..interp(&["node", "nodejs", "tsx", "ts-node"], Lang::Node)
    },
    Interpreter {
        value_options: &["-E", "-C"],
        file_options: &["-r"],
        dir_options: &["-I"],
        attached_options: &["-0", "-x", "-F", "-K", "-T", "-W"],
        inline_options: &["-e"],
        ..interp(&["ruby"], Lang::Ruby)
    },
    Interpreter {
        dir_options: &["-I"],
        attached_options: &["-M", "-m", "-x", "-i", "-0", "-l", "-C", "-d", "-D", "-V"],
        inline_options: &["-e", "-E"],
        ..interp(&["perl"], Lang::Perl)
    },
    Interpreter {
        value_options: &["-d", "-z"],
        file_options: &["-c"],
        inline_options: &["-r", "-B", "-R", "-E"],
        script_options: &["-f"],
        ..interp(&["php"], Lang::Php)
    },
    Interpreter {
        value_options: &["-l"],
        inline_options: &["-e"],
        ..interp(&["lua", "luajit"], Lang::Lua)
    },
    Interpreter {
        subcommand: Some("run"),
        value_options: &[
            "-L",
            "--log-level",
            "--cert",
            "--lock",
            "--location",
            "--env-file",
        ],
        file_options: &["-c", "--config", "--import-map", "--preload"],
        ..interp(&["deno"], Lang::Deno)
    },
    Interpreter {
        subcommand: Some("run"),
        value_options: &["--cwd", "--env-file"],
        file_options: &["-r", "--preload", "-c", "--config"],
        inline_options: &["-e", "--eval", "-p", "--print"],
        ..interp(&["bun"], Lang::Bun)
    },
    Interpreter {
        value_options: &["-v", "-F", "--assign", "--field-separator"],
        file_options: &["-i", "--include"],
        script_options: &["-f", "--file", "-E", "--exec"],
        ..interp(&["awk", "gawk", "mawk", "nawk"], Lang::Awk)
    },
    Interpreter {
        subcommand: Some("run"),
        value_options: &[
            "--with",
            "-w",
            "--with-requirements",
            "--python",
            "-p",
            "--project",
            "--directory",
            "--extra",
            "--group",
            "--index",
            "--package",
            "--env-file",
        ],
        ..interp(&["uv"], Lang::Uv)
    },
];

/// Options whose value is a file of settings that may load code the scan does not follow
/// (`node --env-file=e.env` with `NODE_OPTIONS=--require ./x.js` in it): reported unhashed.
pub(super) const OPTION_FILES: &[&str] = &["--env-file", "--env-file-if-exists"];

/// The interpreter a program name is, ignoring its directory and a version suffix
/// (`/usr/bin/python3.12` is `python`).
pub(super) fn interpreter(program: &str) -> Option<&'static Interpreter> {
    let name = base_name(program);
    let name = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    INTERPRETERS.iter().find(|i| i.names.contains(&name))
}

pub(super) fn base_name(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// Programs that run another program named by their arguments: (name, options taking a
/// value, positional arguments before the program).
pub(super) const WRAPPERS: &[(&str, &[&str], usize)] = &[
    ("env", &["-u", "--unset"], 0),
    ("exec", &["-a"], 0),
    ("command", &[], 0),
    ("builtin", &[], 0),
    ("nohup", &[], 0),
    ("nice", &["-n", "--adjustment"], 0),
    ("time", &["-f", "--format", "-o", "--output"], 0),
    ("timeout", &["-s", "--signal", "-k", "--kill-after"], 1),
    (
        "sudo",
        &[
            "-u", "--user", "-g", "--group", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-R",
        ],
        0,
    ),
    ("doas", &["-u", "-C"], 0),
    ("setsid", &[], 0),
    ("coproc", &[], 0),
    ("stdbuf", &["-i", "-o", "-e"], 0),
    ("ionice", &["-c", "-n", "-p", "-P", "-u"], 0),
    ("chrt", &[], 1),
    ("taskset", &[], 1),
    ("busybox", &[], 0),
    ("caffeinate", &[], 0),
    ("unbuffer", &[], 0),
    ("chronic", &[], 0),
    (
        "flock",
        &["-w", "--timeout", "-E", "--conflict-exit-code"],
        1,
    ),
    ("strace", &["-o", "-e", "-p", "-s", "-u"], 0),
    ("ltrace", &["-o", "-e", "-p", "-s", "-u"], 0),
    ("valgrind", &[], 0),
    ("xvfb-run", &["-a", "-n", "-s", "-f", "-e"], 0),
    ("setarch", &[], 1),
    ("linux32", &[], 0),
    ("linux64", &[], 0),
    ("i386", &[], 0),
    ("x86_64", &[], 0),
    ("uname26", &[], 0),
    ("prlimit", &["-p", "--pid", "-o", "--output"], 0),
    (
        "setpriv",
        &[
            "--ruid",
            "--euid",
            "--rgid",
            "--egid",
            "--reuid",
            "--regid",
            "--groups",
            "--inh-caps",
            "--ambient-caps",
            "--bounding-set",
            "--securebits",
            "--pdeathsig",
            "--selinux-label",
            "--apparmor-profile",
        ],
        0,
    ),
    (
        "unshare",
        &[
            "-S", "--setuid", "-G", "--setgid", "-R", "--root", "-w", "--wd",
        ],
        0,
    ),
    (
        "nsenter",
        &["-t", "--target", "-S", "--setuid", "-G", "--setgid"],
        0,
    ),
    ("chroot", &["--userspec", "--groups"], 1),
    ("numactl", &[], 0),
    ("cgexec", &["-g"], 0),
    ("faketime", &[], 1),
    ("proxychains", &["-f"], 0),
    ("proxychains4", &["-f"], 0),
    ("torsocks", &[], 0),
    ("dbus-run-session", &[], 0),
    ("catchsegv", &[], 0),
];

/// Programs whose option names a file holding their program (`jq -f policy.jq`): hashed.
pub(super) const PROGRAM_FILE_OPTIONS: &[(&str, &[&str])] = &[
    ("jq", &["-f", "--from-file"]),
    ("gojq", &["-f", "--from-file"]),
    ("yq", &["--from-file"]),
    ("sed", &["-f", "--file"]),
    ("gsed", &["-f", "--file"]),
];

/// Words that open or join compound commands, skipped before the program.
pub(super) const RESERVED: &[&str] = &[
    "!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "esac", ";;",
];

/// Tools that run code from project files they find themselves (a Makefile, package.json's
/// scripts, conftest.py…). Their files are not followed: such a hook is reported unhashed.
pub(super) const PROJECT_RUNNERS: &[(&str, &str)] = &[
    ("make", "Makefile"),
    ("gmake", "Makefile"),
    ("just", "justfile"),
    ("npm", "package.json scripts"),
    ("pnpm", "package.json scripts"),
    ("yarn", "package.json scripts"),
    ("npx", "node_modules"),
    ("pnpx", "node_modules"),
    ("bunx", "node_modules"),
    ("cargo", "Cargo.toml, build scripts"),
    ("go", "go.mod packages"),
    ("pytest", "conftest.py and tests"),
    ("py.test", "conftest.py and tests"),
    ("tox", "tox.ini"),
    ("nox", "noxfile.py"),
    ("rake", "Rakefile"),
    ("gradle", "build.gradle"),
    ("gradlew", "build.gradle"),
    ("mvn", "pom.xml"),
    ("poetry", "pyproject.toml"),
    ("pipenv", "Pipfile"),
    ("bundle", "Gemfile"),
    ("composer", "composer.json scripts"),
    ("pre-commit", ".pre-commit-config.yaml"),
    ("mix", "mix.exs"),
    ("dotnet", "project files"),
    ("sbt", "build.sbt"),
    ("task", "Taskfile.yml"),
];

/// `bun` and `deno` subcommands that run project-defined tasks.
pub(super) const RUNNER_SUBCOMMANDS: &[(&str, &str, &str)] = &[
    ("bun", "test", "test files"),
    ("bun", "install", "package.json scripts"),
    ("bun", "x", "node_modules"),
    ("deno", "task", "deno.json tasks"),
    ("deno", "test", "test files"),
];

/// What an environment variable set for a command does to what it loads.
pub(super) enum EnvCode {
    /// A file (or several, `:`-separated) that is sourced or preloaded: hashed.
    Files,
    /// Shell text run by the program: scanned as a command.
    Command,
    /// Options of the program (`NODE_OPTIONS`): scanned as its options.
    Options(&'static str),
    /// A search path or setting whose effect is not followed: reported unhashed.
    Opaque(&'static str),
}

pub(super) const CODE_ENV: &[(&str, EnvCode)] = &[
    ("BASH_ENV", EnvCode::Files),
    ("ENV", EnvCode::Files),
    ("PYTHONSTARTUP", EnvCode::Files),
    ("LD_PRELOAD", EnvCode::Files),
    ("DYLD_INSERT_LIBRARIES", EnvCode::Files),
    ("NODE_OPTIONS", EnvCode::Options("node")),
    ("GIT_SSH_COMMAND", EnvCode::Command),
    ("GIT_EDITOR", EnvCode::Command),
    ("GIT_PAGER", EnvCode::Command),
    ("GIT_ASKPASS", EnvCode::Command),
    ("SSH_ASKPASS", EnvCode::Command),
    ("EDITOR", EnvCode::Command),
    ("VISUAL", EnvCode::Command),
    ("PAGER", EnvCode::Command),
    ("PROMPT_COMMAND", EnvCode::Command),
    (
        "PYTHONPATH",
        EnvCode::Opaque("Python imports modules from it"),
    ),
    (
        "PYTHONHOME",
        EnvCode::Opaque("Python loads its library from it"),
    ),
    ("NODE_PATH", EnvCode::Opaque("node loads modules from it")),
    ("PERL5LIB", EnvCode::Opaque("perl loads modules from it")),
    ("PERLLIB", EnvCode::Opaque("perl loads modules from it")),
    (
        "PERL5OPT",
        EnvCode::Opaque("perl takes options (modules to load) from it"),
    ),
    ("RUBYLIB", EnvCode::Opaque("ruby loads libraries from it")),
    (
        "RUBYOPT",
        EnvCode::Opaque("ruby takes options (libraries to load) from it"),
    ),
    (
        "LD_LIBRARY_PATH",
        EnvCode::Opaque("programs load shared libraries from it"),
    ),
    (
        "LD_AUDIT",
        EnvCode::Opaque("programs load audit libraries from it"),
    ),
    ("ZDOTDIR", EnvCode::Opaque("zsh sources .zshenv from it")),
    (
        "HOME",
        EnvCode::Opaque("shells and tools read their profile and rc files from it"),
    ),
    (
        "XDG_CONFIG_DIRS",
        EnvCode::Opaque("programs read their configuration from it"),
    ),
    (
        "DYLD_LIBRARY_PATH",
        EnvCode::Opaque("programs load shared libraries from it"),
    ),
    (
        "DYLD_FRAMEWORK_PATH",
        EnvCode::Opaque("programs load frameworks from it"),
    ),
    (
        "GCONV_PATH",
        EnvCode::Opaque("the C library loads conversion modules from it"),
    ),
    (
        "_JAVA_OPTIONS",
        EnvCode::Opaque("the JVM loads agents it names"),
    ),
    (
        "JDK_JAVA_OPTIONS",
        EnvCode::Opaque("the JVM loads agents it names"),
    ),
    (
        "BASH_LOADABLES_PATH",
        EnvCode::Opaque("bash loads builtins from it"),
    ),
    (
        "GIT_CONFIG_GLOBAL",
        EnvCode::Opaque("git reads aliases and commands from it"),
    ),
    (
        "GIT_CONFIG_SYSTEM",
        EnvCode::Opaque("git reads aliases and commands from it"),
    ),
    (
        "GIT_CONFIG_PARAMETERS",
        EnvCode::Opaque("git reads aliases and commands from it"),
    ),
    (
        "GIT_EXEC_PATH",
        EnvCode::Opaque("git runs its commands from it"),
    ),
    (
        "XDG_CONFIG_HOME",
        EnvCode::Opaque("fish sources its config.fish from it"),
    ),
    (
        "JAVA_TOOL_OPTIONS",
        EnvCode::Opaque("the JVM loads agents it names"),
    ),
    ("PS4", EnvCode::Opaque("a tracing shell expands it as code")),
    (
        "SHELLOPTS",
        EnvCode::Opaque("it changes how the shell runs"),
    ),
];

/// Words that make inline code of another language load or run code the scan cannot see.
pub(super) fn loading_words(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Python => &[
            "exec",
            "eval",
            "compile",
            "__import__",
            "import_module",
            "runpy",
            "execfile",
            "system",
            "popen",
            "subprocess",
            "spawn",
            "execv",
            "execl",
            "execvp",
            "execlp",
            "pty",
            "importlib",
        ],
        Lang::Node | Lang::Deno | Lang::Bun => &[
            "eval",
            "Function",
            "child_process",
            "vm",
            "execSync",
            "spawnSync",
            "Deno",
            "Bun",
            "Worker",
        ],
        Lang::Ruby => &[
            "eval",
            "system",
            "exec",
            "spawn",
            "load",
            "require",
            "require_relative",
            "popen",
            "instance_eval",
            "class_eval",
            "`",
            "%x",
        ],
        Lang::Perl => &[
            "eval", "system", "exec", "do", "require", "use", "qx", "`", "open",
        ],
        Lang::Php => &[
            "eval",
            "include",
            "include_once",
            "require",
            "require_once",
            "system",
            "exec",
            "passthru",
            "shell_exec",
            "popen",
            "proc_open",
            "`",
        ],
        Lang::Lua => &[
            "dofile",
            "loadfile",
            "load",
            "loadstring",
            "require",
            "execute",
            "popen",
        ],
        Lang::Awk => &["system", "getline", "|", "@include", "@load"],
        Lang::Shell | Lang::Uv => &[],
    }
}

/// The first word of `words` that appears in `code` as a whole identifier (or, for
/// punctuation such as `` ` ``, anywhere).
pub(super) fn first_loading_word(
    code: &str,
    words: &'static [&'static str],
) -> Option<&'static str> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    words.iter().copied().find(|word| {
        if !word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            return code.contains(word);
        }
        code.match_indices(word).any(|(at, _)| {
            let before = code[..at].chars().next_back();
            let after = code[at + word.len()..].chars().next();
            !before.is_some_and(ident) && !after.is_some_and(ident)
        })
    })
}

/// One import statement of Python code.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum PyImport {
    /// `import a.b`.
    Absolute(String),
    /// `from a.b import c, d`: each name may be a submodule (`a/b/c.py`).
    From { module: String, names: Vec<String> },
    /// `from ..a import b` (`level` dots, then the module, maybe empty) and the names.
    Relative {
        level: usize,
        module: String,
        names: Vec<String>,
    },
}

/// The imports of Python code, statement by statement (`;` and new lines; indented ones
/// included, since a function's import runs when it is called). The one reader of Python
/// imports: for files the scan follows and for one-liners ([`python_imports`]).
pub(super) fn python_file_imports(code: &str) -> Vec<PyImport> {
    let mut out = Vec::new();
    for statement in code.split([';', '\n']) {
        let statement = statement.trim();
        if let Some(rest) = statement.strip_prefix("import ") {
            for name in rest.split(',') {
                let name = name.split_whitespace().next().unwrap_or_default();
                if !name.is_empty() {
                    out.push(PyImport::Absolute(name.to_owned()));
                }
            }
        } else if let Some(rest) = statement.strip_prefix("from ") {
            let Some((module, names)) = split_import(rest) else {
                continue;
            };
            let module = module.trim();
            let level = module.chars().take_while(|&c| c == '.').count();
            let names: Vec<String> = names
                .trim()
                .trim_start_matches('(')
                .trim_end_matches(['\\', ')'])
                .split(',')
                .filter_map(|n| n.split_whitespace().next())
                .filter(|n| !n.is_empty() && *n != "(")
                .map(str::to_owned)
                .collect();
            if level == 0 {
                if !module.is_empty() {
                    out.push(PyImport::From {
                        module: module.to_owned(),
                        names,
                    });
                }
                continue;
            }
            out.push(PyImport::Relative {
                level,
                module: module[level..].to_owned(),
                names,
            });
        }
    }
    out
}

/// `a.b import c` (what follows `from `) split at its `import` keyword, which a space or a
/// parenthesis ends (`from a import(b)` is Python too).
fn split_import(rest: &str) -> Option<(&str, &str)> {
    let mut from = 0;
    while let Some(found) = rest[from..].find(" import") {
        let at = from + found;
        let after = &rest[at + " import".len()..];
        if after.starts_with([' ', '\t', '(']) {
            return Some((&rest[..at], after));
        }
        from = at + " import".len();
    }
    None
}

/// The modules a Python one-liner imports (`import a.b, c as d`, `from e import f`); `Err`
/// with the statement for a relative import, which a one-liner has no package for.
pub(super) fn python_imports(code: &str) -> Result<Vec<String>, String> {
    python_file_imports(code)
        .into_iter()
        .map(|import| match import {
            PyImport::Absolute(module) | PyImport::From { module, .. } => Ok(module),
            PyImport::Relative {
                level,
                module,
                names,
            } => Err(format!(
                "from {}{module} import {}",
                ".".repeat(level),
                names.join(", ")
            )),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpreters_are_recognised_by_base_name_without_version() {
        for name in [
            "python3",
            "/usr/bin/python3.12",
            "python",
            "bash",
            "node",
            "uv",
            "gawk",
        ] {
            assert!(interpreter(name).is_some(), "{name}");
        }
        for name in ["jq", "pythonista", "make"] {
            assert!(interpreter(name).is_none(), "{name}");
        }
    }

    #[test]
    fn loading_words_match_whole_identifiers() {
        let py = loading_words(Lang::Python);
        assert_eq!(
            first_loading_word("exec(open('x').read())", py),
            Some("exec")
        );
        assert_eq!(first_loading_word("print(executable)", py), None);
        assert_eq!(first_loading_word("import json; print(1)", py), None);
        assert_eq!(
            first_loading_word("x = `ls`", loading_words(Lang::Ruby)),
            Some("`")
        );
    }

    #[test]
    fn python_imports_are_read_from_statements() {
        assert_eq!(
            python_imports("import json, a.b as c; from d.e import f\nprint(1)").unwrap(),
            ["json", "a.b", "d.e"]
        );
        assert!(python_imports("from .x import y").is_err());
        assert_eq!(python_imports("from a.b import(c)").unwrap(), ["a.b"]);
    }
}
