//! The files a command loads: looked up from every directory it may run in, with the
//! project interpreter of a `#!` line, Python modules and node's lookup of a script.

use super::*;

/// What [`Scan::hash`] found at a path.
pub(super) enum Hashed {
    File,
    Dir(PathBuf),
    Missing,
    /// A relative path from a directory known only at run time (already reported).
    Unknown,
}

/// Characters that separate the paths a word may name inside it: `alias.h=!sh ./x.sh`,
/// `1e sh ./x.sh`, `--opt=a.sh,b.sh`, `PATH`-like lists, `@argfile`.
const MENTION_SEPARATORS: &str = "'\"=:,;|&()<>`@";
/// Longest word (or token) looked up as a mentioned file.
const MAX_MENTION_CHARS: usize = 4096;

impl Scan<'_> {
    /// Hashes the file `word` names (relative to every directory the command may be in), and
    /// the project interpreter its `#!` line names. `in_project`: only a file inside the
    /// project counts (a project's own `./bin/python3`).
    pub(super) fn hash(
        &mut self,
        word: &str,
        sh: &Shell,
        fragment: &str,
        in_project: bool,
    ) -> Hashed {
        if word.is_empty() {
            return Hashed::Missing;
        }
        let relative = !Path::new(word).is_absolute();
        if relative && let Some(why) = &sh.dir_unknown {
            let why = why.clone();
            self.unhashed(
                fragment,
                format!("`{word}` is taken from a directory known only at run time: {why}"),
            );
            return Hashed::Unknown;
        }
        let bases = if relative {
            sh.dirs.clone()
        } else {
            vec![PathBuf::from("/")]
        };
        let mut found = Hashed::Missing;
        let mut paths = Vec::new();
        for base in bases {
            let path = base.join(word);
            let Ok(meta) = fs::metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                found = Hashed::Dir(path);
                continue;
            }
            if !meta.is_file() {
                continue;
            }
            let path = fs::canonicalize(&path).unwrap_or(path);
            if in_project && !path.starts_with(self.project) {
                continue;
            }
            // What a project file runs from outside the project (`/usr/bin/jq`, a built
            // binary) is the system's, not project code: found, not hashed.
            if self.follow_depth > 0 && !self.in_roots(&path) {
                found = Hashed::File;
                continue;
            }
            found = Hashed::File;
            if !paths.contains(&path) {
                paths.push(path.clone());
            }
            if self.files.contains(&path) {
                continue;
            }
            if self.files.len() >= MAX_SCRIPTS {
                self.unhashed(fragment, format!("it loads more than {MAX_SCRIPTS} files; `{word}` and later ones are not hashed"));
                continue;
            }
            self.files.push(path.clone());
            self.shebang(&path, sh, fragment);
        }
        // After the loop: `shebang` hashes too.
        self.last_found = paths;
        found
    }

    /// Whether `path` is inside the project or the plugin root.
    pub(super) fn in_roots(&self, path: &Path) -> bool {
        path.starts_with(self.project)
            || self.plugin_root.as_deref().is_some_and(|r| {
                path.starts_with(fs::canonicalize(r).unwrap_or_else(|_| PathBuf::from(r)))
            })
    }

    /// Hashes a file the command runs as code, and reports it when it does not exist: a
    /// file created later (`cat ./x.sh > y.sh; sh y.sh`) would run unapproved.
    pub(super) fn hash_code(&mut self, word: &str, sh: &Shell, fragment: &str) -> Hashed {
        let found = self.hash(word, sh, fragment, false);
        if let Hashed::Missing = found {
            self.missing(word, fragment);
        }
        found
    }

    pub(super) fn missing(&mut self, word: &str, fragment: &str) {
        self.unhashed(
            fragment,
            format!("it runs `{word}`, a file that does not exist when approved"),
        );
    }

    /// The conservative catch-all: every project (or plugin root) file a word of the command
    /// names, whole or as a token inside it, is hashed, whatever the program does with it.
    /// An unknown wrapper (`setpriv --reuid=0 ./x.sh`), a misread option or code run by
    /// another tool (`git -c alias.h='!sh ./x.sh' h`) then still cannot run an edited file.
    pub(super) fn mentioned(&mut self, text: &str, sh: &Shell, fragment: &str) {
        if text.is_empty() || text.len() > 64 * 1024 {
            return;
        }
        let tokens = std::iter::once(text)
            .chain(text.split(|c: char| c.is_whitespace() || MENTION_SEPARATORS.contains(c)));
        let mut seen: Vec<&str> = Vec::new();
        for token in tokens {
            if token.is_empty() || token.len() > MAX_MENTION_CHARS || seen.contains(&token) {
                continue;
            }
            seen.push(token);
            self.mentions += 1;
            if self.mentions > MAX_MENTIONS {
                self.unhashed(
                    fragment,
                    format!("it names more than {MAX_MENTIONS} words; the rest are not looked up as files"),
                );
                return;
            }
            self.mentioned_file(token, sh, fragment);
        }
    }

    fn mentioned_file(&mut self, token: &str, sh: &Shell, fragment: &str) {
        let relative = !Path::new(token).is_absolute();
        let bases = if relative {
            sh.dirs.clone()
        } else {
            vec![PathBuf::from("/")]
        };
        let roots: Vec<PathBuf> = std::iter::once(self.project.to_path_buf())
            .chain(
                self.plugin_root
                    .as_deref()
                    .map(|r| fs::canonicalize(r).unwrap_or_else(|_| PathBuf::from(r))),
            )
            .collect();
        for base in bases {
            let path = base.join(token);
            if !fs::metadata(&path).is_ok_and(|m| m.is_file()) {
                continue;
            }
            let path = fs::canonicalize(&path).unwrap_or(path);
            if !roots.iter().any(|r| path.starts_with(r)) {
                continue;
            }
            if relative && let Some(why) = &sh.dir_unknown {
                // Where it is looked up from is not known: say so for a name that is a
                // project file here, without reporting every relative word.
                let why = why.clone();
                self.unhashed(
                    fragment,
                    format!("`{token}` is taken from a directory known only at run time: {why}"),
                );
                return;
            }
            if self.files.contains(&path) {
                continue;
            }
            if self.files.len() >= MAX_SCRIPTS {
                self.unhashed(
                    fragment,
                    format!("it names more than {MAX_SCRIPTS} files; `{token}` and later ones are not hashed"),
                );
                continue;
            }
            self.files.push(path);
        }
    }

    /// A script's `#!` interpreter, when it is a project file (`#!./bin/tool`).
    pub(super) fn shebang(&mut self, path: &Path, sh: &Shell, fragment: &str) {
        let mut head = [0u8; 256];
        let n = fs::File::open(path)
            .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
            .unwrap_or(0);
        let Some(line) = head[..n].strip_prefix(b"#!") else {
            return;
        };
        let line = String::from_utf8_lossy(line);
        let Some(interp) = line
            .lines()
            .next()
            .and_then(|l| l.split_whitespace().next())
        else {
            return;
        };
        let interp = interp.to_owned();
        if !interp.starts_with('/') || Path::new(&interp).starts_with(self.project) {
            self.hash(&interp, sh, fragment, false);
            // A project interpreter that is a script (a wrapper) is followed as one.
            self.follow_interpreter(path, sh);
        }
    }

    /// `python -m a.b` (`main`) or `import a.b`: the project's files for the module, from the
    /// directories it may run in: packages' `__init__.py`, the module or its `__main__.py`,
    /// and compiled or extension modules of the same name that Python would load instead.
    pub(super) fn python_module(&mut self, module: &str, sh: &Shell, fragment: &str, main: bool) {
        let parts: Vec<&str> = module.split('.').collect();
        if parts
            .iter()
            .any(|p| p.is_empty() || !p.chars().all(|c| c.is_alphanumeric() || c == '_'))
        {
            self.unhashed(
                fragment,
                format!("`{module}` is not a module name the scan can follow"),
            );
            return;
        }
        if let Some(why) = &sh.dir_unknown {
            let why = why.clone();
            self.unhashed(
                fragment,
                format!(
                    "module `{module}` is looked up in a directory known only at run time: {why}"
                ),
            );
            return;
        }
        for dir in sh.dirs.clone() {
            let mut at = dir;
            for (k, part) in parts.iter().enumerate() {
                let last = k + 1 == parts.len();
                if let Ok(entries) = fs::read_dir(&at) {
                    let mut compiled: Vec<PathBuf> = entries
                        .flatten()
                        .map(|e| e.path())
                        .filter(|p| {
                            let name = p
                                .file_name()
                                .map(|n| n.to_string_lossy().into_owned())
                                .unwrap_or_default();
                            name.starts_with(&format!("{part}."))
                                && [".so", ".pyd", ".pyc"].iter().any(|x| name.ends_with(x))
                        })
                        .collect();
                    compiled.sort();
                    for c in compiled {
                        self.hash(&c.to_string_lossy(), sh, fragment, false);
                        self.last_found.clear(); // binaries
                    }
                }
                let file = at.join(format!("{part}.py"));
                at = at.join(part);
                if at.is_dir() {
                    self.hash(
                        &at.join("__init__.py").to_string_lossy(),
                        sh,
                        fragment,
                        false,
                    );
                    self.follow_found(Some(Lang::Python), sh);
                    if last && main {
                        self.hash(
                            &at.join("__main__.py").to_string_lossy(),
                            sh,
                            fragment,
                            false,
                        );
                        self.follow_found(Some(Lang::Python), sh);
                    }
                } else {
                    self.hash(&file.to_string_lossy(), sh, fragment, false);
                    self.follow_found(Some(Lang::Python), sh);
                    break;
                }
            }
        }
    }

    /// A node script as node finds it: the file, the file with an extension added, or a
    /// directory's `index` (a directory with a package.json is reported).
    pub(super) fn node_script(&mut self, spec: &str, sh: &Shell, fragment: &str) {
        const EXTENSIONS: &[&str] = &[
            ".js", ".mjs", ".cjs", ".json", ".node", ".ts", ".mts", ".cts", ".tsx",
        ];
        let found = self.hash(spec, sh, fragment, false);
        self.follow_found(Some(Lang::Node), sh);
        match found {
            Hashed::File | Hashed::Unknown => {}
            Hashed::Dir(dir) if dir.join("package.json").is_file() => {
                self.unhashed(fragment, format!("`{spec}` is a directory: node runs the file its package.json names, which is not followed"));
            }
            Hashed::Dir(dir) => {
                for ext in EXTENSIONS {
                    self.hash(
                        &dir.join(format!("index{ext}")).to_string_lossy(),
                        sh,
                        fragment,
                        false,
                    );
                    self.follow_found(Some(Lang::Node), sh);
                }
            }
            Hashed::Missing => {
                let mut any = false;
                for ext in EXTENSIONS {
                    any |= matches!(
                        self.hash(&format!("{spec}{ext}"), sh, fragment, false),
                        Hashed::File
                    );
                    self.follow_found(Some(Lang::Node), sh);
                }
                if !any {
                    self.missing(spec, fragment);
                }
            }
        }
    }
}
