//! Simple commands: their words and assignments, and the other readings of them (brace
//! expansion, known positional parameters, values expanded again) that change what runs.

use super::{Parser, Result, Source};
use crate::shell::{Command, Variable};

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

impl Parser<'_, '_> {
    /// Records the `NAME=value` words among `words` in [`Script::variables`] (`NAME+=value`
    /// and `a[0]=value` too, under `NAME` and `a`).
    ///
    /// [`Script::variables`]: crate::shell::Script::variables
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

    /// The words an unquoted variable (`$s`) splits into, when the line gave it one value
    /// with blanks in it (`s='-rf /'`) and left `IFS` alone; `None` otherwise (the word is
    /// judged through the variables' readings, as one word).
    fn split_value(&self, word: &str) -> Option<Vec<String>> {
        let name = word
            .strip_prefix("${")
            .and_then(|w| w.strip_suffix('}'))
            .or_else(|| word.strip_prefix('$'))?;
        let variables = &self.sink.script.variables;
        if variables.iter().any(|v| v.name == "IFS") {
            return None;
        }
        let mut values = variables.iter().filter(|v| v.name == name);
        let value = match (values.next(), values.next()) {
            (Some(one), None) => &one.value,
            _ => return None,
        };
        // A value computed when it runs (`p=$(pgrep x)`) or one the shell would also glob
        // is left to the readings.
        if value.contains(['$', '`', '\'', '"', '*', '?', '[', '(', ')', '\\']) {
            return None;
        }
        let parts: Vec<String> = value.split_whitespace().map(str::to_owned).collect();
        (parts.len() > 1).then_some(parts)
    }

    /// Records the arrays among `words` (the assignments of a statement, or a `declare`'s
    /// arguments): `a=(…)` with its elements ([`Word::array`]), and what `a+=(…)` and
    /// `a[i]=v` add to it.
    ///
    /// [`Word::array`]: crate::shell::lex::Word
    fn record_arrays(&mut self, arrays: &[(String, Vec<String>)], words: &[String]) {
        for word in words {
            let Some((name, value)) = word.split_once('=') else {
                continue;
            };
            let elements = (arrays.iter())
                .find(|(text, _)| text == word)
                .map(|(_, elements)| elements.clone());
            let (name, whole) = match (name.split_once('['), elements) {
                // `a[i]=v`: one element.
                (Some((name, _)), _) => (name, vec![value.to_owned()]),
                (None, Some(elements)) => (name, elements),
                // A plain value (`a=x`) is the variables' (`$a`).
                (None, None) => continue,
            };
            let plain = !word.contains("+=") && !word[..word.find('=').unwrap_or(0)].contains('[');
            let name = name.trim_end_matches('+');
            self.sink.arrays.push((name.to_owned(), whole, plain));
        }
    }

    /// The words of a simple command with the elements of the arrays the script assigned put
    /// in: `"${a[@]}"` and `${a[*]}` as one word each, `${a[N]}` as its element. An array
    /// given its elements once, by one `a=(…)`, is put in as it is; one given them more than
    /// once (again, `a+=(…)`, `a[i]=v`, in a branch or a loop) as every element it was ever
    /// given, in the order given, which can only add words. `None` when nothing changed.
    fn put_arrays(&mut self, words: &[String]) -> Result<Option<Vec<String>>> {
        if self.sink.arrays.is_empty() || !words.iter().any(|w| w.contains("${")) {
            return Ok(None);
        }
        let mut out = Vec::with_capacity(words.len());
        let mut changed = false;
        for word in words {
            let inner = word.strip_prefix("${").and_then(|w| w.strip_suffix('}'));
            let put = inner.and_then(|inner| {
                let (name, index) = inner.split_once('[')?;
                let index = index.strip_suffix(']')?;
                let given: Vec<&(String, Vec<String>, bool)> = self
                    .sink
                    .arrays
                    .iter()
                    .filter(|(n, _, _)| n == name)
                    .collect();
                match given.as_slice() {
                    [] => None,
                    [(_, elements, true)] => match index {
                        "@" | "*" => Some(elements.clone()),
                        n => Some(
                            elements
                                .get(n.parse::<usize>().ok()?)
                                .cloned()
                                .into_iter()
                                .collect(),
                        ),
                    },
                    all => Some(all.iter().flat_map(|(_, e, _)| e.iter().cloned()).collect()),
                }
            });
            match put {
                Some(elements) => {
                    changed = true;
                    out.extend(elements);
                }
                None => out.push(word.clone()),
            }
        }
        self.sink.charge(out.iter().map(String::len).sum())?;
        Ok(changed.then_some(out))
    }

    /// Parses the values of `deferred` assignment words ([`Word::deferred`](crate::shell::lex::Word::deferred)) as scripts: a
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

    pub(super) fn simple(&mut self, pi: usize, after_keyword: bool) -> Result<()> {
        let ci = self.stage_count(pi);
        let (mut words, mut redirects, mut assigned) = (Vec::new(), Vec::new(), false);
        let mut assignments = Vec::new();
        let mut deferred = Vec::new();
        let mut recordable = Vec::new();
        let mut braces: Vec<(usize, Vec<usize>)> = Vec::new();
        // Array assignments among the words (`a=(x y)`, or `declare -a a=(x y)`).
        let mut arrays: Vec<(String, Vec<String>)> = Vec::new();
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
            let mut word = self.word()?.ok_or_else(|| self.unexpected())?;
            if let Some(elements) = word.array.take() {
                arrays.push((word.text.clone(), elements));
            }
            if word.deferred && word.text.contains('=') {
                deferred.push(word.text.clone());
            }
            if words.is_empty() && word.assign {
                assigned = true;
                if !word.unexpanded {
                    recordable.push(word.text.clone());
                }
                assignments.push(word.text);
            } else if word.bare
                && let Some(parts) = self.split_value(&word.text)
            {
                // `s='-rf /'; rm $s`: the value, split into words as the shell does.
                self.sink.charge(parts.iter().map(String::len).sum())?;
                words.extend(parts);
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
            self.record_arrays(&arrays, &assignments);
        }
        // `BASH_ALIASES[x]='rm -rf'` defines an alias, as `alias x='rm -rf'` does.
        for (name, value) in (assignments.iter())
            .filter_map(|a| a.strip_prefix("BASH_ALIASES["))
            .filter_map(|a| a.split_once("]="))
        {
            let name = name.trim_matches(['\'', '"']);
            self.define_alias(name, value, self.privileged, self.dir.clone())?;
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
        let words = self.put_arrays(&words)?.unwrap_or(words);
        let mut command = self.resolve(words, redirects, self.privileged)?;
        if matches!(
            command.program.as_str(),
            "export" | "declare" | "local" | "readonly" | "typeset"
        ) {
            self.record_arrays(&arrays, &command.args);
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
        // `set -- -rf /` gives the positional parameters values (`rm "$@"` after it), where
        // they were not known: at the top of the command line, or in a script that changes
        // them (`sh -c` reads such a script with them unknown from the start).
        if command.program == "set" && self.positional.is_none() {
            let mut args = command.args.iter();
            let mut operands: Vec<String> = Vec::new();
            while let Some(arg) = args.next() {
                if arg == "--" || !arg.starts_with(['-', '+']) {
                    operands.extend((arg != "--").then(|| arg.clone()));
                    operands.extend(args.by_ref().cloned());
                    break;
                }
                // `-o NAME` (`-euo pipefail`): the option's name is no parameter.
                if arg.ends_with('o') && !arg.starts_with("--") {
                    args.next();
                }
            }
            let dashdash = command.args.iter().any(|a| a == "--");
            if !operands.is_empty() || dashdash {
                self.sink.charge(operands.iter().map(String::len).sum())?;
                let params: Vec<String> =
                    std::iter::once("sh".to_owned()).chain(operands).collect();
                self.positional = Some(params.into());
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
        // `popd` goes back to a directory `pushd` kept, or fails and stays: which, the guard
        // cannot tell (`pushd build; popd; rm -rf *`).
        if command.program == "popd" {
            self.dir = Some("$DIRSTACK".to_owned());
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
                    let result = crate::shell::brace::expand(word, active, &mut budget);
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
}
