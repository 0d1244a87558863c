//! [`ConfigError`]: a policy's settings were refused when it was built.

use std::borrow::Cow;

/// A policy's settings were refused when it was built: the policy, the field and what is
/// wrong with it.
///
/// ```
/// use hookrail_builtin::ConfigError;
///
/// let err = ConfigError::new("write_guard", "allow[2]", "unclosed character class in `src/[a`");
/// assert_eq!(
///     err.to_string(),
///     "write_guard: invalid `allow[2]`: unclosed character class in `src/[a`"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{policy}: invalid `{field}`: {message}")]
#[non_exhaustive]
pub struct ConfigError {
    /// The policy's name, as in the `builtin:` section of a config file (`write_guard`).
    pub policy: &'static str,
    /// The field, with an index for list items (`allow[2]`).
    pub field: Cow<'static, str>,
    /// What is wrong with it.
    pub message: String,
}

impl ConfigError {
    /// A refused setting of `policy`.
    pub fn new(
        policy: &'static str,
        field: impl Into<Cow<'static, str>>,
        message: impl std::fmt::Display,
    ) -> Self {
        ConfigError {
            policy,
            field: field.into(),
            message: message.to_string(),
        }
    }
}
