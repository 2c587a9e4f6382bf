//! Round trips for the configuration-side repositories: approval groups and
//! rules, scheduled jobs, secrets, settings, providers and models.

use serde_json::json;
use skald_store::{
    JobRunStatus, NewApprovalRule, NewJob, NewModel, NewProvider, ProviderKind, RuleAction,
    StoreError,
};

use crate::common::{fresh, session};

fn rule(group: &str, tool: &str, action: RuleAction, priority: i64) -> NewApprovalRule {
    NewApprovalRule {
        group_name: group.to_owned(),
        agent_id: None,
        source: None,
        tool_pattern: tool.to_owned(),
        path_pattern: None,
        action,
        note: None,
        priority,
    }
}

#[tokio::test]
async fn approval_groups_and_rules_round_trip() {
    let (_dir, store) = fresh().await;
    let repo = store.approval();
    let groups = repo.list_groups().await.unwrap();
    assert_eq!(groups.len(), 1);
    assert!(groups[0].builtin);

    let g = repo.create_group("reviewers", "read only").await.unwrap();
    assert!(!g.builtin);
    assert_eq!(repo.get_group("reviewers").await.unwrap(), Some(g));
    assert!(repo.create_group("reviewers", "dup").await.is_err());
    repo.set_group_description("reviewers", "read-only reviewers")
        .await
        .unwrap();
    assert_eq!(
        repo.get_group("reviewers")
            .await
            .unwrap()
            .unwrap()
            .description,
        "read-only reviewers"
    );

    let low = repo
        .add_rule(&rule("reviewers", "*", RuleAction::Require, 0))
        .await
        .unwrap();
    let mut secret = rule("reviewers", "read_file", RuleAction::Deny, 10);
    secret.path_pattern = Some("secrets/**".to_owned());
    secret.agent_id = Some("main".to_owned());
    secret.source = Some("builtin".to_owned());
    secret.note = Some("never read secrets".to_owned());
    let high = repo.add_rule(&secret).await.unwrap();
    assert_eq!(high.path_pattern.as_deref(), Some("secrets/**"));
    assert_eq!(high.action, RuleAction::Deny);
    assert_eq!(repo.get_rule(high.id).await.unwrap(), Some(high.clone()));
    repo.add_rule(&rule("default", "grep_files", RuleAction::Allow, 0))
        .await
        .unwrap();

    let ids: Vec<_> = repo
        .list_rules("reviewers")
        .await
        .unwrap()
        .iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(ids, [high.id, low.id], "priority first");
    assert_eq!(repo.list_all_rules().await.unwrap().len(), 3);

    let updated = repo
        .update_rule(low.id, &rule("reviewers", "write_*", RuleAction::Deny, 20))
        .await
        .unwrap();
    assert_eq!((updated.id, updated.created_at), (low.id, low.created_at));
    assert_eq!(updated.tool_pattern, "write_*");
    assert_eq!(repo.list_rules("reviewers").await.unwrap()[0].id, low.id);
    assert!(matches!(
        repo.update_rule(999, &rule("reviewers", "x", RuleAction::Allow, 0))
            .await,
        Err(StoreError::NotFound { .. })
    ));
    assert!(
        repo.add_rule(&rule("ghost-group", "*", RuleAction::Allow, 0))
            .await
            .is_err(),
        "rules need an existing group"
    );

    assert!(repo.delete_rule(low.id).await.unwrap());
    assert!(!repo.delete_rule(low.id).await.unwrap());
    assert!(repo.delete_group("reviewers").await.unwrap());
    assert!(!repo.delete_group("reviewers").await.unwrap());
}

#[tokio::test]
async fn jobs_and_runs_round_trip() {
    let (_dir, store) = fresh().await;
    let repo = store.jobs();
    let ctx = json!({"permission_group": "default"});
    let mut new = NewJob {
        name: "digest".to_owned(),
        cron_expr: "0 9 * * 1-5".to_owned(),
        prompt: "summarise my inbox".to_owned(),
        agent_id: "main".to_owned(),
        enabled: true,
        run_context: Some(ctx.clone()),
        next_run_at: Some(1_000),
    };
    let job = repo.create(&new).await.unwrap();
    assert_eq!(job.run_context, Some(ctx));
    assert_eq!(job.last_run_at, None);
    assert_eq!(repo.get(job.id).await.unwrap(), Some(job.clone()));

    let later = repo
        .create(&NewJob {
            next_run_at: Some(5_000),
            ..new.clone()
        })
        .await
        .unwrap();
    let due: Vec<_> = repo
        .due(2_000)
        .await
        .unwrap()
        .iter()
        .map(|j| j.id)
        .collect();
    assert_eq!(due, [job.id]);
    repo.set_next_run(later.id, Some(1_500)).await.unwrap();
    let due: Vec<_> = repo
        .due(2_000)
        .await
        .unwrap()
        .iter()
        .map(|j| j.id)
        .collect();
    assert_eq!(due, [job.id, later.id]);
    repo.set_enabled(job.id, false).await.unwrap();
    let due: Vec<_> = repo
        .due(2_000)
        .await
        .unwrap()
        .iter()
        .map(|j| j.id)
        .collect();
    assert_eq!(due, [later.id], "disabled jobs are never due");

    new.prompt = "summarise my inbox briefly".to_owned();
    new.run_context = None;
    let updated = repo.update(job.id, &new).await.unwrap();
    assert_eq!(updated.prompt, new.prompt);
    assert_eq!(updated.run_context, None);
    assert!(updated.enabled, "update replaces enabled too");
    assert!(matches!(
        repo.update(999, &new).await,
        Err(StoreError::NotFound { .. })
    ));

    let s = session(&store, "job session").await;
    let run = repo.start_run(job.id, Some(&s.id)).await.unwrap();
    assert_eq!(run.status, JobRunStatus::Running);
    assert_eq!(run.session_id.as_deref(), Some(s.id.as_str()));
    assert_eq!(
        repo.get(job.id).await.unwrap().unwrap().last_run_at,
        Some(run.started_at)
    );
    repo.finish_run(run.id, JobRunStatus::Failed, Some("provider down"))
        .await
        .unwrap();
    let second = repo.start_run(job.id, None).await.unwrap();
    repo.finish_run(second.id, JobRunStatus::Done, None)
        .await
        .unwrap();
    let runs = repo.list_runs(job.id, 10).await.unwrap();
    assert_eq!(
        runs.iter().map(|r| r.id).collect::<Vec<_>>(),
        [second.id, run.id]
    );
    assert_eq!(runs[1].status, JobRunStatus::Failed);
    assert_eq!(runs[1].error.as_deref(), Some("provider down"));
    assert!(runs[1].finished_at.is_some());
    assert_eq!(repo.list_runs(job.id, 1).await.unwrap().len(), 1);
    assert!(matches!(
        repo.start_run(999, None).await,
        Err(StoreError::NotFound { .. })
    ));

    assert_eq!(repo.list().await.unwrap().len(), 2);
    assert!(repo.delete(job.id).await.unwrap());
    assert!(
        repo.list_runs(job.id, 10).await.unwrap().is_empty(),
        "runs cascade"
    );
    assert_eq!(repo.get(job.id).await.unwrap(), None);
}

#[tokio::test]
async fn secrets_round_trip() {
    let (_dir, store) = fresh().await;
    let repo = store.secrets();
    assert_eq!(repo.get("OPENAI_API_KEY").await.unwrap(), None);
    repo.set("OPENAI_API_KEY", "sk-1").await.unwrap();
    repo.set("ANTHROPIC_API_KEY", "ak-1").await.unwrap();
    repo.set("OPENAI_API_KEY", "sk-2").await.unwrap();
    assert_eq!(
        repo.get("OPENAI_API_KEY").await.unwrap().as_deref(),
        Some("sk-2")
    );
    assert_eq!(
        repo.list_names().await.unwrap(),
        ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"]
    );
    assert!(repo.delete("OPENAI_API_KEY").await.unwrap());
    assert!(!repo.delete("OPENAI_API_KEY").await.unwrap());
    assert_eq!(repo.list_names().await.unwrap(), ["ANTHROPIC_API_KEY"]);
}

#[tokio::test]
async fn settings_round_trip() {
    let (_dir, store) = fresh().await;
    let repo = store.settings();
    assert_eq!(repo.get("theme").await.unwrap(), None);
    repo.set("theme", &json!("dark")).await.unwrap();
    let complex = json!({"width": 1200, "panes": [true, null, 1.5], "s": "ü"});
    repo.set("window", &complex).await.unwrap();
    assert_eq!(repo.get("window").await.unwrap(), Some(complex.clone()));
    repo.set("theme", &json!("light")).await.unwrap();
    assert_eq!(
        repo.list().await.unwrap(),
        [
            ("theme".to_owned(), json!("light")),
            ("window".to_owned(), complex)
        ]
    );
    assert!(repo.delete("theme").await.unwrap());
    assert_eq!(repo.get("theme").await.unwrap(), None);
}

#[tokio::test]
async fn providers_and_models_round_trip() {
    let (_dir, store) = fresh().await;
    let repo = store.providers();
    let mut new = NewProvider {
        id: "openai".to_owned(),
        kind: ProviderKind::OpenAi,
        name: "OpenAI".to_owned(),
        base_url: None,
        api_key_secret: Some("OPENAI_API_KEY".to_owned()),
        enabled: true,
    };
    let p = repo.create(&new).await.unwrap();
    assert_eq!(p.kind, ProviderKind::OpenAi);
    assert_eq!(repo.get("openai").await.unwrap(), Some(p.clone()));
    assert!(repo.create(&new).await.is_err(), "id is unique");

    new.base_url = Some("http://localhost:8080/v1".to_owned());
    new.name = "Local".to_owned();
    let updated = repo.update(&new).await.unwrap();
    assert_eq!(updated.base_url, new.base_url);
    assert_eq!(updated.created_at, p.created_at);
    repo.set_enabled("openai", false).await.unwrap();
    assert!(!repo.get("openai").await.unwrap().unwrap().enabled);

    repo.create(&NewProvider {
        id: "ollama".to_owned(),
        kind: ProviderKind::Ollama,
        name: "Ollama".to_owned(),
        base_url: Some("http://localhost:11434".to_owned()),
        api_key_secret: None,
        enabled: true,
    })
    .await
    .unwrap();
    let ids: Vec<_> = repo
        .list()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.id)
        .collect();
    assert_eq!(ids, ["ollama", "openai"]);

    let model = |provider: &str, name: &str| NewModel {
        provider_id: provider.to_owned(),
        name: name.to_owned(),
        context_window: Some(128_000),
    };
    let a = repo.add_model(&model("openai", "gpt-4o")).await.unwrap();
    let b = repo.add_model(&model("ollama", "qwen3")).await.unwrap();
    assert!(!a.is_default);
    assert!(
        repo.add_model(&model("openai", "gpt-4o")).await.is_err(),
        "unique per provider"
    );
    assert!(
        repo.add_model(&model("nobody", "m")).await.is_err(),
        "needs a provider"
    );
    repo.set_context_window(b.id, Some(32_768)).await.unwrap();
    assert_eq!(
        repo.list_models("ollama").await.unwrap()[0].context_window,
        Some(32_768)
    );
    assert_eq!(b.reasoning, None, "the provider's default until set");
    repo.set_reasoning(b.id, Some("high")).await.unwrap();
    assert_eq!(
        repo.list_models("ollama").await.unwrap()[0]
            .reasoning
            .as_deref(),
        Some("high")
    );
    assert!(
        repo.set_reasoning(b.id, Some("extreme")).await.is_err(),
        "only off, low, medium, high"
    );
    repo.set_reasoning(b.id, None).await.unwrap();
    assert_eq!(repo.list_models("ollama").await.unwrap()[0].reasoning, None);

    assert_eq!(repo.default_model().await.unwrap(), None);
    repo.set_default_model(a.id).await.unwrap();
    repo.set_default_model(b.id).await.unwrap();
    assert_eq!(
        repo.default_model().await.unwrap().map(|m| m.id),
        Some(b.id)
    );
    assert!(
        !repo.list_models("openai").await.unwrap()[0].is_default,
        "only one default"
    );
    assert!(matches!(
        repo.set_default_model(999).await,
        Err(StoreError::NotFound { .. })
    ));
    assert_eq!(
        repo.default_model().await.unwrap().map(|m| m.id),
        Some(b.id),
        "rolled back"
    );
    let err = sqlx::query("UPDATE models SET is_default = 1")
        .execute(store.pool())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("UNIQUE"), "{err}");

    assert!(repo.delete_model(a.id).await.unwrap());
    assert!(repo.delete("ollama").await.unwrap());
    assert!(
        repo.list_models("ollama").await.unwrap().is_empty(),
        "models cascade"
    );
    assert!(!repo.delete("ollama").await.unwrap());
}

#[tokio::test]
async fn mcp_servers_round_trip() {
    use skald_store::NewMcpServer;
    let (_dir, store) = fresh().await;
    let repo = store.mcp_servers();
    let mut s = NewMcpServer {
        name: "everything".to_owned(),
        spec: json!({"transport": "stdio", "command": "npx", "args": ["x"]}),
        enabled: true,
        timeout_ms: 60_000,
        description: "demo tools".to_owned(),
    };
    assert!(repo.upsert(&s).await.unwrap());
    s.timeout_ms = 5_000;
    assert!(!repo.upsert(&s).await.unwrap());
    let row = repo.get("everything").await.unwrap().unwrap();
    assert_eq!(row.timeout_ms, 5_000);
    assert_eq!(row.spec["args"][0], "x");
    assert!(repo.set_enabled("everything", false).await.unwrap());
    assert!(!repo.list().await.unwrap()[0].enabled);
    assert!(!repo.set_enabled("nope", true).await.unwrap());
    // `__` would make `mcp__<server>__<tool>` ambiguous.
    let bad = NewMcpServer {
        name: "a__b".to_owned(),
        ..s.clone()
    };
    assert!(repo.upsert(&bad).await.is_err());
    assert!(repo.delete("everything").await.unwrap());
    assert!(repo.get("everything").await.unwrap().is_none());
}
