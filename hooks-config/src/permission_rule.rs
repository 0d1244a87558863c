//! Claude Code's permission-rule syntax, as the `if` field of a settings-file hook uses it
//! (`Bash(git *)`, `Edit(*.ts)`, `mcp__server__tool`): the hook runs only for tool calls the
//! rule matches.
//!
//! The rule is data: [`PermissionRule::parse`] reads it once at load, [`PermissionRule::matches`]
//! tests a call. Matching is best-effort in the one direction that is safe for a guard: when a
//! call cannot be judged (a Bash command with a substitution, a wrapper such as `sudo` or
//! `env`, unbalanced quotes; a file tool without a path; a specifier this module does not
//! understand), the rule matches and the hook runs. Claude Code does the same ("fails open when
//! it cannot parse the command", which for a filter means the hook runs).
//!
//! | rule | matches |
//! |---|---|
//! | `Bash`, `Bash(*)` | every call of the tool |
//! | `Bash(npm run build)` | a (sub)command that is exactly that |
//! | `Bash(git *)` | `git` alone or followed by arguments (not `gitk`); `*` is any text |
//! | `Bash(npm run test:*)` | legacy prefix form: `npm run test` and anything after it |
//! | `Edit(*.ts)`, `Read(.env)` | a pattern without `/` matches the file name in any directory |
//! | `Edit(/src/**/*.ts)` | relative to the project directory (gitignore style) |
//! | `Read(//etc/**)`, `Read(~/.ssh/**)` | an absolute path, a path under the home directory |
//! | `Edit(src/*.ts)`, `Edit(./src/*.ts)` | relative to the session's working directory |
//! | `WebFetch(domain:example.com)` | a URL whose host is `example.com` (`*.example.com` globs) |
//! | `Task(Explore)`, `Agent(Explore)` | a subagent of that type (a glob) |
//! | `mcp__memory`, `mcp__memory__*` | every tool of the MCP server `memory` |
//! | `mcp__memory__write` | that tool |
//!
//! `Edit` rules apply to every tool that edits files (`Edit`, `MultiEdit`, `Write`,
//! `NotebookEdit`); `Read` rules to those that read (`Read`, `Grep`, `Glob`, `LS`), as in Claude
//! Code's permissions. A Bash command is split at `&&`, `||`, `;`, `|`, `&` and line breaks
//! (outside quotes), leading `NAME=value` assignments are dropped, and the rule matches when any
//! part matches.

use std::path::{Component, Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use serde_json::Value;

/// Why a rule could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// Empty, or only spaces.
    #[error("the rule is empty")]
    Empty,
    /// The tool name is not a name (`Bash`, `mcp__server__tool`).
    #[error("`{0}` is not a tool name (letters, digits, `_` and `-`)")]
    BadTool(String),
    /// A `(` without its closing `)` at the end, or text after it.
    #[error("`(` must close with `)` at the end of the rule")]
    Unclosed,
    /// `Tool()`.
    #[error("empty specifier `()`: write the tool name alone to match every call")]
    EmptySpecifier,
    /// A glob that does not compile.
    #[error("pattern `{0}`: {1}")]
    BadPattern(String, String),
}

/// A parsed permission rule.
#[derive(Debug, Clone)]
pub struct PermissionRule {
    text: String,
    tool: ToolPart,
    spec: Spec,
}

impl PartialEq for PermissionRule {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

#[derive(Debug, Clone)]
enum ToolPart {
    /// One tool (and, for `Edit` and `Read`, the tools of its family).
    Name(String),
    /// `mcp__server` or `mcp__server__*`: the tools of one MCP server.
    McpServer(String),
}

#[derive(Debug, Clone)]
enum Spec {
    /// No specifier, or `*`.
    Any,
    /// A Bash command: the legacy prefix (`npm run test:*`) or a `*` glob.
    Command(CommandPattern),
    /// A gitignore-style path pattern.
    Path(PathPattern),
    /// `domain:` of `WebFetch`.
    Domain(GlobMatcher),
    /// A glob over the subagent type (`Task`, `Agent`).
    Subagent(GlobMatcher),
    /// A specifier this module does not interpret: the rule matches every call of the tool.
    Unknown(String),
}

#[derive(Debug, Clone)]
enum CommandPattern {
    Prefix(String),
    Glob(regex::Regex),
}

#[derive(Debug, Clone)]
struct PathPattern {
    anchor: Anchor,
    glob: GlobMatcher,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Anchor {
    /// No `/` in the pattern: the file name, in any directory.
    Name,
    /// `//abs`: the glob is absolute.
    Absolute,
    /// `~/x`: under the home directory.
    Home,
    /// `/x`: under the project directory.
    Project,
    /// `x/y`, `./x`: under the working directory.
    Cwd,
}

const EDIT_TOOLS: &[&str] = &["Edit", "MultiEdit", "Write", "NotebookEdit"];
const READ_TOOLS: &[&str] = &["Read", "Grep", "Glob", "LS"];
const SHELL_TOOLS: &[&str] = &["Bash", "PowerShell"];
/// Commands that run another command given as arguments: the rule cannot see what they run.
const WRAPPERS: &[&str] = &[
    "env", "sudo", "doas", "nohup", "time", "timeout", "nice", "ionice", "xargs", "exec",
    "command", "builtin", "eval", "sh", "bash", "zsh", "dash", "fish", "source", ".", "watch",
    "stdbuf", "chroot", "unshare", "setsid", "su", "busybox",
];

/// Words that start a compound command or negate one: what runs follows them.
const KEYWORDS: &[&str] = &[
    "!", "if", "then", "else", "elif", "do", "while", "until", "for", "case", "select", "function",
    "coproc", "[[",
];

/// Where a call happens, for rules with paths.
#[derive(Debug, Clone, Copy, Default)]
pub struct CallPlace<'a> {
    /// The session's working directory (the payload's `cwd`).
    pub cwd: Option<&'a Path>,
    /// The project directory (`/x` patterns).
    pub project_dir: Option<&'a Path>,
    /// The home directory (`~/x` patterns).
    pub home: Option<&'a Path>,
}

impl PermissionRule {
    /// Reads a rule.
    ///
    /// ```
    /// use hookrail_config::permission_rule::{CallPlace, PermissionRule};
    /// use serde_json::json;
    ///
    /// let rule = PermissionRule::parse("Bash(git *)").unwrap();
    /// let place = CallPlace::default();
    /// assert!(rule.matches("Bash", Some(&json!({"command": "git push origin main"})), &place));
    /// assert!(!rule.matches("Bash", Some(&json!({"command": "gitk"})), &place));
    /// assert!(PermissionRule::parse("Bash(git *").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Self, RuleError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(RuleError::Empty);
        }
        let (tool, spec) = match text.find('(') {
            None => (text, None),
            Some(open) => {
                let inner = text[open + 1..]
                    .strip_suffix(')')
                    .ok_or(RuleError::Unclosed)?;
                (&text[..open], Some(inner))
            }
        };
        let tool = tool.trim();
        if tool.is_empty()
            || !tool
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '*')
            || (tool.contains('*') && !tool.starts_with("mcp__"))
        {
            return Err(RuleError::BadTool(tool.to_owned()));
        }
        let tool_part = match tool.strip_prefix("mcp__") {
            Some(rest) if !rest.contains("__") => ToolPart::McpServer(rest.to_owned()),
            Some(rest) if rest.ends_with("__*") => {
                ToolPart::McpServer(rest.trim_end_matches("__*").to_owned())
            }
            _ if tool.contains('*') => return Err(RuleError::BadTool(tool.to_owned())),
            _ => ToolPart::Name(tool.to_owned()),
        };
        let spec = match spec.map(str::trim) {
            None | Some("*") => Spec::Any,
            Some("") => return Err(RuleError::EmptySpecifier),
            Some(s) => specifier(tool, s)?,
        };
        Ok(PermissionRule {
            text: text.to_owned(),
            tool: tool_part,
            spec,
        })
    }

    /// The rule as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// A specifier this module cannot judge (the rule then matches every call of its tool),
    /// for a note at load.
    pub fn uninterpreted(&self) -> Option<&str> {
        match &self.spec {
            Spec::Unknown(s) => Some(s),
            _ => None,
        }
    }

    /// Whether the call of `tool_name` with `tool_input` matches. A call that cannot be judged
    /// matches (see the module documentation).
    pub fn matches(
        &self,
        tool_name: &str,
        tool_input: Option<&Value>,
        place: &CallPlace<'_>,
    ) -> bool {
        let tool_ok = match &self.tool {
            ToolPart::McpServer(server) => tool_name
                .strip_prefix("mcp__")
                .and_then(|rest| rest.strip_prefix(server.as_str()))
                .is_some_and(|rest| rest.is_empty() || rest.starts_with("__")),
            ToolPart::Name(name) => {
                name == tool_name
                    || (name == "Edit" && EDIT_TOOLS.contains(&tool_name))
                    || (name == "Read" && READ_TOOLS.contains(&tool_name))
            }
        };
        if !tool_ok {
            return false;
        }
        let field = |name: &str| tool_input.and_then(|i| i.get(name)).and_then(Value::as_str);
        match &self.spec {
            Spec::Any | Spec::Unknown(_) => true,
            Spec::Command(pattern) => match field("command") {
                Some(command) => command_matches(pattern, command),
                None => true,
            },
            Spec::Path(pattern) => {
                let path = field("file_path")
                    .or_else(|| field("notebook_path"))
                    .or_else(|| field("path"));
                match path {
                    Some(path) => path_matches(pattern, path, place),
                    None => true,
                }
            }
            Spec::Domain(glob) => match field("url").and_then(host) {
                Some(host) => glob.is_match(host.to_ascii_lowercase()),
                None => true,
            },
            Spec::Subagent(glob) => match field("subagent_type") {
                Some(kind) => glob.is_match(kind),
                None => true,
            },
        }
    }
}

fn specifier(tool: &str, spec: &str) -> Result<Spec, RuleError> {
    let glob = |pattern: &str, separator: bool| {
        GlobBuilder::new(pattern)
            .literal_separator(separator)
            .build()
            .map(|g| g.compile_matcher())
            .map_err(|e| RuleError::BadPattern(pattern.to_owned(), e.kind().to_string()))
    };
    if SHELL_TOOLS.contains(&tool) {
        if let Some(prefix) = spec.strip_suffix(":*") {
            return Ok(Spec::Command(CommandPattern::Prefix(
                prefix.trim().to_owned(),
            )));
        }
        return command_regex(spec).map(|re| Spec::Command(CommandPattern::Glob(re)));
    }
    if EDIT_TOOLS.contains(&tool) || READ_TOOLS.contains(&tool) {
        let (anchor, rest) = if let Some(rest) = spec.strip_prefix("//") {
            (Anchor::Absolute, format!("/{rest}"))
        } else if let Some(rest) = spec.strip_prefix("~/") {
            (Anchor::Home, rest.to_owned())
        } else if let Some(rest) = spec.strip_prefix('/') {
            (Anchor::Project, rest.to_owned())
        } else if let Some(rest) = spec.strip_prefix("./") {
            (Anchor::Cwd, rest.to_owned())
        } else if spec.contains('/') {
            (Anchor::Cwd, spec.to_owned())
        } else {
            (Anchor::Name, spec.to_owned())
        };
        return Ok(Spec::Path(PathPattern {
            anchor,
            glob: glob(&rest, true)?,
        }));
    }
    if tool == "WebFetch"
        && let Some(domain) = spec.strip_prefix("domain:")
    {
        return Ok(Spec::Domain(glob(
            &domain.trim().to_ascii_lowercase(),
            false,
        )?));
    }
    if tool == "Task" || tool == "Agent" {
        return Ok(Spec::Subagent(glob(spec, false)?));
    }
    Ok(Spec::Unknown(spec.to_owned()))
}

/// `*` is any text; `X *` (a space, then a final `*`) also matches `X` alone.
fn command_regex(pattern: &str) -> Result<regex::Regex, RuleError> {
    let pattern = pattern.trim();
    let (body, optional_args) = match pattern.strip_suffix(" *") {
        Some(body) => (body, true),
        None => (pattern, false),
    };
    let mut re = String::from("^");
    for (i, part) in body.split('*').enumerate() {
        if i > 0 {
            re.push_str(".*");
        }
        re.push_str(&regex::escape(part));
    }
    if optional_args {
        re.push_str(r"(?:\s.*)?");
    }
    re.push('$');
    // Escaped literals and `.*` compile; only a pattern past the size limit fails.
    regex::RegexBuilder::new(&re)
        .dot_matches_new_line(true)
        .build()
        .map_err(|e| RuleError::BadPattern(pattern.to_owned(), e.to_string()))
}

fn command_matches(pattern: &CommandPattern, command: &str) -> bool {
    let Some(parts) = split_command(command) else {
        return true;
    };
    parts.iter().any(|part| match pattern {
        CommandPattern::Prefix(prefix) => {
            part == prefix
                || part
                    .strip_prefix(prefix.as_str())
                    .is_some_and(|rest| rest.starts_with(char::is_whitespace))
        }
        CommandPattern::Glob(re) => re.is_match(part),
    })
}

/// The simple commands of a command line, or `None` when it cannot be judged.
fn split_command(command: &str) -> Option<Vec<String>> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut chars = command.chars().peekable();
    let (mut single, mut double) = (false, false);
    while let Some(c) = chars.next() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '\\' if !single => {
                current.push(c);
                if let Some(next) = chars.next() {
                    current.push(next);
                }
                continue;
            }
            '`' if !single => return None,
            '$' if !single && chars.peek() == Some(&'(') => return None,
            '<' | '>' if !single && !double && chars.peek() == Some(&'(') => return None,
            '<' if !single && !double && chars.peek() == Some(&'<') => return None,
            '(' | ')' | '{' | '}' if !single && !double && current.trim().is_empty() => {
                return None;
            }
            ';' | '&' | '|' | '\n' if !single && !double => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if single || double {
        return None;
    }
    parts.push(current);
    let mut simple = Vec::new();
    for part in parts {
        let mut words = part.split_whitespace().peekable();
        while words.peek().is_some_and(|w| is_assignment(w)) {
            words.next();
        }
        let mut rest: Vec<&str> = words.collect();
        let Some(&first) = rest.first() else { continue };
        let program = first.rsplit('/').next().unwrap_or(first);
        if WRAPPERS.contains(&program)
            || KEYWORDS.contains(&first)
            || first.contains(['"', '\'', '\\', '$', '<', '>', '=', '*', '?', '['])
        {
            return None;
        }
        simple.push(rest.join(" "));
        // `/bin/rm` is `rm` to a rule: a guard filtered on `Bash(rm *)` must see it.
        if program != first {
            rest[0] = program;
            simple.push(rest.join(" "));
        }
    }
    Some(simple)
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

fn path_matches(pattern: &PathPattern, path: &str, place: &CallPlace<'_>) -> bool {
    let path = Path::new(path);
    let absolute = if path.is_absolute() {
        normalize(path)
    } else {
        match place.cwd.or(place.project_dir) {
            Some(cwd) => normalize(&cwd.join(path)),
            None => return true,
        }
    };
    let base = match pattern.anchor {
        Anchor::Name => {
            return absolute
                .file_name()
                .is_some_and(|name| pattern.glob.is_match(Path::new(name)));
        }
        Anchor::Absolute => return pattern.glob.is_match(&absolute),
        Anchor::Home => place.home,
        Anchor::Project => place.project_dir.or(place.cwd),
        Anchor::Cwd => place.cwd.or(place.project_dir),
    };
    match base {
        Some(base) => absolute
            .strip_prefix(normalize(base))
            .is_ok_and(|rel| pattern.glob.is_match(rel)),
        // Cannot place the pattern: the hook runs.
        None => true,
    }
}

/// `a/./b/../c` → `a/c`, without touching the file system (the file may not exist yet).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn host(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit('@').next()?;
    let host = host.split(':').next()?;
    (!host.is_empty()).then_some(host)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bash(rule: &str, command: &str) -> bool {
        PermissionRule::parse(rule).unwrap().matches(
            "Bash",
            Some(&json!({ "command": command })),
            &CallPlace::default(),
        )
    }

    fn file(rule: &str, tool: &str, path: &str) -> bool {
        let place = CallPlace {
            cwd: Some(Path::new("/repo/sub")),
            project_dir: Some(Path::new("/repo")),
            home: Some(Path::new("/home/me")),
        };
        PermissionRule::parse(rule).unwrap().matches(
            tool,
            Some(&json!({ "file_path": path })),
            &place,
        )
    }

    #[test]
    fn bash_globs_match_as_documented() {
        assert!(bash("Bash(git *)", "git push origin main"));
        assert!(bash("Bash(git *)", "git"));
        assert!(!bash("Bash(git *)", "gitk --all"));
        assert!(!bash("Bash(git *)", "ls -la"));
        assert!(bash("Bash(ls*)", "lsof -i"));
        assert!(!bash("Bash(ls *)", "lsof -i"));
        assert!(bash("Bash(npm run build)", "npm run build"));
        assert!(!bash("Bash(npm run build)", "npm run build:prod"));
        assert!(bash("Bash(npm run test:*)", "npm run test"));
        assert!(bash("Bash(npm run test:*)", "npm run test -- --watch"));
        assert!(!bash("Bash(npm run test:*)", "npm run testing"));
        assert!(bash("Bash(* --version)", "node --version"));
        assert!(bash("Bash(rm *)", "rm -rf build"));
    }

    #[test]
    fn every_part_of_a_compound_command_is_tried() {
        assert!(bash("Bash(git push *)", "cd repo && git push --force"));
        assert!(bash("Bash(git push *)", "make; git push"));
        assert!(bash("Bash(git push *)", "FOO=1 BAR=2 git push"));
        assert!(bash("Bash(git push *)", "/usr/bin/git push"));
        assert!(bash("Bash(rm *)", "./node_modules/.bin/rm -rf x"));
        assert!(bash("Bash(git push *)", "git   push\torigin"));
        assert!(!bash("Bash(git push *)", "echo 'git push' | cat"));
        assert!(!bash("Bash(git push *)", "cargo build && cargo test"));
    }

    #[test]
    fn commands_that_cannot_be_judged_run_the_hook() {
        for command in [
            "echo $(git push)",
            "echo `git push`",
            "sudo git push",
            "env git push",
            "bash -c 'git push'",
            "eval \"git push\"",
            "cat <<EOF\nx\nEOF",
            "(git push)",
            "echo 'unbalanced",
            "\"git\" push",
            "$GIT push",
            "! git push",
            "if true; then git push; fi",
            ">log git push",
            "g*t push",
        ] {
            assert!(bash("Bash(git push *)", command), "{command}");
        }
        // No command at all: cannot be judged either.
        let rule = PermissionRule::parse("Bash(git *)").unwrap();
        assert!(rule.matches("Bash", Some(&json!({})), &CallPlace::default()));
        assert!(rule.matches("Bash", None, &CallPlace::default()));
    }

    #[test]
    fn the_tool_name_must_match() {
        let rule = PermissionRule::parse("Bash(git *)").unwrap();
        assert!(!rule.matches(
            "Write",
            Some(&json!({"command": "git x"})),
            &CallPlace::default()
        ));
        let bare = PermissionRule::parse("Bash").unwrap();
        assert!(bare.matches("Bash", None, &CallPlace::default()));
        assert!(!bare.matches("BashOutput", None, &CallPlace::default()));
    }

    #[test]
    fn path_rules_follow_gitignore_anchoring() {
        assert!(file("Edit(*.ts)", "Edit", "/repo/src/deep/a.ts"));
        assert!(!file("Edit(*.ts)", "Edit", "/repo/src/a.tsx"));
        // Edit rules cover every editing tool; not the reading ones.
        assert!(file("Edit(*.ts)", "Write", "/repo/a.ts"));
        assert!(file("Edit(*.ts)", "MultiEdit", "/repo/a.ts"));
        assert!(!file("Edit(*.ts)", "Read", "/repo/a.ts"));
        assert!(file("Read(.env)", "Read", "/repo/.env"));
        assert!(file("Read(.env)", "Grep", "/repo/sub/.env"));
        // `/x`: the project directory; `x/y` and `./x`: the working directory.
        assert!(file("Edit(/src/**/*.ts)", "Edit", "/repo/src/a/b.ts"));
        assert!(!file("Edit(/src/**/*.ts)", "Edit", "/repo/sub/src/a.ts"));
        assert!(file("Edit(src/*.ts)", "Edit", "/repo/sub/src/a.ts"));
        assert!(file("Edit(./src/*.ts)", "Edit", "src/a.ts"));
        assert!(!file("Edit(src/*.ts)", "Edit", "/repo/src/a.ts"));
        // `*` stays within a directory; `**` crosses.
        assert!(!file("Edit(/src/*.ts)", "Edit", "/repo/src/a/b.ts"));
        assert!(file("Read(//etc/**)", "Read", "/etc/ssh/sshd_config"));
        assert!(file("Read(~/.ssh/**)", "Read", "/home/me/.ssh/id_rsa"));
        // `..` cannot walk a path out of a pattern's reach.
        assert!(file("Read(~/.ssh/**)", "Read", "/home/me/x/../.ssh/id_rsa"));
        assert!(!file("Edit(/src/**)", "Edit", "/repo/src/../secret.ts"));
    }

    #[test]
    fn mcp_rules_name_a_server_or_a_tool() {
        let place = CallPlace::default();
        let server = PermissionRule::parse("mcp__memory").unwrap();
        assert!(server.matches("mcp__memory__write", None, &place));
        assert!(!server.matches("mcp__memoryx__write", None, &place));
        let star = PermissionRule::parse("mcp__memory__*").unwrap();
        assert!(star.matches("mcp__memory__read", None, &place));
        assert!(!star.matches("mcp__github__read", None, &place));
        let tool = PermissionRule::parse("mcp__memory__write").unwrap();
        assert!(tool.matches("mcp__memory__write", None, &place));
        assert!(!tool.matches("mcp__memory__read", None, &place));
    }

    #[test]
    fn web_fetch_domains_and_subagents() {
        let place = CallPlace::default();
        let rule = PermissionRule::parse("WebFetch(domain:example.com)").unwrap();
        assert!(rule.matches(
            "WebFetch",
            Some(&json!({"url": "https://Example.com/a"})),
            &place
        ));
        assert!(!rule.matches(
            "WebFetch",
            Some(&json!({"url": "https://evil.com/example.com"})),
            &place
        ));
        assert!(!rule.matches(
            "WebFetch",
            Some(&json!({"url": "https://example.com.evil.io/"})),
            &place
        ));
        let agent = PermissionRule::parse("Task(Explore)").unwrap();
        assert!(agent.matches("Task", Some(&json!({"subagent_type": "Explore"})), &place));
        assert!(!agent.matches("Task", Some(&json!({"subagent_type": "Plan"})), &place));
    }

    #[test]
    fn unknown_specifiers_match_every_call_of_the_tool() {
        let rule = PermissionRule::parse("Skill(deploy)").unwrap();
        assert_eq!(rule.uninterpreted(), Some("deploy"));
        assert!(rule.matches("Skill", None, &CallPlace::default()));
        assert!(!rule.matches("Bash", None, &CallPlace::default()));
    }

    #[test]
    fn malformed_rules_are_errors() {
        assert_eq!(PermissionRule::parse(" "), Err(RuleError::Empty));
        assert_eq!(
            PermissionRule::parse("Bash(git *"),
            Err(RuleError::Unclosed)
        );
        assert_eq!(PermissionRule::parse("Bash(a) x"), Err(RuleError::Unclosed));
        assert_eq!(
            PermissionRule::parse("Bash()"),
            Err(RuleError::EmptySpecifier)
        );
        assert!(matches!(
            PermissionRule::parse("Ba sh"),
            Err(RuleError::BadTool(_))
        ));
        assert!(matches!(
            PermissionRule::parse("Edit([)"),
            Err(RuleError::BadPattern(..))
        ));
    }
}
