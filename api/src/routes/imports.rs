//! `/v1/imports`: a finished game from elsewhere, as an Avalanche Chess record or as a game's
//! event log, audited before it is stored; refused with the first failing half-turn or event.

use crate::auth::{Authenticated, PLAY};
use crate::problem::{HttpError, Problem};
use crate::state::AppState;
use crate::summary::{summary, GameSummary};
use actix_web::{post, web, HttpResponse};
use app::randomness;
use app::{ApiCode, ApiError};
use chrono::Utc;
use domain::audit::audit;
use domain::games::chess::Variant;
use domain::log::GameLog;
use domain::records::{import_record, RecordError};
use domain::table::{Status, TableFact};
use domain::Seed;
use futures_util::StreamExt;
use serde::Deserialize;
use serde_json::json;
use utoipa::ToSchema;

/// Imports are whole games: larger than commands.
const IMPORT_LIMIT: usize = 8 * 1024 * 1024;

/// A game to import.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(tag = "format", rename_all = "snake_case", deny_unknown_fields)]
pub enum ImportRequest {
    /// An Avalanche Chess record in any form the rules file lists. It must end (by the rules,
    /// a resignation or a result line). The seats are held by `imported:white` and
    /// `imported:black`, followed by `:` and the name of the record's `White` or `Black` tag
    /// when it gives one that is a valid player name (`imported:white:Betza`, named `Betza`).
    #[schema(example = json!({"format": "record", "variant": "standard",
        "record": "1. e4/a6! Nf6/a3 {a quiet reply}\n2. Qh5/h6 Resigns\n1-0\n"}))]
    Record {
        record: String,
        /// The variant: `standard`, `balanced`, `reversed`, `balanced-reversed`; when absent,
        /// a `Variant` tag of the record, or else the first variant that reads the record (a
        /// first turn without a push, `Nf3//`, reads only in a balanced one). A variant named
        /// that does not read it, when another does, is refused with `wrong_variant` naming
        /// that one (`details.reads_as`).
        variant: Option<String>,
        /// Import a record that breaks at an illegal half-turn N up to the half-turn before
        /// it, instead of refusing it with `illegal_record`: the game is stored as played up to
        /// N - 1 and ends there without a winner, its log keeping the break (event
        /// `record_broken`; the outcome's reason names N, its text and why). A record that
        /// goes on after its game ended is refused all the same. Default `false`.
        #[serde(default)]
        up_to_error: bool,
    },
    /// A finished game's log, as `GET /v1/games/{id}/log` gives it. The players it names are
    /// not taken at their word: each becomes an imported player by the first seat they hold,
    /// `imported:seat1`, `imported:seat2`, ..., followed by `:` and the seat's name in `names`
    /// when given (`imported:seat1:Bea`), and a fork's parent becomes `imported:` and its id.
    Log {
        log: GameLog,
        /// The names of the players seat by seat, as they were known where the game was
        /// played (each a valid player name, or `null`); a seat without one is unnamed.
        #[serde(default)]
        #[schema(example = json!(["Bea", null]))]
        names: Vec<Option<String>>,
    },
}

/// Import a finished game: a chess record or a game log. It is audited first (every command
/// decided again, the seed checked against its commitment) and stored only if it passes, as
/// a game of imported players (`imported:...`), marked `imported` with its importer: it is
/// in no player's games and counts for no rating or tournament.
#[utoipa::path(operation_id = "importGame", tag = "replay", security(("bearer" = ["play"])),
    request_body = ImportRequest,
    responses(
        (status = 201, description = "The imported game, finished, with its seed revealed", body = GameSummary,
            headers(("Location" = String, description = "The game's path"))),
        (status = 400, description = "Unreadable body, unknown variant, or `invalid_name` (a name of `names`)", body = Problem),
        (status = 401, body = Problem), (status = 413, body = Problem),
        (status = 422, description = "`illegal_record` (details: half_turn, text, fen, reason), \
 `unfit_record`, `wrong_variant` (details: reads_as), `audit_failed` (details: version, reason, expected, found) or `game_not_finished`",
            body = Problem),
        (status = 429, description = "`rate_limited`: too many imports by this player this hour; `Retry-After` says when to try again", body = Problem)))]
#[post("/v1/imports")]
pub async fn import(
    state: web::Data<AppState>,
    Authenticated(player): Authenticated<PLAY>,
    mut payload: web::Payload,
) -> Result<HttpResponse, HttpError> {
    state.limits.import_created(&player.id)?;
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| {
            if crate::connections::is_late_body(&e) {
                crate::json_body::body_too_slow(&e)
            } else {
                ApiError::new(ApiCode::BadRequest, format!("Unreadable body: {e}."))
            }
        })?;
        if body.len() + chunk.len() > IMPORT_LIMIT {
            return Err(
                ApiError::new(ApiCode::PayloadTooLarge, "An import is at most 8 MiB.").into(),
            );
        }
        body.extend_from_slice(&chunk);
    }
    let request: ImportRequest = crate::json_body::read_checked(&body)?.map_err(|e| {
        if e.is_data() {
            // Such as a missing `format`: JSON, but not an import.
            ApiError::new(ApiCode::BadRequest,
                format!("This is not an import ({e}): send {{\"format\": \"record\", \"record\": ...}} or {{\"format\": \"log\", \"log\": ...}}."),
            )
        } else {
            ApiError::new(ApiCode::MalformedJson, format!("Unreadable import: {e}."))
        }
    })?;
    let (log, seed) = match request {
        ImportRequest::Record {
            record,
            variant,
            up_to_error,
        } => from_record(&state, &record, variant, up_to_error)?,
        ImportRequest::Log { log, names } => {
            let names = names
                .into_iter()
                .map(|name| {
                    name.map(|name| {
                        app::players::clean_name(&name, "player's name")
                            .map_err(|why| ApiError::new(ApiCode::InvalidName, why))
                    })
                    .transpose()
                })
                .collect::<Result<Vec<_>, _>>()?;
            from_log(&state, log.as_imported(&names))?
        }
    };
    let earlier = earlier_seeds(&log);
    let slot = state.games.import(&log, seed, &earlier, &player.id).await?;
    let slot = slot.lock().await;
    let game = summary(&slot, &state.players, &state.club, Some(&player.id), true);
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/v1/games/{}", game.id)))
        .json(game))
}

fn from_record(
    state: &AppState,
    record: &str,
    variant: Option<String>,
    up_to_error: bool,
) -> Result<(GameLog, Seed), ApiError> {
    let named = variant.or_else(|| tag(record, "Variant").map(|v| v.to_ascii_lowercase()));
    // The players as the record names them; a name that is unknown ("?") or not a valid
    // player name here is left out (the seat is then just White or Black).
    let name = |side: &str| {
        tag(record, side)
            .filter(|n| n.trim() != "?")
            .and_then(|n| app::players::clean_name(&n, "player's name").ok())
    };
    let names = [name("White"), name("Black")];
    let wanted = match named.as_deref() {
        None => None,
        Some(id) => Some(Variant::from_id(Some(id)).ok_or_else(|| {
            ApiError::new(domain::ErrorCode::InvalidSetup,
                format!(
                    "Avalanche Chess has no variant {id:?} (standard, balanced, reversed, balanced-reversed)."
                ),
            )
        })?),
    };
    let read = |variant: Variant, up_to_error: bool| -> Result<_, ApiError> {
        let seed = randomness::seed()?;
        Ok((
            import_record(
                &state.registry,
                record,
                variant,
                [names[0].as_deref(), names[1].as_deref()],
                seed,
                Utc::now(),
                up_to_error,
            ),
            seed,
        ))
    };
    // Without a variant named, the record says which it is: the first variant that reads it
    // (`Nf3//`, a first turn without a push, reads only in a balanced one).
    let first = wanted.unwrap_or(Variant::Standard);
    let (mut outcome, mut seed) = read(first, false)?;
    if outcome.is_err() {
        let others = Variant::ALL.into_iter().filter(|v| *v != first);
        let mut reads = None;
        // The variant that reads the record furthest, for an import up to its break.
        let broken_at = |outcome: &Result<_, RecordError>| match outcome {
            Err(RecordError::Illegal(e)) => Some(e.half_turn),
            _ => None,
        };
        let mut furthest = broken_at(&outcome).map(|at| (at, first));
        for other in others {
            let (attempt, attempt_seed) = read(other, false)?;
            if attempt.is_ok() {
                reads = Some((other, attempt, attempt_seed));
                break;
            }
            if let Some(at) = broken_at(&attempt) {
                if furthest.is_none_or(|(best, _)| at > best) {
                    furthest = Some((at, other));
                }
            }
        }
        match (wanted, reads) {
            (None, Some((_, attempt, attempt_seed))) => {
                outcome = attempt;
                seed = attempt_seed;
            }
            (Some(asked), Some((other, _, _))) => {
                let error = outcome.err().map(|e| e.to_string()).unwrap_or_default();
                return Err(ApiError::new(ApiCode::WrongVariant,
                    format!(
                        "The record does not read as {} ({error}), but it reads as {}: import it with that variant.",
                        asked.id(),
                        other.id()
                    ),
                )
                .with_details(json!({"reads_as": other.id()})));
            }
            (_, None) if up_to_error => {
                // No variant reads it whole: up to its break, in the variant named, or else in
                // the one that reads it furthest.
                let variant = wanted.or(furthest.map(|(_, v)| v)).unwrap_or(first);
                (outcome, seed) = read(variant, true)?;
            }
            (_, None) => {}
        }
    }
    let imported = outcome.map_err(|error| match error {
        RecordError::Illegal(e) => ApiError::new(ApiCode::IllegalRecord, e.to_string())
            .with_details(json!({
                "half_turn": e.half_turn, "text": e.text, "fen": e.fen, "reason": e.reason,
            })),
        RecordError::Unfit(reason) => ApiError::new(ApiCode::UnfitRecord, reason),
        RecordError::Fault(fault) => fault.into(),
    })?;
    // The record became commands of our own making: audit them like any log.
    let log = from_log(state, imported.log)?.0;
    Ok((log, seed))
}

/// The seeds of an audited log, as its last `seed_revealed` reveals them: the seed, and those
/// of its earlier commitments (a fork by takeback in a game with hidden cards; usually none).
fn revealed_seeds(log: &GameLog) -> Option<(Seed, Vec<Seed>)> {
    log.events
        .iter()
        .rev()
        .find_map(|e| match TableFact::of_stored(&e.payload) {
            Some(TableFact::SeedRevealed { seed, earlier }) => Some((seed, earlier)),
            _ => None,
        })
}

/// The seeds of the earlier commitments of an audited log; usually none.
fn earlier_seeds(log: &GameLog) -> Vec<Seed> {
    revealed_seeds(log)
        .map(|(_, earlier)| earlier)
        .unwrap_or_default()
}

/// The value of a record's tag named `name` (`[White "Betza"]`), if it has one.
fn tag(record: &str, name: &str) -> Option<String> {
    record.lines().find_map(|line| {
        let inner = line.trim().strip_prefix('[')?.strip_suffix(']')?;
        let (key, value) = inner.split_once(char::is_whitespace)?;
        key.eq_ignore_ascii_case(name)
            .then(|| value.trim().trim_matches('"').to_string())
    })
}

fn from_log(state: &AppState, log: GameLog) -> Result<(GameLog, Seed), ApiError> {
    let report = audit(&state.registry, &log, None).map_err(|divergence| {
        ApiError::new(
            ApiCode::AuditFailed,
            format!("The log does not pass its audit: {divergence}."),
        )
        .with_details(serde_json::to_value(&divergence).unwrap_or_default())
    })?;
    if report.status != Status::Finished {
        return Err(ApiError::new(ApiCode::GameNotFinished,
            "Only finished games are imported: their seed is revealed, so every deal can be checked.",
        ));
    }
    let (seed, _) = revealed_seeds(&log)
        .ok_or_else(|| ApiError::internal("an audited finished log without its seed"))?;
    Ok((log, seed))
}
