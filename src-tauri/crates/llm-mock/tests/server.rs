//! The mock over the wire, read with a bare HTTP/1.1 client so the framing
//! itself is checked: chunked pieces, cut and held-open streams, pauses, the
//! record, model lists, control endpoints and the binary.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skald_llm_mock::{End, Match, MockServer, Reply, sse_text};

/// A response as read off the socket.
struct Raw {
    status: u16,
    headers: Vec<(String, String)>,
    /// The chunks of a chunked body, as framed.
    chunks: Vec<Vec<u8>>,
    /// Whether the terminating zero-length chunk came.
    terminated: bool,
}

impl Raw {
    fn body(&self) -> String {
        String::from_utf8(self.chunks.concat()).unwrap()
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

fn send(port: u16, method: &str, path: &str, body: &str) -> BufReader<TcpStream> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nhost: mock\r\nx-test: yes\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    BufReader::new(s)
}

fn read_head(r: &mut BufReader<TcpStream>) -> (u16, Vec<(String, String)>) {
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    let status = line.split(' ').nth(1).unwrap().parse().unwrap();
    let mut headers = Vec::new();
    loop {
        line.clear();
        r.read_line(&mut line).unwrap();
        let l = line.trim_end();
        if l.is_empty() {
            return (status, headers);
        }
        let (n, v) = l.split_once(':').unwrap();
        headers.push((n.trim().to_ascii_lowercase(), v.trim().to_owned()));
    }
}

/// Reads one chunk; `None` at the end of the body or of the connection.
fn read_chunk(r: &mut BufReader<TcpStream>) -> Option<Vec<u8>> {
    let mut size = String::new();
    if r.read_line(&mut size).ok()? == 0 {
        return None;
    }
    let n = usize::from_str_radix(size.trim(), 16).ok()?;
    let mut data = vec![0; n + 2];
    r.read_exact(&mut data).ok()?;
    data.truncate(n);
    Some(data)
}

fn request(port: u16, method: &str, path: &str, body: &str) -> Raw {
    let mut r = send(port, method, path, body);
    let (status, headers) = read_head(&mut r);
    let mut chunks = Vec::new();
    let mut terminated = false;
    while let Some(c) = read_chunk(&mut r) {
        if c.is_empty() {
            terminated = true;
            break;
        }
        chunks.push(c);
    }
    Raw {
        status,
        headers,
        chunks,
        terminated,
    }
}

fn post(port: u16, body: &Value) -> Raw {
    request(port, "POST", "/v1/chat/completions", &body.to_string())
}

#[test]
fn replies_go_out_in_order_in_pieces_and_each_request_is_recorded() {
    let mock = MockServer::builder()
        .replies([sse_text("Hello from the mock")])
        .replies([Reply::sse("data: two\n\n").piece(4)])
        .peer_pids(true)
        .start()
        .unwrap();
    let first = post(mock.port(), &json!({"model": "m", "messages": []}));
    assert_eq!(first.status, 200);
    assert_eq!(first.header("content-type"), Some("text/event-stream"));
    assert!(first.terminated);
    assert_eq!(first.body(), sse_text("Hello from the mock"));
    assert!(
        first.chunks.iter().all(|c| c.len() <= 17) && first.chunks.len() > 10,
        "sent in pieces of at most 17 bytes: {:?}",
        first.chunks.iter().map(Vec::len).collect::<Vec<_>>()
    );
    let second = post(mock.port(), &json!({"model": "m2"}));
    assert_eq!(second.body(), "data: two\n\n");
    assert_eq!(
        second.chunks.iter().map(Vec::len).collect::<Vec<_>>(),
        [4, 4, 3]
    );

    let reqs = mock.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0].method, "POST");
    assert_eq!(reqs[0].path, "/v1/chat/completions");
    assert_eq!(reqs[0].header("x-test"), Some("yes"));
    assert_eq!(reqs[1].body["model"], "m2");
    assert_eq!(reqs[0].pid, Some(std::process::id()), "the test sent it");
    assert!(reqs[0].time_ms <= reqs[1].time_ms);
    assert_eq!(
        mock.bodies(),
        [
            json!({"model": "m", "messages": []}),
            json!({"model": "m2"})
        ]
    );

    // Used up: a final error that says so.
    let third = post(mock.port(), &json!({}));
    assert_eq!(third.status, 400);
    assert!(third.body().contains("no scripted reply left"));
}

#[test]
fn model_lists_are_answered_outside_the_script_unless_raw() {
    let mock = MockServer::builder()
        .models(["a", "b"])
        .replies([sse_text("turn")])
        .start()
        .unwrap();
    let list: Value =
        serde_json::from_str(&request(mock.port(), "GET", "/v1/models", "").body()).unwrap();
    let ids: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["a", "b"]);
    let tags: Value =
        serde_json::from_str(&request(mock.port(), "GET", "/api/tags", "").body()).unwrap();
    assert_eq!(tags["models"][1]["name"], "b");
    assert_eq!(post(mock.port(), &json!({})).body(), sse_text("turn"));
    assert_eq!(mock.requests().len(), 3, "model lists are recorded too");
    assert_eq!(mock.bodies().len(), 1, "but they are not turns");

    let raw = MockServer::raw([Reply::json(&json!({"data": [{"id": "scripted"}]}))]).unwrap();
    let list = request(raw.port(), "GET", "/v1/models", "").body();
    assert!(list.contains("scripted"), "{list}");
}

#[test]
fn a_models_window_is_listed_and_shown_as_the_servers_say_it() {
    let mock = MockServer::builder()
        .models(["small", "big"])
        .context_window("small", 4096)
        .replies([sse_text("turn")])
        .start()
        .unwrap();
    let list: Value =
        serde_json::from_str(&request(mock.port(), "GET", "/v1/models", "").body()).unwrap();
    assert_eq!(list["data"][0]["context_length"], 4096);
    assert!(list["data"][1].get("context_length").is_none());
    let show = |model: &str| {
        request(
            mock.port(),
            "POST",
            "/api/show",
            &json!({"model": model}).to_string(),
        )
    };
    let small: Value = serde_json::from_str(&show("small").body()).unwrap();
    assert_eq!(small["model_info"]["mock.context_length"], 4096);
    let big: Value = serde_json::from_str(&show("big").body()).unwrap();
    assert!(big["model_info"].get("mock.context_length").is_none());
    assert_eq!(show("absent").status, 404);
    // Details are not turns: the script is untouched.
    assert!(mock.bodies().is_empty());
    assert_eq!(post(mock.port(), &json!({})).body(), sse_text("turn"));
}

#[test]
fn a_cut_stream_ends_without_its_terminating_chunk() {
    let mock =
        MockServer::start([Reply::sse("data: {\"partial\": true}\n\n").end(End::Cut)]).unwrap();
    let r = post(mock.port(), &json!({}));
    assert_eq!(r.body(), "data: {\"partial\": true}\n\n");
    assert!(!r.terminated, "the body is cut, not finished");
}

#[test]
fn pauses_delay_what_follows_and_errors_carry_status_and_headers() {
    let mock = MockServer::start([
        Reply::error(429, json!({"error": {"message": "slow down"}})).header("retry-after", "1"),
        Reply::sse("data: a\n\n")
            .pause(Duration::from_millis(300))
            .bytes("data: b\n\n"),
    ])
    .unwrap();
    let limited = post(mock.port(), &json!({}));
    assert_eq!(limited.status, 429);
    assert_eq!(limited.header("retry-after"), Some("1"));
    assert_eq!(limited.header("content-type"), Some("application/json"));

    let mut r = send(mock.port(), "POST", "/v1/chat/completions", "{}");
    read_head(&mut r);
    assert_eq!(read_chunk(&mut r).unwrap(), b"data: a\n\n");
    let t = Instant::now();
    assert_eq!(read_chunk(&mut r).unwrap(), b"data: b\n\n");
    assert!(
        t.elapsed() >= Duration::from_millis(250),
        "{:?}",
        t.elapsed()
    );
}

#[test]
fn a_held_stream_counts_the_client_leaving() {
    let mock = MockServer::start([Reply::sse("data: first\n\n").end(End::Hang)]).unwrap();
    let mut r = send(mock.port(), "POST", "/v1/chat/completions", "{}");
    read_head(&mut r);
    assert_eq!(read_chunk(&mut r).unwrap(), b"data: first\n\n");
    assert_eq!(mock.disconnects(), 0);
    drop(r);
    let deadline = Instant::now() + Duration::from_secs(5);
    while mock.disconnects() == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(mock.disconnects(), 1);
}

#[test]
fn held_requests_are_answered_together_from_the_request() {
    let mock = MockServer::builder()
        .respond_with(|r| sse_text(r.body["say"].as_str().unwrap_or("?")).into())
        .hold_until(2)
        .start()
        .unwrap();
    let port = mock.port();
    let first = std::thread::spawn(move || {
        let t = Instant::now();
        (post(port, &json!({"say": "one"})).body(), t.elapsed())
    });
    std::thread::sleep(Duration::from_millis(300));
    let second = post(port, &json!({"say": "two"}));
    let (body, waited) = first.join().unwrap();
    assert_eq!(body, sse_text("one"));
    assert!(waited >= Duration::from_millis(250), "held: {waited:?}");
    assert_eq!(second.body(), sse_text("two"));
}

fn asked(system: &str, user: &str) -> Value {
    json!({"model": "mock-small", "messages": [
        {"role": "system", "content": system},
        {"role": "user", "content": user}
    ]})
}

#[test]
fn routes_answer_by_what_the_request_says_before_the_queue() {
    let mock = MockServer::builder()
        .replies([sse_text("main 1"), sse_text("main 2")])
        .route(
            Match::system_contains("a worker"),
            [sse_text("worker 1"), sse_text("worker 2")],
        )
        .start()
        .unwrap();
    let port = mock.port();
    let main = asked("You are main.", "hi");
    let worker = asked("You are a worker.", "go");
    assert_eq!(post(port, &worker).body(), sse_text("worker 1"));
    assert_eq!(post(port, &main).body(), sse_text("main 1"));
    assert_eq!(post(port, &worker).body(), sse_text("worker 2"));
    // Its replies used up, the route lets the worker's request reach the queue.
    assert_eq!(post(port, &worker).body(), sse_text("main 2"));

    mock.push_for(Match::last_user_contains("later"), sse_text("routed later"));
    mock.push_for(Match::last_user_contains("later"), sse_text("and again"));
    mock.push(sse_text("queued"));
    assert_eq!(post(port, &asked("x", "now")).body(), sse_text("queued"));
    assert_eq!(
        post(port, &asked("x", "later")).body(),
        sse_text("routed later")
    );
    assert_eq!(
        post(port, &asked("x", "later")).body(),
        sse_text("and again")
    );
    assert_eq!(mock.bodies().len(), 7, "routed requests are recorded too");
}

#[test]
fn held_side_by_side_requests_each_get_their_own_route() {
    // Three agents ask at once (held until all three are in, so their
    // order is the network's); each gets its own answer.
    let mock = MockServer::builder()
        .route(Match::user_contains("alpha"), [sse_text("for alpha")])
        .route(Match::user_contains("beta"), [sse_text("for beta")])
        .route(
            Match::model("mock-large"),
            [sse_text("for the large model")],
        )
        .hold_until(3)
        .start()
        .unwrap();
    let port = mock.port();
    let ask = |body: Value| std::thread::spawn(move || post(port, &body).body());
    let mut large = asked("s", "gamma");
    large["model"] = json!("mock-large");
    let threads = [
        ask(asked("s", "beta")),
        ask(large),
        ask(asked("s", "alpha")),
    ];
    let got: Vec<String> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(
        got,
        [
            sse_text("for beta"),
            sse_text("for the large model"),
            sse_text("for alpha")
        ]
    );
}

#[test]
fn control_endpoints_queue_replies_show_the_record_and_reset() {
    let mock = MockServer::start([sse_text("scripted")]).unwrap();
    let queued = request(
        mock.port(),
        "POST",
        "/_mock/replies",
        r#"[["pushed", {"finish_reason": "stop"}]]"#,
    );
    assert_eq!(queued.status, 200);
    assert_eq!(
        post(mock.port(), &json!({"n": 1})).body(),
        sse_text("scripted")
    );
    assert!(
        post(mock.port(), &json!({"n": 2}))
            .body()
            .contains("\"pushed\"")
    );
    let record: Value =
        serde_json::from_str(&request(mock.port(), "GET", "/_mock/requests", "").body()).unwrap();
    assert_eq!(
        record.as_array().unwrap().len(),
        2,
        "control calls are not recorded"
    );
    assert_eq!(record[1]["body"]["n"], 2);

    let routed = request(
        mock.port(),
        "POST",
        "/_mock/replies",
        r#"{"routes": [{"when": {"user_contains": "route me"}, "reply": ["routed"]}]}"#,
    );
    assert_eq!(routed.status, 200);
    assert!(routed.body().contains("\"routed\":1"), "{}", routed.body());
    assert!(
        post(mock.port(), &asked("s", "please route me"))
            .body()
            .contains("\"routed\"")
    );

    let bad = request(mock.port(), "POST", "/_mock/replies", r#"[{"bogus": 1}]"#);
    assert_eq!(bad.status, 400);
    assert!(bad.body().contains("bogus"), "{}", bad.body());
    mock.push_for(Match::user_contains("after"), sse_text("gone"));
    assert_eq!(request(mock.port(), "POST", "/_mock/reset", "").status, 200);
    assert!(mock.requests().is_empty());
    assert_eq!(
        post(mock.port(), &asked("s", "after the reset")).status,
        400,
        "routes are emptied too"
    );
    assert_eq!(request(mock.port(), "GET", "/_mock/nope", "").status, 404);
}

#[test]
fn the_binary_prints_its_port_serves_a_script_and_records_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    let record = dir.path().join("record.jsonl");
    std::fs::write(
        &script,
        r#"{"models": ["only-one"], "replies": [["Hi", 50, " there", {"finish_reason": "stop"}]],
            "routes": [{"when": {"system_contains": "worker"}, "replies": [["Routed"]]}]}"#,
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_skald-llm-mock"))
        .arg("--script")
        .arg(&script)
        .arg("--record")
        .arg(&record)
        .args(["--peer-pids", "--exit-on-stdin-eof"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let started: Value = serde_json::from_str(&line).unwrap();
    let port = u16::try_from(started["port"].as_u64().unwrap()).unwrap();
    assert_eq!(started["base_url"], format!("http://127.0.0.1:{port}/v1"));

    let routed = post(port, &asked("You are a worker.", "go")).body();
    assert!(routed.contains("\"Routed\""), "{routed}");
    let r = post(port, &json!({"model": "only-one"}));
    let text: String = r
        .body()
        .split("\n\n")
        .filter_map(|e| e.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .filter_map(|v| {
            v["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_owned)
        })
        .collect();
    assert_eq!(text, "Hi there");
    assert!(
        request(port, "GET", "/v1/models", "")
            .body()
            .contains("only-one")
    );

    let lines: Vec<Value> = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[1]["body"]["model"], "only-one");
    assert_eq!(lines[0]["pid"], std::process::id());

    // Its stdin closing ends it: it cannot outlive whoever started it.
    drop(child.stdin.take());
    let t = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(t.elapsed() < Duration::from_secs(5), "still running");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success());
}

#[test]
fn the_binary_refuses_a_bad_script_with_where_it_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("bad.json");
    std::fs::write(&script, r#"[["ok"], [{"finish_reason": 3}]]"#).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_skald-llm-mock"))
        .arg("--script")
        .arg(&script)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("reply 1") && err.contains("finish_reason"),
        "{err}"
    );
}
