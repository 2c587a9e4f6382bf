//! Context windows of well-known models, for when neither the person (a setting) nor the
//! provider says. Matched by name prefix after any `vendor/` part (OpenRouter's
//! `anthropic/claude-…`), longest prefix first; sizes are the providers' published ones.

/// Known windows by model-name prefix, in tokens.
const KNOWN: &[(&str, u32)] = &[
    ("claude-", 200_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-4", 8_192),
    ("gpt-3.5-turbo", 16_385),
    ("gpt-5", 400_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
    ("gemini-1.5", 1_048_576),
    ("gemini-2", 1_048_576),
    ("deepseek-", 128_000),
    ("mistral-large", 128_000),
    ("llama3.1", 128_000),
    ("llama3.2", 128_000),
    ("llama3", 8_192),
    ("qwen2.5", 32_768),
    ("qwen3", 40_960),
];

/// The context window of `model` when its name is well known.
pub fn known_context_window(model: &str) -> Option<u32> {
    let name = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    KNOWN
        .iter()
        .filter(|(prefix, _)| name.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, n)| *n)
}

#[cfg(test)]
mod tests {
    use super::known_context_window;

    #[test]
    fn longest_prefix_wins_and_vendors_are_ignored() {
        assert_eq!(known_context_window("gpt-4o-mini"), Some(128_000));
        assert_eq!(known_context_window("gpt-4-0613"), Some(8_192));
        assert_eq!(known_context_window("gpt-4.1-2025-04-14"), Some(1_047_576));
        assert_eq!(
            known_context_window("anthropic/claude-sonnet-4-5"),
            Some(200_000)
        );
        assert_eq!(known_context_window("llama3.1:8b"), Some(128_000));
        assert_eq!(known_context_window("my-own-model"), None);
    }
}
