//! Lists of games from the index: the lobby's list by kind and status in pages, and a
//! player's own games. A list filtered by status and kind reads the compound entry, so it
//! never walks the games of the status to find a rare kind (once an older store's index is
//! brought up to date, see `reindex`).

use crate::commands::Games;
use crate::error::{ApiCode, ApiError};
use crate::index;
use crate::repository::SlotRef;
use chrono::{DateTime, Utc};
use domain::table::Status;

/// What every game id begins with.
pub const GAME_ID: &str = "g-";

/// One page of a list, and the cursor of the next one (`None`: nothing more).
pub struct Page<T> {
    pub items: Vec<T>,
    pub next: Option<String>,
}

impl<T> Page<T> {
    /// The page of at most `limit` of `found` (read with one more than `limit`, to tell
    /// whether there is more), the next one after the cursor `cursor` gives its last item.
    pub fn of(mut found: Vec<T>, limit: usize, cursor: impl Fn(&T) -> String) -> Page<T> {
        let more = found.len() > limit;
        found.truncate(limit);
        let next = if more {
            found.last().map(&cursor)
        } else {
            None
        };
        Page { items: found, next }
    }

    /// The page with each item made into another.
    pub fn try_map<U, E>(self, f: impl FnMut(T) -> Result<U, E>) -> Result<Page<U>, E> {
        Ok(Page {
            items: self.items.into_iter().map(f).collect::<Result<_, _>>()?,
            next: self.next,
        })
    }
}

/// A list's cursor that is an id with `prefix` (`g-` for games, `wh-` for webhooks): the id
/// of the last item of the previous page. Anything else is no cursor of the list, and is
/// refused rather than read as "after everything" (an empty page, as if the list ended).
pub fn id_cursor<'a>(after: Option<&'a str>, prefix: &str) -> Result<Option<&'a str>, ApiError> {
    let Some(after) = after else {
        return Ok(None);
    };
    let well_formed = after.strip_prefix(prefix).is_some_and(|rest| {
        (1..=64).contains(&rest.len())
            && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    });
    if well_formed {
        Ok(Some(after))
    } else {
        Err(ApiError::new(
            ApiCode::BadQuery,
            format!("after={after} is not the `next` of a page of this list: send the `next` of the previous page."),
        ))
    }
}

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
    pub fn list(&self, filter: &GameFilter) -> Result<Page<SlotRef>, ApiError> {
        if let Some(kind) = &filter.kind {
            if self.registry().get(kind).is_none() {
                let kinds = self.registry().ids();
                return Err(ApiError::new(
                    ApiCode::UnknownKind,
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
        let ids = self.repository().ids_tagged(
            name,
            &value,
            id_cursor(filter.after.as_deref(), GAME_ID)?,
            filter.limit.saturating_add(1),
        )?;
        Page::of(ids, filter.limit, String::clone).try_map(|id| self.slot(&id))
    }

    /// A page of games by status and kind from the status entries alone, for a store whose
    /// older games may still lack their `status_kind` entry (until the reindex has run).
    fn list_walking_the_status(
        &self,
        status: Status,
        kind: &str,
        filter: &GameFilter,
    ) -> Result<Page<SlotRef>, ApiError> {
        const PAGE: usize = 500;
        let mut found: Vec<String> = Vec::new();
        let page = |found: Vec<String>| {
            Page::of(found, filter.limit, String::clone).try_map(|id| self.slot(&id))
        };
        let mut from = id_cursor(filter.after.as_deref(), GAME_ID)?.map(str::to_string);
        loop {
            let ids = self.repository().ids_tagged(
                index::STATUS,
                status.as_str(),
                from.as_deref(),
                PAGE,
            )?;
            for id in &ids {
                if self.repository().has_entry(id, index::KIND, kind)? {
                    found.push(id.clone());
                    if found.len() > filter.limit {
                        return page(found);
                    }
                }
            }
            match ids.last() {
                Some(last) if ids.len() == PAGE => from = Some(last.clone()),
                _ => return page(found),
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
    ) -> Result<Page<SlotRef>, ApiError> {
        let after = id_cursor(after, GAME_ID)?;
        let ids =
            self.repository()
                .ids_tagged(index::PLAYER, player, after, limit.saturating_add(1))?;
        Page::of(ids, limit, String::clone).try_map(|id| self.slot(&id))
    }

    /// One page of the games where `player` must act now, most urgent first: the nearest
    /// deadline, then the untimed games that have waited longest, then by id; after the cursor
    /// `after` of that order (an [`UrgencyKey`] as a page's `next` gives it, or a game id of
    /// the list). Looks at every game of the player (each folded on its way through the
    /// bounded cache), as whose turn it is changes with every command and is not indexed.
    pub async fn my_turn(
        &self,
        player: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Page<SlotRef>, ApiError> {
        const PAGE: usize = 500;
        let mut urgent: Vec<UrgencyKey> = Vec::new();
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
                if !game.game.facts().to_act.contains(&seat) {
                    continue;
                }
                let deadline = game
                    .game
                    .facts()
                    .clocks
                    .get(seat)
                    .and_then(domain::table::SeatClock::deadline);
                urgent.push(UrgencyKey {
                    untimed: deadline.is_none(),
                    deadline,
                    updated_at: game.updated_at,
                    id: id.clone(),
                });
            }
            match ids.last() {
                Some(last) if ids.len() == PAGE => from = Some(last.clone()),
                _ => break,
            }
        }
        urgent.sort();
        let start = match after {
            None => 0,
            Some(after) => match after.parse::<UrgencyKey>() {
                // Past the key, even if its game is no longer in the list.
                Ok(key) => urgent.partition_point(|k| *k <= key),
                Err(()) => {
                    let after = id_cursor(Some(after), GAME_ID)?;
                    urgent
                        .iter()
                        .position(|k| Some(k.id.as_str()) == after)
                        .map_or(0, |at| at + 1)
                }
            },
        };
        let found: Vec<UrgencyKey> = urgent
            .into_iter()
            .skip(start)
            .take(limit.saturating_add(1))
            .collect();
        Page::of(found, limit, UrgencyKey::to_string).try_map(|key| self.slot(&key.id))
    }
}

/// Where a game stands in the list of games where it is a player's turn: the nearest deadline
/// first, then the untimed games that have waited longest, then by id. Written as a cursor
/// `U~D~T~ID` (untimed 0 or 1, the deadline and the last change in nanoseconds since 1970).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct UrgencyKey {
    untimed: bool,
    deadline: Option<DateTime<Utc>>,
    updated_at: DateTime<Utc>,
    id: String,
}

impl std::fmt::Display for UrgencyKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let nanos = |t: DateTime<Utc>| t.timestamp_nanos_opt().unwrap_or(i64::MAX);
        write!(
            f,
            "{}~{}~{}~{}",
            u8::from(self.untimed),
            self.deadline.map_or(0, nanos),
            nanos(self.updated_at),
            self.id
        )
    }
}

impl std::str::FromStr for UrgencyKey {
    type Err = ();

    fn from_str(text: &str) -> Result<UrgencyKey, ()> {
        let mut parts = text.splitn(4, '~');
        let mut next = || parts.next().ok_or(());
        let untimed = match next()? {
            "0" => false,
            "1" => true,
            _ => return Err(()),
        };
        let deadline: i64 = next()?.parse().map_err(|_| ())?;
        let updated_at: i64 = next()?.parse().map_err(|_| ())?;
        let id = next()?.to_string();
        Ok(UrgencyKey {
            untimed,
            deadline: (!untimed).then(|| DateTime::from_timestamp_nanos(deadline)),
            updated_at: DateTime::from_timestamp_nanos(updated_at),
            id,
        })
    }
}

impl Games {
    /// One page of the forks of game `id`, in id order (the game must exist).
    pub fn forks(
        &self,
        id: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Page<SlotRef>, ApiError> {
        self.slot(id)?;
        let after = id_cursor(after, GAME_ID)?;
        let ids =
            self.repository()
                .ids_tagged(index::PARENT, id, after, limit.saturating_add(1))?;
        Page::of(ids, limit, String::clone).try_map(|fork| self.slot(&fork))
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

#[cfg(test)]
mod tests {
    use super::{Page, UrgencyKey};
    use chrono::{DateTime, Utc};

    #[test]
    fn a_turn_cursor_is_read_back_as_the_key_it_was_written_from() {
        let at = |nanos: i64| DateTime::<Utc>::from_timestamp_nanos(nanos);
        for key in [
            UrgencyKey {
                untimed: false,
                deadline: Some(at(1_800_000_000_123_456_789)),
                updated_at: at(1_799_000_000_000_000_001),
                id: "g-0011223344556677".into(),
            },
            UrgencyKey {
                untimed: true,
                deadline: None,
                updated_at: at(1_799_000_000_000_000_001),
                id: "g-ffff".into(),
            },
        ] {
            let text = key.to_string();
            assert_eq!(text.parse::<UrgencyKey>(), Ok(key), "{text}");
        }
        assert!("g-0011223344556677".parse::<UrgencyKey>().is_err());
    }

    #[test]
    fn a_page_says_next_only_when_there_is_more() {
        let page = Page::of(vec![1, 2, 3], 2, |n: &i32| n.to_string());
        assert_eq!((page.items, page.next), (vec![1, 2], Some("2".into())));
        let page = Page::of(vec![1, 2], 2, |n: &i32| n.to_string());
        assert_eq!((page.items, page.next), (vec![1, 2], None));
    }
}
