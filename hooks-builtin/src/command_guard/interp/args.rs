//! A call's arguments and what a name stands for, read from the tokens: Python's imports,
//! a module loaded in place (`require('fs').rmSync`), literals and lists of them.

use super::*;

/// An argument of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Arg {
    Str(String),
    List(Vec<String>),
    /// A number (Perl's `rmtree($d, 0, 1)`), ignored.
    Num,
    /// A keyword argument or an options object: the positional arguments end there.
    Keyword,
    /// A keyword argument with a literal value (Python's `mode='w'`, Ruby's `mode: 'w'`):
    /// the positional arguments end there too.
    Named(String, String),
    /// Anything computed when the code runs.
    Opaque,
}

/// How a call builds a path from its literal arguments.
#[derive(Clone, Copy)]
enum Build {
    /// Joined with `/`; a part that starts with `/` starts the path over (`os.path.join`,
    /// `Path('/etc', 'ssh')`, Node's `path.resolve`).
    Restart,
    /// Joined with `/` whatever the parts (Node's `path.join`, Ruby's `File.join`, R's
    /// `file.path`).
    Concat,
    /// The home directory, whatever the arguments (`Path.home()`, `os.homedir()`).
    Home,
}

/// The functions that build a path from literal parts, by language. A path they build from
/// literals is a literal path (`shutil.rmtree(os.path.join('/', 'etc'))` deletes `/etc`;
/// `os.path.expanduser('~')` is `~`, judged as the home directory).
fn path_builder(lang: Lang, name: &str) -> Option<Build> {
    use Build::*;
    let table: &[(&str, Build)] = match lang {
        Lang::Python => &[
            ("os.path.join", Restart),
            ("posixpath.join", Restart),
            ("os.path.expanduser", Restart),
            ("os.path.abspath", Restart),
            ("os.path.normpath", Restart),
            ("os.path.realpath", Restart),
            ("Path", Restart),
            ("PurePath", Restart),
            ("PosixPath", Restart),
            ("PurePosixPath", Restart),
            ("pathlib.Path", Restart),
            ("Path.home", Home),
            ("pathlib.Path.home", Home),
        ],
        Lang::Js => &[
            ("path.join", Concat),
            ("path.posix.join", Concat),
            ("path.normalize", Concat),
            ("path.resolve", Restart),
            ("path.posix.resolve", Restart),
            ("os.homedir", Home),
        ],
        Lang::Ruby => &[
            ("File.join", Concat),
            ("Pathname", Restart),
            ("Pathname.new", Restart),
            ("Dir.home", Home),
        ],
        Lang::R => &[
            ("file.path", Concat),
            ("path.expand", Restart),
            ("normalizePath", Restart),
        ],
        Lang::Perl | Lang::Php | Lang::Lua => &[],
    };
    let plain = name.strip_prefix("node:").unwrap_or(name);
    table.iter().find(|(n, _)| *n == plain).map(|(_, b)| *b)
}

/// The path a builder call makes of literal `parts`.
fn build_path(build: Build, parts: &[String]) -> Option<String> {
    if let Build::Home = build {
        return Some("~".to_owned());
    }
    let mut path = String::new();
    for part in parts {
        if matches!(build, Build::Restart) && part.starts_with('/') {
            path.clear();
        }
        if !path.is_empty() && !path.ends_with('/') {
            path.push('/');
        }
        path.push_str(part);
    }
    (!path.is_empty()).then_some(path)
}

/// The path a call of a path builder in `toks` (its name, `(`, literal arguments, `)`)
/// makes; `None` for any other call or an argument that is no literal.
fn built_path(lang: Lang, toks: &[&Tok]) -> Option<String> {
    let [
        Tok::Name(name),
        Tok::Punct('('),
        inner @ ..,
        Tok::Punct(')'),
    ] = toks
    else {
        return None;
    };
    let build = path_builder(lang, name)?;
    match literal_list(inner, literal) {
        Arg::List(parts) => build_path(build, &parts),
        _ => None,
    }
}

/// The path object a method at `i` is called on: `Path('/etc/x').unlink()`,
/// `Path('/etc', 'ssh').rmdir()`, `Path.home().rmdir()`, `Pathname.new('/x')` (a path
/// constructor or builder called with literals just before the name).
pub(super) fn path_receiver(lang: Lang, toks: &[Tok], i: usize) -> Option<String> {
    if toks.get(i.checked_sub(1)?) != Some(&Tok::Punct(')')) {
        return None;
    }
    // Back to the `(` that opens the call, and the name before it.
    let mut depth = 0usize;
    let mut open = None;
    for at in (0..i).rev() {
        match &toks[at] {
            Tok::Punct(')') => depth += 1,
            Tok::Punct('(') => {
                depth -= 1;
                if depth == 0 {
                    open = Some(at);
                    break;
                }
            }
            _ => {}
        }
    }
    let start = open?.checked_sub(1)?;
    let call: Vec<&Tok> = toks[start..i].iter().collect();
    // `Path('/etc').joinpath('passwd')`: the receiver's path, joined with the parts.
    if let Some(Tok::Name(name)) = call.first()
        && name == ".joinpath"
        && lang == Lang::Python
    {
        let base = path_receiver(lang, toks, start)?;
        let parts = literals(&call[2..call.len() - 1])?;
        let mut all = vec![base];
        all.extend(parts);
        return build_path(Build::Restart, &all);
    }
    built_path(lang, &call)
}

/// The text of a string literal without interpolation.
fn literal(t: &Tok) -> Option<String> {
    match t {
        Tok::Str {
            text,
            interp: false,
            ..
        } => Some(text.clone()),
        _ => None,
    }
}

/// The literals of a comma-separated list of tokens; `None` when one is not a literal.
fn literals(inner: &[&Tok]) -> Option<Vec<String>> {
    match literal_list(inner, literal) {
        Arg::List(parts) => Some(parts),
        _ => None,
    }
}

/// A path made of literal parts with operators: Python's `Path('/') / 'etc'` (`/` joins,
/// starting over at an absolute part) and any language's `'/' + 'etc'` (`+` concatenates).
/// Each part is a literal or a path built from literals (`Path.home() / '.ssh'`); `None` for
/// anything else.
fn path_expression(lang: Lang, tokens: &[&Tok]) -> Option<String> {
    // The parts at depth 0, and the operator before each.
    let mut parts: Vec<(char, Vec<&Tok>)> = vec![(' ', Vec::new())];
    let mut depth = 0usize;
    for tok in tokens {
        match tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => depth = depth.checked_sub(1)?,
            Tok::Punct(op @ ('+' | '/')) if depth == 0 => {
                if *op == '/' && lang != Lang::Python {
                    return None;
                }
                parts.push((*op, Vec::new()));
                continue;
            }
            _ => {}
        }
        parts.last_mut()?.1.push(tok);
    }
    if parts.len() < 2 {
        return None;
    }
    let mut path = String::new();
    for (op, part) in parts {
        let value = match part.as_slice() {
            [
                Tok::Str {
                    text,
                    interp: false,
                    ..
                },
            ] => text.clone(),
            _ => built_path(lang, &part)?,
        };
        match op {
            '/' if value.starts_with('/') => path = value,
            '/' => {
                if !path.ends_with('/') {
                    path.push('/');
                }
                path.push_str(&value);
            }
            _ => path.push_str(&value),
        }
    }
    (!path.is_empty()).then_some(path)
}

/// `Ctor('literal')` just before the name at `i` (a method called on it): the constructor
/// and the literal.
pub(super) fn receiver(toks: &[Tok], i: usize) -> Option<(&str, &str)> {
    let before = toks.get(i.checked_sub(4)?..i)?;
    match before {
        [
            Tok::Name(ctor),
            Tok::Punct('('),
            Tok::Str {
                text,
                interp: false,
                ..
            },
            Tok::Punct(')'),
        ] => Some((ctor.as_str(), text.as_str())),
        _ => None,
    }
}

/// What a Python script's imports make its names stand for.
#[derive(Default)]
pub(super) struct Imports {
    /// A name as written, and the qualified name it stands for: `sp` for `subprocess` after
    /// `import subprocess as sp`, `s` for `os.system` after `from os import system as s`,
    /// `run` for `subprocess.run` after `from subprocess import run`.
    names: Vec<(String, String)>,
    /// Modules imported whole into the namespace (`from os import *`).
    pub(super) star: Vec<String>,
}

impl Imports {
    /// `name` with an imported name it starts with replaced by what that stands for (the
    /// latest import wins).
    pub(super) fn unalias(&self, name: &str) -> String {
        for (alias, target) in self.names.iter().rev() {
            if name == alias {
                return target.clone();
            }
            if let Some(rest) = name.strip_prefix(alias.as_str())
                && rest.starts_with('.')
            {
                return format!("{target}{rest}");
            }
        }
        name.to_owned()
    }
}

/// The imports of a Python script: `import a.b as c, d as e`, `from m import x as y, z`,
/// `from m import (x, y)`, `from m import *`.
pub(super) fn python_imports(toks: &[Tok]) -> Imports {
    let name = |i: usize| match toks.get(i) {
        Some(Tok::Name(n)) => Some(n.as_str()),
        _ => None,
    };
    let comma = |i: usize| matches!(toks.get(i), Some(Tok::Punct(',')));
    let mut imports = Imports::default();
    let mut i = 0;
    while i < toks.len() {
        match (name(i), name(i + 1), name(i + 2)) {
            (Some("import"), _, _) => {
                let mut j = i + 1;
                while let Some(module) = name(j) {
                    if name(j + 1) == Some("as")
                        && let Some(alias) = name(j + 2)
                    {
                        imports.names.push((alias.to_owned(), module.to_owned()));
                        j += 3;
                    } else {
                        j += 1;
                    }
                    if !comma(j) {
                        break;
                    }
                    j += 1;
                }
                i = j.max(i + 1);
            }
            (Some("from"), Some(module), Some("import")) => {
                let mut j = i + 3;
                if matches!(toks.get(j), Some(Tok::Punct('*'))) {
                    imports.star.push(module.to_owned());
                }
                if matches!(toks.get(j), Some(Tok::Punct('('))) {
                    j += 1;
                }
                while let Some(item) = name(j) {
                    let target = format!("{module}.{item}");
                    if name(j + 1) == Some("as")
                        && let Some(alias) = name(j + 2)
                    {
                        imports.names.push((alias.to_owned(), target));
                        j += 3;
                    } else {
                        imports.names.push((item.to_owned(), target));
                        j += 1;
                    }
                    if !comma(j) {
                        break;
                    }
                    j += 1;
                }
                i = j;
            }
            _ => i += 1,
        }
    }
    imports
}

/// The name at `i`, with a module loaded just before it put in front
/// (`require('fs').rmSync` → `fs.rmSync`, `__import__('os').system` → `os.system`).
pub(super) fn resolve_name(toks: &[Tok], i: usize, name: &str) -> String {
    if name.starts_with('.')
        && let Some((ctor, module)) = receiver(toks, i)
        && LOADERS.contains(&ctor)
    {
        let module = module.strip_prefix("node:").unwrap_or(module);
        return format!("{}{name}", module.replace('/', "."));
    }
    name.to_owned()
}

/// The arguments of a call whose name is just before `at`: in parentheses, or for Perl and
/// Ruby without them up to the end of the statement, or a JavaScript tagged template; `None`
/// when the name is not called there.
pub(super) fn call_args(lang: Lang, toks: &[Tok], at: usize) -> Option<Vec<Arg>> {
    let first = toks.get(at)?;
    let (start, paren) = match first {
        Tok::Punct('(') => (at + 1, true),
        Tok::Str {
            template: true,
            interp,
            text,
        } if lang == Lang::Js => {
            return Some(vec![if *interp {
                Arg::Opaque
            } else {
                Arg::Str(text.clone())
            }]);
        }
        Tok::Str { .. } | Tok::Cmd { .. } | Tok::Words(_) | Tok::Other | Tok::Num
            if lang.bare_calls() =>
        {
            (at, false)
        }
        Tok::Name(n) if lang.bare_calls() && !is_operator_word(n) => (at, false),
        Tok::Punct('[') if lang.bare_calls() => (at, false),
        _ => return None,
    };
    let mut groups: Vec<Vec<&Tok>> = vec![Vec::new()];
    let mut depth = 0usize;
    for tok in &toks[start..] {
        match tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') if depth == 0 => break,
            Tok::Punct(')' | ']' | '}') => depth -= 1,
            Tok::Punct(',') if depth == 0 => {
                groups.push(Vec::new());
                continue;
            }
            Tok::Punct(';') if !paren && depth == 0 => break,
            Tok::Punct('\n') if !paren && depth == 0 => break,
            Tok::Name(n) if !paren && depth == 0 && is_operator_word(n) => break,
            Tok::Punct('\n') => continue,
            _ => {}
        }
        if let Some(group) = groups.last_mut() {
            group.push(tok);
        }
    }
    if groups.len() == 1 && groups[0].is_empty() {
        return Some(Vec::new());
    }
    Some(groups.into_iter().map(|g| argument(lang, &g)).collect())
}

/// Words that end a Perl or Ruby call written without parentheses.
pub(super) fn is_operator_word(word: &str) -> bool {
    matches!(
        word,
        "or" | "and" | "if" | "unless" | "do" | "then" | "while" | "until" | "not" | "for"
    )
}

/// A list of literals separated by commas (the inside of `[…]`, `(…)`, R's `c(…)`), or
/// [`Arg::Opaque`] when an item is not a literal.
fn literal_list(inner: &[&Tok], literal: impl Fn(&Tok) -> Option<String>) -> Arg {
    let mut items = Vec::new();
    for (n, tok) in inner.iter().enumerate() {
        match (n % 2, tok) {
            (0, tok) => match literal(tok) {
                Some(text) => items.push(text),
                None => return Arg::Opaque,
            },
            (_, Tok::Punct(',')) => {}
            _ => return Arg::Opaque,
        }
    }
    Arg::List(items)
}

/// One argument of a call, from its tokens: a literal (also in parentheses or a path
/// constructor, `Path('/etc')`), a list of literals, a number, a keyword argument (named
/// with its literal value where one is given), or [`Arg::Opaque`].
pub(super) fn argument(lang: Lang, tokens: &[&Tok]) -> Arg {
    match tokens {
        [] | [Tok::Num] => Arg::Num,
        [tok] if literal(tok).is_some() => Arg::Str(literal(tok).unwrap_or_default()),
        // A literal in parentheses is the literal (`os.system(("rm -rf /"))`).
        [Tok::Punct('('), tok, Tok::Punct(')')] if literal(tok).is_some() => {
            Arg::Str(literal(tok).unwrap_or_default())
        }
        // R's vector of literals, `c("-rf", "/")`: a list.
        [Tok::Name(c), Tok::Punct('('), inner @ .., Tok::Punct(')')]
            if lang == Lang::R && c == "c" =>
        {
            literal_list(inner, literal)
        }
        [Tok::Words(words)] => Arg::List(words.clone()),
        // Ruby's `Dir.home`, called without parentheses.
        [Tok::Name(name)]
            if lang.bare_calls() && matches!(path_builder(lang, name), Some(Build::Home)) =>
        {
            Arg::Str("~".to_owned())
        }
        // A path built from literals (`os.path.join('/', 'etc')`, `Path('/etc', 'ssh')`).
        [Tok::Name(_), Tok::Punct('('), .., Tok::Punct(')')]
            if let Some(path) = built_path(lang, tokens) =>
        {
            Arg::Str(path)
        }
        [Tok::Punct('[' | '('), inner @ .., Tok::Punct(']' | ')')] => literal_list(inner, literal),
        [Tok::Punct('{'), ..] => Arg::Keyword,
        [Tok::Name(name), Tok::Punct('='), tok]
            if matches!(lang, Lang::Python | Lang::R) && literal(tok).is_some() =>
        {
            Arg::Named(name.clone(), literal(tok).unwrap_or_default())
        }
        [Tok::Name(name), Tok::Punct(':'), tok] if lang == Lang::Ruby && literal(tok).is_some() => {
            Arg::Named(name.clone(), literal(tok).unwrap_or_default())
        }
        // Ruby's `:mode => 'w'`.
        [
            Tok::Punct(':'),
            Tok::Name(name),
            Tok::Punct('='),
            Tok::Punct('>'),
            tok,
        ] if lang == Lang::Ruby && literal(tok).is_some() => {
            Arg::Named(name.clone(), literal(tok).unwrap_or_default())
        }
        [Tok::Name(_), Tok::Punct('='), rest @ ..]
            if matches!(lang, Lang::Python | Lang::R)
                && rest.first() != Some(&&Tok::Punct('=')) =>
        {
            Arg::Keyword
        }
        [Tok::Name(_), Tok::Punct(':'), ..] if lang == Lang::Ruby => Arg::Keyword,
        // `Path('/') / 'etc'`, `'/' + 'etc'`.
        tokens if let Some(path) = path_expression(lang, tokens) => Arg::Str(path),
        _ => Arg::Opaque,
    }
}
