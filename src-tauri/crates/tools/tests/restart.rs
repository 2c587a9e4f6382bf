//! `restart` and [`RestartSignal`]: the tool only raises the signal; the host
//! waits on it.

use std::time::Duration;

use serde_json::json;
use skald_core_api::{RestartHint, Tool, ToolCategory, ToolDescriptionLength};
use skald_tools::restart::{RESTART_REQUESTED, Restart, RestartSignal};
use skald_tools::tool_names as tn;

#[tokio::test]
async fn the_tool_raises_the_signal_and_says_so() {
    let signal = RestartSignal::default();
    let tool = Restart::new(signal.clone());
    assert!(!signal.is_requested());
    let out = tool.execute_async(json!({})).await.unwrap();
    assert_eq!(out, RESTART_REQUESTED);
    assert!(signal.is_requested());
    assert_eq!(signal.reason(), None);
}

#[tokio::test]
async fn a_reason_is_recorded_and_null_args_are_fine() {
    let signal = RestartSignal::new();
    let tool = Restart::new(signal.clone());
    tool.execute_async(json!({"reason": "  new MCP config  "}))
        .await
        .unwrap();
    assert_eq!(signal.reason().as_deref(), Some("new MCP config"));
    let other = RestartSignal::new();
    Restart::new(other.clone())
        .execute_async(serde_json::Value::Null)
        .await
        .unwrap();
    assert!(other.is_requested());
}

#[tokio::test]
async fn bad_arguments_do_not_raise_the_signal() {
    let signal = RestartSignal::new();
    let tool = Restart::new(signal.clone());
    for args in [json!({"now": true}), json!({"reason": 3}), json!("x")] {
        let e = tool.execute_async(args).await.unwrap_err();
        assert!(e.is_invalid_arguments(), "{e}");
    }
    assert!(!signal.is_requested());
}

#[tokio::test]
async fn wait_resolves_when_requested_from_elsewhere() {
    let signal = RestartSignal::new();
    let waiter = tokio::spawn({
        let s = signal.clone();
        async move { s.wait().await }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(!waiter.is_finished());
    signal.request();
    tokio::time::timeout(Duration::from_secs(2), waiter)
        .await
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn wait_returns_at_once_when_already_requested() {
    let signal = RestartSignal::new();
    signal.request();
    tokio::time::timeout(Duration::from_millis(100), signal.wait())
        .await
        .unwrap();
    // Several waiters, all woken by one request.
    let fresh = RestartSignal::new();
    let waiters: Vec<_> = (0..4)
        .map(|_| {
            let s = fresh.clone();
            tokio::spawn(async move { s.wait().await })
        })
        .collect();
    tokio::task::yield_now().await;
    fresh.request();
    for w in waiters {
        tokio::time::timeout(Duration::from_secs(2), w)
            .await
            .unwrap()
            .unwrap();
    }
}

#[test]
fn signals_are_independent_unless_cloned() {
    let a = RestartSignal::default();
    let b = RestartSignal::default();
    let a2 = a.clone();
    a.request();
    assert!(a2.is_requested());
    assert!(!b.is_requested());
}

#[test]
fn definition_and_labels() {
    let tool = Restart::new(RestartSignal::new());
    assert_eq!(tool.name(), tn::RESTART);
    assert_eq!(tool.category(), ToolCategory::Shell);
    assert_eq!(tool.restart_hint(), RestartHint::Reask);
    let s = tool.parameters_schema();
    assert_eq!(s["type"], "object");
    assert!(s.get("required").is_none_or(|r| r == &json!([])));
    assert!(s["properties"]["reason"]["description"].is_string());
    let short = ToolDescriptionLength::Short;
    assert_eq!(tool.describe(&json!({}), short), "restart");
    assert_eq!(
        tool.describe(&json!({"reason": "apply new config"}), short),
        "restart — apply new config"
    );
    let long = "x".repeat(300);
    assert_eq!(
        tool.describe(&json!({"reason": long}), short)
            .chars()
            .count(),
        60
    );
    assert_eq!(
        tool.describe(&json!({"reason": long}), ToolDescriptionLength::Full)
            .chars()
            .count(),
        120
    );
    // builtin_registry wires the host's signal through.
    let deps = skald_tools::BuiltinDeps::default();
    let registry = skald_tools::builtin_registry(&deps);
    assert_eq!(registry.restart_hint(tn::RESTART), Some(RestartHint::Reask));
    assert_eq!(registry.category_of(tn::RESTART), Some(ToolCategory::Shell));
}

#[tokio::test]
async fn the_registry_tool_raises_the_hosts_signal() {
    let deps = skald_tools::BuiltinDeps::default();
    let registry = skald_tools::builtin_registry(&deps);
    registry.dispatch(tn::RESTART, json!({})).await.unwrap();
    assert!(deps.restart.is_requested());
}
