//! Lists of games from the index: the lobby's list by kind and status in pages, and a
//! player's own games. A list filtered by status and kind reads the compound entry, so it
//! never walks the games of the status to find a rare kind (once an older store's index is
//! brought up to date, see `reindex`).

use crate::app::commands::Games;
use crate::app::index;
use crate::app::repository::SlotRef;
use crate::problem::ApiError;
use domain::table::Status;

/// Which games a list shows, and which page of them.
pub struct GameFilter {
    pub kind: Option<String>,
    pub status: Option<Status>,
    /// Games after this id (the last id of the previous page).
    pub after: Option<String>,
    pub limit: usize,
}

impl Games {
    /// One page of games by the filter, in id order.
    pub fn list(&self, filter: &GameFilter) -> Result<Vec<SlotRef>, ApiError> {
        if let Some(kind) = &filter.kind {
            if self.registry().get(kind).is_none() {
                let kinds = self.registry().ids();
                return Err(ApiError::bad_request(
                    "unknown_kind",
                    format!(
                        "There is no game \"{kind}\": kind is one of {}.",
                        kinds.join(", ")
                    ),
                ));
            }
        }
        let (name, value) = match (filter.status, &filter.kind) {
            (Some(status), Some(kind)) if !self.index_is_current() => {
                return self.list_walking_the_status(status, kind, filter);
            }
            (Some(status), Some(kind)) => (index::STATUS_KIND, index::status_kind(status, kind)),
            (Some(status), None) => (index::STATUS, status.as_str().to_string()),
            (None, Some(kind)) => (index::KIND, kind.clone()),
            (None, None) => (index::LISTED.0, index::LISTED.1.to_string()),
        };
        let ids =
            self.repository()
                .ids_tagged(name, &value, filter.after.as_deref(), filter.limit)?;
        ids.iter().map(|id| self.slot(id)).collect()
    }

    /// A page of games by status and kind from the status entries alone, for a store whose
    /// older games may still lack their `status_kind` entry (until the reindex has run).
    fn list_walking_the_status(
        &self,
        status: Status,
        kind: &str,
        filter: &GameFilter,
    ) -> Result<Vec<SlotRef>, ApiError> {
        const PAGE: usize = 500;
        let mut found = Vec::new();
        let mut from = filter.after.clone();
        loop {
            let ids = self.repository().ids_tagged(
                index::STATUS,
                status.as_str(),
                from.as_deref(),
                PAGE,
            )?;
            for id in &ids {
                if self.repository().has_entry(id, index::KIND, kind)? {
                    found.push(self.slot(id)?);
                    if found.len() == filter.limit {
                        return Ok(found);
                    }
                }
            }
            match ids.last() {
                Some(last) if ids.len() == PAGE => from = Some(last.clone()),
                _ => return Ok(found),
            }
        }
    }

    /// How many games still waiting for players `player` holds a seat in, counted up to
    /// `up_to` (0: not counted).
    pub fn open_seats(&self, player: &str, up_to: usize) -> Result<usize, ApiError> {
        if up_to == 0 {
            return Ok(0);
        }
        Ok(self
            .repository()
            .ids_tagged(index::OPEN_SEAT, player, None, up_to)?
            .len())
    }

    /// One page of the games where `player` holds a seat, in id order, after game `after`.
    pub fn seated(
        &self,
        player: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<SlotRef>, ApiError> {
        let ids = self
            .repository()
            .ids_tagged(index::PLAYER, player, after, limit)?;
        ids.iter().map(|id| self.slot(id)).collect()
    }

    /// One page of the games where `player` must act now, most urgent first: the nearest
    /// deadline, then the untimed games that have waited longest; after game `after` of that
    /// order. Looks at every game of the player (each folded on its way through the bounded
    /// cache), as whose turn it is changes with every command and is not indexed.
    pub async fn my_turn(
        &self,
        player: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<SlotRef>, ApiError> {
        const PAGE: usize = 500;
        let mut urgent = Vec::new();
        let mut from: Option<String> = None;
        loop {
            let ids = self
                .repository()
                .ids_tagged(index::PLAYER, player, from.as_deref(), PAGE)?;
            for id in &ids {
                let slot = self.slot(id)?;
                let game = slot.lock().await;
                let Some(seat) = game.game.seat_of(player) else {
                    continue;
                };
                if !game.game.to_act().contains(&seat) {
                    continue;
                }
                let deadline = game
                    .game
                    .clocks()
                    .get(seat)
                    .and_then(domain::table::SeatClock::deadline);
                urgent.push(((deadline.is_none(), deadline, game.updated_at), id.clone()));
            }
            match ids.last() {
                Some(last) if ids.len() == PAGE => from = Some(last.clone()),
                _ => break,
            }
        }
        urgent.sort();
        let start = match after {
            Some(after) => urgent
                .iter()
                .position(|(_, id)| id == after)
                .map_or(0, |at| at + 1),
            None => 0,
        };
        urgent
            .iter()
            .skip(start)
            .take(limit)
            .map(|(_, id)| self.slot(id))
            .collect()
    }
}

impl Games {
    /// One page of the forks of game `id`, in id order (the game must exist).
    pub fn forks(
        &self,
        id: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<SlotRef>, ApiError> {
        self.slot(id)?;
        let ids = self
            .repository()
            .ids_tagged(index::PARENT, id, after, limit)?;
        ids.iter().map(|fork| self.slot(fork)).collect()
    }
}

impl Games {
    /// Game `id` and up to `limit` of its stored events after version `after`; when there are
    /// none yet, waits up to `wait` for one (a long-poll).
    pub async fn events(
        &self,
        id: &str,
        after: u64,
        limit: usize,
        wait: std::time::Duration,
    ) -> Result<(SlotRef, Vec<storage::Envelope>), ApiError> {
        let slot = self.slot(id)?;
        let repository = self.repository();
        let mut envelopes = repository.events(id, after, limit)?;
        if envelopes.is_empty() && !wait.is_zero() {
            repository.wait_for(id, after, wait).await;
            envelopes = repository.events(id, after, limit)?;
        }
        Ok((slot, envelopes))
    }
}
