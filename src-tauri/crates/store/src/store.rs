//! [`Store`]: opening the database file, refusing files from newer builds,
//! applying the embedded migrations, and handing out repositories.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sqlx::migrate::Migrator;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePool, SqlitePoolOptions,
    SqliteSynchronous,
};
use sqlx::{ConnectOptions, Connection};

use crate::error::{Result, StoreError};
use crate::repo::{
    approval::ApprovalRepo, grants::GrantsRepo, history::HistoryRepo, jobs::JobsRepo,
    known_tools::KnownToolsRepo, providers::ProvidersRepo, scratchpad::ScratchpadRepo,
    secrets::SecretsRepo, sessions::SessionsRepo, settings::SettingsRepo, stack::StackRepo,
    tool_calls::ToolCallsRepo,
};

/// File name of the database inside the data directory.
pub const DB_FILE_NAME: &str = "skald.db";

/// Environment variable that overrides the data directory.
pub const DATA_DIR_ENV: &str = "SKALD_DATA_DIR";

/// How long a connection waits on a locked database before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(crate::error::BUSY_TIMEOUT_SECS);

/// WAL lets readers run beside the one writer; a handful of connections is plenty.
const MAX_CONNECTIONS: u32 = 4;

/// The migrations in `migrations/`, embedded at compile time.
static MIGRATOR: Migrator = sqlx::migrate!("./migrations");

/// The data directory: `$SKALD_DATA_DIR` when set and non-empty, else the
/// platform data directory joined with `skald`.
pub fn default_data_dir() -> Result<PathBuf> {
    data_dir_from(std::env::var_os(DATA_DIR_ENV), dirs::data_dir())
}

fn data_dir_from(env: Option<OsString>, platform: Option<PathBuf>) -> Result<PathBuf> {
    match env {
        Some(dir) if !dir.is_empty() => Ok(PathBuf::from(dir)),
        _ => platform.map(|dir| dir.join("skald")).ok_or_else(|| {
            StoreError::Invalid(format!(
                "this platform has no data directory; set {DATA_DIR_ENV}"
            ))
        }),
    }
}

/// A handle on the open database. Cheap to clone: clones share one pool.
#[derive(Debug, Clone)]
pub struct Store {
    pool: SqlitePool,
    /// The database file: session leases live beside it.
    path: PathBuf,
}

impl Store {
    /// Opens (creating if needed) `<data_dir>/skald.db` and migrates it.
    pub async fn open(data_dir: &Path) -> Result<Self> {
        std::fs::create_dir_all(data_dir).map_err(|source| StoreError::Io {
            path: data_dir.to_path_buf(),
            source,
        })?;
        Self::open_file(&data_dir.join(DB_FILE_NAME)).await
    }

    /// Opens (creating if needed) the database file at `path` and migrates it.
    ///
    /// A file already migrated past what this build knows is refused with
    /// [`StoreError::NewerSchema`] before anything is written to it.
    pub async fn open_file(path: &Path) -> Result<Self> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| StoreError::Io {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        // SQLite would only say "disk I/O error" about a directory.
        if path.is_dir() {
            return Err(StoreError::IsDirectory {
                path: path.to_path_buf(),
            });
        }
        // Migrating (and, in the approval crate, seeding) is one process
        // at a time: concurrent first starts would race to create tables.
        let _startup = crate::lease::startup_lock(path).await?;
        refuse_newer(path).await.map_err(|e| about_file(path, e))?;
        refuse_unwritable(path)?;

        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(BUSY_TIMEOUT)
            .foreign_keys(true)
            // sqlx's "slow statement" warnings span many lines and repeat
            // the SQL; a lock wait is reported once, as a typed error.
            .disable_statement_logging();
        let pool = SqlitePoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            .connect_with(options)
            .await
            .map_err(|e| about_file(path, e.into()))?;
        MIGRATOR
            .run(&pool)
            .await
            .map_err(|e| about_file(path, e.into()))?;
        probe_write_lock(&pool).await?;
        tracing::debug!(path = %path.display(), version = known_schema_version(), "store open");
        Ok(Self {
            pool,
            path: path.to_path_buf(),
        })
    }

    /// Claims `session_id` across processes for a turn; `Ok(None)` when
    /// another process holds it (see [`crate::SessionLease`]).
    pub fn try_lease_session(&self, session_id: &str) -> Result<Option<crate::SessionLease>> {
        crate::lease::try_lease(&self.path, session_id)
    }

    /// The one scheduler's claim across processes: whoever holds it runs
    /// due cron jobs; `Ok(None)` when another process does. Like a session
    /// lease, the kernel drops it when the holder dies.
    pub fn try_lease_scheduler(&self) -> Result<Option<crate::SessionLease>> {
        crate::lease::try_lease_file(&self.path, crate::lease::SCHEDULER_LOCK)
    }

    /// The cross-process startup lock, for one-time work after opening
    /// (seeding) that concurrent starts must not do twice.
    pub async fn startup_lock(&self) -> Result<crate::StartupLock> {
        crate::lease::startup_lock(&self.path).await
    }

    /// The underlying pool, for callers that need a transaction across repositories.
    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    /// Closes every connection (checkpointing the WAL). Other clones become unusable.
    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// Highest migration version applied to this database.
    pub async fn schema_version(&self) -> Result<i64> {
        let version: i64 = sqlx::query_scalar(
            "SELECT COALESCE(MAX(version), 0) FROM _sqlx_migrations WHERE success = 1",
        )
        .fetch_one(&self.pool)
        .await?;
        Ok(version)
    }

    /// Chat sessions.
    pub fn sessions(&self) -> SessionsRepo {
        SessionsRepo::new(self.pool.clone())
    }

    /// The per-session stack of agent frames.
    pub fn stack(&self) -> StackRepo {
        StackRepo::new(self.pool.clone())
    }

    /// Messages.
    pub fn history(&self) -> HistoryRepo {
        HistoryRepo::new(self.pool.clone())
    }

    /// Summaries standing in for the oldest messages (`chat_summaries`).
    pub fn summaries(&self) -> crate::SummariesRepo {
        crate::SummariesRepo::new(self.pool.clone())
    }

    /// Tool calls (`chat_llm_tools`).
    pub fn tool_calls(&self) -> ToolCallsRepo {
        ToolCallsRepo::new(self.pool.clone())
    }

    /// Every tool ever offered to a model.
    pub fn known_tools(&self) -> KnownToolsRepo {
        KnownToolsRepo::new(self.pool.clone())
    }

    /// Permission groups and their approval rules.
    pub fn approval(&self) -> ApprovalRepo {
        ApprovalRepo::new(self.pool.clone())
    }

    /// MCP/config grants per session and per stack frame.
    pub fn grants(&self) -> GrantsRepo {
        GrantsRepo::new(self.pool.clone())
    }

    /// Questions agents asked the person.
    pub fn clarifications(&self) -> crate::repo::clarifications::ClarificationsRepo {
        crate::repo::clarifications::ClarificationsRepo::new(self.pool.clone())
    }

    /// The per-session scratchpad.
    pub fn scratchpad(&self) -> ScratchpadRepo {
        ScratchpadRepo::new(self.pool.clone())
    }

    /// Scheduled jobs and their runs.
    pub fn jobs(&self) -> JobsRepo {
        JobsRepo::new(self.pool.clone())
    }

    /// Named secrets.
    pub fn secrets(&self) -> SecretsRepo {
        SecretsRepo::new(self.pool.clone())
    }

    /// Key/JSON settings.
    pub fn settings(&self) -> SettingsRepo {
        SettingsRepo::new(self.pool.clone())
    }

    /// Configured MCP servers.
    pub fn mcp_servers(&self) -> crate::McpServersRepo {
        crate::McpServersRepo::new(self.pool.clone())
    }

    /// LLM providers and their models.
    pub fn providers(&self) -> ProvidersRepo {
        ProvidersRepo::new(self.pool.clone())
    }
}

/// Highest migration version embedded in this build.
pub fn known_schema_version() -> i64 {
    MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0)
}

/// Names the file when SQLite says it is not a database.
fn about_file(path: &Path, e: StoreError) -> StoreError {
    match e {
        StoreError::Sqlx(e) if crate::error::is_not_a_database(&e) => StoreError::NotADatabase {
            path: path.to_path_buf(),
            detail: crate::error::database_message(&e),
        },
        StoreError::Migrate(sqlx::migrate::MigrateError::Execute(e))
            if crate::error::is_not_a_database(&e) =>
        {
            StoreError::NotADatabase {
                path: path.to_path_buf(),
                detail: crate::error::database_message(&e),
            }
        }
        other => other,
    }
}

/// An existing file this process cannot write is refused at open, in one
/// line, instead of failing at the first write of some later step. SQLite
/// itself would silently open it read-only (and `BEGIN IMMEDIATE` succeeds
/// on such a file), so asking the file system is the reliable check.
fn refuse_unwritable(path: &Path) -> Result<()> {
    use std::io::ErrorKind as K;
    match std::fs::OpenOptions::new().write(true).open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == K::NotFound => Ok(()),
        Err(e) if matches!(e.kind(), K::PermissionDenied | K::ReadOnlyFilesystem) => {
            Err(StoreError::ReadOnly {
                detail: format!("{} cannot be written ({e})", path.display()),
            })
        }
        Err(source) => Err(StoreError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Takes and releases the write lock once, so a database another process
/// keeps locked is reported at open ("locked", after the busy timeout)
/// rather than as a failure halfway through a turn.
async fn probe_write_lock(pool: &SqlitePool) -> Result<()> {
    pool.begin_with("BEGIN IMMEDIATE").await?.rollback().await?;
    Ok(())
}

/// Fails with [`StoreError::NewerSchema`] when an existing file records a
/// migration this build does not have. Reads through a read-only connection
/// that sets no journal mode, so the file is left as it was.
async fn refuse_newer(path: &Path) -> Result<()> {
    if !path.exists() {
        return Ok(());
    }
    let options = SqliteConnectOptions::new()
        .filename(path)
        .read_only(true)
        .busy_timeout(BUSY_TIMEOUT)
        .disable_statement_logging();
    let mut conn: SqliteConnection = options.connect().await?;
    let found = applied_max_version(&mut conn).await;
    conn.close().await?;
    let known = known_schema_version();
    match found? {
        Some(found) if found > known => Err(StoreError::NewerSchema {
            path: path.to_path_buf(),
            found,
            known,
        }),
        _ => Ok(()),
    }
}

async fn applied_max_version(conn: &mut SqliteConnection) -> Result<Option<i64>> {
    let table: Option<String> = sqlx::query_scalar(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations'",
    )
    .fetch_optional(&mut *conn)
    .await?;
    if table.is_none() {
        return Ok(None);
    }
    let version: Option<i64> = sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations")
        .fetch_one(&mut *conn)
        .await?;
    Ok(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_override_wins_when_non_empty() {
        let dir = data_dir_from(Some("/x/y".into()), Some("/plat".into())).unwrap();
        assert_eq!(dir, PathBuf::from("/x/y"));
    }

    #[test]
    fn empty_env_falls_back_to_platform_dir() {
        let dir = data_dir_from(Some("".into()), Some("/plat".into())).unwrap();
        assert_eq!(dir, PathBuf::from("/plat/skald"));
        let dir = data_dir_from(None, Some("/plat".into())).unwrap();
        assert_eq!(dir, PathBuf::from("/plat/skald"));
    }

    #[test]
    fn no_dir_at_all_is_invalid() {
        let err = data_dir_from(None, None).unwrap_err();
        assert!(err.to_string().contains(DATA_DIR_ENV));
    }

    #[test]
    fn embedded_migrations_are_numbered_from_one() {
        assert!(known_schema_version() >= 1);
        assert_eq!(MIGRATOR.iter().next().map(|m| m.version), Some(1));
    }
}
