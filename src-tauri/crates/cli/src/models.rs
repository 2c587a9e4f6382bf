//! `skald models`: what each configured endpoint offers, and the pick for
//! endpoints set up through the environment only (remembered in the
//! database, shared with the app's Settings).

use std::path::Path;
use std::process::ExitCode;

use skald_llm::ProviderConfig;
use skald_session::services::providers;
use skald_session::{EnvModelChoice, env_endpoints, set_env_model};
use skald_store::ProviderKind;
use skald_store::Store;

use crate::{fail, print_out};

/// Lists stored providers' models and the environment endpoints' lists.
pub async fn list(data_dir: &Path) -> ExitCode {
    let store = match Store::open(data_dir).await {
        Ok(s) => s,
        Err(e) => return fail(1, &e.to_string()),
    };
    let code = list_with(&store).await;
    store.close().await;
    code
}

async fn list_with(store: &Store) -> ExitCode {
    let mut out = String::new();
    let providers = match skald_session::services::providers::list(store).await {
        Ok(p) => p,
        Err(e) => return fail(1, &e.to_string()),
    };
    for p in providers {
        out.push_str(&format!("{} (stored provider)\n", p.id));
        for m in p.models {
            let mark = if m.is_default { "  (default)" } else { "" };
            out.push_str(&format!("  {}{mark}\n", m.name));
        }
    }
    let endpoints = match env_endpoints(store, &ProviderConfig::from_env()).await {
        Ok(e) => e,
        Err(e) => return fail(1, &e.to_string()),
    };
    for e in endpoints {
        out.push_str(&format!(
            "{} from the environment, {}\n",
            e.kind.as_str(),
            e.base_url
        ));
        match e.models {
            Ok(models) if models.is_empty() => out.push_str("  (lists no models)\n"),
            Ok(models) => {
                for m in models {
                    let mark = if e.chosen.as_deref() == Some(m.as_str()) {
                        "  (chosen)"
                    } else {
                        ""
                    };
                    out.push_str(&format!("  {m}{mark}\n"));
                }
            }
            Err(why) => out.push_str(&format!("  cannot list its models: {why}\n")),
        }
    }
    if out.is_empty() {
        return fail(
            1,
            "no provider is configured: add one in the app's Settings, or set OPENAI_BASE_URL and OPENAI_API_KEY (or ANTHROPIC_API_KEY, or OLLAMA_HOST)",
        );
    }
    print_out(&out);
    ExitCode::SUCCESS
}

/// `skald models use NAME`: the model turns use with an environment endpoint.
/// `kind` is needed only when the environment configures several.
pub async fn choose(data_dir: &Path, model: &str, kind: Option<ProviderKind>) -> ExitCode {
    let env = ProviderConfig::from_env();
    let configured: Vec<ProviderKind> = [
        env.openai.as_ref().map(|_| ProviderKind::OpenAi),
        env.anthropic.as_ref().map(|_| ProviderKind::Anthropic),
        env.ollama.as_ref().map(|_| ProviderKind::Ollama),
    ]
    .into_iter()
    .flatten()
    .collect();
    let kind = match (kind, configured.as_slice()) {
        (Some(k), _) if configured.contains(&k) => k,
        (Some(k), _) => {
            return fail(
                2,
                &format!("the environment configures no {} endpoint", k.as_str()),
            );
        }
        (None, [only]) => *only,
        (None, []) => {
            return fail(
                2,
                "the environment configures no endpoint (OPENAI_BASE_URL, ANTHROPIC_API_KEY, OLLAMA_HOST); stored providers pick their default model in the app's Settings",
            );
        }
        (None, _) => return fail(2, "several endpoints are configured: say which with --kind"),
    };
    let store = match Store::open(data_dir).await {
        Ok(s) => s,
        Err(e) => return fail(1, &e.to_string()),
    };
    let choice = EnvModelChoice {
        kind,
        model: model.trim().to_string(),
    };
    let result = set_env_model(&store, &choice).await;
    store.close().await;
    match result {
        Ok(()) => {
            print_out(&format!(
                "turns with no --model now use {} ({})",
                choice.model,
                kind.as_str()
            ));
            ExitCode::SUCCESS
        }
        Err(e) => fail(2, &e.to_string()),
    }
}

/// The value of `skald models images … on|off|default`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ImagesArg {
    On,
    Off,
    Default,
}

/// `skald models images PROVIDER MODEL [on|off|default]`: the per-model
/// `llm.send_images` setting, as the app's Settings edits it.
pub async fn images(
    data_dir: &Path,
    provider: &str,
    model: &str,
    value: Option<ImagesArg>,
) -> ExitCode {
    let (provider, model) = (provider.trim(), model.trim());
    if provider.is_empty() || model.is_empty() {
        return fail(2, "name a provider and a model");
    }
    let store = match Store::open(data_dir).await {
        Ok(s) => s,
        Err(e) => return fail(1, &e.to_string()),
    };
    let result = match value {
        None => providers::send_images(&store, provider, model).await,
        Some(v) => {
            let on = match v {
                ImagesArg::On => Some(true),
                ImagesArg::Off => Some(false),
                ImagesArg::Default => None,
            };
            providers::set_send_images(&store, provider, model, on)
                .await
                .map(|()| on)
        }
    };
    store.close().await;
    match result {
        Ok(setting) => {
            print_out(&format!(
                "images to {provider}/{model}: {}",
                images_label(setting)
            ));
            ExitCode::SUCCESS
        }
        Err(e) => fail(2, &e.to_string()),
    }
}

fn images_label(setting: Option<bool>) -> &'static str {
    match setting {
        Some(true) => "on",
        Some(false) => "off (a note is sent instead)",
        None => "default (sent when the provider takes images)",
    }
}
