//! An interpreter's options and operands: its script, the program it reads from stdin, its
//! inline code, the files its options load, `python -m`.

use super::*;

impl Scan<'_> {
    #[allow(clippy::too_many_arguments, reason = "the command's whole context")]
    pub(super) fn interpreted(
        &mut self,
        interp: &Interpreter,
        name: &str,
        args: &[Word],
        fragment: &str,
        sh: &mut Shell,
        input: &Input,
        extra: Extra<'_>,
    ) {
        let mut j = 0;
        let first = args.first().and_then(Word::literal);
        if let Some((_, _, what)) = RUNNER_SUBCOMMANDS
            .iter()
            .find(|(n, sub, _)| *n == name && first.as_deref() == Some(*sub))
        {
            self.unhashed(fragment, format!("`{name} {}` runs code from project files it reads itself ({what}); they are not hashed", first.unwrap_or_default()));
            return;
        }
        if let Some(sub) = interp.subcommand {
            if first.as_deref() == Some(sub) {
                j = 1;
            } else if interp.lang == Lang::Uv {
                return;
            }
        }
        let lang = interp.lang;
        let shell = lang == Lang::Shell;
        let mut inline_shell = false;
        let mut from_stdin = false;
        let mut no_project = false;
        // A login shell reads profile files; an interactive one its rc file.
        let mut login = false;
        let mut interactive = false;
        let mut rc_given = false;
        while let Some(w) = args.get(j) {
            let Some(l) = w.literal() else { break };
            if l == "--" {
                j += 1;
                break;
            }
            if !is_option(&l, shell) {
                break;
            }
            let next = args.get(j + 1);
            if l.starts_with("--") {
                let (opt, value) = match l.split_once('=') {
                    Some((o, v)) => (
                        o,
                        Some(Word {
                            parts: vec![Part::Lit(v.to_owned())],
                            raw: v.to_owned(),
                        }),
                    ),
                    None => (l.as_str(), None),
                };
                let takes = interp.value_options.contains(&opt)
                    || interp.file_options.contains(&opt)
                    || interp.dir_options.contains(&opt)
                    || interp.inline_options.contains(&opt)
                    || interp.script_options.contains(&opt);
                let value = value.as_ref().or(if takes { next } else { None });
                if opt == "--no-project" || opt == "--script" {
                    no_project = true;
                }
                if shell {
                    login |= opt == "--login";
                    interactive |= opt == "--interactive";
                    rc_given |= matches!(opt, "--norc" | "--rcfile" | "--init-file");
                }
                if OPTION_FILES.contains(&opt) {
                    self.unhashed(
                        fragment,
                        format!("`{opt}` loads options from a file (such as NODE_OPTIONS), whose effect is not followed"),
                    );
                }
                if interp.inline_options.contains(&opt) {
                    self.inline_word(value, lang, sh, fragment);
                    return;
                }
                if interp.script_options.contains(&opt) {
                    if let Some(v) = value {
                        self.code_file(v, lang, sh, input, fragment, extra, "the script");
                    }
                    return;
                }
                if interp.file_options.contains(&opt)
                    && let Some(v) = value
                {
                    self.code_file(
                        v,
                        Lang::Shell,
                        sh,
                        input,
                        fragment,
                        extra,
                        "a file it loads",
                    );
                }
                if interp.dir_options.contains(&opt) {
                    self.unhashed(
                        fragment,
                        format!(
                            "`{opt}` adds a directory modules are loaded from; they are not hashed"
                        ),
                    );
                }
                j += if takes && !l.contains('=') { 2 } else { 1 };
                continue;
            }
            if shell {
                if interp.file_options.contains(&l.as_str())
                    || interp.value_options.contains(&l.as_str())
                {
                    if interp.file_options.contains(&l.as_str())
                        && let Some(v) = next
                    {
                        self.code_file(
                            v,
                            Lang::Shell,
                            sh,
                            input,
                            fragment,
                            extra,
                            "a file it loads",
                        );
                    }
                    j += 2;
                    continue;
                }
                inline_shell |= l[1..].contains('c');
                from_stdin |= l[1..].contains('s');
                if let Some(flags) = l.strip_prefix('-') {
                    login |= flags.contains('l');
                    interactive |= flags.contains('i');
                }
                // `-euo pipefail`: `o` (and `O`) in a cluster takes the next word.
                j += if l[1..].contains(['o', 'O']) { 2 } else { 1 };
                continue;
            }
            // A cluster of one-letter options (`-Bc`, `-Wignore`, `-mpkg`).
            let mut consumed_next = false;
            for (k, ch) in l[1..].char_indices() {
                let opt = format!("-{ch}");
                let attached = &l[1 + k + ch.len_utf8()..];
                let value = if attached.is_empty() {
                    next.cloned()
                } else {
                    Some(Word {
                        parts: vec![Part::Lit(attached.to_owned())],
                        raw: attached.to_owned(),
                    })
                };
                let opt = opt.as_str();
                if interp.attached_options.contains(&opt) {
                    break;
                }
                if interp.inline_options.contains(&opt) {
                    self.inline_word(value.as_ref(), lang, sh, fragment);
                    return;
                }
                if interp.module_options.contains(&opt) {
                    match value.as_ref().map(|v| self.resolve(v, sh)) {
                        Some(Ok(module)) => self.python_module(&module, sh, fragment, true),
                        Some(Err(why)) => self.unhashed(
                            fragment,
                            format!("the module is decided at run time: {why}"),
                        ),
                        None => {}
                    }
                    return;
                }
                if interp.script_options.contains(&opt) {
                    if let Some(v) = &value {
                        self.code_file(v, lang, sh, input, fragment, extra, "the script");
                    }
                    return;
                }
                let takes = interp.file_options.contains(&opt)
                    || interp.dir_options.contains(&opt)
                    || interp.value_options.contains(&opt);
                if interp.file_options.contains(&opt)
                    && let Some(v) = &value
                {
                    self.code_file(
                        v,
                        Lang::Shell,
                        sh,
                        input,
                        fragment,
                        extra,
                        "a file it loads",
                    );
                }
                if lang == Lang::Php
                    && opt == "-d"
                    && value
                        .as_ref()
                        .and_then(Word::literal)
                        .is_none_or(|v| v.contains("auto_prepend") || v.contains("auto_append"))
                {
                    self.unhashed(fragment, "`php -d` sets a file PHP runs before or after the script, or a value known only at run time");
                }
                if interp.dir_options.contains(&opt) {
                    self.unhashed(
                        fragment,
                        format!(
                            "`{opt}` adds a directory modules are loaded from; they are not hashed"
                        ),
                    );
                }
                if takes {
                    consumed_next = attached.is_empty();
                    break;
                }
            }
            j += 1 + usize::from(consumed_next);
        }
        if shell {
            // `sh -i` reads the file `ENV` names (assigned in the text: hashed); bash, zsh
            // and fish read their own rc files unless given one.
            let env_rc = !matches!(name, "bash" | "rbash" | "zsh" | "fish")
                && matches!(sh.vars.get("ENV"), Some(Var::Value { .. }));
            if login || interactive && !rc_given && !env_rc {
                self.unhashed(
                    fragment,
                    format!(
                        "it starts a {} shell, which reads profile files (~/.profile, ~/.bashrc…) that are not hashed",
                        if login { "login" } else { "interactive" }
                    ),
                );
            }
        }
        if lang == Lang::Uv
            && !no_project
            && sh.dirs.iter().any(|d| d.join("pyproject.toml").is_file())
        {
            self.unhashed(fragment, "`uv run` first installs the project from pyproject.toml, whose build is not hashed");
        }
        let operand = args.get(j);
        if inline_shell {
            self.inline_shell(operand, sh, input, fragment, extra);
            return;
        }
        if lang == Lang::Awk {
            self.inline_word(operand, lang, sh, fragment);
            return;
        }
        match operand {
            _ if from_stdin => self.stdin_program(input, lang, sh, fragment, extra),
            None => self.stdin_program(input, lang, sh, fragment, extra),
            Some(w) if w.literal().is_some_and(|l| l == "-") => {
                self.program_from(input, lang, sh, fragment)
            }
            Some(w) if lang == Lang::Uv => {
                if w.literal().is_some_and(|l| l.ends_with(".py")) {
                    self.code_file(w, Lang::Python, sh, input, fragment, extra, "the script");
                } else {
                    let rest = args[j..].to_vec();
                    self.command(&rest, 0, fragment, sh, input, extra);
                }
            }
            Some(w) => self.code_file(w, lang, sh, input, fragment, extra, "the script"),
        }
    }

    pub(super) fn stdin_program(
        &mut self,
        input: &Input,
        lang: Lang,
        sh: &Shell,
        fragment: &str,
        extra: Extra<'_>,
    ) {
        if let Extra::Appended(tool) = extra {
            self.unhashed(
                fragment,
                format!("{tool} appends the script from its input"),
            );
            return;
        }
        self.program_from(input, lang, sh, fragment);
    }

    pub(super) fn inline_word(
        &mut self,
        code: Option<&Word>,
        lang: Lang,
        sh: &Shell,
        fragment: &str,
    ) {
        let Some(code) = code else { return };
        if lang == Lang::Shell {
            self.inline_shell(Some(code), sh, &Input::Nothing, fragment, Extra::None);
            return;
        }
        match self.resolve(code, sh) {
            Ok(text) => self.inline(&text, lang, sh, fragment),
            Err(why) => self.unhashed(
                fragment,
                format!("its inline code is built at run time: {why}"),
            ),
        }
    }
}
