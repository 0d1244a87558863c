//! What the budget counts: exact running totals per model ([`Ledger`]), checked limits and
//! prices in integer units, and the reports made from them.

use std::collections::BTreeMap;
use std::sync::Arc;

use hookrail_core::context::TokenUsage;
use serde::{Deserialize, Serialize};

use super::{BudgetLimits, LimitHit, MAX_PRICE, MAX_USD, ModelPrice, PICO_PER_MICRO, POLICY};
use crate::ConfigError;

/// Tokens and cost of one model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
pub struct ModelSpend {
    /// Tokens used.
    pub tokens: TokenUsage,
    /// Their cost in micro-dollars (millionths of a US dollar), rounded down.
    pub cost_micros: u64,
    /// False when the model had no price (its cost is 0).
    pub priced: bool,
}

/// What one session spent, per model and in total, and the limits it reached.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[non_exhaustive]
pub struct SpendReport {
    /// The session.
    pub session_id: String,
    /// Its tenant, if any.
    pub tenant: Option<String>,
    /// Per model.
    pub models: BTreeMap<String, ModelSpend>,
    /// All tokens.
    pub tokens: TokenUsage,
    /// The total cost in micro-dollars, rounded down.
    pub cost_micros: u64,
    /// The limits reached, in the order first seen.
    pub limits_hit: Vec<LimitHit>,
    /// Model calls and spawns switched to the cheaper model.
    pub downgraded_calls: u32,
    /// Model calls and spawns denied.
    pub denied_calls: u32,
    /// True once `session_end` was seen; false for an open session, or one closed early
    /// because there were more than `max_sessions`.
    pub ended: bool,
}

impl SpendReport {
    /// The total cost in US dollars (for display; the exact figure is `cost_micros`).
    pub fn cost_usd(&self) -> f64 {
        self.cost_micros as f64 / 1e6
    }
}

/// What one tenant spent over all its sessions since the last
/// [`Budget::reset_tenant`](super::Budget::reset_tenant).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[non_exhaustive]
pub struct TenantSpend {
    /// The tenant.
    pub tenant: String,
    /// Per model.
    pub models: BTreeMap<String, ModelSpend>,
    /// All tokens.
    pub tokens: TokenUsage,
    /// The total cost in micro-dollars, rounded down.
    pub cost_micros: u64,
}

impl TenantSpend {
    /// The total cost in US dollars (for display; the exact figure is `cost_micros`).
    pub fn cost_usd(&self) -> f64 {
        self.cost_micros as f64 / 1e6
    }
}

/// A price in picodollars per token (1 USD per million tokens = 1 000 000 pico-USD per token).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Price {
    pub(super) input: u64,
    pub(super) output: u64,
}

impl Price {
    pub(super) fn cost(self, usage: TokenUsage) -> u128 {
        u128::from(usage.input)
            .saturating_mul(u128::from(self.input))
            .saturating_add(u128::from(usage.output).saturating_mul(u128::from(self.output)))
    }

    pub(super) fn per_token(self) -> u128 {
        u128::from(self.input) + u128::from(self.output)
    }
}

/// [`BudgetLimits`] checked and in integer units.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Limits {
    pub(super) soft_micros: Option<u64>,
    pub(super) hard_micros: Option<u64>,
    pub(super) soft_tokens: Option<u64>,
    pub(super) hard_tokens: Option<u64>,
}

impl Limits {
    pub(super) fn compile(limits: &BudgetLimits, field: &str) -> Result<Limits, ConfigError> {
        let usd = |v: Option<f64>, name: &str| -> Result<Option<u64>, ConfigError> {
            let Some(v) = v else { return Ok(None) };
            if !v.is_finite() || v <= 0.0 || v > MAX_USD {
                return Err(ConfigError::new(
                    POLICY,
                    format!("{field}.{name}"),
                    format!("must be a dollar amount above 0 and at most {MAX_USD}, not {v}"),
                ));
            }
            // In range, so the cast cannot truncate; at least one micro-dollar.
            Ok(Some(((v * 1e6).round() as u64).max(1)))
        };
        let tokens = |v: Option<u64>, name: &str| -> Result<Option<u64>, ConfigError> {
            match v {
                Some(0) => Err(ConfigError::new(
                    POLICY,
                    format!("{field}.{name}"),
                    "must be at least 1 token",
                )),
                v => Ok(v),
            }
        };
        let out = Limits {
            soft_micros: usd(limits.soft_usd, "soft_usd")?,
            hard_micros: usd(limits.hard_usd, "hard_usd")?,
            soft_tokens: tokens(limits.soft_tokens, "soft_tokens")?,
            hard_tokens: tokens(limits.hard_tokens, "hard_tokens")?,
        };
        if let (Some(s), Some(h)) = (out.soft_micros, out.hard_micros)
            && s > h
        {
            return Err(ConfigError::new(
                POLICY,
                format!("{field}.soft_usd"),
                format!(
                    "the soft limit ({}) is above the hard limit ({})",
                    usd_text(s),
                    usd_text(h)
                ),
            ));
        }
        if let (Some(s), Some(h)) = (out.soft_tokens, out.hard_tokens)
            && s > h
        {
            return Err(ConfigError::new(
                POLICY,
                format!("{field}.soft_tokens"),
                format!("the soft limit ({s} tokens) is above the hard limit ({h} tokens)"),
            ));
        }
        Ok(out)
    }

    pub(super) fn any_soft(&self) -> bool {
        self.soft_micros.is_some() || self.soft_tokens.is_some()
    }

    pub(super) fn any(&self) -> bool {
        self.any_soft() || self.hard_micros.is_some() || self.hard_tokens.is_some()
    }
}

pub(super) fn compile_price(price: &ModelPrice, field: &str) -> Result<Price, ConfigError> {
    let one = |v: f64, name: &str| -> Result<u64, ConfigError> {
        if !v.is_finite() || !(0.0..=MAX_PRICE).contains(&v) {
            return Err(ConfigError::new(
                POLICY,
                format!("{field}.{name}"),
                format!("must be a price from 0 to {MAX_PRICE} USD per million tokens, not {v}"),
            ));
        }
        // USD per million tokens = micro-USD per token = 10^6 pico-USD per token.
        Ok((v * 1e6).round() as u64)
    };
    Ok(Price {
        input: one(price.input_usd_per_mtok, "input_usd_per_mtok")?,
        output: one(price.output_usd_per_mtok, "output_usd_per_mtok")?,
    })
}

/// `$5.02`, `$5.004`, `$0.000001`: micro-dollars with at least two decimals and no trailing
/// zeros beyond them.
pub(super) fn usd_text(micros: u64) -> String {
    let frac = format!("{:06}", micros % 1_000_000);
    let trimmed = frac.trim_end_matches('0');
    let digits = if trimmed.len() < 2 {
        &frac[..2]
    } else {
        trimmed
    };
    format!("${}.{digits}", micros / 1_000_000)
}

pub(super) fn micros(pico: u128) -> u64 {
    u64::try_from(pico / PICO_PER_MICRO).unwrap_or(u64::MAX)
}

/// One model's running totals.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct ModelLedger {
    pub(super) tokens: TokenUsage,
    pub(super) cost_pico: u128,
    pub(super) priced: bool,
}

/// Running totals of a session or a tenant. Costs are summed exactly in picodollars.
#[derive(Debug, Default)]
pub(super) struct Ledger {
    pub(super) models: BTreeMap<String, ModelLedger>,
    pub(super) tokens: TokenUsage,
    pub(super) cost_pico: u128,
}

impl Ledger {
    pub(super) fn add(&mut self, model: &str, usage: TokenUsage, price: Option<Price>) {
        let cost = price.map_or(0, |p| p.cost(usage));
        let entry = self.models.entry(model.to_owned()).or_insert(ModelLedger {
            priced: price.is_some(),
            ..ModelLedger::default()
        });
        entry.tokens += usage;
        entry.cost_pico = entry.cost_pico.saturating_add(cost);
        self.tokens += usage;
        self.cost_pico = self.cost_pico.saturating_add(cost);
    }

    pub(super) fn micros(&self) -> u64 {
        micros(self.cost_pico)
    }

    pub(super) fn models(&self) -> BTreeMap<String, ModelSpend> {
        self.models
            .iter()
            .map(|(name, m)| {
                let spend = ModelSpend {
                    tokens: m.tokens,
                    cost_micros: micros(m.cost_pico),
                    priced: m.priced,
                };
                (name.clone(), spend)
            })
            .collect()
    }
}

#[derive(Debug)]
pub(super) struct OpenSession {
    pub(super) tenant: Option<Arc<str>>,
    pub(super) ledger: Ledger,
    pub(super) hits: Vec<LimitHit>,
    pub(super) downgraded: u32,
    pub(super) denied: u32,
    /// When it was last active (a counter, not a time).
    pub(super) seen: u64,
    /// The soft-limit switch was logged.
    pub(super) announced: bool,
}

impl OpenSession {
    pub(super) fn hit(&mut self, hit: LimitHit) -> bool {
        if self.hits.contains(&hit) {
            return false;
        }
        self.hits.push(hit);
        true
    }

    pub(super) fn report(&self, session_id: &str, ended: bool) -> SpendReport {
        SpendReport {
            session_id: session_id.to_owned(),
            tenant: self.tenant.as_deref().map(str::to_owned),
            models: self.ledger.models(),
            tokens: self.ledger.tokens,
            cost_micros: self.ledger.micros(),
            limits_hit: self.hits.clone(),
            downgraded_calls: self.downgraded,
            denied_calls: self.denied,
            ended,
        }
    }
}

pub(super) fn tenant_spend(tenant: &str, ledger: &Ledger) -> TenantSpend {
    TenantSpend {
        tenant: tenant.to_owned(),
        models: ledger.models(),
        tokens: ledger.tokens,
        cost_micros: ledger.micros(),
    }
}
