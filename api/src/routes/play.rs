//! `/v1/games/{id}/legal` and `/v1/games/{id}/commands`: what may I do, and doing it.

use crate::auth::Authenticated;
use crate::openapi::GameCommand;
use crate::problem::{ApiError, Problem};
use crate::state::AppState;
use crate::summary::{events_for, summary, EventOut, GameSummary};
use actix_web::http::header;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use domain::registry::LegalCommand;
use domain::table::TableCommand;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// A command the caller may post now, exactly as it is, with its notation.
#[derive(Debug, Serialize, ToSchema)]
pub struct LegalOut {
    #[schema(value_type = GameCommand)]
    pub command: Value,
    /// Human-readable: `Nf3/a6`, `snow fall`, `play Q Q Q (grow)`, `resign`, ...
    #[schema(example = "Nf3/a6")]
    pub notation: String,
}

impl From<LegalCommand> for LegalOut {
    fn from(offered: LegalCommand) -> LegalOut {
        LegalOut {
            command: offered.command,
            notation: offered.notation,
        }
    }
}

/// The caller's legal commands now.
#[derive(Debug, Serialize, ToSchema)]
pub struct LegalList {
    pub version: u64,
    pub seat: usize,
    pub commands: Vec<LegalOut>,
}

/// The answer to a command: the new version, the events it caused as the caller may see them,
/// and the caller's new view of the game.
#[derive(Debug, Serialize, ToSchema)]
pub struct CommandAnswer {
    pub version: u64,
    /// True when this answers a retry of an `Idempotency-Key` already played: nothing new was
    /// recorded.
    pub replayed: bool,
    pub events: Vec<EventOut>,
    pub game: GameSummary,
}

/// The caller's legal commands, each with its notation and postable as is.
#[utoipa::path(tag = "play", security(("bearer" = [])),
    params(("id" = String, Path, description = "The game id")),
    responses((status = 200, body = LegalList), (status = 401, body = Problem),
        (status = 403, body = Problem), (status = 404, body = Problem)))]
#[get("/v1/games/{id}/legal")]
pub async fn legal(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let slot = state.games.slot(&id).await?;
    let slot = slot.lock().await;
    let seat = slot.game.seat_of(&player.id).ok_or_else(|| {
        ApiError::new(
            actix_web::http::StatusCode::FORBIDDEN,
            "not_seated",
            "You do not hold a seat in this game.",
        )
    })?;
    let mut commands = slot.game.legal(seat);
    // The rules' list knows no time: a claim is possible once another seat's deadline passed.
    if slot.game.may_claim_timeout(seat, chrono::Utc::now()) {
        let claim = TableCommand::ClaimTimeout;
        commands.push(LegalCommand {
            command: serde_json::to_value(&claim).map_err(ApiError::internal)?,
            notation: claim.notation().to_string(),
        });
    }
    Ok(HttpResponse::Ok().json(LegalList {
        version: slot.game.version(),
        seat,
        commands: commands.into_iter().map(LegalOut::from).collect(),
    }))
}

/// Reads `If-Match: "<version>"` (quotes optional).
fn expected_version(request: &HttpRequest) -> Result<Option<u64>, ApiError> {
    let Some(value) = request.headers().get(header::IF_MATCH) else {
        return Ok(None);
    };
    let text = value.to_str().unwrap_or_default().trim();
    let text = text.strip_prefix("W/").unwrap_or(text).trim_matches('"');
    text.parse().map(Some).map_err(|_| {
        ApiError::bad_request(
            "bad_if_match",
            "If-Match holds the version you played on, for instance \"12\".",
        )
    })
}

fn idempotency_key(request: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(value) = request.headers().get("Idempotency-Key") else {
        return Ok(None);
    };
    match value.to_str() {
        Ok(key) if !key.is_empty() && key.len() <= 200 => Ok(Some(key.to_string())),
        _ => Err(ApiError::bad_request(
            "bad_idempotency_key",
            "Idempotency-Key is 1 to 200 visible characters.",
        )),
    }
}

/// Plays `command` for `player` and builds the answer (shared by join and commands).
pub async fn answer(
    state: &AppState,
    request: &HttpRequest,
    id: &str,
    player: &str,
    command: Value,
) -> Result<HttpResponse, ApiError> {
    let expected = expected_version(request)?;
    let key = idempotency_key(request)?;
    if command["type"] == "request_takeback" {
        check_takeback_version(state, id, &command)?;
    }
    let (played, slot) = state
        .games
        .play(id, player, command, expected, key.as_deref())
        .await?;
    let slot = slot.lock().await;
    let agreed = played
        .envelopes
        .iter()
        .find(|e| e.event_type == "takeback_agreed")
        .and_then(|e| e.payload["version"].as_u64());
    if let (Some(version), false) = (agreed, played.duplicate) {
        // The same players at the same seats go on in a fork at the agreed version. The
        // acceptance is already durable: a failure here is ours, logged, not the player's.
        match crate::routes::forks::fork_game(
            state,
            id,
            &slot,
            version,
            slot.game.players(),
            false,
            player,
        )
        .await
        {
            Ok(fork) => {
                tracing::info!(game = %fork, parent = %id, version, "takeback: play goes on in a fork")
            }
            Err(error) => {
                tracing::error!(game = %id, version, %error, "takeback agreed but its fork failed")
            }
        }
    }
    let revealed = played
        .envelopes
        .iter()
        .any(|e| e.event_type == "seed_revealed");
    if revealed && !played.duplicate {
        let parent = slot.game.parent().map(|origin| origin.game);
        state.games.reveal_superseded(id, parent).await;
    }
    let mut game = summary(&slot, &state.players, Some(player), true);
    if played.duplicate {
        // The first answer: the game as it was right after that command.
        let last = played
            .envelopes
            .last()
            .map_or(played.first_version, |e| e.version);
        game.view = Some(state.games.view_at(&slot, last, player)?);
    }
    let answer = CommandAnswer {
        version: played.envelopes.last().map_or(game.version, |e| e.version),
        replayed: played.duplicate,
        events: events_for(&slot, Some(player), &played.envelopes),
        game,
    };
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, format!("\"{}\"", answer.version)))
        .json(answer))
}

/// A takeback goes back to the end of a command's events, where a fork can begin.
fn check_takeback_version(state: &AppState, id: &str, command: &Value) -> Result<(), ApiError> {
    let Some(version) = command["version"].as_u64() else {
        return Ok(()); // the rules refuse it with their own words
    };
    let ends_a_command = state
        .store
        .command(id, version)
        .map_err(ApiError::internal)?
        .is_some_and(|c| c.last_version == version);
    if ends_a_command {
        return Ok(());
    }
    Err(ApiError::new(
        actix_web::http::StatusCode::UNPROCESSABLE_ENTITY,
        "bad_takeback_version",
        format!("Version {version} is not the end of a command's events: take back to a version a command answer gave."),
    ))
}

/// Play a command: a game move or a table command (`resign`, `offer_draw`, ...). Answers only
/// once the events are durable.
#[utoipa::path(tag = "play", security(("bearer" = [])),
    params(("id" = String, Path, description = "The game id"),
        ("If-Match" = Option<String>, Header, description = "The version you played on: a stale one gives 412"),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes a retry return the first answer")),
    request_body = GameCommand,
    responses((status = 200, body = CommandAnswer),
        (status = 400, description = "Malformed command", body = Problem),
        (status = 401, body = Problem), (status = 403, description = "Not seated", body = Problem),
        (status = 404, body = Problem),
        (status = 409, description = "Not your turn, game over, ...", body = Problem),
        (status = 412, description = "Stale If-Match", body = Problem),
        (status = 413, body = Problem),
        (status = 422, description = "Illegal command", body = Problem)))]
#[post("/v1/games/{id}/commands")]
pub async fn play(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated,
    id: web::Path<String>,
    request: HttpRequest,
    command: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    answer(&state, &request, &id, &player.id, command.into_inner()).await
}
