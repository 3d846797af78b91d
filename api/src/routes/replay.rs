//! `/v1/games/{id}/states/{version}`, `/audit`, `/log` and `/record`: replaying a game, auditing
//! it, and its whole log or its record, each only as far as the caller may see it.

use crate::auth::MaybeAuthenticated;
use crate::problem::{HttpError, Problem};
use crate::state::AppState;
use actix_web::{get, web, HttpResponse};
use domain::audit::{AuditReport, Divergence};
use domain::engine::{Outcome, Seat};
use domain::log::GameLog;
use domain::table::Status;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// A game as it stood at one version, as the caller may see it.
#[derive(Debug, Serialize, ToSchema)]
pub struct StateAt {
    pub game: String,
    /// The game id of the rules: it decides the type of `view`.
    #[schema(example = "avalanche-chess")]
    pub kind: String,
    /// The version shown: the state after this many events.
    pub version: u64,
    /// The game's version now.
    pub current_version: u64,
    pub status: Status,
    /// The seats that were to act at that version.
    pub to_act: Vec<Seat>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// The seed, once the game has ended (it is public then).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<String>,
    /// The game's own state at that version, shaped for the caller as the game is now: their
    /// own seat's secrets while it runs, everything once it has ended.
    #[schema(value_type = crate::wire::GameView)]
    pub view: Value,
    /// What was said up to that version, at its place: the game's `said` events as the events
    /// endpoint shows them to the caller (the text, or `hidden`), oldest first.
    pub messages: Vec<crate::summary::EventOut>,
}

/// The state of a game at any version, as the caller may see it.
#[utoipa::path(operation_id = "getGameStateAt", tag = "replay", security(("bearer" = ["read"]), ()),
    params(("id" = String, Path, description = "The game id"),
        ("version" = u64, Path, description = "A version from 1 to the game's version")),
    responses((status = 200, description = "The game after that version, as the token's seat (or a spectator) may see it", body = StateAt),
        (status = 400, description = "`bad_path`: the version is not a number", body = Problem),
        (status = 401, body = Problem),
        (status = 404, description = "`game_not_found`, or `version_not_found`: the game has no such version", body = Problem)))]
#[get("/v1/games/{id}/states/{version}")]
pub async fn state_at(
    state: web::Data<AppState>,
    MaybeAuthenticated(player): MaybeAuthenticated,
    path: web::Path<(String, u64)>,
) -> Result<HttpResponse, HttpError> {
    let (id, version) = path.into_inner();
    let reader = player.as_ref().map(|p| p.id.as_str());
    let past = state.games.state_at(&id, version, reader).await?;
    let messages = {
        let (slot, mut envelopes) = state
            .games
            .events(&id, 0, version as usize, std::time::Duration::ZERO)
            .await?;
        envelopes.retain(|e| e.event_type == app::messages::SAID);
        let slot = slot.lock().await;
        crate::summary::events_for(&slot, reader, &envelopes, &state.messages)
    };
    Ok(HttpResponse::Ok().json(StateAt {
        game: id,
        kind: past.kind,
        version,
        current_version: past.current_version,
        status: past.then.facts().status,
        to_act: past.then.facts().to_act,
        outcome: past.then.facts().outcome,
        seed: past.seed,
        view: past.view,
        messages,
    }))
}

/// The answer of an audit: what was verified, or the first divergence.
#[derive(Debug, Serialize, ToSchema)]
pub struct AuditAnswer {
    pub game: String,
    /// Whether every command gives exactly the stored events and the seed its commitment.
    pub valid: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<AuditReport>,
    /// The first place where the stored log and the rules disagree.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub divergence: Option<Divergence>,
}

/// Audit a game: every stored command is decided again from the start with the same seed and
/// must give exactly the stored events; the revealed seed must match its commitment. For ended
/// games and analysis forks, and for running games without hidden information.
#[utoipa::path(operation_id = "auditGame", tag = "replay",
    params(("id" = String, Path, description = "The game id")),
    responses((status = 200, description = "Valid with what was verified, or not valid with the first divergence", body = AuditAnswer),
        (status = 404, body = Problem),
        (status = 409, description = "`audit_not_available`: a running game with hidden information, or one sealed by a takeback", body = Problem)))]
#[get("/v1/games/{id}/audit")]
pub async fn audit(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let answer = match state.games.audit(&id).await? {
        Ok(report) => AuditAnswer {
            game: id.into_inner(),
            valid: true,
            report: Some(report),
            divergence: None,
        },
        Err(divergence) => AuditAnswer {
            game: id.into_inner(),
            valid: false,
            report: None,
            divergence: Some(divergence),
        },
    };
    Ok(HttpResponse::Ok().json(answer))
}

/// A game's whole event log with the commands beside their events: what `POST /v1/imports`
/// and `avalanche audit` read. For ended games, and for games without hidden information.
#[utoipa::path(operation_id = "getGameLog", tag = "replay",
    params(("id" = String, Path, description = "The game id")),
    responses((status = 200, description = "Every event and every command of the game", body = GameLog),
        (status = 404, body = Problem),
        (status = 409, description = "`log_not_available`: a running game with hidden information, or one sealed by a takeback", body = Problem)))]
#[get("/v1/games/{id}/log")]
pub async fn game_log(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let log = state.games.whole_log(&id).await?;
    Ok(HttpResponse::Ok().json(log))
}

/// An Avalanche Chess game as a record in the notation of the rules file (`1. e4/a6 Nf6/a3`),
/// with tag pairs; a running game has no result line.
#[utoipa::path(operation_id = "getGameRecord", tag = "replay",
    params(("id" = String, Path, description = "The game id")),
    responses((status = 200, description = "The record, with its tag pairs", content_type = "text/plain", body = String,
            example = json!("[Game \"g-0c1d2e3f4a5b6c7d\"]\n[Variant \"standard\"]\n\n1. e4/a6 Nf6/a3\n2. Qh5/h6 Resigns\n1-0\n")),
        (status = 404, body = Problem),
        (status = 409, description = "`no_record_notation`: not a game of Avalanche Chess (its log is its export)", body = Problem)))]
#[get("/v1/games/{id}/record")]
pub async fn record(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let text = state
        .games
        .record(&id, |player| state.players.name(player))
        .await?;
    Ok(HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .body(text))
}
