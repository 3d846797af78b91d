//! Messages said at a game: to its table, or in its spectators' room.

use crate::auth::{Authenticated, PLAY, READ};
use crate::problem::{HttpError, Problem};
use crate::state::AppState;
use actix_web::{delete, get, post, put, web, HttpResponse};
use app::error::{ApiCode, ApiError};
use app::messages::{MessageText, ReportReason};
use domain::table::MessageRoom;
use serde::Serialize;
use utoipa::ToSchema;

/// Say something at a game: to its table when I hold a seat (`room` `table`, the default),
/// or in its spectators' room when I watch without one (games without hidden cards only).
/// It is kept in the game's stream as a `said` event, its text sealed under a key of its own;
/// it changes nothing of the game. Readers of the game's events see its text (the spectators'
/// room is not shown to the seated).
#[utoipa::path(operation_id = "sayMessage", tag = "games", security(("bearer" = ["play"])),
    params(("id" = String, Path, description = "The game id")),
    request_body = MessageText,
    responses((status = 201, description = "Said: the message's id and its event's version", body = app::messages::Said),
        (status = 400, description = "`empty_message`, `invalid_text` (a control or bidirectional character), `malformed_json`", body = Problem),
        (status = 401, body = Problem),
        (status = 403, description = "`not_at_table`: only the players seated at the game speak at its table", body = Problem),
        (status = 404, description = "`game_not_found`", body = Problem),
        (status = 409, description = "`room_closed` (the spectators' room of a game with hidden cards, or a seated player there), `too_many_messages` (the game holds the most messages it may)", body = Problem),
        (status = 413, description = "`message_too_long` (more than 1 000 characters)", body = Problem),
        (status = 415, body = Problem),
        (status = 429, description = "`rate_limited`: too many messages by this player this hour", body = Problem)))]
#[post("/v1/games/{id}/messages")]
pub async fn say(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
    id: web::Path<String>,
    body: crate::json_body::Json<MessageText>,
) -> Result<HttpResponse, HttpError> {
    super::current_game(&state, &id).await?;
    let body = body.into_inner();
    let room = body.room.unwrap_or(MessageRoom::Table);
    let said = state
        .messages
        .say(
            &state.games,
            &state.limits,
            &id,
            &player.id,
            &body.text,
            room,
        )
        .await?;
    Ok(HttpResponse::Created().json(said))
}

/// `POST /games/{id}/messages/{message}/hide`: an operator hides a message. Its key is
/// deleted, so its text is gone from every channel and from every backup made afterwards;
/// a `hidden` event records it. On the admin listener only, like `/backup`.
#[actix_web::post("/games/{id}/messages/{message}/hide")]
pub async fn hide(
    state: web::Data<AppState>,
    request: actix_web::HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, HttpError> {
    super::backup::operator_only(&state, &request, "Hiding a message")?;
    let (id, message) = path.into_inner();
    let version = state
        .messages
        .hide(&state.games, &id, &message, None)
        .await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(serde_json::json!({ "game": id, "message": message, "hidden": true, "version": version })))
}

/// Delete a message I said: its key is deleted, so its text is gone from every channel (and
/// from every backup made afterwards), and a `hidden` event records it in the game's stream.
#[utoipa::path(operation_id = "deleteMyMessage", tag = "games", security(("bearer" = ["play"])),
    params(("id" = String, Path, description = "The game id"),
        ("message" = String, Path, description = "The message's id, from its `said` event")),
    responses((status = 200, description = "Deleted: the version of the `hidden` event", body = app::messages::Deleted),
        (status = 401, body = Problem),
        (status = 403, description = "`forbidden`: a message another player said", body = Problem),
        (status = 404, description = "`game_not_found`, `message_not_found` (none said with that id, or deleted already)", body = Problem)))]
#[delete("/v1/games/{id}/messages/{message}")]
pub async fn delete_mine(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, HttpError> {
    let (id, message) = path.into_inner();
    super::current_game(&state, &id).await?;
    let version = state
        .messages
        .hide(&state.games, &id, &message, Some(&player.id))
        .await?;
    Ok(HttpResponse::Ok().json(app::messages::Deleted {
        message,
        hidden: true,
        version,
    }))
}

/// A message reported: the operator will look at it.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"game": "g-3f9a0c11d2e4b5a6", "message": "m-3fQk9LwZ2hTx", "reported": true}))]
pub struct Reported {
    pub game: String,
    pub message: String,
    /// Always `true`.
    pub reported: bool,
}

/// Report a message to the operator (with an optional reason): a message you may read, that
/// is not hidden. The operator sees the reports (`avalanche moderate --reports`) and may hide
/// the message; reporting it again replaces your reason.
#[utoipa::path(operation_id = "reportMessage", tag = "games", security(("bearer" = ["play"])),
    params(("id" = String, Path, description = "The game id"),
        ("message" = String, Path, description = "The message's id, from its `said` event")),
    request_body(content = ReportReason, description = "Why (`{}` without a reason; up to 500 characters)"),
    responses((status = 202, description = "Reported", body = Reported),
        (status = 400, description = "`bad_request` (a reason over 500 characters), `invalid_text`", body = Problem),
        (status = 401, body = Problem),
        (status = 404, description = "`game_not_found`, `message_not_found` (none you may read with that id, or hidden already)", body = Problem),
        (status = 415, body = Problem)))]
#[post("/v1/games/{id}/messages/{message}/report")]
pub async fn report(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
    path: web::Path<(String, String)>,
    body: crate::json_body::Json<ReportReason>,
) -> Result<HttpResponse, HttpError> {
    let (id, message) = path.into_inner();
    super::current_game(&state, &id).await?;
    let reason = body.into_inner().reason;
    state
        .messages
        .report(&state.games, &id, &message, &player.id, reason)
        .await?;
    Ok(HttpResponse::Accepted().json(Reported {
        game: id,
        message,
        reported: true,
    }))
}

/// `GET /reports`: the messages players reported, with their text while it can be read, for
/// the operator. On the admin listener only, like `/backup`.
#[actix_web::get("/reports")]
pub async fn reports(
    state: web::Data<AppState>,
    request: actix_web::HttpRequest,
) -> Result<HttpResponse, HttpError> {
    super::backup::operator_only(&state, &request, "Reading the reports")?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(serde_json::json!({ "reports": state.messages.reports()? })))
}

/// The players I muted.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"muted": ["p-0011223344556677"]}))]
pub struct Muted {
    /// Their ids, in order.
    pub muted: Vec<String>,
}

/// The players I muted: their messages are withheld from me everywhere I read (events,
/// streams, notices, replay).
#[utoipa::path(operation_id = "listMyMutes", tag = "players", security(("bearer" = ["read"])),
    responses((status = 200, description = "Whom I muted", body = Muted),
        (status = 401, body = Problem)))]
#[get("/v1/players/me/mutes")]
pub async fn mutes(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<READ>,
) -> Result<HttpResponse, HttpError> {
    let muted = state.messages.muted_by(&player.id)?;
    Ok(HttpResponse::Ok().json(Muted { muted }))
}

/// Mute a player: their messages are withheld from me in every read of mine (events show
/// `"muted": true` without the text, and my stream, webhooks and replay leave them out).
/// Nothing changes for anyone else, and they are not told.
#[utoipa::path(operation_id = "mutePlayer", tag = "players", security(("bearer" = ["play"])),
    params(("player" = String, Path, description = "The player to mute")),
    responses((status = 200, description = "Muted: whom I muted now", body = Muted),
        (status = 400, description = "`bad_request`: yourself", body = Problem),
        (status = 401, body = Problem),
        (status = 404, description = "`player_not_found`", body = Problem)))]
#[put("/v1/players/me/mutes/{player}")]
pub async fn mute(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
    muted: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    if state.players.get(&muted)?.is_none() {
        return Err(ApiError::new(
            ApiCode::PlayerNotFound,
            format!("There is no player {muted} to mute."),
        )
        .into());
    }
    state.messages.mute(&player.id, &muted, true).await?;
    let muted = state.messages.muted_by(&player.id)?;
    Ok(HttpResponse::Ok().json(Muted { muted }))
}

/// Hear a muted player again.
#[utoipa::path(operation_id = "unmutePlayer", tag = "players", security(("bearer" = ["play"])),
    params(("player" = String, Path, description = "The player to hear again")),
    responses((status = 200, description = "Whom I muted now", body = Muted),
        (status = 400, description = "`bad_request`: yourself", body = Problem),
        (status = 401, body = Problem)))]
#[delete("/v1/players/me/mutes/{player}")]
pub async fn unmute(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
    muted: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    state.messages.mute(&player.id, &muted, false).await?;
    let muted = state.messages.muted_by(&player.id)?;
    Ok(HttpResponse::Ok().json(Muted { muted }))
}

/// My texts deleted.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"deleted": 3}))]
pub struct DeletedAll {
    /// How many messages were deleted now.
    pub deleted: usize,
}

/// Delete every message I said, at every game: each as one deleted alone (its key deleted,
/// its text gone everywhere and from backups made afterwards, a `hidden` event in its game's
/// stream). Those deleted before are passed over.
#[utoipa::path(operation_id = "deleteAllMyMessages", tag = "players", security(("bearer" = ["play"])),
    responses((status = 200, description = "Deleted: how many", body = DeletedAll),
        (status = 401, body = Problem)))]
#[delete("/v1/players/me/messages")]
pub async fn delete_all_mine(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
) -> Result<HttpResponse, HttpError> {
    let deleted = state.messages.delete_all(&state.games, &player.id).await?;
    tracing::info!(player = %player.id, deleted, "a player's messages deleted");
    Ok(HttpResponse::Ok().json(DeletedAll { deleted }))
}
