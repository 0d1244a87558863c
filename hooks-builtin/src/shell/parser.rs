//! The parse of a command line: the scripts still to parse, the bound on the work, and the
//! cursor the grammar reads with; the grammar itself is in the submodules.

mod redirects;
mod simple;
mod statements;

use std::collections::VecDeque;
use std::rc::Rc;

use super::{Command, MAX_DEPTH, MAX_LEN, Redirect, Script, ShellError};
use redirects::HereDoc;
use statements::End;

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
/// How many calls of a function the script defines are judged with their arguments.
pub(super) const MAX_FUNCTION_CALLS: usize = 16;

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
    /// The elements given to arrays so far, in order: the name, the elements, and whether
    /// they were the whole array (`a=(-rf /)`, `declare -a a=(…)`) rather than added to it
    /// (`a+=(x)`, `a[1]=x`).
    pub(super) arrays: Vec<(String, Vec<String>, bool)>,
    /// The functions defined so far, each as its name, its body as written, and the
    /// directory it was defined in: a call is judged as the body with its arguments.
    pub(super) bodies: Vec<(String, String, Option<String>)>,
    /// Calls of those functions judged with their arguments so far (at most
    /// [`MAX_FUNCTION_CALLS`], so that a function that calls itself ends).
    pub(super) function_calls: usize,
    /// The files written so far, by the name they are known by ([`key`]), each with the
    /// content the line spells out for it, or `None` once that is not known.
    ///
    /// [`key`]: super::resolve
    pub(super) written: Vec<(String, Option<String>)>,
    /// The last components of written files run without their content judged.
    pub(super) unjudged: Vec<String>,
    /// Programs made under another name so far (`cp /bin/rm x`): the name as
    /// [`super::Command::program`] keys it, and the file it was made from as written.
    pub(super) made: Vec<(String, String)>,
    /// The command being read is a program's reading as the file it was made from: made
    /// names are not read through again in it.
    pub(super) in_made: bool,
    /// The aliases defined so far (`alias x='rm -rf'`): NAME, and its value.
    pub(super) aliases: Vec<(String, String)>,
    /// The script being parsed is an alias's value with its words, or nested in one: aliases
    /// are not expanded again in it (bash does not expand an alias inside itself, and
    /// `alias ls='ls -F'` must not loop).
    pub(super) in_alias: bool,
    /// The aliases defined in a nested script (`eval "alias x='rm -rf'"`), known only after
    /// the commands that use them were read: each command of such a name is judged again,
    /// with the value, once the queue is empty.
    pub(super) late_aliases: Vec<(String, String)>,
    /// The statements that gave variables values so far ([`Variable::statement`]).
    ///
    /// [`Variable::statement`]: super::Variable::statement
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
    /// An alias's value with its words, or a script nested in one ([`Sink::in_alias`]).
    alias: bool,
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
    ///
    /// [`Variable::statement`]: super::Variable::statement
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
        arrays: Vec::new(),
        bodies: Vec::new(),
        function_calls: 0,
        made: Vec::new(),
        written: Vec::new(),
        unjudged: Vec::new(),
        in_made: false,
        aliases: Vec::new(),
        in_alias: false,
        late_aliases: Vec::new(),
        statements: 0,
    };
    run(src, &mut sink, 0, false, None, None)?;
    loop {
        run_tasks(&mut sink)?;
        if !sink.queue_late_aliases()? {
            break;
        }
    }
    sink.script.pipelines.retain(|p| !p.commands.is_empty());
    // A file run once by content the guards judged and once by content they could not (two
    // files of one name, or one changed between runs) is not known.
    let unjudged = std::mem::take(&mut sink.unjudged);
    (sink.script.known_files).retain(|name| !unjudged.contains(name));
    Ok(sink.script)
}

/// Parses the queued scripts, and those they queue, until none is left.
fn run_tasks(sink: &mut Sink) -> Result<()> {
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
        sink.in_alias = task.alias;
        match run(&text, sink, depth, privileged, task.dir, task.positional) {
            Err(e) if is_syntax(&e) && mark.is_some() => {
                if let Some(mark) = &mark {
                    sink.rollback(mark);
                }
            }
            result => result?,
        }
    }
    Ok(())
}

impl Sink {
    /// Queues, for each alias defined in a nested script since the last call, every command
    /// of its name with the alias's value put in (`eval "alias x='rm -rf'"; x ~` runs `rm -rf
    /// ~`), judged wherever it stands: before the definition too, which is only stricter.
    /// False when there was none.
    fn queue_late_aliases(&mut self) -> Result<bool> {
        if self.late_aliases.is_empty() {
            return Ok(false);
        }
        let late = std::mem::take(&mut self.late_aliases);
        let mut lines = Vec::new();
        for command in self.script.commands() {
            let Some((_, value)) = late.iter().rev().find(|(name, _)| *name == command.program)
            else {
                continue;
            };
            let mut line = value.clone();
            for arg in &command.args {
                line.push(' ');
                line.push_str(&super::quote(arg));
            }
            lines.push((line, command.privileged, command.dir.clone()));
        }
        for (line, privileged, dir) in lines {
            self.charge(line.len() + COMMAND_COST)?;
            self.tasks.push_back(Task {
                source: Source::Text(line),
                dir,
                depth: 1,
                privileged,
                positional: None,
                optional: false,
                alias: true,
            });
        }
        Ok(true)
    }
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
        array: None,
    };
    parser.list(End::Eof)?;
    // A here-document still open at the end of the input is empty, as in bash.
    parser.read_heredocs()
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
    /// The elements of the array the word being read assigns ([`Word::array`]).
    ///
    /// [`Word::array`]: super::lex::Word
    pub(super) array: Option<Vec<String>>,
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
            alias: self.sink.in_alias,
        });
        Ok(())
    }

    /// Queues what an alias runs (its value, then the words it was used with), in which
    /// aliases are not expanded again.
    pub(super) fn queue_alias(
        &mut self,
        line: String,
        privileged: bool,
        dir: Option<String>,
    ) -> Result<()> {
        self.queue_task(Source::Text(line), privileged, dir, false)?;
        if let Some(task) = self.sink.tasks.back_mut() {
            task.alias = true;
        }
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
}
