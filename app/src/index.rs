//! The index policy: which entries a game has in the store's index, written in the same batch
//! as its events, so that lists and restarts find games without folding them.

use domain::registry::LiveGame;
use domain::table::Status;
use domain::tournament::TournamentEvent;

/// Every game: the list without filters.
pub const LISTED: (&str, &str) = ("listed", "all");
/// A game's kind (`kind = altitude`).
pub const KIND: &str = "kind";
/// A game's status (`status = open`).
pub const STATUS: &str = "status";
/// A game's status and kind together (`status_kind = open/altitude`): a list filtered by both
/// reads only what it shows, however rare the kind.
pub const STATUS_KIND: &str = "status_kind";
/// A seated player's games (`player = p-...`).
pub const PLAYER: &str = "player";
/// A challenge's entry for each player it names (`invited = <player id>`): what a player's
/// stream reads to find the challenges issued to them without reading the whole log.
pub const INVITED: &str = "invited";
/// A tournament's entry for each player who joined it (`entrant = <player id>`), kept after a
/// withdrawal: what a player's stream reads to find the tournaments that may tell them
/// something, without reading the whole log. Tournaments come in the same release as this
/// entry, so no older store has a tournament without it (the reindex has nothing to add).
pub const ENTRANT: &str = "entrant";
/// A seated player's games still waiting for players (`open_seat = p-...`): the quota of open
/// seats a player may hold is counted from it.
pub const OPEN_SEAT: &str = "open_seat";
/// The forks of a game (`parent = g-...`).
pub const PARENT: &str = "parent";
/// Superseded by a takeback with its seed kept: a restart checks it is revealed in time.
pub const SEALED: (&str, &str) = ("sealed", "yes");
/// Superseded by an agreed takeback: a restart checks that the fork play goes on in was
/// written (see [`crate::forks`]). Games superseded before a server wrote this entry
/// have none.
pub const SUPERSEDED: (&str, &str) = ("superseded", "takeback");
/// An active timed game: what the clock keeper watches after a restart.
pub const CLOCK_RUNNING: (&str, &str) = ("clock", "running");
/// An active game with a seat's clock stopped by a vacation.
pub const VACATION_PAUSED: (&str, &str) = ("vacation", "paused");

/// A tournament's index entries once `events` are appended to it, from `entries`, those it
/// has: one more `entrant` for each player who joins; `None` when no one joins (the entries
/// stay as they are).
pub fn entrant_tags(
    mut entries: Vec<(String, String)>,
    events: &[TournamentEvent],
) -> Option<Vec<(String, String)>> {
    let mut changed = false;
    for event in events {
        if let TournamentEvent::PlayerJoined { player } = event {
            let entry = (ENTRANT.to_string(), player.clone());
            if !entries.contains(&entry) {
                entries.push(entry);
                changed = true;
            }
        }
    }
    changed.then_some(entries)
}

/// Whether `events` may change a tournament's index entries (see [`entrant_tags`]).
pub fn joins(events: &[TournamentEvent]) -> bool {
    events
        .iter()
        .any(|e| matches!(e, TournamentEvent::PlayerJoined { .. }))
}

/// The value of the `status_kind` entry.
pub fn status_kind(status: Status, kind: &str) -> String {
    format!("{}/{kind}", status.as_str())
}

/// Whether a game with index entries `entries` is listed: a game written from a log (a fork,
/// an import) has none until its last batch, so a follower of the log that meets its first
/// batches must not take it for a game of nobody's.
pub fn listed(entries: &[(String, String)]) -> bool {
    entries
        .iter()
        .any(|(name, value)| (name.as_str(), value.as_str()) == LISTED)
}

/// The index entries of a game.
pub fn tags(game: &dyn LiveGame) -> Vec<(String, String)> {
    let facts = game.facts();
    let entry = |(name, value): (&str, &str)| (name.to_string(), value.to_string());
    let mut tags = vec![
        entry(LISTED),
        (KIND.to_string(), facts.kind.to_string()),
        (STATUS.to_string(), facts.status.as_str().to_string()),
        (
            STATUS_KIND.to_string(),
            status_kind(facts.status, facts.kind),
        ),
    ];
    for player in facts.players.into_iter().flatten() {
        if facts.status == Status::Open {
            tags.push((OPEN_SEAT.to_string(), player.clone()));
        }
        tags.push((PLAYER.to_string(), player));
    }
    if let Some(parent) = facts.parent {
        tags.push((PARENT.to_string(), parent.game));
    }
    if facts.sealed {
        tags.push(entry(SEALED));
    }
    if facts.superseded {
        tags.push(entry(SUPERSEDED));
    }
    if facts.status == Status::Active {
        if !facts.time_control.is_none() {
            tags.push(entry(CLOCK_RUNNING));
        }
        if facts.away.contains(&true) {
            tags.push(entry(VACATION_PAUSED));
        }
    }
    tags
}
