//! Managing sessions as people do: New chat twice leaves one empty session,
//! rename, search by title and by what was said.

use skald_llm::ScriptedTurn;
use skald_session::{NullSink, SessionParams};

use crate::common::env;

#[tokio::test]
async fn new_chat_reuses_the_empty_session_instead_of_piling_up() {
    let e = env([ScriptedTurn::text_reply("Hi there.")]).await;
    let params = || SessionParams {
        working_dir: Some(e.workdir.clone()),
        ..SessionParams::default()
    };
    let first = e.handler.new_chat(params()).await.unwrap();
    let again = e.handler.new_chat(params()).await.unwrap();
    assert_eq!(first.id, again.id, "an empty untitled session is reused");
    assert_eq!(e.handler.list_sessions().await.unwrap().len(), 1);

    // Once it has a message it is a real chat: New chat makes another.
    e.handler
        .send_message(&first.id, "hello", NullSink)
        .await
        .unwrap();
    let next = e.handler.new_chat(params()).await.unwrap();
    assert_ne!(next.id, first.id);
    // Another working directory is another chat too.
    let elsewhere = e
        .handler
        .new_chat(SessionParams {
            working_dir: Some(e.dir.path().to_path_buf()),
            ..SessionParams::default()
        })
        .await
        .unwrap();
    assert_ne!(elsewhere.id, next.id);
    assert_eq!(e.handler.list_sessions().await.unwrap().len(), 3);
}

#[tokio::test]
async fn rename_and_search_by_title_and_content() {
    let e = env([
        ScriptedTurn::text_reply("The deploy script lives in ops/deploy.sh."),
        ScriptedTurn::text_reply("Sure."),
    ])
    .await;
    let a = e.session().await;
    let b = e.session().await;
    e.handler
        .send_message(&a, "Where is the deploy script?", NullSink)
        .await
        .unwrap();
    e.handler
        .send_message(&b, "Say sure", NullSink)
        .await
        .unwrap();

    let renamed = e
        .handler
        .rename_session(&b, "  Release 100% notes_v2 ")
        .await
        .unwrap();
    assert_eq!(renamed.title, "Release 100% notes_v2");
    assert!(
        e.handler.rename_session(&b, "   ").await.is_err(),
        "an empty title is refused"
    );
    assert!(e.handler.rename_session("nope", "x").await.is_err());

    let by_content = e.handler.search_sessions("DEPLOY.SH").await.unwrap();
    assert_eq!(by_content.len(), 1);
    assert_eq!(by_content[0].session.id, a);
    assert!(
        by_content[0]
            .snippet
            .as_deref()
            .unwrap()
            .contains("ops/deploy.sh")
    );

    let by_title = e.handler.search_sessions("release").await.unwrap();
    assert_eq!(
        by_title
            .iter()
            .map(|h| h.session.id.as_str())
            .collect::<Vec<_>>(),
        [b.as_str()]
    );
    assert_eq!(by_title[0].snippet, None);
    // LIKE's wildcards are taken literally.
    assert_eq!(e.handler.search_sessions("100%").await.unwrap().len(), 1);
    assert_eq!(e.handler.search_sessions("s_v2").await.unwrap().len(), 1);
    // As a wildcard, `_` would match "The" in the first chat.
    assert!(e.handler.search_sessions("t_e").await.unwrap().is_empty());
    assert!(e.handler.search_sessions("%").await.unwrap().len() == 1);
    assert!(
        e.handler
            .search_sessions("nothing like this")
            .await
            .unwrap()
            .is_empty()
    );
    // An empty search is the whole list.
    assert_eq!(e.handler.search_sessions(" ").await.unwrap().len(), 2);
}
