//! `/v1/games/{id}/legal` and `/v1/games/{id}/commands`: what may I do, and doing it.

use crate::auth::{Authenticated, PLAY, READ};
use crate::command_answer::{answer_command, json_sized, CommandAnswer};
use crate::problem::{HttpError, Problem};
use crate::state::AppState;
use crate::wire::GameCommand;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use app::error::{ApiCode, ApiError};
use domain::{ErrorCode, RuleError};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

/// A command the caller may post now, exactly as it is, with its notation.
#[derive(Debug, Serialize, ToSchema)]
pub struct LegalOut {
    #[schema(value_type = GameCommand)]
    pub command: Box<RawValue>,
    /// Human-readable: `Nf3/a6`, `snow fall`, `play Q Q Q (grow)`, `resign`, ...
    #[schema(example = "Nf3/a6")]
    pub notation: String,
    /// What the command leads to, where the game says so: `loses` marks a command that loses
    /// the game at once (in Avalanche Chess, a push that attacks the pusher's own king).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consequence: Option<domain::engine::Consequence>,
}

/// The caller's legal commands now.
#[derive(Debug, Serialize, ToSchema)]
pub struct LegalList {
    /// The game id of the rules: it decides the type of each command.
    #[schema(example = "avalanche-chess")]
    pub kind: String,
    pub version: u64,
    pub seat: usize,
    // Written straight to JSON text by the game, in one pass.
    #[schema(value_type = Vec<LegalOut>)]
    pub commands: Box<RawValue>,
}

/// Which command a player's text means.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct LegalQuery {
    /// A player's text, as they would write it in a mail (`Bxc4/e5`, `play 7`, `resign`; at
    /// most 200 characters): the list holds the one legal command the game reads it as, or
    /// the answer is a problem, `text_not_read` or `text_ambiguous`, with the candidates.
    #[param(example = "Nf3/a6")]
    pub text: Option<String>,
}

/// The longest text `?text=` reads.
const MOST_TEXT: usize = 200;

/// The caller's legal commands, each with its notation and postable as is; or, with `text`,
/// the one command the game reads that text as.
#[utoipa::path(operation_id = "listLegalCommands", tag = "play", security(("bearer" = ["read"])),
    params(("id" = String, Path, description = "The game id"), LegalQuery),
    responses((status = 200, description = "Every command the caller may post now (none when it is not their turn); with `text`, the one command it means", body = LegalList),
        (status = 400, description = "`bad_query`: a query parameter that is not understood, or a text over 200 characters", body = Problem),
        (status = 401, body = Problem), (status = 403, body = Problem), (status = 404, body = Problem),
        (status = 422, description = "`text_not_read`: the text names none of the caller's legal commands (`details.candidates` are the nearest); `text_ambiguous`: it names several (`details.candidates`, one to choose). `detail` says why in words", body = Problem)))]
#[get("/v1/games/{id}/legal")]
pub async fn legal(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<READ>,
    id: web::Path<String>,
    query: web::Query<LegalQuery>,
) -> Result<HttpResponse, HttpError> {
    if query
        .text
        .as_ref()
        .is_some_and(|t| t.chars().count() > MOST_TEXT)
    {
        return Err(ApiError::new(
            ApiCode::BadQuery,
            format!("A text to read is at most {MOST_TEXT} characters."),
        )
        .into());
    }
    let slot = super::current_game(&state, &id).await?;
    let slot = slot.lock().await;
    let seat = slot.game.seat_of(&player.id).ok_or_else(|| {
        RuleError::new(ErrorCode::NotSeated, "You do not hold a seat in this game.")
    })?;
    let now = chrono::Utc::now();
    let commands = match &query.text {
        None => slot.game.legal_json_at(seat, now),
        Some(text) => match slot.game.read(Some(seat), text, now) {
            Ok(read) => serde_json::value::to_raw_value(&[read]).map_err(ApiError::internal)?,
            Err(unread) => {
                let code = if unread.ambiguous {
                    ApiCode::TextAmbiguous
                } else {
                    ApiCode::TextNotRead
                };
                return Err(ApiError::new(code, unread.why.clone())
                    .with_details(serde_json::json!({
                        "text": text,
                        "candidates": unread.candidates,
                    }))
                    .into());
            }
        },
    };
    let size = commands.get().len() + 64;
    let list = LegalList {
        kind: slot.game.facts().kind.to_string(),
        version: slot.game.facts().version,
        seat,
        commands,
    };
    json_sized(HttpResponse::Ok(), &list, size)
}

/// Play a command: a game move or a table command (`resign`, `offer_draw`, ...). Answers only
/// once the events are durable.
#[utoipa::path(operation_id = "playCommand", tag = "play", security(("bearer" = ["play"])),
    params(("id" = String, Path, description = "The game id"),
        ("If-Match" = Option<String>, Header, description = "The version you played on (`\"12\"`, the `ETag` of the game): a stale one gives 412 and nothing is played"),
        ("Idempotency-Key" = Option<String>, Header, description = "1 to 200 visible characters: a retry with the same key and body returns the first answer (`replayed: true`) and records nothing twice; the same key with another body gives 422")),
    request_body(content = GameCommand, description = "A command of the table or of the game; `GET /v1/games/{id}/legal` lists those you may post now, exactly as they are. A `message` beside its fields (a string of 1 to 1 000 characters) is said at the table with it: its `said` event follows the command's events in the same append"),
    responses(
        (status = 200, description = "Played: its events, once durable, and the caller's new view", body = CommandAnswer,
            headers(("ETag" = String, description = "The game's version after the command, quoted"))),
        (status = 400, description = "`bad_command` (not a command of this game, a field it does not have, or a `message` that is not a string), unreadable JSON, a repeated key, a malformed `If-Match` or `Idempotency-Key`, or the `message`'s `empty_message` or `invalid_text`: nothing is played", body = Problem),
        (status = 401, body = Problem),
        (status = 403, description = "`not_seated`: the caller holds no seat in this game", body = Problem),
        (status = 404, body = Problem),
        (status = 409, description = "Not now: `not_your_turn`, `game_over`, `not_started`, `out_of_time`, `no_draw_offered`, ...; or `too_many_messages` with a `message`", body = Problem),
        (status = 412, body = Problem),
        (status = 413, description = "The body is too large, or its `message` is (`message_too_long`)", body = Problem),
        (status = 415, body = Problem),
        (status = 422, description = "`illegal_command` by the rules (or another refusal of the rules, such as `draw_not_available`), or `idempotency_key_reused` with another body", body = Problem),
        (status = 429, description = "`rate_limited`: too many commands a second, or messages an hour; `Retry-After` says when to try again", body = Problem),
        (status = 503, description = "`store_unavailable`: the store cannot be reached or takes no write, nothing was changed, `Retry-After` says when to try again; or `outcome_unknown`: the store did not confirm the write, which may have been recorded: send it again with the same `Idempotency-Key`", body = Problem)))]
#[post("/v1/games/{id}/commands")]
pub async fn play(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
    id: web::Path<String>,
    request: HttpRequest,
    command: crate::json_body::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    answer_command(&state, &request, &id, &player.id, command.into_inner()).await
}
