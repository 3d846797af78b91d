//! What one client may hold of the server: connections per address, a reserve of file handles
//! kept free for everyone else, and the time a request's head and body may take to arrive.
//! Without them a client sending one byte a second (or many such clients from one machine)
//! keeps sockets open without end, until the process runs out of file handles and cannot
//! accept even `/health`.
//!
//! - The head must arrive within [`HEAD_TIMEOUT`] (actix's client request timeout), the body
//!   within [`BODY_TIMEOUT`] of the head ([`BodyDeadline`]); then the request is answered
//!   `408` and the connection closed.
//! - An address holds at most `connections_per_address` connections (trusted proxies are not
//!   counted: they carry many clients); one more is answered `429` and closed at once, before
//!   anything is read from it.
//! - The process raises its soft limit of open files to the hard one, and keeps a reserve of
//!   them: above `soft` open connections a new one is kept only from an address that holds
//!   none yet (the health checker of a load balancer, a player arriving), above `hard` none.

use crate::problem::HttpStatus;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{
    forward_ready, Extensions, Payload, Service, ServiceRequest, ServiceResponse, Transform,
};
use actix_web::error::PayloadError;
use actix_web::http::ConnectionType;
use actix_web::web::Bytes;
use actix_web::HttpMessage;
use app::limits::{address_key, forwarded_client, is_trusted_proxy};
use app::ApiCode;
use futures_util::future::LocalBoxFuture;
use futures_util::Stream;
use ipnet::IpNet;
use std::cell::Cell;
use std::collections::HashMap;
use std::future::{ready, Future, Ready};
use std::net::IpAddr;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

/// The time a request's head may take to arrive, from the connection's start (or the end of
/// its previous request).
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(5);
/// The time a request's body may take to arrive, from the end of its head, plus a second for
/// each [`BODY_BYTES_A_SECOND`] received (an import of several MiB on a slow line): a body of
/// 64 KiB, the most a command takes, has 11 s.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// See [`BODY_TIMEOUT`].
pub const BODY_BYTES_A_SECOND: u64 = 64 * 1024;
/// The time given to a client to take the end of an answer before its connection is cut.
pub const DISCONNECT_TIMEOUT: Duration = Duration::from_secs(1);

/// The open connections of this server, by client address.
pub struct Connections {
    per_address: usize,
    soft: usize,
    hard: usize,
    trusted: Vec<IpNet>,
    open: Mutex<HashMap<String, usize>>,
    total: AtomicUsize,
}

/// File handles kept for everything but client connections (the store's files, the database
/// connections, webhooks' and mail's sockets, the log).
const HANDLES_FOR_THE_PROCESS: usize = 256;

impl Connections {
    /// Counts connections with at most `per_address` from one address (0: no such limit),
    /// within the process's limit of open files (raised to its hard limit here).
    pub fn new(per_address: usize, trusted: Vec<IpNet>) -> Arc<Connections> {
        let files = raise_open_files_limit();
        let hard = files.saturating_sub(HANDLES_FOR_THE_PROCESS).max(16);
        // A tenth of the rest for newcomers while the others are taken.
        let soft = hard - hard / 10;
        Arc::new(Connections {
            per_address,
            soft,
            hard,
            trusted,
            open: Mutex::new(HashMap::new()),
            total: AtomicUsize::new(0),
        })
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        self.total.load(Ordering::Relaxed)
    }

    /// Called by the server for each connection accepted: counts it (until the connection
    /// ends), or answers it `429`/`503` and closes it at once.
    pub fn accept(self: &Arc<Self>, stream: &actix_web::rt::net::TcpStream, data: &mut Extensions) {
        let Ok(peer) = stream.peer_addr() else {
            return;
        };
        let trusted = is_trusted_proxy(peer.ip(), &self.trusted);
        let key = address_key(peer.ip());
        let refusal = {
            let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
            let held = open.get(&key).copied().unwrap_or(0);
            let total = self.total.load(Ordering::Relaxed);
            let refusal = if total >= self.hard || (total >= self.soft && held > 0) {
                Some(Refusal::Busy)
            } else if !trusted && self.per_address != 0 && held >= self.per_address {
                Some(Refusal::TooMany(held))
            } else {
                None
            };
            if refusal.is_none() {
                *open.entry(key.clone()).or_insert(0) += 1;
                self.total.fetch_add(1, Ordering::Relaxed);
            }
            refusal
        };
        match refusal {
            None => {
                data.insert(Held {
                    connections: Arc::clone(self),
                    key,
                });
            }
            Some(refusal) => {
                tracing::warn!(address = %key, ?refusal, "connection refused");
                refuse(stream, refusal);
            }
        }
    }
}

#[derive(Debug)]
enum Refusal {
    /// The address holds this many already.
    TooMany(usize),
    /// The server's file handles are nearly all taken.
    Busy,
}

/// Answers a connection refused before anything was read from it, and closes it. The socket
/// is fresh and the answer small: it fits in the socket's send buffer at once.
fn refuse(stream: &actix_web::rt::net::TcpStream, refusal: Refusal) {
    let (code, limit, detail, retry) = match refusal {
        Refusal::TooMany(held) => (
            ApiCode::RateLimited,
            "connections_per_address",
            format!("Your address holds {held} connections to this server already, the most one address may: close some first."),
            5,
        ),
        Refusal::Busy => (
            ApiCode::ServerBusy,
            "open_connections",
            "The server holds as many connections as it can: try again in a moment.".to_string(),
            5,
        ),
    };
    let status = code.status();
    let title = status.canonical_reason().unwrap_or_default();
    let body = serde_json::json!({
        "type": "about:blank",
        "title": title,
        "status": status.as_u16(),
        "code": code,
        "detail": detail,
        "details": {"limit": limit, "retry_after_seconds": retry},
    })
    .to_string();
    let answer = format!(
        "HTTP/1.1 {} {title}\r\nContent-Type: application/problem+json\r\nContent-Length: {}\r\nRetry-After: {retry}\r\nConnection: close\r\n\r\n{body}",
        status.as_u16(),
        body.len()
    );
    let socket = socket2::SockRef::from(stream);
    // Best effort: a client that cannot take the answer is closed all the same.
    let _ = socket.send(answer.as_bytes());
    let _ = socket.shutdown(std::net::Shutdown::Both);
}

/// A counted connection; it leaves the count when the connection ends (the server drops a
/// connection's data with it).
struct Held {
    connections: Arc<Connections>,
    key: String,
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut open = self
            .connections
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = open.get_mut(&self.key) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.remove(&self.key);
            }
        }
        self.connections.total.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Raises the soft limit of open files to the hard one; returns the limit in force.
fn raise_open_files_limit() -> usize {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct it is given, which lives on this stack frame.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return 1024;
    }
    if limit.rlim_cur < limit.rlim_max {
        let raised = libc::rlimit {
            rlim_cur: limit.rlim_max,
            rlim_max: limit.rlim_max,
        };
        // SAFETY: setrlimit only reads the struct it is given.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            limit.rlim_cur = limit.rlim_max;
        }
    }
    usize::try_from(limit.rlim_cur)
        .unwrap_or(usize::MAX)
        .min(1 << 24)
}

/// Bounds the time a request's body takes to arrive to [`BODY_TIMEOUT`]: past it, reading
/// the body fails (the handler answers `408 request_timeout`) and the connection is closed.
pub struct BodyDeadline;

impl<S, B> Transform<S, ServiceRequest> for BodyDeadline
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<EitherBody<B>>;
    type Error = actix_web::Error;
    type Transform = BodyDeadlineService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, ()>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(BodyDeadlineService { service }))
    }
}

pub struct BodyDeadlineService<S> {
    service: S,
}

impl<S, B> Service<ServiceRequest> for BodyDeadlineService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<EitherBody<B>>;
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self::Response, Self::Error>>;

    forward_ready!(service);

    fn call(&self, mut req: ServiceRequest) -> Self::Future {
        let late = Rc::new(Cell::new(false));
        let payload = req.take_payload();
        let start = actix_web::rt::time::Instant::now();
        req.set_payload(Payload::from(Box::pin(DeadlinePayload {
            inner: payload,
            start,
            received: 0,
            deadline: Box::pin(actix_web::rt::time::sleep_until(start + BODY_TIMEOUT)),
            late: Rc::clone(&late),
        })
            as Pin<Box<dyn Stream<Item = Result<Bytes, PayloadError>>>>));
        let future = self.service.call(req);
        Box::pin(async move {
            let mut res = future.await?;
            if late.get() {
                // The rest of the body may never come: nothing more is read from this client.
                res.response_mut()
                    .head_mut()
                    .set_connection_type(ConnectionType::Close);
            }
            Ok(res.map_into_left_body())
        })
    }
}

/// A request body that fails once its deadline passed.
struct DeadlinePayload {
    inner: Payload,
    start: actix_web::rt::time::Instant,
    received: u64,
    deadline: Pin<Box<actix_web::rt::time::Sleep>>,
    late: Rc<Cell<bool>>,
}

/// The error a body read past its deadline fails with.
pub fn is_late_body(error: &PayloadError) -> bool {
    matches!(error, PayloadError::Io(io) if io.kind() == std::io::ErrorKind::TimedOut)
}

impl Stream for DeadlinePayload {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.late.get() {
            return Poll::Ready(None);
        }
        if let Poll::Ready(item) = Pin::new(&mut this.inner).poll_next(cx) {
            if let Some(Ok(chunk)) = &item {
                this.received += chunk.len() as u64;
                let more = Duration::from_millis(this.received * 1000 / BODY_BYTES_A_SECOND);
                this.deadline
                    .as_mut()
                    .reset(this.start + BODY_TIMEOUT + more);
            }
            return Poll::Ready(item);
        }
        if this.deadline.as_mut().poll(cx).is_ready() {
            this.late.set(true);
            return Poll::Ready(Some(Err(PayloadError::Io(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!(
                    "the body did not arrive within {} s",
                    BODY_TIMEOUT.as_secs()
                ),
            )))));
        }
        Poll::Pending
    }
}

/// The key of the limits counted per client address, for the address a request came from:
/// the peer's, or when the peer is a trusted proxy the client it names (see
/// [`forwarded_client`]); an IPv6 address by its /64.
pub fn client_address(request: &actix_web::HttpRequest) -> String {
    let Some(peer) = request.peer_addr().map(|peer| peer.ip()) else {
        return "unknown".to_string();
    };
    let trusted = request
        .app_data::<actix_web::web::Data<crate::state::AppState>>()
        .map(|state| state.limits.settings.trusted_proxies.as_slice())
        .unwrap_or_default();
    let forwarded = request
        .headers()
        .get_all("X-Forwarded-For")
        .filter_map(|value| value.to_str().ok());
    address_key(forwarded_client(peer, forwarded, trusted))
}

/// The client an operator's request (on the admin listener) comes from: its peer, or behind
/// one of the `trusted` proxies the client the proxy names. `None` for a request that names a
/// client it was forwarded for (`X-Forwarded-For`, `Forwarded`, `X-Real-IP`) from a peer that
/// is no trusted proxy: a proxy nobody declared, whose own address (often this machine's)
/// would stand for every client behind it.
pub fn operator_client(request: &actix_web::HttpRequest, trusted: &[IpNet]) -> Option<IpAddr> {
    let peer = request.peer_addr()?.ip();
    let headers = request.headers();
    let forwarded = ["x-forwarded-for", "forwarded", "x-real-ip"]
        .iter()
        .any(|name| headers.contains_key(*name));
    if !forwarded {
        return Some(peer);
    }
    if !is_trusted_proxy(peer, trusted) {
        return None;
    }
    let named = headers
        .get_all("X-Forwarded-For")
        .filter_map(|value| value.to_str().ok());
    let client = forwarded_client(peer, named, trusted);
    // A trusted proxy that names no client but itself (only `Forwarded` or `X-Real-IP`, which
    // are not read): who is behind it is unknown.
    (client != peer || headers.contains_key("x-forwarded-for")).then_some(client)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_operators_request_through_a_proxy_is_judged_by_its_client() {
        let proxy: IpNet = "127.0.0.1/32".parse().unwrap();
        let from = |peer: &str, headers: &[(&str, &str)]| {
            let mut request = actix_web::test::TestRequest::default()
                .peer_addr(format!("{peer}:5000").parse().unwrap());
            for header in headers {
                request = request.insert_header(*header);
            }
            request.to_http_request()
        };
        let local: IpAddr = "127.0.0.1".parse().unwrap();
        let far: IpAddr = "8.8.8.8".parse().unwrap();
        assert_eq!(operator_client(&from("127.0.0.1", &[]), &[]), Some(local));
        // The attack: a proxy on this machine, not declared, forwards a far client.
        let forwarded = from("127.0.0.1", &[("x-forwarded-for", "8.8.8.8")]);
        assert_eq!(operator_client(&forwarded, &[]), None);
        // Declared: the client it names is judged.
        assert_eq!(operator_client(&forwarded, &[proxy]), Some(far));
        let real_ip = from("127.0.0.1", &[("x-real-ip", "8.8.8.8")]);
        assert_eq!(operator_client(&real_ip, &[proxy]), None);
        let allowed = app::limits::LimitSettings {
            metrics_allowed: vec![proxy],
            ..app::limits::LimitSettings::default()
        };
        assert!(!app::limits::may_take_backup(
            &allowed,
            operator_client(&forwarded, &[proxy]),
            None
        ));
        assert!(!app::limits::may_read_metrics(
            &allowed,
            operator_client(&forwarded, &[]),
            None
        ));
    }
}
