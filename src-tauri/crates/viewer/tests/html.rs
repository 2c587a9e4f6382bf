//! The HTML tree server's path rules and headers.

use std::path::Path;

use skald_viewer::html::{HtmlPathError, csp, mime_for, request_path};

#[test]
fn paths_stay_beneath_the_root() {
    let root = Path::new("/w/site");
    assert_eq!(
        request_path(root, "/index.html").unwrap(),
        Path::new("/w/site/index.html")
    );
    assert_eq!(
        request_path(root, "/css/a%20b.css?v=1#x").unwrap(),
        Path::new("/w/site/css/a b.css")
    );
    assert_eq!(
        request_path(root, "/./img/./p.png").unwrap(),
        Path::new("/w/site/img/p.png")
    );
    for bad in [
        "/../secret.txt",
        "/a/../../x",
        "/%2e%2e/x",
        "/%2E%2E%2Fx",
        "//etc/passwd",
    ] {
        let got = request_path(root, bad);
        assert!(
            matches!(got, Err(HtmlPathError::Outside))
                || got.as_deref() == Ok(Path::new("/w/site/etc/passwd")),
            "{bad}: {got:?}"
        );
        assert!(got.map(|p| p.starts_with(root)).unwrap_or(true), "{bad}");
    }
    for bad in ["/", "", "/dir/", "/a%00b", "/%zz", "/%c3"] {
        assert_eq!(
            request_path(root, bad),
            Err(HtmlPathError::Malformed),
            "{bad}"
        );
    }
}

#[test]
fn types_and_policy() {
    assert_eq!(mime_for(Path::new("a.HTML")), "text/html; charset=utf-8");
    assert_eq!(mime_for(Path::new("s.css")), "text/css; charset=utf-8");
    assert_eq!(mime_for(Path::new("x.bin")), "application/octet-stream");
    let policy = csp("skald-html://localhost/t1/");
    assert!(policy.contains("connect-src 'none'"));
    assert!(policy.contains("form-action 'none'"));
    assert!(policy.contains("img-src skald-html://localhost/t1/ data: blob:"));
    assert!(!policy.contains("ipc:") && !policy.contains("'self'"));
}
