//! The links a script makes to other places, which a later word reaches through: `ln -s
//! TARGET LINK` and bind mounts (`mount --bind SRC DIR`). What a link points to is not there
//! to resolve when the guards look, so the words are read through the links as written.

use super::Script;

/// The links the script makes, as (link, what it reaches), as written: `ln -s TARGET LINK`
/// (`-s` anywhere in a cluster, or `--symbolic`), and `mount --bind SRC DIR` (`-B`,
/// `--rbind`, `-o bind`).
pub(crate) fn links_made(script: &Script) -> Vec<(String, String)> {
    let mut links = Vec::new();
    for cmd in script.commands() {
        let short = |c: char| {
            cmd.args
                .iter()
                .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains(c))
        };
        let long = |l: &str| cmd.args.iter().any(|a| a == l);
        let made = match cmd.program.as_str() {
            "ln" => short('s') || long("--symbolic"),
            "mount" => {
                short('B')
                    || long("--bind")
                    || long("--rbind")
                    || (cmd.args.windows(2))
                        .any(|w| w[0] == "-o" && w[1].split(',').any(|o| o.ends_with("bind")))
            }
            _ => false,
        };
        if !made {
            continue;
        }
        let operands: Vec<&String> = (cmd.args.iter())
            .filter(|a| !a.starts_with('-'))
            .filter(|a| !a.split(',').any(|o| o.ends_with("bind")))
            .collect();
        if let [target, link] = operands.as_slice() {
            let link = link.trim_end_matches('/');
            if !link.is_empty() {
                links.push((link.to_owned(), target.to_string()));
            }
        }
    }
    links
}

/// Whether `program` follows a link it is given to what the link reaches (`truncate`,
/// `chmod`, `cp` onto it, a redirection), rather than taking the link itself: `ln` and `mv`
/// replace it, `rm`, `unlink` and `rmdir` remove it, `install` and `rsync` replace it.
#[cfg(feature = "command-guard")]
pub(crate) fn follows_links(program: &str) -> bool {
    !matches!(
        program,
        "ln" | "mv" | "install" | "rsync" | "rm" | "unlink" | "rmdir"
    )
}

/// `word` read through `links`: its leading link replaced by what the link reaches
/// (`c/settings.json` after `ln -s .claude c` is `.claude/settings.json`, `r/*` after `ln -s
/// / r` is `/*`). The link itself, with nothing after it, is read through only with
/// `whole`: a write follows it (`echo x > p`), while `rm p` and `mv x p` take the link.
pub(crate) fn through_links(word: &str, links: &[(String, String)], whole: bool) -> Vec<String> {
    let word = word.strip_prefix("./").unwrap_or(word);
    links
        .iter()
        .filter_map(|(link, target)| {
            let link = link.strip_prefix("./").unwrap_or(link);
            let rest = word.strip_prefix(link)?;
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

    #[test]
    fn words_read_through_the_links_a_script_makes() {
        let script =
            parse("ln -s / r; ln -sfn ~ ./h; mount --bind /etc m; mount -o ro,bind /usr u; ln x y")
                .unwrap();
        let links = links_made(&script);
        assert_eq!(
            links,
            [
                ("r".to_owned(), "/".to_owned()),
                ("./h".to_owned(), "~".to_owned()),
                ("m".to_owned(), "/etc".to_owned()),
                ("u".to_owned(), "/usr".to_owned()),
            ]
        );
        assert_eq!(through_links("r/*", &links, false), ["/*"]);
        assert_eq!(through_links("r", &links, true), ["/"]);
        assert!(through_links("r", &links, false).is_empty());
        assert_eq!(through_links("h/", &links, false), ["~/"]);
        assert_eq!(through_links("./m/passwd", &links, false), ["/etc/passwd"]);
        assert!(through_links("rr/x", &links, true).is_empty());
    }
}
