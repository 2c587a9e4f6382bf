//! The crate's single error type. Callers map it to `{code, message}` at the
//! IPC edge; nothing here knows about that mapping.
//!
//! SQLite's result codes that a person can act on (a full disk, a read-only
//! or locked file, a file that is not a database) get their own variants
//! with a plain one-line message, so no caller has to parse "(code: 13)".

use std::path::PathBuf;

/// Shorthand used by every repository.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Everything that can go wrong while opening or using the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database was migrated by a newer build; opening it could corrupt it.
    #[error(
        "database at {} was written by a newer Skald (schema version {found}, this build knows up to {known}); refusing to open it — upgrade Skald or point SKALD_DATA_DIR elsewhere",
        .path.display()
    )]
    NewerSchema {
        /// The database file.
        path: PathBuf,
        /// Highest migration version recorded in the file.
        found: i64,
        /// Highest migration version embedded in this build.
        known: i64,
    },

    /// Creating the data directory or reading the database file failed.
    #[error("I/O error at {}: {source}", .path.display())]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },

    /// The disk (or the file system's quota) is full: the write was not
    /// made, and what was stored before it is intact.
    #[error(
        "disk full: the database could not be written; free some space and try again (nothing stored before was lost)"
    )]
    DiskFull,

    /// The database file (or its directory) cannot be written.
    #[error("the database is read-only: {detail}")]
    ReadOnly {
        /// What SQLite or the file system said.
        detail: String,
    },

    /// Another process holds the database's write lock and did not let go
    /// within the busy timeout.
    #[error(
        "the database is locked by another process (waited {waited_secs} s); close it or try again"
    )]
    Locked {
        /// How long this process waited.
        waited_secs: u64,
    },

    /// The path of the database is a directory.
    #[error("{} is a directory, not a database file", .path.display())]
    IsDirectory {
        /// The database path.
        path: PathBuf,
    },

    /// The file exists but is not an SQLite database (or is damaged).
    #[error("{} is not a Skald database (SQLite: {detail})", .path.display())]
    NotADatabase {
        /// The database path.
        path: PathBuf,
        /// What SQLite said.
        detail: String,
    },

    /// A query or connection failed (constraint violations included).
    #[error("database error: {0}")]
    Sqlx(sqlx::Error),

    /// Applying the embedded migrations failed.
    #[error("migration failed: {0}")]
    Migrate(sqlx::migrate::MigrateError),

    /// An update or lookup named a row that does not exist.
    #[error("{what} {id:?} not found")]
    NotFound {
        /// Kind of row, e.g. `"session"`.
        what: &'static str,
        /// Its key, rendered as text.
        id: String,
    },

    /// The request is not valid for the stored data (bad enum text, bad JSON,
    /// deleting a built-in group, no data directory, ...).
    #[error("invalid: {0}")]
    Invalid(String),
}

impl StoreError {
    /// Builds [`StoreError::NotFound`].
    pub fn not_found(what: &'static str, id: impl ToString) -> Self {
        Self::NotFound {
            what,
            id: id.to_string(),
        }
    }

    /// Whether this is [`StoreError::DiskFull`].
    pub fn is_disk_full(&self) -> bool {
        matches!(self, Self::DiskFull)
    }
}

// Primary result codes (https://www.sqlite.org/rescode.html); extended codes
// carry the primary one in their low byte.
const SQLITE_BUSY: i64 = 5;
const SQLITE_LOCKED: i64 = 6;
const SQLITE_READONLY: i64 = 8;
const SQLITE_FULL: i64 = 13;
const SQLITE_NOTADB: i64 = 26;

/// How long a connection waits on a locked database (mirrors the store's
/// busy timeout, for the message).
pub(crate) const BUSY_TIMEOUT_SECS: u64 = 5;

/// The extended SQLite result code of `e`, if it came from SQLite.
pub(crate) fn sqlite_code(e: &sqlx::Error) -> Option<i64> {
    match e {
        sqlx::Error::Database(db) => db.code()?.parse().ok(),
        _ => None,
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        if let sqlx::Error::Io(io) = &e {
            use std::io::ErrorKind as K;
            return match io.kind() {
                K::StorageFull | K::QuotaExceeded => Self::DiskFull,
                K::ReadOnlyFilesystem => Self::ReadOnly {
                    detail: io.to_string(),
                },
                _ => Self::Sqlx(e),
            };
        }
        let Some(code) = sqlite_code(&e) else {
            return Self::Sqlx(e);
        };
        // SQLite's unix VFS reports ENOSPC (and EDQUOT) on write as FULL.
        match code & 0xff {
            SQLITE_FULL => Self::DiskFull,
            SQLITE_READONLY => Self::ReadOnly {
                detail: database_message(&e),
            },
            SQLITE_BUSY | SQLITE_LOCKED => Self::Locked {
                waited_secs: BUSY_TIMEOUT_SECS,
            },
            _ => Self::Sqlx(e),
        }
    }
}

impl From<sqlx::migrate::MigrateError> for StoreError {
    fn from(e: sqlx::migrate::MigrateError) -> Self {
        use sqlx::migrate::MigrateError as M;
        match e {
            // A full disk or a lock while migrating is the same condition as
            // anywhere else: say so, not "migration failed".
            M::Execute(inner) | M::ExecuteMigration(inner, _) => match Self::from(inner) {
                Self::Sqlx(inner) => Self::Migrate(M::Execute(inner)),
                plain => plain,
            },
            other => Self::Migrate(other),
        }
    }
}

/// SQLite's own message, without sqlx's "(code: N)" prefix.
pub(crate) fn database_message(e: &sqlx::Error) -> String {
    match e {
        sqlx::Error::Database(db) => db.message().to_string(),
        other => other.to_string(),
    }
}

/// Whether `e` is SQLite's "not a database" (or a damaged file).
pub(crate) fn is_not_a_database(e: &sqlx::Error) -> bool {
    sqlite_code(e).is_some_and(|c| c & 0xff == SQLITE_NOTADB)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enospc_is_disk_full() {
        let e = sqlx::Error::Io(std::io::Error::from(std::io::ErrorKind::StorageFull));
        let err = StoreError::from(e);
        assert!(err.is_disk_full());
        assert!(err.to_string().starts_with("disk full"), "{err}");
    }

    #[test]
    fn messages_are_one_line() {
        let all = [
            StoreError::DiskFull,
            StoreError::ReadOnly {
                detail: "attempt to write a readonly database".into(),
            },
            StoreError::Locked { waited_secs: 5 },
            StoreError::IsDirectory {
                path: "/d/skald.db".into(),
            },
        ];
        for e in all {
            assert!(!e.to_string().contains('\n'), "{e}");
        }
    }
}
