//! The packs' own tests: the builtin packs parse and compile, their doc is current, and
//! rules narrow the operands they look at.
use std::path::Path;

use super::*;

#[test]
fn every_builtin_pack_parses_compiles_and_has_unique_ids() {
    let packs = builtin().expect("builtin packs");
    assert_eq!(packs.len(), BUILTIN_FILES.len());
    // Their regular expressions are compiled when first used: compile them all here.
    for pack in builtin_packs() {
        Compiled::new(&pack, true).unwrap_or_else(|e| panic!("{}: {e:?}", pack.name));
    }
    let mut ids: Vec<&str> = packs
        .iter()
        .flat_map(|p| p.rules.iter().map(|r| r.id.as_str()))
        .chain(super::super::rules::ALL.iter().map(|r| r.id))
        .collect();
    let count = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), count, "rule ids repeat across packs");
    for pack in builtin_packs() {
        assert!(
            !pack.description.is_empty(),
            "{}: no description",
            pack.name
        );
        assert!(!pack.misses.is_empty(), "{}: no `misses`", pack.name);
        for rule in &pack.rules {
            assert!(
                !rule.what.is_empty(),
                "{}: {} says nothing",
                pack.name,
                rule.id
            );
        }
    }
}

/// The letters the parser and the write rules read as tar's value options are the pack's.
#[test]
fn tars_short_value_options_are_the_packs() {
    let tar = builtin_options("tar").expect("the filesystem pack lists tar");
    let mut pack: Vec<char> = (tar.values.iter().chain(&tar.target))
        .filter_map(|o| o.strip_prefix('-'))
        .filter(|o| o.len() == 1)
        .flat_map(str::chars)
        .collect();
    pack.sort_unstable();
    let mut shell: Vec<char> = crate::shell::TAR_SHORT.chars().collect();
    shell.sort_unstable();
    assert_eq!(pack, shell);
}

fn first_command(source: &str) -> Command {
    crate::shell::parse(source)
        .expect("parses")
        .commands()
        .next()
        .expect("a command")
        .clone()
}

#[test]
fn operand_at_and_system_path_narrow_the_operands_looked_at() {
    let pack: Pack = toml::from_str(
        r#"
name = "t"
[[rules]]
id = "mv-away"
action = "deny"
what = "w"
command = ["mv"]
operand = "system"
operand_at = "not-last"
[[rules]]
id = "ln-over"
action = "ask"
what = "w"
command = ["ln -f"]
operand = "system-path"
operand_at = "last"
"#,
    )
    .expect("pack");
    let compiled = Compiled::new(&pack, true).expect("compiles");
    let root = Path::new("/work/project");
    let env = Env::new(root, root, &[]);
    let hits = |rule: usize, source: &str| {
        compiled.rules[rule]
            .matches(&first_command(source), None, &env)
            .is_some()
    };
    assert!(hits(0, "mv /etc /etc.old"));
    assert!(hits(0, "mv -v ~ /tmp/home"));
    assert!(
        !hits(0, "mv notes.txt ~"),
        "the destination is not looked at"
    );
    assert!(
        !hits(0, "mv /etc/ssh/sshd_config /tmp"),
        "not a system directory"
    );
    assert!(hits(1, "ln -sf /bin/true /usr/local/bin/python3"));
    assert!(hits(1, "ln -sf /usr/share/zoneinfo/UTC /etc/localtime"));
    assert!(
        !hits(1, "ln -sf /usr/bin/python3 bin/python"),
        "the source is not looked at"
    );
    assert!(!hits(1, "ln -sf x /tmp/y"), "/tmp/y is no system path");
    assert!(
        !hits(1, "ln -sf x ~/.local/bin/y"),
        "the home's contents are no system path"
    );
    assert!(
        !hits(1, "ln -sf x /usr/src/app/y"),
        "/usr/src is kept for source code"
    );
    let written = toml::to_string(&pack.rules[1]).expect("serializes");
    assert!(written.contains("operand_at = \"last\""), "{written}");
}

/// The markdown of `docs/command-guard-packs.md` after its marker line: every builtin pack,
/// its rules in code and its data rules.
fn render_docs() -> String {
    fn code(text: &str) -> String {
        let text = text.replace('|', "\\|");
        if text.contains('`') {
            format!("`` {text} ``")
        } else {
            format!("`{text}`")
        }
    }
    fn action(action: Action) -> &'static str {
        match action {
            Action::Deny => "deny",
            Action::Ask => "ask",
            Action::Allow => "allow",
        }
    }
    fn in_code(pack: &str) -> Vec<String> {
        use super::super::rules::{ALL, Class};
        ALL.iter()
            .filter(|r| r.pack == pack)
            .map(|r| {
                let class = match r.class {
                    Class::Deny => "deny",
                    Class::Ask => "`builtin_ask`",
                    Class::Privileged => "`privileged`",
                };
                format!("`{}` ({class})", r.id)
            })
            .collect()
    }
    let packs = builtin_packs();
    let code_only: Vec<&str> = CORE_PACKS
        .iter()
        .copied()
        .filter(|name| !packs.iter().any(|p| p.name == *name))
        .collect();
    let mut out = String::from("\n| pack | on | rules in code | data rules |\n|---|---|---|---|\n");
    for pack in &packs {
        let core = CORE_PACKS.contains(&pack.name.as_str());
        out.push_str(&format!(
            "| [`{0}`](#{1}) | {2} | {3} | {4} |\n",
            pack.name,
            pack.name.replace('.', ""),
            if core { "always" } else { "by default" },
            in_code(&pack.name).len(),
            pack.rules.len()
        ));
    }
    for name in &code_only {
        out.push_str(&format!(
            "| [`{name}`](#{}) | always | {} | 0 |\n",
            name.replace('.', ""),
            in_code(name).len()
        ));
    }
    for pack in &packs {
        let core = CORE_PACKS.contains(&pack.name.as_str());
        out.push_str(&format!("\n## `{}`\n\n", pack.name));
        out.push_str(if core {
            "Core pack: always on; its rules can be turned off one by one.\n\n"
        } else {
            "Optional pack: on by default, chosen with `packs`.\n\n"
        });
        out.push_str(&format!("{}\n\n", pack.description.trim()));
        out.push_str(&format!("**Misses:** {}\n\n", pack.misses.trim()));
        if !pack.options.is_empty() {
            let programs: Vec<String> = pack
                .options
                .iter()
                .map(|(program, known)| {
                    let list =
                        |l: &[String]| l.iter().map(|o| code(o)).collect::<Vec<_>>().join(" ");
                    let mut parts = Vec::new();
                    if !known.values.is_empty() {
                        parts.push(format!("take a value: {}", list(&known.values)));
                    }
                    if !known.target.is_empty() {
                        parts.push(format!("name where it writes: {}", list(&known.target)));
                    }
                    format!("`{program}` ({})", parts.join("; "))
                })
                .collect();
            out.push_str(&format!(
                "**Options read** (a value written as the next word is not an operand): {}.\n\n",
                programs.join(", ")
            ));
        }
        let in_code = in_code(&pack.name);
        if !in_code.is_empty() {
            out.push_str(&format!(
                "Rules in code (see the `command_guard` module docs): {}.\n\n",
                in_code.join(", ")
            ));
        }
        out.push_str("| id | action | matches | what |\n|---|---|---|---|\n");
        for rule in &pack.rules {
            let mut matches = rule
                .command
                .iter()
                .map(|c| code(c))
                .collect::<Vec<_>>()
                .join(", ");
            if !rule.unless.is_empty() {
                let unless: Vec<String> = rule.unless.iter().map(|u| code(u)).collect();
                matches.push_str(&format!("; unless {}", unless.join(", ")));
            }
            if let Some(place) = rule.operand {
                let which = match rule.operand_at {
                    OperandAt::Any => "an operand",
                    OperandAt::Last => "the last operand",
                    OperandAt::NotLast => "an operand but the last",
                    OperandAt::First => "the operand after the command's words",
                };
                matches.push_str(&format!("; {which} is {}", code(&place.to_string())));
            }
            if let Some(text) = &rule.text {
                matches.push_str(&format!("; text matches {}", code(text)));
            }
            if let Some(text) = &rule.text_unless {
                matches.push_str(&format!("; text does not match {}", code(text)));
            }
            let what = rule.what.replace('|', "\\|");
            out.push_str(&format!(
                "| `{}` | {} | {matches} | {what} |\n",
                rule.id,
                action(rule.action)
            ));
        }
    }
    for name in &code_only {
        out.push_str(&format!(
            "\n## `{name}`\n\nCore pack: always on; its rules can be turned off one by one. \
             Its rules are all in code (see the `command_guard` module docs): {}.\n",
            in_code(name).join(", ")
        ));
    }
    out
}

/// The line of `docs/command-guard-packs.md` after which the file is generated.
const DOCS_MARKER: &str = "<!-- Generated from the pack files below this line";

#[test]
fn the_packs_doc_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/command-guard-packs.md");
    let text = std::fs::read_to_string(&path).expect("docs/command-guard-packs.md");
    let end = text
        .find(DOCS_MARKER)
        .and_then(|at| text[at..].find('\n').map(|n| at + n + 1))
        .expect("the marker line");
    let expected = render_docs();
    if text[end..] == expected {
        return;
    }
    if std::env::var_os("PACKS_DOC_BLESS").is_some() {
        std::fs::write(&path, format!("{}{expected}", &text[..end])).expect("writes the doc");
        return;
    }
    panic!(
        "docs/command-guard-packs.md is out of date with the pack files; regenerate it with \
         PACKS_DOC_BLESS=1 cargo test -p hookrail-builtin --features command-guard --lib packs"
    );
}

#[test]
fn bad_pack_rules_name_the_field() {
    let pack = |rule: &str| -> Pack {
        toml::from_str(&format!("name = \"x\"\n[[rules]]\n{rule}")).expect("pack")
    };
    let cases = [
        (
            "id = \"a\"\naction = \"allow\"\nwhat = \"w\"\ncommand = [\"x\"]",
            "rules[0].action",
        ),
        (
            "id = \"a\"\naction = \"deny\"\nwhat = \"w\"\ncommand = []",
            "rules[0].command",
        ),
        (
            "id = \"a\"\naction = \"deny\"\nwhat = \"w\"\ncommand = [\"a | b\"]",
            "rules[0].command[0]",
        ),
        (
            "id = \"a\"\naction = \"deny\"\nwhat = \"w\"\ncommand = [\"x\"]\ntext = \"(\"",
            "rules[0].text",
        ),
        (
            "id = \"a\"\naction = \"deny\"\nwhat = \"w\"\ncommand = [\"x\"]\n\
             [options.x]\nvalues = [\"-e\", \"exclude\"]",
            "options.x.values[1]",
        ),
    ];
    for (rule, field) in cases {
        let err = Compiled::new(&pack(rule), true).expect_err(rule);
        assert_eq!(err.0, field, "{rule}");
    }
}
