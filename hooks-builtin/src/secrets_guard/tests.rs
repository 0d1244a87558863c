//! Unit tests of the policy (no files on disk: the project root does not exist).

use super::*;
use serde_json::json;

const ROOT: &str = "/nonexistent/hooks-builtin-secrets/project";
const HOME: &str = "/nonexistent/hooks-builtin-secrets/home/me";

fn guard() -> SecretsGuard {
    SecretsGuard::with_home(SecretsGuardConfig::default(), Some(HOME.into())).unwrap()
}

fn with(config: SecretsGuardConfig) -> SecretsGuard {
    SecretsGuard::with_home(config, Some(HOME.into())).unwrap()
}

fn bash(g: &SecretsGuard, command: &str) -> Verdict {
    g.check("Bash", &json!({ "command": command }), Path::new(ROOT))
}

fn read(g: &SecretsGuard, path: &str) -> Verdict {
    g.check("Read", &json!({ "file_path": path }), Path::new(ROOT))
}

fn reason(v: &Verdict) -> &str {
    match v {
        Verdict::Deny(r) => r,
        other => panic!("expected a deny, got {other:?}"),
    }
}

#[test]
fn builtin_rules_match_every_listed_secret() {
    let g = guard();
    for (path, rule) in [
        (".env", ".env"),
        ("config/.env", ".env"),
        (".env.local", ".env.*"),
        (".env.production", ".env.*"),
        ("certs/server.pem", "*.pem"),
        ("tls.key", "*.key"),
        ("id_rsa", "id_rsa*"),
        ("keys/id_ed25519", "id_ed25519*"),
        ("id_ecdsa_sk", "id_ecdsa*"),
        ("store.p12", "*.p12"),
        ("a.pfx", "*.pfx"),
        ("android/release.keystore", "*.keystore"),
        ("trust.jks", "*.jks"),
        ("~/.netrc", ".netrc"),
        (".npmrc", ".npmrc"),
        ("~/.pypirc", ".pypirc"),
        ("~/.git-credentials", ".git-credentials"),
        ("~/.ssh/config", "~/.ssh/**"),
        ("~/.ssh", "~/.ssh/**"),
        ("~/.aws/credentials", "~/.aws/**"),
        ("~/.aws/config", "~/.aws/**"),
        (
            "~/.config/gcloud/application_default_credentials.json",
            "~/.config/gcloud/**",
        ),
        ("~/.azure/accessTokens.json", "~/.azure/**"),
        ("~/.kube/config", "~/.kube/config"),
        ("~/.docker/config.json", "~/.docker/config.json"),
        ("/root/.ssh/authorized_keys", "~/.ssh/**"),
        ("/home/other/.aws/credentials", "~/.aws/**"),
    ] {
        let v = read(&g, path);
        assert!(
            reason(&v).contains(&format!("matches secrets rule {rule:?}")),
            "{path}: {v}"
        );
    }
}

#[test]
fn exceptions_and_ordinary_files_are_allowed() {
    let g = guard();
    for path in [
        ".env.example",
        ".env.sample",
        ".env.template",
        "id_rsa.pub",
        "~/.ssh/id_ed25519.pub",
        "src/main.rs",
        "environment.md",
        ".envrc.md",
        "keyboard.rs",
        "docs/keys.md",
        "monkey",
        "",
    ] {
        assert_eq!(read(&g, path), Verdict::Continue, "{path}");
    }
}

#[test]
fn matching_is_case_insensitive() {
    let g = guard();
    assert!(read(&g, ".ENV").is_deny());
    assert!(read(&g, "Server.PEM").is_deny());
    assert_eq!(read(&g, ".ENV.Example"), Verdict::Continue);
}

#[test]
fn dot_dot_and_tilde_are_applied_before_matching() {
    let g = guard();
    let v = read(&g, "src/../.env");
    assert_eq!(
        reason(&v),
        "secrets-guard: Read: \"src/../.env\" (resolves to .env) matches secrets rule \".env\""
    );
    let v = read(&g, &format!("{HOME}/.ssh/known_hosts"));
    assert!(reason(&v).contains("\"~/.ssh/**\""), "{v}");
    let v = bash(&g, "cat \"$HOME/.ssh/known_hosts\"");
    assert!(reason(&v).contains("names \"~/.ssh/known_hosts\""), "{v}");
    assert!(read(&g, "~/.ssh/../.aws/credentials").is_deny());
    assert_eq!(read(&g, "~/.ssh/../notes.txt"), Verdict::Continue);
}

#[test]
fn configured_rules_add_secrets_and_exceptions_win() {
    let g = with(SecretsGuardConfig {
        deny: vec!["config/secrets.yml".into(), "**/*.secret".into()],
        allow: vec!["fixtures/**".into(), ".env.test".into()],
        ..SecretsGuardConfig::default()
    });
    assert!(reason(&read(&g, "config/secrets.yml")).contains("\"config/secrets.yml\""));
    assert!(
        read(&g, "/tmp/x.secret").is_deny(),
        "relative deny globs apply outside"
    );
    assert_eq!(read(&g, "fixtures/test.pem"), Verdict::Continue);
    assert_eq!(read(&g, ".env.test"), Verdict::Continue);
    assert!(read(&g, ".env.prod").is_deny());
}

#[test]
fn builtin_rules_can_be_turned_off() {
    let g = with(SecretsGuardConfig {
        builtin_rules: false,
        deny: vec!["*.vault".into()],
        ..SecretsGuardConfig::default()
    });
    assert_eq!(read(&g, ".env"), Verdict::Continue);
    assert!(read(&g, "a.vault").is_deny());
}

#[test]
fn bad_globs_are_config_errors_naming_the_index() {
    for (deny, allow, field) in [
        (vec!["ok", "[x"], vec![], "deny[1]"),
        (vec![], vec!["../x"], "allow[0]"),
        (vec![""], vec![], "deny[0]"),
    ] {
        let err = SecretsGuard::new(SecretsGuardConfig {
            deny: deny.into_iter().map(Into::into).collect(),
            allow: allow.into_iter().map(Into::into).collect(),
            ..SecretsGuardConfig::default()
        })
        .unwrap_err();
        assert_eq!((err.policy, err.field.as_ref()), ("secrets_guard", field));
    }
}

#[test]
fn every_builtin_glob_compiles() {
    for (name, globs) in BUILTIN_DENY.iter().chain(BUILTIN_ALLOW) {
        for g in *globs {
            assert!(globset::Glob::new(g).is_ok(), "{name}: {g}");
        }
    }
}

#[test]
fn write_tools_and_other_tools_paths_are_checked() {
    let g = guard();
    let root = Path::new(ROOT);
    assert!(
        g.check("Edit", &json!({"file_path": ".env"}), root)
            .is_deny()
    );
    assert!(
        g.check("mcp__fs__read", &json!({"path": "id_rsa"}), root)
            .is_deny()
    );
    let patch = "*** Begin Patch\n*** Update File: .env\n*** End Patch";
    assert!(
        g.check("apply_patch", &json!({ "input": patch }), root)
            .is_deny()
    );
    let off = with(SecretsGuardConfig {
        any_tool_paths: false,
        ..SecretsGuardConfig::default()
    });
    assert_eq!(
        off.check("mcp__fs__read", &json!({"path": "id_rsa"}), root),
        Verdict::Continue
    );
}

#[test]
fn search_paths_and_filters_that_target_secrets_are_denied() {
    let g = guard();
    let root = Path::new(ROOT);
    assert!(
        g.check("Grep", &json!({"pattern": "KEY", "path": "~/.ssh"}), root)
            .is_deny()
    );
    assert!(
        g.check("Glob", &json!({"pattern": "*", "path": "~/.aws"}), root)
            .is_deny()
    );
    for filter in [".env*", "*.pem", "**/.env", "id_*", "*.{key,pem}"] {
        let v = g.check("Grep", &json!({"pattern": "KEY", "glob": filter}), root);
        assert!(
            reason(&v).contains("selects secrets files"),
            "{filter}: {v}"
        );
    }
    let v = g.check(
        "search_file_content",
        &json!({"pattern": "x", "include": ".env.*"}),
        root,
    );
    assert!(v.is_deny());
    for filter in ["*", "*.rs", "**/*", "src/**/*.ts", ".env.example"] {
        let v = g.check("Grep", &json!({"pattern": "KEY", "glob": filter}), root);
        assert_eq!(v, Verdict::Continue, "{filter}");
    }
    let v = g.check(
        "Grep",
        &json!({"pattern": "KEY", "glob": "[unclosed"}),
        root,
    );
    assert!(reason(&v).contains("cannot be read"), "{v}");
}

#[test]
fn malformed_path_fields_of_listed_tools_are_denied() {
    let g = guard();
    let root = Path::new(ROOT);
    for input in [
        json!({"file_path": [".env"]}),
        json!({"path": {"p": ".env"}}),
        json!({"paths": ".env"}),
        json!({"paths": [".env", 3]}),
    ] {
        let v = g.check("Read", &input, root);
        assert!(reason(&v).contains("is not a string"), "{input}");
    }
    assert_eq!(g.check("Read", &json!(null), root), Verdict::Continue);
    assert_eq!(g.check("Read", &json!("x"), root), Verdict::Continue);
}

#[test]
fn relative_project_root_is_refused_when_there_is_something_to_judge() {
    let g = guard();
    let v = g.check("Read", &json!({"file_path": "a"}), Path::new("rel"));
    assert!(reason(&v).contains("not an absolute path"));
    assert_eq!(
        g.check("Read", &json!({}), Path::new("rel")),
        Verdict::Continue
    );
    assert_eq!(bash(&guard(), "ls"), Verdict::Continue);
    let v = g.check("Bash", &json!({"command": "ls"}), Path::new(""));
    assert!(v.is_deny());
}

#[test]
fn shell_commands_that_read_secrets_are_denied() {
    let g = guard();
    for (cmd, rule) in [
        ("cat .env", ".env"),
        ("grep KEY .env", ".env"),
        ("source .env", ".env"),
        (". .env", ".env"),
        ("cat < .env", ".env"),
        ("cp .env /tmp/x", ".env"),
        ("base64 ~/.ssh/id_rsa", "id_rsa*"),
        ("bash -c 'cat .env'", ".env"),
        ("sh -c \"grep -r KEY .env.local\"", ".env.*"),
        ("cat \"$HOME/.ssh/id_rsa\"", "id_rsa*"),
        ("cat ${HOME}/.aws/credentials", "~/.aws/**"),
        ("cat $(pwd)/.env", ".env"),
        ("ls && cat .e\"n\"v", ".env"),
        ("cat .{env,x}", ".env"),
        ("echo hi > .env", ".env"),
        ("dd if=.env of=/dev/stdout", ".env"),
        ("docker run --env-file=.env img", ".env"),
        ("ssh -i~/.ssh/id_ed25519 host", "id_ed25519*"),
        ("tar czf - ~/.aws | base64", "~/.aws/**"),
        ("cd ~/.aws && cat credentials", "~/.aws/**"),
        ("cd config; cat ../.env", ".env"),
        ("sudo cat /root/.ssh/id_rsa", "id_rsa*"),
        ("xargs cat < .env", ".env"),
        ("openssl rsa -in server.key", "*.key"),
        ("cat file:///etc/ssl/private/server.pem", "*.pem"),
    ] {
        let v = bash(&g, cmd);
        assert!(
            reason(&v).contains(&format!("matches secrets rule {rule:?}")),
            "{cmd}: {v:?}"
        );
    }
}

#[test]
fn strict_choice_any_mention_of_a_secret_counts() {
    let g = guard();
    for cmd in [
        "echo .env",
        "ls -la .env",
        "git add .env",
        "printf %s .env | xargs cat",
    ] {
        assert!(bash(&g, cmd).is_deny(), "{cmd}");
    }
}

#[test]
fn ordinary_shell_commands_are_allowed() {
    let g = guard();
    for cmd in [
        "ls",
        "ls -la",
        "grep -r TODO src",
        "cat .env.example",
        "cat id_rsa.pub",
        "cat ~/.ssh/id_ed25519.pub",
        "cargo test --workspace",
        "echo $HOME",
        "git log --oneline | head -n 5",
        "curl https://example.com/server.key -o /dev/null",
        "cat environment.md",
        "find . -name '*.rs' -exec wc -l {} \\;",
        "",
    ] {
        assert_eq!(bash(&g, cmd), Verdict::Continue, "{cmd}");
    }
}

#[test]
fn unparseable_or_missing_commands_are_denied() {
    let g = guard();
    let v = bash(&g, "cat '.env");
    assert!(reason(&v).contains("cannot be parsed"), "{v}");
    let root = Path::new(ROOT);
    for input in [
        json!({}),
        json!({"command": 3}),
        json!(null),
        json!({"command": [1]}),
    ] {
        let v = g.check("Bash", &input, root);
        assert!(reason(&v).contains("no `command` string"), "{input}: {v}");
    }
}

#[test]
fn argv_commands_and_workdirs_are_checked() {
    let g = guard();
    let root = Path::new(ROOT);
    let v = g.check(
        "shell",
        &json!({"command": ["bash", "-lc", "cat .env"]}),
        root,
    );
    assert!(v.is_deny(), "{v:?}");
    let v = g.check(
        "shell",
        &json!({"command": ["cat", "credentials"], "workdir": "~/.aws"}),
        root,
    );
    assert!(v.is_deny(), "{v:?}");
}

#[test]
fn shell_reasons_quote_the_command_on_one_line() {
    let g = guard();
    let v = bash(&g, "cat 'a\nb' .env");
    let r = reason(&v);
    assert!(r.starts_with("secrets-guard: `cat "), "{r}");
    assert!(!r.contains('\n'), "{r}");
    let long = format!("cat {} .env", "x".repeat(1000));
    assert!(reason(&bash(&g, &long)).chars().count() < 400);
}
