//! A player's private notes on a game: read and written by that player only.

use crate::auth::{Authenticated, PLAY, READ};
use crate::problem::{HttpError, Problem};
use crate::state::AppState;
use actix_web::{get, put, web, HttpResponse};
use app::notes::{Note, NoteText};

/// My note on a game: what I wrote for myself (empty when I wrote none). Nobody else sees it; it
/// is not part of the game's log, replay or record.
#[utoipa::path(operation_id = "getMyNote", tag = "games", security(("bearer" = ["read"])),
    params(("id" = String, Path, description = "The game id")),
    responses((status = 200, description = "My note on the game", body = Note),
        (status = 401, body = Problem), (status = 404, description = "`game_not_found`", body = Problem)))]
#[get("/v1/games/{id}/notes")]
pub async fn my_note(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<READ>,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    super::current_game(&state, &id).await?;
    Ok(HttpResponse::Ok().json(state.notes.get(&player.id, &id)?))
}

/// Write my note on a game (replacing the one before; an empty text deletes it). Up to 10 000
/// characters; line breaks and tabs are kept.
#[utoipa::path(operation_id = "setMyNote", tag = "games", security(("bearer" = ["play"])),
    params(("id" = String, Path, description = "The game id")),
    request_body = NoteText,
    responses((status = 200, description = "My note now", body = Note),
        (status = 400, description = "`invalid_text` (a control or bidirectional character), `malformed_json`", body = Problem),
        (status = 401, body = Problem), (status = 404, description = "`game_not_found`", body = Problem),
        (status = 413, description = "`note_too_long`", body = Problem),
        (status = 415, body = Problem)))]
#[put("/v1/games/{id}/notes")]
pub async fn set_my_note(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
    id: web::Path<String>,
    body: crate::json_body::Json<NoteText>,
) -> Result<HttpResponse, HttpError> {
    super::current_game(&state, &id).await?;
    let text = body.into_inner().text;
    let note = state
        .notes
        .put(&player.id, &id, &text, chrono::Utc::now())
        .await?;
    Ok(HttpResponse::Ok().json(note))
}
