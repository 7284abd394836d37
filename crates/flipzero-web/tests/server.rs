//! The server over real HTTP: what the page asks, what a hostile client sends, many at once.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{Value, json};

/// One server for the whole file, on a free port, serving the models of a temporary
/// directory that holds no checkpoint.
fn server() -> SocketAddr {
    static ADDRESS: OnceLock<SocketAddr> = OnceLock::new();
    *ADDRESS.get_or_init(|| {
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let models = tempfile::tempdir().unwrap();
            let options = flipzero_web::ServeOptions {
                address: "127.0.0.1:0".parse().unwrap(),
                models: Some(models.path().to_owned()),
            };
            flipzero_web::serve(&options, |address| sender.send(address).unwrap()).unwrap();
        });
        receiver.recv_timeout(Duration::from_secs(30)).unwrap()
    })
}

/// Sends raw bytes, returns the status and the body.
fn raw(bytes: &[u8]) -> (u16, String) {
    let mut stream = TcpStream::connect(server()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .unwrap();
    stream.write_all(bytes).unwrap();
    let mut response = Vec::new();
    // A server that closes the connection on garbage may reset it: what came is the answer.
    let _ = stream.read_to_end(&mut response);
    let text = String::from_utf8_lossy(&response).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    (status, body)
}

fn http(method: &str, path: &str, content_type: &str, body: &[u8]) -> (u16, String) {
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    raw(&request)
}

fn post(path: &str, body: &Value) -> (u16, Value) {
    let (status, text) = http(
        "POST",
        path,
        "application/json",
        body.to_string().as_bytes(),
    );
    let value = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{path}: not JSON: {text}"));
    (status, value)
}

fn start_6x6() -> Value {
    let (status, state) = post("/api/start", &json!({"variant": "othello", "size": 6}));
    assert_eq!(status, 200, "{state}");
    state["game"].clone()
}

#[test]
fn the_page_and_its_files_are_served() {
    let (status, page) = http("GET", "/", "text/plain", b"");
    assert_eq!(status, 200);
    assert!(page.contains("<script src=\"/app.js\">"), "{page}");
    let (status, script) = http("GET", "/app.js", "text/plain", b"");
    assert_eq!(status, 200);
    assert!(script.contains("/api/agent"));
    let (status, _) = http("GET", "/style.css", "text/plain", b"");
    assert_eq!(status, 200);
    let (status, variants) = http("GET", "/api/variants", "text/plain", b"");
    assert_eq!(status, 200);
    let variants: Value = serde_json::from_str(&variants).unwrap();
    assert_eq!(
        variants.as_array().unwrap().len(),
        flipzero_core::Preset::ALL.len()
    );
    let (status, models) = http("GET", "/api/models", "text/plain", b"");
    assert_eq!((status, models.as_str()), (200, "[]"));
}

#[test]
fn a_6x6_game_against_the_engine_is_played_to_its_end() {
    let mut game = start_6x6();
    let mut decisions = 0;
    loop {
        let (status, state) = post("/api/state", &game);
        assert_eq!(status, 200, "{state}");
        if state["over"] == json!(true) {
            assert!(state["winner"].is_string());
            let discs = state["discs"][0].as_i64().unwrap() + state["discs"][1].as_i64().unwrap();
            assert!(discs <= 36);
            break;
        }
        // Black (a "human" here) plays its first legal decision, White is the engine.
        let agent = if state["seat"] == "black" {
            "random"
        } else {
            "engine:depth=1"
        };
        let (status, moved) = post(
            "/api/agent",
            &json!({"game": game, "agent": agent, "seed": decisions}),
        );
        assert_eq!(status, 200, "{moved}");
        game = moved["state"]["game"].clone();
        decisions += 1;
        assert!(
            decisions <= 40,
            "a 6x6 game has at most 32 moves and a few passes"
        );
    }
    assert!(decisions >= 20);
}

#[test]
fn malformed_and_illegal_requests_get_a_reason_and_the_server_serves_on() {
    let game = start_6x6();
    let cases: [(&str, &str, &[u8], u16); 5] = [
        ("/api/state", "application/json", b"{not json", 400),
        (
            "/api/state",
            "application/json",
            b"{\"variant\": \"othello\"}",
            422,
        ),
        ("/api/state", "text/plain", b"{}", 415),
        (
            "/api/state",
            "application/json",
            b"\xff\xfe\x00garbage",
            400,
        ),
        ("/api/nothing", "application/json", b"{}", 404),
    ];
    for (path, content_type, body, expected) in cases {
        let (status, text) = http("POST", path, content_type, body);
        assert_eq!(status, expected, "{path} {body:?}: {text}");
        let answer: Value = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{text}"));
        assert!(
            answer["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{text}"
        );
    }
    let mut illegal = game.clone();
    illegal["decisions"] = json!(["a1"]);
    let (status, answer) = post("/api/state", &illegal);
    assert_eq!(status, 422);
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .contains("decision 1 `a1`"),
        "{answer}"
    );
    let (status, answer) = post("/api/agent", &json!({"game": game, "agent": "gtp:/bin/sh"}));
    assert_eq!(status, 400);
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .contains("external engines"),
        "{answer}"
    );
    let (status, answer) = post(
        "/api/agent",
        &json!({"game": game, "agent": "mcts:checkpoint=../../etc/passwd"}),
    );
    assert_eq!(status, 403, "{answer}");
    // Another site's name for this machine (DNS rebinding) is refused; so is a wrong method.
    let rebound = format!(
        "POST /api/state HTTP/1.1\r\nHost: evil.example:8080\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{}",
        game.to_string().len(),
        game
    );
    let (status, text) = raw(rebound.as_bytes());
    assert_eq!(status, 403, "{text}");
    assert!(text.contains("localhost only"), "{text}");
    let (status, text) = http("GET", "/api/state", "text/plain", b"");
    assert_eq!(status, 405, "{text}");
    // Not HTTP at all, then a path that climbs: the server answers and keeps serving.
    let (status, _) = raw(b"\x16\x03\x01 hello\r\n\r\n");
    assert_ne!(status, 200);
    let (status, _) = http("GET", "/../../etc/passwd", "text/plain", b"");
    assert_eq!(status, 404);
    let (status, _) = post("/api/state", &game);
    assert_eq!(status, 200);
}

#[test]
fn many_clients_at_once_are_all_answered() {
    let game = start_6x6();
    let clients: Vec<_> = (0..12)
        .map(|seed| {
            let game = game.clone();
            std::thread::spawn(move || {
                let (status, moved) = post(
                    "/api/agent",
                    &json!({"game": game, "agent": "engine:depth=3", "seed": seed}),
                );
                assert_eq!(status, 200, "{moved}");
                let (status, analysis) = post("/api/analyze", &json!({"game": game, "depth": 2}));
                assert_eq!(status, 200, "{analysis}");
                assert_eq!(analysis["decisions"].as_array().unwrap().len(), 4);
            })
        })
        .collect();
    for client in clients {
        client.join().unwrap();
    }
}
