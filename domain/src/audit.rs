//! The audit of a game's log: decide every stored command again from the start, with the same
//! seed, nonce and time, and check that it gives exactly the stored events; check that the
//! revealed seed is the one committed to at creation. Deals are events of the commands that
//! deal (the last `join`, new rounds), so re-deciding them re-derives every deal from the seed.
//! The first divergence is reported with its version, what the rules give and what is stored.
//! A fork made by a takeback in a game with hidden cards holds two commitments or more: each
//! command is decided with the seed of the last one made up to its events, and a reveal
//! gives every seed (see `table/sealed.rs`). The server's own `fork` and `reveal_seed`
//! commands are decided again like the players'. A message said with a player's command is
//! stored after its events and skipped: words are not the rules' to decide.

use crate::engine::{Context, Outcome, Refusal};
use crate::fairness::Seed;
use crate::log::{GameLog, LoggedCommand};
use crate::registry::{EventRecord, LiveGame, Registry};
use crate::table::{Actor, Status, TurnHistory};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// What an audit verified.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct AuditReport {
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// The number of events verified: the game's version.
    pub events: u64,
    /// The number of commands decided again.
    pub commands: usize,
    /// Whether the seed was revealed and matches its commitment (every deal was then
    /// re-derived from it). False while the game runs: its seed is still secret.
    pub seed_verified: bool,
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// The final state, as a spectator sees it (everything once the game has ended).
    #[schema(value_type = Object)]
    pub view: Value,
}

/// The first place where the log and the rules disagree.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema, thiserror::Error)]
#[error("version {version}: {reason}")]
pub struct Divergence {
    /// The version of the first event that does not follow from the rules and the seed.
    pub version: u64,
    /// Why, in words.
    pub reason: String,
    /// The event the rules give there, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub expected: Option<Value>,
    /// The event stored there, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub found: Option<Value>,
}

impl Divergence {
    fn at(version: u64, reason: impl Into<String>) -> Divergence {
        Divergence {
            version,
            reason: reason.into(),
            expected: None,
            found: None,
        }
    }
}

/// Audits `log`. The seed used to decide again is the one the log reveals (checked against
/// the commitment); while the game runs, `secret` (the server's, never shown) or, for games
/// without hidden information and without it, any seed, since they never shuffle.
pub fn audit(
    registry: &Registry,
    log: &GameLog,
    secret: Option<Seed>,
) -> Result<AuditReport, Divergence> {
    audit_with_secrets(registry, log, secret.as_slice())
}

/// Audits `log`, given the server's secret seeds (never shown) of the stream's commitments,
/// oldest first, for a game that has not revealed them. A stream holds one commitment, in
/// `created`, and one more in each `forked` of a takeback in a game with hidden cards; each
/// command is decided with the seed of the last commitment made up to its events (see
/// `table/sealed.rs`).
pub fn audit_with_secrets(
    registry: &Registry,
    log: &GameLog,
    secrets: &[Seed],
) -> Result<AuditReport, Divergence> {
    check_versions(log)?;
    let created = &log.events[0];
    if created.event_type != "created" {
        return Err(Divergence::at(1, "a game's first event must be `created`"));
    }
    let kind_id = created.payload["kind"].as_str().unwrap_or_default();
    if kind_id != log.kind {
        return Err(Divergence::at(
            1,
            format!("the log is of {}, but its game is of {kind_id:?}", log.kind),
        ));
    }
    let kind = registry
        .get(kind_id)
        .ok_or_else(|| Divergence::at(1, format!("there is no game {kind_id:?}")))?;
    let hidden = kind.info().hidden_information;
    let commitments = commitments(log);
    let revealed = revealed_seeds(log, &commitments)?;
    let seeds = match &revealed {
        Some(seeds) => seeds.clone(),
        None if secrets.len() == commitments.len() => secrets.to_vec(),
        None if !hidden => vec![Seed([0; 32]); commitments.len()],
        None => return Err(Divergence::at(
            log.events.len() as u64,
            "the game has not ended and its seed is not revealed, so its deals cannot be checked",
        )),
    };
    let mut game = kind
        .fold(std::slice::from_ref(&created.payload))
        .map_err(|e| Divergence::at(1, e.to_string()))?;
    let last = log.events.len() as u64;
    let mut next = 1;
    for (i, batch) in log.commands.iter().enumerate() {
        if batch.first_version != next || batch.last_version < batch.first_version {
            return Err(Divergence::at(
                next,
                format!(
                    "no command is stored for the event at version {next} (the next command gives versions {} to {})",
                    batch.first_version, batch.last_version
                ),
            ));
        }
        next = batch.last_version + 1;
        // The seeds in force for this command: up to the last commitment made by its events.
        let made = commitments
            .iter()
            .filter(|(version, _)| *version <= batch.last_version)
            .count();
        let in_force = &seeds[..made.clamp(1, seeds.len())];
        let expected = decide_again(game.as_ref(), &log.commands[..i], batch, in_force, i == 0)?;
        // The first batch begins with `created`, which no command decides.
        let stored_from = if i == 0 { 2 } else { batch.first_version };
        let stored_to = batch.last_version.min(last);
        let stored = log
            .events
            .get((stored_from - 1) as usize..stored_to as usize)
            .unwrap_or_default();
        compare(stored_from, &expected, decided_part(batch, stored))?;
        for event in stored {
            game.evolve(&event.payload)
                .map_err(|e| Divergence::at(event.version, e.to_string()))?;
        }
    }
    if next <= last {
        return Err(Divergence::at(
            next,
            format!("no command is stored for the event at version {next}"),
        ));
    }
    let status = game.facts().status;
    // A sealed game (superseded, its seed kept) is shown as to a spectator.
    let viewer = game.viewer_for(None);
    Ok(AuditReport {
        kind: log.kind.clone(),
        variant: game.facts().variant,
        events: game.facts().version,
        commands: log.commands.len(),
        seed_verified: revealed.is_some(),
        status,
        outcome: game.facts().outcome,
        view: game.view(viewer),
    })
}

/// Versions 1, 2, 3, ... without gaps.
fn check_versions(log: &GameLog) -> Result<(), Divergence> {
    if log.events.is_empty() {
        return Err(Divergence::at(1, "the log has no event"));
    }
    for (i, event) in log.events.iter().enumerate() {
        let want = i as u64 + 1;
        if event.version != want {
            return Err(Divergence::at(
                want,
                format!(
                    "the event at version {want} is missing (found version {} there)",
                    event.version
                ),
            ));
        }
    }
    Ok(())
}

/// The commitments of a stream with the versions that make them: `created`'s, then each
/// `forked` that made a new one (a takeback in a game with hidden cards).
fn commitments(log: &GameLog) -> Vec<(u64, String)> {
    log.events
        .iter()
        .filter_map(|event| {
            let commitment = match event.event_type.as_str() {
                "created" | "forked" => event.payload["commitment"].as_str()?,
                _ => return None,
            };
            Some((event.version, commitment.to_string()))
        })
        .collect()
}

/// The revealed seeds, one for each commitment, oldest first, when the last `seed_revealed`
/// reveals all of them; every `seed_revealed` is checked against the commitments made before
/// it.
fn revealed_seeds(
    log: &GameLog,
    commitments: &[(u64, String)],
) -> Result<Option<Vec<Seed>>, Divergence> {
    let mut seeds = None;
    for event in log
        .events
        .iter()
        .filter(|e| e.event_type == "seed_revealed")
    {
        let unreadable = |e: crate::fairness::SeedError| {
            Divergence::at(event.version, format!("the revealed seed: {e}"))
        };
        let mut revealed = Vec::new();
        for text in event.payload["earlier"].as_array().into_iter().flatten() {
            revealed.push(Seed::from_hex(text.as_str().unwrap_or_default()).map_err(unreadable)?);
        }
        let text = event.payload["seed"].as_str().unwrap_or_default();
        revealed.push(Seed::from_hex(text).map_err(unreadable)?);
        let before: Vec<&(u64, String)> = commitments
            .iter()
            .filter(|(version, _)| *version < event.version)
            .collect();
        if revealed.len() != before.len() {
            return Err(Divergence {
                found: Some(event.payload.clone()),
                ..Divergence::at(
                    event.version,
                    format!(
                        "{} seeds are revealed, but the stream made {} commitments before",
                        revealed.len(),
                        before.len()
                    ),
                )
            });
        }
        for (seed, (made_at, commitment)) in revealed.iter().zip(before) {
            if !seed.matches(commitment) {
                let made = if *made_at == 1 {
                    "at creation".to_string()
                } else {
                    format!("by the fork at version {made_at}")
                };
                return Err(Divergence {
                    found: Some(event.payload.clone()),
                    ..Divergence::at(
                        event.version,
                        format!("the revealed seed does not match the commitment made {made} ({commitment})"),
                    )
                });
            }
        }
        seeds = Some(revealed);
    }
    Ok(seeds.filter(|seeds| seeds.len() == commitments.len()))
}

/// The events the rules give for a stored command, decided on `game` (the state before it),
/// after the commands `before`.
fn decide_again(
    game: &dyn LiveGame,
    before: &[LoggedCommand],
    batch: &LoggedCommand,
    seeds: &[Seed],
    first: bool,
) -> Result<Vec<EventRecord>, Divergence> {
    let version = batch.first_version;
    let (seed, earlier) = match seeds.split_last() {
        Some((seed, earlier)) => (*seed, earlier.to_vec()),
        None => return Err(Divergence::at(1, "the game makes no commitment to a seed")),
    };
    let nonce = if first { 1 } else { version - 1 };
    let mut ctx = Context::new(seed, nonce, batch.recorded_at).with_earlier_seeds(earlier);
    let command = batch
        .command
        .as_ref()
        .ok_or_else(|| Divergence::at(version, "no command is stored for these events"))?;
    if first && command["type"] != "join" {
        return Err(Divergence::at(
            2,
            "the first command of a game is its creator's `join`",
        ));
    }
    if command["type"] == "fork" {
        let copied = command["version"].as_u64();
        if copied != Some(version - 1) {
            return Err(Divergence::at(
                version,
                format!(
                    "the fork says it copies its parent up to version {copied:?}, but it is made at version {}",
                    version - 1
                ),
            ));
        }
        let parent = command["parent"].as_str().unwrap_or_default();
        let players: Vec<Option<String>> =
            serde_json::from_value(command["players"].clone()).unwrap_or_default();
        let analysis = command["analysis"].as_bool().unwrap_or(false);
        let forked = if analysis {
            game.fork(parent, players, analysis, batch.recorded_at)
        } else {
            game.takeback_fork(parent, players, &ctx)
        };
        return forked.map_err(|e| Divergence::at(version, format!("the fork is refused: {e}")));
    }
    if command["type"] == "reveal_seed" {
        if batch.actor != "system" {
            return Err(Divergence::at(
                version,
                "only the server reveals the seed of a game superseded by a takeback",
            ));
        }
        return game.reveal_seed(&ctx).map_err(|e| {
            Divergence::at(version, format!("the seed may not be revealed here: {e}"))
        });
    }
    if command["type"] == "request_takeback" {
        // A takeback counted in turns goes back to where the log says a turn began.
        ctx = ctx.with_turns(TurnHistory::of(before, game.facts().seats));
    }
    let actor = actor_of(game, &batch.actor)
        .ok_or_else(|| Divergence::at(version, format!("unknown actor {:?}", batch.actor)))?;
    game.decide(&actor, command, &ctx).map_err(|e| {
        let why = match &e {
            Refusal::Rule(rule) => {
                format!(
                    "the rules refuse the command stored here ({}): {rule}",
                    rule.code
                )
            }
            Refusal::Fault(fault) => format!("the command stored here was not decided: {fault}"),
        };
        Divergence {
            found: Some(command.clone()),
            ..Divergence::at(version, why)
        }
    })
}

/// The events of a batch that its command decides: all but the message a player said with
/// the command (`"message"` in its body), stored as `said` events after them. The rules do not
/// decide what a player says, so the audit folds those and does not decide them again; a
/// message said alone is the server's `say` command, decided again like any other.
fn decided_part<'a>(
    batch: &LoggedCommand,
    stored: &'a [crate::log::LoggedEvent],
) -> &'a [crate::log::LoggedEvent] {
    let said_alone = batch
        .command
        .as_ref()
        .is_some_and(|command| command["type"] == "say");
    if said_alone {
        return stored;
    }
    let said = stored
        .iter()
        .rev()
        .take_while(|event| event.event_type == "said")
        .count();
    &stored[..stored.len() - said]
}

/// The actor of a stored command: `seat:<n>` is the player at that seat then.
fn actor_of(game: &dyn LiveGame, actor: &str) -> Option<Actor> {
    if actor == "system" {
        return Some(Actor::System);
    }
    crate::log::actor_player(game, actor).map(Actor::player)
}

fn compare(
    from: u64,
    expected: &[EventRecord],
    stored: &[crate::log::LoggedEvent],
) -> Result<(), Divergence> {
    for i in 0..expected.len().max(stored.len()) {
        let version = from + i as u64;
        let want = expected.get(i);
        let found = stored.get(i);
        let same = match (want, found) {
            (Some(want), Some(found)) => {
                want.payload == found.payload && want.event_type == found.event_type
            }
            _ => false,
        };
        if !same {
            let reason = match (want, found) {
                (Some(_), None) => "the command gives more events than are stored",
                (None, Some(_)) => "an event is stored that the command does not give",
                // Both present (the loop never reaches past both ends).
                _ => "the stored event is not the one the rules and the seed give",
            };
            return Err(Divergence {
                version,
                reason: reason.into(),
                expected: want.map(|e| e.payload.clone()),
                found: found.map(|e| e.payload.clone()),
            });
        }
    }
    Ok(())
}
