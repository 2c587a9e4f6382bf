//! The approval crate's integration tests: one binary.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod gate;
mod preview;
mod seed;
mod table;
mod visibility;
