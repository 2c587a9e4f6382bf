//! Sending a reply: the head at once, then the body through a channel one
//! piece per slot, so each piece is its own write; pauses, a cut (an error
//! item, which makes hyper drop the connection mid-body) and a held-open end.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame};
use hyper::header::{CONTENT_TYPE, HeaderName, HeaderValue};
use hyper::{Response, StatusCode};
use tokio::sync::mpsc;

use crate::reply::{End, Part, Reply};
use crate::server::State;

pub(crate) async fn respond(reply: Reply, st: Arc<State>) -> Response<ChannelBody> {
    if !reply.delay.is_zero() {
        tokio::time::sleep(reply.delay).await;
    }
    let (tx, rx) = mpsc::channel(1);
    let mut r = Response::new(ChannelBody { rx });
    *r.status_mut() =
        StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let h = r.headers_mut();
    if let Ok(ct) = HeaderValue::from_str(&reply.content_type)
        && !reply.content_type.is_empty()
    {
        h.insert(CONTENT_TYPE, ct);
    }
    for (n, v) in &reply.headers {
        if let (Ok(n), Ok(v)) = (
            HeaderName::from_bytes(n.as_bytes()),
            HeaderValue::from_str(v),
        ) {
            h.append(n, v);
        }
    }
    tokio::spawn(produce(reply, tx, st));
    r
}

type Item = Result<Bytes, std::io::Error>;

/// Feeds the body: one piece per channel slot, so hyper writes each piece
/// on its own; a client that leaves ends the script's pauses early.
async fn produce(reply: Reply, tx: mpsc::Sender<Item>, st: Arc<State>) {
    for part in reply.parts {
        match part {
            Part::Bytes(b) => {
                for piece in b.chunks(reply.piece) {
                    if tx.send(Ok(Bytes::copy_from_slice(piece))).await.is_err() {
                        return;
                    }
                    tokio::task::yield_now().await;
                }
            }
            Part::Pause(d) => {
                tokio::select! {
                    () = tokio::time::sleep(d) => {}
                    () = tx.closed() => return,
                }
            }
        }
    }
    match reply.end {
        End::Complete => {}
        End::Cut => {
            let _ = tx
                .send(Err(std::io::Error::other("the script cuts this stream")))
                .await;
        }
        End::Hang => {
            tx.closed().await;
            st.disconnects.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// A response body fed through a channel: an error item aborts the
/// connection mid-body (a cut stream).
pub(crate) struct ChannelBody {
    rx: mpsc::Receiver<Item>,
}

impl ChannelBody {
    pub(crate) fn full(bytes: Vec<u8>) -> Self {
        let (tx, rx) = mpsc::channel(1);
        let _ = tx.try_send(Ok(Bytes::from(bytes)));
        ChannelBody { rx }
    }
}

impl Body for ChannelBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        self.rx.poll_recv(cx).map(|o| o.map(|r| r.map(Frame::data)))
    }
}
