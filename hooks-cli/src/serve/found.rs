//! How `hooks claude` finds the daemon serving its project: the record `hooks serve` leaves
//! per project root ([`hookrail_forward::daemon`], shared with `hooks-forward`, where the
//! format and the checks are documented).

pub use hookrail_forward::daemon::{Found, announce, default_socket, identity, private_dir};
use hookrail_forward::daemon::{Given, Selection};

use crate::load::ConfigArgs;

/// The options of `args` that choose the hooks, with the defaults of this environment.
pub fn selection(args: &ConfigArgs) -> Selection {
    Selection::from_env(Given {
        project: args.project.clone(),
        configs: args.configs.clone(),
        managed_settings: args.managed_settings.clone(),
        settings: args.settings.clone(),
        plugins: args.plugins.clone(),
        user_hooks: args.user_hooks.clone(),
        no_user_hooks: args.no_user_hooks,
        trust_file: args.trust_file.clone(),
    })
}

/// The options that choose which hooks load, in a form two processes can compare.
pub fn sources_of(args: &ConfigArgs) -> Vec<String> {
    selection(args).sources()
}

/// The daemon serving `args`' project with `sources` (its [`sources_of`]), if its record says
/// one runs. A record that does not parse is logged and taken as no daemon.
pub fn find(args: &ConfigArgs, sources: &[String]) -> Option<Found> {
    match hookrail_forward::daemon::find(&args.project_dir(), sources) {
        Ok(found) => found,
        Err(e) => {
            tracing::warn!("{e}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sources_are_the_options_as_given() {
        let args = ConfigArgs {
            settings: vec!["/nonexistent/settings.json".into()],
            no_user_hooks: true,
            trust_file: Some("/nonexistent/trust.json".into()),
            ..ConfigArgs::default()
        };
        assert_eq!(
            sources_of(&args),
            [
                "--settings /nonexistent/settings.json",
                "--trust-file /nonexistent/trust.json",
                "--no-user-hooks"
            ]
        );
    }

    #[test]
    fn the_user_layer_and_the_approvals_default_as_the_loader_reads_them() {
        let args = ConfigArgs::default();
        let selection = selection(&args);
        assert_eq!(selection.user_hooks, args.user_hooks_dir());
        assert_eq!(selection.trust_file, args.trust_path());
        assert_eq!(selection.project_dir(), args.project_dir());
    }
}
