//! Integration tests of the session driver: real SQLite files in temp dirs,
//! real built-in tools, the scripted FakeProvider, and (for the crash test)
//! a real process killed with SIGKILL.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod ahead;
mod approval;
mod attach;
mod attention;
mod chat_model;
mod common;
mod companion;
mod context;
mod crash;
mod declared;
mod discovery;
mod driver;
mod images;
mod interface;
mod labels;
mod lazy;
mod manage;
mod mcp;
mod multi_agent;
mod providers;
mod reasoning;
mod redo;
mod resume;
mod rich;
mod routes;
mod services;
mod snapshots;
mod stop;
mod subagents;
mod tasks;
mod window;
