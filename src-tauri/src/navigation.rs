//! The main window never leaves the app. A link in an answer, a page the
//! viewer shows in a frame, a script: every navigation the webview starts is
//! judged here, and only the app's own pages (and the frames it builds
//! itself) load. Links the person clicks are opened in the system browser by
//! the UI through `open_external`; the guard only refuses, so a hostile page
//! cannot make the app open browsers either.

use tauri::Url;
use tauri::plugin::TauriPlugin;

/// Schemes the app's own documents and frames use besides `tauri:`
/// (`about:blank`/`about:srcdoc` frames, `blob:`/`data:` images).
const LOCAL_SCHEMES: &[&str] = &["tauri", "about", "blob", "data"];

/// Whether the webview may load `url`: the app's own origin (`tauri://localhost`,
/// `http(s)://tauri.localhost` where WebKit needs it), the Vite dev server
/// in a dev build, local frames, or a scheme the app registered itself.
pub fn may_load(url: &Url, dev_url: Option<&Url>, own_schemes: &[&str]) -> bool {
    let scheme = url.scheme();
    if LOCAL_SCHEMES.contains(&scheme) || own_schemes.contains(&scheme) {
        return true;
    }
    if matches!(scheme, "http" | "https") {
        // Where WebKit serves custom schemes as `http://<scheme>.localhost`.
        let host = url.host_str().unwrap_or("");
        if host == "tauri.localhost"
            || own_schemes
                .iter()
                .any(|s| host.strip_suffix(".localhost") == Some(s))
        {
            return true;
        }
        if let Some(dev) = dev_url {
            return url.origin() == dev.origin();
        }
    }
    false
}

/// Links the UI may hand to the system: web pages and mail only, never
/// `file:`, a custom scheme or anything a desktop handler might run.
pub fn is_external_link(url: &Url) -> bool {
    matches!(url.scheme(), "http" | "https" | "mailto")
}

/// The guard as a plugin, so it covers every webview the app creates.
pub fn guard<R: tauri::Runtime>(
    dev_url: Option<Url>,
    own_schemes: &'static [&'static str],
) -> TauriPlugin<R> {
    tauri::plugin::Builder::new("navigation-guard")
        .on_navigation(move |_webview, url| {
            let allowed = may_load(url, dev_url.as_ref(), own_schemes);
            if !allowed {
                tracing::info!(%url, "navigation refused: the window stays on the app");
            }
            allowed
        })
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn only_the_app_its_frames_and_the_dev_server_load() {
        let dev = url("http://localhost:5173");
        let cases = [
            ("tauri://localhost/index.html#/chat", true),
            ("http://tauri.localhost/#/inbox", true),
            ("about:blank", true),
            ("about:srcdoc", true),
            ("blob:tauri://localhost/1234", true),
            ("http://localhost:5173/#/chat", true),
            ("https://example.com/", false),
            ("http://localhost:8080/", false),
            ("http://localhost.evil.com:5173/", false),
            ("file:///etc/passwd", false),
            ("javascript:alert(1)", false),
            ("mailto:a@b.c", false),
            ("ftp://example.com/", false),
        ];
        for (u, want) in cases {
            assert_eq!(may_load(&url(u), Some(&dev), &[]), want, "{u}");
        }
        // A release build has no dev server: localhost:5173 is just a site.
        assert!(!may_load(&url("http://localhost:5173/"), None, &[]));
        // The viewer's HTML frames, in both spellings WebKit uses.
        for u in [
            "skald-html://x/a.html",
            "http://skald-html.localhost/x/a.html",
        ] {
            assert!(may_load(&url(u), None, &["skald-html"]), "{u}");
        }
        assert!(!may_load(
            &url("http://evil-skald-html.localhost/"),
            None,
            &["skald-html"]
        ));
    }

    #[test]
    fn only_web_and_mail_links_go_to_the_system() {
        for (u, want) in [
            ("https://example.com/a?b#c", true),
            ("http://example.com", true),
            ("mailto:someone@example.com", true),
            ("file:///home/u/.ssh/id_rsa", false),
            ("tauri://localhost/", false),
            ("javascript:alert(1)", false),
            ("smb://host/share", false),
        ] {
            assert_eq!(is_external_link(&url(u)), want, "{u}");
        }
    }
}
