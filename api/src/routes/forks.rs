//! `/v1/games/{id}/forks`: undo by fork. A fork is a new game whose stream begins with a copy
//! of the parent's events up to a version, then a `forked` event; the parent never changes.

use crate::auth::{Authenticated, MaybeAuthenticated, PLAY};
use crate::problem::{HttpError, Problem};
use crate::state::AppState;
use crate::summary::{summary, GamePage, GameSummary};
use actix_web::{get, post, web, HttpResponse};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

/// Where to fork.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewFork {
    /// The parent's version the fork begins from: the end of a command's events (a version a
    /// command answer gave), from the start of play to the parent's version now.
    pub version: u64,
}

/// Fork a game for analysis: a new game that copies the parent's events up to `version`, then
/// gives the caller every seat. Allowed for games without hidden information, and for any game
/// once it has ended.
#[utoipa::path(operation_id = "createFork", tag = "replay", security(("bearer" = ["play"])),
    params(("id" = String, Path, description = "The parent game's id")),
    request_body = NewFork,
    responses(
        (status = 201, description = "The fork, with the caller at every seat", body = GameSummary,
            headers(("Location" = String, description = "The fork's path"))),
        (status = 400, description = "Unreadable JSON, a repeated key or an unknown field", body = Problem),
        (status = 401, body = Problem), (status = 404, body = Problem),
        (status = 409, description = "`fork_not_available`: a running game with hidden information", body = Problem),
        (status = 413, body = Problem), (status = 415, body = Problem),
        (status = 422, description = "`bad_fork_version` or `fork_before_start`: not a version to fork at", body = Problem),
        (status = 429, description = "`rate_limited`: too many forks by this player this hour; `Retry-After` says when to try again", body = Problem)))]
#[post("/v1/games/{id}/forks")]
pub async fn create_fork(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
    id: web::Path<String>,
    body: crate::json_body::Json<NewFork>,
) -> Result<HttpResponse, HttpError> {
    state.limits.fork_created(&player.id)?;
    let slot = state
        .games
        .analysis_fork(&id, body.version, &player.id)
        .await?;
    let slot = slot.lock().await;
    let game = summary(&slot, &state.players, &state.club, Some(&player.id), true);
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/v1/games/{}", game.id)))
        .json(game))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ForksQuery {
    /// The next page: the `next` of the previous page (the last id it holds).
    pub after: Option<String>,
    /// At most this many (default 50, at most 200).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<usize>,
}

/// The forks of a game, in pages ordered by id.
#[utoipa::path(operation_id = "listForks", tag = "replay", security(("bearer" = ["read"]), ()),
    params(("id" = String, Path, description = "The parent game's id"), ForksQuery),
    responses((status = 200, description = "A page of the game's forks (without their views), and the cursor of the next page", body = GamePage),
        (status = 400, description = "`bad_query`: a query parameter that is not understood", body = Problem),
        (status = 401, body = Problem), (status = 404, body = Problem)))]
#[get("/v1/games/{id}/forks")]
pub async fn list_forks(
    state: web::Data<AppState>,
    MaybeAuthenticated(player): MaybeAuthenticated,
    id: web::Path<String>,
    query: web::Query<ForksQuery>,
) -> Result<HttpResponse, HttpError> {
    let limit = super::page_size(query.limit, 50, 200)?;
    let found = state.games.forks(&id, query.after.as_deref(), limit)?;
    let viewer = player.as_ref().map(|p| p.id.as_str());
    Ok(HttpResponse::Ok().json(GamePage::of(found, &state.players, &state.club, viewer).await))
}
