//! A player's notices as the global event log tells them, for webhooks, mail and the player's
//! stream (`GET /v1/players/me/stream`) alike: [`Folds::derive`] turns one batch of a game into
//! notices through [`notification::notifications`] and [`notification::copied_past`], and
//! [`Follower`] walks the log from a [`Cursor`] for one player, as the stream does. The clock
//! keeper's warnings that a seat's clock is low are written beside each game, in a stream of
//! their own ([`clock_stream`]), so that they have a place in the log like every other notice:
//! every node's streams see them, in order, and a cursor resumes after them.

use crate::index;
use crate::webhooks::notification::{copied_past, notifications, Notification, NotificationType};
use crate::webhooks::tournament::{tournament_notifications, TournamentEventAt};
use crate::{Games, Repository};
use chrono::{DateTime, Utc};
use domain::registry::LiveGame;
use domain::table::{Status, TableFact};
use domain::tournament::{Phase, Tournament, TournamentEvent};
use domain::Seat;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;
use storage::Envelope;

/// The prefix of the streams the clock keeper writes its warnings to, one beside each game.
pub const CLOCK_PREFIX: &str = "clock-";
/// The type of a warning's event.
pub const CLOCK_LOW: &str = "clock_low";

/// The prefix of a challenge's stream (see `club::challenges`): its `challenge_issued` tells
/// each player it names.
pub const CHALLENGE_PREFIX: &str = "c-";

/// The prefix of a tournament's stream and id (see `club::tournaments`): its events tell the
/// players who joined it.
pub const TOURNAMENT_PREFIX: &str = "t-";

/// What a player's stream reads of a challenge issued.
#[derive(Deserialize)]
struct ChallengeIssued {
    #[serde(rename = "type")]
    event: String,
    kind: String,
    #[serde(default)]
    invited: Vec<String>,
}

/// The challenge `payload` issues to `player`, if it is one.
fn challenge_to(payload: &serde_json::Value, player: &str) -> Option<ChallengeIssued> {
    let issued = ChallengeIssued::deserialize(payload).ok()?;
    (issued.event == "challenge_issued" && issued.invited.iter().any(|p| p == player))
        .then_some(issued)
}

/// The stream of game `game`'s clock warnings.
pub fn clock_stream(game: &str) -> String {
    format!("{CLOCK_PREFIX}{game}")
}

/// A clock warning as stored: seat `seat` of game `game`, held by `player`, has less than a
/// quarter of its time for the move left at version `version`; its clock runs out at
/// `deadline`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClockWarning {
    pub game: String,
    pub kind: String,
    pub version: u64,
    pub seat: Seat,
    pub player: String,
    pub deadline: DateTime<Utc>,
}

impl ClockWarning {
    /// The command id of its append: one warning per clock run, however often it is tried.
    pub fn key(&self) -> String {
        format!(
            "{CLOCK_LOW}:{}:{}",
            self.seat,
            self.deadline.timestamp_millis()
        )
    }

    /// The notice it gives its player.
    pub fn notice(&self, recorded_at: DateTime<Utc>) -> Notification {
        Notification {
            deadline: Some(self.deadline),
            ..Notification::new(
                NotificationType::ClockLow,
                (&self.game, &self.kind),
                self.version,
                (&self.player, self.seat),
                recorded_at,
            )
        }
    }
}

/// When a seat's clock counts as low: a quarter of its time for a move left.
pub fn low_after(allowance: chrono::Duration) -> chrono::Duration {
    allowance / 4
}

/// The warnings game `game` (of id `id`) owes by `now`: each seat that must act, whose clock
/// runs and has a quarter of its time or less left but has not run out. Those already
/// written are written again to no effect (their key is the same).
pub fn low_clocks(id: &str, game: &dyn LiveGame, now: DateTime<Utc>) -> Vec<ClockWarning> {
    let facts = game.facts();
    let Some(allowance) = facts.time_control.allowance() else {
        return Vec::new();
    };
    if facts.status != Status::Active {
        return Vec::new();
    }
    let (players, to_act) = (&facts.players, &facts.to_act);
    facts
        .clocks
        .iter()
        .enumerate()
        .filter(|(seat, _)| to_act.contains(seat))
        .filter_map(|(seat, clock)| {
            let deadline = clock.deadline()?;
            let player = players.get(seat).cloned().flatten()?;
            (deadline - low_after(allowance) <= now && now < deadline).then(|| ClockWarning {
                game: id.to_string(),
                kind: facts.kind.to_string(),
                version: facts.version,
                seat,
                player,
                deadline,
            })
        })
        .collect()
}

/// When game `game` next owes a warning: the earliest moment one of the clocks that run gets
/// low, among those that have not run out by `now`; with `later` only, among those that are
/// not low yet at `now`.
pub fn warning_at(game: &dyn LiveGame, now: DateTime<Utc>, later: bool) -> Option<DateTime<Utc>> {
    let facts = game.facts();
    let allowance = facts.time_control.allowance()?;
    if facts.status != Status::Active {
        return None;
    }
    let to_act = &facts.to_act;
    facts
        .clocks
        .iter()
        .enumerate()
        .filter(|(seat, _)| to_act.contains(seat))
        .filter_map(|(_, clock)| clock.deadline())
        .filter(|deadline| *deadline > now)
        .map(|deadline| deadline - low_after(allowance))
        .filter(|at| !later || *at > now)
        .min()
}

/// Games and tournaments folded at the version a follower of the log last handled, so that
/// the next batch of each is folded from there rather than from its start.
#[derive(Default)]
pub struct Folds {
    games: HashMap<String, Box<dyn LiveGame>>,
    tournaments: HashMap<String, Tournament>,
}

/// The most games a follower keeps folded; past it, it starts afresh.
const MOST_FOLDS: usize = 1000;

impl Folds {
    /// The notices for each of `players` of one batch of game `stream`: its `events`, from
    /// `first_version`. A fork's or an import's copied past tells nothing; a fork is news from
    /// its `forked` batch on, as a game that did not exist before.
    pub fn derive(
        &mut self,
        repository: &Repository,
        stream: &str,
        first_version: u64,
        events: &[Envelope],
        players: &[&str],
    ) -> Result<Vec<Notification>, String> {
        let Some(last) = events.last() else {
            return Ok(Vec::new());
        };
        let cached = self
            .games
            .remove(stream)
            .filter(|g| g.facts().version + 1 == first_version);
        let logged_until = repository.logged_until(stream).map_err(|e| e.to_string())?;
        let (silent, appears) = copied_past(logged_until, first_version, last.version, events);
        let before = match cached {
            _ if first_version == 1 => None,
            Some(game) => Some(game),
            None => Some(
                repository
                    .game_at(stream, first_version - 1)
                    .map_err(|e| e.to_string())?,
            ),
        };
        let after = match &before {
            Some(before) => {
                let mut game = before.clone_box();
                if events.iter().all(|e| game.evolve(&e.payload).is_ok()) {
                    game
                } else {
                    repository
                        .game_at(stream, last.version)
                        .map_err(|e| e.to_string())?
                }
            }
            None => repository
                .game_at(stream, last.version)
                .map_err(|e| e.to_string())?,
        };
        let before = if appears { None } else { before };
        let mut found = Vec::new();
        if !silent {
            for player in players {
                found.extend(notifications(
                    before.as_deref(),
                    after.as_ref(),
                    events,
                    player,
                ));
            }
        }
        crate::messages::tell_texts(repository, &mut found, events);
        if after.facts().status != Status::Finished {
            if self.games.len() >= MOST_FOLDS {
                self.games.clear();
            }
            self.games.insert(stream.to_string(), after);
        }
        Ok(found)
    }
}

impl Folds {
    /// The notices for `player` of one event of a tournament's stream (see
    /// [`tournament_notifications`]): none unless the player ever joined it (its index's
    /// `entrant` entries). An event that cannot be read tells nothing (and is logged).
    pub fn tournament(
        &mut self,
        store: &dyn storage::EventStore,
        envelope: &Envelope,
        player: &str,
    ) -> Result<Vec<Notification>, String> {
        let stream = envelope.stream.as_str();
        let tags = store.tags(stream).map_err(|e| e.to_string())?;
        if !tags
            .iter()
            .any(|(name, value)| name == index::ENTRANT && value == player)
        {
            return Ok(Vec::new());
        }
        let cached = self
            .tournaments
            .remove(stream)
            .filter(|t| t.version + 1 == envelope.version);
        let before = match cached {
            Some(before) => before,
            None => match fold_tournament(store, stream, envelope.version - 1)? {
                Some(before) => before,
                None => return Ok(Vec::new()),
            },
        };
        let event = match TournamentEvent::deserialize(&envelope.payload) {
            Ok(event) => event,
            Err(error) => {
                tracing::error!(tournament = %stream, version = envelope.version, %error, "an unreadable tournament event");
                return Ok(Vec::new());
            }
        };
        let found = tournament_notifications(
            &before,
            &TournamentEventAt {
                stream,
                version: envelope.version,
                recorded_at: envelope.recorded_at,
                event: &event,
            },
            player,
        );
        let after = before.evolve(&event);
        if after.phase() != Phase::Finished {
            if self.tournaments.len() >= MOST_FOLDS {
                self.tournaments.clear();
            }
            self.tournaments.insert(stream.to_string(), after);
        }
        Ok(found)
    }
}

/// Tournament `stream` folded up to version `version`; `None` (logged) when one of its events
/// cannot be read.
fn fold_tournament(
    store: &dyn storage::EventStore,
    stream: &str,
    version: u64,
) -> Result<Option<Tournament>, String> {
    let mut state = Tournament::default();
    while state.version < version {
        let count = (version - state.version).min(PAGE as u64) as usize;
        let page = store
            .read_stream(stream, state.version, count)
            .map_err(|e| e.to_string())?;
        if page.is_empty() {
            return Err(format!("{stream} has no version {}", state.version + 1));
        }
        for envelope in &page {
            match TournamentEvent::deserialize(&envelope.payload) {
                Ok(event) => state = state.evolve(&event),
                Err(error) => {
                    tracing::error!(tournament = %stream, version = envelope.version, %error, "an unreadable tournament event");
                    return Ok(None);
                }
            }
        }
    }
    Ok(Some(state))
}

/// Where a player's stream stands in the log: every notice up to `position` was sent, and
/// of the batch that begins just after it (at `position + 1`), the first `sent` notices too.
/// Written `P` when `sent` is 0, else `F.N` with F the batch's first position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    /// The last position whose notices were all sent.
    pub position: u64,
    /// How many notices of the batch beginning at `position + 1` were sent.
    pub sent: usize,
}

impl Cursor {
    pub fn at(position: u64) -> Cursor {
        Cursor { position, sent: 0 }
    }
}

impl fmt::Display for Cursor {
    /// `P` (everything up to position P), or `F.N` (the first N notices of the batch that
    /// begins at position F, and everything before it).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.sent == 0 {
            write!(f, "{}", self.position)
        } else {
            write!(f, "{}.{}", self.position + 1, self.sent)
        }
    }
}

impl std::str::FromStr for Cursor {
    type Err = ();

    fn from_str(text: &str) -> Result<Cursor, ()> {
        let text = text.trim();
        let digits =
            |t: &str| !t.is_empty() && t.len() <= 20 && t.bytes().all(|b| b.is_ascii_digit());
        match text.split_once('.') {
            None if digits(text) => Ok(Cursor::at(text.parse().map_err(|_| ())?)),
            Some((first, sent)) if digits(first) && digits(sent) => {
                let first: u64 = first.parse().map_err(|_| ())?;
                let sent: usize = sent.parse().map_err(|_| ())?;
                if first == 0 {
                    return Err(());
                }
                Ok(Cursor {
                    position: first - 1,
                    sent,
                })
            }
            _ => Err(()),
        }
    }
}

/// A notice and the cursor just after it.
pub struct Told {
    pub notice: Notification,
    pub cursor: Cursor,
}

/// Events read from the log at a time.
const PAGE: usize = 256;
/// Streams of the index read per page while finding a player's.
const TAGGED_PAGE: usize = 500;
/// The most streams a follower remembers whether they are the player's.
const MOST_REMEMBERED: usize = 100_000;

/// One player's walk through the log, from a cursor: the notices of every batch of their
/// games, and the warnings of their clocks, in log order.
pub struct Follower {
    player: String,
    cursor: Cursor,
    folds: Folds,
    /// Whether each game stream seen is the player's (seats are never given up: once theirs,
    /// always; one that is not may become theirs when they join).
    mine: HashMap<String, bool>,
    /// The next event (its version and position) past the cursor of each stream that can
    /// concern the player, as last found: see [`Follower::skip_to_mine`].
    next: HashMap<String, (u64, u64)>,
}

impl Follower {
    pub fn new(player: &str, cursor: Cursor) -> Follower {
        Follower {
            player: player.to_string(),
            cursor,
            folds: Folds::default(),
            mine: HashMap::new(),
            next: HashMap::new(),
        }
    }

    pub fn cursor(&self) -> Cursor {
        self.cursor
    }

    /// The next notices after the cursor from one page of the log, and moves the cursor past
    /// what was read: `Ok(None)` when the log holds nothing after it yet.
    pub fn next_page(&mut self, games: &Games) -> Result<Option<Vec<Told>>, String> {
        self.skip_to_mine(games)?;
        let repository = games.repository();
        let page = repository
            .log_after(self.cursor.position, PAGE)
            .map_err(|e| e.to_string())?;
        if page.is_empty() {
            return Ok(None);
        }
        let mut told = Vec::new();
        for envelope in &page {
            if envelope.position <= self.cursor.position {
                continue; // part of a batch already handled
            }
            let (notices, last_position) = self.batch(repository, envelope, &page)?;
            let first = envelope.position;
            let skip = if first == self.cursor.position + 1 {
                self.cursor.sent
            } else {
                0
            };
            for (n, notice) in notices.into_iter().enumerate().skip(skip) {
                told.push(Told {
                    notice,
                    cursor: Cursor {
                        position: first - 1,
                        sent: n + 1,
                    },
                });
            }
            self.cursor = Cursor::at(last_position.max(first));
        }
        Ok(Some(told))
    }

    /// Moves the cursor on to just before the next event of a stream that can concern the
    /// player (their games by the index's `player` entries, those games' clock warnings, the
    /// challenges issued to them by `invited`, the tournaments they joined by `entrant`), or to
    /// the end of the log as it was before the
    /// index was read: nothing passed over tells the player anything, so a stream resumed from
    /// far back reads the player's own events, not the whole server's log. Until the index
    /// has every challenge's entries (an older store's reindex), nothing is passed over.
    fn skip_to_mine(&mut self, games: &Games) -> Result<(), String> {
        if self.cursor.sent > 0 || !games.index_is_current() {
            return Ok(());
        }
        let repository = games.repository();
        // The end first: every batch up to it has its index entries by now.
        let end = repository.durable_position();
        let position = self.cursor.position;
        if end <= position.saturating_add(1) {
            return Ok(());
        }
        let mut streams = Vec::new();
        for name in [index::PLAYER, index::INVITED, index::ENTRANT] {
            let mut after: Option<String> = None;
            loop {
                let page = repository
                    .ids_tagged(name, &self.player, after.as_deref(), TAGGED_PAGE)
                    .map_err(|e| e.to_string())?;
                for stream in &page {
                    if name == index::PLAYER {
                        streams.push(clock_stream(stream));
                    }
                    streams.push(stream.clone());
                }
                match page.last() {
                    Some(last) if page.len() == TAGGED_PAGE => after = Some(last.clone()),
                    _ => break,
                }
            }
        }
        let store = repository.store();
        let mut target = end + 1;
        for stream in streams {
            let from = match self.next.get(&stream) {
                Some(&(_, at)) if at > position => {
                    target = target.min(at);
                    continue;
                }
                Some(&(version, _)) => version + 1,
                None => 1,
            };
            let found = first_after(store, &stream, from, position).map_err(|e| e.to_string())?;
            if let Some((version, at)) = found {
                target = target.min(at);
                if self.next.len() >= MOST_REMEMBERED {
                    self.next.clear();
                }
                self.next.insert(stream, (version, at));
            }
        }
        if target - 1 > position {
            self.cursor = Cursor::at(target - 1);
        }
        Ok(())
    }

    /// The player's notices of the batch `envelope` begins, and the batch's last position.
    fn batch(
        &mut self,
        repository: &Repository,
        envelope: &Envelope,
        page: &[Envelope],
    ) -> Result<(Vec<Notification>, u64), String> {
        let stream = envelope.stream.as_str();
        if stream.starts_with(CLOCK_PREFIX) {
            let notices = match serde_json::from_value::<ClockWarning>(envelope.payload.clone()) {
                Ok(warning) if warning.player == self.player => {
                    vec![warning.notice(envelope.recorded_at)]
                }
                _ => Vec::new(),
            };
            return Ok((notices, envelope.position));
        }
        if stream.starts_with(CHALLENGE_PREFIX) {
            let notices = challenge_to(&envelope.payload, &self.player)
                .map(|issued| {
                    let kind = NotificationType::Challenged;
                    Notification {
                        id: format!("{stream}:1:{}:{}", self.player, kind.as_str()),
                        by_seat: Some(0),
                        ..Notification::new(
                            kind,
                            (stream, &issued.kind),
                            envelope.version,
                            (&self.player, 0),
                            envelope.recorded_at,
                        )
                    }
                })
                .into_iter()
                .collect();
            return Ok((notices, envelope.position));
        }
        if stream.starts_with(TOURNAMENT_PREFIX) {
            // Each event of a tournament tells on its own: a batch of one position.
            let notices = self
                .folds
                .tournament(repository.store(), envelope, &self.player)?;
            return Ok((notices, envelope.position));
        }
        if !stream.starts_with("g-") {
            return Ok((Vec::new(), envelope.position));
        }
        let store = repository.store();
        let Some(command) = store
            .command(stream, envelope.version)
            .map_err(|e| e.to_string())?
        else {
            return Ok((Vec::new(), envelope.position));
        };
        if !self.is_mine(repository, stream, command.last_position, page)? {
            return Ok((Vec::new(), command.last_position));
        }
        let count = (command.last_version + 1 - command.first_version) as usize;
        let events = store
            .read_stream(stream, command.first_version - 1, count)
            .map_err(|e| e.to_string())?;
        let notices = self.folds.derive(
            repository,
            stream,
            command.first_version,
            &events,
            &[self.player.as_str()],
        )?;
        Ok((notices, command.last_position))
    }

    /// Whether game `stream` is the player's, as of its batch ending at `last_position`.
    fn is_mine(
        &mut self,
        repository: &Repository,
        stream: &str,
        last_position: u64,
        page: &[Envelope],
    ) -> Result<bool, String> {
        match self.mine.get(stream) {
            Some(true) => return Ok(true),
            Some(false) => {
                // Not theirs before: theirs only if this batch seats them (or goes on past the
                // page, where it might).
                let beyond = page.last().is_some_and(|e| e.position < last_position);
                let seats_them = beyond
                    || page.iter().any(|e| {
                        e.stream == stream
                            && e.position <= last_position
                            && matches!(TableFact::of_stored(&e.payload),
                            Some(TableFact::SeatTaken { player, .. }) if player == self.player)
                    });
                if !seats_them {
                    return Ok(false);
                }
            }
            None => {}
        }
        let tags = repository.store().tags(stream).map_err(|e| e.to_string())?;
        let mine = tags
            .iter()
            .any(|(name, value)| name == index::PLAYER && value == &self.player);
        if !index::listed(&tags) {
            // Not remembered: that would pass its last batch by (see `index::listed`).
            return Ok(mine);
        }
        if self.mine.len() >= MOST_REMEMBERED {
            self.mine.clear();
        }
        self.mine.insert(stream.to_string(), mine);
        Ok(mine)
    }
}

/// The first event of `stream` from version `from` on whose position is past `position`: its
/// version and position (positions grow with versions, so a few reads find it).
fn first_after(
    store: &dyn storage::EventStore,
    stream: &str,
    from: u64,
    position: u64,
) -> Result<Option<(u64, u64)>, storage::StorageError> {
    let at = |version: u64| -> Result<Option<u64>, storage::StorageError> {
        let read = store.read_stream(stream, version - 1, 1)?;
        Ok(read.first().map(|e| e.position))
    };
    let (mut low, mut high) = (from.max(1), store.head(stream)?);
    if low > high || at(high)?.is_none_or(|last| last <= position) {
        return Ok(None);
    }
    while low < high {
        let middle = low + (high - low) / 2;
        if at(middle)?.is_some_and(|p| p > position) {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    Ok(at(low)?.map(|p| (low, p)))
}

#[cfg(test)]
mod tests {
    use super::Cursor;

    #[test]
    fn a_cursor_is_written_as_it_is_read() {
        for text in ["0", "17", "18.1", "18.3", "18446744073709551615"] {
            let cursor: Cursor = text.parse().expect(text);
            assert_eq!(cursor.to_string(), text);
        }
        let mid: Cursor = "18.2".parse().unwrap();
        assert_eq!((mid.position, mid.sent), (17, 2), "the batch begins at 18");
        assert_eq!("18.0".parse::<Cursor>().unwrap(), Cursor::at(17));
        for bad in [
            "",
            "x",
            "-1",
            "1.",
            ".1",
            "0.1",
            "1.2.3",
            "1 2",
            "123456789012345678901",
        ] {
            assert!(bad.parse::<Cursor>().is_err(), "{bad}");
        }
    }
}
