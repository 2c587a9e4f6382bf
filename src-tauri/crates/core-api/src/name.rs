//! [`ToolName`]: a tool's name and where it comes from. MCP tools are named
//! `mcp__<server>__<tool>`; this is the one place that spelling is parsed.

use std::fmt;

/// The prefix of every MCP tool name.
pub const MCP_PREFIX: &str = "mcp__";
/// Between the server and the tool in an MCP tool name.
const MCP_SEPARATOR: &str = "__";

/// Where a tool comes from, as far as its name tells.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ToolNamespace {
    /// A built-in or session tool: a plain name.
    Plain,
    /// A tool of the MCP server `server`.
    Mcp { server: String, tool: String },
}

/// A parsed tool name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ToolName {
    raw: String,
    namespace: ToolNamespace,
}

impl ToolName {
    /// Parses any name; a malformed MCP spelling (`mcp__x`, `mcp____t`) is a
    /// plain name, which no MCP server will claim.
    pub fn parse(raw: impl Into<String>) -> Self {
        let raw = raw.into();
        let namespace = raw
            .strip_prefix(MCP_PREFIX)
            .and_then(|rest| rest.split_once(MCP_SEPARATOR))
            .filter(|(server, tool)| !server.is_empty() && !tool.is_empty())
            .map_or(ToolNamespace::Plain, |(server, tool)| ToolNamespace::Mcp {
                server: server.to_string(),
                tool: tool.to_string(),
            });
        Self { raw, namespace }
    }

    /// `mcp__<server>__<tool>`.
    pub fn mcp(server: &str, tool: &str) -> Self {
        Self::parse(format!("{MCP_PREFIX}{server}{MCP_SEPARATOR}{tool}"))
    }

    pub fn as_str(&self) -> &str {
        &self.raw
    }

    pub fn namespace(&self) -> &ToolNamespace {
        &self.namespace
    }

    /// The MCP server, for an MCP tool.
    pub fn mcp_server(&self) -> Option<&str> {
        match &self.namespace {
            ToolNamespace::Mcp { server, .. } => Some(server),
            ToolNamespace::Plain => None,
        }
    }
}

impl fmt::Display for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcp_names_parse_once() {
        let n = ToolName::parse("mcp__gmail__send_mail");
        assert_eq!(n.mcp_server(), Some("gmail"));
        assert_eq!(
            n.namespace(),
            &ToolNamespace::Mcp {
                server: "gmail".into(),
                tool: "send_mail".into()
            }
        );
        // A tool name may itself hold the separator; the server may not.
        let n = ToolName::parse("mcp__fs__read__file");
        assert_eq!(n.mcp_server(), Some("fs"));
        assert_eq!(ToolName::mcp("fs", "read__file"), n);
        for plain in [
            "read_file",
            "mcp__",
            "mcp__x",
            "mcp____t",
            "mcp__s__",
            "MCP__a__b",
        ] {
            assert_eq!(
                ToolName::parse(plain).namespace(),
                &ToolNamespace::Plain,
                "{plain}"
            );
        }
        assert_eq!(n.to_string(), "mcp__fs__read__file");
    }
}
