//! Rule packs: named sets of rules, as data (the format is documented on [`Pack`]).

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, OnceLock};

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::shell::{self, Command, RedirectOp};

use super::Action;
use super::rules::{Env, Place};
use super::user::{UserRule, wildcard};

mod exempt;
pub(super) mod operands;

/// A named set of rules. Builtin packs and `custom_packs` in settings have this shape.
///
/// A pack is a TOML file (the builtin ones are in `src/command_guard/packs/`, compiled in) or
/// the same shape in settings (`custom_packs`). Each rule names the commands it is about in
/// the syntax of the user rules (`"kubectl delete namespace"`: a program glob, flags in any
/// order and form, operand globs in order), and narrows them with data only:
///
/// ```toml
/// name = "databases"
/// description = "Statements that drop or empty data, through the usual clients."
/// misses = "SQL in files (`psql -f drop.sql`) and from programs (ORMs, migrations)."
///
/// [[rules]]
/// id = "sql-delete-without-where"
/// action = "ask"                                   # deny | ask
/// what = "DELETE without WHERE empties the table"  # in the reason
/// command = ["psql", "mysql", "sqlite3"]           # any of these
/// unless = ["--help"]                              # a flag or operand glob that exempts
/// text = '(?i)\bdelete\s+from\b'                   # the command's text must match
/// text_unless = '(?i)\bwhere\b'                    # … and must not match this
/// operand = "system"                               # some operand must be such a place
/// operand_at = "any"                               # which operands: any | last | not-last | first
/// operand_except = ["/mnt"]                        # operand globs that are not the place
///
/// [options.mv]                                     # per program, for every rule of the pack
/// values = ["-S", "--suffix"]                      # options whose value may be the next word
/// target = ["-t", "--target-directory"]            # options whose value is where it writes
///
/// [options.shutdown]
/// modes = ["-c", "-r", "-h", "-P"]                 # override each other: the last counts
/// ```
///
/// The **text** of a command is its arguments joined by spaces, then the bodies of its
/// here-documents and here-strings, then what the previous stage of its pipeline prints when
/// that is literal (`echo 'DROP TABLE t' | psql`). **Operand** places: `root` (`/`), `home`
/// (the home directory or a parent), `system` (either of those, or a system directory),
/// `system-path` (a `system` place, or any path inside a system tree: `/etc/ssh/sshd_config`,
/// `/usr/bin/python3`, `/var/lib/dpkg/status`; not the home directory's contents),
/// `outside-project`, `project` (the project root or a parent of it, or a glob of every entry
/// of one: `*`), `disk` (a block device; a relative path starts where the command runs),
/// `device` (a block device, another path under `/dev`, or a path computed when it runs: not
/// a plain file such as a disk image), `shell-startup` (a startup file a shell reads in the
/// home directory: `~/.bashrc`),
/// `protected-branch` (a `protected_branches` name, or its ref: `refs/heads/main`), `unknown`
/// (a path that starts with a variable the guard does not expand: `"$DEST"`, `${X:-.}`).
/// **Operand_at** says which operands are looked at: `any` (the default), `last` (the
/// destination of `rsync`, `ln`, `mount`), `not-last` (the sources of `mv`, not where they
/// go), `first` (the one right after the operands the matching command pattern names: the
/// branch of `git switch -C main x`, not its start point; the value attached to one of the
/// pattern's short flags, `-Cmain`, is looked at too). Operands are the arguments that do not
/// start with `-`, so the value of a flag written as a separate word (`-e ssh`) is one, unless
/// the pack's **options** list it in the program's `values` (`rsync --delete src/ .
/// --exclude x` writes to `.`, not to `x`). **Target** options name where the program writes
/// (`mv -t /srv a b`, `tar -cf /dev/sda`): with one given, `last` and `any` look at its
/// value as well as the operands they look at, and `not-last` at every operand. A short
/// option in `values` or `target` takes the rest of its cluster (`-tdir`), or the next word
/// when it ends it (`-vt dir`); a long one (`--file`, or a single-dash one such as openssl's
/// `-out`) takes `=value` or the next word, and a double-dash `target` one may be abbreviated
/// (`--target` for `--target-directory`), as GNU tools accept. **Modes** are options that
/// override each other, of which the last given counts: one of them in `unless` exempts only
/// when no other follows it (`shutdown -c -h now` powers off). An `unless` entry with a
/// program glob before it (`"shutdown -r"`) exempts that program's commands only.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Pack {
    /// The name settings use to turn it on (`containers`, `acme.deploy`).
    pub name: String,
    /// What the pack is about.
    #[serde(default)]
    pub description: String,
    /// What it does not catch, so nobody relies on it for that.
    #[serde(default)]
    pub misses: String,
    /// Per program (its file name: `rsync`), the options the rules need to know to find its
    /// operands.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub options: BTreeMap<String, ProgramOptions>,
    /// The rules.
    pub rules: Vec<PackRule>,
}

/// The options of a program that change which of its words are operands (see [`Pack`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ProgramOptions {
    /// Options that take a value, which may be the next word (`--exclude x`, `-e ssh`): that
    /// word is not an operand, so a value written after the destination does not hide it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
    /// Options whose value is where the program writes (`-t DIR` of `mv`, `cp`, `ln`; `-f` of
    /// `tar`). When one is given, `last` and `any` look at its value too, and `not-last` at
    /// every operand.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub target: Vec<String>,
    /// Options that override each other, of which the last given counts (`shutdown`'s `-c`,
    /// `-r`, `-h`, `-P`): one of them in a rule's `unless` exempts only when no other is
    /// given after it (`shutdown -c -h now` powers off).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modes: Vec<String>,
}

/// One rule of a [`Pack`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PackRule {
    /// Its id, unique across every pack: in reasons and in `disable_builtin`.
    pub id: String,
    /// `deny` or `ask` (an `ask` rule decides as `builtin_ask` says, like the builtin ones).
    pub action: Action,
    /// What the command does and why that is dangerous; quoted in the reason.
    pub what: String,
    /// The commands it is about, in the user rules' syntax; any one may match.
    pub command: Vec<String>,
    /// Flags (`-n`, `--dry-run`) or operand globs, any one of which exempts the command; read
    /// closed: a word that may be the value of the option before it exempts nothing
    /// (`--query help`), nor does a flag turned off (`--dry-run=false`). A program glob before
    /// it (`"shutdown -r"`) makes it an exemption of that program's commands only (`-r` of
    /// `systemctl` is `--recursive`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unless: Vec<String>,
    /// A place one of the command's operands must be.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operand: Option<OperandPlace>,
    /// Operand globs that do not count as `operand`'s place (`/mnt` for `umount`): unlike
    /// `unless`, they exempt that operand, not the command (`umount /mnt /usr` still asks).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub operand_except: Vec<String>,
    /// Which operands `operand` looks at (default: any).
    #[serde(default, skip_serializing_if = "OperandAt::is_any")]
    pub operand_at: OperandAt,
    /// A regular expression the command's text must match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// A regular expression that exempts the command when its text matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_unless: Option<String>,
}

/// Where an operand must point for a rule to match (see [`PackRule::operand`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OperandPlace {
    /// `/` itself.
    Root,
    /// The home directory or a parent of it.
    Home,
    /// `/`, the home directory, or a system directory (`/etc`, `/usr/lib`).
    System,
    /// A `System` place or any path inside a system tree (`/etc/ssh/sshd_config`,
    /// `/usr/local/bin/x`, `/var/lib/dpkg`), the home directory's contents left out.
    SystemPath,
    /// Anything outside the project root (system places included).
    OutsideProject,
    /// The project root or a parent of it (a glob that takes every entry of one too: `*`).
    Project,
    /// A block device (`/dev/sda`).
    Disk,
    /// A block device, another path under `/dev`, or a path computed when it runs (`$DEV`):
    /// anything but a plain file, such as a disk image (`parted disk.img mklabel gpt`).
    Device,
    /// A startup file a shell reads in the home directory (`~/.bashrc`, `~/.zshrc`,
    /// `~/.config/fish/config.fish`): what is in it runs in every new shell.
    ShellStartup,
    /// A branch `protected_branches` names, or its ref (`refs/heads/main`).
    ProtectedBranch,
    /// A path that starts with a variable the guard does not expand (`"$DEST"`, `${X:-.}`,
    /// `./$X`), as `rm-unknown-variable` reads it: it could be any of the places above.
    Unknown,
}

impl fmt::Display for OperandPlace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OperandPlace::Root => "root",
            OperandPlace::Home => "home",
            OperandPlace::System => "system",
            OperandPlace::SystemPath => "system-path",
            OperandPlace::OutsideProject => "outside-project",
            OperandPlace::Project => "project",
            OperandPlace::Disk => "disk",
            OperandPlace::Device => "device",
            OperandPlace::ShellStartup => "shell-startup",
            OperandPlace::ProtectedBranch => "protected-branch",
            OperandPlace::Unknown => "unknown",
        })
    }
}

/// Which of a command's operands [`PackRule::operand`] looks at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OperandAt {
    /// Every operand.
    #[default]
    Any,
    /// The last one: where `rsync`, `ln`, `cp` or `mount` write.
    Last,
    /// All but the last: what `mv` or `rsync` take from.
    NotLast,
    /// The one right after the words the rule's command names: the branch of `git switch -C
    /// main x` (after `switch`), not its start point.
    First,
}

impl OperandAt {
    fn is_any(&self) -> bool {
        *self == OperandAt::Any
    }
}

impl fmt::Display for OperandAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OperandAt::Any => "any",
            OperandAt::Last => "last",
            OperandAt::NotLast => "not-last",
            OperandAt::First => "first",
        })
    }
}

/// The builtin pack files, in the order their rules are checked.
const BUILTIN_FILES: &[(&str, &str)] = &[
    ("core.git", include_str!("packs/core.git.toml")),
    ("core.shell", include_str!("packs/core.shell.toml")),
    (
        "core.filesystem",
        include_str!("packs/core.filesystem.toml"),
    ),
    ("system", include_str!("packs/system.toml")),
    ("remote", include_str!("packs/remote.toml")),
    ("containers", include_str!("packs/containers.toml")),
    ("kubernetes", include_str!("packs/kubernetes.toml")),
    ("databases", include_str!("packs/databases.toml")),
    ("cloud", include_str!("packs/cloud.toml")),
    ("iac", include_str!("packs/iac.toml")),
];

/// The packs that are always on: the rules every other guard relies on. Their rules can be
/// turned off one by one (`disable_builtin`), not as a pack.
pub const CORE_PACKS: &[&str] = &["core.filesystem", "core.git", "core.shell"];

/// The options a builtin pack lists for `program` (rsync's value options), for the builtin
/// rules that read the same program's words; `None` when no pack lists it.
pub(super) fn builtin_options(program: &str) -> Option<&'static ProgramOptions> {
    // Asked for every pack rule with an exemption that a command meets: a map built once,
    // not a walk over every rule of every pack.
    static BY_PROGRAM: OnceLock<HashMap<&'static str, &'static ProgramOptions>> = OnceLock::new();
    let by_program = BY_PROGRAM.get_or_init(|| {
        let mut map = HashMap::new();
        for rule in builtin().into_iter().flatten().flat_map(|pack| &pack.rules) {
            for (name, options) in rule.options.iter() {
                map.entry(name.as_str()).or_insert(options);
            }
        }
        map
    });
    by_program.get(program).copied()
}

/// The builtin packs, parsed and compiled once per process.
pub(super) fn builtin() -> Result<&'static [Compiled], String> {
    static PACKS: OnceLock<Result<Vec<Compiled>, String>> = OnceLock::new();
    PACKS
        .get_or_init(|| {
            BUILTIN_FILES
                .iter()
                .map(|(file, text)| {
                    let pack: Pack =
                        toml::from_str(text).map_err(|e| format!("builtin pack {file}: {e}"))?;
                    if pack.name != *file {
                        return Err(format!("builtin pack {file} is named `{}`", pack.name));
                    }
                    Compiled::new(&pack, false)
                        .map_err(|(field, e)| format!("builtin pack {file}: {field}: {e}"))
                })
                .collect()
        })
        .as_deref()
        .map_err(Clone::clone)
}

/// The builtin packs as data: what `hooks list` and the docs show.
///
/// ```
/// use hookrail_builtin::command_guard::builtin_packs;
///
/// let packs = builtin_packs();
/// let git = packs.iter().find(|p| p.name == "core.git").unwrap();
/// assert!(git.rules.iter().any(|r| r.id == "git-stash-drop"));
/// ```
pub fn builtin_packs() -> Vec<Pack> {
    BUILTIN_FILES
        .iter()
        .filter_map(|(_, text)| toml::from_str(text).ok())
        .collect()
}

/// The names of the builtin packs that can be turned on and off (every builtin pack but the
/// core ones): the default of `packs`.
pub fn optional_pack_names() -> Vec<String> {
    BUILTIN_FILES
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| !CORE_PACKS.contains(name))
        .map(str::to_owned)
        .collect()
}

/// A pack ready to match.
#[derive(Debug, Clone)]
pub(super) struct Compiled {
    pub(super) name: String,
    pub(super) rules: Vec<CompiledRule>,
}

/// A rule ready to match.
#[derive(Debug, Clone)]
pub(super) struct CompiledRule {
    pub(super) id: String,
    pub(super) action: Action,
    what: String,
    command: Vec<UserRule>,
    unless: Vec<String>,
    operand: Option<OperandPlace>,
    operand_except: Vec<String>,
    operand_at: OperandAt,
    /// The pack's [`Pack::options`].
    options: Arc<BTreeMap<String, ProgramOptions>>,
    text: Option<LazyRegex>,
    text_unless: Option<LazyRegex>,
}

/// A regular expression compiled when first used: a process per event (`hooks claude`) only
/// pays for the ones a command gets to.
#[derive(Debug, Clone)]
struct LazyRegex {
    source: String,
    compiled: OnceLock<Option<Regex>>,
}

impl LazyRegex {
    /// Compiled now when `eager`, so that an error is reported at load.
    fn new(source: &str, eager: bool) -> Result<Self, regex::Error> {
        let compiled = OnceLock::new();
        if eager {
            let _ = compiled.set(Some(Regex::new(source)?));
        }
        Ok(LazyRegex {
            source: source.to_owned(),
            compiled,
        })
    }

    /// Whether `text` matches; `None` when the expression does not compile (a builtin one is
    /// checked by a test, a custom one at load, so this is not expected).
    fn is_match(&self, text: &str) -> Option<bool> {
        self.compiled
            .get_or_init(|| Regex::new(&self.source).ok())
            .as_ref()
            .map(|re| re.is_match(text))
    }
}

impl Compiled {
    /// Compiles `pack`; the error is the field (`rules[2].text`) and what is wrong with it.
    /// Regular expressions are compiled now when `eager`, else when first used.
    pub(super) fn new(pack: &Pack, eager: bool) -> Result<Self, (String, String)> {
        if pack.name.trim().is_empty() {
            return Err(("name".into(), "empty pack name".into()));
        }
        for (program, known) in &pack.options {
            for (field, list) in [("values", &known.values), ("target", &known.target)] {
                if let Some((j, bad)) = list
                    .iter()
                    .enumerate()
                    .find(|(_, o)| !operands::is_option(o))
                {
                    return Err((
                        format!("options.{program}.{field}[{j}]"),
                        format!("`{bad}` is not an option (`-x` or `--name`)"),
                    ));
                }
            }
        }
        // Keyed as commands name their program (`[options.VBoxManage]` is `vboxmanage`'s).
        let options = Arc::new(
            (pack.options.iter())
                .map(|(program, known)| {
                    (
                        crate::shell::program_key(program).into_owned(),
                        known.clone(),
                    )
                })
                .collect::<BTreeMap<_, _>>(),
        );
        let rules = pack
            .rules
            .iter()
            .enumerate()
            .map(|(i, rule)| {
                let at = |field: &str| format!("rules[{i}].{field}");
                if rule.id.trim().is_empty() {
                    return Err((at("id"), "empty rule id".into()));
                }
                if rule.action == Action::Allow {
                    return Err((
                        at("action"),
                        "a pack rule denies or asks; exempt commands with `allow`".into(),
                    ));
                }
                if rule.command.is_empty() {
                    return Err((at("command"), "no command to match".into()));
                }
                let command = rule
                    .command
                    .iter()
                    .enumerate()
                    .map(|(j, source)| {
                        UserRule::new(format!("{}[{j}]", at("command")), source)
                            .map(UserRule::abbreviated)
                            .map_err(|e| (format!("{}[{j}]", at("command")), e))
                    })
                    .collect::<Result<_, _>>()?;
                let regex = |field: &str, source: &Option<String>| {
                    source
                        .as_deref()
                        .map(|source| LazyRegex::new(source, eager))
                        .transpose()
                        .map_err(|e| (at(field), e.to_string()))
                };
                Ok(CompiledRule {
                    id: rule.id.clone(),
                    action: rule.action,
                    what: rule.what.clone(),
                    command,
                    unless: rule.unless.clone(),
                    operand: rule.operand,
                    operand_except: rule.operand_except.clone(),
                    operand_at: rule.operand_at,
                    options: Arc::clone(&options),
                    text: regex("text", &rule.text)?,
                    text_unless: regex("text_unless", &rule.text_unless)?,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Compiled {
            name: pack.name.clone(),
            rules,
        })
    }
}

impl CompiledRule {
    /// The program globs of the rule's command patterns.
    pub(super) fn programs(&self) -> impl Iterator<Item = &str> {
        self.command.iter().map(UserRule::program)
    }

    /// True when one of the rule's command patterns is about the program `word`.
    pub(super) fn names_program(&self, word: &str) -> bool {
        self.command.iter().any(|r| wildcard(r.program(), word))
    }

    /// What the rule saw when `command` (whose pipeline feeds it `stdin`, when literal)
    /// matches it.
    pub(super) fn matches(
        &self,
        command: &Command,
        stdin: Option<&str>,
        env: &Env<'_>,
    ) -> Option<String> {
        let pattern = self.command.iter().find(|r| r.matches(command))?;
        const NONE: &[&str] = &[];
        let operands::Split {
            flags,
            operands,
            targets,
        } = match self.options.get(&command.program) {
            Some(known) => operands::split(&command.args, &known.values, &known.target),
            None => operands::split(&command.args, NONE, NONE),
        };
        // Read closed: a word that may be something else exempts nothing (exempt.rs).
        let exempt = !self.unless.is_empty() && {
            let known =
                (self.options.get(&command.program)).or_else(|| builtin_options(&command.program));
            // `"shutdown -r"`: an exemption of that program's commands only.
            let exemptions = self.unless.iter().filter_map(|u| match u.split_once(' ') {
                Some((program, u)) => wildcard(program, &command.program).then_some(u),
                None => Some(u.as_str()),
            });
            exemptions
                .into_iter()
                .any(|u| exempt::given_to(&command.program, u, &command.args, known))
        };
        if exempt {
            return None;
        }
        if self.text.is_some() || self.text_unless.is_some() {
            // An expression that does not compile matches, and exempts nothing.
            let hit = |text: &str| {
                (self.text.as_ref()).is_none_or(|re| re.is_match(text) != Some(false))
                    && (self.text_unless.as_ref()).is_none_or(|re| re.is_match(text) != Some(true))
            };
            // Words through variables the script certainly sets are read as the shell reads
            // them too (`Q='DROP TABLE t'; psql -c "$Q"`).
            let expanded = expanded_args(&command.args, env);
            if !hit(&text_of(&command.args, command, stdin))
                && !expanded.is_some_and(|args| hit(&text_of(&args, command, stdin)))
            {
                return None;
            }
        }
        let Some(place) = self.operand else {
            return Some(self.what.clone());
        };
        let dir = command.dir.as_deref();
        // With a target option (`mv -t /srv a b`) every operand is a source, and the target
        // is where the command writes; the last operand is looked at too, so that reading a
        // word as a target only makes the rule stricter.
        let candidates = match self.operand_at {
            OperandAt::Any => &operands[..],
            OperandAt::Last => &operands[operands.len().saturating_sub(1)..],
            OperandAt::NotLast if !targets.is_empty() => &operands[..],
            OperandAt::NotLast => &operands[..operands.len().saturating_sub(1)],
            OperandAt::First => {
                // After the last operand the pattern names (`switch`), in order.
                let mut at = 0;
                for word in pattern.operands() {
                    if let Some(i) = operands[at..].iter().position(|o| wildcard(word, o)) {
                        at += i + 1;
                    }
                }
                operands
                    .get(at..(at + 1).min(operands.len()))
                    .unwrap_or_default()
            }
        };
        // Looked at before the operands: for `last` and `any`, the target options' values; for `first`,
        // the value of the pattern's flag (`git checkout -B main`) when it is attached to it
        // (`-Bmain`). For a flag that takes no value that word is a cluster (`-fmain` is
        // `-f -m …`); looking at it is only stricter.
        let before: Vec<&str> = match self.operand_at {
            OperandAt::Last | OperandAt::Any => targets,
            OperandAt::First => flags
                .iter()
                .filter(|f| !f.starts_with("--"))
                .filter_map(|f| {
                    let cluster = &f[1..];
                    let (at, flag) = cluster
                        .char_indices()
                        .find(|(_, c)| pattern.short().contains(c))?;
                    let value = &cluster[at + flag.len_utf8()..];
                    (!value.is_empty()).then_some(value)
                })
                .collect(),
            _ => Vec::new(),
        };
        // What a remote copy names on another machine is no place here (`host:/`,
        // `[::1]:.`, `rsync://host/m/`): the rules about remote places read the text.
        // A substitution's output (`mv $(find . -name '*.tmp') /tmp`, what `… | xargs -I{} mv
        // {} /tmp` moves) is no place the rule can tell: a glob in it is the command's.
        let local = candidates
            .iter()
            .filter(|o| !operands::is_remote(&command.program, o))
            .filter(|o| !(o.starts_with("$(") || o.starts_with('`')))
            .filter(|o| !self.operand_except.iter().any(|e| wildcard(e, o)));
        let at_place = |o: &str| match place {
            OperandPlace::Unknown => {
                !operands::may_be_remote(&command.program, o)
                    && super::opaque::unknown_variable(o, "").is_some()
            }
            OperandPlace::Disk => env.is_disk_at(o, dir),
            OperandPlace::Device => {
                env.is_disk_at(o, dir)
                    || o.contains(['$', '`'])
                    || env.place(o, dir).1.starts_with("/dev")
            }
            // `git update-ref refs/heads/main …` names the branch by its ref.
            OperandPlace::ProtectedBranch => {
                env.is_protected(o.strip_prefix("refs/heads/").unwrap_or(o))
            }
            _ => {
                let (at, path) = env.place(o, dir);
                match place {
                    OperandPlace::Root => at == Place::Root,
                    OperandPlace::Project => at == Place::Project,
                    OperandPlace::Home => at == Place::Home,
                    OperandPlace::ShellStartup => env.is_shell_startup(&path),
                    OperandPlace::System => matches!(at, Place::Root | Place::Home | Place::System),
                    OperandPlace::SystemPath => {
                        matches!(at, Place::Root | Place::Home | Place::System)
                            || (at == Place::Outside && env.in_system_tree(&path))
                    }
                    _ => matches!(
                        at,
                        Place::Root | Place::Home | Place::System | Place::Outside
                    ),
                }
            }
        };
        // Through the variables and links the script sets too (`f=/etc/passwd; truncate -s 0
        // $f`, `ln -s /etc e; chmod -R 777 e/`).
        let follows = shell::links::follows_links(command);
        let operand = before
            .iter()
            .chain(local)
            .find(|o| at_place(o) || (env.readings(o, follows).iter()).any(|r| at_place(r)))?;
        Some(format!("{} (`{operand}`)", self.what))
    }
}

/// The command's arguments, here-document and here-string bodies, and literal standard input.
fn text_of(args: &[String], command: &Command, stdin: Option<&str>) -> String {
    let mut text = args.join(" ");
    for r in &command.redirects {
        if matches!(r.op, RedirectOp::HereDoc | RedirectOp::HereString) {
            text.push('\n');
            text.push_str(&r.target);
        }
    }
    if let Some(stdin) = stdin {
        text.push('\n');
        text.push_str(stdin);
    }
    text
}

/// `args` with each word that uses a variable the script certainly sets replaced by its
/// readings (blank-separated when there are several); `None` when there is none.
fn expanded_args(args: &[String], env: &Env<'_>) -> Option<Vec<String>> {
    let mut changed = false;
    let expanded = (args.iter())
        .map(|arg| {
            let readings = match arg.contains('$') {
                true => env.certain_readings(arg),
                false => Vec::new(),
            };
            if readings.is_empty() {
                arg.clone()
            } else {
                changed = true;
                readings.join(" ")
            }
        })
        .collect();
    changed.then_some(expanded)
}

#[cfg(test)]
mod tests;
