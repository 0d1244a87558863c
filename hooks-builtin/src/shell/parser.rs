//! The grammar: lists, pipelines, compound commands, redirections and here-documents.

use std::collections::VecDeque;
use std::rc::Rc;

use super::{
    Command, Function, MAX_DEPTH, MAX_LEN, Pipeline, Redirect, RedirectOp, Script, ShellError,
    Variable,
};

pub(super) type Result<T> = std::result::Result<T, ShellError>;

/// The positional parameters of a script, `$0` first, when they are known: the operands after
/// the script of `sh -c 'script' name arg…`. `None` at top level, where they are not.
pub(super) type Positional = Option<Rc<[String]>>;

/// Work allowed per input byte, across every re-parse of nested scripts and every reading.
/// A unit is about the cost of reading one byte. Each nesting level re-reads at most the input
/// once, so honest commands use a few units per byte; the bound stops inputs built to make
/// re-parsing explode (`bash -c "$(bash -c "$(…)")"` repeated, `eval eval eval …`).
const FUEL_PER_BYTE: usize = 8;
/// Work allowed on top, so short commands with a little nesting are never refused.
const FUEL_BASE: usize = 1 << 18;
/// The work charged for each command found: it bounds the size of the result, and so the work
/// of the guards that judge every command.
const COMMAND_COST: usize = 64;
/// The work charged for each argument of a command found, for the same reason: guards check
/// every operand (a path to resolve, a pattern to match).
const ARG_COST: usize = 16;

/// Where a redirection sits in the script: pipeline, stage and redirection index.
pub(super) type Slot = (usize, usize, usize);

/// What every parse of one command line adds to.
pub(super) struct Sink {
    pub(super) script: Script,
    tasks: VecDeque<Task>,
    fuel: usize,
    /// Names `hash -p PATH NAME` made run another program: NAME, and PATH.
    pub(super) hashed: Vec<(String, String)>,
    /// The statements that gave variables values so far ([`Variable::statement`]).
    statements: usize,
}

/// A script to parse after the current one: the text of `bash -c`, `eval`, a backquote, …
struct Task {
    source: Source,
    depth: usize,
    privileged: bool,
    dir: Option<String>,
    positional: Positional,
    /// Another reading of text already parsed (`((…))` read as subshells): a syntax error
    /// drops what it added instead of failing the whole parse.
    optional: bool,
}

/// How much of a [`Sink`] there was before an optional reading, to drop what it added.
struct Mark {
    pipelines: usize,
    functions: usize,
    variables: usize,
    tasks: usize,
}

/// True for the errors that say a text is not shell syntax, as opposed to the bounds.
fn is_syntax(e: &ShellError) -> bool {
    matches!(
        e,
        ShellError::Unterminated(_) | ShellError::Unexpected(_) | ShellError::Unsupported(_)
    )
}

/// Where a queued script's text is.
pub(super) enum Source {
    Text(String),
    /// The body of a here-document, known once the text that holds it is parsed.
    HereDoc(Slot),
}

impl Sink {
    /// A new statement id for [`Variable::statement`].
    fn next_statement(&mut self) -> usize {
        self.statements += 1;
        self.statements
    }

    pub(super) fn charge(&mut self, cost: usize) -> Result<()> {
        self.fuel = self.fuel.checked_sub(cost).ok_or(ShellError::TooComplex)?;
        Ok(())
    }

    /// The fuel left.
    pub(super) fn fuel(&self) -> usize {
        self.fuel
    }

    fn mark(&self) -> Mark {
        Mark {
            pipelines: self.script.pipelines.len(),
            functions: self.script.functions.len(),
            variables: self.script.variables.len(),
            tasks: self.tasks.len(),
        }
    }

    fn rollback(&mut self, mark: &Mark) {
        self.script.pipelines.truncate(mark.pipelines);
        self.script.functions.truncate(mark.functions);
        self.script.variables.truncate(mark.variables);
        self.tasks.truncate(mark.tasks);
    }

    fn redirect_mut(&mut self, (p, c, r): Slot) -> Option<&mut Redirect> {
        self.script
            .pipelines
            .get_mut(p)?
            .commands
            .get_mut(c)?
            .redirects
            .get_mut(r)
    }
}

pub(super) fn parse(src: &str) -> Result<Script> {
    if src.len() > MAX_LEN {
        return Err(ShellError::TooLong(src.len()));
    }
    let mut sink = Sink {
        script: Script::default(),
        tasks: VecDeque::new(),
        fuel: FUEL_PER_BYTE * src.len() + FUEL_BASE,
        hashed: Vec::new(),
        statements: 0,
    };
    run(src, &mut sink, 0, false, None, None)?;
    while let Some(task) = sink.tasks.pop_front() {
        let text = match task.source {
            Source::Text(text) => text,
            Source::HereDoc(slot) => sink
                .redirect_mut(slot)
                .map(|r| r.target.clone())
                .unwrap_or_default(),
        };
        let mark = task.optional.then(|| sink.mark());
        let (depth, privileged) = (task.depth, task.privileged);
        match run(
            &text,
            &mut sink,
            depth,
            privileged,
            task.dir,
            task.positional,
        ) {
            Err(e) if is_syntax(&e) && mark.is_some() => {
                if let Some(mark) = &mark {
                    sink.rollback(mark);
                }
            }
            result => result?,
        }
    }
    sink.script.pipelines.retain(|p| !p.commands.is_empty());
    Ok(sink.script)
}

/// Parses one script (the command line, or a nested one) into `sink`.
fn run(
    text: &str,
    sink: &mut Sink,
    depth: usize,
    privileged: bool,
    dir: Option<String>,
    positional: Positional,
) -> Result<()> {
    sink.charge(text.len())?;
    let mut parser = Parser {
        src: text,
        pos: 0,
        depth,
        privileged,
        dir,
        positional,
        sink,
        heredocs: Vec::new(),
        xargs_heredocs: Vec::new(),
        do_depth: 0,
        loop_stage: false,
        loop_feed: Vec::new(),
    };
    parser.list(End::Eof)?;
    // A here-document still open at the end of the input is empty, as in bash.
    parser.read_heredocs()
}

/// The texts of the `$(…)` and backquoted substitutions in `text`, outermost ones, as written.
fn substitutions_in(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'`' {
            let Some(len) = text[at + 1..].find('`') else {
                break;
            };
            found.push(text[at + 1..at + 1 + len].to_owned());
            at += len + 2;
        } else if bytes[at..].starts_with(b"$(") && !bytes[at..].starts_with(b"$((") {
            let mut depth = 0usize;
            let start = at + 2;
            let mut end = None;
            for (i, b) in bytes.iter().enumerate().skip(start) {
                match b {
                    b'(' => depth += 1,
                    b')' if depth == 0 => {
                        end = Some(i);
                        break;
                    }
                    b')' => depth -= 1,
                    _ => {}
                }
            }
            let Some(end) = end else {
                break;
            };
            found.push(text[start..end].to_owned());
            at = end + 1;
        } else {
            at += 1;
        }
    }
    found
}

/// A parse of one script text.
pub(super) struct Parser<'a, 's> {
    pub(super) src: &'a str,
    pub(super) pos: usize,
    /// Nesting level: of the script (0 for the command line) plus the constructs entered.
    pub(super) depth: usize,
    /// The script runs as another user (`sudo bash -c '…'`).
    pub(super) privileged: bool,
    /// Where the next command runs, when a `cd` before it changed that (see [`Command::dir`]).
    pub(super) dir: Option<String>,
    /// The positional parameters (`$1`), when known.
    pub(super) positional: Positional,
    pub(super) sink: &'s mut Sink,
    /// Here-documents whose body starts after the next newline.
    heredocs: Vec<HereDoc>,
    /// `xargs` commands whose input is a here-document not read yet: what they run is known
    /// once it is ([`Parser::read_heredocs`]).
    pub(super) xargs_heredocs: Vec<XargsHereDoc>,
    /// How many `do … done` bodies the cursor is in.
    do_depth: usize,
    /// The last stage started with `while` or `until`.
    loop_stage: bool,
    /// A loop that a pipe feeds (`echo x | while read l; do sh; done`): the stage that feeds
    /// it, and the `do` depth of its body. Its body's commands read what is left of that
    /// input, so each body pipeline starts with a copy of the feeding stage.
    loop_feed: Vec<(Command, usize)>,
}

/// What a program that takes its items from a here-document does with them.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ItemsFor {
    /// `xargs`: adds them to its command.
    Xargs,
    /// `parallel`: runs its command with each line.
    Parallel,
    /// `crontab -`: installs each entry's command.
    Crontab,
}

/// An `xargs` (or `parallel`, `crontab -`) command reading a here-document (`xargs rm <<EOF`,
/// `cat <<EOF | xargs rm`).
pub(super) struct XargsHereDoc {
    pub(super) input: Slot,
    pub(super) reads: ItemsFor,
    pub(super) args: Vec<String>,
    pub(super) privileged: bool,
    pub(super) dir: Option<String>,
}

struct HereDoc {
    delimiter: String,
    strip_tabs: bool,
    /// The delimiter is unquoted, so the body's substitutions run (`$(…)`, backquotes).
    expands: bool,
    slot: Slot,
}

/// What closes a list.
#[derive(Clone, Copy, PartialEq, Eq)]
enum End {
    Eof,
    Paren,
    Brace,
    Case,
}

/// Reserved words that open or close a construct whose commands are parsed like any others
/// (`if x; then y; fi` runs `x` and `y`).
const TRANSPARENT: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!",
];

/// Reserved words that start a compound command, after which `time` and `coproc` are reserved
/// words too.
const COMPOUND: &[&str] = &[
    "{", "[[", "if", "while", "until", "for", "select", "case", "function", "!", "time", "coproc",
];

pub(super) fn is_meta(b: u8) -> bool {
    b" \t\r\n|&;<>()".contains(&b)
}

impl<'a> Parser<'a, '_> {
    pub(super) fn rest(&self) -> &'a [u8] {
        self.src.as_bytes().get(self.pos..).unwrap_or_default()
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.rest().first().copied()
    }

    pub(super) fn peek_at(&self, n: usize) -> Option<u8> {
        self.rest().get(n).copied()
    }

    pub(super) fn starts(&self, s: &str) -> bool {
        self.rest().starts_with(s.as_bytes())
    }

    /// The source text from `start` to the current position.
    pub(super) fn since(&self, start: usize) -> &'a str {
        self.src.get(start..self.pos).unwrap_or_default()
    }

    /// True when `word` is next, unquoted and complete (`}` in `};`, not in `}x`).
    fn keyword_ahead(&self, word: &str) -> bool {
        self.starts(word) && self.peek_at(word.len()).is_none_or(is_meta)
    }

    pub(super) fn unexpected(&self) -> ShellError {
        let token: String = self
            .src
            .get(self.pos..)
            .unwrap_or_default()
            .chars()
            .take_while(|c| !c.is_whitespace())
            .take(16)
            .collect();
        match self.peek() {
            None => ShellError::Unexpected("end of input".into()),
            Some(b'\n') => ShellError::Unexpected("newline".into()),
            Some(_) => ShellError::Unexpected(token),
        }
    }

    fn expect(&mut self, b: u8) -> Result<()> {
        if self.peek() != Some(b) {
            return Err(self.unexpected());
        }
        self.pos += 1;
        Ok(())
    }

    /// Runs `f` one nesting level deeper.
    pub(super) fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if self.depth >= MAX_DEPTH {
            return Err(ShellError::TooDeep);
        }
        self.depth += 1;
        let result = f(self);
        self.depth -= 1;
        result
    }

    /// Queues `source` to be parsed as a script one level deeper.
    pub(super) fn queue(&mut self, source: Source, privileged: bool) -> Result<()> {
        let dir = self.dir.clone();
        self.queue_task(source, privileged, dir, false)
    }

    /// Queues `text`, another reading of text just parsed (`((…))` as subshells), to be parsed
    /// one level deeper; if it is not shell syntax, it is not a reading and adds nothing.
    pub(super) fn queue_reading(&mut self, text: String) -> Result<()> {
        let dir = self.dir.clone();
        self.queue_task(Source::Text(text), self.privileged, dir, true)
    }

    /// Queues `source`, to run in `dir`, one level deeper, with the same positional
    /// parameters.
    pub(super) fn queue_task(
        &mut self,
        source: Source,
        privileged: bool,
        dir: Option<String>,
        optional: bool,
    ) -> Result<()> {
        let positional = self.positional.clone();
        self.queue_script(source, privileged, dir, optional, positional)
    }

    /// Queues `source`, to run in `dir` with the positional parameters `positional`, one level
    /// deeper.
    pub(super) fn queue_script(
        &mut self,
        source: Source,
        privileged: bool,
        dir: Option<String>,
        optional: bool,
        positional: Positional,
    ) -> Result<()> {
        if self.depth >= MAX_DEPTH {
            return Err(ShellError::TooDeep);
        }
        self.sink.charge(dir.as_ref().map_or(0, String::len))?;
        self.sink.tasks.push_back(Task {
            source,
            dir,
            depth: self.depth + 1,
            privileged,
            positional,
            optional,
        });
        Ok(())
    }

    /// Runs `f` in a subshell, where a `cd` does not outlast it.
    pub(super) fn subshell_scope<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        self.sink.charge(self.dir.as_ref().map_or(0, String::len))?;
        let dir = self.dir.clone();
        let result = self.nested(f);
        self.dir = dir;
        result
    }

    /// A command with no words yet, running where the parser is.
    pub(super) fn blank_command(&self) -> Command {
        Command {
            privileged: self.privileged,
            dir: self.dir.clone(),
            ..Command::default()
        }
    }

    /// Skips blanks, escaped newlines and comments, but not newlines.
    pub(super) fn skip_blank(&mut self) {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\r') => self.pos += 1,
                Some(b'\\') if self.peek_at(1) == Some(b'\n') => self.pos += 2,
                Some(b'#') => {
                    let rest = self.rest();
                    self.pos += rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                }
                _ => return,
            }
        }
    }

    /// Skips blanks and newlines, reading the bodies of pending here-documents.
    pub(super) fn skip_space(&mut self) -> Result<()> {
        loop {
            self.skip_blank();
            if self.peek() != Some(b'\n') {
                return Ok(());
            }
            self.newline()?;
        }
    }

    fn newline(&mut self) -> Result<()> {
        self.pos += 1;
        self.read_heredocs()
    }

    fn read_heredocs(&mut self) -> Result<()> {
        for doc in std::mem::take(&mut self.heredocs) {
            let start = self.pos;
            let (body, end) = self.heredoc_body(&doc);
            if doc.expands {
                let after = self.pos;
                self.pos = start;
                self.heredoc_substitutions(end)?;
                self.pos = after;
            }
            let redirect = self
                .sink
                .redirect_mut(doc.slot)
                .ok_or(ShellError::Unsupported(
                    "a here-document whose body starts inside its own command",
                ))?;
            redirect.target = body;
        }
        for xargs in std::mem::take(&mut self.xargs_heredocs) {
            let input = (self.sink.redirect_mut(xargs.input))
                .map(|r| r.target.clone())
                .unwrap_or_default();
            self.xargs_runs_of(&xargs, &input)?;
        }
        Ok(())
    }

    /// The body of `doc`, which starts at the cursor, and where it ends; the cursor moves past
    /// the delimiter line.
    fn heredoc_body(&mut self, doc: &HereDoc) -> (String, usize) {
        let mut body = String::new();
        while let Some(rest) = self.src.get(self.pos..).filter(|r| !r.is_empty()) {
            let end = self.pos;
            let line = rest.split('\n').next().unwrap_or_default();
            self.pos += (line.len() + 1).min(rest.len());
            let line = if doc.strip_tabs {
                line.trim_start_matches('\t')
            } else {
                line
            };
            if line.trim_end_matches('\r') == doc.delimiter {
                return (body, end);
            }
            body.push_str(line);
            body.push('\n');
        }
        (body, self.pos)
    }

    /// Parses the substitutions of an expanding here-document body, from the cursor to `end`
    /// (`cat <<EOF` runs the `$(…)` and backquotes in its body, as in a double-quoted string).
    fn heredoc_substitutions(&mut self, end: usize) -> Result<()> {
        let mut scratch = Vec::new();
        while self.pos < end {
            match self.peek() {
                Some(b'\\') => self.pos = (self.pos + 2).min(end),
                Some(b'$') => self.dollar(&mut scratch, true)?,
                Some(b'`') => self.backtick(&mut scratch, true)?,
                _ => self.pos += 1,
            }
            scratch.clear();
        }
        if self.pos > end {
            return Err(ShellError::Unterminated("substitution in a here-document"));
        }
        Ok(())
    }

    fn at_end(&self, end: End) -> Result<bool> {
        if self.peek().is_none() {
            return match end {
                End::Eof => Ok(true),
                End::Paren => Err(ShellError::Unterminated("`(`")),
                End::Brace => Err(ShellError::Unterminated("`{`")),
                End::Case => Err(ShellError::Unterminated("`case`")),
            };
        }
        Ok(match end {
            End::Eof => false,
            End::Paren => self.peek() == Some(b')'),
            End::Brace => self.keyword_ahead("}"),
            End::Case => self.starts(";;") || self.starts(";&") || self.keyword_ahead("esac"),
        })
    }

    /// Commands separated by `;`, `&` or newlines, up to `end` (not consumed).
    fn list(&mut self, end: End) -> Result<()> {
        loop {
            self.skip_space()?;
            if self.at_end(end)? {
                return Ok(());
            }
            self.and_or()?;
            self.skip_blank();
            match self.peek() {
                Some(b';') if !matches!(self.peek_at(1), Some(b';' | b'&')) => self.pos += 1,
                Some(b'&') => self.pos += 1,
                Some(b'\n') => self.newline()?,
                _ if self.at_end(end)? => return Ok(()),
                _ => return Err(self.unexpected()),
            }
        }
    }

    /// A list closed by `)`, which is left for the caller.
    pub(super) fn list_to_paren(&mut self) -> Result<()> {
        self.list(End::Paren)
    }

    fn and_or(&mut self) -> Result<()> {
        loop {
            self.pipeline()?;
            self.skip_blank();
            if !(self.starts("&&") || self.starts("||")) {
                return Ok(());
            }
            self.pos += 2;
            self.skip_space()?;
        }
    }

    fn pipeline(&mut self) -> Result<()> {
        let pi = self.sink.script.pipelines.len();
        self.sink.script.pipelines.push(Pipeline::default());
        let mut stage = 0;
        loop {
            let (inner, stages) = (self.sink.script.pipelines.len(), self.stage_count(pi));
            self.loop_stage = false;
            self.command(pi)?;
            if self.loop_stage
                && stage > 0
                && let Some(feeder) = stages
                    .checked_sub(1)
                    .and_then(|at| self.sink.script.pipelines.get(pi)?.commands.get(at))
            {
                let feeder = feeder.clone();
                self.loop_feed.push((feeder, self.do_depth + 1));
            }
            self.skip_blank();
            let piped = self.peek() == Some(b'|') && !self.starts("||");
            // A compound stage adds pipelines of its own, and to this one at most a command
            // for its trailing redirections (`( … ) 2>&1`).
            let compound = self.sink.script.pipelines.len() > inner
                && (self.sink.script.pipelines.get(pi))
                    .and_then(|p| p.commands.get(stages..))
                    .is_some_and(|added| added.iter().all(|c| c.program.is_empty()));
            if compound {
                self.compound_stage(pi, inner, stage > 0, piped)?;
            }
            if !piped {
                break;
            }
            stage += 1;
            self.pos += if self.starts("|&") { 2 } else { 1 };
            self.skip_space()?;
        }
        self.stdin_scripts(pi)
    }

    /// A compound stage (`( … )`, `{ …; }`, a loop) of pipeline `pi`, whose commands are the
    /// pipelines from `inner` on: the ones that read its input (the first of each pipeline)
    /// when something pipes into it, and the ones that write its output (the last of each)
    /// when it pipes into something, become stages of `pi` too, so the pipeline is judged as
    /// it runs (`echo 'rm -rf /' | (sh)` as `echo 'rm -rf /' | sh`, `(curl …) | sh` as
    /// `curl … | sh`). They are still judged where they are as well.
    fn compound_stage(&mut self, pi: usize, inner: usize, fed: bool, piped: bool) -> Result<()> {
        let inside = self.sink.script.pipelines.get(inner..).unwrap_or_default();
        let mut stages: Vec<Command> = Vec::new();
        if fed {
            // Builtins that read nothing (`cd sub && bash`) leave the input to what follows.
            const NO_INPUT: &[&str] = &[
                "cd", "pushd", "popd", "set", "export", "unset", "shopt", "umask", "true", ":",
            ];
            let readers = inside.iter().filter_map(|p| p.commands.first());
            stages.extend(
                readers
                    .filter(|c| !NO_INPUT.contains(&c.program.as_str()))
                    .cloned(),
            );
        }
        if piped {
            let writers: Vec<&Command> = inside.iter().filter_map(|p| p.commands.last()).collect();
            match writers[..] {
                // A pipeline of one command is both reader and writer; once is enough.
                [_] if fed && inside.iter().all(|p| p.commands.len() == 1) => {}
                [writer] => stages.push(writer.clone()),
                [] => {}
                // What several commands write together is no one stage's output. When each
                // prints literal text, a `cat` of all of it in order stands for them
                // (`(echo 'rm -rf /'; echo) | sh`); else a `cat` of unknown input
                // (`(echo a; cat f) | sh` is not `echo a | sh`).
                _ => {
                    let literal: Option<String> = inside
                        .iter()
                        .map(|p| match &p.commands[..] {
                            [only] => super::resolve::literal_output(only),
                            _ => None,
                        })
                        .collect();
                    let redirects = literal.map_or_else(Vec::new, |text| {
                        vec![Redirect {
                            fd: None,
                            op: RedirectOp::HereString,
                            target: text,
                        }]
                    });
                    stages.push(Command {
                        program: "cat".to_owned(),
                        dir: self.dir.clone(),
                        redirects,
                        ..Command::default()
                    });
                }
            }
        }
        for command in stages {
            self.push(pi, command)?;
        }
        Ok(())
    }

    pub(super) fn new_pipeline(&mut self, command: Command) -> Result<usize> {
        let pi = self.sink.script.pipelines.len();
        self.sink.script.pipelines.push(Pipeline::default());
        self.push(pi, command)?;
        Ok(pi)
    }

    fn push(&mut self, pi: usize, command: Command) -> Result<()> {
        let dir = command.dir.as_ref().map_or(0, String::len);
        self.sink
            .charge(COMMAND_COST + dir + ARG_COST * command.args.len())?;
        if let Some(p) = self.sink.script.pipelines.get_mut(pi) {
            p.commands.push(command);
        }
        Ok(())
    }

    fn stage_count(&self, pi: usize) -> usize {
        self.sink
            .script
            .pipelines
            .get(pi)
            .map_or(0, |p| p.commands.len())
    }

    fn command(&mut self, pi: usize) -> Result<()> {
        let mut after_keyword = false;
        loop {
            self.skip_blank();
            let len = match TRANSPARENT.iter().find(|kw| self.keyword_ahead(kw)) {
                Some(kw) => {
                    match *kw {
                        "while" | "until" => self.loop_stage = true,
                        "do" => self.do_depth += 1,
                        "done" => {
                            self.do_depth = self.do_depth.saturating_sub(1);
                            let depth = self.do_depth;
                            self.loop_feed.retain(|(_, d)| *d <= depth);
                        }
                        _ => {}
                    }
                    kw.len()
                }
                None => match self.prefix_keyword() {
                    Some(len) => len,
                    None => break,
                },
            };
            self.pos += len;
            after_keyword = true;
        }
        // The first command of a pipeline in the body of a loop that a pipe feeds reads that
        // input: a copy of the feeding stage goes first (`… | while read l; do sh; done`).
        if self.stage_count(pi) == 0
            && let Some((feeder, _)) =
                (self.loop_feed.last()).filter(|(_, depth)| self.do_depth >= *depth)
        {
            let feeder = feeder.clone();
            self.push(pi, feeder)?;
        }
        if self.peek() == Some(b'(') {
            self.subshell(pi)
        } else if self.keyword_ahead("{") {
            self.group(pi)
        } else if self.keyword_ahead("for") || self.keyword_ahead("select") {
            self.for_loop()
        } else if self.keyword_ahead("case") {
            self.case(pi)
        } else if self.keyword_ahead("function") {
            self.function_keyword(pi)
        } else if self.keyword_ahead("[[") {
            self.condition(pi)
        } else {
            self.simple(pi, after_keyword)
        }
    }

    /// The length of `time [-p]` or `coproc [NAME]` at the cursor when a compound command
    /// follows (`time { …; }`, `coproc ( … )`), where they are reserved words; before a simple
    /// command they are read as wrappers (`time -f %e cmd` is `/usr/bin/time` in `sh`).
    fn prefix_keyword(&self) -> Option<usize> {
        let blanks = |at: usize| {
            at + self
                .rest()
                .get(at..)
                .unwrap_or_default()
                .iter()
                .take_while(|b| matches!(b, b' ' | b'\t'))
                .count()
        };
        let word_at = |at: usize, word: &str| {
            let rest = self.rest().get(at..).unwrap_or_default();
            rest.starts_with(word.as_bytes()) && rest.get(word.len()).is_none_or(|b| is_meta(*b))
        };
        let at = if self.keyword_ahead("time") {
            let at = blanks(4);
            if word_at(at, "-p") {
                blanks(at + 2)
            } else {
                at
            }
        } else if self.keyword_ahead("coproc") {
            let at = blanks(6);
            let name = self
                .rest()
                .get(at..)
                .unwrap_or_default()
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
            let after = blanks(at + name);
            if name > 0 && after > at + name && !COMPOUND.iter().any(|kw| word_at(at, kw)) {
                after
            } else {
                at
            }
        } else {
            return None;
        };
        let compound =
            self.rest().get(at) == Some(&b'(') || COMPOUND.iter().any(|kw| word_at(at, kw));
        compound.then_some(at)
    }

    /// `( list )`, or the arithmetic command `(( expr ))`, which `sh` (dash) reads as two
    /// subshells: both readings are parsed.
    fn subshell(&mut self, pi: usize) -> Result<()> {
        if self.starts("((") && self.arith_ahead()? {
            let start = self.pos + 2;
            self.arith()?;
            let inner = self.src.get(start..self.pos - 2).unwrap_or_default();
            self.queue_reading(format!("( ({inner}) )"))?;
        } else {
            self.pos += 1;
            self.subshell_scope(|p| p.list(End::Paren))?;
            self.pos += 1;
        }
        self.trailing_redirects(pi)
    }

    fn group(&mut self, pi: usize) -> Result<()> {
        self.pos += 1;
        self.nested(|p| p.list(End::Brace))?;
        self.pos += 1;
        self.trailing_redirects(pi)
    }

    /// True when the `((` at the cursor opens an arithmetic expression that closes with `))`,
    /// and not two subshells (`((a); (b))`), as bash decides.
    pub(super) fn arith_ahead(&mut self) -> Result<bool> {
        let rest = self.rest();
        let mut level = 0usize;
        for (i, &b) in rest.iter().enumerate().skip(2) {
            match b {
                b'(' => level += 1,
                b')' if level > 0 => level -= 1,
                b')' => {
                    self.sink.charge(i)?;
                    return Ok(rest.get(i + 1) == Some(&b')'));
                }
                _ => {}
            }
        }
        self.sink.charge(rest.len())?;
        Ok(false)
    }

    /// Consumes `(( expr ))`, parsing the substitutions in it.
    pub(super) fn arith(&mut self) -> Result<()> {
        self.pos += 2;
        let mut scratch = Vec::new();
        self.nested(|p| {
            let mut level = 0usize;
            loop {
                match p.peek() {
                    None => return Err(ShellError::Unterminated("`((`")),
                    Some(b'(') => level += 1,
                    Some(b')') if level > 0 => level -= 1,
                    Some(b')') if p.peek_at(1) == Some(b')') => {
                        p.pos += 2;
                        return Ok(());
                    }
                    Some(b')') => return Err(p.unexpected()),
                    Some(b'$') => {
                        p.dollar(&mut scratch, true)?;
                        continue;
                    }
                    Some(b'`') => {
                        p.backtick(&mut scratch, true)?;
                        continue;
                    }
                    Some(_) => {
                        p.literal(&mut scratch);
                        continue;
                    }
                }
                p.pos += 1;
            }
        })
    }

    /// `for NAME in WORDS` or `for ((…))`; the body follows as ordinary commands.
    fn for_loop(&mut self) -> Result<()> {
        self.pos += if self.starts("for") { 3 } else { 6 };
        self.skip_blank();
        if self.starts("((") {
            if !self.arith_ahead()? {
                return Err(self.unexpected());
            }
            return self.arith();
        }
        let name = self.word()?.ok_or_else(|| self.unexpected())?.text;
        let statement = self.sink.next_statement();
        self.skip_blank();
        if self.keyword_ahead("in") {
            self.pos += 2;
            loop {
                self.skip_blank();
                let Some(word) = self.word()? else {
                    return Ok(());
                };
                self.sink.script.variables.push(Variable {
                    name: name.clone(),
                    value: word.text,
                    statement,
                });
            }
        }
        Ok(())
    }

    /// Records the `NAME=value` words among `words` in [`Script::variables`] (`NAME+=value`
    /// and `a[0]=value` too, under `NAME` and `a`).
    fn record_variables<'w>(&mut self, words: impl Iterator<Item = &'w str>) -> Result<()> {
        for word in words {
            let Some((name, value)) = word.split_once('=') else {
                continue;
            };
            let appends = name.ends_with('+');
            let name = name.trim_end_matches('+');
            let name = name.split_once('[').map_or(name, |(array, _)| array);
            let valid = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
            if !valid {
                continue;
            }
            // `X+=v` appends to the value X has (the last one given).
            let before = appends
                .then(|| (self.sink.script.variables.iter().rev()).find(|v| v.name == name))
                .flatten()
                .map_or("", |v| v.value.as_str());
            let value = format!("{before}{value}");
            // What is kept is paid for, as parsed text is (`X+=…` thousands of times).
            self.sink.charge(value.len())?;
            let statement = self.sink.next_statement();
            (self.sink.script.variables).push(Variable {
                name: name.to_owned(),
                value,
                statement,
            });
        }
        Ok(())
    }

    /// Parses the values of `deferred` assignment words ([`Word::deferred`]) as scripts: a
    /// value that holds a command substitution kept from running at the assignment
    /// (`x='$(cmd)'`) runs it wherever bash expands the value again: as a prompt (`${x@P}`,
    /// `PS4` under `set -x`), in arithmetic (`(( x ))` with `x='a[$(cmd)]'`), in `eval`. A
    /// syntax error there drops the reading.
    fn deferred_values(&mut self, deferred: &[String]) -> Result<()> {
        for word in deferred {
            let Some((_, value)) = word.split_once('=') else {
                continue;
            };
            // The value whole, and each substitution in it alone: text around one that does
            // not parse (`x='$(cmd)"'`) must not drop it.
            let source = Source::Text(value.to_owned());
            self.queue_task(source, self.privileged, self.dir.clone(), true)?;
            for inner in substitutions_in(value) {
                self.queue_task(Source::Text(inner), self.privileged, self.dir.clone(), true)?;
            }
        }
        Ok(())
    }

    fn case(&mut self, pi: usize) -> Result<()> {
        self.pos += 4;
        self.skip_blank();
        self.word()?.ok_or_else(|| self.unexpected())?;
        self.skip_space()?;
        if !self.keyword_ahead("in") {
            return Err(self.unexpected());
        }
        self.pos += 2;
        self.nested(|p| {
            loop {
                p.skip_space()?;
                if p.keyword_ahead("esac") {
                    p.pos += 4;
                    return Ok(());
                }
                if p.peek() == Some(b'(') {
                    p.pos += 1;
                }
                loop {
                    p.skip_blank();
                    p.word()?.ok_or_else(|| p.unexpected())?;
                    p.skip_blank();
                    match p.peek() {
                        Some(b'|') => p.pos += 1,
                        Some(b')') => break,
                        _ => return Err(p.unexpected()),
                    }
                }
                p.pos += 1;
                p.list(End::Case)?;
                if let Some(t) = [";;&", ";;", ";&"].iter().find(|t| p.starts(t)) {
                    p.pos += t.len();
                }
            }
        })?;
        self.trailing_redirects(pi)
    }

    fn function_keyword(&mut self, pi: usize) -> Result<()> {
        self.pos += "function".len();
        self.skip_blank();
        let name = self.word()?.ok_or_else(|| self.unexpected())?.text;
        self.skip_blank();
        if self.peek() == Some(b'(') {
            self.pos += 1;
            self.skip_blank();
            self.expect(b')')?;
        }
        self.function_body(pi, name)
    }

    fn function_body(&mut self, pi: usize, name: String) -> Result<()> {
        self.skip_space()?;
        let first = self.sink.script.pipelines.len();
        if self.peek() == Some(b'(') {
            self.subshell(pi)?;
        } else if self.keyword_ahead("{") {
            self.group(pi)?;
        } else {
            return Err(self.unexpected());
        }
        let calls = self.sink.script.pipelines[first..]
            .iter()
            .flat_map(|p| &p.commands)
            .map(|c| c.program.clone())
            .collect();
        self.sink.script.functions.push(Function { name, calls });
        Ok(())
    }

    /// `[[ … ]]`, whose operators (`<`, `&&`, `(`) are words of the test, not shell syntax.
    /// `sh` (dash) has no `[[`: it runs a command named `[[`, so `[[ x && rm -rf / ]]` runs
    /// `rm`. That reading is parsed too.
    fn condition(&mut self, pi: usize) -> Result<()> {
        let start = self.pos;
        self.pos += 2;
        let mut args = Vec::new();
        loop {
            self.skip_space()?;
            if self.keyword_ahead("]]") {
                self.pos += 2;
                break;
            }
            let word = self
                .word_in(true)?
                .ok_or(ShellError::Unterminated("`[[`"))?;
            args.push(word.text);
        }
        let command = Command {
            program: "[[".into(),
            args,
            ..self.blank_command()
        };
        self.push(pi, command)?;
        self.queue_reading(format!("\\{}", self.since(start)))?;
        self.trailing_redirects(pi)
    }

    /// Redirections after a compound command (`done < list`, `} > log`), kept as a command
    /// with no program so guards see where it writes.
    fn trailing_redirects(&mut self, pi: usize) -> Result<()> {
        let ci = self.stage_count(pi);
        let mut redirects = Vec::new();
        loop {
            self.skip_blank();
            match self.redirect((pi, ci, redirects.len()))? {
                Some(r) => redirects.push(r),
                None => break,
            }
        }
        if redirects.is_empty() {
            return Ok(());
        }
        let command = Command {
            redirects,
            ..self.blank_command()
        };
        self.push(pi, command)
    }

    fn simple(&mut self, pi: usize, after_keyword: bool) -> Result<()> {
        let ci = self.stage_count(pi);
        let (mut words, mut redirects, mut assigned) = (Vec::new(), Vec::new(), false);
        let mut assignments = Vec::new();
        let mut deferred = Vec::new();
        let mut recordable = Vec::new();
        let mut braces: Vec<(usize, Vec<usize>)> = Vec::new();
        loop {
            self.skip_blank();
            if let Some(r) = self.redirect((pi, ci, redirects.len()))? {
                redirects.push(r);
                continue;
            }
            match self.peek() {
                None | Some(b'\n' | b';' | b'&' | b'|' | b')') => break,
                Some(b'(') if words.len() == 1 && redirects.is_empty() && !assigned => {
                    self.pos += 1;
                    self.skip_blank();
                    self.expect(b')')?;
                    let name = words.pop().unwrap_or_default();
                    return self.function_body(pi, name);
                }
                Some(b'(') => return Err(self.unexpected()),
                Some(_) => {}
            }
            let word = self.word()?.ok_or_else(|| self.unexpected())?;
            if word.deferred && word.text.contains('=') {
                deferred.push(word.text.clone());
            }
            if words.is_empty() && word.assign {
                assigned = true;
                if !word.unexpanded {
                    recordable.push(word.text.clone());
                }
                assignments.push(word.text);
            } else {
                if !word.braces.is_empty() {
                    braces.push((words.len(), word.braces));
                }
                words.push(word.text);
            }
        }
        // `X=1 cmd $X` sets X for cmd only, after `$X` is expanded: only a bare assignment
        // gives later words its value.
        if words.is_empty() {
            self.record_variables(recordable.iter().map(String::as_str))?;
            self.deferred_values(&deferred)?;
        }
        if words.is_empty() && redirects.is_empty() {
            return if assigned || after_keyword {
                Ok(())
            } else {
                Err(self.unexpected())
            };
        }
        let expanded = self.brace_reading(&words, &braces)?;
        let words = self.put_positional(&words)?.unwrap_or(words);
        let mut command = self.resolve(words, redirects, self.privileged)?;
        if matches!(
            command.program.as_str(),
            "export" | "declare" | "local" | "readonly" | "typeset"
        ) {
            self.record_variables(command.args.iter().map(String::as_str))?;
            self.deferred_values(&deferred)?;
        }
        command.assignments.splice(0..0, assignments);
        // `hash -p /bin/rm ls` makes `ls` run `/bin/rm` from then on.
        if command.program == "hash"
            && let Some(at) = command.args.iter().position(|a| a == "-p")
            && let Some(path) = command.args.get(at + 1)
        {
            for name in command.args[at + 2..]
                .iter()
                .filter(|a| !a.starts_with('-'))
            {
                self.sink.hashed.push((name.clone(), path.clone()));
            }
        }
        if matches!(command.program.as_str(), "cd" | "pushd") {
            // An empty CDPATH searches nothing.
            let cdpath = (command.assignments.iter()).any(|a| {
                a.split_once('=')
                    .is_some_and(|(n, v)| n == "CDPATH" && !v.is_empty())
            }) || (self.sink.script.variables.iter())
                .any(|v| v.name == "CDPATH" && !v.value.is_empty());
            self.change_dir(&command.args, cdpath);
        }
        self.exported_functions(&command)?;
        self.subscript_substitutions(&command)?;
        self.push(pi, command)?;
        if let Some(words) = expanded {
            let command = self.resolve(words, Vec::new(), self.privileged)?;
            self.new_pipeline(command)?;
        }
        Ok(())
    }

    /// Bash imports a variable `BASH_FUNC_NAME%%='() { body; }'` in its environment as the
    /// function NAME, which then runs in place of the program of that name (`env
    /// 'BASH_FUNC_ls%%=() { rm -rf /; }' bash -c ls`; only `env` and `sudo` can set such a
    /// name): such a body is parsed as a script.
    fn exported_functions(&mut self, command: &Command) -> Result<()> {
        let bodies: Vec<String> = (command.assignments.iter())
            .filter_map(|a| {
                let (name, value) = a.split_once('=')?;
                let body = value.trim_start().strip_prefix("()")?;
                name.starts_with("BASH_FUNC_").then(|| body.to_owned())
            })
            .collect();
        for body in bodies {
            let dir = command.dir.clone();
            self.queue_task(Source::Text(body), command.privileged, dir, false)?;
        }
        Ok(())
    }

    /// Builtins that take a variable name evaluate an array subscript in it as arithmetic,
    /// and bash runs the command substitutions there, quoted or not (`printf -v 'a[$(cmd)]'
    /// x`, `declare`, `test -v`, `read`, `unset`, `let`): those are parsed as scripts.
    fn subscript_substitutions(&mut self, command: &Command) -> Result<()> {
        const NAME_TAKERS: &[&str] = &[
            "printf",
            "declare",
            "typeset",
            "local",
            "readonly",
            "export",
            "test",
            "[",
            "[[",
            "unset",
            "read",
            "mapfile",
            "readarray",
            "let",
        ];
        if !NAME_TAKERS.contains(&command.program.as_str()) {
            return Ok(());
        }
        let mut scripts = Vec::new();
        for arg in &command.args {
            let Some(open) = arg.find('[') else {
                continue;
            };
            scripts.extend(substitutions_in(&arg[open..]));
        }
        for script in scripts {
            let dir = command.dir.clone();
            self.queue_task(Source::Text(script), command.privileged, dir, false)?;
        }
        Ok(())
    }

    /// The words of a simple command with the positional parameters put in (`$1` is `/` in
    /// `sh -c 'rm -rf "$1"' sh /`), when they are known and that changes them.
    fn put_positional(&mut self, words: &[String]) -> Result<Option<Vec<String>>> {
        let Some(params) = self.positional.clone() else {
            return Ok(None);
        };
        if !words.iter().any(|w| w.contains('$')) {
            return Ok(None);
        }
        let param = |n: usize| params.get(n).map_or("", String::as_str);
        let rest = params.get(1..).unwrap_or_default();
        let mut out = Vec::with_capacity(words.len());
        let mut changed = false;
        for word in words {
            if matches!(word.as_str(), "$@" | "$*" | "${@}" | "${*}") {
                out.extend(rest.iter().cloned());
                changed = true;
                continue;
            }
            let mut text = String::with_capacity(word.len());
            let mut rest_of = word.as_str();
            while let Some(at) = rest_of.find('$') {
                text.push_str(&rest_of[..at]);
                let after = &rest_of[at + 1..];
                let digit = |d: &u8| usize::from(d - b'0');
                let (value, skip) = match after.as_bytes() {
                    [d, ..] if d.is_ascii_digit() => (param(digit(d)).to_owned(), 1),
                    [b'{', d, b'}', ..] if d.is_ascii_digit() => (param(digit(d)).to_owned(), 3),
                    [b'@' | b'*', ..] => (rest.join(" "), 1),
                    [b'{', b'@' | b'*', b'}', ..] => (rest.join(" "), 3),
                    _ => {
                        text.push('$');
                        rest_of = after;
                        continue;
                    }
                };
                self.sink.charge(value.len() + skip + 1)?;
                text.push_str(&value);
                rest_of = &after[skip..];
                changed = true;
            }
            text.push_str(rest_of);
            out.push(text);
        }
        Ok(changed.then_some(out))
    }

    /// The words of a simple command after brace expansion (`{rm,-rf,/}` is `rm -rf /` in
    /// bash and zsh, and itself in `sh`), when it changes them. `braces` holds, for each word
    /// with unquoted brace characters, its index and their offsets.
    fn brace_reading(
        &mut self,
        words: &[String],
        braces: &[(usize, Vec<usize>)],
    ) -> Result<Option<Vec<String>>> {
        if braces.is_empty() {
            return Ok(None);
        }
        let mut expanded = Vec::with_capacity(words.len());
        let mut changed = false;
        let mut next = braces.iter().peekable();
        for (i, word) in words.iter().enumerate() {
            match next.next_if(|(at, _)| *at == i) {
                Some((_, active)) => {
                    let mut budget = self.sink.fuel();
                    let result = super::brace::expand(word, active, &mut budget);
                    self.sink.charge(self.sink.fuel() - budget)?;
                    match result? {
                        Some(words) => {
                            changed = true;
                            expanded.extend(words);
                        }
                        None => expanded.push(word.clone()),
                    }
                }
                None => expanded.push(word.clone()),
            }
        }
        self.sink.charge(expanded.len())?;
        Ok(changed.then_some(expanded))
    }

    /// A redirection at the cursor, if there is one. `slot` is where it will be stored, for a
    /// here-document's body.
    fn redirect(&mut self, slot: Slot) -> Result<Option<Redirect>> {
        const OPS: &[(&str, RedirectOp)] = &[
            ("<<<", RedirectOp::HereString),
            ("<<-", RedirectOp::HereDoc),
            ("<<", RedirectOp::HereDoc),
            ("<>", RedirectOp::ReadWrite),
            ("<&", RedirectOp::DupIn),
            (">>", RedirectOp::Append),
            (">|", RedirectOp::Out),
            (">&", RedirectOp::DupOut),
            ("&>>", RedirectOp::AppendErr),
            ("&>", RedirectOp::OutErr),
            ("<", RedirectOp::In),
            (">", RedirectOp::Out),
        ];
        let rest = self.rest();
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let after = rest.get(digits..).unwrap_or_default();
        let Some(&(text, op)) = OPS.iter().find(|(t, _)| after.starts_with(t.as_bytes())) else {
            return Ok(None);
        };
        let process_substitution = text.len() == 1 && after.get(1) == Some(&b'(');
        if process_substitution || (digits > 0 && text.starts_with('&')) {
            return Ok(None);
        }
        let fd = match digits {
            0 => None,
            _ => Some(
                self.since_len(digits)
                    .parse()
                    .map_err(|_| ShellError::Unsupported("a file descriptor out of range"))?,
            ),
        };
        self.pos += digits + text.len();
        self.skip_blank();
        let start = self.pos;
        let target = self.word()?.ok_or_else(|| self.unexpected())?.text;
        if op == RedirectOp::HereDoc {
            let expands = !self.since(start).contains(['\'', '"', '\\']);
            self.heredocs.push(HereDoc {
                delimiter: target,
                strip_tabs: text == "<<-",
                expands,
                slot,
            });
            return Ok(Some(Redirect {
                fd,
                op,
                target: String::new(),
            }));
        }
        Ok(Some(Redirect { fd, op, target }))
    }

    /// The `len` bytes at the cursor, as text.
    fn since_len(&self, len: usize) -> &'a str {
        self.src.get(self.pos..self.pos + len).unwrap_or_default()
    }
}
