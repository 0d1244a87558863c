//! Lists, pipelines and compound commands: what joins commands decides what each one
//! reads, so a compound stage of a pipeline lends its inner commands to it.

use super::{ARG_COST, COMMAND_COST, Parser, Result, is_meta};
use crate::shell::{Command, Function, Pipeline, Redirect, RedirectOp, ShellError, Variable};

/// What closes a list.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum End {
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

impl Parser<'_, '_> {
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
    pub(super) fn list(&mut self, end: End) -> Result<()> {
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
    pub(in crate::shell) fn list_to_paren(&mut self) -> Result<()> {
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
                            [only] => crate::shell::resolve::literal_output(only),
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

    pub(in crate::shell) fn new_pipeline(&mut self, command: Command) -> Result<usize> {
        let pi = self.sink.script.pipelines.len();
        self.sink.script.pipelines.push(Pipeline::default());
        self.push(pi, command)?;
        Ok(pi)
    }

    pub(super) fn push(&mut self, pi: usize, command: Command) -> Result<()> {
        let dir = command.dir.as_ref().map_or(0, String::len);
        self.sink
            .charge(COMMAND_COST + dir + ARG_COST * command.args.len())?;
        if let Some(p) = self.sink.script.pipelines.get_mut(pi) {
            p.commands.push(command);
        }
        Ok(())
    }

    pub(super) fn stage_count(&self, pi: usize) -> usize {
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
    pub(in crate::shell) fn arith_ahead(&mut self) -> Result<bool> {
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
    pub(in crate::shell) fn arith(&mut self) -> Result<()> {
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

    pub(super) fn function_body(&mut self, pi: usize, name: String) -> Result<()> {
        self.skip_space()?;
        let first = self.sink.script.pipelines.len();
        let start = self.pos;
        if self.peek() == Some(b'(') {
            self.subshell(pi)?;
        } else if self.keyword_ahead("{") {
            self.group(pi)?;
        } else {
            return Err(self.unexpected());
        }
        // The body as written, to judge again with the arguments of each call (`f() { rm
        // "$@"; }; f -rf /`).
        let body = self.src[start..self.pos].to_owned();
        self.sink.charge(body.len())?;
        self.sink
            .bodies
            .push((name.clone(), body, self.dir.clone()));
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
}
