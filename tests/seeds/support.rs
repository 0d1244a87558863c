//! What the seed tests share: a project directory with executable scripts, and a recorder of
//! what hooks saw.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A temporary project directory.
pub struct Project {
    dir: tempfile::TempDir,
    root: PathBuf,
}

impl Project {
    pub fn new() -> Project {
        let dir = tempfile::tempdir().expect("a temporary directory");
        // Canonical, so paths the hooks report compare equal to ours (macOS /private, …).
        let root = std::fs::canonicalize(dir.path()).expect("the temporary directory exists");
        Project { dir, root }
    }

    pub fn path(&self) -> &Path {
        let _ = &self.dir;
        &self.root
    }

    /// Writes `body` to `name` (parents created) and returns its path.
    pub fn file(&self, name: &str, body: &str) -> PathBuf {
        let path = self.root.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("parent directories");
        }
        std::fs::write(&path, body).expect("a project file");
        path
    }

    /// Writes an executable script.
    #[cfg(unix)]
    pub fn script(&self, name: &str, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.file(name, body);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod +x");
        path
    }

    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.root.join(name)).unwrap_or_default()
    }
}

/// A shared, ordered list of what hooks saw.
#[derive(Clone, Default)]
pub struct Seen(Arc<Mutex<Vec<String>>>);

impl Seen {
    pub fn push(&self, what: impl Into<String>) {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(what.into());
    }

    pub fn all(&self) -> Vec<String> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}
