//! `/v1/players`: create a player, who am I, my games.

use crate::app::players::Player;
use crate::app::vacations::Vacation;
use crate::auth::Authenticated;
use crate::problem::{ApiError, Problem};
use crate::state::AppState;
use crate::summary::{summary, GameSummary};
use actix_web::{delete, get, post, web, HttpResponse};
use domain::table::VacationEndReason;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPlayer {
    /// 1 to 40 characters, without control characters (spaces around it are trimmed).
    #[schema(example = "Bea", min_length = 1, max_length = 40)]
    pub name: String,
}

/// A new player and their secret token, shown this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerCreated {
    pub player: Player,
    /// Send it as `Authorization: Bearer <token>`. Keep it secret: it acts for you.
    #[schema(example = "av_5c0ffee5...")]
    pub token: String,
}

/// Create a player.
#[utoipa::path(operation_id = "createPlayer", tag = "players", request_body = NewPlayer,
    responses(
        (status = 201, description = "The player, with their token (shown only now)", body = PlayerCreated),
        (status = 400, description = "Not a player: unreadable JSON, a repeated key, an unknown field, or a name that is not 1 to 40 characters", body = Problem),
        (status = 413, body = Problem), (status = 415, body = Problem),
        (status = 429, description = "`rate_limited`: too many players from one address; `Retry-After` says when to try again", body = Problem)))]
#[post("/v1/players")]
pub async fn create_player(
    state: web::Data<AppState>,
    request: actix_web::HttpRequest,
    body: crate::json_body::Json<NewPlayer>,
) -> Result<HttpResponse, ApiError> {
    state
        .limits
        .player_created(&crate::limits::client_address(&request))?;
    let (player, token) = state.players.create(&body.name).await?;
    tracing::info!(player = %player.id, "player created");
    Ok(HttpResponse::Created().json(PlayerCreated { player, token }))
}

/// The player the token belongs to.
#[utoipa::path(operation_id = "getCurrentPlayer", tag = "players", security(("bearer" = [])),
    responses((status = 200, description = "The token's player", body = Player),
        (status = 401, body = Problem)))]
#[get("/v1/players/me")]
pub async fn me(Authenticated(player): Authenticated) -> HttpResponse {
    HttpResponse::Ok().json(player)
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct MyGamesQuery {
    /// `mine`: only the games where you must act now, the nearest deadline first, then the
    /// untimed games that have waited longest.
    pub turn: Option<String>,
    /// Games after this id (the last id of the previous page), in the page's order: by id, or
    /// with `turn=mine` most urgent first.
    pub after: Option<String>,
    /// At most this many (default 50, at most 200).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<usize>,
}

/// My games in pages: every game I hold a seat in, by id, or with `?turn=mine` those where I
/// must act, most urgent first.
#[utoipa::path(operation_id = "listMyGames", tag = "players", security(("bearer" = [])),
    params(MyGamesQuery),
    responses((status = 200, description = "A page of my games (without their views)", body = Vec<GameSummary>),
        (status = 400, description = "`bad_query`: a query parameter that is not understood", body = Problem),
        (status = 401, body = Problem)))]
#[get("/v1/players/me/games")]
pub async fn my_games(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated,
    query: web::Query<MyGamesQuery>,
) -> Result<HttpResponse, ApiError> {
    let only_my_turn = match query.turn.as_deref() {
        None => false,
        Some("mine") => true,
        Some(other) => {
            return Err(ApiError::bad_request(
                "bad_query",
                format!("turn={other} is not understood; use turn=mine."),
            ))
        }
    };
    let limit = super::page_size(query.limit, 50, 200)?;
    let after = query.after.as_deref();
    let page = if only_my_turn {
        state.games.my_turn(&player.id, after, limit).await?
    } else {
        state.games.seated(&player.id, after, limit)?
    };
    let mut games = Vec::with_capacity(page.len());
    for slot in page {
        let slot = slot.lock().await;
        games.push(summary(&slot, &state.players, Some(&player.id), false));
    }
    Ok(HttpResponse::Ok().json(games))
}

/// My vacation: whether I am on one, and how much of this year's 30 days is left.
#[utoipa::path(operation_id = "getMyVacation", tag = "players", security(("bearer" = [])),
    responses((status = 200, description = "Whether I am away, and the days left this year", body = Vacation),
        (status = 401, body = Problem)))]
#[get("/v1/players/me/vacation")]
pub async fn my_vacation(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(state.vacations.get(&player.id).await?))
}

/// Go on vacation: the clocks of all my timed games stand still until I come back, or until
/// this year's 30 days are used up. Recorded as `vacation_started` in each game.
#[utoipa::path(operation_id = "startVacation", tag = "players", security(("bearer" = [])),
    responses((status = 200, description = "On vacation from now on", body = Vacation),
        (status = 401, body = Problem),
        (status = 409, description = "Already on vacation, or no days left", body = Problem)))]
#[post("/v1/players/me/vacation")]
pub async fn start_vacation(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated,
) -> Result<HttpResponse, ApiError> {
    let shown = state.vacations.start(&player.id, &state.games).await?;
    Ok(HttpResponse::Ok().json(shown))
}

/// Come back from vacation: the clocks of my games run again with the time they had left.
#[utoipa::path(operation_id = "endVacation", tag = "players", security(("bearer" = [])),
    responses((status = 200, description = "Back: the clocks run again", body = Vacation),
        (status = 401, body = Problem),
        (status = 409, description = "Not on vacation", body = Problem)))]
#[delete("/v1/players/me/vacation")]
pub async fn end_vacation(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated,
) -> Result<HttpResponse, ApiError> {
    let shown = state
        .vacations
        .end(&player.id, VacationEndReason::Returned, &state.games)
        .await?;
    Ok(HttpResponse::Ok().json(shown))
}

/// A new token, shown this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenIssued {
    /// Send it as `Authorization: Bearer <token>`. Keep it secret: it acts for you.
    #[schema(example = "av_5c0ffee5...")]
    pub token: String,
}

/// Issue a new token for me, beside the one in use (shown this once). To replace a token,
/// issue a new one, then revoke the old one with `DELETE /v1/players/me/tokens/current`.
#[utoipa::path(operation_id = "issueToken", tag = "players", security(("bearer" = [])),
    responses((status = 201, description = "The new token (shown only now)", body = TokenIssued),
        (status = 401, body = Problem)))]
#[post("/v1/players/me/tokens")]
pub async fn issue_token(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated,
) -> Result<HttpResponse, ApiError> {
    let token = state.players.issue_token(&player).await?;
    tracing::info!(player = %player.id, "token issued");
    Ok(HttpResponse::Created().json(TokenIssued { token }))
}

/// Revoke the token this request is sent with: it acts for no one from now on. Other tokens
/// of mine go on working; without any, the account cannot be used again.
#[utoipa::path(operation_id = "revokeCurrentToken", tag = "players", security(("bearer" = [])),
    responses((status = 204, description = "Revoked: the token acts for no one from now on"),
        (status = 401, body = Problem)))]
#[delete("/v1/players/me/tokens/current")]
pub async fn revoke_token(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated,
    request: actix_web::HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let token = crate::auth::bearer(&request)?.ok_or_else(|| {
        ApiError::unauthorized("Send the token to revoke as `Authorization: Bearer <token>`.")
    })?;
    state.players.revoke(&token).await?;
    tracing::info!(player = %player.id, "token revoked");
    Ok(HttpResponse::NoContent().finish())
}
