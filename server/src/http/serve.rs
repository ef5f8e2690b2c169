//! Serving connections: the accept loop, HTTP/1 over each connection, and the limits that keep
//! one client (or a thousand idle sockets) from costing the others their pages.
//!
//! - At most [`Limits::max_connections`] connections are open, and at most
//!   [`Limits::max_connections_per_client`] from one IP address. A connection over either cap
//!   is accepted and answered at once, without reading its request: `503` (the server is full)
//!   or `429` (that address is), with `Retry-After`, then closed. None is left waiting in the
//!   listen queue. Behind a reverse proxy every client has the proxy's address: the
//!   per-client cap is then a cap on the proxy, and should be raised to about the total.
//! - A request's head (request line and headers) must arrive whole within
//!   [`Limits::header_timeout`], else the connection is closed. The same deadline closes a
//!   kept-alive connection that sends no next request (hyper starts it when it waits for a head).
//! - A connection whose socket has taken no byte for [`Limits::send_timeout`] while an answer
//!   waits to be sent is closed (nginx's `send_timeout`): a reader that stops reading frees
//!   what its answer holds. hyper asks a body for more only while its own buffer holds less than
//!   [`WRITE_BUFFER`] bytes, so an answer is made no faster than it is read.
//!
//! HTTP/1.1 only, as axum's `serve` did with the features Sundial builds it with.
//! Every request carries `ConnectInfo<SocketAddr>` (the peer), as with
//! `into_make_service_with_connect_info`.
use axum::Router;
use axum::extract::ConnectInfo;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, ready};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};

/// What a server allows its clients: the fleet file's `[http]` ([`crate::config::HttpLimits`]).
pub use crate::config::HttpLimits as Limits;

/// The most an answer holds in hyper's write buffer before hyper stops asking its body for
/// more (hyper's default is 400 KiB). Also the largest request head hyper reads.
pub const WRITE_BUFFER: usize = 64 * 1024;

/// Refusals being written at once; past that an over-cap connection is closed unanswered.
const REFUSING: usize = 256;

/// How long a refusal waits for its client to finish sending before closing: closing with
/// unread bytes resets the connection, and the client could lose the answer.
const REFUSAL_LINGER: Duration = Duration::from_secs(1);

/// Serve `router` on `listener` within `limits` until `shutdown` resolves; then stop accepting,
/// let each open connection finish the answer it is sending (idle ones close at once), and
/// return when all are closed.
pub async fn serve(listener: TcpListener, router: Router, limits: Limits, shutdown: impl Future<Output = ()>) {
    let all = Arc::new(Semaphore::new(limits.max_connections.min(Semaphore::MAX_PERMITS)));
    let clients: Arc<PerClient<IpAddr>> = Arc::default();
    let refusing = Arc::new(Semaphore::new(REFUSING));
    let (stop, stopping) = watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    accept_failed(e).await;
                    continue;
                }
            },
        };
        let ip = peer.ip().to_canonical();
        let Ok(slot) = clients.take(ip, limits.max_connections_per_client, None) else {
            tracing::debug!(%ip, "refused a connection: too many from this address");
            refuse(stream, &refusing, Refusal::Client(limits.max_connections_per_client));
            continue;
        };
        let Ok(permit) = all.clone().try_acquire_owned() else {
            tracing::warn!(%ip, max = limits.max_connections, "refused a connection: too many open");
            refuse(stream, &refusing, Refusal::Full);
            continue;
        };
        let (router, mut stopping) = (router.clone(), stopping.clone());
        tokio::spawn(async move {
            let _held = (slot, permit);
            let _ = stream.set_nodelay(true);
            let stop = async move {
                let _ = stopping.wait_for(|s| *s).await;
            };
            if let Err(e) = serve_connection(stream, peer, router, limits, stop).await {
                tracing::debug!(%peer, "connection closed: {e}");
            }
        });
    }
    drop(listener);
    let _ = stop.send(true);
    drop(stopping);
    // Every connection task holds a receiver: closed when the last one ends.
    stop.closed().await;
}

/// Serve one connection (`io`, from `peer`) until it closes, or until `stop` resolves and the
/// answer in flight is sent. An error says why it closed early: the head's deadline, a stalled
/// send, the client gone.
pub async fn serve_connection<I>(
    io: I,
    peer: SocketAddr,
    router: Router,
    limits: Limits,
    stop: impl Future<Output = ()>,
) -> Result<(), hyper::Error>
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = hyper::service::service_fn(move |mut req: hyper::Request<hyper::body::Incoming>| {
        req.extensions_mut().insert(ConnectInfo(peer));
        tower::ServiceExt::oneshot(router.clone(), req)
    });
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(limits.header_timeout).max_buf_size(WRITE_BUFFER);
    let conn = http.serve_connection(TokioIo::new(SendTimeout::new(io, limits.send_timeout)), service);
    let mut conn = std::pin::pin!(conn);
    tokio::select! {
        done = conn.as_mut() => done,
        () = stop => {
            conn.as_mut().graceful_shutdown();
            conn.await
        }
    }
}

/// Accepting failed: a connection reset before it was accepted is nothing; anything else (no
/// file descriptor left) is logged and waited out briefly rather than retried in a hot loop.
async fn accept_failed(e: io::Error) {
    use io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(e.kind(), ConnectionAborted | ConnectionRefused | ConnectionReset) {
        return;
    }
    tracing::error!("accepting a connection: {e}");
    tokio::time::sleep(Duration::from_millis(100)).await;
}

/// Why a connection is refused.
#[derive(Clone, Copy, Debug)]
enum Refusal {
    /// Its address has this many open already.
    Client(usize),
    /// The server has [`Limits::max_connections`] open.
    Full,
}

impl Refusal {
    /// The whole answer: status line, headers, a sentence.
    fn answer(self) -> String {
        let (status, text) = match self {
            Refusal::Client(n) => (
                "429 Too Many Requests",
                format!("Sundial: your address has {n} connections open, the most it allows. Try again shortly.\n"),
            ),
            Refusal::Full => (
                "503 Service Unavailable",
                "Sundial has as many connections open as it allows. Try again shortly.\n".to_owned(),
            ),
        };
        format!(
            "HTTP/1.1 {status}\r\nRetry-After: 5\r\nContent-Type: text/plain; charset=utf-8\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{text}",
            text.len()
        )
    }
}

/// Answer `stream` with `why` and close it, in a task of its own (at most [`REFUSING`] at once:
/// past that it is closed unanswered, so refusing costs a bounded amount too).
fn refuse(stream: TcpStream, refusing: &Arc<Semaphore>, why: Refusal) {
    let Ok(permit) = refusing.clone().try_acquire_owned() else { return };
    tokio::spawn(async move {
        let _permit = permit;
        let mut stream = stream;
        let answered = async {
            // A fresh socket's send buffer takes these few hundred bytes at once.
            stream.write_all(why.answer().as_bytes()).await?;
            stream.shutdown().await?;
            // Read what the client sent until it closes, so that closing does not reset it.
            let mut sink = [0u8; 1024];
            while tokio::io::AsyncReadExt::read(&mut stream, &mut sink).await? > 0 {}
            io::Result::Ok(())
        };
        let _ = tokio::time::timeout(REFUSAL_LINGER, answered).await;
    });
}

/// What is open per client (connections per IP address, CSV exports per address): counted,
/// capped per client and, when asked, in all; each place given back when its [`Slot`] drops.
pub struct PerClient<K: std::hash::Hash + Eq + Clone> {
    open: Mutex<HashMap<K, usize>>,
}

impl<K: std::hash::Hash + Eq + Clone> Default for PerClient<K> {
    fn default() -> Self {
        PerClient { open: Mutex::default() }
    }
}

/// Why [`PerClient::take`] gave no place.
#[derive(Debug, PartialEq, Eq)]
pub enum Full {
    /// This client has its most open.
    Client,
    /// Everyone together has the most open.
    All,
}

impl<K: std::hash::Hash + Eq + Clone> PerClient<K> {
    /// A place for one more of `client`'s, when it has fewer than `per_client` open (and all
    /// clients together fewer than `all`, when given).
    pub fn take(self: &Arc<Self>, client: K, per_client: usize, all: Option<usize>) -> Result<Slot<K>, Full> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if open.get(&client).copied().unwrap_or_default() >= per_client {
            return Err(Full::Client);
        }
        if all.is_some_and(|all| open.values().sum::<usize>() >= all) {
            return Err(Full::All);
        }
        *open.entry(client.clone()).or_default() += 1;
        Ok(Slot { counts: self.clone(), client })
    }
}

/// One place in a client's count, given back when dropped.
pub struct Slot<K: std::hash::Hash + Eq + Clone> {
    counts: Arc<PerClient<K>>,
    client: K,
}

impl<K: std::hash::Hash + Eq + Clone> Drop for Slot<K> {
    fn drop(&mut self) {
        let mut open = self.counts.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = open.get_mut(&self.client) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                open.remove(&self.client);
            }
        }
    }
}

/// `io`, failing a write (with `TimedOut`) once its socket has taken no byte for `limit`.
/// The clock runs only while a write waits: an answer still being made is not a stall.
pub struct SendTimeout<I> {
    io: I,
    limit: Duration,
    /// Set while a write waits; the moment it gives up.
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<I> SendTimeout<I> {
    pub fn new(io: I, limit: Duration) -> SendTimeout<I> {
        SendTimeout { io, limit, stalled: None }
    }

    /// The socket took nothing: start the clock (or keep it running); an error once it is up.
    fn waiting(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let limit = self.limit;
        let deadline = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        ready!(deadline.as_mut().poll(cx));
        Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "the client took nothing sent to it for too long")))
    }
}

impl<I: AsyncRead + Unpin> AsyncRead for SendTimeout<I> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl<I: AsyncWrite + Unpin> AsyncWrite for SendTimeout<I> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.io).poll_write(cx, buf) {
            Poll::Pending => this.waiting(cx),
            done => {
                this.stalled = None;
                done
            }
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.io).poll_write_vectored(cx, bufs) {
            Poll::Pending => this.waiting(cx),
            done => {
                this.stalled = None;
                done
            }
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_gets_its_slots_back_when_its_connections_close() {
        let clients: Arc<PerClient<IpAddr>> = Arc::default();
        let (a, b): (IpAddr, IpAddr) = ("127.0.0.1".parse().unwrap(), "127.0.0.2".parse().unwrap());
        let one = clients.take(a, 2, None).expect("a first");
        let two = clients.take(a, 2, None).expect("a second");
        assert!(clients.take(a, 2, None).is_err(), "a third from the same address");
        assert!(clients.take(b, 2, None).is_ok(), "another address is counted apart");
        drop(one);
        let three = clients.take(a, 2, None).expect("a slot given back");
        drop((two, three));
        assert!(clients.open.lock().unwrap().is_empty(), "no address kept once its connections are closed");
    }

    #[test]
    fn a_refusal_is_a_whole_http_answer_that_closes() {
        for why in [Refusal::Client(64), Refusal::Full] {
            let answer = why.answer();
            let (head, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
            assert!(head.starts_with("HTTP/1.1 429 ") || head.starts_with("HTTP/1.1 503 "), "{head}");
            assert!(head.contains("\r\nRetry-After: 5") && head.contains("\r\nConnection: close"), "{head}");
            assert!(head.contains(&format!("\r\nContent-Length: {}", body.len())), "{head}");
        }
    }
}
