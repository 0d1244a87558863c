//! The settings of [`Budget`](super::Budget): prices, limits, where they apply.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

/// The price of a model, in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ModelPrice {
    /// USD per million input (prompt) tokens; from 0 to 1 000 000.
    pub input_usd_per_mtok: f64,
    /// USD per million output (completion) tokens; from 0 to 1 000 000.
    pub output_usd_per_mtok: f64,
}

impl ModelPrice {
    /// `input` and `output` USD per million tokens.
    pub const fn new(input: f64, output: f64) -> Self {
        ModelPrice {
            input_usd_per_mtok: input,
            output_usd_per_mtok: output,
        }
    }
}

/// Soft and hard limits in dollars and tokens; each is off when `None`. Soft limits switch
/// to the cheaper model, hard limits deny. A limit must be above zero and a soft limit may not
/// be above the hard limit of the same unit.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct BudgetLimits {
    /// Soft limit in USD. Default `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub soft_usd: Option<f64>,
    /// Hard limit in USD. Default `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hard_usd: Option<f64>,
    /// Soft limit in tokens (input plus output). Default `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub soft_tokens: Option<u64>,
    /// Hard limit in tokens (input plus output). Default `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hard_tokens: Option<u64>,
}

/// Settings of [`Budget`](super::Budget).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct BudgetConfig {
    /// Prices by model name: exact name, else the longest entry that is a prefix of the
    /// model's name. Default empty.
    pub prices: BTreeMap<String, ModelPrice>,
    /// The price of models not in `prices`. `None`: their tokens count toward token limits but
    /// cost nothing, and a warning is logged once per model. Default `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_price: Option<ModelPrice>,
    /// Limits of each session. Default: none.
    pub session: BudgetLimits,
    /// Limits of each tenant, over all its sessions until [`Budget::reset_tenant`](super::Budget::reset_tenant). Default:
    /// none.
    pub tenant: BudgetLimits,
    /// Limits of particular tenants, replacing `tenant` for them. Default empty.
    pub tenants: BTreeMap<String, BudgetLimits>,
    /// The model that model calls and subagents switch to at a soft limit. Calls of a model
    /// known to cost no more per token are left alone. `None`: a soft limit is only logged.
    /// Default `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cheaper_model: Option<String>,
    /// Where the limits apply: before model calls (`model_calls`) and before subagent spawns
    /// (`subagents`). Default both. A point left out is not entered by the policy at all.
    /// Limits set with an empty `enforce` are refused: they would never apply.
    pub enforce: BTreeSet<Enforce>,
    /// Also count the tokens of `subagent_stop`, for runtimes whose subagents' model calls do
    /// not pass through these hooks (with [`Session`](hookrail_core::runtime::Session) they do,
    /// and this would count them twice). Default `false`.
    pub count_subagent_stop: bool,
    /// Reports of ended sessions kept for [`Budget::report`](super::Budget::report); the oldest go first. Default
    /// 1024.
    pub max_reports: usize,
    /// Open sessions tracked at once, at least 1; beyond that the least recently active is
    /// closed early. Default 10 000.
    pub max_sessions: usize,
}

impl Default for BudgetConfig {
    fn default() -> Self {
        BudgetConfig {
            prices: BTreeMap::new(),
            default_price: None,
            session: BudgetLimits::default(),
            tenant: BudgetLimits::default(),
            tenants: BTreeMap::new(),
            cheaper_model: None,
            enforce: [Enforce::ModelCalls, Enforce::Subagents].into(),
            count_subagent_stop: false,
            max_reports: 1024,
            max_sessions: 10_000,
        }
    }
}

/// Where [`Budget`](super::Budget) enforces its limits ([`BudgetConfig::enforce`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Enforce {
    /// Before each model call (`pre_model_call`).
    ModelCalls,
    /// Before each subagent spawn (`subagent_start`).
    Subagents,
}
