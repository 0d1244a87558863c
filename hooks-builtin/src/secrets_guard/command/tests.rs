use super::env::{env_clears, expanded, secret_name};
use super::expand::MAX_BRACE_WORDS;
use super::*;

#[test]
fn removing_or_moving_a_settings_directory_is_found() {
    let cwd = Path::new("/p");
    let home = Some(Path::new("/h"));
    let removed = |src: &str| {
        let script = shell::parse(src).expect("parses");
        let found = script
            .commands()
            .find_map(|c| removed_settings_dir(c, cwd, cwd, home, &|_, _| Vec::new(), false));
        found.map(|(_, path)| path.display().to_string())
    };
    assert_eq!(removed("rm -rf .claude").as_deref(), Some("/p/.claude"));
    assert_eq!(removed("rm -rf ./.Claude/").as_deref(), Some("/p/.Claude"));
    assert_eq!(
        removed("mv ~/.gemini /tmp/x").as_deref(),
        Some("/h/.gemini")
    );
    assert_eq!(
        removed("cd sub && rmdir ../.claude").as_deref(),
        Some("/p/.claude")
    );
    assert_eq!(
        removed("env -C /h rm -r .claude").as_deref(),
        Some("/h/.claude")
    );
    assert_eq!(removed("mv -t /tmp .claude").as_deref(), Some("/p/.claude"));
    // Moved, hidden, archived away or filled with files of unseen names.
    for taken in [
        "git mv .claude .claude-old",
        "git rm -r .claude",
        "git stash push -- .claude",
        "chmod 000 .claude",
        "chmod -R a-rwx .claude",
        "tar czf x.tgz --remove-files .claude",
        "zip -rm x.zip .claude",
        "rsync -a --remove-source-files .claude/ /tmp/x/",
        "cp -r /tmp/evil/. .claude/",
        "cp -rT /tmp/evil .claude",
        "cp -r /tmp/evil/* .claude",
        "cp -t .claude -r /tmp/evil/.",
        "rsync -a /tmp/evil/ .claude/",
        "tar xf evil.tar -C .claude",
        "tar -x -f evil.tar --directory=.claude",
        "unzip -o evil.zip -d .claude",
        "mount --bind /tmp/empty .claude",
        "find .claude -type f -exec truncate -s 0 {} +",
        // Read as getopt reads them: clusters, values, options after the operands.
        "mv -ft /tmp .claude",
        "cp -rt .claude x/.",
        "tar -xvC .claude -f x.tar",
        "tar xfC x.tar .claude",
        "tar -cf x.tgz .claude --remove",
        "rsync -a x/ .claude/ --exclude foo",
        "mount x .claude -o bind",
        "mount --target .claude /tmp/empty",
        "7z x a.7z -o.claude",
        // git's own options before its subcommand; its -C moves the operands.
        "git -C . rm -r .claude",
        "git -C sub rm -r ../.claude",
        "git -c a=b stash push -- .claude",
        // A settings directory copied in under its own name.
        "cp -r x/.claude .",
        "rsync -a x/.claude ./",
        "cp -r x/.claude/ .",
        // Abbreviated, before the command, and the archivers' other spellings.
        "mv --t=/tmp .claude",
        "7z -o.claude x x.7z",
        "7za e x.7z -o.claude",
        "tar -xf x.tar --one-top-level=.claude",
        // Extracted where it runs, checked out, mounted, downloaded into.
        "cd .claude && tar -xf x.tar",
        "cd .claude && unzip -o x.zip",
        "cpio -idm -D .claude",
        "git clone https://x/y .claude",
        "git worktree add .claude",
        "sshfs host:/x .claude",
        "curl --output-dir .claude -O http://x/settings.json",
        "wget -r -P .claude http://x/",
        "scp -r host:x/. .claude",
        "gzip -r .claude",
        "gzip .claude/*",
        "gio move .claude /tmp/x",
        "rimraf .claude",
        // Globs that match it, git's pathspec from the top, /proc and `~+`.
        "chmod 000 .c*",
        "rmdir .[c]laude",
        "cp -r x/.c* .",
        "git rm -r ':/.claude'",
        "rm -rf ~+/.claude",
        "mv /proc/self/cwd/.claude /tmp",
        "chmod u-x .claude",
        // chmod's modes read closed: a mode spelt like an option, `X`, several operations,
        // another class's bits, an ACL.
        "chmod -x .claude",
        "chmod -R -r .claude",
        "chmod u-X .claude",
        "chmod u+t-x .claude",
        "chmod u-g .claude",
        "chmod +a 'everyone deny search' .claude",
        "gzip -S -k -r .claude",
        "git rm -r ':(glob).claude'",
        "tar --remove-files -C /p -cf x.tar .claude",
        "chmod a= .claude",
        "find . -name .claude -exec chmod 000 {} +",
    ] {
        assert_eq!(removed(taken).as_deref(), Some("/p/.claude"), "{taken}");
    }
    for kept in [
        "rm .claude/commands/x.md",
        "ls .claude",
        "cp -r .claude /tmp",
        "rm -- -claude",
        // Moved into, not away.
        "mv review.md .claude/",
        "mv agents docs .claude",
        // Not where an agent reads its settings.
        "rm -rf packages/web/.claude",
        "env -C a rm -r .claude",
        "rm -rf /tmp/fixture/.gemini",
        // Copies whose names are seen: `.claude/commands`, `.claude/agents`.
        "cp -r docs/commands .claude/",
        "rsync -a docs/agents .claude/",
        "git stash",
        "git stash pop",
        "git rm -r --cached .claude",
        "find .claude -name '*.md'",
        "tar czf backup.tgz .claude",
        "tar --exclude .claude -czf x.tgz .",
        "rsync -av src/ dest/ --exclude .claude",
        "git -C /tmp/other rm -r .claude",
        "git -C . rm --cached -r .claude",
        "cp -r x/.claudex .",
        "cp -rT x/.claude /tmp/y",
        "7z x a.7z -obuild",
        // Modes that keep the owner's read and search permission.
        "chmod 700 .claude",
        "chmod -R u+rw .claude",
        "chmod go-w .claude",
        "tar -xf x.tar",
        "unzip -l a.zip",
        "gzip -k .claude/*",
        "git clone https://x/y vendor/y",
        "rsync -a x/.claude/ /tmp/y/",
        "chmod 000 .c*/commands",
        "gzip -k -r .claude",
        "git rm -r . ':!.claude'",
        "git rm -r ':(exclude).claude' build",
    ] {
        assert_eq!(removed(kept), None, "{kept}");
    }
}

#[test]
fn stashing_the_ignored_files_takes_the_local_settings() {
    let project = tempfile::tempdir().expect("temp dir");
    let root = project.path();
    let found = |src: &str| {
        let script = shell::parse(src).expect("parses");
        (script.commands())
            .find_map(|c| removed_settings_dir(c, root, root, None, &|_, _| Vec::new(), false))
    };
    // No settings directory: nothing to take.
    assert!(found("git stash --all").is_none());
    std::fs::create_dir(root.join(".claude")).expect("settings dir");
    for src in ["git stash --all", "git stash -a", "git stash push --all"] {
        assert_eq!(
            found(src).map(|(_, p)| p),
            Some(root.join(".claude")),
            "{src}"
        );
    }
    assert!(found("git stash -u").is_none());
}

#[test]
fn braces_expand_nested_and_leave_plain_words_alone() {
    assert_eq!(expand_braces(".{env,x}"), [".env", ".x"]);
    assert_eq!(expand_braces("a{b,{c,d}}e"), ["abe", "ace", "ade"]);
    assert_eq!(expand_braces("{}"), ["{}"]);
    assert_eq!(expand_braces("x{a}y{1,2}"), ["x{a}y1", "x{a}y2"]);
    assert_eq!(expand_braces("{unclosed,"), ["{unclosed,"]);
    let many = "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}";
    assert_eq!(expand_braces(many).len(), MAX_BRACE_WORDS);
}

#[test]
fn home_and_pwd_variables_are_substituted_only_as_a_leading_directory() {
    assert_eq!(substitute("$HOME/.ssh/id_rsa"), "~/.ssh/id_rsa");
    assert_eq!(substitute("${HOME}"), "~");
    assert_eq!(substitute("$HOMEDIR/x"), "$HOMEDIR/x");
    assert_eq!(substitute("$(pwd)/.env"), "./.env");
    assert_eq!(substitute("x/$HOME"), "x/$HOME");
}

#[test]
fn argv_commands_are_quoted_back_into_one_line() {
    let input = serde_json::json!({"command": ["bash", "-lc", "cat '.env'"]});
    assert_eq!(
        command_text(&input).unwrap(),
        r"'bash' '-lc' 'cat '\''.env'\'''"
    );
    assert!(command_text(&serde_json::json!({"command": ["ls", 1]})).is_none());
    assert!(command_text(&serde_json::json!({"command": []})).is_none());
    assert!(command_text(&serde_json::json!({"cmd": "ls"})).is_none());
}

#[test]
fn secret_variable_names_are_told_by_their_segments() {
    for name in [
        "GITHUB_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "API_KEY",
        "KEY",
        "DB_PASSWD",
        "GH_PAT",
        "SSH_PRIVATE_KEY",
        "NPM_TOKEN2",
        "AWS_SECRET_ACCESS_KEY_",
    ] {
        assert!(secret_name(name), "{name}");
    }
    for name in [
        "HOME",
        "PATH",
        "KEYBOARD",
        "MONKEY_BUSINESS",
        "TOKENIZERS_PARALLELISM",
        "AWS_ACCESS_KEY_ID",
        "SSH_KEY_PATH",
        "PWD",
        "api_key",
        "Api_Key",
        "",
        "_",
    ] {
        assert!(!secret_name(name), "{name}");
    }
}

#[test]
fn env_clears_only_with_its_own_i_flag() {
    for arg in ["-i", "-0i", "-", "--ignore-environment"] {
        assert!(env_clears(arg), "{arg}");
    }
    for arg in ["-0", "-uvisible", "--unset=FOO", "FOO=bar", "-Cdir"] {
        assert!(!env_clears(arg), "{arg}");
    }
}

#[test]
fn expanded_variables_leave_lengths_and_set_tests_out() {
    assert_eq!(expanded("$A/${B}x${C:-$D}"), ["A", "B", "C", "D"]);
    assert_eq!(
        expanded("${#A} ${B:+y} ${C+z} $1 $$ $? $"),
        Vec::<&str>::new()
    );
    assert_eq!(expanded("${!REF}"), ["REF"]);
    assert_eq!(expanded("a$"), Vec::<&str>::new());
}

#[test]
fn upload_forms_name_the_file_they_send() {
    let script =
        shell::parse("curl -d @a -F 'x=<b;type=t' --data-urlencode n@c --data-raw @d https://e")
            .unwrap();
    let cmd = script.commands().next().unwrap();
    let words: Vec<String> = words(cmd, &[], false, false)
        .into_iter()
        .map(|(w, _)| w)
        .collect();
    for file in ["a", "b", "c"] {
        assert!(words.iter().any(|w| w == file), "{file}: {words:?}");
    }
    assert!(!words.iter().any(|w| w == "d"), "{words:?}");
}

#[test]
fn urls_are_not_local_paths_but_file_urls_are() {
    assert_eq!(local_path("https://x.example/a.key"), None);
    assert_eq!(local_path("file:///home/me/.env"), Some("/home/me/.env"));
    assert_eq!(local_path(".env"), Some(".env"));
}

#[test]
fn string_literals_pair_quotes_on_one_line() {
    use super::words::string_literals;
    fn all(code: &str) -> Vec<&str> {
        string_literals(code).collect()
    }
    assert_eq!(
        all(r#"print(open(".env").read()); x = 'a' + `b`"#),
        [".env", "a", "b"]
    );
    // An escaped quote does not close; an empty pair yields nothing.
    assert_eq!(all(r#"f("a\"b", '', "c")"#), [r#"a\"b"#, "c"]);
    // An apostrophe whose pair is on another line starts nothing.
    assert_eq!(all("# don't\nopen(\".env\") # it's\n"), [".env"]);
    assert_eq!(all("'unclosed"), Vec::<&str>::new());
    assert_eq!(all("é'ü'"), ["ü"]);
    // Lua's long brackets and Perl's and Ruby's quote-like forms.
    assert_eq!(
        all("io.open([[.env]]) x[[1]] [==[a]]b]==]"),
        [".env", "1", "a]]b"]
    );
    assert_eq!(
        all("q(.env) qx{cat x} %x(ls) %w[a b] seq(1)"),
        [".env", "cat x", "ls", "a b"]
    );
    // Unclosed openings, however many, do not hide what follows.
    assert_eq!(all(&format!("{}'.env'", "[[ q( ".repeat(1000))), [".env"]);
}

#[test]
fn a_settings_directory_is_found_through_the_other_spellings_of_a_word() {
    let cwd = Path::new("/p");
    let also = |word: &str, dir: bool| match (word, dir) {
        ("$x", _) => vec![".claude".to_owned()],
        ("c/*", _) => vec!["/h/.claude/*".to_owned()],
        ("r", true) => vec!["/p".to_owned()],
        _ => Vec::new(),
    };
    let removed = |src: &str| {
        let script = shell::parse(src).expect("parses");
        let found = (script.commands())
            .find_map(|c| removed_settings_dir(c, cwd, cwd, Some(Path::new("/h")), &also, false));
        found.map(|(_, path)| path.display().to_string())
    };
    assert_eq!(removed("mv $x /tmp").as_deref(), Some("/p/.claude"));
    assert_eq!(removed("rm -rf c/*").as_deref(), Some("/h/.claude"));
    // The directory a `cd` into a link leads to.
    assert_eq!(
        removed("cd r; rm -rf .claude").as_deref(),
        Some("/p/.claude")
    );
    assert_eq!(removed("cd q; rm -rf .claude"), None);
}
