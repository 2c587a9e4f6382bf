//! How Rust values map onto SQLite columns: millisecond timestamps, JSON held
//! as TEXT, and enums held as their lowercase names. Repositories use these
//! helpers instead of hand-rolling conversions.

use serde_json::Value;
use sqlx::Row;
use sqlx::sqlite::SqliteRow;

use crate::error::{Result, StoreError};

/// Current time as unix milliseconds, the unit of every `*_at` column.
pub(crate) fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// Serialises an optional JSON value for a TEXT column.
pub(crate) fn json_text(value: Option<&Value>) -> Option<String> {
    value.map(Value::to_string)
}

/// Reads an optional JSON TEXT column into a [`Value`].
pub(crate) fn json_column(row: &SqliteRow, column: &str) -> Result<Option<Value>, sqlx::Error> {
    let raw: Option<String> = row.try_get(column)?;
    raw.map(|text| parse_json(column, &text)).transpose()
}

/// Parses JSON read from `column`, reporting failures as a decode error.
pub(crate) fn parse_json(column: &str, text: &str) -> Result<Value, sqlx::Error> {
    serde_json::from_str(text).map_err(|e| sqlx::Error::ColumnDecode {
        index: column.to_owned(),
        source: Box::new(e),
    })
}

/// Turns "0 rows affected" into [`StoreError::NotFound`].
pub(crate) fn expect_one(affected: u64, what: &'static str, id: impl ToString) -> Result<()> {
    if affected == 0 {
        Err(StoreError::not_found(what, id))
    } else {
        Ok(())
    }
}

/// Implements `Display`, `FromStr` and the sqlx TEXT encoding for an enum that
/// already has `as_str(self) -> &'static str` and
/// `parse(&str) -> Result<Self, StoreError>`.
macro_rules! text_column {
    ($ty:ty) => {
        impl ::std::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $ty {
            type Err = $crate::error::StoreError;

            fn from_str(s: &str) -> ::std::result::Result<Self, Self::Err> {
                Self::parse(s)
            }
        }

        impl ::sqlx::Type<::sqlx::Sqlite> for $ty {
            fn type_info() -> ::sqlx::sqlite::SqliteTypeInfo {
                <str as ::sqlx::Type<::sqlx::Sqlite>>::type_info()
            }
        }

        impl<'q> ::sqlx::Encode<'q, ::sqlx::Sqlite> for $ty {
            fn encode_by_ref(
                &self,
                buf: &mut <::sqlx::Sqlite as ::sqlx::Database>::ArgumentBuffer<'q>,
            ) -> ::std::result::Result<::sqlx::encode::IsNull, ::sqlx::error::BoxDynError> {
                let text: &'q str = self.as_str();
                <&'q str as ::sqlx::Encode<'q, ::sqlx::Sqlite>>::encode_by_ref(&text, buf)
            }
        }

        impl<'r> ::sqlx::Decode<'r, ::sqlx::Sqlite> for $ty {
            fn decode(
                value: ::sqlx::sqlite::SqliteValueRef<'r>,
            ) -> ::std::result::Result<Self, ::sqlx::error::BoxDynError> {
                let text = <&str as ::sqlx::Decode<'r, ::sqlx::Sqlite>>::decode(value)?;
                Ok(Self::parse(text)?)
            }
        }
    };
}

pub(crate) use text_column;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_text_round_trips() {
        let value = serde_json::json!({"a": [1, 2, {"b": null}]});
        let text = json_text(Some(&value)).unwrap();
        assert_eq!(parse_json("c", &text).unwrap(), value);
        assert_eq!(json_text(None), None);
    }

    #[test]
    fn bad_json_is_a_decode_error() {
        let err = parse_json("run_context", "{nope").unwrap_err();
        assert!(matches!(err, sqlx::Error::ColumnDecode { .. }));
    }

    #[test]
    fn expect_one_maps_zero_rows() {
        assert!(expect_one(1, "session", "x").is_ok());
        let err = expect_one(0, "session", "x").unwrap_err();
        assert_eq!(err.to_string(), "session \"x\" not found");
    }
}
