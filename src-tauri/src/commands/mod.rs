//! Tauri commands: parse, call a library, map errors to `IpcError`.

pub mod app;
pub mod approvals;
pub mod chat;
pub mod companion;
pub mod mcp;
pub mod rules;
pub mod session_settings;
pub mod settings;
pub mod tasks;
pub mod tools;
pub mod viewer;
