//! Opening, migrating and refusing newer databases.

use skald_store::{DB_FILE_NAME, Store, StoreError, known_schema_version};
use sqlx::{ConnectOptions, Connection, sqlite::SqliteConnectOptions};

use crate::common::{count, fresh, session};

const TABLES: &[&str] = &[
    "_sqlx_migrations",
    "approval_rules",
    "chat_history",
    "chat_llm_tools",
    "chat_sessions",
    "chat_summaries",
    "clarifications",
    "job_runs",
    "known_tools",
    "mcp_servers",
    "models",
    "permission_groups",
    "providers",
    "scheduled_jobs",
    "scratchpad_entries",
    "secrets",
    "session_mcp_grants",
    "session_scratchpad",
    "session_stack",
    "settings",
    "stack_mcp_grants",
];

#[tokio::test]
async fn migrations_apply_to_an_empty_database() {
    let (dir, store) = fresh().await;
    assert!(dir.path().join(DB_FILE_NAME).is_file());
    assert_eq!(
        store.schema_version().await.unwrap(),
        known_schema_version()
    );

    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT name FROM sqlite_master WHERE type = 'table'
         AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .fetch_all(store.pool())
    .await
    .unwrap();
    assert_eq!(tables, TABLES);

    let journal: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(journal, "wal");
    let fk: i64 = sqlx::query_scalar("PRAGMA foreign_keys")
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(fk, 1);
    let sync: i64 = sqlx::query_scalar("PRAGMA synchronous")
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(sync, 1, "NORMAL");
    store.close().await;
}

#[tokio::test]
async fn opening_twice_keeps_data_and_does_not_reapply() {
    let (dir, store) = fresh().await;
    let created = session(&store, "kept").await;
    let applied = count(&store, "_sqlx_migrations").await;
    store.close().await;

    let again = Store::open(dir.path()).await.unwrap();
    assert_eq!(count(&again, "_sqlx_migrations").await, applied);
    assert_eq!(
        again.sessions().get(&created.id).await.unwrap(),
        Some(created)
    );
    assert_eq!(
        count(&again, "permission_groups").await,
        1,
        "seed not duplicated"
    );
    again.close().await;
}

#[tokio::test]
async fn open_file_creates_parent_directories() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a/b/custom.db");
    let store = Store::open_file(&path).await.unwrap();
    assert!(path.is_file());
    assert_eq!(
        store.schema_version().await.unwrap(),
        known_schema_version()
    );
    store.close().await;
}

#[tokio::test]
async fn a_newer_database_is_refused_and_left_untouched() {
    let (dir, store) = fresh().await;
    session(&store, "from the future").await;
    store.close().await;

    let path = dir.path().join(DB_FILE_NAME);
    let fake = known_schema_version() + 41;
    let mut conn = SqliteConnectOptions::new()
        .filename(&path)
        .connect()
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
         VALUES (?, 'from a newer build', 1, x'00', 0)",
    )
    .bind(fake)
    .execute(&mut conn)
    .await
    .unwrap();
    conn.close().await.unwrap();

    let before = std::fs::read(&path).unwrap();
    let err = Store::open(dir.path()).await.unwrap_err();
    let after = std::fs::read(&path).unwrap();
    assert_eq!(before, after, "refused database must not be modified");

    match &err {
        StoreError::NewerSchema {
            path: p,
            found,
            known,
        } => {
            assert_eq!(p, &path);
            assert_eq!(*found, fake);
            assert_eq!(*known, known_schema_version());
        }
        other => panic!("expected NewerSchema, got {other:?}"),
    }
    let msg = err.to_string();
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains("written by a newer Skald"), "{msg}");
    assert!(msg.contains(&format!("schema version {fake}")), "{msg}");
    assert!(
        msg.contains(&format!("knows up to {}", known_schema_version())),
        "{msg}"
    );
    assert!(msg.contains("SKALD_DATA_DIR"), "{msg}");

    // Refusal is stable: a second attempt fails the same way.
    assert!(matches!(
        Store::open_file(&path).await,
        Err(StoreError::NewerSchema { .. })
    ));
}

#[tokio::test]
async fn a_file_that_is_not_sqlite_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(DB_FILE_NAME),
        b"definitely not sqlite, just text",
    )
    .unwrap();
    let err = Store::open(dir.path()).await.unwrap_err();
    assert!(matches!(err, StoreError::NotADatabase { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("is not a Skald database"), "{msg}");
    assert!(msg.contains(DB_FILE_NAME), "{msg}");
}
