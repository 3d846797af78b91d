//! `/v1/games/{id}/events` (pages, long-poll) and `/v1/games/{id}/stream` (server-sent events):
//! the event log as the caller may see it.

use crate::auth::MaybeAuthenticated;
use crate::problem::{HttpError, Problem};
use crate::state::AppState;
use crate::summary::{events_for, EventOut};
use actix_web::web::Bytes;
use actix_web::{get, web, HttpRequest, HttpResponse};
use app::players::TokenWatch;
use app::ApiError;
use domain::table::Status;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::time::Duration;
use utoipa::{IntoParams, ToSchema};

/// The longest a long-poll waits.
const MAX_WAIT_SECONDS: u64 = 60;
/// How often an idle stream says it is alive.
const KEEPALIVE: Duration = Duration::from_secs(15);

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    /// Events after this version (default 0: from the start).
    pub after: Option<u64>,
    /// At most this many (default 100, at most 1000).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<usize>,
    /// Long-poll: when there is no event after `after`, wait up to this many seconds (at most
    /// 60) for one.
    #[param(maximum = 60)]
    pub wait: Option<u64>,
}

/// A page of the event log, and where the next page begins.
#[derive(Debug, Serialize, ToSchema)]
pub struct EventPage {
    /// The game's version now.
    pub version: u64,
    pub events: Vec<EventOut>,
    /// The cursor of the next page, when the log holds more events after this page: send it
    /// as `after` to get them. `null` when this page reaches the game's version (a long-poll
    /// from `version` waits for what comes next).
    #[schema(required = true)]
    pub next: Option<u64>,
}

/// The event log as the caller may see it, in pages; long-polls with `wait`.
#[utoipa::path(operation_id = "listGameEvents", tag = "events", security(("bearer" = ["read"]), ()),
    params(("id" = String, Path, description = "The game id"), EventsQuery),
    responses(
        (status = 200, description = "The events after `after`, as the token's seat (or a spectator) may see them, and the cursor of the next page (`null` once the page reaches the game's version); with `wait`, answered as soon as there is one, or empty when the wait ran out", body = EventPage),
        (status = 400, description = "`bad_query`: a query parameter that is not understood", body = Problem),
        (status = 401, description = "`unauthorized`: a token that acts for no one, or that was revoked while the request waited", body = Problem), (status = 404, body = Problem),
        (status = 429, description = "`rate_limited`: too many open streams and long-polls for this player (or address); `Retry-After` says when to try again", body = Problem)))]
#[get("/v1/games/{id}/events")]
pub async fn events(
    state: web::Data<AppState>,
    MaybeAuthenticated(player): MaybeAuthenticated,
    id: web::Path<String>,
    query: web::Query<EventsQuery>,
    request: HttpRequest,
) -> Result<HttpResponse, HttpError> {
    let player = player.map(|p| p.id);
    let after = query.after.unwrap_or(0);
    let limit = super::page_size(query.limit, 100, 1000)?;
    let wait = Duration::from_secs(query.wait.unwrap_or(0).min(MAX_WAIT_SECONDS));
    // A long-poll holds a place among the caller's open streams while it waits.
    let _waiting = if wait.is_zero() {
        None
    } else {
        Some(state.limits.stream(&holder(player.as_deref(), &request))?)
    };
    // A token revoked while its request waits ends the wait: nothing more is answered to it.
    let mut watch = token_watch(&state, &request, player.is_some())?;
    let read = state.games.events(&id, after, limit, wait);
    let (slot, envelopes) = match watch.as_mut() {
        None => read.await?,
        Some(watch) => {
            tokio::select! {
                read = read => read?,
                () = watch.revoked(&state.players) => return Err(revoked().into()),
            }
        }
    };
    let slot = slot.lock().await;
    let version = slot.game.facts().version;
    let events = events_for(&slot, player.as_deref(), &envelopes, &state.messages);
    let next = events
        .last()
        .map(|last| last.version)
        .filter(|&last| last < version);
    Ok(HttpResponse::Ok().json(EventPage {
        version,
        events,
        next,
    }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct StreamQuery {
    /// Events after this version (default 0). A `Last-Event-ID` header takes precedence.
    pub after: Option<u64>,
}

struct Streaming {
    state: web::Data<AppState>,
    /// Newline-delimited JSON rather than server-sent events.
    ndjson: bool,
    id: String,
    player: Option<String>,
    after: u64,
    pending: VecDeque<Bytes>,
    finished: bool,
    /// The token the stream was opened with: it ends when the token is revoked.
    watch: Option<TokenWatch>,
    /// The stream's place among the caller's open streams, freed when it ends.
    _permit: app::limits::StreamPermit,
}

/// Follows the request's token, if it came with one (`player`), for its revocation.
fn token_watch(
    state: &AppState,
    request: &HttpRequest,
    player: bool,
) -> Result<Option<TokenWatch>, ApiError> {
    if !player {
        return Ok(None);
    }
    Ok(crate::auth::bearer(request)?.map(|token| state.players.watch(&token)))
}

fn revoked() -> ApiError {
    ApiError::unauthorized("The token of this request was revoked while it waited.")
}

/// The last frame of a stream whose token was revoked.
const REVOKED_FRAME: &[u8] = b"event: token_revoked\ndata: {\"code\":\"unauthorized\"}\n\n";

/// Who holds a stream, for its limit: the player, or without a token the client address.
fn holder(player: Option<&str>, request: &HttpRequest) -> String {
    match player {
        Some(player) => player.to_string(),
        None => format!("address:{}", crate::connections::client_address(request)),
    }
}

fn frame(event: &EventOut, ndjson: bool) -> Bytes {
    let data = serde_json::to_string(event).unwrap_or_else(|_| "null".into());
    if ndjson {
        return Bytes::from(data + "\n");
    }
    Bytes::from(format!(
        "id: {}\nevent: {}\ndata: {data}\n\n",
        event.version, event.event_type
    ))
}

/// The next frames of a stream: new events, or a keep-alive comment after a quiet while.
async fn next_frames(mut s: Streaming) -> Option<(Result<Bytes, ApiError>, Streaming)> {
    loop {
        if let Some(watch) = s.watch.as_mut() {
            if watch.revoked_now(&s.state.players) {
                // Nothing more for this token, not even what was read already.
                s.watch = None;
                s.pending.clear();
                s.finished = true;
                if s.ndjson {
                    return None;
                }
                return Some((Ok(Bytes::from_static(REVOKED_FRAME)), s));
            }
        }
        if let Some(bytes) = s.pending.pop_front() {
            return Some((Ok(bytes), s));
        }
        if s.finished {
            return None;
        }
        let games = &s.state.games;
        let envelopes = match games.events_after(&s.id, s.after, 100) {
            Ok(envelopes) => envelopes,
            Err(error) => {
                return Some((
                    Err(error),
                    Streaming {
                        finished: true,
                        ..s
                    },
                ))
            }
        };
        if envelopes.is_empty() {
            let waited = games.wait_for(&s.id, s.after, KEEPALIVE);
            let head = match s.watch.as_mut() {
                None => waited.await,
                Some(watch) => {
                    tokio::select! {
                        head = waited => head,
                        // Said on the next turn of the loop.
                        () = watch.revoked(&s.state.players) => continue,
                    }
                }
            };
            // The node stops: the stream ends cleanly, and the client reconnects elsewhere.
            if games.stopping() {
                return None;
            }
            if head <= s.after {
                let alive: &'static [u8] = if s.ndjson { b"\n" } else { b": keep-alive\n\n" };
                return Some((Ok(Bytes::from_static(alive)), s));
            }
            continue;
        }
        let slot = match super::current_game(&s.state, &s.id).await {
            Ok(slot) => slot,
            Err(error) => {
                return Some((
                    Err(error),
                    Streaming {
                        finished: true,
                        ..s
                    },
                ))
            }
        };
        let slot = slot.lock().await;
        let before = s.after;
        for event in events_for(&slot, s.player.as_deref(), &envelopes, &s.state.messages) {
            s.after = event.version;
            s.pending.push_back(frame(&event, s.ndjson));
        }
        // Once the game is over and everything is sent, the stream ends.
        s.finished =
            slot.game.facts().status == Status::Finished && s.after >= slot.game.facts().version;
        drop(slot);
        if s.after == before {
            // The store showed a batch whose flush is still under way: wait for the disk.
            actix_web::rt::time::sleep(Duration::from_millis(2)).await;
        }
    }
}

/// Server-sent events of the event log as the caller may see it, each event once and in order
/// (`id` is the version; reconnect with `Last-Event-ID`). Ends once the game is over, or at once
/// when the token it was opened with is revoked (with a last `token_revoked` event). The same
/// as one JSON object a line: `GET /v1/games/{id}/stream.ndjson`.
#[utoipa::path(operation_id = "streamGameEvents", tag = "events", security(("bearer" = ["read"]), ()),
    params(("id" = String, Path, description = "The game id"), StreamQuery,
        ("Last-Event-ID" = Option<String>, Header, description = "The `id` of the last event received (its version): the stream goes on after it. Takes precedence over `after`; browsers' `EventSource` sends it by itself when it reconnects. A value that is not a version is ignored")),
    responses(
        (status = 200, description = "Server-sent events, one per stored event as the caller may see it: `id:` its version, `event:` its type, `data:` one `EventOut` as JSON. A comment (`: keep-alive`) comes after 15 quiet seconds; the stream ends once the game is over and every event is sent", content_type = "text/event-stream", body = EventOut,
            headers(("Cache-Control" = String, description = "`no-cache`"))),
        (status = 400, description = "`bad_query`: a query parameter that is not understood", body = Problem),
        (status = 401, body = Problem), (status = 404, body = Problem),
        (status = 429, description = "`rate_limited`: too many open streams and long-polls for this player (or address); `Retry-After` says when to try again", body = Problem)))]
#[get("/v1/games/{id}/stream")]
pub async fn stream(
    state: web::Data<AppState>,
    MaybeAuthenticated(player): MaybeAuthenticated,
    id: web::Path<String>,
    query: web::Query<StreamQuery>,
    request: HttpRequest,
) -> Result<HttpResponse, HttpError> {
    open(state, player, id.into_inner(), &query, &request, false)
}

/// The event log as the caller may see it, live, as newline-delimited JSON: one `EventOut` a
/// line, each event once and in order (resume with `after`, the last version received), for
/// clients that read lines rather than server-sent events. Ends once the game is over, or at
/// once when the token it was opened with is revoked.
#[utoipa::path(operation_id = "streamGameEventsNdjson", tag = "events", security(("bearer" = ["read"]), ()),
    params(("id" = String, Path, description = "The game id"), StreamQuery),
    responses(
        (status = 200, description = "One `EventOut` a line, one per stored event as the caller may see it; an empty line after 15 quiet seconds keeps the connection open. The stream ends once the game is over and every event is sent, or at once when the token is revoked (the next request with it answers 401)", content_type = "application/x-ndjson", body = EventOut,
            headers(("Cache-Control" = String, description = "`no-cache`"))),
        (status = 400, description = "`bad_query`: a query parameter that is not understood", body = Problem),
        (status = 401, body = Problem), (status = 404, body = Problem),
        (status = 429, description = "`rate_limited`: too many open streams and long-polls for this player (or address); `Retry-After` says when to try again", body = Problem)))]
#[get("/v1/games/{id}/stream.ndjson")]
pub async fn stream_ndjson(
    state: web::Data<AppState>,
    MaybeAuthenticated(player): MaybeAuthenticated,
    id: web::Path<String>,
    query: web::Query<StreamQuery>,
    request: HttpRequest,
) -> Result<HttpResponse, HttpError> {
    open(state, player, id.into_inner(), &query, &request, true)
}

/// Opens a game's stream for `player` (if any), as server-sent events or as lines (`ndjson`).
fn open(
    state: web::Data<AppState>,
    player: Option<app::players::Player>,
    id: String,
    query: &StreamQuery,
    request: &HttpRequest,
    ndjson: bool,
) -> Result<HttpResponse, HttpError> {
    state.games.slot(&id)?;
    let player = player.map(|p| p.id);
    let permit = state.limits.stream(&holder(player.as_deref(), request))?;
    let watch = token_watch(&state, request, player.is_some())?;
    let last_event_id = request
        .headers()
        .get("Last-Event-ID")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let streaming = Streaming {
        state: state.clone(),
        ndjson,
        id,
        player,
        after: last_event_id.or(query.after).unwrap_or(0),
        pending: VecDeque::new(),
        finished: false,
        watch,
        _permit: permit,
    };
    Ok(HttpResponse::Ok()
        .content_type(if ndjson {
            super::notices::NDJSON
        } else {
            super::notices::EVENT_STREAM
        })
        .insert_header(("Cache-Control", "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(futures_util::stream::unfold(streaming, next_frames)))
}
