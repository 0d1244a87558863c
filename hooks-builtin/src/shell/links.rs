//! The links a script makes to other places, which a later word reaches through: `ln -s
//! TARGET LINK` and bind mounts (`mount --bind SRC DIR`). What a link points to is not there
//! to resolve when the guards look, so the words are read through the links as written, and
//! from where the script started (a link made after a `cd`, spelt absolute or relative).

use super::Script;
use super::getopt::{self, Style, is};

/// mount's options that take a value (the settings takers read mount with them too).
#[rustfmt::skip]
pub(crate) const MOUNT_VALUED: &[&str] = &[
    "-o", "--options", "-t", "--types", "-O", "--test-opts", "-L", "--label", "-U", "--uuid",
    "-N", "--namespace", "--source", "--target", "-T", "--fstab", "--target-prefix",
    "--options-mode", "--options-source", "--map-users", "--map-groups",
];

/// The options that take a value of the programs that copy, move or link files (`cp`,
/// `install`, `mv`, `ln`, `link`), as GNU's read them; none for another program.
pub(crate) fn copier_valued(program: &str) -> &'static [&'static str] {
    match program {
        "cp" => &[
            "-t",
            "--target-directory",
            "-S",
            "--suffix",
            "--sparse",
            "--no-preserve",
        ],
        "install" => &[
            "-t",
            "--target-directory",
            "-S",
            "--suffix",
            "-m",
            "--mode",
            "-o",
            "--owner",
            "-g",
            "--group",
            "--strip-program",
        ],
        "ln" | "link" | "mv" => &["-t", "--target-directory", "-S", "--suffix"],
        _ => &[],
    }
}

/// The links the script makes, as (link, what it reaches), as written: `ln [-s] TARGET
/// LINK` (a hard link reaches the same file), `ln TARGET…` into the current directory or
/// `-t DIR`/a last directory operand (each link named for its target), `link`, `cp -s` and
/// `cp -l` (hard links, `cp -al /etc e`: a tree of them), and bind mounts (`mount --bind SRC
/// DIR`, `-B`, `--rbind`, `-o bind` in any spelling, `--source`/`--target`). Options are read
/// as getopt reads them (`ln -st d /`, `--tar=d`). Each link
/// is listed as written and, when that differs, from where the script started (`cwd`, when
/// given: absolute): joined to the directory its command runs in, with a symbolic link's
/// relative target read from the link's own directory (`ln -s ../.. d/r` reaches `..`).
pub(crate) fn links_made(script: &Script, cwd: Option<&std::path::Path>) -> Vec<(String, String)> {
    let mut links = Vec::new();
    for cmd in script.commands() {
        let program = cmd.program.as_str();
        let valued: &[&str] = match program {
            "ln" | "link" | "cp" => copier_valued(program),
            "mount" => MOUNT_VALUED,
            _ => continue,
        };
        let words = getopt::read(&cmd.args, Style::Gnu, &[], |given| {
            valued.iter().any(|v| is(given, v))
        });
        let (bind, symbolic) = match program {
            "ln" | "link" => (
                true,
                words.has("-s", false) || words.has("--symbolic", false),
            ),
            // `cp -s` makes symbolic links, `cp -l` hard ones.
            "cp" => {
                let symbolic = words.has("-s", true) || words.has("--symbolic-link", false);
                (
                    symbolic || words.has("-l", true) || words.has("--link", false),
                    symbolic,
                )
            }
            _ => {
                let options = words.values(&["-o", "--options"]);
                let bind = ["-B", "--bind", "-R", "--rbind"]
                    .iter()
                    .any(|o| words.has(o, false))
                    || options
                        .flat_map(|o| o.split([',', '=']))
                        .any(|o| matches!(o, "bind" | "rbind"));
                (bind, false)
            }
        };
        if !bind {
            continue;
        }
        let mut operands: Vec<&str> = words.operands.iter().map(String::as_str).collect();
        let mut target_dir = None;
        if program == "mount" {
            // `--source SRC --target DIR`, either or both instead of the operands.
            let source = words.values(&["--source"]).last();
            let target = words.values(&["--target"]).last();
            match (source, target) {
                (Some(source), Some(target)) => operands = vec![source, target],
                (Some(source), None) => operands.insert(0, source),
                (None, Some(target)) => operands.push(target),
                (None, None) => {}
            }
        } else {
            target_dir = words.values(&["-t", "--target-directory"]).last();
        }
        // Where the script started, the directory the command runs in (after a `cd`), unless
        // that is not known before it runs.
        let dir = (cmd.dir.as_deref()).filter(|d| !d.contains(['$', '`']));
        // A symbolic link's relative target is read from the link's directory, unless `-r`
        // made it from the current one (`ln -sr`); anything else's from the current one.
        let from_link = symbolic
            && !(program == "ln" && words.has("-r", true))
            && !words.has("--relative", false);
        let mut add = |link: &str, target: &str| {
            let link = link.trim_end_matches('/');
            if link.is_empty() {
                return;
            }
            // As written, from where the command runs: how the words of a command in the same
            // directory spell it.
            links.push((link.to_owned(), target.to_owned()));
            // And from where the script started (absolute, when that is known): how the words
            // of any command reach it.
            let start = joined(dir, link);
            let reaches = match start.rsplit_once('/') {
                Some((parent, _)) if from_link => joined(Some(parent), target),
                _ if from_link => target.to_owned(),
                _ => joined(dir, target),
            };
            let absolute = |path: String| match cwd {
                Some(cwd) if !rooted(&path) => normal(&format!("{}/{path}", cwd.display())),
                _ => path,
            };
            let pair = (absolute(start), absolute(reaches));
            if links.last() != Some(&pair) {
                links.push(pair);
            }
        };
        let name_of = |target: &str| {
            let target = target.trim_end_matches('/');
            target.rsplit('/').next().unwrap_or(target).to_owned()
        };
        match (target_dir, operands.as_slice()) {
            (Some(dir), targets) => {
                for target in targets {
                    add(
                        &format!("{}/{}", dir.trim_end_matches('/'), name_of(target)),
                        target,
                    );
                }
            }
            (None, [target]) if program != "mount" => add(&name_of(target), target),
            // Into a directory (`ln -s /etc .`, `ln -s /etc build/`): named for the target.
            (None, [target, dir])
                if program != "mount" && (dir.ends_with('/') || matches!(*dir, "." | "..")) =>
            {
                add(
                    &format!("{}/{}", dir.trim_end_matches('/'), name_of(target)),
                    target,
                );
            }
            (None, [target, link]) => {
                add(link, target);
                // An existing directory (`ln -s /etc build`) gets the link inside it.
                let into_dir = program != "mount"
                    && !words.has("-T", true)
                    && !words.has("--no-target-directory", false)
                    && (cwd.zip(dir.or(Some("."))))
                        .is_some_and(|(cwd, dir)| cwd.join(dir).join(link).is_dir());
                if into_dir {
                    add(
                        &format!("{}/{}", link.trim_end_matches('/'), name_of(target)),
                        target,
                    );
                }
            }
            (None, [targets @ .., dir]) if program != "mount" => {
                for target in targets {
                    add(
                        &format!("{}/{}", dir.trim_end_matches('/'), name_of(target)),
                        target,
                    );
                }
            }
            _ => {}
        }
    }
    links
}

/// Whether `path` is written from a place of its own (`/`, `~`, a variable), not from the
/// directory the command runs in.
fn rooted(path: &str) -> bool {
    path.starts_with(['/', '~', '$'])
}

/// `path` as written in `dir` (itself written from where the script started), written from
/// where the script started.
fn joined(dir: Option<&str>, path: &str) -> String {
    match dir {
        Some(dir) if !rooted(path) => normal(&format!("{dir}/{path}")),
        _ => path.to_owned(),
    }
}

/// `path` with `.` and `x/..` taken out and repeated slashes made one, lexically.
pub(crate) fn normal(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_owned(),
        (false, false) => joined,
    }
}

/// Whether `command` follows a link it is given to what the link reaches (`truncate`,
/// `chmod`, `cp` onto it, a redirection), rather than taking the link itself: `ln`, `link`
/// and `cp -s` make one, `mv`, `install` and `rsync` replace it, `rm`, `unlink` and `rmdir`
/// remove it.
pub(crate) fn follows_links(command: &super::Command) -> bool {
    let makes_link = command.program == "cp"
        && (command.args.iter()).any(|a| {
            matches!(a.as_str(), "--symbolic-link" | "--link")
                || (a.starts_with('-') && !a.starts_with("--") && a.contains(['s', 'l']))
        });
    !makes_link
        && !matches!(
            command.program.as_str(),
            "ln" | "link" | "mv" | "install" | "rsync" | "rm" | "unlink" | "rmdir"
        )
}

/// `word` read through `links`: its leading link replaced by what the link reaches
/// (`c/settings.json` after `ln -s .claude c` is `.claude/settings.json`, `r/*` after `ln -s
/// / r` is `/*`). The link itself, with nothing after it, is read through only with
/// `whole`: a write follows it (`echo x > p`), while `rm p` and `mv x p` take the link.
/// Given where the script started (`cwd`), a link spelt relative is found spelt absolute, and
/// the other way round (`ln -s / r; rm -rf $PWD/r/*` in `/p` reaches `/p/r`).
pub(crate) fn through_links(
    word: &str,
    links: &[(String, String)],
    whole: bool,
    cwd: Option<&std::path::Path>,
) -> Vec<String> {
    // Most lines make no link: nothing to spell (the spellings below are formatted strings).
    if links.is_empty() {
        return Vec::new();
    }
    // What a glob or a trailing slash adds stays as written (`r/*`, `h/`).
    let slashed = |path: &str| {
        let normal = normal(path);
        let tail = if path.ends_with('/') && normal != "/" {
            "/"
        } else {
            ""
        };
        format!("{normal}{tail}")
    };
    let absolute = |path: &str| match cwd {
        Some(cwd) if !rooted(path) => Some(slashed(&format!("{}/{path}", cwd.display()))),
        _ if path.starts_with('/') => Some(slashed(path)),
        _ => None,
    };
    // `$PWD` is where the script started, until a `cd` (whose words the callers join).
    let pwd = ["$PWD", "${PWD}"].iter().find_map(|v| {
        word.strip_prefix(v)
            .filter(|rest| rest.is_empty() || rest.starts_with('/'))
    });
    let word_abs = match (pwd, cwd) {
        (Some(rest), Some(cwd)) => Some(slashed(&format!("{}{rest}", cwd.display()))),
        _ => absolute(word),
    };
    let word = slashed(word);
    links
        .iter()
        .filter_map(|(link, target)| {
            let at_link = |rest: &&str| rest.is_empty() || rest.starts_with('/');
            let rest =
                (word.strip_prefix(normal(link).as_str()).filter(at_link)).or_else(|| {
                    let link = absolute(link)?;
                    (word_abs
                        .as_deref()?
                        .strip_prefix(link.trim_end_matches('/')))
                    .filter(at_link)
                })?;
            let target = match target.trim_end_matches('/') {
                "" => "/",
                t => t,
            };
            match rest {
                "" if whole => Some(target.to_owned()),
                rest if rest.starts_with('/') && target == "/" => Some(rest.to_owned()),
                rest if rest.starts_with('/') => Some(format!("{target}{rest}")),
                _ => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{links_made, through_links};
    use crate::shell::parse;

    fn made(src: &str) -> Vec<(String, String)> {
        links_made(&parse(src).unwrap(), None)
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        (list.iter())
            .map(|(l, t)| (l.to_string(), t.to_string()))
            .collect()
    }

    #[test]
    fn links_are_read_in_every_spelling() {
        assert_eq!(
            made("ln -s / r; ln -sfn ~ ./h; mount --bind /etc m; mount -o ro,bind /usr u; ln x y"),
            pairs(&[
                ("r", "/"),
                ("./h", "~"),
                ("m", "/etc"),
                ("u", "/usr"),
                ("y", "x")
            ])
        );
        // One operand: the link is named for the target, here.
        assert_eq!(made("ln -s /etc"), pairs(&[("etc", "/etc")]));
        // `-t DIR` and a last directory: each target, named for itself.
        assert_eq!(
            made("ln -s -t d /etc /usr"),
            pairs(&[("d/etc", "/etc"), ("d/usr", "/usr")])
        );
        assert_eq!(
            made("ln -s /etc /usr d/"),
            pairs(&[("d/etc", "/etc"), ("d/usr", "/usr")])
        );
        // An option's value is no operand.
        assert_eq!(made("ln -s -S .bak / r"), pairs(&[("r", "/")]));
        assert_eq!(made("link /etc/passwd p"), pairs(&[("p", "/etc/passwd")]));
        assert_eq!(made("cp -s /etc/passwd p"), pairs(&[("p", "/etc/passwd")]));
        for mount in [
            "mount -obind / m",
            "mount --options bind / m",
            "mount -o=bind / m",
            "mount -t none -o bind / m",
            "mount --bind -o rw / m",
        ] {
            assert_eq!(made(mount), pairs(&[("m", "/")]), "{mount}");
        }
        assert!(made("mount /dev/sdb1 /mnt").is_empty());
        // Read as getopt reads them: `-t` in a cluster, written on, abbreviated.
        for ln in [
            "ln -st d /etc",
            "ln -s -td /etc",
            "ln -std /etc",
            "ln -s --tar=d /etc",
        ] {
            assert_eq!(made(ln), pairs(&[("d/etc", "/etc")]), "{ln}");
        }
        // Into a directory operand; hard links of cp; mount's --source and --target.
        assert_eq!(made("ln -s /etc ."), pairs(&[("./etc", "/etc")]));
        assert_eq!(made("ln -s /etc build/"), pairs(&[("build/etc", "/etc")]));
        assert_eq!(made("cp -al /etc e"), pairs(&[("e", "/etc")]));
        assert_eq!(
            made("cp --link /etc/passwd p"),
            pairs(&[("p", "/etc/passwd")])
        );
        assert_eq!(
            made("mount --source=/etc --target e --bind"),
            pairs(&[("e", "/etc")])
        );
        assert!(made("cp -a /etc e").is_empty());
        // As written, and from where the script started: a link made after a `cd`, and a
        // symbolic link's relative target read from the link's directory (unless `ln -r` made
        // it from the current one).
        assert_eq!(
            made("cd sub && ln -s .. up"),
            pairs(&[("up", ".."), ("sub/up", ".")])
        );
        assert_eq!(
            made("cd a; ln -s /etc e"),
            pairs(&[("e", "/etc"), ("a/e", "/etc")])
        );
        assert_eq!(
            made("ln -s ../.. d/r"),
            pairs(&[("d/r", "../.."), ("d/r", "..")])
        );
        assert_eq!(
            made("ln -s -t d ../x"),
            pairs(&[("d/x", "../x"), ("d/x", "x")])
        );
        assert_eq!(made("ln -sr x d/y"), pairs(&[("d/y", "x")]));
        assert_eq!(made("ln x d/y"), pairs(&[("d/y", "x")]));
        let at_p = |src: &str| links_made(&parse(src).unwrap(), Some(std::path::Path::new("/p")));
        assert_eq!(
            at_p("cd sub && ln -s ../.claude c"),
            pairs(&[("c", "../.claude"), ("/p/sub/c", "/p/.claude")])
        );
        assert_eq!(at_p("ln -s / /r"), pairs(&[("/r", "/")]));
        assert_eq!(made("cd $X && ln -s / r"), pairs(&[("r", "/")]));
        assert!(made("cp a b").is_empty());
    }

    #[test]
    fn words_read_through_the_links_a_script_makes() {
        let links = pairs(&[("r", "/"), ("./h", "~"), ("m", "/etc")]);
        assert_eq!(through_links("r/*", &links, false, None), ["/*"]);
        assert_eq!(through_links("r", &links, true, None), ["/"]);
        assert!(through_links("r", &links, false, None).is_empty());
        assert_eq!(through_links("h/", &links, false, None), ["~/"]);
        assert_eq!(
            through_links("./m/passwd", &links, false, None),
            ["/etc/passwd"]
        );
        assert_eq!(through_links(".//r/*", &links, false, None), ["/*"]);
        assert_eq!(through_links("build/../r/*", &links, false, None), ["/*"]);
        assert!(through_links("rr/x", &links, true, None).is_empty());
        // Spelt absolute or relative, given where the script started.
        let cwd = Some(std::path::Path::new("/p"));
        assert_eq!(through_links("/p/r/*", &links, false, cwd), ["/*"]);
        assert_eq!(through_links("$PWD/r/*", &links, false, cwd), ["/*"]);
        assert_eq!(through_links("${PWD}/./r/x", &links, false, cwd), ["/x"]);
        assert!(through_links("$PWDX/r/x", &links, false, cwd).is_empty());
        assert_eq!(through_links("/p/./m/x", &links, false, cwd), ["/etc/x"]);
        assert!(through_links("/p/rr/x", &links, false, cwd).is_empty());
        assert!(through_links("/p/r/*", &links, false, None).is_empty());
        let absolute = pairs(&[("/p/r", "/etc")]);
        assert_eq!(through_links("r/x", &absolute, false, cwd), ["/etc/x"]);
        assert_eq!(through_links("./r", &absolute, true, cwd), ["/etc"]);
    }
}
