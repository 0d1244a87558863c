//! Credential printers and the environment read by interpreter code
//! (`command/printers.rs`).

use super::*;

#[test]
fn commands_that_print_a_credential_are_asked() {
    let g = guard();
    for cmd in [
        "gh auth token",
        "gh auth status --show-token",
        "gh auth status -t",
        "glab auth status --show-token",
        "aws configure get aws_secret_access_key",
        "aws --profile prod configure get aws_session_token",
        "aws configure get prod.aws_secret_access_key",
        "aws configure export-credentials --format env",
        "aws sts get-session-token",
        "aws ecr get-login-password --region eu-west-1",
        "aws secretsmanager get-secret-value --secret-id db",
        "gcloud auth print-access-token",
        "gcloud secrets versions access latest --secret=db",
        "az account get-access-token",
        "kubectl config view --raw",
        "kubectl -n prod get secret db -o yaml",
        "kubectl get secret/db -ojsonpath='{.data.password}'",
        "kubectl get secrets --output=json",
        "oc whoami -t",
        "git credential fill <<< 'host=github.com'",
        "git -C repo credential fill",
        "security find-generic-password -w -s x",
        "security find-internet-password -gs github.com",
        "secret-tool lookup service github",
        "op read op://vault/item/password",
        "vault kv get secret/db",
        "pass show email",
        "heroku auth:token",
        "flyctl auth token",
        "sudo gh auth token",
    ] {
        let v = bash(&g, cmd);
        let r = asked(&v);
        assert!(r.contains("rule credential-print:"), "{cmd}: {r}");
        assert!(r.ends_with("(env_dumps: ask)"), "{r}");
    }
}

#[test]
fn the_same_programs_printing_no_credential_are_allowed() {
    let g = guard();
    for cmd in [
        "gh auth status",
        "gh auth login --with-token < /dev/null",
        "gh pr view 12",
        "aws configure get region",
        "aws configure get aws_access_key_id",
        "aws configure list",
        "aws s3 ls",
        "gcloud auth list",
        "kubectl config view",
        "kubectl get secrets",
        "kubectl get pods -o wide",
        "kubectl describe secret db",
        "git credential approve < /dev/null",
        "security find-generic-password -s x",
        "pass",
        "vault status",
        "docker inspect db",
        "docker inspect db --format '{{.State.Status}}'",
        "op signin",
    ] {
        assert_eq!(bash(&g, cmd), Verdict::Continue, "{cmd}");
    }
}

#[test]
fn interpreter_code_reading_the_environment_is_asked() {
    let g = guard();
    for (cmd, rule) in [
        ("python3 -c 'import os; print(os.environ)'", "env-dump"),
        (
            "python3 -c 'import os; print(dict(os.environ))'",
            "env-dump",
        ),
        (
            "python3 -c 'import os; print(os.environ.copy())'",
            "env-dump",
        ),
        (
            "python3 -c 'import os; print(os.environ [\"X\"], os.environ)'",
            "env-dump",
        ),
        (
            "python3 <<'EOF'\nimport os\nfor k, v in os.environ.items(): print(k, v)\nEOF",
            "env-dump",
        ),
        ("echo 'import os; print(os.environ)' | python3", "env-dump"),
        ("node -p process.env", "env-dump"),
        ("node -e 'console.log({...process.env})'", "env-dump"),
        ("bun -e 'console.log(Bun.env)'", "env-dump"),
        ("deno eval 'console.log(Deno.env.toObject())'", "env-dump"),
        ("ruby -e 'p ENV.to_h'", "env-dump"),
        ("ruby -e 'puts ENV.map { |k, v| k + v }'", "env-dump"),
        (
            "perl -e 'print \"$_=$ENV{$_}\\n\" for keys %ENV'",
            "env-dump",
        ),
        ("php -r 'print_r(getenv());'", "env-dump"),
        ("php -r 'var_dump($_SERVER);'", "env-dump"),
        ("php -r 'phpinfo();'", "env-dump"),
        ("Rscript -e 'print(Sys.getenv())'", "env-dump"),
        ("docker inspect db --format '{{.Config.Env}}'", "env-dump"),
        (
            "python3 -c 'import os; print(os.environ[\"GITHUB_TOKEN\"])'",
            "env-secret",
        ),
        (
            "python3 -c 'import os; print(os.getenv(\"AWS_SECRET_ACCESS_KEY\"))'",
            "env-secret",
        ),
        (
            "python3 -c 'import os; print(os.environ.get(\"API_KEY\", \"\"))'",
            "env-secret",
        ),
        (
            "node -e 'console.log(process.env.OPENAI_API_KEY)'",
            "env-secret",
        ),
        (
            "node -e 'console.log(process.env[\"NPM_TOKEN\"])'",
            "env-secret",
        ),
        ("ruby -e 'puts ENV.fetch(\"GITHUB_TOKEN\")'", "env-secret"),
        ("perl -e 'print $ENV{DB_PASSWORD}'", "env-secret"),
        ("lua -e 'print(os.getenv(\"API_KEY\"))'", "env-secret"),
        (
            "compgen -v | while read v; do echo \"$v=${!v}\"; done",
            "env-secret",
        ),
    ] {
        let v = bash(&g, cmd);
        let r = asked(&v);
        assert!(r.contains(&format!("rule {rule}:")), "{cmd}: {r}");
    }
}

#[test]
fn interpreter_code_reading_ordinary_variables_is_allowed() {
    let g = guard();
    for cmd in [
        "python3 -c 'import os; print(os.environ[\"HOME\"])'",
        "python3 -c 'import os; print(os.getenv(\"PATH\"))'",
        "python3 -c 'import os; print(sorted(os.environ.keys()))'",
        "python3 -c 'import os; os.environ[\"X\"] = \"1\"'",
        "python3 -c 'print(\"process.envelope\")'",
        "python3 -c 'ENV = 1; print(ENV)'",
        "node -e 'console.log(process.env.HOME)'",
        "node -e 'console.log(process.env.AWS_ACCESS_KEY_ID)'",
        "ruby -e 'puts ENV[\"HOME\"]'",
        "ruby -e 'puts ENV.include?(\"CI\")'",
        "ruby -e 'ENVIRONMENT = 1'",
        "perl -e 'print $ENV{HOME}'",
        "php -r 'echo getenv(\"HOME\");'",
        "Rscript -e 'Sys.getenv(\"HOME\")'",
        "echo $ENV",
        "echo \"${!prefix*}\" \"${!arr[@]}\"",
        "python3 script.py",
        "cargo run --example env",
    ] {
        assert_eq!(bash(&g, cmd), Verdict::Continue, "{cmd}");
    }
}

#[test]
fn credential_printers_follow_the_env_dumps_setting() {
    let deny = with(SecretsGuardConfig {
        env_dumps: EnvDumps::Deny,
        ..SecretsGuardConfig::default()
    });
    let allow = with(SecretsGuardConfig {
        env_dumps: EnvDumps::Allow,
        ..SecretsGuardConfig::default()
    });
    for cmd in ["gh auth token", "node -p process.env"] {
        assert!(matches!(bash(&deny, cmd), Verdict::Deny(_)), "{cmd}");
        assert_eq!(bash(&allow, cmd), Verdict::Continue, "{cmd}");
    }
}
