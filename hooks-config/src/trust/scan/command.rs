//! One command from its program on: wrappers, builtins that run code, interpreters and their
//! options, tools that run project code themselves, and the files to hash.

use super::*;

impl Scan<'_> {
    /// A command's words from its program on (assignments already applied to `sh`).
    pub(super) fn command(
        &mut self,
        words: &[Word],
        start: usize,
        fragment: &str,
        sh: &mut Shell,
        input: &Input,
        extra: Extra<'_>,
    ) {
        if self.stack >= MAX_STACK {
            self.unhashed(
                fragment,
                format!("more than {MAX_STACK} wrappers around one program"),
            );
            return;
        }
        self.stack += 1;
        self.command_inner(words, start, fragment, sh, input, extra);
        self.stack -= 1;
    }

    fn command_inner(
        &mut self,
        words: &[Word],
        start: usize,
        fragment: &str,
        sh: &mut Shell,
        input: &Input,
        extra: Extra<'_>,
    ) {
        self.commands += 1;
        if self.commands > MAX_COMMANDS {
            self.unhashed(
                fragment,
                format!("the command has more than {MAX_COMMANDS} parts; the rest is not scanned"),
            );
            return;
        }
        let mut i = start;
        while let Some(l) = words.get(i).and_then(Word::literal) {
            match l.as_str() {
                "function" => i += 2,
                l if RESERVED.contains(&l) => i += 1,
                _ => break,
            }
        }
        let Some(word) = words.get(i) else { return };
        if let Extra::Placeholder(p, tool) = extra
            && word.raw.contains(p)
        {
            self.unhashed(
                fragment,
                format!("{tool} puts its input in place of the program"),
            );
            return;
        }
        let program = match self.resolve(word, sh) {
            Ok(p) => p,
            Err(why) => {
                self.unhashed(
                    fragment,
                    format!("the program is decided at run time: {why}"),
                );
                return;
            }
        };
        let name = base_name(&program);
        let rest = &words[i + 1..];
        let lit = |k: usize| rest.get(k).and_then(Word::literal);
        if let Some((_, value_options, positional)) = WRAPPERS.iter().find(|(n, ..)| *n == name) {
            let mut local = sh.clone();
            let mut j = 0;
            while let Some(w) = rest.get(j) {
                let Some(l) = w.literal() else {
                    if matches!(name, "env" | "time")
                        && w.parts
                            .first()
                            .is_some_and(|p| matches!(p, Part::Lit(s) if is_assignment(s)))
                    {
                        self.assignment(w, &mut local, &HashMap::new(), true, fragment);
                        j += 1;
                        continue;
                    }
                    break;
                };
                if l == "--" {
                    j += 1;
                    break;
                }
                if name == "env"
                    && (l == "-S"
                        || l.starts_with("--split-string")
                        || (l.starts_with("-S") && l.len() > 2))
                {
                    let value = match l.split_once('=') {
                        Some((_, v)) => Ok(v.to_owned()),
                        None if l.len() > 2 && !l.starts_with("--") => Ok(l[2..].to_owned()),
                        None => rest
                            .get(j + 1)
                            .map_or(Ok(String::new()), |w| self.resolve(w, sh)),
                    };
                    let skip = if l == "-S" || l == "--split-string" {
                        2
                    } else {
                        1
                    };
                    match value {
                        Ok(text) => {
                            let mut split: Vec<Word> = text
                                .split_whitespace()
                                .map(|t| Word {
                                    parts: vec![Part::Lit(t.to_owned())],
                                    raw: t.to_owned(),
                                })
                                .collect();
                            split.extend(rest.iter().skip(j + skip).cloned());
                            self.command(&split, 0, fragment, &mut local, input, extra);
                        }
                        Err(why) => self.unhashed(
                            fragment,
                            format!("`env -S` splits a value known only at run time: {why}"),
                        ),
                    }
                    return;
                }
                if name == "env" && (l == "-C" || l == "--chdir" || l.starts_with("--chdir=")) {
                    let dir = match l.split_once('=') {
                        Some((_, d)) => vec![
                            Word {
                                parts: vec![Part::Lit("cd".into())],
                                raw: "cd".into(),
                            },
                            Word {
                                parts: vec![Part::Lit(d.to_owned())],
                                raw: d.to_owned(),
                            },
                        ],
                        None => [Word {
                            parts: vec![Part::Lit("cd".into())],
                            raw: "cd".into(),
                        }]
                        .into_iter()
                        .chain(rest.get(j + 1).cloned())
                        .collect(),
                    };
                    self.change_dir(&dir, &mut local, fragment);
                    j += if l.contains('=') { 1 } else { 2 };
                    continue;
                }
                if name == "command" && (l == "-v" || l == "-V") {
                    return;
                }
                // `exec -l sh`, `exec -a -sh sh`: a dash before the name makes a login shell.
                if name == "exec"
                    && (l.starts_with('-') && !l.starts_with("--") && l[1..].contains('l')
                        || l == "-a"
                            && rest
                                .get(j + 1)
                                .is_some_and(|w| w.literal().is_none_or(|a| a.starts_with('-'))))
                {
                    self.unhashed(
                        fragment,
                        "`exec` may start a login shell, which reads profile files (~/.profile…) that are not hashed",
                    );
                }
                if l == "-" || is_option(&l, false) {
                    j += if value_options.contains(&l.as_str()) {
                        2
                    } else {
                        1
                    };
                } else if matches!(name, "env" | "time") && is_assignment(&l) {
                    self.assignment(w, &mut local, &HashMap::new(), true, fragment);
                    j += 1;
                } else {
                    break;
                }
            }
            j += positional;
            if *positional > 0 {
                // Options after the positional arguments (`setarch x86_64 -R ./x.sh`).
                while let Some(l) = lit(j).filter(|l| is_option(l, false)) {
                    if l == "--" {
                        j += 1;
                        break;
                    }
                    j += if value_options.contains(&l.as_str()) {
                        2
                    } else {
                        1
                    };
                }
            }
            if name == "flock" && matches!(lit(j).as_deref(), Some("-c" | "--command")) {
                self.inline_shell(rest.get(j + 1), &local, input, fragment, extra);
                return;
            }
            self.command(rest, j, fragment, &mut local, input, extra);
            return;
        }
        match name {
            "." | "source" => {
                let k = usize::from(lit(0).as_deref() == Some("--"));
                if let Some(file) = rest.get(k) {
                    self.code_file(
                        file,
                        Lang::Shell,
                        sh,
                        input,
                        fragment,
                        extra,
                        follow::SOURCED,
                    );
                }
                return;
            }
            "eval" => {
                match rest {
                    [only] if only.only_substitution().is_some() => {
                        let program = self.substitution_program(only, sh);
                        self.program_from(&program, Lang::Shell, sh, fragment);
                    }
                    _ => {
                        let text: Result<Vec<String>, String> =
                            rest.iter().map(|w| self.resolve(w, sh)).collect();
                        match text {
                            Ok(parts) => self.nested(&parts.join(" "), sh, input, fragment),
                            Err(why) => self.unhashed(
                                fragment,
                                format!("`eval` runs text built at run time: {why}"),
                            ),
                        }
                    }
                }
                return;
            }
            "trap" => {
                let k = usize::from(lit(0).as_deref() == Some("--"));
                if !matches!(lit(k).as_deref(), Some("-p" | "-l" | "-")) {
                    self.inline_shell(rest.get(k), sh, &Input::Nothing, fragment, extra);
                }
                return;
            }
            "su" | "runuser" | "script" | "sg" => {
                self.run_as(name, rest, fragment, sh, input, extra);
                return;
            }
            "watch" => {
                let mut k = 0;
                while let Some(l) = lit(k).filter(|l| l.starts_with('-')) {
                    k += if matches!(l.as_str(), "-n" | "--interval" | "-d" | "--differences")
                        && !l.contains('=')
                        && l != "-d"
                    {
                        2
                    } else {
                        1
                    };
                }
                let text: Result<Vec<String>, String> = rest[k.min(rest.len())..]
                    .iter()
                    .map(|w| self.resolve(w, sh))
                    .collect();
                match text {
                    Ok(parts) => self.nested(&parts.join(" "), sh, &Input::Nothing, fragment),
                    Err(why) => self.unhashed(
                        fragment,
                        format!("`watch` runs text built at run time: {why}"),
                    ),
                }
                return;
            }
            "xargs" => {
                self.xargs(rest, fragment, sh, input);
                return;
            }
            "find" => {
                let mut k = 0;
                while k < rest.len() {
                    if matches!(
                        rest[k].literal().as_deref(),
                        Some("-exec" | "-execdir" | "-ok" | "-okdir")
                    ) {
                        let end = rest[k + 1..]
                            .iter()
                            .position(|w| matches!(w.literal().as_deref(), Some(";" | "+")))
                            .map_or(rest.len(), |e| k + 1 + e);
                        let sub = rest[k + 1..end].to_vec();
                        self.command(
                            &sub,
                            0,
                            fragment,
                            &mut sh.clone(),
                            &Input::Nothing,
                            Extra::Placeholder("{}", "find"),
                        );
                        k = end;
                    }
                    k += 1;
                }
                return;
            }
            "parallel" => {
                self.unhashed(
                    fragment,
                    "GNU parallel builds its commands from its input and arguments",
                );
                return;
            }
            _ => {}
        }
        if let Some((_, options)) = PROGRAM_FILE_OPTIONS.iter().find(|(n, _)| *n == name) {
            for (k, w) in rest.iter().enumerate() {
                let Some(l) = w.literal() else { continue };
                let value = match l.split_once('=') {
                    Some((o, v)) if options.contains(&o) => Some(Word {
                        parts: vec![Part::Lit(v.to_owned())],
                        raw: v.to_owned(),
                    }),
                    _ if options.contains(&l.as_str()) => rest.get(k + 1).cloned(),
                    _ => None,
                };
                if let Some(v) = value {
                    self.code_file(
                        &v,
                        Lang::Shell,
                        sh,
                        input,
                        fragment,
                        extra,
                        "its program file",
                    );
                }
            }
        }
        if let Some((tool, what)) = PROJECT_RUNNERS.iter().find(|(n, _)| *n == name) {
            self.unhashed(fragment, format!("`{tool}` runs code from project files it reads itself ({what}); they are not hashed"));
            if program.contains('/') {
                self.hash(&program, sh, fragment, true);
            }
            return;
        }
        match interpreter(&program) {
            Some(interp) => {
                // A project's own interpreter (`./bin/python3`) is project code too; a system
                // one (`/usr/bin/python3`, or a venv's link to it) is not hashed.
                if program.contains('/') {
                    self.hash(&program, sh, fragment, true);
                    self.follow_found(None, sh);
                }
                self.interpreted(interp, name, rest, fragment, sh, input, extra);
            }
            None if program.contains('/') => {
                self.hash_code(&program, sh, fragment);
                let project = self.last_found.iter().any(|p| p.starts_with(self.project));
                // The language its `#!` line names, else a shell's.
                self.follow_found(None, sh);
                if !project {
                    self.unknown_program(name, rest, fragment, sh, input, extra);
                }
            }
            None => {
                let mut project = false;
                for dir in sh.path_dirs.clone() {
                    match dir {
                        Ok(dir) => {
                            let path = dir.join(&program);
                            self.hash(&path.to_string_lossy(), sh, fragment, false);
                            project |= !self.last_found.is_empty();
                            self.follow_found(None, sh);
                        }
                        Err(why) => self.unhashed(
                            fragment,
                            format!(
                                "`{program}` is looked up on a PATH known only at run time: {why}"
                            ),
                        ),
                    }
                }
                if !project {
                    self.unknown_program(name, rest, fragment, sh, input, extra);
                }
            }
        }
    }

    /// `su`, `runuser`, `script`, `sg`: the text of `-c` (also in a cluster, `script -qc
    /// TEXT`, or `--command=TEXT`) is a command in turn, and so is `runuser -u USER CMD…`.
    fn run_as(
        &mut self,
        name: &str,
        rest: &[Word],
        fragment: &str,
        sh: &mut Shell,
        input: &Input,
        extra: Extra<'_>,
    ) {
        const VALUE: &[&str] = &[
            "-u",
            "--user",
            "-g",
            "--group",
            "-G",
            "--supp-group",
            "-s",
            "--shell",
            "-w",
            "--whitelist-environment",
            "-O",
            "--log-out",
            "-I",
            "--log-in",
            "-B",
            "--log-io",
            "-T",
            "--log-timing",
            "-E",
            "--echo",
            "-o",
            "--output-limit",
            "-m",
            "--logging-format",
        ];
        let mut k = 0;
        let mut user_command = false;
        while let Some(l) = rest.get(k).and_then(Word::literal) {
            if l == "--" {
                k += 1;
                break;
            }
            if let Some(text) = l
                .strip_prefix("--command=")
                .or_else(|| l.strip_prefix("--session-command="))
            {
                let word = Word {
                    parts: vec![Part::Lit(text.to_owned())],
                    raw: text.to_owned(),
                };
                self.inline_shell(Some(&word), sh, input, fragment, extra);
                return;
            }
            if matches!(l.as_str(), "--command" | "--session-command") {
                self.inline_shell(rest.get(k + 1), sh, input, fragment, extra);
                return;
            }
            if !is_option(&l, false) {
                break;
            }
            if !l.starts_with("--")
                && let Some(at) = l[1..].find('c')
            {
                let attached = &l[2 + at..];
                if attached.is_empty() {
                    self.inline_shell(rest.get(k + 1), sh, input, fragment, extra);
                } else {
                    let word = Word {
                        parts: vec![Part::Lit(attached.to_owned())],
                        raw: attached.to_owned(),
                    };
                    self.inline_shell(Some(&word), sh, input, fragment, extra);
                }
                return;
            }
            user_command |= name == "runuser" && (l == "-u" || l == "--user");
            k += if VALUE.contains(&l.as_str()) { 2 } else { 1 };
        }
        if user_command && k < rest.len() {
            self.command(rest, k, fragment, sh, input, extra);
        }
    }

    /// `sh -c TEXT` and the like: the text is a command in turn.
    pub(super) fn inline_shell(
        &mut self,
        text: Option<&Word>,
        sh: &Shell,
        input: &Input,
        fragment: &str,
        extra: Extra<'_>,
    ) {
        let Some(text) = text else { return };
        if text.only_substitution().is_some() {
            let program = self.substitution_program(text, sh);
            self.program_from(&program, Lang::Shell, sh, fragment);
            return;
        }
        match self.resolve(text, sh) {
            Ok(code) => {
                if let Extra::Placeholder(p, tool) = extra
                    && code.contains(p)
                {
                    self.unhashed(
                        fragment,
                        format!("{tool} puts its input into the command text"),
                    );
                }
                self.nested(&code, sh, input, fragment);
            }
            Err(why) => self.unhashed(
                fragment,
                format!("the command text is built at run time: {why}"),
            ),
        }
    }

    /// The program a word made of one substitution gives (`"$(cat f)"`, `<(cat f)`).
    pub(super) fn substitution_program(&mut self, word: &Word, sh: &Shell) -> Input {
        let body = word.only_substitution().unwrap_or_default();
        let commands = lex::lex(body);
        match commands.as_slice() {
            [one] if one.words.is_empty() => match one.redirects.iter().find(|r| r.op == Op::In) {
                Some(r) => self.file_input(&r.target, sh),
                None => Input::Nothing,
            },
            [one] => self.produced(one, sh),
            _ => Input::Opaque(format!(
                "`{}` is produced at run time",
                abbreviate(&word.raw)
            )),
        }
    }

    /// A file given as code (`. f`, an interpreter's script): hashed, read from stdin or a
    /// descriptor, or reported.
    #[allow(clippy::too_many_arguments, reason = "one call per kind of operand")]
    pub(super) fn code_file(
        &mut self,
        file: &Word,
        lang: Lang,
        sh: &Shell,
        input: &Input,
        fragment: &str,
        extra: Extra<'_>,
        what: &str,
    ) {
        if let Extra::Placeholder(p, tool) = extra
            && file.raw.contains(p)
        {
            self.unhashed(
                fragment,
                format!("{tool} puts its input in place of {what}"),
            );
            return;
        }
        if matches!(file.parts.as_slice(), [Part::Proc(_)]) {
            let program = self.substitution_program(file, sh);
            self.program_from(&program, lang, sh, fragment);
            return;
        }
        let path = match self.resolve(file, sh) {
            Ok(path) => path,
            Err(why) => {
                self.unhashed(fragment, format!("{what} is decided at run time: {why}"));
                return;
            }
        };
        if is_stdin_path(&path) {
            self.program_from(input, lang, sh, fragment);
            return;
        }
        if let Some(n) = path
            .strip_prefix("/dev/fd/")
            .or_else(|| path.strip_prefix("/proc/self/fd/"))
        {
            let source = n.parse::<u32>().ok().and_then(|n| sh.fds.get(&n).cloned());
            let source = source.unwrap_or_else(|| {
                Input::Opaque(format!("descriptor {n} is not opened in the command"))
            });
            self.program_from(&source, lang, sh, fragment);
            return;
        }
        match lang {
            Lang::Node | Lang::Deno | Lang::Bun => self.node_script(&path, sh, fragment),
            Lang::Python => {
                let found = self.hash_code(&path, sh, fragment);
                self.follow_found(Some(lang), sh);
                if let Hashed::Dir(dir) = found {
                    self.hash_code(&dir.join("__main__.py").to_string_lossy(), sh, fragment);
                    self.follow_found(Some(lang), sh);
                }
            }
            _ => {
                let found = self.hash_code(&path, sh, fragment);
                if what == follow::SOURCED {
                    self.follow_sourced(sh);
                } else {
                    self.follow_found(Some(lang), sh);
                }
                if let Hashed::Dir(_) = found {
                    self.unhashed(fragment, format!("`{path}` is a directory"));
                }
            }
        }
    }

    /// `xargs [options] command…`: when its input is literal text (`echo ./x.sh | xargs
    /// sh`), the commands it builds are scanned; otherwise the command is scanned knowing
    /// that its input adds arguments.
    pub(super) fn xargs(&mut self, rest: &[Word], fragment: &str, sh: &mut Shell, input: &Input) {
        const VALUE: &[&str] = &[
            "-a",
            "--arg-file",
            "-d",
            "--delimiter",
            "-E",
            "-e",
            "--eof",
            "-L",
            "-l",
            "--max-lines",
            "-n",
            "--max-args",
            "-P",
            "--max-procs",
            "-s",
            "--max-chars",
            "--process-slot-var",
        ];
        let mut k = 0;
        let mut placeholder: Option<String> = None;
        let mut one_by_one = false;
        let mut from_file = false;
        while let Some(l) = rest.get(k).and_then(Word::literal) {
            if l == "--" {
                k += 1;
                break;
            }
            if !l.starts_with('-') || l == "-" {
                break;
            }
            if l == "-I" || l == "--replace" {
                placeholder = rest.get(k + 1).and_then(Word::literal);
                k += 2;
                continue;
            }
            if let Some(p) = l
                .strip_prefix("--replace=")
                .or_else(|| l.strip_prefix("-I"))
                .or_else(|| l.strip_prefix("-i"))
            {
                placeholder = Some(if p.is_empty() {
                    "{}".to_owned()
                } else {
                    p.to_owned()
                });
                k += 1;
                continue;
            }
            one_by_one |= ["-n", "-L", "-l", "--max-args", "--max-lines"]
                .iter()
                .any(|o| l.starts_with(o));
            from_file |= l.starts_with("-a") || l.starts_with("--arg-file");
            k += if VALUE.contains(&l.as_str()) { 2 } else { 1 };
        }
        if k >= rest.len() {
            return; // `xargs` alone runs `echo`
        }
        let sub = rest[k..].to_vec();
        let lit_word = |t: &str| Word {
            parts: vec![Part::Lit(t.to_owned())],
            raw: t.to_owned(),
        };
        // A list read from project files (`xargs < list`, `cat list | xargs`): the list is
        // hashed, and what it names is scanned.
        let listed;
        let input = match input {
            Input::Files(files) if !from_file => {
                let mut text = String::new();
                for f in files {
                    self.hash(f, sh, fragment, false);
                    self.last_found.clear(); // a list of arguments, not code
                    let found = sh.dirs.iter().map(|d| d.join(f)).find(|p| p.is_file());
                    match found.map(fs::read_to_string) {
                        Some(Ok(t)) if t.len() <= 64 * 1024 => text.push_str(&t),
                        _ => {
                            text.clear();
                            break;
                        }
                    }
                }
                listed = if text.is_empty() {
                    input.clone()
                } else {
                    Input::Text(text)
                };
                &listed
            }
            other => other,
        };
        if let (Input::Text(text), false) = (input, from_file)
            && !text.contains(['\'', '"', '\\'])
        {
            let mut runs: Vec<Vec<Word>> = Vec::new();
            match &placeholder {
                Some(p) => {
                    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
                        runs.push(
                            sub.iter()
                                .map(|w| match w.literal() {
                                    Some(l) => lit_word(&l.replace(p.as_str(), line)),
                                    None => w.clone(),
                                })
                                .collect(),
                        );
                    }
                }
                None if one_by_one => {
                    for token in text.split_whitespace() {
                        runs.push(sub.iter().cloned().chain([lit_word(token)]).collect());
                    }
                }
                None => runs.push(
                    sub.iter()
                        .cloned()
                        .chain(text.split_whitespace().map(lit_word))
                        .collect(),
                ),
            }
            for run in runs {
                self.command(&run, 0, fragment, sh, &Input::Nothing, Extra::None);
            }
            return;
        }
        match &placeholder {
            Some(p) => self.command(
                &sub,
                0,
                fragment,
                sh,
                &Input::Nothing,
                Extra::Placeholder(p, "xargs"),
            ),
            None => self.command(
                &sub,
                0,
                fragment,
                sh,
                &Input::Nothing,
                Extra::Appended("xargs"),
            ),
        }
    }
}
