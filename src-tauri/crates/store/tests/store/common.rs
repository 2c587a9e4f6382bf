//! Shared fixtures.

use skald_store::{NewSession, SessionRow, Store};
use tempfile::TempDir;

/// A freshly opened store in its own temp dir (kept alive by the returned guard).
pub async fn fresh() -> (TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    (dir, store)
}

/// Creates a session with a given title.
pub async fn session(store: &Store, title: &str) -> SessionRow {
    store
        .sessions()
        .create(NewSession {
            title: title.to_owned(),
            agent_id: "main".to_owned(),
            working_dir: Some("/tmp/work".to_owned()),
        })
        .await
        .unwrap()
}

/// Number of rows in `table` (a trusted literal).
pub async fn count(store: &Store, table: &str) -> i64 {
    sqlx::query_scalar(&format!("SELECT COUNT(*) FROM {table}"))
        .fetch_one(store.pool())
        .await
        .unwrap()
}
