//! What is linked: every declared point and every registered hook, and startup checks.
//!
//! # The linking rule
//!
//! **A crate that nothing in the final binary references is never linked, and its hooks
//! silently vanish.** rustc only loads a dependency that the code names (`use`, a path, or
//! `extern crate`); listing it in `Cargo.toml` is not enough. This holds in debug, release and
//! LTO builds, and for both registry backends. A crate that only holds hooks must therefore be
//! named somewhere:
//!
//! ```text
//! use my_policies as _; // links my_policies, so its #[hook] fns register
//! ```
//!
//! Because a missing hook is silent, an application that depends on some hooks for safety
//! should check for them at startup with [`require`], which fails closed and names what is
//! missing. Keep both halves in one place of the binary, so that the list of hook crates and the
//! check read side by side: one `use … as _;` per crate that contributes hooks, and a list of
//! required hooks holding at least one hook of each of those crates (plus every hook you rely
//! on). Removing a `use` line, or a dependency whose crate was named only there, then fails at
//! startup instead of silently:
//!
//! ```text
//! // src/main.rs
//! use my_policies as _; // deny_sudo, audit
//! use team_guards as _; // no_force_push
//!
//! /// At least one hook of each crate above, and every hook this binary relies on.
//! const REQUIRED_HOOKS: &[&str] = &[
//!     "my_policies::deny_sudo",
//!     "my_policies::audit",
//!     "team_guards::no_force_push",
//! ];
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     hookrail_core::registry::require(REQUIRED_HOOKS)?; // refuses to start, naming the missing
//!     hookrail_core::registry::check()?; // no duplicate hook names
//!     // … the agent
//!     Ok(())
//! }
//! ```
//!
//! A [`RegistryError`] returned through `?` from `main` prints its message (its `Debug` is its
//! `Display`), so the refusal reads:
//!
//! ```text
//! Error: required hooks are not linked: team_guards::no_force_push; a crate that nothing
//! references is not linked, so add `use <crate> as _;` for each crate that defines them
//! ```
//!
//! ```
//! # fn main() -> Result<(), hookrail_core::registry::RegistryError> {
//! // In a real app: require(REQUIRED_HOOKS)?, as above.
//! hookrail_core::registry::require::<&str>([])?;
//! hookrail_core::registry::check()?; // no duplicate hook names
//! let err = hookrail_core::registry::require(["team_guards::no_force_push"]).unwrap_err();
//! assert!(format!("{err:?}").starts_with("required hooks are not linked: team_guards::no_force_push"));
//! # Ok(()) }
//! ```
//!
//! [`linked`] lists what is linked (so does `hooks list`), for a startup log line.

use std::fmt;

use crate::kind::{Kind, KindId};
use crate::point::{HookInfo, HookPoint};

/// The registry backend this build uses: `"linkme"` (link sections, the default) or
/// `"inventory"` (pre-main constructors, the `inventory` cargo feature).
pub const BACKEND: &str = if cfg!(any(feature = "inventory", hooks_backend = "inventory")) {
    "inventory"
} else {
    "linkme"
};

/// A declared hook point, as listed by [`points`].
pub struct PointInfo {
    name: &'static str,
    kind: KindId,
    hooks: fn() -> Vec<HookInfo>,
    duplicates: fn() -> Vec<HookInfo>,
}

impl PointInfo {
    #[doc(hidden)]
    pub const fn __new<P: HookPoint>() -> Self {
        PointInfo {
            name: P::NAME,
            kind: <P::Kind as Kind>::ID,
            hooks: hook_infos::<P>,
            duplicates: duplicate_infos::<P>,
        }
    }

    /// The point's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The point's kind.
    pub fn kind(&self) -> KindId {
        self.kind
    }

    /// The hooks linked at this point, in run order.
    pub fn hooks(&self) -> Vec<HookInfo> {
        (self.hooks)()
    }

    /// Entries dropped because an earlier hook at this point has the same name.
    pub fn duplicates(&self) -> Vec<HookInfo> {
        (self.duplicates)()
    }
}

impl fmt::Debug for PointInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PointInfo")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

fn hook_infos<P: HookPoint>() -> Vec<HookInfo> {
    P::registry().hooks().iter().map(|e| e.info()).collect()
}

fn duplicate_infos<P: HookPoint>() -> Vec<HookInfo> {
    P::registry()
        .duplicates()
        .iter()
        .map(|e| e.info())
        .collect()
}

/// Every linked hook point (the standard catalog and custom points of linked crates), sorted by
/// name.
pub fn points() -> Vec<&'static PointInfo> {
    let mut all = crate::__private::all_points();
    all.sort_by_key(|p| p.name);
    all
}

/// Every linked hook at every point, sorted by point name, then in run order.
///
/// ```
/// for hook in hookrail_core::registry::linked() {
///     println!("{:<20} {:>5} {} ({}:{})", hook.point, hook.order, hook.name, hook.file, hook.line);
/// }
/// ```
pub fn linked() -> Vec<HookInfo> {
    points().into_iter().flat_map(|p| p.hooks()).collect()
}

/// Fail unless every named hook is linked (at any point).
///
/// This is the startup check for the [linking rule](self#the-linking-rule): call it with the
/// hooks your application relies on, and refuse to start when one is missing.
///
/// ```
/// let err = hookrail_core::registry::require(["no_such_crate::guard"]).unwrap_err();
/// assert!(err.to_string().contains("no_such_crate::guard"));
/// ```
pub fn require<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> Result<(), RegistryError> {
    let linked = linked();
    let missing: Vec<String> = names
        .into_iter()
        .filter(|n| !linked.iter().any(|h| h.name.as_str() == n.as_ref()))
        .map(|n| n.as_ref().to_owned())
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(RegistryError::Missing { missing })
    }
}

/// Fail if any point has two hooks with the same name (only the first of them runs).
pub fn check() -> Result<(), RegistryError> {
    let duplicates: Vec<HookInfo> = points().into_iter().flat_map(|p| p.duplicates()).collect();
    if duplicates.is_empty() {
        Ok(())
    } else {
        Err(RegistryError::Duplicates { duplicates })
    }
}

/// A startup check failed.
///
/// Its `Debug` output is its message (the `Display` text), because `fn main() -> Result<…>`
/// prints an error returned through `?` with `Debug`: the user sees which hooks are missing and
/// how to link them, not `Missing { missing: [...] }`. The alternate form (`{:#?}`) shows the
/// fields.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// Required hooks are not linked.
    #[error(
        "required hooks are not linked: {}; a crate that nothing references is not linked, \
         so add `use <crate> as _;` for each crate that defines them",
        missing.join(", ")
    )]
    Missing {
        /// The names that were not found.
        missing: Vec<String>,
    },
    /// Some point has several hooks with one name.
    #[error(
        "duplicate hook names (only the first of each runs): {}",
        DisplayDuplicates(duplicates)
    )]
    Duplicates {
        /// The entries that were dropped.
        duplicates: Vec<HookInfo>,
    },
}

impl fmt::Debug for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !f.alternate() {
            return fmt::Display::fmt(self, f);
        }
        match self {
            RegistryError::Missing { missing } => {
                f.debug_struct("Missing").field("missing", missing).finish()
            }
            RegistryError::Duplicates { duplicates } => f
                .debug_struct("Duplicates")
                .field("duplicates", duplicates)
                .finish(),
        }
    }
}

struct DisplayDuplicates<'a>(&'a [HookInfo]);

impl fmt::Display for DisplayDuplicates<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "`{}` at `{}` ({}:{})", d.name, d.point, d.file, d.line)?;
        }
        Ok(())
    }
}
