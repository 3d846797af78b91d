//! `GET /v1/players/me/stream`: one stream of everything that concerns a player, across all
//! their games, as newline-delimited JSON (`application/x-ndjson`, the default) or as
//! server-sent events (`text/event-stream`, when the request's `Accept` asks for it). Each
//! line is a notice derived where webhooks and mail derive theirs ([`app::notices`]),
//! with its cursor; a `keep_alive` line comes at once and after every quiet
//! [`KEEPALIVE`]; a revoked token ends it with a `token_revoked` line, a stopping node ends it
//! cleanly.

use crate::auth::{Authenticated, READ};
use crate::problem::{HttpError, Problem};
use crate::state::AppState;
use actix_web::web::Bytes;
use actix_web::{get, web, HttpRequest, HttpResponse};
use app::notices::{Cursor, Follower, Told};
use app::players::TokenWatch;
use app::webhooks::notification::Notification;
use app::{ApiCode, ApiError};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::time::{Duration, Instant};
use utoipa::IntoParams;

/// How often a quiet stream says it is alive (a `keep_alive` line).
pub const KEEPALIVE: Duration = Duration::from_secs(15);
/// How long a stream waits before reading the log again after the store failed to answer.
const RETRY: Duration = Duration::from_secs(1);

pub const NDJSON: &str = "application/x-ndjson";
pub const EVENT_STREAM: &str = "text/event-stream";

/// The media type among `offered` that the request's `Accept` prefers (by its `q`, then by
/// its order), or `default` when it names none of them (or names none at all).
pub fn negotiate<'a>(request: &HttpRequest, offered: &[&'a str], default: &'a str) -> &'a str {
    let Some(accept) = request
        .headers()
        .get(actix_web::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
    else {
        return default;
    };
    let mut best: Option<(f32, &'a str)> = None;
    for part in accept.split(',') {
        let mut pieces = part.split(';');
        let media = pieces
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        let q = pieces
            .filter_map(|p| p.trim().strip_prefix("q="))
            .find_map(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        if q <= 0.0 {
            continue;
        }
        if let Some(found) = offered.iter().find(|o| **o == media) {
            if best.is_none_or(|(best_q, _)| q > best_q) {
                best = Some((q, found));
            }
        }
    }
    best.map_or(default, |(_, found)| found)
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct MyStreamQuery {
    /// Resume after this cursor: the `cursor` of the last line received (`keep_alive` lines
    /// carry one too). `0` replays every notice from the start of the log. Without it (and
    /// without `Last-Event-ID`), the stream begins now. A `Last-Event-ID` header takes
    /// precedence.
    #[param(pattern = r"^[0-9]{1,20}(\.[0-9]{1,20})?$")]
    pub after: Option<String>,
}

/// A line that is not a notice: `keep_alive` or `token_revoked`.
#[derive(Serialize)]
struct Signal<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    cursor: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    code: Option<&'a str>,
}

/// A notice as a line: the notice and its cursor.
#[derive(Serialize)]
struct NoticeLine<'a> {
    #[serde(flatten)]
    notice: &'a Notification,
    cursor: String,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Ndjson,
    EventStream,
}

impl Format {
    /// One line in this format: `json` of type `kind` with its `cursor`.
    fn frame(self, kind: &str, cursor: &str, json: String) -> Bytes {
        match self {
            Format::Ndjson => Bytes::from(json + "\n"),
            Format::EventStream => {
                Bytes::from(format!("id: {cursor}\nevent: {kind}\ndata: {json}\n\n"))
            }
        }
    }

    fn signal(self, kind: &str, cursor: Cursor, code: Option<&str>) -> Bytes {
        let cursor = cursor.to_string();
        let json = serde_json::to_string(&Signal {
            kind,
            cursor: cursor.clone(),
            code,
        })
        .unwrap_or_default();
        self.frame(kind, &cursor, json)
    }

    fn notice(self, told: &Told) -> Bytes {
        let cursor = told.cursor.to_string();
        let json = serde_json::to_string(&NoticeLine {
            notice: &told.notice,
            cursor: cursor.clone(),
        })
        .unwrap_or_default();
        self.frame(told.notice.kind_of_notification.as_str(), &cursor, json)
    }
}

struct Following {
    state: web::Data<AppState>,
    /// `None` only while a page is read on the blocking pool.
    follower: Option<Follower>,
    format: Format,
    pending: VecDeque<Bytes>,
    finished: bool,
    watch: TokenWatch,
    positions: tokio::sync::watch::Receiver<u64>,
    /// Whether the last wait ended because the log moved on.
    woken: bool,
    /// When the last line was sent.
    last_line: Instant,
    /// The stream's place among the player's open streams, freed when it ends.
    _permit: app::limits::StreamPermit,
}

impl Following {
    fn cursor(&self) -> Cursor {
        self.follower
            .as_ref()
            .map_or(Cursor::at(0), Follower::cursor)
    }
}

/// Reads the next page of the log on the blocking pool (a database store answers there).
async fn read_page(s: &mut Following) -> Result<Option<Vec<Told>>, String> {
    let Some(mut follower) = s.follower.take() else {
        return Err("the stream lost its place".into());
    };
    let state = s.state.clone();
    let read = web::block(move || {
        let page = follower.next_page(&state.games);
        (follower, page)
    })
    .await;
    match read {
        Ok((follower, page)) => {
            s.follower = Some(follower);
            page
        }
        Err(error) => Err(error.to_string()),
    }
}

/// The next lines of a stream: notices, a keep-alive after a quiet while, or its end.
async fn next_lines(mut s: Following) -> Option<(Result<Bytes, ApiError>, Following)> {
    loop {
        if s.watch.revoked_now(&s.state.players) {
            // Nothing more for this token, not even what was read already.
            if s.finished {
                return None;
            }
            s.pending.clear();
            s.finished = true;
            let line = s
                .format
                .signal("token_revoked", s.cursor(), Some("unauthorized"));
            return Some((Ok(line), s));
        }
        if let Some(bytes) = s.pending.pop_front() {
            s.last_line = Instant::now();
            return Some((Ok(bytes), s));
        }
        if s.finished || s.state.games.stopping() {
            return None;
        }
        match read_page(&mut s).await {
            Ok(Some(told)) => {
                s.woken = false;
                for told in &told {
                    s.pending.push_back(s.format.notice(told));
                }
                if told.is_empty() && s.last_line.elapsed() >= KEEPALIVE {
                    // A long way through the log with nothing for the player (resumed from
                    // far back): said, with how far it has looked.
                    let line = s.format.signal("keep_alive", s.cursor(), None);
                    s.pending.push_back(line);
                }
                continue;
            }
            Ok(None) if s.woken => {
                // Told the log moved, yet nothing to read past the cursor: a flush still under
                // way. A moment, rather than waking again at once.
                s.woken = false;
                actix_web::rt::time::sleep(Duration::from_millis(5)).await;
                continue;
            }
            Ok(None) => {}
            Err(error) => {
                tracing::warn!(%error, "a player's stream cannot read the log: trying again");
                // A stream that lost its place (the blocking pool failed) ends.
                s.follower.as_ref()?;
                actix_web::rt::time::sleep(RETRY).await;
                continue;
            }
        }
        // Nothing after the cursor yet: wait for the log to move on.
        let position = s.cursor().position;
        let state = s.state.clone();
        let mut positions = s.positions.clone();
        let moved = tokio::select! {
            moved = tokio::time::timeout(KEEPALIVE, positions.wait_for(|&p| p > position)) => moved,
            // Said on the next turn of the loop.
            () = s.watch.revoked(&state.players) => continue,
            // The node stops: the stream ends cleanly, and the client reconnects elsewhere.
            () = state.games.stopped() => return None,
        };
        match moved {
            Ok(Ok(_)) => {
                s.woken = true;
                continue;
            }
            Ok(Err(_)) => return None, // the store is gone: the node stops
            Err(_) => {
                s.last_line = Instant::now();
                let line = s.format.signal("keep_alive", s.cursor(), None);
                return Some((Ok(line), s));
            }
        }
    }
}

/// Whether `cursor` lies past the end of the log: it names a position (or a batch) that holds
/// no event yet. `end` is the last durable position this node knows of; on a store other
/// nodes share, one of them may have given a cursor past it a moment ago, so the log itself
/// is asked before the cursor is called ahead.
async fn is_ahead(state: &web::Data<AppState>, cursor: Cursor, end: u64) -> Result<bool, ApiError> {
    // The position the cursor says was reached: its batch's first one when part of a batch
    // was sent.
    let reached = cursor.position.saturating_add(u64::from(cursor.sent > 0));
    if reached <= end {
        return Ok(false);
    }
    let state = state.clone();
    let found = web::block(move || state.games.log_after(reached - 1, 1))
        .await
        .map_err(ApiError::internal)??;
    Ok(found.is_empty())
}

/// One stream of every notice for me, across all my games: newline-delimited JSON by default,
/// server-sent events when `Accept: text/event-stream`. Each line is a `PlayerStreamLine`: a
/// notice (`game_started`, `your_turn`, `opponent_moved`, `draw_offered`,
/// `takeback_requested`, `takeback_withdrawn`, `game_finished`, `clock_low`, ...; of my
/// tournaments `round_paired`, `round_closed`, `tournament_finished`, `next_edition`) with the
/// game's (or tournament's) id, kind and version and the line's `cursor`, or a `keep_alive` (at once, then after every
/// 15 quiet seconds), or a last `token_revoked` when the token it was opened with is revoked.
#[utoipa::path(operation_id = "streamMyNotices", tag = "events", security(("bearer" = ["read"])),
    params(MyStreamQuery,
        ("Last-Event-ID" = Option<String>, Header, description = "The cursor of the last line received (the `id:` of server-sent events): the stream goes on after it. Takes precedence over `after`; browsers' `EventSource` sends it by itself when it reconnects")),
    responses(
        (status = 200, description = "My notices as they happen, in the order of the log, each once: one `PlayerStreamLine` a line (`application/x-ndjson`), or one server-sent event each (`text/event-stream`: `id:` the cursor, `event:` the type, `data:` the line). A `keep_alive` line comes at once and after every 15 quiet seconds; the stream ends when the token is revoked (a last `token_revoked` line) or the server stops (reconnect with the last cursor)",
            content((Notification = "application/x-ndjson"), (Notification = "text/event-stream")),
            headers(("Cache-Control" = String, description = "`no-cache`"))),
        (status = 400, description = "`bad_query`: a query parameter that is not understood, or a cursor that is not one", body = Problem),
        (status = 401, body = Problem),
        (status = 409, description = "`cursor_ahead`: the cursor is past the end of the log, so this server never gave it; `details.end` is the cursor of the end now", body = Problem),
        (status = 429, description = "`rate_limited`: too many open streams and long-polls for this player; `Retry-After` says when to try again", body = Problem)))]
#[get("/v1/players/me/stream")]
pub async fn my_stream(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<READ>,
    query: web::Query<MyStreamQuery>,
    request: HttpRequest,
) -> Result<HttpResponse, HttpError> {
    let last_event_id = request
        .headers()
        .get("Last-Event-ID")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty());
    let bad = |text: &str| {
        ApiError::new(ApiCode::BadQuery, format!(
            "\"{text}\" is not a cursor of this stream: send the `cursor` of the last line received (`P` or `P.N`), or 0 for everything from the start."
        ))
    };
    let end = state.games.durable_position();
    let cursor = match last_event_id.or(query.after.as_deref()) {
        Some(text) => text.parse::<Cursor>().map_err(|()| bad(text))?,
        None => Cursor::at(end),
    };
    if is_ahead(&state, cursor, end).await? {
        // No cursor of this log (another server's, or a store restored from an older
        // backup): followed, it would wait for positions that mean other events, silently.
        return Err(ApiError::new(ApiCode::CursorAhead, format!(
            "after={cursor} is past the end of the log ({end}): this server never gave that cursor. Resume from {end} to be told what happens from now on, or from 0 for every notice."
        ))
        .with_details(serde_json::json!({ "end": end.to_string() }))
        .into());
    }
    let permit = state.limits.stream(&player.id)?;
    let token = crate::auth::bearer(&request)?.unwrap_or_default();
    let watch = state.players.watch(&token);
    let format = match negotiate(&request, &[NDJSON, EVENT_STREAM], NDJSON) {
        EVENT_STREAM => Format::EventStream,
        _ => Format::Ndjson,
    };
    let mut pending = VecDeque::new();
    pending.push_back(format.signal("keep_alive", cursor, None));
    let following = Following {
        positions: state.games.positions(),
        woken: false,
        last_line: Instant::now(),
        state: state.clone(),
        follower: Some(Follower::new(&player.id, cursor)),
        format,
        pending,
        finished: false,
        watch,
        _permit: permit,
    };
    tracing::info!(player = %player.id, %cursor, "player stream opened");
    Ok(HttpResponse::Ok()
        .content_type(match format {
            Format::Ndjson => NDJSON,
            Format::EventStream => EVENT_STREAM,
        })
        .insert_header(("Cache-Control", "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(futures_util::stream::unfold(following, next_lines)))
}
