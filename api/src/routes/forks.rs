//! `/v1/games/{id}/forks`: undo by fork. A fork is a new game whose stream begins with a copy
//! of the parent's events up to a version, then a `forked` event; the parent never changes.

use crate::archive::{fold, read_log, write_game};
use crate::auth::{Authenticated, MaybeAuthenticated};
use crate::games::Slot;
use crate::players::random_bytes;
use crate::problem::{ApiError, Problem};
use crate::state::AppState;
use crate::summary::{summary, GameSummary};
use actix_web::http::StatusCode;
use actix_web::{get, post, web, HttpResponse};
use chrono::Utc;
use domain::engine::{Context, Viewer};
use domain::log::{fork_command, LoggedCommand, LoggedEvent};
use domain::Seed;
use serde::Deserialize;
use serde_json::Value;
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
#[utoipa::path(tag = "replay", security(("bearer" = [])),
    params(("id" = String, Path, description = "The parent game's id")),
    request_body = NewFork,
    responses((status = 201, body = GameSummary), (status = 401, body = Problem),
        (status = 404, body = Problem),
        (status = 409, description = "A running game with hidden information", body = Problem),
        (status = 422, description = "Not a version to fork at", body = Problem)))]
#[post("/v1/games/{id}/forks")]
pub async fn create_fork(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated,
    id: web::Path<String>,
    body: web::Json<NewFork>,
) -> Result<HttpResponse, ApiError> {
    let version = body.version;
    let parent = state.games.slot(&id).await?;
    let parent = parent.lock().await;
    // A game sealed by a takeback still hides the cards that go on in its fork.
    if parent.game.hidden_information() && parent.viewer(None) != Viewer::Everyone {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "fork_not_available",
            "This game hides cards while it runs (or, superseded by a takeback, until the fork that goes on from it ends): an analysis fork may be made once it has ended.",
        ));
    }
    let players = vec![Some(player.id.clone()); parent.game.seats()];
    let fork_id = fork_game(&state, &id, &parent, version, players, true, &player.id).await?;
    drop(parent);
    tracing::info!(game = %fork_id, parent = %id, version, "game forked");
    let slot = state.games.slot(&fork_id).await?;
    let slot = slot.lock().await;
    let game = summary(&slot, &state.players, Some(&player.id), true);
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/v1/games/{fork_id}")))
        .json(game))
}

/// Writes a fork of `parent` (game `id`) at `version` with `players` at the seats, given by
/// `player`; returns its id. `analysis` shows everything to everyone: only where nothing is
/// secret. Otherwise it is the fork of an agreed takeback. The fork keeps the parent's seed,
/// except a takeback's fork in a game with hidden cards: it deals from a fresh seed, committed
/// to in `forked`, from the reshuffle of every face-down pile on, and keeps the parent's
/// seeds as its earlier ones (see `domain/src/table/sealed.rs`).
pub async fn fork_game(
    state: &AppState,
    id: &str,
    parent: &Slot,
    version: u64,
    players: Vec<Option<String>>,
    analysis: bool,
    player: &str,
) -> Result<String, ApiError> {
    let current = parent.game.version();
    if version == 0 || version > current {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad_fork_version",
            format!("Game {id} has versions 1 to {current}, not {version}."),
        ));
    }
    let mut log = read_log(&state.store, id, parent.game.kind(), Some(version))?;
    if let Some(last) = log.commands.last() {
        if last.last_version != version {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "bad_fork_version",
                format!(
                    "Version {version} is in the middle of one command's events: fork at version {} or {}.",
                    last.first_version - 1,
                    last.last_version
                ),
            ));
        }
    }
    let payloads: Vec<Value> = log.events.iter().map(|e| e.payload.clone()).collect();
    let copy = fold(&state.registry, id, &payloads)?;
    let now = Utc::now();
    let mut seed = parent.secret_seed();
    let mut earlier = parent.earlier_seeds().to_vec();
    let forked = if analysis {
        copy.fork(id, players.clone(), analysis, now)?
    } else {
        if copy.hidden_information() {
            earlier.push(seed);
            seed = Seed(random_bytes::<32>()?);
        }
        let ctx = Context::new(seed, version, now).with_earlier_seeds(earlier.clone());
        copy.takeback_fork(id, players.clone(), &ctx)?
    };
    log.commands.push(LoggedCommand {
        first_version: version + 1,
        last_version: version + forked.len() as u64,
        actor: format!("player:{player}"),
        recorded_at: now,
        command: Some(fork_command(id, version, &players, analysis)),
    });
    for (i, event) in forked.into_iter().enumerate() {
        log.events.push(LoggedEvent {
            version: version + 1 + i as u64,
            event_type: event.event_type,
            payload: event.payload,
            recorded_at: Some(now),
            actor: Some(format!("player:{player}")),
        });
    }
    let fork = write_game(&state.store, &state.registry, &log, seed, &earlier).await?;
    // Fold it now, so that the clock keeper watches a timed fork's deadlines from the start.
    state.games.slot(&fork).await?;
    Ok(fork)
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ForksQuery {
    /// Forks after this id (the last id of the previous page).
    pub after: Option<String>,
    /// At most this many (default 50, at most 200).
    pub limit: Option<usize>,
}

/// The forks of a game, in pages ordered by id.
#[utoipa::path(tag = "replay",
    params(("id" = String, Path, description = "The parent game's id"), ForksQuery),
    responses((status = 200, body = Vec<GameSummary>), (status = 404, body = Problem)))]
#[get("/v1/games/{id}/forks")]
pub async fn list_forks(
    state: web::Data<AppState>,
    MaybeAuthenticated(player): MaybeAuthenticated,
    id: web::Path<String>,
    query: web::Query<ForksQuery>,
) -> Result<HttpResponse, ApiError> {
    state.games.slot(&id).await?;
    let limit = query.limit.unwrap_or(50).clamp(1, 200);
    let ids = state
        .games
        .ids_tagged("parent", &id, query.after.as_deref(), limit)?;
    let mut forks = Vec::with_capacity(ids.len());
    for fork in ids {
        let slot = state.games.slot(&fork).await?;
        let slot = slot.lock().await;
        forks.push(summary(
            &slot,
            &state.players,
            player.as_ref().map(|p| p.id.as_str()),
            false,
        ));
    }
    Ok(HttpResponse::Ok().json(forks))
}
