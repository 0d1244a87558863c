//! Commands read as another that does the same, so that the rules about that one judge them:
//! `autossh` as `ssh` (its monitoring port taken out), an init script run by its path (or by
//! a shell, `sh /etc/init.d/ssh stop`, or in its directory, `cd /etc/init.d; sh ssh stop`) as
//! `service NAME …`, and `pkill` with only a harmless signal (`pkill -0 sshd`) as the `pgrep`
//! it is (kill.rs).

use super::wrappers::SSH_SHORT;

/// Directories whose scripts are services, run as `service NAME ACTION` runs them (SysV,
/// Red Hat's, Slackware's and the BSDs' rc directories).
const INIT_DIRS: &[&str] = &[
    "/etc/init.d",
    "/etc/rc.d/init.d",
    "/etc/rc.d",
    "/usr/local/etc/rc.d",
];

/// The words `words` (a program and its arguments, wrappers stripped) are read as, when they
/// are one of the commands above; `dir` is where they run, when known.
pub(super) fn read_as(words: &[String], dir: Option<&str>) -> Option<Vec<String>> {
    let (first, args) = words.split_first()?;
    // Every command meets this: its name is looked up once.
    let name = super::command_name(first);
    if name == "autossh" {
        return Some(autossh_as_ssh(args));
    }
    // `pkill -0 sshd` and `killall -0 sshd` send a signal that ends nothing: they only look
    // processes up.
    if matches!(name.as_ref(), "pkill" | "killall") && super::kill::ends_nothing(&name, args) {
        let mut read = vec!["pgrep".to_owned()];
        read.extend(
            args.iter()
                .filter(|a| !super::kill::is_signal_word(a))
                .cloned(),
        );
        return Some(read);
    }
    // `cmd /c LINE` (Git Bash's `cmd //c`, `/k`, `/r`): cmd runs LINE, which is read as a
    // command line (`cmd /c "rm -rf ~"` runs Git Bash's `rm`; cmd's own `rd`, `del` and
    // `format` are rules of their own).
    if name == "cmd"
        && let Some(at) = args.iter().position(|a| {
            matches!(
                a.to_ascii_lowercase().as_str(),
                "/c" | "//c" | "/k" | "//k" | "/r" | "//r"
            )
        })
    {
        return Some(vec![
            "sh".to_owned(),
            "-c".to_owned(),
            crate::shell::windows::cmd_line(&args[at + 1..].join(" ")),
        ]);
    }
    // `start [/b] [/d DIR] [""] PROGRAM ARGS` (cmd's `start`, a script in Git Bash): it runs
    // PROGRAM.
    if name == "start" {
        let mut rest = args.iter().peekable();
        while let Some(word) = rest.next_if(|w| {
            w.is_empty()
                || (w.starts_with('/')
                    && w.trim_start_matches('/')
                        .bytes()
                        .all(|b| b.is_ascii_alphabetic())
                    && w.len() > 1)
        }) {
            if word.eq_ignore_ascii_case("/d") || word.eq_ignore_ascii_case("//d") {
                rest.next();
            }
        }
        let read: Vec<String> = rest.cloned().collect();
        return (!read.is_empty()).then_some(read);
    }
    // `sh /etc/init.d/ssh stop`: a shell running the script file with its options before
    // it (not `-c`, whose operand is a command line).
    let (script, args) = if super::SHELLS.contains(&name.as_ref()) {
        let options = args.iter().take_while(|a| a.starts_with('-')).count();
        let inline = (args[..options].iter()).any(|a| !a.starts_with("--") && a.contains('c'));
        match args.get(options) {
            // A script without a `/` is a file where the shell runs (`sh ssh stop`), not a
            // program on the path.
            Some(script) if !inline && !script.contains('/') => {
                let service = init_script(&format!("./{script}"), dir)?.to_owned();
                let mut read = vec!["service".to_owned(), service];
                read.extend(args[options + 1..].iter().cloned());
                return Some(read);
            }
            Some(script) if !inline => (script.as_str(), &args[options + 1..]),
            _ => return None,
        }
    } else if first.contains('/') {
        (first.as_str(), args)
    } else {
        return None;
    };
    let service = init_script(script, dir)?;
    let mut read = vec!["service".to_owned(), service.to_owned()];
    read.extend(args.iter().cloned());
    Some(read)
}

/// `autossh [-M PORT] [ssh's options] HOST [CMD]` as ssh's words: `-M` and its value (written
/// on, `-M0`, or the next word) taken out of the options before the host, the rest as ssh
/// reads them.
fn autossh_as_ssh(args: &[String]) -> Vec<String> {
    let mut out = vec!["ssh".to_owned()];
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let Some(cluster) = word
            .strip_prefix('-')
            .filter(|c| !c.is_empty() && *c != "-")
        else {
            // `--`, or the host: everything from here is ssh's.
            out.push(word.clone());
            out.extend(words.by_ref().cloned());
            break;
        };
        let mut kept = String::from("-");
        let mut takes_next = false;
        for (at, c) in cluster.char_indices() {
            let rest = &cluster[at + c.len_utf8()..];
            if c == 'M' {
                // The port is the rest of the cluster, or the next word: both dropped.
                if rest.is_empty() {
                    words.next();
                }
                break;
            }
            kept.push(c);
            if SSH_SHORT.contains(c) {
                kept.push_str(rest);
                takes_next = rest.is_empty();
                break;
            }
        }
        if kept.len() > 1 {
            out.push(kept);
        }
        // An ssh option that takes the next word: it goes with it.
        if takes_next {
            out.extend(words.next().cloned());
        }
    }
    out
}

/// The service an init script run by its path is (`ssh` of `/etc/init.d/ssh`, of `./ssh` run
/// in `/etc/init.d`, of Slackware's `/etc/rc.d/rc.sshd`, of `/etc/rc2.d/S01ssh`).
fn init_script<'a>(word: &'a str, dir: Option<&str>) -> Option<&'a str> {
    let (parent, name) = word.rsplit_once('/')?;
    let parent = match (parent.starts_with('/'), dir) {
        (true, _) => parent.to_owned(),
        (false, Some(dir)) if dir.starts_with('/') => format!("{dir}/{parent}"),
        _ => return None,
    };
    // `/etc/./init.d/` and `/etc//init.d` name the same directory.
    let parent: Vec<&str> = (parent.split('/'))
        .filter(|part| !part.is_empty() && *part != ".")
        .collect();
    let parent = format!("/{}", parent.join("/"));
    let runlevel = (parent
        .strip_prefix("/etc/rc")
        .or_else(|| parent.strip_prefix("/etc/rc.d/rc")))
    .and_then(|level| level.strip_suffix(".d"))
    .is_some_and(|level| level.len() == 1);
    let name = if runlevel {
        // `S01ssh`, `K20ssh`: a start or kill link, its order, then the script's name.
        name.strip_prefix(['S', 'K'])?
            .trim_start_matches(|c: char| c.is_ascii_digit())
    } else if INIT_DIRS.contains(&parent.as_str()) {
        name.strip_prefix("rc.").unwrap_or(name)
    } else {
        return None;
    };
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn autossh_is_ssh_without_its_monitoring_port() {
        let read = |line: &str| read_as(&words(line), None).map(|w| w.join(" "));
        assert_eq!(read("autossh -M 0 host ls").as_deref(), Some("ssh host ls"));
        assert_eq!(
            read("autossh -M0 -p 22 h ls").as_deref(),
            Some("ssh -p 22 h ls")
        );
        assert_eq!(read("autossh -fNM 0 h").as_deref(), Some("ssh -fN h"));
        assert_eq!(
            read("autossh -p 2222 -M 0 h x").as_deref(),
            Some("ssh -p 2222 h x")
        );
        // `-l M`: ssh's value, not autossh's option.
        assert_eq!(read("autossh -l M h x").as_deref(), Some("ssh -l M h x"));
    }

    #[test]
    fn init_scripts_by_path_are_services() {
        let read = |line: &str, dir: Option<&str>| read_as(&words(line), dir).map(|w| w.join(" "));
        assert_eq!(
            read("/etc/init.d/ssh stop", None).as_deref(),
            Some("service ssh stop")
        );
        assert_eq!(
            read("./ssh stop", Some("/etc/init.d")).as_deref(),
            Some("service ssh stop")
        );
        assert_eq!(
            read("/etc/rc.d/rc.sshd stop", None).as_deref(),
            Some("service sshd stop")
        );
        assert_eq!(
            read("/etc/rc2.d/S01ssh stop", None).as_deref(),
            Some("service ssh stop")
        );
        assert_eq!(
            read("/etc//./init.d/sshd stop", None).as_deref(),
            Some("service sshd stop")
        );
        assert_eq!(
            read("sh -x /etc/init.d/ssh stop", None).as_deref(),
            Some("service ssh stop")
        );
        assert_eq!(read("sh -c /etc/init.d/ssh stop", None), None);
        assert_eq!(
            read("sh ssh stop", Some("/etc/init.d")).as_deref(),
            Some("service ssh stop")
        );
        assert_eq!(read("sh ssh stop", Some("/work")), None);
        assert_eq!(read("pkill -0 sshd", None).as_deref(), Some("pgrep sshd"));
        assert_eq!(read("./ssh stop", None), None);
        assert_eq!(read("/usr/bin/ssh host", None), None);
    }
}
