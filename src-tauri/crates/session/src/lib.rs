//! The session side of Skald: what connects tools to the store and, as it
//! grows, the `ChatSessionHandler` turn loop. It may depend on every library
//! crate; nothing but the app and the CLI depend on it. It must never depend on
//! Tauri.

mod known_tools;

pub use known_tools::StoreKnownTools;
