//! `/v1/challenges`: the waiting room (issue, list, accept, decline, cancel) and
//! `/v1/games/{id}/rematch`.

use crate::auth::{Authenticated, MaybeAuthenticated, PLAY};
use crate::problem::{HttpError, Problem};
use crate::state::AppState;
use actix_web::{delete, get, post, web, HttpResponse};
use app::club::challenges::{ChallengeFilter, ChallengeOut, NewChallenge};
use app::{ApiCode, ApiError};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// A player's display name, for the waiting room.
fn names(state: &AppState) -> impl Fn(&str) -> Option<String> + '_ {
    super::club::names(&state.players)
}

/// Issue a challenge: an open one (for anyone, or anyone within a rating range), or one to a
/// named player (`to`). Once every seat is taken its game starts.
#[utoipa::path(operation_id = "createChallenge", tag = "club", security(("bearer" = ["play"])),
    request_body = NewChallenge,
    responses((status = 201, description = "The challenge", body = ChallengeOut),
        (status = 400, description = "`invalid_challenge` (to yourself, an impossible range or seat count, an expiry out of bounds), `invalid_setup` (the game refuses the setup), `unknown_kind`", body = Problem),
        (status = 401, body = Problem),
        (status = 404, description = "`player_not_found`: `to` names nobody", body = Problem),
        (status = 413, body = Problem), (status = 415, body = Problem),
        (status = 429, description = "`rate_limited`: too many games and challenges in the last hour", body = Problem)))]
#[post("/v1/challenges")]
pub async fn create_challenge(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
    body: crate::json_body::Json<NewChallenge>,
) -> Result<HttpResponse, HttpError> {
    let new = body.into_inner();
    let exists = |id: &str| Ok(state.players.get(id)?.is_some());
    // Checked before the quota is spent: a refused challenge costs nothing.
    if let Some(to) = &new.to {
        if to != &player.id && !exists(to)? {
            return Err(ApiError::new(
                ApiCode::PlayerNotFound,
                format!("There is no player {to} to challenge."),
            )
            .into());
        }
    }
    state.limits.game_created(&player.id)?;
    let challenge = state
        .club
        .issue(&player.id, new, &exists, &names(&state))
        .await?;
    Ok(HttpResponse::Created().json(challenge))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ChallengesQuery {
    /// Only challenges of this kind of game.
    pub kind: Option<String>,
    /// `me`: only those you may accept now (needs a token).
    pub open_to: Option<String>,
    /// `me`: yours and those naming you, whatever their status (needs a token).
    pub of: Option<String>,
}

/// Challenges, oldest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct ChallengeList {
    pub items: Vec<ChallengeOut>,
}

/// The waiting room: open challenges, by kind, or only those open to me; or mine.
#[utoipa::path(operation_id = "listChallenges", tag = "club", security(("bearer" = ["read"]), ()),
    params(ChallengesQuery),
    responses((status = 200, description = "The challenges", body = ChallengeList),
        (status = 400, description = "`bad_query` or `unknown_kind`", body = Problem),
        (status = 401, description = "`open_to=me` or `of=me` without a token", body = Problem)))]
#[get("/v1/challenges")]
pub async fn list_challenges(
    state: web::Data<AppState>,
    MaybeAuthenticated(player): MaybeAuthenticated,
    query: web::Query<ChallengesQuery>,
) -> Result<HttpResponse, HttpError> {
    let me = |value: &Option<String>, name: &str| -> Result<Option<String>, ApiError> {
        match value.as_deref() {
            None => Ok(None),
            Some("me") => match &player {
                Some(player) => Ok(Some(player.id.clone())),
                None => Err(ApiError::new(
                    ApiCode::Unauthorized,
                    format!("{name}=me needs your token."),
                )),
            },
            Some(other) => Err(ApiError::new(
                ApiCode::BadQuery,
                format!("{name}={other} is not understood; use {name}=me."),
            )),
        }
    };
    let filter = ChallengeFilter {
        kind: query.kind.clone(),
        open_to: me(&query.open_to, "open_to")?,
        of: me(&query.of, "of")?,
    };
    let items = state.club.challenges(&filter, &names(&state)).await?;
    Ok(HttpResponse::Ok().json(ChallengeList { items }))
}

/// One challenge.
#[utoipa::path(operation_id = "getChallenge", tag = "club",
    params(("id" = String, Path, description = "The challenge's id")),
    responses((status = 200, description = "The challenge", body = ChallengeOut),
        (status = 404, description = "`challenge_not_found`", body = Problem)))]
#[get("/v1/challenges/{id}")]
pub async fn get_challenge(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let challenge = state.club.get_challenge(&id, &names(&state)).await?;
    Ok(HttpResponse::Ok().json(challenge))
}

/// Take a seat of a challenge; the last seat starts its game (named in `game`).
#[utoipa::path(operation_id = "acceptChallenge", tag = "club", security(("bearer" = ["play"])),
    params(("id" = String, Path, description = "The challenge's id")),
    responses((status = 200, description = "The challenge, with its game once started", body = ChallengeOut),
        (status = 401, body = Problem),
        (status = 403, description = "`forbidden`: the challenge names other players", body = Problem),
        (status = 404, description = "`challenge_not_found`", body = Problem),
        (status = 409, description = "`challenge_closed` (its seats taken, or cancelled, declined, expired, or yours), `outside_rating_range`", body = Problem)))]
#[post("/v1/challenges/{id}/accept")]
pub async fn accept_challenge(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let challenge = state
        .club
        .accept(&state.games, &id, &player.id, &names(&state))
        .await?;
    Ok(HttpResponse::Ok().json(challenge))
}

/// Decline a challenge that names you.
#[utoipa::path(operation_id = "declineChallenge", tag = "club", security(("bearer" = ["play"])),
    params(("id" = String, Path, description = "The challenge's id")),
    responses((status = 200, description = "The challenge, declined", body = ChallengeOut),
        (status = 401, body = Problem),
        (status = 403, description = "`forbidden`: it does not name you", body = Problem),
        (status = 404, description = "`challenge_not_found`", body = Problem),
        (status = 409, description = "`challenge_closed`", body = Problem)))]
#[post("/v1/challenges/{id}/decline")]
pub async fn decline_challenge(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let challenge = state
        .club
        .close(&id, &player.id, false, &names(&state))
        .await?;
    Ok(HttpResponse::Ok().json(challenge))
}

/// Cancel your challenge.
#[utoipa::path(operation_id = "cancelChallenge", tag = "club", security(("bearer" = ["play"])),
    params(("id" = String, Path, description = "The challenge's id")),
    responses((status = 200, description = "The challenge, cancelled", body = ChallengeOut),
        (status = 401, body = Problem),
        (status = 403, description = "`forbidden`: not yours", body = Problem),
        (status = 404, description = "`challenge_not_found`", body = Problem),
        (status = 409, description = "`challenge_closed`", body = Problem)))]
#[delete("/v1/challenges/{id}")]
pub async fn cancel_challenge(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let challenge = state
        .club
        .close(&id, &player.id, true, &names(&state))
        .await?;
    Ok(HttpResponse::Ok().json(challenge))
}

/// Offer the players of a finished game the same table again, each moved on by one seat: a
/// challenge to them, whose game starts once they all accept.
#[utoipa::path(operation_id = "offerRematch", tag = "club", security(("bearer" = ["play"])),
    params(("id" = String, Path, description = "The finished game's id")),
    responses((status = 201, description = "The rematch's challenge", body = ChallengeOut),
        (status = 400, description = "`invalid_challenge`: the game's seats are not held by as many players", body = Problem),
        (status = 401, body = Problem),
        (status = 403, description = "`forbidden`: not a player of the game", body = Problem),
        (status = 404, description = "`game_not_found`", body = Problem),
        (status = 409, description = "`game_running`: the game has not ended", body = Problem),
        (status = 429, description = "`rate_limited`", body = Problem)))]
#[post("/v1/games/{id}/rematch")]
pub async fn rematch(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    state.limits.game_created(&player.id)?;
    let challenge = state
        .club
        .rematch(&state.games, &id, &player.id, &names(&state))
        .await?;
    Ok(HttpResponse::Created().json(challenge))
}
