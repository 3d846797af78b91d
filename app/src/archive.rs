//! Whole game logs in and out of the store: a game's log (events and the commands beside
//! them) for replays, audits and exports, and an audited log written as a new game (imports
//! and forks).

use crate::commands::append_error;
use crate::error::ApiError;
use crate::index::tags;
use crate::randomness::game_id;
use crate::repository::{Imported, Repository, Slot, EARLIER_SEEDS, SEED};
use domain::log::{GameLog, LoggedCommand, LoggedEvent};
use domain::registry::EventRecord;
use domain::table::TurnHistory;
use domain::Seed;
use serde_json::Value;
use storage::Batch;

/// Games written from a log: game id -> the version its log ends at. Their batches up to
/// there are a copy of the past, which webhooks must not announce as news.
pub(crate) const LOGGED_GAMES: &str = "logged_games";
/// Imported games: game id -> who imported it and when ([`Imported`], as JSON). Written before
/// the game's first event, so that whoever follows the log (a rating, a tournament) knows a
/// game is imported before it meets any of its events.
pub(crate) const IMPORTED_GAMES: &str = "imported_games";

impl Repository {
    /// Whether game `id` (whose seats are held by `players`) was imported, and by whom. A game
    /// whose seats are all held by imported players was imported, whether or not its importer
    /// was kept; any other was not, and is not looked up.
    pub fn imported(
        &self,
        id: &str,
        players: &[Option<String>],
    ) -> Result<Option<Imported>, ApiError> {
        let seated: Vec<&String> = players.iter().flatten().collect();
        if seated.is_empty() || !seated.iter().all(|p| domain::records::is_imported(p)) {
            return Ok(None);
        }
        let Some(bytes) = self
            .store()
            .get_record(IMPORTED_GAMES, id)
            .map_err(ApiError::from)?
        else {
            return Ok(Some(Imported { by: None, at: None }));
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(ApiError::internal)
    }

    /// The version up to which game `id` was written from a log (a fork or an import), if it was.
    pub fn logged_until(&self, id: &str) -> Result<Option<u64>, ApiError> {
        let Some(bytes) = self
            .store()
            .get_record(LOGGED_GAMES, id)
            .map_err(ApiError::from)?
        else {
            return Ok(None);
        };
        let text = String::from_utf8(bytes).map_err(ApiError::internal)?;
        text.parse().map(Some).map_err(ApiError::internal)
    }

    /// The log of game `id` (of `kind`) up to `up_to`: its events, and each command with the
    /// versions it produced. The last command may go on past `up_to`.
    pub fn read_log(&self, id: &str, kind: &str, up_to: Option<u64>) -> Result<GameLog, ApiError> {
        let envelopes = self.envelopes(id, up_to)?;
        let last = envelopes.len() as u64;
        let mut commands = Vec::new();
        self.each_command(id, 0, last, |version, logged| {
            // An event no command explains is shown as it is: the audit reports it.
            commands.push(logged.unwrap_or_else(|| {
                let envelope = &envelopes[(version - 1) as usize];
                LoggedCommand {
                    first_version: version,
                    last_version: version,
                    actor: envelope.actor.clone(),
                    recorded_at: envelope.recorded_at,
                    command: None,
                }
            }));
        })?;
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

    /// Walks the commands of game `id` that produced its versions after `after`, up to
    /// `up_to`, in order, one read a command: `each` gets the version each begins at and the
    /// command, or `None` for an event no stored command explains (one version).
    fn each_command(
        &self,
        id: &str,
        after: u64,
        up_to: u64,
        mut each: impl FnMut(u64, Option<LoggedCommand>),
    ) -> Result<(), ApiError> {
        let mut version = after + 1;
        while version <= up_to {
            let stored = self.store().command(id, version).map_err(ApiError::from)?;
            let logged = stored.map(|stored| LoggedCommand {
                first_version: stored.first_version,
                last_version: stored.last_version,
                actor: stored.actor,
                recorded_at: stored.recorded_at,
                command: stored.command,
            });
            let next = logged
                .as_ref()
                .map_or(version, |logged| logged.last_version.max(version))
                + 1;
            each(version, logged);
            version = next;
        }
        Ok(())
    }

    /// The turns played in the game `slot` holds, up to its version, as the command log
    /// tells them: counted on from where they were last counted (the first time, from the
    /// start), and kept with the game.
    pub(crate) fn turns<'a>(&self, slot: &'a mut Slot) -> Result<&'a TurnHistory, ApiError> {
        let version = slot.game.facts().version;
        let (counted, mut turns) = match slot.turns.take() {
            Some((counted, turns)) if counted <= version => (counted, turns),
            _ => (0, TurnHistory::of(&[], slot.game.facts().seats)),
        };
        // An event no command explains plays no turn.
        self.each_command(&slot.id, counted, version, |_, logged| {
            if let Some(logged) = logged {
                turns.record(&logged);
            }
        })?;
        Ok(&slot.turns.insert((version, turns)).1)
    }

    /// Writes `log` (already audited) as a new game with secret `seed` (and `earlier`, the seeds of
    /// the stream's earlier commitments, oldest first), batch by batch with the
    /// commands, actors and times of the log; returns its id. The game is listed (tagged) only
    /// with its last batch, so a write cut short leaves no half game in any list.
    pub async fn write_game(
        &self,
        log: &GameLog,
        seed: Seed,
        earlier: &[Seed],
        imported: Option<&Imported>,
    ) -> Result<String, ApiError> {
        let id = game_id()?;
        let payloads: Vec<Value> = log.events.iter().map(|e| e.payload.clone()).collect();
        let game = self.fold(&id, &payloads)?;
        if let Some(imported) = imported {
            // Nobody's game here: refused before anything is written, should a log with a
            // player of this server ever come this far.
            if let Some(player) = game
                .facts()
                .players
                .into_iter()
                .flatten()
                .find(|p| !domain::records::is_imported(p))
            {
                return Err(ApiError::internal(format!(
                    "an import seats {player}, who is no imported player"
                )));
            }
            let mark = serde_json::to_vec(imported).map_err(ApiError::internal)?;
            self.store()
                .put_record_async(IMPORTED_GAMES, &id, &mark)
                .await
                .map_err(ApiError::from)?;
        }
        let last = log.commands.len().saturating_sub(1);
        if let Some(command) = log.commands.last() {
            // Before the first event, so that no reader of the log ever sees the copy as news.
            let until = command.last_version.min(log.events.len() as u64);
            self.store()
                .put_record_async(LOGGED_GAMES, &id, until.to_string().as_bytes())
                .await
                .map_err(ApiError::from)?;
        }
        for (i, command) in log.commands.iter().enumerate() {
            let from = (command.first_version - 1) as usize;
            let to = (command.last_version as usize).min(log.events.len());
            let events: Vec<EventRecord> = log.events[from..to]
                .iter()
                .map(|e| EventRecord::stored(e.event_type.clone(), e.payload.clone()))
                .collect();
            let batch = Batch {
                events: crate::commands::to_new_events(&events),
                actor: command.actor.clone(),
                command_id: None,
                command: command.command.clone(),
                recorded_at: command.recorded_at,
                tags: (i == last).then(|| tags(game.as_ref())),
                secrets: if i == 0 {
                    let key = self.key();
                    let sealed = |name: &str, seeds: &[u8]| {
                        key.seal_seeds(&id, name, seeds).map_err(ApiError::internal)
                    };
                    let mut secrets = vec![(SEED.to_string(), sealed(SEED, &seed.0)?)];
                    if !earlier.is_empty() {
                        let bytes: Vec<u8> = earlier.iter().flat_map(|s| s.0).collect();
                        secrets.push((EARLIER_SEEDS.to_string(), sealed(EARLIER_SEEDS, &bytes)?));
                    }
                    secrets
                } else {
                    Vec::new()
                },
            };
            self.store()
                .append(&id, from as u64, batch)
                .await
                .map_err(|e| append_error(&id, e))?;
        }
        Ok(id)
    }
}

impl crate::Games {
    /// Whether this node's store is backed up by `avalanche backup`: a sled store is; a
    /// PostgreSQL store is refused with `backup_not_here` and the advice to use `pg_dump`.
    pub fn takes_backups(&self) -> Result<storage::SledStore, ApiError> {
        self.backup.clone().ok_or_else(|| {
            ApiError::new(crate::error::ApiCode::BackupNotHere,
                "This node's store is PostgreSQL: back it up with pg_dump, which copies a consistent snapshot while the nodes play.",
            )
        })
    }

    /// Writes a consistent backup of the sled `store` to `out` while the node serves (see
    /// `backup/dump.rs`), each stream with the index tags its game had at the backup's head.
    pub fn write_backup(
        &self,
        store: &storage::SledStore,
        out: impl std::io::Write,
    ) -> Result<crate::backup::format::End, crate::backup::dump::DumpError> {
        let repository = self.repository();
        let tags_at = |stream: &str, version: u64| {
            repository
                .game_at(stream, version)
                .ok()
                .map(|game| tags(game.as_ref()))
        };
        crate::backup::dump::write_backup(store, &tags_at, out)
    }
}
