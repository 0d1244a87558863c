//! What the files a command loads load in turn (issue 13.3): a hashed shell script's sourced
//! files and the scripts it runs, a Python file's project imports, a JavaScript or TypeScript
//! file's relative `require`s and `import`s are hashed, recursively; what cannot be determined
//! (a sourced path with a variable, a computed import, `importlib`, `exec`) is unhashed.
//! Also the forms where a variable names what an unknown program runs.

use std::fs;

use hookrail_config::trust::{OnUnhashed, TrustError, TrustStore, fingerprint};

use super::handlers::shell;

/// A project whose files load each other in every followed way.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<(String, String)> = [
        // Shell: `.` and `source`, nested, a cycle, running other scripts.
        ("main.sh", "#!/bin/sh\n. ./lib.sh\necho main\n"),
        ("lib.sh", "helper() { echo \"$1\"; }\n. ./lib2.sh\n"),
        ("lib2.sh", "echo deep\n"),
        ("src.sh", "source lib.sh\nhelper \"$*\"\n"),
        ("cyc_a.sh", ". ./cyc_b.sh\n"),
        ("cyc_b.sh", ". ./cyc_a.sh\n"),
        ("runs.sh", "python3 ./hook.py\nnode ./hook.js\n"),
        ("direct.sh", "./main.sh\n"),
        ("env.sh", "X=./lib2.sh\n. \"$X\"\n"),
        // The script's own directory, the usual ways.
        (
            "selfdir.sh",
            "DIR=\"$(cd \"$(dirname \"$0\")\" && pwd)\"\n. \"$DIR/lib2.sh\"\n",
        ),
        ("sub/dirname.sh", ". \"$(dirname \"$0\")/lib.sh\"\n"),
        ("sub/lib.sh", "true\n"),
        ("bs_main.sh", ". ./sub/bs.sh\n"),
        ("sub/bs.sh", ". \"$(dirname -- \"${BASH_SOURCE[0]}\")/lib.sh\"\n"),
        (
            "case.sh",
            "event=$(cat)\ncase \"$event\" in\n  *forbidden*) echo no >&2; exit 2 ;;\n  a|b) . ./lib2.sh ;;\nesac\n",
        ),
        // Python: modules next to the script and at the root, packages, relative imports.
        (
            "hook.py",
            "import json, sys\nimport helpers\nfrom pkg import mod\nimport requests\n\ndef f():\n    from pkg.sub import deep\n",
        ),
        ("helpers.py", "X = 1\n"),
        ("pkg/__init__.py", ""),
        ("pkg/mod.py", "from . import sibling\nfrom .sub import deep\n"),
        ("pkg/sibling.py", "Y = 2\n"),
        ("pkg/sub/__init__.py", ""),
        ("pkg/sub/deep.py", "Z = 3\n"),
        ("scripts/h.py", "import util\n"),
        ("scripts/util.py", "U = 1\n"),
        ("tool.py", "#!/usr/bin/env python3\nimport helpers\n"),
        // JavaScript and TypeScript: require, import, a directory's index, extensions.
        (
            "hook.js",
            "const fs = require('fs');\nconst x = require('./x');\nimport './y.js';\nconst l = require('./lib');\n",
        ),
        ("x.js", "module.exports = 1;\n"),
        ("y.js", "export {};\n"),
        ("lib/index.js", "require('./inner.js');\n"),
        ("lib/inner.js", "1;\n"),
        ("hook.ts", "import { u } from './util';\nimport type { T } from \"./types\";\n"),
        ("util.ts", "export const u = 1;\n"),
        ("types.ts", "export type T = 1;\n"),
        // Unhashed.
        ("var.sh", ". \"$LIB\"\n"),
        ("dirname.sh", ". \"$(dirname \"$0\")/lib.sh\"\n"),
        ("evals.sh", "eval \"$CMD\"\n"),
        ("shc.sh", "sh -c '. \"$(dirname \"$0\")/lib.sh\"'\n"),
        ("runs_var.sh", "python3 \"$1\"\n"),
        ("dyn.py", "import importlib\nm = importlib.import_module(name)\n"),
        ("dunder.py", "m = __import__(name)\n"),
        ("execs.py", "exec(open(p).read())\n"),
        ("dyn.js", "const m = require(name);\n"),
        ("dynimport.mjs", "const m = await import(spec);\n"),
        ("pkgdep.js", "const l = require('left-pad');\n"),
        ("above/m.py", "from ... import x\n"),
        ("ruby.rb", "require_relative './x'\n"),
    ]
    .iter()
    .map(|(n, t)| ((*n).to_owned(), (*t).to_owned()))
    .collect();
    // A chain of sourced files deeper than the scan follows.
    for k in 0..12 {
        files.push((format!("d{k}.sh"), format!(". ./d{}.sh\n", k + 1)));
    }
    files.push(("d12.sh".into(), "echo end\n".into()));
    for (name, text) in files {
        let path = dir.path().join(&name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    dir
}

/// (command, a file it loads only through another file): complete, and editing it changes the
/// fingerprint.
const FOLLOWED: &[(&str, &str)] = &[
    ("./main.sh", "lib.sh"),
    ("./main.sh", "lib2.sh"),
    ("sh ./main.sh", "lib2.sh"),
    (". ./main.sh", "lib2.sh"),
    ("bash src.sh", "lib2.sh"),
    ("sh ./cyc_a.sh", "cyc_b.sh"),
    ("sh ./runs.sh", "helpers.py"),
    ("sh ./runs.sh", "lib/inner.js"),
    ("sh ./direct.sh", "lib2.sh"),
    ("sh ./env.sh", "lib2.sh"),
    ("sh ./case.sh", "lib2.sh"),
    ("sh ./selfdir.sh", "lib2.sh"),
    ("./selfdir.sh", "lib2.sh"),
    ("sh ./sub/dirname.sh", "sub/lib.sh"),
    ("bash ./bs_main.sh", "sub/lib.sh"),
    ("python3 hook.py", "helpers.py"),
    ("python3 hook.py", "pkg/__init__.py"),
    ("python3 hook.py", "pkg/mod.py"),
    ("python3 hook.py", "pkg/sibling.py"),
    ("python3 hook.py", "pkg/sub/deep.py"),
    ("python3 scripts/h.py", "scripts/util.py"),
    ("python3 -m pkg.mod", "pkg/sibling.py"),
    ("./tool.py", "helpers.py"),
    ("python3 - < ./hook.py", "helpers.py"),
    ("node hook.js", "x.js"),
    ("node hook.js", "y.js"),
    ("node hook.js", "lib/index.js"),
    ("node hook.js", "lib/inner.js"),
    ("tsx hook.ts", "util.ts"),
    ("tsx hook.ts", "types.ts"),
];

/// (command, what the report says): the file it loads cannot be determined.
const UNHASHED: &[(&str, &str)] = &[
    (
        "sh ./var.sh",
        "var.sh: . \"$LIB\": the sourced file is decided at run time",
    ),
    // Sourced by the command itself, `$0` is the hook's shell: not a file.
    (
        ". ./dirname.sh",
        "dirname.sh: . \"$(dirname \"$0\")/lib.sh\": the sourced file is decided at run time",
    ),
    // A new shell's `$0` is its name, whatever script started it.
    (
        "sh ./shc.sh",
        "shc.sh: . \"$(dirname \"$0\")/lib.sh\": the sourced file is decided at run time",
    ),
    (
        "sh ./evals.sh",
        "evals.sh: eval \"$CMD\": `eval` runs text built at run time",
    ),
    (
        "sh ./runs_var.sh",
        "runs_var.sh: python3 \"$1\": the script is decided at run time",
    ),
    ("python3 dyn.py", "dyn.py: it uses `import_module`"),
    ("python3 dunder.py", "dunder.py: it uses `__import__`"),
    ("python3 execs.py", "execs.py: it uses `exec`"),
    (
        "node dyn.js",
        "dyn.js: it calls `require` with a name known only at run time",
    ),
    (
        "node dynimport.mjs",
        "it calls `import` with a name known only at run time",
    ),
    ("node pkgdep.js", "it loads the package `left-pad`"),
    ("python3 above/m.py", "reaches above the project"),
    ("ruby ruby.rb", "ruby.rb: it uses `require_relative`"),
    ("sh ./d0.sh", "loaded more than 8 files deep"),
    // A variable names what an unknown program runs.
    (
        "some-wrapper sh -c \"$X\"",
        "`$X` is not set in the command",
    ),
    (
        "some-wrapper python3 \"$F\"",
        "the script is decided at run time",
    ),
    (
        "tool \"$F\"",
        "`tool` is given a word known only at run time",
    ),
    (
        "/opt/bin/tool --file=\"$F\"",
        "`tool` is given a word known only at run time",
    ),
];

#[test]
fn what_hashed_files_load_is_hashed_and_an_edit_withdraws_the_approval() {
    let mut wrong = Vec::new();
    for (command, edited) in FOLLOWED {
        let dir = project();
        let fp = fingerprint(&shell(command), dir.path()).unwrap();
        if !fp.unhashed.is_empty() {
            wrong.push(format!("{command:?}: reported unhashed: {:?}", fp.unhashed));
            continue;
        }
        let path = dir.path().join(edited);
        let old = fs::read_to_string(&path).unwrap();
        fs::write(&path, format!("{old}\n// edited\n")).unwrap();
        let after = fingerprint(&shell(command), dir.path()).unwrap();
        if after.hash == fp.hash {
            wrong.push(format!(
                "{command:?}: editing {edited} does not change the fingerprint (covers {:?})",
                fp.scripts
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn what_cannot_be_determined_is_unhashed_and_needs_accepting() {
    let mut wrong = Vec::new();
    for (command, why) in UNHASHED {
        let dir = project();
        let store_dir = tempfile::tempdir().unwrap();
        let fp = fingerprint(&shell(command), dir.path()).unwrap();
        let reasons: Vec<String> = fp.unhashed.iter().map(ToString::to_string).collect();
        if !reasons.iter().any(|r| r.contains(why)) {
            wrong.push(format!("{command:?}: expected {why:?}, got {reasons:?}"));
            continue;
        }
        let mut store = TrustStore::load(&store_dir.path().join("trust.json")).unwrap();
        if !matches!(
            store.try_approve(&fp, None, OnUnhashed::Refuse),
            Err(TrustError::Unhashed { .. })
        ) {
            wrong.push(format!("{command:?}: approved without accepting"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn standard_library_and_third_party_imports_are_not_project_files() {
    let dir = project();
    let fp = fingerprint(&shell("python3 hook.py"), dir.path()).unwrap();
    assert!(fp.unhashed.is_empty(), "{:?}", fp.unhashed);
    let names: Vec<String> = fp
        .scripts
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for name in ["hook.py", "helpers.py", "mod.py", "sibling.py", "deep.py"] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }
    assert!(
        !names
            .iter()
            .any(|n| n.starts_with("json") || n.starts_with("requests")),
        "{names:?}"
    );
}

#[test]
fn a_cycle_of_sourced_files_ends_and_each_file_is_hashed_once() {
    let dir = project();
    let fp = fingerprint(&shell("sh ./cyc_a.sh"), dir.path()).unwrap();
    assert!(fp.unhashed.is_empty(), "{:?}", fp.unhashed);
    assert_eq!(fp.scripts.len(), 2, "{:?}", fp.scripts);
}

#[test]
fn inert_programs_and_shell_functions_take_run_time_words() {
    let dir = project();
    for command in [
        "echo \"$X\"",
        "grep -q \"$PATTERN\" ./lib2.sh",
        "curl -d \"$BODY\" https://example.com/hook",
        "f() { echo \"$1\"; }; f \"$X\"",
        "sh ./src.sh",
    ] {
        let fp = fingerprint(&shell(command), dir.path()).unwrap();
        assert!(fp.unhashed.is_empty(), "{command}: {:?}", fp.unhashed);
    }
}
