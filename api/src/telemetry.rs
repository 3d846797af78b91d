//! Logs a person can follow, and the id that ties an answer to its log lines.
//!
//! `RUST_LOG` sets the level (default `info`); `--log-format json` writes one JSON object a
//! line (tracing's JSON formatter) instead of text. Colours only on a terminal: a log written to
//! a file or a journal carries no escape codes.
//!
//! Every request has an id: the client's `X-Request-Id` when it sends a usable one (1 to 128
//! visible ASCII characters), a fresh random one otherwise. It is in the answer's
//! `X-Request-Id` header, in every log line written while the request is served (the
//! `request` span's `id` field) and in every problem body (`request_id`), so a player's
//! screenshot of an error leads to its log lines.

use std::io::IsTerminal;
use std::sync::Arc;

/// How log lines are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// One line of text an event, with its spans' fields.
    #[default]
    Text,
    /// One JSON object a line, with the current span's fields and the span list.
    Json,
}

/// Installs the global subscriber (once; later calls change nothing).
pub fn init(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    let _ = match format {
        LogFormat::Text => builder
            .with_ansi(std::io::stdout().is_terminal())
            .try_init(),
        LogFormat::Json => builder
            .json()
            .with_current_span(true)
            .with_span_list(true)
            .try_init(),
    };
}

/// The header that carries a request's id, both ways.
pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// The longest request id taken from a client.
const REQUEST_ID_MAX: usize = 128;

tokio::task_local! {
    /// The id of the request being served by the current task.
    static REQUEST_ID: Arc<str>;
}

/// The id of the request the current task serves, if it serves one.
pub fn current_request_id() -> Option<String> {
    REQUEST_ID.try_with(|id| id.to_string()).ok()
}

/// The client's id when it is usable in a header and a log line, else a fresh one.
fn request_id_of(sent: Option<&str>) -> Arc<str> {
    match sent {
        Some(id)
            if !id.is_empty()
                && id.len() <= REQUEST_ID_MAX
                && id.bytes().all(|b| b.is_ascii_graphic()) =>
        {
            Arc::from(id)
        }
        _ => Arc::from(fresh_request_id()),
    }
}

/// 16 random hexadecimal digits; a process-wide counter if the system gives no random bytes.
fn fresh_request_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    app::randomness::random_hex::<8>()
        .unwrap_or_else(|_| format!("n{:015x}", COUNTER.fetch_add(1, Ordering::Relaxed)))
}

/// Masks the password of every URL in `text` (`scheme://user:password@host`), so that
/// settings can be logged whatever fields they hold.
pub fn without_passwords(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (before, after) = rest.split_at(at + 3);
        out.push_str(before);
        // The authority ends at the first '/', whitespace or quote.
        let end = after
            .find(|c: char| c == '/' || c == '"' || c == '\'' || c.is_whitespace())
            .unwrap_or(after.len());
        let authority = &after[..end];
        match (authority.rfind('@'), authority.find(':')) {
            (Some(at), Some(colon)) if colon < at => {
                out.push_str(&authority[..colon]);
                out.push_str(":****");
                out.push_str(&authority[at..]);
            }
            _ => out.push_str(authority),
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// Gives each request its id and span, logs it, and counts it in the node's metrics (a posted
/// command also as a command, with its latency).
pub mod request_span {
    use actix_web::body::MessageBody;
    use actix_web::dev::{forward_ready, Service, ServiceRequest, ServiceResponse, Transform};
    use actix_web::http::header::{HeaderName, HeaderValue};
    use futures_util::future::LocalBoxFuture;
    use std::borrow::Cow;
    use std::future::{ready, Ready};
    use std::sync::Arc;
    use std::time::Instant;
    use tracing::Instrument;

    use super::{request_id_of, REQUEST_ID, REQUEST_ID_HEADER};
    use app::metrics::{Metrics, Outcome};

    /// The route commands are posted to.
    const COMMANDS: &str = "/v1/games/{id}/commands";
    /// The route of the legal list.
    const LEGAL: &str = "/v1/games/{id}/legal";

    /// The game id a path is about, if any.
    fn game_of(path: &str) -> &str {
        path.strip_prefix("/v1/games/")
            .and_then(|rest| rest.split('/').next())
            .unwrap_or("")
    }

    /// The route pattern of the two busiest routes, read from the path: what
    /// `match_pattern` gives for them, without matching the path against every resource's
    /// regular expression a second time (the router has matched it once already).
    fn busy_route(path: &str) -> Option<&'static str> {
        let (id, tail) = path.strip_prefix("/v1/games/")?.split_once('/')?;
        if id.is_empty() {
            return None;
        }
        match tail {
            "commands" => Some(COMMANDS),
            "legal" => Some(LEGAL),
            _ => None,
        }
    }

    /// The outermost middleware: everything inside runs with the request's id.
    pub struct RequestSpan(pub Arc<Metrics>);

    impl<S, B> Transform<S, ServiceRequest> for RequestSpan
    where
        S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error>
            + 'static,
        B: MessageBody + 'static,
    {
        type Response = ServiceResponse<B>;
        type Error = actix_web::Error;
        type Transform = RequestSpanService<S>;
        type InitError = ();
        type Future = Ready<Result<Self::Transform, ()>>;

        fn new_transform(&self, service: S) -> Self::Future {
            ready(Ok(RequestSpanService {
                service,
                metrics: self.0.clone(),
            }))
        }
    }

    pub struct RequestSpanService<S> {
        service: S,
        metrics: Arc<Metrics>,
    }

    impl<S, B> Service<ServiceRequest> for RequestSpanService<S>
    where
        S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error>
            + 'static,
        B: MessageBody + 'static,
    {
        type Response = ServiceResponse<B>;
        type Error = actix_web::Error;
        type Future = LocalBoxFuture<'static, Result<Self::Response, Self::Error>>;

        forward_ready!(service);

        fn call(&self, req: ServiceRequest) -> Self::Future {
            let id = request_id_of(
                req.headers()
                    .get(REQUEST_ID_HEADER)
                    .and_then(|value| value.to_str().ok()),
            );
            // The fields are only written when the span is enabled (at `info`).
            let span = tracing::info_span!("request", id = %id, method = %req.method(),
                path = %req.path(), game = %game_of(req.path()));
            let method = req.method().clone();
            // The pattern, not the path: ids never become labels.
            let route: Cow<'static, str> = match busy_route(req.path()) {
                Some(route) => Cow::Borrowed(route),
                None => Cow::Owned(
                    req.match_pattern()
                        .unwrap_or_else(|| "unmatched".to_string()),
                ),
            };
            let metrics = self.metrics.clone();
            let started = Instant::now();
            let header = HeaderValue::from_str(&id).ok();
            // The call and the future it gives both run with the id: a problem body made
            // inside names the request.
            let call = REQUEST_ID.sync_scope(id.clone(), || self.service.call(req));
            let future = REQUEST_ID.scope(id, call);
            Box::pin(
                async move {
                    let result = future.await;
                    let elapsed = started.elapsed();
                    let micros = elapsed.as_micros() as u64;
                    let status = match &result {
                        Ok(res) => {
                            tracing::info!(status = res.status().as_u16(), micros, "answered");
                            res.status().as_u16()
                        }
                        Err(error) => {
                            tracing::warn!(%error, micros, "failed");
                            error.as_response_error().status_code().as_u16()
                        }
                    };
                    metrics.request(method.as_str(), &route, status, elapsed);
                    if method == actix_web::http::Method::POST && route == COMMANDS {
                        let outcome = match status {
                            200..=299 => Outcome::Played,
                            500.. => Outcome::Failed,
                            _ => Outcome::Refused,
                        };
                        metrics.command(outcome, elapsed);
                    }
                    result.map(|mut res| {
                        if let Some(header) = header {
                            res.headers_mut()
                                .insert(HeaderName::from_static(REQUEST_ID_HEADER), header);
                        }
                        res
                    })
                }
                .instrument(span),
            )
        }
    }
}
