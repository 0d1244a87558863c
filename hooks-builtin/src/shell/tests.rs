use super::*;

/// Every command, as `program args` (`!` in front when privileged).
fn flat(src: &str) -> Vec<String> {
    let script = parse(src).unwrap_or_else(|e| panic!("{src:?}: {e}"));
    script
        .commands()
        .map(|c| format!("{}{c}", if c.privileged { "!" } else { "" }))
        .collect()
}

fn first(src: &str) -> Command {
    let script = parse(src).unwrap_or_else(|e| panic!("{src:?}: {e}"));
    script.commands().next().cloned().expect("a command")
}

#[test]
fn quotes_and_escapes_are_removed() {
    assert_eq!(flat(r#"'r'm -rf "/""#), ["rm -rf /"]);
    assert_eq!(flat(r"\rm -rf \/"), ["rm -rf /"]);
    assert_eq!(flat(r#""r""m" -r'f' /"#), ["rm -rf /"]);
    assert_eq!(
        flat(r"$'\x72\155' $'a\tb\'c' $'\u00e9'"),
        ["rm 'a\tb'\\''c' é"]
    );
    assert_eq!(first(r#"echo "a \"b\" \$c \n""#).args, [r#"a "b" $c \n"#]);
    assert_eq!(flat("rm \\\n  -rf /"), ["rm -rf /"]);
    assert_eq!(first("echo  a\t\tb ").args, ["a", "b"]);
}

#[test]
fn variables_record_the_values_given_them() {
    let vars = |src: &str| -> Vec<(String, String)> {
        (parse(src).expect(src).variables.into_iter())
            .map(|v| (v.name, v.value))
            .collect()
    };
    let pair = |n: &str, v: &str| (n.to_owned(), v.to_owned());
    assert_eq!(vars("f=.env; cat $f"), [pair("f", ".env")]);
    assert_eq!(
        vars("f='a b' g+=c; cmd"),
        [pair("f", "a b"), pair("g", "c")]
    );
    // Set for the command alone, after its words are expanded.
    assert!(vars("f=.env cat $f").is_empty());
    assert_eq!(
        vars("export A=1 B; declare -x C=2; local d[0]=x"),
        [pair("A", "1"), pair("C", "2"), pair("d", "x")]
    );
    assert_eq!(
        vars("for f in .env \"x y\"; do cat $f; done"),
        [pair("f", ".env"), pair("f", "x y")]
    );
    // In a nested script too; an option or a bad name is no variable.
    assert_eq!(
        vars("bash -c 'k=~/.ssh/id_rsa; cat $k'"),
        [pair("k", "~/.ssh/id_rsa")]
    );
    assert!(vars("export -p; echo 1=2; declare 9x=1").is_empty());
    // A substitution quoted at the assignment runs where the value is expanded again.
    assert!(flat("x='a[$(rm x)]'; (( x ))").contains(&"rm x".to_owned()));
    // The value whole, and the substitution alone.
    assert_eq!(
        flat("export P=\"\\$(id)\""),
        ["export 'P=$(id)'", "'$(id)'", "id", "id"]
    );
    assert_eq!(flat("b=$(id) c=\"$(id)\""), ["id", "id"]);
}

#[test]
fn a_loop_that_a_pipe_feeds_gives_its_body_that_input() {
    let script = parse("echo x | while read -r l; do sh; done | sort").unwrap();
    let pipelines: Vec<Vec<String>> = (script.pipelines.iter())
        .map(|p| p.commands.iter().map(ToString::to_string).collect())
        .collect();
    assert_eq!(
        pipelines,
        [
            vec!["echo x", "read -r l"],
            vec!["echo x", "sh"],
            vec!["sort"],
            // What `sh` reads, as its script.
            vec!["x"]
        ]
    );
    // Not fed: nothing added, and nothing after the loop.
    assert_eq!(
        flat("while read -r l; do sh; done < list; ls"),
        ["read -r l", "sh", "<list", "ls"]
    );
}

#[test]
fn terminals_and_multiplexers_run_what_they_are_given() {
    assert_eq!(flat("xterm -e rm -rf x"), ["xterm -e rm -rf x", "rm -rf x"]);
    assert_eq!(
        flat("tmux new -d -s w 'rm -rf x'"),
        ["tmux new -d -s w 'rm -rf x'", "rm -rf x"]
    );
    assert_eq!(
        flat("tmux send-keys -t 0 'rm -rf x' Enter"),
        ["tmux send-keys -t 0 'rm -rf x' Enter", "rm -rf x"]
    );
    assert_eq!(
        flat("screen -S job -X stuff 'rm -rf x^M'"),
        ["screen -S job -X stuff 'rm -rf x^M'", "rm -rf x"]
    );
    assert_eq!(
        flat("screen -dmS job rm -rf x"),
        ["screen -dmS job rm -rf x", "rm -rf x"]
    );
    assert_eq!(flat("tmux attach -t 0"), ["tmux attach -t 0"]);
}

#[test]
fn wrappers_are_stripped_with_their_options() {
    for src in [
        "/bin/rm -rf /",
        "/usr/bin/../bin/rm -rf /",
        "command rm -rf /",
        "command -p -- rm -rf /",
        "builtin rm -rf /",
        "exec -a name rm -rf /",
        "nohup rm -rf /",
        "time -p rm -rf /",
        "/usr/bin/time -f %e -o out rm -rf /",
        "nice -n 10 rm -rf /",
        "nice -10 rm -rf /",
        "env rm -rf /",
        "env -i X=1 Y='a b' rm -rf /",
        "env -u HOME -- rm -rf /",
        "env -S 'rm -rf /'",
        "timeout -s KILL 5 rm -rf /",
        "timeout --signal=KILL 5s rm -rf /",
        "stdbuf -o0 rm -rf /",
        "ionice -c 3 rm -rf /",
        "setsid nohup nice rm -rf /",
        "busybox rm -rf /",
        "X=1 Y=2 rm -rf /",
        "$(which rm) -rf /",
        "`command -v rm` -rf /",
    ] {
        assert!(flat(src).contains(&"rm -rf /".to_owned()), "{src}");
    }
    assert_eq!(flat("command -v rm"), ["command -v rm"]);
    assert_eq!(flat("env"), ["env"]);
    assert_eq!(flat("timeout 5"), ["timeout 5"]);
}

#[test]
fn more_wrappers_are_stripped_wherever_a_command_follows() {
    for src in [
        "env - rm -rf /",
        "env -0 rm -rf /",
        "env -P /bin rm -rf /",
        "env --ignore-environment rm -rf /",
        "env -iS 'rm -rf /'",
        "env --split-string='rm -rf /'",
        "coproc rm -rf /",
        "noglob rm -rf /",
        "nocorrect rm -rf /",
        "- rm -rf /",
        "repeat 3 rm -rf /",
        "daemonize -c /tmp -o log /bin/rm -rf /",
        "uvx --from x rm -rf /",
        "=rm -rf /",
        "time -f %e -- rm -rf /",
        "timeout --preserve-status 5 rm -rf /",
        "timeout -k 1 5 rm -rf /",
        "stdbuf -oL -eL rm -rf /",
        "nice --adjustment 5 rm -rf /",
        "ionice -c3 -n 7 rm -rf /",
        "taskset -c 0-3 rm -rf /",
        "chrt -r 10 rm -rf /",
        "chrt -d -T 1 -P 2 -D 3 0 rm -rf /",
        "setsid -f rm -rf /",
        "toybox rm -rf /",
        "flock /tmp/lock rm -rf /",
        "flock -w 5 -x /tmp/lock rm -rf /",
        "chroot /mnt rm -rf /",
        "chroot --userspec 1:1 /mnt rm -rf /",
        "unshare -r rm -rf /",
        "unshare --propagation private -m -R /mnt -w / rm -rf /",
        "nsenter -t 1 -m -u rm -rf /",
        "nsenter --target 1 -a rm -rf /",
        "systemd-run --user rm -rf /",
        "systemd-inhibit --why x rm -rf /",
        "dbus-run-session -- rm -rf /",
        "firejail --noprofile rm -rf /",
        "proxychains -q -f conf rm -rf /",
        "proxychains4 rm -rf /",
        "torsocks -u u rm -rf /",
        "torify rm -rf /",
        "strace -f -o out -e trace=file rm -rf /",
        "ltrace -o out rm -rf /",
        "valgrind --tool=memcheck rm -rf /",
        "caffeinate -i -t 60 rm -rf /",
        "xvfb-run -a -s '-screen 0 1x1x8' rm -rf /",
        "faketime 'last friday' rm -rf /",
        "faketime -f '+1d' rm -rf /",
        "fakeroot rm -rf /",
        "eatmydata rm -rf /",
        "tini -- rm -rf /",
        "dumb-init rm -rf /",
        "unbuffer rm -rf /",
        "sshpass -p secret rm -rf /",
        "numactl -N 0 rm -rf /",
        "cpulimit -l 50 rm -rf /",
        "prlimit --nofile=10 rm -rf /",
        "cgexec -g cpu:x rm -rf /",
        "catchsegv rm -rf /",
        "chronic rm -rf /",
        "ifne rm -rf /",
        "nohup nice -n 5 timeout 10 stdbuf -o0 env -i X=1 rm -rf /",
    ] {
        let commands = flat(src);
        assert!(
            commands.contains(&"rm -rf /".to_owned()),
            "{src}: {commands:?}"
        );
    }
    for src in [
        "runuser -u bob -- rm -rf /",
        "runuser --user bob rm -rf /",
        "run0 rm -rf /",
        "run0 -u bob -D / rm -rf /",
        "gosu bob rm -rf /",
        "su-exec bob rm -rf /",
        "systemd-run rm -rf /",
        "systemd-run -p Nice=5 --uid=bob rm -rf /",
        "sudo -E rm -rf /",
        "doas -u root rm -rf /",
    ] {
        let commands = flat(src);
        assert!(
            commands.contains(&"!rm -rf /".to_owned()),
            "{src}: {commands:?}"
        );
    }
    // With nothing to run, the wrapper is the command.
    assert_eq!(flat("flock /tmp/lock"), ["flock /tmp/lock"]);
    assert_eq!(flat("chroot /mnt"), ["chroot /mnt"]);
    assert_eq!(flat("env -"), ["env -"]);
    assert_eq!(flat("runuser -l bob"), ["!runuser -l bob"]);
}

#[test]
fn scripts_that_wrappers_run_are_parsed() {
    for src in [
        "flock /tmp/lock -c 'rm -rf /'",
        "flock -n /tmp/lock --command 'rm -rf /'",
        "sg wheel -c 'rm -rf /'",
        "sg - wheel 'rm -rf /'",
        "script -c 'rm -rf /'",
        "script -q -c 'rm -rf /' /dev/null",
        "script --command='rm -rf /' log",
        "script -q log rm -rf /",
        "watch -x rm -rf /",
        "watch -n 1 -d 'rm -rf /'",
        "watch --interval=1 -- rm -rf /",
        "parallel rm -rf ::: /",
        "parallel 'rm -rf {}' ::: /",
        "parallel -j 4 'rm -rf {}' ::: a /",
        "parallel ::: 'rm -rf /'",
        "alias x='rm -rf /'",
        "$SHELL -c 'rm -rf /'",
        "${BASH} -c 'rm -rf /'",
        "at now <<< 'rm -rf /'",
        "echo 'rm -rf /' | batch",
    ] {
        let commands = flat(src);
        assert!(
            commands.contains(&"rm -rf /".to_owned()),
            "{src}: {commands:?}"
        );
    }
    let last = |src: &str| flat(src).last().cloned().unwrap_or_default();
    assert_eq!(last("runuser bob -c 'rm -rf /'"), "!rm -rf /");
    assert_eq!(
        last("runuser -l bob --session-command='rm -rf /'"),
        "!rm -rf /"
    );
    assert_eq!(flat("parallel -j4 rm ::: a b")[1..], ["rm a", "rm b"]);
    assert_eq!(flat("parallel 'rm {}' ::: 'a b'")[1..], ["rm 'a b'"]);
    assert_eq!(flat("at -f job.sh now"), ["at -f job.sh now"]);
}

#[test]
fn an_alias_runs_its_value_with_the_words_it_is_used_with() {
    let has = |src: &str, command: &str| {
        let commands = flat(src);
        assert!(commands.iter().any(|c| c == command), "{src}: {commands:?}");
    };
    has("shopt -s expand_aliases\nalias x='rm -rf'\nx ~", "rm -rf ~");
    has("alias x='rm -rf' y='ls'; x / 'a b'", "rm -rf / 'a b'");
    has("alias rm='rm -rf'\nrm ~", "rm -rf ~");
    has(
        "alias q='psql -c'\nq 'DROP DATABASE prod'",
        "psql -c 'DROP DATABASE prod'",
    );
    // An alias is not expanded inside itself: `ls` runs once with `-F`, and nothing loops.
    let commands = flat("alias ls='ls -F'\nls src");
    assert_eq!(
        commands.iter().filter(|c| c.starts_with("ls")).count(),
        2,
        "{commands:?}"
    );
    // A value of plain words is put in place, in its pipeline, and a chain is followed.
    has("alias x='bash'\necho 'rm -rf ~' | x", "rm -rf ~");
    has("alias a='rm -rf'\nalias b='a'\nb ~", "rm -rf ~");
    has("alias x='rm'\nalias y='x -rf'\ny ~", "rm -rf ~");
    // A value that sets a variable first is a script, judged with the words it is used with.
    has("alias x='FOO=1 rm -rf'\nx ~", "rm -rf ~");
    assert!(commands.contains(&"ls -F src".to_owned()), "{commands:?}");
    assert!(parse("alias a=b b=a\na x").is_ok());
    // A use before the definition is not the alias.
    assert!(!flat("x ~; alias x='rm -rf'").contains(&"rm -rf ~".to_owned()));
}

#[test]
fn xargs_runs_with_the_input_it_is_given() {
    let has = |src: &str, command: &str| {
        let commands = flat(src);
        assert!(commands.iter().any(|c| c == command), "{src}: {commands:?}");
    };
    has("echo / | xargs rm -rf", "rm -rf /");
    has("echo a / | xargs -0 rm -rf", "rm -rf a /");
    has(r"printf '/\n' | xargs -I{} rm -rf {}", "rm -rf /");
    has(r"printf '%s\n' x / | xargs -I % rm -rf %/", "rm -rf //");
    has("xargs rm -rf <<< /etc", "rm -rf /etc");
    // A here-document's body comes after the line; what xargs runs is added once it is read.
    has("xargs rm -rf <<EOF\n/etc\nEOF", "rm -rf /etc");
    has(
        "xargs rm -rf <<-EOF\n\t/etc\n\tEOF\necho next",
        "rm -rf /etc",
    );
    has(
        "cat <<'EOF' | xargs -I{} sh -c {}\nrm -rf /\nEOF",
        "rm -rf /",
    );
    has("xargs rm <<EOF", "rm");
    // xargs removes quotes and backslashes from what it reads, unless given a delimiter.
    has("xargs rm -rf <<< '\"/\"'", "rm -rf /");
    has("echo \"'/'\" | xargs rm -rf", "rm -rf /");
    has("xargs -I{} rm -rf {} <<EOF\n\"/\"\nEOF", "rm -rf /");
    has("echo 'a\\ b' | xargs touch", "touch 'a b'");
    let delimited = flat("printf '\"/\"' | xargs -0 rm -rf");
    assert!(!delimited.iter().any(|c| c == "rm -rf /"), "{delimited:?}");
    // With a delimiter an item is what lies between delimiters, blanks and newline included:
    // one script for `sh -c`, and the blank-separated words judged as well.
    has("echo 'rm -rf /' | xargs -0 bash -c", "rm -rf /");
    has(
        r"printf 'ls\nrm -rf /' | xargs -d '\n' -I{} sh -c {}",
        "rm -rf /",
    );
    has("printf 'rm -rf ~,x' | xargs -d , sh -c", "rm -rf ~");
    // `-n`/`-L`: a command per so many items.
    has(
        r"printf 'ls\nrm -rf ~\n' | xargs -d '\n' -n1 bash -c",
        "rm -rf ~",
    );
    has(
        r"printf 'ls\nrm -rf ~\n' | xargs -d '\n' --max-args=1 bash -c",
        "rm -rf ~",
    );
    has("printf 'ls,rm -rf ~' | xargs -d , -L 1 sh -c", "rm -rf ~");
    has("echo a / | xargs -n 1 rm -rf", "rm -rf /");
    // The work bound counts the command once per group and the items twice, not the whole
    // input once per group: 2 000 one-letter items into `-n1` are read, not refused.
    let many = format!("xargs -n1 echo <<< '{}/'", "a ".repeat(2_000));
    let runs = flat(&many);
    assert_eq!(runs.iter().filter(|c| *c == "echo a").count(), 2_000);
    assert!(
        runs.iter().any(|c| c == "echo /"),
        "{:?}",
        &runs[runs.len() - 3..]
    );
    // printf's escapes in its format, `--` before it.
    has(r"printf 'x\0/root\0' | xargs -0 rm -rf", "rm -rf x /root");
    has(r"printf '%s\000' -rf ~ | xargs -0 rm", "rm -rf ~");
    has(r"printf -- '-rf\n/root\n' | xargs rm", "rm -rf /root");
    has(
        r"printf 'ls\trm -rf ~' | xargs -d '\t' -L 1 sh -c",
        "rm -rf ~",
    );
    has(
        r"printf 'x:rm -rf /' | xargs -d '\x3a' -I{} sh -c {}",
        "rm -rf /",
    );
    // An environment variable bash imports as a function: its body runs.
    has(
        "env 'BASH_FUNC_ls%%=() { rm -rf /; }' bash -c ls",
        "rm -rf /",
    );
    has(
        "sudo 'BASH_FUNC_x%%=() { rm -rf ~; }' bash -c x",
        "!rm -rf ~",
    );
    assert_eq!(first("env A%=1 ls").program, "ls");
    // A subscript in a name a builtin takes is arithmetic, and its substitutions run.
    has("printf -v 'a[$(rm -rf /)]' x", "rm -rf /");
    has("declare 'a[`rm -rf ~`]=1'", "rm -rf ~");
    has("test -v 'é[$(rm -rf /x)]'", "rm -rf /x");
    assert_eq!(flat("echo 'a[$(rm -rf /)]'"), ["echo 'a[$(rm -rf /)]'"]);
    has("echo / | xargs -n1 -P4 sudo rm -rf", "!rm -rf /");
    has("xargs -a list rm -rf", "rm -rf");
    // Its options are read once, clusters included: `-0a FILE` names the items' file.
    has("xargs -0a <(echo /) rm -rf", "rm -rf /");
    has("xargs --arg-file list rm -rf", "rm -rf '$(cat list)'");
    // An `-a` among the command's own words is the command's.
    assert!(!flat("xargs grep -a x").iter().any(|c| c.contains("$(cat")));
    assert_eq!(flat("echo a | xargs"), ["echo a", "xargs"]);
}

#[test]
fn ssh_runs_a_remote_script_in_the_remote_home() {
    let at = |src: &str| {
        parse(src)
            .unwrap()
            .commands()
            .map(|c| format!("{c}@{}", c.dir.as_deref().unwrap_or(".")))
            .collect::<Vec<_>>()
    };
    assert_eq!(at("ssh host rm -rf build")[1], "rm -rf build@~");
    assert_eq!(
        at("ssh -p 22 -i key -o A=b user@host 'cd /srv && rm -rf x'")[1..],
        ["cd /srv@~", "rm -rf x@/srv"]
    );
    assert_eq!(at("ssh host -t rm -rf /")[1], "rm -rf /@~");
    assert_eq!(at("ssh -J jump host -- ls")[1], "ls@~");
    // Other remote runners: gcloud's `--command`, ansible's `-a`.
    assert_eq!(
        at("gcloud compute ssh vm --zone z --command='rm -rf x'")[1],
        "rm -rf x@~"
    );
    assert_eq!(at("ansible all -m shell -a 'rm -rf x'")[1], "rm -rf x@~");
    assert_eq!(at("gcloud compute instances list").len(), 1);
    // A program under another name is judged as that one.
    assert_eq!(first("kubecolor delete ns x").program, "kubectl");
    assert_eq!(
        at("cd /x; ssh host <<'EOF'\nrm -rf y\nEOF")[2],
        "rm -rf y@~"
    );
    assert_eq!(at("echo 'rm -rf /' | ssh host")[2], "rm -rf /@~");
    assert_eq!(
        flat("ssh host 'sudo bash -s' <<< 'rm -rf /'")
            .last()
            .unwrap(),
        "!rm -rf /"
    );
    assert_eq!(flat("ssh host"), ["ssh host"]);
    assert_eq!(flat("ssh -N -L 1:a:2 host"), ["ssh -N -L 1:a:2 host"]);
}

#[test]
fn wrappers_that_change_directory_set_it() {
    let dir = |src: &str| {
        let script = parse(src).unwrap();
        let rm = script.commands().find(|c| c.program == "rm").cloned();
        rm.and_then(|c| c.dir).unwrap_or_else(|| ".".into())
    };
    assert_eq!(dir("env -C /etc rm -rf ssh"), "/etc");
    assert_eq!(dir("env --chdir=/etc rm -rf ssh"), "/etc");
    assert_eq!(dir("cd a && env -C b rm -rf c"), "a/b");
    assert_eq!(dir("sudo -D /usr rm -rf lib"), "/usr");
    assert_eq!(dir("unshare --wd=/ rm -rf x"), "/");
    assert_eq!(
        dir("systemd-run --user --working-directory=/opt rm -rf x"),
        "/opt"
    );
    assert_eq!(dir("env -C /etc bash -c 'rm -rf ssh'"), "/etc");
    assert_eq!(dir("env -C /etc find . -exec rm -rf {} +"), "/etc");
}

#[test]
fn trap_bodies_are_parsed_like_eval() {
    for src in [
        "trap 'rm -rf /' EXIT",
        "trap -- 'rm -rf /' EXIT INT",
        "trap \"rm -rf /\" 0",
        "bash -c \"trap 'rm -rf /' ERR; false\"",
    ] {
        assert!(flat(src).contains(&"rm -rf /".to_owned()), "{src}");
    }
    for src in [
        "trap -p",
        "trap -l",
        "trap -p EXIT",
        "trap - EXIT",
        "trap '' INT",
        "trap EXIT",
        "trap 0 1 2",
    ] {
        assert_eq!(flat(src).len(), 1, "{src}: {:?}", flat(src));
    }
    assert_eq!(flat("trap 'rm -f \"$tmp\"' EXIT")[1], "rm -f $tmp");
}

#[test]
fn every_reading_of_an_ambiguous_construct_is_parsed() {
    let has = |src: &str, command: &str| {
        let commands = flat(src);
        assert!(commands.iter().any(|c| c == command), "{src}: {commands:?}");
    };
    // `((…))`: arithmetic in bash, nested subshells in dash.
    has("((rm -rf /))", "rm -rf /");
    has("sh -c '((rm -rf /))'", "rm -rf /");
    has("if ((rm -rf /)); then :; fi", "rm -rf /");
    has("((x=1)) && ((rm -rf /)) > log", "rm -rf /");
    // `$((…))`: arithmetic, or a substitution of a subshell.
    has("echo $((rm -rf /))", "rm -rf /");
    has("echo \"$((rm -rf /))\"", "rm -rf /");
    // `[[`: a test in bash, a command named `[[` in dash.
    has("[[ x && rm -rf / ]]", "rm -rf / ]]");
    has("sh -c '[[ -n x ]] || rm -rf /'", "rm -rf /");
    // Braces: expanded by bash and zsh, not by dash.
    has("{rm,-rf,/}", "rm -rf /");
    has("rm -rf {/,x}", "rm -rf / x");
    has("rm -rf /{e,u}{tc,sr}", "rm -rf /etc /esr /utc /usr");
    has("sudo rm -rf /{,}", "!rm -rf / /");
    has("rm -rf {/..}", "rm -rf {/..}");
    assert_eq!(flat(r"rm -rf '{/,x}' \{/,x}"), ["rm -rf {/,x} {/,x}"]);
    assert_eq!(
        flat("find . -exec rm {} +"),
        ["find . -exec rm {} +", "rm ./{found}"]
    );
    // `time` and `coproc` are reserved words before a compound command.
    has("time { rm -rf /; }", "rm -rf /");
    has("time -p ( rm -rf / )", "rm -rf /");
    has("coproc { rm -rf /; }", "rm -rf /");
    has("coproc worker { rm -rf /; }", "rm -rf /");
    has("coproc ( rm -rf / )", "rm -rf /");
    // A reading that is not shell syntax is no reading, and no error.
    assert_eq!(flat("(( x = (1 + 2) * 3 ))"), Vec::<String>::new());
    assert_eq!(
        flat("echo $(( (1 + 2) * 3 ))"),
        ["echo '$(( (1 + 2) * 3 ))'"]
    );
    assert_eq!(flat("[[ ( -f a ) ]]"), ["[[ '(' -f a ')'"]);
    assert_eq!(flat("for ((i=0; i<3; i++)); do :; done"), [":"]);
}

#[test]
fn expanding_here_documents_run_their_substitutions() {
    assert_eq!(
        flat("cat <<EOF\nhello $(rm -rf /) `ls`\nEOF"),
        ["cat <<EOF", "rm -rf /", "ls"]
    );
    assert_eq!(
        flat("cat <<-EOF > f\n\t$(rm -rf /)\n\tEOF\necho done"),
        ["cat <<EOF >f", "rm -rf /", "echo done"]
    );
    for quoted in ["'EOF'", "\"EOF\"", "\\EOF", "E\"OF\""] {
        let delimiter = quoted.replace(['\'', '"', '\\'], "");
        let src = format!("cat <<{quoted}\n$(rm -rf /)\n{delimiter}");
        assert_eq!(flat(&src), ["cat <<EOF"], "{src}");
    }
    assert_eq!(flat("cat <<EOF\n\\$(rm -rf /)\nEOF"), ["cat <<EOF"]);
    assert!(parse("cat <<EOF\n$(ls\nEOF\n)").is_err());
    assert_eq!(flat("cat <<EOF\nends with a backslash \\"), ["cat <<EOF"]);
}

#[test]
fn known_positional_parameters_are_put_in() {
    let has = |src: &str, command: &str| {
        let commands = flat(src);
        assert!(commands.iter().any(|c| c == command), "{src}: {commands:?}");
    };
    has("sh -c 'rm -rf \"$1\"' sh /", "rm -rf /");
    has("sh -c 'rm -rf $0' /", "rm -rf /");
    has("bash -c 'rm -rf \"${1}\"/etc' _ ''", "rm -rf /etc");
    has("bash -c 'rm -rf \"$@\"' _ / x", "rm -rf / x");
    has("sh -c 'rm -rf \"$1\"/'", "rm -rf /");
    has("sh -c 'eval \"rm -rf $1\"' _ /", "rm -rf /");
    assert_eq!(
        flat("sh -c 'rm -rf \"$1\" \"$HOME\"' sh x")[1..],
        ["rm -rf x $HOME"]
    );
    // At top level they are unknown, and left as written.
    assert_eq!(flat("rm -rf \"$1\""), ["rm -rf $1"]);
}

#[test]
fn sudo_and_doas_mark_the_command_privileged() {
    for src in [
        "sudo rm -rf /",
        "sudo -u root -E rm -rf /",
        "sudo --user=root -- rm -rf /",
        "sudo -Eu root FOO=1 rm -rf /",
        "doas -u root rm -rf /",
        "pkexec rm -rf /",
        "sudo env X=1 nice rm -rf /",
    ] {
        assert_eq!(flat(src), ["!rm -rf /"], "{src}");
    }
    assert_eq!(flat("sudo -i"), ["sudo -i"]);
    assert_eq!(
        flat("su - root -c 'rm -rf /'"),
        ["!su - root -c 'rm -rf /'", "!rm -rf /"]
    );
    assert_eq!(
        flat("sudo bash -c 'rm -rf /'"),
        ["!bash -c 'rm -rf /'", "!rm -rf /"]
    );
    // The substitution runs in the calling shell, not under sudo.
    assert_eq!(flat("sudo rm $(ls)"), ["!rm '$(ls)'", "ls"]);
}

#[test]
fn operators_newlines_and_pipelines() {
    let script = parse("a; b && c || d | e & f\ng |& h").unwrap();
    let pipelines: Vec<Vec<&str>> = script
        .pipelines
        .iter()
        .map(|p| p.commands.iter().map(|c| c.program.as_str()).collect())
        .collect();
    assert_eq!(
        pipelines,
        [
            vec!["a"],
            vec!["b"],
            vec!["c"],
            vec!["d", "e"],
            vec!["f"],
            vec!["g", "h"]
        ]
    );
}

#[test]
fn subshells_groups_and_control_flow_are_entered() {
    assert_eq!(flat("(cd x && rm -rf y)"), ["cd x", "rm -rf y"]);
    assert_eq!(flat("{ a; b; } > log"), [">log", "a", "b"]);
    assert_eq!(
        flat("if [ -d x ]; then rm -rf x; else echo no; fi"),
        ["[ -d x ]", "rm -rf x", "echo no"]
    );
    assert_eq!(
        flat("for f in *.txt $(ls); do rm \"$f\"; done"),
        ["ls", "rm $f"]
    );
    assert_eq!(flat("for ((i=0; i<3; i++)); do echo $i; done"), ["echo $i"]);
    assert_eq!(
        flat("while read l; do echo $l; done < list"),
        ["read l", "echo $l", "<list"]
    );
    assert_eq!(flat("until false\ndo\n  ls\ndone"), ["false", "ls"]);
    assert_eq!(flat("case $x in a|b) rm a;; (*) ls;& esac"), ["rm a", "ls"]);
    assert_eq!(flat("! grep -q x f || rm f"), ["grep -q x f", "rm f"]);
    assert_eq!(
        flat("[[ $a =~ ^(x|y)$ && -f b ]] && rm c"),
        ["[[ $a =~ '^(x|y)$' '&&' -f b", "rm c"]
    );
    // `((i++))` is arithmetic in bash, and the command `i++` in two subshells in dash.
    assert_eq!(flat("((i++)); ((ls); (pwd))"), ["ls", "pwd", "i++"]);
}

#[test]
fn a_compound_stage_is_a_stage_by_the_commands_at_its_edges() {
    let stages = |src: &str| -> Vec<String> {
        let script = parse(src).unwrap_or_else(|e| panic!("{src:?}: {e}"));
        script.pipelines[0]
            .commands
            .iter()
            .map(ToString::to_string)
            .collect()
    };
    // What reads its input (the first of each of its pipelines), then what writes its output
    // (the last of its one pipeline, or an unknown `cat` for what several write together),
    // in its place; a command that is both, once.
    assert_eq!(stages("echo x | (sh)"), ["echo x", "sh"]);
    assert_eq!(stages("(curl u) | sh"), ["curl u", "sh"]);
    assert_eq!(
        stages("echo x | (cat; a | b) 2>/dev/null | tee f"),
        ["echo x", "2>/dev/null", "cat", "a", "cat", "tee f"]
    );
    assert_eq!(stages("{ a; b; } | c"), ["cat", "c"]);
    assert_eq!(stages("(a | b) | c"), ["b", "c"]);
    assert_eq!(stages("x | (a | b) | c"), ["x", "a", "b", "c"]);
    assert_eq!(stages("x | (cd sub && sh)"), ["x", "sh"]);
    // Not piped: its commands are pipelines of their own only, each once.
    assert_eq!(flat("(a; b)"), ["a", "b"]);
    assert_eq!(flat("(a; b) > f"), [">f", "a", "b"]);
}

#[test]
fn substitutions_are_parsed_and_kept_as_text() {
    assert_eq!(flat("echo $(rm -rf /)"), ["echo '$(rm -rf /)'", "rm -rf /"]);
    assert_eq!(
        flat("echo \"$(a $(b))\""),
        ["echo '$(a $(b))'", "a '$(b)'", "b"]
    );
    assert_eq!(
        flat("echo `a \\`b\\``"),
        ["echo '`a \\`b\\``'", "a '`b`'", "b"]
    );
    assert_eq!(
        flat("diff <(curl a) >(tee b)"),
        ["diff '<(curl a)' '>(tee b)'", "curl a", "tee b"]
    );
    assert_eq!(
        flat("echo ${X:-$(rm y)} $((1 + $(c)))"),
        [
            "echo '${X:-$(rm y)}' '$((1 + $(c)))'",
            "rm y",
            "c",
            "1 + '$(c)'",
            "c"
        ]
    );
    assert_eq!(flat("a=(1 $(rm x) 3) b=$(id)"), ["rm x", "id"]);
    assert_eq!(
        flat("echo $(case x in a) ls;; esac)"),
        ["echo '$(case x in a) ls;; esac)'", "ls"]
    );
    assert_eq!(
        first("rm -rf $HOME ${HOME} \"$HOME\"/ ~ $(pwd)").args,
        ["-rf", "$HOME", "${HOME}", "$HOME/", "~", "$(pwd)"]
    );
}

#[test]
fn shell_strings_and_eval_are_parsed_again() {
    assert_eq!(
        flat("bash -c 'rm -rf /'"),
        ["bash -c 'rm -rf /'", "rm -rf /"]
    );
    assert_eq!(
        flat("sh -c \"cd /; rm -rf *\""),
        ["sh -c 'cd /; rm -rf *'", "cd /", "rm -rf *"]
    );
    assert_eq!(flat("zsh -lc 'rm -rf ~' x").last().unwrap(), "rm -rf ~");
    assert_eq!(
        flat("bash -o pipefail -ec 'rm -rf /'").last().unwrap(),
        "rm -rf /"
    );
    assert_eq!(flat("dash -c -- 'rm -rf /'").last().unwrap(), "rm -rf /");
    assert_eq!(flat("eval \"rm -rf\" /"), ["eval 'rm -rf' /", "rm -rf /"]);
    assert_eq!(
        flat("bash -c \"bash -c 'eval rm\\ -rf\\ /'\"")
            .last()
            .unwrap(),
        "rm -rf /"
    );
    assert_eq!(flat("bash script.sh"), ["bash script.sh"]);
    assert_eq!(
        first("bash -c 'x' name").shell_script(),
        Some(ShellScript::Inline("x"))
    );
    assert_eq!(
        first("bash -x script.sh a").shell_script(),
        Some(ShellScript::File("script.sh"))
    );
    assert_eq!(first("sh").shell_script(), Some(ShellScript::Stdin));
    assert_eq!(first("ls").shell_script(), None);
}

#[test]
fn xargs_and_find_exec_commands_are_added() {
    assert_eq!(
        flat("find . -name '*.o' -exec rm -rf {} \\;"),
        ["find . -name *.o -exec rm -rf {} ';'", "rm -rf ./{found}"]
    );
    assert_eq!(
        flat("find / -execdir sudo rm {} +").last().unwrap(),
        "!rm {}"
    );
    assert_eq!(flat("ls | xargs -0 -I{} -n 1 rm -rf {}")[2], "rm -rf {}");
    assert_eq!(
        flat("xargs -I {} sh -c 'rm -rf \"$1\"' _ {}")[2..],
        ["rm -rf {}"]
    );
    assert_eq!(flat("xargs"), ["xargs"]);
    // Items from a program's output or a file stand in as a substitution of it.
    assert_eq!(flat("ls | xargs rm -rf")[2..], ["rm -rf", "rm -rf '$(ls)'"]);
    assert_eq!(
        flat("xargs -I% mv % old/ < list").last().unwrap(),
        "mv '$(cat list)' old/"
    );
    assert_eq!(flat("git ls-files | xargs"), ["git ls-files", "xargs"]);
}

#[test]
fn heredoc_bodies_are_data_unless_a_shell_reads_them() {
    let script = parse("cat <<EOF > f\nrm -rf /\nEOF\nls").unwrap();
    assert_eq!(
        script
            .commands()
            .map(|c| c.program.as_str())
            .collect::<Vec<_>>(),
        ["cat", "ls"]
    );
    let cat = &script.pipelines[0].commands[0];
    assert_eq!(cat.redirects[0].target, "rm -rf /\n");
    assert_eq!(cat.redirects[1].target, "f");
    assert_eq!(
        flat("bash <<'EOF'\nrm -rf /\nEOF").last().unwrap(),
        "rm -rf /"
    );
    assert_eq!(
        flat("sh <<-EOF\n\trm -rf /\n\tEOF\nls"),
        ["sh <<EOF", "ls", "rm -rf /"]
    );
    assert_eq!(
        flat("cat <<A <<B; ls\na\nA\nb\nB\npwd"),
        ["cat <<EOF <<EOF", "ls", "pwd"]
    );
    assert_eq!(flat("sh <<< 'rm -rf /'").last().unwrap(), "rm -rf /");
    assert_eq!(flat("echo 'rm -rf /' | sh").last().unwrap(), "rm -rf /");
    assert_eq!(
        flat("echo -n rm -rf / | sudo bash").last().unwrap(),
        "!rm -rf /"
    );
    assert_eq!(
        flat("printf 'rm -rf /\\n' | bash").last().unwrap(),
        "rm -rf /"
    );
    assert_eq!(
        flat("printf '%s\\n' 'rm -rf /' | bash").last().unwrap(),
        "rm -rf /"
    );
    assert_eq!(
        flat("cat <<EOF | sh\nrm -rf /\nEOF").last().unwrap(),
        "rm -rf /"
    );
    assert_eq!(flat("sh < script.sh"), ["sh <script.sh"]);
    assert_eq!(flat("cat <<EOF\nunterminated"), ["cat <<EOF"]);
}

#[test]
fn cd_sets_the_directory_of_later_commands_until_its_subshell_ends() {
    let dirs = |src| {
        let script = parse(src).unwrap();
        let dir = |c: &Command| c.dir.clone().unwrap_or_else(|| ".".into());
        script
            .commands()
            .map(|c| format!("{}@{}", c.program, dir(c)))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        dirs("ls; cd /tmp && cd build; rm x"),
        ["ls@.", "cd@.", "cd@/tmp", "rm@/tmp/build"]
    );
    assert_eq!(
        dirs("(cd /; rm a); rm b; echo $(cd /)"),
        ["cd@.", "rm@/", "rm@.", "echo@.", "cd@."]
    );
    assert_eq!(
        dirs("cd / && bash -c 'rm a; cd ~; rm b'"),
        ["cd@.", "bash@/", "rm@/", "cd@/", "rm@~"]
    );
    assert_eq!(
        dirs("cd; cd -P x; cd -; ls"),
        ["cd@.", "cd@~", "cd@~/x", "ls@$OLDPWD"]
    );
}

#[test]
fn redirections_are_recorded() {
    let c = first("ls > out 2>&1 &>>all 3<in 2>> log <> rw >| clobber");
    let ops: Vec<String> = c.redirects.iter().map(ToString::to_string).collect();
    assert_eq!(
        ops,
        [
            ">out", "2>&1", "&>>all", "3<in", "2>>log", "<>rw", ">clobber"
        ]
    );
    assert!(c.redirects[0].writes_file() && !c.redirects[1].writes_file());
    assert_eq!(flat("> /dev/sda"), [">/dev/sda"]);
    assert!(first(">&file").redirects[0].writes_file());
}

#[test]
fn comments_are_skipped() {
    assert_eq!(flat("# rm -rf /"), Vec::<String>::new());
    assert_eq!(flat("ls # rm -rf /\npwd"), ["ls", "pwd"]);
    assert_eq!(first("echo a#b $# ${#x}").args, ["a#b", "$#", "${#x}"]);
}

#[test]
fn functions_record_what_they_call() {
    let script = parse(":(){ :|:& };:").unwrap();
    assert_eq!(
        script.functions,
        [Function {
            name: ":".into(),
            calls: vec![":".into(), ":".into()]
        }]
    );
    assert_eq!(script.commands().count(), 3);
    let script = parse("function f() { g; (h); }\nf").unwrap();
    assert_eq!(script.functions[0].calls, ["g", "h"]);
}

#[test]
fn malformed_input_is_an_error() {
    for src in [
        "echo 'open",
        "echo \"open",
        "echo $(ls",
        "echo `ls",
        "echo ${x",
        "| ls",
        "ls |",
        "ls &&",
        "ls ||",
        "(ls",
        "ls )",
        ")",
        "{ ls",
        "case x in a) ls",
        "ls;;",
        "; ls",
        "echo $'x",
        "f() ls",
        "cat <",
        "a=(1 2",
        "ls & ;",
    ] {
        assert!(parse(src).is_err(), "{src:?} parsed");
    }
}

#[test]
fn nesting_is_bounded() {
    let deep_parens = "(".repeat(100_000);
    assert!(matches!(
        parse(&deep_parens),
        Err(ShellError::TooDeep | ShellError::TooComplex)
    ));
    let deep_subst = "$(".repeat(100_000);
    assert_eq!(
        parse(&format!("echo {deep_subst}")),
        Err(ShellError::TooDeep)
    );
    let evals = "eval ".repeat(MAX_DEPTH);
    assert_eq!(
        flat(&format!("{evals}rm -rf /")).last().unwrap(),
        "rm -rf /"
    );
    assert_eq!(
        parse(&format!("eval {evals}rm -rf /")),
        Err(ShellError::TooDeep)
    );
    let mut script = "rm -rf /".to_owned();
    for _ in 0..6 {
        script = format!("bash -c {}", quote(&script));
    }
    assert_eq!(flat(&script).last().unwrap(), "rm -rf /");
    assert_eq!(parse(&"xargs ".repeat(1000)), Err(ShellError::TooDeep));
    assert_eq!(
        parse(&"sudo ".repeat(100_000)).unwrap().commands().count(),
        1
    );
}

#[test]
fn reparsing_that_would_explode_is_refused() {
    // Each level holds its substitution twice (once parsed in place, once re-parsed as the
    // `bash -c` script), so the work doubles per level.
    let mut script = "ls".to_owned();
    for _ in 0..24 {
        script = format!("bash -c \"$({script}) $({script})\"");
        if script.len() > 16 * 1024 {
            break;
        }
    }
    assert!(matches!(
        parse(&script),
        Err(ShellError::TooComplex | ShellError::TooDeep)
    ));
    assert_eq!(
        parse(&"x".repeat(MAX_LEN + 1)),
        Err(ShellError::TooLong(MAX_LEN + 1))
    );
}

#[test]
fn work_that_is_not_linear_is_charged() {
    let too_complex = |src: &str| {
        assert_eq!(
            parse(src).map(|s| s.commands().count()),
            Err(ShellError::TooComplex),
            "{}…",
            &src[..40]
        );
    };
    // Each of these took seconds or gigabytes before it was charged.
    too_complex(&format!("{}ls", "env -S ".repeat(50_000)));
    too_complex(&format!("{}ls", "cd aaaaaaaaaaaaaaaaaaaa;".repeat(20_000)));
    too_complex(&format!(
        "{}ls",
        "env -C aaaaaaaaaaaaaaaaaaaa ".repeat(20_000)
    ));
    too_complex(&format!("echo {}", "{a,b}".repeat(40)));
    too_complex("echo {1..100000000}");
    too_complex(&format!("{}ls;", "eval ".repeat(30)).repeat(1000));
    too_complex(&format!(
        "echo {} | xargs -I{{}} rm {}",
        "a ".repeat(5000),
        "{} ".repeat(5000)
    ));
    too_complex(&format!(
        "parallel 'echo {}' ::: {}",
        "x".repeat(10_000),
        "a ".repeat(10_000)
    ));
    too_complex(&"ls;".repeat(100_000));
}

#[test]
fn carriage_returns_are_blanks() {
    assert_eq!(flat("rm -rf /\r\nls\r\n"), ["rm -rf /", "ls"]);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Bytes of shell syntax, so random strings reach the parser's corners.
    fn shellish() -> impl Strategy<Value = String> {
        let atoms = prop::sample::select(vec![
            "a", "rm", " ", "\n", ";", "&", "&&", "|", "||", "(", ")", "{", "}", "$(", "`", "'",
            "\"", "\\", "$'", "${", "<<", "EOF", "<", ">", "2>&1", "#", "bash -c ", "eval ",
            "sudo ", "((", "))", "case ", " in ", "esac", "for ", "do ", "done", "xargs ",
            "-exec ", "=", "é",
        ]);
        prop::collection::vec(atoms, 0..64).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn arbitrary_text_never_panics_and_stays_bounded(src in any::<String>()) {
            if let Ok(script) = parse(&src) {
                prop_assert!(script.commands().count() <= 4 * src.len() + 8192);
            }
        }

        #[test]
        fn shell_like_text_never_panics_and_stays_bounded(src in shellish()) {
            if let Ok(script) = parse(&src) {
                prop_assert!(script.commands().count() <= 4 * src.len() + 8192);
                for c in script.commands() {
                    prop_assert!(c.args.iter().all(|a| a.len() <= src.len() * 4 + 16));
                }
            }
        }
    }
}

#[test]
fn positional_parameters_are_put_in_only_when_the_script_cannot_change_them() {
    let args = |src: &str| -> Vec<String> {
        let script = parse(src).unwrap();
        let rm = script.commands().find(|c| c.program == "rm").unwrap();
        rm.args.clone()
    };
    assert_eq!(args("sh -c 'rm -rf \"$1\"' _ /"), ["-rf", "/"]);
    assert_eq!(
        args("sh -c 'set -euo pipefail; rm -rf \"$1\"' _ /"),
        ["-rf", "/"]
    );
    assert_eq!(args("sh -c 'shift; rm -rf \"$1\"' _ x /"), ["-rf", "$1"]);
    // `set --` gives them values the guard reads, where they were left unknown.
    assert_eq!(args("sh -c 'set -- /; rm -rf \"$1\"' _ x"), ["-rf", "/"]);
    assert_eq!(
        args("sh -c 'f() { rm -rf \"$1\"; }; f /' _ x"),
        ["-rf", "$1"]
    );
}

#[test]
fn options_that_run_a_command_line_are_parsed_as_scripts() {
    let programs = |src: &str| -> Vec<String> {
        let script = parse(src).unwrap();
        script.commands().map(|c| c.program.clone()).collect()
    };
    assert_eq!(programs("git -c core.pager='less -R' log"), ["git", "less"]);
    assert_eq!(programs("git -c alias.x='!rm -rf y' x"), ["git", "rm"]);
    assert_eq!(programs("git -c alias.st=status st"), ["git"]);
    assert_eq!(
        programs("git config --file f core.sshCommand 'ssh -v'"),
        ["git", "ssh"]
    );
    assert_eq!(programs("git rebase -x 'make test' main"), ["git", "make"]);
    assert_eq!(programs("git bisect run cargo test"), ["git", "cargo"]);
    assert_eq!(
        programs("tar --checkpoint-action=exec='echo hi' -cf x.tar y"),
        ["tar", "echo"]
    );
    assert_eq!(programs("ssh -oProxyCommand='nc h 22' host"), ["ssh", "nc"]);
    assert_eq!(programs("gdb -ex 'shell make' ./a.out"), ["gdb", "make"]);
    assert_eq!(programs("less +!date log"), ["less", "date"]);
    assert_eq!(programs("git log -- -x"), ["git"]);
}

#[test]
fn awk_and_editor_commands_are_parsed_as_scripts() {
    let programs = |src: &str| -> Vec<String> {
        let script = parse(src).unwrap();
        script.commands().map(|c| c.program.clone()).collect()
    };
    assert_eq!(
        programs(r#"awk 'BEGIN{system("rm -rf y")}'"#),
        ["awk", "rm"]
    );
    assert_eq!(
        programs(r#"awk '{ print | "sort -u" }' f"#),
        ["awk", "sort"]
    );
    assert_eq!(
        programs(r#"awk 'BEGIN{ "date" | getline d }'"#),
        ["awk", "date"]
    );
    assert_eq!(programs(r#"awk -f prog.awk 'system("x")'"#), ["awk"]);
    assert_eq!(programs("vim -c ':!make' f"), ["vim", "make"]);
    assert_eq!(
        programs(r#"nvim -c 'call system("make")' f"#),
        ["nvim", "make"]
    );
    assert_eq!(
        programs(r#"emacs --eval '(shell-command "make")'"#),
        ["emacs", "make"]
    );
    assert_eq!(programs("vim +10 f"), ["vim"]);
}

#[cfg(all(feature = "command-guard", feature = "secrets-guard"))]
#[test]
fn a_kept_parse_is_the_parse_of_the_same_text_and_is_used_once() {
    use std::rc::Rc;
    let line = "cargo test --workspace && rm -rf build";
    let first = parse_and_keep(line).unwrap();
    assert_eq!(*first, parse(line).unwrap());
    // The next guard takes the first one's parse, once.
    assert!(Rc::ptr_eq(&first, &parse_kept(line).unwrap()));
    let again = parse_kept(line).unwrap();
    assert!(!Rc::ptr_eq(&first, &again));
    assert_eq!(first, again);
    // A parse kept for another line is not taken for this one, and is gone after the look.
    parse_and_keep("cat .env").unwrap();
    assert_eq!(*parse_kept(line).unwrap(), *first);
    assert!(!Rc::ptr_eq(&first, &parse_kept(line).unwrap()));
    // A line that does not parse is kept as its error.
    let error = parse("echo 'unclosed").unwrap_err();
    assert_eq!(parse_and_keep("echo 'unclosed").unwrap_err(), error);
    assert_eq!(parse_kept("echo 'unclosed").unwrap_err(), error);
    // A line past the limit is not kept.
    let long = format!("echo {}", "a".repeat(MAX_KEPT));
    let kept = parse_and_keep(&long).unwrap();
    let taken = parse_kept(&long).unwrap();
    assert!(!Rc::ptr_eq(&kept, &taken));
    assert_eq!(kept, taken);
}

#[test]
fn program_names_are_read_as_a_file_system_that_ignores_case_finds_them() {
    // macOS's and Windows's default file systems run `rm` for `RM`; Git Bash, MSYS2, Cygwin
    // and WSL run `rm.exe` for `rm`.
    assert_eq!(flat("RM -rf /"), ["rm -rf /"]);
    assert_eq!(flat("/BIN/Rm -rf /"), ["rm -rf /"]);
    assert_eq!(flat("rm.EXE -rf x"), ["rm -rf x"]);
    assert_eq!(flat("Git.exe push"), ["git push"]);
    assert_eq!(flat("$(which RM) -rf x"), ["rm -rf x", "which RM"]);
    assert_eq!(flat("SUDO ls"), ["!ls"]);
    // Arguments keep their case; a name that is only `.exe` is a name.
    assert_eq!(flat("echo ABC.EXE"), ["echo ABC.EXE"]);
    assert_eq!(flat(".exe x"), [".exe x"]);
}
