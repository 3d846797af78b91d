//! `/v1/tournaments`: create, list, read (rounds, pairings, games, standings, crosstable),
//! join, withdraw, start, a league's next edition, and the audit of a tournament's log.

use crate::auth::{Authenticated, MaybeAuthenticated, PLAY};
use crate::problem::{HttpError, Problem};
use crate::state::AppState;
use actix_web::{get, post, web, HttpResponse};
use app::club::tournaments::{
    parse_status, NewTournament, NextEdition, TournamentAct, TournamentAudit, TournamentOut,
    TournamentSummary,
};
use app::{ApiCode, ApiError};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// Create a tournament: its game, format, seats a table, rounds, clock, entry and players.
/// Its seed's SHA-256 is public from now on; the seed is revealed when it ends.
#[utoipa::path(operation_id = "createTournament", tag = "tournaments", security(("bearer" = ["play"])),
    request_body = NewTournament,
    responses((status = 201, description = "The tournament", body = TournamentOut),
        (status = 400, description = "`invalid_tournament` (name, seats, players, rounds or entry out of bounds), `invalid_setup`, `unknown_kind`", body = Problem),
        (status = 401, body = Problem), (status = 413, body = Problem), (status = 415, body = Problem),
        (status = 429, description = "`rate_limited`", body = Problem)))]
#[post("/v1/tournaments")]
pub async fn create_tournament(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
    body: crate::json_body::Json<NewTournament>,
) -> Result<HttpResponse, HttpError> {
    state.limits.game_created(&player.id)?;
    let tournament = state
        .club
        .create_tournament(&state.games, &player.id, body.into_inner())
        .await?;
    let names = super::club::names(&state.players);
    Ok(HttpResponse::Created().json(tournament.named(&names)))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct TournamentsQuery {
    /// `open`, `running`, `finished` or `cancelled`.
    pub status: Option<String>,
}

/// Tournaments, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct TournamentList {
    pub items: Vec<TournamentSummary>,
}

/// Tournaments: open for entry, running, finished, cancelled; with a token, each says whether
/// its player has joined.
#[utoipa::path(operation_id = "listTournaments", tag = "tournaments", security(("bearer" = ["read"]), ()),
    params(TournamentsQuery),
    responses((status = 200, description = "The tournaments", body = TournamentList),
        (status = 400, description = "`bad_query`", body = Problem)))]
#[get("/v1/tournaments")]
pub async fn list_tournaments(
    state: web::Data<AppState>,
    MaybeAuthenticated(player): MaybeAuthenticated,
    query: web::Query<TournamentsQuery>,
) -> Result<HttpResponse, HttpError> {
    let status = match query.status.as_deref() {
        None => None,
        Some(text) => Some(parse_status(text).ok_or_else(|| {
            ApiError::new(
                ApiCode::BadQuery,
                format!("status={text} is not understood: open, running, finished or cancelled."),
            )
        })?),
    };
    let viewer = player.as_ref().map(|p| p.id.as_str());
    let items = state.club.tournaments(status, viewer).await?;
    Ok(HttpResponse::Ok().json(TournamentList { items }))
}

/// One tournament: its players, rounds with each table's game and result, standings with
/// their tie-breaks, and the crosstable.
#[utoipa::path(operation_id = "getTournament", tag = "tournaments", security(("bearer" = ["read"]), ()),
    params(("id" = String, Path, description = "The tournament's id")),
    responses((status = 200, description = "The tournament", body = TournamentOut),
        (status = 404, description = "`tournament_not_found`", body = Problem)))]
#[get("/v1/tournaments/{id}")]
pub async fn get_tournament(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let tournament = state.club.tournament(&id).await?;
    let names = super::club::names(&state.players);
    Ok(HttpResponse::Ok().json(tournament.named(&names)))
}

async fn act(
    state: &AppState,
    id: &str,
    player: &str,
    act: TournamentAct,
) -> Result<HttpResponse, HttpError> {
    let tournament = state
        .club
        .tournament_act(&state.games, id, player, act)
        .await?;
    let names = super::club::names(&state.players);
    Ok(HttpResponse::Ok().json(tournament.named(&names)))
}

/// Join a tournament open for entry.
#[utoipa::path(operation_id = "joinTournament", tag = "tournaments", security(("bearer" = ["play"])),
    params(("id" = String, Path, description = "The tournament's id")),
    responses((status = 200, description = "The tournament", body = TournamentOut),
        (status = 401, body = Problem),
        (status = 404, description = "`tournament_not_found`", body = Problem),
        (status = 409, description = "`entry_closed`, `tournament_full`, `tournament_started`, `already_joined`", body = Problem)))]
#[post("/v1/tournaments/{id}/join")]
pub async fn join_tournament(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    act(&state, &id, &player.id, TournamentAct::Join).await
}

/// Withdraw from a tournament before it starts (once started, your games are played out).
#[utoipa::path(operation_id = "withdrawFromTournament", tag = "tournaments", security(("bearer" = ["play"])),
    params(("id" = String, Path, description = "The tournament's id")),
    responses((status = 200, description = "The tournament", body = TournamentOut),
        (status = 401, body = Problem),
        (status = 404, description = "`tournament_not_found`", body = Problem),
        (status = 409, description = "`not_joined`, `tournament_started`", body = Problem)))]
#[post("/v1/tournaments/{id}/withdraw")]
pub async fn withdraw_from_tournament(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    act(&state, &id, &player.id, TournamentAct::Withdraw).await
}

/// Start a tournament (its creator): the seeding is drawn and the first round paired; its
/// games start at once.
#[utoipa::path(operation_id = "startTournament", tag = "tournaments", security(("bearer" = ["play"])),
    params(("id" = String, Path, description = "The tournament's id")),
    responses((status = 200, description = "The tournament, with its first round", body = TournamentOut),
        (status = 401, body = Problem),
        (status = 403, description = "`forbidden`: not its creator", body = Problem),
        (status = 404, description = "`tournament_not_found`", body = Problem),
        (status = 409, description = "`too_few_players`, `cannot_pair`, `tournament_started`", body = Problem)))]
#[post("/v1/tournaments/{id}/start")]
pub async fn start_tournament(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    act(&state, &id, &player.id, TournamentAct::Start).await
}

/// Create a league's next edition (its creator, once it finished): the same game, clock and
/// divisions; the players of this edition entered, but those who withdrew; new players join
/// until its `entry_until` and start in the lowest division. Its start writes out the
/// promotion and relegation from this edition's final standings.
#[utoipa::path(operation_id = "createNextEdition", tag = "tournaments", security(("bearer" = ["play"])),
    params(("id" = String, Path, description = "The league's id (the edition that finished)")),
    request_body = NextEdition,
    responses((status = 201, description = "The next edition, open for entry", body = TournamentOut),
        (status = 400, description = "`invalid_tournament` (entry or start time out of bounds)", body = Problem),
        (status = 401, body = Problem),
        (status = 403, description = "`forbidden`: not its creator", body = Problem),
        (status = 404, description = "`tournament_not_found`", body = Problem),
        (status = 409, description = "`not_a_league`, `edition_not_finished`, `next_edition_exists`", body = Problem),
        (status = 413, body = Problem), (status = 415, body = Problem),
        (status = 429, description = "`rate_limited`", body = Problem)))]
#[post("/v1/tournaments/{id}/next")]
pub async fn create_next_edition(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
    id: web::Path<String>,
    body: crate::json_body::Json<NextEdition>,
) -> Result<HttpResponse, HttpError> {
    state.limits.game_created(&player.id)?;
    let next = state
        .club
        .next_edition(&state.games, &id, &player.id, body.into_inner())
        .await?;
    Ok(HttpResponse::Created().json(next))
}

/// The audit of a tournament: every event decided again from the events before it, with the
/// revealed seed once it has ended.
#[utoipa::path(operation_id = "auditTournament", tag = "tournaments", security(("bearer" = ["read"]), ()),
    params(("id" = String, Path, description = "The tournament's id")),
    responses((status = 200, description = "What the audit found", body = TournamentAudit),
        (status = 404, description = "`tournament_not_found`", body = Problem)))]
#[get("/v1/tournaments/{id}/audit")]
pub async fn audit_tournament(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let audit = state.club.audit_tournament(&state.games, &id).await?;
    Ok(HttpResponse::Ok().json(audit))
}
