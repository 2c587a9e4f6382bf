//! OAuth sign-in against an authorization server written for the test: a
//! protected MCP endpoint (the real server-everything over streamable HTTP
//! behind a proxy that wants a bearer token) whose 401 names its resource
//! metadata (RFC 9728), authorization-server metadata (RFC 8414), dynamic
//! client registration (RFC 7591) — or, refusing it, a client registered
//! beforehand with its secret — an authorization endpoint that
//! redirects to Skald's loopback listener, and a token endpoint that checks
//! the PKCE verifier and refreshes tokens.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use common::npm_server;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use skald_mcp::{McpManager, ServerConfig, ServerStatus, Transport, admin, oauth};
use skald_store::Store;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the authorization server saw and holds.
#[derive(Default)]
struct AuthState {
    base: String,
    upstream: String,
    registered_redirects: Vec<String>,
    /// code → (challenge, redirect_uri, client_id, resource)
    codes: HashMap<String, (String, String, String, String)>,
    pkce_checked: bool,
    pkce_failures: u32,
    valid_access: Option<String>,
    refresh_token: Option<String>,
    issued: u32,
    refreshes: u32,
    /// Bearer tokens the MCP endpoint was sent (accepted or not).
    bearers_seen: Vec<String>,
    resource_seen: Vec<String>,
    /// Lifetime of issued access tokens.
    expires_in: i64,
    /// A client registered beforehand `(id, secret)`; dynamic registration
    /// is then refused (and not advertised).
    pre_registered: Option<(String, Option<String>)>,
    /// Registration attempts (refused or not).
    registrations: u32,
    /// `client_secret` of each token request.
    client_secrets_seen: Vec<Option<String>>,
}

type Shared = Arc<Mutex<AuthState>>;

struct Request {
    method: String,
    target: String,
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

async fn read_request(sock: &mut TcpStream) -> Option<Request> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split_whitespace();
    let method = first.next()?.to_string();
    let target = first.next()?.to_string();
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end..].to_vec();
    while body.len() < len {
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(Request {
        method,
        target,
        headers,
        body,
    })
}

async fn reply(sock: &mut TcpStream, status: u16, headers: &[(&str, String)], body: &[u8]) {
    let mut out = format!(
        "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    let _ = sock.write_all(out.as_bytes()).await;
    let _ = sock.write_all(body).await;
    let _ = sock.shutdown().await;
}

async fn json_reply(sock: &mut TcpStream, status: u16, v: Value) {
    reply(
        sock,
        status,
        &[("Content-Type", "application/json".into())],
        v.to_string().as_bytes(),
    )
    .await;
}

fn form(body: &[u8]) -> HashMap<String, String> {
    url::form_urlencoded::parse(body).into_owned().collect()
}

fn query(target: &str) -> HashMap<String, String> {
    target
        .split_once('?')
        .map(|(_, q)| {
            url::form_urlencoded::parse(q.as_bytes())
                .into_owned()
                .collect()
        })
        .unwrap_or_default()
}

async fn handle(mut sock: TcpStream, st: Shared) {
    let Some(req) = read_request(&mut sock).await else {
        return;
    };
    let path = req.target.split('?').next().unwrap_or("").to_string();
    let base = st.lock().unwrap().base.clone();
    match (req.method.as_str(), path.as_str()) {
        ("GET", "/.well-known/oauth-protected-resource/mcp") => {
            json_reply(
                &mut sock,
                200,
                json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]}),
            )
            .await
        }
        ("GET", "/.well-known/oauth-authorization-server") => {
            let mut meta = json!({
                "issuer": base,
                "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": format!("{base}/token"),
                "registration_endpoint": format!("{base}/register"),
                "code_challenge_methods_supported": ["S256"],
                "scopes_supported": ["mcp"],
            });
            if st.lock().unwrap().pre_registered.is_some() {
                meta.as_object_mut()
                    .unwrap()
                    .remove("registration_endpoint");
            }
            json_reply(&mut sock, 200, meta).await
        }
        ("POST", "/register") if st.lock().unwrap().pre_registered.is_some() => {
            st.lock().unwrap().registrations += 1;
            json_reply(&mut sock, 403, json!({"error": "registration is closed"})).await
        }
        ("POST", "/register") => {
            st.lock().unwrap().registrations += 1;
            let v: Value = serde_json::from_slice(&req.body).unwrap();
            let uris: Vec<String> = v["redirect_uris"]
                .as_array()
                .unwrap()
                .iter()
                .map(|u| u.as_str().unwrap().to_string())
                .collect();
            st.lock().unwrap().registered_redirects.extend(uris.clone());
            json_reply(
                &mut sock,
                201,
                json!({"client_id": "client-1", "redirect_uris": uris}),
            )
            .await
        }
        ("GET", "/authorize") => {
            let q = query(&req.target);
            let redirect = q["redirect_uri"].clone();
            assert_eq!(q["response_type"], "code");
            assert_eq!(q["code_challenge_method"], "S256");
            let pre = st.lock().unwrap().pre_registered.clone();
            match pre {
                // A native app's loopback redirect may use any port (RFC 8252).
                Some((id, _)) => assert_eq!(q["client_id"], id),
                None => {
                    assert_eq!(q["client_id"], "client-1");
                    assert!(
                        st.lock().unwrap().registered_redirects.contains(&redirect),
                        "unregistered redirect {redirect}"
                    );
                }
            }
            assert!(redirect.starts_with("http://127.0.0.1:"), "{redirect}");
            let code = format!("code-{}", q["state"].len());
            st.lock().unwrap().codes.insert(
                code.clone(),
                (
                    q["code_challenge"].clone(),
                    redirect.clone(),
                    q["client_id"].clone(),
                    q["resource"].clone(),
                ),
            );
            let loc = format!("{redirect}?code={code}&state={}", q["state"]);
            reply(&mut sock, 302, &[("Location", loc)], b"").await
        }
        ("POST", "/token") => {
            let (status, body) = token(&st, &req.body);
            json_reply(&mut sock, status, body).await
        }
        (_, "/mcp") => {
            let bearer = req
                .headers
                .get("authorization")
                .and_then(|v| v.strip_prefix("Bearer "))
                .map(str::to_string);
            let (valid, upstream) = {
                let mut s = st.lock().unwrap();
                if let Some(b) = &bearer {
                    s.bearers_seen.push(b.clone());
                }
                (
                    s.valid_access.is_some() && bearer == s.valid_access,
                    s.upstream.clone(),
                )
            };
            if !valid {
                let h = format!(
                    r#"Bearer error="invalid_token", resource_metadata="{base}/.well-known/oauth-protected-resource/mcp""#
                );
                return reply(&mut sock, 401, &[("WWW-Authenticate", h)], b"").await;
            }
            if req.method == "GET" {
                // No server-initiated stream through this proxy.
                return reply(&mut sock, 405, &[], b"").await;
            }
            proxy(&mut sock, &req, &upstream).await
        }
        _ => reply(&mut sock, 404, &[], b"").await,
    }
}

/// The token endpoint: a code with its PKCE verifier, or a refresh token.
fn token(st: &Shared, body: &[u8]) -> (u16, Value) {
    let f = form(body);
    let mut s = st.lock().unwrap();
    s.resource_seen
        .push(f.get("resource").cloned().unwrap_or_default());
    s.client_secrets_seen.push(f.get("client_secret").cloned());
    if let Some((id, secret)) = s.pre_registered.clone()
        && (f.get("client_id") != Some(&id) || f.get("client_secret") != secret.as_ref())
    {
        return (401, json!({"error": "invalid_client"}));
    }
    let ok = match f["grant_type"].as_str() {
        "authorization_code" => match s.codes.remove(&f["code"]) {
            None => false,
            Some((challenge, redirect, client, _)) => {
                let verifier = f.get("code_verifier").cloned().unwrap_or_default();
                let computed = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
                if computed != challenge
                    || redirect != f["redirect_uri"]
                    || client != f["client_id"]
                {
                    s.pkce_failures += 1;
                    false
                } else {
                    s.pkce_checked = true;
                    true
                }
            }
        },
        "refresh_token" => {
            let good = s.refresh_token.is_some()
                && s.refresh_token.as_deref() == f.get("refresh_token").map(String::as_str);
            if good {
                s.refreshes += 1;
            }
            good
        }
        _ => false,
    };
    if !ok {
        return (400, json!({"error": "invalid_grant"}));
    }
    s.issued += 1;
    let access = format!("at-{}", s.issued);
    let refresh = format!("rt-{}", s.issued);
    s.valid_access = Some(access.clone());
    s.refresh_token = Some(refresh.clone());
    (
        200,
        json!({"access_token": access, "token_type": "Bearer",
               "expires_in": s.expires_in, "refresh_token": refresh}),
    )
}

/// Forwards a POST/DELETE to server-everything and relays the whole answer.
async fn proxy(sock: &mut TcpStream, req: &Request, upstream: &str) {
    let client = reqwest::Client::new();
    let method = http::Method::from_bytes(req.method.as_bytes()).unwrap();
    let mut r = client.request(method, upstream).body(req.body.clone());
    for h in [
        "content-type",
        "accept",
        "mcp-session-id",
        "mcp-protocol-version",
        "last-event-id",
    ] {
        if let Some(v) = req.headers.get(h) {
            r = r.header(h, v);
        }
    }
    let resp = r.send().await.unwrap();
    let status = resp.status().as_u16();
    let mut headers = Vec::new();
    for h in ["content-type", "mcp-session-id"] {
        if let Some(v) = resp.headers().get(h) {
            headers.push((h, v.to_str().unwrap().to_string()));
        }
    }
    let body = resp.bytes().await.unwrap();
    reply(sock, status, &headers, &body).await;
}

struct Fixture {
    state: Shared,
    url: String,
    _everything: tokio::process::Child,
    _dir: tempfile::TempDir,
    store: Store,
}

async fn fixture(expires_in: i64) -> Fixture {
    fixture_with(expires_in, None).await
}

async fn fixture_with(expires_in: i64, pre_registered: Option<(&str, Option<&str>)>) -> Fixture {
    let up_port = common::free_port();
    let everything = tokio::process::Command::new("node")
        .arg(npm_server("server-everything"))
        .arg("streamableHttp")
        .env("PORT", up_port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", up_port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "server-everything never listened"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let listener = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let state: Shared = Arc::new(Mutex::new(AuthState {
        base: base.clone(),
        upstream: format!("http://127.0.0.1:{up_port}/mcp"),
        expires_in,
        pre_registered: pre_registered.map(|(id, s)| (id.to_string(), s.map(str::to_string))),
        ..AuthState::default()
    }));
    let st = state.clone();
    tokio::spawn(async move {
        while let Ok((sock, _)) = listener.accept().await {
            tokio::spawn(handle(sock, st.clone()));
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    Fixture {
        state,
        url: format!("{base}/mcp"),
        _everything: everything,
        _dir: dir,
        store,
    }
}

/// The person's browser: follows the authorization page's redirect to
/// Skald's loopback listener.
fn browser(url: &str) {
    let url = url.to_string();
    tokio::spawn(async move {
        let c = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::limited(3))
            .build()
            .unwrap();
        let page = c.get(&url).send().await.unwrap().text().await.unwrap();
        assert!(page.contains("Signed in to"), "{page}");
    });
}

fn remote(url: &str) -> ServerConfig {
    ServerConfig::new(
        "remote",
        Transport::Http {
            url: url.to_string(),
            headers: Default::default(),
            client_id: None,
        },
    )
    .with_timeout(Duration::from_secs(30))
}

async fn wait_for(m: &McpManager, pred: impl Fn(&ServerStatus) -> bool) -> ServerStatus {
    common::wait_status(m, "remote", Duration::from_secs(30), pred).await
}

#[tokio::test]
async fn sign_in_with_pkce_and_dynamic_registration_then_the_protected_server_answers() {
    let f = fixture(3600).await;
    let m = McpManager::new(None, Some(f.store.clone()));
    m.put(remote(&f.url));
    // Before signing in: the 401 is a sign-in request, not a failure to retry.
    let s = wait_for(&m, |s| !matches!(s, ServerStatus::Connecting)).await;
    assert!(matches!(s, ServerStatus::NeedsSignIn { .. }), "{s:?}");
    let e = m
        .call("remote", "echo", json!({"message": "x"}))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("sign in"), "{e}");

    let view = admin::sign_in(&m, &f.store, "remote", browser)
        .await
        .unwrap();
    assert!(view.signed_in);
    {
        let s = f.state.lock().unwrap();
        assert!(
            s.pkce_checked,
            "the token endpoint never verified a PKCE verifier"
        );
        assert_eq!(s.pkce_failures, 0);
        assert_eq!(s.registered_redirects.len(), 1);
        assert_eq!(s.resource_seen, std::slice::from_ref(&f.url));
    }
    wait_for(&m, |s| matches!(s, ServerStatus::Ready { .. })).await;
    let out = m
        .call("remote", "echo", json!({"message": "behind oauth"}))
        .await
        .unwrap();
    assert_eq!(out.text, "Echo: behind oauth");
    assert!(
        f.state
            .lock()
            .unwrap()
            .bearers_seen
            .iter()
            .any(|b| b == "at-1")
    );
    // Tokens are a secret of the store, not in the server's config.
    let raw = f
        .store
        .secrets()
        .get(&oauth::secret_key("remote"))
        .await
        .unwrap()
        .unwrap();
    assert!(raw.contains("at-1") && raw.contains("rt-1"), "{raw}");
    m.shutdown();
}

#[tokio::test]
async fn an_expiring_token_is_refreshed_and_stored_before_connecting() {
    // Tokens that expire at once: every connect must refresh first.
    let f = fixture(1).await;
    let m = McpManager::new(None, Some(f.store.clone()));
    m.put(remote(&f.url).with_timeout(Duration::from_secs(30)));
    wait_for(&m, |s| matches!(s, ServerStatus::NeedsSignIn { .. })).await;
    admin::sign_in(&m, &f.store, "remote", browser)
        .await
        .unwrap();
    wait_for(&m, |s| matches!(s, ServerStatus::Ready { .. })).await;
    let out = m
        .call("remote", "echo", json!({"message": "fresh"}))
        .await
        .unwrap();
    assert_eq!(out.text, "Echo: fresh");
    let current = {
        let s = f.state.lock().unwrap();
        assert!(s.refreshes >= 1, "no refresh");
        // The first access token was replaced before the server saw it.
        assert!(
            !s.bearers_seen.iter().any(|b| b == "at-1"),
            "{:?}",
            s.bearers_seen
        );
        s.valid_access.clone().unwrap()
    };
    let raw = f
        .store
        .secrets()
        .get(&oauth::secret_key("remote"))
        .await
        .unwrap()
        .unwrap();
    assert!(
        raw.contains(&current),
        "the refreshed token was not stored: {raw}"
    );
    m.shutdown();
}

#[tokio::test]
async fn a_refused_refresh_asks_to_sign_in_again() {
    let f = fixture(1).await;
    let m = McpManager::new(None, Some(f.store.clone()));
    m.put(remote(&f.url));
    wait_for(&m, |s| matches!(s, ServerStatus::NeedsSignIn { .. })).await;
    admin::sign_in(&m, &f.store, "remote", browser)
        .await
        .unwrap();
    wait_for(&m, |s| matches!(s, ServerStatus::Ready { .. })).await;
    // The authorization server forgets the refresh token (revoked).
    f.state.lock().unwrap().refresh_token = None;
    m.put(remote(&f.url));
    let s = wait_for(&m, |s| !matches!(s, ServerStatus::Connecting)).await;
    assert!(
        matches!(s, ServerStatus::NeedsSignIn { ref reason } if reason.contains("refresh")),
        "{s:?}"
    );
    // Signing out forgets the tokens.
    assert!(oauth::sign_out(&f.store, "remote").await.unwrap());
    assert!(!oauth::signed_in(&f.store, "remote").await);
    m.shutdown();
}

#[tokio::test]
async fn a_token_refused_mid_connection_is_refreshed_on_reconnect() {
    let f = fixture(1).await;
    let m = McpManager::new(None, Some(f.store.clone()));
    m.put(remote(&f.url));
    wait_for(&m, |s| matches!(s, ServerStatus::NeedsSignIn { .. })).await;
    admin::sign_in(&m, &f.store, "remote", browser)
        .await
        .unwrap();
    wait_for(&m, |s| matches!(s, ServerStatus::Ready { .. })).await;
    // The server stops accepting the connection's token (it expired).
    let refreshes = {
        let mut s = f.state.lock().unwrap();
        s.valid_access = Some("nothing-valid-yet".into());
        s.refreshes
    };
    let e = m
        .call("remote", "echo", json!({"message": "x"}))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("refused the access token"), "{e}");
    // Reconnected with a refreshed token, callable again.
    let start = Instant::now();
    loop {
        match m.call("remote", "echo", json!({"message": "again"})).await {
            Ok(out) => {
                assert_eq!(out.text, "Echo: again");
                break;
            }
            Err(e) => {
                assert!(start.elapsed() < Duration::from_secs(20), "{e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
    assert!(f.state.lock().unwrap().refreshes > refreshes);
    m.shutdown();
}

#[tokio::test]
async fn a_pre_registered_client_signs_in_where_dynamic_registration_is_refused() {
    let f = fixture_with(1, Some(("skald-desktop", Some("s3cret")))).await;
    let m = McpManager::new(None, Some(f.store.clone()));
    // As the page's form saves it.
    let input =
        |client_id: Option<&str>, client_secret: Option<&str>| skald_protocol::McpServerInput {
            name: "remote".into(),
            transport: skald_protocol::McpTransportView::Http {
                url: f.url.clone(),
                headers: Default::default(),
                client_id: client_id.map(str::to_string),
            },
            enabled: true,
            timeout_ms: Some(30_000),
            description: String::new(),
            client_secret: client_secret.map(str::to_string),
        };
    admin::save(&m, &f.store, input(None, None), None)
        .await
        .unwrap();
    wait_for(&m, |s| matches!(s, ServerStatus::NeedsSignIn { .. })).await;
    // Without a client id: the refusal is said, with what to do.
    let e = admin::sign_in(&m, &f.store, "remote", browser)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no dynamic client registration") && e.contains("client id"),
        "{e}"
    );

    // The id goes to the config, the secret to the secrets store.
    let input = input(Some("skald-desktop"), Some("s3cret"));
    let view = admin::save(&m, &f.store, input, Some("remote"))
        .await
        .unwrap();
    assert!(
        matches!(&view.transport, skald_protocol::McpTransportView::Http { client_id: Some(id), .. } if id == "skald-desktop")
    );
    let stored = f.store.mcp_servers().get("remote").await.unwrap().unwrap();
    assert!(
        !stored.spec.to_string().contains("s3cret"),
        "{}",
        stored.spec
    );
    assert_eq!(
        f.store
            .secrets()
            .get(&oauth::client_secret_key("remote"))
            .await
            .unwrap()
            .as_deref(),
        Some("s3cret")
    );
    wait_for(&m, |s| matches!(s, ServerStatus::NeedsSignIn { .. })).await;

    let view = admin::sign_in(&m, &f.store, "remote", browser)
        .await
        .unwrap();
    assert!(view.signed_in);
    {
        let s = f.state.lock().unwrap();
        assert_eq!(s.registrations, 0, "dynamic registration was tried");
        assert!(s.pkce_checked);
        // The code exchange (first) with the secret; the reconnect may
        // already have refreshed the 1 s token (checked below).
        assert_eq!(
            s.client_secrets_seen.first(),
            Some(&Some("s3cret".to_string()))
        );
    }
    wait_for(&m, |s| matches!(s, ServerStatus::Ready { .. })).await;
    // Tokens that expire at once: the refresh goes with the same client.
    let out = m
        .call("remote", "echo", json!({"message": "pre-registered"}))
        .await
        .unwrap();
    assert_eq!(out.text, "Echo: pre-registered");
    {
        let s = f.state.lock().unwrap();
        assert!(s.refreshes >= 1, "never refreshed");
        assert!(
            s.client_secrets_seen
                .iter()
                .all(|c| c.as_deref() == Some("s3cret"))
        );
    }
    // Removing the server forgets the secret.
    admin::remove(&m, &f.store, "remote").await.unwrap();
    assert_eq!(
        f.store
            .secrets()
            .get(&oauth::client_secret_key("remote"))
            .await
            .unwrap(),
        None
    );
    m.shutdown();
}
