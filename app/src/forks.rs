//! Undo by fork: a new game whose stream begins with a copy of the parent's events up to a
//! version, then a `forked` event; the parent never changes. An analysis fork gives one
//! player every seat; an agreed takeback's fork keeps the players at their seats.
//!
//! An agreed takeback is durable before its fork is written: a crash or a store that fails
//! in between would leave the players a game that says play goes on in a fork, and no fork.
//! So the fork is owed until it is recorded (the record [`TAKEBACK_FORKS`]); the game
//! superseded carries the index entry [`index::SUPERSEDED`] from the agreement on. After a
//! start every server looks for superseded games without the record and writes their forks;
//! a fork that failed is tried again every [`RETRY`] until it is written. One server at a
//! time writes a game's fork (the lease `fork:<game>`), and looks first whether it exists:
//! a fork cut short is not listed (its index entries come with its last batch) and is left
//! as it is, unlisted.

use crate::commands::Games;
use crate::error::ApiError;
use crate::index;
use crate::randomness;
use crate::repository::{Slot, SlotRef};
use chrono::Utc;
use domain::engine::{Context, ErrorCode};
use domain::log::{actor_player, fork_command, LoggedCommand, LoggedEvent};
use domain::table::{Status, TableFact};
use domain::RuleError;
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::time::Duration;

/// The forks of agreed takebacks written: superseded game -> its fork (empty for a game whose
/// agreement was copied from a log, an import: its fork is elsewhere).
pub(crate) const TAKEBACK_FORKS: &str = "takeback_forks";

/// How long a server waits before it tries again to write a fork it owes.
pub const RETRY: Duration = Duration::from_secs(5);

/// Games whose takeback fork this server owes and tries to write, with the failures so far.
#[derive(Default)]
pub(crate) struct OwedForks {
    games: std::sync::Mutex<BTreeMap<String, u32>>,
    added: tokio::sync::Notify,
    /// The games whose fork this server is writing now: within one server the lease does not
    /// keep a second writer out (its holder holds it again).
    writing: std::sync::Mutex<HashSet<String>>,
}

/// A game whose fork this server is writing, until dropped.
struct Writing<'a> {
    forks: &'a OwedForks,
    id: String,
}

impl Drop for Writing<'_> {
    fn drop(&mut self) {
        self.forks
            .writing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&self.id);
    }
}

impl OwedForks {
    fn games(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, u32>> {
        self.games
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn owe(&self, id: &str) {
        self.games().entry(id.to_string()).or_default();
        self.added.notify_one();
    }

    /// Marks game `id`'s fork as being written by this server; `None` when it is already.
    fn write(&self, id: &str) -> Option<Writing<'_>> {
        let mut writing = self
            .writing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        writing.insert(id.to_string()).then(|| Writing {
            forks: self,
            id: id.to_string(),
        })
    }
}

impl Games {
    /// The game that goes on from `id` if an agreed takeback superseded it: its fork that is
    /// not an analysis fork. `None` for any other game (and while the fork is not written yet).
    pub async fn continuation(&self, id: &str) -> Result<Option<String>, ApiError> {
        if !self.slot(id)?.lock().await.game.facts().superseded {
            return Ok(None);
        }
        self.takeback_fork_of(id).await
    }

    /// The fork of game `id` that is not an analysis fork, if one is written (listed).
    async fn takeback_fork_of(&self, id: &str) -> Result<Option<String>, ApiError> {
        let forks = self
            .repository()
            .ids_tagged(index::PARENT, id, None, usize::MAX)?;
        for fork in forks {
            if !self.slot(&fork)?.lock().await.game.facts().analysis {
                return Ok(Some(fork));
            }
        }
        Ok(None)
    }

    /// After an agreed takeback of the game in `parent` at `version` (by `player`): play goes
    /// on in a fork with the same players at the same seats. Writes it (see
    /// [`Games::write_takeback_fork`]); one not written now is owed, and this server tries
    /// again (see [`Games::keep_owed_forks`]).
    pub(crate) async fn fork_agreed_takeback(&self, parent: &Slot, version: u64, player: &str) {
        let id = parent.id.as_str();
        match self.write_takeback_fork(parent, version, player).await {
            Ok(Some(written)) => {
                tracing::info!(game = %written.fork(), parent = %id, version, "takeback: play goes on in a fork")
            }
            Ok(None) => {
                tracing::info!(parent = %id, "takeback: its fork is being written (by another server, or another task of this one)");
                self.owed_forks().owe(id);
            }
            Err(error) => {
                tracing::error!(game = %id, version, %error, "takeback agreed but its fork failed: trying again");
                self.owed_forks().owe(id);
            }
        }
    }

    /// Writes the fork of an agreed takeback of the game in `parent` at `version` (by
    /// `player`) under the lease `fork:<parent>`, unless it is written already, and records
    /// it. `None` while another server holds the lease, or this one writes it elsewhere.
    async fn write_takeback_fork(
        &self,
        parent: &Slot,
        version: u64,
        player: &str,
    ) -> Result<Option<Written>, ApiError> {
        let Some(_writing) = self.owed_forks().write(&parent.id) else {
            return Ok(None);
        };
        let store = self.repository().store();
        let lease = format!("fork:{}", parent.id);
        if !store.try_lease(&lease).map_err(ApiError::from)? {
            return Ok(None);
        }
        let written = async {
            let written = match self.takeback_fork_of(&parent.id).await? {
                Some(fork) => Written::Before(fork),
                None => {
                    let players = parent.game.facts().players;
                    Written::Now(
                        self.fork_game(parent, version, players, false, player)
                            .await?,
                    )
                }
            };
            store
                .put_record_async(TAKEBACK_FORKS, &parent.id, written.fork().as_bytes())
                .await
                .map_err(ApiError::from)?;
            Ok(written)
        }
        .await;
        store.release_lease(&lease);
        written.map(Some)
    }

    /// Writes the fork game `id` owes, if it owes one: it is superseded by a takeback agreed
    /// here and no fork is recorded. `false` while another server writes it.
    async fn write_owed_fork(&self, id: &str) -> Result<bool, ApiError> {
        let repository = self.repository();
        let store = repository.store();
        if store
            .get_record(TAKEBACK_FORKS, id)
            .map_err(ApiError::from)?
            .is_some()
        {
            return Ok(true);
        }
        let slot = self.slot(id)?;
        let slot = slot.lock().await;
        // The agreement: its event's version, the version play goes back to, the seat whose
        // acceptance agreed it.
        let agreement = repository
            .envelopes(id, None)?
            .into_iter()
            .rev()
            .find_map(|e| match TableFact::of_stored(&e.payload) {
                Some(TableFact::TakebackAgreed { version }) => Some((e.version, version, e.actor)),
                _ => None,
            });
        let Some((at, version, actor)) = agreement else {
            return Ok(true);
        };
        if repository
            .logged_until(id)?
            .is_some_and(|until| at <= until)
        {
            // Copied from another server's log: the fork is there.
            store
                .put_record_async(TAKEBACK_FORKS, id, b"")
                .await
                .map_err(ApiError::from)?;
            return Ok(true);
        }
        let player = actor_player(slot.game.as_ref(), &actor).unwrap_or(actor);
        match self.write_takeback_fork(&slot, version, &player).await? {
            Some(Written::Now(fork)) => {
                tracing::warn!(game = %fork, parent = %id, version, "an agreed takeback's fork written late: a crash or a failing store had left it owed");
                Ok(true)
            }
            Some(Written::Before(_)) => Ok(true),
            None => Ok(false),
        }
    }

    /// The games superseded by a takeback whose fork is not recorded.
    fn owed_in_store(&self) -> Result<Vec<String>, ApiError> {
        let repository = self.repository();
        let recorded: HashSet<String> = repository
            .store()
            .records_with_prefix(TAKEBACK_FORKS, "")
            .map_err(ApiError::from)?
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        let (name, value) = index::SUPERSEDED;
        let mut superseded = repository.ids_tagged(name, value, None, usize::MAX)?;
        superseded.retain(|id| !recorded.contains(id));
        Ok(superseded)
    }

    /// Owes the forks the store shows owed; whether it could look (if not, it looks again
    /// at the next try).
    fn owe_those_in_store(&self) -> bool {
        match self.owed_in_store() {
            Ok(owed) => {
                if !owed.is_empty() {
                    tracing::warn!(
                        games = owed.len(),
                        "agreed takebacks whose fork is not written: writing them"
                    );
                }
                for id in owed {
                    self.owed_forks().owe(&id);
                }
                true
            }
            Err(error) => {
                tracing::error!(%error, "could not look for agreed takebacks whose fork is not written: trying again");
                false
            }
        }
    }

    /// Writes the takeback forks this server owes, for as long as it runs: first those the
    /// store shows owed (a crash or a failing store came between an agreement and its fork;
    /// looked for again every [`RETRY`] while the store cannot say), then each that fails
    /// here, again every [`RETRY`] until it is written.
    pub async fn keep_owed_forks(&self) {
        let mut looked = false;
        loop {
            if !looked {
                looked = self.owe_those_in_store();
            }
            let owed: Vec<String> = self.owed_forks().games().keys().cloned().collect();
            for id in owed {
                let done = match self.write_owed_fork(&id).await {
                    Ok(done) => done,
                    Err(error) => {
                        let mut games = self.owed_forks().games();
                        let failures = games.entry(id.clone()).or_default();
                        *failures += 1;
                        if *failures == 1 {
                            tracing::warn!(game = %id, %error, "an agreed takeback's fork could not be written: trying again");
                        }
                        false
                    }
                };
                if done {
                    self.owed_forks().games().remove(&id);
                }
            }
            let _ = tokio::time::timeout(RETRY, self.owed_forks().added.notified()).await;
        }
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
        if slot.game.facts().status != Status::Active {
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
        let players = vec![Some(player.to_string()); parent.game.facts().seats];
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
        let current = parent.game.facts().version;
        if version == 0 || version > current {
            return Err(RuleError::new(
                ErrorCode::BadForkVersion,
                format!("Game {id} has versions 1 to {current}, not {version}."),
            )
            .into());
        }
        let repository = self.repository();
        let mut log = repository.read_log(id, parent.game.facts().kind, Some(version))?;
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
            if copy.facts().hidden_information {
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
        let fork = repository.write_game(&log, seed, &earlier, None).await?;
        // Watch a timed fork's deadlines from the start.
        let slot = self.slot(&fork)?;
        self.watch(&fork, &*slot.lock().await);
        Ok(fork)
    }
}

/// A takeback's fork, written by this call or found written before.
pub(crate) enum Written {
    Now(String),
    Before(String),
}

impl Written {
    pub(crate) fn fork(&self) -> &str {
        match self {
            Written::Now(fork) | Written::Before(fork) => fork,
        }
    }
}
