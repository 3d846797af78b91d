//! The audit of a tournament's log: every event decided again from the events before it.

use super::decide::{decide, Command};
use super::event::TournamentEvent;
use super::state::Tournament;
use crate::Seed;
use chrono::{DateTime, Utc};

/// Where a log and the decider part ways.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("event {version}: {reason}")]
pub struct Divergence {
    pub version: u64,
    pub reason: String,
}

/// Decides again, from the events before it, every command the log `events` (with the times
/// they were recorded) implies, with `seed`, and checks that it gives exactly the recorded
/// events. A finished tournament's seed is its revealed one; it must match the commitment.
pub fn audit(
    id: &str,
    events: &[(TournamentEvent, DateTime<Utc>)],
    seed: &Seed,
) -> Result<Tournament, Divergence> {
    let mut state = Tournament::default();
    let mut at = 0;
    while at < events.len() {
        let (event, when) = &events[at];
        let version = at as u64 + 1;
        let diverge = |reason: String| Divergence { version, reason };
        let command = match event {
            TournamentEvent::TournamentCreated(settings) => {
                if !seed.matches(&settings.seed_commitment) {
                    return Err(diverge("the seed is not the one committed to".into()));
                }
                // Created before its entry closed: decided at the time it was recorded.
                Command::Create(settings.clone())
            }
            TournamentEvent::PlayerJoined { player } => Command::Join {
                player: player.clone(),
            },
            TournamentEvent::PlayerWithdrew { player } => Command::Withdraw {
                player: player.clone(),
            },
            TournamentEvent::TournamentStarted { .. } => Command::Start {
                by: state
                    .settings
                    .as_ref()
                    .map(|s| s.creator.clone())
                    .unwrap_or_default(),
            },
            // Started by its creator or on time: the same events either way.
            TournamentEvent::TournamentCancelled { .. } => Command::StartOnTime,
            TournamentEvent::GameFinished(result) => Command::RecordResult(result.clone()),
            TournamentEvent::GameReplaced {
                round,
                table,
                game,
                by,
            } => Command::ReplaceGame {
                round: *round,
                table: *table,
                game: game.clone(),
                by: by.clone(),
            },
            other => return Err(diverge(format!("{} follows no command", other.type_name()))),
        };
        let decided = decide(&state, id, &command, *when, seed)
            .map_err(|e| diverge(format!("refused: {e}")))?;
        let recorded: Vec<&TournamentEvent> = events[at..]
            .iter()
            .take(decided.len())
            .map(|(e, _)| e)
            .collect();
        if decided.iter().collect::<Vec<_>>() != recorded {
            return Err(diverge(format!(
                "decided {} event(s) that differ from the log",
                decided.len()
            )));
        }
        for event in &decided {
            state = state.evolve(event);
        }
        at += decided.len();
    }
    Ok(state)
}
