//! The links a script makes to other places, which a later word reaches through: `ln -s
//! TARGET LINK` and bind mounts (`mount --bind SRC DIR`). What a link points to is not there
//! to resolve when the guards look, so the words are read through the links as written.

use super::Script;

/// The links the script makes, as (link, what it reaches), as written: `ln [-s] TARGET
/// LINK` (a hard link reaches the same file), `ln TARGET…` into the current directory or
/// `-t DIR`/a last directory operand (each link named for its target), `link`, `cp -s`, and
/// bind mounts (`mount --bind SRC DIR`, `-B`, `--rbind`, `-o bind` in any spelling).
pub(crate) fn links_made(script: &Script) -> Vec<(String, String)> {
    let mut links = Vec::new();
    for cmd in script.commands() {
        let args = &cmd.args;
        let (values, bind): (&[&str], bool) = match cmd.program.as_str() {
            "ln" | "link" => (&["-S", "--suffix", "-t", "--target-directory"], true),
            "cp" => (
                &["-t", "--target-directory", "-S", "--suffix"],
                (args.iter()).any(|a| {
                    a == "--symbolic-link"
                        || (a.starts_with('-') && !a.starts_with("--") && a.contains('s'))
                }),
            ),
            "mount" => (
                &["-o", "--options", "-t", "--types", "-O", "-L", "-U", "-N"],
                (args.iter()).any(|a| {
                    matches!(a.as_str(), "-B" | "--bind" | "-R" | "--rbind")
                        || (a.starts_with('-') || a.starts_with("--options=") || !a.contains('/'))
                            && a.split([',', '='])
                                .any(|o| matches!(o, "bind" | "rbind" | "-obind"))
                }),
            ),
            _ => (&[], false),
        };
        if !bind {
            continue;
        }
        let mut operands: Vec<&str> = Vec::new();
        let mut target_dir = None;
        let mut words = args.iter().map(String::as_str);
        while let Some(word) = words.next() {
            if let Some((name, value)) = word.split_once('=')
                && values.contains(&name)
            {
                if matches!(name, "-t" | "--target-directory") && cmd.program != "mount" {
                    target_dir = Some(value);
                }
            } else if values.contains(&word) {
                let value = words.next();
                if matches!(word, "-t" | "--target-directory") && cmd.program != "mount" {
                    target_dir = value;
                }
            } else if word.starts_with('-') && word.len() > 1 {
                // `-obind`: an attached value.
            } else if !(cmd.program == "mount" && word.split(',').any(|o| o == "bind")) {
                operands.push(word);
            }
        }
        let mut add = |link: &str, target: &str| {
            let link = link.trim_end_matches('/');
            if !link.is_empty() {
                links.push((link.to_owned(), target.to_owned()));
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
            (None, [target]) if cmd.program != "mount" => add(&name_of(target), target),
            (None, [target, link]) => add(link, target),
            (None, [targets @ .., dir]) if cmd.program != "mount" => {
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

/// `path` with `.` and `x/..` taken out and repeated slashes made one, lexically.
fn normal(path: &str) -> String {
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
#[cfg(feature = "command-guard")]
pub(crate) fn follows_links(command: &super::Command) -> bool {
    let makes_link = command.program == "cp"
        && (command.args.iter()).any(|a| {
            a == "--symbolic-link"
                || (a.starts_with('-') && !a.starts_with("--") && a.contains('s'))
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
pub(crate) fn through_links(word: &str, links: &[(String, String)], whole: bool) -> Vec<String> {
    // What a glob or a trailing slash adds stays as written (`r/*`, `h/`).
    let word_normal = normal(word);
    let tail = if word.ends_with('/') && word_normal != "/" {
        "/"
    } else {
        ""
    };
    let word = format!("{word_normal}{tail}");
    links
        .iter()
        .filter_map(|(link, target)| {
            let link = normal(link);
            let rest = word.strip_prefix(link.as_str())?;
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
        links_made(&parse(src).unwrap())
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
        assert!(made("cp a b").is_empty());
    }

    #[test]
    fn words_read_through_the_links_a_script_makes() {
        let links = pairs(&[("r", "/"), ("./h", "~"), ("m", "/etc")]);
        assert_eq!(through_links("r/*", &links, false), ["/*"]);
        assert_eq!(through_links("r", &links, true), ["/"]);
        assert!(through_links("r", &links, false).is_empty());
        assert_eq!(through_links("h/", &links, false), ["~/"]);
        assert_eq!(through_links("./m/passwd", &links, false), ["/etc/passwd"]);
        assert_eq!(through_links(".//r/*", &links, false), ["/*"]);
        assert_eq!(through_links("build/../r/*", &links, false), ["/*"]);
        assert!(through_links("rr/x", &links, true).is_empty());
    }
}
