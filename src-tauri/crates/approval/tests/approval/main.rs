//! The approval crate's integration tests: one binary.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod always_allow;
mod common;
mod edit;
mod gate;
mod preview;
mod seed;
mod table;
mod visibility;
