//! Programs a line makes under another name (`ln -s /bin/rm ./ls`, `cp /bin/rm /tmp/x`):
//! running the new name later in the line runs the program it was made from.

use super::words::program_name;
use crate::shell::getopt::{self, Style, is};
use crate::shell::links::copier_valued;
use crate::shell::{Command, RedirectOp};

/// The program files `command` makes under a name of their own, as (that name as
/// [`Command::program`] keys it, the file made from as written): the two-operand forms of
/// `ln`, `link`, `cp`, `install`, `mv`, `rsync`, `scp` and `ditto`, `rclone copyto`,
/// `cat FILE > NEW` and `dd if=FILE of=NEW` (or `dd of=NEW < FILE`). Into a directory
/// (`cp /bin/rm bin/`, `-t DIR`, three operands or more) a file keeps its name, so
/// nothing is renamed. A name that is an existing directory (`cp /bin/rm bin`) cannot be told
/// apart from a new file here: it is listed, which can only add a reading.
pub(crate) fn programs_made(command: &Command) -> Vec<(String, String)> {
    let program = command.program.as_str();
    let (source, made) = match program {
        "ln" | "link" | "cp" | "install" | "mv" => {
            let valued = copier_valued(program);
            let words = getopt::read(&command.args, Style::Gnu, &[], |given| {
                valued.iter().any(|v| is(given, v))
            });
            if words.values(&["-t", "--target-directory"]).next().is_some() {
                return Vec::new();
            }
            match words.operands.as_slice() {
                [source, made] => (source.clone(), made.clone()),
                _ => return Vec::new(),
            }
        }
        "rsync" | "scp" | "ditto" => {
            const VALUED: &[&str] = &[
                "-e",
                "--rsh",
                "-f",
                "--filter",
                "--exclude",
                "--include",
                "-T",
                "--temp-dir",
                "-B",
                "--block-size",
                "--log-file",
                "--backup-dir",
                "--partial-dir",
                "--chmod",
                "--chown",
                "--max-size",
                "--min-size",
                "--timeout",
                "--port",
                "--rsync-path",
                "-M",
                "--remote-option",
                "-P",
                "-i",
                "-o",
                "-F",
                "-c",
                "-l",
                "-S",
                "-J",
            ];
            let words = getopt::read(&command.args, Style::Gnu, &[], |given| {
                VALUED.iter().any(|v| is(given, v))
            });
            match words.operands.as_slice() {
                [source, made] => (source.clone(), made.clone()),
                _ => return Vec::new(),
            }
        }
        // `rclone copyto SRC DST` copies to that very name.
        "rclone" => match command.args.as_slice() {
            [sub, source, made] if sub == "copyto" || sub == "moveto" => {
                (source.clone(), made.clone())
            }
            _ => return Vec::new(),
        },
        "cat" => {
            let out = (command.redirects.iter()).find(|r| {
                r.fd.is_none_or(|fd| fd == 1)
                    && matches!(r.op, RedirectOp::Out | RedirectOp::DupOut)
            });
            match (command.args.as_slice(), out) {
                ([source], Some(out)) if !source.starts_with('-') => {
                    (source.clone(), out.target.clone())
                }
                _ => return Vec::new(),
            }
        }
        "dd" => {
            let operand = |key: &str| {
                (command.args.iter())
                    .rev()
                    .find_map(|a| a.strip_prefix(key).map(str::to_owned))
            };
            // Without `if=`, dd reads its standard input (`dd of=x < /bin/rm`).
            let input = operand("if=").or_else(|| {
                (command.redirects.iter())
                    .find(|r| r.op == RedirectOp::In && r.fd.is_none_or(|fd| fd == 0))
                    .map(|r| r.target.clone())
            });
            match (input, operand("of=")) {
                (Some(source), Some(made)) => (source, made),
                _ => return Vec::new(),
            }
        }
        _ => return Vec::new(),
    };
    if made.ends_with('/') || matches!(made.as_str(), "." | "..") || made.is_empty() {
        return Vec::new();
    }
    let name = program_name(&made).into_owned();
    if name == program_name(&source) {
        return Vec::new();
    }
    vec![(name, source)]
}

/// What a program named `name` (as [`Command::program`] keys it) may be, given the programs
/// the line made before it (`made`, in order): each file it was made from, following a chain
/// (`cp /bin/rm x; mv x ls`) back in time, each step to a file made before the last (`cp
/// /bin/rm x; cp x y; cp y x` leads from `x` to `y`, `x`, then `/bin/rm`), so that it ends.
pub(crate) fn made_from(made: &[(String, String)], name: &str) -> Vec<String> {
    let mut sources: Vec<String> = Vec::new();
    let mut name = name.to_owned();
    let mut before = made.len();
    while let Some(at) = made[..before].iter().rposition(|(made, _)| *made == name) {
        let source = &made[at].1;
        sources.push(source.clone());
        name = program_name(source).into_owned();
        before = at;
    }
    sources
}

#[cfg(test)]
mod tests {
    use super::{made_from, programs_made};
    use crate::shell::parse;

    fn made(src: &str) -> Vec<(String, String)> {
        parse(src)
            .unwrap()
            .commands()
            .flat_map(programs_made)
            .collect()
    }

    fn pair(name: &str, source: &str) -> Vec<(String, String)> {
        vec![(name.to_owned(), source.to_owned())]
    }

    #[test]
    fn a_second_name_for_a_program_is_made_by_links_copies_moves_and_redirections() {
        assert_eq!(made("ln -s /bin/rm ./ls"), pair("ls", "/bin/rm"));
        assert_eq!(made("ln -sf -- /bin/rm ./ls"), pair("ls", "/bin/rm"));
        assert_eq!(made("cp /bin/rm /tmp/x"), pair("x", "/bin/rm"));
        assert_eq!(made("cp -p -S .bak /bin/rm x"), pair("x", "/bin/rm"));
        assert_eq!(
            made("install -m 755 /bin/rm ~/bin/LS.exe"),
            pair("ls", "/bin/rm")
        );
        assert_eq!(made("mv x ls"), pair("ls", "x"));
        assert_eq!(made("cat /bin/rm > x"), pair("x", "/bin/rm"));
        assert_eq!(made("dd if=/bin/rm of=x bs=1M"), pair("x", "/bin/rm"));
        assert_eq!(made("cp \"$(which rm)\" x"), pair("x", "$(which rm)"));
        assert_eq!(made("rsync -a -e ssh /bin/rm ./x"), pair("x", "/bin/rm"));
        assert_eq!(made("scp -P 22 /bin/rm x"), pair("x", "/bin/rm"));
        assert_eq!(made("dd of=x < /bin/rm"), pair("x", "/bin/rm"));
        assert_eq!(made("rclone copyto /bin/rm x"), pair("x", "/bin/rm"));
    }

    #[test]
    fn a_file_that_keeps_its_name_renames_nothing() {
        for src in [
            "cp /bin/rm /tmp/",
            "cp /bin/rm .",
            "cp -t /tmp /bin/rm",
            "cp --target-directory=/tmp /bin/rm",
            "cp /bin/rm /bin/ls /tmp",
            "ln -s /bin/rm",
            "cp /bin/rm /tmp/rm",
            "cat a b > x",
            "cat /bin/rm >> x",
            "cat /bin/rm",
            "dd if=/bin/rm",
            "echo /bin/rm x",
        ] {
            assert_eq!(made(src), Vec::new(), "{src}");
        }
    }

    #[test]
    fn a_name_is_read_back_through_every_step_in_the_order_the_files_were_made() {
        let made = made("cp /bin/rm x; mv x ls; cp ls y");
        assert_eq!(made_from(&made, "ls"), ["x", "/bin/rm"]);
        assert_eq!(made_from(&made, "y"), ["ls", "x", "/bin/rm"]);
        assert!(made_from(&made, "rm").is_empty());
        let looped = self::made("cp /bin/rm x; cp x y; cp y x");
        assert_eq!(made_from(&looped, "x"), ["y", "x", "/bin/rm"]);
        let looped = self::made("cp a b; cp b a");
        assert_eq!(made_from(&looped, "a"), ["b", "a"]);
    }
}
