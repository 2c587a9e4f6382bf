//! `skald models`: set up through the environment only, the endpoint's list
//! is shown, a pick is remembered, and `skald chat` needs no `--model`.

use skald_llm_mock::{MOCK_MODELS, MockServer, sse_text};

use crate::{command, skald, stderr, stdout};

#[test]
fn an_environment_endpoint_lists_its_models_and_a_pick_makes_chat_work() {
    let data = tempfile::tempdir().unwrap();
    let mock = MockServer::start([sse_text("Hello from the picked model.")]).unwrap();
    let with_env = |args: &[&str]| {
        command(data.path())
            .args(args)
            .env("OPENAI_BASE_URL", mock.base_url())
            .env("OPENAI_API_KEY", "test-key")
            .output()
            .unwrap()
    };
    // Before a pick: the turn fails, and says where to pick one.
    let out = with_env(&["chat", "hi"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("skald models"), "{}", stderr(&out));

    let out = with_env(&["models"]);
    assert!(out.status.success(), "{}", stderr(&out));
    for m in MOCK_MODELS {
        assert!(stdout(&out).contains(m), "{}", stdout(&out));
    }

    let out = with_env(&["models", "use", "mock-large"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        with_env(&["models"])
            .stdout
            .ends_with(b"mock-large  (chosen)\n")
    );

    let out = with_env(&["chat", "hi"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("Hello from the picked model."));
    let asked = mock.bodies();
    assert_eq!(asked.last().unwrap()["model"], "mock-large");
}

#[test]
fn models_without_any_provider_and_use_without_an_endpoint_say_what_to_do() {
    let data = tempfile::tempdir().unwrap();
    let out = skald(&["models"], data.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("OPENAI_BASE_URL"), "{}", stderr(&out));
    let out = skald(&["models", "use", "x"], data.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("configures no endpoint"),
        "{}",
        stderr(&out)
    );
}

/// `skald models images`: the per-model `llm.send_images` setting is turned
/// off, read back, put back to the default, and a bad value is refused; the
/// app's Settings reads the same key.
#[test]
fn models_images_sets_reads_and_resets_the_per_model_setting() {
    let data = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| skald(args, data.path());
    let out = run(&["models", "images", "ollama", "llama3", "off"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "images to ollama/llama3: off (a note is sent instead)\n"
    );
    // Another model of the same provider is untouched.
    let out = run(&["models", "images", "ollama", "llava"]);
    assert!(stdout(&out).contains("default"), "{}", stdout(&out));
    let out = run(&["models", "images", "ollama", "llama3"]);
    assert!(stdout(&out).contains(": off"), "{}", stdout(&out));

    let out = run(&["models", "images", "ollama", "llama3", "default"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run(&["models", "images", "ollama", "llama3"]);
    assert_eq!(
        stdout(&out),
        "images to ollama/llama3: default (sent when the provider takes images)\n"
    );

    let out = run(&["models", "images", "ollama", "llama3", "maybe"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("maybe"), "{}", stderr(&out));
}
