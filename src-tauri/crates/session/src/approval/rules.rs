//! Rule editing, the session's RunContext and the person's bypasses: what
//! the Rules and session settings change. Every rule edit invalidates the
//! cached snapshot the gate decides with.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use skald_approval::{
    ApprovalError, Bypass, Now, RulesSnapshot, RunContext, load_snapshot, validate_new_rule,
    validate_rule_update, with_deny_precedence,
};
use skald_store::{ApprovalRuleRow, NewApprovalRule, Store};

use super::{ApprovalManager, lock};

impl ApprovalManager {
    /// The store the rules live in.
    pub fn store(&self) -> &Store {
        &self.shared.store
    }

    // Rules -----------------------------------------------------------------

    /// Forgets the cached rules; the next decision reloads them. Call after
    /// any rule or group edit made outside this manager.
    pub fn invalidate_rules(&self) {
        self.shared.generation.fetch_add(1, Ordering::SeqCst);
        *lock(&self.shared.rules) = None;
        self.policy_changed();
    }

    /// The current rules, cached. `Err` when they cannot be loaded (the gate
    /// then asks).
    pub async fn rules(&self) -> Result<Arc<RulesSnapshot>, ApprovalError> {
        if let Some(r) = lock(&self.shared.rules).clone() {
            return Ok(r);
        }
        let generation = self.shared.generation.load(Ordering::SeqCst);
        let loaded = Arc::new(load_snapshot(&self.shared.store).await?);
        if self.shared.generation.load(Ordering::SeqCst) == generation {
            *lock(&self.shared.rules) = Some(loaded.clone());
        }
        Ok(loaded)
    }

    /// Validates and adds a rule (a deny raised ahead of its group's allows,
    /// see [`with_deny_precedence`]), then invalidates the cache.
    pub async fn add_rule(&self, rule: &NewApprovalRule) -> Result<ApprovalRuleRow, ApprovalError> {
        let repo = self.shared.store.approval();
        let existing = repo.list_all_rules().await?;
        let rule = &with_deny_precedence(rule.clone(), &existing, None);
        validate_new_rule(rule, &existing)?;
        let row = repo.add_rule(rule).await?;
        self.invalidate_rules();
        Ok(row)
    }

    /// Validates and replaces rule `id`, then invalidates the cache.
    pub async fn update_rule(
        &self,
        id: i64,
        rule: &NewApprovalRule,
    ) -> Result<ApprovalRuleRow, ApprovalError> {
        let repo = self.shared.store.approval();
        let existing = repo.list_all_rules().await?;
        let rule = &with_deny_precedence(rule.clone(), &existing, Some(id));
        validate_rule_update(id, rule, &existing)?;
        let row = repo.update_rule(id, rule).await?;
        self.invalidate_rules();
        Ok(row)
    }

    /// Deletes rule `id`, then invalidates the cache. Returns whether it
    /// existed.
    pub async fn delete_rule(&self, id: i64) -> Result<bool, ApprovalError> {
        let gone = self.shared.store.approval().delete_rule(id).await?;
        self.invalidate_rules();
        Ok(gone)
    }

    // RunContext ------------------------------------------------------------

    /// The session's RunContext, as stored (see the module docs), not yet
    /// canonicalised. `fallback_dir` is used when neither the JSON nor the
    /// session names a working directory.
    pub async fn run_context(
        &self,
        session_id: &str,
        fallback_dir: Option<&Path>,
    ) -> Result<RunContext, ApprovalError> {
        let row = self.shared.store.sessions().get(session_id).await?;
        let Some(row) = row else {
            return Ok(RunContext {
                working_dir: fallback_dir.map(Path::to_path_buf),
                ..RunContext::default()
            });
        };
        let mut ctx: RunContext = row
            .run_context
            .clone()
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default();
        ctx.permission_group = row.permission_group.clone();
        // The `working_dir` column is the one truth (tools and `skald chat
        // --workdir` use it); a directory in the JSON is only a fallback for
        // rows written before the column was kept in step.
        ctx.working_dir = row
            .working_dir
            .as_deref()
            .map(Into::into)
            .or(ctx.working_dir)
            .or_else(|| fallback_dir.map(Path::to_path_buf));
        Ok(ctx)
    }

    /// Stores the session's RunContext (its group goes to the
    /// `permission_group` column, which must name an existing group, and its
    /// working directory to the `working_dir` column).
    pub async fn set_run_context(
        &self,
        session_id: &str,
        ctx: &RunContext,
    ) -> Result<(), ApprovalError> {
        self.forget_context(session_id);
        let sessions = self.shared.store.sessions();
        sessions
            .set_permission_group(session_id, &ctx.permission_group)
            .await?;
        if let Some(dir) = &ctx.working_dir {
            sessions
                .set_working_dir(session_id, Some(&dir.display().to_string()))
                .await?;
        }
        let stored = RunContext {
            working_dir: None,
            ..ctx.clone()
        };
        let json = serde_json::to_value(&stored).map_err(|e| {
            ApprovalError::InvalidRule(format!("cannot serialise the run context: {e}"))
        })?;
        sessions.set_run_context(session_id, Some(&json)).await?;
        // Again: a call decided while this was written kept the old one.
        self.forget_context(session_id);
        self.policy_changed();
        Ok(())
    }

    // Bypasses ----------------------------------------------------------------

    /// Adds a person's bypass to the session (in memory; cleared on stop).
    pub fn add_bypass(&self, session_id: &str, bypass: Bypass) {
        lock(&self.shared.bypasses)
            .entry(session_id.to_string())
            .or_default()
            .add(bypass);
        self.policy_changed();
    }

    /// The session's live bypasses.
    pub fn bypasses(&self, session_id: &str) -> Vec<Bypass> {
        let now = Now::current();
        let mut all = lock(&self.shared.bypasses);
        match all.get_mut(session_id) {
            Some(b) => {
                b.prune_expired(now);
                b.iter().cloned().collect()
            }
            None => Vec::new(),
        }
    }

    /// Removes every bypass of the session.
    pub fn clear_bypasses(&self, session_id: &str) {
        lock(&self.shared.bypasses).remove(session_id);
    }
}
