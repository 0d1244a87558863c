//! Credential printers and the environment read by interpreter code
//! (`command/printers.rs`).

use super::*;

/// The reason `cmd` is asked about, or a panic naming it.
fn asks(g: &SecretsGuard, cmd: &str) -> String {
    match bash(g, cmd) {
        Verdict::Ask(r) => r.into_owned(),
        other => panic!("{cmd}: expected an ask, got {other:?}"),
    }
}

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
        let r = &asks(&g, cmd);
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
            "env-secret",
        ),
        ("php -r 'print_r(getenv());'", "env-dump"),
        ("php -r 'var_dump($_SERVER);'", "env-dump"),
        ("php -r 'phpinfo();'", "env-dump"),
        ("Rscript -e 'print(Sys.getenv())'", "env-dump"),
        ("docker inspect db --format '{{.Config.Env}}'", "env-dump"),
        ("docker inspect db", "env-dump"),
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
        let r = &asks(&g, cmd);
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

#[test]
fn the_testers_bypasses_are_asked() {
    let g = guard();
    for (cmd, rule) in [
        (
            "python3 -c 'import os; os.system(\"gh auth token\")'",
            "credential-print",
        ),
        ("ruby -e 'puts `gh auth token`'", "credential-print"),
        ("perl -e 'print `env`'", "env-dump"),
        (
            "node -e 'require(\"child_process\").execSync(\"env\",{stdio:\"inherit\"})'",
            "env-dump",
        ),
        ("python3 -c 'import os; print(os . environ)'", "env-dump"),
        ("python3 -c 'import os; print(os.environb)'", "env-dump"),
        (
            "python3 -c 'import os; print({k: os.environ[k] for k in os.environ.keys()})'",
            "env-secret",
        ),
        (
            "python3 -c 'import os; print(os.environ.setdefault(\"GITHUB_TOKEN\"))'",
            "env-secret",
        ),
        (
            "python3 -c 'import os; print(os.getenv(key=\"GITHUB_TOKEN\"))'",
            "env-secret",
        ),
        (
            "python3 -c 'import os; print(os.environ[\"GITHUB_\" + \"TOKEN\"])'",
            "env-secret",
        ),
        ("node -e 'console.log(process[\"env\"])'", "env-dump"),
        ("node -e 'console.log(process .env)'", "env-dump"),
        ("bun -e 'console.log(import.meta.env)'", "env-dump"),
        ("deno eval 'console.log(Deno.env .toObject())'", "env-dump"),
        ("ruby -e 'p ENV.delete(\"GITHUB_TOKEN\")'", "env-secret"),
        ("jruby -e 'p ENV'", "env-dump"),
        ("irb -e 'p ENV'", "env-dump"),
        ("perl -le 'print for %::ENV'", "env-dump"),
        ("perl -e 'print $::ENV{GITHUB_TOKEN}'", "env-secret"),
        ("perl -e 'print @ENV{qw(GITHUB_TOKEN)}'", "env-dump"),
        ("php -i", "env-dump"),
        ("php -r 'print_r(getenv ());'", "env-dump"),
        ("Rscript -e 'print(Sys.getenv(names=TRUE))'", "env-secret"),
        (
            "awk 'BEGIN{for(k in ENVIRON) print k\"=\"ENVIRON[k]}'",
            "env-secret",
        ),
        ("awk 'BEGIN{print ENVIRON[\"GITHUB_TOKEN\"]}'", "env-secret"),
        ("julia -e 'println(ENV)'", "env-dump"),
        ("pwsh -c 'Get-ChildItem env:'", "env-dump"),
        ("pwsh -c '$env:GITHUB_TOKEN'", "env-secret"),
        ("node18 -e 'console.log(process.env)'", "env-dump"),
        (
            "aws configure get aws_secret_access_key --profile prod",
            "credential-print",
        ),
        (
            "kubectl get secret db --template='{{.data.password}}'",
            "credential-print",
        ),
        ("kubectl get secrets,configmaps -o yaml", "credential-print"),
        ("kubectl get Secret db -o yaml", "credential-print"),
        (
            "kubectl --context a --namespace b --user c --cluster d get secret x -o yaml",
            "credential-print",
        ),
        (
            "aws --profile a --region b --output json --endpoint-url http://x configure get aws_secret_access_key",
            "credential-print",
        ),
        ("docker inspect mycontainer", "env-dump"),
        (
            "aws sts assume-role --role-arn x --role-session-name y",
            "credential-print",
        ),
        (
            "aws ssm get-parameter --name db --with-decryption",
            "credential-print",
        ),
        (
            "gcloud config config-helper --format=json",
            "credential-print",
        ),
        (
            "az keyvault secret show --vault-name v --name db",
            "credential-print",
        ),
        ("kubectl create token default", "credential-print"),
        (
            "printf 'protocol=https\\nhost=github.com\\n\\n' | gh auth git-credential get",
            "credential-print",
        ),
        ("git credential-store get", "credential-print"),
        ("docker-credential-desktop get", "credential-print"),
        (
            "gh config get -h github.com oauth_token",
            "credential-print",
        ),
        ("vault print token", "credential-print"),
        (
            "op item get db --fields password --reveal",
            "credential-print",
        ),
        ("bw get password github", "credential-print"),
        ("pass github", "credential-print"),
        ("security dump-keychain -d", "credential-print"),
        (
            "npm config get //registry.npmjs.org/:_authToken",
            "credential-print",
        ),
        ("terraform output -raw db_password", "credential-print"),
        ("terraform state pull", "credential-print"),
        ("pulumi stack output --show-secrets", "credential-print"),
        ("heroku config", "credential-print"),
        ("docker compose config", "env-dump"),
        ("systemctl show-environment", "env-dump"),
        ("printenv PGPASSWORD", "env-secret"),
        ("echo $MYSQL_PWD", "env-secret"),
        ("echo $DATABASE_URL", "env-secret"),
    ] {
        let r = asks(&g, cmd);
        assert!(r.contains(&format!("rule {rule}:")), "{cmd}: {r}");
    }
}

#[test]
fn the_testers_false_positives_are_allowed() {
    let g = guard();
    for cmd in [
        "python3 -c 'import os, subprocess; env = os.environ.copy(); env[\"DEBUG\"]=\"1\"; subprocess.run([\"make\",\"test\"], env=env)'",
        "python3 -c 'import os, subprocess; subprocess.run([\"make\"], env={**os.environ, \"DEBUG\": \"1\"})'",
        "python3 -c 'import os; os.environ.update(DJANGO_SETTINGS_MODULE=\"app.settings\")'",
        "node -e \"require('child_process').execSync('npm test', {stdio:'inherit', env:{...process.env, CI:'true'}})\"",
        "python3 -c 'import os; print(\"CI\" in os.environ)'",
        "node -e 'console.log(\"CI\" in process.env)'",
        "node -e 'const { NODE_ENV } = process.env; console.log(NODE_ENV)'",
        "node -e 'console.log(process.env?.NODE_ENV)'",
        "gh issue list --label auth --search token",
        "gh pr list --search auth --label token",
        "kubectl get secrets -o name",
        "kubectl get secrets -o wide",
        "kubectl get pods -n secrets -o wide",
        "grep -rn \"os.environ\" src | python3 -c 'import sys; print(len(sys.stdin.readlines()))'",
        "python3 -c 'import os; os.environ[\"OPENAI_API_KEY\"]=\"sk-test\"; print(1)'",
        "node -e 'process.env.API_KEY=\"test\"; console.log(1)'",
        "php -r 'phpinfo(INFO_MODULES);'",
        "node -e 'console.log(process.env.NEXT_PUBLIC_SUPABASE_ANON_KEY)'",
        "echo $PWD $OLDPWD",
        "docker inspect db --format '{{.State.Status}}'",
        "pass ls",
        "terraform output",
    ] {
        assert_eq!(bash(&g, cmd), Verdict::Continue, "{cmd}");
    }
}

#[test]
fn the_second_testers_bypasses_are_asked() {
    let g = guard();
    for (cmd, rule) in [
        (
            "python3 -c 'import os; print({**os.environ, \"a\": 1})'",
            "env-dump",
        ),
        (
            "python3 -c 'import os; print(dict(**os.environ, a=\"1\"))'",
            "env-dump",
        ),
        ("node -e 'console.log({...process.env, a: 1})'", "env-dump"),
        (
            "python3 -c 'import os, pprint; pprint.pprint(object=os.environ)'",
            "env-dump",
        ),
        ("python3 -c 'import os; print(e := os.environ)'", "env-dump"),
        (
            "python3 -c 'import os\nfor e in os.environ,: print(e)'",
            "env-dump",
        ),
        (
            "ruby -e 'for k, v in ENV do puts \"#{k}=#{v}\" end'",
            "env-dump",
        ),
        ("node -e 'console.log(process.env.valueOf())'", "env-dump"),
        ("ruby -e 'p ENV.delete_if{false}'", "env-dump"),
        ("python3 -c 'print(__import__(\"os\").environ)'", "env-dump"),
        ("python3 -c 'import os; print((os).environ)'", "env-dump"),
        ("python3 -c 'import os as o; print(o.environ)'", "env-dump"),
        ("python3 -c 'import os; print(os\n.environ)'", "env-dump"),
        ("node -e 'console.log(globalThis.process.env)'", "env-dump"),
        (
            "node -e 'console.log(require(\"process\").env)'",
            "env-dump",
        ),
        ("node -e 'console.log(process?.env)'", "env-dump"),
        ("perl -e 'print %{\"main::ENV\"}'", "env-dump"),
        ("ruby -e 'p ::ENV'", "env-dump"),
        (
            "php -r 'phpinfo(INFO_GENERAL|INFO_ENVIRONMENT);'",
            "env-dump",
        ),
        (
            "python3 -c 'import os; print(os.environb.get(b\"GITHUB_TOKEN\"))'",
            "env-secret",
        ),
        ("perl -e 'print $ENV {GITHUB_TOKEN}'", "env-secret"),
        ("ruby -e 'puts ENV.fetch \"GITHUB_TOKEN\"'", "env-secret"),
        ("pwsh -c 'Get-Item Env:GITHUB_TOKEN'", "env-secret"),
        (
            "pwsh -c '[Environment]::GetEnvironmentVariable(\"GITHUB_TOKEN\")'",
            "env-secret",
        ),
        (
            "python3 -c 'import os; os.system(\"env|sort\")'",
            "env-dump",
        ),
        (
            "python3 -c 'import subprocess; subprocess.run([\"/usr/bin/env\"])'",
            "env-dump",
        ),
        ("perl -e 'print qx(env)'", "env-dump"),
        ("docker inspect -f '{{.}}' c", "env-dump"),
        ("docker inspect -f '{{.Config | json}}' c", "env-dump"),
        (
            "kubectl get --raw /api/v1/namespaces/default/secrets",
            "credential-print",
        ),
        ("docker compose convert", "env-dump"),
        ("tofu show -json", "credential-print"),
        (
            "pnpm config get //registry.npmjs.org/:_authToken",
            "credential-print",
        ),
        ("python3 -m keyring get svc user", "credential-print"),
        ("pulumi stack export --show-secrets", "credential-print"),
    ] {
        let r = asks(&g, cmd);
        assert!(r.contains(&format!("rule {rule}:")), "{cmd}: {r}");
    }
}

#[test]
fn the_second_testers_false_positives_are_allowed() {
    let g = guard();
    for cmd in [
        "python3 -c 'from os import environ; print(environ[\"HOME\"])'",
        "python3 -m pytest -k environ",
        "python3 -c 'import os, subprocess; subprocess.run([\"make\"], env=dict(os.environ, CI=\"1\"))'",
        "python3 -c 'import os, subprocess; subprocess.run([\"make\"], env={**os.environ})'",
        "python3 -c 'import os; from unittest import mock\nwith mock.patch.dict(os.environ, {\"FOO\": \"bar\"}): pass'",
        "python3 -c 'import os; os.environ.clear()'",
        "node -e 'require(\"child_process\").spawn(\"npm\", [\"test\"], {env: process.env, stdio: \"inherit\"})'",
        "node -e 'console.log(Object.keys(process.env))'",
        "python3 -c 'import os; print(len(os.environ))'",
        "docker compose config --services",
        "php script.php -i input.txt",
        "kubectl get secrets -o custom-columns=NAME:.metadata.name",
        "kubectl get secrets -o jsonpath='{.items[*].metadata.name}'",
        "kubectl get -n secrets pods -o yaml",
        "gh auth token --help",
        "pass -c github",
        "aws ecr get-login-password --region eu-west-1 | docker login --username AWS --password-stdin 1.dkr.ecr.eu-west-1.amazonaws.com",
        "gh auth token | docker login ghcr.io -u me --password-stdin",
    ] {
        assert_eq!(bash(&g, cmd), Verdict::Continue, "{cmd}");
    }
}

#[test]
fn code_nested_past_the_reading_depth_is_asked() {
    let g = guard();
    // Four interpreters deep, each running the next through `os.system` (quoted as the
    // shell's `shlex.quote` and Python's `json.dumps` would).
    let cmd = "python3 -c 'import os; os.system(\"python3 -c '\"'\"'import os; os.system(\\\"python3 -c '\"'\"'\\\"'\"'\"'\\\"'\"'\"'import os; os.system(\\\\\\\"python3 -c '\"'\"'\\\"'\"'\"'\\\"'\"'\"'\\\\\\\"'\"'\"'\\\"'\"'\"'\\\"'\"'\"'\\\\\\\"'\"'\"'\\\"'\"'\"'\\\"'\"'\"'import os; os.system(\\\\\\\\\\\\\\\"gh auth token\\\\\\\\\\\\\\\")'\"'\"'\\\"'\"'\"'\\\"'\"'\"'\\\\\\\"'\"'\"'\\\"'\"'\"'\\\"'\"'\"'\\\\\\\"'\"'\"'\\\"'\"'\"'\\\"'\"'\"'\\\\\\\")'\"'\"'\\\"'\"'\"'\\\"'\"'\"'\\\")'\"'\"'\")'";
    let r = asks(&g, cmd);
    assert!(
        r.contains("rule env-dump:") || r.contains("rule credential-print:"),
        "{r}"
    );
}

#[test]
fn long_runs_of_blanks_in_code_are_read_in_one_pass() {
    let g = guard();
    // Quadratic in the run's length before (38 s for 100 000 blanks); one pass now.
    let cmd = format!(
        "python3 -c 'x = 1{}; import os; print(os.environ)'",
        " ".repeat(100_000)
    );
    assert!(asks(&g, &cmd).contains("rule env-dump:"));
}
