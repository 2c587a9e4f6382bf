//! What a configured MCP server is: its name, how to reach it, whether it is
//! on, its call timeout and what it is for. Stored in `mcp_servers`; the
//! transport is the row's `spec` JSON, written and read only here.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use skald_store::{McpServerRow, NewMcpServer};

use crate::McpError;

/// A call's timeout when the configuration names none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How Skald reaches a server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "transport", rename_all = "snake_case")]
pub enum Transport {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio {
        command: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        args: Vec<String>,
        /// `${NAME}` in a value is filled from Skald's secrets at start.
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        env: BTreeMap<String, String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
    },
    /// Streamable HTTP.
    Http {
        url: String,
        /// `${NAME}` in a value is filled from Skald's secrets at connect.
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        headers: BTreeMap<String, String>,
        /// OAuth with a client registered beforehand at the authorization
        /// server, instead of dynamic client registration. Its secret, if
        /// it has one, is in the secrets store
        /// ([`oauth::client_secret_key`](crate::oauth::client_secret_key)).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client_id: Option<String>,
    },
}

impl Transport {
    /// `stdio` or `http`.
    pub fn kind(&self) -> &'static str {
        match self {
            Transport::Stdio { .. } => "stdio",
            Transport::Http { .. } => "http",
        }
    }

    /// One line for listings: the command line or the URL (values of env
    /// and headers are never shown: they may hold secrets).
    pub fn summary(&self) -> String {
        match self {
            Transport::Stdio { command, args, .. } => std::iter::once(command.as_str())
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            Transport::Http { url, .. } => url.clone(),
        }
    }
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    pub name: String,
    pub transport: Transport,
    pub enabled: bool,
    pub timeout: Duration,
    /// How long the start (spawn, handshake, `tools/list`) may take; `None`:
    /// the call timeout. Not stored: a process start is slower than a call
    /// on a loaded machine, so tests with a short call timeout set it apart.
    pub connect_timeout: Option<Duration>,
    /// What the server is for, as the model reads it.
    pub description: String,
}

impl ServerConfig {
    /// An enabled server with the default timeout and no description.
    pub fn new(name: impl Into<String>, transport: Transport) -> Self {
        Self {
            name: name.into(),
            transport,
            enabled: true,
            timeout: DEFAULT_TIMEOUT,
            connect_timeout: None,
            description: String::new(),
        }
    }

    /// A start may take this long (see [`connect_timeout`](Self::connect_timeout)).
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = Some(timeout);
        self
    }

    /// How long the start may take.
    pub fn start_timeout(&self) -> Duration {
        self.connect_timeout.unwrap_or(self.timeout)
    }

    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// Checks the name and the transport before anything is stored.
    pub fn validate(&self) -> Result<(), McpError> {
        validate_name(&self.name)?;
        match &self.transport {
            Transport::Stdio { command, .. } if command.trim().is_empty() => Err(
                McpError::InvalidConfig(format!("{}: empty command", self.name)),
            ),
            Transport::Http { url, .. }
                if !(url.starts_with("http://") || url.starts_with("https://")) =>
            {
                Err(McpError::InvalidConfig(format!(
                    "{}: the URL must start with http:// or https://, got `{url}`",
                    self.name
                )))
            }
            _ if self.timeout.is_zero() => Err(McpError::InvalidConfig(format!(
                "{}: the timeout must be more than zero",
                self.name
            ))),
            _ => Ok(()),
        }
    }

    pub fn to_row(&self) -> Result<NewMcpServer, McpError> {
        self.validate()?;
        Ok(NewMcpServer {
            name: self.name.clone(),
            spec: serde_json::to_value(&self.transport)
                .map_err(|e| McpError::InvalidConfig(e.to_string()))?,
            enabled: self.enabled,
            timeout_ms: i64::try_from(self.timeout.as_millis()).unwrap_or(i64::MAX),
            description: self.description.clone(),
        })
    }

    pub fn from_row(row: &McpServerRow) -> Result<Self, McpError> {
        let transport: Transport = serde_json::from_value(row.spec.clone()).map_err(|e| {
            McpError::InvalidConfig(format!("{}: stored transport unreadable: {e}", row.name))
        })?;
        Ok(Self {
            name: row.name.clone(),
            transport,
            enabled: row.enabled,
            timeout: Duration::from_millis(u64::try_from(row.timeout_ms).unwrap_or(1).max(1)),
            connect_timeout: None,
            description: row.description.clone(),
        })
    }
}

/// A server name becomes part of tool names (`mcp__<name>__<tool>`) and of
/// rules (`mcp__<name>__*`): letters, digits, `-` and `_`, without `__`.
pub fn validate_name(name: &str) -> Result<(), McpError> {
    let ok_chars = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if name.is_empty() || name.len() > 64 || !ok_chars || name.contains("__") {
        return Err(McpError::InvalidConfig(format!(
            "invalid server name `{name}`: use 1–64 letters, digits, `-` or `_`, without `__`"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_would_break_tool_names_are_refused() {
        for ok in ["everything", "fs-1", "my_server"] {
            assert!(validate_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", "a__b", "with space", "ünï", &"x".repeat(65)] {
            assert!(validate_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_config_round_trips_through_its_row() {
        let c = ServerConfig::new(
            "fs",
            Transport::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "server".into()],
                env: [("TOKEN".to_string(), "${GH}".to_string())].into(),
                cwd: None,
            },
        )
        .with_timeout(Duration::from_secs(5))
        .with_description("files");
        let row = c.to_row().unwrap();
        assert_eq!(row.spec["transport"], "stdio");
        let back = ServerConfig::from_row(&McpServerRow {
            name: row.name,
            spec: row.spec,
            enabled: row.enabled,
            timeout_ms: row.timeout_ms,
            description: row.description,
            created_at: 0,
            updated_at: 0,
        })
        .unwrap();
        assert_eq!(back, c);
        let bad = ServerConfig::new(
            "h",
            Transport::Http {
                url: "ftp://x".into(),
                headers: Default::default(),
                client_id: None,
            },
        );
        assert!(bad.validate().is_err());
    }
}
