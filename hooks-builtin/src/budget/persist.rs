//! [`PersistentState`] for [`Budget`]: the spend of open sessions and tenants, and the kept
//! reports.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use hookrail_core::context::TokenUsage;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ledger::ModelLedger;
use super::{Budget, Ledger, LimitHit, OpenSession, POLICY, SpendReport, State};
use crate::state::snapshot::{parse, to_json, u128_text};
use crate::state::{PersistentState, Restored, StateError};

/// The snapshot format this build writes and the newest it reads.
const FORMAT: u64 = 1;

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Snapshot {
    format: u64,
    policy: String,
    saved_at_ms: u64,
    sessions: Vec<SavedSession>,
    tenants: Vec<SavedTenant>,
    reports: Vec<SpendReport>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedModel {
    tokens: TokenUsage,
    #[serde(with = "u128_text")]
    cost_pico: u128,
    priced: bool,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedSession {
    session_id: String,
    tenant: Option<String>,
    models: BTreeMap<String, SavedModel>,
    limits_hit: Vec<LimitHit>,
    downgraded_calls: u32,
    denied_calls: u32,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedTenant {
    tenant: String,
    models: BTreeMap<String, SavedModel>,
}

fn save_models(ledger: &Ledger) -> BTreeMap<String, SavedModel> {
    ledger
        .models
        .iter()
        .map(|(name, m)| {
            let saved = SavedModel {
                tokens: m.tokens,
                cost_pico: m.cost_pico,
                priced: m.priced,
            };
            (name.clone(), saved)
        })
        .collect()
}

/// Add saved per-model spend to `ledger` (its totals too): spend from before the restart
/// and spend since are both spend.
fn add_models(ledger: &mut Ledger, models: &BTreeMap<String, SavedModel>) {
    for (name, saved) in models {
        let entry = ledger.models.entry(name.clone()).or_insert(ModelLedger {
            priced: saved.priced,
            ..ModelLedger::default()
        });
        entry.tokens += saved.tokens;
        entry.cost_pico = entry.cost_pico.saturating_add(saved.cost_pico);
        ledger.tokens += saved.tokens;
        ledger.cost_pico = ledger.cost_pico.saturating_add(saved.cost_pico);
    }
}

/// Refuse what the policy could never have saved: empty or repeated names.
fn check(snapshot: &Snapshot) -> Result<(), String> {
    let mut seen = HashSet::new();
    for s in &snapshot.sessions {
        if s.session_id.is_empty() {
            return Err("a session with an empty id".into());
        }
        if !seen.insert(s.session_id.as_str()) {
            return Err(format!("session {:?} is listed twice", s.session_id));
        }
        if s.tenant.as_deref() == Some("") {
            return Err(format!("session {:?} has an empty tenant", s.session_id));
        }
    }
    let mut seen = HashSet::new();
    for t in &snapshot.tenants {
        if t.tenant.is_empty() {
            return Err("a tenant with an empty name".into());
        }
        if !seen.insert(t.tenant.as_str()) {
            return Err(format!("tenant {:?} is listed twice", t.tenant));
        }
    }
    let mut seen = HashSet::new();
    for r in &snapshot.reports {
        if !seen.insert(r.session_id.as_str()) {
            return Err(format!("the report of {:?} is listed twice", r.session_id));
        }
    }
    Ok(())
}

impl PersistentState for Budget {
    fn state_name(&self) -> &'static str {
        POLICY
    }

    fn state_revision(&self) -> u64 {
        self.inner.revision.load(Ordering::Relaxed)
    }

    /// The spend of the open sessions and the tenants, and the kept reports. The snapshot
    /// (format 1) looks like this:
    ///
    /// ```json
    /// {"format": 1, "policy": "budget", "saved_at_ms": 1767225600000,
    ///  "sessions": [{"session_id": "s1", "tenant": "acme",
    ///                "models": {"big": {"tokens": {"input": 200000, "output": 40000},
    ///                                   "cost_pico": "1200000000000", "priced": true}},
    ///                "limits_hit": [{"scope": "session", "level": "soft", "unit": "usd"}],
    ///                "downgraded_calls": 1, "denied_calls": 0}],
    ///  "tenants": [{"tenant": "acme", "models": {...}}],
    ///  "reports": [{"session_id": "s0", ...}]}
    /// ```
    ///
    /// Sessions are listed least recently active first and reports oldest first, so the
    /// caps drop the same ones after a restore as they would have before. Costs are exact
    /// picodollars, as decimal strings (they can exceed 64 bits). Limits are not saved: they
    /// are the settings'.
    fn save_state_at(&self, now_unix_ms: u64) -> Value {
        let snapshot = {
            let state = self.lock();
            let mut open: Vec<(&Arc<str>, &OpenSession)> = state.sessions.iter().collect();
            open.sort_by_key(|(_, s)| s.seen);
            let sessions = open
                .into_iter()
                .map(|(id, s)| SavedSession {
                    session_id: id.to_string(),
                    tenant: s.tenant.as_deref().map(str::to_owned),
                    models: save_models(&s.ledger),
                    limits_hit: s.hits.clone(),
                    downgraded_calls: s.downgraded,
                    denied_calls: s.denied,
                })
                .collect();
            let mut tenants: Vec<SavedTenant> = state
                .tenants
                .iter()
                .map(|(name, ledger)| SavedTenant {
                    tenant: name.to_string(),
                    models: save_models(ledger),
                })
                .collect();
            tenants.sort_by(|a, b| a.tenant.cmp(&b.tenant));
            let reports = state
                .ended_order
                .iter()
                .filter_map(|id| state.ended.get(id).cloned())
                .collect();
            Snapshot {
                format: FORMAT,
                policy: POLICY.to_owned(),
                saved_at_ms: now_unix_ms,
                sessions,
                tenants,
                reports,
            }
        };
        to_json(POLICY, &snapshot)
    }

    /// Saved spend is added to the spend counted since (none, for a policy that has not run
    /// yet); the saved sessions count as less recently active than live ones. Past
    /// `max_sessions` the least recently active sessions are closed early, as they would be
    /// while running (their reports are kept); past `max_reports` the oldest reports go.
    /// The wall time does not matter: spend does not expire (see
    /// [`Budget::reset_tenant`]).
    fn restore_state_at(&self, saved: &Value, _now_unix_ms: u64) -> Result<Restored, StateError> {
        let snapshot: Snapshot = parse(POLICY, FORMAT, saved)?;
        check(&snapshot).map_err(|message| StateError::malformed(POLICY, message))?;
        let mut restored = Restored {
            kept: snapshot.sessions.len() + snapshot.tenants.len() + snapshot.reports.len(),
            ..Restored::default()
        };
        let mut state = self.lock_mut();
        let state = &mut *state;

        // Saved sessions were active before any live one: renumber so they come first.
        let shift = u64::try_from(snapshot.sessions.len()).unwrap_or(u64::MAX);
        for live in state.sessions.values_mut() {
            live.seen = live.seen.saturating_add(shift);
        }
        state.tick = state.tick.saturating_add(shift);
        for (seen, saved) in (1..).zip(snapshot.sessions) {
            let id: Arc<str> = Arc::from(saved.session_id.as_str());
            let session = state.sessions.entry(id).or_insert_with(|| OpenSession {
                tenant: saved.tenant.as_deref().map(Arc::from),
                ledger: Ledger::default(),
                hits: Vec::new(),
                downgraded: 0,
                denied: 0,
                seen,
                announced: false,
            });
            add_models(&mut session.ledger, &saved.models);
            for hit in saved.limits_hit {
                session.hit(hit);
            }
            session.downgraded = session.downgraded.saturating_add(saved.downgraded_calls);
            session.denied = session.denied.saturating_add(saved.denied_calls);
        }
        let over = state.sessions.len().saturating_sub(self.inner.max_sessions);
        self.close_oldest(state, over);
        restored.drop_entries(
            over,
            format!(
                "{over} open sessions over max_sessions ({}), closed early: their reports are \
                 kept and they count from zero if they go on",
                self.inner.max_sessions
            ),
        );

        for saved in snapshot.tenants {
            let ledger = state.tenants.entry(Arc::from(saved.tenant)).or_default();
            add_models(ledger, &saved.models);
        }

        // Saved reports are older than any kept since the start.
        let live: VecDeque<String> = std::mem::take(&mut state.ended_order);
        let mut order: VecDeque<String> = VecDeque::new();
        for report in snapshot.reports {
            if !state.ended.contains_key(&report.session_id) {
                order.push_back(report.session_id.clone());
                state.ended.insert(report.session_id.clone(), report);
            }
        }
        order.extend(live);
        let over = state.ended.len().saturating_sub(self.inner.max_reports);
        for old in order.drain(..over.min(order.len())) {
            state.ended.remove(&old);
        }
        state.ended_order = order;
        restored.drop_entries(
            over,
            format!(
                "{over} reports of ended sessions over max_reports ({}), the oldest",
                self.inner.max_reports
            ),
        );
        restored.kept = restored.kept.saturating_sub(restored.dropped_count());
        Ok(restored)
    }
}

impl Budget {
    /// Close the `n` least recently active open sessions early, keeping their reports.
    fn close_oldest(&self, state: &mut State, n: usize) {
        if n == 0 {
            return;
        }
        let mut by_age: Vec<(u64, Arc<str>)> = state
            .sessions
            .iter()
            .map(|(id, s)| (s.seen, Arc::clone(id)))
            .collect();
        by_age.sort_unstable();
        for (_, id) in by_age.into_iter().take(n) {
            if let Some(open) = state.sessions.remove(&id) {
                let report = open.report(&id, false);
                self.keep_report(state, report);
            }
        }
    }
}
