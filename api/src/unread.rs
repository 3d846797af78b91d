//! Answers a client does not read. Without a bound, a connection that asks for a large answer
//! (`/openapi.json`, a long log) and never reads it holds the answer, a copy of it in the
//! connection's write buffer and its file handle for as long as it stays open: 6,000 of them
//! took the server from 82 MB to 1,463 MB and `/health` to 12.8 s.
//!
//! - **A write timeout** ([`WRITE_TIMEOUT`]): a connection whose client takes not one byte of
//!   what the server writes for that long is dropped ([`TimedStream`]): reset (`RST`), so
//!   that neither the process nor the kernel keeps its unsent bytes.
//! - **Bounded buffers**: an answer is handed to the connection in slices of [`SLICE`] bytes
//!   ([`Unread`]), so a connection's write buffer holds at most the server's write buffer
//!   ([`WRITE_BUFFER`]) and one slice, never a whole answer; and the answers not yet taken
//!   whole by their clients hold at most [`UNREAD_BYTES`] together. An answer that would pass
//!   that bound is not sent: `503 server_busy` with `Retry-After` instead, a small answer.

use crate::problem::HttpError;
use actix_web::body::{BodySize, BoxBody, EitherBody, MessageBody};
use actix_web::dev::{forward_ready, Service, ServiceRequest, ServiceResponse, Transform};
use actix_web::rt::net::TcpStream;
use actix_web::web::Bytes;
use actix_web::ResponseError;
use app::{ApiCode, ApiError};
use futures_util::future::LocalBoxFuture;
use std::future::{ready, Future, Ready};
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// How long a client may take nothing of an answer being written before its connection is
/// dropped.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// The bytes a connection's write buffer fills to before they are written (actix-web's
/// default, said here so that the bound per connection is written in one place).
pub const WRITE_BUFFER: usize = 32 * 1024;
/// The most of an answer handed to its connection at once.
pub const SLICE: usize = 16 * 1024;
/// The bytes of answers not yet taken whole, all connections together.
pub const UNREAD_BYTES: usize = 64 * 1024 * 1024;

/// A client's connection whose writes fail once the client has taken nothing for
/// [`WRITE_TIMEOUT`]: the connection is then reset and dropped.
pub struct TimedStream {
    stream: TcpStream,
    timeout: Duration,
    /// Since when a write has waited for the client, if one waits.
    stalled: Option<Pin<Box<actix_web::rt::time::Sleep>>>,
}

impl TimedStream {
    pub fn new(stream: TcpStream, timeout: Duration) -> TimedStream {
        TimedStream {
            stream,
            timeout,
            stalled: None,
        }
    }

    /// The connection's socket.
    pub fn stream(&self) -> &TcpStream {
        &self.stream
    }

    /// A write waits for the client: fails once it has waited [`WRITE_TIMEOUT`].
    fn waits<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let timeout = self.timeout;
        let stalled = self
            .stalled
            .get_or_insert_with(|| Box::pin(actix_web::rt::time::sleep(timeout)));
        if stalled.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        // Reset rather than closed: a close would leave the unsent bytes in the kernel,
        // waiting for a client that does not read.
        let _ = socket2::SockRef::from(&self.stream).set_linger(Some(Duration::ZERO));
        tracing::info!(
            peer = ?self.stream.peer_addr().ok(),
            "a client took nothing of its answer for {} s: connection dropped",
            timeout.as_secs()
        );
        Poll::Ready(Err(io::Error::new(
            io::ErrorKind::TimedOut,
            "the client read nothing within the write timeout",
        )))
    }

    /// The result of a write or flush of the socket: the wait restarts with any progress.
    fn progress<T>(
        &mut self,
        cx: &mut Context<'_>,
        poll: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        match poll {
            Poll::Ready(result) => {
                self.stalled = None;
                Poll::Ready(result)
            }
            Poll::Pending => self.waits(cx),
        }
    }
}

impl AsyncRead for TimedStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for TimedStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.stream).poll_write(cx, buf);
        this.progress(cx, poll)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.stream).poll_flush(cx);
        this.progress(cx, poll)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// The bytes of answers being sent and not yet taken whole, all connections together.
#[derive(Clone)]
pub struct UnreadBytes {
    held: Arc<AtomicUsize>,
    most: usize,
}

impl UnreadBytes {
    pub fn new(most: usize) -> UnreadBytes {
        UnreadBytes {
            held: Arc::new(AtomicUsize::new(0)),
            most,
        }
    }

    /// Bytes held now.
    pub fn held(&self) -> usize {
        self.held.load(Ordering::Relaxed)
    }

    /// Holds `bytes` for an answer until the share is dropped, if they fit; an answer that
    /// alone passes the bound is held when nothing else is (one answer always goes out).
    pub fn hold(&self, bytes: usize) -> Option<Held> {
        let mut held = self.held.load(Ordering::Relaxed);
        loop {
            if held != 0 && held.saturating_add(bytes) > self.most {
                return None;
            }
            match self.held.compare_exchange_weak(
                held,
                held + bytes,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    return Some(Held {
                        held: Arc::clone(&self.held),
                        bytes,
                    })
                }
                Err(now) => held = now,
            }
        }
    }
}

/// An answer's share of [`UnreadBytes`], given back once the answer is sent or dropped.
pub struct Held {
    held: Arc<AtomicUsize>,
    bytes: usize,
}

impl Drop for Held {
    fn drop(&mut self) {
        self.held.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

/// Hands every answer of a known size to its connection in slices of [`SLICE`], holding its
/// size against [`UnreadBytes`] until it is sent; an answer over that bound is `503`.
pub struct Unread(pub UnreadBytes);

impl<S, B> Transform<S, ServiceRequest> for Unread
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<EitherBody<Sliced, BoxBody>>;
    type Error = actix_web::Error;
    type Transform = UnreadService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, ()>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(UnreadService {
            service,
            unread: self.0.clone(),
        }))
    }
}

pub struct UnreadService<S> {
    service: S,
    unread: UnreadBytes,
}

impl<S, B> Service<ServiceRequest> for UnreadService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<EitherBody<Sliced, BoxBody>>;
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self::Response, Self::Error>>;

    forward_ready!(service);

    fn call(&self, req: ServiceRequest) -> Self::Future {
        let unread = self.unread.clone();
        let answered = self.service.call(req);
        Box::pin(async move {
            let res = answered.await?;
            let size = match res.response().body().size() {
                BodySize::Sized(size) => usize::try_from(size).unwrap_or(usize::MAX),
                // A stream writes its own pieces as they come (events, a backup).
                BodySize::Stream | BodySize::None => 0,
            };
            let held = match size {
                0 => None,
                size => match unread.hold(size) {
                    Some(held) => Some(held),
                    None => {
                        let (req, _) = res.into_parts();
                        let busy = ApiError::new(
                            ApiCode::ServerBusy,
                            "The server holds as many answers not yet read as it may: try again in a moment.",
                        )
                        .with_retry_after(5);
                        let busy = HttpError::from(busy).error_response();
                        return Ok(ServiceResponse::new(req, busy).map_into_right_body());
                    }
                },
            };
            Ok(res
                .map_body(|_, body| Sliced::new(body, held))
                .map_into_left_body())
        })
    }
}

/// An answer's body handed on in slices of at most [`SLICE`] bytes, with its share of
/// [`UnreadBytes`] until it ends or is dropped.
pub struct Sliced {
    body: Option<BoxBody>,
    /// What is left of the last piece taken from the body, to be handed on slice by slice.
    rest: Bytes,
    held: Option<Held>,
}

impl Sliced {
    fn new(body: impl MessageBody + 'static, held: Option<Held>) -> Sliced {
        Sliced {
            body: Some(body.boxed()),
            rest: Bytes::new(),
            held,
        }
    }
}

impl MessageBody for Sliced {
    type Error = Box<dyn std::error::Error>;

    fn size(&self) -> BodySize {
        match &self.body {
            Some(body) => body.size(),
            None => BodySize::Sized(self.rest.len() as u64),
        }
    }

    fn poll_next(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        let this = self.get_mut();
        loop {
            if !this.rest.is_empty() {
                let slice = this.rest.split_to(this.rest.len().min(SLICE));
                return Poll::Ready(Some(Ok(slice)));
            }
            let Some(body) = this.body.as_mut() else {
                this.held = None;
                return Poll::Ready(None);
            };
            match Pin::new(body).poll_next(cx) {
                Poll::Ready(Some(Ok(piece))) => this.rest = piece,
                Poll::Ready(Some(Err(error))) => return Poll::Ready(Some(Err(error))),
                Poll::Ready(None) => this.body = None,
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_not_yet_read_hold_no_more_than_the_bound_together() {
        let unread = UnreadBytes::new(100);
        let first = unread.hold(60).expect("fits");
        assert!(unread.hold(50).is_none(), "60 + 50 > 100");
        let second = unread.hold(40).expect("60 + 40 fits");
        assert_eq!(unread.held(), 100);
        drop(first);
        assert_eq!(unread.held(), 40);
        drop(second);
        // Alone, an answer over the bound still goes out.
        let big = unread.hold(1000).expect("nothing else is held");
        assert!(unread.hold(1).is_none());
        drop(big);
        assert_eq!(unread.held(), 0);
    }
}
