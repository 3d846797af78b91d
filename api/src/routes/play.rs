//! `/v1/games/{id}/legal` and `/v1/games/{id}/commands`: what may I do, and doing it.

use crate::auth::Authenticated;
use crate::command_answer::{answer_command, CommandAnswer};
use crate::openapi::GameCommand;
use crate::problem::{ApiError, Problem};
use crate::state::AppState;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use domain::registry::LegalCommand;
use domain::{ErrorCode, RuleError};
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
    let slot = state.games.slot(&id)?;
    let slot = slot.lock().await;
    let seat = slot.game.seat_of(&player.id).ok_or_else(|| {
        RuleError::new(ErrorCode::NotSeated, "You do not hold a seat in this game.")
    })?;
    let commands = slot.game.legal_at(seat, chrono::Utc::now());
    Ok(HttpResponse::Ok().json(LegalList {
        version: slot.game.version(),
        seat,
        commands: commands.into_iter().map(LegalOut::from).collect(),
    }))
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
    command: crate::json_body::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    answer_command(&state, &request, &id, &player.id, command.into_inner()).await
}
