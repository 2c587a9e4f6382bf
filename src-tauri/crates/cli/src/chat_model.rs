//! `skald sessions model SESSION [PROVIDER/MODEL|default]`: the chat
//! header's model switcher from a terminal. Both directions call
//! `skald_session::services::chat_models`, as the app's `chat_models` /
//! `set_chat_model` commands do; this module only parses and prints.

use std::path::Path;
use std::process::ExitCode;

use skald_llm::ProviderConfig;
use skald_protocol::ModelChoiceView;
use skald_session::services::{ServiceError, chat_models};
use skald_store::Store;

use crate::{fail, print_out};

/// A pick as the CLI names it: `PROVIDER/MODEL` (the provider's id, so
/// `env:openai/gpt-4o`; a model name may itself hold `/`).
fn named(c: &ModelChoiceView) -> String {
    format!("{}/{}", c.provider, c.model)
}

/// What `skald sessions model` was given: a pick, or `default`.
pub(crate) fn parse_pick(arg: &str) -> Result<Option<(String, String)>, String> {
    let arg = arg.trim();
    if arg == "default" {
        return Ok(None);
    }
    match arg.split_once('/') {
        Some((p, m)) if !p.trim().is_empty() && !m.trim().is_empty() => {
            Ok(Some((p.trim().to_string(), m.trim().to_string())))
        }
        _ => Err(format!(
            "`{arg}` is not PROVIDER/MODEL: name one as `skald sessions model SESSION` lists it, \
             or `default`"
        )),
    }
}

fn service_error(e: &ServiceError) -> ExitCode {
    match e {
        ServiceError::NotFound(_) | ServiceError::Invalid(_) => fail(2, &e.to_string()),
        _ => fail(1, &e.to_string()),
    }
}

pub async fn model(data_dir: &Path, session: &str, pick: Option<&str>) -> ExitCode {
    let pick = match pick.map(parse_pick).transpose() {
        Ok(p) => p,
        Err(e) => return fail(2, &e),
    };
    let store = match Store::open(data_dir).await {
        Ok(s) => s,
        Err(e) => return fail(1, &e.to_string()),
    };
    let code = match pick {
        None => show(&store, session).await,
        Some(pick) => set(&store, session, pick).await,
    };
    store.close().await;
    code
}

/// The chat's own model, the default, and what it may switch to (one
/// `PROVIDER/MODEL` per line on stdout).
async fn show(store: &Store, session: &str) -> ExitCode {
    let view = match chat_models::list(store, &ProviderConfig::from_env(), session).await {
        Ok(v) => v,
        Err(e) => return service_error(&e),
    };
    match &view.chosen {
        Some(c) => eprintln!("skald: this chat asks {} ({})", named(c), c.provider_name),
        None => eprintln!("skald: this chat follows the default"),
    }
    match &view.default {
        Some(c) => eprintln!("skald: the default is {} ({})", named(c), c.provider_name),
        None => eprintln!("skald: no default model (add a provider, or `skald models use NAME`)"),
    }
    for e in &view.errors {
        eprintln!("skald: {e}");
    }
    let lines: Vec<String> = view.options.iter().map(named).collect();
    if !lines.is_empty() {
        print_out(&lines.join("\n"));
    }
    ExitCode::SUCCESS
}

async fn set(store: &Store, session: &str, pick: Option<(String, String)>) -> ExitCode {
    match chat_models::set(store, session, pick).await {
        Ok(Some(c)) => {
            eprintln!(
                "skald: session {session} now asks {} ({})",
                named(&c),
                c.provider_name
            );
            ExitCode::SUCCESS
        }
        Ok(None) => {
            eprintln!("skald: session {session} follows the default model again");
            ExitCode::SUCCESS
        }
        Err(e) => service_error(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_split_at_the_first_slash_and_default_clears() {
        assert_eq!(parse_pick("default"), Ok(None));
        assert_eq!(
            parse_pick("env:openai/meta-llama/Llama-3"),
            Ok(Some(("env:openai".into(), "meta-llama/Llama-3".into())))
        );
        assert!(parse_pick("gpt-4o").is_err());
        assert!(parse_pick("/m").is_err());
        assert!(parse_pick("p/ ").is_err());
    }
}
