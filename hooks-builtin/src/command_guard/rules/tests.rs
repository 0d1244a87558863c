//! Unit tests of the builtin rules: `find` deletes, globs, disks, and the pack rule on
//! force-moved protected branches.

use std::path::Path;

use hookrail_core::Verdict;

use super::super::CommandGuard;
use super::env::{could_match_kept, glob_parts, is_pure_wildcard};
use super::*;

/// The project root of the cases; it need not exist.
const ROOT: &str = "/work/project";

/// The answer to `command` run at the project root `root`: `deny RULE`, `ask RULE` or
/// `allow`.
fn answer_in(command: &str, root: &str) -> String {
    let verdict = CommandGuard::default().check(command, Path::new(root));
    let rule = |reason: &str| {
        reason
            .strip_prefix("command-guard rule ")
            .and_then(|r| r.split(':').next())
            .unwrap_or(reason)
            .to_owned()
    };
    match &verdict {
        Verdict::Deny(r) => format!("deny {}", rule(r)),
        Verdict::Ask(r) => format!("ask {}", rule(r)),
        _ => "allow".to_owned(),
    }
}

/// Checks each `(command, answer)` at [`ROOT`], reporting every one that differs.
fn expect(cases: &[(&str, &str)]) {
    let wrong: Vec<String> = cases
        .iter()
        .map(|(command, want)| (command, want, answer_in(command, ROOT)))
        .filter(|(_, want, got)| got != *want)
        .map(|(command, want, got)| format!("{command:?}: expected {want}, got {got}"))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn find_with_a_filter_that_takes_every_file_deletes_the_tree() {
    expect(&[
        ("find . -name '*' -delete", "deny rm-project"),
        ("find . -iname '*' -delete", "deny rm-project"),
        ("find . -path './*' -delete", "deny rm-project"),
        ("find . -regex '.*' -delete", "deny rm-project"),
        ("find . -true -delete", "deny rm-project"),
        ("find . -name x -o -delete", "deny rm-project"),
        ("find . -name x -or -delete", "deny rm-project"),
        ("find . -name x , -delete", "deny rm-project"),
        ("find . ! -name x -delete", "deny rm-project"),
        ("find . -not -name x -delete", "deny rm-project"),
        ("find . -delete -name x", "deny rm-project"),
        ("find . -name .git -prune -o -delete", "deny rm-project"),
        ("find . '(' -name a -o -true ')' -delete", "deny rm-project"),
        ("find / -name '*' -delete", "deny rm-root"),
        ("find ~ -name '*' -delete", "deny rm-home"),
        ("find /etc -name '*' -delete", "deny rm-system"),
    ]);
}

#[test]
fn find_with_a_selecting_filter_still_passes() {
    expect(&[
        ("find . -name '*.pyc' -delete", "allow"),
        ("find build -type f -delete", "allow"),
        ("find . -name node_modules -prune -o -print", "allow"),
        ("find . -name .git -prune -o -name '*.pyc' -delete", "allow"),
        (
            "find . '(' -name '*.pyc' -o -name '*.pyo' ')' -delete",
            "allow",
        ),
        ("find . -newermt 2024-01-01 -name '*.log' -delete", "allow"),
        ("find . -name '*.tmp' -exec env rm -f {} +", "allow"),
        ("find . -type f -exec sh -c 'echo \"$1\"' _ {} \\;", "allow"),
        ("find . -name '*.log' -exec echo -delete \\;", "allow"),
        ("find /tmp -name '*.log' -delete", "ask rm-outside-project"),
    ]);
}

#[test]
fn find_start_paths_after_options_and_dashdash_are_read() {
    expect(&[
        ("find -- / -name '*' -delete", "deny rm-root"),
        ("find -L -- / -delete", "deny rm-root"),
        ("find -H -D tree -O3 / -name '*' -delete", "deny rm-root"),
        ("find -- ~ -delete", "deny rm-home"),
    ]);
}

#[test]
fn find_exec_through_wrappers_and_shells_deletes_what_find_visits() {
    expect(&[
        ("find / -exec env rm -rf {} +", "deny rm-root"),
        ("find / -exec command rm -rf {} +", "deny rm-root"),
        ("find / -exec nice -n 5 rm -rf {} +", "deny rm-root"),
        ("find / -exec timeout 5 rm -rf {} +", "deny rm-root"),
        (
            "find / -exec sh -c 'rm -rf \"$1\"' _ {} \\;",
            "deny rm-root",
        ),
        (
            "find / -execdir bash -c 'rm -rf \"$@\"' _ {} +",
            "deny rm-root",
        ),
        ("find ~ -okdir env rm -r {} \\;", "deny rm-home"),
        ("find . -exec env rm -rf {} +", "deny rm-project"),
        (
            "find / -name '*.log' -exec env rm -f {} +",
            "ask rm-outside-project",
        ),
    ]);
}

#[test]
fn find_deletes_reads_branches_groups_and_negations() {
    let read = |expression: &str| find::find_deletes(&expression.split(' ').collect::<Vec<_>>());
    assert_eq!(read("-name *.pyc -print"), None);
    assert_eq!(read("-name *.pyc -delete"), Some(true));
    assert_eq!(read("-type f -delete"), Some(false));
    assert_eq!(read("-name * -delete"), Some(false));
    assert_eq!(read("-name ?* -delete"), Some(false));
    assert_eq!(read("-name ?? -delete"), Some(true));
    assert_eq!(read("-path */* -delete"), Some(false));
    assert_eq!(read("-name x -o -delete"), Some(false));
    assert_eq!(read("-name x -prune -o -name *.o -delete"), Some(true));
    assert_eq!(read("-name *.o ( -name x -o -delete )"), Some(true));
    assert_eq!(read("( -name a -o -name b ) -delete"), Some(true));
    assert_eq!(read("! ( -name a -o -name b ) -delete"), Some(false));
    assert_eq!(read("( -name a -o -type f ) -delete"), Some(false));
    assert_eq!(read("-name *.o -delete -o -delete"), Some(false));
    // A test's value is not an operator: `-name -o` looks for files named `-o`.
    assert_eq!(read("-name -o -delete"), Some(true));
    assert_eq!(read("-exec echo -delete ;"), None);
    assert_eq!(read("-exec echo {} ; -delete"), Some(false));
    // Unbalanced parentheses (find refuses them) do not panic.
    assert_eq!(read(") ) -delete ( ("), Some(false));
}

#[test]
fn exec_deletes_sees_rm_on_the_visited_path() {
    let deletes = |command: &[&str]| find::exec_deletes(command);
    assert!(deletes(&["rm", "-f", "{}"]));
    assert!(deletes(&["/bin/rm", "-rf", "/tmp/x"]));
    assert!(deletes(&["env", "-i", "rm", "-rf", "{}"]));
    assert!(deletes(&["sh", "-c", "rm -rf \"$1\"", "_", "{}"]));
    assert!(deletes(&["sh", "-c", "rm -rf {}"]));
    assert!(deletes(&["xargs", "rm", "-rf", "{}"]));
    assert!(!deletes(&["echo", "{}"]));
    assert!(!deletes(&["sh", "-c", "echo \"$1\"", "_", "{}"]));
    assert!(!deletes(&["env", "rm", "-f", "/tmp/lock"]));
}

#[test]
fn globs_with_more_than_a_wildcard_are_entries_of_their_directory() {
    expect(&[
        ("rm -rf *.egg-info", "allow"),
        ("rm -rf build*", "allow"),
        ("rm -rf ./*.log", "allow"),
        ("rm -rf */node_modules", "allow"),
        ("rm -rf src/*.rs", "allow"),
        ("rm -rf /tmp/pytest-*", "allow"),
        ("rm -rf /var/tmp/build-*", "allow"),
        ("rm -rf /tmp/*/cache", "allow"),
        ("rm -rf ../*.log", "ask rm-outside-project"),
    ]);
}

#[test]
fn globs_that_could_take_something_protected_stay_their_directory() {
    expect(&[
        ("rm -rf /*bin", "deny rm-root"),
        ("rm -rf /u*", "deny rm-root"),
        ("rm -rf ~/.ss*", "deny rm-home"),
        ("rm -rf ~/*.log", "deny rm-home"),
        ("rm -rf /usr/lib*", "deny rm-system"),
        ("rm -rf /tmp/*", "deny rm-system"),
        ("rm -rf /tmp/.*", "deny rm-system"),
        ("rm -rf *", "deny rm-project"),
        ("rm -rf .*", "deny rm-project"),
        ("rm -rf ./*", "deny rm-project"),
        ("rm -rf ?*", "deny rm-project"),
        ("rm -rf *.*", "deny rm-project"),
        ("rm -rf [a-z]*", "deny rm-project"),
        ("rm -rf ./*/..", "deny rm-project"),
        ("rm -rf ./*/.", "deny rm-project"),
        ("rm -rf .g*", "deny rm-project"),
        ("rm -rf .[g]it", "deny rm-project"),
        ("rm -rf .c*/settings.json", "deny rm-project"),
        ("rm -rf hooks*", "deny rm-project"),
        ("rm -rf /work/pro*", "deny rm-project"),
        ("rm -rf /work/*/", "deny rm-project"),
        ("rm -rf ../proj*", "deny rm-project"),
        // zsh qualifiers and ksh patterns are not read; `**` reaches any depth.
        ("rm -rf *(D)", "deny rm-project"),
        ("rm -rf *(N)", "deny rm-project"),
        ("rm -rf @(*)", "deny rm-project"),
        ("rm -rf *~x", "deny rm-project"),
        ("rm -rf **/.git", "deny rm-project"),
        ("rm -rf /tmp/*(D)", "deny rm-system"),
    ]);
}

#[test]
fn a_project_in_a_temporary_directory_is_not_scratch_for_a_glob() {
    assert_eq!(
        answer_in("rm -rf /tmp/pro*", "/tmp/project"),
        "deny rm-project"
    );
    assert_eq!(answer_in("rm -rf /tmp/pytest-*", "/tmp/project"), "allow");
}

#[test]
fn glob_parts_and_pure_wildcards() {
    assert_eq!(glob_parts("./*.log"), ["*.log"]);
    assert_eq!(glob_parts("a/*/node_modules/"), ["*", "node_modules"]);
    assert_eq!(glob_parts("/tmp//x*"), ["x*"]);
    assert!(glob_parts("plain/path").is_empty());
    for pure in ["*", ".*", "**", "?*", "*.*", "[a-z]*", ".[!.]*"] {
        assert!(is_pure_wildcard(pure), "{pure}");
    }
    for entries in ["*.log", "build*", "pytest-*", "*~", "[ab]x"] {
        assert!(!is_pure_wildcard(entries), "{entries}");
    }
    assert!(could_match_kept(&[".g*"], false));
    assert!(could_match_kept(&["*.json"], false));
    assert!(!could_match_kept(&["*", "node_modules"], false));
    assert!(!could_match_kept(&["*.json", "x"], false));
    // With dot names matched, a pattern that does not start with a dot reaches them too.
    assert!(!could_match_kept(&["?git"], false));
    assert!(could_match_kept(&["?git"], true));
    assert!(could_match_kept(&["*laude"], true));
}

#[test]
fn disks_are_matched_on_the_normalised_path() {
    for disk in [
        "/dev/sda",
        "/dev//sda",
        "/dev/./sda1",
        "/dev/x/../nvme0n1",
        "/dev/ubuntu-vg/ubuntu-lv",
        "/dev/mapper/cryptroot",
        "/dev/block/8:0",
        "/dev/disk/by-id/ata-x",
        "/dev/zvol/pool/vol",
        "/dev/zd0",
    ] {
        assert!(is_disk(disk), "{disk}");
    }
    for not_disk in [
        "/dev/null",
        "/dev/zero",
        "/dev/stdout",
        "/dev/stderr",
        "/dev/tty",
        "/dev/urandom",
        "/dev/fd/1",
        "/dev/shm/x",
        "/dev/pts/0",
        "/dev/tcp/10.0.0.1/4444",
        "/dev/udp/host/53",
        "/dev",
        "sda",
        "/tmp/dev/sda",
        "/dev/../tmp/sda",
    ] {
        assert!(!is_disk(not_disk), "{not_disk}");
    }
}

#[test]
fn disk_writes_are_found_through_odd_paths_and_directories() {
    expect(&[
        ("dd if=/dev/zero of=/dev//sda", "deny dd-device"),
        (
            "dd if=/dev/zero of=/dev/ubuntu-vg/ubuntu-lv",
            "deny dd-device",
        ),
        ("cd /dev && dd if=/dev/zero of=sda", "deny dd-device"),
        (
            "cd /dev/mapper && dd if=/dev/zero of=../sdb",
            "deny dd-device",
        ),
        ("cat /dev/zero > /dev/block/8:0", "deny device-write"),
        ("cd /dev && cat x > sda", "deny device-write"),
        ("cd /dev && shred sda", "deny shred-device"),
        ("mkdosfs /dev/sdb1", "deny mkfs"),
        ("mkntfs -f /dev/sdc1", "deny mkfs"),
        ("dd if=/dev/zero of=disk.img bs=1M count=1", "allow"),
        ("echo x > /dev/null", "allow"),
        ("echo x > /dev/stderr", "allow"),
        ("echo x > /dev/fd/2", "allow"),
        ("cd /dev/shm && dd if=/dev/zero of=x bs=1M count=1", "allow"),
    ]);
}

#[test]
fn force_moves_of_a_protected_branch_are_denied() {
    expect(&[
        (
            "git branch -M feature main",
            "deny git-branch-overwrite-protected",
        ),
        (
            "git branch -C feature main",
            "deny git-branch-copy-over-protected",
        ),
        (
            "git branch -M main feature",
            "deny git-branch-overwrite-protected",
        ),
        (
            "git checkout -B main origin/main~5",
            "deny git-branch-force-move-protected",
        ),
        (
            "git checkout -B main",
            "deny git-branch-force-move-protected",
        ),
        (
            "git switch -C main HEAD~3",
            "deny git-branch-force-move-protected",
        ),
        (
            "git switch --force-create main x",
            "deny git-branch-force-move-protected",
        ),
        (
            "git -C repo switch -C main HEAD~3",
            "deny git-branch-force-move-protected",
        ),
        (
            "git update-ref refs/heads/main HEAD~10",
            "deny git-branch-force-move-protected",
        ),
        (
            "git branch -f main HEAD~10",
            "deny git-branch-force-move-protected",
        ),
    ]);
}

#[test]
fn other_branch_commands_are_not_force_moves_of_a_protected_branch() {
    expect(&[
        // GitHub's quick start: renames the current branch to main.
        ("git branch -M main", "allow"),
        ("git branch -M old-name new-name", "allow"),
        ("git -C repo switch main", "allow"),
        ("git -C repo branch main", "allow"),
        ("git -C repo checkout main", "allow"),
        ("git checkout -b feature main", "allow"),
        ("git switch -c feature", "allow"),
        ("git checkout -B feature origin/feature", "allow"),
        ("git update-ref refs/heads/topic HEAD", "allow"),
        ("git update-ref -d refs/heads/topic", "ask git-ref-delete"),
    ]);
}

#[test]
fn recursive_deletes_by_other_names_are_judged_as_rm_r() {
    expect(&[
        ("cargo clean --target-dir ~", "deny rm-home"),
        ("cargo clean --target-dir=/", "deny rm-root"),
        ("CARGO_TARGET_DIR=/etc cargo clean", "deny rm-system"),
        ("cargo clean", "allow"),
        ("cargo clean -p app --target-dir target/other", "allow"),
        ("rimraf ~", "deny rm-home"),
        ("rimraf dist", "allow"),
        ("cmake -E rm -rf /", "deny rm-root"),
        ("cmake -E remove_directory /usr", "deny rm-system"),
        ("cmake -E rm -f /tmp/x.o", "allow"),
        ("cmake -E rm -r build", "allow"),
    ]);
}
