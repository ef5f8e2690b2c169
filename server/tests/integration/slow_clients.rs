//! Clients that cost the server without asking for much: a connection that never finishes its
//! request's head, more connections than one address (or everyone) may hold, a CSV export
//! whose reader reads nothing. Served by `server::http::serve`, as `sundial serve` does: on a
//! loopback port, or over an in-memory pipe when what is sent must stay exactly as small as
//! the pipe.
//!
//! Each test waits for an event (an answer, the connection closing), never for a while; the
//! 30 s guard only turns a hang into a failure.
use crate::support::fixture::FixtureBackend;
use crate::support::t;
use crate::support::web;
use server::http::serve::{self, Limits};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket, TcpStream};

/// Longer than anything here should take: a hang fails instead of blocking the run.
const GUARD: Duration = Duration::from_secs(30);

/// A server (over the hand-made report) on a loopback port within `limits`, serving until the
/// test ends.
async fn start(limits: Limits) -> SocketAddr {
    let router = web::router(web::state(Arc::new(FixtureBackend { fail: false, kind: "mssql" }))).await;
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let addr = listener.local_addr().expect("its address");
    tokio::spawn(serve::serve(listener, router, limits, std::future::pending()));
    addr
}

/// A connection to `to` from the loopback address `from` (127.0.0.2 is another client).
async fn connect(from: &str, to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("a socket");
    socket.bind(SocketAddr::new(from.parse().expect("an address"), 0)).expect("bind the client's address");
    socket.connect(to).await.expect("connected")
}

/// Everything `c` sends until it closes; `None` if it was reset.
async fn all_of(c: &mut (impl AsyncRead + Unpin)) -> Option<String> {
    let mut got = Vec::new();
    match tokio::time::timeout(GUARD, c.read_to_end(&mut got)).await.expect("the server closes the connection") {
        Ok(_) => Some(String::from_utf8_lossy(&got).into_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => None,
        Err(e) => panic!("reading: {e}"),
    }
}

/// `GET /api/health` on a kept-alive connection: the answer's status line.
async fn health(c: &mut TcpStream) -> String {
    c.write_all(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").await.expect("the request is sent");
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    let read = async {
        // The head, then as many bytes as Content-Length says.
        loop {
            let n = c.read(&mut buf).await.expect("the answer");
            assert!(n > 0, "closed before answering: {}", String::from_utf8_lossy(&got));
            got.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&got).into_owned();
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length = head
                    .lines()
                    .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_owned()))
                    .and_then(|v| v.parse::<usize>().ok())
                    .expect("a Content-Length");
                if body.len() >= length {
                    return head.lines().next().unwrap_or_default().to_owned();
                }
            }
        }
    };
    tokio::time::timeout(GUARD, read).await.expect("an answer")
}

#[tokio::test]
async fn a_connection_that_never_finishes_its_head_is_closed() {
    let addr = start(Limits { header_timeout: Duration::from_millis(300), ..Limits::default() }).await;

    // Half a head, then nothing.
    let mut c = connect("127.0.0.1", addr).await;
    c.write_all(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n").await.expect("sent");
    assert_eq!(all_of(&mut c).await.unwrap_or_default(), "", "closed, unanswered");

    // Nothing at all.
    let mut idle = connect("127.0.0.1", addr).await;
    assert_eq!(all_of(&mut idle).await.unwrap_or_default(), "", "closed, unanswered");

    // A whole head is answered, and the connection, kept alive, closes once idle as long.
    let mut served = connect("127.0.0.1", addr).await;
    assert_eq!(health(&mut served).await, "HTTP/1.1 200 OK");
    assert_eq!(all_of(&mut served).await.as_deref().unwrap_or_default(), "", "closed, nothing more sent");
}

#[tokio::test]
async fn a_client_over_its_cap_is_refused_while_another_is_served() {
    let addr = start(Limits { max_connections_per_client: 2, ..Limits::default() }).await;
    let mut open = Vec::new();
    for _ in 0..2 {
        let mut c = connect("127.0.0.1", addr).await;
        assert_eq!(health(&mut c).await, "HTTP/1.1 200 OK");
        open.push(c);
    }

    let mut third = connect("127.0.0.1", addr).await;
    let answer = all_of(&mut third).await.expect("an answer, then closed");
    assert!(answer.starts_with("HTTP/1.1 429 "), "{answer}");
    assert!(answer.contains("\r\nRetry-After: 5\r\n"), "{answer}");
    assert!(answer.contains("2 connections open"), "says why: {answer}");

    // Another address is served, and the first two connections still are.
    let mut other = connect("127.0.0.2", addr).await;
    assert_eq!(health(&mut other).await, "HTTP/1.1 200 OK");
    for c in &mut open {
        assert_eq!(health(c).await, "HTTP/1.1 200 OK");
    }
}

#[tokio::test]
async fn past_the_total_cap_every_address_is_refused() {
    let addr = start(Limits { max_connections: 2, max_connections_per_client: 2, ..Limits::default() }).await;
    let mut open = Vec::new();
    for from in ["127.0.0.1", "127.0.0.2"] {
        let mut c = connect(from, addr).await;
        assert_eq!(health(&mut c).await, "HTTP/1.1 200 OK");
        open.push(c);
    }
    let mut third = connect("127.0.0.3", addr).await;
    let answer = all_of(&mut third).await.expect("an answer, then closed");
    assert!(answer.starts_with("HTTP/1.1 503 "), "{answer}");
    assert!(answer.contains("\r\nRetry-After: 5\r\n"), "{answer}");
}

/// The demo as a fleet, judged as of a fixed moment: a month of log across its instances.
async fn demo_state(dir: &tempfile::TempDir) -> server::http::AppState {
    let path = dir.path().join("demo.sqlite");
    server::demo::write_demo(&path, t("2026-11-22T12:00:00Z"), 42).await.expect("the demo is written");
    let fleet = server::demo::fleet(&path).expect("the demo's configuration");
    let backend =
        server::fleet::FleetBackend::start_at(&fleet, Some(t("2026-11-22T12:00:00Z"))).await.expect("the demo starts");
    for i in &fleet.instances {
        let _ = sundial_model::ssr::Backend::snapshot(backend.as_ref(), &i.name).await;
    }
    web::state(backend)
}

#[tokio::test]
async fn a_csv_export_nobody_reads_writes_a_few_pieces_and_is_cut_off() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let state = demo_state(&dir).await;
    let exports = state.exports.clone();
    let router = web::router(state).await;
    let _rendering = web::rendering().await;

    // The whole export, read: how many pieces it is.
    let request = axum::http::Request::get("/log.csv?days=30").body(axum::body::Body::empty()).unwrap();
    let res = tower::ServiceExt::oneshot(router.clone(), request).await.expect("an answer");
    assert_eq!(res.status(), axum::http::StatusCode::OK);
    let body = http_body_util::BodyExt::collect(res.into_body()).await.expect("the export").to_bytes();
    let lines = csv::Reader::from_reader(&body[..]).records().count();
    let whole = lines.div_ceil(server::http::log_csv::CHUNK);
    assert_eq!(exports.pieces_written(), whole);

    // The same export to a reader that takes 4 KiB and then nothing, plain and gzipped: the
    // connection is cut off when nothing more is taken for send_timeout, having made only what
    // hyper's 64 KiB buffer holds: a piece or two plain; gzipped, as many as fill it once
    // compressed (the log compresses about 16 to 1: 16 pieces), each dropped once compressed.
    let limits = Limits { send_timeout: Duration::from_millis(300), ..Limits::default() };
    let peer: SocketAddr = "127.0.0.2:40000".parse().unwrap();
    for (encoding, most) in [("identity", 3), ("gzip", 24)] {
        let (mut client, server_io) = tokio::io::duplex(4096);
        let request =
            format!("GET /log.csv?days=30 HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: {encoding}\r\n\r\n");
        client.write_all(request.as_bytes()).await.expect("the request is sent");
        let before = exports.pieces_written();
        let served = serve::serve_connection(server_io, peer, router.clone(), limits, std::future::pending());
        let closed = tokio::time::timeout(GUARD, served).await.expect("cut off, not left open");
        let written = exports.pieces_written() - before;
        let e = closed.expect_err("closed for a stalled send");
        assert!(format!("{e:?}").contains("TimedOut"), "{e:?}");
        assert!(written <= most, "{encoding}: {written} pieces of {whole} made for a reader that took 4 KiB");
        assert!(whole > 3 * most, "the export is larger than what is held ({whole} pieces)");
        drop(client);
    }
}

#[tokio::test]
async fn exports_past_the_cap_are_refused_with_retry_after() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let state = demo_state(&dir).await;
    let router = web::router(state).await;
    let _rendering = web::rendering().await;
    let limits = Limits { send_timeout: Duration::from_secs(3600), ..Limits::default() };
    // Two exports from one address, neither read (their connections stay open, their pieces
    // unsent); the third from it is refused, another address's is not.
    let mut held = Vec::new();
    let ask = |from: &str| {
        let (mut client, server_io) = tokio::io::duplex(4096);
        let peer: SocketAddr = format!("{from}:40000").parse().unwrap();
        let conn =
            tokio::spawn(serve::serve_connection(server_io, peer, router.clone(), limits, std::future::pending()));
        async move {
            client.write_all(b"GET /log.csv?days=30 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").await.expect("sent");
            let mut head = vec![0u8; 12];
            tokio::time::timeout(GUARD, client.read_exact(&mut head)).await.expect("an answer").expect("read");
            (String::from_utf8_lossy(&head).into_owned(), client, conn)
        }
    };
    for _ in 0..2 {
        let (status, client, conn) = ask("127.0.0.2").await;
        assert_eq!(status, "HTTP/1.1 200");
        held.push((client, conn));
    }
    let (status, mut refused, _) = ask("127.0.0.2").await;
    assert_eq!(status, "HTTP/1.1 429");
    let mut rest = vec![0u8; 1024];
    let n = refused.read(&mut rest).await.expect("the rest of the answer");
    let rest = String::from_utf8_lossy(&rest[..n]).to_ascii_lowercase();
    assert!(rest.contains("retry-after: 10"), "{rest}");
    let (status, _, _) = ask("127.0.0.3").await;
    assert_eq!(status, "HTTP/1.1 200", "another address exports");
}
