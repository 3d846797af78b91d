//! The club's public pages: players found by name, a player's page and games, a pool's
//! leaderboard. Open to everyone, like a game's page: nothing private is in them.

use crate::problem::{HttpError, Problem};
use crate::state::AppState;
use actix_web::{get, web, HttpResponse};
use app::club::book::GameResult;
use app::club::pages::{GameBrief, Leaderboard, PlayerGamesFilter, PlayerPage};
use app::players::{Player, Players};
use app::{ApiCode, ApiError};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct SearchQuery {
    /// The start of a player's name, in any case (`be` finds Bea and Bernd), or a display
    /// name's start with its tag (`Bea #3f`).
    #[param(min_length = 1, max_length = 60)]
    pub name: String,
}

/// Players found by name.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerList {
    /// At most 20, by name then id.
    pub items: Vec<Player>,
}

/// Find players by the start of their name.
#[utoipa::path(operation_id = "searchPlayers", tag = "club", params(SearchQuery),
    responses((status = 200, description = "The players whose name begins so (at most 20)", body = PlayerList),
        (status = 400, description = "`bad_query`: no name, or one too long", body = Problem)))]
#[get("/v1/players")]
pub async fn search_players(
    state: web::Data<AppState>,
    query: web::Query<SearchQuery>,
) -> Result<HttpResponse, HttpError> {
    if query.name.chars().count() > 60 {
        return Err(ApiError::new(ApiCode::BadQuery, "name is at most 60 characters.").into());
    }
    let (players, name) = (state.players.clone(), query.name.clone());
    let items = web::block(move || players.search(&name))
        .await
        .map_err(ApiError::internal)??;
    Ok(HttpResponse::Ok().json(PlayerList { items }))
}

/// Player `id`, known, or `player_not_found`.
fn known_player(players: &Players, id: &str) -> Result<Player, ApiError> {
    players
        .get(id)?
        .ok_or_else(|| ApiError::new(ApiCode::PlayerNotFound, format!("There is no player {id}.")))
}

/// A player's display name, for the club's lists.
pub(super) fn names(players: &Players) -> impl Fn(&str) -> Option<String> + '_ {
    move |id: &str| {
        let name = players.name(id)?;
        Some(app::players::display_name(id, &name))
    }
}

/// A player's page: their name, since when they are a member, when they last played, their
/// record of games, their ratings (with each one's history and their rank) and their
/// current games.
#[utoipa::path(operation_id = "getPlayer", tag = "club",
    params(("id" = String, Path, description = "The player's id")),
    responses((status = 200, description = "The player's page", body = PlayerPage),
        (status = 404, description = "`player_not_found`", body = Problem)))]
#[get("/v1/players/{id}")]
pub async fn player_page(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let player = known_player(&state.players, &id)?;
    let page = state
        .club
        .player_page(&player, &names(&state.players))
        .await?;
    Ok(HttpResponse::Ok().json(page))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct PlayerGamesQuery {
    /// Only games of this kind.
    pub kind: Option<String>,
    /// Only games the player `won`, `drawn` or `lost`.
    pub result: Option<GameResult>,
    /// Only rated (`true`) or unrated (`false`) games.
    pub rated: Option<bool>,
    /// Only games against this player (their id).
    pub opponent: Option<String>,
    /// The next page: the `next` of the previous page.
    pub after: Option<String>,
    /// At most this many (default 50, at most 200).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<usize>,
}

/// A page of a player's games.
#[derive(Debug, Serialize, ToSchema)]
pub struct GameBriefPage {
    pub items: Vec<GameBrief>,
    /// The cursor of the next page (`after`); `null` after the last.
    pub next: Option<String>,
}

/// A player's games, newest first, in pages, filtered by kind, result, rated or opponent.
#[utoipa::path(operation_id = "listPlayerGames", tag = "club",
    params(("id" = String, Path, description = "The player's id"), PlayerGamesQuery),
    responses((status = 200, description = "A page of the player's games", body = GameBriefPage),
        (status = 400, description = "`bad_query` or `unknown_kind`", body = Problem),
        (status = 404, description = "`player_not_found`", body = Problem)))]
#[get("/v1/players/{id}/games")]
pub async fn player_games(
    state: web::Data<AppState>,
    id: web::Path<String>,
    query: web::Query<PlayerGamesQuery>,
) -> Result<HttpResponse, HttpError> {
    let player = known_player(&state.players, &id)?;
    let query = query.into_inner();
    let filter = PlayerGamesFilter {
        kind: query.kind,
        result: query.result,
        rated: query.rated,
        opponent: query.opponent,
        after: query.after,
        limit: super::page_size(query.limit, 50, 200)?,
    };
    let page = state
        .club
        .player_games(&player.id, &filter, &names(&state.players))
        .await?;
    Ok(HttpResponse::Ok().json(GameBriefPage {
        items: page.items,
        next: page.next,
    }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct LeaderboardQuery {
    /// At most this many rows (default 50, at most 200).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<usize>,
}

/// A pool's leaderboard: its players with a rated game in the past year, best first.
#[utoipa::path(operation_id = "getLeaderboard", tag = "club",
    params(("pool" = String, Path, description = "The pool: a game kind, with `.` and its variant for a game with variants (`avalanche-chess.standard`), `.multi` for games of more than two seats of a kind whose duels are rated apart (`avalanche.multi`)"), LeaderboardQuery),
    responses((status = 200, description = "The leaderboard", body = Leaderboard),
        (status = 404, description = "`unknown_pool`", body = Problem)))]
#[get("/v1/ratings/{pool}")]
pub async fn leaderboard(
    state: web::Data<AppState>,
    pool: web::Path<String>,
    query: web::Query<LeaderboardQuery>,
) -> Result<HttpResponse, HttpError> {
    let limit = super::page_size(query.limit, 50, 200)?;
    let board = state
        .club
        .leaderboard(&pool, limit, &names(&state.players))
        .await?;
    Ok(HttpResponse::Ok().json(board))
}
