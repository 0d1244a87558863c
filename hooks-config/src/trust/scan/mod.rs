//! Finding, without running anything, every project file a command loads as code, and the
//! parts of it where that set cannot be known (see the module docs for the rules).

use std::collections::{HashMap, HashSet, VecDeque};
use std::fs;
use std::path::{Path, PathBuf};

use super::fingerprint::Unhashed;
use super::lex::{self, Op, Part, PipeIn, Simple, Word};
use super::programs::{
    CODE_ENV, EnvCode, Interpreter, Lang, OPTION_FILES, PROGRAM_FILE_OPTIONS, PROJECT_RUNNERS,
    PyImport, RESERVED, RUNNER_SUBCOMMANDS, WRAPPERS, base_name, first_loading_word, interpreter,
    loading_words, python_file_imports, python_imports,
};
use super::{MAX_NESTING, MAX_SCRIPTS};

/// Most directories a command's relative paths are looked up from.
const MAX_DIRS: usize = 16;
/// Most commands scanned in one handler.
const MAX_COMMANDS: usize = 1000;
/// Most wrappers around one program (`env nice timeout …`).
const MAX_STACK: usize = 32;
/// Most words and tokens looked up as files a command names.
const MAX_MENTIONS: usize = 8192;

mod command;
mod files;
mod follow;
mod input;
mod interpreter;
mod vars;

use vars::{prepass, word_after_equals};

use crate::spec::{CommandHandler, CommandLine};
use files::Hashed;

/// What the scan found: the files to hash, in order of appearance, and what it could not
/// resolve.
pub(super) struct Found {
    pub files: Vec<PathBuf>,
    pub unhashed: Vec<Unhashed>,
}

pub(super) fn scan(c: &CommandHandler, project: &Path) -> Found {
    let mut scan = Scan {
        project,
        plugin_root: c
            .plugin_root
            .as_ref()
            .map(|p| p.to_string_lossy().into_owned()),
        home: std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| h.to_string_lossy().into_owned()),
        files: Vec::new(),
        unhashed: Vec::new(),
        commands: 0,
        stack: 0,
        mentions: 0,
        last_found: Vec::new(),
        queue: VecDeque::new(),
        follow_depth: 0,
        origin: None,
        functions: HashSet::new(),
    };
    let mut shell = Shell {
        vars: HashMap::new(),
        dirs: vec![project.to_path_buf()],
        dir_unknown: None,
        fds: HashMap::new(),
        path_dirs: Vec::new(),
        stdin: Input::Event,
        depth: 0,
        script: None,
    };
    let fragment = c.line.to_string();
    for (name, value) in &c.env {
        let word = Word {
            parts: vec![Part::Lit(value.clone())],
            raw: value.clone(),
        };
        scan.assign_env(name, &word, &mut shell, &fragment);
        scan.mentioned(value, &shell, &fragment);
        shell.vars.insert(
            name.clone(),
            Var::Value {
                text: value.clone(),
                exported: true,
            },
        );
    }
    match &c.line {
        CommandLine::Shell(text) => scan.shell_text(text, &mut shell),
        CommandLine::Exec(args) => {
            let words: Vec<Word> = args
                .iter()
                .map(|a| Word {
                    parts: vec![Part::Lit(scan.expand_known(a))],
                    raw: a.clone(),
                })
                .collect();
            let input = shell.stdin.clone();
            let before = shell.clone();
            scan.command(&words, 0, &fragment, &mut shell, &input, Extra::None);
            for word in &words {
                if let Some(text) = word.literal() {
                    scan.mentioned(&text, &before, &fragment);
                }
            }
        }
    }
    // What the files found load in turn.
    scan.follow_all();
    Found {
        files: scan.files,
        unhashed: scan.unhashed,
    }
}

struct Scan<'a> {
    project: &'a Path,
    plugin_root: Option<String>,
    home: Option<String>,
    files: Vec<PathBuf>,
    unhashed: Vec<Unhashed>,
    /// Commands scanned so far (wrappers, `xargs`, `find -exec` included): a bound on the
    /// work one text can cause.
    commands: usize,
    /// Calls of [`Scan::command`] in progress (`env nice timeout xargs sh …`).
    stack: usize,
    /// Words and tokens looked up as mentioned files so far (see [`Scan::mentioned`]).
    mentions: usize,
    /// The files the last [`Scan::hash`] found (see [`Scan::follow_found`]).
    last_found: Vec<PathBuf>,
    /// Files loaded as code, to be read for what they load ([`Scan::follow_all`]).
    queue: VecDeque<follow::Follow>,
    /// How many files deep the text being scanned is (0: the command itself).
    follow_depth: usize,
    /// The file the text being scanned comes from (named in what is unhashed).
    origin: Option<String>,
    /// Shell functions defined in the texts scanned (calling one runs scanned text).
    functions: HashSet<String>,
}

/// One shell's state as far as the scan follows it.
#[derive(Clone)]
struct Shell {
    vars: HashMap<String, Var>,
    /// Where relative paths may start (every directory a `cd` may have gone to).
    dirs: Vec<PathBuf>,
    /// Why the working directory cannot be known, after a `cd` to a run-time value.
    dir_unknown: Option<String>,
    /// Descriptors opened for reading by `exec N<file`.
    fds: HashMap<u32, Input>,
    /// Project directories put on `PATH`; `Err` when `PATH` is set to a run-time value.
    path_dirs: Vec<Result<PathBuf, String>>,
    /// What the shell's own stdin reads.
    stdin: Input,
    depth: usize,
    /// The script this shell runs (`$0`) and the file it is reading (`${BASH_SOURCE[0]}`),
    /// when it is a followed project file: `$(dirname "$0")` is then known.
    script: Option<follow::Script>,
}

#[derive(Clone)]
enum Var {
    Value { text: String, exported: bool },
    Unknown(String),
}

/// What a command's stdin reads, when it is a program.
#[derive(Clone)]
enum Input {
    /// The hook's own stdin: the event JSON.
    Event,
    /// These files (as written).
    Files(Vec<String>),
    /// This text: a heredoc, a here-string, `echo`'s arguments.
    Text(String),
    /// Nothing (`/dev/null`, a closed descriptor).
    Nothing,
    /// Cannot be known, and why.
    Opaque(String),
}

/// Arguments a command gets from elsewhere (`xargs`, `find -exec`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Extra<'p> {
    None,
    /// Appended from the input (`xargs sh`).
    Appended(&'p str),
    /// This placeholder is replaced (`find -exec sh {} ;`, `xargs -I{}`).
    Placeholder(&'p str, &'p str),
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        let name = name.strip_suffix('+').unwrap_or(name);
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

fn is_assignment_word(word: &Word) -> bool {
    matches!(word.parts.first(), Some(Part::Lit(s)) if is_assignment(s))
}

/// The words before the program: reserved words (`if`, `then`, `{`) and assignments; and the
/// program's index.
fn split_prefix(words: &[Word]) -> (Vec<&Word>, usize) {
    let mut assignments = Vec::new();
    let mut i = 0;
    while let Some(w) = words.get(i) {
        let literal = w.literal();
        if literal.as_deref() == Some("function") {
            // `function name { …; }`: the name is not a program.
            i += 1;
        } else if literal.is_some_and(|l| RESERVED.contains(&l.as_str())) {
        } else if is_assignment_word(w) {
            assignments.push(w);
        } else {
            break;
        }
        i += 1;
    }
    (assignments, i)
}

fn is_option(word: &str, shell: bool) -> bool {
    word.len() > 1 && (word.starts_with('-') || (shell && word.starts_with('+')))
}

fn is_stdin_path(word: &str) -> bool {
    matches!(word, "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0")
}

fn abbreviate(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default().trim();
    match line.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None if line.len() < text.trim().len() => format!("{line}…"),
        None => line.to_owned(),
    }
}

impl Scan<'_> {
    fn unhashed(&mut self, fragment: &str, why: impl Into<String>) {
        let fragment = match &self.origin {
            Some(file) => format!("{file}: {}", abbreviate(fragment)),
            None => abbreviate(fragment),
        };
        let u = Unhashed {
            fragment,
            why: why.into(),
        };
        if !self.unhashed.contains(&u) {
            self.unhashed.push(u);
        }
    }

    /// `$CLAUDE_PROJECT_DIR` and `$CLAUDE_PLUGIN_ROOT` in an exec-form argument.
    fn expand_known(&self, arg: &str) -> String {
        // The runner's own expansion, so that what is hashed is what runs.
        crate::command::run::expand_placeholders(
            arg,
            &self.project.to_string_lossy(),
            self.plugin_root.as_deref(),
        )
    }

    /// A word's value, or why it is known only at run time.
    fn resolve(&self, word: &Word, sh: &Shell) -> Result<String, String> {
        let mut text = String::new();
        for part in &word.parts {
            match part {
                Part::Lit(s) => text.push_str(s),
                Part::Var(name) => text.push_str(&self.var(name, sh)?),
                Part::Glob(c) => {
                    return Err(format!("`{c}` in `{}` is expanded at run time", word.raw));
                }
                Part::Param(p) => return Err(format!("`${{{p}}}` is decided at run time")),
                Part::Subst(body) => match follow::script_dir(body, sh) {
                    Some(dir) => text.push_str(&dir),
                    None => {
                        return Err(format!("`$({})` is produced at run time", abbreviate(body)));
                    }
                },
                Part::Proc(body) => {
                    return Err(format!("`<({})` is produced at run time", abbreviate(body)));
                }
                Part::Arith(a) => return Err(format!("`$(({a}))` is computed at run time")),
                // `HOME=… ; ~/x`: the shell's own HOME, else the user's.
                Part::Tilde(user) if user.is_empty() => match (sh.vars.get("HOME"), &self.home) {
                    (Some(Var::Value { text: home, .. }), _) | (None, Some(home)) => {
                        text.push_str(home)
                    }
                    (Some(Var::Unknown(why)), _) => return Err(why.clone()),
                    (None, None) => {
                        return Err("`~` is not known (HOME is not set)".to_owned());
                    }
                },
                Part::Tilde(user) => return Err(format!("`~{user}` is not followed")),
            }
        }
        Ok(text)
    }

    fn var(&self, name: &str, sh: &Shell) -> Result<String, String> {
        match sh.vars.get(name) {
            Some(Var::Value { text, .. }) => return Ok(text.clone()),
            Some(Var::Unknown(why)) => return Err(why.clone()),
            None => {}
        }
        match name {
            "CLAUDE_PROJECT_DIR" => Ok(self.project.to_string_lossy().into_owned()),
            "CLAUDE_PLUGIN_ROOT" if self.plugin_root.is_some() => {
                Ok(self.plugin_root.clone().unwrap_or_default())
            }
            "HOME" if self.home.is_some() => Ok(self.home.clone().unwrap_or_default()),
            "PWD" if sh.dirs.len() == 1 && sh.dir_unknown.is_none() => {
                Ok(sh.dirs[0].to_string_lossy().into_owned())
            }
            _ => Err(format!("`${name}` is not set in the command")),
        }
    }

    /// Scans shell text run by a shell in state `sh` (its own variables: see [`Self::nested`]).
    fn shell_text(&mut self, text: &str, sh: &mut Shell) {
        let commands = lex::lex(text);
        self.functions.extend(follow::function_names(text));
        let assigned = prepass(&commands, self, sh);
        for (index, cmd) in commands.iter().enumerate() {
            self.simple(&commands, index, cmd, sh, &assigned);
        }
    }

    /// Scans text run by a new shell started from `sh` (`sh -c`, a heredoc fed to `bash`):
    /// it sees only exported variables.
    fn nested(&mut self, text: &str, sh: &Shell, input: &Input, fragment: &str) {
        if sh.depth >= MAX_NESTING {
            self.unhashed(
                fragment,
                format!("nested more than {MAX_NESTING} levels deep"),
            );
            return;
        }
        let mut inner = sh.clone();
        inner.depth += 1;
        inner.stdin = input.clone();
        // A new shell has its own `$0` (`sh -c` sets it to `sh`) and reads no file.
        inner.script = None;
        for var in inner.vars.values_mut() {
            if let Var::Value {
                exported: false, ..
            } = var
            {
                *var = Var::Unknown("a variable of the outer shell that is not exported".into());
            }
        }
        self.shell_text(text, &mut inner);
    }

    fn simple(
        &mut self,
        all: &[Simple],
        index: usize,
        cmd: &Simple,
        sh: &mut Shell,
        assigned: &HashMap<String, Result<String, String>>,
    ) {
        if cmd.pattern {
            // A `case` pattern is matched against, not run; a substitution in it runs.
            for word in &cmd.words {
                self.substitutions(word, sh, &cmd.raw);
            }
            return;
        }
        let before = sh.clone();
        self.simple_inner(all, index, cmd, sh, assigned);
        // After the command's own scan, so that the files it runs keep their order.
        self.mentioned_in(cmd, &before);
    }

    /// The catch-all ([`Scan::mentioned`]) over a command's words, input redirections,
    /// here-strings and quoted heredocs.
    fn mentioned_in(&mut self, cmd: &Simple, sh: &Shell) {
        let fragment = cmd.raw.as_str();
        let words = cmd.words.iter().chain(
            cmd.redirects
                .iter()
                .filter(|r| matches!(r.op, Op::In | Op::HereString))
                .map(|r| &r.target),
        );
        for word in words {
            if let Ok(text) = self.resolve(word, sh) {
                self.mentioned(&text, sh, fragment);
            } else if let Some(text) = word.literal() {
                self.mentioned(&text, sh, fragment);
            } else {
                // Partly known (`--rc=$X`): its literal parts may still name files.
                for part in &word.parts {
                    if let Part::Lit(text) = part {
                        self.mentioned(text, sh, fragment);
                    }
                }
            }
        }
        for r in &cmd.redirects {
            if let Op::HereDoc { body, .. } = &r.op {
                self.mentioned(body, sh, fragment);
            }
        }
    }

    fn simple_inner(
        &mut self,
        all: &[Simple],
        index: usize,
        cmd: &Simple,
        sh: &mut Shell,
        assigned: &HashMap<String, Result<String, String>>,
    ) {
        let fragment = cmd.raw.as_str();
        // Substitutions run wherever they are.
        for word in cmd
            .words
            .iter()
            .chain(cmd.redirects.iter().map(|r| &r.target))
        {
            self.substitutions(word, sh, fragment);
        }
        for r in &cmd.redirects {
            if let Op::HereDoc {
                quoted: false,
                body,
            } = &r.op
            {
                self.substitutions(&lex::lex_expanding(body), sh, fragment);
            }
        }
        // Where stdin comes from, redirections applied in order.
        let mut input = match cmd.pipe_in {
            PipeIn::None => sh.stdin.clone(),
            PipeIn::From(i) => match all.get(i) {
                Some(producer) if i < index => self.produced(producer, sh),
                _ => Input::Opaque("it reads a pipe the scan cannot follow".into()),
            },
            PipeIn::Group => Input::Opaque(
                "it reads the output of a compound command, which is not followed".into(),
            ),
        };
        let mut fds = sh.fds.clone();
        for r in &cmd.redirects {
            let fd = r.fd.unwrap_or(if matches!(r.op, Op::Out | Op::DupOut) {
                1
            } else {
                0
            });
            let source = match &r.op {
                Op::In => Some(self.file_input(&r.target, sh)),
                Op::DupIn => Some(match r.target.literal().as_deref() {
                    Some("-") => Input::Nothing,
                    Some("0") => input.clone(),
                    Some(n) => match n.parse::<u32>().ok().and_then(|n| fds.get(&n)) {
                        Some(src) => src.clone(),
                        None => {
                            Input::Opaque(format!("descriptor {n} is not opened in the command"))
                        }
                    },
                    None => Input::Opaque(format!("`<&{}` is decided at run time", r.target.raw)),
                }),
                Op::HereDoc { quoted: true, body } => Some(Input::Text(body.clone())),
                Op::HereDoc {
                    quoted: false,
                    body,
                } => Some(match self.resolve(&lex::lex_expanding(body), sh) {
                    Ok(text) => Input::Text(text),
                    Err(why) => Input::Opaque(format!("the heredoc expands at run time: {why}")),
                }),
                Op::HereString => Some(match self.resolve(&r.target, sh) {
                    Ok(text) => Input::Text(text),
                    Err(why) => Input::Opaque(why),
                }),
                Op::Out | Op::DupOut => None,
            };
            if let Some(source) = source {
                if fd == 0 {
                    input = source;
                } else {
                    fds.insert(fd, source);
                }
            }
        }
        let mut local = sh.clone();
        local.fds = fds;
        // Leading reserved words and assignments.
        let (prefix, i) = split_prefix(&cmd.words);
        let words = &cmd.words[i..];
        let program = words.first().and_then(Word::literal);
        if words.is_empty() || program.as_deref() == Some("exec") && words.len() == 1 {
            // `X=1`, `exec 3<f`, `exec <f`: the shell itself changes.
            for word in &prefix {
                self.assignment(word, sh, assigned, false, fragment);
            }
            if !cmd.redirects.is_empty() && program.as_deref() == Some("exec") {
                sh.fds = local.fds;
                sh.stdin = input;
            }
            return;
        }
        for word in &prefix {
            self.assignment(word, &mut local, assigned, true, fragment);
        }
        // Builtins that change the shell itself.
        if let Some(
            "for" | "select" | "read" | "getopts" | "mapfile" | "readarray" | "printf" | "unset",
        ) = program.as_deref()
        {
            for name in words[1..].iter().filter_map(Word::literal) {
                if let Some(Err(why)) = assigned.get(&name) {
                    sh.vars.insert(name, Var::Unknown(why.clone()));
                }
            }
        }
        match program.as_deref() {
            Some("export" | "readonly" | "declare" | "typeset" | "local") => {
                let exported = program.as_deref() == Some("export")
                    || words[1..].iter().any(|w| {
                        w.literal()
                            .is_some_and(|l| l.starts_with('-') && l.contains('x'))
                    });
                for word in &words[1..] {
                    if is_assignment_word(word) {
                        self.assignment(word, sh, assigned, exported, fragment);
                    } else if exported
                        && let Some(name) = word.literal()
                        && let Some(Var::Value { exported, .. }) = sh.vars.get_mut(&name)
                    {
                        *exported = true;
                    }
                }
                return;
            }
            Some("cd" | "pushd" | "popd") => {
                self.change_dir(words, sh, fragment);
                return;
            }
            _ => {}
        }
        self.command(words, 0, fragment, &mut local, &input, Extra::None);
        if local.dir_unknown.is_some() && sh.dir_unknown.is_none() {
            sh.dir_unknown = local.dir_unknown;
        }
    }

    fn substitutions(&mut self, word: &Word, sh: &Shell, fragment: &str) {
        for part in &word.parts {
            if let Part::Subst(body) | Part::Proc(body) = part {
                let mut inner = sh.clone();
                if inner.depth >= MAX_NESTING {
                    self.unhashed(
                        fragment,
                        format!("nested more than {MAX_NESTING} levels deep"),
                    );
                    continue;
                }
                inner.depth += 1;
                self.shell_text(body, &mut inner);
            }
        }
    }

    /// `NAME=value` (in the shell, or for one command when `local`).
    fn assignment(
        &mut self,
        word: &Word,
        sh: &mut Shell,
        assigned: &HashMap<String, Result<String, String>>,
        exported: bool,
        fragment: &str,
    ) {
        let Some(Part::Lit(first)) = word.parts.first() else {
            return;
        };
        let Some((name, _)) = first.split_once('=') else {
            return;
        };
        let name = name.trim_end_matches('+');
        let value = word_after_equals(word);
        self.assign_env(name, &value, sh, fragment);
        let var = match (assigned.get(name), exported) {
            (Some(Ok(text)), _) => Var::Value {
                text: text.clone(),
                exported,
            },
            (Some(Err(why)), _) => Var::Unknown(why.clone()),
            // A command's own prefix (`X=1 cmd`) is not in the pre-pass: resolve it here.
            (None, _) => match self.resolve(&value, sh) {
                Ok(text) => Var::Value { text, exported },
                Err(why) => Var::Unknown(format!("`{name}` is set from a run-time value: {why}")),
            },
        };
        sh.vars.insert(name.to_owned(), var);
    }

    /// What setting `name` does to what programs load.
    fn assign_env(&mut self, name: &str, value: &Word, sh: &mut Shell, fragment: &str) {
        if name == "PATH" {
            sh.path_dirs.clear();
            let text = match self.resolve(value, sh) {
                Ok(text) => text,
                Err(_) => value.raw.replace("${PATH}", "$PATH"),
            };
            for dir in text.split(':') {
                if dir == "$PATH" || dir.is_empty() {
                    continue;
                }
                if dir.contains('$') || dir.contains('`') {
                    sh.path_dirs
                        .push(Err(format!("PATH gets `{dir}` at run time")));
                    continue;
                }
                for base in &sh.dirs {
                    let full = base.join(dir);
                    if full.starts_with(self.project) || !Path::new(dir).is_absolute() {
                        sh.path_dirs.push(Ok(full));
                    }
                }
            }
            return;
        }
        let Some((_, kind)) = CODE_ENV.iter().find(|(n, _)| *n == name) else {
            return;
        };
        let text = match self.resolve(value, sh) {
            Ok(text) => text,
            Err(why) => {
                self.unhashed(fragment, format!("{name} is set at run time ({why})"));
                return;
            }
        };
        if text.is_empty() {
            return;
        }
        match kind {
            EnvCode::Files => {
                for file in text.split([':', ' ']).filter(|f| !f.is_empty()) {
                    // A bare library name is looked up in the system's directories.
                    if file.contains('/') {
                        self.hash_code(file, sh, fragment);
                    } else {
                        self.hash(file, sh, fragment, false);
                    }
                    // `BASH_ENV=./env.sh`: what it sources too (a library is a binary).
                    self.follow_found(None, sh);
                }
            }
            EnvCode::Command => {
                let input = Input::Nothing;
                self.nested(&text, sh, &input, fragment);
            }
            EnvCode::Options(program) => {
                let mut words = vec![Word {
                    parts: vec![Part::Lit(program.to_string())],
                    raw: program.to_string(),
                }];
                words.extend(text.split_whitespace().map(|w| Word {
                    parts: vec![Part::Lit(w.to_owned())],
                    raw: w.to_owned(),
                }));
                words.push(Word {
                    parts: vec![Part::Lit("-e".into())],
                    raw: "-e".into(),
                });
                words.push(Word::default());
                let mut sh2 = sh.clone();
                self.command(&words, 0, fragment, &mut sh2, &Input::Nothing, Extra::None);
            }
            EnvCode::Opaque(why) => self.unhashed(fragment, format!("{name} is set: {why}")),
        }
    }

    fn change_dir(&mut self, words: &[Word], sh: &mut Shell, fragment: &str) {
        let target = words[1..]
            .iter()
            .find(|w| w.literal().is_none_or(|l| !l.starts_with('-') || l == "-"));
        let resolved = match (words[0].literal().as_deref(), target) {
            (Some("popd"), _) => Err("`popd` returns to a directory known at run time".to_owned()),
            (_, None) => Err("`cd` with no directory goes home".to_owned()),
            (_, Some(w)) => match self.resolve(w, sh) {
                Ok(dir) if dir == "-" => {
                    Err("`cd -` returns to a directory known at run time".into())
                }
                Ok(dir) => Ok(dir),
                Err(why) => Err(why),
            },
        };
        match resolved {
            Ok(dir) => {
                // A `cd` may be undone by a subshell's end: keep every directory it may be.
                let new: Vec<PathBuf> = sh.dirs.iter().map(|d| d.join(&dir)).collect();
                for d in new {
                    if !sh.dirs.contains(&d) {
                        sh.dirs.push(d);
                    }
                }
                if sh.dirs.len() > MAX_DIRS {
                    sh.dir_unknown.get_or_insert(format!(
                        "it may be in more than {MAX_DIRS} directories after its `cd`s"
                    ));
                }
            }
            Err(why) => {
                sh.dir_unknown
                    .get_or_insert(format!("`{}`: {why}", abbreviate(fragment)));
            }
        }
    }
}
