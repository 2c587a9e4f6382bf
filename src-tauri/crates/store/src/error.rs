//! The crate's single error type. Callers map it to `{code, message}` at the
//! IPC edge; nothing here knows about that mapping.

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

    /// A query or connection failed (constraint violations included).
    #[error("database error: {0}")]
    Sqlx(#[from] sqlx::Error),

    /// Applying the embedded migrations failed.
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),

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
}
