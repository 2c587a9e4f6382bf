//! Signing in to a streamable HTTP server with OAuth 2.1: the server's
//! protected-resource metadata (RFC 9728) names its authorization server,
//! whose metadata (RFC 8414) gives the endpoints; Skald uses the client id
//! the person registered beforehand when the server's configuration names
//! one (its secret, if any, in the secrets store), else registers itself
//! (RFC 7591) where the server offers it, sends the person's browser to the
//! authorization endpoint with a PKCE challenge (S256), receives the code on
//! a one-shot listener on 127.0.0.1, and exchanges it for tokens. The
//! tokens are kept in the secrets store under `mcp-oauth:<server>` and the
//! access token refreshed before it expires.
//!
//! rmcp's `auth` feature does the same, but pulls in the `oauth2` crate and
//! its own credential and state stores; this is the part Skald needs, on the
//! store and the HTTP client it already has.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use skald_store::Store;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use url::Url;

use crate::McpError;

/// How long a sign-in waits for the browser to come back.
pub const SIGN_IN_TIMEOUT: Duration = Duration::from_secs(300);
/// An access token this close to its expiry is refreshed first.
const REFRESH_MARGIN_MS: i64 = 30_000;
/// Metadata and token requests.
const HTTP_TIMEOUT: Duration = Duration::from_secs(20);

/// The secret holding a server's tokens.
pub fn secret_key(server: &str) -> String {
    format!("mcp-oauth:{server}")
}

/// The secret holding a server's pre-registered OAuth client secret.
pub fn client_secret_key(server: &str) -> String {
    format!("mcp-oauth-client:{server}")
}

/// Stores (`Some`) or forgets (`None`) the secret of a server's
/// pre-registered OAuth client.
pub async fn set_client_secret(
    store: &Store,
    server: &str,
    secret: Option<&str>,
) -> Result<(), McpError> {
    match secret {
        Some(s) => store.secrets().set(&client_secret_key(server), s).await?,
        None => {
            store.secrets().delete(&client_secret_key(server)).await?;
        }
    }
    Ok(())
}

/// What is stored per server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Tokens {
    access_token: String,
    #[serde(default)]
    refresh_token: Option<String>,
    /// Unix millis.
    #[serde(default)]
    expires_at: Option<i64>,
    token_endpoint: String,
    client_id: String,
    #[serde(default)]
    client_secret: Option<String>,
    /// The server's URL (RFC 8707 `resource`).
    resource: String,
}

fn oauth(e: impl std::fmt::Display) -> McpError {
    McpError::OAuth(e.to_string())
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

async fn load(store: &Store, server: &str) -> Result<Option<Tokens>, McpError> {
    let Some(raw) = store.secrets().get(&secret_key(server)).await? else {
        return Ok(None);
    };
    Ok(serde_json::from_str(&raw).ok())
}

async fn save(store: &Store, server: &str, t: &Tokens) -> Result<(), McpError> {
    let raw = serde_json::to_string(t).map_err(oauth)?;
    store.secrets().set(&secret_key(server), &raw).await?;
    Ok(())
}

/// Whether tokens are stored for `server`.
pub async fn signed_in(store: &Store, server: &str) -> bool {
    matches!(load(store, server).await, Ok(Some(_)))
}

/// Forgets a server's tokens. Returns whether there were any.
pub async fn sign_out(store: &Store, server: &str) -> Result<bool, McpError> {
    Ok(store.secrets().delete(&secret_key(server)).await?)
}

/// The access token to send to `url`, refreshed first when it expires
/// soon. `None`: never signed in (the server may not need it). A refresh
/// the server refuses means signing in again.
pub async fn access_token(
    store: &Store,
    server: &str,
    url: &str,
) -> Result<Option<String>, McpError> {
    let Some(mut t) = load(store, server).await? else {
        return Ok(None);
    };
    if t.resource != url {
        // The server's URL changed: its tokens were for another resource.
        return Ok(None);
    }
    let fresh = t
        .expires_at
        .is_none_or(|at| at - REFRESH_MARGIN_MS > now_ms());
    if fresh {
        return Ok(Some(t.access_token));
    }
    let Some(refresh) = t.refresh_token.clone() else {
        return Err(McpError::SignInRequired(
            "the access token expired and there is no refresh token".into(),
        ));
    };
    let mut form = vec![
        ("grant_type", "refresh_token".to_string()),
        ("refresh_token", refresh),
        ("client_id", t.client_id.clone()),
        ("resource", t.resource.clone()),
    ];
    if let Some(s) = &t.client_secret {
        form.push(("client_secret", s.clone()));
    }
    let got = token_request(&t.token_endpoint, &form)
        .await
        .map_err(|e| McpError::SignInRequired(format!("refreshing the token failed: {e}")))?;
    t.access_token = got.access_token;
    if got.refresh_token.is_some() {
        t.refresh_token = got.refresh_token;
    }
    t.expires_at = got.expires_in.map(|s| now_ms() + s.saturating_mul(1000));
    save(store, server, &t).await?;
    tracing::info!(server, "MCP OAuth access token refreshed");
    Ok(Some(t.access_token))
}

#[derive(Debug, Deserialize)]
struct TokenResponse {
    access_token: String,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    expires_in: Option<i64>,
}

fn client() -> Result<reqwest::Client, McpError> {
    reqwest::Client::builder()
        .timeout(HTTP_TIMEOUT)
        .build()
        .map_err(oauth)
}

fn form_body(pairs: &[(&str, String)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())))
        .finish()
}

async fn token_request(endpoint: &str, form: &[(&str, String)]) -> Result<TokenResponse, McpError> {
    let resp = client()?
        .post(endpoint)
        .header(
            http::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .header(http::header::ACCEPT, "application/json")
        .body(form_body(form))
        .send()
        .await
        .map_err(oauth)?;
    let status = resp.status();
    let body = resp.bytes().await.map_err(oauth)?;
    if !status.is_success() {
        return Err(oauth(format!(
            "{endpoint} answered {status}: {}",
            String::from_utf8_lossy(&body)
                .chars()
                .take(300)
                .collect::<String>()
        )));
    }
    serde_json::from_slice(&body).map_err(|e| oauth(format!("{endpoint}: {e}")))
}

async fn get_json(url: &Url) -> Option<Value> {
    let resp = client()
        .ok()?
        .get(url.as_str())
        .header(http::header::ACCEPT, "application/json")
        .send()
        .await
        .ok()?;
    if !resp.status().is_success() {
        return None;
    }
    serde_json::from_slice(&resp.bytes().await.ok()?).ok()
}

/// `/.well-known/<name>` of `base`, with `base`'s path appended (RFC 8414
/// and 9728 both insert the well-known part before the path).
fn well_known(base: &Url, name: &str, with_path: bool) -> Option<Url> {
    let path = base.path().trim_end_matches('/');
    let mut u = base.clone();
    u.set_query(None);
    u.set_fragment(None);
    if with_path && !path.is_empty() {
        u.set_path(&format!("/.well-known/{name}{path}"));
    } else {
        u.set_path(&format!("/.well-known/{name}"));
    }
    Some(u)
}

/// The `resource_metadata` URL of a 401's `WWW-Authenticate`, if any.
fn resource_metadata_param(header: &str) -> Option<String> {
    let at = header.find("resource_metadata=")?;
    let rest = &header[at + "resource_metadata=".len()..];
    let v = match rest.strip_prefix('"') {
        Some(q) => q.split('"').next()?,
        None => rest.split([',', ' ']).next()?,
    };
    Some(v.to_string())
}

/// The endpoints a sign-in uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthEndpoints {
    pub authorization: String,
    pub token: String,
    pub registration: Option<String>,
    pub scopes: Vec<String>,
}

/// Finds the server's authorization server and its endpoints.
pub async fn discover(server_url: &str) -> Result<AuthEndpoints, McpError> {
    let resource = Url::parse(server_url).map_err(oauth)?;
    // The server's own 401 may name its metadata document.
    let challenge = client()?
        .post(server_url)
        .header(http::header::CONTENT_TYPE, "application/json")
        .header(http::header::ACCEPT, "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#)
        .send()
        .await
        .ok()
        .and_then(|r| {
            r.headers()
                .get(http::header::WWW_AUTHENTICATE)
                .and_then(|v| v.to_str().ok())
                .and_then(resource_metadata_param)
        });
    let mut prm_urls: Vec<Url> = challenge
        .and_then(|c| Url::parse(&c).ok())
        .into_iter()
        .collect();
    prm_urls.extend(well_known(&resource, "oauth-protected-resource", true));
    prm_urls.extend(well_known(&resource, "oauth-protected-resource", false));
    let mut issuer: Option<Url> = None;
    let mut scopes = Vec::new();
    for u in prm_urls {
        if let Some(prm) = get_json(&u).await {
            issuer = prm["authorization_servers"][0]
                .as_str()
                .and_then(|s| Url::parse(s).ok());
            scopes = strings(&prm["scopes_supported"]);
            if issuer.is_some() {
                break;
            }
        }
    }
    // Without resource metadata the server's origin is its authorization server.
    let issuer = issuer.unwrap_or_else(|| {
        let mut o = resource.clone();
        o.set_path("/");
        o.set_query(None);
        o
    });
    let candidates = [
        well_known(&issuer, "oauth-authorization-server", true),
        well_known(&issuer, "openid-configuration", true),
        well_known(&issuer, "oauth-authorization-server", false),
    ];
    for u in candidates.into_iter().flatten() {
        if let Some(m) = get_json(&u).await
            && let (Some(a), Some(t)) = (
                m["authorization_endpoint"].as_str(),
                m["token_endpoint"].as_str(),
            )
        {
            if scopes.is_empty() {
                scopes = strings(&m["scopes_supported"]);
            }
            return Ok(AuthEndpoints {
                authorization: a.to_string(),
                token: t.to_string(),
                registration: m["registration_endpoint"].as_str().map(str::to_string),
                scopes,
            });
        }
    }
    // The MCP spec's defaults for a server without metadata.
    let at = |p: &str| {
        let mut u = issuer.clone();
        u.set_path(p);
        u.to_string()
    };
    Ok(AuthEndpoints {
        authorization: at("/authorize"),
        token: at("/token"),
        registration: Some(at("/register")),
        scopes,
    })
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn random_token(bytes: usize) -> Result<String, McpError> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(oauth)?;
    Ok(URL_SAFE_NO_PAD.encode(buf))
}

/// The S256 PKCE challenge of a verifier.
pub fn pkce_challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// Signs in to `server` (at `url`): `open` is given the authorization URL
/// (the app opens the browser; the CLI prints it too), then the browser's
/// redirect to the loopback listener is awaited at most `timeout`. With
/// `client_id` (registered beforehand, with `http://127.0.0.1` as its
/// redirect: RFC 8252 lets the port vary) no dynamic registration is tried.
pub async fn sign_in(
    store: &Store,
    server: &str,
    url: &str,
    client_id: Option<&str>,
    open: impl FnOnce(&str),
    timeout: Duration,
) -> Result<(), McpError> {
    let ep = discover(url).await?;
    let listener = TcpListener::bind(("127.0.0.1", 0)).await.map_err(oauth)?;
    let port = listener.local_addr().map_err(oauth)?.port();
    let redirect = format!("http://127.0.0.1:{port}/callback");
    let (client_id, client_secret) = match client_id {
        Some(id) => (
            id.to_string(),
            store.secrets().get(&client_secret_key(server)).await?,
        ),
        None => register(&ep, &redirect).await?,
    };
    let verifier = random_token(32)?;
    let state = random_token(16)?;
    let mut auth = Url::parse(&ep.authorization).map_err(oauth)?;
    {
        let mut q = auth.query_pairs_mut();
        q.append_pair("response_type", "code")
            .append_pair("client_id", &client_id)
            .append_pair("redirect_uri", &redirect)
            .append_pair("code_challenge", &pkce_challenge(&verifier))
            .append_pair("code_challenge_method", "S256")
            .append_pair("state", &state)
            .append_pair("resource", url);
        if !ep.scopes.is_empty() {
            q.append_pair("scope", &ep.scopes.join(" "));
        }
    }
    open(auth.as_str());
    let code = tokio::time::timeout(timeout, receive_code(&listener, &state, server))
        .await
        .map_err(|_| {
            oauth(format!(
                "no answer from the browser within {} s",
                timeout.as_secs()
            ))
        })??;
    let mut form = vec![
        ("grant_type", "authorization_code".to_string()),
        ("code", code),
        ("redirect_uri", redirect),
        ("client_id", client_id.clone()),
        ("code_verifier", verifier),
        ("resource", url.to_string()),
    ];
    if let Some(s) = &client_secret {
        form.push(("client_secret", s.clone()));
    }
    let got = token_request(&ep.token, &form).await?;
    save(
        store,
        server,
        &Tokens {
            access_token: got.access_token,
            refresh_token: got.refresh_token,
            expires_at: got.expires_in.map(|s| now_ms() + s.saturating_mul(1000)),
            token_endpoint: ep.token,
            client_id,
            client_secret,
            resource: url.to_string(),
        },
    )
    .await?;
    tracing::info!(server, "signed in to the MCP server");
    Ok(())
}

/// Dynamic client registration (RFC 7591); without a registration
/// endpoint there is no client id Skald could use.
async fn register(
    ep: &AuthEndpoints,
    redirect: &str,
) -> Result<(String, Option<String>), McpError> {
    let Some(reg) = &ep.registration else {
        return Err(oauth(
            "the authorization server offers no dynamic client registration: register Skald there and give its client id (the MCP form, or `skald mcp add NAME URL --client-id ID`)",
        ));
    };
    let body = json!({
        "client_name": "Skald",
        "redirect_uris": [redirect],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    });
    let resp = client()?
        .post(reg)
        .header(http::header::CONTENT_TYPE, "application/json")
        .header(http::header::ACCEPT, "application/json")
        .body(body.to_string())
        .send()
        .await
        .map_err(oauth)?;
    let status = resp.status();
    let bytes = resp.bytes().await.map_err(oauth)?;
    if !status.is_success() {
        return Err(oauth(format!(
            "client registration at {reg} answered {status}: {}",
            String::from_utf8_lossy(&bytes)
                .chars()
                .take(300)
                .collect::<String>()
        )));
    }
    let v: Value = serde_json::from_slice(&bytes).map_err(oauth)?;
    let id = v["client_id"]
        .as_str()
        .ok_or_else(|| oauth("the registration answer has no client_id"))?;
    Ok((
        id.to_string(),
        v["client_secret"].as_str().map(str::to_string),
    ))
}

/// Serves the loopback redirect until a request with the right `state`
/// brings a code (or an error).
async fn receive_code(
    listener: &TcpListener,
    state: &str,
    server: &str,
) -> Result<String, McpError> {
    loop {
        let (mut sock, _) = listener.accept().await.map_err(oauth)?;
        let mut buf = vec![0u8; 8192];
        let n = sock.read(&mut buf).await.unwrap_or(0);
        let head = String::from_utf8_lossy(&buf[..n]).to_string();
        let target = head
            .lines()
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            .unwrap_or("/");
        let Ok(u) = Url::parse(&format!("http://127.0.0.1{target}")) else {
            continue;
        };
        let q: std::collections::HashMap<String, String> = u.query_pairs().into_owned().collect();
        if q.get("state").map(String::as_str) != Some(state) {
            respond(
                &mut sock,
                400,
                "This sign-in link is not the one Skald is waiting for.",
            )
            .await;
            continue;
        }
        if let Some(err) = q.get("error") {
            let why = q.get("error_description").unwrap_or(err).clone();
            respond(
                &mut sock,
                400,
                &format!("Sign-in to {server} failed: {why}"),
            )
            .await;
            return Err(oauth(format!("the authorization server said: {why}")));
        }
        if let Some(code) = q.get("code") {
            respond(
                &mut sock,
                200,
                &format!("Signed in to {server}. You can close this tab and go back to Skald."),
            )
            .await;
            return Ok(code.clone());
        }
    }
}

async fn respond(sock: &mut tokio::net::TcpStream, status: u16, text: &str) {
    let body = format!(
        "<!doctype html><meta charset=utf-8><title>Skald</title><p>{}</p>",
        text.replace('&', "&amp;").replace('<', "&lt;")
    );
    let reason = if status == 200 { "OK" } else { "Bad Request" };
    let msg = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = sock.write_all(msg.as_bytes()).await;
    let _ = sock.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_matches_the_rfc_7636_example() {
        assert_eq!(
            pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn the_metadata_url_is_read_from_a_challenge() {
        assert_eq!(
            resource_metadata_param(
                r#"Bearer error="invalid_token", resource_metadata="http://a/.well-known/oauth-protected-resource/mcp""#
            )
            .as_deref(),
            Some("http://a/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(resource_metadata_param("Bearer realm=x"), None);
    }

    #[test]
    fn well_known_urls_insert_before_the_path() {
        let u = Url::parse("http://h:1/mcp?x=1").unwrap();
        assert_eq!(
            well_known(&u, "oauth-protected-resource", true)
                .unwrap()
                .as_str(),
            "http://h:1/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            well_known(&u, "oauth-authorization-server", false)
                .unwrap()
                .as_str(),
            "http://h:1/.well-known/oauth-authorization-server"
        );
    }
}
