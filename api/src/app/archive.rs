//! Whole game logs in and out of the store: a game's log (events and the commands beside
//! them) for replays, audits and exports, and an audited log written as a new game (imports
//! and forks).

use crate::games::{append_error, tags, to_new_events, EARLIER_SEEDS};
use crate::players::random_hex;
use crate::problem::ApiError;
use domain::log::{GameLog, LoggedCommand, LoggedEvent};
use domain::registry::{EventRecord, LiveGame};
use domain::{Registry, Seed};
use serde_json::Value;
use storage::{Batch, Envelope, Store};

/// Events read from the store at a time.
const PAGE: usize = 1000;
/// The secret under which a game's seed is stored (as `games.rs` does).
const SEED: &str = "seed";
/// Games written from a log: game id -> the version its log ends at. Their batches up to
/// there are a copy of the past, which webhooks must not announce as news.
const LOGGED_GAMES: &str = "logged_games";

/// The version up to which game `id` was written from a log (a fork or an import), if it was.
pub fn logged_until(store: &Store, id: &str) -> Result<Option<u64>, ApiError> {
    let Some(bytes) = store
        .get_record(LOGGED_GAMES, id)
        .map_err(ApiError::internal)?
    else {
        return Ok(None);
    };
    let text = String::from_utf8(bytes).map_err(ApiError::internal)?;
    text.parse().map(Some).map_err(ApiError::internal)
}

/// The envelopes of game `id` from version 1 up to `up_to` (all when `None`).
pub fn envelopes(store: &Store, id: &str, up_to: Option<u64>) -> Result<Vec<Envelope>, ApiError> {
    let mut envelopes: Vec<Envelope> = Vec::new();
    loop {
        let from = envelopes.len() as u64;
        let want = match up_to {
            Some(last) if last <= from => break,
            Some(last) => PAGE.min((last - from) as usize),
            None => PAGE,
        };
        let page = store
            .read_stream(id, from, want)
            .map_err(ApiError::internal)?;
        let done = page.len() < want;
        envelopes.extend(page);
        if done {
            break;
        }
    }
    Ok(envelopes)
}

/// Folds the payloads of a game's first events into a game.
pub fn fold(
    registry: &Registry,
    id: &str,
    payloads: &[Value],
) -> Result<Box<dyn LiveGame>, ApiError> {
    let kind_id = payloads
        .first()
        .and_then(|p| p["kind"].as_str())
        .unwrap_or_default();
    let kind = registry
        .get(kind_id)
        .ok_or_else(|| ApiError::internal(format!("game {id} is of unknown kind {kind_id}")))?;
    kind.fold(payloads)
        .map_err(|e| ApiError::internal(format!("game {id} does not fold: {e}")))
}

/// The log of game `id` (of `kind`) up to `up_to`: its events, and each command with the
/// versions it produced. The last command may go on past `up_to`.
pub fn read_log(
    store: &Store,
    id: &str,
    kind: &str,
    up_to: Option<u64>,
) -> Result<GameLog, ApiError> {
    let envelopes = envelopes(store, id, up_to)?;
    let last = envelopes.len() as u64;
    let mut commands = Vec::new();
    let mut version = 1;
    while version <= last {
        let logged = match store.command(id, version).map_err(ApiError::internal)? {
            Some(stored) => LoggedCommand {
                first_version: stored.first_version,
                last_version: stored.last_version,
                actor: stored.actor,
                recorded_at: stored.recorded_at,
                command: stored.command,
            },
            // Shown as it is: the audit reports an event no command explains.
            None => {
                let envelope = &envelopes[(version - 1) as usize];
                LoggedCommand {
                    first_version: version,
                    last_version: version,
                    actor: envelope.actor.clone(),
                    recorded_at: envelope.recorded_at,
                    command: None,
                }
            }
        };
        version = logged.last_version.max(version) + 1;
        commands.push(logged);
    }
    Ok(GameLog {
        kind: kind.to_string(),
        game: Some(id.to_string()),
        events: envelopes
            .into_iter()
            .map(|e| LoggedEvent {
                version: e.version,
                event_type: e.event_type,
                payload: e.payload,
                recorded_at: Some(e.recorded_at),
                actor: Some(e.actor),
            })
            .collect(),
        commands,
    })
}

/// Writes `log` (already audited) as a new game with secret `seed` (and `earlier`, the seeds of
/// the stream's earlier commitments, oldest first), batch by batch with the
/// commands, actors and times of the log; returns its id. The game is listed (tagged) only
/// with its last batch, so a write cut short leaves no half game in any list.
pub async fn write_game(
    store: &Store,
    registry: &Registry,
    log: &GameLog,
    seed: Seed,
    earlier: &[Seed],
) -> Result<String, ApiError> {
    let id = format!("g-{}", random_hex::<8>()?);
    let payloads: Vec<Value> = log.events.iter().map(|e| e.payload.clone()).collect();
    let game = fold(registry, &id, &payloads)?;
    let last = log.commands.len().saturating_sub(1);
    if let Some(command) = log.commands.last() {
        // Before the first event, so that no reader of the log ever sees the copy as news.
        let until = command.last_version.min(log.events.len() as u64);
        store
            .put_record_async(LOGGED_GAMES, &id, until.to_string().as_bytes())
            .await
            .map_err(ApiError::internal)?;
    }
    for (i, command) in log.commands.iter().enumerate() {
        let from = (command.first_version - 1) as usize;
        let to = (command.last_version as usize).min(log.events.len());
        let events: Vec<EventRecord> = log.events[from..to]
            .iter()
            .map(|e| EventRecord {
                event_type: e.event_type.clone(),
                payload: e.payload.clone(),
            })
            .collect();
        let batch = Batch {
            events: to_new_events(&events),
            actor: command.actor.clone(),
            command_id: None,
            command: command.command.clone(),
            recorded_at: command.recorded_at,
            tags: (i == last).then(|| tags(game.as_ref())),
            secrets: if i == 0 {
                let mut secrets = vec![(SEED.to_string(), seed.0.to_vec())];
                if !earlier.is_empty() {
                    let bytes = earlier.iter().flat_map(|s| s.0).collect();
                    secrets.push((EARLIER_SEEDS.to_string(), bytes));
                }
                secrets
            } else {
                Vec::new()
            },
        };
        store
            .append(&id, from as u64, batch)
            .await
            .map_err(|e| append_error(&id, e))?;
    }
    Ok(id)
}
