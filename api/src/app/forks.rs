//! Undo by fork: a new game whose stream begins with a copy of the parent's events up to a
//! version, then a `forked` event; the parent never changes. An analysis fork gives one
//! player every seat; an agreed takeback's fork keeps the players at their seats.

use crate::app::commands::Games;
use crate::app::randomness;
use crate::app::repository::{Slot, SlotRef};
use crate::problem::ApiError;
use chrono::Utc;
use domain::engine::{Context, ErrorCode};
use domain::log::{fork_command, LoggedCommand, LoggedEvent};
use domain::table::Status;
use domain::RuleError;
use serde_json::Value;

impl Games {
    /// The game that goes on from `id` if an agreed takeback superseded it: its fork that is
    /// not an analysis fork. `None` for any other game (and while the fork is not written yet).
    pub async fn continuation(&self, id: &str) -> Result<Option<String>, ApiError> {
        if !self.slot(id)?.lock().await.game.superseded() {
            return Ok(None);
        }
        let forks = self
            .repository()
            .ids_tagged(super::index::PARENT, id, None, usize::MAX)?;
        for fork in forks {
            if !self.slot(&fork)?.lock().await.game.analysis() {
                return Ok(Some(fork));
            }
        }
        Ok(None)
    }

    /// How many turns `player`'s seat has played in active game `id` (what a takeback it
    /// asks for may go back), from the game's command log as the takeback itself reads it:
    /// the game in memory keeps the count and reads only the commands since it last counted;
    /// `None` when the player holds no seat or the game is not active.
    pub async fn turns_played(&self, id: &str, player: &str) -> Result<Option<usize>, ApiError> {
        let slot = self.slot(id)?;
        let mut slot = slot.lock().await;
        let Some(seat) = slot.game.seat_of(player) else {
            return Ok(None);
        };
        if slot.game.status() != Status::Active {
            return Ok(None);
        }
        Ok(Some(self.repository().turns(&mut slot)?.count(seat)))
    }

    /// Forks game `id` for analysis at `version`, with `player` at every seat; returns the fork.
    /// Allowed where nothing is secret any more (the table's rule).
    pub async fn analysis_fork(
        &self,
        id: &str,
        version: u64,
        player: &str,
    ) -> Result<SlotRef, ApiError> {
        let parent = self.slot(id)?;
        let parent = parent.lock().await;
        parent.game.check_analysis_fork()?;
        let players = vec![Some(player.to_string()); parent.game.seats()];
        let fork = self
            .fork_game(&parent, version, players, true, player)
            .await?;
        drop(parent);
        tracing::info!(game = %fork, parent = %id, version, "game forked");
        self.slot(&fork)
    }

    /// Writes a fork of game `parent` at `version` with `players` at the seats, made by
    /// `player`; returns its id. `analysis` shows everything to everyone: only where nothing is
    /// secret. Otherwise it is the fork of an agreed takeback. The fork keeps the parent's
    /// seed, except a takeback's fork in a game with hidden cards: it deals from a fresh seed,
    /// committed to in `forked`, from the reshuffle of every face-down pile on, and keeps the
    /// parent's seeds as its earlier ones (see `domain/src/table/sealed.rs`).
    pub(crate) async fn fork_game(
        &self,
        parent: &Slot,
        version: u64,
        players: Vec<Option<String>>,
        analysis: bool,
        player: &str,
    ) -> Result<String, ApiError> {
        let id = parent.id.as_str();
        let current = parent.game.version();
        if version == 0 || version > current {
            return Err(RuleError::new(
                ErrorCode::BadForkVersion,
                format!("Game {id} has versions 1 to {current}, not {version}."),
            )
            .into());
        }
        let repository = self.repository();
        let mut log = repository.read_log(id, parent.game.kind(), Some(version))?;
        if let Some(last) = log.commands.last() {
            if last.last_version != version {
                return Err(RuleError::new(
                    ErrorCode::BadForkVersion,
                    format!(
                        "Version {version} is in the middle of one command's events: fork at version {} or {}.",
                        last.first_version - 1,
                        last.last_version
                    ),
                )
                .into());
            }
        }
        let payloads: Vec<Value> = log.events.iter().map(|e| e.payload.clone()).collect();
        let copy = repository.fold(id, &payloads)?;
        let now = Utc::now();
        let mut seed = parent.secret_seed();
        let mut earlier = parent.earlier_seeds().to_vec();
        let forked = if analysis {
            copy.fork(id, players.clone(), analysis, now)?
        } else {
            if copy.hidden_information() {
                earlier.push(seed);
                seed = randomness::seed()?;
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
        let fork = repository.write_game(&log, seed, &earlier).await?;
        // Watch a timed fork's deadlines from the start.
        let slot = self.slot(&fork)?;
        self.watch(&fork, &*slot.lock().await);
        Ok(fork)
    }
}
