//! The answer to a command, shared by `POST /v1/games/{id}/join` and `/commands`: the guards
//! read from the headers, one call into the command service, and the answer shaped for the
//! caller.

use crate::problem::HttpError;
use crate::state::AppState;
use crate::summary::{events_seen, summary, EventOut, GameSummary};
use actix_web::http::header::{self, ContentType};
use actix_web::{HttpRequest, HttpResponse, HttpResponseBuilder};
use app::PlayerCommand;
use app::{ApiCode, ApiError};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// The answer to a command: the new version, the events it caused as the caller may see them,
/// and the caller's new view of the game.
#[derive(Debug, Serialize, ToSchema)]
pub struct CommandAnswer {
    pub version: u64,
    /// True when this answers a retry of an `Idempotency-Key` already played: nothing new was
    /// recorded.
    pub replayed: bool,
    pub events: Vec<EventOut>,
    pub game: GameSummary,
}

/// Reads `If-Match: "<version>"` (quotes optional).
fn expected_version(request: &HttpRequest) -> Result<Option<u64>, ApiError> {
    let Some(value) = request.headers().get(header::IF_MATCH) else {
        return Ok(None);
    };
    let text = value.to_str().unwrap_or_default().trim();
    let text = text.strip_prefix("W/").unwrap_or(text).trim_matches('"');
    text.parse().map(Some).map_err(|_| {
        ApiError::new(
            ApiCode::BadIfMatch,
            "If-Match holds the version you played on, for instance \"12\".",
        )
    })
}

fn idempotency_key(request: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(value) = request.headers().get("Idempotency-Key") else {
        return Ok(None);
    };
    match value.to_str() {
        Ok(key) if !key.is_empty() && key.len() <= 200 => Ok(Some(key.to_string())),
        _ => Err(ApiError::new(
            ApiCode::BadIdempotencyKey,
            "Idempotency-Key is 1 to 200 visible characters.",
        )),
    }
}

/// Plays `command` for `player` on game `id` and shapes the answer.
pub async fn answer_command(
    state: &AppState,
    request: &HttpRequest,
    id: &str,
    player: &str,
    mut command: Value,
) -> Result<HttpResponse, HttpError> {
    state.limits.command(player)?;
    let expected = expected_version(request)?;
    let key = idempotency_key(request)?;
    let text = app::messages::take_message(&mut command)?;
    let command = PlayerCommand {
        game: id,
        player,
        command,
        expected,
        key: key.as_deref(),
    };
    let played = state
        .messages
        .play(&state.games, &state.limits, command, text.as_deref())
        .await?;
    state.club.game_written(&state.games, id).await;
    let slot = played.slot.lock().await;
    let mut game = summary(&slot, &state.players, &state.club, Some(player), true);
    if played.duplicate {
        // The first answer: the game as it was right after that command.
        let last = played
            .envelopes
            .last()
            .map_or(played.first_version, |e| e.version);
        let view = state.games.view_at(&slot, last, player)?;
        game.view = Some(serde_json::value::to_raw_value(&view).map_err(ApiError::internal)?);
    }
    let answer = CommandAnswer {
        version: played.envelopes.last().map_or(game.version, |e| e.version),
        replayed: played.duplicate,
        events: events_seen(&slot, Some(player), played.envelopes, &state.messages),
        game,
    };
    // The view is most of the answer; each event and the rest of the summary take some
    // hundreds of bytes.
    let size =
        answer.game.view.as_ref().map_or(0, |v| v.get().len()) + 512 * (answer.events.len() + 2);
    let mut response = HttpResponse::Ok();
    response.insert_header((header::ETAG, format!("\"{}\"", answer.version)));
    json_sized(response, &answer, size)
}

/// `value` as the JSON body of `response`, written into a buffer of about its `size` made
/// up front, rather than one grown (and copied) again and again from 128 bytes.
pub fn json_sized<T: Serialize>(
    mut response: HttpResponseBuilder,
    value: &T,
    size: usize,
) -> Result<HttpResponse, HttpError> {
    let mut body = Vec::with_capacity(size);
    serde_json::to_writer(&mut body, value).map_err(ApiError::internal)?;
    Ok(response.content_type(ContentType::json()).body(body))
}
