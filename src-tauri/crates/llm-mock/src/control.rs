//! The binary's control endpoints, for tests that script as they go:
//! `GET /_mock/requests` (the record), `POST /_mock/replies` (a script:
//! its replies queued after the others, its routes added, its model list
//! used from then on), `POST /_mock/reset` (queue, routes and record
//! emptied).

use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::{Response, StatusCode};
use serde_json::json;

use crate::route;
use crate::send::ChannelBody;
use crate::server::{State, lock};

pub(crate) fn answer(method: &str, what: &str, body: &[u8], st: &State) -> Response<ChannelBody> {
    let (status, answer) = match (method, what) {
        ("GET", "requests") => (200, json!(*lock(&st.record))),
        ("POST", "replies") => match crate::script::parse(&String::from_utf8_lossy(body)) {
            Ok(script) => {
                let mut routes = lock(&st.routes);
                for (when, replies) in script.routes {
                    route::add(&mut routes, when, replies);
                }
                let mut q = lock(&st.replies);
                q.extend(script.replies);
                if let Some(m) = script.models {
                    *lock(&st.models) = Some(m);
                }
                (
                    200,
                    json!({"queued": q.len(), "routed": routes.iter().map(|r| r.replies.len()).sum::<usize>()}),
                )
            }
            Err(e) => (400, json!({"error": e.to_string()})),
        },
        ("POST", "reset") => {
            lock(&st.replies).clear();
            lock(&st.routes).clear();
            lock(&st.record).clear();
            if let Some(f) = &st.record_file {
                let _ = lock(f).set_len(0);
            }
            (200, json!({"queued": 0, "routed": 0}))
        }
        _ => (
            404,
            json!({"error": format!("no control endpoint {method} /_mock/{what}")}),
        ),
    };
    let mut r = Response::new(ChannelBody::full(answer.to_string().into_bytes()));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}
