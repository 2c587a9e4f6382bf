//! Telling a taken key apart from other failures: the session driver
//! retries an insert whose id another process took between its check and
//! the insert.

use crate::error::StoreError;

impl StoreError {
    /// Whether this is a UNIQUE (or primary key) constraint violation.
    pub fn is_unique_violation(&self) -> bool {
        matches!(self, Self::Sqlx(sqlx::Error::Database(e)) if e.is_unique_violation())
    }
}
