//! Reads the `mcpServers` JSON people already have (Claude Desktop, Claude
//! Code, Cursor; VS Code's `servers`). What Skald does not use is reported,
//! not fatal; an entry it cannot use is skipped with a reason.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::McpError;
use crate::config::{ServerConfig, Transport, validate_name};

/// What an import found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportReport {
    pub servers: Vec<ServerConfig>,
    /// One line per ignored field or skipped entry.
    pub warnings: Vec<String>,
}

const KNOWN: &[&str] = &[
    "command", "args", "env", "cwd", "url", "headers", "type", "disabled",
];

/// Parses a whole file's text.
pub fn parse_import(text: &str) -> Result<ImportReport, McpError> {
    let root: Value = serde_json::from_str(text)
        .map_err(|e| McpError::InvalidConfig(format!("not JSON: {e}")))?;
    let servers = root
        .get("mcpServers")
        .or_else(|| root.get("servers"))
        .and_then(Value::as_object)
        .ok_or_else(|| {
            McpError::InvalidConfig("no `mcpServers` (or `servers`) object in the file".into())
        })?;
    let mut report = ImportReport::default();
    for (name, entry) in servers {
        match entry_config(name, entry, &mut report.warnings) {
            Ok(c) => report.servers.push(c),
            Err(reason) => report.warnings.push(format!("{name}: skipped: {reason}")),
        }
    }
    Ok(report)
}

fn entry_config(
    name: &str,
    entry: &Value,
    warnings: &mut Vec<String>,
) -> Result<ServerConfig, String> {
    validate_name(name).map_err(|e| e.to_string())?;
    let obj = entry.as_object().ok_or("not an object")?;
    for key in obj.keys().filter(|k| !KNOWN.contains(&k.as_str())) {
        warnings.push(format!("{name}: field `{key}` ignored"));
    }
    let transport = if let Some(url) = obj.get("url") {
        let url = url.as_str().ok_or("`url` is not a string")?.to_string();
        if let Some(kind) = obj.get("type").and_then(Value::as_str)
            && kind == "sse"
        {
            warnings.push(format!(
                "{name}: type `sse` (the old HTTP+SSE transport) is tried as streamable HTTP"
            ));
        }
        Transport::Http {
            url,
            headers: string_map(obj.get("headers"), "headers")?,
            client_id: None,
        }
    } else {
        let command = obj
            .get("command")
            .and_then(Value::as_str)
            .ok_or("neither `command` nor `url`")?
            .to_string();
        let args = match obj.get("args") {
            None => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or("an arg is not a string")
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err("`args` is not an array".into()),
        };
        Transport::Stdio {
            command,
            args,
            env: string_map(obj.get("env"), "env")?,
            cwd: obj.get("cwd").and_then(Value::as_str).map(str::to_string),
        }
    };
    let mut config = ServerConfig::new(name, transport);
    config.enabled = !obj
        .get("disabled")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    config.validate().map_err(|e| e.to_string())?;
    Ok(config)
}

fn string_map(v: Option<&Value>, what: &str) -> Result<BTreeMap<String, String>, String> {
    let Some(v) = v else {
        return Ok(BTreeMap::new());
    };
    let obj: &Map<String, Value> = v.as_object().ok_or(format!("`{what}` is not an object"))?;
    obj.iter()
        .map(|(k, v)| match v {
            Value::String(s) => Ok((k.clone(), s.clone())),
            other => Ok((k.clone(), other.to_string())),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_desktop_json_imports_with_unknown_fields_reported() {
        let text = r#"{"mcpServers": {
            "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
                   "env": {"DEBUG": "1"}, "alwaysAllow": ["read_file"]},
            "remote": {"type": "http", "url": "https://example.invalid/mcp",
                       "headers": {"Authorization": "Bearer ${TOKEN}"}},
            "bad__name": {"command": "x"},
            "nothing": {"foo": 1}
        }, "otherTopLevel": true}"#;
        let r = parse_import(text).unwrap();
        assert_eq!(r.servers.len(), 2);
        let fs = r.servers.iter().find(|s| s.name == "fs").unwrap();
        assert!(matches!(&fs.transport, Transport::Stdio { args, .. } if args.len() == 3));
        let remote = r.servers.iter().find(|s| s.name == "remote").unwrap();
        assert!(
            matches!(&remote.transport, Transport::Http { headers, .. } if headers["Authorization"].contains("${TOKEN}"))
        );
        let w = r.warnings.join("\n");
        assert!(w.contains("fs: field `alwaysAllow` ignored"), "{w}");
        assert!(w.contains("bad__name: skipped"), "{w}");
        assert!(
            w.contains("nothing: skipped: neither `command` nor `url`"),
            "{w}"
        );
        assert!(parse_import("{}").is_err());
        assert!(parse_import("nope").is_err());
    }
}
