//! `/v1/games`: create, list, look at and join games.

use crate::auth::{Authenticated, MaybeAuthenticated, PLAY};
use crate::command_answer::{answer_command, CommandAnswer};
use crate::problem::{HttpError, Problem};
use crate::state::AppState;
use crate::summary::{summary, GamePage, GameSummary};
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use app::lists::GameFilter;
use app::NewGame;
use app::{ApiCode, ApiError};
use domain::engine::Seat;
use domain::table::Status;
use serde::Deserialize;
use serde_json::json;
use utoipa::{IntoParams, ToSchema};

/// Create a game; the creator sits at it.
#[utoipa::path(operation_id = "createGame", tag = "games", security(("bearer" = ["play"])),
    request_body = NewGame,
    responses(
        (status = 201, description = "The game, with the creator seated", body = GameSummary,
            headers(("Location" = String, description = "The game's path"))),
        (status = 400, description = "`unknown_kind`, `invalid_setup` (a variant, a number of seats, options or a time control the game does not offer), or unreadable JSON", body = Problem),
        (status = 401, body = Problem), (status = 413, body = Problem), (status = 415, body = Problem),
        (status = 429, description = "`rate_limited`: too many games created in the last hour, or too many open seats held; `Retry-After` says when to try again", body = Problem)))]
#[post("/v1/games")]
pub async fn create_game(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
    body: crate::json_body::Json<NewGame>,
) -> Result<HttpResponse, HttpError> {
    state.limits.game_created(&player.id)?;
    state.limits.open_seat(
        state
            .games
            .open_seats(&player.id, state.limits.settings.open_seats_per_player)?,
    )?;
    let slot = state.games.create(&player.id, body.into_inner()).await?;
    let slot = slot.lock().await;
    let game = summary(&slot, &state.players, &state.club, Some(&player.id), true);
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/v1/games/{}", game.id)))
        .json(game))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// Only games of this kind.
    pub kind: Option<String>,
    /// Only games with this status: `open`, `active` or `finished`.
    pub status: Option<String>,
    /// The next page: the `next` of the previous page (the last id it holds).
    pub after: Option<String>,
    /// At most this many (default 50, at most 200).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<usize>,
}

/// List games, by kind and status, in pages ordered by id; each page says where the next one
/// begins (`next`, `null` after the last).
#[utoipa::path(operation_id = "listGames", tag = "games", security(("bearer" = ["read"]), ()),
    params(ListQuery),
    responses((status = 200, description = "A page of games (without their views), `your_seat` and `your_turn` for the token's player, and the cursor of the next page", body = GamePage),
        (status = 400, description = "`bad_query` or `unknown_kind`", body = Problem),
        (status = 401, body = Problem)))]
#[get("/v1/games")]
pub async fn list_games(
    state: web::Data<AppState>,
    MaybeAuthenticated(player): MaybeAuthenticated,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, HttpError> {
    let status = match query.status.as_deref() {
        None => None,
        Some("open") => Some(Status::Open),
        Some("active") => Some(Status::Active),
        Some("finished") => Some(Status::Finished),
        Some(other) => {
            return Err(ApiError::new(
                ApiCode::BadQuery,
                format!("status={other} is not one of open, active, finished."),
            )
            .into())
        }
    };
    let filter = GameFilter {
        kind: query.kind.clone(),
        status,
        after: query.after.clone(),
        limit: super::page_size(query.limit, 50, 200)?,
    };
    let viewer = player.as_ref().map(|p| p.id.as_str());
    let page = state.games.list(&filter)?;
    Ok(HttpResponse::Ok().json(GamePage::of(page, &state.players, &state.club, viewer).await))
}

/// A game: summary, whose turn, version and the caller's view; for a game superseded by a
/// takeback, the game that goes on from it (`continued_in`); for a seated caller of an active
/// game, how many turns they have played (`turns_played`).
#[utoipa::path(operation_id = "getGame", tag = "games", security(("bearer" = ["read"]), ()),
    params(("id" = String, Path, description = "The game id")),
    responses(
        (status = 200, description = "The game, with the view of the token's seat (or a spectator's without a token)", body = GameSummary,
            headers(("ETag" = String, description = "The game's version, quoted (`\"12\"`): send it back as `If-Match` to play on it"))),
        (status = 401, body = Problem), (status = 404, body = Problem)))]
#[get("/v1/games/{id}")]
pub async fn get_game(
    state: web::Data<AppState>,
    MaybeAuthenticated(player): MaybeAuthenticated,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let mut game = {
        let slot = super::current_game(&state, &id).await?;
        let slot = slot.lock().await;
        summary(
            &slot,
            &state.players,
            &state.club,
            player.as_ref().map(|p| p.id.as_str()),
            true,
        )
    };
    if game.superseded {
        game.continued_in = served(state.games.continuation(&id).await)?;
    }
    if let Some(player) = player.as_ref().filter(|_| game.your_seat.is_some()) {
        game.turns_played = served(state.games.turns_played(&id, &player.id).await)?;
    }
    Ok(HttpResponse::Ok()
        .insert_header(("ETag", format!("\"{}\"", game.version)))
        .json(game))
}

/// What the game holds in memory is answered even while the store cannot be reached: an extra
/// read from the store is then left out.
fn served<T>(found: Result<Option<T>, ApiError>) -> Result<Option<T>, ApiError> {
    match found {
        Err(error) if error.code == app::ApiCode::StoreUnavailable => Ok(None),
        other => other,
    }
}

/// Which seat to take.
#[derive(Debug, Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct JoinRequest {
    /// A free seat; the first free one when absent.
    pub seat: Option<Seat>,
}

/// Take a free seat (or a named one). The game starts when the last seat is taken.
#[utoipa::path(operation_id = "joinGame", tag = "games", security(("bearer" = ["play"])),
    params(("id" = String, Path, description = "The game id"),
        ("If-Match" = Option<String>, Header, description = "The version you joined on (`\"3\"`): a stale one gives 412"),
        ("Idempotency-Key" = Option<String>, Header, description = "1 to 200 visible characters: a retry with the same key returns the first answer and joins once")),
    request_body(content = JoinRequest, description = "`{}` (or no body) takes the first free seat"),
    responses(
        (status = 200, description = "Seated: the events of the join (and of the start, if it was the last seat) and the new view", body = CommandAnswer,
            headers(("ETag" = String, description = "The game's version after the join, quoted"))),
        (status = 400, description = "Unreadable JSON, a repeated key, an unknown field, or a malformed `If-Match` or `Idempotency-Key`", body = Problem),
        (status = 401, body = Problem), (status = 404, body = Problem),
        (status = 409, description = "`game_full`, `seat_taken`, `already_seated` or `game_over`", body = Problem),
        (status = 412, body = Problem), (status = 422, body = Problem),
        (status = 429, description = "`rate_limited`: too many commands a second, or too many open seats held; `Retry-After` says when to try again", body = Problem),
        (status = 503, description = "`store_unavailable`: the store cannot be reached or takes no write, nothing was changed, `Retry-After` says when to try again; or `outcome_unknown`: the store did not confirm the write, which may have been recorded: send it again with the same `Idempotency-Key`", body = Problem)))]
#[post("/v1/games/{id}/join")]
pub async fn join_game(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
    id: web::Path<String>,
    request: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, HttpError> {
    // The body is optional: none takes the first free seat.
    let seat = if body.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        crate::json_body::read_checked::<JoinRequest>(&body)?
            .map_err(|e| {
                ApiError::new(
                    ApiCode::MalformedJson,
                    format!("Unreadable join request: {e}."),
                )
            })?
            .seat
    };
    // A seat that leaves the game still waiting for others counts as an open seat held.
    let free = {
        let slot = super::current_game(&state, &id).await?;
        let slot = slot.lock().await;
        slot.game
            .facts()
            .players
            .iter()
            .filter(|p| p.is_none())
            .count()
    };
    if free > 1 {
        state.limits.open_seat(
            state
                .games
                .open_seats(&player.id, state.limits.settings.open_seats_per_player)?,
        )?;
    }
    // Written as it always was: stored commands stay byte for byte what they were.
    let command = json!({"type": "join", "seat": seat});
    answer_command(&state, &request, &id, &player.id, command).await
}
