//! `hooks trust`: show each configured hook's standing at the gate, the files its
//! fingerprint covers and the parts of it that cannot be hashed, and approve by hash.
//!
//! `--approve` refuses a hook whose command has unhashed parts (what they load cannot be
//! determined without running it), names them and exits 1; `--approve --accept-unhashed`
//! approves it anyway and the approval records what it accepted, so listings show
//! "approved, partly unhashed". An entry with a problem (left out when loading) is named on
//! stderr and makes the command exit 1: it was not approved.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use hookrail_config::file::Sources;
use hookrail_config::trust::{
    Admission, AllowList, AllowedBy, Gate, OnUnhashed, TrustError, TrustStore, fingerprint,
};
use serde::Serialize;

use crate::CliError;
use crate::load::ConfigArgs;

/// Options of `hooks trust`.
#[derive(Debug, Args)]
pub struct TrustArgs {
    /// Config files or project directories to read, as `hooks validate` takes them. Default:
    /// the sources of the options below (the project, --config, --settings, --plugin-root).
    pub paths: Vec<PathBuf>,
    /// Approve every listed hook that is not admitted yet (records its fingerprint).
    #[arg(long)]
    pub approve: bool,
    /// With --approve: also approve hooks whose commands load files that cannot be determined
    /// (listed as "unhashed"); those parts are not covered by the approval. Review them first.
    #[arg(long, requires = "approve")]
    pub accept_unhashed: bool,
    /// Only these hook ids (repeatable).
    #[arg(long = "id", value_name = "ID")]
    pub ids: Vec<String>,
    /// A note saved with the approvals (who, why).
    #[arg(long)]
    pub note: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Debug, Serialize)]
struct Row {
    id: String,
    handler: String,
    status: String,
    hash: String,
    /// The files the fingerprint covers.
    scripts: Vec<PathBuf>,
    /// The parts whose files cannot be determined, as `fragment: why`.
    unhashed: Vec<String>,
}

const NOT_APPROVED: &str = "NOT APPROVED";

pub fn run(args: TrustArgs) -> Result<ExitCode, CliError> {
    let sources = if args.paths.is_empty() {
        args.config.sources()
    } else {
        args.paths
            .iter()
            .fold(Sources::new(), |s, p| add_path(s, p))
    };
    let config = sources.load().map_err(CliError::Config)?;
    // An entry with a problem is not loaded, so it is neither shown nor approved here; saying
    // nothing would let the user believe every hook was approved.
    for problem in &config.problems {
        eprintln!(
            "hooks trust: {problem} (not loaded, so not approved; `hooks claude` blocks until it is fixed)"
        );
    }
    // Approvals are per project: a project directory given as a path is the project (unless
    // --project says otherwise), so the fingerprints match what its hooks run as.
    let project = match (&args.config.project, args.paths.iter().find(|p| p.is_dir())) {
        (None, Some(dir)) => dir.clone(),
        _ => args.config.project_dir(),
    };
    let path = args.config.trust_path().ok_or_else(|| {
        CliError::Other(
            "no approvals file: set HOOKS_TRUST_FILE or HOME, or pass --trust-file".into(),
        )
    })?;
    let mut store = TrustStore::load(&path).map_err(|e| CliError::Other(e.to_string()))?;
    let (allow, _) = AllowList::from_entries(&config.allow);
    let mut rows = Vec::new();
    let mut approved = 0;
    let mut refused = 0;
    for spec in config.hooks.iter().chain(&config.dormant) {
        if !args.ids.is_empty() && !args.ids.contains(&spec.id) {
            continue;
        }
        let fp = fingerprint(&spec.handler, &project).map_err(|e| {
            CliError::Other(format!("hook `{}` at {}: {e}", spec.id, spec.location))
        })?;
        let gate = Gate::new(allow.clone(), Some(store.clone()));
        let partial = |store: &TrustStore| {
            if store.approval(&fp).is_some_and(|a| a.is_partial()) {
                ", partly unhashed"
            } else {
                ""
            }
        };
        let mut status = match gate.check(spec, &project) {
            Admission::Allowed {
                by: AllowedBy::Pattern(p),
            } => format!("allowed by `{p}`"),
            Admission::Allowed {
                by: AllowedBy::Approval { .. },
            } => format!("approved{}", partial(&store)),
            Admission::Skipped { .. } => NOT_APPROVED.to_owned(),
        };
        if args.approve && status == NOT_APPROVED {
            let on_unhashed = if args.accept_unhashed {
                OnUnhashed::Accept
            } else {
                OnUnhashed::Refuse
            };
            match store.try_approve(&fp, args.note.clone(), on_unhashed) {
                Ok(_) => {
                    approved += 1;
                    status = format!("approved now{}", partial(&store));
                }
                Err(TrustError::Unhashed { parts, .. }) => {
                    refused += 1;
                    eprintln!(
                        "hook `{}` ({}) is not approved: what these parts of its command load cannot be determined, so an approval would not cover it:",
                        spec.id, spec.location
                    );
                    for part in &parts {
                        eprintln!("  unhashed: {part}");
                    }
                    eprintln!(
                        "  review them; to approve it anyway: hooks trust --approve --accept-unhashed --id {}",
                        spec.id
                    );
                }
                Err(e) => return Err(CliError::Other(e.to_string())),
            }
        }
        rows.push(Row {
            id: spec.id.clone(),
            handler: fp.handler.clone(),
            status,
            hash: fp.hash[..12].to_owned(),
            scripts: fp.scripts.clone(),
            unhashed: fp.unhashed.iter().map(ToString::to_string).collect(),
        });
    }
    if approved > 0 {
        store.save().map_err(|e| CliError::Other(e.to_string()))?;
    }
    if args.json {
        crate::load::print_json(&rows)?;
    } else if rows.is_empty() {
        println!("no configured hooks");
    } else {
        let mut table =
            crate::load::table(["id", "handler", "status", "sha256", "covers", "unhashed"]);
        for r in &rows {
            let covers = if r.scripts.is_empty() {
                "(its text only)".to_owned()
            } else {
                r.scripts
                    .iter()
                    .map(|s| crate::load::short(s, &project))
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            let unhashed = r
                .unhashed
                .iter()
                .map(|u| format!("unhashed: {u}"))
                .collect::<Vec<_>>()
                .join("\n");
            table.add_row([
                r.id.clone(),
                r.handler.clone(),
                r.status.clone(),
                r.hash.clone(),
                covers,
                unhashed,
            ]);
        }
        println!("{table}");
        if approved > 0 {
            println!("approved {approved} hook(s) in {}", path.display());
        }
        if refused > 0 {
            println!(
                "refused {refused} hook(s) with unhashed parts (see above); approve them with --approve --accept-unhashed once reviewed"
            );
        } else if approved == 0 && rows.iter().any(|r| r.status == NOT_APPROVED) {
            let unhashed = rows
                .iter()
                .any(|r| r.status == NOT_APPROVED && !r.unhashed.is_empty());
            println!(
                "approve them with: hooks trust --approve (an edited script needs approving again){}",
                if unhashed {
                    "; a hook with unhashed parts also needs --accept-unhashed, once you have reviewed them"
                } else {
                    ""
                }
            );
        }
    }
    if refused > 0 || !config.problems.is_empty() {
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// A path given on the command line, as what it looks like.
fn add_path(sources: Sources, path: &Path) -> Sources {
    if path.is_dir() {
        sources.project(path)
    } else if crate::validate::is_claude_json(path) {
        if path.ends_with("hooks/hooks.json") {
            let plugin = path
                .parent()
                .and_then(Path::parent)
                .unwrap_or(Path::new("."));
            sources.plugin(plugin)
        } else {
            sources.claude_settings(path)
        }
    } else {
        sources.file(path)
    }
}
