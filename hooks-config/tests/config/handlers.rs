//! The handlers, hook specs and files the trust tests build (trust, trust_forms,
//! trust_transitive, config_files).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hookrail_config::spec::{
    CommandHandler, CommandLine, Handler, HookSpec, HttpHandler, Location, Matcher,
};

/// A command handler that runs `text` through the shell.
pub fn shell(text: &str) -> Handler {
    with_env(text, &[])
}

/// A command handler that runs `args` without a shell.
pub fn exec(args: &[&str]) -> Handler {
    Handler::Command(CommandHandler {
        line: CommandLine::Exec(args.iter().map(|a| (*a).to_owned()).collect()),
        env: BTreeMap::new(),
        plugin_root: None,
    })
}

/// A shell command handler with variables set for it.
pub fn with_env(text: &str, env: &[(&str, &str)]) -> Handler {
    Handler::Command(CommandHandler {
        line: CommandLine::Shell(text.to_owned()),
        env: env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        plugin_root: None,
    })
}

/// An HTTP handler with its headers.
pub fn http(url: &str, headers: &[(&str, &str)]) -> Handler {
    Handler::Http(HttpHandler {
        url: url.to_owned(),
        headers: headers
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        plugin_root: None,
    })
}

/// A blocking `stop` hook `h` with `handler`, as if read from line 3 of `hooks.yaml`.
pub fn spec(handler: Handler) -> HookSpec {
    HookSpec {
        id: "h".to_owned(),
        point: "stop",
        enabled: true,
        blocking: true,
        matcher: Matcher::default(),
        handler,
        timeout: None,
        on_error: None,
        on_unapproved: None,
        order: 0,
        effects: Vec::new(),
        summary: None,
        location: Location {
            file: Arc::new(PathBuf::from("hooks.yaml")),
            line: 3,
            column: 5,
        },
    }
}

/// Writes `text` to `dir/name`, creating its directories.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(&path, text).unwrap();
    path
}
