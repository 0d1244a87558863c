//! The files a command loads: looked up from every directory it may run in, with the
//! project interpreter of a `#!` line, Python modules and node's lookup of a script.

use super::*;

/// What [`Scan::hash`] found at a path.
pub(super) enum Hashed {
    File,
    Dir(PathBuf),
    Missing,
}

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
            return Hashed::Missing;
        }
        let bases = if relative {
            sh.dirs.clone()
        } else {
            vec![PathBuf::from("/")]
        };
        let mut found = Hashed::Missing;
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
            found = Hashed::File;
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
        found
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
                    if last && main {
                        self.hash(
                            &at.join("__main__.py").to_string_lossy(),
                            sh,
                            fragment,
                            false,
                        );
                    }
                } else {
                    self.hash(&file.to_string_lossy(), sh, fragment, false);
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
        match self.hash(spec, sh, fragment, false) {
            Hashed::File => {}
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
                }
            }
            Hashed::Missing => {
                for ext in EXTENSIONS {
                    self.hash(&format!("{spec}{ext}"), sh, fragment, false);
                }
            }
        }
    }
}
