//! The lexer against the shell forms the scan relies on.

use super::*;

/// Each command's words: literal ones as text, others as their parts.
fn words(text: &str) -> Vec<Vec<String>> {
    lex(text)
        .iter()
        .map(|c| {
            c.words
                .iter()
                .map(|w| w.literal().unwrap_or_else(|| format!("{:?}", w.parts)))
                .collect()
        })
        .collect()
}

#[test]
fn lexing_removes_quotes_and_splits_simple_commands() {
    let cases: &[(&str, &[&[&str]])] = &[
        ("./a.sh --x", &[&["./a.sh", "--x"]]),
        (r#"'a b' "c d" e\ f"#, &[&["a b", "c d", "e f"]]),
        (
            "a; b && c || d | e & f",
            &[&["a"], &["b"], &["c"], &["d"], &["e"], &["f"]],
        ),
        ("a\nb", &[&["a"], &["b"]]),
        ("a $(b c) d", &[&["a", r#"[Subst("b c")]"#, "d"]]),
        ("a `b` c", &[&["a", r#"[Subst("b")]"#, "c"]]),
        ("a > out.log 2>&1 b", &[&["a", "b"]]),
        ("a 2>/dev/null b <in c", &[&["a", "b", "c"]]),
        ("a # comment; not a command\nb", &[&["a"], &["b"]]),
        ("a#b", &[&["a#b"]]),
        ("'' x", &[&["", "x"]]),
        (r#""a\"b\$c\\d\e""#, &[&[r#"a"b$c\d\e"#]]),
        ("'unterminated", &[&["unterminated"]]),
        ("a\\\nb", &[&["ab"]]),
        ("[ -f x ] && ./a.sh", &[&["[", "-f", "x", "]"], &["./a.sh"]]),
        ("./*.sh", &[&[r#"[Lit("./"), Glob('*'), Lit(".sh")]"#]]),
        ("sh <(cat f)", &[&["sh", r#"[Proc("cat f")]"#]]),
        (
            "$X \"${Y}\" ${Z:-w}",
            &[&[r#"[Var("X")]"#, r#"[Var("Y")]"#, r#"[Param("Z:-w")]"#]],
        ),
        ("$'a\\nb'", &[&["a\nb"]]),
    ];
    for (text, want) in cases {
        assert_eq!(words(text), *want, "{text:?}");
    }
}

#[test]
fn pipes_name_their_producer_and_groups_are_opaque() {
    let pipes = |text: &str| lex(text).iter().map(|c| c.pipe_in).collect::<Vec<_>>();
    assert_eq!(pipes("cat f | sh"), [PipeIn::None, PipeIn::From(0)]);
    assert_eq!(
        pipes("a; b | c | sh"),
        [PipeIn::None, PipeIn::None, PipeIn::From(1), PipeIn::From(2)]
    );
    assert_eq!(pipes("a || sh"), [PipeIn::None, PipeIn::None]);
    assert_eq!(pipes("(cat f) | sh"), [PipeIn::None, PipeIn::Group]);
    assert_eq!(pipes("{ cat f; } | sh")[2], PipeIn::Group);
    assert_eq!(pipes("for f in a; do cat $f; done | sh")[3], PipeIn::Group);
}

#[test]
fn redirections_keep_their_descriptor_target_and_heredoc_body() {
    let cmds = lex(
        "exec 3<./x.sh\nsh <&3 2>/dev/null\nsh <<'EOF'\n./a.sh\nEOF\ncat <<-X | sh\n\t./b.sh $Y\n\tX\necho done",
    );
    let r = |c: usize| &cmds[c].redirects;
    assert_eq!(
        (r(0)[0].fd, &r(0)[0].op, r(0)[0].target.literal()),
        (Some(3), &Op::In, Some("./x.sh".into()))
    );
    assert_eq!((r(1)[0].fd, &r(1)[0].op), (None, &Op::DupIn));
    assert_eq!(r(1)[1].op, Op::Out);
    assert_eq!(
        r(2)[0].op,
        Op::HereDoc {
            quoted: true,
            body: "./a.sh\n".into()
        }
    );
    assert_eq!(
        r(3)[0].op,
        Op::HereDoc {
            quoted: false,
            body: "\t./b.sh $Y\n".into()
        }
    );
    assert_eq!(cmds[4].pipe_in, PipeIn::From(3));
    assert_eq!(cmds[5].words[0].literal().as_deref(), Some("echo"));
    assert_eq!(cmds[1].raw, "sh <&3 2>/dev/null");
}

#[test]
fn heredoc_text_that_expands_is_one_word_of_parts() {
    let word = lex_expanding("run $(cat x) `y` $Z 'q'\n");
    assert_eq!(
        word.parts,
        [
            Part::Lit("run ".into()),
            Part::Subst("cat x".into()),
            Part::Lit(" ".into()),
            Part::Subst("y".into()),
            Part::Lit(" ".into()),
            Part::Var("Z".into()),
            Part::Lit(" 'q'\n".into()),
        ]
    );
}

#[test]
fn case_patterns_are_marked_and_never_commands() {
    let text = "case \"$e\" in\n  *forbidden*) echo x >&2; exit 2 ;;\n  a|b) ./x.sh ;;\n  (c) y ;&\nesac\ncase $x in d) z;; esac";
    let got: Vec<(Vec<String>, bool)> = lex(text)
        .iter()
        .map(|c| {
            let words = c
                .words
                .iter()
                .map(|w| w.literal().unwrap_or_else(|| w.raw.clone()))
                .collect();
            (words, c.pattern)
        })
        .collect();
    let want: Vec<(Vec<&str>, bool)> = vec![
        (vec!["case", "\"$e\"", "in"], false),
        (vec!["*forbidden*"], true),
        (vec!["echo", "x"], false),
        (vec!["exit", "2"], false),
        (vec!["a", "b"], true),
        (vec!["./x.sh"], false),
        (vec!["c"], true),
        (vec!["y"], false),
        (vec!["esac"], false),
        (vec!["case", "$x", "in"], false),
        (vec!["d"], true),
        (vec!["z"], false),
        (vec!["esac"], false),
    ];
    let got: Vec<(Vec<&str>, bool)> = got
        .iter()
        .map(|(w, p)| (w.iter().map(String::as_str).collect(), *p))
        .collect();
    assert_eq!(got, want);
    // A pipe after the `case` statement is a pipe again.
    assert_eq!(
        lex("case a in b) c;; esac; x | y")[5].pipe_in,
        PipeIn::From(4)
    );
}
