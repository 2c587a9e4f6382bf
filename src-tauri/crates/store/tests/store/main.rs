//! Integration tests for skald-store: real SQLite files in temp dirs.

#![allow(
    clippy::unwrap_used,
    reason = "fixtures outside #[test] fns should panic on failure too"
)]

mod common;
mod constraints;
mod integrity;
mod open;
mod repos_chat;
mod repos_config;
