//! The store under pressure: many handles starting at once on one fresh
//! file, a full disk, and databases left behind by older builds.

use std::path::{Path, PathBuf};
use std::process::Command;

use skald_store::{DB_FILE_NAME, NewMessage, Role, Store, StoreError, known_schema_version};

use crate::common::{count, session};

/// Twenty pools opened separately on one fresh data dir (each as its own
/// process would): every open succeeds and the migrations ran once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_stores_opened_at_once_on_a_fresh_dir_all_succeed() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let opens: Vec<_> = (0..20)
        .map(|_| {
            let data = data.clone();
            tokio::spawn(async move { Store::open(&data).await })
        })
        .collect();
    let mut stores = Vec::new();
    for (i, open) in opens.into_iter().enumerate() {
        match open.await.unwrap() {
            Ok(store) => stores.push(store),
            Err(e) => panic!("open {i} failed: {e}"),
        }
    }
    let store = &stores[0];
    // Each migration once (versions need not be contiguous: every branch
    // takes its own number).
    let files = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "sql")
        })
        .count();
    assert_eq!(count(store, "_sqlx_migrations").await, files as i64);
    assert_eq!(
        store.schema_version().await.unwrap(),
        known_schema_version()
    );
    assert_eq!(count(store, "permission_groups").await, 1);
    for s in stores {
        s.close().await;
    }
}

/// A tmpfs of `size` mounted on a fresh directory, unmounted on drop.
/// `None` (with a message) where mounting is not permitted.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(size: &str) -> Option<Self> {
        let dir = tempfile::tempdir().unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            eprintln!("SKIPPED: cannot mount a tmpfs here (needs root and mount permission)");
            return None;
        }
        Some(Self { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// Writes zeros to `path` until the file system says it is full.
fn fill(path: &Path) -> PathBuf {
    use std::io::Write;
    let mut f = std::fs::File::create(path).unwrap();
    let chunk = vec![0u8; 64 * 1024];
    while f.write_all(&chunk).is_ok() {}
    // The last partial chunk too, down to the byte.
    while f.write_all(&[0u8]).is_ok() {}
    path.to_path_buf()
}

fn message(session_id: &str, content: String) -> NewMessage {
    NewMessage {
        session_id: session_id.to_string(),
        stack_id: None,
        role: Role::User,
        content,
        tool_calls: None,
        tool_call_id: None,
    }
}

/// On a full disk every write fails with "disk full" — including the
/// `INSERT … RETURNING` appends that used to hand back a row whose commit
/// had failed — and nothing stored before (or reported stored) is lost.
#[tokio::test]
async fn a_full_disk_says_disk_full_and_loses_nothing_stored() {
    let Some(fs) = Tmpfs::mount("4m") else { return };
    let data = fs.path().join("data");
    let store = Store::open(&data).await.unwrap();
    let s = session(&store, "before the disk filled").await;
    let mut stored = Vec::new();
    for i in 0..20 {
        let row = store
            .history()
            .append(&message(&s.id, format!("early {i}")))
            .await
            .unwrap();
        stored.push((row.id, row.content));
    }

    let filler = fill(&fs.path().join("filler"));
    let mut failure = None;
    // Each append is far larger than what the WAL can reuse, so the disk
    // runs out within a few of them.
    for i in 0..200 {
        let content = format!("late {i} {}", "x".repeat(256 * 1024));
        match store
            .history()
            .append(&message(&s.id, content.clone()))
            .await
        {
            Ok(row) => stored.push((row.id, content)),
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    let err = failure.expect("200 appends of 256 KB on a 4 MB disk all reported stored");
    assert!(matches!(err, StoreError::DiskFull), "{err:?}");
    assert!(err.to_string().starts_with("disk full"), "{err}");
    assert!(!err.to_string().contains('\n'), "{err}");
    // Other kinds of writes say the same.
    let err = store
        .sessions()
        .create(skald_store::NewSession {
            title: "x".repeat(512 * 1024),
            agent_id: "main".into(),
            working_dir: None,
        })
        .await
        .unwrap_err();
    assert!(err.is_disk_full(), "{err:?}");
    store.close().await;

    std::fs::remove_file(filler).unwrap();
    let store = Store::open(&data).await.unwrap();
    let rows = store.history().list_for_session(&s.id).await.unwrap();
    let on_disk: Vec<(i64, String)> = rows.into_iter().map(|r| (r.id, r.content)).collect();
    assert_eq!(
        on_disk.len(),
        stored.len(),
        "every append reported stored is on disk, and no other"
    );
    assert_eq!(on_disk, stored);
    assert_eq!(
        store.sessions().list().await.unwrap().len(),
        1,
        "the failed create left nothing"
    );
    // And the store works again once there is room.
    store
        .history()
        .append(&message(&s.id, "after".into()))
        .await
        .unwrap();
    store.close().await;
}

/// A `skald.db` that is a directory is named as such, not "disk I/O error".
#[tokio::test]
async fn a_directory_named_like_the_database_is_said_to_be_one() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(DB_FILE_NAME)).unwrap();
    let err = Store::open(dir.path()).await.unwrap_err();
    assert!(matches!(err, StoreError::IsDirectory { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "{} is a directory, not a database file",
            dir.path().join(DB_FILE_NAME).display()
        )
    );
}

/// A database that another connection keeps write-locked is refused at
/// open, after the busy timeout, as "locked" in one line.
#[tokio::test]
async fn a_locked_database_is_refused_at_open_as_locked() {
    let dir = tempfile::tempdir().unwrap();
    let holder = Store::open(dir.path()).await.unwrap();
    let lock = holder.pool().begin_with("BEGIN EXCLUSIVE").await.unwrap();
    let err = Store::open(dir.path()).await.unwrap_err();
    assert!(matches!(err, StoreError::Locked { .. }), "{err:?}");
    assert!(
        err.to_string()
            .starts_with("the database is locked by another process"),
        "{err}"
    );
    drop(lock);
    Store::open(dir.path()).await.unwrap().close().await;
    holder.close().await;
}

/// A database in `data_dir` as an older build left it: only the migrations
/// whose file names sort before `first_missing` applied.
async fn migrated_before(data_dir: &Path, first_missing: &str) -> sqlx::SqliteConnection {
    use sqlx::ConnectOptions;
    let old = tempfile::tempdir().unwrap();
    let migrations = concat!(env!("CARGO_MANIFEST_DIR"), "/migrations");
    for f in std::fs::read_dir(migrations).unwrap() {
        let f = f.unwrap();
        let name = f.file_name().into_string().unwrap();
        if name.as_str() < first_missing {
            std::fs::copy(f.path(), old.path().join(&name)).unwrap();
        }
    }
    let mut conn = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(data_dir.join(DB_FILE_NAME))
        .create_if_missing(true)
        .connect()
        .await
        .unwrap();
    let migrator = sqlx::migrate::Migrator::new(old.path()).await.unwrap();
    migrator.run(&mut conn).await.unwrap();
    conn
}

/// A database written by the old racing first starts (every seeded rule
/// twice) keeps one copy of each after the migration; rules a person wrote
/// twice are theirs and stay.
#[tokio::test]
async fn duplicated_seeded_rules_from_old_builds_are_removed_once() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut conn = migrated_before(dir.path(), "0002").await;
        for (tool, note) in [
            (
                "execute_cmd",
                "Seeded: shell commands are always asked about.",
            ),
            (
                "execute_cmd",
                "Seeded: shell commands are always asked about.",
            ),
            (
                "execute_cmd",
                "Seeded: shell commands are always asked about.",
            ),
            ("restart", "Seeded: restarting is always asked about."),
            ("mine", "my own rule"),
            ("mine", "my own rule"),
        ] {
            sqlx::query(
                "INSERT INTO approval_rules (group_name, tool_pattern, action, note, priority,
                   created_at) VALUES ('default', ?, 'require', ?, 100, 0)",
            )
            .bind(tool)
            .bind(note)
            .execute(&mut conn)
            .await
            .unwrap();
        }
        sqlx::Connection::close(conn).await.unwrap();
    }
    let store = Store::open(dir.path()).await.unwrap();
    let tools: Vec<String> = store
        .approval()
        .list_all_rules()
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.tool_pattern)
        .collect();
    let mut sorted = tools.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        ["execute_cmd", "mine", "mine", "restart"],
        "{tools:?}"
    );
    store.close().await;
}

/// Answers kept incomplete before the cause had its column take it from
/// the error they still carry (a cut stream's); one without reads stopped.
#[tokio::test]
async fn incomplete_answers_from_before_migration_15_get_their_cause_from_their_error() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut conn = migrated_before(dir.path(), "0015").await;
        sqlx::query(
            "INSERT INTO chat_sessions (id, agent_id, created_at, updated_at)
             VALUES ('s', 'main', 0, 0)",
        )
        .execute(&mut conn)
        .await
        .unwrap();
        for (id, error) in [(1, Some("connection reset")), (2, None)] {
            sqlx::query(
                "INSERT INTO chat_history (id, session_id, role, content, created_at, incomplete, error)
                 VALUES (?, 's', 'assistant', 'Half', 0, 1, ?)",
            )
            .bind(id)
            .bind(error)
            .execute(&mut conn)
            .await
            .unwrap();
        }
        sqlx::Connection::close(conn).await.unwrap();
    }
    let store = Store::open(dir.path()).await.unwrap();
    let history = store.history();
    // The error cleared by a later retry: the cause stays.
    history.clear_errors("s").await.unwrap();
    let cause = |id| {
        let history = history.clone();
        async move { history.get(id).await.unwrap().unwrap().extras.incomplete }
    };
    assert_eq!(
        cause(1).await,
        Some(skald_store::Incomplete::Cut("connection reset".to_owned()))
    );
    assert_eq!(cause(2).await, Some(skald_store::Incomplete::Stopped));
    store.close().await;
}
