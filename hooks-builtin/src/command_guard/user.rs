//! Rules from the settings: a program and the flags and operands it must have.

use crate::shell::{self, Command};

use super::rules::{has_long, has_long_abbreviated, has_short};

/// A compiled `deny`, `ask` or `allow` entry.
#[derive(Debug, Clone)]
pub(super) struct UserRule {
    /// Where it came from, for reasons: `deny[2]`.
    pub(super) field: String,
    /// As written.
    pub(super) source: String,
    program: String,
    short: Vec<char>,
    long: Vec<String>,
    operands: Vec<String>,
    /// The rule has a `--`: the command must separate its operands with one.
    dashdash: bool,
    privileged: bool,
    /// A long flag may be given abbreviated, as getopt_long, popt and git accept (`git reset
    /// --har` is `--hard`): for rules that deny or ask, never for an allow, which would then
    /// exempt more than it names (`--force` abbreviates `--force-with-lease`).
    abbreviated: bool,
}

impl UserRule {
    /// Compiles `source` (`"kubectl delete namespace *"`); the error says what is wrong.
    pub(super) fn new(field: String, source: &str) -> Result<Self, String> {
        let script = shell::parse(source).map_err(|e| format!("`{source}`: {e}"))?;
        // The command written is the script's first; the parser adds the commands it is read
        // as after it (`systemctl stop 'ss?'` as `systemctl stop ssh`), which are no second
        // command of the rule. One written is told by what separates or nests commands.
        let command = (script.pipelines.first())
            .filter(|p| p.commands.len() == 1 && !separates_commands(source))
            .map(|p| &p.commands[0]);
        let Some(command) = command else {
            return Err(format!("`{source}` must be exactly one command"));
        };
        if command.program.is_empty() || !command.redirects.is_empty() {
            return Err(format!("`{source}` must be a program and its arguments"));
        }
        let (mut short, mut long, mut operands) = (Vec::new(), Vec::new(), Vec::new());
        let mut dashdash = false;
        for arg in &command.args {
            if arg == "--" {
                dashdash = true;
            } else if let Some(name) = arg.strip_prefix("--").filter(|n| !n.is_empty()) {
                long.push(name.to_owned());
            } else if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) {
                short.extend(cluster.chars());
            } else {
                operands.push(arg.clone());
            }
        }
        Ok(UserRule {
            field,
            source: source.to_owned(),
            program: command.program.clone(),
            short,
            long,
            operands,
            dashdash,
            privileged: command.privileged,
            abbreviated: false,
        })
    }

    /// The rule, matching long flags given abbreviated too (at least three letters, as `rm
    /// --rec`): for a rule that denies or asks.
    pub(super) fn abbreviated(self) -> Self {
        UserRule {
            abbreviated: true,
            ..self
        }
    }

    /// The program glob.
    pub(super) fn program(&self) -> &str {
        &self.program
    }

    /// The short flags, in order (`B` of `git checkout -B`).
    pub(super) fn short(&self) -> &[char] {
        &self.short
    }

    /// The operand globs, in order (`delete`, `namespace`, `*` of `kubectl delete namespace *`).
    pub(super) fn operands(&self) -> &[String] {
        &self.operands
    }

    /// True when `command` runs the rule's program (a glob) with all of its flags, in any
    /// order and form, and its operands (globs) in order, other arguments allowed in between; a
    /// `--` in the rule needs one in the command.
    pub(super) fn matches(&self, command: &Command) -> bool {
        if !wildcard(&self.program, &command.program) || (self.privileged && !command.privileged) {
            return false;
        }
        let args: Vec<&str> = command.args.iter().map(String::as_str).collect();
        let (flags, operands) = match args.iter().position(|a| *a == "--") {
            Some(end) => (&args[..end], &args[end + 1..]),
            None => (&args[..], &args[..0]),
        };
        let flags: Vec<&str> = flags
            .iter()
            .copied()
            .filter(|a| a.len() > 1 && a.starts_with('-'))
            .collect();
        let before = args
            .iter()
            .take_while(|a| **a != "--")
            .filter(|a| a.len() <= 1 || !a.starts_with('-'));
        let mut candidates = before.chain(operands);
        (!self.dashdash || args.contains(&"--"))
            && self.short.iter().all(|c| has_short(&flags, *c))
            && self.long.iter().all(|l| {
                has_long(&flags, l) || (self.abbreviated && has_long_abbreviated(&flags, l, 3))
            })
            && self
                .operands
                .iter()
                .all(|pattern| candidates.any(|a| wildcard(pattern, a)))
    }
}

/// Whether `source` has, outside quotes, what separates or nests commands (`;`, `&`, `|`, a
/// newline, a substitution, a subshell).
fn separates_commands(source: &str) -> bool {
    let mut quote = None;
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, '\\') => {
                chars.next();
            }
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, ';' | '&' | '|' | '\n' | '`' | '(' | ')') => return true,
            (Some('"'), '`') => return true,
            (Some('"'), '$') if chars.clone().next() == Some('(') => return true,
            _ => {}
        }
    }
    false
}

/// `*` matches any run of characters (`/` included), `?` any one; the rest matches itself.
pub(super) fn wildcard(pattern: &str, text: &str) -> bool {
    // Called for every rule's program on every command: no allocation on the common paths.
    if !pattern.contains(['*', '?']) {
        return pattern == text;
    }
    if pattern.is_ascii() && text.is_ascii() {
        return matches_units(pattern.as_bytes(), text.as_bytes(), b'*', b'?');
    }
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    matches_units(&p, &t, '*', '?')
}

/// The wildcard match over units (bytes of ASCII text, or characters).
fn matches_units<T: Copy + PartialEq>(p: &[T], t: &[T], star_unit: T, any: T) -> bool {
    let (mut pi, mut ti) = (0, 0);
    // The last `*` and the text position it was tried at, to backtrack to.
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some(&c) if c == star_unit => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(&c) if c == any || c == t[ti] => {
                pi += 1;
                ti += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    star = Some((sp, st + 1));
                    pi = sp + 1;
                    ti = st + 1;
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == star_unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(source: &str) -> UserRule {
        UserRule::new("deny[0]".into(), source).unwrap()
    }

    fn cmd(src: &str) -> Command {
        shell::parse(src)
            .unwrap()
            .commands()
            .next()
            .unwrap()
            .clone()
    }

    /// A deny or ask rule takes a long flag abbreviated, as the programs do; an allow rule
    /// only as written, or `--force` would pass as `--force-with-lease`.
    #[test]
    fn long_flags_abbreviated_match_deny_rules_only() {
        let deny = rule("git push --force-with-lease").abbreviated();
        assert!(deny.matches(&cmd("git push --force-w origin main")));
        assert!(deny.matches(&cmd("git push --force-with-lease=main origin main")));
        assert!(
            !deny.matches(&cmd("git push --fo origin main")),
            "two letters are too few"
        );
        let allow = rule("git push --force-with-lease");
        assert!(!allow.matches(&cmd("git push --force origin main")));
        assert!(!allow.matches(&cmd("git push --force-w origin main")));
        assert!(allow.matches(&cmd("git push --force-with-lease origin main")));
    }

    #[test]
    fn wildcards_match_runs_and_single_characters() {
        assert!(wildcard("release/*", "release/1.2"));
        assert!(wildcard("*", ""));
        assert!(wildcard("a*b*c", "aXXbYYbc"));
        assert!(wildcard("v?", "v1"));
        assert!(!wildcard("v?", "v10"));
        assert!(!wildcard("main", "main2"));
        assert!(wildcard("mkfs*", "mkfs.ext4"));
        assert!(wildcard("é*ü", "éaü"));
        assert!(!wildcard("é?", "éaa"));
    }

    #[test]
    fn flags_match_in_any_order_and_form_and_operands_in_order() {
        let r = rule("rm -rf --no-preserve-root");
        assert!(r.matches(&cmd("rm --no-preserve-root -f -r x")));
        assert!(!r.matches(&cmd("rm -r x")));
        let r = rule("kubectl delete namespace *");
        assert!(r.matches(&cmd("kubectl --context prod delete namespace staging")));
        assert!(!r.matches(&cmd("kubectl delete pod staging")));
        assert!(!r.matches(&cmd("kubectl namespace delete x")));
        assert!(rule("terraform destroy").matches(&cmd("/usr/bin/terraform -chdir=x destroy")));
        assert!(rule("git push * main").matches(&cmd("git push origin -- main")));
        let r = rule("git checkout --");
        assert!(r.matches(&cmd("git checkout -- src/a.rs")));
        assert!(!r.matches(&cmd("git checkout -b topic")));
    }

    #[test]
    fn a_privileged_rule_matches_only_privileged_commands() {
        let r = rule("sudo systemctl stop *");
        assert!(r.matches(&cmd("sudo systemctl stop nginx")));
        assert!(!r.matches(&cmd("systemctl stop nginx")));
    }

    #[test]
    fn bad_rules_are_refused() {
        for bad in ["", "a; b", "a | b", "'open", "> file"] {
            assert!(UserRule::new("deny[0]".into(), bad).is_err(), "{bad:?}");
        }
    }
}
