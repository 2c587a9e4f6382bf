//! `ProviderConfig`: which providers the usual environment variables describe.
//!
//! This is the only place the crate reads the environment. Keys stored in the DB secrets store
//! are the app's business: it passes them to the client constructors directly.

use crate::anthropic::Anthropic;
use crate::openai::OpenAiCompatible;

/// An OpenAI-compatible endpoint from `OPENAI_BASE_URL` / `OPENAI_API_KEY`.
#[derive(Clone, PartialEq, Eq)]
pub struct OpenAiSettings {
    /// Base URL including the version segment (default `https://api.openai.com/v1`).
    pub base_url: String,
    /// The bearer key, if any (local servers often need none).
    pub api_key: Option<String>,
}

/// Anthropic from `ANTHROPIC_BASE_URL` / `ANTHROPIC_API_KEY`.
#[derive(Clone, PartialEq, Eq)]
pub struct AnthropicSettings {
    /// Base URL without `/v1` (default `https://api.anthropic.com`).
    pub base_url: String,
    /// The API key.
    pub api_key: String,
}

/// Ollama from `OLLAMA_HOST`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OllamaSettings {
    /// Base URL, e.g. `http://127.0.0.1:11434`.
    pub base_url: String,
}

impl std::fmt::Debug for OpenAiSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiSettings")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

impl std::fmt::Debug for AnthropicSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnthropicSettings")
            .field("base_url", &self.base_url)
            .field("api_key", &"<redacted>")
            .finish()
    }
}

/// The providers configured through environment variables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProviderConfig {
    /// Set when `OPENAI_API_KEY` or `OPENAI_BASE_URL` is.
    pub openai: Option<OpenAiSettings>,
    /// Set when `ANTHROPIC_API_KEY` is.
    pub anthropic: Option<AnthropicSettings>,
    /// Set when `OLLAMA_HOST` is (detection of an unconfigured local Ollama is
    /// [`crate::detect_ollama`]'s job).
    pub ollama: Option<OllamaSettings>,
}

impl ProviderConfig {
    /// Reads `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY`
    /// and `OLLAMA_HOST` from the process environment.
    pub fn from_env() -> Self {
        Self::from_lookup(|k| std::env::var(k).ok())
    }

    /// Same as [`ProviderConfig::from_env`] over any variable lookup (tests pass a map).
    /// Empty values count as unset.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let var = |k: &str| {
            lookup(k)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let openai_key = var("OPENAI_API_KEY");
        let openai_base = var("OPENAI_BASE_URL");
        let openai = (openai_key.is_some() || openai_base.is_some()).then(|| OpenAiSettings {
            base_url: openai_base.unwrap_or_else(|| OpenAiCompatible::DEFAULT_BASE_URL.into()),
            api_key: openai_key,
        });
        let anthropic = var("ANTHROPIC_API_KEY").map(|api_key| AnthropicSettings {
            base_url: var("ANTHROPIC_BASE_URL")
                .unwrap_or_else(|| Anthropic::DEFAULT_BASE_URL.into()),
            api_key,
        });
        let ollama = var("OLLAMA_HOST").map(|h| OllamaSettings {
            base_url: ollama_base_url(&h),
        });
        ProviderConfig {
            openai,
            anthropic,
            ollama,
        }
    }

    /// True when no provider is configured (the app then offers a detected local Ollama).
    pub fn is_empty(&self) -> bool {
        self.openai.is_none() && self.anthropic.is_none() && self.ollama.is_none()
    }
}

/// `OLLAMA_HOST` as Ollama itself reads it: `host`, `host:port` or a URL. Without a scheme
/// the scheme is `http` and the port 11434; with one, the scheme's own default port applies.
pub fn ollama_base_url(host: &str) -> String {
    let host = host.trim().trim_end_matches('/');
    let (scheme, rest, default_port) = match host.split_once("://") {
        Some((s, r)) => (s, r, None),
        None => ("http", host, Some("11434")),
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let has_port = authority
        .rfind(':')
        .is_some_and(|i| !authority[i..].contains(']'));
    let authority = if authority.is_empty() {
        "127.0.0.1".to_owned()
    } else {
        authority.to_owned()
    };
    match default_port {
        Some(port) if !has_port => format!("{scheme}://{authority}:{port}{path}"),
        Some(_) | None => format!("{scheme}://{authority}{path}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> ProviderConfig {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        ProviderConfig::from_lookup(|k| map.get(k).cloned())
    }

    #[test]
    fn nothing_set_is_empty() {
        assert!(config(&[]).is_empty());
        assert!(config(&[("OPENAI_API_KEY", "  ")]).is_empty());
    }

    #[test]
    fn each_provider_from_its_variables() {
        let c = config(&[
            ("OPENAI_API_KEY", "sk-1"),
            ("ANTHROPIC_API_KEY", "ak"),
            ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/"),
            ("OLLAMA_HOST", "0.0.0.0"),
        ]);
        assert_eq!(
            c.openai,
            Some(OpenAiSettings {
                base_url: "https://api.openai.com/v1".into(),
                api_key: Some("sk-1".into())
            })
        );
        assert_eq!(
            c.anthropic.map(|a| a.base_url),
            Some("http://127.0.0.1:9/".to_owned())
        );
        assert_eq!(
            c.ollama.map(|o| o.base_url),
            Some("http://0.0.0.0:11434".to_owned())
        );
        let local = config(&[("OPENAI_BASE_URL", "http://localhost:1234/v1")]);
        assert_eq!(local.openai.and_then(|o| o.api_key), None);
    }

    #[test]
    fn ollama_host_forms() {
        assert_eq!(ollama_base_url("localhost"), "http://localhost:11434");
        assert_eq!(ollama_base_url("10.0.0.2:8080"), "http://10.0.0.2:8080");
        assert_eq!(
            ollama_base_url("https://ollama.example.com/"),
            "https://ollama.example.com"
        );
        assert_eq!(ollama_base_url("http://[::1]:11434"), "http://[::1]:11434");
        assert_eq!(ollama_base_url("[::1]"), "http://[::1]:11434");
        assert_eq!(ollama_base_url(""), "http://127.0.0.1:11434");
    }
}
