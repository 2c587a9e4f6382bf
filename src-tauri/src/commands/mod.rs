//! Tauri commands: parse, call a library, map errors to `IpcError`.

pub mod app;
pub mod tools;
